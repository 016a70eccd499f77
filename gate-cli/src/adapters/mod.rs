//! Runtime adapters: each agent runtime's hook payload in, one normalised [`Event`] out, and a
//! [`Decision`] back out as that runtime's own answer (or silence).
//!
//! The protocol facts these follow (event names, payload fields, answer shapes) were observed
//! with the real clients; the recorded payloads live in `tests/fixtures/payloads/`.

mod claude;
mod codex;
mod copilot;
#[cfg(test)]
mod equivalence;
mod errors;
mod gemini;
mod input;
pub mod json;
#[cfg(test)]
pub(crate) mod oracle;

use gate_runtime::event::{Event, Runtime, Status};
use gate_runtime::verdict::{Decision, Verdict};
use gate_spec::ir::{ActionClass, Phase};
use json::{Node, Object};
use serde_json::{Map, Value};
use std::fmt;

/// Payloads larger than this are refused before parsing (a hook payload is a few kilobytes;
/// a `Write` of a large file is the biggest thing a runtime sends).
pub const MAX_PAYLOAD_BYTES: usize = 32 * 1024 * 1024;

/// Why a payload could not be normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterError {
    /// The payload is larger than [`MAX_PAYLOAD_BYTES`].
    TooLarge(usize),
    /// The payload is not JSON.
    NotJson(String),
    /// The payload is JSON but not an object.
    NotObject,
    /// Neither the payload nor the command line names the event.
    NoEventName,
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdapterError::TooLarge(n) => write!(
                f,
                "the hook payload is {n} bytes; at most {MAX_PAYLOAD_BYTES} are accepted"
            ),
            AdapterError::NotJson(e) => write!(f, "the hook payload is not JSON: {e}"),
            AdapterError::NotObject => write!(f, "the hook payload is not a JSON object"),
            AdapterError::NoEventName => write!(
                f,
                "the hook payload names no event; pass it with --event (e.g. --event preToolUse)"
            ),
        }
    }
}

impl std::error::Error for AdapterError {}

/// Normalise one hook payload of `runtime`. `event_hint` is the event name given on the command
/// line (`--event preToolUse`), needed for Copilot camelCase payloads, which carry no name.
pub fn normalize(
    runtime: Runtime,
    payload: &[u8],
    event_hint: Option<&str>,
) -> Result<Event, AdapterError> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(AdapterError::TooLarge(payload.len()));
    }
    let repaired;
    let value = match Node::parse(payload) {
        Ok(v) => v,
        // Node's `JSON.stringify` writes a lone surrogate as `\ud800`, which strict JSON
        // parsers refuse: read it as U+FFFD, as a lossy UTF-16 decoder would, rather than
        // leave the call unanswered.
        Err(e) => match json::replace_lone_surrogates(payload) {
            Some(fixed) => {
                repaired = fixed;
                Node::parse(&repaired).map_err(|e| AdapterError::NotJson(e.to_string()))?
            }
            None => return Err(AdapterError::NotJson(e.to_string())),
        },
    };
    let object = value.as_object().ok_or(AdapterError::NotObject)?;
    normalize_object(runtime, object, event_hint)
}

/// [`normalize`] of a payload already parsed (`gate replay` reads each line once).
pub fn normalize_object(
    runtime: Runtime,
    object: &Object<'_>,
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
        Runtime::ClaudeCode => claude::refine(&payload, &mut event),
        Runtime::Codex => codex::refine(&payload, &mut event),
        Runtime::Gemini => gemini::refine(&payload, &mut event),
        Runtime::Copilot => copilot::refine(&payload, &mut event),
    }
    // One contract on every runtime: a tool that ran and failed is a post-tool failure,
    // whether the runtime has a failure event (Claude Code) or reports an exit code.
    if event.phase == Some(Phase::PostTool) && event.status == Some(Status::Failure) {
        event.phase = Some(Phase::PostToolFailure);
    }
    event.error = errors::error_of(runtime, &payload, &event);
    Ok(event)
}

/// The environment variable a runtime sets in its hooks' environment that names the session,
/// as observed with the real clients: Claude Code `CLAUDE_CODE_SESSION_ID`, Gemini CLI
/// `GEMINI_SESSION_ID`. Codex CLI (`CODEX_HOME` only) and Copilot CLI (`COPILOT_PROJECT_DIR`,
/// `COPILOT_HOOK_DIR`, `COPILOT_CLI`) set none.
pub fn session_env(runtime: Runtime) -> Option<&'static str> {
    match runtime {
        Runtime::ClaudeCode => Some("CLAUDE_CODE_SESSION_ID"),
        Runtime::Gemini => Some("GEMINI_SESSION_ID"),
        Runtime::Codex | Runtime::Copilot => None,
    }
}

