//! git subcommands that change the working tree: what discards uncommitted work (`reset
//! --hard`, `clean -f`, `checkout -- PATH`, `switch -f`, `restore`, `stash drop`), removals
//! and moves (`rm`, `mv`), and patches applied (`apply`, with the paths a patch on standard
//! input names).

use std::borrow::Cow;

use super::super::super::super::getopt::{self, Grammar};
use super::super::super::super::{Reach, Sink};
use super::super::join;
use super::{Ctx, Words};
use gate_spec::effect::Act;

/// Words after `--`, and the words before it.
fn split_dashdash<'c, 'a>(args: Words<'c, 'a>) -> (Words<'c, 'a>, Option<Words<'c, 'a>>) {
    match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], Some(&args[i + 1..])),
        None => (args, None),
    }
}

/// Whether an operand of `checkout` without `--` reads as a path rather than a revision.
fn looks_like_path(s: &str) -> bool {
    if matches!(s, "." | ".." | "*") || s.starts_with("./") || s.starts_with("../") {
        return true;
    }
    if s.starts_with('/') || s.starts_with(":/") || s.starts_with(":(") || s.ends_with('/') {
        return true;
    }
    if s.contains(['*', '?', '[']) {
        return true;
    }
    let last = s.rsplit('/').next().unwrap_or(s);
    if matches!(
        last,
        "Makefile" | "Dockerfile" | "README" | "LICENSE" | "Justfile" | "Gemfile" | "Procfile"
    ) {
        return true;
    }
    // A file extension: `main.rs`, `index.html` (not `v1.2.3` nor `HEAD~1`).
    match last.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphabetic())
        }
        None => false,
    }
}

const RESET: Grammar = Grammar {
    short: "qpN",
    short_value: "",
    long: &[
        "soft",
        "mixed",
        "hard",
        "merge",
        "keep",
        "quiet",
        "patch",
        "intent-to-add",
        "recurse-submodules",
        "no-recurse-submodules",
        "no-refresh",
        "refresh",
        "pathspec-file-nul",
    ],
    long_value: &["pathspec-from-file"],
    posix: false,
};

pub(super) fn reset(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&RESET, args);
    if a.has("hard") {
        ctx.vcs(out, Act::History);
        // Back to HEAD: the files that changed; to another commit: any file.
        let reach = match a.operands.first().map(|r| &**r) {
            None | Some("HEAD" | "@") => Reach::Modified,
            Some(_) => Reach::All,
        };
        out.tree(Act::Overwrite, &ctx.root(), reach);
    } else if a.has("merge") {
        // Staged changes to files the reset updates are discarded.
        ctx.vcs(out, Act::History);
    } else {
        ctx.vcs(out, Act::Write);
    }
}

const CLEAN: Grammar = Grammar {
    short: "dfinqxX",
    short_value: "e",
    long: &["force", "interactive", "dry-run", "quiet"],
    long_value: &["exclude"],
    posix: false,
};

pub(super) fn clean(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&CLEAN, args);
    if a.any(&["n", "dry-run"]) {
        return;
    }
    // `-i` asks what to delete on the terminal; with no answers on standard input it reads
    // none and deletes nothing (answers fed in are read as the deletion they choose).
    if a.any(&["i", "interactive"]) && ctx.stdin.is_none() {
        return;
    }
    // Without `-f` git refuses unless `clean.requireForce` is off, which the line cannot
    // show: read as the deletion it would be. Untracked work is gone for good: the whole
    // tree's (no pathspec, or one reaching the top) counts as discarded history.
    let whole = a.operands.is_empty()
        || a.operands
            .iter()
            .any(|p| matches!(&**p, "." | ":/" | "./" | "*") || p.starts_with(".."));
    if whole {
        ctx.vcs(out, Act::History);
    }
    let reach = Reach::Untracked {
        ignored: a.any(&["x", "X"]),
    };
    ctx.trees(out, Act::Delete, &a.operands, reach);
}

