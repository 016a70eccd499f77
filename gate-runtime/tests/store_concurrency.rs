//! Many hook processes on one session: 16 processes × 50 events race on a fresh database and
//! must end with exactly 800 audit rows, a state counter of exactly 800 and a valid chain.
//!
//! The writer processes are this test binary itself, re-invoked with `current_exe()` to run
//! only the ignored `writer_process` test, which reads its orders from the environment.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use gate_runtime::store::{AuditFilter, AuditKind, AuditRecord, Store, StoredState};
use serde_json::json;

const PROCESSES: usize = 16;
const EVENTS: u64 = 50;
const ENV_DB: &str = "GATE_STORE_TEST_WRITER_DB";
const ENV_ID: &str = "GATE_STORE_TEST_WRITER_ID";
const SCOPE: &str = "session:shared";
const SPEC: &str = "counter";

fn counter(state: Option<&StoredState>) -> u64 {
    state
        .and_then(|s| <[u8; 8]>::try_from(s.blob.as_slice()).ok())
        .map_or(0, u64::from_le_bytes)
}

/// One hook per event: open, one transaction (load → increment → save → audit), close.
fn run_writer(db: &Path, writer: &str) {
    for event in 0..EVENTS {
        let mut store =
            Store::open_with_timeout(db, Duration::from_secs(30)).expect("writer opens the store");
        store
            .transaction(|t| {
                let next = counter(t.load_state(SCOPE, SPEC)?.as_ref()) + 1;
                t.save_state(
                    SCOPE,
                    SPEC,
                    &StoredState {
                        spec_hash: "h".into(),
                        blob: next.to_le_bytes().to_vec(),
                        updated_ms: next as i64,
                    },
                )?;
                t.append_audit(&AuditRecord {
                    ts_ms: next as i64,
                    session: "shared".into(),
                    scope: SCOPE.into(),
                    spec: SPEC.into(),
                    kind: AuditKind::Event,
                    runtime: "claude-code".into(),
                    phase: "pre".into(),
                    tool: Some("Bash".into()),
                    target: Some(format!("echo {writer} {event}")),
                    tier: None,
                    decision: Some("allow".into()),
                    detail: json!({ "writer": writer, "event": event, "counter": next }),
                    latency_us: None,
                    role: None,
                })
            })
            .expect("writer transaction");
    }
}

#[test]
#[ignore = "helper: run by concurrent_processes_serialize in a child process"]
fn writer_process() {
    let db = std::env::var_os(ENV_DB).expect("GATE_STORE_TEST_WRITER_DB names the database");
    let id = std::env::var(ENV_ID).unwrap_or_default();
    run_writer(Path::new(&db), &id);
}

#[test]
fn concurrent_processes_serialize() {
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("gate").join("gate.db");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            Command::new(&exe)
                .args(["--exact", "writer_process", "--ignored", "--test-threads=1"])
                .env(ENV_DB, &db)
                .env(ENV_ID, format!("w{i}"))
                // libtest prints a panic's message on stdout: both streams are kept for the
                // failure message.
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn writer")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "writer {i} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let store = Store::open_read_only(&db).unwrap();
    let total = PROCESSES as u64 * EVENTS;
    assert_eq!(
        counter(store.read_state(SCOPE, SPEC).unwrap().as_ref()),
        total
    );
    let rows = store.audit_rows(&AuditFilter::default()).unwrap();
    assert_eq!(rows.len() as u64, total);
    // Every transaction saw the previous one: the counters in the audit are 1..=800 in order.
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.seq, i as i64 + 1);
        assert_eq!(row.record.detail["counter"], json!(i + 1));
    }
    for w in 0..PROCESSES {
        let id = format!("w{w}");
        let n = rows
            .iter()
            .filter(|r| r.record.detail["writer"] == json!(id))
            .count();
        assert_eq!(n as u64, EVENTS, "writer {id}");
    }
    let report = store.verify_chain().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.rows_ok as u64, total);
}
