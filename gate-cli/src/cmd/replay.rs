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
//! `--events` lists every event as it is evaluated ([`events::Listing`]); `--only` filters it.
//!
//! Without `--db` nothing is written: no database is opened, states live in memory. With
//! `--db PATH` (given on the command line, never taken from the environment or a config file)
//! the events go through that database exactly as hook calls would, in batch transactions
//! ([`gate_runtime::replay::StoreReplayer`]). A database that does not exist yet is built
//! aside (`gate.db` in `gate.partial`) and moved into place at the end ([`Store::create_staged`]): what
//! was committed is published even when the replay stops on an error, but an interrupted
//! process leaves no database (replay again).

mod events;

use crate::adapters;
use crate::adapters::json::{Node, Object};
use crate::cli::{Exit, ReplayArgs};
use crate::cmd::policy::Policy;
use crate::cmd::{check_role, out, out_json};
use crate::config::{Config, Overrides};
use crate::InputError;
use anyhow::Result;
use gate_runtime::event::{Event, Runtime};
use gate_runtime::replay::{Replayer, StoreReplayer, Summary, DEFAULT_BATCH_EVENTS};
use gate_runtime::store::{partial_path, Staged, Store, StoreError};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::{Duration, Instant};

/// A line that could not be replayed.
#[derive(Debug, serde::Serialize)]
struct BadLine {
    line: u64,
    error: String,
}

/// Recognise the runtime of a raw payload.
pub fn detect_runtime(payload: &Map<String, Value>) -> Runtime {
    let name = payload.get("hook_event_name").and_then(Value::as_str);
    runtime_of_shape(name, |key| payload.contains_key(key))
}

/// [`detect_runtime`] of a payload read as a borrowed tree.
fn detect_runtime_of(payload: &Object<'_>) -> Runtime {
    let name = payload.get("hook_event_name").and_then(Node::as_str);
    runtime_of_shape(name, |key| payload.contains_key(key))
}

