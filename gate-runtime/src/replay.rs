//! Replay: run a recorded stream of events through a policy and summarise what it would have
//! answered (for promoting observe → steer → gate with evidence) — in memory, touching no
//! user state ([`Replayer`]), or through a database exactly as the hooks would have written
//! it, one transaction per batch of events ([`StoreReplayer`]).

use crate::driver::{beside, scope_key, write_scope_key, Pipeline};
use crate::engine::{Context, Engine, Outcome, ScopeState};
use crate::event::Event;
use crate::observer::Baselines;
use crate::store::{Store, StoreError};
use crate::verdict::Verdict;
use gate_spec::ir::StateId;
use serde::Serialize;
use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// Counts per tier.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TierCounts {
    pub actions: u64,
    pub allow: u64,
    pub steer: u64,
    pub ask: u64,
    pub deny: u64,
    /// Blocks that the tier's observe mode turned into silence (would have blocked).
    pub observe_would_block: u64,
    /// Steers that observe mode suppressed.
    pub observe_would_steer: u64,
}

/// What a replay saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub spec: String,
    pub events: u64,
    pub scopes: u64,
    /// Verdicts on every event, by name.
    pub verdicts: BTreeMap<String, u64>,
    /// Per tier (pre-tool actions only), in tier order.
    pub tiers: Vec<(String, TierCounts)>,
    /// Transitions fired by a signal edge.
    pub boundaries: u64,
    /// Signal rising edges, per signal.
    pub signal_edges: BTreeMap<String, u64>,
    pub windows_armed: u64,
    pub windows_closed: u64,
    /// Windows closed by their backstop.
    pub backstops: u64,
    pub checkpoints: u64,
}

/// Adds one to `map[key]`, allocating the key only the first time it is seen.
fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_string(), 1);
        }
    }
}

impl Summary {
    /// An empty summary of `engine`'s spec.
    pub fn new(engine: &Engine<'_>) -> Summary {
        let spec = engine.spec;
        Summary {
            spec: spec.name.to_string(),
            tiers: spec
                .tiers
                .iter()
                .map(|t| (t.name.to_string(), TierCounts::default()))
                .collect(),
            ..Summary::default()
        }
    }

    /// Count one evaluated event.
    pub fn record(&mut self, engine: &Engine<'_>, event: &Event, outcome: &Outcome) {
        let spec = engine.spec;
        self.events += 1;
        bump(&mut self.verdicts, outcome.decision.verdict.name());
        if event.phase == Some(gate_spec::ir::Phase::PreTool) {
            let t = &mut self.tiers[outcome.classification.tier as usize].1;
            t.actions += 1;
            match &outcome.decision.verdict {
                Verdict::Allow => t.allow += 1,
                Verdict::Steer { .. } => t.steer += 1,
                Verdict::Ask { .. } => t.ask += 1,
                Verdict::Deny { .. } => t.deny += 1,
            }
            if outcome.decision.verdict == Verdict::Allow {
                match outcome.proposed {
                    Verdict::Ask { .. } | Verdict::Deny { .. } => t.observe_would_block += 1,
                    Verdict::Steer { .. } => t.observe_would_steer += 1,
                    Verdict::Allow => {}
                }
            }
        }
        for &f in &outcome.fired {
            if matches!(
                spec.transitions[f as usize].trigger,
                gate_spec::ir::Trigger::Signal(_)
                    | gate_spec::ir::Trigger::Clear(_)
                    | gate_spec::ir::Trigger::While(_)
            ) {
                self.boundaries += 1;
            }
        }
        for sig in &outcome.rising {
            bump(&mut self.signal_edges, &spec.signals[*sig as usize].name);
        }
        self.windows_armed += u64::from(outcome.armed);
        if let Some(w) = &outcome.closed {
            self.windows_closed += 1;
            if w.closed_by == crate::engine::ClosedBy::Backstop {
                self.backstops += 1;
            }
        }
        self.checkpoints += outcome
            .notes
            .iter()
            .filter(|n| n.kind == "checkpoint")
            .count() as u64;
    }
}

