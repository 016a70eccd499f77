//! The database schema as an ordered list of migrations; `PRAGMA user_version` is the number
//! of migrations applied.
//!
//! Never edit a published migration: append a new one. A database whose version is newer
//! than [`SCHEMA_VERSION`] belongs to a newer gate and is refused untouched.

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Migration `i` (0-based) takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // v1: machine state, the hash-chained audit with its head, grants, meta.
    "CREATE TABLE meta (
         name  TEXT PRIMARY KEY,
         value TEXT NOT NULL
     ) WITHOUT ROWID;
     CREATE TABLE state (
         scope     TEXT NOT NULL,
         spec      TEXT NOT NULL,
         spec_hash TEXT NOT NULL,
         blob      BLOB NOT NULL,
         updated   INTEGER NOT NULL,
         PRIMARY KEY (scope, spec)
     ) WITHOUT ROWID;
     CREATE TABLE audit (
         seq        INTEGER PRIMARY KEY,
         ts         INTEGER NOT NULL,
         session    TEXT NOT NULL,
         scope      TEXT NOT NULL,
         spec       TEXT NOT NULL,
         kind       TEXT NOT NULL,
         runtime    TEXT NOT NULL,
         phase      TEXT NOT NULL,
         tool       TEXT,
         target     TEXT,
         tier       TEXT,
         decision   TEXT,
         detail     TEXT NOT NULL,
         latency_us INTEGER,
         prev_mac   TEXT NOT NULL,
         mac        TEXT NOT NULL
     );
     CREATE INDEX audit_ts ON audit (ts);
     CREATE TABLE audit_head (
         id       INTEGER PRIMARY KEY CHECK (id = 1),
         rows     INTEGER NOT NULL,
         head_seq INTEGER NOT NULL,
         head_mac TEXT NOT NULL,
         tag      TEXT NOT NULL
     );
     CREATE TABLE grants (
         id          TEXT PRIMARY KEY,
         action_hash TEXT NOT NULL,
         summary     TEXT NOT NULL,
         created     INTEGER NOT NULL,
         expires     INTEGER NOT NULL,
         approved_at INTEGER,
         used_at     INTEGER,
         revoked     INTEGER NOT NULL DEFAULT 0
     ) WITHOUT ROWID;
     CREATE INDEX grants_action ON grants (action_hash);",
    // v2: closed windows and the baselines learned from them; audit lookups by session.
    "CREATE TABLE windows (
         id           INTEGER PRIMARY KEY,
         repo         TEXT NOT NULL,
         kind         TEXT NOT NULL,
         session      TEXT NOT NULL,
         actions      INTEGER NOT NULL,
         secs         INTEGER NOT NULL,
         closed_by    TEXT NOT NULL CHECK (closed_by IN ('boundary', 'backstop', 'session_end')),
         contaminated INTEGER NOT NULL DEFAULT 0,
         closed       INTEGER NOT NULL
     );
     CREATE INDEX windows_repo_kind ON windows (repo, kind);
     CREATE TABLE baselines (
         repo    TEXT NOT NULL,
         kind    TEXT NOT NULL,
         actions INTEGER NOT NULL,
         secs    INTEGER NOT NULL,
         samples INTEGER NOT NULL,
         updated INTEGER NOT NULL,
         PRIMARY KEY (repo, kind)
     ) WITHOUT ROWID;
     CREATE INDEX audit_session ON audit (session, seq);",
    // v3: the audit's secondary indexes go. No query reads `audit_ts`, and `gate log
    // --session` takes the most recent rows, which a backward scan of the rowid order finds
    // without an index. Each index cost every hook a page write per row (the WAL a call
    // appends went from ≈ 23 to ≈ 15 KB, and every later hook recovers that WAL) and a schema
    // entry to parse on every open (≈ 27 k instructions each).
    "DROP INDEX IF EXISTS audit_ts;
     DROP INDEX IF EXISTS audit_session;",
    // v4: two tables rebuilt without what every open paid to parse and no query used. The
    // `windows (repo, kind)` index served no query (the only reader, `Store::windows`, filters
    // with `?1 IS NULL OR repo = ?1`, which no index serves, and calibration reads them all);
    // `windows.closed_by` is checked where it is read (`ClosedBy::parse`) and written (an enum),
    // and `audit_head.id` is only ever 1 in the statements that write it. The CHECK
    // constraints were the dearest part of their tables to parse: together ≈ 40 k
    // instructions off every hook call (docs/performance.md).
    "CREATE TABLE windows_v4 (
         id           INTEGER PRIMARY KEY,
         repo         TEXT NOT NULL,
         kind         TEXT NOT NULL,
         session      TEXT NOT NULL,
         actions      INTEGER NOT NULL,
         secs         INTEGER NOT NULL,
         closed_by    TEXT NOT NULL,
         contaminated INTEGER NOT NULL DEFAULT 0,
         closed       INTEGER NOT NULL
     );
     INSERT INTO windows_v4 (id, repo, kind, session, actions, secs, closed_by, contaminated, closed)
         SELECT id, repo, kind, session, actions, secs, closed_by, contaminated, closed FROM windows;
     DROP TABLE windows;
     ALTER TABLE windows_v4 RENAME TO windows;
     CREATE TABLE audit_head_v4 (
         id       INTEGER PRIMARY KEY,
         rows     INTEGER NOT NULL,
         head_seq INTEGER NOT NULL,
         head_mac TEXT NOT NULL,
         tag      TEXT NOT NULL
     );
     INSERT INTO audit_head_v4 (id, rows, head_seq, head_mac, tag)
         SELECT id, rows, head_seq, head_mac, tag FROM audit_head;
     DROP TABLE audit_head;
     ALTER TABLE audit_head_v4 RENAME TO audit_head;",
    // v5: the chain head moves into `state`, under a key no machine state can have (scope
    // `audit_head`, spec ``: a spec's name is a non-empty identifier), with the tag in
    // `spec_hash` and `"{rows} {head_seq} {head_mac}"` in `blob` (`store::audit`). A hook
    // then reads and writes the head with the two `state` statements it prepares anyway:
    // one table fewer to parse on every open and two statement prepares fewer per call.
    "INSERT INTO state (scope, spec, spec_hash, blob, updated)
         SELECT 'audit_head', '', tag,
                CAST(rows || ' ' || head_seq || ' ' || head_mac AS BLOB), 0
         FROM audit_head;
     DROP TABLE audit_head;",
    // v6: the key fingerprint moves into `state` the same way (scope `key_fp`, spec ``, the
    // fingerprint in `spec_hash`), and `meta`, which held nothing else, goes: one table
    // fewer to parse on every open.
    "INSERT OR IGNORE INTO state (scope, spec, spec_hash, blob, updated)
         SELECT 'key_fp', '', value, X'', 0 FROM meta WHERE name = 'key_fp';
     DROP TABLE meta;",
    // v7: grants are looked up by action among the unexpired only. `grants_action` indexed
    // the action alone, so both lookups (`pending_grant` on every ask, `consume_grant` while
    // an approval is live) read every grant the action ever had, expired ones included: an
    // action asked about every day piles up a row per expiry, and each ask read them all (a
    // 1 M-event stored replay spent a sixth of its writer's time there). With the expiry in
    // the index, the lookup is a range that starts past the expired grants.
    "DROP INDEX grants_action;
     CREATE INDEX grants_live ON grants (action_hash, expires);",
    // v8 (observe): the role an event was evaluated under, in every audit row. Added as the
    // last column, so the insert without a column list keeps the table's order; rows written
    // before it hold NULL, and the chain hashes the role only when one is set, so they verify
    // as they always did (`store::audit::canonical_into`).
    "ALTER TABLE audit ADD COLUMN role TEXT;",
];

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

pub(crate) fn user_version(conn: &Connection) -> Result<u32, StoreError> {
    let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

/// Refuses a database from the future before anything else touches it.
pub(crate) fn check_not_future(conn: &Connection) -> Result<u32, StoreError> {
    let found = user_version(conn)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::FutureSchema {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(found)
}

/// Brings the schema up to date inside one `BEGIN IMMEDIATE` transaction (concurrent openers
/// serialize here; the version is re-read under the lock, so the caller calls this only when
/// its own unlocked read found an older version).
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = check_not_future(&tx)?;
    for sql in &MIGRATIONS[found as usize..] {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(())
}
