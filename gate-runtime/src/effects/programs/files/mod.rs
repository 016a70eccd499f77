//! File programs: what each does to the paths it names — delete, move, copy, write,
//! truncate, permissions, links, in-place editors, archives, and the readers. One file per
//! sub-family; [`model`] asks each in turn.

use super::super::{Cmd, Sink};
use gate_spec::effect::Act;

mod archive;
mod attrs;
mod copy;
mod edit;
mod read;
mod remove;
mod write;

/// The sub-families, asked in order; the first that knows the program models it.
const PARTS: &[fn(&Cmd<'_, '_>, &mut Sink) -> bool] = &[
    remove::model,
    copy::model,
    attrs::model,
    edit::model,
    write::model,
    archive::model,
    read::model,
];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    PARTS.iter().any(|part| part(cmd, out))
}

/// `act` on each operand that names a file (not `-`, standard input or output).
fn each<S: AsRef<str>>(out: &mut Sink, act: Act, operands: &[S]) {
    for op in operands {
        let op = op.as_ref();
        if op != "-" && !op.is_empty() {
            out.path(act, op);
        }
    }
}

/// The last component of a path as written (`a/b/` → `b`).
fn base(path: &str) -> &str {
    let t = path.trim_end_matches('/');
    match t.rfind('/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

/// Whether a destination as written is certainly a directory: it ends in `/`, or is `.`,
/// `..`, `~`, `~user`, `/`, `$HOME`, `$PWD` (or ends in `/.` or `/..`).
fn is_dir_spelling(dest: &str) -> bool {
    dest.ends_with('/')
        || matches!(
            dest,
            "." | ".." | "$HOME" | "${HOME}" | "$PWD" | "${PWD}" | "$OLDPWD" | "$TMPDIR"
        )
        || dest.ends_with("/.")
        || dest.ends_with("/..")
        || (dest.starts_with('~') && !dest.contains('/'))
}

/// Where `src` lands when copied or moved into directory `dir`: `dir/base(src)`.
fn into(dir: &str, src: &str) -> String {
    let b = base(src);
    if b.is_empty() || b == "." || b == ".." || b == "~" || b.starts_with('$') {
        return dir.to_string();
    }
    format!("{}/{}", dir.trim_end_matches('/'), b)
}

/// Whether an operand names a remote (`host:path`, `user@host:path`, `host::module`,
/// `rsync://…`, `scheme://…`).
fn is_remote(op: &str) -> bool {
    if op.contains("://") {
        return true;
    }
    match op.find(':') {
        Some(i) if i > 0 => !op[..i].contains('/'),
        _ => false,
    }
}

#[cfg(test)]
pub(super) mod testing {
    //! The family tests' helpers, and one for a program given its standard input (the
    //! parser does not pass here-documents on yet).

    pub(crate) use super::super::testing::{effects, has};
    use crate::effects::{places, Cmd, RawTarget, Sink};
    use std::borrow::Cow;

    /// The effects of `program args…` reading `stdin`, as sorted `act@place` strings.
    pub(crate) fn stdin_effects(program: &str, args: &[&str], stdin: &str) -> Vec<String> {
        let args: Vec<Cow<'_, str>> = args.iter().map(|a| Cow::Borrowed(*a)).collect();
        let cmd = Cmd {
            program,
            args: &args,
            stdin: Some(stdin),
        };
        let mut sink = Sink::default();
        assert!(super::model(&cmd, &mut sink), "{program} not modelled");
        let at = super::super::testing::at();
        let mut v: Vec<String> = sink
            .raw
            .iter()
            .map(|(act, t)| match t {
                RawTarget::Path(p) => {
                    format!("{act}@{}", places::place_of(p, &at.cwd, None, &at).0)
                }
                RawTarget::Place(place) => format!("{act}@{place}"),
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }
}
