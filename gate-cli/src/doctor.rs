//! `gate doctor`: for every runtime, whether gate is wired and can answer (and with what policy: an
//! unknown `--spec` or a draft in its hooks' command lines) and whether its boundary is OS-enforced
//! or hook-only; the database, the spec, and Codex hook trust.

use crate::adapters;
use crate::cli::{Exit, GlobalArgs};
use crate::cmd;
use crate::config::{Config, Overrides};
use crate::install::{self, FoundEntry, Locations};
use anyhow::Result;
use gate_runtime::event::Runtime;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One settings file of one runtime.
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub scope: &'static str,
    pub path: PathBuf,
    pub exists: bool,
    /// Events gate is wired to in this file.
    pub events: Vec<String>,
    /// Events gate should be wired to but is not (only when some are wired).
    pub missing_events: Vec<String>,
    /// Problems found (unreadable file, binary missing or not executable, untrusted hooks).
    pub problems: Vec<String>,
    /// Codex only: trust of each gate entry (`trusted`, `untrusted`, `disabled`, `unknown`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust: Vec<TrustReport>,
    /// The drafts (`--spec-file`) the entries answer with, each once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drafts: Vec<DraftReport>,
}

/// A draft spec file a runtime's hooks answer with (`gate init --spec-file`).
#[derive(Debug, Serialize)]
pub struct DraftReport {
    pub path: PathBuf,
    /// It loads, composes and checks now (else the hooks record a fault and the compiled
    /// spec answers).
    pub ok: bool,
    /// Its content hash and spec name, or why it cannot answer.
    pub detail: String,
}

/// Whether the draft at `path` can answer now, and what answers.
fn draft_report(path: &Path) -> DraftReport {
    match crate::cmd::draft::load(path) {
        Ok(draft) => {
            let spec = draft.policy.spec();
            DraftReport {
                path: path.to_path_buf(),
                ok: true,
                detail: format!(
                    "loads and checks: hooks answer as `{}` (interpreted, not the compiled spec; {} file(s))",
                    spec.name,
                    draft.files.len()
                ),
            }
        }
        Err(why) => DraftReport {
            path: path.to_path_buf(),
            ok: false,
            detail: format!("{why}; {DRAFT_FALLBACK}"),
        },
    }
}

/// What the hook does with a draft it cannot use (`cmd/hook.rs`).
const DRAFT_FALLBACK: &str =
    "until this is fixed, hooks answer with the compiled spec and no role, and record the fault";

/// Codex trust of one hook entry.
#[derive(Debug, Serialize)]
pub struct TrustReport {
    pub key: String,
    pub status: &'static str,
}

#[derive(Debug, Serialize)]
pub struct RuntimeReport {
    pub runtime: &'static str,
    pub wired: bool,
    pub files: Vec<FileReport>,
    /// Whether gate's locations are kept from the agent's commands by the runtime's OS
    /// sandbox or by the hook alone.
    pub boundary: crate::boundary::Boundary,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: Option<bool>,
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub runtimes: Vec<RuntimeReport>,
    pub checks: Vec<Check>,
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The `[hooks.state."<key>"]` tables of `$CODEX_HOME/config.toml`.
fn codex_hook_states(codex_home: &Path) -> Result<Option<toml::Table>, String> {
    let path = codex_home.join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("{} is not valid TOML: {e}", path.display()))?;
    Ok(table
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_table())
        .cloned())
}

/// Codex's key for a hook: `<file>:<event in snake_case>:<group>:<handler>`.
fn codex_key(path: &Path, entry: &FoundEntry) -> String {
    let mut snake = String::new();
    for (i, c) in entry.event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    format!("{}:{snake}:{}:{}", path.display(), entry.group, entry.index)
}

