//! A new database built whole by one bulk writer (a stored replay) in a file beside its final
//! path, then moved into place: the pages are written once, without a WAL to copy them
//! through, and the final path never holds a half-built database.
//!
//! A shared database goes through the WAL ([`Store::open`]): every page a commit writes is
//! written twice, once into the WAL and once by the checkpoint that copies it into the
//! database. For a new database that nobody else can see yet that copy buys nothing, and on a
//! 1 M-event replay it was a quarter of the process's CPU (the checkpointing thread's reads and
//! writes, the writer's WAL frames and checksums). So [`Store::create_staged`] builds the
//! database in a file of its own ([`partial_path`]: `gate.db` → `gate.partial`), held by this process alone (SQLite's exclusive locking mode),
//! with the rollback journal in memory (a failed batch still rolls back whole) and no fsync
//! per commit. [`Staged::publish`] switches the finished file to WAL, syncs it once, and links
//! it to the final path, which must still not exist.
//!
//! What a crash leaves: the partial file and no database, where the WAL path would have left
//! the batches committed so far. The recorded session is still there to replay again, and the
//! next build of the same database starts the partial file over.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::{io_error, open_key, paths, schema, set_wal, tune_sqlite, wal_path, Store, StoreError};

/// The extension of the file a staged database is built in.
const PARTIAL_EXTENSION: &str = "partial";

/// A database being built beside its final path ([`Store::create_staged`]); see the module
/// documentation.
#[derive(Debug)]
pub struct Staged {
    dest: PathBuf,
    partial: PathBuf,
    /// The partial file, locked (`flock`) while this process builds it: a second builder of
    /// the same database is refused, and a partial file nobody holds was left by an
    /// interrupted build and is started over.
    held: std::fs::File,
}

/// The file a staged build of `dest` writes: `dest`'s stem with the extension `partial`
/// (`gate.db` → `gate.partial`), so that it has `dest`'s key file ([`paths::key_path`]) and
/// a build left aside opens and verifies as it is. `None` when that is `dest` itself (a
/// database named `*.partial`), which cannot be built aside.
pub fn partial_path(dest: &Path) -> Option<PathBuf> {
    let partial = dest.with_extension(PARTIAL_EXTENSION);
    (partial != dest && dest.file_name().is_some()).then_some(partial)
}

impl Store {
    /// Starts building a new database for `dest` in `<dest>.partial`. The store writes only
    /// there and has no path of its own ([`Store::path`] is `None`: no writer lock file, no
    /// WAL to bound); its audit key is `dest`'s key file (created if missing), so the
    /// published database verifies like any other. Fails if `dest` (or a WAL of it) exists,
    /// or if another process is building it.
    pub fn create_staged(
        dest: &Path,
        busy_timeout: Duration,
    ) -> Result<(Store, Staged), StoreError> {
        let dir = dest.parent().unwrap_or(Path::new(""));
        paths::ensure_dir(dir).map_err(|e| io_error(format!("creating {}", dir.display()), e))?;
        for existing in [dest.to_path_buf(), wal_path(dest)] {
            if existing.exists() {
                return Err(io_error(
                    format!("building a new database at {}", dest.display()),
                    std::io::Error::new(
                        std::io::ErrorKind::AlreadyExists,
                        format!("{} exists", existing.display()),
                    ),
                ));
            }
        }
        let partial = partial_path(dest).ok_or_else(|| {
            io_error(
                format!("building {} aside", dest.display()),
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a database named *.partial is not built aside",
                ),
            )
        })?;
        let held = paths::open_private(&partial)
            .map_err(|e| io_error(format!("creating {}", partial.display()), e))?;
        match held.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io_error(
                    format!("building {}", dest.display()),
                    std::io::Error::new(
                        std::io::ErrorKind::ResourceBusy,
                        format!("another process is building it in {}", partial.display()),
                    ),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(io_error(format!("locking {}", partial.display()), e));
            }
        }
        // Whatever an interrupted build left is started over.
        held.set_len(0)
            .map_err(|e| io_error(format!("truncating {}", partial.display()), e))?;
        tune_sqlite();
        let mut conn = Connection::open_with_flags(
            &partial,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(busy_timeout)?;
        // One process, one connection: the lock is taken once and kept, the journal only has
        // to undo a failed batch, and durability comes from the one sync in `publish`.
        conn.execute_batch(
            "PRAGMA locking_mode = EXCLUSIVE;
             PRAGMA journal_mode = MEMORY;
             PRAGMA synchronous = OFF;",
        )?;
        schema::migrate(&mut conn)?;
        let key = open_key(&mut conn, &paths::key_path(dest))?;
        let store = Store {
            conn,
            key: Some(key),
            path: None,
            busy_timeout,
            defer_checkpoint: false,
            checkpoint_due: std::cell::Cell::new(false),
            fresh: true,
        };
        Ok((
            store,
            Staged {
                dest: dest.to_path_buf(),
                partial,
                held,
            },
        ))
    }
}

impl Staged {
    /// Where the database is going.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Where it is being built.
    pub fn partial(&self) -> &Path {
        &self.partial
    }

    /// Closes `store` (the one [`Store::create_staged`] returned, with everything it
    /// committed), switches the file to WAL like every gate database, syncs it, and links it
    /// to the final path. If that path came into being meanwhile (a hook created it), nothing
    /// is replaced: the error says so, and the built database stays in the partial file.
    pub fn publish(self, store: Store) -> Result<(), StoreError> {
        drop(store);
        {
            // A connection of the default kind: closing it, the last one, removes the WAL
            // and shared-memory files the switch creates.
            let conn = Connection::open_with_flags(
                &self.partial,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            // Nobody else has the file: no lock to wait for.
            set_wal(&conn, Duration::ZERO)?;
        }
        self.held
            .sync_all()
            .map_err(|e| io_error(format!("syncing {}", self.partial.display()), e))?;
        match std::fs::hard_link(&self.partial, &self.dest) {
            Ok(()) => {
                let _ = std::fs::remove_file(&self.partial);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(io_error(
                    format!(
                        "{} was created while it was being built; the built database is left in {}",
                        self.dest.display(),
                        self.partial.display()
                    ),
                    e,
                ));
            }
            // A file system without hard links: a rename, after the same check (a race
            // with a process creating the database in between is the only loss of this path).
            Err(_) if !self.dest.exists() => {
                std::fs::rename(&self.partial, &self.dest).map_err(|e| {
                    io_error(format!("moving {} into place", self.partial.display()), e)
                })?
            }
            Err(e) => {
                return Err(io_error(
                    format!(
                        "linking {} to {}",
                        self.partial.display(),
                        self.dest.display()
                    ),
                    e,
                ))
            }
        }
        // The new name is durable once the directory is.
        if let Some(dir) = self.dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}
