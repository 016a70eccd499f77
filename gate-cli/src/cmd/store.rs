//! The commands that read or write the SQLite store: status, log, audit verify/export,
//! approve, grants and calibrate.

use crate::cli::{
    ApproveArgs, CalibrateArgs, Exit, ExportArgs, ExportFormat, GlobalArgs, GrantsArgs, LogArgs,
    StatusArgs,
};
use crate::cmd::{out, out_json};
use crate::config::{Config, Overrides};
use crate::InputError;
use anyhow::{Context, Result};
use gate_runtime::store::{ApproveOutcome, AuditFilter, AuditRow, GrantRow, Store, StoreError};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis().min(i64::MAX as u128) as i64)
}

pub(crate) fn db_path(global: &GlobalArgs) -> Result<PathBuf> {
    Ok(Config::resolve(&Overrides::from(global))?.db.value)
}

/// Open the configured database for reading; a missing database is an environment error that
/// says where gate looked.
fn open_read(global: &GlobalArgs) -> Result<Store> {
    let path = db_path(global)?;
    if !path.exists() {
        anyhow::bail!(
            "no gate database at {} (nothing recorded yet, or set --db / GATE_DB)",
            path.display()
        );
    }
    Store::open_read_only(&path).with_context(|| format!("cannot open {}", path.display()))
}

pub(crate) fn open_write(global: &GlobalArgs) -> Result<Store> {
    let path = db_path(global)?;
    if !path.exists() {
        anyhow::bail!(
            "no gate database at {} (nothing recorded yet, or set --db / GATE_DB)",
            path.display()
        );
    }
    Store::open(&path).with_context(|| format!("cannot open {}", path.display()))
}

/// `2026-01-01 00:00:00` (UTC) for a millisecond timestamp.
pub fn format_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `gate status`.
pub fn status(args: &StatusArgs, global: &GlobalArgs) -> Result<i32> {
    // Store faults are counted beside the database: shown even when it cannot be opened.
    let faults = crate::config::Config::resolve(&crate::config::Overrides::from(global))
        .ok()
        .map(|c| crate::doctor::store_faults_check(&c));
    let store = match open_read(global) {
        Ok(store) => store,
        Err(e) => {
            if let Some(f) = faults.as_ref().filter(|f| f.ok != Some(true)) {
                eprintln!("gate: store faults: {}", f.detail);
            }
            return Err(e);
        }
    };
    let mut scopes = store.scopes()?;
    if let Some(session) = &args.session {
        scopes.retain(|s| s.scope == *session || s.scope.starts_with(&format!("{session}:")));
    }
    scopes.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then(a.scope.cmp(&b.scope)));
    let now = now_ms();
    let grants = store.grants(now, true)?;
    let machines: Vec<Option<serde_json::Value>> =
        scopes.iter().map(|s| describe_scope(&store, s)).collect();
    if global.json {
        let scopes: Vec<serde_json::Value> = scopes
            .iter()
            .zip(&machines)
            .map(|(s, m)| {
                let mut v = serde_json::to_value(s).unwrap_or_default();
                v["machine"] = m.clone().unwrap_or(serde_json::Value::Null);
                v
            })
            .collect();
        out_json(&json!({
            "db": store.path(),
            "scopes": scopes,
            "live_grants": grants.iter().map(|g| grant_json(g, now)).collect::<Vec<_>>(),
            "sink": sink_status(global).map(|s| serde_json::to_value(s).unwrap_or_default()),
            "store_faults": faults.as_ref().map(|f| json!({"failing_closed": f.ok == Some(false), "detail": f.detail})),
        }))?;
        return Ok(Exit::Ok.code());
    }
    let mut text = String::new();
    if scopes.is_empty() {
        text.push_str("no machine state recorded yet\n");
    }
    for (s, m) in scopes.iter().zip(&machines) {
        text.push_str(&format!(
            "{}  spec {} ({})  updated {}\n",
            s.scope,
            s.spec,
            &s.spec_hash[..s.spec_hash.len().min(12)],
            format_ms(s.updated_ms)
        ));
        match m {
            Some(m) => {
                let window = if m["window_open"] == true {
                    format!(
                        "open ({} actions, {} s, mostly {})",
                        m["window_actions"],
                        m["window_secs"],
                        m["window_kind"].as_str().unwrap_or("none")
                    )
                } else {
                    "closed".to_string()
                };
                let on: Vec<&str> = m["signals_on"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                    .unwrap_or_default();
                text.push_str(&format!(
                    "    state {}  window {}  signals on: {}  events {}\n",
                    m["state"].as_str().unwrap_or("?"),
                    window,
                    if on.is_empty() {
                        "none".to_string()
                    } else {
                        on.join(", ")
                    },
                    m["events"]
                ));
                // Each region's state (`[[region]]`), beside the machine's.
                if let Some(regions) = m["regions"].as_object().filter(|r| !r.is_empty()) {
                    let parts: Vec<String> = regions
                        .iter()
                        .map(|(r, s)| format!("{r} {}", s.as_str().unwrap_or("?")))
                        .collect();
                    text.push_str(&format!("    regions: {}\n", parts.join(", ")));
                }
            }
            None => text.push_str("    (written by a spec version this binary does not have)\n"),
        }
    }
    text.push_str(&format!("{} live grant(s)\n", grants.len()));
    for g in &grants {
        text.push_str(&grant_line(g, now));
    }
    if let Some(sink) = sink_status(global) {
        text.push_str(&format!("audit sink: {}\n", sink.summary()));
    }
    if let Some(f) = &faults {
        text.push_str(&format!("store faults: {}\n", f.detail));
    }
    out(&text)?;
    Ok(Exit::Ok.code())
}

