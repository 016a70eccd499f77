//! The waypoints spec through `gate hook`, as a runtime calls it: the workflow is keyed by the
//! repository (a `cd` into a subdirectory stays in it), a Stop in a phase whose exit evidence
//! is missing is blocked in the runtime's own Stop answer, once, and the language profile is
//! detected from the repository's files unless `.gate/config.toml` or `GATE_PROFILE` names
//! one. The workflow ends with the session unless `outlive_sessions` keeps it.

mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A repository (with `.git`) and a database, driven through `gate hook claude-code`.
struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
    /// `GATE_PROFILE` for the hook calls.
    profile_env: Option<&'static str>,
    /// The runtime whose hook is called (`claude-code` unless a test says otherwise).
    runtime: &'static str,
    /// The session the hook calls belong to.
    session: &'static str,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
        let db = dir.path().join("state/gate.db");
        Repo {
            _dir: dir,
            root,
            db,
            profile_env: None,
            runtime: "claude-code",
            session: "s1",
        }
    }

    /// One hook call from `cwd`; the answer, if any.
    fn hook(&self, cwd: &Path, mut payload: Value) -> Option<Value> {
        payload["session_id"] = json!(self.session);
        payload["cwd"] = json!(cwd.to_str().unwrap());
        let mut command = common::gate_command();
        if let Some(profile) = self.profile_env {
            command.env("GATE_PROFILE", profile);
        }
        command
            .args(["--db", self.db.to_str().unwrap()])
            .args(["hook", self.runtime, "--spec", "waypoints"])
            .current_dir(cwd)
            .env("HOME", self.root.parent().unwrap());
        let out = common::run(command, payload.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0));
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (!out.stdout.is_empty()).then(|| serde_json::from_slice(&out.stdout).unwrap())
    }

    fn prompt(&self, cwd: &Path, text: &str) -> Option<Value> {
        self.hook(
            cwd,
            json!({"hook_event_name": "UserPromptSubmit", "prompt": text}),
        )
    }

    fn edit(&self, cwd: &Path, file: &Path) -> Option<Value> {
        self.hook(
            cwd,
            json!({"hook_event_name": "PreToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": file.to_str().unwrap(),
                                  "old_string": "a", "new_string": "b"}}),
        )
    }

    fn bash(&self, cwd: &Path, command: &str, ok: bool) {
        let input = json!({"command": command});
        self.hook(
            cwd,
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": input}),
        );
        let event = if ok {
            "PostToolUse"
        } else {
            "PostToolUseFailure"
        };
        self.hook(
            cwd,
            json!({"hook_event_name": event, "tool_name": "Bash", "tool_input": input,
                   "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
                   "error": if ok { Value::Null } else { json!("exit status 101") }}),
        );
    }

    /// A Codex shell call: its result is the command's output text only, with no exit status.
    fn codex_bash(&self, cwd: &Path, command: &str, output: &str) {
        let input = json!({"command": command});
        self.hook(
            cwd,
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": input}),
        );
        self.hook(
            cwd,
            json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": input,
                   "tool_response": output}),
        );
    }

    /// Phase 4: started, the interfaces approved, a test written and built, the tests approved.
    fn reach_implementation(&self) {
        self.prompt(&self.root, "/wp-start");
        self.prompt(&self.root, "/wp-next");
        self.prompt(&self.root, "/wp-next");
        let test = self.root.join("tests/cli.rs");
        self.edit(&self.root, &test);
        if self.runtime == "codex" {
            self.codex_bash(
                &self.root,
                "cargo test --no-run",
                "    Finished `test` profile [unoptimized] target(s) in 0.1s",
            );
        } else {
            self.bash(&self.root, "cargo test --no-run", true);
        }
        self.prompt(&self.root, "/wp-next");
    }

    fn stop(&self, cwd: &Path, again: bool) -> Option<Value> {
        self.hook(
            cwd,
            json!({"hook_event_name": "Stop", "stop_hook_active": again}),
        )
    }
}

fn denied(answer: &Option<Value>) -> bool {
    answer
        .as_ref()
        .is_some_and(|a| a["hookSpecificOutput"]["permissionDecision"] == "deny")
}

#[test]
fn the_phase_follows_the_repository_into_subdirectories() {
    let repo = Repo::new();
    let deep = repo.root.join("src/deep");
    repo.prompt(&repo.root, "/wp-start");
    // From a subdirectory of the repository the workflow is the same one: phase 1 denies
    // implementation files.
    assert!(denied(&repo.edit(&deep, &deep.join("lib.rs"))));
    assert!(denied(
        &repo.edit(&repo.root.join("src"), &repo.root.join("src/lib.rs"))
    ));
    assert!(!denied(&repo.edit(&deep, &repo.root.join("docs/req.md"))));
    // A directory outside it is another workflow, not started.
    let other = repo.root.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    assert!(!denied(&repo.edit(&other, &other.join("lib.rs"))));
}

