//! Restoring one backup exactly (`gate undo <id>`): every location it holds is put back as it
//! was (bytes, permission bits, links; what the action created where nothing was, removed),
//! after checking that nothing changed there since the action: against the exact state it
//! left where its tool call's end recorded that (`settle.rs`), else by modification time
//! (nothing written after the action had settled). A restore would lose that newer work, so
//! it is refused unless forced.

use super::copy;
use super::git_undo;
use super::push;
use super::store::{Entry, RootKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// Without a record of the state the action left: how long after a backup the action it
/// protects may still be writing its targets; a change later than this is newer work, which a
/// restore would lose.
pub const SETTLE_MS: i64 = 60_000;

/// What an undo did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undone {
    /// The locations put back.
    pub restored: Vec<String>,
    /// Locations the action created (nothing was there before), removed.
    pub created: Vec<String>,
}

/// Why an undo did not happen.
#[derive(Debug)]
pub enum UndoError {
    /// These paths changed after the action: restoring would lose that work.
    MovedOn(Vec<PathBuf>),
    Io(std::io::Error),
}

impl std::fmt::Display for UndoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UndoError::MovedOn(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "the current state has moved on since the action: {} changed after it, \
                     and restoring would lose that work; `--force` restores anyway",
                    names.join(", ")
                )
            }
            UndoError::Io(e) => write!(f, "the restore failed: {e}"),
        }
    }
}

/// Restores `entry`; refuses when a location changed after the action unless `force`.
pub fn undo(entry: &Entry, force: bool) -> Result<Undone, UndoError> {
    let m = &entry.manifest;
    let store = entry.dir.parent().unwrap_or(Path::new("."));
    let io = |e: String| UndoError::Io(std::io::Error::other(e));
    // The saved commits are brought back first (the checks below need them), and their
    // temporary refs removed whatever the outcome.
    let mut prepared = Vec::with_capacity(m.git.len());
    let mut result = Ok(());
    for state in &m.git {
        result = git_undo::prepare(state, store, &m.id).map_err(io);
        if result.is_err() {
            break;
        }
        prepared.push(state);
    }
    let result = result.and_then(|()| check_and_restore(entry, store, force));
    let mut finished = Ok(());
    for state in prepared {
        finished = finished.and(git_undo::finish(state, &m.id).map_err(io));
    }
    let done = result?;
    finished?;
    Ok(done)
}

/// The undo once the saved commits are present: the moved-on check (unless `force`), then
/// the restore.
fn check_and_restore(entry: &Entry, store: &Path, force: bool) -> Result<Undone, UndoError> {
    let m = &entry.manifest;
    let after = m.created_ms.saturating_add(SETTLE_MS);
    if !force {
        // Exactly, against the state the action left where its call's end recorded it; else
        // by modification time.
        let mut newer = match super::settle::changed_since(entry).map_err(UndoError::Io)? {
            Some(changed) => changed,
            None => {
                let mut newer = Vec::new();
                for root in &m.roots {
                    newer_than(Path::new(&root.path), after, &mut newer).map_err(UndoError::Io)?;
                }
                newer
            }
        };
        let refs_after = super::settle::refs_after(entry).map_err(UndoError::Io)?;
        for state in &m.git {
            let after = refs_after.as_ref().and_then(|r| r.get(&state.repo));
            newer.extend(
                git_undo::moved_on(state, m.created_ms, SETTLE_MS, after)
                    .map_err(|e| UndoError::Io(std::io::Error::other(e)))?
                    .into_iter()
                    .map(PathBuf::from),
            );
        }
        for state in &m.pushes {
            newer.extend(
                push::moved_on(state)
                    .map_err(|e| UndoError::Io(std::io::Error::other(e)))?
                    .into_iter()
                    .map(PathBuf::from),
            );
        }
        if !newer.is_empty() {
            return Err(UndoError::MovedOn(newer));
        }
    }
    let mut done = Undone {
        restored: Vec::new(),
        created: Vec::new(),
    };
    for state in &m.git {
        git_undo::restore(state).map_err(|e| UndoError::Io(std::io::Error::other(e)))?;
        done.restored
            .push(format!("the git refs of {}", state.repo));
    }
    for state in &m.pushes {
        push::restore(state, store, &m.id).map_err(|e| UndoError::Io(std::io::Error::other(e)))?;
        done.restored.extend(
            state
                .refs
                .iter()
                .map(|r| format!("the remote ref {} of {}", r.name, state.url)),
        );
    }
    let far = Instant::now() + Duration::from_secs(24 * 3600);
    for (n, root) in m.roots.iter().enumerate() {
        let path = Path::new(&root.path);
        if root.kind == RootKind::Absent {
            // What the action created goes (checked above not to have changed since).
            if path.symlink_metadata().is_ok() {
                copy::remove(path).map_err(UndoError::Io)?;
                done.created.push(root.path.clone());
            }
            continue;
        }
        copy::remove(path).map_err(UndoError::Io)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(UndoError::Io)?;
        }
        copy::copy_tree(&entry.data(n), path, far).map_err(|e| match e {
            copy::CopyError::Io(e) => UndoError::Io(e),
            other => UndoError::Io(std::io::Error::other(other.to_string())),
        })?;
        done.restored.push(root.path.clone());
    }
    Ok(done)
}

/// Appends to `out` every path at or below `path` modified after `after_ms` (a first few).
fn newer_than(path: &Path, after_ms: i64, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = match path.symlink_metadata() {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if out.len() >= 5 {
        return Ok(());
    }
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64);
    if modified > after_ms {
        out.push(path.to_path_buf());
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            newer_than(&entry?.path(), after_ms, out)?;
        }
    }
    Ok(())
}