/// The hasher of the maps a replay looks a scope up in once per event: seeded per process
/// (a crafted file cannot pick colliding keys in advance) and far cheaper than SipHash.
type ScopeHasher = foldhash::fast::RandomState;

/// A replay in progress: one state per scope, kept in memory.
pub struct Replayer<'s> {
    engine: &'s Engine<'s>,
    /// Keyed by scope; hashed once per event, so with foldhash rather than SipHash.
    states: HashMap<String, ScopeState, ScopeHasher>,
    baselines: Baselines,
    pub summary: Summary,
    grants: u64,
    /// The current event's scope key (reused, so a known scope costs no allocation).
    key: String,
    /// The latest event's outcome; each event's is written over it, so that its vectors and
    /// texts keep their room ([`Engine::evaluate_into`]).
    outcome: Outcome,
    /// The machine state of the latest event's scope before and after the event.
    states_around: (StateId, StateId),
    /// The states of the machines beside the spec's own (`[machine] alongside`), one map per
    /// machine, each keyed by that machine's own scope key.
    alongside: Vec<HashMap<String, ScopeState, ScopeHasher>>,
}

impl std::fmt::Debug for Replayer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replayer")
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

impl<'s> Replayer<'s> {
    pub fn new(engine: &'s Engine<'s>) -> Replayer<'s> {
        Replayer {
            engine,
            states: HashMap::default(),
            baselines: vec![None; engine.spec.kinds.len()],
            summary: Summary::new(engine),
            grants: 0,
            key: String::new(),
            outcome: Outcome::empty(),
            states_around: (0, 0),
            alongside: engine
                .alongside
                .iter()
                .map(|_| HashMap::default())
                .collect(),
        }
    }

    /// The latest event's outcome (what [`Replayer::feed`] returned).
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The machine state of the latest event's scope before the event and after it (equal
    /// when nothing fired): what a per-event listing shows beside the outcome.
    pub fn states_around(&self) -> (StateId, StateId) {
        self.states_around
    }

    /// Feed one event at time `now_ms`; `role` is an explicit role name, if any. The outcome
    /// is lent until the next event is fed.
    pub fn feed(&mut self, event: &Event, now_ms: i64, role_name: Option<&str>) -> &Outcome {
        let engine = self.engine;
        let spec = engine.spec;
        write_scope_key(spec.scope, event, &mut self.key);
        let no_env = |_: &str| None;
        let role = engine.resolve_role(event, &no_env, role_name);
        let grants = &mut self.grants;
        let mut mint = || {
            *grants += 1;
            format!("replay-{grants}")
        };
        let mut cx = Context {
            now_ms,
            role,
            approved: false,
            baselines: &self.baselines,
            grant_id: &mut mint,
        };
        let outcome = &mut self.outcome;
        // One lookup for a known scope; a new one gets its state after its first event.
        match self.states.get_mut(self.key.as_str()) {
            Some(state) => {
                let before = state.machine.state;
                engine.evaluate_into(state, event, &mut cx, outcome);
                self.states_around = (before, state.machine.state);
            }
            None => {
                let mut state = ScopeState::initial(spec, engine.machine);
                let before = state.machine.state;
                engine.evaluate_into(&mut state, event, &mut cx, outcome);
                self.states_around = (before, state.machine.state);
                self.states.insert(self.key.clone(), state);
            }
        }
        if !engine.alongside.is_empty() {
            self.feed_alongside(event, now_ms, role_name);
        }
        let outcome = &self.outcome;
        self.summary.record(engine, event, outcome);
        self.summary.scopes = self.states.len() as u64;
        outcome
    }

    /// The machines beside the spec's own on the latest event, each with its own state and
    /// role, combined into the outcome ([`beside`]). An ask reuses the grant id the event
    /// already has, as the store would hand every machine the same pending grant.
    fn feed_alongside(&mut self, event: &Event, now_ms: i64, role: Option<&str>) {
        let engine = self.engine;
        let no_env = |_: &str| None;
        let (states, grants) = (&mut self.alongside, &mut self.grants);
        let mut minted = self.outcome.grant_id.clone();
        let _ = beside(engine, &mut self.outcome, |i, m| {
            let key = scope_key(m.spec.scope, event);
            let state = states[i - 1]
                .entry(key)
                .or_insert_with(|| ScopeState::initial(m.spec, m.machine));
            let baselines: Baselines = vec![None; m.spec.kinds.len()];
            let mut mint = || {
                minted
                    .get_or_insert_with(|| {
                        *grants += 1;
                        format!("replay-{grants}")
                    })
                    .clone()
            };
            let mut cx = Context {
                now_ms,
                role: m.resolve_role(event, &no_env, role),
                approved: false,
                baselines: &baselines,
                grant_id: &mut mint,
            };
            let o = m.evaluate(state, event, &mut cx);
            Ok::<_, std::convert::Infallible>((o, state.machine.state))
        });
    }
}

