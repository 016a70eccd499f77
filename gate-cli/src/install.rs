//! Installers: merge gate's hook entries into each runtime's settings file (and take them out
//! again), idempotently, with a backup so that `--remove` restores the file byte for byte.

use crate::adapters;
use crate::sandbox;
use crate::InputError;
use anyhow::{Context, Result};
use gate_runtime::event::Runtime;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Seconds a runtime waits for gate before it kills the hook (and runs the tool).
pub const HOOK_TIMEOUT_SECS: u64 = 10;
/// Suffix of the backup kept next to a settings file.
pub const BACKUP_SUFFIX: &str = ".gate-backup";

/// Where the installer looks: the project root and the user's home directories.
#[derive(Clone, Debug)]
pub struct Locations {
    /// The project root (the nearest ancestor of the working directory holding `.git`, else
    /// the working directory).
    pub project: PathBuf,
    /// `$HOME`.
    pub home: PathBuf,
    /// `$CODEX_HOME` (default `~/.codex`).
    pub codex_home: PathBuf,
    /// `$COPILOT_HOME` (default `~/.copilot`).
    pub copilot_home: PathBuf,
    /// Claude Code's user directory: `$CLAUDE_CONFIG_DIR` (default `~/.claude`).
    pub claude_home: PathBuf,
    /// Gemini CLI's home: `$GEMINI_CLI_HOME` (default `~`), holding `.gemini/`.
    pub gemini_home: PathBuf,
}

impl Locations {
    /// From the process environment and working directory.
    pub fn from_env() -> Result<Locations> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME").context("HOME is not set; cannot locate user settings")?;
        let project = cwd
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&cwd)
            .to_path_buf();
        Ok(Locations {
            project,
            codex_home: var("CODEX_HOME").unwrap_or_else(|| home.join(".codex")),
            copilot_home: var("COPILOT_HOME").unwrap_or_else(|| home.join(".copilot")),
            claude_home: var("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude")),
            gemini_home: var("GEMINI_CLI_HOME").unwrap_or_else(|| home.clone()),
            home,
        })
    }

    /// The settings file gate writes for `runtime`.
    pub fn settings_file(&self, runtime: Runtime, global: bool) -> PathBuf {
        match (runtime, global) {
            (Runtime::ClaudeCode, false) => self.project.join(".claude/settings.json"),
            (Runtime::ClaudeCode, true) => self.claude_home.join("settings.json"),
            (Runtime::Codex, false) => self.project.join(".codex/hooks.json"),
            (Runtime::Codex, true) => self.codex_home.join("hooks.json"),
            (Runtime::Gemini, false) => self.project.join(".gemini/settings.json"),
            (Runtime::Gemini, true) => self.gemini_home.join(".gemini/settings.json"),
            (Runtime::Copilot, false) => self.project.join(".github/hooks/gate.json"),
            (Runtime::Copilot, true) => self.copilot_home.join("hooks/gate.json"),
        }
    }

    /// Settings files Copilot CLI also runs hooks from (Claude Code's).
    fn claude_files(&self) -> Vec<PathBuf> {
        vec![
            self.project.join(".claude/settings.json"),
            self.project.join(".claude/settings.local.json"),
            self.claude_home.join("settings.json"),
        ]
    }

    /// Copilot hook files (every `*.json` in its hook directories).
    fn copilot_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for dir in [
            self.project.join(".github/hooks"),
            self.copilot_home.join("hooks"),
        ] {
            if let Ok(entries) = std::fs::read_dir(&dir) {
                let mut found: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "json"))
                    .collect();
                found.sort();
                files.extend(found);
            }
        }
        files
    }
}

/// Quote a word for `sh -c` when it needs it.
fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Split a shell command line into words (plain, single- and double-quoted words; enough to
/// recognise the commands gate writes and the usual hand edits of them).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// If `command` runs `gate hook …`, the gate binary it names.
pub fn gate_binary_in(command: &str) -> Option<PathBuf> {
    let words = shell_words(command);
    let program = words.first()?;
    let name = Path::new(program).file_name()?.to_str()?;
    (matches!(name, "gate" | "gate.exe") && words.get(1).map(String::as_str) == Some("hook"))
        .then(|| PathBuf::from(program))
}

/// The policy flags of a `gate hook …` command line (what [`Request::hook_flags`] writes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookFlags {
    pub spec: Option<String>,
    pub spec_file: Option<PathBuf>,
    pub role: Option<String>,
}

