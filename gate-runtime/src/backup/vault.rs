//! The bare repositories inside gate's backup store that hold the commits a git backup keeps
//! (`gate.backups/git/<key>.git`, one per repository backed up, `<key>` a hash of its path):
//! out of the agent's reach like the rest of the store, so that neither deleting refs, an
//! expired reflog nor `git gc --prune=now` in the agent's repository loses them. A backup's
//! commits are fetched in under `refs/backups/<id>/`, fetched back into the repository by
//! `gate undo`, and dropped with the backup by `gate backups --prune`.

use super::run;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The directory of the store that holds the repositories.
const DIR: &str = "git";

/// Where a backup's refs live in a vault repository.
const NAMESPACE: &str = "refs/backups";

/// Where `gate undo` fetches a backup's commits into the agent's repository for the time of
/// the restore.
const UNDO_NAMESPACE: &str = "refs/gate-undo";

/// The vault for the repository whose work tree (or git directory) is `repo`, relative to the
/// store (`git/<key>.git`, recorded in the manifest so that a moved store still finds it).
pub fn name(repo: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(repo.as_bytes());
    format!("{DIR}/{}.git", crate::store::hex(&hash[..10]))
}

/// The vault `name` inside the store at `store`.
pub fn path(store: &Path, name: &str) -> PathBuf {
    store.join(name)
}

/// The ref a backup `id` keeps `what` under (`HEAD`, `refs/heads/main`, `stash/0`,
/// `remote/origin/heads/main`).
pub fn backup_ref(id: &str, what: &str) -> String {
    format!("{NAMESPACE}/{id}/{what}")
}

/// Creates the vault at `vault` unless it exists: a bare repository with no template (no
/// sample hooks), no reflogs.
pub fn ensure(vault: &Path, deadline: Instant) -> Result<(), String> {
    if vault.join("HEAD").is_file() {
        return Ok(());
    }
    if let Some(parent) = vault.parent() {
        crate::store::paths::ensure_dir(parent)
            .map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let v = vault.to_string_lossy();
    let parent = vault
        .parent()
        .map_or_else(|| ".".to_string(), |p| p.to_string_lossy().into_owned());
    run::git(
        &parent,
        &["init", "--quiet", "--bare", "--template=", &v],
        deadline,
    )?;
    run::git(&v, &["config", "core.logAllRefUpdates", "false"], deadline).map(drop)
}

/// A fetch between the vault and a repository: quiet, nothing but the refs asked for (no
/// tags, no `FETCH_HEAD`, no submodules, no automatic gc), and git's own upload program
/// whatever the other side's configuration names.
const FETCH: &[&str] = &[
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-recurse-submodules",
    "--no-auto-gc",
    "--upload-pack=git-upload-pack",
];

/// Fetches `specs` (`+<object>:<ref>`, the object an id or a ref of `from`) from the
/// repository or URL `from` into the vault, by `deadline`. The vault's own configuration is
/// gate's: nothing the agent configured in its repository decides where the objects go.
pub fn fetch_in(
    vault: &Path,
    from: &str,
    specs: &[String],
    deadline: Instant,
) -> Result<(), String> {
    if specs.is_empty() {
        return Ok(());
    }
    let mut args = FETCH.to_vec();
    args.push(from);
    args.extend(specs.iter().map(String::as_str));
    run::git(&vault.to_string_lossy(), &args, deadline).map(drop)
}

/// Fetches every ref backup `id` keeps in the vault into the repository `repo`, under
/// `refs/gate-undo/<id>/` (so that every commit a restore names is there), for the user's
/// undo. [`release`] removes those refs after the restore.
pub fn bring_back(vault: &Path, repo: &str, id: &str) -> Result<(), String> {
    if !vault.join("HEAD").is_file() {
        return Err(format!(
            "the backup's commits are gone from gate's store ({} is missing)",
            vault.display()
        ));
    }
    let spec = format!("+{NAMESPACE}/{id}/*:{UNDO_NAMESPACE}/{id}/*");
    let vault = vault.to_string_lossy();
    let mut args = FETCH.to_vec();
    args.extend(["--update-head-ok", &*vault, &spec]);
    run::git_as_user(repo, &args).map(drop)
}

/// Removes the refs [`bring_back`] made in `repo` (the commits stay, held by the refs the
/// restore set).
pub fn release(repo: &str, id: &str) -> Result<(), String> {
    let prefix = format!("{UNDO_NAMESPACE}/{id}/");
    delete_refs(repo, &prefix, run::git_as_user)
}

/// Deletes every ref under `prefix` in the repository at `dir`.
fn delete_refs(
    dir: &str,
    prefix: &str,
    git: impl Fn(&str, &[&str]) -> Result<String, String>,
) -> Result<(), String> {
    let listed = git(dir, &["for-each-ref", "--format=%(refname)", prefix])?;
    for name in listed.lines().filter(|l| !l.is_empty()) {
        git(dir, &["update-ref", "-d", name])?;
    }
    Ok(())
}

/// Best effort, after a backup that failed part way: drops what it fetched into the vault.
pub fn forget(vault: &Path, id: &str, deadline: Instant) {
    let prefix = format!("{NAMESPACE}/{id}/");
    let _ = delete_refs(&vault.to_string_lossy(), &prefix, |d, a| {
        run::git(d, a, deadline)
    });
}

/// What pruning the vaults did: backups whose refs were dropped, vaults removed whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub backups: Vec<String>,
    pub vaults: Vec<String>,
}

