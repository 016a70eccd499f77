//! `gate hook <runtime>`: answer one hook call — the fail-open path every tool call takes.
//!
//! Contract (PROTOCOLS.md): exit 0 always, at most one JSON object on stdout, nothing on
//! stderr. Anything that goes wrong here — an unknown runtime, unreadable or oversized stdin,
//! a payload that is not JSON, an unknown spec, a draft (`--spec-file`) that does not load and
//! check, a store fault, a panic, the internal deadline —
//! ends in silence (the runtime's own permission flow continues) and the fault is recorded
//! where possible: in the database, else in `faults.jsonl` beside it.

use crate::adapters;
use crate::cli::HookArgs;
use crate::config::{Config, Overrides};
use gate_runtime::driver::{self, Options};
use gate_runtime::engine::Engine;
use gate_runtime::event::Runtime;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Payloads larger than this are not read further (a fault, answered with silence).
pub const MAX_STDIN_BYTES: u64 = 16 * 1024 * 1024;
/// The hook answers within this much time or exits silently (every runtime's hook timeout is
/// longer; a timed-out hook would be killed and the tool would run anyway).
/// The lock wait and the busy timeout (5 s + 1.5 s) fit inside it with room to record a fault,
/// and it stays under the 10 s timeout `gate init` installs. `hook_deadline` in the
/// configuration (or `GATE_HOOK_DEADLINE`) sets another, within 1..=9 s; a value outside that
/// range is reported by `gate config` and `gate doctor` and this default applies.
pub const DEADLINE: Duration = Duration::from_secs(crate::config::DEFAULT_HOOK_DEADLINE_SECS);

/// The spec that answers when the configured one cannot be used.
const DEFAULT_SPEC: &str = "default";

/// Answer one hook call; always returns 0.
pub fn run(args: &HookArgs) -> i32 {
    let runtime = args.runtime.clone();
    let config = Config::resolve(&Overrides::from(&args.global));
    let deadline = config
        .as_ref()
        .map_or(DEADLINE, |c| Duration::from_secs(c.hook_deadline.value));
    let db = match &config {
        Ok(c) => Some(c.db.value.clone()),
        Err(_) => gate_runtime::store::Store::default_path().ok(),
    };
    // Past the deadline: no answer is the fail-open answer. Say so beside the database
    // (never in it: the main thread may hold its lock).
    let fault = serde_json::json!({
        "ts_ms": now_ms().saturating_add(deadline.as_millis() as i64),
        "kind": "fault",
        "runtime": runtime,
        "fault": format!("deadline of {} s passed; answered nothing", deadline.as_secs()),
    });
    let mut line = fault.to_string().into_bytes();
    line.push(b'\n');
    let log = db.as_deref().map(gate_runtime::store::fault_log_path);
    if !crate::watchdog::arm(
        deadline,
        log.as_deref(),
        line,
        gate_runtime::store::FAULT_LOG_MAX_BYTES,
    ) {
        std::thread::spawn(move || {
            std::thread::sleep(deadline);
            if let Some(db) = db {
                gate_runtime::store::fallback_log(&db, &fault);
            }
            std::process::exit(0);
        });
    }
    let mut checkpoint_due = None;
    let mut calibration_due = None;
    // The sink's flush starts after the answer, from the database the hook wrote.
    let sink_db = config
        .as_ref()
        .ok()
        .filter(|c| c.sink.is_some())
        .map(|c| c.db.value.clone());
    let line = answer(
        args,
        config,
        deadline,
        &mut checkpoint_due,
        &mut calibration_due,
    );
    crate::watchdog::answering();
    if let Some(line) = line {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (SIGPIPE-like) is not our problem to report.
        let _ = stdout.write_all(line.as_bytes());
        let _ = stdout.write_all(b"\n");
        let _ = stdout.flush();
    }
    if let Some(db) = checkpoint_due {
        checkpoint_detached(&db);
    }
    if let Some(db) = calibration_due {
        // Learning can wait for the next due window if it cannot start now.
        let _ = spawn_detached(&db, &["calibrate", "--quiet"]);
    }
    if let Some(db) = sink_db.filter(|db| db.exists()) {
        crate::sink::start_detached(&db, now_ms());
    }
    0
}

/// Truncates a grown WAL without making the agent wait: a detached `gate checkpoint`
/// process (own process group, no inherited stdio, not waited for) does the fsyncs after
/// this hook has exited. If it cannot be started, the checkpoint runs here instead, so the
/// WAL stays bounded either way.
fn checkpoint_detached(db: &std::path::Path) {
    // Exactly the form `main` runs without clap (`background_checkpoint_args`).
    if spawn_detached(db, &["checkpoint", "--quiet"]).is_err() {
        let _ = driver::checkpoint(db);
    }
}