const CHECKOUT: Grammar = Grammar {
    short: "qfmpltd23",
    short_value: "bB",
    long: &[
        "quiet",
        "progress",
        "no-progress",
        "force",
        "merge",
        "detach",
        "ours",
        "theirs",
        "track",
        "no-track",
        "guess",
        "no-guess",
        "ignore-skip-worktree-bits",
        "ignore-other-worktrees",
        "overwrite-ignore",
        "no-overwrite-ignore",
        "recurse-submodules",
        "no-recurse-submodules",
        "overlay",
        "no-overlay",
        "patch",
        "pathspec-file-nul",
    ],
    long_value: &["orphan", "conflict", "pathspec-from-file"],
    posix: false,
};

pub(super) fn checkout(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let (pre, post) = split_dashdash(args);
    let a = getopt::read(&CHECKOUT, pre);
    let force = a.any(&["f", "force"]);
    let mut paths: Vec<Cow<'_, str>> = post.map(<[_]>::to_vec).unwrap_or_default();
    if post.is_none() && !a.any(&["b", "B", "orphan"]) {
        let ops = &a.operands;
        let by_content = a.any(&["ours", "theirs", "2", "3", "p", "patch"]);
        match ops.split_first() {
            Some((first, rest)) if looks_like_path(first) || by_content && rest.is_empty() => {
                paths.extend(ops.iter().cloned())
            }
            Some((_, rest)) => paths.extend(rest.iter().cloned()),
            None => {}
        }
    }
    if !paths.is_empty() || a.has("pathspec-from-file") {
        // Discarding the uncommitted changes of named files overwrites them; discarding a
        // whole tree, a glob or a list read from a file discards work wholesale.
        if a.has("pathspec-from-file") || !paths.iter().all(|p| names_one_file(p)) {
            ctx.vcs(out, Act::History);
        }
        // From the index: the files that changed; from a commit (`git checkout main --
        // .`): any file.
        let from_commit = post.is_some_and(|_| !a.operands.is_empty())
            || (post.is_none() && a.operands.first().is_some_and(|f| !looks_like_path(f)));
        let reach = if from_commit || a.has("pathspec-from-file") {
            Reach::All
        } else {
            Reach::Modified
        };
        ctx.trees(out, Act::Overwrite, &paths, reach);
        return;
    }
    if force {
        ctx.vcs(out, Act::History);
        out.tree(Act::Overwrite, &ctx.root(), Reach::Modified);
    } else if a.has("B") {
        ctx.vcs(out, Act::History);
    } else if !a.operands.is_empty() || a.any(&["b", "orphan", "detach", "d"]) {
        ctx.vcs(out, Act::Write);
    }
}

const SWITCH: Grammar = Grammar {
    short: "dfmqt",
    short_value: "cC",
    long: &[
        "detach",
        "discard-changes",
        "force",
        "merge",
        "quiet",
        "progress",
        "no-progress",
        "track",
        "no-track",
        "guess",
        "no-guess",
        "ignore-other-worktrees",
        "recurse-submodules",
        "no-recurse-submodules",
    ],
    long_value: &["create", "force-create", "orphan", "conflict"],
    posix: false,
};

pub(super) fn switch(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&SWITCH, args);
    if a.any(&["f", "force", "discard-changes"]) {
        ctx.vcs(out, Act::History);
        out.tree(Act::Overwrite, &ctx.root(), Reach::Modified);
    } else if a.any(&["C", "force-create"]) {
        ctx.vcs(out, Act::History);
    } else {
        ctx.vcs(out, Act::Write);
    }
}

const RESTORE: Grammar = Grammar {
    short: "pWSqm23",
    short_value: "s",
    long: &[
        "patch",
        "worktree",
        "staged",
        "quiet",
        "progress",
        "no-progress",
        "ours",
        "theirs",
        "merge",
        "ignore-unmerged",
        "ignore-skip-worktree-bits",
        "recurse-submodules",
        "no-recurse-submodules",
        "overlay",
        "no-overlay",
        "pathspec-file-nul",
    ],
    long_value: &["source", "conflict", "pathspec-from-file"],
    posix: false,
};

