//! Git actions made recoverable: before `reset --hard`, `checkout`/`restore` of work-tree
//! files, `clean`, `branch -D`, `stash drop`/`clear`, `rebase`, `filter-branch` or
//! `filter-repo`, gate records the refs the action can move or delete (HEAD, every branch tip,
//! every stash entry; for a whole-history rewrite every ref) in the manifest, fetches their
//! commits into its own vault (`vault.rs`, out of the agent's reach), and lists the files it
//! can discard for the file copy; `git_undo.rs` puts the refs back.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

use super::vault;

use super::run;

/// Which refs a git action's backup records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// HEAD, every branch tip and the stash: what a reset, a checkout, a clean, a branch
    /// deletion, a stash drop or a rebase (`--update-refs` included) can move or delete.
    #[default]
    Branches,
    /// Every ref besides (tags, remote-tracking refs, notes, replace refs): what a rewrite of
    /// the whole history (`filter-repo`, `filter-branch`) changes; refs it creates whose tip
    /// the backup holds (`refs/original/…`) are removed by the undo.
    All,
}

/// One git subcommand whose losses a ref record plus a file copy undoes.
struct Recoverable {
    name: &'static str,
    /// The second words it must have (empty: any).
    seconds: &'static [&'static str],
    /// Words that make it something else (a rebase already under way is continued or given
    /// up, not started).
    refused: &'static [&'static str],
    scope: Scope,
    /// Whether its `write` at the repository moves existing refs to rewritten commits (a
    /// rebase): backed up even where the tier lets it through.
    rewrites: bool,
}

/// The git subcommands whose losses gate can undo. A command with any other git invocation
/// that rewrites history (`gc`, `reflog expire`, `push`, `update-ref -d`) is not one.
const RECOVERABLE: &[Recoverable] = &[
    Recoverable::plain("reset"),
    Recoverable::plain("checkout"),
    Recoverable::plain("restore"),
    Recoverable::plain("clean"),
    Recoverable::plain("branch"),
    Recoverable {
        name: "stash",
        seconds: &["drop", "clear"],
        refused: &[],
        scope: Scope::Branches,
        rewrites: false,
    },
    Recoverable {
        name: "rebase",
        seconds: &[],
        refused: &[
            "--continue",
            "--skip",
            "--abort",
            "--quit",
            "--edit-todo",
            "--show-current-patch",
        ],
        scope: Scope::Branches,
        rewrites: true,
    },
    Recoverable {
        name: "filter-branch",
        seconds: &[],
        refused: &[],
        scope: Scope::All,
        rewrites: false,
    },
    Recoverable {
        name: "filter-repo",
        seconds: &[],
        refused: &[],
        scope: Scope::All,
        rewrites: false,
    },
];

impl Recoverable {
    const fn plain(name: &'static str) -> Self {
        Recoverable {
            name,
            seconds: &[],
            refused: &[],
            scope: Scope::Branches,
            rewrites: false,
        }
    }
}

/// Programs that are a git subcommand on their own (`git-filter-repo` is `git filter-repo`).
const SUBCOMMAND_PROGRAMS: &[(&str, &str)] = &[("git-filter-repo", "filter-repo")];

/// Files of the git directory a whole-history rewrite changes beside the refs, copied with the
/// backup: `filter-repo` removes the `origin` remote from `config` and writes its maps to
/// `filter-repo/`.
pub const ALL_SCOPE_FILES: &[&str] = &["config", "filter-repo"];

/// Options of `git` itself that take the next word as their value.
const GIT_VALUE_OPTIONS: &[&str] = &["-C", "-c", "--git-dir", "--work-tree", "--namespace"];

/// Shell words that end one command and start another.
const SEPARATORS: &[&str] = &[";", "&&", "||", "|", "&"];

