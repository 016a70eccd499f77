//! The hook path: one event, one process, one transaction ([`run`]). It waits for its turn
//! behind other gate processes, opens the store, evaluates the event with the state loaded
//! and saved around it ([`PerEvent`]) and grants asked of the store ([`InStore`]), and
//! commits. When the store cannot be used it fails open: the event is evaluated from a fresh
//! in-memory state, the fault is recorded beside the database, and the answer [`degrade`]s
//! to what the rules alone decide: blocks that need no state stand, the rest is silence.

use super::*;
use crate::engine::{ClosedBy, Context, Engine, Note, Outcome, ScopeState};
use crate::event::Event;
use crate::observer::Baselines;
use crate::store::{self, AuditEntry, AuditKind, AuditRecord, NewGrant, Store, StoreError, Txn};
use crate::verdict::{Decision, Verdict};
use gate_spec::ir::{FailPolicy, Phase, TierId};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a hook waits for another writer before degrading (well inside every runtime's
/// hook timeout).
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(1500);

/// What the caller decides for one run.
pub struct Options<'a> {
    /// The database; `None` uses `Store::default_path()`.
    pub db_path: Option<PathBuf>,
    /// An explicit role name (flag, `GATE_ROLE`, config).
    pub role: Option<&'a str>,
    /// Environment lookup (roles may be recognised by `NAME=VALUE`).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub now_ms: i64,
    /// Write state and audit (false for `gate explain`).
    pub persist: bool,
    pub busy_timeout: Duration,
    /// Do not truncate a grown WAL in line; report it in [`RunResult::checkpoint_due`]
    /// instead (the hook hands it to a detached process, see [`checkpoint`]).
    pub defer_checkpoint: bool,
    /// The process exits as soon as this run returns (the hook): the database connection is
    /// left for the exit to close. Closing frees the parsed schema, the statement cache and
    /// the page cache (≈ 58 k instructions) that exiting frees anyway; a committed
    /// transaction needs nothing from it (closing runs no checkpoint, see
    /// [`Store::leave_open_until_exit`]), and the kernel releases the file locks.
    pub exits_after: bool,
    /// Tiers configured to fail closed (`fail_closed` in the configuration): when the store
    /// cannot be used, a pre-tool action of one of them is denied ([`fail_closed`]).
    pub fail_closed: &'a [TierId],
    /// From this many store faults in a row within a session on, a pre-tool action of a tier
    /// whose answer needs the machine's state is denied until the store works again
    /// (`[hook] stateful_fail_closed_after`; 0: never; [`super::faults`]).
    pub stateful_fail_closed_after: u32,
}

/// What one run produced.
#[derive(Debug)]
pub struct RunResult {
    pub decision: Decision,
    pub outcome: Outcome,
    /// Infrastructure faults met on the way (each also recorded where possible).
    pub faults: Vec<String>,
    pub degraded: bool,
    /// The database whose WAL should be checkpointed ([`Options::defer_checkpoint`]).
    pub checkpoint_due: Option<PathBuf>,
    /// The database whose baselines should be learned again: this event stored a clean window
    /// and [`CALIBRATE_EVERY`] of them have closed since the last calibration (the hook starts
    /// `gate calibrate` detached; never on a degraded run or a spec without baselines).
    pub calibration_due: Option<PathBuf>,
}

/// Clean windows that make a background calibration due.
pub const CALIBRATE_EVERY: usize = 10;

/// How long a hook waits for its turn behind other gate processes before trying anyway.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Wait (bounded) for the writer lock file beside the database. `None` when the lock file
/// cannot be used or the wait ran out: the SQLite lock and its busy timeout still protect
/// the data, so this only decides who goes first.
pub(super) fn writer_turn(db: &Path, wait: Duration) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut name = db.as_os_str().to_os_string();
    name.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(PathBuf::from(name))
        .ok()?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Some(file),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                std::thread::sleep(Duration::from_micros(500));
            }
            Err(_) => return None,
        }
    }
}

