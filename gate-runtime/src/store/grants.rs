//! One-time, expiring grants bound to the hash of one exact action (L8).
//!
//! Life of a grant: the engine asks → [`Txn::create_grant`] (pending) → the user runs
//! `gate approve <id>` → [`Store::approve_grant`] → the agent retries the same action →
//! [`Txn::consume_grant`] finds the approved, unexpired, unused, unrevoked grant for that
//! action hash and marks it used. A second use, another action or a late retry finds nothing.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::{Store, StoreError, Txn, HEADER_GRANTS};

/// A grant request as the engine makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGrant {
    /// Hash of the exact action (runtime, tool, normalised target) the grant licenses.
    pub action_hash: String,
    /// What the user is asked to approve (already redacted by the caller or not: it is
    /// redacted again here).
    pub summary: String,
    pub created_ms: i64,
    pub expires_ms: i64,
}

/// Where a grant stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantStatus {
    Pending,
    Approved,
    Used,
    Revoked,
    Expired,
}

/// One stored grant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GrantRow {
    pub id: String,
    pub action_hash: String,
    pub summary: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub approved_ms: Option<i64>,
    pub used_ms: Option<i64>,
    pub revoked: bool,
}

impl GrantRow {
    pub fn status(&self, now_ms: i64) -> GrantStatus {
        if self.revoked {
            GrantStatus::Revoked
        } else if self.used_ms.is_some() {
            GrantStatus::Used
        } else if now_ms >= self.expires_ms {
            GrantStatus::Expired
        } else if self.approved_ms.is_some() {
            GrantStatus::Approved
        } else {
            GrantStatus::Pending
        }
    }
}

/// The outcome of `gate approve <id>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApproveOutcome {
    Approved,
    NotFound,
    /// Not pending any more; carries where it stands.
    NotPending(GrantStatus),
}

/// Crockford base32 without I, L, O, U: short ids that read aloud and type well.
const ID_ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const ID_LEN: usize = 8;

fn new_id() -> Result<String, StoreError> {
    let mut raw = [0u8; ID_LEN];
    getrandom::fill(&mut raw).map_err(|e| StoreError::Random(e.to_string()))?;
    Ok(raw
        .iter()
        .map(|b| ID_ALPHABET[usize::from(b & 31)] as char)
        .collect())
}

/// How many derived ids [`Txn::create_grant`] tries before it gives up.
pub(crate) const ID_ATTEMPTS: u8 = 8;

/// Whether a pending grant created at `created` with `id` is preferred over `best`: the
/// newest wins, and the id breaks ties so the choice is deterministic.
pub(crate) fn newer_pending(created: i64, id: &str, best: Option<&(i64, String)>) -> bool {
    best.is_none_or(|(c, b)| (created, id) > (*c, b.as_str()))
}

pub(crate) fn derived_id(key: &[u8; 32], g: &NewGrant, attempt: u8) -> String {
    let digest = super::audit::mac(
        key,
        &[
            b"gate-grant-id",
            g.action_hash.as_bytes(),
            &g.created_ms.to_be_bytes(),
            &[attempt],
        ],
    );
    digest[..ID_LEN]
        .iter()
        .map(|b| ID_ALPHABET[usize::from(b & 31)] as char)
        .collect()
}

/// An action's grants that have not expired at `?2` (`pending_grant`).
const PENDING_GRANTS: &str = "SELECT id, created, approved_at, revoked, used_at FROM grants
     WHERE action_hash = ?1 AND expires > ?2";

/// An action's unused grants that have not expired at `?2` (`consume_grant`).
const UNUSED_GRANTS: &str = "SELECT id, approved_at, revoked FROM grants
     WHERE action_hash = ?1 AND expires > ?2 AND used_at IS NULL";

const SELECT_GRANT: &str =
    "SELECT id, action_hash, summary, created, expires, approved_at, used_at, revoked FROM grants";

fn grant_from_sql(r: &rusqlite::Row<'_>) -> rusqlite::Result<GrantRow> {
    Ok(GrantRow {
        id: r.get(0)?,
        action_hash: r.get(1)?,
        summary: r.get(2)?,
        created_ms: r.get(3)?,
        expires_ms: r.get(4)?,
        approved_ms: r.get(5)?,
        used_ms: r.get(6)?,
        revoked: r.get::<_, i64>(7)? != 0,
    })
}

