//! Many events in the transactions the caller holds ([`Batch`]): each with exactly the effect
//! of a hook call, but with scopes' states and baselines kept in memory for the transaction
//! ([`BatchScopes`]) and grant answers remembered ([`GrantMemo`]).

use super::*;
use crate::engine::{Engine, Note, Outcome, ScopeState};
use crate::event::Event;
use crate::observer::Baselines;
use crate::store::{AuditEntry, ChainTip, NewGrant, Store, StoreError, StoredState, Txn};
use std::collections::HashMap;
use std::time::Instant;

/// A scope's state inside a batch: loaded on the scope's first event of the transaction.
pub(super) struct Cached {
    pub(super) state: ScopeState,
    /// The time of the last save (`None`: loaded but not evaluated yet).
    pub(super) updated_ms: Option<i64>,
}

/// The states and baselines of one batch transaction.
#[derive(Default)]
pub(super) struct BatchScopes {
    /// Per machine (the spec's own first, then each beside it), per scope key.
    pub(super) states: Vec<HashMap<String, Cached>>,
    /// The machine whose states [`Scopes::load`] and [`Scopes::save`] use now.
    pub(super) at: usize,
    /// Baselines per repository; only the `gate calibrate` transaction writes them, so they
    /// cannot change inside a batch.
    pub(super) baselines: HashMap<String, Baselines>,
    /// Every kind without a baseline, for specs that use none.
    pub(super) unused: Baselines,
    /// The end of the audit chain: read at the transaction's first row, carried from event to
    /// event (each event's rows are appended as it is evaluated, borrowing from it) and
    /// written as the chain head once, by [`BatchScopes::flush`]; the rows and the head are
    /// those per-event appends would have written.
    pub(super) chain: Option<ChainTip>,
}

impl<'t> Scopes<Txn<'t>> for BatchScopes {
    fn machine(&mut self, index: usize) {
        self.select(index);
    }

    fn load(
        &mut self,
        engine: &Engine<'_>,
        tx: &Txn<'t>,
        scope: &str,
        repo: &str,
        notes: &mut Vec<Note>,
    ) -> Result<(&mut ScopeState, &Baselines), StoreError> {
        self.load_from(engine, tx, scope, repo, notes)
    }

    fn audit(&mut self, tx: &mut Txn<'t>, rows: &[AuditEntry<'_>]) -> Result<(), StoreError> {
        let tip = match &mut self.chain {
            Some(tip) => tip,
            None => self.chain.insert(tx.chain_tip()?),
        };
        tx.append_entries(tip, rows)
    }

    fn save(
        &mut self,
        _engine: &Engine<'_>,
        _tx: &Txn<'t>,
        scope: &str,
        updated_ms: i64,
    ) -> Result<(), StoreError> {
        self.saved(scope, updated_ms);
        Ok(())
    }
}

impl BatchScopes {
    /// [`Scopes::machine`] of a batch.
    pub(super) fn select(&mut self, index: usize) {
        if self.states.len() <= index {
            self.states.resize_with(index + 1, HashMap::new);
        }
        self.at = index;
    }

    /// The states of the machine selected now.
    fn here(&mut self) -> &mut HashMap<String, Cached> {
        if self.states.len() <= self.at {
            self.states.resize_with(self.at + 1, HashMap::new);
        }
        &mut self.states[self.at]
    }

    /// How many scopes' states are kept, over every machine.
    pub(super) fn len(&self) -> usize {
        self.states.iter().map(HashMap::len).sum()
    }

    /// [`Scopes::load`] of a batch: a scope's state read on its first event of the
    /// transaction, the baselines once per repository.
    pub(super) fn load_from<D: Db + ?Sized>(
        &mut self,
        engine: &Engine<'_>,
        tx: &D,
        scope: &str,
        repo: &str,
        notes: &mut Vec<Note>,
    ) -> Result<(&mut ScopeState, &Baselines), StoreError> {
        if !self.here().contains_key(scope) {
            let state = load_scope(engine, tx, scope, notes)?;
            self.here().insert(
                scope.to_string(),
                Cached {
                    state,
                    updated_ms: None,
                },
            );
        }
        let baselines = if needs_baselines(engine.spec) {
            if !self.baselines.contains_key(repo) {
                let loaded = load_baselines(engine, tx, repo)?;
                self.baselines.insert(repo.to_string(), loaded);
            }
            self.baselines.get(repo)
        } else {
            if self.unused.len() != engine.spec.kinds.len() {
                self.unused = vec![None; engine.spec.kinds.len()];
            }
            Some(&self.unused)
        };
        let at = self.at;
        match (
            self.states.get_mut(at).and_then(|s| s.get_mut(scope)),
            baselines,
        ) {
            (Some(cached), Some(baselines)) => Ok((&mut cached.state, baselines)),
            _ => Err(StoreError::Corrupt(format!(
                "batch cache lost scope {scope}"
            ))),
        }
    }

