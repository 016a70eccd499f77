//! git's code that data cannot say: its global options (`-C`, `-c`, `--git-dir`,
//! `--work-tree`, …) as the context the subcommands act in, aliases given with `-c
//! alias.x=…`, and the subcommands whose words need reading (what discards work, pushes,
//! configuration, patches). Which subcommand is which, and the forms data can say (reads,
//! metadata writes, branch and tag deletion, ref plumbing), are `commands/vcs.toml`, which
//! reaches this code by name ([`entries`]).

use std::borrow::Cow;

mod config;
pub(crate) use config::VIEWERS as GIT_VIEWERS;
mod entries;
mod refs;
mod work;

pub(crate) use entries::{
    git_alias, git_apply, git_checkout, git_checkout_index, git_clean, git_clone, git_config,
    git_difftool, git_filter_repo, git_init, git_mv, git_options, git_push, git_rebase, git_reset,
    git_restore, git_rm, git_run, git_stash, git_submodule, git_switch, git_worktree,
};

use config::{config_key, runs_code};

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
fn rewrite_all(ctx: &Ctx, args: Words<'_, '_>, bfg: bool, out: &mut Sink) {
    if !bfg && filter_repo_reads(args) {
        ctx.vcs(out, Act::Write);
        return;
    }
    ctx.vcs(out, Act::History);
    out.path(Act::Overwrite, &ctx.root());
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
        // Reading a repository kept in gate's hook settings is a read there, nothing more.
        assert_eq!(effects("git --git-dir=.claude log"), vec!["read@gate"]);
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