/// The refs of one repository before the action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitState {
    /// The work tree's top directory.
    pub repo: String,
    /// HEAD's commit ("" where HEAD is unborn).
    pub head: String,
    /// The branch HEAD names (`refs/heads/main`), none where detached.
    pub head_ref: Option<String>,
    /// Every branch: (ref name, commit).
    pub branches: Vec<(String, String)>,
    /// The stash, newest first: (commit, message).
    pub stash: Vec<(String, String)>,
    /// Which refs were recorded.
    #[serde(default)]
    pub scope: Scope,
    /// Whether the action rewrites commits (a rebase, a filter): a recorded ref now at a
    /// commit its saved tip does not hold may be the action's own work, so newer work is told
    /// by commit time (see `git_undo::moved_on`).
    #[serde(default)]
    pub rewrite: bool,
    /// With [`Scope::All`], every other ref: (ref name, object).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<(String, String)>,
    /// The vault holding the commits, relative to the store (`git/<key>.git`, see
    /// `vault.rs`). None: a backup made by an older gate, which kept them under
    /// `refs/gate-backup/<id>/` in the repository itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vault: Option<String>,
}

/// One invocation of git: its subcommand and the words after it.
type Invocation<'a> = (Option<&'a str>, Vec<&'a str>);

/// Refs and what they point at: (ref name, object) each.
pub(super) type Refs = Vec<(String, String)>;

/// The invocations of git in `command`.
fn invocations(command: &str) -> Result<Vec<Invocation<'_>>, String> {
    if command.contains("$(") || command.contains('`') || command.contains('\n') {
        return Err("the git command is built at run time".to_string());
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !starts_command(&words[..i]) {
            continue;
        }
        if *w == "git" {
            let (sub, at) = subcommand(&words[i + 1..]);
            let rest = at.map_or_else(Vec::new, |k| until_separator(&words[i + 2 + k..]));
            out.push((sub, rest));
        } else if let Some((_, sub)) = SUBCOMMAND_PROGRAMS.iter().find(|(p, _)| p == w) {
            out.push((Some(*sub), until_separator(&words[i + 1..])));
        }
    }
    Ok(out)
}

/// Whether a word after `before` starts a command: the first word, one after a separator, or
/// after variable assignments that do (`GIT_SEQUENCE_EDITOR=: git rebase -i`).
fn starts_command(before: &[&str]) -> bool {
    let mut k = before.len();
    while k > 0 && is_assignment(before[k - 1]) {
        k -= 1;
    }
    k == 0 || SEPARATORS.contains(&before[k - 1])
}

/// `NAME=value`.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The words up to the next separator.
fn until_separator<'a>(words: &[&'a str]) -> Vec<&'a str> {
    words
        .iter()
        .take_while(|w| !SEPARATORS.contains(w))
        .copied()
        .collect()
}

/// Whether every git invocation in `command` is one whose losses gate can undo: the refs its
/// backup must record.
pub fn recoverable(command: &str) -> Result<Scope, String> {
    let found = invocations(command)?;
    if found.is_empty() {
        return Err("gate could not find the git command whose refs to keep".to_string());
    }
    let mut scope = Scope::Branches;
    for (sub, rest) in found {
        let known = RECOVERABLE.iter().find(|r| Some(r.name) == sub);
        match known {
            Some(r)
                if (r.seconds.is_empty()
                    || rest.first().is_some_and(|n| r.seconds.contains(n)))
                    && !rest.iter().any(|w| r.refused.contains(w)) =>
            {
                scope = scope.max(r.scope);
            }
            _ => {
                return Err(format!(
                    "`git {}` is not a git action gate can back up",
                    sub.unwrap_or("")
                ))
            }
        }
    }
    Ok(scope)
}

/// Whether `command` runs a git action whose `write` at the repository moves existing refs
/// to rewritten commits (a rebase), which a backup records although nothing is deleted.
pub fn rewrites(command: &str) -> bool {
    invocations(command).is_ok_and(|found| {
        found.iter().any(|(sub, rest)| {
            RECOVERABLE.iter().any(|r| {
                r.rewrites && Some(r.name) == *sub && !rest.iter().any(|w| r.refused.contains(w))
            })
        })
    })
}

