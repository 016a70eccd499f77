//! The hash-chained audit: record types, the canonical row encoding, appending, queries and
//! chain verification.
//!
//! Each row's `mac` is HMAC-SHA256(key, prev_mac ‖ canonical(row)), where `prev_mac` is the
//! previous row's mac (32 zero bytes for the first row) and the canonical encoding covers
//! every stored field including `seq`, each one tagged and length-prefixed. The single chain
//! head (row count, last seq, last mac, and an HMAC tag over those three; since schema v5 a
//! `state` row under a reserved key, see [`HEAD_SCOPE`]) is updated in the same transaction
//! as the append, so a truncated tail is detected as well as an edited, deleted, inserted or
//! reordered row. The `key_fp` record (also in `state`) holds a fingerprint of the key that
//! wrote the chain, so verifying with another key says "wrong key", not "tampered".
//!
//! Appending is counted in SHA-256 blocks and SQL statements: the keyed HMAC state is kept
//! per thread (keying costs two blocks per MAC otherwise), and [`Txn::append_audits`] reads
//! the head, tags it and writes it once for all the rows of a hook call. The stored bytes are
//! exactly those of appending the rows one by one ([`Txn::append_audit`] is a batch of one);
//! `tests::chain_bytes_are_stable_*` pin them. The driver appends borrowed rows whose detail
//! it has already rendered to its stored text (`AuditEntry`) after a `ChainTip` it carries
//! through a whole batch transaction, so a stored replay reads and writes the head once per
//! transaction and allocates nothing per row.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

use hmac::{KeyInit, Mac};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{hex, Store, StoreError, Txn};
use crate::redact::{redact, redact_json_to_string};

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
    /// A backup made for (or refused to) an action in mode `reversible`.
    Backup,
    /// `gate undo`: a backup restored.
    Undo,
    /// `gate backups --prune`: backups removed.
    Prune,
}

impl AuditKind {
    pub const ALL: [AuditKind; 18] = [
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
        AuditKind::Backup,
        AuditKind::Undo,
        AuditKind::Prune,
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
            AuditKind::Backup => "backup",
            AuditKind::Undo => "undo",
            AuditKind::Prune => "prune",
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
    /// The role the event was evaluated under (schema v8; `None` before, or with no role).
    #[serde(default)]
    pub role: Option<String>,
}

/// One audit row as [`Txn::append_entries`] takes it: the columns borrowed from wherever the
/// caller holds them (the driver: the event, the spec and the outcome), the target as given
/// (redacted and bounded on the way in) and the detail already in its stored JSON text,
/// redacted (bounded on the way in). An [`AuditRecord`] appends as the entry of
/// [`AuditRecord::entry`] with its detail rendered by `redact_json_to_string`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AuditEntry<'a> {
    pub ts_ms: i64,
    pub session: &'a str,
    pub scope: &'a str,
    pub spec: &'a str,
    pub kind: AuditKind,
    pub runtime: &'a str,
    pub phase: &'a str,
    pub tool: Option<&'a str>,
    pub target: Option<&'a str>,
    pub tier: Option<&'a str>,
    pub decision: Option<&'a str>,
    /// Redacted JSON text.
    pub detail: &'a str,
    pub latency_us: Option<i64>,
    pub role: Option<&'a str>,
}