    /// [`Scopes::save`] of a batch: the state is written when the transaction ends.
    pub(super) fn saved(&mut self, scope: &str, updated_ms: i64) {
        if let Some(cached) = self.here().get_mut(scope) {
            cached.updated_ms = Some(updated_ms);
        }
    }

    /// Every state evaluated in this transaction, encoded, as (spec, scope, state): machine
    /// by machine (the spec's own first), each in scope order (the rows
    /// [`BatchScopes::flush`] writes).
    pub(super) fn dirty(
        &self,
        engine: &Engine<'_>,
    ) -> Result<Vec<(String, String, StoredState)>, StoreError> {
        let mut out = Vec::new();
        for (machine, states) in engine.machines().zip(&self.states) {
            let mut dirty: Vec<(&String, &Cached)> = states
                .iter()
                .filter(|(_, c)| c.updated_ms.is_some())
                .collect();
            dirty.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (scope, cached) in dirty {
                let updated_ms = cached.updated_ms.unwrap_or_default();
                out.push((
                    machine.spec.name.to_string(),
                    scope.clone(),
                    encode_state(machine, &cached.state, updated_ms)?,
                ));
            }
        }
        Ok(out)
    }

    /// Appends the transaction's audit rows, writes every state evaluated in it (the row
    /// each scope's last event would have written) and forgets the cache.
    pub(super) fn flush(
        &mut self,
        engine: &Engine<'_>,
        tx: &mut Txn<'_>,
    ) -> Result<(), StoreError> {
        if let Some(tip) = &mut self.chain {
            tx.write_chain_head(tip)?;
        }
        for (spec, scope, state) in self.dirty(engine)? {
            tx.save_state(&scope, &spec, &state)?;
        }
        self.clear();
        Ok(())
    }

    pub(super) fn clear(&mut self) {
        self.states.iter_mut().for_each(HashMap::clear);
        self.baselines.clear();
        self.chain = None;
    }

    /// After a batch's states went to be written: keep them, none of them dirty.
    pub(super) fn settle(&mut self) {
        for cached in self.states.iter_mut().flat_map(HashMap::values_mut) {
            cached.updated_ms = None;
        }
    }
}

/// The grant answers of one batch transaction, per action hash, so the store is asked once
/// per action rather than once per event (each question reads every unused grant of the
/// action). Exact, because inside the transaction nothing approves or revokes a grant (that
/// takes `gate approve`'s own transaction, which waits for this one) and only
/// [`Txn::create_grant`] inserts:
///
/// - no live approved grant at `t` stays true at every `t' >= t` (the approved set only
///   shrinks, by consumption, and a later time expires more);
/// - the pending grant `create_grant` returned at `t`, expiring at `e`, is what it returns
///   at every `t'` with `t <= t' < e` until it inserts another grant (a later time only
///   expires grants, and the one returned was the newest live one).
#[derive(Default)]
pub(super) struct GrantMemo {
    /// Action hash → a time at which no approved grant for it was live.
    pub(super) none_approved: HashMap<String, i64>,
    /// Action hash → (grant id, the time it was returned at, its expiry).
    pub(super) pending: HashMap<String, (String, i64, i64)>,
}

impl GrantMemo {
    pub(super) fn clear(&mut self) {
        self.none_approved.clear();
        self.pending.clear();
    }
}

impl<D: Db + ?Sized> Grants<D> for GrantMemo {
    fn consume(&mut self, tx: &D, action_hash: &str, now_ms: i64) -> Result<bool, StoreError> {
        if self
            .none_approved
            .get(action_hash)
            .is_some_and(|&since| now_ms >= since)
        {
            return Ok(false);
        }
        if tx.consume(action_hash, now_ms)? {
            return Ok(true);
        }
        match self.none_approved.get_mut(action_hash) {
            Some(since) => *since = (*since).min(now_ms),
            None => {
                self.none_approved.insert(action_hash.to_string(), now_ms);
            }
        }
        Ok(false)
    }

