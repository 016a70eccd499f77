//! Quiet periods and restarting timers, through the engine: a steer from a template with
//! `quiet_actions` is shown, then silent for that many actions; one with `quiet_secs` is
//! silent until that many seconds passed (the injected clock); a state timer with
//! `restart = true` restarts on every transition that stays in its state.

mod common;

use common::engine::{bash, Scope, T0};
use common::specs::{compile, leak};
use gate_runtime::engine::Outcome;
use gate_runtime::verdict::Verdict;

const SPEC: &str = r#"
[machine]
name = "quiet"
initial = "idle"
kinds = ["k"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 500

[[tier]]
name = "high"
mode = "steer"
max_actions = 500

[[rule]]
name = "pushes"
commands = ["git push"]
tier = "high"

[[state]]
name = "idle"
timeout_secs = 60
restart = true

[[state]]
name = "stale"

[[transition]]
from = "idle"
on = "tier:low"
effects = ["steer:nudge"]

[[transition]]
from = "idle"
on = "tier:high"
effects = ["steer:hurry"]

[[transition]]
from = "idle"
on = "timeout"
to = "stale"

[[transition]]
from = "stale"
on = "tier:high"
to = "idle"

[template]
nudge = { text = "Run the tests.", quiet_actions = 5 }
hurry = { text = "Pushing again.", quiet_secs = 10 }
"#;

struct Run(Scope);

impl Run {
    fn new(source: &str) -> Run {
        Run(Scope::new(leak(compile(source))))
    }

    fn run(&mut self, command: &str, at_ms: i64) -> Outcome {
        self.0.evaluate(&bash(command, T0 + at_ms))
    }

    /// `S` where `command`, run `count` times `step_ms` apart, was steered with `text`, `.`
    /// where it was let through silently.
    fn pattern(&mut self, command: &str, count: i64, step_ms: i64, text: &str) -> String {
        (1..=count)
            .map(|i| {
                let out = self.run(command, i * step_ms);
                match &out.decision.verdict {
                    Verdict::Steer { text: t } if t == text => 'S',
                    Verdict::Allow => {
                        assert!(out.notes.iter().any(|n| n.kind == "quiet"), "{out:?}");
                        '.'
                    }
                    other => panic!("{command} at {i}: {other:?}"),
                }
            })
            .collect()
    }

    fn state(&self) -> &str {
        self.0.state_name()
    }
}

#[test]
fn a_quiet_actions_steer_is_silent_for_that_many_actions_then_shown_again() {
    let mut run = Run::new(SPEC);
    assert_eq!(
        run.pattern("ls", 13, 1000, "Run the tests."),
        "S.....S.....S"
    );
}

#[test]
fn a_quiet_secs_steer_is_silent_until_that_many_seconds_passed() {
    let mut run = Run::new(SPEC);
    // Shown at 3 s; 6, 9 and 12 s are within 10 s of it; 15 s is not.
    assert_eq!(
        run.pattern("git push", 9, 3000, "Pushing again."),
        "S...S...S"
    );
}

#[test]
fn quiet_state_is_kept_with_the_scope() {
    let mut run = Run::new(SPEC);
    run.run("ls", 1000);
    // The stored state, read back (as the hook does between calls), still knows.
    let stored = serde_json::to_string(&run.0.state.observer).unwrap();
    run.0.state.observer = serde_json::from_str(&stored).unwrap();
    assert!(matches!(
        run.run("ls", 2000).decision.verdict,
        Verdict::Allow
    ));
}

#[test]
fn a_restarting_timer_restarts_on_a_transition_that_stays_in_its_state() {
    let mut run = Run::new(SPEC);
    for secs in [1, 40, 80, 120, 160] {
        run.run("ls", secs * 1000);
        assert_eq!(run.state(), "idle", "at {secs} s");
    }
    // Quiet for 60 s from the last transition that stayed: the timer runs out.
    run.run("ls", 220_000);
    assert_eq!(run.state(), "stale");
}

#[test]
fn without_restart_the_timer_runs_from_entering_the_state() {
    let mut run = Run::new(&SPEC.replace("restart = true\n", ""));
    // The first event starts the initial state's timer.
    run.run("ls", 1_000);
    run.run("ls", 40_000);
    assert_eq!(run.state(), "idle");
    run.run("ls", 80_000);
    assert_eq!(run.state(), "stale");
}

#[test]
fn a_restarting_timeout_that_stays_restarts_from_the_last_transition_of_its_event() {
    // The timeout stays in `idle`: a periodic timer, restarted by the action after it.
    let periodic = SPEC
        .replace(
            "on = \"timeout\"\nto = \"stale\"",
            "on = \"timeout\"\nto = \"idle\"\neffects = [\"record:idle\"]",
        )
        .replace("effects = [\"steer:hurry\"]", "to = \"stale\"")
        .replace("hurry = {", "# hurry = {");
    let mut run = Run::new(&periodic);
    let timeouts = |o: &Outcome| o.notes.iter().filter(|n| n.kind == "timeout").count();
    run.run("ls", 1_000);
    // Idle for long: one timeout, then the action on the same event restarts the timer now.
    assert_eq!(timeouts(&run.run("ls", 200_000)), 1);
    // Each action restarts it: 50 s later, no timeout; 61 s after the last action, one.
    assert_eq!(timeouts(&run.run("ls", 250_000)), 0);
    assert_eq!(timeouts(&run.run("ls", 311_000)), 1);
    assert_eq!(run.state(), "idle");
}
