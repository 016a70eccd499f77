//! The entry points the fuzz targets drive, one per untrusted input gate reads: a hook
//! payload, a shell command line, a spec file and a replay file. They are plain functions so
//! that the proptest "never panics" properties (gate-cli/tests/never_panics.rs) exercise the
//! very same code paths as the fuzzers.
//!
//! Each function returns nothing: the property is only that no input makes gate panic, loop
//! or blow its bounds.

use gate_cli::adapters;
use gate_runtime::effects;
use gate_runtime::engine::Engine;
use gate_runtime::event::{Event, Runtime};
use gate_runtime::interp::Interpreter;
use gate_runtime::replay::Replayer;
use gate_runtime::shell;
use gate_runtime::verdict::{Decision, Verdict};
use serde_json::Value;

/// Every runtime, in the order the first fuzz byte selects them.
pub const RUNTIMES: [Runtime; 4] = [
    Runtime::ClaudeCode,
    Runtime::Codex,
    Runtime::Gemini,
    Runtime::Copilot,
];

/// Most pattern lines of a shell input tried against its command (keeps a run linear).
const MAX_PATTERN_LINES: usize = 4;

/// The default spec's engine: the policy every hook runs unless configured otherwise.
fn with_default_engine<T>(f: impl FnOnce(&Engine<'static>) -> T) -> T {
    let compiled = gate_specs::ALL
        .iter()
        .copied()
        .find(|s| s.name == "default")
        .expect("the default spec is compiled into gate-specs");
    let engine = Engine::new(compiled.ir(), compiled.machine);
    f(&engine)
}

/// Render every kind of answer for `event`, as the hook would for its runtime.
fn render_all(runtime: Runtime, event: &Event, decision: &Decision) {
    let _ = adapters::render(runtime, event, decision);
    for verdict in [
        Verdict::Allow,
        Verdict::Steer {
            text: "guidance".into(),
        },
        Verdict::Ask {
            reason: "why".into(),
            grant_id: "g-1".into(),
        },
        Verdict::Deny {
            reason: "no".into(),
        },
    ] {
        let other = Decision {
            verdict,
            carried: Some("carried".into()),
        };
        if let Some(text) = adapters::render(runtime, event, &other) {
            // An answer is exactly one JSON object.
            let value: Value = serde_json::from_str(&text).expect("a rendered answer is JSON");
            assert!(value.is_object(), "a rendered answer is a JSON object");
        }
    }
}

/// A hook payload: the first byte picks the runtime and the `--event` hint, the rest is the
/// payload. A payload that normalises is evaluated by the default spec and every answer shape
/// is rendered for it.
pub fn adapter(data: &[u8]) {
    let Some((&first, payload)) = data.split_first() else {
        return;
    };
    let runtime = RUNTIMES[usize::from(first) % RUNTIMES.len()];
    let names = adapters::event_names(runtime);
    let pick = usize::from(first) / RUNTIMES.len();
    let hint = names.get(pick).copied();
    let Ok(event) = adapters::normalize(runtime, payload, hint) else {
        return;
    };
    with_default_engine(|engine| {
        let mut replayer = Replayer::new(engine);
        let outcome = replayer.feed(&event, event.timestamp_ms.unwrap_or(0), None);
        render_all(runtime, &event, &outcome.decision);
    });
}

/// A shell command line: tokenised, classified, its paths listed, matched against the
/// default spec's rules (through a Bash event) and against up to four of its own lines read
/// as command patterns.
pub fn shell(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = shell::parse(&text);
    // The lexer's documented bound: at most 64 steps per input byte.
    assert!(
        parsed.steps <= 64 * (text.len() as u64 + 1),
        "lexer work {} exceeds 64 steps per byte of {} bytes",
        parsed.steps,
        text.len()
    );
    let _ = shell::classify(&parsed);
    let _ = shell::paths(&parsed);
    for cmd in &parsed.commands {
        let _ = shell::class_of(cmd);
    }
    for line in text.lines().take(MAX_PATTERN_LINES) {
        if let Ok(pattern) = gate_spec::pattern::parse_command(line) {
            let _ = shell::matches(&pattern, &parsed, &text);
        }
    }
    let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    let _ = shell::classify(&shell::parse_argv(&words));
    // The effect model on its own: a line the parser could not read whole is never read as
    // harmless (uncertainty is `opaque`, which no rule may class below `high`).
    let at = effects::Where {
        cwd: "/home/user/proj".into(),
        project: "/home/user/proj".into(),
        home: "/home/user".into(),
        gate: vec!["/home/user/.local/state/gate".into()],
        disk: false,
    };
    let mut found = Vec::new();
    effects::effects_of_parsed(&parsed, &text, &at, 0, &mut found);
    if parsed.truncated {
        assert!(
            found.iter().any(|e| e.act == effects::Act::Opaque),
            "a truncated parse yields `opaque`"
        );
    }
    let payload = serde_json::json!({
        "session_id": "fuzz", "cwd": "/home/user/proj", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": text},
    });
    let bytes = serde_json::to_vec(&payload).expect("a JSON value serialises");
    if let Ok(event) = adapters::normalize(Runtime::ClaudeCode, &bytes, None) {
        with_default_engine(|engine| {
            let _ = engine.classify(&event);
            let mut replayer = Replayer::new(engine);
            let _ = replayer.feed(&event, 0, None);
        });
    }
}

/// A spec file: compiled to IR with diagnostics; a spec that compiles is interpreted over a
/// short fixed session, so a valid but odd spec cannot crash the engine either.
pub fn spec(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let (spec, diags) = gate_spec::compile(source);
    let _ = gate_spec::diag::render_all("fuzz.toml", source, &diags.items);
    let Some(spec) = spec else {
        return;
    };
    let interp = Interpreter::new(&spec);
    let engine = Engine::new(&spec, &interp);
    let mut replayer = Replayer::new(&engine);
    let session = [
        r#"{"session_id":"f","hook_event_name":"SessionStart","source":"startup"}"#,
        r#"{"session_id":"f","hook_event_name":"UserPromptSubmit","prompt":"fix the bug"}"#,
        r#"{"session_id":"f","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"src/lib.rs"}}"#,
        r#"{"session_id":"f","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"src/lib.rs","old_string":"a","new_string":"b"}}"#,
        r#"{"session_id":"f","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test"}}"#,
        r#"{"session_id":"f","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"cargo test"}}"#,
        r#"{"session_id":"f","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
        r#"{"session_id":"f","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}"#,
        r#"{"session_id":"f","hook_event_name":"SessionEnd","reason":"exit"}"#,
    ];
    for (i, line) in session.iter().enumerate() {
        if let Ok(event) = adapters::normalize(Runtime::ClaudeCode, line.as_bytes(), None) {
            let outcome = replayer.feed(&event, i as i64 * 61_000, None);
            render_all(Runtime::ClaudeCode, &event, &outcome.decision);
        }
    }
}

/// A replay file, line by line, as `gate replay` reads hook-payload lines: the runtime is
/// given by a wrapper line (`{"runtime": …, "event": …, "payload": {…}}`) or recognised from
/// the payload's shape, the payload is normalised and fed to one in-memory replayer of the
/// default spec. (`gate replay`'s reader itself takes a file path and prints a report, so the
/// fuzzer drives the same adapter + replayer path it uses.)
pub fn replay(data: &[u8]) {
    with_default_engine(|engine| {
        let mut replayer = Replayer::new(engine);
        let mut clock: i64 = 0;
        for line in data.split(|&b| b == b'\n') {
            let Ok(value) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let Some(object) = value.as_object() else {
                continue;
            };
            let (runtime, hint, payload) = match (object.get("runtime"), object.get("payload")) {
                (Some(Value::String(name)), Some(payload)) => {
                    let runtime = if name == "claude" {
                        Some(Runtime::ClaudeCode)
                    } else {
                        Runtime::parse(name)
                    };
                    let Some(runtime) = runtime else { continue };
                    let hint = object.get("event").and_then(Value::as_str);
                    (runtime, hint, payload.clone())
                }
                _ => (
                    gate_cli::cmd::replay::detect_runtime(object),
                    None,
                    value.clone(),
                ),
            };
            let bytes = serde_json::to_vec(&payload).expect("a JSON value serialises");
            if let Ok(event) = adapters::normalize(runtime, &bytes, hint) {
                let now = event.timestamp_ms.unwrap_or(clock.saturating_add(1000));
                clock = clock.max(now);
                let _ = replayer.feed(&event, now, None);
            }
        }
        let _ = serde_json::to_string(&replayer.summary).expect("a summary serialises");
    });
}
