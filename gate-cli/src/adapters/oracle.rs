//! The adapters' previous reading of a payload, through a parsed `serde_json::Value`, kept
//! only as the tests' oracle: the borrowed-tree path must give the same `Event` or error.

use super::codex::{patch_files, PatchOp};
use super::{
    class_of_tool, exit_code_in, parse_rfc3339_ms, phase_of, status_of_exit, AdapterError,
    MAX_PAYLOAD_BYTES,
};
use gate_runtime::event::{Event, Runtime, Status};
use gate_spec::ir::{ActionClass, Phase};
use serde_json::{Map, Value};

/// The previous `adapters::normalize`.
pub(crate) fn normalize(
    runtime: Runtime,
    payload: &[u8],
    event_hint: Option<&str>,
) -> Result<Event, AdapterError> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(AdapterError::TooLarge(payload.len()));
    }
    // Lone surrogates are read as U+FFFD, as the borrowed reader does.
    let value: Value = match serde_json::from_slice(payload) {
        Ok(v) => v,
        Err(e) => match super::json::replace_lone_surrogates(payload) {
            Some(fixed) => {
                serde_json::from_slice(&fixed).map_err(|e| AdapterError::NotJson(e.to_string()))?
            }
            None => return Err(AdapterError::NotJson(e.to_string())),
        },
    };
    let object = value.as_object().ok_or(AdapterError::NotObject)?;
    normalize_object(runtime, object, event_hint)
}

pub(crate) fn normalize_object(
    runtime: Runtime,
    object: &Map<String, Value>,
    event_hint: Option<&str>,
) -> Result<Event, AdapterError> {
    let payload = Payload(object);
    let hook_event = payload
        .string(&["hook_event_name", "hookEventName", "hookName"])
        .or_else(|| event_hint.map(str::trim).filter(|s| !s.is_empty()))
        .ok_or(AdapterError::NoEventName)?
        .to_string();
    let mut event = common(runtime, &payload, hook_event);
    match runtime {
        Runtime::ClaudeCode => claude_refine(&payload, &mut event),
        Runtime::Codex => codex_refine(&payload, &mut event),
        Runtime::Gemini => gemini_refine(&payload, &mut event),
        Runtime::Copilot => copilot_refine(&payload, &mut event),
    }
    // One contract on every runtime: a tool that ran and failed is a post-tool failure,
    // whether the runtime has a failure event (Claude Code) or reports an exit code.
    if event.phase == Some(Phase::PostTool) && event.status == Some(Status::Failure) {
        event.phase = Some(Phase::PostToolFailure);
    }
    event.error = error_of(runtime, &payload, &event);
    Ok(event)
}

/// The error text of a post-tool event (`adapters::errors`).
fn error_of(runtime: Runtime, payload: &Payload<'_>, event: &Event) -> Option<String> {
    if !matches!(event.phase, Some(Phase::PostTool | Phase::PostToolFailure)) {
        return None;
    }
    let response = payload.value(&["tool_response"]);
    let top = payload.value(&["error"]);
    let value = match runtime {
        Runtime::ClaudeCode => top.or_else(|| response.and_then(|r| r.get("stderr"))),
        Runtime::Gemini => response.and_then(|r| r.get("error")),
        Runtime::Copilot => top.or_else(|| {
            let result = payload.value(&["toolResult", "tool_result"])?;
            let kind = result
                .get("resultType")
                .and_then(Value::as_str)
                .or_else(|| result.get("result_type").and_then(Value::as_str));
            if !matches!(kind, Some("failure" | "error" | "rejected" | "denied")) {
                return None;
            }
            result
                .get("textResultForLlm")
                .or_else(|| result.get("text_result_for_llm"))
        }),
        Runtime::Codex => None,
    }?;
    let text = match value {
        Value::String(s) => s.as_str(),
        Value::Object(map) => map.get("message").and_then(Value::as_str)?,
        _ => return None,
    }
    .trim();
    (!text.is_empty()).then(|| {
        gate_runtime::event::cut_text(text, gate_runtime::event::MAX_ERROR_BYTES).into_owned()
    })
}

/// A borrowed payload object with lenient accessors (both key spellings, wrong types ignored).
pub(crate) struct Payload<'a>(&'a Map<String, Value>);

