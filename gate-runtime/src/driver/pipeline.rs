//! A stored replay on two threads ([`Pipeline`]): the caller's thread evaluates a batch while
//! a writer thread holds the transaction, chains and writes the rows, and commits the batch
//! before. The two talk through a [`Link`] (the evaluating side's [`Db`]); a database built
//! aside, which no other process sees, answers its own questions ([`Private`]).

use super::*;
use crate::engine::{Engine, Note, Outcome, ScopeState};
use crate::event::Event;
use crate::observer::Baselines;
use crate::store::{
    self, AuditEntry, AuditKind, ChainTip, Linked, NewGrant, Store, StoreError, StoredState, Txn,
    WindowRow,
};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

/// The audit rows of one event as the evaluating side of a [`Pipeline`] hands them to its
/// writer: every column but the kind, the detail and the latency shared (as
/// [`evaluate_in`] builds them), the details one text. The writer sends each back when it
/// has appended it, so its strings are reused rather than allocated per event.
#[derive(Default)]
pub(super) struct EventRows {
    pub(super) ts_ms: i64,
    pub(super) session: String,
    pub(super) scope: String,
    pub(super) spec: String,
    pub(super) runtime: String,
    pub(super) phase: String,
    pub(super) tool: Option<String>,
    pub(super) target: Option<String>,
    pub(super) tier: Option<String>,
    pub(super) decision: Option<String>,
    pub(super) role: Option<String>,
    pub(super) details: String,
    /// Each row's kind, the end of its detail in `details` and its latency.
    pub(super) rows: Vec<(AuditKind, usize, Option<i64>)>,
    /// The rows as the evaluating side chained them ([`Private`]), when it did.
    pub(super) linked: Option<Linked>,
}

/// Copies `from` into `to`, reusing `to`'s allocation.
pub(super) fn copy_str(to: &mut String, from: &str) {
    to.clear();
    to.push_str(from);
}

/// Copies `from` into `to`, reusing `to`'s allocation when both are some.
pub(super) fn copy_opt(to: &mut Option<String>, from: Option<&str>) {
    match (to.as_mut(), from) {
        (Some(t), Some(f)) => copy_str(t, f),
        (None, Some(f)) => *to = Some(f.to_string()),
        (_, None) => *to = None,
    }
}

/// Whether two rows share every column [`EventRows`] keeps once.
pub(super) fn same_columns(a: &AuditEntry<'_>, b: &AuditEntry<'_>) -> bool {
    a.ts_ms == b.ts_ms
        && a.session == b.session
        && a.scope == b.scope
        && a.spec == b.spec
        && a.runtime == b.runtime
        && a.phase == b.phase
        && a.tool == b.tool
        && a.target == b.target
        && a.tier == b.tier
        && a.decision == b.decision
        && a.role == b.role
}

impl EventRows {
    /// Fills `self` with `rows`, which all share their columns ([`same_columns`]).
    pub(super) fn fill(&mut self, rows: &[AuditEntry<'_>]) {
        let Some(first) = rows.first() else {
            self.rows.clear();
            return;
        };
        self.ts_ms = first.ts_ms;
        copy_str(&mut self.session, first.session);
        copy_str(&mut self.scope, first.scope);
        copy_str(&mut self.spec, first.spec);
        copy_str(&mut self.runtime, first.runtime);
        copy_str(&mut self.phase, first.phase);
        copy_opt(&mut self.tool, first.tool);
        copy_opt(&mut self.target, first.target);
        copy_opt(&mut self.tier, first.tier);
        copy_opt(&mut self.decision, first.decision);
        copy_opt(&mut self.role, first.role);
        self.details.clear();
        self.rows.clear();
        for row in rows {
            self.details.push_str(row.detail);
            self.rows
                .push((row.kind, self.details.len(), row.latency_us));
        }
    }

    /// The rows, borrowed, as [`evaluate_in`] passed them.
    pub(super) fn entries(&self) -> Vec<AuditEntry<'_>> {
        let mut start = 0;
        self.rows
            .iter()
            .map(|&(kind, end, latency_us)| {
                let detail = &self.details[start..end];
                start = end;
                AuditEntry {
                    ts_ms: self.ts_ms,
                    session: &self.session,
                    scope: &self.scope,
                    spec: &self.spec,
                    kind,
                    runtime: &self.runtime,
                    phase: &self.phase,
                    tool: self.tool.as_deref(),
                    target: self.target.as_deref(),
                    tier: self.tier.as_deref(),
                    decision: self.decision.as_deref(),
                    detail,
                    latency_us,
                    role: self.role.as_deref(),
                }
            })
            .collect()
    }
}

