//! Undoing a git backup (`git.rs`): what in the repository moved on since the action (newer
//! commits on a recorded ref, a new stash entry, a ref created with a commit the backup does
//! not hold, a rebase still under way), and the restore: the recorded commits fetched back
//! from gate's vault first, then every recorded ref, HEAD and the stash list set back exactly,
//! refs the action created whose tip the backup holds removed.

use super::git::{self, GitState, Scope};
use super::{run, vault};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// The deadline of the user's own undo (see [`run::git_as_user`]).
fn unhurried() -> Instant {
    Instant::now() + Duration::from_secs(600)
}

fn git(dir: &str, args: &[&str]) -> Result<String, String> {
    run::git(dir, args, unhurried())
}

/// The git directory's states of a command stopped half way (a rebase that stopped at a
/// conflict or an `edit`): a restore under it would leave git's own plan behind.
const UNDER_WAY: &[&str] = &["rebase-merge", "rebase-apply"];

/// What in `state`'s repository moved on since the backup made at `created_ms`: recorded
/// refs with commits the saved tip does not hold (after an action that rewrites commits:
/// where the refs it left were recorded when its call ended (`after`), a ref no longer where
/// it left it; else only commits made more than `settle_ms` after the backup, the rewritten
/// ones being the action's), stash entries made since, refs created since with a commit the
/// backup does not hold (where it recorded every ref), a rebase under way.
pub fn moved_on(
    state: &GitState,
    created_ms: i64,
    settle_ms: i64,
    after: Option<&BTreeMap<String, String>>,
) -> Result<Vec<String>, String> {
    let repo = state.repo.as_str();
    let mut out = Vec::new();
    for (name, saved) in state.branches.iter().chain(&state.others) {
        let Ok(now) = git(repo, &["rev-parse", "--verify", "-q", name]) else {
            continue;
        };
        let now = now.trim();
        if now == saved || git(repo, &["merge-base", "--is-ancestor", now, saved]).is_ok() {
            continue;
        }
        if state.rewrite {
            let unchanged = match after {
                Some(refs) => refs.get(name).is_some_and(|left| left == now),
                None => committed_ms(repo, now)? <= created_ms.saturating_add(settle_ms),
            };
            if unchanged {
                continue;
            }
        }
        out.push(format!("{repo} ({name} is at {now})"));
    }
    let saved: Vec<&str> = state.stash.iter().map(|(c, _)| c.as_str()).collect();
    if git::stash(repo, unhurried())?
        .iter()
        .any(|(c, _)| !saved.contains(&c.as_str()))
    {
        out.push(format!("{repo} (a stash entry was made since)"));
    }
    if state.scope == Scope::All {
        let (_, held) = created(state)?;
        out.extend(
            held.into_iter()
                .map(|(name, at)| format!("{repo} ({name} was made since, at {at})")),
        );
    }
    for dir in UNDER_WAY {
        let path = git(repo, &["rev-parse", "--git-path", dir])?;
        if Path::new(repo).join(path.trim()).exists() {
            out.push(format!(
                "{repo} (a rebase is under way: finish it or `git rebase --abort` first)"
            ));
        }
    }
    Ok(out)
}

/// When the commit `object` names was committed (milliseconds since the epoch).
fn committed_ms(repo: &str, object: &str) -> Result<i64, String> {
    let secs = git(repo, &["log", "-1", "--format=%ct", object, "--"])?;
    Ok(secs.trim().parse::<i64>().unwrap_or(i64::MAX / 1000) * 1000)
}

