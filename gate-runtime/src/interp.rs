//! The reference interpreter: the step semantics of `gate_spec::exec`, walking the IR directly.
//!
//! It runs uncompiled specs (`gate replay --spec-file`) and is the oracle that every generated
//! machine is tested against. It is written for clarity, not speed: each rule of the module
//! doc of `gate_spec::exec` appears here once, in order.

use gate_spec::exec::{Input, Machine, Snapshot};
use gate_spec::ir::{CounterGuard, Effect, Guard, Phase, Spec, StateId, Transition, Trigger};

/// Where the interpreter reads a guard's counter conditions and writes a fired transition's
/// counter effects: the memory's own values ([`Concrete`]), or a verifier's abstraction of
/// them (`verify::abstraction`), which steps the same rules with the counters' truth given.
pub trait CounterTruth {
    /// Whether every condition holds.
    fn hold(&mut self, guards: &[CounterGuard]) -> bool;
    /// A fired transition's `inc:`/`reset:` effects (rule 5).
    fn apply(&mut self, spec: &Spec, effects: &[Effect]);
}

/// The counters' values themselves.
pub struct Concrete<'a>(pub &'a mut [u16]);

impl CounterTruth for Concrete<'_> {
    fn hold(&mut self, guards: &[CounterGuard]) -> bool {
        gate_spec::exec::counters_hold(guards, self.0)
    }
    fn apply(&mut self, spec: &Spec, effects: &[Effect]) {
        gate_spec::exec::apply_counters(spec, effects, self.0);
    }
}

/// An interpreter over one spec's IR.
#[derive(Debug, Clone, Copy)]
pub struct Interpreter<'s> {
    pub spec: &'s Spec,
}

impl<'s> Interpreter<'s> {
    pub fn new(spec: &'s Spec) -> Self {
        Interpreter { spec }
    }

    fn guard_holds(
        &self,
        guard: &Guard,
        arms: bool,
        input: &Input<'_>,
        floor_ok: bool,
        counters: &mut dyn CounterTruth,
        vars: &[StateId],
    ) -> bool {
        if !gate_spec::exec::states_hold(self.spec, &guard.states, vars) {
            return false;
        }
        if let Some((lo, hi)) = guard.tier {
            match input.tier {
                Some(t) if lo <= t && t <= hi => {}
                _ => return false,
            }
        }
        if !guard.kinds.is_empty() {
            match input.kind {
                Some(k) if guard.kinds.contains(&k) => {}
                _ => return false,
            }
        }
        if !guard.roles.is_empty() && !gate_spec::exec::role_in(&guard.roles, input.role) {
            return false;
        }
        if let Some(want) = guard.rearm {
            if want != floor_ok {
                return false;
            }
        }
        if arms && !floor_ok {
            return false;
        }
        // Read last, so an abstraction is asked only about guards the rest admits.
        guard.counters.is_empty() || counters.hold(&guard.counters)
    }

    fn present(
        &self,
        trigger: Trigger,
        var: usize,
        input: &Input<'_>,
        rising: &[bool],
        falling: &[bool],
        on: &[bool],
    ) -> bool {
        match trigger {
            Trigger::Event(p) => p == input.phase,
            // Each variable's own timer (rule 6).
            Trigger::Timeout if var == 0 => input.timeout,
            Trigger::Timeout => input.region_timeouts.get(var - 1).copied().unwrap_or(false),
            Trigger::Approved => input.approved,
            Trigger::Checkpoint(c) => input.checkpoints.get(c as usize).copied().unwrap_or(false),
            Trigger::Clear(s) => falling[s as usize],
            Trigger::Signal(s) => rising[s as usize],
            Trigger::While(s) => on[s as usize],
            Trigger::Backstop => input.backstop,
            Trigger::Tier(t) => input.phase == Phase::PreTool && input.tier == Some(t),
            Trigger::Action => input.phase == Phase::PreTool,
        }
    }
}

fn arms(t: &Transition) -> bool {
    t.effects.iter().any(|e| matches!(e, Effect::Arm))
}

