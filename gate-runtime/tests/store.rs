//! Store tests: files and modes, migrations, refusal of a future schema, audit chain
//! tampering, grants, redaction on disk, queries and the fallback log.

mod common;

use common::store::temp_db;
use std::path::{Path, PathBuf};

use gate_runtime::store::{
    fallback_log, key_path, ApproveOutcome, AuditFilter, AuditKind, AuditRecord, ChainProblem,
    ClosedBy, GrantStatus, NewGrant, Store, StoreError, StoredState, WindowRow, SCHEMA_VERSION,
    WAL_TRUNCATE_BYTES,
};
use rusqlite::{Connection, OptionalExtension};
use serde_json::json;

/// The v1 schema exactly as the first release created it (fixture for the migration test).
const V1_FIXTURE: &str = "
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE state (scope TEXT NOT NULL, spec TEXT NOT NULL, spec_hash TEXT NOT NULL,
    blob BLOB NOT NULL, updated INTEGER NOT NULL, PRIMARY KEY (scope, spec)) WITHOUT ROWID;
CREATE TABLE audit (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL, session TEXT NOT NULL,
    scope TEXT NOT NULL, spec TEXT NOT NULL, kind TEXT NOT NULL, runtime TEXT NOT NULL,
    phase TEXT NOT NULL, tool TEXT, target TEXT, tier TEXT, decision TEXT, detail TEXT NOT NULL,
    latency_us INTEGER, prev_mac TEXT NOT NULL, mac TEXT NOT NULL);
CREATE INDEX audit_ts ON audit (ts);
CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), rows INTEGER NOT NULL,
    head_seq INTEGER NOT NULL, head_mac TEXT NOT NULL, tag TEXT NOT NULL);