impl Txn<'_> {
    /// Records a pending grant and returns its id. A still-pending grant for the same action
    /// is reused (an agent retrying the blocked call does not pile up requests).
    pub fn create_grant(&self, g: &NewGrant) -> Result<String, StoreError> {
        if let Some(id) = self.pending_grant(&g.action_hash, g.created_ms)? {
            return Ok(id);
        }
        for attempt in 0..ID_ATTEMPTS {
            // Keyed and deterministic: the same action at the same time under the same key
            // gets the same id (replays and tests reproduce), and nobody without the key can
            // predict one.
            let id = match self.key.as_ref() {
                Some(key) => derived_id(key, g, attempt),
                None => new_id()?,
            };
            if self.insert_grant(&id, g)? {
                return Ok(id);
            }
        }
        Err(StoreError::Corrupt(
            "could not allocate a unique grant id".to_string(),
        ))
    }

    /// Records grant `g` under `id`; false (and nothing written) when the id is taken.
    pub(crate) fn insert_grant(&self, id: &str, g: &NewGrant) -> Result<bool, StoreError> {
        let summary = crate::redact::redact(&g.summary);
        let inserted = self.tx.execute(
            "INSERT OR IGNORE INTO grants (id, action_hash, summary, created, expires)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, g.action_hash, summary, g.created_ms, g.expires_ms],
        )?;
        Ok(inserted == 1)
    }

    /// The newest pending (unapproved, unused, unrevoked, unexpired at `now_ms`) grant for
    /// this action. One range of the `grants_live` index (the action's unexpired grants, so
    /// the expired ones an action piles up are never read) with the rest of the test done
    /// here, as in [`Txn::consume_grant`]: the `ORDER BY created DESC LIMIT 1` form with every
    /// condition in SQL costs an ask twice as much to prepare and run (a sorter).
    fn pending_grant(&self, action_hash: &str, now_ms: i64) -> Result<Option<String>, StoreError> {
        // `used_at` is tested here too: a plain equality is cheaper to prepare (−1.6 k).
        let mut stmt = self.tx.prepare_cached(PENDING_GRANTS)?;
        let mut rows = stmt.query(params![action_hash, now_ms])?;
        let mut best: Option<(i64, String)> = None;
        while let Some(r) = rows.next()? {
            let (created, approved, revoked, used): (i64, Option<i64>, i64, Option<i64>) =
                (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            if approved.is_some() || used.is_some() || revoked != 0 {
                continue;
            }
            let id: String = r.get(0)?;
            if newer_pending(created, &id, best.as_ref()) {
                best = Some((created, id));
            }
        }
        Ok(best.map(|(_, id)| id))
    }

    /// Uses the approved grant for this exact action, if one is live: marks it used and
    /// returns its id. One-time: a second call for the same action returns `None`.
    pub fn consume_grant(
        &self,
        action_hash: &str,
        now_ms: i64,
    ) -> Result<Option<String>, StoreError> {
        // Almost every hook stops here: no approval is live (see `HEADER_GRANTS`).
        if !self.header_says(HEADER_GRANTS)? {
            return Ok(None);
        }
        // One range of the `grants_live` index (the action's unexpired grants); the rest of
        // the test is done here. The `ORDER BY … LIMIT 1` form with every condition in SQL
        // costs twice as much to prepare and run (a sorter).
        let mut stmt = self.tx.prepare_cached(UNUSED_GRANTS)?;
        let mut rows = stmt.query(params![action_hash, now_ms])?;
        let mut approved_ids: Vec<(i64, String)> = Vec::new();
        while let Some(r) = rows.next()? {
            let (approved, revoked): (Option<i64>, i64) = (r.get(1)?, r.get(2)?);
            let Some(approved) = approved.filter(|_| revoked == 0) else {
                continue;
            };
            approved_ids.push((approved, r.get(0)?));
        }
        drop(rows);
        drop(stmt);
        // The earliest approval wins; the id breaks ties so the choice is deterministic. Only
        // a grant whose approval is a verifying row of the chain counts.
        approved_ids.sort();
        let mut id = None;
        for (_, candidate) in approved_ids {
            if self.approval_verifies(&candidate, action_hash)? {
                id = Some(candidate);
                break;
            }
        }
        if let Some(id) = &id {
            self.tx.execute(
                "UPDATE grants SET used_at = ?2 WHERE id = ?1",
                params![id, now_ms],
            )?;
        }
        let live: bool = self.tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM grants WHERE approved_at IS NOT NULL
             AND used_at IS NULL AND revoked = 0 AND expires > ?1)",
            [now_ms],
            |r| r.get(0),
        )?;
        if !live {
            self.set_header_flag(HEADER_GRANTS, false)?;
        }
        Ok(id)
    }

    /// The scope (identity) whose ask in `session` minted grant `id`: the latest event row
    /// of that session that asked and names the grant. A rare read (a director's approval),
    /// so a backward scan of the session's rows.
    pub fn asked_by(&self, session: &str, id: &str) -> Result<Option<String>, StoreError> {
        let needle = format!("\"grant\":\"{id}\"");
        Ok(self
            .tx
            .query_row(
                "SELECT scope FROM audit WHERE session = ?1 AND kind = 'event' \
                 AND decision = 'ask' AND instr(detail, ?2) > 0 ORDER BY seq DESC LIMIT 1",
                rusqlite::params![session, needle],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// One grant by id.
    pub fn grant(&self, id: &str) -> Result<Option<GrantRow>, StoreError> {
        Ok(self
            .tx
            .query_row(
                &format!("{SELECT_GRANT} WHERE id = ?1"),
                [id],
                grant_from_sql,
            )
            .optional()?)
    }

    /// Approves a pending, unexpired grant.
    ///
    /// The approval is an audit row in the HMAC chain (kind `grant`, decision `approved`, the
    /// grant's id as target, its action in the detail); a grant is honoured only when that
    /// row verifies ([`Txn::approval_verifies`]), so setting `approved_at` by hand approves
    /// nothing. `by` names who approved (`user`, or a director identity).
    pub fn approve_grant(
        &mut self,
        id: &str,
        now_ms: i64,
        by: &str,
    ) -> Result<ApproveOutcome, StoreError> {
        let Some(g) = self.grant(id)? else {
            return Ok(ApproveOutcome::NotFound);
        };
        match g.status(now_ms) {
            GrantStatus::Pending => {
                self.tx.execute(
                    "UPDATE grants SET approved_at = ?2 WHERE id = ?1",
                    params![id, now_ms],
                )?;
                self.append_audit(&approval_record(&g, now_ms, by))?;
                self.set_header_flag(HEADER_GRANTS, true)?;
                Ok(ApproveOutcome::Approved)
            }
            other => Ok(ApproveOutcome::NotPending(other)),
        }
    }

    /// Whether the chain holds an approval row for grant `id` and `action_hash` whose mac
    /// verifies under this store's key. Without the key nothing verifies.
    pub fn approval_verifies(&self, id: &str, action_hash: &str) -> Result<bool, StoreError> {
        let Some(key) = self.key else {
            return Ok(false);
        };
        super::audit::approval_row_verifies(&self.tx, &key, id, action_hash)
    }

    /// Revokes a grant that is not used yet; returns whether one was revoked.
    pub fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.tx.execute(
            "UPDATE grants SET revoked = 1 WHERE id = ?1 AND used_at IS NULL AND revoked = 0",
            [id],
        )? == 1)
    }
}

