//! The hash-chained audit: record types, the canonical row encoding, appending, queries and
//! chain verification.
//!
//! Each row's `mac` is HMAC-SHA256(key, prev_mac ‖ canonical(row)), where `prev_mac` is the
//! previous row's mac (32 zero bytes for the first row) and the canonical encoding covers
//! every stored field including `seq`, each one tagged and length-prefixed. The single
//! `audit_head` row (row count, last seq, last mac, and an HMAC tag over those three) is
//! updated in the same transaction as the append, so a truncated tail is detected as well as
//! an edited, deleted, inserted or reordered row. `meta.key_fp` holds a fingerprint of the key
//! that wrote the chain, so verifying with another key says "wrong key", not "tampered".

use std::fmt;
use std::str::FromStr;

use hmac::{KeyInit, Mac};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{hex, Store, StoreError, Txn};
use crate::redact::{redact, redact_json};

type HmacSha256 = hmac::Hmac<Sha256>;

/// Longest `target` stored (bytes, cut at a character boundary).
pub const MAX_TARGET_BYTES: usize = 4096;
/// Longest serialised `detail` stored; a larger one is replaced by a size note.
pub const MAX_DETAIL_BYTES: usize = 64 * 1024;

const GENESIS: [u8; 32] = [0; 32];

/// What an audit row records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditKind {
    Event,
    Signal,
    Boundary,
    Arm,
    Close,
    Expiry,
    Skip,
    Steer,
    Ask,
    Grant,
    Deny,
    Fault,
    Reset,
    Disabled,
    Transition,
}

impl AuditKind {
    pub const ALL: [AuditKind; 15] = [
        AuditKind::Event,
        AuditKind::Signal,
        AuditKind::Boundary,
        AuditKind::Arm,
        AuditKind::Close,
        AuditKind::Expiry,
        AuditKind::Skip,
        AuditKind::Steer,
        AuditKind::Ask,
        AuditKind::Grant,
        AuditKind::Deny,
        AuditKind::Fault,
        AuditKind::Reset,
        AuditKind::Disabled,
        AuditKind::Transition,
    ];

    /// The stored (and displayed) name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditKind::Event => "event",
            AuditKind::Signal => "signal",
            AuditKind::Boundary => "boundary",
            AuditKind::Arm => "arm",
            AuditKind::Close => "close",
            AuditKind::Expiry => "expiry",
            AuditKind::Skip => "skip",
            AuditKind::Steer => "steer",
            AuditKind::Ask => "ask",
            AuditKind::Grant => "grant",
            AuditKind::Deny => "deny",
            AuditKind::Fault => "fault",
            AuditKind::Reset => "reset",
            AuditKind::Disabled => "disabled",
            AuditKind::Transition => "transition",
        }
    }
}

impl fmt::Display for AuditKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AuditKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        AuditKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown audit kind `{s}`"))
    }
}

/// One audit entry as the engine writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub ts_ms: i64,
    pub session: String,
    pub scope: String,
    pub spec: String,
    pub kind: AuditKind,
    pub runtime: String,
    pub phase: String,
    pub tool: Option<String>,
    pub target: Option<String>,
    pub tier: Option<String>,
    pub decision: Option<String>,
    pub detail: serde_json::Value,
    pub latency_us: Option<i64>,
}

/// One stored audit row (already redacted) with its chain fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRow {
    pub seq: i64,
    #[serde(flatten)]
    pub record: AuditRecord,
    pub prev_mac: String,
    pub mac: String,
}

/// Filters for [`Store::audit_rows`] / [`Store::for_each_audit`]; all optional, combined with AND.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub session: Option<String>,
    pub decision: Option<String>,
    pub tier: Option<String>,
    pub kind: Option<AuditKind>,
    /// Inclusive lower bound on `ts_ms`.
    pub since_ms: Option<i64>,
    /// Exclusive upper bound on `ts_ms`.
    pub until_ms: Option<i64>,
    /// Keep only the last `limit` matching rows (still returned oldest first).
    pub limit: Option<u64>,
}

/// What went wrong first in the chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum ChainProblem {
    /// The key in use is not the key that wrote the chain (fingerprints differ).
    WrongKey { expected_fp: String, key_fp: String },
    /// A row's content does not match its mac: edited, forged, inserted or moved.
    BadMac { seq: i64 },
    /// A row does not link to the row before it: a row before it was deleted or replaced.
    BrokenLink { seq: i64 },
    /// Sequence numbers skip: rows `expected..seq` are missing.
    Gap { expected: i64, seq: i64 },
    /// The head says more rows were written than are present: the tail was cut.
    Truncated {
        expected_rows: i64,
        found_rows: i64,
        first_missing_seq: i64,
    },
    /// The head row itself was edited (its tag does not verify) or is missing.
    BadHead,
    /// More rows or another last row than the head records.
    HeadMismatch { seq: i64 },
}

