//! The state an action left, recorded when its tool call ends (the runtime's post-tool
//! event), so that `gate undo` can tell exactly whether anything changed since: every file,
//! directory and link at or below each location the backup holds, with its kind, size,
//! permission bits, inode and modification time to the nanosecond. A backup whose call never
//! reported its end (no post-tool hook, or the record could not be made in time) falls back
//! to the modification-time check of `undo.rs`. For a git action that rewrites commits (a
//! rebase, a filter) it also records every ref the action left, so that a commit made on a
//! rewritten branch afterwards is told from the action's own rewritten ones exactly.

use super::store::{Entry, Manifest};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The record's file name inside a backup's directory.
const AFTER: &str = "after.json";

/// The file recording the refs a rewriting git action left ([`RefsAfter`]).
const REFS_AFTER: &str = "refs-after.json";

/// Every ref of each repository whose backup records a rewrite (a rebase, a filter), as the
/// action left them: repository → (ref name → object). Against it `gate undo` tells a commit
/// made on a rewritten branch after the action from the action's own rewritten commits.
pub type RefsAfter = BTreeMap<String, BTreeMap<String, String>>;

/// The directory of the store holding, per tool call whose action was backed up and has not
/// ended yet, a file named by the call's hash that holds the backup's id.
const PENDING: &str = "pending";

/// One entry as it was: kind (`f`, `d`, `l`), size, permission bits, inode, modification
/// time in nanoseconds since the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(char, u64, u32, u64, i128);

/// Every entry at or below the backup's locations, by absolute path (an absent location has
/// none).
pub type State = BTreeMap<String, Stamp>;

/// The pending file of the tool call `call` in the store at `store`.
fn pending(store: &Path, call: &str) -> PathBuf {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(call.as_bytes());
    store.join(PENDING).join(crate::store::hex(&hash[..12]))
}

/// Notes that the backup `id` protects the tool call `call`, for [`settle`] on its end.
pub fn expect(store: &Path, call: &str, id: &str) -> io::Result<()> {
    let path = pending(store, call);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(path, id)
}

/// On the end of the tool call `call`: records the state its backup's locations are in now
/// (by `deadline`; a tree that cannot be read in time is not recorded). Returns the backup's
/// id when one was recorded. One `stat` where no backup waits for the call.
pub fn settle(store: &Path, call: &str, deadline: Instant) -> io::Result<Option<String>> {
    let marker = pending(store, call);
    let id = match fs::read_to_string(&marker) {
        Ok(id) => id,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    fs::remove_file(&marker)?;
    let dir = store.join(id.trim());
    let manifest: Manifest =
        serde_json::from_slice(&fs::read(dir.join("manifest.json"))?).map_err(io::Error::other)?;
    if let Some(refs) = refs_now(&manifest, deadline) {
        let tmp = dir.join("refs-after.tmp");
        fs::write(&tmp, serde_json::to_vec(&refs).map_err(io::Error::other)?)?;
        fs::rename(tmp, dir.join(REFS_AFTER))?;
    }
    let Some(state) = state_of(&manifest, deadline)? else {
        return Ok(None);
    };
    let tmp = dir.join("after.tmp");
    fs::write(&tmp, serde_json::to_vec(&state).map_err(io::Error::other)?)?;
    fs::rename(tmp, dir.join(AFTER))?;
    Ok(Some(manifest.id))
}

/// The refs of each repository `m` records a rewrite of, now (by `deadline`); none where
/// there is no such repository or one could not be read in time.
fn refs_now(m: &Manifest, deadline: Instant) -> Option<RefsAfter> {
    let mut out = RefsAfter::new();
    for state in m.git.iter().filter(|s| s.rewrite) {
        let list = super::run::git(
            &state.repo,
            &["for-each-ref", "--format=%(refname) %(objectname)"],
            deadline,
        )
        .ok()?;
        let refs = list
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(name, object)| (name.to_string(), object.to_string()))
            .collect();
        out.insert(state.repo.clone(), refs);
    }
    (!out.is_empty()).then_some(out)
}

