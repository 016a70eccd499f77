//! Exhaustive exploration of every shipped spec's finite control space, compositionally.
//!
//! The full product (control state × re-arm counter × every signal's debouncer × every
//! trigger vector) is too large for the bigger specs, but the debouncers evolve independently
//! of the control state (exec.rs rule 2 reads only the samples), so the space splits:
//!
//! 1. each signal's debouncer `(level, count)` is explored on its own, in product with a
//!    sequence oracle (the run of equal samples since the last edge), against the compiled
//!    machine: edges happen exactly when the oracle says, never both at once;
//! 2. the control machine `(state, since_arm)` is explored from the initial snapshot with
//!    every event shape as a free input: each phase, tier, kind and role, the floor's seconds
//!    part met or not, and at most one extra trigger (approved, a checkpoint, a rising or
//!    falling edge, the backstop) per event. Every step runs on the compiled machine and the
//!    reference interpreter and must agree.
//!
//! On every reachable state and step the invariants of the suite are checked: the re-arm
//! floor, at most one arm per event, a window never withholds and entering one never blocks,
//! a window licenses nothing, and every withholding state can be left. Each spec prints one
//! line with the number of states and transitions explored (`-- --nocapture`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use gate_runtime::interp::Interpreter;
use gate_spec::exec::{CompiledSpec, Input, Machine, Snapshot};
use gate_spec::ir::{
    Effect, KindId, Phase, RoleId, SignalId, Spec, StateId, TierId, Transition, Trigger,
};

/// The one extra trigger an explored event carries besides its phase (and tier/action).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Extra {
    None,
    Approved,
    Checkpoint(u8),
    Rise(SignalId),
    Fall(SignalId),
    Backstop,
    /// The current state's own timer ran out.
    Timeout,
}

/// One explored event shape.
#[derive(Clone, Copy, Debug)]
struct Shape {
    phase: Phase,
    tier: Option<TierId>,
    kind: Option<KindId>,
    role: Option<RoleId>,
    secs_ok: bool,
    extra: Extra,
}

fn arms(t: &Transition) -> bool {
    t.effects.iter().any(|e| matches!(e, Effect::Arm))
}

fn blocks(t: &Transition) -> bool {
    t.effects.iter().any(|e| e.block().is_some())
}

/// The control part of a snapshot: what the exploration keys on.
type Control = (StateId, u16);

/// A realised shape: memory, raw samples, enabled signals, checkpoints, backstop.
type Realised = (Snapshot, Vec<bool>, Vec<bool>, Vec<bool>, bool);

/// Builds the machine memory and input for one shape from a control state, so that exactly
/// the shape's triggers are present. Returns `None` when the shape cannot happen there.
fn realise(spec: &Spec, control: Control, shape: &Shape) -> Option<Realised> {
    let n = spec.signals.len();
    let mut snap = Snapshot {
        state: control.0,
        level: vec![false; n],
        count: vec![0; n],
        since_arm: control.1,
    };
    let mut raw = vec![false; n];
    let mut enabled = vec![false; n];
    let mut checkpoints = vec![false; spec.checkpoints.len()];
    let mut backstop = false;
    match shape.extra {
        Extra::None | Extra::Approved => {}
        // The observer raises a timeout only in a state that has a timer.
        Extra::Timeout if spec.states[control.0 as usize].timeout_secs.is_none() => return None,
        Extra::Timeout => {}
        Extra::Checkpoint(c) => checkpoints[c as usize] = true,
        Extra::Rise(s) | Extra::Fall(s) => {
            let sig = &spec.signals[s as usize];
            if !sig.samples.contains(&shape.phase) {
                return None;
            }
            enabled[s as usize] = true;
            if matches!(shape.extra, Extra::Rise(_)) {
                snap.count[s as usize] = sig.enter - 1;
                raw[s as usize] = true;
            } else {
                snap.level[s as usize] = true;
                snap.count[s as usize] = sig.exit - 1;
            }
        }
        Extra::Backstop => {
            // The observer reports the backstop only on a pre-tool event in an open window.
            if shape.phase != Phase::PreTool || !spec.states[control.0 as usize].window {
                return None;
            }
            backstop = true;
        }
    }
    if matches!(shape.extra, Extra::Approved) && shape.phase != Phase::PreTool {
        return None;
    }
    Some((snap, raw, enabled, checkpoints, backstop))
}

