//! A spec test step as the hook payload its runtime would send: the event name each runtime
//! uses for the step's kind, and the keys its adapter reads (tool input, exit status, prompt,
//! subagent, time), so that a step goes through the same adapter a hook call does.

use gate_runtime::event::Runtime;
use gate_spec::ir::Phase;
use serde_json::{json, Map, Value};

use super::file::EventStep;

/// The event kinds a step may name, and the phase each is.
pub const EVENT_KINDS: &[(&str, Phase)] = &[
    ("pre_tool", Phase::PreTool),
    ("post_tool", Phase::PostTool),
    ("prompt", Phase::Prompt),
    ("stop", Phase::Stop),
    ("session_start", Phase::SessionStart),
    ("session_end", Phase::SessionEnd),
    ("subagent_start", Phase::SubagentStart),
    ("subagent_stop", Phase::SubagentStop),
    ("compact", Phase::Compact),
];

/// The tool name a runtime gives its shell (what `bash = "…"` sends).
pub fn shell_tool(runtime: Runtime) -> &'static str {
    match runtime {
        Runtime::Gemini => "run_shell_command",
        Runtime::ClaudeCode | Runtime::Codex | Runtime::Copilot => "Bash",
    }
}

/// The hook event name `runtime` sends for a step of `phase` (a post-tool step with a
/// non-zero `exit` is a failure event where the runtime has one), or why it sends none.
pub fn event_name(
    runtime: Runtime,
    phase: Phase,
    exit: Option<i64>,
) -> Result<&'static str, String> {
    let failed = exit.is_some_and(|e| e != 0);
    let name = match (runtime, phase) {
        (Runtime::Codex, Phase::PostTool) if exit.is_some() => {
            return Err(
                "codex reports no exit status in its post-tool event: leave out `exit`".to_string(),
            )
        }
        (Runtime::ClaudeCode | Runtime::Copilot, Phase::PostTool) if failed => {
            Some("PostToolUseFailure")
        }
        (Runtime::Gemini, Phase::PreTool) => Some("BeforeTool"),
        (Runtime::Gemini, Phase::PostTool) => Some("AfterTool"),
        (Runtime::Gemini, Phase::Prompt) => Some("BeforeAgent"),
        (Runtime::Gemini, Phase::Stop) => Some("AfterAgent"),
        (Runtime::Gemini, Phase::Compact) => Some("PreCompress"),
        (Runtime::Gemini, Phase::SubagentStart | Phase::SubagentStop) => None,
        (Runtime::Copilot, Phase::SubagentStart) => None,
        (_, Phase::PreTool) => Some("PreToolUse"),
        (_, Phase::PostTool) => Some("PostToolUse"),
        (_, Phase::Prompt) => Some("UserPromptSubmit"),
        (_, Phase::Stop) => Some("Stop"),
        (_, Phase::SessionStart) => Some("SessionStart"),
        (_, Phase::SessionEnd) => Some("SessionEnd"),
        (_, Phase::SubagentStart) => Some("SubagentStart"),
        (_, Phase::SubagentStop) => Some("SubagentStop"),
        (_, Phase::Compact) => Some("PreCompact"),
        (_, Phase::PostToolFailure | Phase::Other) => None,
    };
    name.ok_or_else(|| {
        format!(
            "{} has no {} event",
            runtime.as_str(),
            EVENT_KINDS
                .iter()
                .find(|(_, p)| *p == phase)
                .map_or(phase.as_str(), |(n, _)| n)
        )
    })
}

/// The payload `step` sends at `now_ms`; `None` when its runtime has no such event (the
/// test file's check rules that out).
pub fn build(step: &EventStep, now_ms: i64) -> Option<Value> {
    let runtime = step.runtime;
    let name = event_name(runtime, step.phase, step.exit).ok()?;
    let mut p = Map::new();
    p.insert("session_id".into(), json!(step.session));
    p.insert("cwd".into(), json!(step.cwd));
    p.insert("hook_event_name".into(), json!(name));
    if matches!(runtime, Runtime::Gemini | Runtime::Copilot) {
        // These two carry the time of the event; the others are timed by the hook's clock.
        p.insert("timestamp".into(), json!(now_ms));
    }
    if let Some(agent) = &step.agent {
        p.insert("agent_type".into(), json!(agent));
        p.insert("agent_id".into(), json!(format!("{agent}-1")));
    }
    if let Some(tool) = &step.tool {
        p.insert("tool_name".into(), json!(tool));
        p.insert("tool_input".into(), step.input.clone());
    }
    if let Some(prompt) = &step.prompt {
        p.insert("prompt".into(), json!(prompt));
    }
    if step.phase == Phase::Stop {
        p.insert("stop_hook_active".into(), json!(false));
    }
    if step.phase == Phase::PostTool {
        let exit = step.exit.unwrap_or(0);
        let output = step.output.clone().unwrap_or_default();
        match runtime {
            Runtime::ClaudeCode => {
                if exit == 0 {
                    p.insert(
                        "tool_response".into(),
                        json!({"stdout": output, "stderr": "", "interrupted": false}),
                    );
                } else {
                    p.insert("error".into(), json!(format!("Exit code {exit}\n{output}")));
                }
            }
            Runtime::Codex => {
                p.insert("tool_response".into(), json!(output));
            }
            Runtime::Gemini => {
                let shown = if output.is_empty() {
                    "(empty)"
                } else {
                    &output
                };
                p.insert(
                    "tool_response".into(),
                    json!({
                        "llmContent": format!("Output: {shown}\nExit Code: {exit}"),
                        "returnDisplay": output,
                    }),
                );
            }
            Runtime::Copilot => {
                p.insert(
                    "tool_result".into(),
                    json!({
                        "result_type": if exit == 0 { "success" } else { "failure" },
                        "text_result_for_llm":
                            format!("{output}\n<shellId: 0 completed with exit code {exit}>"),
                    }),
                );
            }
        }
    }
    Some(Value::Object(p))
}