CREATE TABLE grants (id TEXT PRIMARY KEY, action_hash TEXT NOT NULL, summary TEXT NOT NULL,
    created INTEGER NOT NULL, expires INTEGER NOT NULL, approved_at INTEGER, used_at INTEGER,
    revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE INDEX grants_action ON grants (action_hash);
INSERT INTO state VALUES ('session:s1', 'jwc', 'h1', x'0102', 1000);
INSERT INTO grants (id, action_hash, summary, created, expires)
    VALUES ('oldgrant', 'act', 'rm -rf build', 1000, 999999999999);
PRAGMA user_version = 1;
";

fn record(i: i64) -> AuditRecord {
    AuditRecord {
        ts_ms: 1_000 + i,
        session: if i % 2 == 0 { "s-even" } else { "s-odd" }.to_string(),
        scope: "session:s".to_string(),
        spec: "jwc".to_string(),
        kind: if i % 3 == 0 {
            AuditKind::Steer
        } else {
            AuditKind::Event
        },
        runtime: "claude-code".to_string(),
        phase: "pre".to_string(),
        tool: Some("Bash".to_string()),
        target: Some(format!("cargo test {i}")),
        tier: Some("routine".to_string()),
        decision: Some(if i % 3 == 0 { "steer" } else { "allow" }.to_string()),
        detail: json!({ "i": i, "note": "ok" }),
        latency_us: Some(40 + i),
        role: None,
    }
}

fn chain_with(rows: i64) -> (tempfile::TempDir, PathBuf) {
    let (dir, db) = temp_db();
    let mut store = Store::open(&db).expect("open");
    for i in 1..=rows {
        let seq = store
            .transaction(|t| t.append_audit(&record(i)))
            .expect("append");
        assert_eq!(seq, i);
    }
    (dir, db)
}

fn verify(db: &Path) -> gate_runtime::store::VerifyReport {
    Store::open_read_only(db)
        .expect("open read-only")
        .verify_chain()
        .expect("verify")
}

fn raw(db: &Path) -> Connection {
    Connection::open(db).expect("raw open")
}

fn user_version(db: &Path) -> i64 {
    raw(db)
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn open_creates_private_dir_key_and_current_schema() {
    let (_dir, db) = temp_db();
    let store = Store::open(&db).unwrap();
    let key = key_path(&db);
    assert_eq!(key.file_name().unwrap(), "gate.key");
    assert_eq!(std::fs::read(&key).unwrap().len(), 32);
    #[cfg(unix)]
    {
        assert_eq!(mode(db.parent().unwrap()), 0o700);
        assert_eq!(mode(&key), 0o600);
        assert_eq!(mode(&db), 0o600);
    }
    let journal: String = raw(&db)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    assert_eq!(user_version(&db), i64::from(SCHEMA_VERSION));
    drop(store);
    // Reopening keeps the same key.
    let before = std::fs::read(&key).unwrap();
    Store::open(&db).unwrap();
    assert_eq!(std::fs::read(&key).unwrap(), before);
}

/// One process per hook: closing does not checkpoint (the WAL survives the close), and the
/// WAL stays bounded across many short-lived connections instead of growing with every call.
#[test]
fn wal_survives_close_and_stays_bounded_across_connections() {
    let (_dir, db) = temp_db();
    let wal = db.with_file_name("gate.db-wal");
    let mut max_wal = 0;
    for i in 1..=300 {
        let mut store = Store::open(&db).unwrap();
        store.transaction(|t| t.append_audit(&record(i))).unwrap();
        drop(store);
        let len = std::fs::metadata(&wal).expect("WAL kept after close").len();
        if i == 1 {
            assert!(len > 0, "closing checkpointed the WAL");
        }
        max_wal = max_wal.max(len);
    }
    assert!(
        max_wal <= WAL_TRUNCATE_BYTES + 256 * 1024,
        "WAL grew to {max_wal} bytes"
    );
    let report = verify(&db);
    assert!(report.is_ok() && report.rows_ok == 300, "{report:?}");
}

#[test]
fn migrates_v1_database_keeping_its_rows() {
    let (_dir, db) = temp_db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    raw(&db).execute_batch(V1_FIXTURE).unwrap();
    assert_eq!(user_version(&db), 1);

    let mut store = Store::open(&db).unwrap();
    assert_eq!(user_version(&db), i64::from(SCHEMA_VERSION));
    let state = store
        .transaction(|t| t.load_state("session:s1", "jwc"))
        .unwrap()
        .expect("state kept");
    assert_eq!(state.blob, vec![1, 2]);
    assert_eq!(store.grants(2000, false).unwrap()[0].id, "oldgrant");
    // v7 re-indexed grants: the pending grant of v1 is still the one an ask of its action finds.
    let again = NewGrant {
        action_hash: "act".into(),
        summary: "rm -rf build".into(),
        created_ms: 2000,
        expires_ms: 902_000,
    };
    assert_eq!(
        store.transaction(|t| t.create_grant(&again)).unwrap(),
        "oldgrant"
    );
    // The tables v2 added work.
    let window = WindowRow {
        repo: "r".into(),
        kind: "feature".into(),
        session: "s1".into(),
        actions: 12,
        secs: 300,
        closed_by: ClosedBy::Boundary,
        contaminated: false,
        closed_ms: 5000,
    };
    store.transaction(|t| t.record_window(&window)).unwrap();
    assert_eq!(store.windows(Some("r"), None, true).unwrap(), vec![window]);
    assert!(verify(&db).is_ok());
    // v3 dropped the audit's secondary indexes (v1 made `audit_ts`, v2 `audit_session`).
    let audit_indexes: Vec<String> = raw(&db)
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(audit_indexes, Vec::<String>::new());
}

/// The chain head as stored (since schema v5, the `state` row keyed `audit_head`, ``):
/// (rows, head_seq, head_mac, tag).
fn chain_head(db: &Path) -> (i64, i64, String, String) {
    let (tag, blob): (String, Vec<u8>) = raw(db)
        .query_row(
            "SELECT spec_hash, blob FROM state WHERE scope = 'audit_head' AND spec = ''",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let text = String::from_utf8(blob).unwrap();
    let parts: Vec<&str> = text.split(' ').collect();
    assert_eq!(parts.len(), 3, "{text}");
    (
        parts[0].parse().unwrap(),
        parts[1].parse().unwrap(),
        parts[2].to_string(),
        tag,
    )
}

/// v4 rebuilt `windows` and `audit_head` without their CHECK constraints and dropped the
/// `windows (repo, kind)` index; v5 and v6 moved the chain head and the key fingerprint into
/// `state`; v7 replaced the grants' index. A v3 database keeps every window (ids included)
/// and its chain head, and the chain still verifies.
#[test]
fn migrates_v3_tables_keeping_windows_and_the_chain_head() {
    let (_dir, db) = chain_with(5);
    let window = |i: i64| WindowRow {
        repo: format!("r{}", i % 2),
        kind: "feature".into(),
        session: format!("s{i}"),
        actions: 10 + i,
        secs: 60 * i,
        closed_by: if i % 2 == 0 {
            ClosedBy::Boundary
        } else {
            ClosedBy::Backstop
        },
        contaminated: i == 3,
        closed_ms: 1000 * i,
    };
    {
        let mut store = Store::open(&db).unwrap();
        store
            .transaction(|t| (1..=4).try_for_each(|i| t.record_window(&window(i))))
            .unwrap();
    }
    // Put the two tables and the grants' index back as v1 and v2 created them, and the
    // version back to 3.
    let head_before = chain_head(&db);
    let key_fp_before: String = raw(&db)
        .query_row(
            "SELECT spec_hash FROM state WHERE scope = 'key_fp' AND spec = ''",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let conn = raw(&db);
    conn.execute_batch(
        "CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), rows INTEGER NOT NULL,
             head_seq INTEGER NOT NULL, head_mac TEXT NOT NULL, tag TEXT NOT NULL);
         DELETE FROM state WHERE scope = 'audit_head' AND spec = '';
         CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
         INSERT INTO meta SELECT 'key_fp', spec_hash FROM state
             WHERE scope = 'key_fp' AND spec = '';
         DELETE FROM state WHERE scope = 'key_fp' AND spec = '';",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO audit_head VALUES (1, ?1, ?2, ?3, ?4)",
        rusqlite::params![head_before.0, head_before.1, head_before.2, head_before.3],
    )
    .unwrap();
    drop(conn);
    raw(&db)
        .execute_batch(
            "CREATE TABLE w3 (id INTEGER PRIMARY KEY, repo TEXT NOT NULL, kind TEXT NOT NULL,
                 session TEXT NOT NULL, actions INTEGER NOT NULL, secs INTEGER NOT NULL,
                 closed_by TEXT NOT NULL CHECK (closed_by IN ('boundary', 'backstop', 'session_end')),
                 contaminated INTEGER NOT NULL DEFAULT 0, closed INTEGER NOT NULL);
             INSERT INTO w3 SELECT * FROM windows WHERE id != 2;
             DROP TABLE windows;
             ALTER TABLE w3 RENAME TO windows;
             CREATE INDEX windows_repo_kind ON windows (repo, kind);
             DROP INDEX grants_live;
             CREATE INDEX grants_action ON grants (action_hash);
             ALTER TABLE audit DROP COLUMN role;
             PRAGMA user_version = 3;",
        )
        .unwrap();

    let mut store = Store::open(&db).unwrap();
    assert_eq!(user_version(&db), i64::from(SCHEMA_VERSION));
    let kept = store.windows(None, None, false).unwrap();
    assert_eq!(kept, vec![window(1), window(3), window(4)]);
    let ids: Vec<i64> = raw(&db)
        .prepare("SELECT id FROM windows ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(ids, vec![1, 3, 4], "window ids survive the rebuild");
    let head_after = chain_head(&db);
    assert_eq!(head_after, head_before);
    let key_fp = |sql: &str| -> Option<String> {
        raw(&db)
            .query_row(sql, [], |r| r.get(0))
            .optional()
            .unwrap()
    };
    assert_eq!(
        key_fp("SELECT spec_hash FROM state WHERE scope = 'key_fp' AND spec = ''"),
        Some(key_fp_before),
        "v6 moves the key fingerprint into `state`"
    );
    assert!(verify(&db).is_ok());
    // The chain goes on from the migrated head, and new windows take fresh ids.
    store.transaction(|t| t.append_audit(&record(6))).unwrap();
    store.transaction(|t| t.record_window(&window(5))).unwrap();
    assert!(verify(&db).is_ok());
    assert_eq!(store.windows(Some("r1"), None, false).unwrap().len(), 3);
    let schema: Vec<(String, String)> = raw(&db)
        .prepare("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let names: Vec<&str> = schema.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "audit",
            "baselines",
            "grants",
            "grants_live",
            "state",
            "windows"
        ]
    );
    assert!(
        schema.iter().all(|(_, sql)| !sql.contains("CHECK")),
        "{schema:?}"
    );
}

/// `gate log --session` without an index: the last rows of one session among others,
/// oldest first, exactly as the indexed query returned them.
#[test]
fn session_log_finds_the_last_rows_of_one_session() {
    let (_dir, db) = temp_db();
    let mut store = Store::open(&db).unwrap();
    store
        .transaction(|t| {
            for i in 1..=60 {
                let mut r = record(i);
                r.session = format!("s{}", i % 3);
                t.append_audit(&r)?;
            }
            Ok(())
        })
        .unwrap();
    let filter = gate_runtime::store::AuditFilter {
        session: Some("s1".into()),
        limit: Some(4),
        ..Default::default()
    };
    let rows = store.audit_rows(&filter).unwrap();
    let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, vec![49, 52, 55, 58]);
    assert!(rows.iter().all(|r| r.record.session == "s1"));
}

#[test]
fn migrates_an_empty_file() {
    let (_dir, db) = temp_db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, b"").unwrap();
    Store::open(&db).unwrap();
    assert_eq!(user_version(&db), i64::from(SCHEMA_VERSION));
}

