//! The SQLite store: machine state per (scope, spec), the hash-chained audit, grants, closed
//! windows and baselines, with typed errors so the hook can fail open.
//!
//! # Durability and cost
//!
//! A hook opens the database, runs one `BEGIN IMMEDIATE` transaction and exits. The naive
//! setup (rollback journal, or WAL with a checkpoint when the last connection closes) costs
//! about four fsyncs per call. Here the database runs in WAL mode with
//! `synchronous = NORMAL` and checkpoint-on-close disabled
//! (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`): a commit appends to the WAL and does not fsync.
//! The trade: the database is always consistent (a crash of the process loses nothing that
//! was committed), but a power loss or OS crash may roll back the last commits. The audit
//! chain stays verifiable after such a loss, because its head is written in the same
//! transaction as its rows.
//!
//! The WAL must stay small, and a PASSIVE checkpoint is not enough for that here: every hook is
//! a new process, so the first connection rebuilds the WAL index from the whole WAL file
//! (recovery) and no longer knows which frames were already checkpointed; the WAL would never
//! restart, grow without bound, and every commit past the autocheckpoint size would copy the
//! whole WAL again (measured: 3 fsyncs per call and a WAL growing by every commit). So after a
//! commit that leaves the WAL larger than [`WAL_TRUNCATE_BYTES`], the store runs a
//! `wal_checkpoint(TRUNCATE)` that does not wait (busy timeout 0 for that statement; if
//! another process is busy, a later commit does it). Amortised this is well under one fsync
//! per call, and recovery reads at most about that many bytes. SQLite's own PASSIVE
//! autocheckpoint ([`WAL_AUTOCHECKPOINT_PAGES`]) and `journal_size_limit` stay as a backstop.
//!
//! # Concurrency
//!
//! Parallel hooks of one session serialize on [`Store::transaction`] (`BEGIN IMMEDIATE`
//! takes the write lock up front, so a read-modify-write cannot lose an update); waiting is
//! bounded by the busy timeout ([`DEFAULT_BUSY_TIMEOUT`]), after which the caller gets
//! [`StoreError::Locked`] and fails open.
//!
//! # Files
//!
//! `gate.db` (+ `-wal`, `-shm`), `gate.key` (32 random bytes, mode 0600, the HMAC key of the
//! audit chain; `<db stem>.key` in general), `faults.jsonl` (see [`fallback_log`]). A
//! directory the store creates gets mode 0700.

mod audit;
mod baselines;
mod grants;
mod paths;
mod schema;

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;

pub use audit::{
    AuditFilter, AuditKind, AuditRecord, AuditRow, ChainProblem, VerifyReport, MAX_DETAIL_BYTES,
    MAX_TARGET_BYTES,
};
pub use baselines::{BaselineRow, ClosedBy, WindowRow};
pub use grants::{ApproveOutcome, GrantRow, GrantStatus, NewGrant};
pub use paths::{default_path, fallback_log, key_path, FAULT_LOG_MAX_BYTES};
pub use schema::SCHEMA_VERSION;

/// How long a writer waits for the lock before giving up with [`StoreError::Locked`].
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_millis(2000);
/// WAL size (in pages) that triggers a PASSIVE checkpoint on commit.
pub const WAL_AUTOCHECKPOINT_PAGES: u32 = 1000;
/// Size the WAL file is truncated to after a checkpoint.
pub const JOURNAL_SIZE_LIMIT_BYTES: i64 = 4 * 1024 * 1024;
/// WAL size past which a commit is followed by a non-waiting TRUNCATE checkpoint.
pub const WAL_TRUNCATE_BYTES: u64 = 1024 * 1024;

