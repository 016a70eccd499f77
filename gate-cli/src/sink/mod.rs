//! The audit sink: audit rows streamed to a team's collector as OpenTelemetry logs
//! (OTLP/HTTP) or JSON lines, batched, off the hook's critical path.
//!
//! The hook never sends anything. After it has answered, when a sink is configured, no flush
//! is running and none is scheduled later ([`schedule`]), it starts a detached
//! `gate sink flush` ([`start_detached`]); that process sends every row past the sink's
//! cursor in batches and moves the cursor only past rows the endpoint accepted (a 2xx
//! answer). A failure keeps the backlog, records the error and backs off exponentially;
//! `gate sink status`, `gate status` and `gate doctor` show the backlog and the last error.

pub mod config;
pub mod encode;
pub mod flush;
pub mod schedule;

pub use config::{SinkConfig, SinkFormat};

use gate_runtime::store::Store;
use serde::Serialize;
use std::path::Path;

/// Where a sink stands, for `gate sink status`, `gate status` and `gate doctor`.
#[derive(Debug, Serialize)]
pub struct SinkStatus {
    pub endpoint: String,
    pub format: SinkFormat,
    /// Every row up to this seq was accepted.
    pub sent_seq: i64,
    /// Rows not accepted yet.
    pub backlog: i64,
    pub failures: u32,
    pub last_error: Option<String>,
    pub last_ok_ms: Option<i64>,
    pub last_attempt_ms: Option<i64>,
    /// The earliest time the next flush starts.
    pub next_flush_ms: i64,
}

impl SinkStatus {
    /// Reads where `sink` stands in the database at `db`.
    pub fn read(db: &Path, sink: &SinkConfig) -> anyhow::Result<SinkStatus> {
        let store = Store::open_read_only(db)?;
        let cursor = store.sink_cursor(&sink.identity())?;
        Ok(SinkStatus {
            endpoint: sink.endpoint.clone(),
            format: sink.format,
            sent_seq: cursor.sent_seq,
            backlog: store.audit_count_after(cursor.sent_seq)?,
            failures: cursor.failures,
            last_error: cursor.last_error,
            last_ok_ms: cursor.last_ok_ms,
            last_attempt_ms: cursor.last_attempt_ms,
            next_flush_ms: schedule::due(db).max(cursor.retry_at_ms),
        })
    }

    /// One line: the backlog and, when there is one, the last error.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{} row(s) waiting for {} (sent up to row {})",
            self.backlog, self.endpoint, self.sent_seq
        );
        if let Some(e) = &self.last_error {
            line.push_str(&format!(
                "; last error ({} failure(s) in a row): {e}",
                self.failures
            ));
        }
        line
    }
}

/// After a hook's commit: starts a detached `gate --db DB sink flush --quiet` (own process
/// group, no inherited stdio, not waited for) when the schedule allows and no flush runs.
/// Nothing is sent from the hook itself; a flush that cannot be started is tried by a later
/// hook, and the backlog waits in the database meanwhile.
pub fn start_detached(db: &Path, now_ms: i64) {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    if !schedule::should_start(db, now_ms) {
        return;
    }
    if let Ok(exe) = std::env::current_exe() {
        let _ = Command::new(exe)
            .arg("--db")
            .arg(db)
            .args(["sink", "flush", "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
    }
}