/// A payload without a session id takes the session the runtime names in its environment
/// ([`session_env`]), so such calls keep their own scope instead of sharing `no-session`.
pub fn session_fallback(runtime: Runtime, event: &mut Event, env: &dyn Fn(&str) -> Option<String>) {
    if event.session_id.as_deref().is_some_and(|s| !s.is_empty()) {
        return;
    }
    if let Some(id) = session_env(runtime)
        .and_then(env)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
    {
        event.session_id = Some(id);
    }
}

/// Render a decision as the runtime's answer: `None` means print nothing at all, `Some` is
/// exactly one JSON object for stdout.
pub fn render(runtime: Runtime, event: &Event, decision: &Decision) -> Option<String> {
    let answer = match runtime {
        Runtime::ClaudeCode => claude::render(event, decision),
        Runtime::Codex => codex::render(event, decision),
        Runtime::Gemini => gemini::render(event, decision),
        Runtime::Copilot => copilot::render(event, decision),
    }?;
    serde_json::to_string(&answer).ok()
}

/// The hook event name each runtime uses for each phase gate wires, in the order the
/// installers write them. Copilot's are the camelCase names (its native dialect).
pub fn event_names(runtime: Runtime) -> &'static [&'static str] {
    match runtime {
        Runtime::ClaudeCode => claude::EVENTS,
        Runtime::Codex => codex::EVENTS,
        Runtime::Gemini => gemini::EVENTS,
        Runtime::Copilot => copilot::EVENTS,
    }
}

/// The phase of a runtime event name. Names are unambiguous across runtimes, so one table
/// serves all four; a name gate does not know is [`Phase::Other`].
pub fn phase_of(hook_event: &str) -> Phase {
    match hook_event {
        "PreToolUse" | "BeforeTool" | "preToolUse" => Phase::PreTool,
        "PostToolUse" | "AfterTool" | "postToolUse" => Phase::PostTool,
        "PostToolUseFailure" | "postToolUseFailure" => Phase::PostToolFailure,
        "UserPromptSubmit" | "BeforeAgent" | "userPromptSubmitted" => Phase::Prompt,
        "SessionStart" | "sessionStart" => Phase::SessionStart,
        "SessionEnd" | "sessionEnd" => Phase::SessionEnd,
        "Stop" | "AfterAgent" | "agentStop" => Phase::Stop,
        "SubagentStart" | "subagentStart" => Phase::SubagentStart,
        "SubagentStop" | "subagentStop" => Phase::SubagentStop,
        "PreCompact" | "PostCompact" | "PreCompress" | "preCompact" => Phase::Compact,
        _ => Phase::Other,
    }
}

/// A borrowed payload object with lenient accessors (both key spellings, wrong types ignored).
pub(crate) struct Payload<'a>(&'a Object<'a>);

impl<'a> Payload<'a> {
    /// The first of `keys` that holds a string.
    fn string(&self, keys: &[&str]) -> Option<&'a str> {
        keys.iter()
            .find_map(|k| self.0.get(k).and_then(Node::as_str))
    }
    fn value(&self, keys: &[&str]) -> Option<&'a Node<'a>> {
        keys.iter()
            .find_map(|k| self.0.get(k).filter(|v| !v.is_null()))
    }
    fn bool(&self, keys: &[&str]) -> bool {
        keys.iter()
            .find_map(|k| self.0.get(k).and_then(Node::as_bool))
            .unwrap_or(false)
    }
    /// The tool's arguments: an object (read in place), or a JSON string holding one
    /// (Copilot `toolArgs`).
    fn tool_input(&self) -> Option<ToolInput<'a>> {
        match self.value(&["tool_input", "toolArgs", "toolInput", "tool_args"])? {
            Node::Object(object) => Some(ToolInput::Borrowed(object)),
            Node::String(text) => match Node::parse_str(text) {
                Ok(Node::Object(object)) => Some(ToolInput::Parsed(object)),
                // A bare string argument: treat it as the command / target itself.
                _ => Some(ToolInput::Parsed(Object::single(
                    "command",
                    Node::String(std::borrow::Cow::Borrowed(text)),
                ))),
            },
            _ => None,
        }
    }
}