/// Run one event. Never panics on bad state; never blocks because of a fault.
pub fn run(engine: &Engine<'_>, event: &Event, opts: &Options<'_>) -> RunResult {
    let started = Instant::now();
    let spec = engine.spec;
    let role = engine.resolve_role(event, opts.env, opts.role);
    let path = match &opts.db_path {
        Some(p) => Ok(p.clone()),
        None => Store::default_path(),
    };
    let mut faults = Vec::new();
    if !opts.persist {
        return dry_run(engine, event, role, opts, path.ok());
    }
    // The session's store faults in a row, kept beside the database (one `stat`).
    let count = path
        .as_ref()
        .ok()
        .map(|p| super::faults::FaultCount::of(p, event.session_id.as_deref()));
    let prior = count.as_ref().map_or(0, |c| c.read());
    let attempt = path.as_ref().map_err(clone_err).and_then(|p| {
        // Queue behind other gate processes on a plain file lock first: SQLite's busy
        // handler backs off by sleeping and lets a waiter starve behind a stream of newcomers,
        // while a lock poll keeps every hook of a busy session inside its deadline.
        let _turn = writer_turn(p, LOCK_WAIT);
        let mut store = Store::open_with_timeout(p, opts.busy_timeout)?;
        if opts.defer_checkpoint {
            store.defer_checkpoints();
        }
        let outcome = store.transaction(|tx| {
            let mut outcome = evaluate_in(
                engine,
                tx,
                &mut PerEvent::default(),
                &mut InStore,
                event,
                At {
                    role,
                    now_ms: opts.now_ms,
                    started,
                    env: opts.env,
                    explicit_role: opts.role,
                },
            )?;
            // The store works again after faults: say so in the audit, once.
            if prior > 0 {
                tx.append_audit(&AuditRecord {
                    ts_ms: opts.now_ms,
                    session: event.session_id.clone().unwrap_or_default(),
                    scope: scope_key(spec.scope, event),
                    spec: spec.name.to_string(),
                    kind: AuditKind::Fault,
                    runtime: event.runtime.map_or("unknown", |r| r.as_str()).to_string(),
                    phase: event.phase.unwrap_or(Phase::Other).as_str().to_string(),
                    tool: None,
                    target: None,
                    tier: None,
                    decision: None,
                    detail: json!({
                        "store_returned": true,
                        "faults_in_a_row": prior,
                        "stateful_fail_closed_after": opts.stateful_fail_closed_after,
                        "stateful_failed_closed": opts.stateful_fail_closed_after > 0
                            && prior >= u64::from(opts.stateful_fail_closed_after),
                    }),
                    latency_us: None,
                    role: None,
                })?;
            }
            // A director approving a worker's ask: recorded here, by the hook that saw it.
            if director::is_director(engine, role, event) {
                let ids = director::approvals_named(&outcome);
                if !ids.is_empty() {
                    let scope = scope_key(spec.scope, event);
                    let done = director::approve_for_workers(tx, &scope, event, &ids, opts.now_ms)?;
                    if !done.is_empty() {
                        outcome.decision.verdict = Verdict::Deny {
                            reason: director::approved_reason(&done),
                        };
                    }
                }
            }
            Ok(outcome)
        })?;
        let mut outcome = outcome;
        // A worker's ask in a session whose main agent is the director says it may approve.
        if let (Verdict::Ask { reason, grant_id }, Some(_)) =
            (&mut outcome.decision.verdict, &event.agent_id)
        {
            let main = Event {
                agent_id: None,
                agent_type: None,
                ..event.clone()
            };
            let main_role = engine.resolve_role(&main, opts.env, opts.role);
            if director::is_director(engine, main_role, &main) && main_role != role {
                reason.push_str(&director::ask_suffix(grant_id));
            }
        }
        let due = store.checkpoint_due().then(|| p.clone());
        // Only when this event stored a clean window: a rowid range read, rarely.
        let learn = needs_baselines(spec)
            && outcome
                .closed
                .as_ref()
                .is_some_and(|w| w.closed_by == ClosedBy::Boundary)
            && store.calibration_due(CALIBRATE_EVERY).unwrap_or(false);
        if opts.exits_after {
            store.leave_open_until_exit();
        }
        Ok((outcome, due, learn.then(|| p.clone())))
    });
    match attempt {
        Ok((outcome, checkpoint_due, calibration_due)) => {
            if prior > 0 {
                if let Some(c) = &count {
                    c.clear();
                }
            }
            RunResult {
                decision: outcome.decision.clone(),
                outcome,
                faults,
                degraded: false,
                checkpoint_due,
                calibration_due,
            }
        }
        Err(e) => {
            let fault = e.to_string();
            faults.push(fault.clone());
            // Evaluate from a fresh in-memory state: the classification still runs, so what
            // the rules alone decide keeps its block; everything else degrades to silence.
            // Every machine from its initial state, each degraded by its own tiers' rules
            // before the answers combine: a block that needs no state stands in each.
            let mut outcome = Outcome::empty();
            let detached = Detached {
                role,
                opts,
                grant_placeholder: "unavailable",
            };
            detached.evaluate_all(
                engine,
                event,
                &mut outcome,
                |m| ScopeState::initial(m.spec, m.machine),
                |m, o| o.decision = degrade(m.spec, o),
            );
            let decision = outcome.decision.clone();
            let decision =
                fail_closed(spec, event, &outcome, opts.fail_closed, &fault).unwrap_or(decision);
            // One more fault in a row for the session (none recorded: the worst is assumed).
            let in_a_row = count.as_ref().and_then(|c| c.bump());
            let beside: Vec<(&gate_spec::ir::Spec, Option<u8>)> = engine
                .alongside
                .iter()
                .map(|m| (m.spec, m.resolve_role(event, opts.env, opts.role)))
                .collect();
            let stateful = super::faults::stateful_fail_closed(
                spec,
                &beside,
                event,
                &outcome,
                role,
                in_a_row,
                opts.stateful_fail_closed_after,
            );
            let decision = stateful.unwrap_or(decision);
            {
                let line = json!({
                    "ts_ms": opts.now_ms,
                    "kind": "fault",
                    "fault": fault,
                    "spec": spec.name,
                    "session": event.session_id,
                    "phase": event.phase.map(Phase::as_str),
                    "tool": event.tool,
                    "decision": decision.verdict.name(),
                    "faults_in_a_row": in_a_row,
                });
                let at: PathBuf = path.unwrap_or_else(|_| PathBuf::from("."));
                store::fallback_log(&at, &line);
            }
            RunResult {
                decision,
                outcome,
                faults,
                degraded: true,
                checkpoint_due: None,
                calibration_due: None,
            }
        }
    }
}

