//! The error text a post-tool payload carries, per runtime (PROTOCOLS.md), for the audit.
//!
//! Claude Code: PostToolUseFailure `error`, else the Bash `tool_response.stderr`. Gemini CLI:
//! AfterTool `tool_response.error` (a string, or an object with a `message`). Copilot CLI:
//! `error` on its failure events, else the text of a `toolResult` whose `resultType` says it
//! failed. Codex CLI has no failure event and its `tool_response` is the command's output with
//! stdout and stderr interleaved, so it carries no error text of its own: none is taken.

use super::{Node, Payload};
use gate_runtime::event::{cut_text, Event, Runtime, MAX_ERROR_BYTES};
use gate_spec::ir::Phase;

/// The error text of a post-tool `event` read from `payload`, trimmed and cut to
/// [`MAX_ERROR_BYTES`]; `None` when there is none or it is empty.
pub(super) fn error_of(runtime: Runtime, payload: &Payload<'_>, event: &Event) -> Option<String> {
    if !matches!(event.phase, Some(Phase::PostTool | Phase::PostToolFailure)) {
        return None;
    }
    let response = payload.value(&["tool_response"]);
    let node = match runtime {
        Runtime::ClaudeCode => payload
            .value(&["error"])
            .or_else(|| response.and_then(|r| r.get("stderr"))),
        Runtime::Gemini => response.and_then(|r| r.get("error")),
        Runtime::Copilot => payload.value(&["error"]).or_else(|| {
            let result = payload.value(&["toolResult", "tool_result"])?;
            let kind = ["resultType", "result_type"]
                .iter()
                .find_map(|k| result.get(k).and_then(Node::as_str));
            matches!(kind, Some("failure" | "error" | "rejected" | "denied"))
                .then(|| {
                    ["textResultForLlm", "text_result_for_llm"]
                        .iter()
                        .find_map(|k| result.get(k))
                })
                .flatten()
        }),
        Runtime::Codex => None,
    }?;
    let text = match node {
        Node::String(s) => s.as_ref(),
        Node::Object(_) => node.get("message").and_then(Node::as_str)?,
        _ => return None,
    }
    .trim();
    (!text.is_empty()).then(|| cut_text(text, MAX_ERROR_BYTES).into_owned())
}
