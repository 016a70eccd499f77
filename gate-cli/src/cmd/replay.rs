//! `gate replay FILE`: run a recorded session through a policy, in memory, and summarise.
//!
//! Accepted inputs, detected per file / per line:
//! - hook-payload JSON lines, as the runtime sent them (the runtime comes from `--runtime`
//!   or is recognised from the payload's shape);
//! - wrapped lines `{"runtime": "codex", "event": "PreToolUse", "payload": {…}}`;
//! - a Claude Code transcript (`~/.claude/projects/…/<session>.jsonl`): tool uses become
//!   pre-tool events, tool results post-tool events (failures when `is_error`), user text a
//!   prompt;
//! - the JSON result of the real-client e2e driver (`hook_payloads`).
//!
//! Nothing is written: the user's database is never opened.

use crate::adapters;
use crate::cli::{Exit, ReplayArgs};
use crate::cmd::{compiled_spec, out, out_json};
use crate::config::{Config, Overrides};
use crate::InputError;
use anyhow::Result;
use gate_runtime::engine::Engine;
use gate_runtime::event::Runtime;
use gate_runtime::interp::Interpreter;
use gate_runtime::replay::{Replayer, Summary};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::time::{Duration, Instant};

/// A line that could not be replayed.
#[derive(Debug, serde::Serialize)]
struct BadLine {
    line: u64,
    error: String,
}

/// Recognise the runtime of a raw payload.
pub fn detect_runtime(payload: &Map<String, Value>) -> Runtime {
    let name = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if payload.contains_key("toolName") || payload.contains_key("sessionId") {
        Runtime::Copilot
    } else if matches!(
        name,
        "BeforeTool"
            | "AfterTool"
            | "BeforeAgent"
            | "AfterAgent"
            | "BeforeModel"
            | "AfterModel"
            | "BeforeToolSelection"
            | "PreCompress"
    ) {
        Runtime::Gemini
    } else if payload.contains_key("turn_id") {
        Runtime::Codex
    } else {
        Runtime::ClaudeCode
    }
}

fn runtime_named(name: &str) -> Option<Runtime> {
    match name {
        "claude" => Some(Runtime::ClaudeCode),
        other => Runtime::parse(other),
    }
}

/// Turns transcript lines into Claude-style hook payloads.
#[derive(Default)]
struct Transcript {
    /// tool_use id → (tool name, input)
    uses: BTreeMap<String, (String, Value)>,
}