impl<'a> Payload<'a> {
    /// The first of `keys` that holds a string.
    fn string(&self, keys: &[&str]) -> Option<&'a str> {
        keys.iter()
            .find_map(|k| self.0.get(*k).and_then(Value::as_str))
    }
    fn value(&self, keys: &[&str]) -> Option<&'a Value> {
        keys.iter()
            .find_map(|k| self.0.get(*k).filter(|v| !v.is_null()))
    }
    fn bool(&self, keys: &[&str]) -> bool {
        keys.iter()
            .find_map(|k| self.0.get(*k).and_then(Value::as_bool))
            .unwrap_or(false)
    }
    /// The tool's arguments: an object, or a JSON string holding one (Copilot `toolArgs`).
    fn tool_input(&self) -> Option<ToolInput> {
        match self.value(&["tool_input", "toolArgs", "toolInput", "tool_args"])? {
            Value::Object(map) => Some(ToolInput(map.clone())),
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => Some(ToolInput(map)),
                // A bare string argument: treat it as the command / target itself.
                _ => {
                    let mut map = Map::new();
                    map.insert("command".into(), Value::String(text.clone()));
                    Some(ToolInput(map))
                }
            },
            _ => None,
        }
    }
}

/// A tool's arguments.
pub(crate) struct ToolInput(Map<String, Value>);

impl ToolInput {
    fn string(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| match self.0.get(*k)? {
            Value::String(s) => Some(s.clone()),
            // Codex `cmd` may be an argv array.
            Value::Array(items) => {
                let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                (!words.is_empty() && words.len() == items.len())
                    .then(|| gate_runtime::shell::quote_argv(&words))
            }
            _ => None,
        })
    }
    /// The collapsed target: command, file path, path, pattern, url or query; for a shell
    /// tool its command line (or the keystrokes it sends a shell).
    fn target(&self, class: Option<ActionClass>) -> Option<String> {
        if class == Some(ActionClass::Exec) {
            if let Some(line) = self.string(super::SHELL_TARGET) {
                return Some(line);
            }
        }
        self.string(&[
            "command",
            "cmd",
            "file_path",
            "filePath",
            "notebook_path",
            "path",
            "dir_path",
            "pattern",
            "url",
            "query",
            // Codex `write_stdin`: the keystrokes sent to a running shell.
            "chars",
        ])
    }
    /// The file the tool reads or writes, for file tools.
    fn file(&self) -> Option<String> {
        self.string(&["file_path", "filePath", "notebook_path", "path"])
    }
    /// The text a file tool writes: the new content or replacement text, every edit's
    /// replacement of a multi-edit, one per line.
    fn written(&self) -> Option<String> {
        let mut text = self.string(&[
            "content",
            "new_string",
            "file_text",
            "new_str",
            "new_source",
        ]);
        if let Some(Value::Array(edits)) = self.0.get("edits") {
            for edit in edits {
                if let Some(Value::String(s)) = edit.get("new_string") {
                    let t = text.get_or_insert_with(String::new);
                    if !t.is_empty() {
                        t.push('\n');
                    }
                    t.push_str(s);
                }
            }
        }
        text.map(|t| {
            gate_runtime::event::cut_text(&t, gate_runtime::event::MAX_WRITTEN_BYTES).into_owned()
        })
    }
}

