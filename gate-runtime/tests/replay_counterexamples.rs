//! Every counterexample the verifier gives for deliberately broken specs is a real trace:
//! run again on the interpreter from a new identity, carrying the whole memory from event to
//! event (`verify::replay`), it passes through the same states, fires the same transitions,
//! gets the same answers, and its last event breaks the invariant it is given for.

mod common;

use common::specs::{compile, compile_path, finding, fixture, fixture_path, verified};
use gate_runtime::interp::Interpreter;
use gate_runtime::verify::counterexample::{role_name, transition_text};
use gate_runtime::verify::{replay, Counterexample};
use gate_spec::invariant::Claim;
use gate_spec::ir::{RoleId, Spec};

/// Broken on purpose: each breaks at least one invariant, built-in or declared.
fn broken() -> Vec<(&'static str, Spec)> {
    vec![
        (
            "trust before its first-action fix",
            compile_path(&fixture_path("trust_first_action_allowed.toml")),
        ),
        ("a counter that denies the fourth edit", compile(COUNTED)),
        ("a withholding state with no way out", compile(STUCK)),
        (
            "a timer that leaves the denying state",
            compile(&format!("{}{TIMED}", fixture("timers.toml"))),
        ),
    ]
}

/// The fourth edit since the last test run is denied; the invariants claim it never is, and
/// that the count can always come back to zero from `done` (it cannot).
const COUNTED: &str = r#"
[machine]
name = "counted"
initial = "idle"
kinds = ["explore", "edit"]

[[tier]]
name = "low"
mode = "gate"
max_actions = 10

[[counter]]
name = "edits"
max = 3

[[state]]
name = "idle"

[[state]]
name = "done"

[[transition]]
from = "idle"
on = "event:pre_tool"
guard = { kind = "edit", counter = "edits < 3" }
effects = ["inc:edits"]

[[transition]]
from = "idle"
on = "event:pre_tool"
guard = { kind = "edit", counter = "edits >= 3" }
effects = ["deny:many"]

[[transition]]
from = "idle"
on = "event:session_end"
to = "done"

[template]
many = "too many edits"

[[invariant]]
name = "edits_never_denied"
kind = "edit"
never = "deny"

[[invariant]]
name = "idle_comes_back"
reachable = "idle"
"#;

/// A high action moves to `jail`, which denies everything; its one way out needs a counter
/// nothing increments.
const STUCK: &str = r#"
[machine]
name = "stuck"
initial = "idle"
kinds = ["explore"]

[[tier]]
name = "low"
mode = "gate"
max_actions = 10

[[tier]]
name = "high"
mode = "gate"
max_actions = 10

[[state]]
name = "idle"

[[counter]]
name = "paroles"
max = 1

[[state]]
name = "jail"
withhold = "deny:jailed"

[[transition]]
from = "idle"
on = "tier:high"
to = "jail"

[[transition]]
from = "jail"
on = "approved"
guard = { counter = "paroles >= 1" }
to = "idle"

[template]
jailed = "jailed"
"#;

/// Added to `tests/fixtures/specs/timers.toml`, whose `cooling` denies high actions until its
/// timer runs out: the invariant forgets the timer.
const TIMED: &str = r#"
[[invariant]]
name = "cooling_denies_high"
state = "cooling"
tier = "high"
always = "deny"
"#;

fn role_id(spec: &Spec, name: &str) -> Option<RoleId> {
    (0..spec.roles.len())
        .map(|r| Some(r as RoleId))
        .find(|r| role_name(spec, *r) == name)
        .unwrap_or(None)
}

/// Replays `c` and holds every event equal to what the counterexample says of it; the
/// replayed events.
fn replay_equal(spec: &Spec, c: &Counterexample) -> Vec<replay::Replayed> {
    let interp = Interpreter::new(spec);
    let role = role_id(spec, &c.role);
    let replayed = replay::replay(spec, &interp, role, &c.trace)
        .unwrap_or_else(|i| panic!("event {} cannot happen:\n{}", i + 1, c.render("")));
    assert_eq!(replayed.len(), c.events.len());
    for (r, e) in replayed.iter().zip(&c.events) {
        assert_eq!(spec.state_name(r.from), e.from, "{}", c.render(""));
        assert_eq!(spec.state_name(r.to), e.to, "{}", c.render(""));
        let fired: Vec<String> = r.fired.iter().map(|&t| transition_text(spec, t)).collect();
        assert_eq!(fired, e.fired, "{}", c.render(""));
        assert_eq!(Some(r.verdicts.answer), e.answer, "{}", c.render(""));
    }
    replayed
}

#[test]
fn every_counterexample_replays_on_the_interpreter() {
    let mut replayed = 0;
    for (what, spec) in broken() {
        let report = verified(&spec);
        let mut traced = 0;
        for f in &report.invariants {
            let Some(c) = &f.counterexample else { continue };
            if c.trace.is_empty() {
                // Outside the control graph: a debouncer's samples or the spec's text.
                assert!(
                    c.events.iter().all(|e| e.from.is_empty()),
                    "{what}: {}",
                    f.name
                );
                continue;
            }
            let events = replay_equal(&spec, c);
            println!("{what}: {} replayed ({} events)", f.name, events.len());
            traced += 1;
            // A declared answer claim is broken by the last event's answer.
            if let Some(inv) = spec.invariants.iter().find(|i| *i.name == *f.name) {
                let answer = events.last().expect("an event").verdicts.answer;
                match &inv.claim {
                    Claim::Never(list) => assert!(list.contains(&answer), "{what}: {}", f.name),
                    Claim::Always(list) => assert!(!list.contains(&answer), "{what}: {}", f.name),
                    Claim::Reach(targets) => {
                        assert!(!targets.contains(&events.last().unwrap().to), "{what}")
                    }
                }
            }
        }
        assert!(traced > 0, "{what}: no counterexample to replay");
        replayed += traced;
    }
    assert!(replayed >= 5, "{replayed}");
}

/// The counter's counterexample needs the three edits before the denied one: the replay
/// carries the counter, so the same trace without its first event is not a counterexample
/// (what the replay would catch if the explorer gave a path that does not chain).
#[test]
fn a_trace_that_does_not_chain_is_caught() {
    let spec = compile(COUNTED);
    let interp = Interpreter::new(&spec);
    let report = verified(&spec);
    let c = finding(&report, "edits_never_denied")
        .counterexample
        .clone()
        .expect("refuted");
    assert_eq!(c.trace.len(), 4, "{}", c.render(""));
    replay_equal(&spec, &c);
    let short = replay::replay(&spec, &interp, None, &c.trace[1..]).expect("each can happen");
    assert_ne!(
        short.last().unwrap().verdicts.answer,
        gate_runtime::verify::Answer::Deny
    );
}