impl ChainProblem {
    /// The first row that is wrong (or missing), where one can be named.
    pub fn first_bad_seq(&self) -> Option<i64> {
        match self {
            ChainProblem::BadMac { seq }
            | ChainProblem::BrokenLink { seq }
            | ChainProblem::HeadMismatch { seq } => Some(*seq),
            ChainProblem::Gap { expected, .. } => Some(*expected),
            ChainProblem::Truncated {
                first_missing_seq, ..
            } => Some(*first_missing_seq),
            ChainProblem::WrongKey { .. } | ChainProblem::BadHead => None,
        }
    }
}

impl fmt::Display for ChainProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainProblem::WrongKey {
                expected_fp,
                key_fp,
            } => write!(
                f,
                "wrong key: the chain was written with key {expected_fp}, this key is {key_fp}"
            ),
            ChainProblem::BadMac { seq } => {
                write!(f, "row {seq}: content does not match its mac (edited or forged)")
            }
            ChainProblem::BrokenLink { seq } => write!(
                f,
                "row {seq}: does not link to the previous row (a row before it was removed or replaced)"
            ),
            ChainProblem::Gap { expected, seq } => {
                write!(f, "rows {expected}..{seq} are missing (deleted)")
            }
            ChainProblem::Truncated {
                expected_rows,
                found_rows,
                first_missing_seq,
            } => write!(
                f,
                "tail truncated: {expected_rows} rows written, {found_rows} present; row {first_missing_seq} onwards is missing"
            ),
            ChainProblem::BadHead => f.write_str("the chain head was edited or removed"),
            ChainProblem::HeadMismatch { seq } => {
                write!(f, "row {seq}: not recorded in the chain head (appended outside gate)")
            }
        }
    }
}

/// The result of [`Store::verify_chain`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Rows read and found good before the first problem (all rows when none).
    pub rows_ok: i64,
    /// Row count recorded in the head.
    pub head_rows: i64,
    pub problem: Option<ChainProblem>,
}

impl VerifyReport {
    pub fn is_ok(&self) -> bool {
        self.problem.is_none()
    }

    pub fn first_bad_seq(&self) -> Option<i64> {
        self.problem.as_ref().and_then(ChainProblem::first_bad_seq)
    }
}

pub(crate) fn key_fingerprint(key: &[u8; 32]) -> String {
    let digest = Sha256::digest([b"gate-key-fp\0".as_slice(), key].concat());
    hex(&digest[..8])
}

fn put_field(buf: &mut Vec<u8>, tag: u8, value: Option<&[u8]>) {
    buf.push(tag);
    match value {
        None => buf.push(0),
        Some(v) => {
            buf.push(1);
            buf.extend_from_slice(&(v.len() as u64).to_be_bytes());
            buf.extend_from_slice(v);
        }
    }
}

/// The canonical, unambiguous encoding of a stored row (everything but the macs).
fn canonical(seq: i64, r: &AuditRecord, detail_text: &str) -> Vec<u8> {
    let mut buf = Vec::with_capacity(128 + detail_text.len());
    buf.extend_from_slice(b"gate-audit-v1\0");
    put_field(&mut buf, 1, Some(&seq.to_be_bytes()));
    put_field(&mut buf, 2, Some(&r.ts_ms.to_be_bytes()));
    put_field(&mut buf, 3, Some(r.session.as_bytes()));
    put_field(&mut buf, 4, Some(r.scope.as_bytes()));
    put_field(&mut buf, 5, Some(r.spec.as_bytes()));
    put_field(&mut buf, 6, Some(r.kind.as_str().as_bytes()));
    put_field(&mut buf, 7, Some(r.runtime.as_bytes()));
    put_field(&mut buf, 8, Some(r.phase.as_bytes()));
    put_field(&mut buf, 9, r.tool.as_deref().map(str::as_bytes));
    put_field(&mut buf, 10, r.target.as_deref().map(str::as_bytes));
    put_field(&mut buf, 11, r.tier.as_deref().map(str::as_bytes));
    put_field(&mut buf, 12, r.decision.as_deref().map(str::as_bytes));
    put_field(&mut buf, 13, Some(detail_text.as_bytes()));
    // `latency_us` stays outside the chain: it is a measurement of this run, not part of the
    // record, and chaining it would make two identical traces chain differently.
    buf
}

pub(super) fn mac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC accepts any key size");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

fn head_tag(key: &[u8; 32], rows: i64, head_seq: i64, head_mac: &str) -> String {
    hex(&mac(
        key,
        &[
            b"gate-audit-head\0",
            &rows.to_be_bytes(),
            &head_seq.to_be_bytes(),
            head_mac.as_bytes(),
        ],
    ))
}