/// The refs the rewriting git actions of `entry` left, where its call's end recorded them.
pub fn refs_after(entry: &Entry) -> io::Result<Option<RefsAfter>> {
    match fs::read(entry.dir.join(REFS_AFTER)) {
        Ok(text) => serde_json::from_slice(&text)
            .map(Some)
            .map_err(io::Error::other),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes the notes of tool calls that never ended (the user declined the call, the runtime
/// has no post-tool event) whose backup is no longer in the store (`live`: the backup
/// directories there) or, with `older_than_ms`, that are older than that; returns the ids
/// they named.
pub fn prune(
    store: &Path,
    live: &std::collections::BTreeSet<String>,
    now_ms: i64,
    older_than_ms: Option<i64>,
) -> io::Result<Vec<String>> {
    let Ok(read) = fs::read_dir(store.join(PENDING)) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in read {
        let path = entry?.path();
        let id = fs::read_to_string(&path).unwrap_or_default();
        let id = id.trim();
        let modified = fs::metadata(&path)?
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |t| t.as_millis() as i64);
        let old = older_than_ms.is_some_and(|age| now_ms - modified > age);
        if old || !live.contains(id) {
            fs::remove_file(&path)?;
            out.push(id.to_string());
        }
    }
    out.sort();
    Ok(out)
}

/// The state of `m`'s locations now; none where the walk passed `deadline`.
fn state_of(m: &Manifest, deadline: Instant) -> io::Result<Option<State>> {
    let mut state = State::new();
    for root in &m.roots {
        if !stamp(Path::new(&root.path), deadline, &mut state)? {
            return Ok(None);
        }
    }
    Ok(Some(state))
}

/// Adds `path` and everything below it to `out`; false where `deadline` passed.
fn stamp(path: &Path, deadline: Instant, out: &mut State) -> io::Result<bool> {
    if Instant::now() > deadline {
        return Ok(false);
    }
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e),
    };
    let ft = meta.file_type();
    let kind = if ft.is_symlink() {
        'l'
    } else if ft.is_dir() {
        'd'
    } else {
        'f'
    };
    out.insert(
        path.to_string_lossy().into_owned(),
        Stamp(
            kind,
            meta.len(),
            super::copy::mode_of(&meta),
            inode(&meta),
            mtime_ns(&meta),
        ),
    );
    if ft.is_dir() {
        for entry in fs::read_dir(path)? {
            if !stamp(&entry?.path(), deadline, out)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

#[cfg(unix)]
fn inode(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_meta: &fs::Metadata) -> u64 {
    0
}

#[cfg(unix)]
fn mtime_ns(meta: &fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

#[cfg(not(unix))]
fn mtime_ns(meta: &fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The paths (a first few) at or below `entry`'s locations that differ from the state the
/// action left (added, removed or changed); none where that state was not recorded.
pub fn changed_since(entry: &Entry) -> io::Result<Option<Vec<PathBuf>>> {
    let text = match fs::read(entry.dir.join(AFTER)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let after: State = serde_json::from_slice(&text).map_err(io::Error::other)?;
    let far = Instant::now() + std::time::Duration::from_secs(24 * 3600);
    let now = state_of(&entry.manifest, far)?.unwrap_or_default();
    let mut changed: Vec<PathBuf> = now
        .iter()
        .filter(|(p, s)| after.get(*p) != Some(s))
        .chain(after.iter().filter(|(p, _)| !now.contains_key(*p)))
        .map(|(p, _)| PathBuf::from(p))
        .collect();
    changed.sort();
    changed.dedup();
    changed.truncate(5);
    Ok(Some(changed))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::backup::store::{Root, RootKind};
    use std::time::Duration;

    #[test]
    fn the_state_left_is_compared_exactly() {
        let tmp = std::env::temp_dir().join(format!("gate-settle-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        let store = tmp.join("store");
        let work = tmp.join("work");
        fs::create_dir_all(work.join("d")).unwrap();
        fs::write(work.join("d/a"), b"one").unwrap();
        let id = "b00000001";
        let manifest = Manifest {
            id: id.to_string(),
            created_ms: 0,
            session: String::new(),
            cwd: String::new(),
            tool: String::new(),
            action: String::new(),
            files: 0,
            bytes: 0,
            roots: vec![
                Root {
                    path: work.join("d").to_string_lossy().into_owned(),
                    kind: RootKind::Dir,
                    mode: 0o755,
                },
                Root {
                    path: work.join("new").to_string_lossy().into_owned(),
                    kind: RootKind::Absent,
                    mode: 0,
                },
            ],
            git: Vec::new(),
            pushes: Vec::new(),
        };
        fs::create_dir_all(store.join(id)).unwrap();
        fs::write(
            store.join(id).join("manifest.json"),
            serde_json::to_vec(&manifest).unwrap(),
        )
        .unwrap();
        let entry = Entry {
            manifest,
            dir: store.join(id),
        };
        let soon = Instant::now() + Duration::from_secs(30);
        assert_eq!(settle(&store, "call-1", soon).unwrap(), None);
        expect(&store, "call-1", id).unwrap();
        assert_eq!(changed_since(&entry).unwrap(), None);
        fs::write(work.join("new"), b"created by the action").unwrap();
        assert_eq!(settle(&store, "call-1", soon).unwrap().as_deref(), Some(id));
        assert_eq!(changed_since(&entry).unwrap(), Some(Vec::new()));
        // The same bytes written again: a new modification time, noticed at once.
        std::thread::sleep(Duration::from_millis(5));
        fs::write(work.join("d/a"), b"one").unwrap();
        assert_eq!(changed_since(&entry).unwrap(), Some(vec![work.join("d/a")]));
        fs::remove_file(work.join("new")).unwrap();
        assert_eq!(
            changed_since(&entry).unwrap(),
            Some(vec![work.join("d/a"), work.join("new")])
        );
        fs::remove_dir_all(&tmp).unwrap();
    }
}