/// Step one machine with a shape from a control state.
fn step(
    machine: &dyn Machine,
    spec: &Spec,
    control: Control,
    shape: &Shape,
) -> Option<(Snapshot, Vec<u16>)> {
    let (mut snap, raw, enabled, checkpoints, backstop) = realise(spec, control, shape)?;
    let input = Input {
        phase: shape.phase,
        tier: shape.tier,
        kind: shape.kind,
        role: shape.role,
        raw: &raw,
        enabled: &enabled,
        checkpoints: &checkpoints,
        backstop,
        timeout: matches!(shape.extra, Extra::Timeout),
        rearm_secs_ok: shape.secs_ok,
        approved: matches!(shape.extra, Extra::Approved),
    };
    let mut fired = Vec::new();
    machine.step(&mut snap, &input, &mut |t| fired.push(t));
    Some((snap, fired))
}

/// Every event shape of a spec.
fn shapes(spec: &Spec) -> Vec<Shape> {
    let mut extras = vec![Extra::None, Extra::Approved, Extra::Backstop];
    if spec.states.iter().any(|s| s.timeout_secs.is_some()) {
        extras.push(Extra::Timeout);
    }
    extras.extend((0..spec.checkpoints.len()).map(|c| Extra::Checkpoint(c as u8)));
    for s in 0..spec.signals.len() {
        extras.push(Extra::Rise(s as SignalId));
        extras.push(Extra::Fall(s as SignalId));
    }
    let roles: Vec<Option<RoleId>> = std::iter::once(None)
        .chain((0..spec.roles.len()).map(|r| Some(r as RoleId)))
        .collect();
    let mut out = Vec::new();
    for phase in Phase::ALL {
        let tk: Vec<(Option<TierId>, Option<KindId>)> = if phase.is_tool() {
            (0..spec.tiers.len())
                .flat_map(|t| {
                    (0..spec.kinds.len()).map(move |k| (Some(t as TierId), Some(k as KindId)))
                })
                .collect()
        } else {
            vec![(None, None)]
        };
        for &(tier, kind) in &tk {
            for &role in &roles {
                for secs_ok in [true, false] {
                    for &extra in &extras {
                        out.push(Shape {
                            phase,
                            tier,
                            kind,
                            role,
                            secs_ok,
                            extra,
                        });
                    }
                }
            }
        }
    }
    out
}

/// States that are "closed" in the sense of the window property: no window, no withholding,
/// and not reachable only through a user's approval (a grant licenses; a window does not).
fn closed_states(spec: &Spec) -> Vec<StateId> {
    let granted: BTreeSet<StateId> = spec
        .transitions
        .iter()
        .filter(|t| t.trigger == Trigger::Approved && t.to != t.from)
        .map(|t| t.to)
        .collect();
    (0..spec.states.len() as StateId)
        .filter(|s| {
            let st = &spec.states[*s as usize];
            !st.window && st.withhold.is_none() && !granted.contains(s)
        })
        .collect()
}

/// Whether a pre-tool step proposes a block (a fired block effect or a withholding target).
fn step_blocks(spec: &Spec, after: StateId, fired: &[u16]) -> bool {
    fired.iter().any(|t| blocks(&spec.transitions[*t as usize]))
        || spec.states[after as usize].withhold.is_some()
}

struct Report {
    states: usize,
    transitions: usize,
    debouncer_states: usize,
    debouncer_transitions: usize,
}

