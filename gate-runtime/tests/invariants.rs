//! Property tests over every shipped spec: compiled == interpreted, anti-flap, a window
//! licenses nothing, fail-open under injected store faults, and deterministic verdicts/audit.
//!
//! Every property runs over all of `gate_specs::ALL`, so a new spec is covered without
//! editing this file. Case counts (each case runs every spec): 256 for the machine-level
//! properties, 128 for the engine-level ones, 32 for the driver ones (each case opens SQLite
//! databases); `PROPTEST_CASES` overrides all of them.

mod common;

use common::engine::evaluate;
use common::store::persisting;
use common::tools::{set_call, status_in, TOOLS};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gate_runtime::driver::{self, Options};
use gate_runtime::engine::{Engine, ScopeState};
use gate_runtime::event::{Event, Runtime};
use gate_runtime::interp::Interpreter;
use gate_runtime::store::{key_path, AuditFilter, Store};
use gate_runtime::verdict::Verdict;
use gate_runtime::verify::builtin::closed_states;
use gate_spec::exec::{CompiledSpec, Input, Machine, Snapshot};
use gate_spec::ir::{ActionClass, Effect, FailPolicy, Phase, RoleId, Spec, StateId, Trigger};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

// ------------------------------------------------------------------------------------------
// Shared helpers

const MACHINE_CASES: u32 = 256;
const ENGINE_CASES: u32 = 128;
const DRIVER_CASES: u32 = 32;

/// The case count of a property: `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> Config {
    Config {
        cases: cases(default),
        failure_persistence: None,
        ..Config::default()
    }
}

fn arms(spec: &Spec, t: u16) -> bool {
    spec.transitions[t as usize]
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Arm))
}

/// One machine-level input in primitive form, mapped onto a spec's dimensions by modulo.
#[derive(Clone, Debug)]
struct RawInput {
    phase: u8,
    tier: u8,
    kind: u8,
    role: u8,
    raw: u64,
    enabled: u64,
    checkpoints: u64,
    flags: u8,
}

fn raw_input() -> impl Strategy<Value = RawInput> {
    (
        0u8..32,
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<u64>(),
        // Signals are mostly enabled (75%), checkpoints mostly absent (12.5%).
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| a | b),
        (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(a, b, c)| a & b & c),
        any::<u8>(),
    )
        .prop_map(
            |(phase, tier, kind, role, raw, enabled, checkpoints, flags)| RawInput {
                phase,
                tier,
                kind,
                role,
                raw,
                enabled,
                checkpoints,
                flags,
            },
        )
}

/// The owned buffers of one concrete input.
struct Concrete {
    phase: Phase,
    tier: Option<u8>,
    kind: Option<u8>,
    role: Option<RoleId>,
    raw: Vec<bool>,
    enabled: Vec<bool>,
    checkpoints: Vec<bool>,
    backstop: bool,
    timeout: bool,
    region_timeouts: Vec<bool>,
    rearm_secs_ok: bool,
    approved: bool,
}

impl Concrete {
    fn new(spec: &Spec, r: &RawInput) -> Concrete {
        // Half of all events are pre-tool actions, a quarter post-tool, the rest any phase.
        let phase = match r.phase {
            0..=15 => Phase::PreTool,
            16..=23 => Phase::PostTool,
            p => Phase::ALL[(p as usize) % Phase::ALL.len()],
        };
        let tool = phase.is_tool();
        let bits = |v: u64, n: usize| (0..n).map(|i| v >> (i % 64) & 1 == 1).collect::<Vec<_>>();
        let nroles = spec.roles.len() + 1;
        let role = match r.role as usize % nroles {
            0 => None,
            i => Some((i - 1) as RoleId),
        };
        Concrete {
            phase,
            tier: tool.then_some(r.tier % spec.tiers.len() as u8),
            kind: tool.then_some(r.kind % spec.kinds.len() as u8),
            role,
            raw: bits(r.raw, spec.signals.len()),
            enabled: bits(r.enabled, spec.signals.len()),
            checkpoints: bits(r.checkpoints, spec.checkpoints.len()),
            backstop: r.flags & 1 == 1,
            timeout: r.flags & 32 == 32,
            // Each region's timer, from bits of the raw samples no signal reads together.
            region_timeouts: bits(r.raw.rotate_left(29), spec.regions.len()),
            rearm_secs_ok: r.flags & 6 != 0,
            approved: r.flags & 24 == 24,
        }
    }