/// Drops from every vault of the store at `store` the refs of backups that are no longer in
/// the store (`live` holds the ids of those that are), then the commits only they held
/// (`git gc --prune=now` in the vault); a vault left with no refs is removed whole.
pub fn prune(store: &Path, live: &BTreeSet<String>) -> Result<Pruned, String> {
    let mut out = Pruned::default();
    let Ok(read) = fs::read_dir(store.join(DIR)) else {
        return Ok(out);
    };
    let mut vaults: Vec<PathBuf> = read.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    vaults.sort();
    for vault in vaults {
        let v = vault.to_string_lossy().into_owned();
        if !vault.join("HEAD").is_file() {
            continue;
        }
        let listed = run::git_as_user(&v, &["for-each-ref", "--format=%(refname)", NAMESPACE])?;
        let mut dropped = BTreeSet::new();
        let mut kept = 0usize;
        for name in listed.lines().filter(|l| !l.is_empty()) {
            let id = name
                .strip_prefix(NAMESPACE)
                .and_then(|r| r.strip_prefix('/'))
                .and_then(|r| r.split('/').next())
                .unwrap_or("");
            if live.contains(id) {
                kept += 1;
            } else {
                run::git_as_user(&v, &["update-ref", "-d", name])?;
                dropped.insert(id.to_string());
            }
        }
        if kept == 0 {
            super::copy::remove(&vault).map_err(|e| format!("{v}: {e}"))?;
            out.vaults.push(v);
        } else if !dropped.is_empty() {
            run::git_as_user(&v, &["gc", "--quiet", "--prune=now"])?;
        }
        out.backups.extend(dropped);
    }
    out.backups.sort();
    out.backups.dedup();
    Ok(out)
}

/// Bytes the vaults of the store at `store` hold.
pub fn bytes(store: &Path) -> u64 {
    fn walk(p: &Path) -> u64 {
        let Ok(meta) = fs::symlink_metadata(p) else {
            return 0;
        };
        if !meta.is_dir() {
            return meta.len();
        }
        fs::read_dir(p)
            .map(|r| r.filter_map(|e| e.ok()).map(|e| walk(&e.path())).sum())
            .unwrap_or(0)
    }
    walk(&store.join(DIR))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_has_one_vault_named_by_its_path() {
        let a = name("/home/u/proj");
        assert_eq!(a, name("/home/u/proj"));
        assert_ne!(a, name("/home/u/other"));
        assert!(a.starts_with("git/") && a.ends_with(".git"), "{a}");
        assert_eq!(
            backup_ref("b1", "refs/heads/main"),
            "refs/backups/b1/refs/heads/main"
        );
    }
}
