//! Mercurial: history rewrites (`strip`, `histedit`, `rebase`, `rollback`), discarded work
//! (`purge`, `revert`, `update -C`), forced pushes, and reads; global options anywhere.

use std::borrow::Cow;

use super::super::super::getopt::{self, Grammar};
use super::super::super::Sink;
use super::{clone_like, each, join, meta};
use gate_spec::effect::{Act, Place};

type Words<'c, 'a> = &'c [Cow<'a, str>];

/// Global options and the per-command options that take values, as one grammar (hg
/// accepts global options anywhere on the line).
const HG: Grammar = Grammar {
    short: "qvyfaACnpkiNgxTLPwc",
    short_value: "RrmlIXudesBbtSoM",
    long: &[
        "force",
        "all",
        "clean",
        "check",
        "merge",
        "dry-run",
        "print",
        "print0",
        "keep",
        "no-backup",
        "interactive",
        "abort",
        "continue",
        "stop",
        "all-files",
        "ignored",
        "files",
        "dirs",
        "noninteractive",
        "quiet",
        "verbose",
        "debug",
        "traceback",
        "time",
        "profile",
        "amend",
        "after",
        "addremove",
        "new-branch",
        "inactive",
        "delete",
        "remove",
        "rename",
        "list",
        "cleanup",
        "stat",
        "git",
        "no-update",
        "update",
        "bypass",
        "close-branch",
        "secret",
        "draft",
        "public",
        "local",
        "help",
        "version",
        "hidden",
        "nobackup",
    ],
    long_value: &[
        "repository",
        "repo",
        "cwd",
        "config",
        "rev",
        "message",
        "logfile",
        "include",
        "exclude",
        "user",
        "date",
        "ssh",
        "remotecmd",
        "branch",
        "bookmark",
        "source",
        "dest",
        "base",
        "tool",
        "template",
        "pager",
        "color",
        "encoding",
        "limit",
        "output",
        "name",
        "type",
    ],
    posix: false,
};

/// hg's commands by canonical name, and the short names it accepts.
const HG_NAMES: &[(&str, &str)] = &[
    ("st", "status"),
    ("ci", "commit"),
    ("co", "update"),
    ("up", "update"),
    ("checkout", "update"),
    ("rm", "remove"),
    ("mv", "rename"),
    ("move", "rename"),
    ("cp", "copy"),
    ("id", "identify"),
    ("in", "incoming"),
    ("out", "outgoing"),
    ("sum", "summary"),
    ("clean", "purge"),
    ("debugstrip", "strip"),
    ("blame", "annotate"),
    ("bookmarks", "bookmark"),
    ("showconfig", "config"),
    ("unshelve", "unshelve"),
];

const HG_COMMANDS: &[&str] = &[
    "status",
    "log",
    "diff",
    "annotate",
    "cat",
    "files",
    "summary",
    "identify",
    "heads",
    "parents",
    "paths",
    "tags",
    "branches",
    "incoming",
    "outgoing",
    "help",
    "version",
    "root",
    "grep",
    "manifest",
    "config",
    "tip",
    "verify",
    "add",
    "addremove",
    "commit",
    "forget",
    "tag",
    "branch",
    "phase",
    "bookmark",
    "amend",
    "graft",
    "backout",
    "merge",
    "resolve",
    "shelve",
    "unshelve",
    "import",
    "export",
    "archive",
    "bundle",
    "unbundle",
    "strip",
    "prune",
    "histedit",
    "rebase",
    "rollback",
    "uncommit",
    "fold",
    "split",
    "evolve",
    "obsolete",
    "purge",
    "revert",
    "update",
    "push",
    "pull",
    "clone",
    "init",
    "remove",
    "rename",
    "copy",
    "serve",
];

fn hg_command(word: &str) -> Option<&'static str> {
    if let Some((_, c)) = HG_NAMES.iter().find(|(n, _)| *n == word) {
        return Some(c);
    }
    if let Some(c) = HG_COMMANDS.iter().find(|c| **c == word) {
        return Some(c);
    }
    // hg accepts an unambiguous prefix of a command's name.
    let mut found = None;
    for c in HG_COMMANDS {
        if word.len() >= 2 && c.starts_with(word) {
            if found.is_some() {
                return None;
            }
            found = Some(*c);
        }
    }
    found
}