fn cut_at_char_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

struct Head {
    rows: i64,
    seq: i64,
    mac: String,
    tag: String,
}

fn read_head(conn: &rusqlite::Connection) -> Result<Option<Head>, StoreError> {
    // Cached: a hook appends several rows in one transaction, each reading the head.
    Ok(conn
        .prepare_cached("SELECT rows, head_seq, head_mac, tag FROM audit_head WHERE id = 1")?
        .query_row([], |r| {
            Ok(Head {
                rows: r.get(0)?,
                seq: r.get(1)?,
                mac: r.get(2)?,
                tag: r.get(3)?,
            })
        })
        .optional()?)
}

impl Txn<'_> {
    /// Appends one audit row (target and detail redacted, bounded) and returns its seq.
    pub fn append_audit(&mut self, rec: &AuditRecord) -> Result<i64, StoreError> {
        let key = self.key.ok_or(StoreError::KeyMissing)?;
        let mut stored = rec.clone();
        stored.target = rec.target.as_deref().map(|t| {
            let red = redact(t);
            let cut = cut_at_char_boundary(&red, MAX_TARGET_BYTES);
            if cut.len() < red.len() {
                format!("{cut}…")
            } else {
                cut.to_string()
            }
        });
        stored.detail = redact_json(&rec.detail);
        let mut detail_text =
            serde_json::to_string(&stored.detail).map_err(|e| StoreError::Encode(e.to_string()))?;
        if detail_text.len() > MAX_DETAIL_BYTES {
            stored.detail = serde_json::json!({ "truncated": true, "bytes": detail_text.len() });
            detail_text = stored.detail.to_string();
        }

        let head = read_head(&self.tx)?;
        let (rows, prev_seq, prev_mac) = match &head {
            Some(h) => (h.rows, h.seq, h.mac.clone()),
            None => (0, 0, hex(&GENESIS)),
        };
        let seq = prev_seq + 1;
        let prev_bytes = unhex(&prev_mac)
            .ok_or_else(|| StoreError::Corrupt(format!("audit head mac is not hex: {prev_mac}")))?;
        let row_mac = hex(&mac(
            &key,
            &[&prev_bytes, &canonical(seq, &stored, &detail_text)],
        ));
        // Statements are cached: a hook appends several rows per transaction.
        self.tx
            .prepare_cached(
                "INSERT INTO audit (seq, ts, session, scope, spec, kind, runtime, phase, tool,
                                    target, tier, decision, detail, latency_us, prev_mac, mac)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            )?
            .execute(params![
                seq,
                stored.ts_ms,
                stored.session,
                stored.scope,
                stored.spec,
                stored.kind.as_str(),
                stored.runtime,
                stored.phase,
                stored.tool,
                stored.target,
                stored.tier,
                stored.decision,
                detail_text,
                stored.latency_us,
                prev_mac,
                row_mac,
            ])?;
        let rows = rows + 1;
        let tag = head_tag(&key, rows, seq, &row_mac);
        self.tx
            .prepare_cached(
                "INSERT INTO audit_head (id, rows, head_seq, head_mac, tag)
                 VALUES (1, ?1, ?2, ?3, ?4)
                 ON CONFLICT (id) DO UPDATE SET rows = ?1, head_seq = ?2, head_mac = ?3, tag = ?4",
            )?
            .execute(params![rows, seq, row_mac, tag])?;
        Ok(seq)
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

const SELECT_ROW: &str =
    "SELECT seq, ts, session, scope, spec, kind, runtime, phase, tool, target, \
                          tier, decision, detail, latency_us, prev_mac, mac FROM audit";

/// Reads a row; `detail_text` is the exact stored text (the mac covers it).
fn row_from_sql(r: &Row<'_>) -> rusqlite::Result<(AuditRow, String)> {
    let kind: String = r.get(5)?;
    let detail_text: String = r.get(12)?;
    let kind = AuditKind::from_str(&kind).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(5, rusqlite::types::Type::Text, e.into())
    })?;
    let detail = serde_json::from_str(&detail_text).unwrap_or(serde_json::Value::Null);
    Ok((
        AuditRow {
            seq: r.get(0)?,
            record: AuditRecord {
                ts_ms: r.get(1)?,
                session: r.get(2)?,
                scope: r.get(3)?,
                spec: r.get(4)?,
                kind,
                runtime: r.get(6)?,
                phase: r.get(7)?,
                tool: r.get(8)?,
                target: r.get(9)?,
                tier: r.get(10)?,
                decision: r.get(11)?,
                detail,
                latency_us: r.get(13)?,
            },
            prev_mac: r.get(14)?,
            mac: r.get(15)?,
        },
        detail_text,
    ))
}

