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
//! per call, and recovery reads at most about that many bytes. SQLite's PASSIVE
//! autocheckpoint stays at its default (1000 pages) as a backstop for a TRUNCATE that keeps
//! failing. `journal_size_limit` is not set: SQLite applies it only when a connection restarts
//! the WAL after a checkpoint of its own, which a one-commit hook never does, and the TRUNCATE
//! checkpoint empties the file anyway.
//!
//! That checkpoint costs two or three fsyncs (tens of milliseconds on a disk), which in line
//! would land on one hook call in ~40 and set the tail latency. A caller can defer it
//! ([`Store::defer_checkpoints`]): the hook does, and hands it to a detached
//! `gate checkpoint` process that no agent waits for (`driver::checkpoint`).
//!
//! With the checkpoint out of the hook, the threshold trades WAL recovery in every hook (which
//! grows with the WAL) against how often a background checkpoint runs. At 256 KiB, against
//! 1 MiB: the mean of 8 calls sampled over the cycle went 2.02 → 1.77 M instructions (allow)
//! and 2.30–2.53 → 1.99–2.24 M (steer, ask, deny), the median paired ratio to the floor
//! 1.77–1.92× → 1.68–1.87× (two runs of 150 calls each, side by side), p99 no worse; a
//! checkpoint now runs about every 12 first-action calls (`gate-latency`,
//! docs/performance.md).
//!
//! # Cost per call
//!
//! Every hook pays for opening SQLite, recovering the WAL index (see above) and parsing the
//! schema, then for one parse ("prepare") per distinct statement. So the store keeps the
//! statements few and cheap:
//!
//! - Settings stored in the file are set when the database is created or migrated, not on
//!   every open: `journal_mode = WAL` lives in the header (a commit that finds no WAL file
//!   switches a database back that another program took out of WAL mode). Per connection only
//!   `synchronous = NORMAL` and checkpoint-on-close off. The user version is read once.
//! - The header's `application_id` carries 30 bits of the key fingerprint and two flags (see
//!   `HEADER_GRANTS`, `HEADER_BASELINES`), read without the schema: it replaces a query of
//!   the `key_fp` record on every open, and lets a hook skip the grant lookup (no approval
//!   live) and the baseline lookup (no baseline learned yet) with one pragma per transaction.
//!   The `key_fp` record in `state` stays the full fingerprint; it is read when the header has
//!   no fingerprint yet or a wrong one.
//! - One query per repo for baselines, a plain indexed lookup for grants (no `ORDER BY`),
//!   `INSERT OR REPLACE` for state; statements a transaction repeats are cached.
//! - The store's own records, the audit chain head and the key fingerprint, are `state` rows
//!   under spec `` (no spec has an empty name; schema v5 and v6). The head is read and
//!   written with the same two cached statements as a scope's state, so it costs a hook no
//!   statement of its own, and neither needs a table to parse on every open.
//! - SQLite's memory statistics are off (`tune_sqlite`): they put a global mutex on every
//!   allocation.
//!
//! Measured on the warm `allow` call (callgrind, 4th call of a session; other code the same):
//! 3.56 M → 3.02 M instructions, and 2.85 M → 2.31 M on average over the next 40 calls. What is
//! left in the store is mostly fixed: parsing the schema (≈ 0.24 M for the 9 objects of schema
//! v3, about 27 k per object and more for wide tables or CHECK constraints; each new table,
//! index or constraint adds to every call; schema v4 took 23 k off by dropping an unused index
//! and two CHECK constraints, v5 and v6 about 70 k by moving two tables' rows into `state`),
//! opening and closing SQLite (≈ 0.11 M), WAL recovery (≈ 0.57 instructions per WAL byte: a call appends about 15 KB, so recovery grows from ~0 to ≈ 0.15 M over one
//! [`WAL_TRUNCATE_BYTES`] cycle, ≈ 0.07 M on average). Schema v3 dropped the audit's two
//! secondary indexes: each was a schema entry to parse and a page write per row (a call
//! appended 23 KB with them). 1 KiB pages cut the WAL per call to ≈ 7 KB but cost more page
//! reads than they save.
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
pub(crate) mod paths;
mod schema;
mod sink;
mod staged;

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;

pub(crate) use audit::{AuditEntry, ChainTip, Linked};
pub use audit::{
    AuditFilter, AuditKind, AuditRecord, AuditRow, ChainProblem, VerifyReport, MAX_DETAIL_BYTES,
    MAX_TARGET_BYTES,
};
pub use baselines::{BaselineRow, ClosedBy, WindowRow};
pub(crate) use grants::{
    derived_id as derived_grant_id, newer_pending, ID_ATTEMPTS as GRANT_ID_ATTEMPTS,
};
pub use grants::{ApproveOutcome, GrantRow, GrantStatus, NewGrant};
pub use paths::{default_path, fallback_log, fault_log_path, key_path, FAULT_LOG_MAX_BYTES};
pub use schema::SCHEMA_VERSION;
pub use sink::SinkCursor;
pub use staged::{partial_path, Staged};

