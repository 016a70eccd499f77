//! The verdict the explorer gives a step (`verify::answer::verdicts`) is the engine's: on
//! generated event traces through every shipped spec, under every role, with and without a
//! consumed grant, the proposed verdict, the mode and the answer computed from the fired
//! transitions equal what `Engine::evaluate` returns (outside the two things the abstraction
//! leaves out: gate's self-protection deny and guidance carried to a later answer).

mod common;

use common::engine::evaluate;
use common::specs::{compile, finding, verified};
use common::tools::{set_call, status_in, TOOLS};
use gate_runtime::engine::{Engine, ScopeState};
use gate_runtime::event::{Event, Runtime};
use gate_runtime::verify::answer::verdicts;
use gate_runtime::verify::explorer;
use gate_spec::ir::Phase;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn event(phase_pick: u8, tool: u8, fail: bool, now: i64) -> Event {
    let phase = match phase_pick % 20 {
        0..=10 => Phase::PreTool,
        11..=15 => Phase::PostTool,
        16 => Phase::PostToolFailure,
        17 => Phase::Prompt,
        p => Phase::ALL[(p as usize * 5) % Phase::ALL.len()],
    };
    let mut e = Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(phase),
        hook_event: phase.as_str().to_string(),
        timestamp_ms: Some(now),
        session_id: Some("s".to_string()),
        cwd: Some("/repo".to_string()),
        ..Event::default()
    };
    if phase.is_tool() {
        set_call(&mut e, TOOLS[tool as usize % TOOLS.len()]);
        e.status = status_in(phase, fail);
    }
    if phase == Phase::Prompt {
        e.prompt = Some("go on".to_string());
    }
    e
}

