//! git: its global options (`-C`, `-c`, `--git-dir`, `--work-tree`, …), aliases given with
//! `-c alias.x=…`, and each subcommand's option grammar (long options by unambiguous prefix,
//! as git's parse-options accepts them): what rewrites history or discards work, what only
//! writes the repository's metadata, what talks to a remote, and what only reads.

use std::borrow::Cow;

mod config;
pub(crate) use config::VIEWERS as GIT_VIEWERS;
mod refs;
mod work;

use config::{config, config_key, runs_code};
use refs::{branch, clone, push, rebase, submodule, tag, worktree};
use work::{apply, checkout, checkout_index, clean, mv, reset, restore, rm, stash, switch};

use super::super::super::getopt::{self, Grammar};
use super::super::super::Sink;
use super::join;
use gate_spec::effect::{Act, Place};

type Words<'c, 'a> = &'c [Cow<'a, str>];

const GLOBAL: Grammar = Grammar {
    short: "pPvh",
    short_value: "Cc",
    long: &[
        "no-pager",
        "paginate",
        "bare",
        "no-replace-objects",
        "literal-pathspecs",
        "glob-pathspecs",
        "noglob-pathspecs",
        "icase-pathspecs",
        "no-optional-locks",
        "no-lazy-fetch",
        "no-advice",
        "version",
        "help",
        "html-path",
        "man-path",
        "info-path",
        "exec-path",
        "list-cmds",
    ],
    long_value: &[
        "git-dir",
        "work-tree",
        "namespace",
        "super-prefix",
        "config-env",
        "attr-source",
    ],
    posix: true,
};

/// What the global options set up for the subcommand.
#[derive(Default)]
struct Ctx<'s> {
    /// What the command reads on standard input (a patch for `apply`).
    stdin: Option<&'s str>,
    /// `-C DIR`, accumulated: where relative paths resolve.
    dir: Option<String>,
    /// `--work-tree` (or `core.worktree`): the tree that discarding commands act on.
    work_tree: Option<String>,
    /// `--git-dir`: the metadata is elsewhere than `.git`, there.
    git_dir: Option<String>,
    /// `-c alias.NAME=BODY`.
    aliases: Vec<(String, String)>,
}

impl Ctx<'_> {
    fn at(&self, path: &str) -> String {
        join(self.dir.as_deref(), path)
    }

    /// The working tree as a path.
    fn root(&self) -> String {
        match &self.work_tree {
            Some(w) => w.clone(),
            None => self.at("."),
        }
    }

    /// `act` at the repository's metadata.
    fn vcs(&self, out: &mut Sink, act: Act) {
        if let Some(dir) = &self.git_dir {
            // The metadata is read where `--git-dir` names it, whatever that place is (gate's
            // own store among them): a repository there is not one to change unseen.
            out.place(act, Place::Vcs);
            out.path(Act::Read, dir);
        } else {
            out.path(act, &self.at(".git"));
        }
    }

    /// `act` on each pathspec (the tree when none).
    fn paths(&self, out: &mut Sink, act: Act, specs: &[Cow<'_, str>]) {
        if specs.is_empty() {
            out.path(act, &self.root());
        }
        for s in specs {
            out.path(act, &self.pathspec(s));
        }
    }

    /// `act` on each pathspec (the tree when none) and on what `reach` finds under it.
    fn trees(
        &self,
        out: &mut Sink,
        act: Act,
        specs: &[Cow<'_, str>],
        reach: super::super::super::Reach,
    ) {
        if specs.is_empty() {
            out.tree(act, &self.root(), reach);
            return;
        }
        for s in specs {
            out.tree(act, &self.pathspec(s), reach.clone());
        }
    }

    /// A pathspec as a path: magic `:/` and `:(top)` name the tree's top.
    fn pathspec(&self, s: &str) -> String {
        if let Some(rest) = s.strip_prefix(":/") {
            return join(Some(&self.root()), rest);
        }
        if let Some(rest) = s.strip_prefix(":(") {
            let rest = rest.split_once(')').map(|(_, r)| r).unwrap_or("");
            return join(Some(&self.root()), rest);
        }
        self.at(s)
    }
}

/// `git ARGS…`.
pub(super) fn model(args: Words<'_, '_>, stdin: Option<&str>, out: &mut Sink) {
    let g = getopt::read(&GLOBAL, args);
    let mut ctx = Ctx {
        stdin,
        ..Ctx::default()
    };
    for o in &g.opts {
        let v = o.value.as_deref();
        match (&*o.name, v) {
            ("C", Some(d)) if !d.is_empty() => ctx.dir = Some(ctx.at(d)),
            ("work-tree", Some(w)) => ctx.work_tree = Some(ctx.at(w)),
            ("git-dir", Some(d)) => ctx.git_dir = Some(ctx.at(d)),
            ("c", Some(kv)) => config_key(&mut ctx, kv, out),
            ("config-env", Some(kv)) => {
                // `KEY=ENVVAR`: the value is not on the line.
                let key = kv.split_once('=').map_or(kv, |(k, _)| k);
                if runs_code(key) {
                    out.opaque(kv);
                }
            }
            ("exec-path", Some(p)) => out.opaque(p),
            _ => {}
        }
    }
    let Some((sub, rest)) = g.operands.split_first() else {
        return;
    };
    subcommand(&ctx, sub, rest, out, 0);
}

/// Where a git command runs and which subcommand it is, as its global options say: what a
/// live hook call needs to read the repository's stored configuration and hooks
/// (`effects::gitdisk`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GitCall {
    /// `-C DIR`, accumulated (relative to the line's working directory).
    pub dir: Option<String>,
    /// `--git-dir DIR`.
    pub git_dir: Option<String>,
    /// `--work-tree DIR`.
    pub work_tree: Option<String>,
    /// The subcommand (an alias's name as written), and its words.
    pub sub: Option<String>,
    pub sub_args: Vec<String>,
}