/// A question the evaluating side of a [`Pipeline`] asks inside the writer's transaction.
pub(super) enum Ask {
    State { scope: String, spec: String },
    Baseline { repo: String, kind: String },
    Consume { action_hash: String, now_ms: i64 },
    Create(NewGrant),
    Expiry(String),
}

/// The writer's answer to an [`Ask`].
pub(super) enum Answer {
    State(Option<StoredState>),
    Baseline(Option<store::BaselineRow>),
    Consumed(bool),
    Created(String, i64),
    Expiry(Option<i64>),
}

/// What the evaluating side of a [`Pipeline`] sends its writer, in order. The writer opens a
/// transaction at the first message after a commit (or a reset).
pub(super) enum ToWriter {
    Rows(Box<EventRows>),
    Window(WindowRow),
    /// A grant the evaluating side minted itself ([`Private`]), to be inserted under its id.
    Grant {
        id: String,
        grant: NewGrant,
    },
    Ask(Ask),
    /// The end of the batch: write these states (encoded, each machine's in scope order, as
    /// (spec, scope, state)) and the chain head, and commit.
    Commit {
        states: Vec<(String, String, StoredState)>,
    },
    /// Forget the batch in progress (roll it back) and, after a failure, start listening
    /// again; answered by [`FromWriter::ResetDone`].
    Reset,
}

/// What the writer sends back, in order.
pub(super) enum FromWriter {
    Answer(Answer),
    /// One per batch, in batch order: committed, or the error that ended it. After an error
    /// the writer ignores everything up to the next [`ToWriter::Reset`] (no further answers
    /// or commits for the batches sent meanwhile).
    Committed(Result<(), StoreError>),
    /// A [`ToWriter::Reset`] is done: nothing sent before it is reported after this.
    ResetDone,
}

/// The evaluating side's end of the channels to the writer thread; it is the [`Db`] of the
/// events a [`Pipeline`] evaluates.
pub(super) struct Link {
    pub(super) to: Option<std::sync::mpsc::SyncSender<ToWriter>>,
    pub(super) from: std::sync::mpsc::Receiver<FromWriter>,
    /// Rows the writer has appended, to be filled again.
    pub(super) spent: std::sync::mpsc::Receiver<Box<EventRows>>,
    /// Commit results that arrived while an answer was awaited, oldest first.
    pub(super) acks: std::cell::RefCell<std::collections::VecDeque<Result<(), StoreError>>>,
    /// For a database only this pipeline can see, what it holds: the questions are answered
    /// here, without waiting for the writer. `None` for every other database, and after a
    /// reset (the book would hold what was lost; the writer knows what is stored).
    pub(super) private: std::cell::RefCell<Option<Private>>,
}

