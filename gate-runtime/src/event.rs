//! The runtime-neutral event: everything gate trusts about one hook call (the boundary surface).

use gate_spec::ir::{ActionClass, Phase, Telemetry};
use serde::{Deserialize, Serialize};

/// The agent runtimes gate plugs into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
}

impl Runtime {
    pub const ALL: [Runtime; 4] = [
        Runtime::ClaudeCode,
        Runtime::Codex,
        Runtime::Gemini,
        Runtime::Copilot,
    ];

    /// The name used on the command line (`gate hook claude-code`).
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::ClaudeCode => "claude-code",
            Runtime::Codex => "codex",
            Runtime::Gemini => "gemini",
            Runtime::Copilot => "copilot",
        }
    }

    pub fn parse(s: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether this runtime's payloads carry a telemetry field at all (R12/R13: a signal that
    /// requires a missing field is disabled on this runtime, and the audit says so).
    pub fn provides(self, field: Telemetry) -> bool {
        match (self, field) {
            // Codex's pre-tool hook sees only shell, patch and MCP calls, but each carries a
            // tool name and target. It has no post-tool failure event and its Bash
            // PostToolUse carries only the output text, not the exit status, so signals that
            // need a tool's status are disabled there (R13: degrade explicitly). No runtime
            // reports subagent identity except Claude Code.
            (Runtime::ClaudeCode, _) => true,
            (Runtime::Codex, Telemetry::Status) => false,
            (_, Telemetry::Subagent) => false,
            (Runtime::Gemini | Runtime::Copilot, Telemetry::PermissionMode) => false,
            _ => true,
        }
    }

    /// Whether an answer to an event of this phase can carry injected context.
    /// Gemini's BeforeTool ignores it: the text is carried to the next answer that can.
    pub fn context_on(self, phase: Phase) -> bool {
        match self {
            Runtime::Gemini => matches!(
                phase,
                Phase::PostTool | Phase::PostToolFailure | Phase::Prompt | Phase::SessionStart
            ),
            Runtime::Codex => matches!(
                phase,
                Phase::PreTool
                    | Phase::PostTool
                    | Phase::PostToolFailure
                    | Phase::Prompt
                    | Phase::SessionStart
            ),
            Runtime::ClaudeCode | Runtime::Copilot => matches!(
                phase,
                Phase::PreTool
                    | Phase::PostTool
                    | Phase::PostToolFailure
                    | Phase::Prompt
                    | Phase::SessionStart
            ),
        }
    }

    /// Whether the runtime has a native "ask the user" answer for pre-tool events.
    pub fn native_ask(self) -> bool {
        matches!(self, Runtime::ClaudeCode | Runtime::Copilot)
    }
}

/// Outcome of a tool call, on post-tool events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Success,
    Failure,
}

