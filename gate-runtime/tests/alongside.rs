//! Machines side by side (`[machine] alongside`) through the hook's own path (`driver::run`
//! against a database): each machine's state stored apart under its own spec name, an audit
//! row per machine, the strictest answer for every pair of answers, a grant that lifts one
//! machine's ask but not the other's deny, the degraded path, and a stored replay that writes
//! what per-event hooks write.

mod common;

use common::specs::{compile, shipped};
use common::store::{no_env, persisting};
use gate_runtime::driver::{self, Batch};
use gate_runtime::engine::Engine;
use gate_runtime::event::{Event, Runtime};
use gate_runtime::interp::Interpreter;
use gate_runtime::store::{AuditFilter, AuditKind, Store};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Phase, Spec};
use std::path::Path;

const T0: i64 = 1_767_225_600_000;

/// `default_trust` as the binary builds it: default's own machine, trust_levels beside it.
fn default_trust() -> Engine<'static> {
    let own = shipped("default_trust");
    assert_eq!(
        own.ir().alongside,
        ["trust_levels"],
        "the shipped composition"
    );
    beside_default("trust_levels")
}

/// default_trust's own machine with the machine of spec `name` beside it. Beside `trust`
/// (which denies the guard's destructive actions at every level, having no grants) default's
/// asks meet a deny: the pair the grant and degraded tests need.
fn beside_default(name: &str) -> Engine<'static> {
    let own = shipped("default_trust");
    let other = shipped(name);
    Engine::new(own.ir(), own.machine).with_alongside(vec![Engine::new(other.ir(), other.machine)])
}

fn bash(session: &str, command: &str) -> Event {
    Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(Phase::PreTool),
        hook_event: "PreToolUse".into(),
        tool: Some("Bash".into()),
        class: Some(ActionClass::Exec),
        target: Some(command.into()),
        session_id: Some(session.into()),
        cwd: Some("/home/user/proj".into()),
        ..Event::default()
    }
}

fn run(engine: &Engine<'_>, db: &Path, event: &Event, now_ms: i64) -> driver::RunResult {
    let result = driver::run(engine, event, &persisting(db, now_ms));
    assert!(result.faults.is_empty(), "{:?}", result.faults);
    result
}

#[test]
fn each_machine_keeps_its_own_state_and_audit_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let engine = default_trust();
    let r = run(&engine, &db, &bash("s-1", "ls"), T0);
    assert_eq!(r.decision.verdict, Verdict::Allow);
    assert_eq!(r.outcome.alongside.len(), 1);
    assert_eq!(r.outcome.alongside[0].spec, "trust_levels");
    let store = Store::open(&db).unwrap();
    let scope = driver::scope_key(engine.spec.scope, &bash("s-1", "ls"));
    let own = store.read_state(&scope, "default_trust").unwrap().unwrap();
    let trust = store.read_state(&scope, "trust_levels").unwrap().unwrap();
    assert_eq!(own.spec_hash, engine.spec.hash);
    assert_eq!(trust.spec_hash, engine.alongside[0].spec.hash);
    let trust_state: gate_runtime::engine::ScopeState =
        serde_json::from_slice(&trust.blob).unwrap();
    assert_eq!(
        engine.alongside[0]
            .spec
            .state_name(trust_state.machine.state),
        "standard",
        "trust's first action arms its first level"
    );
    let own_state: gate_runtime::engine::ScopeState = serde_json::from_slice(&own.blob).unwrap();
    assert!(
        engine.spec.states[own_state.machine.state as usize].name != "standard",
        "default's machine has no level states"
    );
    // One event row per machine, each under its spec's name, in machine order.
    let events: Vec<String> = store
        .audit_rows(&AuditFilter {
            kind: Some(AuditKind::Event),
            ..AuditFilter::default()
        })
        .unwrap()
        .into_iter()
        .map(|r| r.record.spec)
        .collect();
    assert_eq!(events, ["default_trust", "trust_levels"]);
    assert!(store.verify_chain().unwrap().is_ok());
}

