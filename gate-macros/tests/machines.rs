//! Generated machines behave per `gate_spec::exec` on hand-written event sequences:
//! debouncing, the re-arm floor (actions and seconds), trigger order and guard order.

use gate_spec::exec::{Input, Machine as _, Snapshot};
use gate_spec::ir::Phase;

mod example {
    gate_macros::spec!("../specs/example.toml");
}

mod order {
    gate_macros::spec!("tests/machines/order.toml");
}

/// One event for the machine; fields default to "nothing happened".
#[derive(Clone)]
struct Event {
    phase: Phase,
    tier: Option<u8>,
    kind: Option<u8>,
    role: Option<u8>,
    raw: Vec<bool>,
    enabled: Vec<bool>,
    checkpoints: Vec<bool>,
    backstop: bool,
    timeout: bool,
    region_timeouts: Vec<bool>,
    rearm_secs_ok: bool,
    approved: bool,
}

impl Event {
    fn new(phase: Phase, n_signals: usize) -> Event {
        Event {
            phase,
            tier: None,
            kind: None,
            role: None,
            raw: vec![false; n_signals],
            enabled: vec![true; n_signals],
            checkpoints: Vec::new(),
            backstop: false,
            timeout: false,
            region_timeouts: Vec::new(),
            rearm_secs_ok: true,
            approved: false,
        }
    }
    fn action(n_signals: usize, tier: u8, kind: u8) -> Event {
        Event {
            tier: Some(tier),
            kind: Some(kind),
            ..Event::new(Phase::PreTool, n_signals)
        }
    }
    fn raw(mut self, signal: usize, value: bool) -> Event {
        self.raw[signal] = value;
        self
    }
}

/// Step `machine` through one event and return the transitions that fired.
fn step(machine: &dyn gate_spec::exec::Machine, memory: &mut Snapshot, event: &Event) -> Vec<u16> {
    let input = Input {
        phase: event.phase,
        tier: event.tier,
        kind: event.kind,
        role: event.role,
        raw: &event.raw,
        enabled: &event.enabled,
        checkpoints: &event.checkpoints,
        backstop: event.backstop,
        timeout: event.timeout,
        region_timeouts: &event.region_timeouts,
        rearm_secs_ok: event.rearm_secs_ok,
        approved: event.approved,
    };
    let mut fired = Vec::new();
    machine.step(memory, &input, &mut |t| fired.push(t));
    fired
}

// example.toml: signal `shift` (enter 2, exit 1), re-arm floor 3 actions; transitions
// 0 idle->window and 1 window->window on signal:shift (arm), 2 and 3 on tier:high (ask);
// counter `edits_since_green` (max 41): 4..=7 count each edit on `action` (6 and 7 from 40 on,
// and steer), 8 and 9 reset it on checkpoint:green.
const COUNTING: std::ops::RangeInclusive<u16> = 4..=7;

/// [`step`] without the transitions that only count edits (the tests of the debouncer and
/// the floor below send edits; `example_counts_edits_since_green` tests the counting).
fn control(
    machine: &dyn gate_spec::exec::Machine,
    memory: &mut Snapshot,
    event: &Event,
) -> Vec<u16> {
    let mut fired = step(machine, memory, event);
    fired.retain(|t| !COUNTING.contains(t));
    fired
}
const LOW: u8 = 0;
const HIGH: u8 = 1;
const MIGRATION: u8 = 2;
const EXPLORE: u8 = 0;
const EDIT: u8 = 1;

#[test]
fn example_initial_snapshot_meets_the_floor() {
    let m = example::Machine.initial();
    assert_eq!(m.state, example::State::Idle.id());
    // `shift` and `friday_afternoon`.
    assert_eq!(m.level, vec![false, false]);
    assert_eq!(m.count, vec![0, 0]);
    assert_eq!(m.since_arm, 3);
}

#[test]
fn example_signal_turns_on_after_enter_consecutive_samples() {
    let mut m = example::Machine.initial();
    let shifted = Event::action(1, LOW, EDIT).raw(0, true);
    let calm = Event::action(1, LOW, EXPLORE);
    assert_eq!(
        control(&example::Machine, &mut m, &shifted),
        Vec::<u16>::new()
    );
    assert_eq!((m.level[0], m.count[0]), (false, 1));
    // A false sample resets the count: one more true sample is not enough.
    assert!(control(&example::Machine, &mut m, &calm).is_empty());
    assert_eq!(m.count[0], 0);
    assert!(control(&example::Machine, &mut m, &shifted).is_empty());
    assert_eq!(control(&example::Machine, &mut m, &shifted), vec![0]);
    assert_eq!(m.state, example::State::Window.id());
    assert_eq!((m.level[0], m.count[0], m.since_arm), (true, 0, 0));
    // exit = 1: one calm sample turns it off (clear:shift has no transition).
    assert!(control(&example::Machine, &mut m, &calm).is_empty());
    assert_eq!((m.level[0], m.count[0]), (false, 0));
}