/// What a database that only one [`Pipeline`] writes, from empty, holds beyond the states
/// its evaluating side keeps ([`BatchScopes`] is kept across batches then): every grant it
/// created. With that, the evaluating side answers every question itself, as the database
/// would have (the same rules as [`Txn::create_grant`]), and never waits for the writer:
/// each question used to wait until the writer had appended every row before it and, at a
/// batch's start, committed the batch before (on 1 M events, ≈ 6.6 s of waiting in ≈ 12 k
/// questions).
///
/// - A scope it has not evaluated has no state, and there are no baselines (only `gate
///   calibrate` writes them).
/// - No grant is ever approved (only `gate approve` does that), so none is consumed.
/// - A grant is created as [`Txn::create_grant`] does: the newest pending grant of the
///   action when there is one (none is ever approved, used or revoked here, so pending
///   means unexpired), else a new one under the first free derived id. The writer inserts
///   it under that id, and fails the batch if the id is taken.
/// - The audit chain starts empty, so its rows are chained here too; the writer checks that
///   each event's rows continue its own chain before it inserts them.
pub(super) struct Private {
    pub(super) key: [u8; 32],
    /// The audit chain: every row this pipeline appends is chained here, ahead of the
    /// writer, which only inserts it ([`Txn::insert_linked`]). The MACs and the redaction
    /// were a sixth of the writer's time, and the writer is the longest of the three threads.
    pub(super) chain: ChainTip,
    /// Grant ids taken.
    pub(super) ids: HashSet<String>,
    /// Per action: (created, expires, id) of each of its grants.
    pub(super) by_action: HashMap<String, Vec<(i64, i64, String)>>,
}

impl Private {
    pub(super) fn new(key: [u8; 32]) -> Private {
        Private {
            chain: ChainTip::genesis(&key),
            key,
            ids: HashSet::new(),
            by_action: HashMap::new(),
        }
    }

    /// The grant an ask of `g` gets, and whether it is a new one.
    pub(super) fn create(&mut self, g: &NewGrant) -> Result<(String, i64, bool), StoreError> {
        let mut best: Option<(i64, String)> = None;
        let mut best_expires = 0;
        for (created, expires, id) in self.by_action.get(&g.action_hash).into_iter().flatten() {
            if *expires > g.created_ms && store::newer_pending(*created, id, best.as_ref()) {
                best = Some((*created, id.clone()));
                best_expires = *expires;
            }
        }
        if let Some((_, id)) = best {
            return Ok((id, best_expires, false));
        }
        for attempt in 0..store::GRANT_ID_ATTEMPTS {
            let id = store::derived_grant_id(&self.key, g, attempt);
            if self.ids.insert(id.clone()) {
                self.by_action
                    .entry(g.action_hash.clone())
                    .or_default()
                    .push((g.created_ms, g.expires_ms, id.clone()));
                return Ok((id, g.expires_ms, true));
            }
        }
        Err(StoreError::Corrupt(
            "could not allocate a unique grant id".to_string(),
        ))
    }
}

pub(super) fn writer_gone() -> StoreError {
    StoreError::Corrupt("the replay's writer thread stopped".to_string())
}

pub(super) fn batch_failed() -> StoreError {
    StoreError::Corrupt("the batch transaction failed".to_string())
}

impl Link {
    pub(super) fn send(&self, msg: ToWriter) -> Result<(), StoreError> {
        self.to
            .as_ref()
            .ok_or_else(writer_gone)?
            .send(msg)
            .map_err(|_| writer_gone())
    }

    /// The next commit result: one that arrived earlier, else the next from the writer.
    pub(super) fn next_ack(&self) -> Result<(), StoreError> {
        if let Some(ack) = self.acks.borrow_mut().pop_front() {
            return ack;
        }
        loop {
            match self.from.recv() {
                Ok(FromWriter::Committed(ack)) => return ack,
                // Nothing is asked while no answer is awaited, and a reset is waited for.
                Ok(FromWriter::Answer(_) | FromWriter::ResetDone) => continue,
                Err(_) => return Err(writer_gone()),
            }
        }
    }

    /// Asks and waits. A commit result that arrives first is kept for [`Link::next_ack`];
    /// an error there (the writer's transaction failed) fails the question as well.
    pub(super) fn ask(&self, ask: Ask) -> Result<Answer, StoreError> {
        self.send(ToWriter::Ask(ask))?;
        loop {
            match self.from.recv() {
                Ok(FromWriter::Answer(a)) => return Ok(a),
                Ok(FromWriter::ResetDone) => {}
                Ok(FromWriter::Committed(ack)) => {
                    let failed = ack.is_err();
                    self.acks.borrow_mut().push_back(ack);
                    if failed {
                        return Err(batch_failed());
                    }
                }
                Err(_) => return Err(writer_gone()),
            }
        }
    }
}