fn file_report(
    runtime: Runtime,
    scope: &'static str,
    path: PathBuf,
    loc: &Locations,
) -> FileReport {
    let mut report = FileReport {
        scope,
        exists: path.is_file(),
        path,
        events: Vec::new(),
        missing_events: Vec::new(),
        problems: Vec::new(),
        trust: Vec::new(),
        drafts: Vec::new(),
    };
    if !report.exists {
        return report;
    }
    let doc = match std::fs::read(&report.path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()))
    {
        Ok(doc) => doc,
        Err(e) => {
            report.problems.push(format!("unreadable settings: {e}"));
            return report;
        }
    };
    let entries = install::find_gate_entries(&doc);
    if entries.is_empty() {
        return report;
    }
    for entry in &entries {
        if !report.events.contains(&entry.event) {
            report.events.push(entry.event.clone());
        }
        if let Some(bin) = install::gate_binary_in(&entry.command) {
            if !bin.is_absolute() {
                report.problems.push(format!(
                    "{}: `{}` is not an absolute path (some runtimes give hooks a reduced PATH)",
                    entry.event,
                    bin.display()
                ));
            } else if !is_executable(&bin) {
                report.problems.push(format!(
                    "{}: {} does not exist or is not executable; run `gate init {}` again",
                    entry.event,
                    bin.display(),
                    runtime.as_str()
                ));
            }
        }
    }
    policy_flags(&entries, &mut report);
    report.problems.dedup();
    report.missing_events = adapters::event_names(runtime)
        .iter()
        .filter(|e| !report.events.iter().any(|have| have == *e))
        .map(|e| e.to_string())
        .collect();
    if runtime == Runtime::Codex {
        match codex_hook_states(&loc.codex_home) {
            Err(e) => {
                report.problems.push(e);
                for entry in &entries {
                    report.trust.push(TrustReport {
                        key: codex_key(&report.path, entry),
                        status: "unknown",
                    });
                }
            }
            Ok(states) => {
                let mut untrusted = 0;
                for entry in &entries {
                    let key = codex_key(&report.path, entry);
                    let state = states.as_ref().and_then(|s| s.get(&key));
                    let enabled = state
                        .and_then(|s| s.get("enabled"))
                        .and_then(|v| v.as_bool())
                        != Some(false);
                    let hash = state.and_then(|s| s.get("trusted_hash")).is_some();
                    // Codex compares the recorded hash with one it derives from the entry; gate
                    // cannot recompute it, so a recorded hash means "trusted once", and an
                    // edited entry may still be stale.
                    let status = match (enabled, hash) {
                        (false, _) => "disabled",
                        (true, true) => "trusted",
                        (true, false) => "untrusted",
                    };
                    if status != "trusted" {
                        untrusted += 1;
                    }
                    report.trust.push(TrustReport { key, status });
                }
                if untrusted > 0 {
                    report.problems.push(format!(
                        "{untrusted} gate hook(s) not trusted: Codex skips them silently; open /hooks in codex and trust them"
                    ));
                }
            }
        }
    }
    report
}

/// The policy the entries' command lines name: a `--spec` this binary does not have is a
/// problem (the hook records a fault and the default spec answers); each `--spec-file` is a
/// draft, reported with whether it loads and checks now.
fn policy_flags(entries: &[FoundEntry], report: &mut FileReport) {
    for entry in entries {
        let flags = install::hook_flags_in(&entry.command);
        if let Some(name) = &flags.spec {
            if let Err(e) = cmd::compiled_spec(name) {
                report
                    .problems
                    .push(format!("{}: --spec {name}: {e:#}; {FALLBACK}", entry.event));
            }
        }
        if let Some(path) = &flags.spec_file {
            if !report.drafts.iter().any(|d| d.path == *path) {
                let draft = draft_report(path);
                if !draft.ok {
                    report
                        .problems
                        .push(format!("draft {}: {}", path.display(), draft.detail));
                }
                report.drafts.push(draft);
            }
        }
    }
}

fn database_check(config: &Config) -> Check {
    let db = &config.db.value;
    let detail_ok = |d: String| Check {
        name: "database",
        ok: Some(true),
        detail: d,
    };
    let fail = |d: String| Check {
        name: "database",
        ok: Some(false),
        detail: d,
    };
    if db.exists() {
        return match std::fs::OpenOptions::new().append(true).open(db) {
            Ok(_) => detail_ok(format!("{} is writable", db.display())),
            Err(e) => fail(format!("{} is not writable: {e}", db.display())),
        };
    }
    // The database is created on first use: the nearest existing directory must be writable.
    let Some(dir) = db.ancestors().skip(1).find(|d| d.is_dir()) else {
        return fail(format!("no existing directory above {}", db.display()));
    };
    let probe = dir.join(format!(".gate-doctor-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            detail_ok(format!(
                "{} will be created on first use ({} is writable)",
                db.display(),
                dir.display()
            ))
        }
        Err(e) => fail(format!(
            "cannot create {}: {} is not writable: {e}",
            db.display(),
            dir.display()
        )),
    }
}

