//! The backup store on disk: `<db stem>.backups/` beside gate's database (inside gate's home,
//! so protected with it), one directory per backup holding `data/<n>` (the n-th location as
//! it was) and `manifest.json`, written last so that a backup without one is incomplete and
//! ignored; `git/` holds the vaults of git backups (`vault.rs`), `pending/` the notes of calls
//! not yet ended (`settle.rs`). Making a backup (the [`Protector`] of the hook), listing and
//! pruning.

use super::copy::{self, Budget, CopyError, Size};
use super::git::{self, GitState, Scope};
use super::push::{self, PushState};
use super::{plan, vault, Backup, Protector};
use crate::event::Event;
use crate::observer::Classification;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The manifest's file name inside a backup's directory.
const MANIFEST: &str = "manifest.json";

/// The store beside the database `db`: `gate.backups/` beside `gate.db`.
pub fn store_dir(db: &Path) -> PathBuf {
    let stem = db
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "gate".into());
    let mut name = stem;
    name.push(".backups");
    db.with_file_name(name)
}

/// What a location was before the action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootKind {
    File,
    Dir,
    Symlink,
    /// Nothing was there (the action creates it; undo removes what it created).
    Absent,
}

/// One location a backup holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    pub path: String,
    pub kind: RootKind,
    /// Its permission bits.
    pub mode: u32,
}

/// A backup's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub id: String,
    pub created_ms: i64,
    pub session: String,
    pub cwd: String,
    pub tool: String,
    /// The command or target of the action, as the agent gave it.
    pub action: String,
    pub files: u64,
    pub bytes: u64,
    pub roots: Vec<Root>,
    /// The refs of each repository a git action could move or delete, as they were (their
    /// commits kept in gate's vault for the repository).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub git: Vec<GitState>,
    /// The remote refs a forced push changes, with their tips before it (kept in gate's vault
    /// for the repository it was pushed from).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pushes: Vec<PushState>,
}

/// A backup in the store.
#[derive(Clone, Debug)]
pub struct Entry {
    pub manifest: Manifest,
    pub dir: PathBuf,
}

impl Entry {
    /// Where the n-th root's copy is.
    pub fn data(&self, n: usize) -> PathBuf {
        self.dir.join("data").join(n.to_string())
    }
}

/// The store a live hook backs actions up into, with its caps.
#[derive(Clone, Debug)]
pub struct BackupStore {
    pub dir: PathBuf,
    pub max_action_bytes: u64,
    pub max_action_files: u64,
    pub max_total_bytes: u64,
    /// The copy must be done by then (inside the hook's deadline).
    pub deadline: Instant,
}

impl Protector for BackupStore {
    fn protect(
        &self,
        event: &Event,
        class: &Classification,
        now_ms: i64,
    ) -> Result<Backup, String> {
        if class.truncated {
            return Err("the command was too long to read whole".to_string());
        }
        // What to keep is read first (nothing is written for an action that cannot be kept).
        let planned = plan_with_git(event, class, self.deadline)?;
        let id = new_id();
        // The backup's directory is made before anything is kept: from then on its vault refs
        // are not taken for a pruned backup's.
        let dir = self.dir.join(&id);
        crate::store::paths::ensure_dir(&self.dir)
            .and_then(|()| fs::create_dir(&dir))
            .map_err(|e| {
                format!(
                    "the backup could not be made in {}: {e}",
                    self.dir.display()
                )
            })?;
        self.make(event, class, planned, now_ms, id, &dir)
            .inspect_err(|_| {
                let _ = copy::remove(&dir);
            })
    }
}