pub(super) fn unexpected() -> StoreError {
    StoreError::Corrupt("the replay's writer answered another question".to_string())
}

impl Db for Link {
    fn state(&self, scope: &str, spec: &str) -> Result<Option<StoredState>, StoreError> {
        if self.private.borrow().is_some() {
            // Every state this pipeline wrote is still in its `BatchScopes`.
            return Ok(None);
        }
        match self.ask(Ask::State {
            scope: scope.to_string(),
            spec: spec.to_string(),
        })? {
            Answer::State(s) => Ok(s),
            _ => Err(unexpected()),
        }
    }

    fn baseline_of(
        &self,
        repo: &str,
        kind: &str,
    ) -> Result<Option<store::BaselineRow>, StoreError> {
        if self.private.borrow().is_some() {
            return Ok(None);
        }
        match self.ask(Ask::Baseline {
            repo: repo.to_string(),
            kind: kind.to_string(),
        })? {
            Answer::Baseline(b) => Ok(b),
            _ => Err(unexpected()),
        }
    }

    fn consume(&self, action_hash: &str, now_ms: i64) -> Result<bool, StoreError> {
        if self.private.borrow().is_some() {
            return Ok(false);
        }
        match self.ask(Ask::Consume {
            action_hash: action_hash.to_string(),
            now_ms,
        })? {
            Answer::Consumed(used) => Ok(used),
            _ => Err(unexpected()),
        }
    }

    fn create(&self, grant: &NewGrant) -> Result<String, StoreError> {
        self.create_expiring(grant).map(|(id, _)| id)
    }

    fn create_expiring(&self, grant: &NewGrant) -> Result<(String, i64), StoreError> {
        let minted = match self.private.borrow_mut().as_mut() {
            Some(book) => Some(book.create(grant)?),
            None => None,
        };
        if let Some((id, expires, new)) = minted {
            if new {
                self.send(ToWriter::Grant {
                    id: id.clone(),
                    grant: grant.clone(),
                })?;
            }
            return Ok((id, expires));
        }
        match self.ask(Ask::Create(grant.clone()))? {
            Answer::Created(id, expires) => Ok((id, expires)),
            _ => Err(unexpected()),
        }
    }

    fn grant_expiry(&self, id: &str) -> Result<Option<i64>, StoreError> {
        match self.ask(Ask::Expiry(id.to_string()))? {
            Answer::Expiry(e) => Ok(e),
            _ => Err(unexpected()),
        }
    }

    fn window(&self, w: &WindowRow) -> Result<(), StoreError> {
        self.send(ToWriter::Window(w.clone()))
    }
}

impl Scopes<Link> for BatchScopes {
    fn machine(&mut self, index: usize) {
        self.select(index);
    }

    fn load(
        &mut self,
        engine: &Engine<'_>,
        tx: &Link,
        scope: &str,
        repo: &str,
        notes: &mut Vec<Note>,
    ) -> Result<(&mut ScopeState, &Baselines), StoreError> {
        self.load_from(engine, tx, scope, repo, notes)
    }