impl AuditRecord {
    /// The record's columns borrowed, with `detail` as the detail's text.
    fn entry<'a>(&'a self, detail: &'a str) -> AuditEntry<'a> {
        AuditEntry {
            ts_ms: self.ts_ms,
            session: &self.session,
            scope: &self.scope,
            spec: &self.spec,
            kind: self.kind,
            runtime: &self.runtime,
            phase: &self.phase,
            tool: self.tool.as_deref(),
            target: self.target.as_deref(),
            tier: self.tier.as_deref(),
            decision: self.decision.as_deref(),
            detail,
            latency_us: self.latency_us,
            role: self.role.as_deref(),
        }
    }
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
    /// Only rows whose detail names this rule (`"rule": NAME`): the event rows of actions
    /// the rule classified.
    pub rule: Option<String>,
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

/// Appends the canonical, unambiguous encoding of a stored row (everything but the macs) to
/// `buf`; `target` and `detail_text` are the stored (redacted, bounded) ones.
fn canonical_into(
    buf: &mut Vec<u8>,
    seq: i64,
    r: &AuditEntry<'_>,
    target: Option<&str>,
    detail_text: &str,
) {
    buf.reserve(256 + detail_text.len());
    buf.extend_from_slice(b"gate-audit-v1\0");
    put_field(buf, 1, Some(&seq.to_be_bytes()));
    put_field(buf, 2, Some(&r.ts_ms.to_be_bytes()));
    put_field(buf, 3, Some(r.session.as_bytes()));
    put_field(buf, 4, Some(r.scope.as_bytes()));
    put_field(buf, 5, Some(r.spec.as_bytes()));
    put_field(buf, 6, Some(r.kind.as_str().as_bytes()));
    put_field(buf, 7, Some(r.runtime.as_bytes()));
    put_field(buf, 8, Some(r.phase.as_bytes()));
    put_field(buf, 9, r.tool.map(str::as_bytes));
    put_field(buf, 10, target.map(str::as_bytes));
    put_field(buf, 11, r.tier.map(str::as_bytes));
    put_field(buf, 12, r.decision.map(str::as_bytes));
    put_field(buf, 13, Some(detail_text.as_bytes()));
    // The role (schema v8) is chained only when set: a row without one encodes exactly as
    // every row written before the column existed, so old chains verify unchanged, while
    // setting, clearing or changing a role breaks the row's mac.
    if let Some(role) = r.role {
        put_field(buf, 14, Some(role.as_bytes()));
    }
    // `latency_us` stays outside the chain: it is a measurement of this run, not part of the
    // record, and chaining it would make two identical traces chain differently.
}

pub(super) fn mac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    Keyed::new(key).mac(parts)
}

thread_local! {
    /// The HMAC state keyed last on this thread. One process keys the same key for every
    /// row, head tag and grant digest, and each keying costs two SHA-256 blocks.
    static LAST_KEYED: RefCell<Option<([u8; 32], HmacSha256)>> = const { RefCell::new(None) };
}

/// HMAC-SHA256 with the key schedule done: each [`Keyed::mac`] starts from a copy of the
/// keyed state instead of keying again (the same MAC, two SHA-256 blocks fewer).
struct Keyed(HmacSha256);

impl Keyed {
    fn new(key: &[u8; 32]) -> Keyed {
        let cached = LAST_KEYED
            .try_with(|last| {
                let mut last = last.try_borrow_mut().ok()?;
                match &*last {
                    Some((k, keyed)) if k == key => Some(keyed.clone()),
                    _ => {
                        let keyed = Keyed::schedule(key);
                        *last = Some((*key, keyed.clone()));
                        Some(keyed)
                    }
                }
            })
            .ok()
            .flatten();
        Keyed(cached.unwrap_or_else(|| Keyed::schedule(key)))
    }

    fn schedule(key: &[u8; 32]) -> HmacSha256 {
        <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC accepts any key size")
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut m = self.0.clone();
        for p in parts {
            m.update(p);
        }
        m.finalize().into_bytes().into()
    }

    fn head_tag(&self, rows: i64, head_seq: i64, head_mac: &str) -> String {
        hex(&self.mac(&[
            b"gate-audit-head\0",
            &rows.to_be_bytes(),
            &head_seq.to_be_bytes(),
            head_mac.as_bytes(),
        ]))
    }
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

/// The `state` record that holds the chain head (under [`super::RECORD_SPEC`]; schema v5). A
/// hook reads and writes it with the two cached statements it already prepares for its
/// scope's state: a table and two statement prepares fewer per call than a table of its own.
pub(crate) const HEAD_SCOPE: &str = "audit_head";

/// How the head row uses the `state` columns: `spec_hash` holds the tag, `blob` the text
/// `"{rows} {head_seq} {head_mac}"`, `updated` 0.
fn head_blob(rows: i64, seq: i64, mac: &str) -> Vec<u8> {
    format!("{rows} {seq} {mac}").into_bytes()
}

fn parse_head(tag: String, blob: &[u8]) -> Option<Head> {
    let text = std::str::from_utf8(blob).ok()?;
    let mut parts = text.split(' ');
    let rows = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    let mac = parts.next()?.to_string();
    if parts.next().is_some() {
        return None;
    }
    Some(Head {
        rows,
        seq,
        mac,
        tag,
    })
}

/// The chain head: `None` when no row was ever appended, `Some(None)` when the head row is
/// present but not in the form gate writes (edited by hand).
fn read_head_row(conn: &rusqlite::Connection) -> Result<Option<Option<Head>>, StoreError> {
    Ok(conn
        .prepare_cached(super::SELECT_STATE)?
        .query_row(params![HEAD_SCOPE, super::RECORD_SPEC], |r| {
            let tag: String = r.get(0)?;
            let blob: Vec<u8> = r.get(1)?;
            Ok(parse_head(tag, &blob))
        })
        .optional()?)
}

fn read_head(conn: &rusqlite::Connection) -> Result<Option<Head>, StoreError> {
    read_head_row(conn)?
        .map(|head| {
            head.ok_or_else(|| StoreError::Corrupt("the audit chain head is malformed".into()))
        })
        .transpose()
}

/// The stored form of a target: redacted, then cut to [`MAX_TARGET_BYTES`].
fn stored_target(t: &str) -> Cow<'_, str> {
    let red = redact(t);
    let cut = cut_at_char_boundary(&red, MAX_TARGET_BYTES);
    if cut.len() < red.len() {
        Cow::Owned(format!("{cut}…"))
    } else {
        red
    }
}