#[test]
fn example_debouncer_ignores_disabled_signals_and_unsampled_phases() {
    let mut m = example::Machine.initial();
    let mut disabled = Event::action(1, LOW, EDIT).raw(0, true);
    disabled.enabled = vec![false];
    for _ in 0..3 {
        assert!(control(&example::Machine, &mut m, &disabled).is_empty());
    }
    assert_eq!((m.level[0], m.count[0]), (false, 0));
    // kind_shift is sampled on pre_tool only.
    let post = Event::new(Phase::PostTool, 1).raw(0, true);
    for _ in 0..3 {
        assert!(control(&example::Machine, &mut m, &post).is_empty());
    }
    assert_eq!((m.level[0], m.count[0], m.since_arm), (false, 0, 3));
}

#[test]
fn example_rearm_floor_holds_back_a_second_arm() {
    let mut m = example::Machine.initial();
    let shifted = Event::action(1, LOW, EDIT).raw(0, true);
    let calm = Event::action(1, LOW, EXPLORE);
    control(&example::Machine, &mut m, &shifted);
    assert_eq!(control(&example::Machine, &mut m, &shifted), vec![0]);
    // Off, then on again after two samples: the third action since the arm meets the floor,
    // but the seconds part of the floor is not met yet, so nothing fires.
    control(&example::Machine, &mut m, &calm);
    control(&example::Machine, &mut m, &shifted);
    let mut too_soon = shifted.clone();
    too_soon.rearm_secs_ok = false;
    assert!(control(&example::Machine, &mut m, &too_soon).is_empty());
    assert_eq!(m.since_arm, 3);
    assert!(m.level[0]);
    // Off and on again with the seconds met: transition 1 re-arms.
    control(&example::Machine, &mut m, &calm);
    control(&example::Machine, &mut m, &shifted);
    assert_eq!(control(&example::Machine, &mut m, &shifted), vec![1]);
    assert_eq!(m.since_arm, 0);
}

#[test]
fn example_high_tier_action_fires_the_ask_after_the_arm() {
    let mut m = example::Machine.initial();
    step(
        &example::Machine,
        &mut m,
        &Event::action(1, LOW, EDIT).raw(0, true),
    );
    // Rising edge first (signal:shift, index 0), then the action's tier (tier:high from the
    // new state `window`, index 3).
    let high = Event::action(1, HIGH, EDIT).raw(0, true);
    assert_eq!(control(&example::Machine, &mut m, &high), vec![0, 3]);
    assert_eq!(m.state, example::State::Window.id());
    // A tier on a post-tool event is not an action.
    let mut post = Event::new(Phase::PostTool, 1);
    post.tier = Some(HIGH);
    assert!(control(&example::Machine, &mut m, &post).is_empty());
}

#[test]
fn example_counts_edits_since_green() {
    let mut m = example::Machine.initial();
    assert_eq!(m.counters, vec![0]);
    let edit = Event::action(1, LOW, EDIT);
    for i in 1..=40u16 {
        assert_eq!(step(&example::Machine, &mut m, &edit), vec![4]);
        assert_eq!(m.counters, vec![i]);
    }
    // The 41st edit steers (transition 6) and counts to max; the 42nd stays at max.
    assert_eq!(step(&example::Machine, &mut m, &edit), vec![6]);
    assert_eq!(step(&example::Machine, &mut m, &edit), vec![6]);
    assert_eq!(m.counters, vec![41]);
    // A read does not count.
    assert!(step(&example::Machine, &mut m, &Event::action(1, LOW, EXPLORE)).is_empty());
    // A passing test run resets it (8); region `tests` moves to `fresh` on it too (12).
    let mut green = Event::new(Phase::PostTool, 1);
    green.checkpoints = vec![true];
    assert_eq!(step(&example::Machine, &mut m, &green), vec![8, 12]);
    assert_eq!(m.counters, vec![0]);
    // A memory from a spec version without counters is fitted: one counter, at 0.
    let mut old = example::Machine.initial();
    old.counters.clear();
    assert_eq!(step(&example::Machine, &mut old, &edit), vec![4]);
    assert_eq!(old.counters, vec![1]);
}

// order.toml: states idle, editing, exploring, held; re-arm floor 2 actions.
// 0..=2 action [kind=edit, tier=low] -> editing (arm), from idle, editing, exploring
// 3..=5 action [kind=explore, tier=low] -> exploring (arm)
// 6..=8 tier:high [role=worker] -> held; 9 held approved -> idle; 10, 11 signal:start -> idle
const WORKER: u8 = 0;

#[test]
fn order_first_guard_that_holds_fires() {
    let mut m = order::Machine.initial();
    assert_eq!(
        step(&order::Machine, &mut m, &Event::action(1, LOW, EXPLORE)),
        vec![3]
    );
    assert_eq!(m.state, order::State::Exploring.id());
    // Floor: one action since the arm is not enough, two are.
    assert!(step(&order::Machine, &mut m, &Event::action(1, LOW, EDIT)).is_empty());
    assert_eq!(
        step(&order::Machine, &mut m, &Event::action(1, LOW, EDIT)),
        vec![2]
    );
    assert_eq!(m.state, order::State::Editing.id());
}