/// The [`GitCall`] of `git ARGS…`.
pub(crate) fn git_stored(args: Words<'_, '_>) -> GitCall {
    let g = getopt::read(&GLOBAL, args);
    let mut call = GitCall::default();
    for o in &g.opts {
        match (&*o.name, o.value.as_deref()) {
            ("C", Some(d)) if !d.is_empty() => call.dir = Some(join(call.dir.as_deref(), d)),
            ("git-dir", Some(d)) => call.git_dir = Some(join(call.dir.as_deref(), d)),
            ("work-tree", Some(w)) => call.work_tree = Some(join(call.dir.as_deref(), w)),
            _ => {}
        }
    }
    if let Some((sub, rest)) = g.operands.split_first() {
        call.sub = Some(sub.to_string());
        call.sub_args = rest.iter().map(|w| w.to_string()).collect();
    }
    call
}

/// `git filter-repo`, `bfg`: every commit rewritten, unless filter-repo is only asked to
/// analyse or to rehearse (it then writes its reports under `.git/filter-repo/`).
pub(super) fn rewrite_all(args: Words<'_, '_>, bfg: bool, out: &mut Sink) {
    let ctx = Ctx::default();
    if !bfg && filter_repo_reads(args) {
        ctx.vcs(out, Act::Write);
        return;
    }
    ctx.vcs(out, Act::History);
    out.path(Act::Overwrite, ".");
}

/// Whether `git filter-repo` leaves history as it is: `--analyze` (reports only) or
/// `--dry-run` (both streams saved for comparison, the repository unchanged), in any
/// prefix argparse accepts for them (`--analy`, `--dry`), before `--`.
fn filter_repo_reads(args: Words<'_, '_>) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| is_prefix_of(a, "--analyze", 4) || is_prefix_of(a, "--dry-run", 5))
}

/// Whether `word` is `long` or an abbreviation of it at least `min` characters long.
fn is_prefix_of(word: &str, long: &str, min: usize) -> bool {
    word.len() >= min && long.starts_with(word)
}

/// Every `--output FILE`/`--output=FILE` of a reading subcommand (`diff`, `log`).
fn output_option(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" {
            break;
        }
        if let Some(v) = a.strip_prefix("--output=") {
            out.path(Act::Overwrite, &ctx.at(v));
        } else if a == "--output" {
            if let Some(v) = args.get(k) {
                out.path(Act::Overwrite, &ctx.at(v));
            }
        }
    }
}

const READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "grep",
    "cat-file",
    "show-ref",
    "for-each-ref",
    "help",
    "version",
    "whatchanged",
    "name-rev",
    "merge-base",
    "count-objects",
    "fsck",
    "verify-commit",
    "verify-tag",
    "verify-pack",
    "check-ignore",
    "check-attr",
    "check-ref-format",
    "check-mailmap",
    "var",
    "cherry",
    "range-diff",
    "diff-tree",
    "diff-files",
    "diff-index",
    "show-branch",
    "get-tar-commit-id",
    "column",
    "stripspace",
    "request-pull",
    "show-index",
    "unpack-file",
    "merge-tree",
    "patch-id",
    "bugreport",
    "diagnose",
    "hook",
];

/// Subcommands that write only the repository's metadata (index, refs, objects, config).
const WRITES_VCS: &[&str] = &[
    "add",
    "commit",
    "notes",
    "replace",
    "pack-refs",
    "repack",
    "rerere",
    "commit-graph",
    "multi-pack-index",
    "maintenance",
    "remote",
    "mktag",
    "mktree",
    "commit-tree",
    "update-index",
    "read-tree",
    "write-tree",
    "prune-packed",
    "fast-import",
    "unpack-objects",
    "index-pack",
    "pack-objects",
    "sparse-checkout",
    "stage",
    "citool",
    "gui",
    "annex",
];

fn subcommand(ctx: &Ctx, sub: &str, args: Words<'_, '_>, out: &mut Sink, depth: usize) {
    if READ_ONLY.contains(&sub) {
        output_option(ctx, args, out);
        return;
    }
    if WRITES_VCS.contains(&sub) {
        ctx.vcs(out, Act::Write);
        return;
    }
    match sub {
        "push" => push(args, out),
        "reset" => reset(ctx, args, out),
        "clean" => clean(ctx, args, out),
        "checkout" => checkout(ctx, args, out),
        "switch" => switch(ctx, args, out),
        "restore" => restore(ctx, args, out),
        "stash" => stash(ctx, args, out),
        "checkout-index" => checkout_index(ctx, args, out),
        "branch" => branch(ctx, args, out),
        "tag" => tag(ctx, args, out),
        "reflog" => {
            if args
                .first()
                .is_some_and(|a| matches!(&**a, "expire" | "delete" | "drop"))
            {
                ctx.vcs(out, Act::History);
            }
        }
        // Deleting HEAD leaves a repository git no longer recognises; pointing it elsewhere
        // is a checkout without the files.
        "symbolic-ref" => {
            if getopt::read(&SYMBOLIC_REF, args).any(&["d", "delete"]) {
                ctx.vcs(out, Act::History);
            } else {
                ctx.vcs(out, Act::Write);
            }
        }
        "update-ref" => {
            let a = getopt::read(&UPDATE_REF, args);
            if a.any(&["d", "stdin"]) {
                ctx.vcs(out, Act::History);
            } else {
                ctx.vcs(out, Act::Write);
            }
        }
        "filter-repo" if filter_repo_reads(args) => ctx.vcs(out, Act::Write),
        "filter-branch" | "filter-repo" => {
            ctx.vcs(out, Act::History);
            out.path(Act::Overwrite, &ctx.root());
        }
        "rebase" => rebase(ctx, args, out),
        "gc" => {
            let a = getopt::read(&GC, args);
            let prune_now = a
                .value("prune")
                .is_some_and(|v| matches!(v, "now" | "all") || v.starts_with("now"));
            if a.has("aggressive") || prune_now {
                ctx.vcs(out, Act::History);
            } else {
                ctx.vcs(out, Act::Write);
            }
        }
        "prune" => {
            if !getopt::read(&PRUNE, args).any(&["n", "dry-run"]) {
                ctx.vcs(out, Act::Write);
            }
        }
        "worktree" => worktree(ctx, args, out),
        "rm" => rm(ctx, args, out),
        "mv" => mv(ctx, args, out),
        "apply" => apply(ctx, args, out),
        "am" => {
            ctx.vcs(out, Act::Write);
            if !getopt::read(&SEQUENCE, args).any(&["abort", "quit", "show-current-patch"]) {
                out.path(Act::Write, &ctx.root());
            }
        }
        "clone" => clone(ctx, args, out),
        "init" => {
            let a = getopt::read(&INIT, args);
            let dir = a.operands.first().map_or_else(|| ctx.root(), |d| ctx.at(d));
            if a.has("bare") {
                out.path(Act::Write, &dir);
            } else {
                out.path(Act::Write, &join(Some(&dir), ".git"));
            }
        }
        "fetch" | "ls-remote" => out.place(Act::Fetch, Place::Remote),
        "pull" => {
            out.place(Act::Fetch, Place::Remote);
            ctx.vcs(out, Act::Write);
            out.path(Act::Write, &ctx.root());
        }
        "merge" | "cherry-pick" | "revert" | "mergetool" => {
            ctx.vcs(out, Act::Write);
            if !getopt::read(&SEQUENCE, args).any(&["abort", "quit", "continue"]) {
                out.path(Act::Write, &ctx.root());
            }
        }
        "config" => config(ctx, args, out),
        "submodule" => submodule(ctx, args, out),
        "bisect" => {
            if args.first().is_some_and(|a| a == "run") && args.len() > 1 {
                out.script(&shell_words(&args[1..]));
            }
            ctx.vcs(out, Act::Write);
        }
        "difftool" => {
            let a = getopt::read(&DIFFTOOL, args);
            if let Some(cmd) = a.value("extcmd").or(a.value("x")) {
                out.script(cmd);
            }
        }
        "archive" => {
            let a = getopt::read(&ARCHIVE, args);
            if let Some(f) = a.value("o").or(a.value("output")) {
                out.path(Act::Overwrite, &ctx.at(f));
            }
            if a.value("remote").is_some() {
                out.place(Act::Fetch, Place::Remote);
            }
        }
        "bundle" => match args.first().map(|a| &**a) {
            Some("create") => {
                if let Some(f) = args[1..].iter().find(|a| !a.starts_with('-')) {
                    out.path(Act::Overwrite, &ctx.at(f));
                }
            }
            Some("unbundle") => ctx.vcs(out, Act::Write),
            _ => {}
        },
        "format-patch" => {
            let a = getopt::read(&FORMAT_PATCH, args);
            if !a.has("stdout") {
                let dir = a.value("o").or(a.value("output-directory")).unwrap_or(".");
                out.path(Act::Write, &join(Some(&ctx.at(dir)), "*.patch"));
            }
        }
        "send-email" => {
            out.place(Act::Send, Place::Remote);
            for f in args.iter().filter(|a| !a.starts_with('-')) {
                out.path(Act::Read, &ctx.at(f));
            }
        }
        "daemon" | "instaweb" | "http-backend" | "upload-pack" | "upload-archive" => {
            out.place(Act::Send, Place::Remote)
        }
        "credential" | "credential-store" | "credential-cache" => match args.last().map(|a| &**a) {
            Some("fill" | "get") => out.path(Act::Read, "~/.git-credentials"),
            Some("approve" | "reject" | "store" | "erase") => {
                out.path(Act::Write, "~/.git-credentials")
            }
            _ => {}
        },
        "hash-object" => {
            if getopt::read(&HASH_OBJECT, args).has("w") {
                ctx.vcs(out, Act::Write);
            }
        }
        "lfs" => match args.first().map(|a| &**a) {
            Some("fetch" | "pull" | "clone") => {
                out.place(Act::Fetch, Place::Remote);
                out.path(Act::Write, &ctx.root());
            }
            Some("push") => out.place(Act::Send, Place::Remote),
            Some("checkout") => out.path(Act::Write, &ctx.root()),
            Some("ls-files" | "status" | "env" | "version" | "track" | "locks") | None => {}
            Some(_) => ctx.vcs(out, Act::Write),
        },
        _ => alias(ctx, sub, args, out, depth),
    }
}