impl Machine for Interpreter<'_> {
    fn initial(&self) -> Snapshot {
        Snapshot {
            state: self.spec.initial,
            level: vec![false; self.spec.signals.len()],
            count: vec![0; self.spec.signals.len()],
            since_arm: self.spec.rearm.min_actions,
            counters: vec![0; self.spec.counters.len()],
            regions: self.spec.regions.iter().map(|r| r.initial).collect(),
        }
    }

    fn step(&self, m: &mut Snapshot, input: &Input<'_>, fired: &mut dyn FnMut(u16)) {
        let spec = self.spec;
        // A memory of another shape (another spec version) gets one value per counter...
        let mut counters = std::mem::take(&mut m.counters);
        counters.resize(spec.counters.len(), 0);
        // ... and one state per region (its initial state where it had none).
        for region in spec.regions.iter().skip(m.regions.len()) {
            m.regions.push(region.initial);
        }
        m.regions.truncate(spec.regions.len());
        self.step_with(m, input, fired, &mut Concrete(&mut counters));
        m.counters = counters;
    }
}

impl Interpreter<'_> {
    /// One step (every rule of `gate_spec::exec`) with the counters read and written through
    /// `counters`; `m.counters` is left as it is (the memory's regions already fitted).
    pub fn step_with(
        &self,
        m: &mut Snapshot,
        input: &Input<'_>,
        fired: &mut dyn FnMut(u16),
        counters: &mut dyn CounterTruth,
    ) {
        let spec = self.spec;
        // 1. The re-arm counter.
        if input.phase == Phase::PreTool {
            m.since_arm = m.since_arm.saturating_add(1).min(spec.rearm.min_actions);
        }
        // 2. Debounce.
        let n = spec.signals.len();
        let mut rising = vec![false; n];
        let mut falling = vec![false; n];
        let mut on = vec![false; n];
        for (i, signal) in spec.signals.iter().enumerate() {
            let enabled = input.enabled.get(i).copied().unwrap_or(false);
            if !enabled || !signal.samples.contains(&input.phase) {
                continue;
            }
            let raw = input.raw.get(i).copied().unwrap_or(false);
            if !m.level[i] {
                m.count[i] = if raw { m.count[i].saturating_add(1) } else { 0 };
                if m.count[i] >= signal.enter {
                    m.level[i] = true;
                    m.count[i] = 0;
                    rising[i] = true;
                }
            } else {
                m.count[i] = if raw { 0 } else { m.count[i].saturating_add(1) };
                if m.count[i] >= signal.exit {
                    m.level[i] = false;
                    m.count[i] = 0;
                    falling[i] = true;
                }
            }
            on[i] = m.level[i];
        }
        // 3. Triggers in order; each fires at most one transition per state variable: the
        // main machine's, then each region's (6).
        let mut secs_ok = input.rearm_secs_ok;
        for trigger in spec.all_triggers() {
            for var in 0..=spec.regions.len() {
                if !self.present(trigger, var, input, &rising, &falling, &on) {
                    continue;
                }
                let current = if var == 0 {
                    m.state
                } else {
                    m.regions[var - 1]
                };
                // 6. `in` reads every variable as it is now.
                let vars = m.vars();
                let floor_ok = m.since_arm >= spec.rearm.min_actions && secs_ok;
                let hit = spec.transitions.iter().enumerate().find(|(_, t)| {
                    t.from == current
                        && t.trigger == trigger
                        && self.guard_holds(&t.guard, arms(t), input, floor_ok, counters, &vars)
                });
                if let Some((index, t)) = hit {
                    if var == 0 {
                        m.state = t.to;
                    } else {
                        m.regions[var - 1] = t.to;
                    }
                    // 5. Counters change before the next trigger is taken.
                    counters.apply(spec, &t.effects);
                    if arms(t) {
                        m.since_arm = 0;
                        secs_ok = false;
                    }
                    fired(index as u16);
                }
            }
        }
    }
}