/// The runtime a payload's event name and keys point to.
fn runtime_of_shape(name: Option<&str>, has: impl Fn(&str) -> bool) -> Runtime {
    let name = name.unwrap_or("");
    if has("toolName") || has("sessionId") {
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
    } else if has("turn_id") {
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

fn parse_time(line: &Object<'_>) -> Option<i64> {
    match line.get("timestamp")? {
        Node::Number(n) => n.as_i64(),
        Node::String(s) => gate_runtime_time(s),
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
    let days = crate::time::days_from_civil(
        i64::from(date.year),
        i64::from(date.month),
        i64::from(date.day),
    );
    let secs = days * 86_400
        + i64::from(time.hour) * 3600
        + i64::from(time.minute) * 60
        + i64::from(time.second.unwrap_or(0));
    Some(secs * 1000 + i64::from(time.nanosecond.unwrap_or(0)) / 1_000_000)
}

/// How long a stored replay waits for the lock held by another gate process.
const REPLAY_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Where evaluated events go: memory only, or the database.
// One per run: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Sink<'s> {
    /// In memory, with the explicit role name (if any) and the listing of events, if asked.
    Memory(Replayer<'s>, Option<&'s str>, Option<EventListing<'s>>),
    Stored {
        replayer: StoreReplayer<'s>,
        path: PathBuf,
        /// A new database being built aside, published by [`Sink::publish`].
        staged: Option<Staged>,
    },
}

impl Sink<'_> {
    /// Evaluate one event, read from line `line` (both only read it: the reader thread frees
    /// what it allocated).
    fn feed(&mut self, event: &Event, now_ms: i64, line: u64) -> Result<()> {
        match self {
            Sink::Memory(r, role, None) => {
                r.feed(event, now_ms, *role);
                Ok(())
            }
            Sink::Memory(r, role, Some(listing)) => {
                r.feed(event, now_ms, *role);
                listing.event(line, event, r.outcome(), r.states_around())?;
                Ok(())
            }
            Sink::Stored { replayer, path, .. } => replayer
                .feed(event, now_ms)
                .map_err(|e| stored_error(path, replayer.stored(), &e)),
        }
    }

    /// A database built aside goes into place with what was committed; the replayer is
    /// closed then (its counts stay).
    fn publish(&mut self) -> Result<()> {
        let Sink::Stored {
            replayer,
            path,
            staged,
        } = self
        else {
            return Ok(());
        };
        let Some(staged) = staged.take() else {
            return Ok(());
        };
        let store = replayer
            .close()
            .map_err(|e| stored_error(path, replayer.stored(), &e))?;
        staged
            .publish(store)
            .map_err(|e| anyhow::anyhow!("cannot publish the replay's database: {e}"))
    }

    /// Store what is queued.
    fn flush(&mut self) -> Result<()> {
        match self {
            Sink::Memory(.., None) => Ok(()),
            Sink::Memory(.., Some(listing)) => Ok(listing.flush()?),
            Sink::Stored { replayer, path, .. } => replayer
                .flush()
                .map_err(|e| stored_error(path, replayer.stored(), &e)),
        }
    }
}

fn stored_error(path: &Path, stored: u64, e: &StoreError) -> anyhow::Error {
    anyhow::anyhow!(
        "cannot write the replay to {}: {e} ({stored} events were stored before)",
        path.display()
    )
}

/// Progress on stderr: rewritten in place on a terminal, one line per report otherwise.
struct Progress {
    terminal: bool,
    shown: bool,
    total: u64,
    last: Instant,
}

impl Progress {
    fn new(args: &ReplayArgs) -> Option<Progress> {
        let terminal = std::io::stderr().is_terminal();
        (terminal || args.progress).then(|| Progress {
            terminal,
            shown: false,
            total: std::fs::metadata(&args.file).map_or(0, |m| m.len()),
            last: Instant::now(),
        })
    }

    fn tick(&mut self, line_no: u64, read_bytes: u64, sink: &Sink<'_>) {
        let every = if self.terminal {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(2)
        };
        if self.last.elapsed() < every {
            return;
        }
        self.last = Instant::now();
        self.show(line_no, read_bytes, sink);
    }

    fn show(&mut self, line_no: u64, read_bytes: u64, sink: &Sink<'_>) {
        let pct = (read_bytes * 100).checked_div(self.total).unwrap_or(0);
        let stored = match sink {
            Sink::Stored { replayer, .. } => format!(", {} events stored", replayer.stored()),
            Sink::Memory(..) => String::new(),
        };
        let text = format!("replay: {line_no} lines ({pct}%){stored}");
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r{text}\x1b[K")
        } else {
            writeln!(err, "{text}")
        };
        self.shown = true;
    }

    /// Clear the terminal line; elsewhere, a last line with the totals.
    fn done(&mut self, line_no: u64, read_bytes: u64, sink: &Sink<'_>) {
        if !self.terminal {
            self.show(line_no, read_bytes, sink);
        } else if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

/// One replayable thing of the file, in file order.
// Nearly every item is an event: boxing it would cost an allocation per event.
#[allow(clippy::large_enum_variant)]
enum Item {
    Event {
        event: Event,
        now_ms: i64,
        line: u64,
    },
    Bad {
        bad: BadLine,
        stops: bool,
    },
}

/// What the reading thread hands to the evaluating one: items and how far it has read.
struct Chunk {
    items: Vec<Item>,
    line_no: u64,
    read_bytes: u64,
}

/// Items per [`Chunk`]: the channel costs little per event, and the reader runs at most a
/// few chunks ahead.
const CHUNK_ITEMS: usize = 256;
const CHUNKS_AHEAD: usize = 4;

/// The reading side: lines → JSON → adapter → events with their times. It runs on its own
/// thread, so parsing overlaps the engine and the store.
struct Reader {
    forced: Option<Runtime>,
    stop_on_error: bool,
    transcript: Transcript,
    clock: i64,
    items: Vec<Item>,
    /// Chunks' vectors handed back by the evaluating side, to be cleared and reused here.
    spent: Receiver<Vec<Item>>,
    line_no: u64,
    read_bytes: u64,
}

impl Reader {
    /// Normalise one payload; one the adapter refuses is a bad line.
    fn feed(
        &mut self,
        runtime: Runtime,
        payload: &Node<'_>,
        hint: Option<&str>,
        line_no: u64,
        time: Option<i64>,
    ) {
        let normalized = match payload.as_object() {
            Some(object) => adapters::normalize_object(runtime, object, hint),
            None => Err(adapters::AdapterError::NotObject),
        };
        match normalized {
            Ok(event) => {
                let now_ms = event
                    .timestamp_ms
                    .or(time)
                    .unwrap_or(self.clock.saturating_add(1000));
                self.clock = self.clock.max(now_ms);
                self.items.push(Item::Event {
                    event,
                    now_ms,
                    line: line_no,
                });
            }
            Err(e) => self.bad_line(line_no, e.to_string()),
        }
    }

    /// A bad line: the end of the run with `--stop-on-error`.
    fn bad_line(&mut self, line_no: u64, error: String) {
        self.items.push(Item::Bad {
            bad: BadLine {
                line: line_no,
                error,
            },
            stops: self.stop_on_error,
        });
    }

    /// Hand over what is collected; false when the evaluating side has stopped listening.
    fn send(&mut self, to: &SyncSender<Result<Chunk>>) -> bool {
        // The next chunk reuses a vector the evaluating side has finished with. Clearing it
        // here frees its events on this thread, which allocated them: freed on the
        // evaluating thread, each free took this thread's allocator arena lock while this
        // thread was allocating (futex waits and wake-ups on both sides).
        let next = match self.spent.try_recv() {
            Ok(mut items) => {
                items.clear();
                items
            }
            Err(_) => Vec::with_capacity(CHUNK_ITEMS),
        };
        let chunk = Chunk {
            items: std::mem::replace(&mut self.items, next),
            line_no: self.line_no,
            read_bytes: self.read_bytes,
        };
        to.send(Ok(chunk)).is_ok()
    }

    /// Read the whole file, sending chunks as they fill; an I/O error ends it.
    fn run(mut self, file: std::fs::File, to: &SyncSender<Result<Chunk>>) {
        if let Err(e) = self.read(file, to) {
            let _ = to.send(Err(e));
        }
    }

    fn read(&mut self, file: std::fs::File, to: &SyncSender<Result<Chunk>>) -> Result<()> {
        let forced = self.forced;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        // A single JSON document (the e2e driver's result) is read whole.
        let whole: Option<Value> = {
            let mut buf = Vec::new();
            let head = reader.fill_buf()?;
            if looks_like_result(head) {
                std::io::Read::read_to_end(&mut reader, &mut buf)?;
                self.read_bytes = buf.len() as u64;
                self.line_no = 1;
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
            self.feed(runtime, &Node::from_value(single), None, 1, None);
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
                let payload = Node::from_value(&entry["payload"]);
                self.feed(runtime, &payload, hint, i as u64 + 1, None);
                if self.items.len() >= CHUNK_ITEMS && !self.send(to) {
                    return Ok(());
                }
            }
        } else {
            let mut line = Vec::new();
            loop {
                if self.items.len() >= CHUNK_ITEMS && !self.send(to) {
                    return Ok(());
                }
                line.clear();
                let n = reader.read_until(b'\n', &mut line)?;
                if n == 0 {
                    break;
                }
                self.read_bytes += n as u64;
                self.line_no += 1;
                self.line(line.trim_ascii());
            }
        }
        self.send(to);
        Ok(())
    }

    /// One line of a JSON-lines file.
    fn line(&mut self, text: &[u8]) {
        let line_no = self.line_no;
        if text.is_empty() {
            return;
        }
        if text.len() > adapters::MAX_PAYLOAD_BYTES {
            let error = adapters::AdapterError::TooLarge(text.len()).to_string();
            return self.bad_line(line_no, error);
        }
        // A borrowed tree: strings stay in the line, objects are not hashed, and the
        // adapters read `tool_input` in place (a `Value` cost as much as the rest of the
        // reader together).
        let value = match Node::parse(text) {
            Ok(v) => v,
            Err(e) => return self.bad_line(line_no, format!("not JSON: {e}")),
        };
        let Some(obj) = value.as_object() else {
            // Reported, but never the end of the run.
            self.items.push(Item::Bad {
                bad: BadLine {
                    line: line_no,
                    error: "not a JSON object".to_string(),
                },
                stops: false,
            });
            return;
        };
        let time = parse_time(obj);
        if obj.contains_key("message")
            && matches!(
                obj.get("type").and_then(Node::as_str),
                Some("user" | "assistant")
            )
        {
            // The transcript keeps tool uses across lines: it reads an owned copy.
            let owned = value.to_value();
            let line = owned.as_object().expect("an object's value is an object");
            for p in self.transcript.payloads(line) {
                self.feed(
                    Runtime::ClaudeCode,
                    &Node::from_value(&p),
                    None,
                    line_no,
                    time,
                );
            }
        } else if obj.get("type").is_some_and(Node::is_string)
            && !["hook_event_name", "hookEventName", "toolName", "payload"]
                .iter()
                .any(|k| obj.contains_key(k))
        {
            // Other transcript entries (summaries, system notes, snapshots): no event.
        } else if let Some(payload) = obj.get("payload").filter(|p| p.is_object()) {
            let runtime = self
                .forced
                .or_else(|| {
                    obj.get("runtime")
                        .and_then(Node::as_str)
                        .and_then(runtime_named)
                })
                .unwrap_or_else(|| detect_runtime_of(payload.as_object().unwrap_or(obj)));
            let hint = obj.get("event").and_then(Node::as_str);
            self.feed(runtime, payload, hint, line_no, time);
        } else {
            let runtime = self.forced.unwrap_or_else(|| detect_runtime_of(obj));
            self.feed(runtime, &value, None, line_no, time);
        }
    }
}

/// The evaluating side: every item into the sink, in order, with progress. Returns the bad
/// lines and how far the file was read.
fn evaluate_all(
    from: Receiver<Result<Chunk>>,
    spent: SyncSender<Vec<Item>>,
    sink: &mut Sink<'_>,
    progress: &mut Option<Progress>,
) -> Result<(Vec<BadLine>, u64, u64)> {
    let mut bad = Vec::new();
    let (mut line_no, mut read_bytes) = (0, 0);
    for chunk in from {
        let mut chunk = chunk?;
        for item in &mut chunk.items {
            match item {
                Item::Event {
                    event,
                    now_ms,
                    line,
                } => sink.feed(event, *now_ms, *line)?,
                Item::Bad {
                    bad: b,
                    stops: true,
                } => {
                    // What came before the line is replayed (and stored) as usual.
                    sink.flush()?;
                    return Err(InputError::new(format!("line {}: {}", b.line, b.error)).into());
                }
                Item::Bad { bad: b, .. } => bad.push(BadLine {
                    line: b.line,
                    error: std::mem::take(&mut b.error),
                }),
            }
        }
        // Back to the reader, which frees the events it allocated (or, if it has enough
        // vectors waiting, here).
        let _ = spent.try_send(chunk.items);
        (line_no, read_bytes) = (chunk.line_no, chunk.read_bytes);
        if let Some(p) = progress.as_mut() {
            p.tick(line_no, read_bytes, sink);
        }
    }
    Ok((bad, line_no, read_bytes))
}

/// The explicit role of a replay, as a hook would have it (`--role`, `GATE_ROLE`, the config
/// files), checked against the spec: a name the spec does not define is a usage error, not a
/// role silently ignored.
fn replay_role(args: &ReplayArgs, spec: &gate_spec::ir::Spec) -> Result<Option<String>> {
    let overrides = Overrides {
        role: args.role.clone(),
        ..Overrides::default()
    };
    let Some(role) = Config::resolve(&overrides)?.role else {
        return Ok(None);
    };
    check_role(spec, &role.value, &role.source.to_string())?;
    Ok(Some(role.value))
}

/// Replay a recorded session; returns the exit code.
pub fn run(args: &ReplayArgs, json_out: bool) -> Result<i32> {
    let file = std::fs::File::open(&args.file)
        .map_err(|e| InputError::new(format!("cannot read {}: {e}", args.file.display())))?;
    let policy = Policy::load(args.spec.as_deref(), args.spec_file.as_deref())?;
    let mut interp = None;
    // Machines the configuration keeps across sessions, as the hook has them (a
    // configuration that cannot be read keeps none, as the hook does).
    let outliving = Config::resolve(&Overrides::default())
        .ok()
        .and_then(|c| c.outlive_sessions)
        .map(|o| o.value)
        .unwrap_or_default();
    let engine = policy.engine(&mut interp).with_outliving(&outliving);
    let role = replay_role(args, engine.spec)?;
    let role = role.as_deref();
    let listed = args.events || !args.only.is_empty();
    if listed && args.db.is_some() {
        return Err(InputError::new(
            "--events lists an in-memory replay; drop --db (the events a stored replay wrote \
             are in `gate --db PATH log`)",
        )
        .into());
    }
    let mut sink = match &args.db {
        None => {
            let listing = listed.then(|| {
                let out = std::io::BufWriter::new(std::io::stdout().lock());
                let beside = engine.alongside.iter().map(|m| m.spec).collect();
                events::Listing::new(engine.spec, beside, json_out, &args.only, out)
            });
            Sink::Memory(Replayer::new(&engine), role, listing)
        }
        Some(path) => {
            let cannot =
                |e: StoreError| anyhow::anyhow!("cannot use the database {}: {e}", path.display());
            let (store, staged) = if path.exists() || partial_path(path).is_none() {
                (
                    Store::open_with_timeout(path, REPLAY_BUSY_TIMEOUT).map_err(cannot)?,
                    None,
                )
            } else {
                let (store, staged) =
                    Store::create_staged(path, REPLAY_BUSY_TIMEOUT).map_err(cannot)?;
                (store, Some(staged))
            };
            let replayer =
                StoreReplayer::new(&engine, store, DEFAULT_BATCH_EVENTS, role).map_err(cannot)?;
            Sink::Stored {
                replayer,
                path: path.clone(),
                staged,
            }
        }
    };
    if let Sink::Memory(.., Some(listing)) = &mut sink {
        listing.header()?;
    }
    let mut progress = Progress::new(args);
    let started = Instant::now();
    // Chunks' vectors go back to the reader, which frees the events it allocated.
    let (spent_to, spent_from) = std::sync::mpsc::sync_channel(CHUNKS_AHEAD);
    let reader = Reader {
        forced: args.runtime.map(|r| r.runtime()),
        stop_on_error: args.stop_on_error,
        transcript: Transcript::default(),
        clock: 0,
        items: Vec::with_capacity(CHUNK_ITEMS),
        spent: spent_from,
        line_no: 0,
        read_bytes: 0,
    };
    let replayed = std::thread::scope(|scope| {
        let (to, from) = std::sync::mpsc::sync_channel(CHUNKS_AHEAD);
        scope.spawn(move || reader.run(file, &to));
        // Returning drops the receiver, which stops the reader at its next chunk.
        evaluate_all(from, spent_to, &mut sink, &mut progress)
    })
    .and_then(|read| {
        sink.flush()?;
        Ok(read)
    });
    // Whatever was committed is published, also when the replay failed.
    let published = sink.publish();
    let (bad, line_no, read_bytes) = match (replayed, published) {
        (Ok(read), Ok(())) => read,
        (Err(e), Ok(())) | (Ok(_), Err(e)) => return Err(e),
        (Err(e), Err(p)) => return Err(e.context(p.to_string())),
    };
    if let Some(p) = progress.as_mut() {
        p.done(line_no, read_bytes, &sink);
    }
    let (summary, stored, mut listing) = match sink {
        Sink::Memory(r, _, listing) => (r.summary, None, listing),
        Sink::Stored { replayer, path, .. } => {
            let stored = (path, replayer.stored(), replayer.transactions());
            (replayer.summary().clone(), Some(stored), None)
        }
    };
    let elapsed = started.elapsed();
    if json_out {
        let mut report = json!({
            "file": args.file.display().to_string(),
            "summary": summary,
            "bad_lines": bad,
            "seconds": elapsed.as_secs_f64(),
        });
        if let Some((path, events, transactions)) = &stored {
            report["db"] = json!({
                "path": path.display().to_string(),
                "stored_events": events,
                "transactions": transactions,
            });
        }
        match listing.as_mut() {
            // JSON lines: the summary is the last one.
            Some(listing) => {
                report["type"] = json!("summary");
                listing.summary(&report)?;
                listing.flush()?;
            }
            None => out_json(&report)?,
        }
    } else {
        if let Some(listing) = listing.take() {
            // The summary follows the events, after a blank line.
            listing.summary_gap()?;
        }
        let mut text = render_summary(&summary, &bad);
        if let Some((path, events, transactions)) = &stored {
            text.push_str(&format!(
                "\nstored {events} events in {transactions} transaction(s) in {}\n",
                path.display()
            ));
        }
        out(&text)?;
    }
    Ok(if bad.is_empty() {
        Exit::Ok.code()
    } else {
        Exit::Findings.code()
    })
}

/// The listing `--events` writes on stdout.
type EventListing<'s> = events::Listing<'s, std::io::BufWriter<std::io::StdoutLock<'static>>>;

/// A pretty-printed JSON document (the e2e driver's result) rather than JSON lines.
/// Every event of a recorded session, read as `gate replay` reads it (JSON lines of hook
/// payloads, a transcript, or an e2e driver result), with its time; a line that cannot be
/// read is an input error naming it.
pub fn read_session(path: &Path) -> Result<Vec<(Event, i64)>> {
    let file = std::fs::File::open(path)
        .map_err(|e| InputError::new(format!("cannot read {}: {e}", path.display())))?;
    let (_spent_to, spent_from) = std::sync::mpsc::sync_channel(CHUNKS_AHEAD);
    let reader = Reader {
        forced: None,
        stop_on_error: true,
        transcript: Transcript::default(),
        clock: 0,
        items: Vec::with_capacity(CHUNK_ITEMS),
        spent: spent_from,
        line_no: 0,
        read_bytes: 0,
    };
    std::thread::scope(|scope| {
        let (to, from) = std::sync::mpsc::sync_channel(CHUNKS_AHEAD);
        scope.spawn(move || reader.run(file, &to));
        let mut events = Vec::new();
        for chunk in from {
            for item in chunk?.items {
                match item {
                    Item::Event { event, now_ms, .. } => events.push((event, now_ms)),
                    Item::Bad { bad, .. } => {
                        return Err(InputError::new(format!(
                            "{} line {}: {}",
                            path.display(),
                            bad.line,
                            bad.error
                        ))
                        .into())
                    }
                }
            }
        }
        Ok(events)
    })
}

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

    /// What one line became: an event with its time, or a bad line (and whether it stops).
    type Outcome = Result<(Event, i64), (u64, String, bool)>;

    /// The previous reading of a line, through a `serde_json::Value` and the adapters'
    /// previous reading ([`adapters::oracle`]): the oracle for [`Reader::line`].
    struct OldReader {
        forced: Option<Runtime>,
        transcript: Transcript,
        clock: i64,
        out: Vec<Outcome>,
    }

    impl OldReader {
        fn feed(
            &mut self,
            runtime: Runtime,
            payload: &Value,
            hint: Option<&str>,
            line_no: u64,
            time: Option<i64>,
        ) {
            let normalized = match payload.as_object() {
                Some(object) => adapters::oracle::normalize_object(runtime, object, hint),
                None => Err(adapters::AdapterError::NotObject),
            };
            match normalized {
                Ok(event) => {
                    let now_ms = event
                        .timestamp_ms
                        .or(time)
                        .unwrap_or(self.clock.saturating_add(1000));
                    self.clock = self.clock.max(now_ms);
                    self.out.push(Ok((event, now_ms)));
                }
                Err(e) => self.out.push(Err((line_no, e.to_string(), false))),
            }
        }

        fn line(&mut self, text: &[u8], line_no: u64) {
            if text.is_empty() {
                return;
            }
            let value: Value = match serde_json::from_slice(text) {
                Ok(v) => v,
                Err(e) => {
                    return self
                        .out
                        .push(Err((line_no, format!("not JSON: {e}"), false)))
                }
            };
            let Some(obj) = value.as_object() else {
                return self
                    .out
                    .push(Err((line_no, "not a JSON object".to_string(), false)));
            };
            let time = match obj.get("timestamp") {
                Some(Value::Number(n)) => n.as_i64(),
                Some(Value::String(s)) => gate_runtime_time(s),
                _ => None,
            };
            if obj.contains_key("message")
                && matches!(
                    obj.get("type").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
            {
                for p in self.transcript.payloads(obj) {
                    self.feed(Runtime::ClaudeCode, &p, None, line_no, time);
                }
            } else if obj.get("type").is_some_and(Value::is_string)
                && !["hook_event_name", "hookEventName", "toolName", "payload"]
                    .iter()
                    .any(|k| obj.contains_key(*k))
            {
            } else if let Some(payload) = obj.get("payload").filter(|p| p.is_object()) {
                let runtime = self
                    .forced
                    .or_else(|| {
                        obj.get("runtime")
                            .and_then(Value::as_str)
                            .and_then(runtime_named)
                    })
                    .unwrap_or_else(|| detect_runtime(payload.as_object().unwrap_or(obj)));
                let hint = obj.get("event").and_then(Value::as_str);
                self.feed(runtime, payload, hint, line_no, time);
            } else {
                let runtime = self.forced.unwrap_or_else(|| detect_runtime(obj));
                self.feed(runtime, &value, None, line_no, time);
            }
        }
    }

    fn fixture_lines() -> Vec<Vec<u8>> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for file in ["tests/fixtures/transcript.jsonl", "examples/session.jsonl"] {
            let text = std::fs::read(root.join(file)).unwrap();
            lines.extend(text.split(|&b| b == b'\n').map(|l| l.trim_ascii().to_vec()));
        }
        let mut payloads = Vec::new();
        for dir in ["claude", "codex", "gemini", "copilot"] {
            let mut files: Vec<PathBuf> =
                std::fs::read_dir(root.join("tests/fixtures/payloads").join(dir))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .collect();
            files.sort();
            for path in files {
                let event = path
                    .file_stem()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .split('-')
                    .next()
                    .unwrap()
                    .to_string();
                let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                payloads.push((dir, event, value));
            }
        }
        for (dir, event, value) in payloads {
            let mut forms = vec![
                value.clone(),
                json!({"runtime": dir, "event": event, "payload": value}),
                json!({"event": event, "payload": value, "timestamp": "2026-01-02T03:04:05.5Z"}),
                json!({"runtime": "nope", "payload": value, "timestamp": 1_700_000_000_000_i64}),
            ];
            if let Value::Object(object) = &value {
                let mut typed = object.clone();
                typed.insert("type".into(), json!("note"));
                forms.push(Value::Object(typed));
                let mut nameless = object.clone();
                nameless.shift_remove("hook_event_name");
                forms.push(Value::Object(nameless));
                let mut timed = object.clone();
                timed.insert("timestamp".into(), json!(-5));
                forms.push(Value::Object(timed));
            }
            for form in forms {
                lines.push(serde_json::to_vec(&form).unwrap());
                // Escapes everywhere: owned strings and keys in the borrowed tree.
                let escaped = serde_json::to_string(&form)
                    .unwrap()
                    .replace('/', "\\/")
                    .replace('_', "\\u005f");
                lines.push(escaped.into_bytes());
            }
        }
        for bad in [
            &b"not json"[..],
            b"[1,2]",
            b"\"x\"",
            b"{\"a\":\"\xff\"}",
            b"{\"a\":1e400}",
            b"{\"hook_event_name\":\"PreToolUse\"",
            b"{}",
            b"{\"payload\":[1]}",
            b"{\"payload\":{}}",
            b"{\"type\":\"user\",\"message\":{\"content\":\"hi\"},\"sessionId\":\"s\"}",
            b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\"}]}}",
            b"{\"hook_event_name\":\"PreToolUse\",\"hook_event_name\":\"Stop\"}",
        ] {
            lines.push(bad.to_vec());
        }
        lines
    }

    #[test]
    fn lines_read_as_the_value_based_reader_read_them() {
        let lines = fixture_lines();
        assert!(lines.len() > 500, "{} lines", lines.len());
        for forced in [None, Some(Runtime::Codex), Some(Runtime::Copilot)] {
            let (_spent_to, spent) = std::sync::mpsc::sync_channel(1);
            let mut reader = Reader {
                forced,
                stop_on_error: false,
                transcript: Transcript::default(),
                clock: 0,
                items: Vec::new(),
                spent,
                line_no: 0,
                read_bytes: 0,
            };
            let mut old = OldReader {
                forced,
                transcript: Transcript::default(),
                clock: 0,
                out: Vec::new(),
            };
            for (i, text) in lines.iter().enumerate() {
                reader.line_no = i as u64 + 1;
                reader.line(text);
                old.line(text, i as u64 + 1);
            }
            let new: Vec<Outcome> = reader
                .items
                .drain(..)
                .map(|item| match item {
                    Item::Event { event, now_ms, .. } => Ok((event, now_ms)),
                    Item::Bad { bad, stops } => Err((bad.line, bad.error, stops)),
                })
                .collect();
            assert_eq!(new.len(), old.out.len(), "forced {forced:?}");
            for (n, o) in new.iter().zip(&old.out) {
                assert_eq!(n, o, "forced {forced:?}");
            }
        }
    }
}