/// A subcommand no grammar names: an alias given with `-c`, else a `git-NAME` program or an
/// alias from the user's configuration, unknown.
fn alias(ctx: &Ctx, sub: &str, args: Words<'_, '_>, out: &mut Sink, depth: usize) {
    let found = ctx
        .aliases
        .iter()
        .rev()
        .find(|(n, _)| n.eq_ignore_ascii_case(sub));
    let Some((_, body)) = found else {
        // `git-NAME` on PATH: its words read as any unknown program's are.
        super::super::model_git_external(sub, args, out);
        out.none(Act::Exec);
        return;
    };
    if let Some(code) = body.strip_prefix('!') {
        let mut script = code.to_string();
        if !args.is_empty() {
            script.push(' ');
            script.push_str(&shell_words(args));
        }
        out.script(&script);
        return;
    }
    let mut words: Vec<Cow<'_, str>> = body
        .split_whitespace()
        .map(|w| Cow::Owned(w.trim_matches(['"', '\'']).to_string()))
        .collect();
    words.extend(args.iter().cloned());
    match words.split_first() {
        Some((sub2, rest)) if depth < 4 => subcommand(ctx, sub2, rest, out, depth + 1),
        _ => out.none(Act::Exec),
    }
}

/// Words joined back into shell code, each quoted when it needs to be.
fn shell_words(words: Words<'_, '_>) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        if w.is_empty()
            || w.contains(|c: char| c.is_whitespace() || "'\"\\$`;&|<>(){}*?".contains(c))
                && words.len() > 1
        {
            s.push('\'');
            s.push_str(&w.replace('\'', "'\\''"));
            s.push('\'');
        } else {
            s.push_str(w);
        }
    }
    s
}

