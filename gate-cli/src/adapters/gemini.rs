//! Gemini CLI: its own tool and event names, ISO timestamps, top-level `decision` answers,
//! and no context on BeforeTool (steering text is carried to the next answer that takes it).

use super::{block, context_text, exit_code_in, hook_specific, status_of_exit, Node, Payload};
use gate_runtime::event::{Event, Status};
use gate_runtime::verdict::{Decision, Verdict};
use serde_json::{json, Value};

/// Events `gate init gemini` wires.
pub(super) const EVENTS: &[&str] = &[
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
];

pub(super) fn refine(payload: &Payload<'_>, event: &mut Event) {
    if event.hook_event != "AfterTool" {
        return;
    }
    let response = payload.value(&["tool_response"]);
    let error = response
        .and_then(|r| r.get("error"))
        .filter(|e| !e.is_null() && e.as_str() != Some(""));
    event.status = Some(if error.is_some() {
        Status::Failure
    } else {
        response
            .and_then(|r| r.get("llmContent"))
            .and_then(Node::as_str)
            .and_then(exit_code_in)
            .map_or(Status::Success, status_of_exit)
    });
}

/// Events whose answer can carry `hookSpecificOutput.additionalContext`.
fn takes_context(name: &str) -> bool {
    matches!(name, "AfterTool" | "BeforeAgent" | "SessionStart")
}

pub(super) fn render(event: &Event, decision: &Decision) -> Option<Value> {
    let name = event.hook_event.as_str();
    let context = context_text(decision).filter(|_| takes_context(name));
    match &decision.verdict {
        Verdict::Allow | Verdict::Steer { .. } => {
            context.map(|c| hook_specific(event, vec![("additionalContext", json!(c))]))
        }
        // `decision: "ask"` hangs a headless Gemini: deny with the approval path instead.
        Verdict::Ask { reason, .. } | Verdict::Deny { reason } => match name {
            "BeforeTool" | "AfterTool" | "BeforeAgent" => {
                let mut answer = json!({"decision": "deny", "reason": reason});
                if let Some(c) = context {
                    answer["hookSpecificOutput"] =
                        json!({"hookEventName": name, "additionalContext": c});
                }
                Some(answer)
            }
            "AfterAgent" => block(event, reason),
            _ => None,
        },
    }
}