/// The policy flags of `command`, a `gate hook …` command line (`--flag VALUE` or
/// `--flag=VALUE`; the last of a repeated flag, as the hook reads them).
pub fn hook_flags_in(command: &str) -> HookFlags {
    let words = shell_words(command);
    let mut flags = HookFlags::default();
    let mut i = 0;
    while i < words.len() {
        let (flag, value) = match words[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ if ["--spec", "--spec-file", "--role"].contains(&words[i].as_str()) => {
                i += 1;
                (words[i - 1].clone(), words.get(i).cloned())
            }
            _ => (words[i].clone(), None),
        };
        match flag.as_str() {
            "--spec" => flags.spec = value,
            "--spec-file" => flags.spec_file = value.map(PathBuf::from),
            "--role" => flags.role = value,
            _ => {}
        }
        i += 1;
    }
    flags
}

/// The command line gate writes for one event; `flags` (e.g. `--spec guard`) follow the
/// runtime, where `gate hook` reads them and [`gate_binary_in`] still finds `hook` second.
pub fn hook_command(runtime: Runtime, exe: &Path, event: &str, flags: &[String]) -> String {
    let exe = shell_quote(&exe.display().to_string());
    let mut command = match runtime {
        Runtime::Copilot => format!("{exe} hook copilot --event {event}"),
        _ => format!("{exe} hook {}", runtime.as_str()),
    };
    for flag in flags {
        command.push(' ');
        command.push_str(&shell_quote(flag));
    }
    command
}

/// Events whose entries take a tool matcher.
fn takes_matcher(runtime: Runtime, event: &str) -> bool {
    match runtime {
        Runtime::ClaudeCode => matches!(event, "PreToolUse" | "PostToolUse" | "PostToolUseFailure"),
        Runtime::Codex => matches!(event, "PreToolUse" | "PostToolUse"),
        Runtime::Gemini => matches!(event, "BeforeTool" | "AfterTool"),
        Runtime::Copilot => false,
    }
}

/// gate's entry for one event, in the runtime's settings shape.
fn entry(runtime: Runtime, exe: &Path, event: &str, flags: &[String]) -> Value {
    let command = hook_command(runtime, exe, event, flags);
    match runtime {
        Runtime::Copilot => {
            json!({"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT_SECS})
        }
        _ => {
            let mut handler = Map::new();
            handler.insert("type".into(), json!("command"));
            handler.insert("command".into(), json!(command));
            if runtime == Runtime::Gemini {
                handler.insert("name".into(), json!("gate"));
                // Gemini counts milliseconds.
                handler.insert("timeout".into(), json!(HOOK_TIMEOUT_SECS * 1000));
            } else {
                handler.insert("timeout".into(), json!(HOOK_TIMEOUT_SECS));
            }
            let mut group = Map::new();
            if takes_matcher(runtime, event) {
                group.insert("matcher".into(), json!("*"));
            }
            group.insert("hooks".into(), json!([Value::Object(handler)]));
            Value::Object(group)
        }
    }
}

/// A settings document with nothing of gate in it, for a file that did not exist.
fn skeleton(runtime: Runtime) -> Value {
    match runtime {
        Runtime::Copilot => json!({"version": 1}),
        _ => json!({}),
    }
}

/// Whether a handler object is one of gate's.
fn is_gate_handler(handler: &Value) -> bool {
    ["command", "bash"].iter().any(|key| {
        handler
            .get(*key)
            .and_then(Value::as_str)
            .and_then(gate_binary_in)
            .is_some()
    })
}

/// One gate handler found in a settings document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundEntry {
    pub event: String,
    pub group: usize,
    pub index: usize,
    pub command: String,
}

/// Every gate handler in a settings document (both shapes: groups with `hooks`, or Copilot's
/// flat handler lists).
pub fn find_gate_entries(doc: &Value) -> Vec<FoundEntry> {
    let mut found = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, list) in hooks {
        let Some(list) = list.as_array() else {
            continue;
        };
        for (g, item) in list.iter().enumerate() {
            let command = |h: &Value| {
                ["command", "bash"]
                    .iter()
                    .find_map(|k| h.get(*k).and_then(Value::as_str))
                    .unwrap_or_default()
                    .to_string()
            };
            if let Some(handlers) = item.get("hooks").and_then(Value::as_array) {
                for (i, h) in handlers.iter().enumerate() {
                    if is_gate_handler(h) {
                        found.push(FoundEntry {
                            event: event.clone(),
                            group: g,
                            index: i,
                            command: command(h),
                        });
                    }
                }
            } else if is_gate_handler(item) {
                found.push(FoundEntry {
                    event: event.clone(),
                    group: g,
                    index: 0,
                    command: command(item),
                });
            }
        }
    }
    found
}