/// The redacted JSON text of a detail.
fn detail_text(detail: &serde_json::Value) -> Result<String, StoreError> {
    redact_json_to_string(detail).map_err(|e| StoreError::Encode(e.to_string()))
}

/// The stored text of a detail's redacted text: itself, or a size note when it is too large.
fn stored_detail(text: &str) -> Cow<'_, str> {
    if text.len() > MAX_DETAIL_BYTES {
        return Cow::Owned(
            serde_json::json!({ "bytes": text.len(), "truncated": true }).to_string(),
        );
    }
    Cow::Borrowed(text)
}

/// Where the chain ends, read once and carried across appends: a hook's rows, or all the
/// rows of a batch transaction, are chained from it and the head is written once at the end
/// ([`Txn::write_chain_head`]). Valid only inside the transaction that read it, while every
/// audit row of that transaction is appended through it.
pub(crate) struct ChainTip {
    keyed: Keyed,
    rows: i64,
    seq: i64,
    /// The last row's mac as stored, and its bytes.
    mac: String,
    mac_bytes: Vec<u8>,
    /// Whether rows were appended since the head was read (the head needs writing).
    appended: bool,
    /// Buffers reused from row to row: the canonical bytes and the new row's mac, in hex and
    /// as bytes.
    canonical: Vec<u8>,
    next_mac: String,
    next_bytes: [u8; 32],
}

/// The audit insert. The values are in the table's column order (seq, ts, session, scope,
/// spec, kind, runtime, phase, tool, target, tier, decision, detail, latency_us, prev_mac, mac;
/// fixed by migration v1; then role, added by v8): without a column list the statement is cheaper to prepare, which
/// every hook does once (−24 k instructions).
const INSERT_AUDIT: &str =
    "INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/// One audit row with its stored target and detail and its macs.
fn insert_row(
    insert: &mut rusqlite::CachedStatement<'_>,
    seq: i64,
    rec: &AuditEntry<'_>,
    target: Option<&str>,
    detail: &str,
    prev_mac: &str,
    mac: &str,
) -> Result<(), StoreError> {
    insert.execute(params![
        seq,
        rec.ts_ms,
        rec.session,
        rec.scope,
        rec.spec,
        rec.kind.as_str(),
        rec.runtime,
        rec.phase,
        rec.tool,
        target,
        rec.tier,
        rec.decision,
        detail,
        rec.latency_us,
        prev_mac,
        mac,
        rec.role,
    ])?;
    Ok(())
}

/// Rows chained ahead of their insert ([`ChainTip::link_ahead`]): what they are stored as
/// (the shared target redacted and bounded, each detail bounded) and where the chain puts
/// them. A stored replay's evaluating side chains the rows of a database only it writes, so
/// that its writer thread only inserts them ([`Txn::insert_linked`]).
#[derive(Default)]
pub(crate) struct Linked {
    pub(crate) target: Option<String>,
    /// Each row's stored detail, one after another, and where each ends.
    pub(crate) details: String,
    pub(crate) ends: Vec<usize>,
    /// The first row's seq and the mac before it.
    pub(crate) first_seq: i64,
    pub(crate) prev_mac: String,
    /// Each row's mac: 64 hex digits each, one after another.
    pub(crate) macs: String,
}

impl ChainTip {
    /// The start of an empty chain.
    pub(crate) fn genesis(key: &[u8; 32]) -> ChainTip {
        ChainTip {
            keyed: Keyed::new(key),
            rows: 0,
            seq: 0,
            mac: hex(&GENESIS),
            mac_bytes: GENESIS.to_vec(),
            appended: false,
            canonical: Vec::with_capacity(1024),
            next_mac: String::with_capacity(64),
            next_bytes: GENESIS,
        }
    }