    fn input(&self) -> Input<'_> {
        Input {
            phase: self.phase,
            tier: self.tier,
            kind: self.kind,
            role: self.role,
            raw: &self.raw,
            enabled: &self.enabled,
            checkpoints: &self.checkpoints,
            backstop: self.backstop,
            timeout: self.timeout,
            region_timeouts: &self.region_timeouts,
            rearm_secs_ok: self.rearm_secs_ok,
            approved: self.approved,
        }
    }
}

fn step(machine: &dyn Machine, snap: &mut Snapshot, input: &Input<'_>) -> Vec<u16> {
    let mut fired = Vec::new();
    machine.step(snap, input, &mut |t| fired.push(t));
    fired
}

const PROMPTS: &[&str] = &[
    "go on",
    "waypoints start",
    "waypoints next",
    "requirements confirmed",
    "stop waypoints",
];

/// One generated event in primitive form.
#[derive(Clone, Debug)]
struct RawEvent {
    phase: u8,
    tool: u8,
    fail: bool,
    runtime: u8,
    agent: u8,
    role: u8,
    dt_ms: u32,
    approved: bool,
}

fn raw_event() -> impl Strategy<Value = RawEvent> {
    (
        0u8..40,
        any::<u8>(),
        proptest::bool::weighted(0.3),
        0u8..8,
        0u8..8,
        any::<u8>(),
        prop_oneof![0u32..3_000, 0u32..60_000, 0u32..2_000_000],
        proptest::bool::weighted(0.1),
    )
        .prop_map(
            |(phase, tool, fail, runtime, agent, role, dt_ms, approved)| RawEvent {
                phase,
                tool,
                fail,
                runtime,
                agent,
                role,
                dt_ms,
                approved,
            },
        )
}

/// The concrete event of a raw one; `last_tool` keeps post-tool events on the last call.
fn make_event(r: &RawEvent, now_ms: i64, last_tool: &mut usize) -> Event {
    let phase = match r.phase {
        0..=17 => Phase::PreTool,
        18..=27 => Phase::PostTool,
        28 => Phase::PostToolFailure,
        29..=31 => Phase::Prompt,
        p => Phase::ALL[(p as usize * 7) % Phase::ALL.len()],
    };
    let runtime = match r.runtime {
        0..=4 => Runtime::ClaudeCode,
        5 => Runtime::Codex,
        6 => Runtime::Gemini,
        _ => Runtime::Copilot,
    };
    let mut e = Event {
        runtime: Some(runtime),
        phase: Some(phase),
        hook_event: phase.as_str().to_string(),
        timestamp_ms: Some(now_ms),
        session_id: Some("session-1".to_string()),
        cwd: Some("/repo".to_string()),
        ..Event::default()
    };
    if r.agent == 7 {
        e.agent_id = Some("agent-1".to_string());
        e.agent_type = Some("general-purpose".to_string());
    }
    if phase.is_tool() {
        if phase == Phase::PreTool {
            *last_tool = r.tool as usize % TOOLS.len();
        }
        set_call(&mut e, TOOLS[*last_tool]);
        e.status = status_in(phase, r.fail);
    }
    if phase == Phase::Prompt {
        e.prompt = Some(PROMPTS[r.tool as usize % PROMPTS.len()].to_string());
    }
    e
}

/// A trace of concrete events with their times.
fn events(raw: &[RawEvent]) -> Vec<(Event, i64, bool, u8)> {
    let mut now = 1_700_000_000_000i64;
    let mut last = 0usize;
    raw.iter()
        .map(|r| {
            now += i64::from(r.dt_ms);
            let e = make_event(r, now, &mut last);
            let approved = r.approved && e.phase == Some(Phase::PreTool);
            (e, now, approved, r.role)
        })
        .collect()
}

fn role_of(spec: &Spec, r: u8) -> Option<RoleId> {
    match r as usize % (spec.roles.len() + 1) {
        0 => None,
        i => Some((i - 1) as RoleId),
    }
}

fn all_specs() -> &'static [&'static CompiledSpec] {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    gate_specs::ALL
}

// ------------------------------------------------------------------------------------------
// 1. Differential: the compiled machine and the interpreter agree.