/// How long a writer waits for the lock before giving up with [`StoreError::Locked`].
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_millis(2000);
/// Page cache of a connection that writes in bulk ([`Store::set_cache_for_bulk_writes`]).
pub const BULK_CACHE_KIB: u32 = 64 * 1024;
/// WAL size past which a commit is followed by a non-waiting TRUNCATE checkpoint.
pub const WAL_TRUNCATE_BYTES: u64 = 256 * 1024;

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
/// `n` in LEB128 (seven bits a byte, low first, the high bit set on every byte but the last):
/// the length before each part of a digest's input.
pub(crate) fn leb128(mut n: u64) -> LebBytes {
    let mut out = LebBytes([0; 10], 0);
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.0[out.1] = low;
            out.1 += 1;
            return out;
        }
        out.0[out.1] = low | 0x80;
        out.1 += 1;
    }
}

/// The bytes of [`leb128`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct LebBytes([u8; 10], usize);

impl LebBytes {
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.0[..self.1]
    }
}

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
    /// Leave the WAL truncation to the caller ([`Store::defer_checkpoints`]).
    defer_checkpoint: bool,
    /// A commit left the WAL past [`WAL_TRUNCATE_BYTES`] and the truncation was deferred.
    checkpoint_due: std::cell::Cell<bool>,
    /// Built aside ([`Store::create_staged`]) and not written since: nothing but this
    /// process can read or write it, and it holds no state, grant, baseline or audit row.
    fresh: bool,
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
    /// The baselines of one repo, read once per transaction ([`Txn::baseline`]).
    baselines: std::cell::RefCell<Option<(String, Vec<BaselineRow>)>>,
    /// The header's `application_id`, read at most once per transaction.
    header: std::cell::Cell<Option<i32>>,
}

impl fmt::Debug for Txn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Txn").finish_non_exhaustive()
    }
}

