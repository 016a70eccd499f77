//! A new database built aside and moved into place (`Store::create_staged`, `Staged::publish`):
//! what it leaves on disk, what it refuses, and that a failed batch still rolls back whole.

mod common;

use common::store::temp_db;
use std::path::Path;
use std::time::Duration;

use gate_runtime::store::{
    key_path, partial_path, AuditKind, AuditRecord, Store, StoreError, WindowRow,
};
use rusqlite::Connection;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(5);

fn record(i: i64) -> AuditRecord {
    AuditRecord {
        ts_ms: 1_000 + i,
        session: "s".to_string(),
        scope: "session:s".to_string(),
        spec: "jwc".to_string(),
        kind: AuditKind::Event,
        runtime: "claude-code".to_string(),
        phase: "pre".to_string(),
        tool: Some("Bash".to_string()),
        target: Some(format!("cargo test {i}")),
        tier: Some("routine".to_string()),
        decision: Some("allow".to_string()),
        detail: json!({ "i": i }),
        latency_us: None,
        role: None,
    }
}

fn window(i: i64) -> WindowRow {
    WindowRow {
        repo: "r".into(),
        kind: "feature".into(),
        session: format!("s{i}"),
        actions: 10 + i,
        secs: 60,
        closed_by: gate_runtime::store::ClosedBy::Boundary,
        contaminated: false,
        closed_ms: 1000 * i,
    }
}

/// The files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn journal_mode(db: &Path) -> String {
    Connection::open(db)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_published_database_is_an_ordinary_one() {
    let (_dir, db) = temp_db();
    let (mut store, staged) = Store::create_staged(&db, WAIT).unwrap();
    assert_eq!(staged.dest(), db);
    assert_eq!(staged.partial(), db.with_file_name("gate.partial"));
    assert!(
        store.path().is_none(),
        "nobody else uses it: no lock file, no WAL to bound"
    );
    assert!(!db.exists(), "nothing at the final path while it is built");
    for batch in 0..3 {
        store
            .transaction(|t| {
                for i in 1..=10 {
                    t.append_audit(&record(batch * 10 + i))?;
                }
                t.record_window(&window(batch))
            })
            .unwrap();
    }
    staged.publish(store).unwrap();

    let dir = db.parent().unwrap();
    assert_eq!(
        files(dir),
        ["gate.db", "gate.key"],
        "no partial, WAL or lock file left"
    );
    assert_eq!(journal_mode(&db), "wal");
    let report = Store::open_read_only(&db).unwrap().verify_chain().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.rows_ok, 30);
    // Hooks take it from here: it opens like any gate database, with the key beside it.
    assert!(key_path(&db).exists());
    let mut store = Store::open(&db).unwrap();
    store.transaction(|t| t.append_audit(&record(31))).unwrap();
    assert_eq!(store.windows(None, None, false).unwrap().len(), 3);
    drop(store);
    assert!(Store::open_read_only(&db)
        .unwrap()
        .verify_chain()
        .unwrap()
        .is_ok());
}

#[test]
fn a_failed_batch_rolls_back_whole() {
    let (_dir, db) = temp_db();
    let (mut store, staged) = Store::create_staged(&db, WAIT).unwrap();
    store.transaction(|t| t.append_audit(&record(1))).unwrap();
    // The failed batch writes into the pages of the first one (the chain's last leaf, the
    // head's row) and into new ones.
    let failed: Result<(), StoreError> = store.transaction(|t| {
        for i in 2..=2_000 {
            t.append_audit(&record(i))?;
        }
        t.record_window(&window(1))?;
        Err(StoreError::Corrupt("injected".into()))
    });
    assert!(failed.is_err());
    store.transaction(|t| t.append_audit(&record(2))).unwrap();
    staged.publish(store).unwrap();
    let report = Store::open_read_only(&db).unwrap().verify_chain().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.rows_ok, 2, "the failed batch left nothing");
    let store = Store::open(&db).unwrap();
    assert!(store.windows(None, None, false).unwrap().is_empty());
}

#[test]
fn the_partial_file_shares_the_key_file() {
    for (dest, partial) in [
        ("/d/gate.db", Some("/d/gate.partial")),
        ("/d/a.b.db", Some("/d/a.b.partial")),
        ("/d/plain", Some("/d/plain.partial")),
        ("/d/x.partial", None),
    ] {
        let got = partial_path(Path::new(dest));
        assert_eq!(got.as_deref(), partial.map(Path::new), "{dest}");
        if let Some(p) = got {
            assert_eq!(key_path(&p), key_path(Path::new(dest)), "{dest}");
        }
    }
}

#[test]
fn an_existing_database_is_never_built_over() {
    let (_dir, db) = temp_db();
    drop(Store::open(&db).unwrap());
    let before = std::fs::read(&db).unwrap();
    let err = Store::create_staged(&db, WAIT).unwrap_err();
    assert!(err.to_string().contains("exists"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert!(!partial_path(&db).unwrap().exists());
}

#[test]
fn one_builder_at_a_time_and_a_leftover_is_started_over() {
    let (_dir, db) = temp_db();
    // An interrupted build left a partial file (here: junk) that nobody holds.
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(partial_path(&db).unwrap(), vec![b'x'; 10_000]).unwrap();
    let (mut store, staged) = Store::create_staged(&db, WAIT).unwrap();
    store.transaction(|t| t.append_audit(&record(1))).unwrap();

    let err = Store::create_staged(&db, WAIT).unwrap_err();
    assert!(
        err.to_string().contains("another process is building"),
        "{err}"
    );

    staged.publish(store).unwrap();
    let report = Store::open_read_only(&db).unwrap().verify_chain().unwrap();
    assert!(report.is_ok() && report.rows_ok == 1, "{report:?}");
}

#[test]
fn a_database_created_meanwhile_is_kept_and_the_build_left_aside() {
    let (_dir, db) = temp_db();
    let (mut store, staged) = Store::create_staged(&db, WAIT).unwrap();
    store.transaction(|t| t.append_audit(&record(1))).unwrap();
    // A hook creates the database while the build runs.
    let mut hook = Store::open(&db).unwrap();
    hook.transaction(|t| t.append_audit(&record(7))).unwrap();
    drop(hook);

    let partial = staged.partial().to_path_buf();
    let err = staged.publish(store).unwrap_err();
    assert!(
        err.to_string()
            .contains("was created while it was being built")
            && err.to_string().contains(partial.to_str().unwrap()),
        "{err}"
    );
    // Nothing lost on either side: the hook's database and the built one both verify.
    for (path, rows) in [(&db, 1), (&partial, 1)] {
        let report = Store::open_read_only(path).unwrap().verify_chain();
        let report = report.unwrap();
        assert!(
            report.is_ok() && report.rows_ok == rows,
            "{path:?}: {report:?}"
        );
    }
    let hook_rows = Store::open_read_only(&db)
        .unwrap()
        .audit_rows(&Default::default())
        .unwrap();
    assert_eq!(hook_rows[0].record.target.as_deref(), Some("cargo test 7"));
}
