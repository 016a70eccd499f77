//! Jujutsu: operations that drop changes or rewind the operation log (`abandon`, `undo`, `op
//! restore`, `restore`, `rebase`, bookmark deletion), pushes, fetches, and reads.

use std::borrow::Cow;

use super::super::super::getopt::{self, Args, Grammar};
use super::super::super::Sink;
use super::{clone_like, each, join, meta};
use gate_spec::effect::{Act, Place};

type Words<'c, 'a> = &'c [Cow<'a, str>];

const JJ: Grammar = Grammar {
    short: "qhBr",
    short_value: "RmdbT",
    long: &[
        "ignore-working-copy",
        "ignore-immutable",
        "no-pager",
        "quiet",
        "debug",
        "help",
        "version",
        "deleted",
        "all",
        "tracked",
        "allow-new",
        "allow-backwards",
        "allow-empty-description",
        "dry-run",
        "interactive",
        "keep-emptied",
        "summary",
        "stat",
        "git",
        "colocate",
        "no-edit",
    ],
    long_value: &[
        "repository",
        "at-op",
        "at-operation",
        "config",
        "config-toml",
        "config-file",
        "color",
        "revision",
        "revisions",
        "message",
        "from",
        "into",
        "to",
        "source",
        "destination",
        "onto",
        "insert-after",
        "insert-before",
        "branch",
        "bookmark",
        "change",
        "remote",
        "template",
        "limit",
        "tool",
        "expire",
        "description",
    ],
    posix: false,
};

pub(super) fn model(args: Words<'_, '_>, out: &mut Sink) {
    let a: Args<'_> = getopt::read(&JJ, args);
    let dir = a.value("R").or(a.value("repository")).map(str::to_string);
    let dir = dir.as_deref();
    for kv in a.values(&["config", "config-toml"]) {
        let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
        if [
            "ui.pager",
            "ui.editor",
            "ui.diff-editor",
            "ui.merge-editor",
            "merge-tools",
            "aliases",
            "ui.diff.tool",
            "fix.",
            "signing.",
        ]
        .iter()
        .any(|p| key.starts_with(p))
        {
            out.opaque(kv);
        }
    }
    let ops = &a.operands;
    let vcs = |out: &mut Sink, act: Act| meta(out, act, dir, ".jj");
    let first = ops.first().map(|o| &**o).unwrap_or("");
    let second = ops.get(1).map(|o| &**o).unwrap_or("");
    match first {
        "" | "status" | "st" | "log" | "diff" | "show" | "evolog" | "obslog" | "root" | "help"
        | "version" | "interdiff" | "cat" | "files" => {}
        "op" | "operation" => match second {
            "restore" | "abandon" | "revert" | "undo" => vcs(out, Act::History),
            _ => {}
        },
        "abandon" | "undo" | "rebase" => vcs(out, Act::History),
        "restore" => {
            vcs(out, Act::History);
            each(out, Act::Overwrite, dir, &ops[1..]);
        }
        "bookmark" | "branch" | "tag" => match second {
            "delete" | "forget" | "d" | "f" => vcs(out, Act::History),
            "set" | "move" if a.any(&["B", "allow-backwards"]) => vcs(out, Act::History),
            "list" | "l" | "" => {}
            _ => vcs(out, Act::Write),
        },
        "git" => match second {
            "push" => {
                if !a.has("dry-run") {
                    out.place(Act::Send, Place::Remote);
                    if a.has("deleted") {
                        out.place(Act::History, Place::Remote);
                    }
                }
            }
            "fetch" => {
                out.place(Act::Fetch, Place::Remote);
                vcs(out, Act::Write);
            }
            "clone" => clone_like(out, dir, &ops[2..]),
            "remote" if ops.get(2).is_some_and(|o| o == "list") => {}
            "init" => out.path(Act::Write, &join(dir, ops.get(2).map_or(".", |o| &**o))),
            _ => vcs(out, Act::Write),
        },
        "file" => match second {
            "show" | "list" | "annotate" => {}
            _ => vcs(out, Act::Write),
        },
        "config" => match second {
            "get" | "list" | "path" | "" => {}
            _ => out.path(Act::Write, "~/.config/jj/config.toml"),
        },
        "workspace" => match second {
            "list" | "root" | "" => {}
            "add" => {
                if let Some(p) = ops.get(2) {
                    out.path(Act::Write, &join(dir, p));
                }
                vcs(out, Act::Write);
            }
            _ => vcs(out, Act::Write),
        },
        "util" => {
            if second == "gc" && a.value("expire").is_some_and(|v| v == "now") {
                vcs(out, Act::History);
            } else if second == "gc" {
                vcs(out, Act::Write);
            }
        }
        "init" => out.path(Act::Write, &join(dir, ops.get(1).map_or(".", |o| &**o))),
        "new" | "edit" | "describe" | "desc" | "commit" | "ci" | "squash" | "split"
        | "duplicate" | "absorb" | "parallelize" | "diffedit" | "fix" | "sparse" | "next"
        | "prev" | "backout" | "revert" | "resolve" | "simplify-parents" | "sign" | "unsign"
        | "metaedit" | "checkout" | "merge" => vcs(out, Act::Write),
        _ => out.none(Act::Exec),
    }
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
    }
}