    fn create(&mut self, tx: &D, grant: &NewGrant) -> Result<String, StoreError> {
        let now = grant.created_ms;
        if let Some((id, since, expires)) = self.pending.get(&grant.action_hash) {
            if now >= *since && now < *expires {
                return Ok(id.clone());
            }
        }
        let (id, expires) = tx.create_expiring(grant)?;
        self.pending
            .insert(grant.action_hash.clone(), (id.clone(), now, expires));
        Ok(id)
    }
}

/// Events evaluated inside transactions the caller holds, each with exactly the effect of
/// [`run`] on one event — state, grants, baselines, audit rows and windows go through the
/// same code ([`evaluate_in`]) — but without opening the database per event: a scope's state
/// is read on its first event of the transaction, kept in memory, and written once by
/// [`Batch::finish`], as the row its last event would have written.
///
/// Use [`Batch::commit`] (one transaction per call), or call [`Batch::evaluate`] for every
/// event and [`Batch::finish`] last inside one [`Store::transaction`]. Without `finish` the
/// scopes' states are not written; a transaction that fails must be followed by
/// [`Batch::discard`] before the batch is used again.
pub struct Batch<'a, 'e> {
    pub(super) engine: &'a Engine<'e>,
    pub(super) role: Option<&'a str>,
    pub(super) env: &'a dyn Fn(&str) -> Option<String>,
    pub(super) scopes: BatchScopes,
    pub(super) grants: GrantMemo,
}

impl std::fmt::Debug for Batch<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("spec", &self.engine.spec.name)
            .field("scopes", &self.scopes.len())
            .finish_non_exhaustive()
    }
}

impl<'a, 'e> Batch<'a, 'e> {
    /// `role` and `env` resolve each event's role as [`Options`] does for [`run`].
    pub fn new(
        engine: &'a Engine<'e>,
        role: Option<&'a str>,
        env: &'a dyn Fn(&str) -> Option<String>,
    ) -> Batch<'a, 'e> {
        Batch {
            engine,
            role,
            env,
            scopes: BatchScopes::default(),
            grants: GrantMemo::default(),
        }
    }

    /// Evaluate one event at `now_ms` inside `tx`.
    pub fn evaluate(
        &mut self,
        tx: &mut Txn<'_>,
        event: &Event,
        now_ms: i64,
    ) -> Result<Outcome, StoreError> {
        self.evaluate_on(tx, event, now_ms)
    }

    /// Evaluate one event at `now_ms` against `db`: a transaction, or a [`Pipeline`]'s link
    /// to its writer.
    pub(super) fn evaluate_on<D: Db + ?Sized>(
        &mut self,
        db: &mut D,
        event: &Event,
        now_ms: i64,
    ) -> Result<Outcome, StoreError>
    where
        BatchScopes: Scopes<D>,
    {
        let started = Instant::now();
        let role = self.engine.resolve_role(event, self.env, self.role);
        evaluate_in(
            self.engine,
            db,
            &mut self.scopes,
            &mut self.grants,
            event,
            At {
                role,
                now_ms,
                started,
                env: self.env,
                explicit_role: self.role,
            },
        )
    }

    /// Write the states evaluated in this transaction; call it last, before the commit.
    pub fn finish(&mut self, tx: &mut Txn<'_>) -> Result<(), StoreError> {
        self.grants.clear();
        self.scopes.flush(self.engine, tx)
    }

    /// Forget what this transaction loaded (after it failed and rolled back).
    pub fn discard(&mut self) {
        self.scopes.clear();
        self.grants.clear();
    }

    /// Evaluate `events` (each with its time) in one `BEGIN IMMEDIATE` transaction of
    /// `store`, queued behind other gate processes like a hook, and commit; `each` sees
    /// every event's outcome (also when the commit then fails). Nothing of the batch is
    /// written unless all of it is.
    pub fn commit<'x>(
        &mut self,
        store: &mut Store,
        events: impl IntoIterator<Item = (&'x Event, i64)>,
        mut each: impl FnMut(&Event, &Outcome),
    ) -> Result<(), StoreError> {
        let _turn = store.path().and_then(|p| writer_turn(p, LOCK_WAIT));
        let result = store.transaction(|tx| {
            for (event, now_ms) in events {
                let outcome = self.evaluate(tx, event, now_ms)?;
                each(event, &outcome);
            }
            self.finish(tx)
        });
        if result.is_err() {
            self.discard();
        }
        result
    }
}