/// Fields every runtime spells the same way (in one of two casings).
fn common(runtime: Runtime, payload: &Payload<'_>, hook_event: String) -> Event {
    let phase = phase_of(&hook_event);
    let tool = payload
        .string(&["tool_name", "toolName"])
        .map(str::to_string);
    let class = tool.as_deref().map(class_of_tool);
    let input = payload.tool_input();
    let target = input.as_ref().and_then(|i| i.target(class));
    // The reader of fields by role is one for both readings: here over a view of the Value.
    let value = input.as_ref().map(|i| Value::Object(i.0.clone()));
    let node = value.as_ref().map(super::json::Node::from_value);
    let read = match (tool.as_deref(), node.as_ref().and_then(|n| n.as_object())) {
        (Some(tool), Some(object)) => super::input::read(object, tool, class),
        _ => super::input::Read::default(),
    };
    let paths = match (class, input.as_ref()) {
        // A tool that reads several files (Gemini's `read_many_files`) names them in a list.
        (Some(ActionClass::Read), Some(input)) => match input.file() {
            Some(file) => vec![file],
            None => read.paths,
        },
        // A search names the directory or file it searches (`Grep`, `LS`): what it reads.
        (Some(ActionClass::Write | ActionClass::Delete | ActionClass::Search), Some(input)) => {
            input.file().into_iter().collect()
        }
        // MCP and unknown tools: every path field, so that what they change is seen.
        (Some(ActionClass::Mcp | ActionClass::Other), Some(_)) => read.paths,
        _ => Vec::new(),
    };
    let commands: Vec<String> = match class {
        Some(ActionClass::Exec) => read
            .commands
            .into_iter()
            .filter(|c| Some(c) != target.as_ref())
            .collect(),
        _ => read.commands,
    };
    let written = match class {
        Some(ActionClass::Write | ActionClass::Mcp | ActionClass::Other) => {
            input.as_ref().and_then(ToolInput::written)
        }
        _ => None,
    };
    let input_digest = match class {
        Some(ActionClass::Exec) | None => None,
        _ => input
            .as_ref()
            .map(|i| gate_runtime::event::input_digest(&Value::Object(i.0.clone()))),
    };
    let prompt = payload.string(&["prompt"]).map(str::to_string);
    let target = match phase {
        Phase::Prompt => prompt.clone(),
        _ => target,
    };
    Event {
        runtime: Some(runtime),
        phase: Some(phase),
        hook_event,
        tool,
        class,
        target,
        paths,
        status: None,
        timestamp_ms: payload.value(&["timestamp"]).and_then(timestamp_ms),
        session_id: payload
            .string(&["session_id", "sessionId"])
            .map(str::to_string),
        agent_id: payload.string(&["agent_id", "agentId"]).map(str::to_string),
        agent_type: payload
            .string(&["agent_type", "agentType"])
            .map(str::to_string),
        cwd: payload.string(&["cwd"]).map(str::to_string),
        permission_mode: payload
            .string(&["permission_mode", "permissionMode"])
            .map(str::to_string),
        prompt: matches!(phase, Phase::Prompt).then_some(prompt).flatten(),
        stop_hook_active: payload.bool(&["stop_hook_active", "stopHookActive"]),
        profiles: 0,
        tool_use_id: payload
            .string(&["tool_use_id", "toolUseId"])
            .map(str::to_string),
        commands,
        workdir: read.workdir,
        mentions: read.mentions,
        input_digest,
        error: None,
        written,
    }
}

/// A payload time as milliseconds since the epoch: a number (ms) or an RFC 3339 string.
fn timestamp_ms(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => parse_rfc3339_ms(s),
        _ => None,
    }
}

/// Claude Code.
fn claude_refine(payload: &Payload<'_>, event: &mut Event) {
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
            .and_then(Value::as_bool)
            == Some(true)
    {
        event.status = Some(Status::Failure);
    }
}

/// Codex.
fn codex_refine(payload: &Payload<'_>, event: &mut Event) {
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
            Some(Value::String(text)) => exit_code_in(text).map(status_of_exit),
            Some(Value::Object(map)) => map
                .get("exit_code")
                .or_else(|| map.get("exitCode"))
                .and_then(Value::as_i64)
                .map(status_of_exit)
                .or_else(|| {
                    map.get("output")
                        .and_then(Value::as_str)
                        .and_then(exit_code_in)
                        .map(status_of_exit)
                }),
            _ => None,
        };
        // `apply_patch` reports success in words when it has no exit code line.
        if event.status.is_none() {
            if let Some(Value::String(text)) = payload.value(&["tool_response"]) {
                if text.contains("Success. Updated the following files") {
                    event.status = Some(Status::Success);
                }
            }
        }
        // A shell result without an exit code: the runner's own result lines, when the line
        // ran the runner alone (`gate_runtime::evidence`); otherwise the status stays unknown.
        if event.status.is_none() && event.tool.as_deref() != Some("apply_patch") {
            let output = match payload.value(&["tool_response"]) {
                Some(Value::String(text)) => Some(text.as_str()),
                Some(Value::Object(map)) => map.get("output").and_then(Value::as_str),
                _ => None,
            };
            if let (Some(output), Some(command)) = (output, event.target.as_deref()) {
                event.status = gate_runtime::evidence::status_from_output(command, output);
            }
        }
    }
}

/// Gemini.
fn gemini_refine(payload: &Payload<'_>, event: &mut Event) {
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
            .and_then(Value::as_str)
            .and_then(exit_code_in)
            .map_or(Status::Success, status_of_exit)
    });
}

/// Copilot.
fn copilot_refine(payload: &Payload<'_>, event: &mut Event) {
    match event.hook_event.as_str() {
        "postToolUseFailure" | "PostToolUseFailure" => event.status = Some(Status::Failure),
        "postToolUse" | "PostToolUse" => {
            let result = payload.value(&["toolResult", "tool_result"]);
            let field = |keys: &[&str]| {
                result.and_then(|r| keys.iter().find_map(|k| r.get(*k).and_then(Value::as_str)))
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
