//! What one hook call costs the store: open, one transaction (load state, save state, append
//! an audit row), close. Run it under `strace -c -e trace=fsync,fdatasync` to count syncs, or
//! with a count to time many calls: `cargo run --example store_onecall -- DB [CALLS]`.

use std::path::PathBuf;
use std::time::Instant;

use gate_runtime::store::{AuditKind, AuditRecord, Store, StoreError, StoredState};

fn one_call(db: &std::path::Path, i: u64) -> Result<i64, StoreError> {
    let mut store = Store::open(db)?;
    store.transaction(|t| {
        let n = t
            .load_state("session:bench", "bench")?
            .map_or(0, |s| s.blob.len() as i64);
        t.save_state(
            "session:bench",
            "bench",
            &StoredState {
                spec_hash: "h".into(),
                blob: vec![0; (n as usize % 64) + 1],
                updated_ms: i as i64,
            },
        )?;
        t.append_audit(&AuditRecord {
            ts_ms: i as i64,
            session: "bench".into(),
            scope: "session:bench".into(),
            spec: "bench".into(),
            kind: AuditKind::Event,
            runtime: "claude-code".into(),
            phase: "pre".into(),
            tool: Some("Bash".into()),
            target: Some(format!("cargo test --all {i}")),
            tier: Some("routine".into()),
            decision: Some("allow".into()),
            detail: serde_json::json!({ "i": i }),
            latency_us: None,
            role: None,
        })
    })
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(db) = args.next().map(PathBuf::from) else {
        eprintln!("usage: store_onecall DB [CALLS]");
        std::process::exit(2);
    };
    let calls: u64 = args
        .next()
        .and_then(|s| s.to_str().and_then(|s| s.parse().ok()))
        .unwrap_or(1);
    let start = Instant::now();
    for i in 0..calls {
        if let Err(e) = one_call(&db, i) {
            eprintln!("call {i}: {e}");
            std::process::exit(1);
        }
    }
    let per_call = start.elapsed() / calls.max(1) as u32;
    println!("{calls} calls, {per_call:?} per call (open + transaction + close)");
}