pub(super) fn restore(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&RESTORE, args);
    let staged = a.any(&["S", "staged"]);
    let worktree = a.any(&["W", "worktree"]) || !staged;
    if staged {
        ctx.vcs(out, Act::Write);
    }
    if worktree && (!a.operands.is_empty() || a.has("pathspec-from-file")) {
        if a.has("pathspec-from-file") || !a.operands.iter().all(|p| names_one_file(p)) {
            ctx.vcs(out, Act::History);
        }
        let reach = if a.any(&["s", "source", "pathspec-from-file"]) {
            Reach::All
        } else {
            Reach::Modified
        };
        ctx.trees(out, Act::Overwrite, &a.operands, reach);
    }
}

/// A pathspec that names one file: no glob, not a directory spelled as such (`.`, `..`,
/// a trailing `/`), no magic (`:/`, `:(glob)…`), and a file name with an extension or a
/// well-known extensionless name.
fn names_one_file(p: &str) -> bool {
    let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
    !p.ends_with('/')
        && !p.starts_with(':')
        && !p.contains(['*', '?', '['])
        && !matches!(last, "" | "." | "..")
        && (last.contains('.')
            || matches!(
                last,
                "Makefile" | "Dockerfile" | "Cargo.lock" | "LICENSE" | "README" | "Gemfile"
            ))
}

pub(super) fn stash(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    match args.first().map(|a| &**a) {
        Some("list" | "show" | "create") => {}
        Some("drop" | "clear") => ctx.vcs(out, Act::History),
        Some("pop" | "apply" | "branch") => {
            ctx.vcs(out, Act::Write);
            out.path(Act::Write, &ctx.root());
        }
        Some("store") => ctx.vcs(out, Act::Write),
        first => {
            ctx.vcs(out, Act::Write);
            // `git stash [push|save] [-u|-a] [-- PATHS]`: the changed files it saves are put
            // back as they were committed, and with `-u`/`-a` the untracked ones (and the
            // ignored ones) are deleted.
            let rest = match first {
                Some("push" | "save") => &args[1..],
                _ => args,
            };
            let (opts, paths) = split_dashdash(rest);
            let a = getopt::read(&STASH_PUSH, opts);
            let has = |short: &str, long: &str| a.any(&[short, long]);
            if has("k", "keep-index") && has("S", "staged") {
                return;
            }
            let specs: Vec<Cow<'_, str>> = paths.map(<[_]>::to_vec).unwrap_or_default();
            let roots: Vec<String> = if specs.is_empty() {
                vec![ctx.root()]
            } else {
                specs.iter().map(|s| ctx.pathspec(s)).collect()
            };
            for r in &roots {
                out.within(Act::Overwrite, r, Reach::Modified);
                if has("a", "all") {
                    out.within(Act::Delete, r, Reach::Untracked { ignored: true });
                } else if has("u", "include-untracked") {
                    out.within(Act::Delete, r, Reach::Untracked { ignored: false });
                }
            }
        }
    }
}

/// `git stash [push|save]`'s options.
const STASH_PUSH: Grammar = Grammar {
    short: "kuaqpS",
    short_value: "m",
    long: &[
        "keep-index",
        "no-keep-index",
        "include-untracked",
        "only-untracked",
        "all",
        "quiet",
        "patch",
        "staged",
        "pathspec-file-nul",
    ],
    long_value: &["message", "pathspec-from-file"],
    posix: false,
};