/// Where the configured audit sink stands, when one is configured and readable.
fn sink_status(global: &GlobalArgs) -> Option<crate::sink::SinkStatus> {
    let config = Config::resolve(&Overrides::from(global)).ok()?;
    let sink = config.sink?;
    crate::sink::SinkStatus::read(&config.db.value, &sink.value).ok()
}

/// The machine behind a state row, decoded against the compiled spec that wrote it.
fn describe_scope(
    store: &gate_runtime::store::Store,
    row: &gate_runtime::store::ScopeRow,
) -> Option<serde_json::Value> {
    let compiled = crate::cmd::compiled_specs()
        .iter()
        .find(|c| c.name == row.spec && c.hash == row.spec_hash)?;
    let spec = compiled.ir();
    let stored = store.read_state(&row.scope, &row.spec).ok()??;
    let state: gate_runtime::engine::ScopeState = serde_json::from_slice(&stored.blob).ok()?;
    if !state.fits(spec) {
        return None;
    }
    let seg = &state.observer.segment;
    let levels: Vec<serde_json::Value> = spec
        .signals
        .iter()
        .zip(state.machine.level.iter().zip(&state.machine.count))
        .map(|(s, (on, count))| json!({"signal": s.name, "on": on, "count": count}))
        .collect();
    Some(json!({
        "state": spec.state_name(state.machine.state),
        "window_open": state.observer.window_open,
        "window_actions": seg.actions,
        "window_secs": seg.opened_ms.map_or(0, |t| (stored.updated_ms - t).max(0) / 1000),
        "window_kind": seg.dominant_kind().map(|k| spec.kinds[k as usize].name.clone()),
        "signals_on": spec.signals.iter().zip(&state.machine.level).filter(|(_, on)| **on).map(|(s, _)| s.name.clone()).collect::<Vec<_>>(),
        "signals": levels,
        "since_arm": state.machine.since_arm,
        "counters": spec.counters.iter().zip(&state.machine.counters).map(|(c, v)| (c.name.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "regions": spec.regions.iter().zip(&state.machine.regions).map(|(r, s)| (r.name.to_string(), json!(spec.state_name(*s)))).collect::<serde_json::Map<_, _>>(),
        "events": state.observer.events,
        "carried": state.carried,
    }))
}

fn grant_json(g: &GrantRow, now: i64) -> serde_json::Value {
    json!({
        "id": g.id,
        "status": g.status(now),
        "summary": g.summary,
        "created": format_ms(g.created_ms),
        "expires": format_ms(g.expires_ms),
        "created_ms": g.created_ms,
        "expires_ms": g.expires_ms,
    })
}

fn status_name(g: &GrantRow, now: i64) -> String {
    serde_json::to_value(g.status(now))
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn grant_line(g: &GrantRow, now: i64) -> String {
    format!(
        "  {}  {:8}  expires {}  {}\n",
        g.id,
        status_name(g, now),
        format_ms(g.expires_ms),
        g.summary
    )
}

/// One row of `gate log`: the columns, the spec when the listing holds rows of more than one
/// (`spec=NAME`: machines side by side), the role when the event had one (`role=NAME`), and
/// the tool's error text (redacted when stored) on an indented line below.
fn row_line(r: &AuditRow, show_spec: bool) -> String {
    let rec = &r.record;
    let mut line = format!(
        "{:>6} {} {:10} {:11} {:17} {:8} {}{}{} {}\n",
        r.seq,
        format_ms(rec.ts_ms),
        rec.kind.as_str(),
        rec.runtime,
        rec.phase,
        rec.decision.as_deref().unwrap_or("-"),
        if show_spec && !rec.spec.is_empty() {
            format!("spec={} ", rec.spec)
        } else {
            String::new()
        },
        rec.role
            .as_deref()
            .map_or(String::new(), |role| format!("role={role} ")),
        rec.tool.as_deref().unwrap_or("-"),
        rec.target.as_deref().unwrap_or("")
    );
    if let Some(error) = rec.detail.get("error").and_then(serde_json::Value::as_str) {
        for (i, text) in error.lines().enumerate() {
            line.push_str(if i == 0 {
                "       error: "
            } else {
                "              "
            });
            line.push_str(text);
            line.push('\n');
        }
    }
    line
}

/// `gate log`.
pub fn log(args: &LogArgs, global: &GlobalArgs) -> Result<i32> {
    let store = open_read(global)?;
    let filter = AuditFilter {
        session: args.session.clone(),
        decision: args.decision.map(|d| d.as_str().to_string()),
        tier: args.tier.clone(),
        since_ms: args.since.map(|since| since.resolve(now_ms())),
        rule: args.rule.clone(),
        limit: Some(args.limit as u64),
        ..AuditFilter::default()
    };
    let rows = store.audit_rows(&filter)?;
    if global.json {
        out_json(&serde_json::to_value(&rows)?)?;
    } else {
        let mut specs = rows
            .iter()
            .map(|r| r.record.spec.as_str())
            .filter(|s| !s.is_empty());
        let first = specs.next();
        let show_spec = specs.any(|s| Some(s) != first);
        let text: String = rows.iter().map(|r| row_line(r, show_spec)).collect();
        out(if text.is_empty() {
            "no audit rows\n"
        } else {
            &text
        })?;
    }
    Ok(Exit::Ok.code())
}

/// `gate audit verify`: exit 1 when the chain is broken.
/// `gate checkpoint`: fold the WAL into the database and truncate it.
pub fn checkpoint(args: &crate::cli::CheckpointArgs, global: &GlobalArgs) -> Result<i32> {
    checkpoint_at(&db_path(global)?, args.quiet, global.json)
}

/// `gate checkpoint` of the database at `path` (what [`checkpoint`] does once the path is
/// resolved; the background form the hook starts comes here without clap).
pub fn checkpoint_at(path: &std::path::Path, quiet: bool, json: bool) -> Result<i32> {
    if !path.exists() {
        anyhow::bail!(
            "no gate database at {} (nothing recorded yet, or set --db / GATE_DB)",
            path.display()
        );
    }
    let done = gate_runtime::driver::checkpoint(path)
        .with_context(|| format!("cannot checkpoint {}", path.display()))?;
    if !quiet {
        if json {
            out_json(&json!({ "db": path, "done": done }))?;
        } else if done {
            out(&format!(
                "checkpointed {}: the write-ahead log is empty\n",
                path.display()
            ))?;
        } else {
            out(&format!(
                "{} is busy (other gate processes); nothing was lost, try again\n",
                path.display()
            ))?;
        }
    }
    Ok(if done {
        Exit::Ok.code()
    } else {
        Exit::Findings.code()
    })
}

pub fn audit_verify(global: &GlobalArgs) -> Result<i32> {
    let store = open_read(global)?;
    let report = store.verify_chain()?;
    // Approvals are rows of the chain: an approved grant without a verifying approval row
    // was approved by hand in the database, and is never honoured.
    let unchained = store.unchained_grants()?;
    let ok = report.is_ok() && unchained.is_empty();
    if global.json {
        out_json(&json!({
            "ok": ok,
            "rows_ok": report.rows_ok,
            "head_rows": report.head_rows,
            "problem": report.problem,
            "problem_text": report.problem.as_ref().map(ToString::to_string),
            "first_bad_seq": report.first_bad_seq(),
            "unchained_grants": unchained,
        }))?;
    } else {
        if let Some(problem) = &report.problem {
            out(&format!(
                "audit chain BROKEN after {} good row(s): {problem}\n",
                report.rows_ok
            ))?;
        } else {
            out(&format!(
                "audit chain ok: {} row(s) verified\n",
                report.rows_ok
            ))?;
        }
        for id in &unchained {
            out(&format!(
                "grant {id} is marked approved but no approval row in the chain verifies it: \
                 it was approved outside `gate approve` and is not honoured\n"
            ))?;
        }
    }
    Ok(if ok {
        Exit::Ok.code()
    } else {
        Exit::Findings.code()
    })
}

/// `gate audit export --format jsonl`: one row per line, streamed.
pub fn audit_export(args: &ExportArgs, global: &GlobalArgs) -> Result<i32> {
    let store = open_read(global)?;
    match args.format {
        ExportFormat::Jsonl => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            let mut write_error: Option<std::io::Error> = None;
            let mut progress = Progress::new("export", None);
            let result = store.for_each_audit(&AuditFilter::default(), |row| {
                progress.tick();
                let line = serde_json::to_string(&row).unwrap_or_default();
                if let Err(e) = writeln!(lock, "{line}") {
                    let copy = std::io::Error::new(e.kind(), e.to_string());
                    write_error = Some(e);
                    return Err(StoreError::Io {
                        context: "writing the export".into(),
                        source: copy,
                    });
                }
                Ok(())
            });
            if let Some(e) = write_error {
                return Err(e.into());
            }
            progress.done();
            result?;
            lock.flush()?;
        }
    }
    Ok(Exit::Ok.code())
}

/// A row counter on stderr while a long command runs, shown only on a terminal.
struct Progress {
    what: &'static str,
    total: Option<u64>,
    done: u64,
    shown: bool,
    last: std::time::Instant,
    enabled: bool,
}

impl Progress {
    fn new(what: &'static str, total: Option<u64>) -> Progress {
        use std::io::IsTerminal;
        Progress {
            what,
            total,
            done: 0,
            shown: false,
            last: std::time::Instant::now(),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&mut self) {
        self.done += 1;
        if !self.enabled || self.last.elapsed() < std::time::Duration::from_millis(250) {
            return;
        }
        self.last = std::time::Instant::now();
        self.shown = true;
        let of = self.total.map(|t| format!(" of {t}")).unwrap_or_default();
        eprint!("\r{}: {} row(s){of}", self.what, self.done);
    }

    fn done(&self) {
        if self.shown {
            eprint!("\r\x1b[K");
        }
    }
}

/// `gate approve ID`.
pub fn approve(args: &ApproveArgs, global: &GlobalArgs) -> Result<i32> {
    // No identity approves its own ask: an approval from inside an agent's tool call is
    // refused before the database is opened.
    let env = |k: &str| std::env::var(k).ok();
    if let Some(why) = crate::agent::inside_agent(&env) {
        return Err(InputError::new(format!(
            "gate approve is for the user, not for an agent: this runs inside an agent's tool \
             call ({why}); run it from your own terminal"
        ))
        .into());
    }
    let mut store = open_write(global)?;
    let now = now_ms();
    let outcome = store.approve_grant(args.id.trim(), now)?;
    let grant = store
        .grants(now, false)?
        .into_iter()
        .find(|g| g.id == args.id.trim());
    if global.json {
        out_json(&json!({
            "id": args.id,
            "outcome": outcome,
            "grant": grant.as_ref().map(|g| grant_json(g, now)),
        }))?;
    }
    match outcome {
        ApproveOutcome::Approved => {
            if !global.json {
                let what = grant.map(|g| g.summary).unwrap_or_default();
                out(&format!(
                    "approved {} once: {what}\nretry the action in the agent; the grant is used by the first matching call\n",
                    args.id
                ))?;
            }
            Ok(Exit::Ok.code())
        }
        ApproveOutcome::NotFound => Err(InputError::new(format!(
            "no grant with id `{}` (see `gate grants`)",
            args.id
        ))
        .into()),
        ApproveOutcome::NotPending(status) => {
            if !global.json {
                out(&format!(
                    "grant {} is not pending: it is {}\n",
                    args.id,
                    serde_json::to_value(status)?.as_str().unwrap_or("unknown")
                ))?;
            }
            Ok(Exit::Findings.code())
        }
    }
}

/// `gate grants [--revoke ID]`.
pub fn grants(args: &GrantsArgs, global: &GlobalArgs) -> Result<i32> {
    let now = now_ms();
    if let Some(id) = &args.revoke {
        let mut store = open_write(global)?;
        let revoked = store.revoke_grant(id.trim())?;
        if global.json {
            out_json(&json!({"id": id, "revoked": revoked}))?;
        } else if revoked {
            out(&format!("revoked {id}\n"))?;
        }
        if !revoked {
            return Err(InputError::new(format!("no grant with id `{id}`")).into());
        }
        return Ok(Exit::Ok.code());
    }
    let store = open_read(global)?;
    let list = store.grants(now, true)?;
    if global.json {
        out_json(&json!(list
            .iter()
            .map(|g| grant_json(g, now))
            .collect::<Vec<_>>()))?;
    } else if list.is_empty() {
        out("no live grants\n")?;
    } else {
        out(&list.iter().map(|g| grant_line(g, now)).collect::<String>())?;
    }
    Ok(Exit::Ok.code())
}

/// `gate calibrate`: learn baselines from clean windows.
pub fn calibrate(args: &CalibrateArgs, global: &GlobalArgs) -> Result<i32> {
    if args.dry_run {
        let store = open_read(global)?;
        let windows = store.windows(None, None, true)?;
        let mut groups: std::collections::BTreeMap<(String, String), usize> = Default::default();
        for w in &windows {
            *groups.entry((w.repo.clone(), w.kind.clone())).or_default() += 1;
        }
        if global.json {
            let list: Vec<_> = groups
                .iter()
                .map(|((repo, kind), n)| {
                    json!({"repo": repo, "kind": kind, "clean_windows": n,
                           "would_learn": *n >= args.min_samples})
                })
                .collect();
            out_json(&json!(list))?;
        } else {
            let mut text = format!("{} clean window(s)\n", windows.len());
            for ((repo, kind), n) in &groups {
                text.push_str(&format!(
                    "  {repo} {kind}: {n} sample(s){}\n",
                    if *n >= args.min_samples {
                        ""
                    } else {
                        " (too few to learn from)"
                    }
                ));
            }
            out(&text)?;
        }
        return Ok(Exit::Ok.code());
    }
    let mut store = open_write(global)?;
    let learned = store.calibrate(args.min_samples, args.percentile, now_ms())?;
    if args.quiet {
        return Ok(Exit::Ok.code());
    }
    if global.json {
        out_json(&serde_json::to_value(&learned)?)?;
    } else if learned.is_empty() {
        out(&format!(
            "nothing learned: no repo and work kind has {} clean windows yet\n",
            args.min_samples
        ))?;
    } else {
        let mut text = String::new();
        for b in &learned {
            text.push_str(&format!(
                "{} {}: {} actions, {} s (p{} of {} windows)\n",
                b.repo, b.kind, b.actions, b.secs, args.percentile, b.samples
            ));
        }
        out(&text)?;
    }
    Ok(Exit::Ok.code())
}