/// Evaluate without writing anything (`gate explain`): the scope's stored state is read when
/// the database can be opened read-only, else the evaluation starts from a fresh state.
pub(super) fn dry_run(
    engine: &Engine<'_>,
    event: &Event,
    role: Option<u8>,
    opts: &Options<'_>,
    path: Option<PathBuf>,
) -> RunResult {
    let mut faults = Vec::new();
    let store = path
        .as_deref()
        .filter(|p| p.exists())
        .map(Store::open_read_only);
    // Each machine's stored state under its own scope key and spec name.
    let mut start = |m: &Engine<'_>| {
        let spec = m.spec;
        let scope = scope_key(spec.scope, event);
        let stored = store.as_ref().map(|s| {
            s.as_ref()
                .map_err(clone_err)
                .and_then(|s| s.read_state(&scope, &spec.name))
        });
        match stored {
            Some(Ok(Some(st))) if st.spec_hash == spec.hash => serde_json::from_slice(&st.blob)
                .unwrap_or_else(|_| ScopeState::initial(spec, m.machine)),
            Some(Err(e)) => {
                faults.push(e.to_string());
                ScopeState::initial(spec, m.machine)
            }
            _ => ScopeState::initial(spec, m.machine),
        }
    };
    let mut outcome = Outcome::empty();
    let detached = Detached {
        role,
        opts,
        grant_placeholder: "(explain)",
    };
    detached.evaluate_all(engine, event, &mut outcome, &mut start, |_, _| {});
    faults.dedup();
    RunResult {
        decision: outcome.decision.clone(),
        outcome,
        faults,
        degraded: false,
        checkpoint_due: None,
        calibration_due: None,
    }
}