#[test]
fn a_stop_without_evidence_is_blocked_once_with_what_to_run() {
    let repo = Repo::new();
    let src = repo.root.join("src");
    repo.reach_implementation();
    // Phase 4: the tests have not passed.
    let answer = repo.stop(&src, false).expect("the stop is blocked");
    assert_eq!(answer["decision"], "block");
    assert!(answer["reason"].as_str().unwrap().contains("cargo test"));
    // The runtime continued once already: no block, no loop.
    assert_eq!(repo.stop(&src, true), None);
    repo.bash(&src, "echo cargo test", true);
    assert!(repo.stop(&src, false).is_some());
    repo.bash(&src, "cargo test", false);
    assert!(repo.stop(&src, false).is_some());
    repo.bash(&src, "cargo test", true);
    assert_eq!(
        repo.stop(&src, false),
        None,
        "the tests passed: the workflow is complete"
    );
}

/// Codex reports no exit status: a run is evidence only by the runner's own result lines, and
/// only when nothing else on the line could have printed them.
#[test]
fn on_codex_only_the_runners_own_result_is_evidence() {
    let mut repo = Repo::new();
    repo.runtime = "codex";
    let src = repo.root.join("src");
    repo.reach_implementation();
    let blocked = |repo: &Repo| repo.stop(&src, false).is_some();
    assert!(blocked(&repo), "phase 4 starts without evidence");
    // A failing run prints nothing that says so, or says it failed.
    repo.codex_bash(&src, "cargo test", "");
    assert!(blocked(&repo), "an empty result is no evidence");
    repo.codex_bash(
        &src,
        "cargo test",
        "test result: FAILED. 1 passed; 1 failed",
    );
    assert!(blocked(&repo), "a failed run is no evidence");
    // The success line printed by something else on the line is no evidence either.
    repo.codex_bash(
        &src,
        "cargo test; echo 'test result: ok.'",
        "test result: ok.",
    );
    assert!(blocked(&repo), "a forged result line is no evidence");
    repo.codex_bash(&src, "cargo test -- --list", "test result: ok. 0 passed");
    assert!(blocked(&repo), "listing the tests is no evidence");
    repo.codex_bash(
        &src,
        "cargo test",
        "running 2 tests\ntest result: ok. 2 passed; 0 failed",
    );
    assert!(
        !blocked(&repo),
        "the tests passed: the workflow is complete"
    );
}

#[test]
fn the_profile_is_detected_and_can_be_overridden() {
    let mut repo = Repo::new();
    let src = repo.root.join("src");
    repo.prompt(&repo.root, "/wp-start");
    repo.prompt(&repo.root, "/wp-next");
    repo.prompt(&repo.root, "/wp-next");
    // Phase 3. Detected from Cargo.toml: Rust implementation is closed, a .vue file is no
    // source (phase 3 leaves files of no class open).
    assert!(denied(&repo.edit(&src, &src.join("lib.rs"))));
    assert!(!denied(&repo.edit(&src, &src.join("App.vue"))));
    // The project says it is a node project.
    std::fs::create_dir_all(repo.root.join(".gate")).unwrap();
    std::fs::write(repo.root.join(".gate/config.toml"), "profile = \"node\"\n").unwrap();
    assert!(!denied(&repo.edit(&src, &src.join("lib.rs"))));
    assert!(denied(&repo.edit(&src, &src.join("App.vue"))));
    // The environment wins over the file.
    repo.profile_env = Some("rust,php");
    assert!(denied(&repo.edit(&src, &src.join("lib.rs"))));
    assert!(denied(&repo.edit(&src, &src.join("Page.php"))));
    assert!(!denied(&repo.edit(&src, &src.join("App.vue"))));
}

/// Seed 003 clears the workflow at SessionEnd: a second session in the project starts with no
/// phase. `outlive_sessions = ["waypoints_phases"]` in `.gate/config.toml` keeps the phase
/// machine across sessions: the second session resumes phase 1, reminded of it.
#[test]
fn the_workflow_ends_with_the_session_unless_configured_to_outlive_it() {
    for keep in [false, true] {
        let mut repo = Repo::new();
        if keep {
            std::fs::create_dir_all(repo.root.join(".gate")).unwrap();
            std::fs::write(
                repo.root.join(".gate/config.toml"),
                "outlive_sessions = [\"waypoints_phases\"]\n",
            )
            .unwrap();
        }
        let lib = repo.root.join("src/lib.rs");
        repo.hook(
            &repo.root,
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        );
        repo.prompt(&repo.root, "/wp-start");
        assert!(
            denied(&repo.edit(&repo.root, &lib)),
            "phase 1 (keep: {keep})"
        );
        repo.hook(
            &repo.root,
            json!({"hook_event_name": "SessionEnd", "reason": "exit"}),
        );
        repo.session = "s2";
        let start = repo.hook(
            &repo.root,
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        );
        assert_eq!(
            denied(&repo.edit(&repo.root, &lib)),
            keep,
            "the second session's phase (keep: {keep})"
        );
        let reminded = start
            .as_ref()
            .is_some_and(|a| a.to_string().contains("phase 1"));
        assert_eq!(reminded, keep, "{start:?}");
    }
}
