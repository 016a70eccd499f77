//! git subcommands on refs and remotes whose words need reading: pushes (forced, deleting,
//! mirroring, `+refspec`, `:ref`), rebases (and the commands `--exec` runs), worktrees,
//! clones, new repositories, submodules, and the diff tool's command. (Branch and tag
//! deletion are forms of `commands/vcs.toml`.)

use super::super::super::super::getopt::{self, Args, Grammar};
use super::super::super::super::Sink;
use super::super::is_remote;
use super::{config_key, join, shell_words, Ctx, Words};
use gate_spec::effect::{Act, Place};

/// `git submodule deinit [-f|--force] [--all | -- PATH…]`.
const SUBMODULE_DEINIT: Grammar = Grammar {
    short: "fq",
    short_value: "",
    long: &["force", "all", "quiet"],
    long_value: &[],
    posix: false,
};

const PUSH: Grammar = Grammar {
    short: "fdnquv46u",
    short_value: "o",
    long: &[
        "all",
        "branches",
        "mirror",
        "tags",
        "follow-tags",
        "no-follow-tags",
        "atomic",
        "no-atomic",
        "dry-run",
        "porcelain",
        "delete",
        "prune",
        "force",
        "force-with-lease",
        "no-force-with-lease",
        "force-if-includes",
        "no-force-if-includes",
        "set-upstream",
        "thin",
        "no-thin",
        "quiet",
        "verbose",
        "progress",
        "no-progress",
        "no-verify",
        "verify",
        "ipv4",
        "ipv6",
        "signed",
        "no-signed",
        "recurse-submodules",
        "no-recurse-submodules",
    ],
    long_value: &["repo", "receive-pack", "exec", "push-option"],
    posix: false,
};

/// What makes a push rewrite or delete remote history.
const FORCING: [&str; 8] = [
    "f",
    "force",
    "force-with-lease",
    "force-if-includes",
    "mirror",
    "d",
    "delete",
    "prune",
];

/// Whether an option the grammar could not pin down (an ambiguous prefix such as `--forc`,
/// which git may refuse) abbreviates one of `names`: read as the most dangerous of them.
fn abbreviates(a: &Args<'_>, names: &[&str]) -> bool {
    a.unknown.iter().any(|u| {
        let u = u.split('=').next().unwrap_or(u);
        u.len() >= 2 && names.iter().any(|n| n.len() > 1 && n.starts_with(u))
    })
}

pub(super) fn push(args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&PUSH, args);
    if a.any(&["n", "dry-run"]) {
        return;
    }
    out.place(Act::Send, Place::Remote);
    let forced = a.any(&FORCING)
        || abbreviates(&a, &FORCING)
        || a.operands
            .iter()
            .skip(1)
            .any(|r| r.starts_with('+') || r.starts_with(':'));
    if forced {
        out.place(Act::History, Place::Remote);
    }
    if let Some(v) = a.value("receive-pack").or(a.value("exec")) {
        out.opaque(v);
    }
}

const REBASE: Grammar = Grammar {
    short: "iqvnfmkr",
    short_value: "xsXC",
    long: &[
        "interactive",
        "abort",
        "continue",
        "skip",
        "quit",
        "edit-todo",
        "show-current-patch",
        "keep-base",
        "quiet",
        "verbose",
        "stat",
        "no-stat",
        "no-verify",
        "verify",
        "force-rebase",
        "no-ff",
        "fork-point",
        "no-fork-point",
        "ignore-whitespace",
        "committer-date-is-author-date",
        "ignore-date",
        "reset-author-date",
        "signoff",
        "root",
        "autosquash",
        "no-autosquash",
        "autostash",
        "no-autostash",
        "reschedule-failed-exec",
        "no-reschedule-failed-exec",
        "update-refs",
        "no-update-refs",
        "apply",
        "merge",
        "rebase-merges",
        "no-rebase-merges",
        "keep-empty",
        "no-keep-empty",
        "empty",
        "reapply-cherry-picks",
        "no-reapply-cherry-picks",
        "allow-empty-message",
        "gpg-sign",
        "no-gpg-sign",
    ],
    long_value: &["onto", "strategy", "strategy-option", "exec", "whitespace"],
    posix: false,
};

pub(super) fn rebase(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&REBASE, args);
    for cmd in a.values(&["x", "exec"]) {
        out.script(cmd);
        out.program(cmd);
    }
    // A rebase onto an upstream rewrites the commits since it, local ones as a rule, which
    // the reflog keeps: recoverable, unlike a forced push or a hard reset of uncommitted
    // work. `--root` rewrites every commit back to the first, the published ones with them:
    // the branch's whole history is replaced, as `filter-branch` replaces it.
    ctx.vcs(out, Act::Write);
    if a.has("root") {
        ctx.vcs(out, Act::History);
    }
}