pub(super) fn model(args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&HG, args);
    let mut dir: Option<String> = None;
    for o in &a.opts {
        match (&*o.name, o.value.as_deref()) {
            ("R" | "repository" | "repo" | "cwd", Some(d)) => {
                dir = Some(join(dir.as_deref(), d));
            }
            ("config", Some(kv)) => {
                let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
                if [
                    "hooks.",
                    "alias.",
                    "extensions.",
                    "ui.ssh",
                    "ui.editor",
                    "ui.merge",
                    "pager.",
                    "merge-tools.",
                ]
                .iter()
                .any(|p| key.starts_with(p))
                {
                    out.opaque(kv);
                }
            }
            _ => {}
        }
    }
    let dir = dir.as_deref();
    let Some((sub, ops)) = a.operands.split_first() else {
        return;
    };
    let Some(cmd) = hg_command(sub) else {
        out.none(Act::Exec);
        return;
    };
    let dry = a.any(&["n", "dry-run"]);
    let vcs = |out: &mut Sink, act: Act| meta(out, act, dir, ".hg");
    match cmd {
        "status" | "log" | "diff" | "annotate" | "cat" | "files" | "summary" | "identify"
        | "heads" | "parents" | "paths" | "tags" | "branches" | "help" | "version" | "root"
        | "grep" | "manifest" | "tip" | "verify" => {
            if let Some(f) = a.value("o").or(a.value("output")) {
                out.path(Act::Overwrite, &join(dir, f));
            }
        }
        "config" => {
            if a.any(&["e"]) || args.iter().any(|w| w == "--edit") {
                out.path(Act::Write, "~/.hgrc");
            }
        }
        "incoming" | "outgoing" => out.place(Act::Fetch, Place::Remote),
        "add" | "addremove" | "commit" | "forget" | "amend" | "phase" | "graft" | "backout"
        | "unbundle" => {
            if !dry {
                vcs(out, Act::Write);
            }
        }
        "tag" => vcs(
            out,
            if a.any(&["remove", "f", "force"]) {
                Act::History
            } else {
                Act::Write
            },
        ),
        "branch" | "bookmark" => {
            let act = if a.any(&["f", "force"]) || cmd == "bookmark" && a.any(&["d", "delete"]) {
                Act::History
            } else if ops.is_empty() && !a.any(&["d", "delete", "m", "rename", "C", "clean"]) {
                return;
            } else {
                Act::Write
            };
            vcs(out, act);
        }
        "merge" | "resolve" | "unshelve" | "import" => {
            if cmd == "resolve" && a.any(&["l", "list"]) {
                return;
            }
            vcs(out, Act::Write);
            out.path(Act::Write, dir.unwrap_or("."));
        }
        "shelve" => {
            let drops = a.any(&["d", "delete", "cleanup"]);
            vcs(out, if drops { Act::History } else { Act::Write });
        }
        "export" | "archive" | "bundle" => {
            if let Some(f) = a.value("o").or(a.value("output")) {
                out.path(Act::Overwrite, &join(dir, f));
            } else if cmd != "export" {
                if let Some(f) = ops.first() {
                    out.path(Act::Write, &join(dir, f));
                }
            }
        }
        "strip" | "prune" | "histedit" | "rebase" | "rollback" | "uncommit" | "fold" | "split"
        | "evolve" | "obsolete" => {
            if !dry && !a.any(&["abort", "continue", "stop"]) {
                vcs(out, Act::History);
            } else if !dry {
                vcs(out, Act::Write);
            }
        }
        "purge" => {
            if !dry && !a.any(&["p", "print", "print0"]) {
                vcs(out, Act::History);
                each(out, Act::Delete, dir, ops);
            }
        }
        "revert" => {
            if !dry && (a.any(&["a", "all"]) || !ops.is_empty()) {
                vcs(out, Act::History);
                each(out, Act::Overwrite, dir, ops);
            }
        }
        "update" => {
            if a.any(&["C", "clean"]) {
                vcs(out, Act::History);
                out.path(Act::Overwrite, dir.unwrap_or("."));
            } else {
                vcs(out, Act::Write);
            }
        }
        "push" => {
            out.place(Act::Send, Place::Remote);
            if a.any(&["f", "force"]) {
                out.place(Act::History, Place::Remote);
            }
        }
        "pull" => {
            out.place(Act::Fetch, Place::Remote);
            vcs(out, Act::Write);
            if a.any(&["u", "update"]) {
                out.path(Act::Write, dir.unwrap_or("."));
            }
        }
        "clone" => clone_like(out, dir, ops),
        "init" => out.path(Act::Write, &join(dir, ops.first().map_or(".", |o| &**o))),
        "remove" => {
            if !dry {
                vcs(out, Act::Write);
                if !a.any(&["A", "after"]) {
                    each(out, Act::Delete, dir, ops);
                }
            }
        }
        "rename" | "copy" => {
            if !dry {
                if let Some((dest, srcs)) = ops.split_last() {
                    let act = if cmd == "rename" {
                        Act::Move
                    } else {
                        Act::Read
                    };
                    for s in srcs {
                        out.path(act, &join(dir, s));
                    }
                    out.path(Act::Write, &join(dir, dest));
                }
                vcs(out, Act::Write);
            }
        }
        "serve" => out.place(Act::Send, Place::Remote),
        _ => out.none(Act::Exec),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn hg_rewrites_and_discards() {
        for line in [
            "hg strip -r 3",
            "hg strip tip",
            "hg stri 3",
            "hg histedit",
            "hg rebase -d default",
            "hg rollback",
            "hg prune -r .",
            "hg purge",
            "hg purge --all",
            "hg clean",
            "hg revert --all",
            "hg revert -a --no-backup",
            "hg revert src/a.rs",
            "hg update -C default",
            "hg up --clean",
            "hg checkout -C tip",
            "hg shelve --delete x",
            "hg bookmark -d feature",
            "hg -R ../other strip 1",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        assert!(has("hg purge", "delete@project"));
        assert!(has("hg --cwd ~ purge --all", "delete@home"));
        assert!(has("hg revert src/a.rs", "overwrite@source"));
        assert!(has("hg push -f", "history@remote"));
        assert!(has("hg push --force default", "history@remote"));
        assert!(has("hg rm -f src", "delete@source"));
        assert!(has(
            "hg --config hooks.pre-commit='rm -rf ~' commit -m x",
            "opaque@none"
        ));
    }
    #[test]
    fn hg_benign() {
        for line in [
            "hg status",
            "hg st",
            "hg log -l 5",
            "hg diff -r tip",
            "hg annotate src/a.rs",
            "hg purge --print",
            "hg purge -p",
            "hg bookmarks",
            "hg branches",
            "hg summary",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        assert_eq!(effects("hg commit -m x"), vec!["write@vcs"]);
        assert_eq!(effects("hg up default"), vec!["write@vcs"]);
        assert_eq!(effects("hg push"), vec!["send@remote"]);
        assert!(has("hg clone https://x/y", "fetch@remote"));
        assert_eq!(effects("hg frob"), vec!["exec@none"]);
    }
}