/// `git symbolic-ref [-m REASON] [-q] [--short] [--no-recurse] [-d|--delete] NAME [REF]`.
const SYMBOLIC_REF: Grammar = Grammar {
    short: "dq",
    short_value: "m",
    long: &["delete", "quiet", "short", "recurse", "no-recurse"],
    long_value: &[],
    posix: false,
};

/// `git prune [-n] [-v] [--progress] [--expire TIME] [HEAD…]`.
const PRUNE: Grammar = Grammar {
    short: "nv",
    short_value: "",
    long: &["dry-run", "verbose", "progress", "no-progress"],
    long_value: &["expire"],
    posix: false,
};

/// The sequencer's controls of `merge`, `cherry-pick`, `revert` and `am` (their other
/// options only matter for what a new operation writes).
const SEQUENCE: Grammar = Grammar {
    short: "",
    short_value: "msSX",
    long: &["abort", "quit", "continue", "skip", "show-current-patch"],
    long_value: &[
        "strategy",
        "strategy-option",
        "mainline",
        "gpg-sign",
        "cleanup",
    ],
    posix: false,
};

/// `git hash-object [-t TYPE] [-w] [--path FILE | --no-filters] [--stdin] FILE…`.
const HASH_OBJECT: Grammar = Grammar {
    short: "w",
    short_value: "t",
    long: &["stdin", "stdin-paths", "no-filters", "literally"],
    long_value: &["path"],
    posix: false,
};

const UPDATE_REF: Grammar = Grammar {
    short: "dz",
    short_value: "m",
    long: &["no-deref", "stdin", "create-reflog"],
    long_value: &[],
    posix: false,
};

const GC: Grammar = Grammar {
    short: "q",
    short_value: "",
    long: &[
        "aggressive",
        "auto",
        "quiet",
        "force",
        "keep-largest-pack",
        "no-prune",
        "prune",
        "cruft",
        "no-cruft",
        "detach",
        "no-detach",
    ],
    long_value: &["max-cruft-size"],
    posix: false,
};

const INIT: Grammar = Grammar {
    short: "q",
    short_value: "b",
    long: &["quiet", "bare", "shared"],
    long_value: &[
        "template",
        "separate-git-dir",
        "object-format",
        "initial-branch",
        "ref-format",
    ],
    posix: false,
};

const DIFFTOOL: Grammar = Grammar {
    short: "dygt",
    short_value: "x",
    long: &["dir-diff", "no-prompt", "prompt", "gui", "trust-exit-code"],
    long_value: &["tool", "extcmd"],
    posix: false,
};

const ARCHIVE: Grammar = Grammar {
    short: "lv0123456789",
    short_value: "o",
    long: &["list", "verbose", "worktree-attributes"],
    long_value: &[
        "format",
        "prefix",
        "output",
        "remote",
        "exec",
        "add-file",
        "add-virtual-file",
        "mtime",
    ],
    posix: false,
};

