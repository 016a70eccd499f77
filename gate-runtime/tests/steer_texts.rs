//! The texts of one answer say each thing once: steers of one event with the same text (a
//! base's and an extension's, rendered from different templates) are shown once, and a steer
//! equal to the ask's reason is not repeated after it.

mod common;

use common::engine::{bash, Scope, T0};
use common::specs::{compile, leak};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::Spec;

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

/// The answer to `command` as a new scope's first action.
fn answer(spec: &'static Spec, command: &str) -> Verdict {
    Scope::new(spec)
        .evaluate(&bash(command, T0))
        .decision
        .verdict
}

#[test]
fn equal_texts_of_one_answer_are_shown_once() {
    let spec = leak(compile(SPEC));
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
