//! `mktemp [OPTION]… [TEMPLATE]`: where the new file or directory lands, read from the
//! template and the directory options: `-p DIR`/`--tmpdir=DIR` joined with the template (or
//! a name of mktemp's own there), a template with a directory part where it says, and any
//! other (`-t`, a bare template, none) under the temporary directory. Reached by name from
//! `commands/files.toml` (`analyser = "mktemp"`), whose forms say when it makes nothing
//! (`-u`, `--dry-run`).

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use gate_spec::effect::Act;
use std::borrow::Cow;

/// The file `mktemp` makes: a `write` where its directory and template put it.
pub(crate) fn mktemp(_: &Cmd<'_, '_>, a: &Args<'_>, ops: &[Cow<'_, str>], out: &mut Sink) {
    let dir = a.value("p").or(a.value("tmpdir"));
    let template = ops.first().map(|t| &**t);
    match (dir, template) {
        (Some(d), Some(t)) => out.path(Act::Write, &format!("{d}/{t}")),
        (Some(d), None) => out.path(Act::Write, &format!("{d}/tmp.X")),
        // `-t`, or a template with no directory part: under $TMPDIR.
        (None, Some(t)) if t.contains('/') && !a.has("t") => out.path(Act::Write, t),
        (None, _) => out.path(Act::Write, "/tmp/tmp.X"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::effects;

    #[test]
    fn where_the_template_puts_the_file() {
        assert_eq!(effects("mktemp -d"), vec!["write@temp"]);
        assert_eq!(effects("mktemp -u"), Vec::<String>::new());
        assert_eq!(effects("mktemp --dry-run x.XXX"), Vec::<String>::new());
        assert_eq!(effects("mktemp -p /tmp x.XXXX"), vec!["write@temp"]);
        assert_eq!(
            effects("mktemp --tmpdir=build x.XXX"),
            vec!["write@outputs"]
        );
        assert_eq!(effects("mktemp -p . x.XXX"), vec!["write@source"]);
        assert_eq!(effects("mktemp src/x.XXXX"), vec!["write@source"]);
        assert_eq!(effects("mktemp -t src/x.XXXX"), vec!["write@temp"]);
        assert_eq!(effects("mktemp x.XXXX"), vec!["write@temp"]);
    }
}