#[test]
fn differential_machine_level() {
    let mut runner = TestRunner::new(config(MACHINE_CASES));
    runner
        .run(&proptest::collection::vec(raw_input(), 1..80), |trace| {
            for compiled in all_specs() {
                let spec = compiled.ir();
                let interp = Interpreter::new(spec);
                let mut a = compiled.machine.initial();
                let mut b = interp.initial();
                prop_assert_eq!(&a, &b);
                for (i, r) in trace.iter().enumerate() {
                    let c = Concrete::new(spec, r);
                    let fa = step(compiled.machine, &mut a, &c.input());
                    let fb = step(&interp, &mut b, &c.input());
                    prop_assert_eq!(&fa, &fb, "{}: fired differs at step {}", spec.name, i);
                    prop_assert_eq!(&a, &b, "{}: snapshot differs at step {}", spec.name, i);
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn differential_engine_level() {
    let mut runner = TestRunner::new(config(ENGINE_CASES));
    runner
        .run(&proptest::collection::vec(raw_event(), 1..40), |raw| {
            let trace = events(&raw);
            for compiled in all_specs() {
                let spec = compiled.ir();
                let interp = Interpreter::new(spec);
                let ea = Engine::new(spec, compiled.machine);
                let eb = Engine::new(spec, &interp);
                let mut sa = ScopeState::initial(spec, compiled.machine);
                let mut sb = ScopeState::initial(spec, &interp);
                for (i, (e, now, approved, r)) in trace.iter().enumerate() {
                    let role = role_of(spec, *r);
                    let oa = evaluate(&ea, &mut sa, e, *now, role, *approved);
                    let ob = evaluate(&eb, &mut sb, e, *now, role, *approved);
                    prop_assert_eq!(&oa.decision, &ob.decision, "{}: step {}", spec.name, i);
                    prop_assert_eq!(&oa.fired, &ob.fired, "{}: step {}", spec.name, i);
                    prop_assert_eq!(&oa.proposed, &ob.proposed, "{}: step {}", spec.name, i);
                    prop_assert_eq!(&sa, &sb, "{}: state differs at step {}", spec.name, i);
                }
            }
            Ok(())
        })
        .unwrap();
}

// ------------------------------------------------------------------------------------------
// 2. Anti-flap: hysteresis and the re-arm floor.

#[test]
fn anti_flap_machine_level() {
    let mut runner = TestRunner::new(config(MACHINE_CASES));
    // Runs of equal raw samples make the debouncers actually cross their thresholds.
    let trace = proptest::collection::vec((raw_input(), 1usize..6), 1..40);
    runner
        .run(&trace, |runs| {
            for compiled in all_specs() {
                let spec = compiled.ir();
                let min = spec.rearm.min_actions;
                let n = spec.signals.len();
                let mut snap = compiled.machine.initial();
                // Oracle per signal: level and the run of opposite samples since the last edge.
                let mut olevel = vec![false; n];
                let mut orun = vec![0u16; n];
                let mut pre_since_arm: Option<u32> = None;
                for (r, repeat) in &runs {
                    for _ in 0..*repeat {
                        let c = Concrete::new(spec, r);
                        let before = snap.clone();
                        let fired = step(compiled.machine, &mut snap, &c.input());
                        let (rising, falling) = gate_spec::exec::edges(&before, &snap);
                        for (s, sig) in spec.signals.iter().enumerate() {
                            let (mut rose, mut fell) = (false, false);
                            if c.enabled[s] && sig.samples.contains(&c.phase) {
                                if c.raw[s] != olevel[s] {
                                    orun[s] += 1;
                                } else {
                                    orun[s] = 0;
                                }
                                let need = if olevel[s] { sig.exit } else { sig.enter };
                                if orun[s] >= need {
                                    rose = !olevel[s];
                                    fell = olevel[s];
                                    olevel[s] = !olevel[s];
                                    orun[s] = 0;
                                }
                            }
                            let sid = s as u8;
                            prop_assert_eq!(
                                rising.contains(&sid),
                                rose,
                                "{}: rise of {}",
                                spec.name,
                                &sig.name
                            );
                            prop_assert_eq!(
                                falling.contains(&sid),
                                fell,
                                "{}: fall of {}",
                                spec.name,
                                &sig.name
                            );
                            let on = fired.iter().any(|t| {
                                spec.transitions[*t as usize].trigger == Trigger::Signal(sid)
                            });
                            let off = fired.iter().any(|t| {
                                spec.transitions[*t as usize].trigger == Trigger::Clear(sid)
                            });
                            prop_assert!(
                                !(on && off),
                                "{}: {} on and off in one event",
                                spec.name,
                                &sig.name
                            );
                            prop_assert!(!on || rose);
                            prop_assert!(!off || fell);
                            let held = fired.iter().any(|t| {
                                spec.transitions[*t as usize].trigger == Trigger::While(sid)
                            });
                            prop_assert!(
                                !held
                                    || (olevel[s]
                                        && c.enabled[s]
                                        && sig.samples.contains(&c.phase)),
                                "{}: while:{} fired with the signal off",
                                spec.name,
                                &sig.name
                            );
                        }
                        if c.phase == Phase::PreTool {
                            pre_since_arm = pre_since_arm.map(|k| k + 1);
                        }
                        let arm_count = fired.iter().filter(|t| arms(spec, **t)).count();
                        prop_assert!(arm_count <= 1, "{}: two arms in one event", spec.name);
                        if arm_count == 1 {
                            prop_assert!(
                                c.rearm_secs_ok,
                                "{}: arm with the seconds floor unmet",
                                spec.name
                            );
                            if let Some(k) = pre_since_arm {
                                prop_assert!(
                                    k >= u32::from(min),
                                    "{}: arms {} pre-tool events apart (floor {})",
                                    spec.name,
                                    k,
                                    min
                                );
                            }
                            pre_since_arm = Some(0);
                        }
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn anti_flap_rearm_seconds_engine_level() {
    let mut runner = TestRunner::new(config(ENGINE_CASES));
    runner
        .run(&proptest::collection::vec(raw_event(), 1..50), |raw| {
            let trace = events(&raw);
            for compiled in all_specs() {
                let spec = compiled.ir();
                let engine = Engine::new(spec, compiled.machine);
                let mut state = ScopeState::initial(spec, compiled.machine);
                let mut last_arm: Option<i64> = None;
                for (e, now, approved, r) in &trace {
                    let o = evaluate(&engine, &mut state, e, *now, role_of(spec, *r), *approved);
                    if o.fired.iter().any(|t| arms(spec, *t)) {
                        if let Some(t) = last_arm {
                            prop_assert!(
                                now - t >= i64::from(spec.rearm.min_secs) * 1000,
                                "{}: arms {} ms apart (floor {} s)",
                                spec.name,
                                now - t,
                                spec.rearm.min_secs
                            );
                        }
                    }
                    if o.armed {
                        last_arm = Some(*now);
                    }
                    if o.armed {
                        prop_assert_eq!(state.observer.last_arm_ms, Some(*now));
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}

// ------------------------------------------------------------------------------------------
// 3. A window licenses nothing.

#[test]
fn window_licenses_nothing_statically() {
    for compiled in all_specs() {
        let spec = compiled.ir();
        for s in &spec.states {
            assert!(
                !(s.window && s.withhold.is_some()),
                "{}: window state {} withholds",
                spec.name,
                s.name
            );
        }
        for (i, t) in spec.transitions.iter().enumerate() {
            let into_window =
                spec.states[t.to as usize].window && !spec.states[t.from as usize].window;
            let arms = t.effects.iter().any(|e| matches!(e, Effect::Arm));
            let blocks = t.effects.iter().any(|e| e.block().is_some());
            assert!(
                !((into_window || arms) && blocks),
                "{}: transition {i} opens a window and blocks",
                spec.name
            );
        }
    }
}

/// How often the window property's premise held (the property must not be vacuous).
static WINDOW_CHECKS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn window_licenses_nothing_engine_level() {
    let mut runner = TestRunner::new(config(ENGINE_CASES));
    runner
        .run(&proptest::collection::vec(raw_event(), 1..30), |raw| {
            let trace = events(&raw);
            for compiled in all_specs() {
                let spec = compiled.ir();
                let engine = Engine::new(spec, compiled.machine);
                let closed = closed_states(spec);
                let windows: Vec<StateId> = (0..spec.states.len() as StateId)
                    .filter(|s| spec.states[*s as usize].window)
                    .collect();
                let mut state = ScopeState::initial(spec, compiled.machine);
                for (e, now, approved, r) in &trace {
                    let role = role_of(spec, *r);
                    if e.phase == Some(Phase::PreTool) && !closed.is_empty() && !windows.is_empty()
                    {
                        let verdict_from = |control: StateId, open: bool| {
                            let mut s = state.clone();
                            s.machine.state = control;
                            s.observer.window_open = open;
                            let o = evaluate(&engine, &mut s, e, *now, role, false);
                            (o.proposed.blocks(), o.decision.verdict.blocks())
                        };
                        let closed_verdicts: Vec<(bool, bool)> =
                            closed.iter().map(|c| verdict_from(*c, false)).collect();
                        if closed_verdicts.iter().all(|v| v.0) {
                            WINDOW_CHECKS.fetch_add(1, Ordering::Relaxed);
                            for w in &windows {
                                let (proposed, decided) = verdict_from(*w, true);
                                prop_assert!(
                                    proposed,
                                    "{}: a window licensed {:?}",
                                    spec.name,
                                    e.target
                                );
                                if closed_verdicts.iter().all(|v| v.1) {
                                    prop_assert!(
                                        decided,
                                        "{}: a window licensed {:?}",
                                        spec.name,
                                        e.target
                                    );
                                }
                            }
                        }
                    }
                    evaluate(&engine, &mut state, e, *now, role, *approved);
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(
        WINDOW_CHECKS.load(Ordering::Relaxed) > 0,
        "no trace ever blocked from every closed state"
    );
}

// ------------------------------------------------------------------------------------------
// 5. Fail-open under injected store faults.

#[derive(Clone, Copy, Debug)]
enum Fault {
    /// The database directory cannot exist (a file is in its way).
    DirMissing,
    /// The directory is read-only.
    ReadOnlyDir,
    /// The database file is garbage.
    Corrupt,
    /// A newer gate wrote the database.
    FutureVersion,
    /// The key file cannot be read as a key.
    KeyUnreadable,
    /// Another connection holds the write lock past the busy timeout.
    Locked,
}

const FAULTS: [Fault; 6] = [
    Fault::DirMissing,
    Fault::ReadOnlyDir,
    Fault::Corrupt,
    Fault::FutureVersion,
    Fault::KeyUnreadable,
    Fault::Locked,
];

fn run_at(engine: &Engine<'_>, event: &Event, db: &Path, now_ms: i64) -> driver::RunResult {
    driver::run(
        engine,
        event,
        &Options {
            busy_timeout: Duration::from_millis(40),
            ..persisting(db, now_ms)
        },
    )
}

fn remove_wal(db: &Path) {
    for ext in ["db-wal", "db-shm"] {
        let _ = std::fs::remove_file(db.with_extension(ext));
    }
}

/// Whether the current user is stopped by directory permissions (root is not).
fn permissions_bind(dir: &Path) -> bool {
    let probe = dir.join("probe");
    let ok = std::fs::write(&probe, b"x").is_err();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// Injects a fault; returns the database path to use and what must be undone afterwards.
fn inject(fault: Fault, dir: &Path, db: &Path) -> (PathBuf, Option<rusqlite::Connection>) {
    use std::os::unix::fs::PermissionsExt;
    match fault {
        Fault::DirMissing => {
            let blocker = dir.join("blocker");
            std::fs::write(&blocker, b"not a directory").unwrap();
            (blocker.join("gate.db"), None)
        }
        Fault::ReadOnlyDir => {
            let ro = dir.join("ro");
            std::fs::create_dir_all(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
            if permissions_bind(&ro) {
                (ro.join("gate.db"), None)
            } else {
                // Running as root: permission bits do not stop us; a directory of the
                // process file system is read-only for everyone.
                (PathBuf::from("/proc/self/gate.db"), None)
            }
        }
        Fault::Corrupt => {
            remove_wal(db);
            std::fs::write(db, vec![0x5a; 8192]).unwrap();
            (db.to_path_buf(), None)
        }
        Fault::FutureVersion => {
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.pragma_update(None, "user_version", 9999).unwrap();
            drop(conn);
            (db.to_path_buf(), None)
        }
        Fault::KeyUnreadable => {
            std::fs::write(key_path(db), b"short").unwrap();
            (db.to_path_buf(), None)
        }
        Fault::Locked => {
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
            (db.to_path_buf(), Some(conn))
        }
    }
}

fn check_degraded(spec: &Spec, fault: Fault, r: &driver::RunResult) -> Result<(), TestCaseError> {
    prop_assert!(r.degraded, "{}: {:?} did not degrade", spec.name, fault);
    prop_assert!(
        !r.faults.is_empty(),
        "{}: {:?} reported no fault",
        spec.name,
        fault
    );
    let tier = &spec.tiers[r.outcome.classification.tier as usize];
    match &r.decision.verdict {
        Verdict::Allow => prop_assert!(r.decision.carried.is_none()),
        Verdict::Deny { .. } | Verdict::Ask { .. } => {
            // Only a block the rules alone decide is kept: the fresh-state evaluation
            // (no stored state, no grant) blocks it too, and the tier withholds; or the
            // engine's own deny of a catastrophic target, which no state can lift either.
            let effects = &r.outcome.classification.effects;
            let built_in = matches!(r.decision.verdict, Verdict::Deny { .. })
                && gate_runtime::effects::catastrophic(effects).is_some();
            prop_assert!(
                built_in || (r.outcome.decision.verdict.blocks() && r.outcome.proposed.blocks()),
                "{}: a degraded block the rules alone do not decide",
                spec.name
            );
            if matches!(r.decision.verdict, Verdict::Ask { .. }) {
                // A fail-closed tier's ask cannot be approved without the store: a deny.
                prop_assert_ne!(tier.fail, FailPolicy::Closed, "{}", spec.name);
            }
        }
        other => prop_assert!(false, "{}: degraded answer {:?}", spec.name, other),
    }
    Ok(())
}

#[test]
fn fail_open_under_store_faults() {
    let mut runner = TestRunner::new(config(DRIVER_CASES));
    let strategy = (
        proptest::collection::vec(raw_event(), 1..8),
        any::<prop::sample::Index>(),
        0usize..FAULTS.len(),
        any::<prop::sample::Index>(),
    );
    runner
        .run(&strategy, |(raw, at, fault, which)| {
            let specs = all_specs();
            let compiled = specs[which.index(specs.len())];
            let spec = compiled.ir();
            let fault = FAULTS[fault];
            let engine = Engine::new(spec, compiled.machine);
            let trace = events(&raw);
            let at = at.index(trace.len());
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("gate.db");
            for (e, now, _, _) in &trace[..at] {
                let r = run_at(&engine, e, &db, *now);
                prop_assert!(!r.degraded, "healthy store degraded: {:?}", r.faults);
            }
            if !db.exists() {
                // Faults on an existing database need one.
                Store::open(&db).unwrap();
            }
            let (path, lock) = inject(fault, dir.path(), &db);
            let (e, now, _, _) = &trace[at];
            let r = run_at(&engine, e, &path, *now);
            drop(lock);
            check_degraded(spec, fault, &r)?;
            // The degraded answer is what `degrade` makes of a fresh-state evaluation.
            let mut fresh = ScopeState::initial(spec, compiled.machine);
            let role = engine.resolve_role(e, &|_| None, None);
            let o = evaluate(&engine, &mut fresh, e, *now, role, false);
            // (Grant ids differ: the driver's placeholder, this evaluation's minter.)
            let want = driver::degrade(spec, &o);
            prop_assert_eq!(r.decision.verdict.name(), want.verdict.name());
            prop_assert_eq!(&r.decision.carried, &want.carried);
            Ok(())
        })
        .unwrap();
}

#[test]
fn fail_open_every_fault_kind_every_spec() {
    // A fixed trace whose last action is one a spec would withhold (protected/destructive).
    let trace = [
        ("Edit", "/repo/src/a.rs"),
        ("Bash", "cargo build"),
        ("Bash", "npm publish"),
    ];
    let mut kept = 0;
    for compiled in all_specs() {
        let spec = compiled.ir();
        let engine = Engine::new(spec, compiled.machine);
        for fault in FAULTS {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("gate.db");
            let mut now = 1_700_000_000_000i64;
            let mut last = None;
            for (i, (tool, target)) in trace.iter().enumerate() {
                now += 1000;
                let e = Event {
                    runtime: Some(Runtime::ClaudeCode),
                    phase: Some(Phase::PreTool),
                    hook_event: "PreToolUse".to_string(),
                    tool: Some(tool.to_string()),
                    class: Some(if *tool == "Edit" {
                        ActionClass::Write
                    } else {
                        ActionClass::Exec
                    }),
                    target: Some(target.to_string()),
                    paths: if target.starts_with('/') {
                        vec![target.to_string()]
                    } else {
                        vec![]
                    },
                    timestamp_ms: Some(now),
                    session_id: Some("s".to_string()),
                    cwd: Some("/repo".to_string()),
                    ..Event::default()
                };
                if i + 1 < trace.len() {
                    assert!(!run_at(&engine, &e, &db, now).degraded);
                } else {
                    let (path, lock) = inject(fault, dir.path(), &db);
                    let r = run_at(&engine, &e, &path, now);
                    drop(lock);
                    last = Some(r);
                }
            }
            let r = last.unwrap();
            check_degraded(spec, fault, &r).unwrap_or_else(|e| panic!("{e}"));
            if r.decision.verdict.blocks() {
                kept += 1;
            }
        }
    }
    assert!(kept > 0, "no degraded answer kept a rule's block");
    // Not vacuous: degraded answers kept blocks the rules alone decide (and, checked above,
    // none that they do not).
}

// ------------------------------------------------------------------------------------------
// 6. Determinism: same trace, same verdicts and the same audit.

/// Grant ids are random by design: each run's ids, to be replaced by their order of minting.
fn normalise(text: &str, grants: &[String]) -> String {
    let mut out = text.to_string();
    for (i, g) in grants.iter().enumerate() {
        out = out.replace(g.as_str(), &format!("<grant {i}>"));
    }
    out
}

/// One run of a trace: its normalised verdicts, audit rows (JSON) and audit macs.
type Twin = (Vec<String>, Vec<String>, Vec<String>);

/// Runs a trace through the driver on two databases sharing one key; returns both runs.
fn twin_runs(
    compiled: &CompiledSpec,
    trace: &[(Event, i64, bool, u8)],
) -> Result<(Twin, Twin), TestCaseError> {
    let spec = compiled.ir();
    let engine = Engine::new(spec, compiled.machine);
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a").join("gate.db");
    let b = dir.path().join("b").join("gate.db");
    drop(Store::open(&a).unwrap());
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    std::fs::copy(key_path(&a), key_path(&b)).unwrap();
    let mut runs: Vec<Twin> = Vec::new();
    for db in [&a, &b] {
        let mut grants = Vec::new();
        let mut verdicts = Vec::new();
        for (e, now, _, _) in trace {
            let r = run_at(&engine, e, db, *now);
            prop_assert!(!r.degraded, "{:?}", r.faults);
            if let Some(g) = &r.outcome.grant_id {
                grants.push(g.clone());
            }
            verdicts.push(format!("{:?} fired {:?}", r.decision, r.outcome.fired));
        }
        let rows = Store::open(db)
            .unwrap()
            .audit_rows(&AuditFilter::default())
            .unwrap();
        let macs = rows.iter().map(|r| r.mac.clone()).collect();
        let rows = rows
            .into_iter()
            .map(|r| {
                // Everything but the measured latency (the macs cover it, see below).
                let mut rec = r.record;
                rec.latency_us = None;
                format!("{} {}", r.seq, serde_json::to_string(&rec).unwrap())
            })
            .collect::<Vec<_>>();
        let verdicts = verdicts.iter().map(|v| normalise(v, &grants)).collect();
        let rows = rows.iter().map(|v| normalise(v, &grants)).collect();
        runs.push((verdicts, rows, macs));
    }
    let b = runs.pop().unwrap();
    let a = runs.pop().unwrap();
    Ok((a, b))
}

#[test]
fn deterministic_verdicts_and_audit() {
    let mut runner = TestRunner::new(config(DRIVER_CASES));
    let strategy = (
        proptest::collection::vec(raw_event(), 1..10),
        any::<prop::sample::Index>(),
    );
    runner
        .run(&strategy, |(raw, which)| {
            let specs = all_specs();
            let compiled = specs[which.index(specs.len())];
            let (a, b) = twin_runs(compiled, &events(&raw))?;
            prop_assert_eq!(&a.0, &b.0, "{}: verdicts differ", compiled.name);
            prop_assert!(!a.1.is_empty());
            prop_assert_eq!(&a.1, &b.1, "{}: audit rows differ", compiled.name);
            Ok(())
        })
        .unwrap();
}

/// The audit chain's MACs are identical for identical traces under the same key: latency
/// (a wall-clock measurement) stays outside the chained fields and grant ids are derived from
/// the key, the action and its time.
#[test]
fn deterministic_audit_macs() {
    let mut runner = TestRunner::new(config(DRIVER_CASES));
    runner
        .run(&proptest::collection::vec(raw_event(), 1..6), |raw| {
            for compiled in all_specs() {
                let (a, b) = twin_runs(compiled, &events(&raw))?;
                prop_assert_eq!(&a.2, &b.2, "{}: audit macs differ", compiled.name);
            }
            Ok(())
        })
        .unwrap();
}
