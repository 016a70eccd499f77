//! Codex CLI: Claude-like payloads (`turn_id`, `model`), shell and `apply_patch` tools, no
//! native ask (an ask is a deny whose reason names the approve command).

use super::{
    block, context_text, exit_code_in, hook_specific, permission, refuse_permission,
    status_of_exit, Node, Payload,
};
use gate_runtime::event::{Event, Status};
use gate_runtime::verdict::{Decision, Verdict};
use gate_spec::ir::ActionClass;
use serde_json::{json, Value};

/// Events `gate init codex` wires.
pub(super) const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

pub(crate) use gate_runtime::effects::patch::{patch_files, PatchOp};

pub(super) fn refine(payload: &Payload<'_>, event: &mut Event) {
    if event.tool.as_deref() == Some("apply_patch") {
        let patch = payload
            .tool_input()
            .and_then(|input| input.string(&["command", "patch", "input"]))
            .unwrap_or_default();
        let files = patch_files(&patch);
        if !files.is_empty() {
            let only_deletes = files.iter().all(|f| f.op == PatchOp::Delete);
            event.class = Some(if only_deletes {
                ActionClass::Delete
            } else {
                ActionClass::Write
            });
            event.target = files.first().map(|f| f.path.clone());
            event.paths = files.into_iter().map(|f| f.path).collect();
            // The text it adds, read as code where it lands in a file something runs later.
            event.written =
                Some(gate_runtime::effects::patch::added_lines(&patch)).filter(|t| !t.is_empty());
        }
    }
    if event.hook_event == "PostToolUse" {
        event.status = match payload.value(&["tool_response"]) {
            // Bash: the output string; it names the exit code only in some forms.
            Some(Node::String(text)) => exit_code_in(text).map(status_of_exit),
            Some(Node::Object(map)) => map
                .get("exit_code")
                .or_else(|| map.get("exitCode"))
                .and_then(Node::as_i64)
                .map(status_of_exit)
                .or_else(|| {
                    map.get("output")
                        .and_then(Node::as_str)
                        .and_then(exit_code_in)
                        .map(status_of_exit)
                }),
            _ => None,
        };
        // `apply_patch` reports success in words when it has no exit code line.
        if event.status.is_none() {
            if let Some(Node::String(text)) = payload.value(&["tool_response"]) {
                if text.contains("Success. Updated the following files") {
                    event.status = Some(Status::Success);
                }
            }
        }
        // A shell result without an exit code: the runner's own result lines, when the line
        // ran the runner alone (`gate_runtime::evidence`); otherwise the status stays unknown.
        if event.status.is_none() && event.tool.as_deref() != Some("apply_patch") {
            let output = match payload.value(&["tool_response"]) {
                Some(Node::String(text)) => Some(&**text),
                Some(Node::Object(map)) => map.get("output").and_then(Node::as_str),
                _ => None,
            };
            if let (Some(output), Some(command)) = (output, event.target.as_deref()) {
                event.status = gate_runtime::evidence::status_from_output(command, output);
            }
        }
    }
}

fn takes_context(name: &str) -> bool {
    matches!(
        name,
        "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "SessionStart"
    )
}

pub(super) fn render(event: &Event, decision: &Decision) -> Option<Value> {
    let name = event.hook_event.as_str();
    let context = context_text(decision).filter(|_| takes_context(name));
    match &decision.verdict {
        Verdict::Allow | Verdict::Steer { .. } => {
            context.map(|c| hook_specific(event, vec![("additionalContext", json!(c))]))
        }
        // Codex rejects `ask` (the tool would run): deny with the approval path instead.
        Verdict::Ask { reason, .. } | Verdict::Deny { reason } => deny(event, reason, context),
    }
}

fn deny(event: &Event, reason: &str, context: Option<String>) -> Option<Value> {
    match event.hook_event.as_str() {
        "PreToolUse" => Some(permission(event, "deny", reason, context)),
        "PermissionRequest" => Some(refuse_permission(event, reason)),
        "PostToolUse" | "UserPromptSubmit" | "Stop" | "SubagentStop" => block(event, reason),
        _ => None,
    }
}