/// Events per transaction of a [`StoreReplayer`] unless the caller chooses: short enough that
/// a hook waiting for the lock is not held up noticeably, long enough that the commit and
/// the WAL checkpoint are a small part of the cost.
pub const DEFAULT_BATCH_EVENTS: usize = 4096;

/// A replay through a database: every event has exactly the effect a hook call with the
/// same payload at the same time would have had (state, grants, audit rows, windows; see
/// [`Batch`](crate::driver::Batch)), written in one transaction per batch of events. Events are evaluated as they
/// are fed, on the caller's thread; a writer thread ([`Pipeline`]) holds the transaction and
/// does the store's work, and a batch commits while the next is evaluated.
pub struct StoreReplayer<'s> {
    engine: &'s Engine<'s>,
    pipeline: Pipeline<'s, 's>,
    batch_events: usize,
    /// Events evaluated in the batch in progress, and the scopes they saw first.
    in_batch: u64,
    batch_scopes: Vec<String>,
    /// Batches ended whose commit is not reported yet, oldest first.
    ended: VecDeque<Ended>,
    scopes: HashSet<String, ScopeHasher>,
    key: String,
    /// Every event evaluated (the batch in progress and the ended ones included).
    evaluated: Summary,
    /// The events committed.
    summary: Summary,
    stored: u64,
    transactions: u64,
}

/// A batch sent for commit.
struct Ended {
    events: u64,
    /// The summary once it is stored.
    summary: Summary,
    /// The scopes first seen in it.
    new_scopes: Vec<String>,
}

impl std::fmt::Debug for StoreReplayer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreReplayer")
            .field("pipeline", &self.pipeline)
            .field("stored", &self.stored)
            .field("in_batch", &self.in_batch)
            .finish_non_exhaustive()
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