/// Why the store could not do what was asked.
#[derive(Debug)]
pub enum StoreError {
    /// A file-system error outside SQLite (directory, key file).
    Io {
        context: String,
        source: std::io::Error,
    },
    /// Another writer held the lock past the busy timeout.
    Locked,
    /// The database (or the key file) is damaged or not a gate database.
    Corrupt(String),
    /// The database was written by a newer gate; it is left untouched.
    FutureSchema { found: u32, supported: u32 },
    /// The database is older than this build and was opened read-only, so it was not
    /// migrated.
    OutdatedSchema { found: u32, supported: u32 },
    /// The audit key file is missing although the database already has a chain.
    KeyMissing,
    /// The audit key file exists but cannot be read or has the wrong size.
    KeyUnreadable(String),
    /// The key file does not match the key that wrote this database.
    KeyMismatch { expected_fp: String, key_fp: String },
    /// The disk is full.
    Full,
    /// No database path: neither GATE_DB, GATE_HOME, XDG_STATE_HOME nor HOME is set.
    NoHome,
    /// The system random source failed.
    Random(String),
    /// A value could not be encoded for storage.
    Encode(String),
    /// Any other SQLite error.
    Sqlite(rusqlite::Error),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io { context, source } => write!(f, "{context}: {source}"),
            StoreError::Locked => f.write_str("the database is locked by another gate process"),
            StoreError::Corrupt(why) => write!(f, "the database is corrupt: {why}"),
            StoreError::FutureSchema { found, supported } => write!(
                f,
                "the database has schema version {found}, newer than this gate supports ({supported}); upgrade gate"
            ),
            StoreError::OutdatedSchema { found, supported } => write!(
                f,
                "the database has schema version {found}, older than {supported}; open it read-write once to migrate"
            ),
            StoreError::KeyMissing => f.write_str("the audit key file is missing"),
            StoreError::KeyUnreadable(why) => write!(f, "the audit key file is unreadable: {why}"),
            StoreError::KeyMismatch {
                expected_fp,
                key_fp,
            } => write!(
                f,
                "the audit key file ({key_fp}) is not the key that wrote this database ({expected_fp})"
            ),
            StoreError::Full => f.write_str("the disk is full"),
            StoreError::NoHome => f.write_str(
                "no database location: set GATE_DB, GATE_HOME, XDG_STATE_HOME or HOME",
            ),
            StoreError::Random(why) => write!(f, "the system random source failed: {why}"),
            StoreError::Encode(why) => write!(f, "cannot encode a value: {why}"),
            StoreError::Sqlite(e) => write!(f, "sqlite: {e}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Sqlite(e) => Some(e),
            _ => None,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(err, msg) = &e {
            match err.code {
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => return StoreError::Locked,
                ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => {
                    return StoreError::Corrupt(msg.clone().unwrap_or_else(|| err.to_string()))
                }
                ErrorCode::DiskFull => return StoreError::Full,
                _ => {}
            }
        }
        StoreError::Sqlite(e)
    }
}

fn io_error(context: impl Into<String>, source: std::io::Error) -> StoreError {
    if source.kind() == std::io::ErrorKind::StorageFull {
        return StoreError::Full;
    }
    StoreError::Io {
        context: context.into(),
        source,
    }
}

/// Lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// A machine's persisted state for one (scope, spec).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredState {
    /// Hash of the spec version that wrote `blob`; a mismatch means "another spec version".
    pub spec_hash: String,
    pub blob: Vec<u8>,
    pub updated_ms: i64,
}

/// One state row, for `gate status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScopeRow {
    pub scope: String,
    pub spec: String,
    pub spec_hash: String,
    pub blob_len: usize,
    pub updated_ms: i64,
}

/// An open gate database.
pub struct Store {
    conn: Connection,
    key: Option<[u8; 32]>,
    path: Option<PathBuf>,
    busy_timeout: Duration,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("key", &self.key.map(|_| "<32 bytes>"))
            .finish_non_exhaustive()
    }
}

/// One `BEGIN IMMEDIATE` transaction; see [`Store::transaction`].
pub struct Txn<'a> {
    tx: rusqlite::Transaction<'a>,
    key: Option<[u8; 32]>,
}

impl fmt::Debug for Txn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Txn").finish_non_exhaustive()
    }
}

fn read_key(path: &Path) -> Result<Option<[u8; 32]>, StoreError> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(StoreError::KeyUnreadable(format!(
                "{}: {e}",
                path.display()
            )))
        }
    };
    let mut buf = Vec::with_capacity(33);
    Read::take(&mut file, 33)
        .read_to_end(&mut buf)
        .map_err(|e| StoreError::KeyUnreadable(format!("{}: {e}", path.display())))?;
    let key: [u8; 32] = buf.as_slice().try_into().map_err(|_| {
        StoreError::KeyUnreadable(format!(
            "{}: expected 32 bytes, found {}",
            path.display(),
            buf.len()
        ))
    })?;
    Ok(Some(key))
}