    /// The chain after `rows` rows, the last one `seq` with `mac`.
    fn at(key: &[u8; 32], rows: i64, seq: i64, mac: String) -> Result<ChainTip, StoreError> {
        let mac_bytes = unhex(&mac)
            .ok_or_else(|| StoreError::Corrupt(format!("audit head mac is not hex: {mac}")))?;
        Ok(ChainTip {
            mac,
            mac_bytes,
            rows,
            seq,
            ..ChainTip::genesis(key)
        })
    }

    /// The next row's seq and mac (into `next_mac`; `mac` is still the one before it). Call
    /// [`ChainTip::advance`] once it is stored.
    fn link(&mut self, rec: &AuditEntry<'_>, target: Option<&str>, detail: &str) -> i64 {
        let seq = self.seq + 1;
        if self.mac_bytes.is_empty() {
            // After rows linked elsewhere ([`ChainTip::advance_unchecked`]).
            self.mac_bytes = unhex(&self.mac).unwrap_or_default();
        }
        self.canonical.clear();
        canonical_into(&mut self.canonical, seq, rec, target, detail);
        self.next_bytes = self.keyed.mac(&[&self.mac_bytes, &self.canonical]);
        hex_into(&mut self.next_mac, &self.next_bytes);
        seq
    }

    /// The row [`ChainTip::link`] made is the end of the chain now.
    fn advance(&mut self) {
        self.seq += 1;
        self.rows += 1;
        self.appended = true;
        self.mac_bytes.clear();
        self.mac_bytes.extend_from_slice(&self.next_bytes);
        std::mem::swap(&mut self.mac, &mut self.next_mac);
    }

    /// [`ChainTip::advance`] to a row linked elsewhere, whose mac is in `next_mac`: its bytes
    /// are decoded only if this tip links a row itself again.
    fn advance_unchecked(&mut self) {
        self.seq += 1;
        self.rows += 1;
        self.appended = true;
        self.mac_bytes.clear();
        std::mem::swap(&mut self.mac, &mut self.next_mac);
    }