#[test]
fn a_grant_for_one_machines_ask_does_not_lift_the_others_deny() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let engine = beside_default("trust");
    let push = bash("s-2", "git push --force origin main");
    let r = run(&engine, &db, &push, T0);
    // default asks (and mints a grant), trust denies: the deny is the answer.
    let own = r.outcome.proposed.clone();
    assert!(matches!(own, Verdict::Ask { .. }), "{own:?}");
    assert!(matches!(
        r.outcome.alongside[0].outcome.decision.verdict,
        Verdict::Deny { .. }
    ));
    let Verdict::Deny { reason } = &r.decision.verdict else {
        panic!("{:?}", r.decision)
    };
    assert!(reason.contains("trust"), "{reason}");
    // The user approves default's ask; the retry consumes the grant, default no longer asks,
    // and trust's deny stands.
    let mut store = Store::open(&db).unwrap();
    let grant = store.grants(T0, true).unwrap().remove(0);
    store.approve_grant(&grant.id, T0 + 1000).unwrap();
    drop(store);
    let r = run(&engine, &db, &push, T0 + 2000);
    assert!(matches!(r.decision.verdict, Verdict::Deny { .. }), "{r:?}");
    // default's own answer no longer asks: the approval lifted it (default steers on it).
    assert!(
        !matches!(
            r.outcome.proposed,
            Verdict::Ask { .. } | Verdict::Deny { .. }
        ),
        "default's ask was lifted by the grant: {:?}",
        r.outcome.proposed
    );
    assert!(matches!(
        r.outcome.alongside[0].outcome.decision.verdict,
        Verdict::Deny { .. }
    ));
    let store = Store::open(&db).unwrap();
    let used = store.grants(T0 + 2000, false).unwrap();
    assert!(used.iter().all(|g| g.used_ms.is_some()), "{used:?}");
}

/// A one-state spec that answers `verdict` to every action (`allow`, `steer`, `ask`, `deny`).
fn answering(verdict: &str) -> Spec {
    let effect = match verdict {
        "allow" => String::new(),
        v => format!("\"{v}:say\""),
    };
    let text = format!(
        r#"
[machine]
name = "{verdict}s"
initial = "s"
kinds = ["k"]

[[tier]]
name = "t"
mode = "gate"
max_actions = 10

[[state]]
name = "s"

[[transition]]
from = "s"
on = "action"
to = "s"
effects = [{effect}]

[template]
say = "{verdict} from {verdict}s"
"#
    );
    compile(&text)
}

/// Each machine is keyed by its own `scope`: a session-scoped spec beside a
/// session-and-agent-scoped one stores a subagent's event under two different keys.
#[test]
fn each_machine_keeps_its_own_scope() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let own = answering("allow");
    let beside_src = r#"
[machine]
name = "per_agent"
initial = "s"
scope = "session_agent"
kinds = ["k"]

[[tier]]
name = "t"
mode = "gate"
max_actions = 10

[[state]]
name = "s"
"#;
    let beside = compile(beside_src);
    let (i_own, i_beside) = (Interpreter::new(&own), Interpreter::new(&beside));
    let engine = Engine::new(&own, &i_own).with_alongside(vec![Engine::new(&beside, &i_beside)]);
    let mut e = bash("s-8", "make");
    e.agent_id = Some("worker-1".into());
    run(&engine, &db, &e, T0);
    let store = Store::open(&db).unwrap();
    let keys: Vec<(String, String)> = store
        .scopes()
        .unwrap()
        .into_iter()
        .map(|r| (r.scope, r.spec))
        .collect();
    assert_eq!(
        keys,
        [
            ("s-8".to_string(), "allows".to_string()),
            ("s-8:worker-1".to_string(), "per_agent".to_string())
        ]
    );
}

/// Every pair of answers, both ways round, through the hook path: the strictest wins, with
/// the text of the machine that gave it.
#[test]
fn the_strictest_answer_wins_for_every_pair() {
    const ALL: [&str; 4] = ["allow", "steer", "ask", "deny"];
    let specs: Vec<Spec> = ALL.iter().map(|v| answering(v)).collect();
    let interps: Vec<Interpreter<'_>> = specs.iter().map(Interpreter::new).collect();
    for (a, own) in ALL.iter().enumerate() {
        for (b, beside) in ALL.iter().enumerate() {
            // A spec never runs beside itself (G023).
            if a == b {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("gate.db");
            let engine = Engine::new(&specs[a], &interps[a])
                .with_alongside(vec![Engine::new(&specs[b], &interps[b])]);
            let r = run(&engine, &db, &bash("s-3", "make"), T0);
            let want = ALL[a.max(b)];
            assert_eq!(r.decision.verdict.name(), want, "{own} beside {beside}");
            if want != "allow" {
                let text = match &r.decision.verdict {
                    Verdict::Steer { text } => text,
                    Verdict::Ask { reason, .. } | Verdict::Deny { reason } => reason,
                    Verdict::Allow => unreachable!(),
                };
                assert_eq!(
                    text,
                    &format!("{want} from {want}s"),
                    "{own} beside {beside}"
                );
            }
            // Each machine's own answer is in its own event row.
            let store = Store::open(&db).unwrap();
            let rows: Vec<(String, Option<String>)> = store
                .audit_rows(&AuditFilter {
                    kind: Some(AuditKind::Event),
                    ..AuditFilter::default()
                })
                .unwrap()
                .into_iter()
                .map(|r| (r.record.spec, r.record.decision))
                .collect();
            assert_eq!(
                rows,
                [
                    (format!("{own}s"), Some(own.to_string())),
                    (format!("{beside}s"), Some(beside.to_string()))
                ]
            );
        }
    }
}

/// With the store unusable, every machine still keeps the blocks that need no state: trust's
/// deny of a blocked action from its fresh state stands beside default's degraded ask.
#[test]
fn the_degraded_answer_keeps_every_machines_stateless_blocks() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the database should be: the store cannot open.
    let db = dir.path().join("gate.db");
    std::fs::create_dir(&db).unwrap();
    let engine = beside_default("trust");
    let opts = persisting(&db, T0);
    let r = driver::run(&engine, &bash("s-4", "git push --force origin main"), &opts);
    assert!(r.degraded);
    assert!(matches!(r.decision.verdict, Verdict::Deny { .. }), "{r:?}");
    // And a benign action meets silence from both.
    let r = driver::run(&engine, &bash("s-4", "ls"), &opts);
    assert!(r.degraded);
    assert_eq!(r.decision.verdict, Verdict::Allow);
}