const FORMAT_PATCH: Grammar = Grammar {
    short: "nNsqkp",
    short_value: "ov",
    long: &[
        "stdout",
        "numbered",
        "no-numbered",
        "signoff",
        "cover-letter",
        "quiet",
        "rfc",
        "attach",
        "inline",
        "thread",
        "no-thread",
        "root",
        "keep-subject",
    ],
    long_value: &[
        "output-directory",
        "start-number",
        "subject-prefix",
        "in-reply-to",
        "to",
        "cc",
        "from",
        "suffix",
        "reroll-count",
        "base",
        "range-diff",
        "interdiff",
    ],
    posix: false,
};

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    fn none(line: &str) {
        assert_eq!(effects(line), Vec::<String>::new(), "{line}");
    }
    #[test]
    fn reading_subcommands_are_benign() {
        for line in [
            "git status",
            "git status --short",
            "git log --oneline -n 20",
            "git diff HEAD~1 -- src/",
            "git show HEAD:src/main.rs",
            "git blame src/lib.rs",
            "git --no-pager log -p",
            "git -P diff",
            "git -C ../other status",
            "git branch",
            "git branch -a",
            "git branch -vv",
            "git branch --merged main",
            "git branch --show-current",
            "git tag",
            "git tag -l 'v1.*'",
            "git stash list",
            "git stash show -p",
            "git reflog",
            "git rev-parse --show-toplevel",
            "git ls-files -z",
            "git config --get user.name",
            "git config user.email",
            "git config --list --show-origin",
            "git config get core.editor",
            "git clean -n",
            "git clean -nd",
            "git clean --dry-run -fdx",
            "git push --dry-run --force origin main",
            "git push -n -f",
            "git rm -n --cached x",
            "git worktree list",
            "git checkout",
            "git help reset",
            "git --version",
            "git",
            "git apply --check fix.patch --stat",
        ] {
            let e = effects(line);
            assert!(e.iter().all(|x| x.starts_with("read@")), "{line}: {e:?}");
        }
        none("git -c color.ui=always log");
        none("git -c core.pager=cat log");
    }
    #[test]
    fn a_repository_named_by_git_dir_is_read_where_it_is() {
        let vault = "~/.local/state/gate/gate.backups/git/k.git";
        for line in [
            format!("git --git-dir={vault} update-ref -d refs/backups/b1/HEAD"),
            format!("git --git-dir {vault} gc --prune=now"),
            "git -C ~ --git-dir=.local/state/gate/gate.backups/git/k.git reflog expire --all"
                .to_string(),
        ] {
            assert!(has(&line, "read@gate"), "{line}: {:?}", effects(&line));
            assert!(has(&line, "history@vcs"), "{line}: {:?}", effects(&line));
        }
        assert!(!has("git --git-dir=../other/.git commit -m x", "read@gate"));
        none("git --git-dir=.claude log");
    }

    #[test]
    fn metadata_writes_are_writes_at_vcs() {
        for line in [
            "git add -A",
            "git add .",
            "git commit -m 'fix: rm -rf / handling'",
            "git commit --amend --no-edit",
            "git checkout main",
            "git checkout -b feature/x origin/main",
            "git checkout origin/feature/x",
            "git checkout v1.2.3",
            "git checkout HEAD~1",
            "git switch main",
            "git switch -c new",
            "git reset HEAD~1",
            "git reset --soft HEAD~3",
            "git reset -- src/a.rs",
            "git restore --staged src/a.rs",
            "git restore -S .",
            "git stash",
            "git stash push -m wip",
            "git stash -u",
            "git branch new-feature",
            "git branch -d merged",
            "git branch --delete merged",
            "git branch -m old new",
            "git branch -u origin/main",
            "git tag v1.0",
            "git tag -a v1.0 -m 'release'",
            "git rm --cached secrets.txt",
            "git rebase --continue",
            "git rebase --abort",
            "git gc",
            "git gc --prune=2.weeks.ago",
            "git remote add origin git@github.com:o/r.git",
            "git update-ref refs/heads/x HEAD",
            "git worktree remove ../wt",
            "git config user.name Me",
        ] {
            let e = effects(line);
            assert!(e.contains(&"write@vcs".to_string()), "{line}: {e:?}");
            assert!(
                e.iter().all(|x| !x.starts_with("history")
                    && !x.starts_with("delete")
                    && !x.starts_with("overwrite")
                    && !x.starts_with("exec")),
                "{line}: {e:?}"
            );
        }
    }
    #[test]
    fn remotes_and_outputs() {
        assert_eq!(effects("git fetch --all --prune"), vec!["fetch@remote"]);
        assert!(has("git pull --rebase", "fetch@remote"));
        assert!(has("git pull", "write@project"));
        assert!(has("git diff --output=/etc/x", "overwrite@system"));
        assert!(has("git archive -o ~/.bashrc HEAD", "overwrite@dotfiles"));
        assert!(has("git format-patch -o /tmp/p HEAD~3", "write@temp"));
        assert!(has("git send-email .env", "read@secrets"));
        assert!(has("git send-email .env", "send@remote"));
        assert!(has("git credential fill", "read@secrets"));
    }
}
