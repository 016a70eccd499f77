//! The fail-open driver: one event through the engine with the store around it.
//!
//! `run` loads the scope's state, consumes a grant for this exact action, evaluates, and
//! writes state, audit rows, pending grants and closed windows in one `BEGIN IMMEDIATE`
//! transaction, so parallel hooks of one session serialize and never lose an update.
//!
//! Degraded behaviour (R12). When the store cannot be used — missing or read-only directory,
//! a lock held past the busy timeout, a corrupt or future-version database, a missing or
//! unreadable key, a full disk — the event is evaluated from a fresh in-memory state, the
//! fault is recorded in `faults.jsonl` beside the database (best effort), and the answer is
//! degraded: nothing is said (no steer, no ask, no deny) unless the action's tier opted into
//! `fail = "closed"`, in which case a block that the classification produced is kept.
//! State written under another spec hash is not a fault: the scope is reset and the audit
//! gets a `reset` row.

use crate::engine::{ClosedBy, Context, Engine, Note, Outcome, ScopeState};
use crate::event::Event;
use crate::observer::Baselines;
use crate::store::{
    self, AuditKind, AuditRecord, NewGrant, Store, StoreError, StoredState, Txn, WindowRow,
};
use crate::verdict::{Decision, Verdict};
use gate_spec::ir::{FailPolicy, Phase, Scope};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a pending grant stays approvable and an approved one usable.
pub const GRANT_TTL_MS: i64 = 15 * 60 * 1000;
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
}

/// What one run produced.
#[derive(Debug)]
pub struct RunResult {
    pub decision: Decision,
    pub outcome: Outcome,
    /// Infrastructure faults met on the way (each also recorded where possible).
    pub faults: Vec<String>,
    pub degraded: bool,
}

/// How long a hook waits for its turn behind other gate processes before trying anyway.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Wait (bounded) for the writer lock file beside the database. `None` when the lock file
/// cannot be used or the wait ran out: the SQLite lock and its busy timeout still protect
/// the data, so this only decides who goes first.
fn writer_turn(db: &Path, wait: Duration) -> Option<std::fs::File> {
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

/// The key a scope's state is stored under.
pub fn scope_key(scope: Scope, event: &Event) -> String {
    let session = event.session_id.as_deref().unwrap_or("no-session");
    match scope {
        Scope::Session => session.to_string(),
        Scope::SessionAgent => format!("{session}:{}", event.agent_id.as_deref().unwrap_or("main")),
        Scope::Repo => event.cwd.clone().unwrap_or_else(|| "no-cwd".to_string()),
    }
}

/// The hash a grant is bound to: the exact tool, target and directory.
pub fn action_hash(event: &Event) -> String {
    let text = format!(
        "{}\n{}\n{}",
        event.tool.as_deref().unwrap_or(""),
        event.target.as_deref().unwrap_or(""),
        event.cwd.as_deref().unwrap_or("")
    );
    gate_spec::hash::sha256_hex(text.as_bytes())
}

fn audit_kind(note: &Note) -> AuditKind {
    match note.kind {
        "signal" | "checkpoint" => AuditKind::Signal,
        // A `record:<label>` effect belongs to the transition that carried it; `event` rows
        // are exactly one per hook call.
        "transition" | "record" => AuditKind::Transition,
        "boundary" => AuditKind::Boundary,
        "arm" => AuditKind::Arm,
        "close" => AuditKind::Close,
        "expiry" => AuditKind::Expiry,
        "observe" => AuditKind::Skip,
        "steer" | "carry" => AuditKind::Steer,
        "ask" => AuditKind::Ask,
        "deny" => AuditKind::Deny,
        "grant" => AuditKind::Grant,
        "disabled" => AuditKind::Disabled,
        "reset" => AuditKind::Reset,
        "fault" => AuditKind::Fault,
        _ => AuditKind::Transition,
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
    let attempt = path.as_ref().map_err(clone_err).and_then(|p| {
        // Queue behind other gate processes on a plain file lock first: SQLite's busy
        // handler backs off by sleeping and lets a waiter starve behind a stream of newcomers,
        // while a lock poll keeps every hook of a busy session inside its deadline.
        let _turn = writer_turn(p, LOCK_WAIT);
        let mut store = Store::open_with_timeout(p, opts.busy_timeout)?;
        store.transaction(|tx| evaluate_in(engine, tx, event, role, opts, started))
    });
    match attempt {
        Ok(outcome) => RunResult {
            decision: outcome.decision.clone(),
            outcome,
            faults,
            degraded: false,
        },
        Err(e) => {
            let fault = e.to_string();
            faults.push(fault.clone());
            // Evaluate from a fresh in-memory state: the classification still runs, so a
            // fail-closed tier keeps its block; everything else degrades to silence.
            let mut state = ScopeState::initial(spec, engine.machine);
            let outcome =
                evaluate_detached(engine, &mut state, event, role, opts.now_ms, "unavailable");
            let decision = degrade(spec, &outcome);
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
                });
                let at: PathBuf = path.unwrap_or_else(|_| PathBuf::from("."));
                store::fallback_log(&at, &line);
            }
            RunResult {
                decision,
                outcome,
                faults,
                degraded: true,
            }
        }
    }
}