/// Creates the key file atomically: written in full under a temporary name, then hard-linked
/// into place, so a concurrent opener either sees no key or the whole key. If another
/// process won the race, its key is used.
fn create_key(path: &Path) -> Result<[u8; 32], StoreError> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).map_err(|e| StoreError::Random(e.to_string()))?;
    let tmp = path.with_extension(format!("key.tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let write = || -> std::io::Result<()> {
        let mut f = paths::open_private_append(&tmp)?;
        f.write_all(&key)?;
        f.sync_all()
    };
    write().map_err(|e| io_error(format!("writing {}", tmp.display()), e))?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(key),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key(path)?.ok_or(StoreError::KeyMissing)
        }
        Err(e) => Err(io_error(format!("creating {}", path.display()), e)),
    }
}

fn stored_key_fp(conn: &Connection) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE name = 'key_fp'", [], |r| {
            r.get(0)
        })
        .optional()?)
}

impl Store {
    /// Opens or creates the database at `path` (directory 0700, key file 0600 beside it) and
    /// migrates it. A database from a newer gate is refused untouched.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with_timeout(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// [`Store::open`] with an explicit busy timeout (the hook passes what is left of its
    /// deadline).
    pub fn open_with_timeout(path: &Path, busy_timeout: Duration) -> Result<Store, StoreError> {
        let dir = path.parent().unwrap_or(Path::new(""));
        paths::ensure_dir(dir).map_err(|e| io_error(format!("creating {}", dir.display()), e))?;
        let existed = path.exists();
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(busy_timeout)?;
        // Before anything writes (even the journal mode): a newer schema is never touched.
        schema::check_not_future(&conn)?;
        if !existed {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
            }
        }
        configure(&conn)?;
        schema::migrate(&mut conn)?;

