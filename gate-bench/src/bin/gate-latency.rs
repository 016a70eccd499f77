//! `gate-latency`: whole-process cost of `gate hook claude-code`, paired against `gate-floor`.
//!
//! It builds nothing: run it after `cargo build --release -p gate-cli -p gate-bench` (or via
//! `cargo run --release -p gate-bench --bin gate-latency`, which builds itself and the floor;
//! build `gate` first). It expects `gate` and `gate-floor` beside its own executable.
//!
//! For each verdict (allow, steer, ask, deny) it spawns `gate hook claude-code` and the floor
//! alternately (A/B, then B/A) N times with a fresh `GATE_HOME` per series, so state, the
//! audit chain and pending grants accumulate as in a real session, and prints p50/p99 per
//! call and the paired ratios. Then: peak RSS per call (a probe child that spawns one call
//! and reads `getrusage(RUSAGE_CHILDREN)`), callgrind instruction counts when valgrind is on
//! the PATH (the mean of calls sampled across the WAL's truncation cycle), a database with many audit rows against an empty one, a guard
//! spec grown to many command patterns against the shipped one (`gate replay --spec-file`,
//! the interpreter), and `gate replay` throughput on a large generated file, in memory and
//! through a database (`--db`).

use gate_bench::{claude_bash_payload, guard_with_patterns, VERDICT_COMMANDS, WORKLOAD};
use gate_runtime::store::{AuditKind, AuditRecord, Store};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: gate-latency [--calls N] [--audit-rows N] [--replay-events N] [--no-replay-store]
                    [--guard-patterns N] [--replay-runs N] [--no-callgrind]
                    [--callgrind-samples N] [--callgrind-stride N] [--reversible-calls N]
                    [--bin-dir DIR]

  --calls N           hook calls per series and binary (default 300)
  --audit-rows N      audit rows of the large database (default 1000000; 0 skips)
  --replay-events N   events in the generated file for `gate replay` (default 1000000; 0 skips),
                      replayed without a store and then with `--db` (a new database)
  --no-replay-store   only the replay without a store
  --guard-patterns N  command patterns of the grown guard spec (default 1000; 0 skips)
  --replay-runs N     timed runs per spec in the pattern comparison (default 5)
  --no-callgrind      skip the instruction counts even when valgrind is present
  --callgrind-samples N  calls counted per verdict (default 8; their mean is reported)
  --callgrind-stride N   count every Nth call (default 8), so the samples spread over the
                      WAL's truncation cycle, on which a call's count depends
  --reversible-calls N  director hook calls per backup series (a small file, a 100 MB tree,
                      a git reset, a rebase, a force push; default 10; 0 skips), each with a
                      new gate home
  --bin-dir DIR       where `gate` and `gate-floor` are (default: beside this binary)";

struct Options {
    calls: usize,
    audit_rows: usize,
    replay_events: usize,
    replay_store: bool,
    guard_patterns: usize,
    replay_runs: usize,
    callgrind: bool,
    callgrind_samples: usize,
    callgrind_stride: usize,
    reversible_calls: usize,
    bin_dir: Option<PathBuf>,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        calls: 300,
        audit_rows: 1_000_000,
        replay_events: 1_000_000,
        replay_store: true,
        guard_patterns: 1000,
        replay_runs: 5,
        callgrind: true,
        callgrind_samples: 8,
        callgrind_stride: 8,
        reversible_calls: 10,
        bin_dir: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match a.as_str() {
            "--calls" => o.calls = number("--calls")?.max(2),
            "--audit-rows" => o.audit_rows = number("--audit-rows")?,
            "--replay-events" => o.replay_events = number("--replay-events")?,
            "--no-replay-store" => o.replay_store = false,
            "--guard-patterns" => o.guard_patterns = number("--guard-patterns")?,
            "--replay-runs" => o.replay_runs = number("--replay-runs")?.max(1),
            "--no-callgrind" => o.callgrind = false,
            "--callgrind-samples" => o.callgrind_samples = number("--callgrind-samples")?.max(1),
            "--callgrind-stride" => o.callgrind_stride = number("--callgrind-stride")?.max(1),
            "--reversible-calls" => o.reversible_calls = number("--reversible-calls")?,
            "--bin-dir" => {
                o.bin_dir = Some(PathBuf::from(it.next().ok_or("--bin-dir needs a path")?))
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(o)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--rss-probe") {
        std::process::exit(rss_probe(&args[1..]));
    }
    let options = match parse_options(&args) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    if let Err(message) = run(&options) {
        eprintln!("gate-latency: {message}");
        std::process::exit(1);
    }
}

/// One hook process: the binary, its arguments, its stdin file and its environment.
#[derive(Clone)]
struct Call {
    bin: PathBuf,
    args: Vec<String>,
    stdin: PathBuf,
    home: PathBuf,
    cwd: PathBuf,
}

impl Call {
    fn command(&self) -> Result<Command, String> {
        let mut cmd = Command::new(&self.bin);
        self.configure(&mut cmd)?;
        Ok(cmd)
    }

