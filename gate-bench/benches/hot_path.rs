//! In-process benchmarks of the hook's hot path, innermost first: one machine step of a
//! generated machine, the classifier on the recorded payloads, the whole engine in memory,
//! replay through observer and machine, replay through the store in batch transactions, and
//! one store commit through the driver.
//!
//! Run with `cargo bench -p gate-bench` (a few seconds per benchmark; divan prints
//! items/s where a counter is set). Machine steps and evaluations use the compiled `default`
//! spec from `gate_specs::ALL`; the classifier is also measured on the shipped guard against
//! guards grown to 1,000 and 5,000 command patterns (interpreted IR, same classifier code).

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use gate_bench::{compile, guard_source, guard_with_patterns, workload_events};
use gate_runtime::driver::{self, Options};
use gate_runtime::engine::{Context, Engine, ScopeState};
use gate_runtime::event::Event;
use gate_runtime::observer::{Baselines, Classifier};
use gate_runtime::replay::{Replayer, StoreReplayer};
use gate_runtime::store::Store;
use gate_spec::exec::{CompiledSpec, Input};
use gate_spec::ir::{Phase, Spec};
use std::time::Duration;

fn main() {
    divan::main();
}

fn default_spec() -> &'static CompiledSpec {
    gate_specs::ALL
        .iter()
        .find(|s| s.name == "default")
        .expect("the default spec is compiled in")
}

/// Owned buffers behind a cycle of machine inputs.
struct Inputs {
    phases: Vec<(Phase, Option<u8>, Option<u8>, bool)>,
    raw: Vec<Vec<bool>>,
    enabled: Vec<bool>,
    checkpoints: Vec<Vec<bool>>,
}

/// 64 varied inputs: every phase that matters, tiers and kinds cycling, signal samples and
/// checkpoint evidence in a fixed pseudo-random pattern (xorshift), so transitions fire.
fn inputs(spec: &Spec) -> Inputs {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let phases_of = [
        Phase::PreTool,
        Phase::PostTool,
        Phase::PreTool,
        Phase::PostToolFailure,
        Phase::Prompt,
        Phase::PreTool,
        Phase::Stop,
        Phase::SessionStart,
    ];
    let mut out = Inputs {
        phases: Vec::new(),
        raw: Vec::new(),
        enabled: vec![true; spec.signals.len()],
        checkpoints: Vec::new(),
    };
    for i in 0..64usize {
        let phase = phases_of[i % phases_of.len()];
        let tool = phase.is_tool();
        let tier = tool.then(|| (next() % spec.tiers.len() as u64) as u8);
        let kind = tool.then(|| (next() % spec.kinds.len() as u64) as u8);
        out.phases
            .push((phase, tier, kind, next().is_multiple_of(16)));
        out.raw.push(
            (0..spec.signals.len())
                .map(|_| next().is_multiple_of(3))
                .collect(),
        );
        out.checkpoints.push(
            (0..spec.checkpoints.len())
                .map(|_| next().is_multiple_of(8))
                .collect(),
        );
    }
    out
}

impl Inputs {
    fn get(&self, i: usize) -> Input<'_> {
        let (phase, tier, kind, backstop) = self.phases[i];
        Input {
            phase,
            tier,
            kind,
            role: None,
            raw: &self.raw[i],
            enabled: &self.enabled,
            checkpoints: &self.checkpoints[i],
            backstop,
            timeout: false,
            region_timeouts: &[],
            rearm_secs_ok: !i.is_multiple_of(3),
            approved: i.is_multiple_of(11),
        }
    }
}

/// One step of the generated `default` machine; 1,024 steps per iteration.
#[divan::bench]
fn machine_step(bencher: Bencher) {
    let compiled = default_spec();
    let spec = compiled.ir();
    let machine = compiled.machine;
    let inputs = inputs(spec);
    let inputs: Vec<Input<'_>> = (0..64).map(|i| inputs.get(i)).collect();
    let mut memory = machine.initial();
    bencher.counter(ItemsCount::new(1024usize)).bench_local(|| {
        let mut fired = 0u32;
        for i in 0..1024 {
            machine.step(&mut memory, &inputs[i & 63], &mut |_| fired += 1);
        }
        black_box(fired)
    });
}

/// Parse the embedded IR JSON of the `default` spec (what every hook process pays once).
#[divan::bench]
fn ir_json_parse() -> Spec {
    serde_json::from_str(black_box(default_spec().ir_json)).expect("the embedded IR parses")
}

/// Build the IR of the `default` spec from the generated literals (what every hook process
/// pays once).
#[divan::bench]
fn ir_build() -> Spec {
    (black_box(default_spec().build_ir))()
}

/// Build the classifier (parses every command pattern once per process).
#[divan::bench]
fn classifier_new(bencher: Bencher) {
    let spec = default_spec().ir();
    bencher.bench_local(|| Classifier::new(black_box(spec)));
}

