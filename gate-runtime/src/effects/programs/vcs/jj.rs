//! Jujutsu's code that data cannot say (its forms are `commands/vcs.toml`): the settings
//! given with `--config` whose value is a program jj runs, and a clone's destination.

use std::borrow::Cow;

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::clone_like;

/// Setting prefixes whose value is a program jj runs (pagers, editors, diff and merge
/// tools, aliases, fix tools, signing programs).
const RUNS_CODE: &[&str] = &[
    "ui.pager",
    "ui.editor",
    "ui.diff-editor",
    "ui.merge-editor",
    "merge-tools",
    "aliases",
    "ui.diff.tool",
    "fix.",
    "signing.",
];

/// Every jj command: `--config KEY=VALUE` / `--config-toml` settings that run code make what
/// runs unknown.
pub(crate) fn jj_config(_: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    for kv in args.values(&["config", "config-toml"]) {
        let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
        if RUNS_CODE.iter().any(|p| key.starts_with(p)) {
            out.opaque(kv);
        }
    }
}

/// `jj git clone SOURCE [DEST]`: a fetch, and the destination written (seen from `-R`).
pub(crate) fn jj_clone(_: &Cmd<'_, '_>, args: &Args<'_>, rest: &[Cow<'_, str>], out: &mut Sink) {
    let dir = args.value("R").or(args.value("repository"));
    clone_like(out, dir, rest);
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn jj_forms() {
        for line in [
            "jj abandon",
            "jj abandon -r @-",
            "jj undo",
            "jj op restore abc",
            "jj op abandon ..@-",
            "jj restore",
            "jj restore --from @-- src/a.rs",
            "jj rebase -d main",
            "jj bookmark delete x",
            "jj branch forget x",
            "jj -R ../o abandon",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        assert!(has("jj restore", "overwrite@project"));
        assert!(has("jj restore --from @-- src/a.rs", "overwrite@source"));
        assert!(has("jj -R ~ restore", "overwrite@home"));
        assert!(has("jj git push --deleted", "history@remote"));
        assert_eq!(effects("jj git push"), vec!["send@remote"]);
        assert_eq!(effects("jj git push --dry-run"), Vec::<String>::new());
        for line in [
            "jj st",
            "jj log -r ::@",
            "jj diff --git",
            "jj op log",
            "jj bookmark list",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        assert_eq!(effects("jj new main"), vec!["write@vcs"]);
        assert_eq!(effects("jj describe -m x"), vec!["write@vcs"]);
        assert_eq!(effects("jj frob"), vec!["exec@none"]);
        assert!(has(
            "jj --config ui.editor='rm -rf ~' describe",
            "opaque@none"
        ));
    }
}