/// Starts `gate --db DB ARGS…` detached (own process group, no inherited stdio, not waited
/// for): work a hook must not make the agent wait on.
fn spawn_detached(db: &std::path::Path, args: &[&str]) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .arg("--db")
            .arg(db)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map(drop)
    })
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis().min(i64::MAX as u128) as i64)
}

/// Compute the answer line, or `None` for silence; `checkpoint_due` receives the database
/// whose WAL a detached checkpoint should truncate, `calibration_due` the one whose baselines
/// a detached `gate calibrate` should learn again.
fn answer(
    args: &HookArgs,
    config: anyhow::Result<Config>,
    deadline: Duration,
    checkpoint_due: &mut Option<PathBuf>,
    calibration_due: &mut Option<PathBuf>,
) -> Option<String> {
    // Read the whole payload before anything can return: a runtime writing to a hook that
    // exited without reading would meet a broken pipe.
    let mut payload = Vec::new();
    let mut stdin = std::io::stdin().lock();
    let read = (&mut stdin)
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut payload);
    if payload.len() as u64 > MAX_STDIN_BYTES {
        // Oversized: drain the rest (not kept) so the writer finishes cleanly.
        let _ = std::io::copy(&mut stdin, &mut std::io::sink());
    }
    let runtime = Runtime::parse(args.runtime.trim())?;
    // A configuration that cannot be read still has a database: the default one.
    let db: Option<PathBuf> = match &config {
        Ok(c) => Some(c.db.value.clone()),
        Err(_) => gate_runtime::store::Store::default_path().ok(),
    };
    let fault = |what: String| {
        driver::record_fault(db.as_deref(), runtime, now_ms(), &what);
    };
    if let Err(e) = read {
        fault(format!("stdin unreadable: {e}"));
        return None;
    }
    if payload.len() as u64 > MAX_STDIN_BYTES {
        fault(format!("stdin larger than {MAX_STDIN_BYTES} bytes"));
        return None;
    }
    let env = |name: &str| std::env::var(name).ok();
    let mut event = match adapters::normalize(runtime, &payload, args.event.as_deref()) {
        Ok(e) => e,
        Err(e) => {
            fault(format!("payload rejected: {e}"));
            return None;
        }
    };
    adapters::session_fallback(runtime, &mut event, &env);
    // Should the analysis not finish before the deadline, the call is asked, not waved
    // through (and not answered twice: the handler exits before `run` could print).
    if event
        .phase
        .is_some_and(|p| p == gate_spec::ir::Phase::PreTool)
    {
        let ask = gate_runtime::verdict::Decision {
            verdict: gate_runtime::verdict::Verdict::Ask {
                reason: format!(
                    "gate could not finish checking this action within {} s; split it into \
                     smaller steps, or let the user run it",
                    deadline.as_secs()
                ),
                grant_id: String::new(),
            },
            carried: None,
        };
        if let Some(mut line) = adapters::render(runtime, &event, &ask) {
            line.push('\n');
            crate::watchdog::answer_at_deadline(line.into_bytes());
        }
    }
    // A configuration fault never widens what the agent may do: an unreadable or invalid
    // configuration, or one that names a spec this binary does not have, falls back to the
    // built-in default spec with no role (a role can only lower enforcement), and the fault
    // is recorded (`gate doctor` shows it).
    let (spec_name, role) = match &config {
        Ok(c) => (
            c.spec.value.as_str(),
            c.role.as_ref().map(|r| r.value.as_str()),
        ),
        Err(e) => {
            fault(format!(
                "configuration unreadable ({e}); the default spec answers, with no role"
            ));
            (DEFAULT_SPEC, None)
        }
    };
    // A draft (`--spec-file`) answers in place of the compiled spec, when it loads and
    // checks; one that does not is a fault like an unknown spec: the compiled spec answers,
    // with no role (the role may be the draft's, and a role can only lower enforcement).
    let draft = args.spec_file.as_deref().and_then(|path| {
        crate::cmd::draft::load(path)
            .map_err(|why| {
                fault(format!(
                    "draft spec file {} cannot answer ({why}); the compiled spec `{spec_name}` \
                     answers, with no role",
                    path.display()
                ))
            })
            .ok()
    });
    let role = if args.spec_file.is_some() && draft.is_none() {
        None
    } else {
        role
    };
    let outliving = config
        .as_ref()
        .ok()
        .and_then(|c| c.outlive_sessions.as_ref())
        .map_or(&[][..], |o| &o.value[..]);
    let mut slot = None;
    let (built, role) = match &draft {
        Some(d) => (
            d.policy
                .engine(&mut slot)
                .with_outliving(&d.renamed(outliving))
                .with_gate_paths(&d.files),
            role,
        ),
        None => compiled_engine(spec_name, role, outliving, &fault)?,
    };
    // The process exits right after answering: freeing what the engine holds would only
    // cost time.
    let engine = std::mem::ManuallyDrop::new(built);
    let ir = engine.spec;
    // The project profiles, for the machine of the composition that declares them.
    let owner = crate::profile::owner(&engine);
    if !owner.profiles.is_empty() {
        let named = config.as_ref().ok().and_then(|c| c.profile.as_ref());
        event.profiles =
            crate::profile::active(owner, event.cwd.as_deref(), named.map(|p| p.value.as_str()));
    }
    engine.look_at_disk();
    // Mode `reversible` backs actions up into the store beside the database, within half the
    // hook's deadline (a copy that cannot finish by then leaves the action withheld); a tool
    // call's end records the state a backed-up action left, for `gate undo`'s moved-on check
    // (a fault there only leaves that check to modification times).
    if engine.uses_reversible() {
        if let (Some(db), Some(call)) = (&db, &event.tool_use_id) {
            if matches!(
                event.phase,
                Some(gate_spec::ir::Phase::PostTool | gate_spec::ir::Phase::PostToolFailure)
            ) {
                let _ = gate_runtime::backup::settle(
                    &gate_runtime::backup::store_dir(db),
                    call,
                    std::time::Instant::now() + deadline / 2,
                );
            }
        }
        if let Some(db) = &db {
            let caps = config
                .as_ref()
                .map(|c| c.reversible.value)
                .unwrap_or_default();
            engine.protect_with(std::sync::Arc::new(gate_runtime::backup::BackupStore {
                dir: gate_runtime::backup::store_dir(db),
                max_action_bytes: caps.max_action_bytes,
                max_action_files: caps.max_action_files,
                max_total_bytes: caps.max_total_bytes,
                deadline: std::time::Instant::now() + deadline / 2,
            }));
        }
    }
    // Tier names the spec does not have are ignored here (`gate config` reports them).
    let fail_closed: Vec<gate_spec::ir::TierId> = match &config {
        Ok(c) => c
            .fail_closed
            .iter()
            .flat_map(|f| &f.value)
            .filter_map(|name| {
                ir.tiers
                    .iter()
                    .position(|t| t.name.as_ref() == name.as_str())
            })
            .map(|i| i as gate_spec::ir::TierId)
            .collect(),
        Err(_) => Vec::new(),
    };
    let opts = Options {
        db_path: db,
        role,
        env: &env,
        now_ms: event.timestamp_ms.unwrap_or_else(now_ms),
        persist: true,
        busy_timeout: driver::BUSY_TIMEOUT,
        defer_checkpoint: true,
        exits_after: true,
        fail_closed: &fail_closed,
        // An unreadable configuration keeps the default: a fault never lowers the guard.
        stateful_fail_closed_after: config
            .as_ref()
            .map_or(driver::DEFAULT_STATEFUL_FAIL_CLOSED_AFTER, |c| {
                c.stateful_fail_closed_after.value
            }),
    };
    let mut result = driver::run(&engine, &event, &opts);
    *checkpoint_due = result.checkpoint_due;
    *calibration_due = result.calibration_due;
    if let Some(draft) = &draft {
        draft.mark(&mut result.decision);
    }
    adapters::render(runtime, &event, &result.decision)
}