/// The audit sink: its backlog, and a failure while its last attempt failed.
fn sink_check(config: &Config, sink: &crate::sink::SinkConfig) -> Check {
    if !config.db.value.exists() {
        return Check {
            name: "sink",
            ok: None,
            detail: format!("{}: nothing recorded yet", sink.describe()),
        };
    }
    match crate::sink::SinkStatus::read(&config.db.value, sink) {
        Ok(status) => Check {
            name: "sink",
            ok: Some(status.last_error.is_none()),
            detail: status.summary(),
        },
        Err(e) => Check {
            name: "sink",
            ok: Some(false),
            detail: format!("cannot read the sink's cursor: {e:#}"),
        },
    }
}

/// Store faults in a row per session (counted beside the database by the hooks that met
/// them), and whether stateful tiers fail closed for any session now.
pub fn store_faults_check(config: &Config) -> Check {
    let counts = gate_runtime::driver::FaultCount::all(&config.db.value);
    let after = config.stateful_fail_closed_after.value;
    let setting = if after == 0 {
        format!(
            "stateful tiers never fail closed ([hook] stateful_fail_closed_after = 0, {})",
            config.stateful_fail_closed_after.source
        )
    } else {
        format!(
            "stateful tiers fail closed from {after} faults in a row ([hook] \
             stateful_fail_closed_after, {})",
            config.stateful_fail_closed_after.source
        )
    };
    let Some(&(worst, last)) = counts.iter().max_by_key(|(n, _)| *n) else {
        return Check {
            name: "store faults",
            ok: Some(true),
            detail: format!("none in a row; {setting}"),
        };
    };
    let closed = counts
        .iter()
        .filter(|(n, _)| after > 0 && *n >= u64::from(after))
        .count();
    Check {
        name: "store faults",
        ok: if closed > 0 { Some(false) } else { None },
        detail: format!(
            "{} session(s) met store faults in a row (at most {worst}, the last at {}), {closed} \
             of them failing closed now; each count clears when that session's next hook finds \
             the store working; {setting}",
            counts.len(),
            crate::cmd::store::format_ms(last),
        ),
    }
}

/// A harmless pre-tool payload per runtime, for the smoke check.
fn smoke_payload(runtime: Runtime) -> (&'static str, Option<&'static str>) {
    match runtime {
        Runtime::ClaudeCode | Runtime::Codex => (
            r#"{"hook_event_name":"PreToolUse","session_id":"gate-doctor","cwd":"/","tool_name":"Bash","tool_input":{"command":"echo gate-doctor"}}"#,
            None,
        ),
        Runtime::Gemini => (
            r#"{"hook_event_name":"BeforeTool","session_id":"gate-doctor","cwd":"/","timestamp":"2026-01-01T00:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"echo gate-doctor"}}"#,
            None,
        ),
        Runtime::Copilot => (
            r#"{"sessionId":"gate-doctor","timestamp":1767225600000,"cwd":"/","toolName":"bash","toolArgs":{"command":"echo gate-doctor"}}"#,
            Some("preToolUse"),
        ),
    }
}