        let key_file = key_path(path);
        let expected_fp = stored_key_fp(&conn)?;
        let key = match read_key(&key_file)? {
            Some(key) => key,
            None if expected_fp.is_some() => return Err(StoreError::KeyMissing),
            None => create_key(&key_file)?,
        };
        let key_fp = audit::key_fingerprint(&key);
        match expected_fp {
            Some(expected_fp) if expected_fp != key_fp => {
                return Err(StoreError::KeyMismatch {
                    expected_fp,
                    key_fp,
                })
            }
            Some(_) => {}
            None => {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                tx.execute(
                    "INSERT OR IGNORE INTO meta (name, value) VALUES ('key_fp', ?1)",
                    [&key_fp],
                )?;
                let winner = stored_key_fp(&tx)?;
                tx.commit()?;
                if let Some(expected_fp) = winner.filter(|fp| *fp != key_fp) {
                    return Err(StoreError::KeyMismatch {
                        expected_fp,
                        key_fp,
                    });
                }
            }
        }
        Ok(Store {
            conn,
            key: Some(key),
            path: Some(path.to_path_buf()),
            busy_timeout,
        })
    }

    /// Opens an existing database for reading (status, log, verify). Nothing is created or
    /// migrated; the key is loaded when present ([`Store::verify_chain`] needs it).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        if !path.exists() {
            return Err(io_error(
                format!("opening {}", path.display()),
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(DEFAULT_BUSY_TIMEOUT)?;
        let found = schema::check_not_future(&conn)?;
        if found < SCHEMA_VERSION {
            return Err(StoreError::OutdatedSchema {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        let key = read_key(&key_path(path))?;
        Ok(Store {
            conn,
            key,
            path: Some(path.to_path_buf()),
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        })
    }

    /// A private in-memory database with a fresh random key (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        schema::migrate(&mut conn)?;
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| StoreError::Random(e.to_string()))?;
        conn.execute(
            "INSERT INTO meta (name, value) VALUES ('key_fp', ?1)",
            [audit::key_fingerprint(&key)],
        )?;
        Ok(Store {
            conn,
            key: Some(key),
            path: None,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        })
    }

    /// See [`paths::default_path`].
    pub fn default_path() -> Result<PathBuf, StoreError> {
        default_path()
    }

    /// The database file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Changes how long a writer waits for the lock.
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<(), StoreError> {
        self.conn.busy_timeout(timeout)?;
        self.busy_timeout = timeout;
        Ok(())
    }

    /// Runs `f` in one `BEGIN IMMEDIATE … COMMIT` transaction; an error from `f` rolls
    /// everything back. Parallel hooks of one session serialize here.
    pub fn transaction<T>(
        &mut self,
        f: impl FnOnce(&mut Txn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let key = self.key;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = {
            let mut txn = Txn { tx, key };
            let value = f(&mut txn)?;
            txn.tx.commit()?;
            value
        };
        self.bound_wal();
        Ok(value)
    }

    /// Truncates the WAL once it passes [`WAL_TRUNCATE_BYTES`], without waiting for other
    /// processes (best effort: the commit already succeeded, so no error is reported).
    fn bound_wal(&self) {
        let Some(path) = &self.path else {
            return;
        };
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        if std::fs::metadata(&wal).map_or(true, |m| m.len() <= WAL_TRUNCATE_BYTES) {
            return;
        }
        let _ = self.checkpoint_truncate(Duration::ZERO);
    }

    /// Runs `wal_checkpoint(TRUNCATE)` waiting at most `wait` for other processes; returns
    /// whether it completed (false: another process was busy).
    pub fn checkpoint_truncate(&self, wait: Duration) -> Result<bool, StoreError> {
        self.conn.busy_timeout(wait)?;
        let busy: rusqlite::Result<i64> =
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0));
        let restored = self.conn.busy_timeout(self.busy_timeout);
        let busy = busy?;
        restored?;
        Ok(busy == 0)
    }

    /// Every state row, ordered by scope and spec.
    pub fn scopes(&self) -> Result<Vec<ScopeRow>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT scope, spec, spec_hash, length(blob), updated FROM state ORDER BY scope, spec",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(ScopeRow {
                scope: r.get(0)?,
                spec: r.get(1)?,
                spec_hash: r.get(2)?,
                blob_len: r.get::<_, i64>(3)?.try_into().unwrap_or(0),
                updated_ms: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One state row outside a write transaction (read-only stores).
    pub fn read_state(&self, scope: &str, spec: &str) -> Result<Option<StoredState>, StoreError> {
        load_state(&self.conn, scope, spec)
    }
}

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Corrupt(format!(
            "cannot switch to WAL (journal mode is {mode})"
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
    conn.pragma_update(None, "journal_size_limit", JOURNAL_SIZE_LIMIT_BYTES)?;
    Ok(())
}

fn load_state(
    conn: &Connection,
    scope: &str,
    spec: &str,
) -> Result<Option<StoredState>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT spec_hash, blob, updated FROM state WHERE scope = ?1 AND spec = ?2",
            params![scope, spec],
            |r| {
                Ok(StoredState {
                    spec_hash: r.get(0)?,
                    blob: r.get(1)?,
                    updated_ms: r.get(2)?,
                })
            },
        )
        .optional()?)
}

impl Txn<'_> {
    /// The machine state of `spec` in `scope`, if any.
    pub fn load_state(&self, scope: &str, spec: &str) -> Result<Option<StoredState>, StoreError> {
        load_state(&self.tx, scope, spec)
    }

    /// Replaces the machine state of `spec` in `scope`.
    pub fn save_state(
        &self,
        scope: &str,
        spec: &str,
        state: &StoredState,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO state (scope, spec, spec_hash, blob, updated) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (scope, spec) DO UPDATE SET spec_hash = ?3, blob = ?4, updated = ?5",
            params![scope, spec, state.spec_hash, state.blob, state.updated_ms],
        )?;
        Ok(())
    }

    /// Removes the state of `spec` in `scope` (`gate reset`); returns whether a row existed.
    pub fn delete_state(&self, scope: &str, spec: &str) -> Result<bool, StoreError> {
        Ok(self.tx.execute(
            "DELETE FROM state WHERE scope = ?1 AND spec = ?2",
            params![scope, spec],
        )? == 1)
    }
}