#[test]
fn the_explorers_verdict_is_the_engines() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut runner = TestRunner::new(Config::with_cases(cases));
    let strategy = proptest::collection::vec(
        (
            any::<u8>(),
            any::<u8>(),
            any::<bool>(),
            0u32..120_000,
            proptest::bool::weighted(0.15),
        ),
        1..40,
    );
    let compared = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&strategy, |trace| {
            for compiled in gate_specs::ALL {
                let spec = compiled.ir();
                let engine = Engine::new(spec, compiled.machine);
                for role in explorer::roles(spec) {
                    let mut state = ScopeState::initial(spec, compiled.machine);
                    let mut now = 1_700_000_000_000i64;
                    for &(phase, tool, fail, dt, approve) in &trace {
                        now += i64::from(dt);
                        let e = event(phase, tool, fail, now);
                        let approved = approve && e.phase == Some(Phase::PreTool);
                        let o = evaluate(&engine, &mut state, &e, now, role, approved);
                        let phase = e.phase.unwrap_or(Phase::Other);
                        let v = verdicts(
                            spec,
                            phase,
                            phase.is_tool().then_some(o.classification.tier),
                            role,
                            approved,
                            &o.fired,
                            state.machine.state,
                        );
                        prop_assert_eq!(v.proposed.as_str(), o.proposed.name(), "{}", spec.name);
                        prop_assert_eq!(v.mode, o.mode, "{}", spec.name);
                        // The engine's built-in denials (gate's own files, catastrophic
                        // targets) stand before the machine, outside the explored abstraction.
                        let effects = &o.classification.effects;
                        let protected = phase == Phase::PreTool
                            && (gate_runtime::effects::self_protection(effects).is_some()
                                || gate_runtime::effects::catastrophic(effects).is_some());
                        if !protected {
                            prop_assert_eq!(
                                v.answer.as_str(),
                                o.decision.verdict.name(),
                                "{}: {:?}",
                                spec.name,
                                e.target
                            );
                        }
                        compared.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(compared.into_inner() > 0);
}

/// A spec's own `[[invariant]]`s are decided: a true one is proven, a false `always` gives the
/// one event that breaks it, and a false `reachable` the shortest path into the sink.
#[test]
fn declared_invariants_are_proven_or_refuted() {
    let source = r#"
[machine]
name = "declared"
initial = "idle"
kinds = ["explore", "edit"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 20

[[tier]]
name = "high"
mode = "gate"
max_actions = 5

[[rule]]
name = "force_push"
commands = ["git push --force"]
tier = "high"

[[state]]
name = "idle"

[[state]]
name = "done"

[[transition]]
from = "idle"
on = "tier:high"
effects = ["deny:no"]

[[transition]]
from = "idle"
on = "event:session_end"
to = "done"

[template]
no = "no"

[[invariant]]
name = "high_never_allowed_in_idle"
state = "idle"
tier = ">= high"
never = ["allow", "steer"]

[[invariant]]
name = "everything_passes"
tier = "high"
always = "allow"

[[invariant]]
name = "idle_comes_back"
reachable = "idle"
"#;
    let spec = compile(source);
    assert_eq!(spec.invariants.len(), 3);
    let report = verified(&spec);
    let find = |name: &str| finding(&report, name);
    let proven = find("high_never_allowed_in_idle");
    assert!(proven.holds() && !proven.builtin && proven.checked > 0);
    let refuted = find("everything_passes")
        .counterexample
        .as_ref()
        .expect("false");
    assert_eq!(refuted.events.len(), 1, "{}", refuted.render(""));
    assert!(refuted.events[0].event.starts_with("pre_tool tier=high"));
    assert_eq!(
        refuted.events[0].answer,
        Some(gate_runtime::verify::Answer::Deny)
    );
    let sink = find("idle_comes_back")
        .counterexample
        .as_ref()
        .expect("false");
    assert_eq!(sink.events.len(), 1, "{}", sink.render(""));
    assert_eq!(sink.events[0].event, "session_end");
    assert_eq!(sink.events[0].to, "done");
    assert!(!report.holds());
}

/// A `while:` trigger is explored on the event of its signal's rising edge (taken after the
/// `signal:` that moved the machine there) and on events where the signal stays on; it never
/// fires where the signal is off.
#[test]
fn while_triggers_are_explored_on_the_level() {
    let source = r#"
[machine]
name = "level"
initial = "idle"
kinds = ["explore"]

[[tier]]
name = "low"
mode = "gate"
max_actions = 20

[[signal]]
name = "hot"
family = "tier_at_least"
tier = "low"
enter = 2
exit = 2

[[state]]
name = "idle"

[[state]]
name = "warm"

[[transition]]
from = "idle"
on = "signal:hot"
to = "warm"

[[transition]]
from = "warm"
on = "while:hot"
effects = ["deny:hot"]

# (A rising edge in warm, which the abstraction allows as a free input, leaves it first.)
[[transition]]
from = "warm"
on = "signal:hot"
to = "idle"

[[transition]]
from = "warm"
on = "clear:hot"
to = "idle"

[template]
hot = "hot"

[[invariant]]
name = "warm_never_denies"
state = "warm"
tier = "low"
never = ["deny"]

[[invariant]]
name = "idle_never_denies"
state = "idle"
tier = "low"
never = ["deny"]
"#;
    let spec = compile(source);
    let report = verified(&spec);
    let find = |name: &str| finding(&report, name);
    // Arriving in idle, the edge moves the machine to warm and the level denies on that same
    // event: an event arriving in idle can deny.
    let at_edge = find("idle_never_denies")
        .counterexample
        .as_ref()
        .expect("the rising edge's event denies");
    let last = at_edge.events.last().unwrap();
    assert!(
        last.event.contains("signal hot turns on"),
        "{}",
        at_edge.render("")
    );
    assert_eq!(last.to, "warm");
    assert_eq!(last.answer, Some(gate_runtime::verify::Answer::Deny));
    // In warm, the signal staying on denies too (a letter of its own: no edge).
    let held = find("warm_never_denies")
        .counterexample
        .as_ref()
        .expect("the level denies in warm");
    assert!(
        held.events
            .last()
            .unwrap()
            .event
            .contains("signal hot is on"),
        "{}",
        held.render("")
    );
    assert_eq!(
        held.events.last().unwrap().answer,
        Some(gate_runtime::verify::Answer::Deny),
        "{}",
        held.render("")
    );
    // Every built-in invariant holds, anti_flap's while check included.
    assert!(report
        .invariants
        .iter()
        .filter(|f| f.builtin)
        .all(|f| f.holds()));
}