impl BackupStore {
    /// Makes backup `id` of the locations and repositories `planned` in its directory `dir`
    /// (just created).
    fn make(
        &self,
        event: &Event,
        class: &Classification,
        planned: (Vec<String>, Vec<GitState>),
        now_ms: i64,
        id: String,
        dir: &Path,
    ) -> Result<Backup, String> {
        let (paths, mut repos) = planned;
        let budget = Budget {
            max_bytes: self.max_action_bytes,
            max_files: self.max_action_files,
            deadline: self.deadline,
        };
        let mut size = Size::default();
        let mut roots = Vec::with_capacity(paths.len());
        for p in &paths {
            let path = Path::new(p);
            let kind = match fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => (RootKind::Symlink, 0),
                Ok(m) if m.is_dir() => (RootKind::Dir, copy::mode_of(&m)),
                Ok(m) => (RootKind::File, copy::mode_of(&m)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (RootKind::Absent, 0),
                Err(e) => return Err(format!("{p} cannot be read: {e}")),
            };
            if kind.0 != RootKind::Absent {
                copy::measure(path, &budget, &mut size).map_err(|e| format!("{p}: {e}"))?;
            }
            roots.push(Root {
                path: p.clone(),
                kind: kind.0,
                mode: kind.1,
            });
        }
        let held: u64 = list(&self.dir)
            .iter()
            .map(|e| e.manifest.bytes)
            .sum::<u64>()
            + vault::bytes(&self.dir);
        if held.saturating_add(size.bytes) > self.max_total_bytes {
            return Err(format!(
                "the backup store is full ({held} of {} bytes held; this needs {}): prune it \
                 with `gate backups --prune`",
                self.max_total_bytes, size.bytes
            ));
        }
        let mut vaults = Vec::new();
        let kept = self.keep_git(&id, &mut repos, &mut vaults);
        let pushes = kept.and_then(|()| {
            if plan::pushes(&class.effects) {
                push::record(
                    event.cwd.as_deref().unwrap_or(""),
                    event.target.as_deref().unwrap_or(""),
                    &id,
                    &self.dir,
                    self.deadline,
                )
            } else {
                Ok(Vec::new())
            }
        });
        for p in pushes.iter().flatten() {
            vaults.extend(p.vault.clone());
        }
        let manifest = pushes.map(|pushes| Manifest {
            id: id.clone(),
            created_ms: now_ms,
            session: event.session_id.clone().unwrap_or_default(),
            cwd: event.cwd.clone().unwrap_or_default(),
            tool: event.tool.clone().unwrap_or_default(),
            action: event.target.clone().unwrap_or_default(),
            files: size.files,
            bytes: size.bytes,
            roots,
            git: repos,
            pushes,
        });
        let written = manifest.and_then(|m| {
            write(dir, &m, self.deadline)
                .map(|()| m)
                .map_err(|e| format!("the backup could not be made in {}: {e}", dir.display()))
        });
        let manifest = match written {
            Ok(m) => m,
            Err(e) => {
                for v in &vaults {
                    vault::forget(&vault::path(&self.dir, v), &id, self.deadline);
                }
                return Err(e);
            }
        };
        // The call's end records the state the action left (`settle.rs`); without it the undo
        // falls back to modification times.
        if let Some(call) = &event.tool_use_id {
            let _ = super::settle::expect(&self.dir, call, &manifest.id);
        }
        let mut roots = paths;
        roots.extend(
            manifest
                .git
                .iter()
                .map(|g| format!("the git refs of {}", g.repo)),
        );
        roots.extend(manifest.pushes.iter().flat_map(|p| {
            p.refs
                .iter()
                .map(move |r| format!("the remote ref {} of {}", r.name, p.url))
        }));
        Ok(Backup {
            id: manifest.id,
            files: manifest.files,
            bytes: manifest.bytes,
            roots,
        })
    }

    /// Fetches the commits of every recorded repository into its vault (noting which vaults
    /// were written in `vaults`, to be cleaned where the backup fails later).
    fn keep_git(
        &self,
        id: &str,
        repos: &mut [GitState],
        vaults: &mut Vec<String>,
    ) -> Result<(), String> {
        for state in repos.iter_mut() {
            let name = vault::name(&state.repo);
            vaults.push(name.clone());
            git::keep(state, &vault::path(&self.dir, &name), id, self.deadline)?;
            state.vault = Some(name);
        }
        Ok(())
    }
}

/// The locations to copy and the repositories whose refs to record: for a git action the
/// work tree itself is replaced by the files that differ from HEAD or are untracked (and
/// ignored ones where it deletes), which are what it can discard.
fn plan_with_git(
    event: &Event,
    class: &Classification,
    deadline: Instant,
) -> Result<(Vec<String>, Vec<GitState>), String> {
    let command = event.target.as_deref().unwrap_or("");
    // A rebase's write at the repository moves its refs: recorded as a rewrite, not copied.
    let rewrite;
    let effects = if git::rewrites(command) {
        rewrite = plan::as_rewrite(&class.effects);
        &rewrite[..]
    } else {
        &class.effects[..]
    };
    let mut paths = plan::roots(effects)?;
    let git_dirs = plan::repos(effects);
    if git_dirs.is_empty() {
        return Ok((paths, Vec::new()));
    }
    let scope = git::recoverable(command)?;
    let mut states = Vec::with_capacity(git_dirs.len());
    for git_dir in git_dirs {
        let top = git::top(&git_dir, deadline)?;
        let ignored = plan::deletes_in(effects, &top);
        paths.retain(|p| *p != top);
        paths.extend(git::changed_files(&top, ignored, deadline)?);
        if scope == Scope::All {
            let common = git::common_dir(&top, deadline)?;
            paths.extend(
                git::ALL_SCOPE_FILES
                    .iter()
                    .map(|f| format!("{}/{f}", common.trim_end_matches('/'))),
            );
        }
        let mut state = git::capture(&top, scope, deadline)?;
        state.rewrite = scope == Scope::All || git::rewrites(command);
        states.push(state);
    }
    Ok((plan::outermost(paths), states))
}