/// The engine of the compiled spec `spec_name` with the machines beside it, and the role it
/// answers as. An unknown name is a fault: the default spec answers, with no role. A machine
/// beside it that this binary does not have cannot answer (a fault, not a block); the others
/// still do.
fn compiled_engine<'r>(
    spec_name: &str,
    role: Option<&'r str>,
    outliving: &[String],
    fault: &dyn Fn(String),
) -> Option<(Engine<'static>, Option<&'r str>)> {
    let specs = crate::registry::compiled();
    let (spec, role) = match specs.iter().find(|s| s.name == spec_name) {
        Some(spec) => (spec, role),
        None => {
            fault(format!(
                "no compiled spec named `{spec_name}`; the default spec answers, with no role"
            ));
            (specs.iter().find(|s| s.name == DEFAULT_SPEC)?, None)
        }
    };
    let (beside, missing) = crate::cmd::policy::compiled_alongside(spec);
    if !missing.is_empty() {
        fault(format!(
            "spec `{}` runs beside spec(s) this binary does not have ({}); they are skipped",
            spec.name,
            missing.join(", ")
        ));
    }
    let engine = Engine::new(spec.ir(), spec.machine)
        .with_alongside(
            beside
                .into_iter()
                .map(|b| Engine::new(b.ir(), b.machine))
                .collect(),
        )
        // Machine names the spec does not run are ignored here (`gate config` reports them).
        .with_outliving(outliving);
    Some((engine, role))
}