/// Process-wide SQLite settings, applied once before this process opens its first
/// connection: memory-usage statistics off. With them on (SQLite's default) every allocation
/// and free inside SQLite takes a global mutex to keep counters that gate never reads; a hook
/// makes about 1,300 of them (≈ 0.1 M instructions). Nothing gate uses depends on the
/// statistics (they serve `sqlite3_memory_used` and the soft heap limit).
fn tune_sqlite() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_config` takes an option code and, for MEMSTATUS, one C int, which is
        // what is passed. It may only change settings before SQLite is initialised; once it is
        // (another connection opened first, e.g. in a test), it returns SQLITE_MISUSE and
        // changes nothing, which is fine: the setting is an optimisation. It reads and writes
        // process-global configuration, so it must not race with another thread initialising
        // SQLite: gate opens its connections through `Store`, and this runs, once, before the
        // first of them.
        let off: std::ffi::c_int = 0;
        #[allow(unsafe_code)]
        let _ =
            unsafe { rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS, off) };
    });
}

/// How much a WAL checkpoint does (SQLite's `SQLITE_CHECKPOINT_*` modes that gate uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// Copy what can be copied without waiting for anyone; the WAL is not reset.
    Passive,
    /// Copy everything, waiting (busy timeout) for writers and readers, then truncate the
    /// WAL file to zero bytes.
    Truncate,
}

/// Runs a checkpoint of the main database through `sqlite3_wal_checkpoint_v2`; true when it
/// completed, false when other connections kept it from completing (`SQLITE_BUSY`). Unlike
/// `PRAGMA wal_checkpoint`, which is compiled as a statement and so first parses the whole
/// schema, the call needs no schema: a connection that only checkpoints ([`WalOnly`]) never
/// reads it. The connection must have read the database once, which opens its WAL (a
/// checkpoint on a connection that has not is a silent no-op).
fn wal_checkpoint(conn: &Connection, mode: Checkpoint) -> Result<bool, StoreError> {
    use rusqlite::ffi;
    let mode = match mode {
        Checkpoint::Passive => ffi::SQLITE_CHECKPOINT_PASSIVE,
        Checkpoint::Truncate => ffi::SQLITE_CHECKPOINT_TRUNCATE,
    };
    let (mut log, mut copied): (std::ffi::c_int, std::ffi::c_int) = (0, 0);
    // SAFETY: `handle` is the open connection `conn` owns, used on this thread only for the
    // duration of the call (no other rusqlite call on it runs meanwhile, and `conn` outlives
    // it); `sqlite3_wal_checkpoint_v2` takes that handle, a NUL-terminated schema name
    // ("main", a static C string), a mode constant and two out-pointers to live stack ints.
    #[allow(unsafe_code)]
    let rc = unsafe {
        let handle = conn.handle();
        ffi::sqlite3_wal_checkpoint_v2(handle, c"main".as_ptr(), mode, &mut log, &mut copied)
    };
    match rc {
        ffi::SQLITE_OK => Ok(true),
        ffi::SQLITE_BUSY => Ok(false),
        code => Err(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            ffi::Error::new(code),
            Some("checkpointing the write-ahead log".to_string()),
        ))),
    }
}

/// A connection to an existing database that only checkpoints its WAL (`gate checkpoint`,
/// which the hook starts in the background). It creates nothing, migrates nothing, reads no
/// key and never parses the schema (≈ 0.28 M instructions of a `Store::open`): a checkpoint
/// copies pages and needs none of it.
pub struct WalOnly {
    conn: Connection,
}

impl WalOnly {
    /// Opens `path` (which must exist) and reads its header, which opens the WAL and, as the
    /// first connection of a process must, rebuilds its index.
    pub fn open(path: &Path, busy_timeout: Duration) -> Result<WalOnly, StoreError> {
        tune_sqlite();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(busy_timeout)?;
        // Closing runs no checkpoint of its own: the ones asked for are the ones that run.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        // `user_version` is read from the header: a read transaction, no schema.
        schema::user_version(&conn)?;
        Ok(WalOnly { conn })
    }

    /// Runs one checkpoint, waiting at most `wait` for other processes; returns whether it
    /// completed.
    pub fn checkpoint(&self, mode: Checkpoint, wait: Duration) -> Result<bool, StoreError> {
        self.conn.busy_timeout(wait)?;
        wal_checkpoint(&self.conn, mode)
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

/// The spec under which `state` keeps the store's own records (the audit chain head,
/// [`audit::HEAD_SCOPE`], and the key fingerprint, [`KEY_FP_SCOPE`]; schema v5 and v6) rather
/// than in tables of their own, each parsed on every open. No machine state has it: a spec's
/// name is a non-empty identifier. [`Store::scopes`] leaves these rows out.
pub(crate) const RECORD_SPEC: &str = "";

/// The record of the full fingerprint of the key that writes the chain (in `spec_hash`).
const KEY_FP_SCOPE: &str = "key_fp";

pub(crate) fn stored_key_fp(conn: &Connection) -> Result<Option<String>, StoreError> {
    Ok(load_state(conn, KEY_FP_SCOPE, RECORD_SPEC)?.map(|record| record.spec_hash))
}

/// Records `key_fp` unless a fingerprint is recorded already (then that one stays).
fn record_key_fp(conn: &Connection, key_fp: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT OR IGNORE INTO state VALUES (?1, ?2, ?3, X'', 0)",
        [KEY_FP_SCOPE, RECORD_SPEC, key_fp],
    )?;
    Ok(())
}

// The database header's `application_id` (32 bits, read like the user version: no schema, no
// table) carries the key fingerprint and two flags that let a hook skip a query:
//
// - bits 2–31: the first 30 bits of the key fingerprint, never all zero, so 0 means "nothing
//   recorded yet" (a database from before this layout, or an in-memory store, which always
//   queries);
// - `HEADER_GRANTS` (bit 0): an approved grant may be live (approved, unused, unrevoked,
//   unexpired). Approving sets it; a pre-tool hook that finds no live approved grant left
//   clears it. While it is clear, `consume_grant` needs no query;
// - `HEADER_BASELINES` (bit 1): the `baselines` table may have rows. Saving one sets it;
//   nothing deletes baselines. While it is clear, `baseline` needs no query.
//
// Flags change only in write transactions and are read inside them, so a hook holding the write
// lock reads flags that no approval or calibration can overtake. Recording the fingerprint on a
// database that had none (a new one, or one from before this layout) sets each flag from what
// the tables hold.
pub(crate) const HEADER_GRANTS: i32 = 1;
pub(crate) const HEADER_BASELINES: i32 = 2;
const HEADER_FLAGS: i32 = HEADER_GRANTS | HEADER_BASELINES;

/// The fingerprint part of the header's `application_id`.
fn fp_header_id(key_fp: &str) -> i32 {
    let prefix = key_fp
        .get(..8)
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .unwrap_or(0);
    let flags = HEADER_FLAGS as u32;
    // The header field is a signed 32-bit integer; keep the bit pattern.
    i32::from_ne_bytes((prefix & !flags).max(flags + 1).to_ne_bytes())
}

/// Loads (or, for a database without a key yet, creates) the audit key and checks that it is
/// the key that wrote this database. The fast path reads only the header's `application_id`
/// (no schema, no table): it holds the first four bytes of the key fingerprint. The full
/// fingerprint (the `key_fp` record) is read only when the header has none yet or does not
/// match.
fn open_key(conn: &mut Connection, key_file: &Path) -> Result<[u8; 32], StoreError> {
    let header_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    if header_id != 0 {
        let key = read_key(key_file)?.ok_or(StoreError::KeyMissing)?;
        let key_fp = audit::key_fingerprint(&key);
        if fp_header_id(&key_fp) == header_id & !HEADER_FLAGS {
            return Ok(key);
        }
        let expected_fp = stored_key_fp(conn)?.unwrap_or_else(|| {
            let prefix = header_id & !HEADER_FLAGS;
            format!("{:08x}…", u32::from_ne_bytes(prefix.to_ne_bytes()))
        });
        return Err(StoreError::KeyMismatch {
            expected_fp,
            key_fp,
        });
    }
    // A new database, or one from before the header carried the fingerprint.
    let expected_fp = stored_key_fp(conn)?;
    let key = match read_key(key_file)? {
        Some(key) => key,
        None if expected_fp.is_some() => return Err(StoreError::KeyMissing),
        None => create_key(key_file)?,
    };
    let key_fp = audit::key_fingerprint(&key);
    if let Some(expected_fp) = expected_fp.filter(|fp| *fp != key_fp) {
        return Err(StoreError::KeyMismatch {
            expected_fp,
            key_fp,
        });
    }
    // Record the fingerprint under the write lock: a concurrent opener may have recorded its
    // own first, and then that one wins.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    record_key_fp(&tx, &key_fp)?;
    if let Some(expected_fp) = stored_key_fp(&tx)?.filter(|fp| *fp != key_fp) {
        return Err(StoreError::KeyMismatch {
            expected_fp,
            key_fp,
        });
    }
    // The flags as this database stands (it may predate them; expiry is left to the first
    // pre-tool hook).
    let (grants, baselines): (bool, bool) = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM grants WHERE approved_at IS NOT NULL
                        AND used_at IS NULL AND revoked = 0),
                EXISTS (SELECT 1 FROM baselines)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let flags =
        if grants { HEADER_GRANTS } else { 0 } | if baselines { HEADER_BASELINES } else { 0 };
    tx.pragma_update(None, "application_id", fp_header_id(&key_fp) | flags)?;
    tx.commit()?;
    Ok(key)
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
        tune_sqlite();
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(busy_timeout)?;
        // Before anything writes (even the journal mode): a newer schema is never touched.
        let version = schema::check_not_future(&conn)?;
        if !existed {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
            }
        }
        configure(&conn)?;
        if version < SCHEMA_VERSION {
            set_wal(&conn, busy_timeout)?;
            schema::migrate(&mut conn)?;
        }
        let key = open_key(&mut conn, &key_path(path))?;
        Ok(Store {
            conn,
            key: Some(key),
            path: Some(path.to_path_buf()),
            busy_timeout,
            defer_checkpoint: false,
            checkpoint_due: std::cell::Cell::new(false),
            fresh: false,
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
        tune_sqlite();
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
            defer_checkpoint: false,
            checkpoint_due: std::cell::Cell::new(false),
            fresh: false,
        })
    }

    /// A private in-memory database with a fresh random key (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        tune_sqlite();
        let mut conn = Connection::open_in_memory()?;
        schema::migrate(&mut conn)?;
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| StoreError::Random(e.to_string()))?;
        record_key_fp(&conn, &audit::key_fingerprint(&key))?;
        Ok(Store {
            conn,
            key: Some(key),
            path: None,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            defer_checkpoint: false,
            checkpoint_due: std::cell::Cell::new(false),
            fresh: false,
        })
    }

    /// See [`paths::default_path`].
    pub fn default_path() -> Result<PathBuf, StoreError> {
        default_path()
    }

    /// The database file that others share: `None` in memory and while a database is built
    /// aside ([`Store::create_staged`]), which no other process uses.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Changes how long a writer waits for the lock.
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<(), StoreError> {
        self.conn.busy_timeout(timeout)?;
        self.busy_timeout = timeout;
        Ok(())
    }

    /// Sizes the page cache for transactions that write thousands of rows (a stored replay).
    /// With SQLite's default 2 MiB cache such a transaction spills dirty pages into the WAL
    /// before it commits, and the pages it touches again are written again; a hook's one-row
    /// transactions never fill the default and keep it.
    pub fn set_cache_for_bulk_writes(&mut self) -> Result<(), StoreError> {
        self.conn
            .pragma_update(None, "cache_size", -(BULK_CACHE_KIB as i64))?;
        Ok(())
    }

    /// Turns SQLite's automatic checkpoint on (its default: a commit that leaves more than
    /// 1,000 pages in the WAL copies them into the database) or off (`wal_autocheckpoint =
    /// 0`) for this connection. Off is for a writer that leaves that copy to another
    /// connection: a stored replay's checkpointing thread (`driver::Pipeline`).
    pub fn set_auto_checkpoint(&self, on: bool) -> Result<(), StoreError> {
        // SQLite's default threshold, in pages.
        let pages: i64 = if on { 1000 } else { 0 };
        self.conn.pragma_update(None, "wal_autocheckpoint", pages)?;
        Ok(())
    }

    /// The audit key of a store that only its one writer can see and that holds nothing yet
    /// (built aside, no transaction run): whoever takes it over knows everything it will ever
    /// hold, so it can answer its own questions. `None` for every other store.
    pub(crate) fn fresh_private_key(&self) -> Option<[u8; 32]> {
        self.key.filter(|_| self.fresh)
    }

    /// The size of the WAL file (0 when there is none, or in memory).
    pub fn wal_bytes(&self) -> u64 {
        let Some(path) = &self.path else {
            return 0;
        };
        std::fs::metadata(wal_path(path)).map_or(0, |m| m.len())
    }

    /// Runs `f` in one `BEGIN IMMEDIATE … COMMIT` transaction; an error from `f` rolls
    /// everything back. Parallel hooks of one session serialize here.
    pub fn transaction<T>(
        &mut self,
        f: impl FnOnce(&mut Txn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let key = self.key;
        self.fresh = false;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = {
            let mut txn = Txn {
                tx,
                key,
                baselines: Default::default(),
                header: Default::default(),
            };
            let value = f(&mut txn)?;
            txn.tx.commit()?;
            value
        };
        self.bound_wal();
        Ok(value)
    }

    /// Truncates the WAL once it passes [`WAL_TRUNCATE_BYTES`], without waiting for other
    /// processes (best effort: the commit already succeeded, so no error is reported). A
    /// database in WAL mode always has its WAL file after a commit; none means the journal
    /// mode was changed behind gate's back, and it is switched back to WAL.
    fn bound_wal(&self) {
        let Some(path) = &self.path else {
            return;
        };
        match std::fs::metadata(wal_path(path)) {
            Ok(m) if m.len() > WAL_TRUNCATE_BYTES => {
                if self.defer_checkpoint {
                    self.checkpoint_due.set(true);
                } else {
                    let _ = self.checkpoint_truncate(Duration::ZERO);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let _ = set_wal(&self.conn, Duration::ZERO);
            }
            _ => {}
        }
    }

    /// Leaves the WAL truncation that a commit may call for to the caller: instead of
    /// checkpointing in line (two or three fsyncs, tens of milliseconds on a disk), the store
    /// only notes it ([`Store::checkpoint_due`]). The hook uses this to run the checkpoint in
    /// a detached `gate checkpoint` process, so no agent waits on it.
    pub fn defer_checkpoints(&mut self) {
        self.defer_checkpoint = true;
    }

    /// For a process about to exit: the connection is never closed, so the schema, statement
    /// cache and page cache are not freed one by one (the exit frees them at once). Nothing
    /// is lost: every transaction has committed or rolled back by the time a `Store` can be
    /// moved here, closing runs no checkpoint (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), and the
    /// kernel releases the file locks and descriptors at exit, as it does for a process
    /// that is killed. Do not call this in a process that goes on to use the database.
    pub fn leave_open_until_exit(self) {
        std::mem::forget(self);
    }

    /// A commit of this store left the WAL past [`WAL_TRUNCATE_BYTES`] and the checkpoint
    /// was deferred ([`Store::defer_checkpoints`]).
    pub fn checkpoint_due(&self) -> bool {
        self.checkpoint_due.get()
    }

    /// Runs `wal_checkpoint(TRUNCATE)` waiting at most `wait` for other processes; returns
    /// whether it completed (false: another process was busy).
    pub fn checkpoint_truncate(&self, wait: Duration) -> Result<bool, StoreError> {
        self.checkpoint(Checkpoint::Truncate, wait)
    }

    /// Runs `wal_checkpoint(PASSIVE)`: copies what it can of the WAL into the database
    /// (with its fsync) without blocking writers and without resetting the WAL. A TRUNCATE
    /// right after it has little left to copy, so it holds the write lock briefly.
    pub fn checkpoint_passive(&self) -> Result<bool, StoreError> {
        self.checkpoint(Checkpoint::Passive, Duration::ZERO)
    }

    fn checkpoint(&self, mode: Checkpoint, wait: Duration) -> Result<bool, StoreError> {
        self.conn.busy_timeout(wait)?;
        let done = wal_checkpoint(&self.conn, mode);
        let restored = self.conn.busy_timeout(self.busy_timeout);
        let done = done?;
        restored?;
        Ok(done)
    }

    /// Every machine state row (not the chain head kept in `state`), ordered by scope and spec.
    pub fn scopes(&self) -> Result<Vec<ScopeRow>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT scope, spec, spec_hash, length(blob), updated FROM state
             WHERE spec <> ?1 ORDER BY scope, spec",
        )?;
        let rows = stmt.query_map([RECORD_SPEC], |r| {
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

/// SQLite's write-ahead log of the database at `db`.
fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push("-wal");
    PathBuf::from(name)
}

/// Per-connection settings (not stored in the file), applied on every open.
fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// Switches the file to WAL mode. The mode is stored in the database header, so this runs when
/// the database is created or migrated, and again only if a commit finds no WAL file (some
/// other program switched the journal mode back).
///
/// The switch is retried for up to `wait` while SQLite answers that the database is busy.
/// SQLite does not run the busy handler for every lock a journal-mode change takes: on a new
/// database that other processes are opening at the same moment (another one switching it to
/// WAL or migrating it), `PRAGMA journal_mode = WAL` fails with `SQLITE_BUSY` at once, however
/// long the connection's busy timeout, and parallel hooks of a first session failed open.
fn set_wal(conn: &Connection, wait: Duration) -> Result<(), StoreError> {
    let deadline = std::time::Instant::now() + wait;
    let mut pause = Duration::from_millis(1);
    let mode: String = loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
            Ok(mode) => break mode,
            Err(e) => {
                let busy = matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                );
                let now = std::time::Instant::now();
                if !busy || now >= deadline {
                    return Err(e.into());
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
        }
    };
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Corrupt(format!(
            "cannot switch to WAL (journal mode is {mode})"
        )));
    }
    Ok(())
}