/// How every machine of an event is evaluated with no store behind ([`evaluate_detached`]).
pub(super) struct Detached<'o, 'a> {
    /// The role of the spec's own machine (each machine beside it resolves its own).
    pub(super) role: Option<u8>,
    pub(super) opts: &'o Options<'a>,
    pub(super) grant_placeholder: &'o str,
}

impl Detached<'_, '_> {
    /// Every machine of `engine` (the spec's own, then each beside it) evaluated into `out`,
    /// each from the state `start` gives it and its outcome passed through `finish` before the
    /// answers combine ([`super::alongside::beside`]).
    pub(super) fn evaluate_all(
        &self,
        engine: &Engine<'_>,
        event: &Event,
        out: &mut Outcome,
        mut start: impl FnMut(&Engine<'_>) -> ScopeState,
        finish: impl Fn(&Engine<'_>, &mut Outcome),
    ) {
        let now_ms = self.opts.now_ms;
        let mut state = start(engine);
        *out = evaluate_detached(
            engine,
            &mut state,
            event,
            self.role,
            now_ms,
            self.grant_placeholder,
        );
        finish(engine, out);
        let _ = super::alongside::beside(engine, out, |_, m| {
            let role = m.resolve_role(event, self.opts.env, self.opts.role);
            let mut state = start(m);
            let mut o =
                evaluate_detached(m, &mut state, event, role, now_ms, self.grant_placeholder);
            finish(m, &mut o);
            Ok::<_, std::convert::Infallible>((o, state.machine.state))
        });
    }
}

/// Evaluate with no store behind: no grant can be consumed or recorded (asks show
/// `grant_placeholder` as their id) and no learned baseline applies.
pub(super) fn evaluate_detached(
    engine: &Engine<'_>,
    state: &mut ScopeState,
    event: &Event,
    role: Option<u8>,
    now_ms: i64,
    grant_placeholder: &str,
) -> Outcome {
    let baselines: Baselines = vec![None; engine.spec.kinds.len()];
    let mut mint = || grant_placeholder.to_string();
    let mut cx = Context {
        now_ms,
        role,
        approved: false,
        baselines: &baselines,
        grant_id: &mut mint,
    };
    engine.evaluate(state, event, &mut cx)
}

pub(super) fn clone_err(e: &StoreError) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

/// The answer under a fault: what the rules alone decide, from a fresh state. A fault never
/// *becomes* a block (steers and everything that needs state fall away, so a benign action
/// meets silence) and never removes one that needs no state: the deny of a forbidden action
/// and the ask of a destructive one stand. An ask cannot be approved without the store, so a
/// fail-closed tier's ask is kept as a deny.
pub fn degrade(spec: &gate_spec::ir::Spec, outcome: &Outcome) -> Decision {
    let tier = &spec.tiers[outcome.classification.tier as usize];
    match &outcome.decision.verdict {
        Verdict::Ask { reason, .. } if tier.fail == FailPolicy::Closed => Decision {
            verdict: Verdict::Deny {
                reason: reason.clone(),
            },
            carried: None,
        },
        v @ (Verdict::Deny { .. } | Verdict::Ask { .. }) => Decision {
            verdict: v.clone(),
            carried: None,
        },
        _ => Decision::allow(),
    }
}

/// The answer under a fault for a tier configured to fail closed: a pre-tool action of such
/// a tier is denied, whatever the rules alone would have said, because gate could not check
/// it against its state nor record it. `None` when the configuration does not apply (another
/// tier, not a pre-tool event, or already a deny).
pub fn fail_closed(
    spec: &gate_spec::ir::Spec,
    event: &Event,
    outcome: &Outcome,
    tiers: &[TierId],
    fault: &str,
) -> Option<Decision> {
    let tier = outcome.classification.tier;
    if event.phase != Some(Phase::PreTool)
        || !tiers.contains(&tier)
        || matches!(outcome.decision.verdict, Verdict::Deny { .. })
    {
        return None;
    }
    Some(Decision {
        verdict: Verdict::Deny {
            reason: format!(
                "gate could not check this {} action: its store failed ({fault}), and {} \
                 actions are configured to fail closed. Retry shortly; if this persists the \
                 user should run `gate doctor`.",
                spec.tier_name(tier),
                spec.tier_name(tier),
            ),
        },
        carried: None,
    })
}

/// One hook call: the state is read and written back within its own transaction.
#[derive(Default)]
pub(super) struct PerEvent {
    pub(super) state: Option<ScopeState>,
    pub(super) baselines: Baselines,
}

impl<'t> Scopes<Txn<'t>> for PerEvent {
    fn load(
        &mut self,
        engine: &Engine<'_>,
        tx: &Txn<'t>,
        scope: &str,
        repo: &str,
        notes: &mut Vec<Note>,
    ) -> Result<(&mut ScopeState, &Baselines), StoreError> {
        let state = load_scope(engine, tx, scope, notes)?;
        self.baselines = load_baselines(engine, tx, repo)?;
        Ok((self.state.insert(state), &self.baselines))
    }

    fn audit(&mut self, tx: &mut Txn<'t>, rows: &[AuditEntry<'_>]) -> Result<(), StoreError> {
        let mut tip = tx.chain_tip()?;
        tx.append_entries(&mut tip, rows)?;
        tx.write_chain_head(&mut tip)
    }

    fn save(
        &mut self,
        engine: &Engine<'_>,
        tx: &Txn<'t>,
        scope: &str,
        updated_ms: i64,
    ) -> Result<(), StoreError> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        tx.save_state(
            scope,
            &engine.spec.name,
            &encode_state(engine, state, updated_ms)?,
        )
    }
}

