//! The texts of one answer say each thing once: steers of one event with the same text (a
//! base's and an extension's, rendered from different templates) are shown once, and a steer
//! equal to the ask's reason is not repeated after it.

use gate_runtime::engine::{Context, Engine, ScopeState};
use gate_runtime::event::{Event, Runtime};
use gate_runtime::interp::Interpreter;
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Phase, Spec};

const SPEC: &str = r#"
[machine]
name = "texts"
initial = "idle"
kinds = ["k"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 50

[[tier]]
name = "high"
mode = "gate"
max_actions = 50

[[rule]]
name = "pushes"
commands = ["git push"]
tier = "high"

[[rule]]
name = "tags"
commands = ["git tag"]
tier = "low"

[[state]]
name = "idle"

[[transition]]
from = "idle"
on = "tier:high"
effects = ["steer:base", "steer:extension", "steer:other", "ask:why"]

[[transition]]
from = "idle"
on = "tier:low"
effects = ["steer:base", "steer:extension", "steer:other"]

[template]
base = "Check the remote first."
extension = "Check the remote first."
other = "Say what you pushed."
why = "Check the remote first."
"#;

fn answer(spec: &'static Spec, command: &str) -> Verdict {
    let machine: &'static Interpreter<'static> = Box::leak(Box::new(Interpreter::new(spec)));
    let engine = Engine::new(spec, machine);
    let mut state = ScopeState::initial(spec, machine);
    let event = Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(Phase::PreTool),
        hook_event: "pre_tool".to_string(),
        timestamp_ms: Some(1_700_000_000_000),
        session_id: Some("s1".to_string()),
        cwd: Some("/repo".to_string()),
        tool: Some("Bash".to_string()),
        class: Some(ActionClass::Exec),
        target: Some(command.to_string()),
        ..Event::default()
    };
    let mut mint = || "grant1".to_string();
    let mut cx = Context {
        now_ms: 1_700_000_000_000,
        role: None,
        approved: false,
        baselines: &Vec::new(),
        grant_id: &mut mint,
    };
    engine
        .evaluate(&mut state, &event, &mut cx)
        .decision
        .verdict
}

#[test]
fn equal_texts_of_one_answer_are_shown_once() {
    let (spec, diags) = gate_spec::compile(SPEC);
    let spec: &'static Spec = Box::leak(Box::new(
        spec.unwrap_or_else(|| panic!("{:?}", diags.items)),
    ));
    match answer(spec, "git tag v1") {
        Verdict::Steer { text } => {
            assert_eq!(text, "Check the remote first.\nSay what you pushed.")
        }
        other => panic!("a steer, got {other:?}"),
    }
    match answer(spec, "git push origin main") {
        Verdict::Ask { reason, .. } => {
            assert_eq!(reason, "Check the remote first.\nSay what you pushed.")
        }
        other => panic!("an ask, got {other:?}"),
    }
}