const WORKTREE: Grammar = Grammar {
    short: "fdq",
    short_value: "bB",
    long: &[
        "force",
        "detach",
        "checkout",
        "no-checkout",
        "lock",
        "orphan",
        "quiet",
        "track",
        "no-track",
        "guess-remote",
        "no-guess-remote",
        "relative-paths",
        "dry-run",
        "verbose",
        "porcelain",
    ],
    long_value: &["reason", "expire"],
    posix: false,
};

pub(super) fn worktree(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let Some((sub, rest)) = args.split_first() else {
        return;
    };
    let a = getopt::read(&WORKTREE, rest);
    match &**sub {
        "add" => {
            if let Some(p) = a.operands.first() {
                out.path(Act::Write, &ctx.at(p));
            }
            ctx.vcs(out, Act::Write);
        }
        "remove" => {
            ctx.vcs(out, Act::Write);
            if a.any(&["f", "force"]) {
                ctx.vcs(out, Act::History);
                for p in &a.operands {
                    out.path(Act::Delete, &ctx.at(p));
                }
            }
        }
        "move" => {
            if let [from, to, ..] = &a.operands[..] {
                out.path(Act::Move, &ctx.at(from));
                out.path(Act::Write, &ctx.at(to));
            }
            ctx.vcs(out, Act::Write);
        }
        "list" => {}
        _ => {
            if !a.has("dry-run") {
                ctx.vcs(out, Act::Write);
            }
        }
    }
}

const CLONE: Grammar = Grammar {
    short: "lsqvn",
    short_value: "obucj",
    long: &[
        "local",
        "no-local",
        "no-hardlinks",
        "shared",
        "quiet",
        "verbose",
        "progress",
        "no-checkout",
        "bare",
        "mirror",
        "single-branch",
        "no-single-branch",
        "no-tags",
        "tags",
        "shallow-submodules",
        "no-shallow-submodules",
        "remote-submodules",
        "no-remote-submodules",
        "sparse",
        "dissociate",
        "also-filter-submodules",
        "reject-shallow",
        "no-reject-shallow",
        "recurse-submodules",
        "recursive",
    ],
    long_value: &[
        "origin",
        "branch",
        "upload-pack",
        "reference",
        "reference-if-able",
        "separate-git-dir",
        "depth",
        "shallow-since",
        "shallow-exclude",
        "config",
        "template",
        "jobs",
        "filter",
        "server-option",
        "bundle-uri",
        "ref-format",
        "revision",
    ],
    posix: false,
};

pub(super) fn clone(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&CLONE, args);
    let mut scratch = Ctx::default();
    for kv in a.values(&["c", "config"]) {
        config_key(&mut scratch, kv, out);
    }
    if let Some(v) = a.value("u").or(a.value("upload-pack")) {
        out.opaque(v);
    }
    let Some(repo) = a.operands.first() else {
        return;
    };
    if is_remote(repo) {
        out.place(Act::Fetch, Place::Remote);
    } else {
        out.path(Act::Read, &ctx.at(repo.trim_start_matches("file://")));
    }
    let dest = match a.operands.get(1) {
        Some(d) => ctx.at(d),
        None => {
            let name = repo
                .trim_end_matches('/')
                .rsplit(['/', ':'])
                .next()
                .unwrap_or("repo");
            let name = if a.any(&["bare", "mirror"]) {
                name.to_string()
            } else {
                name.trim_end_matches(".git").to_string()
            };
            ctx.at(if name.is_empty() { "repo" } else { &name })
        }
    };
    out.path(Act::Write, &dest);
}

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

/// `git init [--bare] [DIR]`: the new repository's metadata (the directory itself when
/// bare).
pub(super) fn init(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&INIT, args);
    let dir = a.operands.first().map_or_else(|| ctx.root(), |d| ctx.at(d));
    if a.has("bare") {
        out.path(Act::Write, &dir);
    } else {
        out.path(Act::Write, &join(Some(&dir), ".git"));
    }
}

const DIFFTOOL: Grammar = Grammar {
    short: "dygt",
    short_value: "x",
    long: &["dir-diff", "no-prompt", "prompt", "gui", "trust-exit-code"],
    long_value: &["tool", "extcmd"],
    posix: false,
};

/// `git difftool -x CMD`: the command it runs on each pair of files.
pub(super) fn difftool(_: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&DIFFTOOL, args);
    if let Some(cmd) = a.value("extcmd").or(a.value("x")) {
        out.script(cmd);
        out.program(cmd);
    }
}