/// The hook path in-process, without writing anything: every runtime's smoke payload is
/// normalised, run through the configured spec (dry run) and rendered.
fn smoke(global: &GlobalArgs) -> Check {
    let fail = |detail: String| Check {
        name: "smoke",
        ok: Some(false),
        detail,
    };
    let config = match Config::resolve(&Overrides::from(global)) {
        Ok(c) => c,
        Err(e) => return fail(format!("{e:#}")),
    };
    let spec = match cmd::compiled_spec(&config.spec.value) {
        Ok(s) => s,
        Err(e) => return fail(format!("{e:#}")),
    };
    // With the machines beside it, as the hook runs it.
    let policy = match cmd::policy::Policy::compiled(spec) {
        Ok(p) => p,
        Err(e) => return fail(format!("{e:#}")),
    };
    let mut slot = None;
    let engine = policy.engine(&mut slot);
    let env = |name: &str| std::env::var(name).ok();
    let mut answers = Vec::new();
    for runtime in Runtime::ALL {
        let (payload, hint) = smoke_payload(runtime);
        let event = match adapters::normalize(runtime, payload.as_bytes(), hint) {
            Ok(e) => e,
            Err(e) => return fail(format!("{}: {e}", runtime.as_str())),
        };
        let opts = gate_runtime::driver::Options {
            db_path: Some(config.db.value.clone()),
            role: config.role.as_ref().map(|r| r.value.as_str()),
            env: &env,
            now_ms: event.timestamp_ms.unwrap_or(0),
            persist: false,
            busy_timeout: gate_runtime::driver::BUSY_TIMEOUT,
            defer_checkpoint: false,
            exits_after: false,
            fail_closed: &[],
            stateful_fail_closed_after: 0,
        };
        let result = gate_runtime::driver::run(&engine, &event, &opts);
        if !result.faults.is_empty() {
            return fail(format!(
                "{}: {}",
                runtime.as_str(),
                result.faults.join("; ")
            ));
        }
        let answer = adapters::render(runtime, &event, &result.decision);
        answers.push(format!(
            "{} {}{}",
            runtime.as_str(),
            result.decision.verdict.name(),
            if answer.is_some() { " (answered)" } else { "" }
        ));
    }
    Check {
        name: "smoke",
        ok: Some(true),
        detail: format!(
            "`echo gate-doctor` under `{}`: {}",
            spec.name,
            answers.join(", ")
        ),
    }
}

/// gate's locations as `gate init --sandbox` would write them (the installed hook's binary
/// when one is wired, else this one).
fn protected(global: &GlobalArgs, loc: &Locations) -> crate::sandbox::Protected {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .unwrap_or_default();
    match Config::resolve(&Overrides::from(global)) {
        Ok(config) => crate::sandbox::Protected::generate(loc, &config, &exe),
        Err(_) => crate::sandbox::Protected::default(),
    }
}

/// Build the report.
/// What the hook does with a configuration it cannot use (`cmd/hook.rs`).
const FALLBACK: &str =
    "until this is fixed, hooks answer with the built-in default spec and no role, and record the fault";

pub fn report(global: &GlobalArgs) -> Result<Report> {
    let loc = Locations::from_env()?;
    let protected = protected(global, &loc);
    let mut runtimes = Vec::new();
    for runtime in Runtime::ALL {
        let files: Vec<FileReport> = [("project", false), ("global", true)]
            .into_iter()
            .map(|(scope, g)| file_report(runtime, scope, loc.settings_file(runtime, g), &loc))
            .collect();
        runtimes.push(RuntimeReport {
            runtime: runtime.as_str(),
            wired: files.iter().any(|f| !f.events.is_empty()),
            files,
            boundary: crate::boundary::of(runtime, &loc, &protected),
        });
    }
    let mut checks = Vec::new();
    match Config::resolve(&Overrides::from(global)) {
        Ok(config) => {
            checks.push(database_check(&config));
            checks.push(store_faults_check(&config));
            if let Some(sink) = &config.sink {
                checks.push(sink_check(&config, &sink.value));
            }
            let mut problems = config.problems.clone();
            if let Ok(spec) = cmd::compiled_spec(&config.spec.value) {
                problems.extend(config.unknown_fail_closed_tiers(spec.ir()));
                let beside: Vec<&gate_spec::ir::Spec> = cmd::policy::compiled_alongside(spec)
                    .0
                    .iter()
                    .map(|b| b.ir())
                    .collect();
                problems.extend(config.outlive_sessions_problems(spec.ir(), &beside));
            }
            checks.push(Check {
                name: "settings",
                ok: Some(problems.is_empty()),
                detail: if problems.is_empty() {
                    format!(
                        "hook deadline {} s ({}); fail-closed tiers: {}",
                        config.hook_deadline.value,
                        config.hook_deadline.source,
                        config
                            .fail_closed
                            .as_ref()
                            .map_or("none".to_string(), |f| f.value.join(", "))
                    )
                } else {
                    problems.join("; ")
                },
            });
            let name = &config.spec.value;
            checks.push(match cmd::compiled_spec(name) {
                Ok(spec) => Check {
                    name: "spec",
                    ok: Some(true),
                    detail: format!(
                        "`{name}` is compiled in ({}, from {})",
                        &spec.hash[..spec.hash.len().min(12)],
                        config.spec.source
                    ),
                },
                Err(e) => Check {
                    name: "spec",
                    ok: Some(false),
                    detail: format!("{e:#} (configured by {}); {FALLBACK}", config.spec.source),
                },
            });
        }
        Err(e) => checks.push(Check {
            name: "config",
            ok: Some(false),
            detail: format!("{e:#}; {FALLBACK}"),
        }),
    }
    checks.push(smoke(global));
    Ok(Report { runtimes, checks })
}