/// Remove every gate handler; drop the groups and event lists that only gate filled (the
/// `hooks` table itself stays, so a reinstall puts entries back in the same place). Returns
/// whether anything was removed.
fn strip_gate(doc: &mut Value) -> bool {
    let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut removed = false;
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(list) = hooks.get_mut(&event).and_then(Value::as_array_mut) else {
            continue;
        };
        let before = list.len();
        let mut emptied = Vec::new();
        for (g, item) in list.iter_mut().enumerate() {
            if let Some(handlers) = item.get_mut("hooks").and_then(Value::as_array_mut) {
                let n = handlers.len();
                handlers.retain(|h| !is_gate_handler(h));
                if handlers.len() != n {
                    removed = true;
                    if handlers.is_empty() {
                        emptied.push(g);
                    }
                }
            }
        }
        let mut g = 0;
        list.retain(|item| {
            let keep = !emptied.contains(&g) && !is_gate_handler(item);
            g += 1;
            keep
        });
        if list.len() != before {
            removed = true;
            if list.is_empty() {
                hooks.shift_remove(&event);
            }
        }
    }
    removed
}

/// A document with empty event lists and an empty `hooks` table dropped (removing gate cannot
/// tell whether those were there before, so they do not count as a difference).
fn without_empty_hooks(doc: &Value) -> Value {
    let mut doc = doc.clone();
    if let Some(map) = doc.as_object_mut() {
        if let Some(hooks) = map.get_mut("hooks").and_then(Value::as_object_mut) {
            hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
            if hooks.is_empty() {
                map.shift_remove("hooks");
            }
        }
    }
    doc
}

/// Add gate's entries for every event it wires.
fn add_gate(doc: &mut Value, runtime: Runtime, exe: &Path, flags: &[String]) -> Result<()> {
    let map = doc
        .as_object_mut()
        .context("the settings file is not a JSON object")?;
    if runtime == Runtime::Copilot && !map.contains_key("version") {
        map.insert("version".into(), json!(1));
    }
    let hooks = map
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .context("`hooks` in the settings file is not an object")?;
    for event in adapters::event_names(runtime) {
        let list = hooks
            .entry(event.to_string())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .with_context(|| format!("`hooks.{event}` in the settings file is not a list"))?;
        list.push(entry(runtime, exe, event, flags));
    }
    Ok(())
}

/// Serialise a settings document the way gate writes it.
fn to_text(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_default();
    text.push('\n');
    text
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Value> {
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| {
        InputError::new(format!(
            "{} is not valid JSON ({e}); fix it or move it away first",
            path.display()
        ))
    })?;
    if !doc.is_object() {
        return Err(InputError::new(format!("{} is not a JSON object", path.display())).into());
    }
    Ok(doc)
}

pub(crate) fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The backup path of a settings file.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(BACKUP_SUFFIX);
    PathBuf::from(name)
}

/// What an install or removal did (or, in a dry run, would do).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub path: PathBuf,
    pub before: Option<String>,
    /// The file's new content; `None` when the file is (or would be) removed.
    pub after: Option<String>,
    pub changed: bool,
    pub notes: Vec<String>,
    /// Other files the same run changed (Codex's `config.toml` under `--sandbox`).
    pub also: Vec<Outcome>,
}

impl Outcome {
    /// A unified diff of the change.
    pub fn diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        let after = self.after.as_deref().unwrap_or("");
        let name = self.path.display().to_string();
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .header(&format!("{name} (before)"), &format!("{name} (after)"))
            .to_string()
    }
}

/// Options of one `gate init` run.
#[derive(Clone, Debug)]
pub struct Request {
    pub runtime: Runtime,
    pub global: bool,
    pub remove: bool,
    pub dry_run: bool,
    /// The gate binary the entries run (the absolute path of the running binary).
    pub exe: PathBuf,
    /// The spec the installed hook enforces (`--spec` written into its command line);
    /// `None`: the hook resolves it at each call (GATE_SPEC, config files, default).
    pub spec: Option<String>,
    /// A draft the installed hook answers with instead (`--spec-file`, an absolute path,
    /// interpreted at each call).
    pub spec_file: Option<PathBuf>,
    /// The role the installed hook enforces as (`--role` in its command line).
    pub role: Option<String>,
    /// Also turn on Claude Code's OS sandbox over gate's locations (`--sandbox`); kept on by
    /// a later `gate init` once gate has written it.
    pub sandbox: bool,
    /// gate's locations for the sandbox, generated from its configuration.
    pub protected: crate::sandbox::Protected,
}

