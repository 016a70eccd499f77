//! Subversion: discarded work (`revert`, `cleanup --remove-unversioned`), deletions (local,
//! or committed at once on a URL), commits and imports sent, checkouts fetched, and reads.

use std::borrow::Cow;

use super::super::super::getopt::{self, Grammar};
use super::super::super::Sink;
use super::each;
use gate_spec::effect::{Act, Place};

type Words<'c, 'a> = &'c [Cow<'a, str>];

const SVN: Grammar = Grammar {
    short: "qvRNu",
    short_value: "rmFcx",
    long: &[
        "quiet",
        "verbose",
        "recursive",
        "non-recursive",
        "force",
        "keep-local",
        "dry-run",
        "remove-unversioned",
        "remove-ignored",
        "include-externals",
        "vacuum-pristines",
        "parents",
        "non-interactive",
        "trust-server-cert",
        "ignore-externals",
        "incremental",
        "xml",
        "summarize",
        "stop-on-copy",
        "no-auth-cache",
        "ignore-ancestry",
        "force-log",
        "keep-changelists",
        "no-unlock",
        "auto-props",
        "no-auto-props",
        "no-ignore",
        "ignore-keywords",
        "show-updates",
        "remove",
        "reintegrate",
        "record-only",
        "allow-mixed-revisions",
        "relocate",
        "git",
        "internal-diff",
    ],
    long_value: &[
        "revision",
        "message",
        "file",
        "change",
        "depth",
        "set-depth",
        "username",
        "password",
        "targets",
        "changelist",
        "cl",
        "config-dir",
        "config-option",
        "extensions",
        "accept",
        "native-eol",
        "encoding",
        "editor-cmd",
        "diff-cmd",
        "diff3-cmd",
        "with-revprop",
        "limit",
        "search",
        "strip",
    ],
    posix: false,
};

fn svn_command(word: &str) -> &str {
    match word {
        "co" => "checkout",
        "ci" => "commit",
        "cp" => "copy",
        "del" | "remove" | "rm" => "delete",
        "di" => "diff",
        "ls" => "list",
        "mv" | "rename" | "ren" => "move",
        "pset" | "ps" => "propset",
        "pdel" | "pd" => "propdel",
        "pget" | "pg" => "propget",
        "plist" | "pl" => "proplist",
        "st" | "stat" => "status",
        "sw" => "switch",
        "up" => "update",
        "praise" | "annotate" | "ann" => "blame",
        "cl" => "changelist",
        "h" | "?" => "help",
        w => w,
    }
}

pub(super) fn model(args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&SVN, args);
    for code in a.values(&["editor-cmd", "diff-cmd", "diff3-cmd"]) {
        out.script(code);
    }
    let Some((sub, ops)) = a.operands.split_first() else {
        return;
    };
    let dry = a.has("dry-run");
    let vcs = |out: &mut Sink, act: Act| out.path(act, ".svn");
    let remote = |s: &str| s.contains("://") || s.starts_with('^');
    match svn_command(sub) {
        "status" | "log" | "diff" | "info" | "list" | "cat" | "blame" | "propget" | "proplist"
        | "mergeinfo" | "help" | "youngest" => {}
        "revert" => {
            vcs(out, Act::History);
            each(out, Act::Overwrite, None, ops);
        }
        "delete" => {
            if ops.iter().any(|o| remote(o)) {
                out.place(Act::Send, Place::Remote);
                out.place(Act::History, Place::Remote);
            }
            let local: Vec<Cow<'_, str>> = ops.iter().filter(|o| !remote(o)).cloned().collect();
            if !local.is_empty() {
                vcs(out, Act::Write);
                if !a.has("keep-local") {
                    each(out, Act::Delete, None, &local);
                }
            }
        }
        "commit" | "lock" | "unlock" => {
            out.place(Act::Send, Place::Remote);
            vcs(out, Act::Write);
        }
        "update" => {
            out.place(Act::Fetch, Place::Remote);
            each(out, Act::Write, None, ops);
        }
        "checkout" | "export" => {
            if ops.first().is_some_and(|s| remote(s)) {
                out.place(Act::Fetch, Place::Remote);
            } else if let Some(s) = ops.first() {
                out.path(Act::Read, s);
            }
            let dest = ops.get(1).map(|d| d.to_string()).unwrap_or_else(|| {
                ops.first()
                    .and_then(|s| s.trim_end_matches('/').rsplit('/').next())
                    .unwrap_or(".")
                    .to_string()
            });
            let act = if a.has("force") {
                Act::Overwrite
            } else {
                Act::Write
            };
            out.path(act, &dest);
        }
        "import" => {
            out.place(Act::Send, Place::Remote);
            if let Some(p) = ops.first().filter(|p| !remote(p)) {
                out.path(Act::Read, p);
            } else {
                out.path(Act::Read, ".");
            }
        }
        "cleanup" => {
            if a.any(&["remove-unversioned", "remove-ignored"]) {
                vcs(out, Act::History);
                each(out, Act::Delete, None, ops);
            } else {
                vcs(out, Act::Write);
            }
        }
        "copy" | "move" | "mkdir" => {
            if ops.iter().any(|o| remote(o)) {
                out.place(Act::Send, Place::Remote);
            } else if !dry {
                if let Some((dest, srcs)) = ops.split_last() {
                    let act = if svn_command(sub) == "move" {
                        Act::Move
                    } else {
                        Act::Read
                    };
                    if svn_command(sub) == "mkdir" {
                        each(out, Act::Write, None, ops);
                    } else {
                        for s in srcs {
                            out.path(act, s);
                        }
                        out.path(Act::Write, dest);
                    }
                }
                vcs(out, Act::Write);
            }
        }
        "switch" | "merge" | "patch" | "resolve" | "resolved" => {
            if !dry {
                vcs(out, Act::Write);
                out.path(Act::Write, ".");
            }
        }
        "add" | "propset" | "propdel" | "propedit" | "changelist" | "relocate" | "upgrade" => {
            vcs(out, Act::Write)
        }
        _ => out.none(Act::Exec),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn svn_forms() {
        for line in [
            "svn revert -R .",
            "svn revert --recursive .",
            "svn revert --depth infinity .",
            "svn revert src/a.c",
            "svn cleanup --remove-unversioned",
            "svn cleanup --remove-ignored .",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        assert!(has("svn revert -R .", "overwrite@project"));
        assert!(has("svn cleanup --remove-unversioned", "delete@project"));
        assert!(has("svn rm src", "delete@source"));
        assert!(has(
            "svn delete https://svn/x/trunk -m bye",
            "history@remote"
        ));
        assert!(!has("svn delete --keep-local src", "delete@source"));
        assert!(has("svn commit -m x", "send@remote"));
        assert!(has("svn import . https://svn/x -m x", "send@remote"));
        assert!(has("svn co https://svn/x/trunk /tmp/t", "write@temp"));
        assert!(has("svn diff --diff-cmd 'rm -rf ~'", "delete@home"));
        for line in [
            "svn status",
            "svn st",
            "svn log -l 3",
            "svn info",
            "svn diff",
            "svn cat x",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        assert_eq!(effects("svn cleanup"), vec!["write@vcs"]);
    }
}
