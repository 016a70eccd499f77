//! Replay: run a recorded stream of events through a policy in memory, without touching any
//! user state, and summarise what it would have answered (for promoting observe → steer →
//! gate with evidence).

use crate::driver::scope_key;
use crate::engine::{Context, Engine, Outcome, ScopeState};
use crate::event::Event;
use crate::observer::Baselines;
use crate::verdict::Verdict;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// A replay in progress: one state per scope, kept in memory.
pub struct Replayer<'s> {
    engine: &'s Engine<'s>,
    states: BTreeMap<String, ScopeState>,
    baselines: Baselines,
    pub summary: Summary,
    grants: u64,
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
        let spec = engine.spec;
        Replayer {
            engine,
            states: BTreeMap::new(),
            baselines: vec![None; spec.kinds.len()],
            summary: Summary {
                spec: spec.name.clone(),
                tiers: spec
                    .tiers
                    .iter()
                    .map(|t| (t.name.clone(), TierCounts::default()))
                    .collect(),
                ..Summary::default()
            },
            grants: 0,
        }
    }

    /// Feed one event at time `now_ms`; `role` is an explicit role name, if any.
    pub fn feed(&mut self, event: &Event, now_ms: i64, role: Option<&str>) -> Outcome {
        let engine = self.engine;
        let spec = engine.spec;
        let key = scope_key(spec.scope, event);
        let state = self
            .states
            .entry(key)
            .or_insert_with(|| ScopeState::initial(spec, engine.machine));
        let no_env = |_: &str| None;
        let role = engine.resolve_role(event, &no_env, role);
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
        let outcome = engine.evaluate(state, event, &mut cx);
        self.count(event, &outcome);
        outcome
    }

    fn count(&mut self, event: &Event, outcome: &Outcome) {
        let spec = self.engine.spec;
        let s = &mut self.summary;
        s.events += 1;
        s.scopes = self.states.len() as u64;
        *s.verdicts
            .entry(outcome.decision.verdict.name().to_string())
            .or_default() += 1;
        if event.phase == Some(gate_spec::ir::Phase::PreTool) {
            let t = &mut s.tiers[outcome.classification.tier as usize].1;
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
                gate_spec::ir::Trigger::Signal(_) | gate_spec::ir::Trigger::Clear(_)
            ) {
                s.boundaries += 1;
            }
        }
        for sig in &outcome.rising {
            *s.signal_edges
                .entry(spec.signals[*sig as usize].name.clone())
                .or_default() += 1;
        }
        s.windows_armed += u64::from(outcome.armed);
        if let Some(w) = &outcome.closed {
            s.windows_closed += 1;
            if w.closed_by == crate::engine::ClosedBy::Backstop {
                s.backstops += 1;
            }
        }
        s.checkpoints += outcome
            .notes
            .iter()
            .filter(|n| n.kind == "checkpoint")
            .count() as u64;
    }
}
