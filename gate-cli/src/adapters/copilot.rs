//! Copilot CLI: two payload dialects (camelCase events with `toolName`/`toolArgs` and no event
//! name; PascalCase events with Claude-style payloads) and flat top-level answers.

use super::{block, context_text, exit_code_in, status_of_exit, Node, Payload};
use gate_runtime::event::{Event, Status};
use gate_runtime::verdict::{Decision, Verdict};
use serde_json::{json, Map, Value};

/// Events `gate init copilot` wires (camelCase: Copilot's native dialect).
pub(super) const EVENTS: &[&str] = &[
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "agentStop",
    "subagentStop",
    "preCompact",
    "sessionEnd",
];

pub(super) fn refine(payload: &Payload<'_>, event: &mut Event) {
    match event.hook_event.as_str() {
        "postToolUseFailure" | "PostToolUseFailure" => event.status = Some(Status::Failure),
        "postToolUse" | "PostToolUse" => {
            let result = payload.value(&["toolResult", "tool_result"]);
            let field = |keys: &[&str]| {
                result.and_then(|r| keys.iter().find_map(|k| r.get(k).and_then(Node::as_str)))
            };
            let kind = field(&["resultType", "result_type"]);
            let failed_kind = matches!(kind, Some("failure" | "error" | "rejected" | "denied"));
            let exit = field(&["textResultForLlm", "text_result_for_llm"]).and_then(exit_code_in);
            event.status = Some(if failed_kind {
                Status::Failure
            } else {
                exit.map_or(Status::Success, status_of_exit)
            });
        }
        _ => {}
    }
}

enum Kind {
    Pre,
    Post,
    Context,
    Stop,
    Permission,
    Other,
}

fn kind(name: &str) -> Kind {
    match name {
        "preToolUse" | "PreToolUse" => Kind::Pre,
        "postToolUse" | "PostToolUse" | "postToolUseFailure" | "PostToolUseFailure" => Kind::Post,
        "sessionStart" | "SessionStart" | "userPromptSubmitted" | "UserPromptSubmit" => {
            Kind::Context
        }
        "agentStop" | "Stop" | "subagentStop" | "SubagentStop" => Kind::Stop,
        "permissionRequest" => Kind::Permission,
        _ => Kind::Other,
    }
}

fn object(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (k, v) in fields {
        map.insert(k.into(), v);
    }
    Value::Object(map)
}

pub(super) fn render(event: &Event, decision: &Decision) -> Option<Value> {
    let kind = kind(&event.hook_event);
    let context = context_text(decision)
        .filter(|_| matches!(kind, Kind::Pre | Kind::Post | Kind::Context))
        .map(|c| ("additionalContext", json!(c)));
    match (&decision.verdict, kind) {
        (Verdict::Allow | Verdict::Steer { .. }, _) => context.map(|c| object(vec![c])),
        (Verdict::Ask { reason, .. }, Kind::Pre) => {
            let decision = if event.bypasses_permissions() {
                "deny"
            } else {
                "ask"
            };
            let mut fields = vec![
                ("permissionDecision", json!(decision)),
                ("permissionDecisionReason", json!(reason)),
            ];
            fields.extend(context);
            Some(object(fields))
        }
        (Verdict::Deny { reason }, Kind::Pre) => {
            let mut fields = vec![
                ("permissionDecision", json!("deny")),
                ("permissionDecisionReason", json!(reason)),
            ];
            fields.extend(context);
            Some(object(fields))
        }
        // The runtime is about to ask the user itself: that is the ask.
        (Verdict::Ask { .. }, Kind::Permission) => None,
        (Verdict::Deny { reason }, Kind::Permission) => {
            Some(json!({"behavior": "deny", "message": reason}))
        }
        // The tool already ran (or there is no tool): the reason reaches the model as context.
        (Verdict::Ask { reason, .. } | Verdict::Deny { reason }, Kind::Post | Kind::Context) => {
            let text = match context {
                Some((_, Value::String(c))) => format!("{c}\n\n{reason}"),
                _ => reason.clone(),
            };
            Some(json!({"additionalContext": text}))
        }
        (Verdict::Ask { reason, .. } | Verdict::Deny { reason }, Kind::Stop) => {
            block(event, reason)
        }
        (Verdict::Ask { .. } | Verdict::Deny { .. }, Kind::Other) => None,
    }
}