/// The subcommand after git's own options, and its index in `args`.
fn subcommand<'a>(args: &[&'a str]) -> (Option<&'a str>, Option<usize>) {
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if SEPARATORS.contains(&a) {
            return (None, None);
        }
        if GIT_VALUE_OPTIONS.contains(&a) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return (Some(a), Some(i));
        }
    }
    (None, None)
}

/// Runs git in `dir` by [`run::git`]: its standard output, or why it failed or was stopped
/// at `deadline`. Only plumbing that runs no configured program is asked for (see
/// [`changed_files`]).
fn git(dir: &str, args: &[&str], deadline: Instant) -> Result<String, String> {
    run::git(dir, args, deadline)
}

/// The work tree's top directory holding the git directory `git_dir` (`/p/.git`).
pub fn top(git_dir: &str, deadline: Instant) -> Result<String, String> {
    let dir = git_dir.strip_suffix("/.git").unwrap_or(git_dir);
    let dir = if Path::new(dir).is_dir() {
        dir
    } else {
        return Err(format!("{dir} is not a directory"));
    };
    Ok(git(dir, &["rev-parse", "--show-toplevel"], deadline)?
        .trim()
        .to_string())
}

/// The refs of the repository at `repo` now, as far as `scope` records them.
pub fn capture(repo: &str, scope: Scope, deadline: Instant) -> Result<GitState, String> {
    let head = git(repo, &["rev-parse", "--verify", "-q", "HEAD"], deadline)
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let head_ref = git(repo, &["symbolic-ref", "-q", "HEAD"], deadline)
        .ok()
        .map(|s| s.trim().to_string());
    let (branches, others) = refs(repo, scope, deadline)?;
    Ok(GitState {
        repo: repo.to_string(),
        head,
        head_ref,
        branches,
        stash: stash(repo, deadline)?,
        scope,
        rewrite: false,
        others,
        vault: None,
    })
}

/// Namespaces no backup records: gate's own (an older gate's backup refs, an undo under way)
/// and the stash (recorded entry by entry).
const UNRECORDED: &[&str] = &["refs/gate-backup/", "refs/gate-undo/", "refs/stash"];

/// The branches, and with [`Scope::All`] every other recorded ref: (name, object) each.
pub(super) fn refs(repo: &str, scope: Scope, deadline: Instant) -> Result<(Refs, Refs), String> {
    let pattern = match scope {
        Scope::Branches => "refs/heads",
        Scope::All => "refs",
    };
    let mut branches = Vec::new();
    let mut others = Vec::new();
    for line in git(
        repo,
        &["for-each-ref", "--format=%(refname) %(objectname)", pattern],
        deadline,
    )?
    .lines()
    {
        let Some((name, object)) = line.split_once(' ') else {
            continue;
        };
        if UNRECORDED.iter().any(|u| name.starts_with(u)) {
            continue;
        }
        let pair = (name.to_string(), object.to_string());
        if name.starts_with("refs/heads/") {
            branches.push(pair);
        } else {
            others.push(pair);
        }
    }
    Ok((branches, others))
}

/// The stash entries, newest first.
pub(super) fn stash(repo: &str, deadline: Instant) -> Result<Vec<(String, String)>, String> {
    if git(
        repo,
        &["rev-parse", "--verify", "-q", "refs/stash"],
        deadline,
    )
    .is_err()
    {
        return Ok(Vec::new());
    }
    Ok(git(
        repo,
        &["log", "-g", "--format=%H %gs", "refs/stash"],
        deadline,
    )?
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(h, m)| (h.to_string(), m.to_string()))
    .collect())
}

/// The refs a backup `id` of `state` keeps in its vault: (object, vault ref) each.
pub(super) fn kept(state: &GitState, id: &str) -> Vec<(String, String)> {
    let mut refs = Vec::new();
    if !state.head.is_empty() {
        refs.push((state.head.clone(), vault::backup_ref(id, "HEAD")));
    }
    for (name, object) in state.branches.iter().chain(&state.others) {
        refs.push((object.clone(), vault::backup_ref(id, name)));
    }
    for (n, (commit, _)) in state.stash.iter().enumerate() {
        refs.push((commit.clone(), vault::backup_ref(id, &format!("stash/{n}"))));
    }
    refs
}