/// `gate doctor`: exit 1 when anything wired is broken, a sandbox that is on cannot run, or a
/// check fails.
pub fn run(global: &GlobalArgs) -> Result<i32> {
    let report = report(global)?;
    let failing = report
        .runtimes
        .iter()
        .flat_map(|r| &r.files)
        .any(|f| !f.problems.is_empty())
        || report.runtimes.iter().any(|r| r.boundary.broken)
        || report.checks.iter().any(|c| c.ok == Some(false));
    if global.json {
        cmd::out_json(&serde_json::to_value(&report)?)?;
    } else {
        let mut text = String::new();
        for r in &report.runtimes {
            text.push_str(&format!(
                "{}: {}\n",
                r.runtime,
                if r.wired { "wired" } else { "not wired" }
            ));
            for f in &r.files {
                let state = if !f.exists {
                    "absent".to_string()
                } else if f.events.is_empty() {
                    "no gate entries".to_string()
                } else {
                    format!("gate on {}", f.events.join(", "))
                };
                text.push_str(&format!("  {:7} {}  {state}\n", f.scope, f.path.display()));
                if !f.missing_events.is_empty() {
                    text.push_str(&format!(
                        "          missing events: {} (run `gate init {}` again)\n",
                        f.missing_events.join(", "),
                        r.runtime
                    ));
                }
                for d in &f.drafts {
                    text.push_str(&format!(
                        "          draft {}: {}\n",
                        d.path.display(),
                        if d.ok {
                            &d.detail
                        } else {
                            "does not load (see the problem below)"
                        }
                    ));
                }
                for t in &f.trust {
                    text.push_str(&format!("          trust {}: {}\n", t.key, t.status));
                }
                for p in &f.problems {
                    text.push_str(&format!("          problem: {p}\n"));
                }
            }
            let b = &r.boundary;
            let name = match b.enforcement {
                crate::boundary::Enforcement::Os => "OS-enforced",
                crate::boundary::Enforcement::Partial => "partly OS-enforced",
                crate::boundary::Enforcement::HookOnly => "hook-only",
            };
            let broken = if b.broken {
                " (FAIL: the sandbox is on but does not run)"
            } else {
                ""
            };
            text.push_str(&format!("  boundary: {name}{broken}\n"));
            for w in &b.why {
                text.push_str(&format!("          {w}\n"));
            }
            for f in &b.fix {
                text.push_str(&format!("          fix: {f}\n"));
            }
            for line in b.settings.iter().flat_map(|s| s.lines()) {
                text.push_str(&format!("            {line}\n"));
            }
        }
        for c in &report.checks {
            let mark = match c.ok {
                Some(true) => "ok",
                Some(false) => "FAIL",
                None => "skip",
            };
            text.push_str(&format!("{:8} {mark:4}  {}\n", c.name, c.detail));
        }
        cmd::out(&text)?;
    }
    Ok(if failing {
        Exit::Findings.code()
    } else {
        Exit::Ok.code()
    })
}