/// A tool's arguments: the payload's own object, or one parsed from a JSON string.
pub(crate) enum ToolInput<'a> {
    Borrowed(&'a Object<'a>),
    Parsed(Object<'a>),
}

impl ToolInput<'_> {
    fn object(&self) -> &Object<'_> {
        match self {
            ToolInput::Borrowed(object) => object,
            ToolInput::Parsed(object) => object,
        }
    }
    fn string(&self, keys: &[&str]) -> Option<String> {
        let object = self.object();
        keys.iter().find_map(|k| match object.get(k)? {
            Node::String(s) => Some(s.to_string()),
            // Codex `cmd` may be an argv array.
            Node::Array(items) => {
                let words: Vec<&str> = items.iter().filter_map(Node::as_str).collect();
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
            if let Some(line) = self.string(SHELL_TARGET) {
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
        if let Some(Node::Array(edits)) = self.object().get("edits") {
            for edit in edits {
                if let Some(Node::String(s)) = edit.get("new_string") {
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

/// The fields a shell tool's command line is in: `command`, `cmd`, and the keystrokes a
/// tool sends a running shell (Codex `write_stdin` `chars`, Copilot `write_bash` `input`).
pub(crate) const SHELL_TARGET: &[&str] = &["command", "cmd", "chars", "input"];

/// Fields every runtime spells the same way (in one of two casings).
fn common(runtime: Runtime, payload: &Payload<'_>, hook_event: String) -> Event {
    let phase = phase_of(&hook_event);
    let tool = payload
        .string(&["tool_name", "toolName"])
        .map(str::to_string);
    let class = tool.as_deref().map(class_of_tool);
    let input = payload.tool_input();
    let target = input.as_ref().and_then(|i| i.target(class));
    // Every field by its role: paths, the working directory, shell text, and strings under
    // keys with no role that could be paths.
    let read = match (tool.as_deref(), input.as_ref()) {
        (Some(tool), Some(input)) => input::read(input.object(), tool, class),
        _ => input::Read::default(),
    };
    let paths = match (class, input.as_ref()) {
        // A tool that reads several files (Gemini's `read_many_files`) names them in a list.
        (Some(ActionClass::Read), Some(input)) => match input.file() {
            Some(file) => vec![file],
            None => read.paths,
        },
        // A search names the directory or file it searches (`Grep`, `LS`): what it reads;
        // with none, it searches its working directory (Gemini's `dir_path`).
        (Some(ActionClass::Search), Some(input)) => match input.file() {
            Some(file) => vec![file],
            None if read.workdir.is_some() => vec![".".to_string()],
            None => Vec::new(),
        },
        (Some(ActionClass::Write | ActionClass::Delete), Some(input)) => {
            input.file().into_iter().collect()
        }
        // MCP and unknown tools: every path field, so that what they change is seen.
        (Some(ActionClass::Mcp | ActionClass::Other), Some(_)) => read.paths,
        _ => Vec::new(),
    };
    // A shell tool's own command is its target, read as its line already.
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
    // A grant for a tool that is not a shell covers its whole input (content included).
    let input_digest = match class {
        Some(ActionClass::Exec) | None => None,
        _ => input.as_ref().map(|i| {
            gate_runtime::event::input_digest(&Node::Object(i.object().clone()).to_value())
        }),
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
        // The spec's profiles: set once the spec is known (`crate::profile`).
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

/// Action class from the tool name alone (every runtime's built-in names; MCP by prefix).
/// Shell tools are `Exec`; the observer refines them from the command.
pub fn class_of_tool(tool: &str) -> ActionClass {
    if tool.starts_with("mcp__") || tool.starts_with("mcp_") {
        return ActionClass::Mcp;
    }
    match tool.to_ascii_lowercase().as_str() {
        "bash" | "shell" | "exec_command" | "run_shell_command" | "local_shell"
        | "unified_exec" | "powershell" | "write_stdin" | "write_bash" => ActionClass::Exec,
        "write" | "edit" | "multiedit" | "notebookedit" | "apply_patch" | "create" | "replace"
        | "write_file" | "str_replace_editor" | "str_replace" | "insert" => ActionClass::Write,
        "read" | "view" | "read_file" | "read_many_files" | "notebookread" => ActionClass::Read,
        "glob"
        | "grep"
        | "grep_search"
        | "search_file_content"
        | "list_directory"
        | "ls"
        | "codebase_search" => ActionClass::Search,
        "webfetch" | "web_fetch" | "websearch" | "web_search" | "google_web_search" | "fetch" => {
            ActionClass::Network
        }
        "task" | "agent" => ActionClass::Spawn,
        _ => ActionClass::Other,
    }
}

/// A payload time as milliseconds since the epoch: a number (ms) or an RFC 3339 string.
fn timestamp_ms(value: &Node<'_>) -> Option<i64> {
    match value {
        Node::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Node::String(s) => parse_rfc3339_ms(s),
        _ => None,
    }
}

/// Parse `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` into milliseconds since the epoch.
pub(crate) fn parse_rfc3339_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(range)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0i64;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let mut scaled = 0i64;
        for (i, c) in fraction.bytes().take(3).enumerate().take(digits) {
            scaled += i64::from(c - b'0') * [100, 10, 1][i];
        }
        millis = scaled;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let o = &rest[1..];
            if o.len() != 5 || o.as_bytes()[2] != b':' {
                return None;
            }
            let h: i64 = o[0..2].parse().ok()?;
            let m: i64 = o[3..5].parse().ok()?;
            sign * (h * 60 + m)
        }
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1_000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The exit code a tool's textual result reports, from any of the runtimes' phrasings
/// (`Exit code: 1`, `Exit Code: 1`, `exited with code 1`, `completed with exit code 1`).
pub(crate) fn exit_code_in(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    for marker in [
        "exit code:",
        "exit code",
        "exited with code:",
        "exited with code",
    ] {
        if let Some(at) = lower.find(marker) {
            let digits: String = lower[at + marker.len()..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            if let Ok(code) = digits.parse() {
                return Some(code);
            }
        }
    }
    None
}

/// Status from an exit code.
pub(crate) fn status_of_exit(code: i64) -> Status {
    if code == 0 {
        Status::Success
    } else {
        Status::Failure
    }
}

/// The guidance an answer carries: text carried from an earlier event, then this steer.
pub(crate) fn context_text(decision: &Decision) -> Option<String> {
    let steer = match &decision.verdict {
        Verdict::Steer { text } => Some(text.as_str()),
        _ => None,
    };
    let parts: Vec<&str> = [decision.carried.as_deref(), steer]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// `{"decision":"block","reason":…}`: Stop continuation and post-event blocks. Never on a
/// Stop that already continued once (`stop_hook_active`), so gate cannot loop the agent.
pub(crate) fn block(event: &Event, reason: &str) -> Option<Value> {
    if event.stop_hook_active && matches!(event.phase, Some(Phase::Stop | Phase::SubagentStop)) {
        return None;
    }
    Some(serde_json::json!({"decision": "block", "reason": reason}))
}

/// `{"hookSpecificOutput":{"hookEventName":…, …fields}}` (Claude Code, Codex, Gemini).
pub(crate) fn hook_specific(event: &Event, fields: Vec<(&str, Value)>) -> Value {
    let mut inner = Map::new();
    inner.insert(
        "hookEventName".into(),
        Value::String(event.hook_event.clone()),
    );
    for (k, v) in fields {
        inner.insert(k.into(), v);
    }
    let mut outer = Map::new();
    outer.insert("hookSpecificOutput".into(), Value::Object(inner));
    Value::Object(outer)
}

/// A pre-tool permission answer (`permissionDecision` ask or deny, with its reason and any
/// injected context) in the `hookSpecificOutput` form Claude Code and Codex share.
pub(crate) fn permission(
    event: &Event,
    decision: &str,
    reason: &str,
    context: Option<String>,
) -> Value {
    let mut fields = vec![
        ("permissionDecision", serde_json::json!(decision)),
        ("permissionDecisionReason", serde_json::json!(reason)),
    ];
    if let Some(c) = context {
        fields.push(("additionalContext", serde_json::json!(c)));
    }
    hook_specific(event, fields)
}

/// A PermissionRequest hook's refusal (Claude Code, Codex).
pub(crate) fn refuse_permission(event: &Event, reason: &str) -> Value {
    hook_specific(
        event,
        vec![(
            "decision",
            serde_json::json!({"behavior": "deny", "message": reason}),
        )],
    )
}

#[cfg(test)]
mod tests;