    /// Isolate the call: its own GATE_HOME, HOME and working directory, no inherited gate
    /// configuration.
    fn configure(&self, cmd: &mut Command) -> Result<(), String> {
        let stdin = std::fs::File::open(&self.stdin)
            .map_err(|e| format!("cannot open {}: {e}", self.stdin.display()))?;
        cmd.args(&self.args)
            .stdin(stdin)
            .current_dir(&self.cwd)
            .env("GATE_HOME", &self.home)
            .env("HOME", &self.cwd)
            .env_remove("GATE_DB")
            .env_remove("GATE_SPEC")
            .env_remove("GATE_ROLE")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_DATA_HOME");
        Ok(())
    }

    /// Run once; the wall time from spawn to exit and the stdout.
    fn time(&self) -> Result<(Duration, Vec<u8>), String> {
        let mut cmd = self.command()?;
        cmd.stdout(Stdio::piped()).stderr(Stdio::null());
        let start = Instant::now();
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.bin.display()))?;
        let took = start.elapsed();
        if !out.status.success() {
            return Err(format!("{} exited with {}", self.bin.display(), out.status));
        }
        Ok((took, out.stdout))
    }
}

/// What a Claude Code answer says.
fn verdict_of(stdout: &[u8]) -> &'static str {
    let text = String::from_utf8_lossy(stdout);
    if text.trim().is_empty() {
        "allow"
    } else if text.contains("\"permissionDecision\":\"deny\"") {
        "deny"
    } else if text.contains("\"permissionDecision\":\"ask\"") {
        "ask"
    } else if text.contains("additionalContext") {
        "steer"
    } else {
        "other"
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// A paired series: A and B alternate (A,B then B,A), N times each.
struct Paired {
    a: Vec<f64>,
    b: Vec<f64>,
    /// Per pair, b / a.
    ratios: Vec<f64>,
    /// Verdicts B answered, counted.
    b_verdicts: std::collections::BTreeMap<&'static str, usize>,
}

impl Paired {
    /// `prepare(i)` runs before pair `i` (warm-up pairs count from `usize::MAX` down), outside
    /// the timed region.
    fn run(
        a: &Call,
        b: &Call,
        calls: usize,
        warmup: usize,
        prepare: &mut dyn FnMut(usize) -> Result<(), String>,
    ) -> Result<Paired, String> {
        for w in 0..warmup {
            prepare(usize::MAX - w)?;
            a.time()?;
            b.time()?;
        }
        let mut p = Paired {
            a: Vec::with_capacity(calls),
            b: Vec::with_capacity(calls),
            ratios: Vec::with_capacity(calls),
            b_verdicts: Default::default(),
        };
        for i in 0..calls {
            prepare(i)?;
            let (ta, tb, out_b) = if i.is_multiple_of(2) {
                let (ta, _) = a.time()?;
                let (tb, out) = b.time()?;
                (ta, tb, out)
            } else {
                let (tb, out) = b.time()?;
                let (ta, _) = a.time()?;
                (ta, tb, out)
            };
            let (ta, tb) = (ta.as_secs_f64() * 1e3, tb.as_secs_f64() * 1e3);
            p.a.push(ta);
            p.b.push(tb);
            p.ratios.push(tb / ta);
            *p.b_verdicts.entry(verdict_of(&out_b)).or_default() += 1;
        }
        p.a = sorted(std::mem::take(&mut p.a));
        p.b = sorted(std::mem::take(&mut p.b));
        p.ratios = sorted(std::mem::take(&mut p.ratios));
        Ok(p)
    }

    fn verdicts(&self) -> String {
        self.b_verdicts
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn run(o: &Options) -> Result<(), String> {
    let bin_dir = match &o.bin_dir {
        Some(d) => d.clone(),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find this executable: {e}"))?
            .parent()
            .map(Path::to_path_buf)
            .ok_or("this executable has no directory")?,
    };
    let gate = bin_dir.join("gate");
    let floor = bin_dir.join("gate-floor");
    for bin in [&gate, &floor] {
        if !bin.is_file() {
            return Err(format!(
                "{} is missing; run `cargo build --release -p gate-cli -p gate-bench` first",
                bin.display()
            ));
        }
    }
    let work = tempfile::Builder::new()
        .prefix("gate-latency-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let cwd = work.path().join("cwd");
    std::fs::create_dir_all(&cwd).map_err(|e| e.to_string())?;
    println!(
        "gate-latency: {} calls per series, binaries in {}",
        o.calls,
        bin_dir.display()
    );
    println!("(times in ms per call, wall clock from spawn to exit; ratio = gate / floor)\n");

    // ---------------------------------------------------------------- latency per verdict
    println!(
        "{:<8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}  answers",
        "verdict", "floor50", "gate50", "ratio50", "pair50", "floor99", "gate99", "ratio99"
    );
    let mut warm_calls: Vec<(&str, Call, Call, serde_json::Value)> = Vec::new();
    let series = VERDICT_COMMANDS.iter().map(|&(v, c)| (v, c, true)).chain([(
        "allow*",
        VERDICT_COMMANDS[0].1,
        false,
    )]);
    for (verdict, command, session_per_call) in series {
        let payload = work.path().join(format!("{verdict}.json"));
        let template: serde_json::Value =
            serde_json::from_slice(&claude_bash_payload(command).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        let mut prepare = |i: usize| -> Result<(), String> {
            let mut v = template.clone();
            if session_per_call {
                v["session_id"] = serde_json::Value::String(format!("latency-{verdict}-{i}"));
            }
            std::fs::write(&payload, v.to_string()).map_err(|e| e.to_string())
        };
        prepare(0)?;
        let home = work.path().join(format!("home-{verdict}"));
        let gate_call = Call {
            bin: gate.clone(),
            args: vec!["hook".into(), "claude-code".into()],
            stdin: payload.clone(),
            home: home.clone(),
            cwd: cwd.clone(),
        };
        let floor_call = Call {
            bin: floor.clone(),
            args: Vec::new(),
            ..gate_call.clone()
        };
        let p = Paired::run(&floor_call, &gate_call, o.calls, 5, &mut prepare)?;
        println!(
            "{:<8} {:>9.3} {:>9.3} {:>8.2}x {:>8.2}x {:>9.3} {:>9.3} {:>9.2}x  {}",
            verdict,
            percentile(&p.a, 50.0),
            percentile(&p.b, 50.0),
            percentile(&p.b, 50.0) / percentile(&p.a, 50.0),
            percentile(&p.ratios, 50.0),
            percentile(&p.a, 99.0),
            percentile(&p.b, 99.0),
            percentile(&p.b, 99.0) / percentile(&p.a, 99.0),
            p.verdicts(),
        );
        if session_per_call {
            warm_calls.push((verdict, floor_call, gate_call, template));
        }
    }
    println!(
        "(pair50: median of the per-pair ratios; answers: what gate said in the series;\n \
         a new session per call, so every call is a session's first action and gets the\n \
         answer above; allow*: one session throughout, the same command repeated)\n"
    );

    if o.reversible_calls > 0 {
        reversible_section(&gate, work.path(), o.reversible_calls)?;
    }

    // ---------------------------------------------------------------- peak RSS
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    println!("peak RSS per call (KiB, max of 3 probes, warm database):");
    for (verdict, floor_call, gate_call, _) in &warm_calls {
        let g = (0..3)
            .map(|_| probe_rss(&me, gate_call))
            .collect::<Result<Vec<_>, _>>()?;
        let f = probe_rss(&me, floor_call)?;
        println!(
            "  {verdict:<6} gate {:>6}  floor {:>6}",
            g.iter().max().copied().unwrap_or(0),
            f
        );
    }
    println!();

    // ---------------------------------------------------------------- instructions
    if o.callgrind && which("valgrind").is_some() {
        // A call's count depends on how full the WAL it recovers is, so one call says little:
        // sample calls spread over more than one truncation cycle and give the mean.
        println!(
            "instructions per call (callgrind, all threads; gate: every {}th of {} further \
             calls of the series, a new session each, spread over the WAL cycle):",
            o.callgrind_stride,
            o.callgrind_samples * o.callgrind_stride
        );
        let (_, floor_call, _, _) = &warm_calls[0];
        let f = callgrind(floor_call, work.path())?;
        println!("  floor  {:>12}", group(f));
        for (verdict, _, gate_call, template) in &warm_calls {
            let mut counts = Vec::new();
            for i in 0..o.callgrind_samples * o.callgrind_stride {
                let mut v = template.clone();
                v["session_id"] = serde_json::Value::String(format!("callgrind-{verdict}-{i}"));
                std::fs::write(&gate_call.stdin, v.to_string()).map_err(|e| e.to_string())?;
                if (i + 1) % o.callgrind_stride == 0 {
                    counts.push(callgrind(gate_call, work.path())?);
                } else {
                    let status = gate_call
                        .command()?
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .map_err(|e| e.to_string())?;
                    if !status.success() {
                        return Err(format!("gate exited with {status}"));
                    }
                }
            }
            let mean = counts.iter().sum::<u64>() / counts.len().max(1) as u64;
            println!(
                "  {verdict:<6} mean {:>10}  ({:.2}x floor)  min {:>10}  max {:>10}  ({} samples)",
                group(mean),
                mean as f64 / f as f64,
                group(counts.iter().copied().min().unwrap_or(0)),
                group(counts.iter().copied().max().unwrap_or(0)),
                counts.len()
            );
        }
        println!();
    } else {
        println!("instructions per call: skipped (no valgrind on PATH or --no-callgrind)\n");
    }

    // ---------------------------------------------------------------- audit size
    if o.audit_rows > 0 {
        let big_home = work.path().join("home-big");
        let t = Instant::now();
        fill_audit(&big_home.join("gate.db"), o.audit_rows)?;
        println!(
            "database with {} audit rows built in {:.1} s ({} MiB)",
            group(o.audit_rows as u64),
            t.elapsed().as_secs_f64(),
            std::fs::metadata(big_home.join("gate.db")).map_or(0, |m| m.len() >> 20)
        );
        let (_, _, allow, _) = &warm_calls[0];
        let empty = Call {
            home: work.path().join("home-empty"),
            ..allow.clone()
        };
        let big = Call {
            home: big_home.clone(),
            ..allow.clone()
        };
        let p = Paired::run(&empty, &big, o.calls, 5, &mut |_| Ok(()))?;
        println!(
            "  allow: empty db p50 {:.3} ms, {}-row db p50 {:.3} ms: {:+.1} % (median pair {:+.1} %); p99 {:.3} vs {:.3}\n",
            percentile(&p.a, 50.0),
            group(o.audit_rows as u64),
            percentile(&p.b, 50.0),
            (percentile(&p.b, 50.0) / percentile(&p.a, 50.0) - 1.0) * 100.0,
            (percentile(&p.ratios, 50.0) - 1.0) * 100.0,
            percentile(&p.a, 99.0),
            percentile(&p.b, 99.0),
        );
        let _ = std::fs::remove_dir_all(&big_home);
    }

    // ---------------------------------------------------------------- pattern count
    if o.guard_patterns > 0 {
        let shipped = work.path().join("guard.toml");
        let grown = work.path().join(format!("guard-{}.toml", o.guard_patterns));
        let shipped_source = gate_bench::guard_source().map_err(|e| e.to_string())?;
        let shipped_count = gate_bench::command_patterns(&gate_bench::compile(&shipped_source)?);
        std::fs::write(&shipped, &shipped_source).map_err(|e| e.to_string())?;
        std::fs::write(&grown, guard_with_patterns(o.guard_patterns)?)
            .map_err(|e| e.to_string())?;
        // Long enough (≈ 0.2 s a run) that the machine's noise does not swamp a few per cent.
        let events = 100_000;
        let file = work.path().join("patterns.jsonl");
        write_replay_file(&file, events)?;
        let replay = |spec: &Path| Call {
            bin: gate.clone(),
            args: vec![
                "replay".into(),
                file.display().to_string(),
                "--spec-file".into(),
                spec.display().to_string(),
                "--json".into(),
            ],
            stdin: file.clone(),
            home: work.path().join("home-replay"),
            cwd: cwd.clone(),
        };
        let p = Paired::run(
            &replay(&shipped),
            &replay(&grown),
            o.replay_runs,
            1,
            &mut |_| Ok(()),
        )?;
        let (a, b) = (percentile(&p.a, 50.0), percentile(&p.b, 50.0));
        println!(
            "guard spec, `gate replay --spec-file` (interpreter), {} events, median of {} runs:",
            group(events as u64),
            o.replay_runs
        );
        println!(
            "  shipped ({shipped_count} command patterns) {a:.1} ms = {:.2} us/event; \
             grown ({} patterns) {b:.1} ms = {:.2} us/event: {:+.1} %\n",
            a * 1e3 / events as f64,
            o.guard_patterns.max(shipped_count),
            b * 1e3 / events as f64,
            (b / a - 1.0) * 100.0
        );
    }

    // ---------------------------------------------------------------- replay throughput
    if o.replay_events > 0 {
        let file = work.path().join("replay.jsonl");
        write_replay_file(&file, o.replay_events)?;
        let size = std::fs::metadata(&file).map_or(0, |m| m.len());
        let db = work.path().join("replay-store").join("gate.db");
        let call = |store: bool| {
            let mut args = vec![
                "--spec".into(),
                "default".into(),
                "replay".into(),
                file.display().to_string(),
                "--json".into(),
            ];
            if store {
                args.extend(["--db".into(), db.display().to_string()]);
            }
            Call {
                bin: gate.clone(),
                args,
                stdin: file.clone(),
                home: work.path().join("home-replay"),
                cwd: cwd.clone(),
            }
        };
        println!(
            "`gate replay`, compiled default spec, {} events ({} MiB), wall clock and CPU time (user + sys):",
            group(o.replay_events as u64),
            size >> 20,
        );
        let runs: &[(bool, &str)] = if o.replay_store {
            &[(false, "no store"), (true, "--db (store)")]
        } else {
            &[(false, "no store")]
        };
        for &(store, label) in runs {
            let (took, cpu, out) = time_with_cpu(&call(store))?;
            let summary: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
            let replayed = summary
                .pointer("/summary/events")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            let stored = summary
                .pointer("/db/stored_events")
                .and_then(serde_json::Value::as_u64);
            let per_sec = |d: Duration| group((o.replay_events as f64 / d.as_secs_f64()) as u64);
            println!(
                "  {label:<13} {:>7.2} s = {:>9} events/s; CPU {:>7.2} s = {:>9} events/CPU-s (replayed {}{})",
                took.as_secs_f64(),
                per_sec(took),
                cpu.as_secs_f64(),
                per_sec(cpu),
                group(replayed),
                stored.map_or_else(String::new, |n| format!(
                    ", stored {}, database {} MiB",
                    group(n),
                    std::fs::metadata(&db).map_or(0, |m| m.len()) >> 20
                )),
            );
        }
        let _ = std::fs::remove_file(&file);
        let _ = std::fs::remove_dir_all(db.parent().unwrap_or(&db));
    }
    Ok(())
}

/// Run a call once: wall time, the CPU time it used (user + sys, from the children's rusage)
/// and its stdout.
fn time_with_cpu(call: &Call) -> Result<(Duration, Duration, Vec<u8>), String> {
    let cpu = || -> Result<Duration, String> {
        let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
            .map_err(|e| e.to_string())?;
        let tv = |t: nix::sys::time::TimeVal| {
            Duration::from_secs(t.tv_sec().max(0) as u64)
                + Duration::from_micros(t.tv_usec().max(0) as u64)
        };
        Ok(tv(usage.user_time()) + tv(usage.system_time()))
    };
    let before = cpu()?;
    let (took, out) = call.time()?;
    Ok((took, cpu()?.saturating_sub(before), out))
}

/// Claude Code pre-tool payloads of the workload, one JSON object per line, a new session
/// every 1,000 lines.
fn write_replay_file(path: &Path, events: usize) -> Result<(), String> {
    let mut templates = Vec::new();
    for command in WORKLOAD {
        let bytes = claude_bash_payload(command).map_err(|e| e.to_string())?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
        templates.push(value);
    }
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut out = std::io::BufWriter::new(file);
    for i in 0..events {
        let mut v = templates[i % templates.len()].clone();
        v["session_id"] = serde_json::Value::String(format!("bench-session-{}", i / 1000));
        serde_json::to_writer(&mut out, &v).map_err(|e| e.to_string())?;
        out.write_all(b"\n").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// Append `rows` audit rows (a valid chain) to a new database through the store itself.
fn fill_audit(db: &Path, rows: usize) -> Result<(), String> {
    let mut store = Store::open(db).map_err(|e| e.to_string())?;
    let batch = 20_000;
    let mut done = 0;
    while done < rows {
        let n = batch.min(rows - done);
        store
            .transaction(|tx| {
                for i in done..done + n {
                    tx.append_audit(&AuditRecord {
                        ts_ms: 1_700_000_000_000 + i as i64,
                        session: format!("old-session-{}", i / 500),
                        scope: format!("old-session-{}:main", i / 500),
                        spec: "default".into(),
                        kind: AuditKind::Event,
                        runtime: "claude-code".into(),
                        phase: "pre_tool".into(),
                        tool: Some("Bash".into()),
                        target: Some(WORKLOAD[i % WORKLOAD.len()].into()),
                        tier: Some("routine".into()),
                        decision: Some("allow".into()),
                        detail: serde_json::json!({"event": "PreToolUse", "n": i}),
                        latency_us: Some(900),
                        role: None,
                    })?;
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        done += n;
    }
    Ok(())
}

/// Peak RSS of one call, in KiB, measured by a probe child (this binary with `--rss-probe`)
/// whose only child is the call.
fn probe_rss(me: &Path, call: &Call) -> Result<i64, String> {
    let mut cmd = Command::new(me);
    cmd.arg("--rss-probe").arg(&call.bin).args(&call.args);
    call.configure(&mut cmd)?;
    let out = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| format!("the RSS probe of {} failed", call.bin.display()))
}

/// `--rss-probe BIN ARGS…`: run BIN with this process's stdin and environment, then print
/// the peak RSS of the (only) child in KiB.
fn rss_probe(args: &[String]) -> i32 {
    let Some((bin, rest)) = args.split_first() else {
        return 2;
    };
    let status = Command::new(bin)
        .args(rest)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if status.is_err() {
        return 1;
    }
    match nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN) {
        Ok(usage) => {
            println!("{}", usage.max_rss());
            0
        }
        Err(_) => 1,
    }
}

/// Instructions of one call under callgrind (the `summary:` total, all threads).
fn callgrind(call: &Call, work: &Path) -> Result<u64, String> {
    let out_file = work.join("callgrind.out");
    let _ = std::fs::remove_file(&out_file);
    let mut cmd = Command::new("valgrind");
    let mut file_arg = OsString::from("--callgrind-out-file=");
    file_arg.push(&out_file);
    cmd.arg("--tool=callgrind")
        .arg(file_arg)
        .arg(&call.bin)
        .args(&call.args);
    call.configure(&mut cmd)?;
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !status.success() {
        return Err(format!("valgrind exited with {status}"));
    }
    let text = std::fs::read_to_string(&out_file).map_err(|e| e.to_string())?;
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| "no instruction total in the callgrind output".to_string())
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// 1234567 → "1,234,567".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The director's backups (mode `reversible`): hook wall time per call, each making a backup.
fn reversible_section(gate: &Path, work: &Path, calls: usize) -> Result<(), String> {
    println!("director backups (mode reversible; ms per hook call, a new gate home each):");
    std::fs::create_dir_all(work.join("home")).map_err(|e| e.to_string())?;
    for (n, (name, command, make)) in gate_bench::reversible::SERIES.iter().enumerate() {
        let project = work.join(format!("reversible-{n}"));
        std::fs::create_dir_all(&project).map_err(|e| e.to_string())?;
        make(&project)?;
        let (times, backed_up) =
            gate_bench::reversible::time_series(gate, work, &project, command, calls)?;
        let ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        println!(
            "  {name:<12} {command:<30} p50 {:>9.3}  max {:>9.3}  {}",
            percentile(&ms, 50.0),
            ms.last().copied().unwrap_or(0.0),
            if backed_up {
                "backed up"
            } else {
                "NOT backed up"
            }
        );
    }
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_recognised() {
        assert_eq!(verdict_of(b""), "allow");
        assert_eq!(verdict_of(b"\n"), "allow");
        let deny = br#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#;
        assert_eq!(verdict_of(deny), "deny");
        let ask = br#"{"hookSpecificOutput":{"permissionDecision":"ask"}}"#;
        assert_eq!(verdict_of(ask), "ask");
        let steer = br#"{"hookSpecificOutput":{"additionalContext":"x"}}"#;
        assert_eq!(verdict_of(steer), "steer");
        assert_eq!(verdict_of(b"{}"), "other");
    }

    #[test]
    fn percentiles_and_grouping() {
        let v = sorted(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(percentile(&v, 50.0), 3.0);
        assert_eq!(percentile(&v, 99.0), 5.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert!(percentile(&[], 50.0).is_nan());
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
    }

    #[test]
    fn options_parse_and_reject() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = parse_options(&args(&[
            "--calls",
            "7",
            "--audit-rows",
            "0",
            "--no-callgrind",
        ]))
        .unwrap();
        assert_eq!((o.calls, o.audit_rows, o.callgrind), (7, 0, false));
        let o = parse_options(&args(&[
            "--callgrind-samples",
            "3",
            "--callgrind-stride",
            "0",
        ]))
        .unwrap();
        assert_eq!((o.callgrind_samples, o.callgrind_stride), (3, 1));
        assert!(parse_options(&args(&["--calls"])).is_err());
        assert!(parse_options(&args(&["--bogus"])).is_err());
    }
}