/// Reads one `state` row by key. The chain head is a `state` row too
/// ([`audit::HEAD_SCOPE`]), read with this same cached statement: one prepare serves both.
pub(crate) const SELECT_STATE: &str =
    "SELECT spec_hash, blob, updated FROM state WHERE scope = ?1 AND spec = ?2";

/// Writes one `state` row. `REPLACE` rather than an upsert clause: the same row in the end
/// (no triggers, no foreign keys on `state`), and about half the cost to prepare. The values
/// are in the table's column order (scope, spec, spec_hash, blob, updated; fixed by migration
/// v1): without a column list the statement is cheaper still to prepare (−3.5 k). The chain
/// head is written with it as well.
pub(crate) const REPLACE_STATE: &str = "INSERT OR REPLACE INTO state VALUES (?1, ?2, ?3, ?4, ?5)";

fn load_state(
    conn: &Connection,
    scope: &str,
    spec: &str,
) -> Result<Option<StoredState>, StoreError> {
    Ok(conn
        .prepare_cached(SELECT_STATE)?
        .query_row(params![scope, spec], |r| {
            Ok(StoredState {
                spec_hash: r.get(0)?,
                blob: r.get(1)?,
                updated_ms: r.get(2)?,
            })
        })
        .optional()?)
}

impl Txn<'_> {
    fn header_id(&self) -> Result<i32, StoreError> {
        if let Some(id) = self.header.get() {
            return Ok(id);
        }
        let id: i32 = self
            .tx
            .query_row("PRAGMA application_id", [], |r| r.get(0))?;
        self.header.set(Some(id));
        Ok(id)
    }

    /// Whether the header leaves `flag`'s question open (flag set, or no header yet): only
    /// then does the caller need its query.
    pub(crate) fn header_says(&self, flag: i32) -> Result<bool, StoreError> {
        let id = self.header_id()?;
        Ok(id == 0 || id & flag != 0)
    }

    /// Sets or clears a header flag (nothing happens on a database with no header yet).
    pub(crate) fn set_header_flag(&self, flag: i32, on: bool) -> Result<(), StoreError> {
        let id = self.header_id()?;
        let new = if on { id | flag } else { id & !flag };
        if id != 0 && new != id {
            self.tx.pragma_update(None, "application_id", new)?;
            self.header.set(Some(new));
        }
        Ok(())
    }

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
        self.tx.prepare_cached(REPLACE_STATE)?.execute(params![
            scope,
            spec,
            state.spec_hash,
            state.blob,
            state.updated_ms
        ])?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_db() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("gate.db");
        (dir, db)
    }

    fn header_id(db: &Path) -> i32 {
        Connection::open(db)
            .unwrap()
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap()
    }

    fn one_commit(store: &mut Store) {
        store
            .transaction(|t| {
                t.save_state(
                    "s",
                    "spec",
                    &StoredState {
                        spec_hash: "h".into(),
                        blob: vec![1],
                        updated_ms: 1,
                    },
                )
            })
            .unwrap();
    }

    #[test]
    fn the_header_carries_the_key_fingerprint() {
        let (_dir, db) = temp_db();
        let store = Store::open(&db).unwrap();
        let fp = audit::key_fingerprint(&store.key.unwrap());
        drop(store);
        assert_ne!(header_id(&db), 0);
        assert_eq!(header_id(&db) & !HEADER_FLAGS, fp_header_id(&fp));
        let recorded = stored_key_fp(&Connection::open(&db).unwrap()).unwrap();
        assert_eq!(recorded, Some(fp));
    }

    #[test]
    fn a_database_from_before_the_header_fingerprint_gets_one_and_is_still_checked() {
        let (_dir, db) = temp_db();
        drop(Store::open(&db).unwrap());
        let key = std::fs::read(key_path(&db)).unwrap();
        Connection::open(&db)
            .unwrap()
            .pragma_update(None, "application_id", 0)
            .unwrap();
        // A wrong key is caught through the `key_fp` record while the header has no fingerprint …
        std::fs::write(key_path(&db), [9u8; 32]).unwrap();
        assert!(matches!(
            Store::open(&db),
            Err(StoreError::KeyMismatch { .. })
        ));
        assert_eq!(header_id(&db), 0, "nothing recorded for a wrong key");
        // … and the right key records it.
        std::fs::write(key_path(&db), &key).unwrap();
        drop(Store::open(&db).unwrap());
        assert_ne!(header_id(&db), 0);
        std::fs::write(key_path(&db), [9u8; 32]).unwrap();
        match Store::open(&db) {
            Err(StoreError::KeyMismatch { expected_fp, .. }) => {
                let key: [u8; 32] = key.as_slice().try_into().unwrap();
                assert_eq!(expected_fp, audit::key_fingerprint(&key));
            }
            other => panic!("expected a key mismatch, got {other:?}"),
        }
        std::fs::remove_file(key_path(&db)).unwrap();
        assert!(matches!(Store::open(&db), Err(StoreError::KeyMissing)));
    }

    #[test]
    fn header_ids_are_never_zero_and_follow_the_fingerprint() {
        assert_eq!(fp_header_id("00000000ffffffff"), 4);
        assert_eq!(fp_header_id("00000003ffffffff"), 4);
        assert_eq!(fp_header_id("0000002a00000000"), 40);
        assert_eq!(fp_header_id("0000002b00000000"), 40);
        assert_eq!(fp_header_id("ffffffff00000000"), -4);
        assert_eq!(fp_header_id("not hex"), 4);
        assert_ne!(
            fp_header_id("0123456789abcdef"),
            fp_header_id("1123456789abcdef")
        );
    }

    #[test]
    fn a_database_switched_out_of_wal_is_switched_back_by_the_next_commit() {
        let (_dir, db) = temp_db();
        drop(Store::open(&db).unwrap());
        let mode: String = Connection::open(&db)
            .unwrap()
            .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "delete");
        let mut store = Store::open(&db).unwrap();
        one_commit(&mut store);
        drop(store);
        let mode: String = Connection::open(&db)
            .unwrap()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn baselines_are_read_per_repo_and_see_saves_in_the_same_transaction() {
        let mut store = Store::open_in_memory().unwrap();
        let row = |repo: &str, kind: &str, actions| BaselineRow {
            repo: repo.into(),
            kind: kind.into(),
            actions,
            secs: 60,
            samples: 5,
            updated_ms: 1,
        };
        store
            .transaction(|t| {
                t.save_baseline(&row("/a", "edit", 7))?;
                t.save_baseline(&row("/b", "edit", 9))
            })
            .unwrap();
        store
            .transaction(|t| {
                assert_eq!(t.baseline("/a", "edit")?.map(|b| b.actions), Some(7));
                assert_eq!(t.baseline("/a", "test")?, None);
                assert_eq!(t.baseline("/b", "edit")?.map(|b| b.actions), Some(9));
                t.save_baseline(&row("/b", "test", 3))?;
                assert_eq!(t.baseline("/b", "test")?.map(|b| b.actions), Some(3));
                t.save_baseline(&row("/b", "edit", 11))?;
                assert_eq!(t.baseline("/b", "edit")?.map(|b| b.actions), Some(11));
                assert_eq!(t.baseline("/a", "edit")?.map(|b| b.actions), Some(7));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn the_grant_flag_follows_live_approvals() {
        let (_dir, db) = temp_db();
        let mut store = Store::open(&db).unwrap();
        let flag = |store: &Store| {
            let id: i32 = store
                .conn
                .query_row("PRAGMA application_id", [], |r| r.get(0))
                .unwrap();
            id & HEADER_GRANTS != 0
        };
        let consume = |store: &mut Store, action: &str, now: i64| {
            store.transaction(|t| t.consume_grant(action, now)).unwrap()
        };
        let ask = |store: &mut Store, action: &str| {
            store
                .transaction(|t| {
                    t.create_grant(&NewGrant {
                        action_hash: action.into(),
                        summary: "s".into(),
                        created_ms: 1_000,
                        expires_ms: 10_000,
                    })
                })
                .unwrap()
        };
        assert!(!flag(&store), "a new database has no approved grant");
        assert_eq!(consume(&mut store, "a", 1_000), None);
        let a = ask(&mut store, "a");
        let b = ask(&mut store, "b");
        assert!(!flag(&store), "a pending grant is not consumable");
        store.approve_grant(&a, 2_000).unwrap();
        assert!(flag(&store));
        store.approve_grant(&b, 2_000).unwrap();
        assert_eq!(consume(&mut store, "a", 3_000), Some(a));
        assert!(flag(&store), "b is still live");
        assert_eq!(consume(&mut store, "b", 3_000), Some(b));
        assert!(!flag(&store));
        assert_eq!(consume(&mut store, "b", 3_001), None);
        // An approval that expires unused: the flag stays until a hook sees it expired.
        let c = ask(&mut store, "c");
        store.approve_grant(&c, 4_000).unwrap();
        assert_eq!(consume(&mut store, "other", 5_000), None);
        assert!(flag(&store));
        assert_eq!(consume(&mut store, "c", 10_000), None);
        assert!(!flag(&store));
        // The key check ignores the flag.
        drop(store);
        let store = Store::open(&db).unwrap();
        store
            .conn
            .pragma_update(
                None,
                "application_id",
                fp_header_id(&audit::key_fingerprint(&store.key.unwrap())) | HEADER_GRANTS,
            )
            .unwrap();
        drop(store);
        assert!(Store::open(&db).is_ok());
    }

    #[test]
    fn flags_recorded_on_an_older_database_reflect_its_tables() {
        let (_dir, db) = temp_db();
        let mut store = Store::open(&db).unwrap();
        let id = store
            .transaction(|t| {
                t.create_grant(&NewGrant {
                    action_hash: "a".into(),
                    summary: "s".into(),
                    created_ms: 1_000,
                    expires_ms: 10_000,
                })
            })
            .unwrap();
        store.approve_grant(&id, 2_000).unwrap();
        store.calibrate(1, 50, 3_000).unwrap();
        drop(store);
        let flags = || header_id(&db) & HEADER_FLAGS;
        assert_eq!(
            flags(),
            HEADER_GRANTS,
            "approved, and no window to learn from"
        );
        // As if written before the header carried anything.
        Connection::open(&db)
            .unwrap()
            .execute_batch(
                "PRAGMA application_id = 0;
                 INSERT INTO baselines VALUES ('/r', 'edit', 5, 60, 3, 1);",
            )
            .unwrap();
        let mut store = Store::open(&db).unwrap();
        assert_eq!(flags(), HEADER_FLAGS);
        let (grant, baseline) = store
            .transaction(|t| Ok((t.consume_grant("a", 4_000)?, t.baseline("/r", "edit")?)))
            .unwrap();
        assert_eq!(grant, Some(id));
        assert_eq!(baseline.map(|b| b.actions), Some(5));
        assert_eq!(flags(), HEADER_BASELINES);
    }

    #[test]
    fn the_baseline_flag_is_set_by_the_first_saved_baseline() {
        let (_dir, db) = temp_db();
        let mut store = Store::open(&db).unwrap();
        assert_eq!(header_id(&db) & HEADER_BASELINES, 0);
        let row = BaselineRow {
            repo: "/r".into(),
            kind: "edit".into(),
            actions: 4,
            secs: 30,
            samples: 3,
            updated_ms: 1,
        };
        store
            .transaction(|t| {
                assert_eq!(t.baseline("/r", "edit")?, None);
                t.save_baseline(&row)?;
                assert_eq!(t.baseline("/r", "edit")?, Some(row.clone()));
                Ok(())
            })
            .unwrap();
        assert_ne!(header_id(&db) & HEADER_BASELINES, 0);
        drop(store);
        let mut store = Store::open(&db).unwrap();
        let got = store.transaction(|t| t.baseline("/r", "edit")).unwrap();
        assert_eq!(got, Some(row));
    }

    #[test]
    fn the_earliest_live_approval_is_consumed_first() {
        let mut store = Store::open_in_memory().unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO grants (id, action_hash, summary, created, expires, approved_at,
                                     used_at, revoked) VALUES
                 ('used0000', 'act', 's', 1, 9000, 10, 20, 0),
                 ('revoked0', 'act', 's', 1, 9000, 11, NULL, 1),
                 ('expired0', 'act', 's', 1, 100, 12, NULL, 0),
                 ('pending0', 'act', 's', 1, 9000, NULL, NULL, 0),
                 ('late0000', 'act', 's', 1, 9000, NULL, NULL, 0),
                 ('early000', 'act', 's', 1, 9000, NULL, NULL, 0),
                 ('forged00', 'act', 's', 1, 9000, 1, NULL, 0),
                 ('other000', 'other', 's', 1, 9000, NULL, NULL, 0);",
            )
            .unwrap();
        // Approved through the store (chained), in this order of time; `forged00` was only
        // marked approved in the table and is never consumed.
        for (id, at) in [("late0000", 50), ("early000", 40), ("other000", 1)] {
            store
                .transaction(|t| t.approve_grant(id, at, "user"))
                .unwrap();
        }
        let mut consume = || {
            store
                .transaction(|t| t.consume_grant("act", 1_000))
                .unwrap()
        };
        assert_eq!(consume().as_deref(), Some("early000"));
        assert_eq!(consume().as_deref(), Some("late0000"));
        assert_eq!(consume(), None);
        assert_eq!(
            store.unchained_grants().unwrap(),
            ["forged00", "revoked0", "used0000", "expired0"]
                .iter()
                .map(|s| s.to_string())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
        );
    }
}
