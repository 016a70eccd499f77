//! Where an audit sink has got to: the cursor (the last row the endpoint accepted) with the
//! state of its retries, and the rows past it.
//!
//! The cursor is one of the store's own records in `state` (spec ``, scope [`SINK_SCOPE`],
//! like the chain head), so it needs no table of its own and no migration: `spec_hash`
//! holds the sink's identity (its format and endpoint: a sink pointed elsewhere starts from
//! the first row again) and `blob` the [`SinkCursor`] as JSON. Rows are never marked or
//! changed: the chain stays as it was written.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::audit::{row_from_sql, SELECT_ROW};
use super::{AuditRow, Store, StoreError, StoredState, RECORD_SPEC};

/// The `state` scope of the sink cursor (under spec ``, which no machine state can have).
pub(crate) const SINK_SCOPE: &str = "sink";

/// How far a sink got, and how its last attempts went.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkCursor {
    /// The sink this cursor belongs to (format and endpoint).
    #[serde(skip)]
    pub identity: String,
    /// Every row up to this seq was accepted by the endpoint.
    pub sent_seq: i64,
    /// Failed attempts since the last success.
    pub failures: u32,
    /// The last attempt's error, kept until an attempt succeeds.
    pub last_error: Option<String>,
    pub last_attempt_ms: Option<i64>,
    pub last_ok_ms: Option<i64>,
    /// No flush is started before this time (the backoff after a failure).
    pub retry_at_ms: i64,
}

impl Store {
    /// The cursor of the sink `identity`; a fresh one (nothing sent) when none is recorded
    /// or the recorded one belongs to another sink.
    pub fn sink_cursor(&self, identity: &str) -> Result<SinkCursor, StoreError> {
        let fresh = SinkCursor {
            identity: identity.to_string(),
            ..SinkCursor::default()
        };
        Ok(match self.read_state(SINK_SCOPE, RECORD_SPEC)? {
            Some(stored) if stored.spec_hash == identity => {
                let mut cursor: SinkCursor = serde_json::from_slice(&stored.blob)
                    .map_err(|e| StoreError::Corrupt(format!("the sink cursor: {e}")))?;
                cursor.identity = identity.to_string();
                cursor
            }
            _ => fresh,
        })
    }

    /// Records `cursor` (in its own transaction).
    pub fn save_sink_cursor(&mut self, cursor: &SinkCursor, now_ms: i64) -> Result<(), StoreError> {
        let blob = serde_json::to_vec(cursor).map_err(|e| StoreError::Encode(e.to_string()))?;
        self.transaction(|tx| {
            tx.save_state(
                SINK_SCOPE,
                RECORD_SPEC,
                &StoredState {
                    spec_hash: cursor.identity.clone(),
                    blob: blob.clone(),
                    updated_ms: now_ms,
                },
            )
        })
    }

    /// Up to `limit` rows after `seq`, oldest first.
    pub fn audit_after(&self, seq: i64, limit: usize) -> Result<Vec<AuditRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "{SELECT_ROW} WHERE seq > ?1 ORDER BY seq LIMIT ?2"
        ))?;
        let mut rows = stmt.query(params![seq, limit.min(i64::MAX as usize) as i64])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(row_from_sql(r)?.0);
        }
        Ok(out)
    }

    /// How many rows come after `seq` (a sink's backlog).
    pub fn audit_count_after(&self, seq: i64) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM audit WHERE seq > ?1", [seq], |r| {
                r.get(0)
            })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{AuditKind, AuditRecord};

    #[test]
    fn the_cursor_is_kept_per_sink_and_rows_are_read_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("gate.db")).unwrap();
        let rec = |i: i64| AuditRecord {
            ts_ms: i,
            session: "s".into(),
            scope: "s".into(),
            spec: "default".into(),
            kind: AuditKind::Event,
            runtime: "claude-code".into(),
            phase: "pre_tool".into(),
            tool: None,
            target: None,
            tier: None,
            decision: Some("allow".into()),
            detail: serde_json::json!({}),
            latency_us: None,
            role: None,
        };
        store
            .transaction(|t| t.append_audits(&(1..=5).map(rec).collect::<Vec<_>>()))
            .unwrap();
        let mut cursor = store.sink_cursor("Otlp http://a").unwrap();
        assert_eq!(cursor.sent_seq, 0);
        assert_eq!(store.audit_count_after(0).unwrap(), 5);
        let first = store.audit_after(cursor.sent_seq, 2).unwrap();
        assert_eq!(first.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![1, 2]);
        cursor.sent_seq = 2;
        cursor.last_error = Some("refused".into());
        store.save_sink_cursor(&cursor, 10).unwrap();
        let again = store.sink_cursor("Otlp http://a").unwrap();
        assert_eq!(again, cursor);
        assert_eq!(store.audit_count_after(again.sent_seq).unwrap(), 3);
        assert_eq!(store.audit_after(2, 100).unwrap()[0].seq, 3);
        // Another endpoint starts from the first row; the record is not a machine state.
        assert_eq!(store.sink_cursor("Otlp http://b").unwrap().sent_seq, 0);
        assert!(store.scopes().unwrap().is_empty());
        assert!(store.verify_chain().unwrap().is_ok());
    }
}