/// Fetches every object `state` records, with all it reaches, from its repository into the
/// vault `vault` (under `refs/backups/<id>/`), so that nothing the agent does in the
/// repository loses them.
pub fn keep(state: &GitState, vault: &Path, id: &str, deadline: Instant) -> Result<(), String> {
    vault::ensure(vault, deadline)?;
    let specs: Vec<String> = kept(state, id)
        .into_iter()
        .map(|(object, name)| format!("+{object}:{name}"))
        .collect();
    vault::fetch_in(vault, &state.repo, &specs, deadline)
}

/// The git directory shared by the repository's work trees (absolute).
pub fn common_dir(repo: &str, deadline: Instant) -> Result<String, String> {
    Ok(git(
        repo,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        deadline,
    )?
    .trim()
    .to_string())
}

/// The files of the work tree at `repo` that differ from HEAD or are untracked (and, with
/// `ignored`, the ignored ones), absolute: what a reset, checkout or clean can discard.
///
/// Listed by plumbing that compares file status only and never reads content through the
/// repository's filters (`git status` would run a `filter.*.clean` program the agent may
/// have configured, inside the hook): a file whose status merely changed is listed too,
/// which copies more, never less.
pub fn changed_files(repo: &str, ignored: bool, deadline: Instant) -> Result<Vec<String>, String> {
    let tracked = git(
        repo,
        &["diff-index", "--name-only", "-z", "--no-renames", "HEAD"],
        deadline,
    )
    .or_else(|_| git(repo, &["ls-files", "-z"], deadline))?;
    let untracked = git(
        repo,
        &["ls-files", "-o", "-z", "--exclude-standard"],
        deadline,
    )?;
    let ignored = if ignored {
        git(
            repo,
            &["ls-files", "-o", "-i", "-z", "--exclude-standard"],
            deadline,
        )?
    } else {
        String::new()
    };
    let mut files: Vec<String> = [tracked, untracked, ignored]
        .iter()
        .flat_map(|out| out.split('\0'))
        .filter(|p| !p.is_empty())
        .map(|p| format!("{repo}/{}", p.trim_end_matches('/')))
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_git_actions_whose_losses_gate_can_undo_are_recoverable() {
        for ok in [
            "git reset --hard HEAD~1",
            "git -C sub checkout -- .",
            "git clean -fdx",
            "git branch -D feature",
            "git stash drop",
            "cd x && git stash clear",
            "git restore a.txt",
            "git rebase main",
            "git rebase -i --update-refs HEAD~3",
            "GIT_SEQUENCE_EDITOR=: git rebase -i HEAD~2",
        ] {
            assert_eq!(recoverable(ok), Ok(Scope::Branches), "{ok}");
        }
        for all in [
            "git filter-repo --path x --invert-paths",
            "git-filter-repo --strip-blobs-bigger-than 10M",
            "git filter-branch --tree-filter 'rm -f x' HEAD",
            "git reset --hard && git filter-branch -f -- --all",
        ] {
            assert_eq!(recoverable(all), Ok(Scope::All), "{all}");
        }
        for bad in [
            "git gc --prune=now",
            "git reflog expire --all",
            "git rebase --continue",
            "git rebase main && git rebase --abort",
            "git update-ref -d refs/heads/main",
            "git stash && git stash drop",
            "git reset --hard && git gc",
            "git $(echo reset) --hard",
            "rm -rf .git",
        ] {
            assert!(recoverable(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rebase_is_a_rewrite_backed_up_though_nothing_is_deleted() {
        for yes in [
            "git rebase main",
            "git rebase -i HEAD~2",
            "git -C sub rebase --onto main old feature",
            "git fetch && git rebase origin/main",
        ] {
            assert!(rewrites(yes), "{yes}");
        }
        for no in [
            "git commit -m x",
            "git rebase --continue",
            "git rebase --abort",
            "echo git rebase main",
            "git $(echo rebase) main",
        ] {
            assert!(!rewrites(no), "{no}");
        }
    }
}