#[test]
fn future_schema_is_refused_untouched() {
    let (_dir, db) = temp_db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    raw(&db)
        .execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    for result in [Store::open(&db), Store::open_read_only(&db)] {
        match result {
            Err(StoreError::FutureSchema { found, supported }) => {
                assert_eq!((found, supported), (99, SCHEMA_VERSION));
            }
            other => panic!("expected FutureSchema, got {other:?}"),
        }
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert!(
        !key_path(&db).exists(),
        "no key written for a refused database"
    );
    let wal = db.with_file_name("gate.db-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0);
}

#[test]
fn not_a_database_is_corrupt() {
    let (_dir, db) = temp_db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, vec![b'x'; 4096]).unwrap();
    assert!(matches!(Store::open(&db), Err(StoreError::Corrupt(_))));
}

#[test]
fn intact_chain_verifies() {
    let (_dir, db) = chain_with(6);
    let report = verify(&db);
    assert!(report.is_ok(), "{report:?}");
    assert_eq!((report.rows_ok, report.head_rows), (6, 6));
}

#[test]
fn edited_row_is_named() {
    let (_dir, db) = chain_with(6);
    raw(&db)
        .execute("UPDATE audit SET decision = 'allow' WHERE seq = 3", [])
        .unwrap();
    let report = verify(&db);
    assert_eq!(report.problem, Some(ChainProblem::BadMac { seq: 3 }));
    assert_eq!(report.rows_ok, 2);
}

#[test]
fn deleted_row_is_named() {
    let (_dir, db) = chain_with(6);
    raw(&db)
        .execute("DELETE FROM audit WHERE seq = 3", [])
        .unwrap();
    let report = verify(&db);
    assert_eq!(
        report.problem,
        Some(ChainProblem::Gap {
            expected: 3,
            seq: 4
        })
    );
    assert_eq!(report.first_bad_seq(), Some(3));
}

#[test]
fn deleted_and_renumbered_rows_break_the_chain() {
    let (_dir, db) = chain_with(6);
    let conn = raw(&db);
    conn.execute("DELETE FROM audit WHERE seq = 3", []).unwrap();
    conn.execute("UPDATE audit SET seq = seq - 1 WHERE seq > 3", [])
        .unwrap();
    assert_eq!(verify(&db).first_bad_seq(), Some(3));
}

#[test]
fn inserted_row_is_named() {
    let (_dir, db) = chain_with(6);
    // A copy of row 2 replayed at the end, with its (valid for seq 2) mac.
    raw(&db)
        .execute(
            "INSERT INTO audit SELECT 7, ts, session, scope, spec, kind, runtime, phase, tool,
             target, tier, decision, detail, latency_us,
             (SELECT mac FROM audit WHERE seq = 6), mac, role FROM audit WHERE seq = 2",
            [],
        )
        .unwrap();
    assert_eq!(verify(&db).problem, Some(ChainProblem::BadMac { seq: 7 }));
}

#[test]
fn reordered_rows_are_named() {
    let (_dir, db) = chain_with(6);
    let conn = raw(&db);
    conn.execute("UPDATE audit SET seq = -1 WHERE seq = 2", [])
        .unwrap();
    conn.execute("UPDATE audit SET seq = 2 WHERE seq = 3", [])
        .unwrap();
    conn.execute("UPDATE audit SET seq = 3 WHERE seq = -1", [])
        .unwrap();
    assert_eq!(verify(&db).problem, Some(ChainProblem::BadMac { seq: 2 }));
}

#[test]
fn truncated_tail_is_detected() {
    let (_dir, db) = chain_with(6);
    raw(&db)
        .execute("DELETE FROM audit WHERE seq >= 5", [])
        .unwrap();
    let report = verify(&db);
    assert_eq!(
        report.problem,
        Some(ChainProblem::Truncated {
            expected_rows: 6,
            found_rows: 4,
            first_missing_seq: 5
        })
    );
    assert_eq!(report.first_bad_seq(), Some(5));
}

#[test]
fn truncated_tail_with_rewritten_head_is_detected() {
    let (_dir, db) = chain_with(6);
    let conn = raw(&db);
    conn.execute("DELETE FROM audit WHERE seq >= 5", [])
        .unwrap();
    conn.execute(
        "UPDATE state SET blob = CAST('4 4 ' || (SELECT mac FROM audit WHERE seq = 4) AS BLOB)
         WHERE scope = 'audit_head' AND spec = ''",
        [],
    )
    .unwrap();
    assert_eq!(verify(&db).problem, Some(ChainProblem::BadHead));
}

/// A head row in a form gate never writes is reported as a bad head, after every row has
/// been checked; a hook on that database degrades instead of chaining from it.
#[test]
fn malformed_head_is_a_bad_head() {
    let (_dir, db) = chain_with(4);
    raw(&db)
        .execute(
            "UPDATE state SET blob = CAST('four 4 x' AS BLOB)
             WHERE scope = 'audit_head' AND spec = ''",
            [],
        )
        .unwrap();
    let report = verify(&db);
    assert_eq!(report.problem, Some(ChainProblem::BadHead));
    assert_eq!(report.rows_ok, 4);
    let mut store = Store::open(&db).unwrap();
    assert!(matches!(
        store.transaction(|t| t.append_audit(&record(5))),
        Err(StoreError::Corrupt(_))
    ));
}

/// The chain head shares the `state` table with machine states but is not one: listings
/// leave it out, and writing states leaves the chain intact.
#[test]
fn chain_head_in_state_is_not_a_scope() {
    let (_dir, db) = chain_with(3);
    let mut store = Store::open(&db).unwrap();
    let state = StoredState {
        spec_hash: "h".into(),
        blob: vec![1, 2],
        updated_ms: 5,
    };
    store
        .transaction(|t| {
            t.save_state("s1:main", "default", &state)?;
            t.append_audit(&record(4))?;
            t.save_state("s2:main", "default", &state)
        })
        .unwrap();
    let scopes: Vec<String> = store
        .scopes()
        .unwrap()
        .into_iter()
        .map(|s| s.scope)
        .collect();
    assert_eq!(scopes, ["s1:main", "s2:main"]);
    assert_eq!(chain_head(&db).0, 4);
    assert!(verify(&db).is_ok());
}

#[test]
fn wrong_key_is_reported_as_such() {
    let (_dir, db) = chain_with(3);
    std::fs::write(key_path(&db), [7u8; 32]).unwrap();
    let report = verify(&db);
    assert!(
        matches!(report.problem, Some(ChainProblem::WrongKey { .. })),
        "{report:?}"
    );
    assert!(matches!(
        Store::open(&db),
        Err(StoreError::KeyMismatch { .. })
    ));
}

#[test]
fn missing_or_short_key_is_refused() {
    let (_dir, db) = chain_with(1);
    std::fs::write(key_path(&db), [7u8; 10]).unwrap();
    assert!(matches!(
        Store::open(&db),
        Err(StoreError::KeyUnreadable(_))
    ));
    std::fs::remove_file(key_path(&db)).unwrap();
    assert!(matches!(Store::open(&db), Err(StoreError::KeyMissing)));
    let read_only = Store::open_read_only(&db).unwrap();
    assert!(matches!(
        read_only.verify_chain(),
        Err(StoreError::KeyMissing)
    ));
    assert_eq!(
        read_only.audit_rows(&AuditFilter::default()).unwrap().len(),
        1
    );
}

#[test]
fn grants_are_one_time_bound_and_expiring() {
    let mut store = Store::open_in_memory().unwrap();
    let grant = |hash: &str, expires_ms| NewGrant {
        action_hash: hash.to_string(),
        summary: "git push --force origin main".to_string(),
        created_ms: 1_000,
        expires_ms,
    };
    let id = store
        .transaction(|t| t.create_grant(&grant("push", 10_000)))
        .unwrap();
    assert_eq!(id.len(), 8);
    // Asking again for the same action reuses the pending grant.
    let again = store
        .transaction(|t| t.create_grant(&grant("push", 10_000)))
        .unwrap();
    assert_eq!(again, id);
    // Not usable before approval.
    assert_eq!(
        store
            .transaction(|t| t.consume_grant("push", 2_000))
            .unwrap(),
        None
    );
    assert_eq!(
        store.approve_grant(&id, 2_000).unwrap(),
        ApproveOutcome::Approved
    );
    assert_eq!(
        store.approve_grant(&id, 2_100).unwrap(),
        ApproveOutcome::NotPending(GrantStatus::Approved)
    );
    assert_eq!(
        store.approve_grant("nosuchid", 2_100).unwrap(),
        ApproveOutcome::NotFound
    );
    // Bound to the action hash.
    assert_eq!(
        store
            .transaction(|t| t.consume_grant("push-other", 3_000))
            .unwrap(),
        None
    );
    // One-time.
    assert_eq!(
        store
            .transaction(|t| t.consume_grant("push", 3_000))
            .unwrap(),
        Some(id.clone())
    );
    assert_eq!(
        store
            .transaction(|t| t.consume_grant("push", 3_001))
            .unwrap(),
        None
    );

    // Expiry: approved but used too late.
    let late = store
        .transaction(|t| t.create_grant(&grant("deploy", 5_000)))
        .unwrap();
    store.approve_grant(&late, 4_000).unwrap();
    assert_eq!(
        store
            .transaction(|t| t.consume_grant("deploy", 5_000))
            .unwrap(),
        None
    );
    // Expiry: approval too late.
    let stale = store
        .transaction(|t| t.create_grant(&grant("drop-db", 5_000)))
        .unwrap();
    assert_eq!(
        store.approve_grant(&stale, 6_000).unwrap(),
        ApproveOutcome::NotPending(GrantStatus::Expired)
    );
    // Revoked grants are not usable.
    let revoked = store
        .transaction(|t| t.create_grant(&grant("rm", 50_000)))
        .unwrap();
    store.approve_grant(&revoked, 2_000).unwrap();
    assert!(store.revoke_grant(&revoked).unwrap());
    assert_eq!(
        store.transaction(|t| t.consume_grant("rm", 3_000)).unwrap(),
        None
    );

    let all = store.grants(3_000, false).unwrap();
    assert_eq!(all.len(), 4);
    let live: Vec<String> = store
        .grants(3_000, true)
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(live.len(), 2);
    assert!(live.contains(&late) && live.contains(&stale));
    assert!(store.grants(6_000, true).unwrap().is_empty());
}

/// A realistic set of secrets, each of which must vanish from the database file.
const SECRETS: &[&str] = &[
    "sk-ant-api03-Zx9Kq2LmN4pR7sT1vW3yB5dF8hJ0",
    "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ3",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "AKIAZ7Q3EXAMPLEKEY42",
    "xoxb-1234567890-abcdefghijkl",
    "glpat-Xy7Zq9Wv3Ut5Sr1Pq0No",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyNDIifQ.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
    "Tr0ub4dor-and-3",
    "hunter2hunter2",
    "c0rrect-h0rse-battery",
    "MIIEowIBAAKCAQEA7secretkeymaterial",
    "s3cr3t-db-pass",
    "mysqlRootPw77",
    "bearer-token-value-123456",
];

#[test]
fn secrets_never_reach_the_database_file() {
    let (_dir, db) = temp_db();
    let mut store = Store::open(&db).unwrap();
    let targets = [
        format!("curl -H 'Authorization: Bearer {}' https://api", SECRETS[13]),
        format!("export ANTHROPIC_API_KEY={} && claude", SECRETS[0]),
        format!("git push https://x-access-token:{}@github.com/o/r", SECRETS[1]),
        format!("GH_TOKEN={} gh pr create", SECRETS[2]),
        format!("aws s3 ls # key {}", SECRETS[3]),
        format!("curl -d token={} slack", SECRETS[4]),
        format!("glab auth login --token {}", SECRETS[5]),
        format!("http :8080 'Cookie: session={}'", SECRETS[6]),
        format!("psql postgres://admin:{}@db/prod", SECRETS[7]),
        format!("tool --password {} --user me", SECRETS[8]),
        format!("echo password={}", SECRETS[9]),
        format!(
            "cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\nEOF",
            SECRETS[10]
        ),
        format!("export DB_SECRET='{}'", SECRETS[11]),
        format!("mysql -u root -p{} shop", SECRETS[12]),
    ];
    store
        .transaction(|t| {
            for (i, target) in targets.iter().enumerate() {
                let mut rec = record(i as i64);
                rec.target = Some(target.clone());
                rec.detail = json!({
                    "command": target,
                    "env": { "OPENAI_API_KEY": SECRETS[0], "path": "/bin" },
                    "args": [format!("--token={}", SECRETS[5])],
                });
                t.append_audit(&rec)?;
            }
            Ok(())
        })
        .unwrap();
    let rows = store.audit_rows(&AuditFilter::default()).unwrap();
    for row in &rows {
        let target = row.record.target.as_deref().unwrap();
        assert!(target.contains("[REDACTED]"), "not redacted: {target}");
    }
    drop(store);
    let mut bytes = std::fs::read(&db).unwrap();
    let wal = db.with_file_name("gate.db-wal");
    if wal.exists() {
        bytes.extend(std::fs::read(&wal).unwrap());
    }
    let haystack = String::from_utf8_lossy(&bytes);
    for secret in SECRETS {
        assert!(!haystack.contains(secret), "secret on disk: {secret}");
    }
    assert!(haystack.contains("[REDACTED]"));
    assert!(verify(&db).is_ok());
}

#[test]
fn state_round_trips_and_rolls_back_on_error() {
    let mut store = Store::open_in_memory().unwrap();
    let state = StoredState {
        spec_hash: "h".into(),
        blob: vec![1, 2, 3],
        updated_ms: 10,
    };
    store
        .transaction(|t| t.save_state("session:a", "jwc", &state))
        .unwrap();
    let failed: Result<(), StoreError> = store.transaction(|t| {
        t.save_state(
            "session:a",
            "jwc",
            &StoredState {
                blob: vec![9],
                ..state.clone()
            },
        )?;
        t.append_audit(&record(1))?;
        Err(StoreError::Locked)
    });
    assert!(matches!(failed, Err(StoreError::Locked)));
    assert_eq!(
        store.read_state("session:a", "jwc").unwrap(),
        Some(state.clone())
    );
    assert!(store
        .audit_rows(&AuditFilter::default())
        .unwrap()
        .is_empty());
    let scopes = store.scopes().unwrap();
    assert_eq!(scopes.len(), 1);
    assert_eq!(
        (scopes[0].scope.as_str(), scopes[0].blob_len),
        ("session:a", 3)
    );
    assert!(store
        .transaction(|t| t.delete_state("session:a", "jwc"))
        .unwrap());
    assert_eq!(store.read_state("session:a", "jwc").unwrap(), None);
}

#[test]
fn audit_filters_select_rows() {
    let mut store = Store::open_in_memory().unwrap();
    store
        .transaction(|t| (1..=9).try_for_each(|i| t.append_audit(&record(i)).map(|_| ())))
        .unwrap();
    let seqs = |f: AuditFilter| -> Vec<i64> {
        store
            .audit_rows(&f)
            .unwrap()
            .into_iter()
            .map(|r| r.seq)
            .collect()
    };
    assert_eq!(
        seqs(AuditFilter {
            session: Some("s-even".into()),
            ..Default::default()
        }),
        vec![2, 4, 6, 8]
    );
    assert_eq!(
        seqs(AuditFilter {
            decision: Some("steer".into()),
            ..Default::default()
        }),
        vec![3, 6, 9]
    );
    assert_eq!(
        seqs(AuditFilter {
            kind: Some(AuditKind::Steer),
            since_ms: Some(1_004),
            until_ms: Some(1_009),
            ..Default::default()
        }),
        vec![6]
    );
    assert_eq!(
        seqs(AuditFilter {
            limit: Some(3),
            ..Default::default()
        }),
        vec![7, 8, 9]
    );
    let row = &store.audit_rows(&AuditFilter::default()).unwrap()[0];
    assert_eq!(row.record, record(1));
}

#[test]
fn audit_rule_filter_reads_the_detail_and_limits_after_matching() {
    let mut store = Store::open_in_memory().unwrap();
    let details = [
        json!({ "rule": "remote_script", "i": 1 }),
        json!({ "rule": "remote_script_v2", "i": 2 }),
        // The rule's text inside another value: not a match.
        json!({ "text": "\"rule\":\"remote_script\"", "i": 3 }),
        json!({ "rule": "remote_script", "i": 4 }),
        json!({ "i": 5 }),
        json!({ "rule": "remote_script", "i": 6 }),
    ];
    store
        .transaction(|t| {
            details.iter().enumerate().try_for_each(|(i, detail)| {
                let mut row = record(i as i64 + 1);
                row.detail = detail.clone();
                t.append_audit(&row).map(|_| ())
            })
        })
        .unwrap();
    let seqs = |rule: &str, limit: Option<u64>| -> Vec<i64> {
        store
            .audit_rows(&AuditFilter {
                rule: Some(rule.into()),
                limit,
                ..Default::default()
            })
            .unwrap()
            .into_iter()
            .map(|r| r.seq)
            .collect()
    };
    assert_eq!(seqs("remote_script", None), vec![1, 4, 6]);
    assert_eq!(seqs("remote_script", Some(2)), vec![4, 6]);
    assert_eq!(seqs("remote_script", Some(0)), Vec::<i64>::new());
    assert_eq!(seqs("remote_script_v2", None), vec![2]);
    assert_eq!(seqs("nope", None), Vec::<i64>::new());
}

#[test]
fn calibration_uses_only_clean_boundary_windows() {
    let mut store = Store::open_in_memory().unwrap();
    let window = |actions, closed_by, contaminated| WindowRow {
        repo: "repo".into(),
        kind: "fix".into(),
        session: "s".into(),
        actions,
        secs: actions * 10,
        closed_by,
        contaminated,
        closed_ms: 1,
    };
    store
        .transaction(|t| {
            for a in [10, 20, 30, 40] {
                t.record_window(&window(a, ClosedBy::Boundary, false))?;
            }
            t.record_window(&window(500, ClosedBy::Backstop, false))?;
            t.record_window(&window(600, ClosedBy::Boundary, true))?;
            t.record_window(&window(700, ClosedBy::SessionEnd, false))
        })
        .unwrap();
    assert!(store.calibrate(5, 75, 99).unwrap().is_empty());
    let learned = store.calibrate(4, 75, 99).unwrap();
    assert_eq!(learned.len(), 1);
    assert_eq!(
        (learned[0].actions, learned[0].secs, learned[0].samples),
        (30, 300, 4)
    );
    assert_eq!(
        store.transaction(|t| t.baseline("repo", "fix")).unwrap(),
        Some(learned[0].clone())
    );
    assert_eq!(store.baselines().unwrap(), learned);
}

#[test]
fn fallback_log_appends_redacted_lines() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nested").join("gate.db");
    fallback_log(
        &db,
        &json!({"fault": "locked", "cmd": "export X_TOKEN=abc123"}),
    );
    fallback_log(&db, &json!({"fault": "corrupt"}));
    let text = std::fs::read_to_string(dir.path().join("nested").join("faults.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("X_TOKEN=[REDACTED]") && !lines[0].contains("abc123"));
    // A directory works too, and an impossible location does not panic.
    fallback_log(dir.path(), &json!({"fault": "x"}));
    assert!(dir.path().join("faults.jsonl").exists());
    fallback_log(
        Path::new("/proc/nonexistent/gate.db"),
        &json!({"fault": "x"}),
    );
}

#[test]
fn default_path_follows_the_environment() {
    // The only test in this binary that touches these variables.
    let vars = ["GATE_DB", "GATE_HOME", "XDG_STATE_HOME", "HOME"];
    let saved: Vec<_> = vars.iter().map(std::env::var_os).collect();
    for v in vars {
        std::env::remove_var(v);
    }
    assert!(matches!(Store::default_path(), Err(StoreError::NoHome)));
    std::env::set_var("HOME", "/h");
    assert_eq!(
        Store::default_path().unwrap(),
        PathBuf::from("/h/.local/state/gate/gate.db")
    );
    std::env::set_var("XDG_STATE_HOME", "/x");
    assert_eq!(
        Store::default_path().unwrap(),
        PathBuf::from("/x/gate/gate.db")
    );
    std::env::set_var("GATE_HOME", "/g");
    assert_eq!(Store::default_path().unwrap(), PathBuf::from("/g/gate.db"));
    std::env::set_var("GATE_DB", "/d/my.db");
    assert_eq!(Store::default_path().unwrap(), PathBuf::from("/d/my.db"));
    assert_eq!(key_path(Path::new("/d/my.db")), PathBuf::from("/d/my.key"));
    for (v, value) in vars.iter().zip(saved) {
        match value {
            Some(value) => std::env::set_var(v, value),
            None => std::env::remove_var(v),
        }
    }
}

#[test]
fn asking_again_reuses_only_a_live_pending_grant() {
    let mut store = Store::open_in_memory().unwrap();
    let ask = |created_ms: i64| NewGrant {
        action_hash: "reset".to_string(),
        summary: "git reset --hard".to_string(),
        created_ms,
        expires_ms: created_ms + 1_000,
    };
    let first = store.transaction(|t| t.create_grant(&ask(1_000))).unwrap();
    assert_eq!(
        store.transaction(|t| t.create_grant(&ask(1_500))).unwrap(),
        first
    );
    // Expired: a new grant.
    let second = store.transaction(|t| t.create_grant(&ask(2_500))).unwrap();
    assert_ne!(second, first);
    assert_eq!(
        store.transaction(|t| t.create_grant(&ask(2_600))).unwrap(),
        second
    );
    // Approved is no longer pending: a new grant.
    assert_eq!(
        store.approve_grant(&second, 2_700).unwrap(),
        ApproveOutcome::Approved
    );
    let third = store.transaction(|t| t.create_grant(&ask(2_800))).unwrap();
    assert!(third != first && third != second);
    // Revoked is not pending either.
    store.revoke_grant(&third).unwrap();
    let fourth = store.transaction(|t| t.create_grant(&ask(2_900))).unwrap();
    assert!(![&first, &second, &third].contains(&&fourth));
    // Another action's pending grant is never reused.
    let other = store
        .transaction(|t| {
            t.create_grant(&NewGrant {
                action_hash: "push".to_string(),
                ..ask(2_900)
            })
        })
        .unwrap();
    assert_ne!(other, fourth);
}