/// A stored replay of a recorded session (batches) writes exactly what per-event hooks
/// write: every machine's states and audit rows.
#[test]
fn a_stored_replay_writes_what_the_hooks_write() {
    let dir = tempfile::tempdir().unwrap();
    let (hooks, batch) = (dir.path().join("hooks.db"), dir.path().join("batch.db"));
    let engine = default_trust();
    let commands = [
        "ls",
        "cargo build",
        "rm -rf /",
        "rm -rf ~",
        "ls src",
        "git push --force origin main",
        "cat README.md",
        "ls",
        "ls",
    ];
    let events: Vec<(Event, i64)> = commands
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            let at = T0 + 1000 * i as i64;
            [(bash("s-5", c), at), (bash("s-6", c), at)]
        })
        .collect();
    let mut answers = Vec::new();
    for (e, at) in &events {
        answers.push(run(&engine, &hooks, e, *at).decision.verdict);
    }
    let mut b = Batch::new(&engine, None, &no_env);
    let mut store = Store::open(&batch).unwrap();
    let mut replayed = Vec::new();
    for chunk in events.chunks(5) {
        b.commit(&mut store, chunk.iter().map(|(e, at)| (e, *at)), |_, o| {
            replayed.push(o.decision.verdict.clone())
        })
        .unwrap();
    }
    // Grant ids are drawn per database: an ask is compared with its id left out.
    let shape = |v: &Verdict| match v {
        Verdict::Ask { reason, grant_id } => format!("ask: {}", reason.replace(grant_id, "GRANT")),
        other => format!("{other:?}"),
    };
    let shapes = |v: &[Verdict]| v.iter().map(shape).collect::<Vec<_>>();
    assert_eq!(shapes(&answers), shapes(&replayed));
    assert!(answers.iter().any(|v| matches!(v, Verdict::Deny { .. })));
    assert!(answers.iter().any(|v| matches!(v, Verdict::Ask { .. })));
    let (a, b) = (Store::open(&hooks).unwrap(), Store::open(&batch).unwrap());
    for session in ["s-5", "s-6"] {
        let scope = driver::scope_key(engine.spec.scope, &bash(session, "ls"));
        for spec in ["default_trust", "trust_levels"] {
            let (x, y) = (
                a.read_state(&scope, spec).unwrap().unwrap(),
                b.read_state(&scope, spec).unwrap().unwrap(),
            );
            assert_eq!(x.blob, y.blob, "{spec} {scope}");
        }
    }
    // Grant ids are drawn per database; everything else is equal.
    let rows = |s: &Store| -> Vec<(String, String, Option<String>, String)> {
        let ids: Vec<String> = s
            .grants(T0, false)
            .unwrap()
            .into_iter()
            .map(|g| g.id)
            .collect();
        s.audit_rows(&AuditFilter::default())
            .unwrap()
            .into_iter()
            .map(|r| {
                let r = r.record;
                let mut detail = r.detail.to_string();
                for id in &ids {
                    detail = detail.replace(id.as_str(), "GRANT");
                }
                (r.spec, r.kind.as_str().to_string(), r.decision, detail)
            })
            .collect()
    };
    assert_eq!(rows(&a), rows(&b));
    assert!(rows(&a).iter().any(|r| r.0 == "trust_levels"));
}

/// The in-memory replay (`gate replay` without `--db`) answers what the hooks answer.
#[test]
fn an_in_memory_replay_answers_what_the_hooks_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let engine = default_trust();
    let mut replayer = gate_runtime::replay::Replayer::new(&engine);
    for (i, c) in [
        "ls",
        "rm -rf /",
        "rm -rf ~",
        "ls",
        "git push --force origin main",
    ]
    .iter()
    .enumerate()
    {
        let at = T0 + 1000 * i as i64;
        let e = bash("s-7", c);
        let hook = run(&engine, &db, &e, at).decision.verdict;
        let replayed = replayer.feed(&e, at, None);
        assert_eq!(hook.name(), replayed.decision.verdict.name(), "{c}");
        assert_eq!(replayed.alongside.len(), 1);
    }
}