impl Transcript {
    fn payloads(&mut self, line: &Map<String, Value>) -> Vec<Value> {
        let session = line.get("sessionId").cloned().unwrap_or(Value::Null);
        let cwd = line.get("cwd").cloned().unwrap_or(Value::Null);
        let base = |event: &str| {
            json!({"session_id": session, "cwd": cwd, "hook_event_name": event,
                   "agent_type": line.get("agentType").cloned().unwrap_or(Value::Null)})
        };
        let content = line.get("message").and_then(|m| m.get("content"));
        let mut out = Vec::new();
        match (line.get("type").and_then(Value::as_str), content) {
            (Some("user"), Some(Value::String(text))) => {
                let mut p = base("UserPromptSubmit");
                p["prompt"] = Value::String(text.clone());
                out.push(p);
            }
            (Some(kind), Some(Value::Array(blocks))) => {
                for block in blocks {
                    match (kind, block.get("type").and_then(Value::as_str)) {
                        ("assistant", Some("tool_use")) => {
                            let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                            let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                            let input = block.get("input").cloned().unwrap_or(Value::Null);
                            self.uses
                                .insert(id.to_string(), (name.to_string(), input.clone()));
                            let mut p = base("PreToolUse");
                            p["tool_name"] = Value::String(name.to_string());
                            p["tool_input"] = input;
                            p["tool_use_id"] = Value::String(id.to_string());
                            out.push(p);
                        }
                        ("user", Some("tool_result")) => {
                            let id = block
                                .get("tool_use_id")
                                .and_then(Value::as_str)
                                .unwrap_or("");
                            let Some((name, input)) = self.uses.remove(id) else {
                                continue;
                            };
                            let failed =
                                block.get("is_error").and_then(Value::as_bool) == Some(true);
                            let mut p = base(if failed {
                                "PostToolUseFailure"
                            } else {
                                "PostToolUse"
                            });
                            p["tool_name"] = Value::String(name);
                            p["tool_input"] = input;
                            p["tool_use_id"] = Value::String(id.to_string());
                            out.push(p);
                        }
                        ("user", Some("text")) => {
                            if let Some(text) = block.get("text").and_then(Value::as_str) {
                                let mut p = base("UserPromptSubmit");
                                p["prompt"] = Value::String(text.to_string());
                                out.push(p);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        out
    }
}

fn parse_time(line: &Map<String, Value>) -> Option<i64> {
    match line.get("timestamp")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => gate_runtime_time(s),
        _ => None,
    }
}

/// Milliseconds since the epoch of an RFC 3339 time (`2026-01-01T00:00:00.000Z`).
fn gate_runtime_time(s: &str) -> Option<i64> {
    let ts: toml::value::Datetime = s.trim_end_matches('Z').replace(' ', "T").parse().ok()?;
    let date = ts.date?;
    let time = ts.time.unwrap_or(toml::value::Time {
        hour: 0,
        minute: 0,
        second: Some(0),
        nanosecond: Some(0),
    });
    // Days from civil (Howard Hinnant's algorithm).
    let (y, m, d) = (
        i64::from(date.year),
        i64::from(date.month),
        i64::from(date.day),
    );
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400
        + i64::from(time.hour) * 3600
        + i64::from(time.minute) * 60
        + i64::from(time.second.unwrap_or(0));
    Some(secs * 1000 + i64::from(time.nanosecond.unwrap_or(0)) / 1_000_000)
}

/// Replay a recorded session; returns the exit code.
pub fn run(args: &ReplayArgs, json_out: bool) -> Result<i32> {
    let file = std::fs::File::open(&args.file)
        .map_err(|e| InputError::new(format!("cannot read {}: {e}", args.file.display())))?;
    let spec_owned;
    let interp;
    let engine = match &args.spec_file {
        Some(path) => {
            let source = std::fs::read_to_string(path)
                .map_err(|e| InputError::new(format!("cannot read {}: {e}", path.display())))?;
            let (spec, diags) = gate_spec::compile(&source);
            let Some(spec) = spec else {
                let shown = path.display().to_string();
                return Err(InputError::new(format!(
                    "{shown} is not a valid spec:\n{}",
                    gate_spec::diag::render_all(&shown, &source, &diags.items)
                ))
                .into());
            };
            spec_owned = spec;
            interp = Interpreter::new(&spec_owned);
            Engine::new(&spec_owned, &interp)
        }
        None => {
            let name = match &args.spec {
                Some(n) => n.clone(),
                None => Config::resolve(&Overrides::default())?.spec.value,
            };
            let compiled = compiled_spec(&name)?;
            Engine::new(compiled.ir(), compiled.machine)
        }
    };
    let mut replayer = Replayer::new(&engine);
    let forced = args.runtime.map(|r| r.runtime());
    let mut bad = Vec::new();
    let mut clock: i64 = 0;
    let mut transcript = Transcript::default();
    let progress = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_report = Instant::now();
    let total = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
    let mut read_bytes: u64 = 0;

    let mut feed = |replayer: &mut Replayer<'_>,
                    runtime: Runtime,
                    payload: &Value,
                    hint: Option<&str>,
                    line_no: u64,
                    time: Option<i64>,
                    bad: &mut Vec<BadLine>|
     -> Result<()> {
        let bytes = serde_json::to_vec(payload)?;
        match adapters::normalize(runtime, &bytes, hint) {
            Ok(event) => {
                let now = event
                    .timestamp_ms
                    .or(time)
                    .unwrap_or(clock.saturating_add(1000));
                clock = clock.max(now);
                replayer.feed(&event, now, None);
                Ok(())
            }
            Err(e) => {
                if args.stop_on_error {
                    return Err(InputError::new(format!("line {line_no}: {e}")).into());
                }
                bad.push(BadLine {
                    line: line_no,
                    error: e.to_string(),
                });
                Ok(())
            }
        }
    };

    let mut reader = BufReader::new(file);
    let mut first = String::new();
    // A single JSON document (the e2e driver's result) is read whole.
    let whole: Option<Value> = {
        let mut buf = Vec::new();
        let head = reader.fill_buf()?;
        if looks_like_result(head) {
            std::io::Read::read_to_end(&mut reader, &mut buf)?;
            serde_json::from_slice(&buf).ok()
        } else {
            None
        }
    };
    if let Some(single) = whole.as_ref().filter(|v| v.get("hook_payloads").is_none()) {
        // One pretty-printed payload.
        let runtime = forced.unwrap_or_else(|| {
            single
                .as_object()
                .map_or(Runtime::ClaudeCode, detect_runtime)
        });
        feed(&mut replayer, runtime, single, None, 1, None, &mut bad)?;
    } else if let Some(result) = whole {
        let runtime = forced
            .or_else(|| {
                result
                    .get("runtime")
                    .and_then(Value::as_str)
                    .and_then(runtime_named)
            })
            .unwrap_or(Runtime::ClaudeCode);
        for (i, entry) in result["hook_payloads"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let hint = entry.get("event").and_then(Value::as_str);
            feed(
                &mut replayer,
                runtime,
                &entry["payload"],
                hint,
                i as u64 + 1,
                None,
                &mut bad,
            )?;
        }
    } else {
        let mut line_no: u64 = 0;
        loop {
            first.clear();
            let n = reader.read_line(&mut first)?;
            if n == 0 {
                break;
            }
            read_bytes += n as u64;
            line_no += 1;
            let text = first.trim();
            if text.is_empty() {
                continue;
            }
            if progress && last_report.elapsed() > Duration::from_millis(500) {
                last_report = Instant::now();
                let pct = (read_bytes * 100).checked_div(total).unwrap_or(0);
                let _ = write!(std::io::stderr(), "\rreplay: {line_no} lines ({pct}%)");
            }
            let value: Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(e) => {
                    if args.stop_on_error {
                        return Err(
                            InputError::new(format!("line {line_no}: not JSON: {e}")).into()
                        );
                    }
                    bad.push(BadLine {
                        line: line_no,
                        error: format!("not JSON: {e}"),
                    });
                    continue;
                }
            };
            let Some(obj) = value.as_object() else {
                bad.push(BadLine {
                    line: line_no,
                    error: "not a JSON object".to_string(),
                });
                continue;
            };
            let time = parse_time(obj);
            if obj.contains_key("message")
                && matches!(
                    obj.get("type").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
            {
                for p in transcript.payloads(obj) {
                    feed(
                        &mut replayer,
                        Runtime::ClaudeCode,
                        &p,
                        None,
                        line_no,
                        time,
                        &mut bad,
                    )?;
                }
            } else if obj.get("type").is_some_and(Value::is_string)
                && !["hook_event_name", "hookEventName", "toolName", "payload"]
                    .iter()
                    .any(|k| obj.contains_key(*k))
            {
                // Other transcript entries (summaries, system notes, snapshots): no event.
                continue;
            } else if let Some(payload) = obj.get("payload").filter(|p| p.is_object()) {
                let runtime = forced
                    .or_else(|| {
                        obj.get("runtime")
                            .and_then(Value::as_str)
                            .and_then(runtime_named)
                    })
                    .unwrap_or_else(|| detect_runtime(payload.as_object().unwrap_or(obj)));
                let hint = obj.get("event").and_then(Value::as_str);
                feed(
                    &mut replayer,
                    runtime,
                    payload,
                    hint,
                    line_no,
                    time,
                    &mut bad,
                )?;
            } else {
                let runtime = forced.unwrap_or_else(|| detect_runtime(obj));
                feed(
                    &mut replayer,
                    runtime,
                    &value,
                    None,
                    line_no,
                    time,
                    &mut bad,
                )?;
            }
        }
    }
    if progress {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
    let summary = &replayer.summary;
    let elapsed = started.elapsed();
    if json_out {
        out_json(&json!({
            "file": args.file.display().to_string(),
            "summary": summary,
            "bad_lines": bad,
            "seconds": elapsed.as_secs_f64(),
        }))?;
    } else {
        out(&render_summary(summary, &bad))?;
    }
    Ok(if bad.is_empty() {
        Exit::Ok.code()
    } else {
        Exit::Findings.code()
    })
}

/// A pretty-printed JSON document (the e2e driver's result) rather than JSON lines.
fn looks_like_result(head: &[u8]) -> bool {
    head.starts_with(b"{\n") || head.starts_with(b"{\r\n")
}

fn render_summary(s: &Summary, bad: &[BadLine]) -> String {
    let mut text = format!(
        "spec {}: {} events in {} scope(s)\n",
        s.spec, s.events, s.scopes
    );
    let verdicts: Vec<String> = s.verdicts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    text.push_str(&format!("verdicts: {}\n", verdicts.join(", ")));
    text.push_str(&format!(
        "boundaries {}, windows armed {}, closed {} ({} by backstop), checkpoints {}\n",
        s.boundaries, s.windows_armed, s.windows_closed, s.backstops, s.checkpoints
    ));
    if !s.signal_edges.is_empty() {
        let edges: Vec<String> = s
            .signal_edges
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        text.push_str(&format!("signal edges: {}\n", edges.join(", ")));
    }
    text.push_str(
        "\ntier            actions  allow  steer    ask   deny  observe: would block / steer\n",
    );
    for (name, t) in &s.tiers {
        text.push_str(&format!(
            "{name:<15} {:>7} {:>6} {:>6} {:>6} {:>6}  {:>5} / {}\n",
            t.actions,
            t.allow,
            t.steer,
            t.ask,
            t.deny,
            t.observe_would_block,
            t.observe_would_steer
        ));
    }
    if !bad.is_empty() {
        text.push_str(&format!("\n{} line(s) skipped:\n", bad.len()));
        for b in bad.iter().take(20) {
            text.push_str(&format!("  line {}: {}\n", b.line, b.error));
        }
        if bad.len() > 20 {
            text.push_str(&format!("  … and {} more (see --json)\n", bad.len() - 20));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times() {
        assert_eq!(
            gate_runtime_time("2026-01-01T00:00:00Z"),
            Some(1_767_225_600_000)
        );
        assert_eq!(gate_runtime_time("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(gate_runtime_time("nonsense"), None);
    }

    #[test]
    fn runtime_detection() {
        let camel: Value = json!({"sessionId": "x", "toolName": "bash"});
        assert_eq!(detect_runtime(camel.as_object().unwrap()), Runtime::Copilot);
        let gemini: Value = json!({"hook_event_name": "BeforeTool"});
        assert_eq!(detect_runtime(gemini.as_object().unwrap()), Runtime::Gemini);
        let codex: Value = json!({"hook_event_name": "PreToolUse", "turn_id": "t"});
        assert_eq!(detect_runtime(codex.as_object().unwrap()), Runtime::Codex);
    }
}