/// Copies every root into `dir` (made already) and writes the manifest last.
fn write(dir: &Path, m: &Manifest, deadline: Instant) -> Result<(), CopyError> {
    let data = dir.join("data");
    fs::create_dir(&data)?;
    for (n, root) in m.roots.iter().enumerate() {
        if root.kind != RootKind::Absent {
            copy::copy_tree(Path::new(&root.path), &data.join(n.to_string()), deadline)?;
        }
    }
    let text = serde_json::to_vec_pretty(m).map_err(std::io::Error::other)?;
    let tmp = dir.join("manifest.tmp");
    fs::write(&tmp, text)?;
    fs::rename(tmp, dir.join(MANIFEST))?;
    Ok(())
}

/// A fresh backup id: `b` and 8 random hex digits.
fn new_id() -> String {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        bytes = (nanos ^ std::process::id()).to_le_bytes();
    }
    format!("b{}", crate::store::hex(&bytes))
}

/// Every complete backup in the store at `dir`, oldest first.
pub fn list(dir: &Path) -> Vec<Entry> {
    let Ok(read) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Entry> = read
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let dir = e.path();
            let text = fs::read(dir.join(MANIFEST)).ok()?;
            let manifest: Manifest = serde_json::from_slice(&text).ok()?;
            (dir.file_name()?.to_str()? == manifest.id).then_some(Entry { manifest, dir })
        })
        .collect();
    out.sort_by(|a, b| {
        (a.manifest.created_ms, &a.manifest.id).cmp(&(b.manifest.created_ms, &b.manifest.id))
    });
    out
}

/// What a prune removed.
#[derive(Clone, Debug, Default)]
pub struct Pruned {
    /// The backups removed.
    pub removed: Vec<Manifest>,
    /// Backup directories a backup that never finished left without a manifest.
    pub unfinished: Vec<String>,
    /// Notes of tool calls that never ended, left for a backup that is gone or older than the
    /// age pruned (`settle.rs`).
    pub pending: Vec<String>,
    /// The backups whose commits were dropped from the vaults (`vault.rs`), and the vaults
    /// removed whole (left with none).
    pub vault_backups: Vec<String>,
    pub vaults: Vec<String>,
}

/// How old a backup directory without a manifest must be to be taken for one that never
/// finished (a backup is made within the hook's deadline, seconds).
const UNFINISHED_MS: i64 = 3_600_000;

/// Removes the backups older than `older_than_ms`, then the oldest until the store holds at
/// most `max_bytes`; then what no backup left needs: unfinished backup directories, notes of
/// calls that never ended, the vault commits of backups that are gone.
pub fn prune(
    dir: &Path,
    now_ms: i64,
    older_than_ms: Option<i64>,
    max_bytes: Option<u64>,
) -> std::io::Result<Pruned> {
    let mut entries = list(dir);
    let mut out = Pruned::default();
    let mut total: u64 = entries.iter().map(|e| e.manifest.bytes).sum::<u64>() + vault::bytes(dir);
    let mut keep = Vec::new();
    for e in entries.drain(..) {
        let old = older_than_ms.is_some_and(|age| now_ms - e.manifest.created_ms > age);
        if old {
            copy::remove(&e.dir)?;
            total = total.saturating_sub(e.manifest.bytes);
            out.removed.push(e.manifest);
        } else {
            keep.push(e);
        }
    }
    if let Some(max) = max_bytes {
        for e in keep {
            if total <= max {
                break;
            }
            copy::remove(&e.dir)?;
            total = total.saturating_sub(e.manifest.bytes);
            out.removed.push(e.manifest);
        }
    }
    out.unfinished = unfinished(dir, now_ms)?;
    let live = directories(dir);
    out.pending = super::settle::prune(dir, &live, now_ms, older_than_ms)?;
    let vaults = vault::prune(dir, &live).map_err(std::io::Error::other)?;
    out.vault_backups = vaults.backups;
    out.vaults = vaults.vaults;
    Ok(out)
}

/// The names of the backup directories in the store (finished or under way).
fn directories(dir: &Path) -> std::collections::BTreeSet<String> {
    fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| is_id(n))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `name` is a backup id (`b` and hex digits, see [`new_id`]).
fn is_id(name: &str) -> bool {
    name.strip_prefix('b')
        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Removes the backup directories without a manifest older than [`UNFINISHED_MS`].
fn unfinished(dir: &Path, now_ms: i64) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    for name in directories(dir) {
        let d = dir.join(&name);
        if d.join(MANIFEST).exists() {
            continue;
        }
        let modified = fs::metadata(&d)?
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |t| t.as_millis() as i64);
        if now_ms - modified > UNFINISHED_MS {
            copy::remove(&d)?;
            out.push(name);
        }
    }
    Ok(out)
}
