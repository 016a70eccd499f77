//! `gate sink flush`: send every row past the sink's cursor, a batch per request, and move
//! the cursor past each batch the endpoint accepted; on a failure keep the backlog, record
//! the error and back off. One flush at a time per database (a lock file beside it).

use super::{encode, schedule, SinkConfig, SinkFormat};
use gate_runtime::store::{SinkCursor, Store};
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// The shortest and longest wait before a failed sink is tried again (doubling between).
pub const BACKOFF_MIN: Duration = Duration::from_secs(5);
pub const BACKOFF_MAX: Duration = Duration::from_secs(600);

/// What one flush did.
#[derive(Debug, Serialize)]
pub struct FlushReport {
    /// Rows the endpoint accepted in this flush.
    pub sent: u64,
    /// Rows still waiting.
    pub backlog: i64,
    /// The error that stopped this flush, if one did.
    pub error: Option<String>,
    /// Another flush held the lock: this one did nothing.
    pub busy: bool,
}

/// The wait after `failures` failed attempts in a row.
pub fn backoff(failures: u32) -> Duration {
    let doubled = BACKOFF_MIN
        .as_secs()
        .saturating_mul(1u64 << failures.saturating_sub(1).min(16));
    Duration::from_secs(doubled.min(BACKOFF_MAX.as_secs()))
}

/// POSTs one batch; `Err` says why the endpoint did not accept it.
fn post(agent: &ureq::Agent, sink: &SinkConfig, body: &[u8]) -> Result<(), String> {
    let content_type = match sink.format {
        SinkFormat::Otlp => "application/json",
        SinkFormat::Jsonl => "application/x-ndjson",
    };
    let mut request = agent
        .post(&sink.endpoint)
        .header("content-type", content_type);
    for (name, value) in &sink.headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let response = request.send(body).map_err(|e| e.to_string())?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("{} answered HTTP {status}", sink.endpoint))
    }
}

/// Sends the backlog of the database at `db` to `sink`.
pub fn flush(
    db: &Path,
    sink: &SinkConfig,
    now_ms: impl Fn() -> i64,
) -> anyhow::Result<FlushReport> {
    let Some(_lock) = schedule::try_lock(db) else {
        return Ok(FlushReport {
            sent: 0,
            backlog: -1,
            error: None,
            busy: true,
        });
    };
    let mut store = Store::open(db)?;
    let mut cursor: SinkCursor = store.sink_cursor(&sink.identity())?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(sink.timeout_secs)))
        .http_status_as_error(false)
        .build()
        .into();
    let host = encode::host_name();
    let mut sent = 0u64;
    let mut error = None;
    loop {
        let rows = store.audit_after(cursor.sent_seq, sink.batch)?;
        let Some(last) = rows.last().map(|r| r.seq) else {
            break;
        };
        let body = match sink.format {
            SinkFormat::Otlp => encode::otlp(&rows, &host),
            SinkFormat::Jsonl => encode::jsonl(&rows),
        };
        let now = now_ms();
        cursor.last_attempt_ms = Some(now);
        match post(&agent, sink, &body) {
            Ok(()) => {
                cursor.sent_seq = last;
                cursor.failures = 0;
                cursor.last_error = None;
                cursor.last_ok_ms = Some(now);
                cursor.retry_at_ms = 0;
                sent += rows.len() as u64;
                store.save_sink_cursor(&cursor, now)?;
            }
            Err(e) => {
                cursor.failures = cursor.failures.saturating_add(1);
                cursor.last_error = Some(e.clone());
                cursor.retry_at_ms =
                    now.saturating_add(backoff(cursor.failures).as_millis() as i64);
                store.save_sink_cursor(&cursor, now)?;
                error = Some(e);
                break;
            }
        }
    }
    let next = if error.is_some() {
        cursor.retry_at_ms
    } else {
        now_ms().saturating_add(sink.interval_secs.saturating_mul(1000) as i64)
    };
    schedule::set_due(db, next);
    Ok(FlushReport {
        sent,
        backlog: store.audit_count_after(cursor.sent_seq)?,
        error,
        busy: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_minimum_to_the_maximum() {
        let secs: Vec<u64> = (1..=10).map(|f| backoff(f).as_secs()).collect();
        assert_eq!(secs, vec![5, 10, 20, 40, 80, 160, 320, 600, 600, 600]);
        assert_eq!(backoff(u32::MAX), BACKOFF_MAX);
    }
}
