//! Git actions made recoverable: before `reset --hard`, `checkout`/`restore` of work-tree
//! files, `clean`, `branch -D` or `stash drop`/`clear`, gate records the refs the action can
//! move or delete (HEAD, every branch tip, every stash entry) in the manifest and under
//! `refs/gate-backup/<id>/` in that repository (so that their commits are kept), and lists the
//! files it can discard (`git status`) for the file copy; `gate undo` puts the refs back.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

use super::run;

/// The git subcommands whose losses a ref record plus a file copy undoes, each with the
/// second words it must have (empty: any). A command with any other git invocation that
/// rewrites history (`gc`, `reflog expire`, `filter-repo`, `rebase`, `push`) is not one.
const RECOVERABLE: &[(&str, &[&str])] = &[
    ("reset", &[]),
    ("checkout", &[]),
    ("restore", &[]),
    ("clean", &[]),
    ("branch", &[]),
    ("stash", &["drop", "clear"]),
];

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
}

/// Whether every git invocation in `command` is one whose losses gate can undo.
pub fn recoverable(command: &str) -> Result<(), String> {
    if command.contains("$(") || command.contains('`') || command.contains('\n') {
        return Err("the git command is built at run time".to_string());
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut seen = false;
    for (i, w) in words.iter().enumerate() {
        if *w != "git" || (i > 0 && !SEPARATORS.contains(&words[i - 1])) {
            continue;
        }
        seen = true;
        let (sub, next) = subcommand(&words[i + 1..]);
        let known = RECOVERABLE.iter().find(|(name, _)| Some(*name) == sub);
        match known {
            Some((_, seconds))
                if seconds.is_empty() || next.is_some_and(|n| seconds.contains(&n)) => {}
            _ => {
                return Err(format!(
                    "`git {}` is not a git action gate can back up",
                    sub.unwrap_or("")
                ))
            }
        }
    }
    if seen {
        Ok(())
    } else {
        Err("gate could not find the git command whose refs to keep".to_string())
    }
}

/// The subcommand after git's own options, and the word after it.
fn subcommand<'a>(args: &[&'a str]) -> (Option<&'a str>, Option<&'a str>) {
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
            let next = args.get(i + 1).copied().filter(|n| !SEPARATORS.contains(n));
            return (Some(a), next);
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

/// The deadline of the user's own undo (see [`run::git_as_user`]).
fn unhurried() -> Instant {
    Instant::now() + std::time::Duration::from_secs(600)
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

/// The refs of the repository at `repo` now.
pub fn capture(repo: &str, deadline: Instant) -> Result<GitState, String> {
    let head = git(repo, &["rev-parse", "--verify", "-q", "HEAD"], deadline)
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let head_ref = git(repo, &["symbolic-ref", "-q", "HEAD"], deadline)
        .ok()
        .map(|s| s.trim().to_string());
    let branches = git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/heads",
        ],
        deadline,
    )?
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(r, o)| (r.to_string(), o.to_string()))
    .collect();
    Ok(GitState {
        repo: repo.to_string(),
        head,
        head_ref,
        branches,
        stash: stash(repo, deadline)?,
    })
}

/// The stash entries, newest first.
fn stash(repo: &str, deadline: Instant) -> Result<Vec<(String, String)>, String> {
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

/// Writes `state`'s commits under `refs/gate-backup/<id>/` so that no gc drops them.
pub fn keep(state: &GitState, id: &str, deadline: Instant) -> Result<(), String> {
    let mut refs: Vec<(String, &str)> = Vec::new();
    if !state.head.is_empty() {
        refs.push((format!("refs/gate-backup/{id}/HEAD"), &state.head));
    }
    for (name, commit) in &state.branches {
        let short = name.strip_prefix("refs/").unwrap_or(name);
        refs.push((format!("refs/gate-backup/{id}/{short}"), commit));
    }
    for (n, (commit, _)) in state.stash.iter().enumerate() {
        refs.push((format!("refs/gate-backup/{id}/stash/{n}"), commit));
    }
    for (name, commit) in refs {
        git(&state.repo, &["update-ref", &name, commit], deadline)?;
    }
    Ok(())
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

/// What in `state`'s repository moved on since: branches with commits the saved tip does
/// not hold, stash entries made since.
pub fn moved_on(state: &GitState) -> Result<Vec<String>, String> {
    let deadline = unhurried();
    let mut out = Vec::new();
    for (name, saved) in &state.branches {
        let Ok(now) = git(
            &state.repo,
            &["rev-parse", "--verify", "-q", name],
            deadline,
        ) else {
            continue;
        };
        let now = now.trim();
        if now != saved
            && git(
                &state.repo,
                &["merge-base", "--is-ancestor", now, saved],
                deadline,
            )
            .is_err()
        {
            out.push(format!("{} ({name} is at {now})", state.repo));
        }
    }
    let saved: Vec<&str> = state.stash.iter().map(|(c, _)| c.as_str()).collect();
    if stash(&state.repo, deadline)?
        .iter()
        .any(|(c, _)| !saved.contains(&c.as_str()))
    {
        out.push(format!("{} (a stash entry was made since)", state.repo));
    }
    Ok(out)
}

/// Puts `state`'s refs back: every branch tip, HEAD (and the index and tracked files when
/// HEAD's commit changed), and the stash list.
pub fn restore(state: &GitState) -> Result<(), String> {
    let deadline = unhurried();
    let repo = state.repo.as_str();
    let head_now = git(repo, &["rev-parse", "--verify", "-q", "HEAD"], deadline)
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    for (name, commit) in &state.branches {
        git(repo, &["update-ref", name, commit], deadline)?;
    }
    match &state.head_ref {
        Some(r) => git(repo, &["symbolic-ref", "HEAD", r], deadline).map(drop)?,
        None if !state.head.is_empty() => git(
            repo,
            &["update-ref", "--no-deref", "HEAD", &state.head],
            deadline,
        )
        .map(drop)?,
        None => {}
    }
    if !state.head.is_empty() && head_now != state.head {
        git(repo, &["read-tree", "--reset", "-u", "HEAD"], deadline)?;
    }
    let now: Vec<String> = stash(repo, deadline)?.into_iter().map(|(c, _)| c).collect();
    let saved: Vec<String> = state.stash.iter().map(|(c, _)| c.clone()).collect();
    if now != saved {
        if !now.is_empty() {
            git(repo, &["update-ref", "-d", "refs/stash"], deadline)?;
        }
        for (commit, message) in state.stash.iter().rev() {
            git(repo, &["stash", "store", "-m", message, commit], deadline)?;
        }
    }
    Ok(())
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
        ] {
            assert!(recoverable(ok).is_ok(), "{ok}");
        }
        for bad in [
            "git gc --prune=now",
            "git reflog expire --all",
            "git filter-repo --path x",
            "git stash && git stash drop",
            "git reset --hard && git gc",
            "git $(echo reset) --hard",
            "rm -rf .git",
        ] {
            assert!(recoverable(bad).is_err(), "{bad}");
        }
    }
}