/// The audit row that records an approval.
fn approval_record(g: &GrantRow, now_ms: i64, by: &str) -> super::AuditRecord {
    super::AuditRecord {
        ts_ms: now_ms,
        session: String::new(),
        scope: String::new(),
        spec: String::new(),
        kind: super::AuditKind::Grant,
        runtime: by.to_string(),
        phase: "approve".to_string(),
        tool: None,
        target: Some(g.id.clone()),
        tier: None,
        decision: Some("approved".to_string()),
        detail: serde_json::json!({ "grant": g.id, "action": g.action_hash, "summary": g.summary }),
        latency_us: None,
        role: None,
    }
}

impl Store {
    /// All grants, newest first; with `live_only`, only pending or approved ones at `now_ms`.
    pub fn grants(&self, now_ms: i64, live_only: bool) -> Result<Vec<GrantRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("{SELECT_GRANT} ORDER BY created DESC, id"))?;
        let rows = stmt.query_map([], grant_from_sql)?;
        let mut out = Vec::new();
        for row in rows {
            let row = row?;
            if !live_only
                || matches!(
                    row.status(now_ms),
                    GrantStatus::Pending | GrantStatus::Approved
                )
            {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// `gate approve <id>` in its own transaction.
    pub fn approve_grant(&mut self, id: &str, now_ms: i64) -> Result<ApproveOutcome, StoreError> {
        self.transaction(|t| t.approve_grant(id, now_ms, "user"))
    }

    /// Approved grants whose approval is not a verifying row of the audit chain (set by
    /// hand, or the row was edited): `gate audit verify` reports them.
    pub fn unchained_grants(&self) -> Result<Vec<String>, StoreError> {
        let Some(key) = self.key else {
            return Err(StoreError::KeyMissing);
        };
        let mut stmt = self.conn.prepare(
            "SELECT id, action_hash FROM grants WHERE approved_at IS NOT NULL ORDER BY id",
        )?;
        let rows: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for (id, action) in rows {
            if !super::audit::approval_row_verifies(&self.conn, &key, &id, &action)? {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// Revocation in its own transaction.
    pub fn revoke_grant(&mut self, id: &str) -> Result<bool, StoreError> {
        self.transaction(|t| t.revoke_grant(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both lookups by action read only its unexpired grants: a range of `grants_live` on
    /// both columns, never the action's whole history (nor the table).
    #[test]
    fn lookups_by_action_skip_expired_grants() {
        let store = Store::open_in_memory().unwrap();
        for sql in [PENDING_GRANTS, UNUSED_GRANTS] {
            let plan: Vec<String> = store
                .conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map(params!["a", 0], |r| r.get(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(
                plan,
                ["SEARCH grants USING INDEX grants_live (action_hash=? AND expires>?)"],
                "{sql}"
            );
        }
    }
}
