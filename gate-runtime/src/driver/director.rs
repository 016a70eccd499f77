//! A director approving a worker's ask (seed 004 L15). When the spec has a role named
//! `director` and a session's main agent runs as it, that agent may approve an ask that
//! *another* identity of the same session (a worker subagent) raised: it runs
//! `gate approve ID` through its own shell tool, and the hook, which sees the call, records
//! the approval as a chained audit row (`by` = `director:<session>`) and denies the command
//! itself (the CLI refuses inside an agent anyway). Nobody approves their own ask, an
//! approval of a grant from another session or of no ask at all is refused, and the worker's
//! ask tells it that the director may approve.
//!
//! Why the hook may trust this: the identity comes from the runtime's payload (a subagent's
//! calls carry its `agent_id`; the main agent's do not), and the role from the hook's command
//! line, environment or configuration, which gate's self-protection keeps out of the agent's
//! reach. The approval is honoured only as an HMAC-chained row, and the agent cannot read the
//! key.

use crate::effects::Act;
use crate::engine::{Engine, Outcome};
use crate::event::Event;
use crate::store::{ApproveOutcome, StoreError, Txn};
use gate_spec::ir::{Phase, RoleId};

/// The role that may approve a worker's ask.
pub const DIRECTOR: &str = "director";

/// Whether `role` is the spec's director and the event comes from the session's main agent.
pub(super) fn is_director(engine: &Engine<'_>, role: Option<RoleId>, event: &Event) -> bool {
    event.agent_id.is_none()
        && event.session_id.is_some()
        && event.phase == Some(Phase::PreTool)
        && role.is_some_and(|r| {
            engine
                .spec
                .roles
                .get(r as usize)
                .is_some_and(|r| *r.name == *DIRECTOR)
        })
}

/// The grant ids the event's command approves (`gate approve ID…`, through any wrapper or
/// shell): the targets of its `approve` effects, as the command model read them.
pub(super) fn approvals_named(outcome: &Outcome) -> Vec<String> {
    let mut ids: Vec<String> = outcome
        .classification
        .effects
        .iter()
        .filter(|e| e.act == Act::Approve && !e.target.is_empty())
        .map(|e| e.target.clone())
        .collect();
    ids.truncate(16);
    ids
}

/// Approve each of `ids` that a different identity of this session asked for; returns the
/// ones approved now.
pub(super) fn approve_for_workers(
    tx: &mut Txn<'_>,
    scope: &str,
    event: &Event,
    ids: &[String],
    now_ms: i64,
) -> Result<Vec<String>, StoreError> {
    let Some(session) = event.session_id.as_deref() else {
        return Ok(Vec::new());
    };
    let by = format!("{DIRECTOR}:{session}");
    let mut approved = Vec::new();
    for id in ids {
        let other = tx
            .asked_by(session, id)?
            .is_some_and(|asker| asker != scope);
        if other && tx.approve_grant(id, now_ms, &by)? == ApproveOutcome::Approved {
            approved.push(id.clone());
        }
    }
    Ok(approved)
}

/// The answer to the director's `gate approve` once the hook has recorded the approvals.
pub(super) fn approved_reason(ids: &[String]) -> String {
    format!(
        "gate: approved {} for the worker that asked (recorded in the audit as the director's); \
         this command itself does not run. The worker may now retry its action once.",
        ids.join(", ")
    )
}

/// What a worker's ask adds when the session's main agent is the director.
pub(super) fn ask_suffix(grant_id: &str) -> String {
    format!(
        " The director (this session's main agent) may approve it instead: it runs \
         `gate approve {grant_id}` through its own shell tool."
    )
}
