//! Bounded counters (`[[counter]]`, `inc:`/`reset:`, `counter` guards) through the machine:
//! the reference interpreter's step semantics (saturation, reset, a later trigger of the same
//! event seeing the new value), the compiled example equal to it, the counters persisted and
//! restored with the scope's state, and `gate verify` exploring every counter value.

mod common;

use common::specs::{compile, finding, shipped};
use gate_runtime::engine::ScopeState;
use gate_runtime::interp::Interpreter;
use gate_runtime::verify;
use gate_spec::exec::{Input, Machine, Snapshot};
use gate_spec::ir::{Phase, Spec};

const SPEC: &str = r#"
[machine]
name = "counting"
initial = "idle"
kinds = ["explore", "edit"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 40

[[counter]]
name = "edits"
max = 3

[[state]]
name = "idle"

[[state]]
name = "tired"

# Counted on the phase trigger, read on the action trigger of the same event.
[[transition]]
from = "*"
on = "event:pre_tool"
guard = { kind = "edit" }
effects = ["inc:edits"]

[[transition]]
from = "idle"
on = "action"
guard = { counter = "edits >= 3" }
to = "tired"
effects = ["steer:tired"]

[[transition]]
from = "tired"
on = "event:prompt"
to = "idle"
effects = ["reset:edits"]

[template]
tired = "three edits"
"#;

fn spec() -> Spec {
    compile(SPEC)
}

fn step(machine: &dyn Machine, memory: &mut Snapshot, phase: Phase, kind: Option<u8>) -> Vec<u16> {
    let input = Input {
        phase,
        tier: phase.is_tool().then_some(0),
        kind,
        role: None,
        raw: &[],
        enabled: &[],
        checkpoints: &[],
        backstop: false,
        timeout: false,
        region_timeouts: &[],
        rearm_secs_ok: true,
        approved: false,
    };
    let mut fired = Vec::new();
    machine.step(memory, &input, &mut |t| fired.push(t));
    fired
}

#[test]
fn a_counter_saturates_resets_and_is_read_by_a_later_trigger_of_the_same_event() {
    let spec = spec();
    let interp = Interpreter::new(&spec);
    let mut m = interp.initial();
    assert_eq!(m.counters, [0]);
    // A read does not count.
    step(&interp, &mut m, Phase::PreTool, Some(0));
    assert_eq!(m.counters, [0]);
    step(&interp, &mut m, Phase::PreTool, Some(1));
    step(&interp, &mut m, Phase::PreTool, Some(1));
    assert_eq!((m.counters[0], m.state), (2, 0));
    // The third edit counts on `event:pre_tool`, and `action` of the same event sees 3.
    let fired = step(&interp, &mut m, Phase::PreTool, Some(1));
    // (`from = "*"` is transitions 0 and 1, one per state; the `action` one is 2.)
    assert_eq!(fired, [0, 2]);
    assert_eq!((m.counters[0], m.state), (3, 1));
    // Saturates at max.
    step(&interp, &mut m, Phase::PreTool, Some(1));
    assert_eq!(m.counters, [3]);
    step(&interp, &mut m, Phase::Prompt, None);
    assert_eq!((m.counters[0], m.state), (0, 0));
}

#[test]
fn a_stored_memory_keeps_its_counters_and_one_out_of_range_is_not_fitted() {
    let spec = spec();
    let interp = Interpreter::new(&spec);
    let mut state = ScopeState::initial(&spec, &interp);
    state.machine.counters = vec![2];
    let json = serde_json::to_string(&state).expect("serialises");
    let back: ScopeState = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(back.machine.counters, [2]);
    assert!(back.fits(&spec));
    let mut over = back.clone();
    over.machine.counters = vec![4];
    assert!(!over.fits(&spec), "above max");
    over.machine.counters = vec![];
    assert!(!over.fits(&spec), "a counter missing");
    // A spec without counters stores exactly what it stored before counters existed.
    let plain = shipped("jwc");
    let plain_state = ScopeState::initial(plain.ir(), plain.machine);
    let json = serde_json::to_string(&plain_state).expect("serialises");
    assert!(!json.contains("counters"), "{json}");
}

#[test]
fn verify_explores_every_counter_value() {
    let spec = spec();
    let interp = Interpreter::new(&spec);
    let graphs = verify::explore_all(&spec, &interp, None)
        .expect("within the exploration budget")
        .graphs;
    let mut seen: Vec<(u8, u16)> = graphs[0]
        .nodes
        .iter()
        .map(|n| (n.state, n.counters[0]))
        .collect();
    seen.sort();
    seen.dedup();
    // `idle` with 0..=2 edits (3 moves to `tired` on the same event), `tired` with 3, and
    // `idle` again at 0 after the prompt.
    assert_eq!(seen, [(0, 0), (0, 1), (0, 2), (1, 3)]);
    let report =
        verify::verify(&spec, &interp, Some(&interp)).expect("within the exploration budget");
    assert!(report.invariants.iter().all(|f| f.holds()));
}

#[test]
fn the_compiled_example_counts_as_the_interpreter_does() {
    let compiled = shipped("example");
    let spec = compiled.ir();
    assert_eq!(spec.counters.len(), 1);
    let interp = Interpreter::new(spec);
    let report = verify::verify(spec, compiled.machine, Some(&interp))
        .expect("within the exploration budget");
    let consistent = finding(&report, "machine_consistent");
    assert!(consistent.holds() && consistent.checked > 0);
    let values: std::collections::BTreeSet<u16> = verify::explore_all(spec, compiled.machine, None)
        .expect("within the exploration budget")
        .graphs
        .iter()
        .flat_map(|g| g.nodes.iter().map(|n| n.counters[0]))
        .collect();
    assert_eq!(values, (0..=41).collect());
}