impl Store {
    /// Matching audit rows, oldest first (see [`AuditFilter::limit`]).
    pub fn audit_rows(&self, filter: &AuditFilter) -> Result<Vec<AuditRow>, StoreError> {
        let mut rows = Vec::new();
        self.for_each_audit(filter, |row| {
            rows.push(row);
            Ok(())
        })?;
        Ok(rows)
    }

    /// Streams matching audit rows, oldest first, without holding them all in memory (for
    /// export). Stops at the first error `f` returns.
    pub fn for_each_audit(
        &self,
        filter: &AuditFilter,
        mut f: impl FnMut(AuditRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut clauses: Vec<&str> = Vec::new();
        let mut args: Vec<rusqlite::types::Value> = Vec::new();
        use rusqlite::types::Value as V;
        if let Some(s) = &filter.session {
            clauses.push("session = ?");
            args.push(V::Text(s.clone()));
        }
        if let Some(d) = &filter.decision {
            clauses.push("decision = ?");
            args.push(V::Text(d.clone()));
        }
        if let Some(t) = &filter.tier {
            clauses.push("tier = ?");
            args.push(V::Text(t.clone()));
        }
        if let Some(k) = filter.kind {
            clauses.push("kind = ?");
            args.push(V::Text(k.as_str().to_string()));
        }
        if let Some(s) = filter.since_ms {
            clauses.push("ts >= ?");
            args.push(V::Integer(s));
        }
        if let Some(u) = filter.until_ms {
            clauses.push("ts < ?");
            args.push(V::Integer(u));
        }
        let mut sql = SELECT_ROW.to_string();
        if !clauses.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&clauses.join(" AND "));
        }
        if let Some(limit) = filter.limit {
            sql = format!(
                "SELECT * FROM ({sql} ORDER BY seq DESC LIMIT {}) ORDER BY seq",
                limit.min(i64::MAX as u64)
            );
        } else {
            sql.push_str(" ORDER BY seq");
        }
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        while let Some(r) = rows.next()? {
            f(row_from_sql(r)?.0)?;
        }
        Ok(())
    }

    /// Recomputes the whole chain and names the first problem.
    pub fn verify_chain(&self) -> Result<VerifyReport, StoreError> {
        let key = self.key.ok_or(StoreError::KeyMissing)?;
        let head = read_head(&self.conn)?;
        let head_rows = head.as_ref().map_or(0, |h| h.rows);
        let report = |rows_ok, problem| VerifyReport {
            rows_ok,
            head_rows,
            problem,
        };
        let key_fp = key_fingerprint(&key);
        let expected_fp: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE name = 'key_fp'", [], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(expected_fp) = expected_fp {
            if expected_fp != key_fp {
                return Ok(report(
                    0,
                    Some(ChainProblem::WrongKey {
                        expected_fp,
                        key_fp,
                    }),
                ));
            }
        }
        let mut stmt = self.conn.prepare(&format!("{SELECT_ROW} ORDER BY seq"))?;
        let mut rows = stmt.query([])?;
        let mut prev_mac = hex(&GENESIS);
        let mut expected_seq = 1;
        let mut n = 0i64;
        while let Some(r) = rows.next()? {
            let (row, detail_text) = row_from_sql(r)?;
            let prev_bytes = unhex(&row.prev_mac).unwrap_or_default();
            let computed = hex(&mac(
                &key,
                &[&prev_bytes, &canonical(row.seq, &row.record, &detail_text)],
            ));
            if computed != row.mac {
                return Ok(report(n, Some(ChainProblem::BadMac { seq: row.seq })));
            }
            if row.seq != expected_seq {
                return Ok(report(
                    n,
                    Some(ChainProblem::Gap {
                        expected: expected_seq,
                        seq: row.seq,
                    }),
                ));
            }
            if row.prev_mac != prev_mac {
                return Ok(report(n, Some(ChainProblem::BrokenLink { seq: row.seq })));
            }
            if head.as_ref().is_some_and(|h| row.seq > h.seq) {
                return Ok(report(n, Some(ChainProblem::HeadMismatch { seq: row.seq })));
            }
            prev_mac = row.mac;
            expected_seq += 1;
            n += 1;
        }
        let Some(head) = head else {
            return Ok(report(
                n,
                (n > 0).then_some(ChainProblem::HeadMismatch { seq: 1 }),
            ));
        };
        if head_tag(&key, head.rows, head.seq, &head.mac) != head.tag {
            return Ok(report(n, Some(ChainProblem::BadHead)));
        }
        if n < head.rows || prev_mac != head.mac {
            return Ok(report(
                n,
                Some(ChainProblem::Truncated {
                    expected_rows: head.rows,
                    found_rows: n,
                    first_missing_seq: expected_seq,
                }),
            ));
        }
        if n > head.rows {
            return Ok(report(n, Some(ChainProblem::BadHead)));
        }
        Ok(report(n, None))
    }
}