    /// Chains `entries` (one event's rows sharing their columns, as a stored replay sends
    /// them) after this tip into `out`, stored exactly as [`Txn::append_entries`] stores them,
    /// and moves the tip to their end.
    pub(crate) fn link_ahead(&mut self, entries: &[AuditEntry<'_>], out: &mut Linked) {
        out.first_seq = self.seq + 1;
        out.prev_mac.clear();
        out.prev_mac.push_str(&self.mac);
        out.details.clear();
        out.ends.clear();
        out.macs.clear();
        out.target = entries
            .first()
            .and_then(|e| e.target)
            .map(|t| stored_target(t).into_owned());
        for rec in entries {
            let detail = stored_detail(rec.detail);
            self.link(rec, out.target.as_deref(), &detail);
            out.details.push_str(&detail);
            out.ends.push(out.details.len());
            out.macs.push_str(&self.next_mac);
            self.advance();
        }
    }
}

/// Writes the lower-case hex of `bytes` into `out` (cleared first), as [`hex`] returns it.
fn hex_into(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.clear();
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

impl Txn<'_> {
    /// Appends one audit row (target and detail redacted, bounded) and returns its seq.
    pub fn append_audit(&mut self, rec: &AuditRecord) -> Result<i64, StoreError> {
        self.append_audits(std::slice::from_ref(rec))
    }

    /// Appends `recs` in order, each exactly as [`Txn::append_audit`] would (same rows, same
    /// macs, same final head), reading and rewriting the chain head once for all of them.
    /// Returns the seq of the last row (the current last seq when `recs` is empty).
    pub fn append_audits(&mut self, recs: &[AuditRecord]) -> Result<i64, StoreError> {
        let key = self.key.ok_or(StoreError::KeyMissing)?;
        if recs.is_empty() {
            return Ok(read_head(&self.tx)?.map_or(0, |h| h.seq));
        }
        let mut tip = self.chain_tip_keyed(&key)?;
        let texts = recs
            .iter()
            .map(|r| detail_text(&r.detail))
            .collect::<Result<Vec<_>, _>>()?;
        let entries: Vec<AuditEntry<'_>> =
            recs.iter().zip(&texts).map(|(r, t)| r.entry(t)).collect();
        self.append_entries(&mut tip, &entries)?;
        self.write_chain_head(&mut tip)?;
        Ok(tip.seq)
    }

    /// The end of the chain, for [`Txn::append_entries`].
    pub(crate) fn chain_tip(&self) -> Result<ChainTip, StoreError> {
        let key = self.key.ok_or(StoreError::KeyMissing)?;
        self.chain_tip_keyed(&key)
    }

    fn chain_tip_keyed(&self, key: &[u8; 32]) -> Result<ChainTip, StoreError> {
        match read_head(&self.tx)? {
            Some(h) => ChainTip::at(key, h.rows, h.seq, h.mac),
            None => Ok(ChainTip::genesis(key)),
        }
    }

    /// Appends `entries` in order after `tip` (target redacted and bounded, detail bounded),
    /// exactly as [`Txn::append_audits`] appends the records they borrow from.
    pub(crate) fn append_entries(
        &mut self,
        tip: &mut ChainTip,
        entries: &[AuditEntry<'_>],
    ) -> Result<(), StoreError> {
        // The rows of one hook call repeat the event's target: redact it once.
        let mut last_target: Option<(&str, Cow<'_, str>)> = None;
        // Cached: later transactions of a long-lived store append again.
        let mut insert = self.tx.prepare_cached(INSERT_AUDIT)?;
        for rec in entries {
            let target = match rec.target {
                None => None,
                Some(t) => {
                    if last_target.as_ref().is_none_or(|(source, _)| *source != t) {
                        last_target = Some((t, stored_target(t)));
                    }
                    last_target.as_ref().map(|(_, stored)| stored.as_ref())
                }
            };
            let detail_text = stored_detail(rec.detail);
            let seq = tip.link(rec, target, &detail_text);
            insert_row(
                &mut insert,
                seq,
                rec,
                target,
                &detail_text,
                &tip.mac,
                &tip.next_mac,
            )?;
            tip.advance();
        }
        Ok(())
    }

    /// Inserts `entries` as [`ChainTip::link_ahead`] chained them into `linked`, after `tip`
    /// (which must be where that chain started: otherwise nothing is written and the
    /// transaction fails), and moves `tip` to their end. The same rows as
    /// [`Txn::append_entries`] would insert.
    pub(crate) fn insert_linked(
        &mut self,
        tip: &mut ChainTip,
        entries: &[AuditEntry<'_>],
        linked: &Linked,
    ) -> Result<(), StoreError> {
        if linked.first_seq != tip.seq + 1 || linked.prev_mac != tip.mac {
            return Err(StoreError::Corrupt(format!(
                "rows chained after seq {} arrived at seq {}",
                linked.first_seq - 1,
                tip.seq
            )));
        }
        let mut insert = self.tx.prepare_cached(INSERT_AUDIT)?;
        let mut start = 0;
        for (i, rec) in entries.iter().enumerate() {
            let end = linked.ends[i];
            let detail = &linked.details[start..end];
            start = end;
            let mac = &linked.macs[i * 64..(i + 1) * 64];
            let seq = tip.seq + 1;
            insert_row(
                &mut insert,
                seq,
                rec,
                linked.target.as_deref(),
                detail,
                &tip.mac,
                mac,
            )?;
            tip.next_mac.clear();
            tip.next_mac.push_str(mac);
            tip.advance_unchecked();
        }
        Ok(())
    }

    /// Records `tip` as the chain head (nothing when no row was appended through it).
    pub(crate) fn write_chain_head(&mut self, tip: &mut ChainTip) -> Result<(), StoreError> {
        if !tip.appended {
            return Ok(());
        }
        let (rows, seq, prev_mac) = (tip.rows, tip.seq, &tip.mac);
        let tag = tip.keyed.head_tag(rows, seq, prev_mac);
        self.tx
            .prepare_cached(super::REPLACE_STATE)?
            .execute(params![
                HEAD_SCOPE,
                super::RECORD_SPEC,
                tag,
                head_blob(rows, seq, prev_mac),
                0
            ])?;
        tip.appended = false;
        Ok(())
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let nibble = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    };
    // Plain hex digits (everything gate writes) take the fast path; anything else gets the
    // general parse, which also decides what an edited value decodes to.
    let mut out = Vec::with_capacity(s.len() / 2);
    for pair in s.as_bytes().chunks_exact(2) {
        match (nibble(pair[0]), nibble(pair[1])) {
            (Some(high), Some(low)) => out.push((high << 4) | low),
            _ => {
                return (0..s.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
                    .collect()
            }
        }
    }
    Some(out)
}

pub(super) const SELECT_ROW: &str =
    "SELECT seq, ts, session, scope, spec, kind, runtime, phase, tool, target, \
                          tier, decision, detail, latency_us, prev_mac, mac, role FROM audit";

/// Whether the last approval row for grant `id` names `action_hash` and its mac verifies
/// under `key` (the row's own content against its stored predecessor's mac).
pub(super) fn approval_row_verifies(
    conn: &rusqlite::Connection,
    key: &[u8; 32],
    id: &str,
    action_hash: &str,
) -> Result<bool, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT_ROW} WHERE kind = 'grant' AND decision = 'approved' AND target = ?1 \
         ORDER BY seq DESC LIMIT 1"
    ))?;
    let mut rows = stmt.query([id])?;
    let Some(r) = rows.next()? else {
        return Ok(false);
    };
    let (row, detail_text) = row_from_sql(r)?;
    let names_action = serde_json::from_str::<serde_json::Value>(&detail_text)
        .ok()
        .is_some_and(|d| d["action"] == action_hash && d["grant"] == id);
    if !names_action {
        return Ok(false);
    }
    let prev_bytes = unhex(&row.prev_mac).unwrap_or_default();
    let mut canonical = Vec::new();
    let target = row.record.target.as_deref();
    let entry = row.record.entry(&detail_text);
    canonical_into(&mut canonical, row.seq, &entry, target, &detail_text);
    Ok(hex(&Keyed::new(key).mac(&[&prev_bytes, &canonical])) == row.mac)
}

/// Reads a row; `detail_text` is the exact stored text (the mac covers it).
pub(super) fn row_from_sql(r: &Row<'_>) -> rusqlite::Result<(AuditRow, String)> {
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
                role: r.get(16)?,
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
        if let Some(rule) = &filter.rule {
            // The stored detail is compact JSON, so a row naming the rule holds this text;
            // the JSON functions are not built in, so the match is confirmed on the parsed
            // detail below (a string value that merely contains the text does not count).
            clauses.push("instr(detail, ?) > 0");
            let needle = format!("\"rule\":{}", serde_json::Value::String(rule.clone()));
            args.push(V::Text(needle));
        }
        let mut sql = SELECT_ROW.to_string();
        if !clauses.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&clauses.join(" AND "));
        }
        // With a rule the last `limit` rows are counted after the confirmation, here.
        let sql_limit = filter.limit.filter(|_| filter.rule.is_none());
        if let Some(limit) = sql_limit {
            sql = format!(
                "SELECT * FROM ({sql} ORDER BY seq DESC LIMIT {}) ORDER BY seq",
                limit.min(i64::MAX as u64)
            );
        } else {
            sql.push_str(" ORDER BY seq");
        }
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let Some(rule) = &filter.rule else {
            while let Some(r) = rows.next()? {
                f(row_from_sql(r)?.0)?;
            }
            return Ok(());
        };
        let keep = filter
            .limit
            .map_or(usize::MAX, |l| l.min(usize::MAX as u64) as usize);
        let mut last = std::collections::VecDeque::new();
        while let Some(r) = rows.next()? {
            let row = row_from_sql(r)?.0;
            if row
                .record
                .detail
                .get("rule")
                .and_then(serde_json::Value::as_str)
                != Some(rule.as_str())
            {
                continue;
            }
            if keep == 0 {
                continue;
            }
            if last.len() == keep {
                last.pop_front();
            }
            last.push_back(row);
        }
        drop(rows);
        for row in last {
            f(row)?;
        }
        Ok(())
    }

    /// Recomputes the whole chain and names the first problem.
    pub fn verify_chain(&self) -> Result<VerifyReport, StoreError> {
        let key = self.key.ok_or(StoreError::KeyMissing)?;
        // A head row in a form gate never writes was edited by hand: the rows are still
        // checked, and the head is reported bad.
        let stored_head = read_head_row(&self.conn)?;
        let malformed_head = matches!(stored_head, Some(None));
        let head = stored_head.flatten();
        let head_rows = head.as_ref().map_or(0, |h| h.rows);
        let report = |rows_ok, problem| VerifyReport {
            rows_ok,
            head_rows,
            problem,
        };
        let key_fp = key_fingerprint(&key);
        let expected_fp = super::stored_key_fp(&self.conn)?;
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
        let keyed = Keyed::new(&key);
        let mut canonical = Vec::new();
        let mut prev_mac = hex(&GENESIS);
        let mut expected_seq = 1;
        let mut n = 0i64;
        while let Some(r) = rows.next()? {
            let (row, detail_text) = row_from_sql(r)?;
            let prev_bytes = unhex(&row.prev_mac).unwrap_or_default();
            canonical.clear();
            let target = row.record.target.as_deref();
            let entry = row.record.entry(&detail_text);
            canonical_into(&mut canonical, row.seq, &entry, target, &detail_text);
            let computed = hex(&keyed.mac(&[&prev_bytes, &canonical]));
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
        if malformed_head {
            return Ok(report(n, Some(ChainProblem::BadHead)));
        }
        let Some(head) = head else {
            return Ok(report(
                n,
                (n > 0).then_some(ChainProblem::HeadMismatch { seq: 1 }),
            ));
        };
        if keyed.head_tag(head.rows, head.seq, &head.mac) != head.tag {
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

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];

    fn fixed_store() -> Store {
        let mut store = Store::open_in_memory().expect("in-memory store");
        store.key = Some(KEY);
        store
            .conn
            .execute(
                "UPDATE state SET spec_hash = ?1 WHERE scope = 'key_fp' AND spec = ''",
                [key_fingerprint(&KEY)],
            )
            .expect("key fingerprint");
        store
    }

    fn records() -> Vec<AuditRecord> {
        let base = AuditRecord {
            ts_ms: 1_700_000_000_123,
            session: "00000003-0000-4000-8000-000000000003".to_string(),
            scope: "session:00000003".to_string(),
            spec: "default".to_string(),
            kind: AuditKind::Event,
            runtime: "claude-code".to_string(),
            phase: "pre_tool".to_string(),
            tool: Some("Bash".to_string()),
            target: Some("GH_TOKEN=ghp_abcdefghijklmnop1234 gh pr list ü".to_string()),
            tier: Some("routine".to_string()),
            decision: Some("allow".to_string()),
            // Keys in sorted order: the stored text is then the same whether or not
            // serde_json's `preserve_order` is on (gate-cli's dependencies turn it on when
            // the workspace is built together).
            detail: serde_json::json!({
                "api_key": "k",
                "event": "PreToolUse",
                "nested": [{"cmd": "curl -u bob:hunter2 https://x"}, 1.5, null, true],
                "rule": null,
            }),
            latency_us: Some(912),
            role: None,
        };
        let note = AuditRecord {
            kind: AuditKind::Steer,
            detail: serde_json::json!({"detail": {"text": "say why"}, "note": "steer"}),
            latency_us: None,
            ..base.clone()
        };
        let bare = AuditRecord {
            kind: AuditKind::Transition,
            target: None,
            tier: None,
            detail: serde_json::json!({"detail": {"label": "x"}, "note": "record"}),
            latency_us: None,
            ..base.clone()
        };
        vec![base, note, bare]
    }

    type StoredRow = (String, String, String, String);

    fn stored(store: &Store) -> (Vec<StoredRow>, (i64, i64, String, String)) {
        let rows = store
            .conn
            .prepare("SELECT coalesce(target, '-'), detail, prev_mac, mac FROM audit ORDER BY seq")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let head = read_head(&store.conn).unwrap().unwrap();
        (rows, (head.rows, head.seq, head.mac, head.tag))
    }

    // Produced by the original implementation (one HMAC per row and one head update per
    // row): rows written by any version of gate must verify with every later one.
    const GOLDEN_MACS: [&str; 4] = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "9103d89f075241e7e00c292cc8eb5bfaeb445dc1d43473308a0e1e9a2f5ab0dc",
        "7a0b6cf6d57e4b7722845b6eaf655ba502a1cd51e128077ebbc55129dba18a24",
        "7c10def980c52dde1bca5815cde61eb442782c9faa1ea63a73fc94540f37c9eb",
    ];
    const GOLDEN_TAG: &str = "133b4f1eb5c668aebe89dc9e36cbdce0339b27f92e1d25c829c2aee9373fd206";

    fn check_golden(store: &Store) {
        let (rows, head) = stored(store);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].0, "GH_TOKEN=[REDACTED] gh pr list ü");
        assert_eq!(
            rows[0].1,
            r#"{"api_key":"[REDACTED]","event":"PreToolUse","nested":[{"cmd":"curl -u bob:[REDACTED] https://x"},1.5,null,true],"rule":null}"#
        );
        assert_eq!(rows[1].0, rows[0].0);
        assert_eq!(rows[2].0, "-");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.2, GOLDEN_MACS[i], "prev_mac of row {}", i + 1);
            assert_eq!(row.3, GOLDEN_MACS[i + 1], "mac of row {}", i + 1);
        }
        assert_eq!(
            head,
            (3, 3, GOLDEN_MACS[3].to_string(), GOLDEN_TAG.to_string())
        );
        assert!(store.verify_chain().unwrap().is_ok());
    }

    #[test]
    fn chain_bytes_are_stable_row_by_row() {
        let mut store = fixed_store();
        store
            .transaction(|t| {
                for r in &records() {
                    t.append_audit(r)?;
                }
                Ok(())
            })
            .unwrap();
        check_golden(&store);
    }

    #[test]
    fn chain_bytes_are_stable_in_one_batch() {
        let mut store = fixed_store();
        let last = store.transaction(|t| t.append_audits(&records())).unwrap();
        assert_eq!(last, 3);
        check_golden(&store);
    }

    #[test]
    fn batches_continue_the_chain() {
        let recs = records();
        let mut store = fixed_store();
        assert_eq!(store.transaction(|t| t.append_audits(&[])).unwrap(), 0);
        assert_eq!(
            store.transaction(|t| t.append_audits(&recs[..1])).unwrap(),
            1
        );
        assert_eq!(store.transaction(|t| t.append_audits(&[])).unwrap(), 1);
        assert_eq!(
            store.transaction(|t| t.append_audits(&recs[1..])).unwrap(),
            3
        );
        check_golden(&store);
        // Batches in one transaction, and a row too large to keep its detail.
        let mut big = recs[0].clone();
        big.detail = serde_json::json!({ "text": "x".repeat(MAX_DETAIL_BYTES) });
        big.target = Some(format!("{}é", "y".repeat(MAX_TARGET_BYTES - 1)));
        store
            .transaction(|t| {
                t.append_audits(&recs)?;
                t.append_audits(&[big.clone(), recs[2].clone()])
            })
            .unwrap();
        let report = store.verify_chain().unwrap();
        assert!(report.is_ok(), "{report:?}");
        assert_eq!(report.rows_ok, 8);
        let (rows, head) = stored(&store);
        assert_eq!(
            rows[6].1,
            format!(r#"{{"bytes":{},"truncated":true}}"#, MAX_DETAIL_BYTES + 11)
        );
        assert_eq!(rows[6].0, format!("{}…", "y".repeat(MAX_TARGET_BYTES - 1)));
        assert_eq!((head.0, head.1), (8, 8));
    }

    /// A row written before the role column existed (NULL role) verifies as it always did
    /// (the golden macs above have no role); a role is chained when set, so adding, changing
    /// or clearing it afterwards is reported as an edit of that row.
    #[test]
    fn the_role_is_chained_when_set_and_old_rows_still_verify() {
        let mut store = fixed_store();
        let mut recs = records();
        recs[1].role = Some("director".to_string());
        store.transaction(|t| t.append_audits(&recs)).unwrap();
        assert!(store.verify_chain().unwrap().is_ok());
        let rows = store.audit_rows(&AuditFilter::default()).unwrap();
        assert_eq!(rows[1].record.role.as_deref(), Some("director"));
        assert_eq!(rows[0].record.role, None);
        // The row without a role has the golden mac: nothing changed for it.
        assert_eq!(rows[0].mac, GOLDEN_MACS[1]);
        let tamper = |sql: &str| {
            let store = fixed_store();
            let mut store = store;
            store.transaction(|t| t.append_audits(&recs)).unwrap();
            store.conn.execute(sql, []).unwrap();
            store.verify_chain().unwrap().problem
        };
        for sql in [
            "UPDATE audit SET role = 'worker' WHERE seq = 2",
            "UPDATE audit SET role = NULL WHERE seq = 2",
            "UPDATE audit SET role = 'director' WHERE seq = 1",
        ] {
            let seq = if sql.ends_with("seq = 1") { 1 } else { 2 };
            assert_eq!(tamper(sql), Some(ChainProblem::BadMac { seq }), "{sql}");
        }
    }

    #[test]
    fn unhex_decodes_what_it_always_did() {
        assert_eq!(unhex(""), Some(vec![]));
        assert_eq!(unhex("00ff7A"), Some(vec![0, 255, 0x7a]));
        assert_eq!(unhex("0"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("éé"), None);
        // `from_str_radix` accepts a sign; an edited mac must decode as it always did.
        assert_eq!(unhex("+f10"), Some(vec![15, 16]));
        let all: String = (0..=255u8).map(|b| format!("{b:02x}")).collect();
        assert_eq!(unhex(&all), Some((0..=255u8).collect()));
        assert_eq!(unhex(&all.to_uppercase()), Some((0..=255u8).collect()));
    }
}
