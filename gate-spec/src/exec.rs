//! The execution contract shared by generated machines and the reference interpreter.
//!
//! One `step` consumes one event's [`Input`] and moves the machine. The semantics, which the
//! code generator (`gate-codegen`) and the interpreter (`gate-runtime`) both implement and a
//! differential test holds equal, are:
//!
//! 1. On a `pre_tool` event the re-arm counter `since_arm` increments, saturating at
//!    `rearm.min_actions`.
//! 2. Every signal that is enabled and sampled on this phase (`Signal::samples`) is debounced:
//!    while off, a true sample increments its counter and a false one resets it; at `enter`
//!    the signal turns on (a rising edge) and the counter resets. While on, a false sample
//!    increments and a true one resets; at `exit` it turns off (a falling edge).
//! 3. The triggers present on this event are taken in [`Trigger`] order (event phase, the
//!    state's timeout, approved, checkpoints, falling edges, rising edges, signals that are
//!    on, backstop, the action's tier, action). A signal is *on* for `while:` when it is
//!    enabled, sampled on this phase and its level after step 2 is on (so on its rising
//!    edge's event too, never on its falling edge's).
//!    For each, the transitions from the *current* state on that trigger are scanned in
//!    declaration order and the first whose guard holds fires: the state moves and, if it
//!    arms, `since_arm` resets and the seconds part of the floor counts as unmet for the rest
//!    of the event. A transition with an `arm` effect carries an implicit guard: the re-arm
//!    floor is met (`since_arm >= min_actions` and `rearm_secs_ok`).
//! 4. Guards: a tier or kind condition never holds on an event without a tool action. A
//!    counter condition reads the counter's value when the transition is tried.
//! 5. Counters: a transition that fires applies its `inc` (add one, saturating at the
//!    counter's `max`) and `reset` (to zero) effects in order, before the next trigger of the
//!    event is taken, so a later transition of the same event sees the new value.
//!
//! 6. Regions (`[[region]]`): the main machine and every region are state variables of one
//!    machine, stepping together on every event, on the same input. Steps 1 and 2 are
//!    shared. In step 3, for each trigger present, the main machine tries its transitions
//!    from its current state, then each region in declaration order tries its own from its
//!    current state; each variable fires at most one transition per trigger. An `in` guard,
//!    like a counter condition, reads each variable's value when the transition is tried:
//!    so a region's timer that ran out before the event (its `timeout` trigger comes before
//!    `tier:`/`action`) is seen by the same event's action guards, and the order above is
//!    the whole of how variables see each other within one event. A region's state has its
//!    own timer (`Input::region_timeouts`), which fires the `timeout` trigger of that region
//!    only. The effects of every transition that fires, in whichever variable, are one list
//!    in firing order and combine as one machine's do: every steer is shown and the
//!    strictest block wins (deny over ask), the order in which machines run `alongside`
//!    combine too. Only the main machine opens and closes windows and withholds by state: a
//!    region's states cannot be `window` or `withhold`, and its transitions cannot `arm` or
//!    `close`.
//!
//! Everything a step needs that depends on time arrives as a boolean computed by the
//! observer (`backstop`, `timeout`, `rearm_secs_ok`), and every counter saturates, so the
//! control space stays finite.

use crate::ir::{KindId, Phase, RoleId, SignalId, StateId, TierId};

/// One event as the machine sees it.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub phase: Phase,
    /// The action's tier (tool events only).
    pub tier: Option<TierId>,
    /// The action's work kind (tool events only).
    pub kind: Option<KindId>,
    pub role: Option<RoleId>,
    /// Raw sample per signal (meaningful only where the signal is sampled).
    pub raw: &'a [bool],
    /// Per signal: its required telemetry is present on this runtime.
    pub enabled: &'a [bool],
    /// Per checkpoint: evidence observed on this event.
    pub checkpoints: &'a [bool],
    /// The open window reached its backstop.
    pub backstop: bool,
    /// The current state's own timer (`timeout_secs`) ran out before this event.
    pub timeout: bool,
    /// Per region: its current state's own timer ran out before this event (rule 6); a
    /// region past the end of the slice has no timeout.
    pub region_timeouts: &'a [bool],
    /// At least `rearm.min_secs` seconds have passed since the last arm (or none happened).
    pub rearm_secs_ok: bool,
    /// A grant for this exact action was consumed.
    pub approved: bool,
}

/// The whole memory of a machine: what the store persists per scope.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub state: StateId,
    /// Debounced level per signal.
    pub level: Vec<bool>,
    /// Debounce counter per signal (saturates at `max(enter, exit)`).
    pub count: Vec<u16>,
    /// Pre-tool actions since the last arm, saturating at `rearm.min_actions`.
    pub since_arm: u16,
    /// Value per counter (`Spec::counters`), each within `0..=max`. Left out of the stored
    /// form when the spec has none, so a machine without counters stores what it always did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<u16>,
    /// The current state per region (`Spec::regions`), a state of that region. Left out of
    /// the stored form when the spec has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<StateId>,
}

