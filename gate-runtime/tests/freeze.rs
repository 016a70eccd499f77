//! The release-freeze policy of `examples/freeze.toml`, run through the engine: a release tag
//! in any spelling starts the freeze, only a successful tag counts, the freeze is the state's
//! own 30-minute timer (no tier backstop ends it), and its end is recorded at the deadline.

mod common;

use common::engine::{evaluate, Scope, T0};
use gate_runtime::engine::Outcome;
use gate_runtime::event::{Event, Runtime, Status};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Phase, Spec};
use std::path::Path;

fn freeze() -> &'static Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/freeze.toml");
    let shown = |p: &Path| p.display().to_string();
    let compiled =
        gate_spec::compile_file(&path, &shown).expect("examples/freeze.toml is readable");
    assert!(
        compiled.diags.items.is_empty(),
        "the example is clean:\n{}",
        compiled.render()
    );
    Box::leak(Box::new(compiled.spec.expect("the example compiles")))
}

struct Run {
    scope: Scope,
    now: i64,
}

impl Run {
    fn new() -> Run {
        Run {
            scope: Scope::new(freeze()),
            now: T0,
        }
    }

    fn state(&self) -> &str {
        self.scope.state_name()
    }

    fn event(&self, phase: Phase, tool: &str, target: &str, status: Option<Status>) -> Event {
        let class = if tool == "Bash" {
            ActionClass::Exec
        } else {
            ActionClass::Write
        };
        Event {
            runtime: Some(Runtime::ClaudeCode),
            phase: Some(phase),
            hook_event: phase.as_str().to_string(),
            timestamp_ms: Some(self.now),
            session_id: Some("s1".to_string()),
            cwd: Some("/repo".to_string()),
            tool: Some(tool.to_string()),
            class: Some(class),
            target: Some(target.to_string()),
            paths: if target.starts_with('/') {
                vec![target.to_string()]
            } else {
                Vec::new()
            },
            status,
            ..Event::default()
        }
    }

    fn eval(&mut self, event: &Event, approved: bool) -> Outcome {
        let scope = &mut self.scope;
        evaluate(
            &scope.engine,
            &mut scope.state,
            event,
            self.now,
            None,
            approved,
        )
    }

    fn ran(&mut self, command: &str, ok: bool) -> Outcome {
        let status = if ok { Status::Success } else { Status::Failure };
        let e = self.event(Phase::PostTool, "Bash", command, Some(status));
        self.eval(&e, false)
    }

    fn edit(&mut self, path: &str) -> Outcome {
        let e = self.event(Phase::PreTool, "Edit", path, None);
        self.eval(&e, false)
    }

    fn at(&mut self, secs: i64) -> &mut Run {
        self.now = T0 + secs * 1000;
        self
    }
}

#[test]
fn a_release_tag_in_any_spelling_starts_the_freeze() {
    for tag in [
        "git tag v1.3.0",
        "git tag -a v1.3.0 -m 'release 1.3.0'",
        "cd proj && git tag -a v1.3.0 -m 'release'",
        "git -C proj tag -s v2.0.0 -m signed",
    ] {
        let mut run = Run::new();
        let o = run.ran(tag, true);
        assert_eq!(run.state(), "frozen", "{tag}");
        assert!(o.notes.iter().any(|n| n.kind == "checkpoint"), "{tag}");
    }
}

#[test]
fn text_failures_listings_and_deletions_are_no_release() {
    for (command, ok) in [
        ("echo git tag v1.3.0", true),
        ("grep 'git tag v1' notes.md", true),
        ("git tag v1.3.0", false),
        ("git tag -l 'v*'", true),
        ("git tag -d v1.3.0", true),
        ("git tag build-42", true),
    ] {
        let mut run = Run::new();
        run.ran(command, ok);
        assert_eq!(run.state(), "open", "{command} (ok: {ok})");
    }
}

#[test]
fn during_the_freeze_source_changes_ask_and_deletions_are_denied() {
    let mut run = Run::new();
    run.ran("cd proj && git tag -a v1.3.0 -m 'release'", true);
    run.at(60);
    let o = run.edit("/repo/src/lib.rs");
    assert!(
        matches!(o.decision.verdict, Verdict::Ask { .. }),
        "{:?}",
        o.decision
    );
    // Reading source is no change.
    let read = Event {
        class: Some(ActionClass::Read),
        tool: Some("Read".to_string()),
        ..run.event(Phase::PreTool, "Read", "/repo/src/lib.rs", None)
    };
    assert_eq!(run.eval(&read, false).decision.verdict, Verdict::Allow);
    let rm = run.event(Phase::PreTool, "Bash", "rm src/lib.rs", None);
    let o = run.eval(&rm, false);
    assert!(
        matches!(o.decision.verdict, Verdict::Deny { .. }),
        "{:?}",
        o.decision
    );
    // An approved change goes through, and the freeze goes on with its own timer.
    let e = run.event(Phase::PreTool, "Edit", "/repo/src/lib.rs", None);
    assert_eq!(run.eval(&e, true).decision.verdict, Verdict::Allow);
    assert_eq!(run.state(), "frozen");
    run.at(1799);
    let o = run.edit("/repo/src/main.rs");
    assert!(
        matches!(o.decision.verdict, Verdict::Ask { .. }),
        "{:?}",
        o.decision
    );
}

#[test]
fn the_freeze_ends_at_its_deadline_and_is_recorded_then() {
    let mut run = Run::new();
    run.ran("git tag v1.3.0", true);
    // The next tool call comes long after the 30 minutes: the freeze ended at the deadline.
    run.at(1875);
    let o = run.edit("/repo/src/lib.rs");
    assert_eq!(o.decision.verdict, Verdict::Allow);
    assert_eq!(run.state(), "open");
    let timeout = o
        .notes
        .iter()
        .find(|n| n.kind == "timeout")
        .expect("a timeout note");
    let detail = timeout.detail_json(run.scope.spec);
    assert_eq!(detail["state"], "frozen");
    assert_eq!(detail["deadline_ms"], T0 + 1_800_000);
    assert_eq!(detail["after_secs"], 1800);
    // A new tag starts a new freeze, timed from its own event.
    run.at(2000);
    run.ran("git tag v1.3.1", true);
    run.at(2000 + 1799);
    let o = run.edit("/repo/src/lib.rs");
    assert!(
        matches!(o.decision.verdict, Verdict::Ask { .. }),
        "{:?}",
        o.decision
    );
    run.at(2000 + 1800);
    assert_eq!(
        run.edit("/repo/src/lib.rs").decision.verdict,
        Verdict::Allow
    );
}