impl Request {
    /// The flags written after `gate hook <runtime>`.
    pub fn hook_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        let file = self.spec_file.as_ref().map(|p| p.display().to_string());
        for (flag, value) in [
            ("--spec", &self.spec),
            ("--spec-file", &file),
            ("--role", &self.role),
        ] {
            if let Some(value) = value {
                flags.push(flag.to_string());
                flags.push(value.clone());
            }
        }
        flags
    }
}

/// Refuse a second gate inside Copilot: it also runs the hooks in Claude Code's settings.
fn check_copilot_double(loc: &Locations, runtime: Runtime) -> Result<()> {
    let (others, what) = match runtime {
        Runtime::Copilot => (loc.claude_files(), "Claude Code settings"),
        Runtime::ClaudeCode => (loc.copilot_files(), "Copilot hook files"),
        _ => return Ok(()),
    };
    for file in others {
        let Some(bytes) = read(&file)? else { continue };
        let Ok(doc) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        if !find_gate_entries(&doc).is_empty() {
            let fix = match runtime {
                Runtime::Copilot => {
                    "Copilot CLI already runs gate through that file (it runs \
                    Claude Code's hooks too); wiring it again would run gate twice per tool call. \
                    Keep one: either leave it as is, or run `gate init claude-code --remove` first"
                }
                _ => {
                    "Copilot CLI also runs the hooks in Claude Code's settings, so gate would run \
                    twice per Copilot tool call. Keep one: run `gate init copilot --remove` first, \
                    or keep the Copilot wiring and skip this one"
                }
            };
            return Err(EnvironmentConflict(format!(
                "gate is already wired into {what} at {}: {fix}",
                file.display()
            ))
            .into());
        }
    }
    Ok(())
}

/// A conflict with an existing installation (exit code 3).
#[derive(Debug)]
pub struct EnvironmentConflict(pub String);

impl std::fmt::Display for EnvironmentConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EnvironmentConflict {}

/// Install or remove gate's entries.
pub fn run(loc: &Locations, req: &Request) -> Result<Outcome> {
    let path = loc.settings_file(req.runtime, req.global);
    if req.remove {
        let mut outcome = remove(&path, req)?;
        if req.runtime == Runtime::Codex {
            outcome
                .also
                .extend(sandbox::codex::remove(loc, req.dry_run)?);
        }
        Ok(outcome)
    } else {
        check_copilot_double(loc, req.runtime)?;
        // Codex's profile is planned first: a refusal (the user's own sandbox_mode) changes
        // nothing.
        let planned = match req.runtime {
            Runtime::Codex => sandbox::codex::plan(loc, req.sandbox, &req.protected)?,
            _ => None,
        };
        let mut outcome = install(&path, req)?;
        if let Some(planned) = planned {
            outcome
                .also
                .push(sandbox::codex::apply(planned, req.dry_run)?);
        }
        Ok(outcome)
    }
}