/// The refs that exist now but were not recorded (with [`Scope::All`]): those whose tip the
/// backup holds (a rewrite's `refs/original/…`: removing them loses nothing), and the others.
fn created(state: &GitState) -> Result<(Vec<String>, git::Refs), String> {
    let (branches, others) = git::refs(&state.repo, Scope::All, unhurried())?;
    let recorded: BTreeSet<&str> = state
        .branches
        .iter()
        .chain(&state.others)
        .map(|(n, _)| n.as_str())
        .collect();
    let tips: BTreeSet<&str> = state
        .branches
        .iter()
        .chain(&state.others)
        .map(|(_, o)| o.as_str())
        .chain([state.head.as_str()])
        .collect();
    let mut held = Vec::new();
    let mut other = Vec::new();
    for (name, at) in branches.into_iter().chain(others) {
        if recorded.contains(name.as_str()) {
            continue;
        }
        if tips.contains(at.as_str()) {
            held.push(name);
        } else {
            other.push((name, at));
        }
    }
    Ok((held, other))
}

/// Makes every commit `state` records present in its repository again: fetched back from the
/// vault (`store` is gate's backup store) under `refs/gate-undo/<id>/` until [`finish`]; for a
/// backup of an older gate, checked to be there still. Done before [`moved_on`], whose
/// ancestry checks need the saved commits.
pub fn prepare(state: &GitState, store: &Path, id: &str) -> Result<(), String> {
    match &state.vault {
        Some(name) => vault::bring_back(&vault::path(store, name), &state.repo, id),
        None => old_format(state, id),
    }
}

/// Removes the refs [`prepare`] made (the commits stay where a restore set refs to them).
pub fn finish(state: &GitState, id: &str) -> Result<(), String> {
    match &state.vault {
        Some(_) => vault::release(&state.repo, id),
        None => Ok(()),
    }
}

/// A backup of an older gate kept its commits under `refs/gate-backup/<id>/` in the
/// repository itself, where the agent could delete them: restorable only while they are there.
fn old_format(state: &GitState, id: &str) -> Result<(), String> {
    let missing: Vec<String> = git::kept(state, id)
        .into_iter()
        .map(|(object, _)| object)
        .filter(|object| git(&state.repo, &["cat-file", "-e", object]).is_err())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "backup {id} was made by an older gate, which kept its commits in the repository \
         itself (refs/gate-backup/{id}/), and {} of them are gone from {} ({}); it cannot be \
         restored",
        missing.len(),
        state.repo,
        missing.join(", ")
    ))
}

/// Puts `state`'s refs back (its commits made present by [`prepare`]): every recorded ref,
/// HEAD (and the index and tracked files when HEAD's commit changed), the stash list; with
/// [`Scope::All`], refs created since whose tip the backup holds are removed.
pub fn restore(state: &GitState) -> Result<(), String> {
    let repo = state.repo.as_str();
    let head_now = git(repo, &["rev-parse", "--verify", "-q", "HEAD"])
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    for (name, object) in state.branches.iter().chain(&state.others) {
        git(repo, &["update-ref", "--no-deref", name, object])?;
    }
    if state.scope == Scope::All {
        for name in created(state)?.0 {
            git(repo, &["update-ref", "--no-deref", "-d", &name])?;
        }
    }
    match &state.head_ref {
        Some(r) => git(repo, &["symbolic-ref", "HEAD", r]).map(drop)?,
        None if !state.head.is_empty() => {
            git(repo, &["update-ref", "--no-deref", "HEAD", &state.head]).map(drop)?
        }
        None => {}
    }
    if !state.head.is_empty() && head_now != state.head {
        git(repo, &["read-tree", "--reset", "-u", "HEAD"])?;
    }
    let now: Vec<String> = git::stash(repo, unhurried())?
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    let saved: Vec<String> = state.stash.iter().map(|(c, _)| c.clone()).collect();
    if now != saved {
        // (`refs/stash` may be there with its entries expired.)
        if git(repo, &["rev-parse", "--verify", "-q", "refs/stash"]).is_ok() {
            git(repo, &["update-ref", "-d", "refs/stash"])?;
        }
        for (commit, message) in state.stash.iter().rev() {
            git(repo, &["stash", "store", "-m", message, commit])?;
        }
    }
    Ok(())
}