fn explore(compiled: &CompiledSpec) -> Report {
    let spec = compiled.ir();
    let interp = Interpreter::new(spec);
    let compiled_machine: &dyn Machine = compiled.machine;
    let all_shapes = shapes(spec);

    // Static: a window never withholds and nothing that enters or arms a window blocks.
    for s in &spec.states {
        assert!(
            !(s.window && s.withhold.is_some()),
            "{}: window state `{}` withholds",
            spec.name,
            s.name
        );
    }
    for (i, t) in spec.transitions.iter().enumerate() {
        let enters = spec.states[t.to as usize].window && !spec.states[t.from as usize].window;
        assert!(
            !((enters || arms(t)) && blocks(t)),
            "{}: transition {i} opens a window and blocks",
            spec.name
        );
    }

    // The control space, breadth first from the initial snapshot.
    let init = compiled_machine.initial();
    assert_eq!(
        init,
        interp.initial(),
        "{}: initial snapshots differ",
        spec.name
    );
    let start: Control = (init.state, init.since_arm);
    let mut seen: BTreeSet<Control> = BTreeSet::from([start]);
    let mut queue = VecDeque::from([start]);
    let mut graph: BTreeMap<Control, BTreeSet<Control>> = BTreeMap::new();
    let mut transitions = 0usize;
    while let Some(c) = queue.pop_front() {
        for shape in &all_shapes {
            let Some((after, fired)) = step(compiled_machine, spec, c, shape) else {
                continue;
            };
            let (after_i, fired_i) = step(&interp, spec, c, shape).expect("same shape realises");
            assert_eq!(
                after, after_i,
                "{}: snapshot differs from {c:?} on {shape:?}",
                spec.name
            );
            assert_eq!(
                fired, fired_i,
                "{}: fired differs from {c:?} on {shape:?}",
                spec.name
            );
            transitions += 1;
            check_step(spec, c, shape, &after, &fired);
            let next: Control = (after.state, after.since_arm);
            graph.entry(c).or_default().insert(next);
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }

    check_window_licenses_nothing(spec, compiled_machine, &seen);
    check_liveness(spec, &seen, &graph);
    let (debouncer_states, debouncer_transitions) = explore_debouncers(spec, compiled_machine);
    Report {
        states: seen.len(),
        transitions,
        debouncer_states,
        debouncer_transitions,
    }
}

/// Invariants of one explored step.
fn check_step(spec: &Spec, from: Control, shape: &Shape, after: &Snapshot, fired: &[u16]) {
    let min = spec.rearm.min_actions;
    assert!(
        after.since_arm <= min,
        "{}: since_arm above the floor",
        spec.name
    );
    let arm_count = fired
        .iter()
        .filter(|t| arms(&spec.transitions[**t as usize]))
        .count();
    assert!(
        arm_count <= 1,
        "{}: two arms in one event from {from:?} on {shape:?}",
        spec.name
    );
    if arm_count == 1 {
        let counter = if shape.phase == Phase::PreTool {
            from.1.saturating_add(1).min(min)
        } else {
            from.1
        };
        assert!(
            counter >= min && shape.secs_ok,
            "{}: arm below the re-arm floor from {from:?} on {shape:?}",
            spec.name
        );
        assert_eq!(
            after.since_arm, 0,
            "{}: an arm must reset the counter",
            spec.name
        );
    }
    // Every fired transition is from the state the machine was in when its trigger came.
    let mut state = from.0;
    for t in fired {
        let tr = &spec.transitions[*t as usize];
        assert_eq!(
            tr.from, state,
            "{}: transition {t} fired from another state",
            spec.name
        );
        state = tr.to;
    }
    assert_eq!(
        state, after.state,
        "{}: final state is not the last target",
        spec.name
    );
    // Blocks exist only on tool events with an action (tier triggers need a pre-tool event).
    for t in fired {
        let tr = &spec.transitions[*t as usize];
        if let Trigger::Tier(_) | Trigger::Action = tr.trigger {
            assert_eq!(
                shape.phase,
                Phase::PreTool,
                "{}: action trigger off pre-tool",
                spec.name
            );
        }
    }
}

/// Machine level, over every reachable re-arm counter and every action shape without extra
/// triggers: a pre-tool action blocked from every closed state is blocked from every window
/// state too.
fn check_window_licenses_nothing(spec: &Spec, machine: &dyn Machine, seen: &BTreeSet<Control>) {
    let closed = closed_states(spec);
    let windows: Vec<StateId> = (0..spec.states.len() as StateId)
        .filter(|s| spec.states[*s as usize].window)
        .collect();
    if closed.is_empty() || windows.is_empty() {
        return;
    }
    let counters: BTreeSet<u16> = seen.iter().map(|c| c.1).collect();
    for shape in shapes(spec)
        .into_iter()
        .filter(|s| s.phase == Phase::PreTool && s.extra == Extra::None)
    {
        for &counter in &counters {
            let blocked = |state: StateId| {
                let (after, fired) =
                    step(machine, spec, (state, counter), &shape).expect("plain action");
                step_blocks(spec, after.state, &fired)
            };
            if closed.iter().all(|c| blocked(*c)) {
                for w in &windows {
                    assert!(
                        blocked(*w),
                        "{}: {shape:?} is blocked in every closed state but not in window `{}`",
                        spec.name,
                        spec.state_name(*w)
                    );
                }
            }
        }
    }
}

/// Every reachable withholding state reaches a non-withholding one in the control graph
/// (the bound is the number of control states).
fn check_liveness(
    spec: &Spec,
    seen: &BTreeSet<Control>,
    graph: &BTreeMap<Control, BTreeSet<Control>>,
) {
    let withholds = |c: &Control| spec.states[c.0 as usize].withhold.is_some();
    for start in seen.iter().filter(|c| withholds(c)) {
        let mut dist: BTreeMap<Control, usize> = BTreeMap::from([(*start, 0)]);
        let mut queue = VecDeque::from([*start]);
        let mut found = None;
        while let Some(c) = queue.pop_front() {
            if !withholds(&c) {
                found = Some(dist[&c]);
                break;
            }
            for n in graph.get(&c).into_iter().flatten() {
                if !dist.contains_key(n) {
                    dist.insert(*n, dist[&c] + 1);
                    queue.push_back(*n);
                }
            }
        }
        let steps = found.unwrap_or_else(|| {
            panic!(
                "{}: withholding state `{}` can never be left",
                spec.name,
                spec.state_name(start.0)
            )
        });
        assert!(steps <= seen.len(), "{}: unbounded way out", spec.name);
    }
}

/// Each signal's debouncer against a sequence oracle, exhaustively; returns (states, steps).
fn explore_debouncers(spec: &Spec, machine: &dyn Machine) -> (usize, usize) {
    let mut states = 0;
    let mut steps = 0;
    let n = spec.signals.len();
    for (s, sig) in spec.signals.iter().enumerate() {
        let phase = *sig
            .samples
            .first()
            .expect("every signal samples some phase");
        // (machine level, machine count, oracle level, oracle run of opposite samples).
        type Node = (bool, u16, bool, u16);
        let start: Node = (false, 0, false, 0);
        let mut seen = BTreeSet::from([start]);
        let mut queue = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            // Inputs: a true sample, a false sample, not sampled (signal disabled).
            for input in [Some(true), Some(false), None] {
                let mut snap = machine.initial();
                snap.level[s] = node.0;
                snap.count[s] = node.1;
                let mut raw = vec![false; n];
                let mut enabled = vec![false; n];
                if let Some(v) = input {
                    raw[s] = v;
                    enabled[s] = true;
                }
                let checkpoints = vec![false; spec.checkpoints.len()];
                let tool = phase.is_tool();
                let inp = Input {
                    phase,
                    tier: tool.then_some(spec.default_tier),
                    kind: tool.then_some(spec.default_kind),
                    role: None,
                    raw: &raw,
                    enabled: &enabled,
                    checkpoints: &checkpoints,
                    backstop: false,
                    timeout: false,
                    rearm_secs_ok: true,
                    approved: false,
                };
                let before = snap.clone();
                let mut fired = Vec::new();
                machine.step(&mut snap, &inp, &mut |t| fired.push(t));
                steps += 1;
                let (rising, falling) = gate_spec::exec::edges(&before, &snap);
                let rose = rising.contains(&(s as SignalId));
                let fell = falling.contains(&(s as SignalId));
                // Never on and off on one event, in the levels or in the fired transitions.
                assert!(
                    !(rose && fell),
                    "{}: signal {} both edges",
                    spec.name,
                    sig.name
                );
                let on = fired.iter().any(|t| {
                    spec.transitions[*t as usize].trigger == Trigger::Signal(s as SignalId)
                });
                let off = fired.iter().any(|t| {
                    spec.transitions[*t as usize].trigger == Trigger::Clear(s as SignalId)
                });
                assert!(
                    !(on && off),
                    "{}: signal {} fired on and off",
                    spec.name,
                    sig.name
                );
                assert!(
                    !on || rose,
                    "{}: signal trigger without rising edge",
                    spec.name
                );
                assert!(
                    !off || fell,
                    "{}: clear trigger without falling edge",
                    spec.name
                );
                // The oracle: a run of samples opposite to the level since the last edge.
                let (mut olevel, mut run) = (node.2, node.3);
                let (mut orise, mut ofall) = (false, false);
                if let Some(v) = input {
                    if v != olevel {
                        run += 1;
                    } else {
                        run = 0;
                    }
                    let need = if olevel { sig.exit } else { sig.enter };
                    if run >= need {
                        if olevel {
                            ofall = true;
                        } else {
                            orise = true;
                        }
                        olevel = !olevel;
                        run = 0;
                    }
                }
                assert_eq!(
                    (rose, fell),
                    (orise, ofall),
                    "{}: signal {} from {node:?} on {input:?}: edges differ from the oracle (enter {}, exit {})",
                    spec.name,
                    sig.name,
                    sig.enter,
                    sig.exit
                );
                assert_eq!(
                    snap.level[s], olevel,
                    "{}: level differs from the oracle",
                    spec.name
                );
                let next: Node = (snap.level[s], snap.count[s], olevel, run);
                if seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
        // The debouncer's reachable space is exactly enter + exit states.
        assert_eq!(
            seen.len(),
            usize::from(sig.enter) + usize::from(sig.exit),
            "{}: signal {} debouncer space",
            spec.name,
            sig.name
        );
        states += seen.len();
    }
    (states, steps)
}

#[test]
fn exhaustive_every_spec() {
    assert!(!gate_specs::ALL.is_empty());
    for compiled in gate_specs::ALL {
        let r = explore(compiled);
        let spec = compiled.ir();
        let space = spec.states.len() * (usize::from(spec.rearm.min_actions) + 1);
        println!(
            "exhaustive {}: {} control states reachable (of {space}), {} transitions explored; \
             debouncers: {} states, {} transitions over {} signals",
            compiled.name,
            r.states,
            r.transitions,
            r.debouncer_states,
            r.debouncer_transitions,
            spec.signals.len()
        );
        assert!(r.states >= 1 && r.transitions >= r.states);
    }
}