/// `git checkout-index [-f] [-a | -- FILE…] [--prefix=DIR/]`: the index's files written
/// into the work tree (over changed ones with `-f`), or under a prefix.
pub(super) fn checkout_index(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let (opts, files) = split_dashdash(args);
    let mut all = false;
    let mut force = false;
    let mut prefix: Option<&str> = None;
    let mut named: Vec<Cow<'_, str>> = files.map(<[_]>::to_vec).unwrap_or_default();
    for o in opts {
        match &**o {
            "-a" | "--all" => all = true,
            "-f" | "--force" => force = true,
            "--stdin" | "-z" | "-u" | "--index" | "-q" | "--quiet" | "-n" | "--no-create"
            | "--temp" => {}
            o if o.starts_with("--prefix=") => prefix = Some(&o["--prefix=".len()..]),
            o if o.starts_with('-') && !o.starts_with("--") => {
                all |= o.contains('a');
                force |= o.contains('f');
            }
            _ => named.push(o.clone()),
        }
    }
    let act = if force { Act::Overwrite } else { Act::Write };
    match prefix {
        Some(p) => out.path(Act::Write, &ctx.at(p)),
        None if all => out.tree(act, &ctx.root(), Reach::Modified),
        None => ctx.trees(out, act, &named, Reach::Modified),
    }
}

const RM: Grammar = Grammar {
    short: "rfnq",
    short_value: "",
    long: &[
        "cached",
        "force",
        "dry-run",
        "quiet",
        "ignore-unmatch",
        "sparse",
        "pathspec-file-nul",
    ],
    long_value: &["pathspec-from-file"],
    posix: false,
};

pub(super) fn rm(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&RM, args);
    if a.any(&["n", "dry-run"]) {
        return;
    }
    ctx.vcs(out, Act::Write);
    if a.has("cached") {
        return;
    }
    if !a.operands.is_empty() || a.has("pathspec-from-file") {
        ctx.paths(out, Act::Delete, &a.operands);
    }
}

const MV: Grammar = Grammar {
    short: "fknv",
    short_value: "",
    long: &["force", "dry-run", "verbose", "sparse"],
    long_value: &[],
    posix: false,
};

pub(super) fn mv(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&MV, args);
    if a.any(&["n", "dry-run"]) {
        return;
    }
    ctx.vcs(out, Act::Write);
    if let Some((dest, sources)) = a.operands.split_last() {
        for s in sources {
            out.path(Act::Move, &ctx.at(s));
        }
        if !sources.is_empty() {
            let act = if a.any(&["f", "force"]) {
                Act::Overwrite
            } else {
                Act::Write
            };
            out.path(act, &ctx.at(dest));
        }
    }
}

const APPLY: Grammar = Grammar {
    short: "R3vzq",
    short_value: "pC",
    long: &[
        "stat",
        "numstat",
        "summary",
        "check",
        "index",
        "intent-to-add",
        "cached",
        "reverse",
        "reject",
        "unidiff-zero",
        "apply",
        "no-add",
        "binary",
        "allow-binary-replacement",
        "recount",
        "inaccurate-eof",
        "verbose",
        "quiet",
        "unsafe-paths",
        "allow-empty",
        "3way",
        "ours",
        "theirs",
        "union",
        "allow-overlap",
    ],
    long_value: &[
        "exclude",
        "include",
        "directory",
        "whitespace",
        "build-fake-ancestor",
    ],
    posix: false,
};

/// Most lines of a patch read for the paths it touches.
const MAX_PATCH_LINES: usize = 20_000;

pub(super) fn apply(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&APPLY, args);
    for p in a.operands.iter().filter(|p| *p != "-") {
        out.path(Act::Read, &ctx.at(p));
    }
    let only_reports = a.any(&["stat", "numstat", "summary", "check"]) && !a.has("apply");
    if only_reports {
        return;
    }
    if a.any(&["cached", "index"]) {
        ctx.vcs(out, Act::Write);
        if a.has("cached") {
            return;
        }
    }
    let base = a.value("directory").map(|d| ctx.at(d));
    let from_stdin = a.operands.is_empty() || a.operands.iter().any(|p| p == "-");
    let named = match (from_stdin, ctx.stdin) {
        (true, Some(text)) => patch_paths(text),
        _ => Vec::new(),
    };
    if named.is_empty() {
        // A patch gate cannot read may write any file of the tree.
        out.tree(Act::Write, &base.unwrap_or_else(|| ctx.root()), Reach::All);
        return;
    }
    for (act, p) in named {
        let p = match &base {
            Some(b) => join(Some(b), &p),
            None => ctx.at(&p),
        };
        out.path(act, &p);
    }
}