/// Evaluate without writing anything (`gate explain`): the scope's stored state is read when
/// the database can be opened read-only, else the evaluation starts from a fresh state.
fn dry_run(
    engine: &Engine<'_>,
    event: &Event,
    role: Option<u8>,
    opts: &Options<'_>,
    path: Option<PathBuf>,
) -> RunResult {
    let spec = engine.spec;
    let scope = scope_key(spec.scope, event);
    let mut faults = Vec::new();
    let stored = path
        .as_deref()
        .filter(|p| p.exists())
        .map(|p| Store::open_read_only(p).and_then(|s| s.read_state(&scope, &spec.name)));
    let mut state = match stored {
        Some(Ok(Some(st))) if st.spec_hash == spec.hash => serde_json::from_slice(&st.blob)
            .unwrap_or_else(|_| ScopeState::initial(spec, engine.machine)),
        Some(Err(e)) => {
            faults.push(e.to_string());
            ScopeState::initial(spec, engine.machine)
        }
        _ => ScopeState::initial(spec, engine.machine),
    };
    let outcome = evaluate_detached(engine, &mut state, event, role, opts.now_ms, "(explain)");
    RunResult {
        decision: outcome.decision.clone(),
        outcome,
        faults,
        degraded: false,
    }
}

/// Evaluate with no store behind: no grant can be consumed or recorded (asks show
/// `grant_placeholder` as their id) and no learned baseline applies.
fn evaluate_detached(
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

fn clone_err(e: &StoreError) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

/// The answer under a fault: silence, except a fail-closed tier's block.
pub fn degrade(spec: &gate_spec::ir::Spec, outcome: &Outcome) -> Decision {
    let tier = &spec.tiers[outcome.classification.tier as usize];
    match &outcome.decision.verdict {
        Verdict::Deny { .. } | Verdict::Ask { .. } if tier.fail == FailPolicy::Closed => Decision {
            verdict: match &outcome.decision.verdict {
                // An ask cannot be approved without the store: keep it as a deny.
                Verdict::Ask { reason, .. } => Verdict::Deny {
                    reason: reason.clone(),
                },
                v => v.clone(),
            },
            carried: None,
        },
        _ => Decision::allow(),
    }
}

fn evaluate_in(
    engine: &Engine<'_>,
    tx: &mut Txn<'_>,
    event: &Event,
    role: Option<u8>,
    opts: &Options<'_>,
    started: Instant,
) -> Result<Outcome, StoreError> {
    let spec = engine.spec;
    let scope = scope_key(spec.scope, event);
    let mut notes_before: Vec<Note> = Vec::new();
    let mut state = match tx.load_state(&scope, &spec.name)? {
        Some(stored) if stored.spec_hash == spec.hash => {
            match serde_json::from_slice::<ScopeState>(&stored.blob) {
                Ok(s) => s,
                Err(e) => {
                    notes_before.push(Note {
                        kind: "reset",
                        detail: json!({"why": format!("stored state unreadable: {e}")}),
                    });
                    ScopeState::initial(spec, engine.machine)
                }
            }
        }
        Some(stored) => {
            notes_before.push(Note {
                kind: "reset",
                detail: json!({"why": "state written under another spec version", "old_hash": stored.spec_hash, "new_hash": spec.hash}),
            });
            ScopeState::initial(spec, engine.machine)
        }
        None => ScopeState::initial(spec, engine.machine),
    };
    let phase = event.phase.unwrap_or(Phase::Other);
    let ahash = action_hash(event);
    let approved = if phase == Phase::PreTool {
        tx.consume_grant(&ahash, opts.now_ms)?.is_some()
    } else {
        false
    };
    let repo = event.cwd.clone().unwrap_or_default();
    let needs_baselines = spec.tiers.iter().any(|t| t.backstop.baseline.is_some());
    let mut baselines: Baselines = vec![None; spec.kinds.len()];
    if needs_baselines {
        for (i, k) in spec.kinds.iter().enumerate() {
            if let Some(b) = tx.baseline(&repo, &k.name)? {
                baselines[i] = Some((b.actions.max(0) as u32, b.secs.max(0) as u32));
            }
        }
    }
    let mut grant_error: Option<StoreError> = None;
    let summary = format!(
        "{}: {}",
        event.tool.as_deref().unwrap_or("?"),
        event.target.as_deref().unwrap_or("")
    );
    let outcome = {
        let tx_ref: &Txn<'_> = tx;
        let mut mint = || match tx_ref.create_grant(&NewGrant {
            action_hash: ahash.clone(),
            summary: summary.clone(),
            created_ms: opts.now_ms,
            expires_ms: opts.now_ms.saturating_add(GRANT_TTL_MS),
        }) {
            Ok(id) => id,
            Err(e) => {
                grant_error = Some(e);
                "unavailable".to_string()
            }
        };
        let mut cx = Context {
            now_ms: opts.now_ms,
            role,
            approved,
            baselines: &baselines,
            grant_id: &mut mint,
        };
        engine.evaluate(&mut state, event, &mut cx)
    };
    if let Some(e) = grant_error {
        return Err(e);
    }
    let tier_name = phase
        .is_tool()
        .then(|| spec.tier_name(outcome.classification.tier).to_string());
    let base = AuditRecord {
        ts_ms: outcome.now_ms,
        session: event.session_id.clone().unwrap_or_default(),
        scope: scope.clone(),
        spec: spec.name.clone(),
        kind: AuditKind::Event,
        runtime: event.runtime.map_or("unknown", |r| r.as_str()).to_string(),
        phase: phase.as_str().to_string(),
        tool: event.tool.clone(),
        target: event.target.clone(),
        tier: tier_name,
        decision: Some(outcome.decision.verdict.name().to_string()),
        detail: json!({
            "event": event.hook_event,
            "class": outcome.classification.class,
            "kind": spec.kinds[outcome.classification.kind as usize].name,
            "rule": outcome.classification.rule.map(|r| spec.rules[r as usize].name.clone()),
            "mode": outcome.mode,
            "proposed": outcome.proposed.name(),
            "state": spec.state_name(state.machine.state),
            "approved": approved,
        }),
        latency_us: Some(started.elapsed().as_micros().min(i64::MAX as u128) as i64),
    };
    tx.append_audit(&base)?;
    for note in notes_before.iter().chain(&outcome.notes) {
        let rec = AuditRecord {
            kind: audit_kind(note),
            detail: json!({"note": note.kind, "detail": note.detail}),
            latency_us: None,
            ..base.clone()
        };
        tx.append_audit(&rec)?;
    }
    if let Some(w) = &outcome.closed {
        tx.record_window(&WindowRow {
            repo,
            kind: w.kind.clone(),
            session: event.session_id.clone().unwrap_or_default(),
            actions: i64::from(w.actions),
            secs: w.secs.min(i64::MAX as u64) as i64,
            closed_by: match w.closed_by {
                ClosedBy::Boundary => store::ClosedBy::Boundary,
                ClosedBy::Backstop => store::ClosedBy::Backstop,
                ClosedBy::SessionEnd => store::ClosedBy::SessionEnd,
            },
            contaminated: !notes_before.is_empty(),
            closed_ms: outcome.now_ms,
        })?;
    }
    let blob = serde_json::to_vec(&state).map_err(|e| StoreError::Encode(e.to_string()))?;
    tx.save_state(
        &scope,
        &spec.name,
        &StoredState {
            spec_hash: spec.hash.clone(),
            blob,
            updated_ms: outcome.now_ms,
        },
    )?;
    Ok(outcome)
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