pub(super) fn submodule(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    while args.get(k).is_some_and(|a| a.starts_with('-')) {
        k += 1;
    }
    let rest = &args[(k + 1).min(args.len())..];
    match args.get(k).map(|a| &**a) {
        Some("foreach") => {
            let body = rest
                .iter()
                .position(|a| !a.starts_with('-'))
                .map_or(&rest[rest.len()..], |i| &rest[i..]);
            if !body.is_empty() {
                out.script(&shell_words(body));
            }
        }
        Some("status" | "summary") | None => {}
        Some("deinit") => {
            ctx.vcs(out, Act::Write);
            if getopt::read(&SUBMODULE_DEINIT, rest).any(&["f", "force"]) {
                ctx.vcs(out, Act::History);
            }
        }
        Some("absorbgitdirs" | "set-branch" | "set-url" | "sync" | "init") => {
            ctx.vcs(out, Act::Write)
        }
        Some(_) => {
            out.place(Act::Fetch, Place::Remote);
            ctx.vcs(out, Act::Write);
            out.path(Act::Write, &ctx.root());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::super::testing::{effects, has};

    #[test]
    fn push_force_in_every_spelling() {
        for line in [
            "git push --force",
            "git push -f origin main",
            "git push origin main -f",
            "git push --forc origin main",
            "git push --force-with-lease",
            "git push --force-with-lease=main:abc123 origin main",
            "git push --force-w origin main",
            "git push --mirror backup",
            "git push --delete origin feature",
            "git push -d origin feature",
            "git push origin :feature",
            "git push origin +main",
            "git push origin +HEAD:refs/heads/main",
            "git push --prune origin 'refs/heads/*:refs/heads/*'",
            "git push -uf origin main",
            "sudo git push -f",
            "env GIT_TRACE=1 git push --force",
            "bash -c 'git push --force origin main'",
            "git -C ../other push -f",
            "git --git-dir=x/.git --work-tree=x push --force",
            "git -c push.default=current push -f",
        ] {
            assert!(has(line, "history@remote"), "{line}: {:?}", effects(line));
            assert!(has(line, "send@remote"), "{line}");
        }
        for line in [
            "git push",
            "git push origin main",
            "git push -u origin feature/x",
            "git push --set-upstream origin HEAD",
            "git push --tags",
            "git push --follow-tags origin main",
        ] {
            assert_eq!(effects(line), vec!["send@remote"], "{line}");
        }
    }
    #[test]
    fn branches_tags_stash_reflog() {
        for line in [
            "git branch -D feature",
            "git branch -d -f feature",
            "git branch --delete --force feature",
            "git branch --del --forc feature",
            "git branch -Dr origin/x",
            "git branch -M main",
            "git branch -f main HEAD~3",
            "git branch --force main origin/main",
            "git tag -d $(git tag -l)",
            "git tag -f v1.0",
            "git stash drop",
            "git stash drop stash@{0}",
            "git stash clear",
            "git reflog expire --expire=now --all",
            "git reflog delete HEAD@{1}",
            "git update-ref -d refs/heads/main",
            "git symbolic-ref -d HEAD",
            "git symbolic-ref --delete HEAD",
            // Bundles and abbreviations read as git reads them.
            "git symbolic-ref -qd HEAD",
            "git symbolic-ref --del HEAD",
            "git symbolic-ref -q --delete HEAD",
            "git submodule deinit -qf lib",
            "git filter-branch --tree-filter 'rm -f secret' HEAD",
            "git filter-repo --path secret --invert-paths",
            "git-filter-repo --strip-blobs-bigger-than 10M",
            "git gc --prune=now",
            "git gc --aggressive",
            "git gc --agg",
            "git worktree remove --force ../wt",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        assert!(has("git worktree remove -f ../wt", "delete@outside"));
        // Back to the root commit, every commit is rewritten, the published ones too.
        for line in [
            "git rebase -i --root",
            "git rebase --root",
            "git rebase --roo -i",
            "git rebase --root --onto main",
            "git -C . rebase --interactive --root --autosquash",
            "GIT_SEQUENCE_EDITOR=true git rebase -i --root",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
        // A rebase rewrites local commits that the reflog still holds: a write, not a loss.
        for line in [
            "git rebase main",
            "git rebase -i HEAD~5",
            "git rebase --onto main old feature",
            "git rebase --skip",
        ] {
            assert_eq!(effects(line), ["write@vcs"], "{line}");
        }
        assert!(has("git stash pop", "write@project"));
    }

    #[test]
    fn filter_repo_analysis_keeps_history() {
        // Analysing or rehearsing writes reports under `.git/filter-repo/`; history stays.
        for line in [
            "git filter-repo --analyze",
            "git filter-repo --analyze --force",
            "git filter-repo --analy",
            "git-filter-repo --analyze",
            "git filter-repo --path secret --invert-paths --dry-run",
            "git filter-repo --dry --path x",
        ] {
            assert_eq!(effects(line), ["write@vcs"], "{line}");
        }
        // Any other form rewrites; a path or a ref named like the option is no option.
        for line in [
            "git filter-repo --force --path src",
            "git filter-repo --path -- --analyze",
            "git filter-repo --a --path x",
            "bfg --analyze --delete-files id_rsa",
        ] {
            assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
        }
    }
}