    fn audit(&mut self, tx: &mut Link, rows: &[AuditEntry<'_>]) -> Result<(), StoreError> {
        for run in rows.chunk_by(|a, b| same_columns(a, b)) {
            let mut msg = tx.spent.try_recv().unwrap_or_default();
            msg.fill(run);
            match tx.private.get_mut().as_mut() {
                Some(book) => book
                    .chain
                    .link_ahead(run, msg.linked.get_or_insert_with(Default::default)),
                None => msg.linked = None,
            }
            tx.send(ToWriter::Rows(msg))?;
        }
        Ok(())
    }

    fn save(
        &mut self,
        _engine: &Engine<'_>,
        _tx: &Link,
        scope: &str,
        updated_ms: i64,
    ) -> Result<(), StoreError> {
        self.saved(scope, updated_ms);
        Ok(())
    }
}

/// The writer's answer to one question inside its transaction.
pub(super) fn answer(tx: &Txn<'_>, ask: Ask) -> Result<Answer, StoreError> {
    Ok(match ask {
        Ask::State { scope, spec } => Answer::State(tx.load_state(&scope, &spec)?),
        Ask::Baseline { repo, kind } => Answer::Baseline(tx.baseline(&repo, &kind)?),
        Ask::Consume {
            action_hash,
            now_ms,
        } => Answer::Consumed(Db::consume(tx, &action_hash, now_ms)?),
        Ask::Create(grant) => {
            let (id, expires) = Db::create_expiring(tx, &grant)?;
            Answer::Created(id, expires)
        }
        Ask::Expiry(id) => Answer::Expiry(Db::grant_expiry(tx, &id)?),
    })
}

/// The writer thread of a [`Pipeline`]: one transaction per batch, holding the writer's
/// turn like [`Batch::commit`]; it appends the rows (redaction of the target, the chain's
/// MACs, the inserts), answers questions in order, and commits. Returns the store when the
/// evaluating side hangs up (a transaction in progress then rolls back).
pub(super) fn write_batches(
    mut store: Store,
    from: std::sync::mpsc::Receiver<ToWriter>,
    to: std::sync::mpsc::SyncSender<FromWriter>,
    spent: std::sync::mpsc::SyncSender<Box<EventRows>>,
) -> Store {
    let path = store.path().map(Path::to_path_buf);
    // A batch writes more than SQLite's automatic checkpoint threshold, so each commit
    // copies the WAL into the database (PASSIVE) and the next batch writes the WAL again
    // from its start, over the same file pages. The WAL is truncated only at the end: a
    // truncation after every commit, as a hook does, dropped those pages and the next batch
    // wrote into fresh ones, which the kernel had to allocate and zero (at 1 M events, page
    // allocation and copying were a fifth of the writer's time).
    store.defer_checkpoints();
    let mut checkpointer = path.as_deref().and_then(Checkpointer::start);
    if checkpointer.is_some() && store.set_auto_checkpoint(false).is_err() {
        checkpointer = None;
    }
    let store = write_batches_on(
        store,
        path.as_deref(),
        &from,
        &to,
        &spent,
        checkpointer.as_mut(),
    );
    if let Some(checkpointer) = checkpointer {
        checkpointer.stop();
    }
    if store.wal_bytes() > WAL_LEFT_BYTES {
        let _ = store.checkpoint_truncate(Duration::ZERO);
    }
    store
}

/// The loop of [`write_batches`].
pub(super) fn write_batches_on(
    mut store: Store,
    path: Option<&Path>,
    from: &std::sync::mpsc::Receiver<ToWriter>,
    to: &std::sync::mpsc::SyncSender<FromWriter>,
    spent: &std::sync::mpsc::SyncSender<Box<EventRows>>,
    mut checkpointer: Option<&mut Checkpointer>,
) -> Store {
    let mut batches: u64 = 0;
    while let Ok(first) = from.recv() {
        if matches!(first, ToWriter::Reset) {
            if to.send(FromWriter::ResetDone).is_err() {
                break;
            }
            continue;
        }
        let turn = path.and_then(|p| writer_turn(p, LOCK_WAIT));
        let mut first = Some(first);
        let mut reset = false;
        let result = store.transaction(|tx| {
            let mut tip: Option<ChainTip> = None;
            loop {
                let msg = match first.take() {
                    Some(m) => m,
                    None => from.recv().map_err(|_| writer_gone())?,
                };
                match msg {
                    ToWriter::Rows(rows) => {
                        let tip = match &mut tip {
                            Some(tip) => tip,
                            None => tip.insert(tx.chain_tip()?),
                        };
                        match &rows.linked {
                            Some(linked) => tx.insert_linked(tip, &rows.entries(), linked)?,
                            None => tx.append_entries(tip, &rows.entries())?,
                        }
                        let _ = spent.try_send(rows);
                    }
                    ToWriter::Window(w) => tx.record_window_cached(&w)?,
                    ToWriter::Grant { id, grant } => {
                        if !tx.insert_grant(&id, &grant)? {
                            return Err(StoreError::Corrupt(format!(
                                "grant id {id} is taken in a database only this replay writes"
                            )));
                        }
                    }
                    ToWriter::Ask(ask) => {
                        let a = answer(tx, ask)?;
                        to.send(FromWriter::Answer(a)).map_err(|_| writer_gone())?;
                    }
                    ToWriter::Commit { states } => {
                        if let Some(tip) = &mut tip {
                            tx.write_chain_head(tip)?;
                        }
                        for (spec, scope, state) in &states {
                            tx.save_state(scope, spec, state)?;
                        }
                        return Ok(());
                    }
                    ToWriter::Reset => {
                        reset = true;
                        return Err(batch_failed());
                    }
                }
            }
        });
        // A hook waiting for its turn goes now, not after the wait for a checkpoint below.
        drop(turn);
        match result {
            Ok(()) => {
                if to.send(FromWriter::Committed(Ok(()))).is_err() {
                    break;
                }
                batches += 1;
                if let Some(c) = checkpointer.as_deref_mut() {
                    if !c.committed(batches) {
                        // Back to SQLite's checkpoint inside each commit.
                        checkpointer = None;
                        let _ = store.set_auto_checkpoint(true);
                    }
                }
            }
            // Rolled back at the evaluating side's request.
            Err(_) if reset => {
                if to.send(FromWriter::ResetDone).is_err() {
                    break;
                }
            }
            Err(e) => {
                if to.send(FromWriter::Committed(Err(e))).is_err() {
                    break;
                }
                // Whatever was sent before the evaluating side learns of the failure
                // belongs to lost batches.
                loop {
                    match from.recv() {
                        Ok(ToWriter::Reset) => break,
                        Ok(_) => {}
                        Err(_) => return store,
                    }
                }
                if to.send(FromWriter::ResetDone).is_err() {
                    break;
                }
            }
        }
    }
    store
}

/// Messages the evaluating side of a [`Pipeline`] may send ahead of its writer (a few
/// thousand events' rows: the writer is never idle for want of work, and a failure loses
/// little evaluation).
pub(super) const PIPELINE_AHEAD: usize = 4096;

/// [`Batch`] on two threads: events are evaluated on the caller's thread — exactly as
/// [`Batch::evaluate`] does, through the same [`evaluate_in`] — while a writer thread that
/// owns the store holds the batch's transaction and does the store's work: redacting and
/// chaining the audit rows (their MACs), inserting them, answering the few questions an
/// evaluation asks (a scope's first state in the batch, grants, baselines; asked in order,
/// so each sees every earlier write of the batch) and committing. The two halves overlap,
/// also across batches: a batch's commit runs while the next one is evaluated.
///
/// [`Pipeline::evaluate`] every event of a batch, then [`Pipeline::end_batch`]; each batch
/// commits or fails as a whole, and [`Pipeline::next_commit`] reports it, in order. After an
/// error call [`Pipeline::reset`]: everything not yet reported committed is lost.
pub struct Pipeline<'a, 'e> {
    /// The evaluating side: a [`Batch`] whose database is the link to the writer.
    pub(super) batch: Batch<'a, 'e>,
    pub(super) link: Link,
    pub(super) writer: Option<std::thread::JoinHandle<Store>>,
}

impl std::fmt::Debug for Pipeline<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

impl<'a, 'e> Pipeline<'a, 'e> {
    /// Starts the writer thread on `store`; `role` and `env` resolve each event's role as
    /// [`Options`] does for [`run`].
    pub fn new(
        engine: &'a Engine<'e>,
        role: Option<&'a str>,
        env: &'a dyn Fn(&str) -> Option<String>,
        store: Store,
    ) -> Result<Pipeline<'a, 'e>, StoreError> {
        let private = store.fresh_private_key().map(Private::new);
        let (to, to_writer) = std::sync::mpsc::sync_channel(PIPELINE_AHEAD);
        let (from_writer, from) = std::sync::mpsc::sync_channel(PIPELINE_AHEAD);
        let (spent_to, spent) = std::sync::mpsc::sync_channel(PIPELINE_AHEAD);
        let writer = std::thread::Builder::new()
            .name("gate-replay-writer".to_string())
            .spawn(move || write_batches(store, to_writer, from_writer, spent_to))
            .map_err(|e| StoreError::Io {
                context: "cannot start the replay's writer thread".to_string(),
                source: e,
            })?;
        Ok(Pipeline {
            batch: Batch::new(engine, role, env),
            link: Link {
                to: Some(to),
                from,
                spent,
                acks: Default::default(),
                private: std::cell::RefCell::new(private),
            },
            writer: Some(writer),
        })
    }