impl<'s> StoreReplayer<'s> {
    /// Replay into `store`, `batch_events` events per transaction (at least one). Roles are
    /// resolved as the in-memory replay does ([`Replayer::feed`]): from the event, then the
    /// explicit `role` name; no environment. Fails when the writer thread cannot be started.
    pub fn new(
        engine: &'s Engine<'s>,
        mut store: Store,
        batch_events: usize,
        role: Option<&'s str>,
    ) -> Result<StoreReplayer<'s>, StoreError> {
        // Best effort: a smaller cache only costs speed.
        let _ = store.set_cache_for_bulk_writes();
        Ok(StoreReplayer {
            engine,
            pipeline: Pipeline::new(engine, role, &no_env, store)?,
            batch_events: batch_events.max(1),
            in_batch: 0,
            batch_scopes: Vec::new(),
            ended: VecDeque::new(),
            scopes: HashSet::default(),
            key: String::new(),
            evaluated: Summary::new(engine),
            summary: Summary::new(engine),
            stored: 0,
            transactions: 0,
        })
    }

    /// Evaluate one event at `now_ms` in the batch in progress; a full batch is sent for
    /// commit. An error (this batch's, or an earlier one's commit) loses every event not
    /// committed yet: none of them is written or counted.
    ///
    /// The event is only read: a caller that allocated it on another thread can free it
    /// there (each free of another thread's allocation takes that thread's arena lock).
    pub fn feed(&mut self, event: impl Borrow<Event>, now_ms: i64) -> Result<(), StoreError> {
        let event = event.borrow();
        let outcome = match self.pipeline.evaluate(event, now_ms) {
            Ok(outcome) => outcome,
            Err(e) => return Err(self.fail(e)),
        };
        let engine = self.engine;
        self.evaluated.record(engine, event, &outcome);
        write_scope_key(engine.spec.scope, event, &mut self.key);
        if !self.scopes.contains(self.key.as_str()) {
            self.scopes.insert(self.key.clone());
            self.batch_scopes.push(self.key.clone());
        }
        self.in_batch += 1;
        if self.in_batch >= self.batch_events as u64 {
            self.end_batch()?;
        }
        Ok(())
    }

    /// Sends the batch in progress for commit; waits for the one before it, so at most one
    /// commit is outstanding while the next batch is evaluated.
    fn end_batch(&mut self) -> Result<(), StoreError> {
        if self.in_batch > 0 {
            if let Err(e) = self.pipeline.end_batch() {
                return Err(self.fail(e));
            }
            self.evaluated.scopes = self.scopes.len() as u64;
            self.ended.push_back(Ended {
                events: std::mem::take(&mut self.in_batch),
                summary: self.evaluated.clone(),
                new_scopes: std::mem::take(&mut self.batch_scopes),
            });
        }
        while self.ended.len() > 1 {
            self.settle()?;
        }
        Ok(())
    }

    /// Waits for the oldest ended batch's commit.
    fn settle(&mut self) -> Result<(), StoreError> {
        match self.pipeline.next_commit() {
            Ok(()) => {
                self.committed_one();
                Ok(())
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    fn committed_one(&mut self) {
        if let Some(batch) = self.ended.pop_front() {
            self.stored += batch.events;
            self.transactions += 1;
            self.summary = batch.summary;
        }
    }

    /// After `error`: the batches ended before it that commit still count, the rest (and
    /// the batch in progress) are lost. Returns the error that ended the first lost batch
    /// (the writer's, when the evaluation failed because the transaction had).
    fn fail(&mut self, error: StoreError) -> StoreError {
        let mut error = error;
        let mut lost = false;
        for outcome in self.pipeline.reset() {
            match outcome {
                Ok(()) if !lost => self.committed_one(),
                Ok(()) => {}
                Err(e) => {
                    if !lost {
                        error = e;
                    }
                    lost = true;
                }
            }
        }
        for batch in self.ended.drain(..) {
            for k in &batch.new_scopes {
                self.scopes.remove(k);
            }
        }
        for k in self.batch_scopes.drain(..) {
            self.scopes.remove(&k);
        }
        self.in_batch = 0;
        self.evaluated = self.summary.clone();
        error
    }

    /// Commit what is evaluated and wait until it is stored.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        self.end_batch()?;
        while !self.ended.is_empty() {
            self.settle()?;
        }
        Ok(())
    }

    /// Commit what is queued and return the summary of everything stored.
    pub fn finish(mut self) -> Result<Summary, StoreError> {
        self.flush()?;
        Ok(self.summary.clone())
    }

    /// Stops the writer and returns the store: what is committed stays, a batch not flushed
    /// is rolled back. The replayer keeps its counts; feeding it afterwards fails.
    pub fn close(&mut self) -> Result<Store, StoreError> {
        self.pipeline.stop()
    }

    /// What was stored so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Events written so far (events of batches not committed yet are not).
    pub fn stored(&self) -> u64 {
        self.stored
    }

    /// Transactions committed so far.
    pub fn transactions(&self) -> u64 {
        self.transactions
    }
}