/// Classification of the workload commands and every recorded Claude Code payload.
#[divan::bench]
fn classify_default(bencher: Bencher) {
    let spec = default_spec().ir();
    let classifier = Classifier::new(spec);
    let events = workload_events().expect("fixtures load");
    bencher
        .counter(ItemsCount::new(events.len()))
        .bench_local(|| {
            for e in &events {
                black_box(classifier.classify(e));
            }
        });
}

/// The classifier of the guard spec as shipped and grown to 1,000 and 5,000 command
/// patterns (same workload).
#[divan::bench(args = [0, 1000, 5000])]
fn classify_guard_patterns(bencher: Bencher, patterns: usize) {
    let source = if patterns == 0 {
        guard_source().expect("specs/guard.toml")
    } else {
        guard_with_patterns(patterns).expect("grown guard")
    };
    let spec = compile(&source).expect("guard compiles");
    let classifier = Classifier::new(&spec);
    let events = workload_events().expect("fixtures load");
    bencher
        .counter(ItemsCount::new(events.len()))
        .bench_local(|| {
            for e in &events {
                black_box(classifier.classify(e));
            }
        });
}

/// `Engine::evaluate`: observer, machine, verdict, templates, notes; fresh state each time.
#[divan::bench]
fn evaluate_fresh(bencher: Bencher) {
    let compiled = default_spec();
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let events = workload_events().expect("fixtures load");
    let baselines: Baselines = vec![None; engine.spec.kinds.len()];
    bencher
        .counter(ItemsCount::new(events.len()))
        .bench_local(|| {
            for (i, e) in events.iter().enumerate() {
                let mut state = ScopeState::initial(engine.spec, engine.machine);
                let mut mint = || "g".to_string();
                let mut cx = Context {
                    now_ms: 1_700_000_000_000 + i as i64 * 1000,
                    role: None,
                    approved: false,
                    baselines: &baselines,
                    grant_id: &mut mint,
                };
                black_box(engine.evaluate(&mut state, e, &mut cx));
            }
        });
}

/// Replay through observer and machine with state carried between events (no store).
#[divan::bench]
fn replay_in_memory(bencher: Bencher) {
    let compiled = default_spec();
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let events = workload_events().expect("fixtures load");
    let mut replayer = Replayer::new(&engine);
    let mut now = 1_700_000_000_000i64;
    bencher
        .counter(ItemsCount::new(events.len()))
        .bench_local(|| {
            for e in &events {
                now += 1500;
                black_box(replayer.feed(e, now, None));
            }
        });
}

/// Replay through the store (`gate replay --db`): one `StoreReplayer` batch of 4,096 events
/// per iteration — one transaction, states cached per scope, audit rows appended in groups —
/// into a temporary database that exists (shared with hooks: WAL, questions answered by the
/// writer) and keeps growing, a new session every 512 events.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn replay_store(bencher: Bencher) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("gate.db")).expect("store opens");
    replay_into(bencher, store);
}

/// [`replay_store`] into a new database, as `gate replay --db` builds one that does not exist
/// yet: aside, without a WAL, the evaluating side answering its own questions
/// (`Store::create_staged`).
#[divan::bench(sample_count = 20, sample_size = 1)]
fn replay_store_new(bencher: Bencher) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, _staged) =
        Store::create_staged(&dir.path().join("gate.db"), Duration::ZERO).expect("store opens");
    replay_into(bencher, store);
}

/// Batches of 4,096 workload events into `store`, a new session every 512 events.
fn replay_into(bencher: Bencher, store: Store) {
    const BATCH: usize = 4096;
    let compiled = default_spec();
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let events = workload_events().expect("fixtures load");
    let mut replayer = StoreReplayer::new(&engine, store, BATCH, None).expect("writer starts");
    let mut now = 1_700_000_000_000i64;
    let mut n = 0usize;
    bencher.counter(ItemsCount::new(BATCH)).bench_local(|| {
        for _ in 0..BATCH {
            let mut e = events[n % events.len()].clone();
            e.session_id = Some(format!("bench-{}", n / 512));
            n += 1;
            now += 1500;
            replayer.feed(e, now).expect("batch commits");
        }
        black_box(replayer.stored())
    });
}

/// One hook's store work through `driver::run`: open the database, load state, consume a
/// grant, evaluate, append audit rows, save state, commit (a temp database, WAL).
#[divan::bench(sample_count = 30, sample_size = 10)]
fn driver_commit(bencher: Bencher) {
    let compiled = default_spec();
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let events = workload_events().expect("fixtures load");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("gate.db");
    let no_env = |_: &str| None;
    let mut i = 0usize;
    bencher.bench_local(|| {
        i += 1;
        let event: &Event = &events[i % events.len()];
        let opts = Options {
            db_path: Some(db.clone()),
            role: None,
            env: &no_env,
            now_ms: 1_700_000_000_000 + i as i64 * 1000,
            persist: true,
            busy_timeout: driver::BUSY_TIMEOUT,
            defer_checkpoint: false,
            exits_after: false,
            fail_closed: &[],
            stateful_fail_closed_after: 0,
        };
        let result = driver::run(&engine, event, &opts);
        assert!(!result.degraded, "store fault: {:?}", result.faults);
        black_box(result)
    });
}