fn install(path: &Path, req: &Request) -> Result<Outcome> {
    let before = read(path)?;
    let mut doc = match &before {
        Some(bytes) => parse(path, bytes)?,
        None => skeleton(req.runtime),
    };
    let record = match req.runtime {
        Runtime::ClaudeCode => sandbox::read_record::<sandbox::claude::Record>(path)?,
        _ => None,
    };
    let mut already = strip_gate(&mut doc);
    if let Some(record) = &record {
        sandbox::claude::strip(&mut doc, record);
        already = true;
    }
    add_gate(&mut doc, req.runtime, &req.exe, &req.hook_flags())?;
    let new_record = if req.runtime == Runtime::ClaudeCode && (req.sandbox || record.is_some()) {
        Some(sandbox::claude::add(&mut doc, &req.protected)?)
    } else {
        None
    };
    let after = to_text(&doc);
    let before_text = before
        .as_ref()
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let changed = before.as_deref() != Some(after.as_bytes());
    let mut notes = Vec::new();
    if !changed {
        notes.push(format!(
            "gate is already wired into {}; nothing changed",
            path.display()
        ));
    }
    if req.runtime == Runtime::Codex {
        notes.push(
            "Codex skips hooks it has not trusted, silently: start codex, open /hooks and trust \
             gate's entries (again after every change to them); `gate doctor` shows their trust"
                .to_string(),
        );
    }
    if let Some(record) = &new_record {
        notes.extend(sandbox::claude::notes(record));
    }
    if req.dry_run || !changed {
        if !req.dry_run && new_record != record {
            sandbox::write_record(path, new_record.as_ref())?;
        }
        return Ok(Outcome {
            path: path.to_path_buf(),
            also: Vec::new(),
            before: before_text,
            after: Some(after),
            changed,
            notes,
        });
    }
    let backup = backup_path(path);
    // Keep the pristine copy: refresh it only when the file has no gate entries (a first
    // install, or gate was taken out by hand since).
    if let Some(bytes) = &before {
        if !already || !backup.exists() {
            std::fs::write(&backup, bytes)
                .with_context(|| format!("cannot write the backup {}", backup.display()))?;
            notes.push(format!("backup: {}", backup.display()));
        }
    } else if backup.exists() {
        // A backup of some earlier file no longer describes "before": the file did not exist.
        std::fs::remove_file(&backup)
            .with_context(|| format!("cannot remove the stale backup {}", backup.display()))?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    write_atomic(path, after.as_bytes())?;
    if new_record != record {
        sandbox::write_record(path, new_record.as_ref())?;
    }
    Ok(Outcome {
        path: path.to_path_buf(),
        also: Vec::new(),
        before: before_text,
        after: Some(after),
        changed,
        notes,
    })
}

fn remove(path: &Path, req: &Request) -> Result<Outcome> {
    let backup = backup_path(path);
    let Some(current) = read(path)? else {
        return Ok(Outcome {
            path: path.to_path_buf(),
            also: Vec::new(),
            before: None,
            after: None,
            changed: false,
            notes: vec![format!(
                "{} does not exist; gate is not wired there",
                path.display()
            )],
        });
    };
    let current_text = String::from_utf8_lossy(&current).into_owned();
    let mut doc = parse(path, &current)?;
    let mut removed = strip_gate(&mut doc);
    let record = match req.runtime {
        Runtime::ClaudeCode => sandbox::read_record::<sandbox::claude::Record>(path)?,
        _ => None,
    };
    if let Some(record) = &record {
        sandbox::claude::strip(&mut doc, record);
        removed = true;
    }
    doc = without_empty_hooks(&doc);
    if !removed {
        return Ok(Outcome {
            path: path.to_path_buf(),
            also: Vec::new(),
            before: Some(current_text.clone()),
            after: Some(current_text),
            changed: false,
            notes: vec![format!(
                "gate is not wired into {}; nothing changed",
                path.display()
            )],
        });
    }
    let saved = read(&backup)?;
    if req.runtime == Runtime::Copilot {
        // `gate init` adds Copilot's required `"version": 1` when a file lacks it.
        let saved_has_version = saved
            .as_deref()
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .is_some_and(|d| d.get("version").is_some());
        if !saved_has_version && doc.get("version") == Some(&json!(1)) {
            if let Some(map) = doc.as_object_mut() {
                if saved.is_some() || map.len() > 1 {
                    map.shift_remove("version");
                }
            }
        }
    }
    let mut notes = Vec::new();
    // Byte-identical restore when nothing else changed since the install; otherwise keep the
    // user's later edits and only take gate out.
    let after: Option<Vec<u8>> = match &saved {
        Some(bytes)
            if serde_json::from_slice::<Value>(bytes)
                .ok()
                .is_some_and(|saved| without_empty_hooks(&saved) == without_empty_hooks(&doc)) =>
        {
            notes.push(format!("restored from {}", backup.display()));
            Some(bytes.clone())
        }
        Some(_) => {
            notes.push(
                "the file changed since `gate init`: removed gate's entries and kept the rest"
                    .into(),
            );
            Some(to_text(&doc).into_bytes())
        }
        None if doc == skeleton(req.runtime) => None,
        None => Some(to_text(&doc).into_bytes()),
    };
    let outcome = Outcome {
        path: path.to_path_buf(),
        also: Vec::new(),
        before: Some(current_text),
        after: after
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
        changed: true,
        notes,
    };
    if req.dry_run {
        return Ok(outcome);
    }
    if record.is_some() {
        sandbox::write_record::<sandbox::claude::Record>(path, None)?;
    }
    match &after {
        Some(bytes) => write_atomic(path, bytes)?,
        None => {
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            remove_empty_dirs(path, req.runtime);
        }
    }
    if saved.is_some() {
        std::fs::remove_file(&backup)
            .with_context(|| format!("cannot remove {}", backup.display()))?;
    }
    Ok(outcome)
}

/// After removing a file gate created, remove the runtime's directories it left empty.
fn remove_empty_dirs(path: &Path, runtime: Runtime) {
    let levels = match runtime {
        // .github/hooks/gate.json: hooks/ and .github/ ; others: .claude/ etc.
        Runtime::Copilot => 2,
        _ => 1,
    };
    let mut dir = path.parent();
    for _ in 0..levels {
        let Some(d) = dir else { break };
        // Only succeeds on an empty directory.
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Write through a temporary file and rename, so a crash never leaves half a settings file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".gate-tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locations(root: &Path) -> Locations {
        let home = root.join("home");
        Locations {
            project: root.join("proj"),
            codex_home: home.join(".codex"),
            copilot_home: home.join(".copilot"),
            claude_home: home.join(".claude"),
            gemini_home: home.clone(),
            home,
        }
    }

    fn request(runtime: Runtime, remove: bool) -> Request {
        Request {
            runtime,
            global: false,
            remove,
            dry_run: false,
            exe: PathBuf::from("/opt/gate tools/bin/gate"),
            spec: None,
            spec_file: None,
            role: None,
            sandbox: false,
            protected: sandbox::Protected::default(),
        }
    }

    const EXISTING: &str = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./lint.sh\"}]}\n    ]\n  },\n  \"zeta\": [1, 2]\n}";

    #[test]
    fn round_trip_is_byte_identical_for_every_runtime() {
        for runtime in Runtime::ALL {
            for existing in [None, Some(EXISTING)] {
                let dir = tempfile::tempdir().unwrap();
                let loc = locations(dir.path());
                let path = loc.settings_file(runtime, false);
                if let Some(text) = existing {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, text).unwrap();
                }
                let installed = run(&loc, &request(runtime, false)).unwrap();
                assert!(installed.changed);
                let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                let found = find_gate_entries(&doc);
                assert_eq!(
                    found.len(),
                    adapters::event_names(runtime).len(),
                    "{runtime:?}"
                );
                if existing.is_some() {
                    // Other settings are untouched, in their order.
                    assert_eq!(doc["model"], "opus");
                    assert_eq!(doc["zeta"], json!([1, 2]));
                    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
                    assert_eq!(keys[0], "model");
                    assert_eq!(
                        doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
                        "./lint.sh"
                    );
                    assert!(backup_path(&path).exists());
                }
                // Idempotent.
                let again = run(&loc, &request(runtime, false)).unwrap();
                assert!(!again.changed, "{runtime:?}");
                let doc2: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                assert_eq!(find_gate_entries(&doc2).len(), found.len());

                let removed = run(&loc, &request(runtime, true)).unwrap();
                assert!(removed.changed);
                match existing {
                    Some(text) => {
                        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{runtime:?}")
                    }
                    None => {
                        assert!(!path.exists(), "{runtime:?}: file should be gone");
                        assert!(
                            !path.parent().unwrap().exists(),
                            "{runtime:?}: empty dir left"
                        );
                    }
                }
                assert!(!backup_path(&path).exists());
            }
        }
    }

    fn sandboxed(runtime: Runtime, remove: bool) -> Request {
        let mut req = request(runtime, remove);
        req.sandbox = true;
        req.protected = sandbox::Protected {
            deny_write: vec![
                PathBuf::from("/home/u/.local/state/gate"),
                PathBuf::from("/proj/.claude"),
            ],
            deny_read: vec![PathBuf::from("/home/u/.local/state/gate/gate.key")],
        };
        req
    }

    const WITH_SANDBOX: &str = "{\n  \"sandbox\": {\"enabled\": false, \"excludedCommands\": [\"docker\"],\n    \"filesystem\": {\"denyWrite\": [\"/proj/.claude\", \"/etc/mine\"]}},\n  \"model\": \"opus\"\n}";

    #[test]
    fn sandbox_round_trip_is_byte_identical() {
        for global in [false, true] {
            for existing in [None, Some(EXISTING), Some(WITH_SANDBOX)] {
                let dir = tempfile::tempdir().unwrap();
                let loc = locations(dir.path());
                let path = loc.settings_file(Runtime::ClaudeCode, global);
                if let Some(text) = existing {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, text).unwrap();
                }
                let mut req = sandboxed(Runtime::ClaudeCode, false);
                req.global = global;
                let installed = run(&loc, &req).unwrap();
                assert!(installed.changed);
                let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                let sb = &doc["sandbox"];
                assert_eq!(sb["enabled"], true, "{existing:?}");
                assert_eq!(sb["autoAllowBashIfSandboxed"], false);
                let deny: Vec<&str> = sb["filesystem"]["denyWrite"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                assert!(deny.contains(&"/home/u/.local/state/gate"), "{deny:?}");
                assert_eq!(deny.iter().filter(|d| **d == "/proj/.claude").count(), 1);
                if existing == Some(WITH_SANDBOX) {
                    assert_eq!(sb["excludedCommands"], json!(["docker"]));
                    assert!(deny.contains(&"/etc/mine"));
                }
                assert_eq!(
                    sb["filesystem"]["denyRead"],
                    json!(["/home/u/.local/state/gate/gate.key"])
                );
                assert!(sandbox::record_path(&path).exists());
                // Idempotent, with or without --sandbox on the later run.
                for again in [sandboxed(Runtime::ClaudeCode, false), {
                    let mut r = request(Runtime::ClaudeCode, false);
                    r.protected = req.protected.clone();
                    r
                }] {
                    let mut again = again;
                    again.global = global;
                    let outcome = run(&loc, &again).unwrap();
                    assert!(!outcome.changed, "{existing:?}: {}", outcome.diff());
                }
                let mut rm = request(Runtime::ClaudeCode, true);
                rm.global = global;
                assert!(run(&loc, &rm).unwrap().changed);
                match existing {
                    Some(text) => assert_eq!(std::fs::read_to_string(&path).unwrap(), text),
                    None => assert!(!path.exists() && !path.parent().unwrap().exists()),
                }
                assert!(!sandbox::record_path(&path).exists());
                assert!(!backup_path(&path).exists());
            }
        }
    }

    #[test]
    fn codex_sandbox_round_trip_is_byte_identical() {
        const USER: &str =
            "# mine\nmodel = \"o3\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n";
        for existing in [None, Some(USER)] {
            let dir = tempfile::tempdir().unwrap();
            let loc = locations(dir.path());
            let config = loc.codex_home.join("config.toml");
            if let Some(text) = existing {
                std::fs::create_dir_all(&loc.codex_home).unwrap();
                std::fs::write(&config, text).unwrap();
            }
            let req = sandboxed(Runtime::Codex, false);
            let outcome = run(&loc, &req).unwrap();
            assert_eq!(outcome.also.len(), 1);
            assert!(outcome.also[0].changed);
            let doc: toml::Table = std::fs::read_to_string(&config).unwrap().parse().unwrap();
            assert_eq!(doc["default_permissions"].as_str(), Some("gate"));
            assert!(sandbox::record_path(&config).exists());
            // Again, with or without the flag: nothing changes, the profile stays.
            for again in [sandboxed(Runtime::Codex, false), {
                let mut r = request(Runtime::Codex, false);
                r.protected = req.protected.clone();
                r
            }] {
                let outcome = run(&loc, &again).unwrap();
                assert!(!outcome.changed && !outcome.also[0].changed, "{existing:?}");
            }
            let removed = run(&loc, &request(Runtime::Codex, true)).unwrap();
            assert_eq!(removed.also.len(), 1);
            match existing {
                Some(text) => assert_eq!(std::fs::read_to_string(&config).unwrap(), text),
                None => assert!(!config.exists()),
            }
            assert!(!sandbox::record_path(&config).exists());
        }
    }

    #[test]
    fn codex_sandbox_respects_the_users_sandbox_mode() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        std::fs::create_dir_all(&loc.codex_home).unwrap();
        let config = loc.codex_home.join("config.toml");
        std::fs::write(&config, "sandbox_mode = \"workspace-write\"\n").unwrap();
        let err = run(&loc, &sandboxed(Runtime::Codex, false)).unwrap_err();
        assert!(err.is::<EnvironmentConflict>(), "{err:#}");
        assert!(!loc.settings_file(Runtime::Codex, false).exists());
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "sandbox_mode = \"workspace-write\"\n"
        );
    }

    #[test]
    fn sandbox_dry_run_shows_the_block_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        let mut req = sandboxed(Runtime::ClaudeCode, false);
        req.dry_run = true;
        let outcome = run(&loc, &req).unwrap();
        assert!(
            outcome.diff().contains("\"denyWrite\""),
            "{}",
            outcome.diff()
        );
        assert!(outcome
            .notes
            .iter()
            .any(|n| n.contains("Read-only file system")));
        assert!(!outcome.path.exists());
        assert!(!sandbox::record_path(&outcome.path).exists());
    }

    #[test]
    fn sandbox_removal_keeps_later_edits_of_the_block() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        let path = loc.settings_file(Runtime::ClaudeCode, false);
        run(&loc, &sandboxed(Runtime::ClaudeCode, false)).unwrap();
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        doc["sandbox"]["network"] = json!({"allowedDomains": ["github.com"]});
        std::fs::write(&path, to_text(&doc)).unwrap();
        run(&loc, &request(Runtime::ClaudeCode, true)).unwrap();
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({"sandbox": {"network": {"allowedDomains": ["github.com"]}}})
        );
    }

    #[test]
    fn remove_keeps_later_edits() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        let path = loc.settings_file(Runtime::ClaudeCode, false);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, EXISTING).unwrap();
        run(&loc, &request(Runtime::ClaudeCode, false)).unwrap();
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        doc["added_later"] = json!(true);
        std::fs::write(&path, to_text(&doc)).unwrap();
        run(&loc, &request(Runtime::ClaudeCode, true)).unwrap();
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(doc["added_later"], true);
        assert!(find_gate_entries(&doc).is_empty());
        assert_eq!(
            doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "./lint.sh"
        );
    }

    #[test]
    fn entries_have_each_runtimes_shape() {
        let exe = Path::new("/usr/local/bin/gate");
        let claude = entry(Runtime::ClaudeCode, exe, "PreToolUse", &[]);
        assert_eq!(
            claude,
            json!({"matcher": "*", "hooks": [{"type": "command", "command": "/usr/local/bin/gate hook claude-code", "timeout": 10}]})
        );
        let gemini = entry(Runtime::Gemini, exe, "BeforeTool", &[]);
        assert_eq!(gemini["hooks"][0]["timeout"], 10_000);
        assert_eq!(gemini["hooks"][0]["name"], "gate");
        let stop = entry(Runtime::Codex, exe, "Stop", &[]);
        assert!(stop.get("matcher").is_none());
        let copilot = entry(Runtime::Copilot, exe, "preToolUse", &[]);
        assert_eq!(
            copilot,
            json!({"type": "command", "bash": "/usr/local/bin/gate hook copilot --event preToolUse", "timeoutSec": 10})
        );
        assert_eq!(
            hook_command(
                Runtime::Codex,
                Path::new("/opt/my tools/gate"),
                "PreToolUse",
                &[]
            ),
            "'/opt/my tools/gate' hook codex"
        );
        let flags = ["--spec", "guard", "--role", "a b"].map(String::from);
        let command = hook_command(Runtime::Copilot, exe, "preToolUse", &flags);
        assert_eq!(
            command,
            "/usr/local/bin/gate hook copilot --event preToolUse --spec guard --role 'a b'"
        );
        assert_eq!(gate_binary_in(&command), Some(exe.to_path_buf()));
        assert_eq!(
            hook_flags_in(&command),
            HookFlags {
                spec: Some("guard".into()),
                spec_file: None,
                role: Some("a b".into()),
            }
        );
        let flags = ["--spec-file", "/p/my specs/d.toml"].map(String::from);
        let command = hook_command(Runtime::ClaudeCode, exe, "PreToolUse", &flags);
        assert_eq!(
            command,
            "/usr/local/bin/gate hook claude-code --spec-file '/p/my specs/d.toml'"
        );
        assert_eq!(
            hook_flags_in(&command).spec_file,
            Some(PathBuf::from("/p/my specs/d.toml"))
        );
        assert_eq!(
            hook_flags_in("gate hook codex --spec=x").spec.as_deref(),
            Some("x")
        );
        assert_eq!(
            gate_binary_in("'/opt/my tools/gate' hook codex"),
            Some(PathBuf::from("/opt/my tools/gate"))
        );
        assert_eq!(gate_binary_in("/usr/bin/gatekeeper hook x"), None);
        assert_eq!(gate_binary_in("gate check"), None);
    }

    #[test]
    fn copilot_and_claude_are_never_both_wired() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        run(&loc, &request(Runtime::ClaudeCode, false)).unwrap();
        let err = run(&loc, &request(Runtime::Copilot, false)).unwrap_err();
        assert!(err.is::<EnvironmentConflict>(), "{err:#}");
        assert!(!loc.settings_file(Runtime::Copilot, false).exists());
        run(&loc, &request(Runtime::ClaudeCode, true)).unwrap();
        run(&loc, &request(Runtime::Copilot, false)).unwrap();
        let err = run(&loc, &request(Runtime::ClaudeCode, false)).unwrap_err();
        assert!(err.is::<EnvironmentConflict>(), "{err:#}");
    }

    #[test]
    fn dry_run_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        let mut req = request(Runtime::Gemini, false);
        req.dry_run = true;
        let outcome = run(&loc, &req).unwrap();
        assert!(outcome.changed);
        assert!(outcome.after.as_deref().unwrap().contains("BeforeTool"));
        assert!(outcome.diff().contains("+    \"BeforeTool\""));
        assert!(!outcome.path.exists());
    }

    #[test]
    fn invalid_json_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let loc = locations(dir.path());
        let path = loc.settings_file(Runtime::Codex, false);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{ not json").unwrap();
        let err = run(&loc, &request(Runtime::Codex, false)).unwrap_err();
        assert!(err.is::<InputError>(), "{err:#}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
    }
}