/// One normalised hook event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub runtime: Option<Runtime>,
    pub phase: Option<Phase>,
    /// The runtime's own event name (`PreToolUse`, `BeforeTool`, `preToolUse`).
    pub hook_event: String,
    /// The raw tool name (`Bash`, `run_shell_command`, `bash`, `apply_patch`, `mcp__x__y`).
    pub tool: Option<String>,
    /// Action class from the tool alone; the observer refines it for shell commands.
    pub class: Option<ActionClass>,
    /// The collapsed target: command, file path, path, pattern, url or query.
    pub target: Option<String>,
    /// Every file path the action touches (file tools; paths parsed from a patch).
    pub paths: Vec<String>,
    /// Post-tool outcome.
    pub status: Option<Status>,
    /// Milliseconds since the Unix epoch, when the payload carries a time.
    pub timestamp_ms: Option<i64>,
    pub session_id: Option<String>,
    /// Subagent id and type (Claude Code `agent_id`, `agent_type`).
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub cwd: Option<String>,
    /// Claude Code / Codex `permission_mode` (e.g. `bypassPermissions`).
    pub permission_mode: Option<String>,
    /// The user's prompt on prompt events.
    pub prompt: Option<String>,
    /// Stop re-entry guard: a Stop hook already continued the conversation once.
    pub stop_hook_active: bool,
    /// The evaluating spec's project profiles that apply (bit `i`: its `i`-th `[[profile]]`),
    /// set by the caller from the repository's files or an override; a rule with `profiles`
    /// applies only when one of them is set here.
    #[serde(default, skip_serializing_if = "no_profiles")]
    pub profiles: u64,
    pub tool_use_id: Option<String>,
    /// Shell text a tool carries in its input beyond a shell tool's own command (`command`,
    /// `cmd`, `script`, a string or an argv array, with its `args` beside it; a shell
    /// driver's keystrokes, `input`, `keys`), at any depth of the input, whatever the tool
    /// is called: each is analysed as a shell line run in [`Event::workdir`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// The working directory the tool's input names (`workdir`, `cwd`, `dir_path`,
    /// `directory`, `working_directory`, …), as written: the tool's relative paths and its
    /// commands' relative paths are resolved against it (itself resolved against `cwd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    /// Strings of the tool's input under keys gate has no role for that could name a path
    /// (one line, no prose): each is a target of the tool's act where it resolves to a
    /// protected place or outside the project.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
    /// SHA-256 (hex) of the whole tool input in canonical form (object keys sorted), for
    /// tools that are not shells: a grant is bound to it, so that approving one write of a
    /// file approves no other content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_digest: Option<String>,
    /// The error text a post-tool payload carries (Claude Code `tool_response.stderr` and
    /// PostToolUseFailure `error`, Gemini `tool_response.error`, Copilot `error` and a failed
    /// `toolResult`), cut to [`MAX_ERROR_BYTES`]; the audit stores it redacted and cut again
    /// to [`MAX_STORED_ERROR_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The text a file tool writes (`content`, `new_string`, `file_text`, `new_str`,
    /// `new_source`, each edit's `new_string`), cut to [`MAX_WRITTEN_BYTES`]: text that lands
    /// where something later runs it (a shell start-up file) is read as what it will do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
}

/// Longest text an adapter keeps of what a file tool writes (bytes, cut at a character
/// boundary).
pub const MAX_WRITTEN_BYTES: usize = 64 * 1024;

/// Longest error text an adapter keeps from a payload (bytes, cut at a character boundary).
pub const MAX_ERROR_BYTES: usize = 16 * 1024;
/// Longest error text an audit row stores, after redaction.
pub const MAX_STORED_ERROR_BYTES: usize = 2048;

/// `text` cut to at most `max` bytes at a character boundary, with `…` appended when cut.
pub fn cut_text(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…", &text[..end]))
}

/// SHA-256 (hex) of a JSON value in canonical form: object keys sorted (repeated keys as
/// the value holds them), no whitespace, strings escaped as serde_json writes them.
pub fn input_digest(value: &serde_json::Value) -> String {
    use sha2::Digest;
    fn write(v: &serde_json::Value, h: &mut sha2::Sha256) {
        match v {
            serde_json::Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                h.update(b"{");
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        h.update(b",");
                    }
                    h.update(serde_json::to_string(k).unwrap_or_default().as_bytes());
                    h.update(b":");
                    write(&map[k], h);
                }
                h.update(b"}");
            }
            serde_json::Value::Array(items) => {
                h.update(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        h.update(b",");
                    }
                    write(item, h);
                }
                h.update(b"]");
            }
            other => h.update(other.to_string().as_bytes()),
        }
    }
    let mut h = sha2::Sha256::new();
    write(value, &mut h);
    crate::store::hex(&h.finalize())
}

impl Event {
    /// Whether the session bypasses permission prompts (a native ask would be auto-approved).
    pub fn bypasses_permissions(&self) -> bool {
        matches!(
            self.permission_mode.as_deref(),
            Some("bypassPermissions") | Some("yolo")
        )
    }
}

/// Serde: leave an event's empty profile set out of its JSON.
fn no_profiles(profiles: &u64) -> bool {
    *profiles == 0
}