impl Snapshot {
    /// The value of state variable `var` (0 = the main machine's state, `1 + r` = region
    /// `r`'s), if it has one.
    pub fn var(&self, var: usize) -> Option<StateId> {
        match var {
            0 => Some(self.state),
            v => self.regions.get(v - 1).copied(),
        }
    }
    /// Every state variable's value: the main machine's state, then each region's.
    pub fn vars(&self) -> Vec<StateId> {
        std::iter::once(self.state)
            .chain(self.regions.iter().copied())
            .collect()
    }
}

/// A machine: the generated ones and the interpreter both implement it.
pub trait Machine {
    /// The machine in its initial state.
    fn initial(&self) -> Snapshot;
    /// Advance by one event; `fired` is called with the index (into `Spec::transitions`) of
    /// every transition that fires, in order.
    fn step(&self, memory: &mut Snapshot, input: &Input<'_>, fired: &mut dyn FnMut(u16));
    /// The spec's command patterns, parsed and indexed at build time, if this machine was
    /// generated (the interpreter has none: its caller builds the table at run time).
    fn commands(&self) -> Option<&'static crate::commands::CommandTable> {
        None
    }
}

/// A spec compiled into the binary by `gate-macros`: its identity, its IR and its machine.
pub struct CompiledSpec {
    pub name: &'static str,
    /// SHA-256 of the spec source, as in `Spec::hash`.
    pub hash: &'static str,
    /// The spec file's path as given to the macro (for messages).
    pub path: &'static str,
    /// The IR as JSON, for introspection.
    pub ir_json: &'static str,
    /// Builds the IR from literals in the binary (texts borrowed, nothing decoded);
    /// [`CompiledSpec::ir`] runs it once.
    pub build_ir: fn() -> crate::ir::Spec,
    pub mermaid: &'static str,
    pub dot: &'static str,
    pub machine: &'static (dyn Machine + Sync),
    pub ir_cell: &'static std::sync::OnceLock<crate::ir::Spec>,
}

impl CompiledSpec {
    /// The IR, built on first use.
    pub fn ir(&self) -> &'static crate::ir::Spec {
        self.ir_cell.get_or_init(self.build_ir)
    }
}

impl std::fmt::Debug for CompiledSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSpec")
            .field("name", &self.name)
            .field("hash", &self.hash)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Helper used by both implementations: does every counter condition of a guard hold?
#[inline]
pub fn counters_hold(guards: &[crate::ir::CounterGuard], counters: &[u16]) -> bool {
    guards.iter().all(|g| {
        let v = counters.get(g.counter as usize).copied().unwrap_or(0);
        g.lo <= v && v <= g.hi
    })
}

/// The interpreter's counter effects of a fired transition, in order (the generated machine
/// unrolls the same per transition).
pub fn apply_counters(spec: &crate::ir::Spec, effects: &[crate::ir::Effect], counters: &mut [u16]) {
    for e in effects {
        match *e {
            crate::ir::Effect::Inc { counter } => {
                let max = spec.counters.get(counter as usize).map_or(0, |c| c.max);
                if let Some(v) = counters.get_mut(counter as usize) {
                    *v = v.saturating_add(1).min(max);
                }
            }
            crate::ir::Effect::Reset { counter } => {
                if let Some(v) = counters.get_mut(counter as usize) {
                    *v = 0;
                }
            }
            _ => {}
        }
    }
}

/// Helper used by both implementations: does an `in` guard hold, given every state variable's
/// value when the transition is tried (`vars[0]` the main machine's, `vars[1 + r]` region
/// `r`'s)? For each variable some listed state belongs to, its value must be one of them.
pub fn states_hold(spec: &crate::ir::Spec, states: &[StateId], vars: &[StateId]) -> bool {
    states.iter().all(|&s| {
        let var = spec.var_of(s);
        let value = vars.get(var).copied();
        value == Some(s)
            || states
                .iter()
                .any(|&o| spec.var_of(o) == var && value == Some(o))
    })
}

/// Helper used by both implementations: is the role in a guard's list?
#[inline]
pub fn role_in(roles: &[Option<RoleId>], role: Option<RoleId>) -> bool {
    roles.contains(&role)
}

/// Rising / falling edges of one step, derived by comparing levels.
pub fn edges(before: &Snapshot, after: &Snapshot) -> (Vec<SignalId>, Vec<SignalId>) {
    let mut rising = Vec::new();
    let mut falling = Vec::new();
    for (i, (a, b)) in before.level.iter().zip(&after.level).enumerate() {
        if !a && *b {
            rising.push(i as SignalId);
        } else if *a && !b {
            falling.push(i as SignalId);
        }
    }
    (rising, falling)
}