/// The paths a unified diff touches, with what it does to each: `write`, or `delete` when
/// the new side is `/dev/null`.
fn patch_paths(text: &str) -> Vec<(Act, String)> {
    let mut out = Vec::new();
    let mut old: Option<&str> = None;
    for line in text.lines().take(MAX_PATCH_LINES) {
        if let Some(p) = line.strip_prefix("--- ") {
            old = Some(p.split('\t').next().unwrap_or(p).trim());
        } else if let Some(p) = line.strip_prefix("+++ ") {
            let new = p.split('\t').next().unwrap_or(p).trim();
            if new == "/dev/null" {
                if let Some(o) = old {
                    out.push((Act::Delete, strip_side(o).to_string()));
                }
            } else {
                out.push((Act::Write, strip_side(new).to_string()));
            }
            old = None;
        } else if let Some(p) = line.strip_prefix("rename from ") {
            out.push((Act::Move, p.trim().to_string()));
        } else if let Some(p) = line.strip_prefix("rename to ") {
            out.push((Act::Write, p.trim().to_string()));
        }
    }
    out
}

fn strip_side(p: &str) -> &str {
    p.strip_prefix("a/")
        .or_else(|| p.strip_prefix("b/"))
        .unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::super::super::super::testing::{effects, has};

    #[test]
    fn reset_hard_merge_keep() {
        for line in [
            "git reset --hard",
            "git reset --hard HEAD~3",
            "git reset --har origin/main",
            "git reset --hard=x",
            "git -C sub reset --hard",
            "git --no-pager reset --hard HEAD",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        assert!(has("git reset --hard", "overwrite@project"));
        assert!(has("git reset --merge ORIG_HEAD", "history@vcs"));
        // `--keep` aborts rather than lose a local change, and the commits stay in the reflog.
        assert_eq!(effects("git reset --keep HEAD~1"), vec!["write@vcs"]);
        assert_eq!(effects("git clean --interactive -d"), Vec::<String>::new());
        assert_eq!(effects("git clean -di"), Vec::<String>::new());
        assert!(has("printf '1\\n' | git clean -i -d", "history@vcs"));
        assert!(has("git -C ~ reset --hard", "overwrite@home"));
        assert!(has(
            "git -C /home/u/proj/.claude reset --hard",
            "history@gate"
        ));
        assert!(has("git --work-tree=/ reset --hard", "overwrite@root"));
    }
    #[test]
    fn clean_every_spelling() {
        for line in [
            "git clean -f",
            "git clean -fd",
            "git clean -fdx",
            "git clean -ffdx",
            "git clean -xdf",
            "git clean -d -f -x",
            "git clean --force",
            "git clean --forc -d",
            "git clean -f -e .env",
            "git clean -fX",
            "cd /tmp && git -C /home/u/proj clean -fdx",
        ] {
            assert!(has(line, "delete@project"), "{line}: {:?}", effects(line));
            assert!(has(line, "history@vcs"), "{line}");
        }
        assert!(has("git clean -fd src", "delete@source"));
        assert!(!has("git clean -fd build/", "history@vcs"));
        assert!(has("git clean -fd build/", "delete@outputs"));
        assert!(!has("git clean -fd src", "delete@project"));
        assert!(has("git -C ~ clean -fdx", "delete@home"));
        assert!(has("git clean -fdx :/", "delete@project"));
        assert!(has("cd src && git clean -fdx :/", "delete@source"));
    }
    #[test]
    fn checkout_discarding_work() {
        for (line, place) in [
            ("git checkout .", "project"),
            ("git checkout -- .", "project"),
            ("git checkout main -- .", "project"),
            ("git checkout -f main", "project"),
            ("git checkout --force main", "project"),
            ("git checkout --forc", "project"),
            ("git checkout -- '*.rs'", "source"),
            ("git -C sub checkout .", "source"),
            ("git checkout :/", "project"),
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
            assert!(
                has(line, &format!("overwrite@{place}")),
                "{line}: {:?}",
                effects(line)
            );
        }
        // Named files: their uncommitted changes are overwritten, not work wholesale.
        for line in [
            "git checkout -- src/a.rs",
            "git checkout src/a.rs",
            "git checkout HEAD -- src/a.rs",
            "git checkout HEAD~2 src/lib.rs Cargo.toml",
            "git checkout --ours src/a.rs",
            "git checkout --theirs -- src/a.rs",
            "git checkout Makefile",
        ] {
            assert!(has(line, "overwrite@source"), "{line}: {:?}", effects(line));
            assert!(!has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        assert!(has("git checkout -B main origin/main", "history@vcs"));
        assert!(!has("git checkout -b main origin/main", "history@vcs"));
    }
    #[test]
    fn switch_and_restore() {
        for line in [
            "git switch -f main",
            "git switch --discard-changes main",
            "git switch --disc main",
            "git switch --force main",
        ] {
            assert!(has(line, "overwrite@project"), "{line}");
            assert!(has(line, "history@vcs"), "{line}");
        }
        assert!(has("git switch -C main", "history@vcs"));
        assert!(has("git switch --force-create main", "history@vcs"));
        for (line, place) in [
            ("git restore .", "project"),
            ("git restore -W -S .", "project"),
            ("git restore --source=HEAD~2 -- src/", "source"),
            ("git restore :/", "project"),
        ] {
            assert!(has(line, "history@vcs"), "{line}");
            assert!(
                has(line, &format!("overwrite@{place}")),
                "{line}: {:?}",
                effects(line)
            );
        }
        assert!(!has("git restore --staged .", "history@vcs"));
        for line in [
            "git restore src/a.rs",
            "git restore --worktree src/a.rs",
            "git restore -s main src/a.rs",
        ] {
            assert!(has(line, "overwrite@source"), "{line}: {:?}", effects(line));
            assert!(!has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
    }
    #[test]
    fn rm_mv_apply_clone_init() {
        assert!(has("git rm -rf src", "delete@source"));
        assert!(has("git rm -r .", "delete@project"));
        assert!(has("git -C ~ rm -r .", "delete@home"));
        assert!(has("git rm --cached -r .", "write@vcs"));
        assert!(!has("git rm --cached -r .", "delete@project"));
        assert!(has("git mv src/a.rs src/b.rs", "move@source"));
        assert!(has(
            "git mv -f a.rs .claude/settings.json",
            "overwrite@gate"
        ));
        assert!(has("git apply fix.patch", "write@project"));
        assert!(has("git apply fix.patch", "read@source"));
        assert!(has(
            "printf '%s\\n' '--- a/src/a.rs' '+++ b/src/a.rs' | git apply",
            "write@source"
        ));
        assert!(!has(
            "printf '%s\\n' '--- a/src/a.rs' '+++ b/src/a.rs' | git apply",
            "write@project"
        ));
        assert!(has(
            "printf '%s\\n' '--- a/.claude/settings.json' '+++ /dev/null' | git apply -",
            "delete@gate"
        ));
        assert!(has("git apply --cached fix.patch", "write@vcs"));
        assert!(has("git am 0001.patch", "write@project"));
        let e = effects("git clone https://github.com/o/r.git");
        assert_eq!(e, vec!["fetch@remote", "write@source"]);
        assert!(has("git clone git@github.com:o/r.git /tmp/r", "write@temp"));
        assert!(has(
            "git clone --depth 1 -b main https://x/y.git .",
            "write@project"
        ));
        assert!(has("git clone ../local", "read@outside"));
        assert!(has("git init", "write@vcs"));
        assert!(has("git init ~", "write@vcs"));
    }
}