#[test]
fn order_guards_on_tier_and_role_need_a_tool_action() {
    let mut m = order::Machine.initial();
    let mut high = Event::action(1, HIGH, EDIT);
    // No role: the tier:high transition's guard fails and no action guard holds either.
    assert!(step(&order::Machine, &mut m, &high).is_empty());
    high.role = Some(WORKER);
    assert_eq!(step(&order::Machine, &mut m, &high), vec![6]);
    assert_eq!(m.state, order::State::Held.id());
    // In `held` nothing but approval moves the machine.
    assert!(step(&order::Machine, &mut m, &Event::action(1, LOW, EDIT)).is_empty());
    let mut approve = Event::new(Phase::PreTool, 1);
    approve.approved = true;
    approve.tier = Some(LOW);
    approve.kind = Some(EDIT);
    // Approved first (held -> idle), then the action from idle (floor met: 2 actions).
    assert_eq!(step(&order::Machine, &mut m, &approve), vec![9, 0]);
    assert_eq!(m.state, order::State::Editing.id());
}

#[test]
fn order_lifecycle_signal_closes_the_window_on_any_phase() {
    let mut m = order::Machine.initial();
    step(&order::Machine, &mut m, &Event::action(1, LOW, EDIT));
    let start = Event::new(Phase::SessionStart, 1).raw(0, true);
    assert_eq!(step(&order::Machine, &mut m, &start), vec![10]);
    assert_eq!(m.state, order::State::Idle.id());
    // exit = 1: the next sample without the event turns it off, on any phase.
    assert!(step(&order::Machine, &mut m, &Event::new(Phase::Stop, 1)).is_empty());
    assert!(!m.level[0]);
}

#[test]
fn an_unknown_state_id_fires_nothing_but_still_debounces() {
    let mut m = order::Machine.initial();
    m.state = 200;
    let start = Event::new(Phase::SessionStart, 1).raw(0, true);
    assert!(step(&order::Machine, &mut m, &start).is_empty());
    assert_eq!((m.state, m.level[0]), (200, true));
}

#[test]
fn compiled_entry_matches_the_ir() {
    let compiled = &example::COMPILED;
    assert_eq!(compiled.name, "example");
    assert_eq!(compiled.path, "specs/example.toml");
    let ir = compiled.ir();
    assert_eq!(ir.hash, example::HASH);
    assert_eq!(ir.all_triggers().len(), example::Trigger::ALL.len());
    for (t, ir_t) in example::Trigger::ALL.iter().zip(ir.all_triggers()) {
        assert_eq!(t.ir(), ir_t);
        assert_eq!(t.text(), ir.trigger_text(ir_t));
    }
    for (s, state) in example::State::ALL.iter().zip(&ir.states) {
        assert_eq!(s.name(), state.name);
    }
    assert_eq!(compiled.mermaid, gate_spec::diagram::mermaid(ir));
}

// example.toml's region `tests`: transitions 12 and 13 (checkpoint:green to `fresh`), 14
// (`fresh` times out to `stale`), 15 and 16 (tier:migration asks, from `idle` and `window`,
// while the region is `stale`).
#[test]
fn example_region_steps_beside_the_machine_with_its_own_timer() {
    let mut m = example::Machine.initial();
    assert_eq!(m.regions, vec![example::RegionTests::Stale.id()]);
    let migrate = Event::action(1, MIGRATION, EXPLORE);
    assert_eq!(step(&example::Machine, &mut m, &migrate), vec![15]);
    let mut green = Event::new(Phase::PostTool, 1);
    green.checkpoints = vec![true];
    assert_eq!(step(&example::Machine, &mut m, &green), vec![8, 12]);
    assert_eq!(m.regions, vec![example::RegionTests::Fresh.id()]);
    assert_eq!(m.state, example::State::Idle.id());
    assert!(step(&example::Machine, &mut m, &migrate).is_empty());
    // The main machine's timer is not the region's.
    let mut main_timer = migrate.clone();
    main_timer.timeout = true;
    assert!(step(&example::Machine, &mut m, &main_timer).is_empty());
    assert_eq!(m.regions, vec![example::RegionTests::Fresh.id()]);
    // The region's own timer moves it before the action's tier is taken, and the action's
    // guard reads the region as it is then: the same event asks.
    let mut region_timer = migrate.clone();
    region_timer.region_timeouts = vec![true];
    assert_eq!(step(&example::Machine, &mut m, &region_timer), vec![14, 15]);
    assert_eq!(m.regions, vec![example::RegionTests::Stale.id()]);
    // A memory from a spec version without regions is fitted: the region starts in its
    // initial state; one naming a state of another variable is too.
    for bad in [vec![], vec![example::State::Window.id()]] {
        let mut old = example::Machine.initial();
        old.regions = bad;
        assert_eq!(step(&example::Machine, &mut old, &migrate), vec![15]);
        assert_eq!(old.regions, vec![example::RegionTests::Stale.id()]);
    }
}