    /// Whether the evaluating side answers its own questions (a new database built aside,
    /// which only this pipeline writes; see [`Private`]) rather than asking the writer.
    pub fn answers_itself(&self) -> bool {
        self.link.private.borrow().is_some()
    }

    /// Evaluate one event at `now_ms` in the current batch.
    pub fn evaluate(&mut self, event: &Event, now_ms: i64) -> Result<Outcome, StoreError> {
        self.batch.evaluate_on(&mut self.link, event, now_ms)
    }

    /// Ends the current batch: its states go to the writer, which commits. Does not wait.
    pub fn end_batch(&mut self) -> Result<(), StoreError> {
        let states = self.batch.scopes.dirty(self.batch.engine);
        if self.link.private.borrow().is_some() {
            // Nobody else writes this database: what this side knows stays true.
            self.batch.scopes.settle();
        } else {
            self.batch.scopes.clear();
            self.batch.grants.clear();
        }
        self.link.send(ToWriter::Commit { states: states? })
    }

    /// Waits for the outcome of the oldest batch ended and not yet reported.
    pub fn next_commit(&mut self) -> Result<(), StoreError> {
        self.link.next_ack()
    }

    /// After an error: the batch in progress is rolled back, the writer listens again, and
    /// the next event starts a new batch from what is stored. Returns, in order, the outcome
    /// of every batch ended and not reported yet by [`Pipeline::next_commit`], as far as the
    /// writer got with them (after an error, none). The error of a batch whose evaluation
    /// failed because its transaction did (a question then fails with a stand-in) is among
    /// them. A writer that stopped adds a last error.
    pub fn reset(&mut self) -> Vec<Result<(), StoreError>> {
        self.batch.scopes.clear();
        self.batch.grants.clear();
        // What was lost is in the book too; from here on the writer answers.
        self.link.private.borrow_mut().take();
        let mut outcomes: Vec<_> = self.link.acks.borrow_mut().drain(..).collect();
        if let Err(e) = self.link.send(ToWriter::Reset) {
            outcomes.push(Err(e));
            return outcomes;
        }
        loop {
            match self.link.from.recv() {
                Ok(FromWriter::ResetDone) => return outcomes,
                Ok(FromWriter::Committed(ack)) => outcomes.push(ack),
                Ok(FromWriter::Answer(_)) => {}
                Err(_) => {
                    outcomes.push(Err(writer_gone()));
                    return outcomes;
                }
            }
        }
    }

    /// Stops the writer (a batch not ended is rolled back) and returns the store.
    pub fn close(mut self) -> Result<Store, StoreError> {
        self.stop()
    }

    /// [`Pipeline::close`] in place: afterwards every call fails as if the writer had
    /// stopped.
    pub fn stop(&mut self) -> Result<Store, StoreError> {
        self.link.to = None;
        self.writer
            .take()
            .ok_or_else(writer_gone)?
            .join()
            .map_err(|_| writer_gone())
    }
}

impl Drop for Pipeline<'_, '_> {
    fn drop(&mut self) {
        // Hanging up stops the writer, which rolls back what was not committed.
        self.link.to = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}
