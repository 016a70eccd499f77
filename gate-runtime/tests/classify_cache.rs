//! A classifier's index (built on its second classification: path-glob needs, `raw:` pattern
//! byte needs, tool acceptance per name) changes no answer: for every shipped spec, a
//! classifier used for many events classifies every event exactly as a fresh classifier
//! (which has no index and evaluates every rule plainly) does — on the labelled command
//! corpus, on file-tool events whose paths are built from the specs' own path globs, and on
//! generated events. The checkpoints' evidence computed with a used classifier's index equals
//! the plain computation too.

use gate_runtime::event::{Event, Runtime};
use gate_runtime::observer::{
    observe, observe_with, Baselines, Classification, Classifier, EventKeys, ObserverState,
};
use gate_spec::ir::{ActionClass, Phase};
use proptest::prelude::*;

mod common;
use common::lines::corpus;

fn specs() -> impl Iterator<Item = &'static gate_spec::exec::CompiledSpec> {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    gate_specs::ALL.iter().copied()
}

const TOOLS: [&str; 12] = [
    "Bash",
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "Glob",
    "Grep",
    "WebFetch",
    "TodoWrite",
    "mcp__github__create_issue",
    "mcp__seq__think",
    "apply_patch",
];

/// Literal pieces of every shipped path glob, as paths.
/// A word a glob matches: its literal parts joined by `x`.
fn literal(glob: &str) -> String {
    glob.split(['*', '?', '{', '}', ',', '[', ']'])
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("x")
}

fn glob_paths() -> Vec<String> {
    let mut out = Vec::new();
    for compiled in specs() {
        for rule in &compiled.ir().rules {
            for g in rule.paths.iter().chain(&rule.except_paths) {
                let lit = literal(&g.text);
                out.push(lit.clone());
                out.push(format!("/home/u/proj/{}", lit.trim_start_matches('/')));
                out.push(format!("src/{}", lit.trim_start_matches('/')));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn bash(cmd: &str) -> Event {
    Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(Phase::PreTool),
        tool: Some("Bash".into()),
        class: Some(ActionClass::Exec),
        target: Some(cmd.into()),
        cwd: Some("/home/u/proj".into()),
        ..Event::default()
    }
}

fn file_event(tool: &str, path: &str, phase: Phase, class: Option<ActionClass>) -> Event {
    Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(phase),
        tool: Some(tool.into()),
        class,
        target: Some(path.into()),
        paths: vec![path.into()],
        cwd: Some("/home/u/proj".into()),
        ..Event::default()
    }
}

/// The answer of a classifier that has never classified (no index).
fn fresh(compiled: &gate_spec::exec::CompiledSpec, event: &Event) -> Classification {
    Classifier::with_table(compiled.ir(), compiled.machine.commands()).classify(event)
}

fn events() -> Vec<Event> {
    let mut out: Vec<Event> = corpus().iter().map(|c| bash(c)).collect();
    let classes = [
        Some(ActionClass::Read),
        Some(ActionClass::Write),
        Some(ActionClass::Delete),
        None,
    ];
    for (k, path) in glob_paths().iter().enumerate() {
        let tool = TOOLS[k % TOOLS.len()];
        let class = classes[k % classes.len()];
        out.push(file_event(tool, path, Phase::PreTool, class));
        out.push(file_event(tool, path, Phase::PostTool, class));
        out.push(bash(&format!("cat {path}")));
        out.push(bash(&format!("echo x > {path}")));
    }
    out
}

#[test]
fn a_used_classifier_answers_as_a_fresh_one() {
    let events = events();
    assert!(events.len() > 500, "{} events", events.len());
    for compiled in specs() {
        let used = Classifier::with_table(compiled.ir(), compiled.machine.commands());
        let mut tiered = 0;
        // Twice: the second pass runs on remembered tool names.
        for pass in 0..2 {
            for e in &events {
                let want = fresh(compiled, e);
                tiered += usize::from(want.rule.is_some());
                assert_eq!(
                    used.classify(e),
                    want,
                    "spec `{}`, pass {pass}, event {e:?}",
                    compiled.name
                );
            }
        }
        assert!(tiered > 0, "spec `{}`: no rule ever matched", compiled.name);
    }
}

/// Targets and paths built from the literals of every shipped checkpoint target glob.
fn checkpoint_targets() -> Vec<String> {
    let mut out = Vec::new();
    for compiled in specs() {
        for c in &compiled.ir().checkpoints {
            for g in &c.targets {
                let lit = literal(&g.text);
                out.push(lit.clone());
                out.push(format!("docs/{lit}"));
                out.push(format!("{lit} --all"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn checkpoint_evidence_with_the_index_equals_the_plain_one() {
    let mut hits = 0;
    for compiled in specs() {
        let spec = compiled.ir();
        let used = Classifier::with_table(spec, compiled.machine.commands());
        used.classify(&bash("true"));
        used.classify(&bash("true"));
        let state = ObserverState::default();
        let enabled = vec![true; spec.signals.len()];
        let baselines: Baselines = vec![None; spec.kinds.len()];
        for target in checkpoint_targets() {
            for tool in ["Bash", "Read", "TodoWrite", "mcp__x__think"] {
                for phase in [Phase::PostTool, Phase::PostToolFailure, Phase::Prompt] {
                    let mut e = file_event(tool, &target, phase, None);
                    if tool == "Bash" {
                        e.paths.clear();
                    }
                    let class = used.classify(&e);
                    let want = observe(spec, &state, &e, &class, &enabled, &baselines, 0);
                    hits += want.checkpoints.iter().filter(|c| **c).count();
                    let got = observe_with(
                        spec,
                        &state,
                        &e,
                        &class,
                        &enabled,
                        &baselines,
                        0,
                        &mut EventKeys::default(),
                        Some(&used),
                    );
                    assert_eq!(got, want, "spec `{}`, event {e:?}", compiled.name);
                }
            }
        }
    }
    assert!(hits > 0, "no checkpoint evidence at all");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Generated events: any tool name, class, phase, path mix and command.
    #[test]
    fn generated_events_agree(
        spec_at in 0..gate_specs::ALL.len(),
        tool in prop::sample::select(TOOLS.to_vec()),
        phase in prop::sample::select(vec![Phase::PreTool, Phase::PostTool, Phase::PostToolFailure]),
        paths in prop::collection::vec(prop::sample::select(glob_paths()), 0..3),
        cmd in prop::sample::select(corpus()),
        cwd in prop::sample::select(vec!["", "/home/u/proj", "/home/u/proj/src"]),
    ) {
        let compiled = gate_specs::ALL[spec_at];
        let used = Classifier::with_table(compiled.ir(), compiled.machine.commands());
        used.classify(&bash("true"));
        let e = Event {
            runtime: Some(Runtime::ClaudeCode),
            phase: Some(phase),
            tool: Some(tool.into()),
            target: Some(cmd.clone()),
            paths,
            cwd: Some(cwd.into()),
            ..Event::default()
        };
        prop_assert_eq!(used.classify(&e), fresh(compiled, &e));
    }
}
