//! Claude Code: snake_case payloads, `hookSpecificOutput` answers, native ask.

use super::{block, context_text, hook_specific, permission, refuse_permission, Node, Payload};
use gate_runtime::event::{Event, Status};
use gate_runtime::verdict::{Decision, Verdict};
use gate_spec::ir::Phase;
use serde_json::{json, Value};

/// Events `gate init claude-code` wires.
pub(super) const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

pub(super) fn refine(payload: &Payload<'_>, event: &mut Event) {
    event.status = match event.hook_event.as_str() {
        "PostToolUse" => Some(Status::Success),
        "PostToolUseFailure" => Some(Status::Failure),
        _ => None,
    };
    // A tool error reported inside a PostToolUse response (Claude marks them `is_error`).
    if event.hook_event == "PostToolUse"
        && payload
            .value(&["tool_response"])
            .and_then(|r| r.get("is_error"))
            .and_then(Node::as_bool)
            == Some(true)
    {
        event.status = Some(Status::Failure);
    }
}

/// Events whose answer can carry `additionalContext`.
fn takes_context(name: &str) -> bool {
    matches!(
        name,
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "UserPromptSubmit" | "SessionStart"
    )
}

pub(super) fn render(event: &Event, decision: &Decision) -> Option<Value> {
    let name = event.hook_event.as_str();
    let context = context_text(decision).filter(|_| takes_context(name));
    match &decision.verdict {
        Verdict::Allow | Verdict::Steer { .. } => {
            context.map(|c| hook_specific(event, vec![("additionalContext", json!(c))]))
        }
        Verdict::Ask { reason, .. } => {
            if event.bypasses_permissions() {
                // Some versions auto-approve a hook's ask in bypassPermissions mode.
                return deny(event, reason, context);
            }
            match name {
                "PreToolUse" => Some(permission(event, "ask", reason, context)),
                // The runtime is about to ask the user itself: that is the ask.
                "PermissionRequest" => None,
                _ => deny(event, reason, context),
            }
        }
        Verdict::Deny { reason } => deny(event, reason, context),
    }
}

fn deny(event: &Event, reason: &str, context: Option<String>) -> Option<Value> {
    match event.hook_event.as_str() {
        "PreToolUse" => Some(permission(event, "deny", reason, context)),
        "PermissionRequest" => Some(refuse_permission(event, reason)),
        "PostToolUse" | "PostToolUseFailure" | "UserPromptSubmit" | "Stop" | "SubagentStop" => {
            let mut answer = block(event, reason)?;
            if let (Some(c), Some(Phase::PostTool | Phase::PostToolFailure)) =
                (context, event.phase)
            {
                answer["hookSpecificOutput"] =
                    json!({"hookEventName": event.hook_event, "additionalContext": c});
            }
            Some(answer)
        }
        _ => None,
    }
}