/// A hook call: every question goes to the store.
pub(super) struct InStore;

impl<'t> Grants<Txn<'t>> for InStore {
    fn consume(
        &mut self,
        tx: &Txn<'t>,
        action_hash: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(tx.consume_grant(action_hash, now_ms)?.is_some())
    }

    fn create(&mut self, tx: &Txn<'t>, grant: &NewGrant) -> Result<String, StoreError> {
        tx.create_grant(grant)
    }
}

/// The database path a run would use (for messages and the fallback log).
pub fn resolve_db(db: Option<&Path>) -> Result<PathBuf, StoreError> {
    match db {
        Some(p) => Ok(p.to_path_buf()),
        None => Store::default_path(),
    }
}

/// Record a fault that happened before the engine could run (bad payload, unknown spec):
/// an audit row when the store opens, else a line in the fallback log. Best effort.
pub fn record_fault(db: Option<&Path>, runtime: crate::event::Runtime, now_ms: i64, fault: &str) {
    let Ok(path) = resolve_db(db) else {
        return;
    };
    let written = Store::open_with_timeout(&path, BUSY_TIMEOUT).and_then(|mut store| {
        store.transaction(|tx| {
            tx.append_audit(&AuditRecord {
                ts_ms: now_ms,
                session: String::new(),
                scope: String::new(),
                spec: String::new(),
                kind: AuditKind::Fault,
                runtime: runtime.as_str().to_string(),
                phase: Phase::Other.as_str().to_string(),
                tool: None,
                target: None,
                tier: None,
                decision: Some("allow".to_string()),
                detail: json!({"fault": fault}),
                latency_us: None,
                role: None,
            })
        })
    });
    if written.is_err() {
        store::fallback_log(
            &path,
            &json!({"ts_ms": now_ms, "kind": "fault", "runtime": runtime.as_str(), "fault": fault}),
        );
    }
}
