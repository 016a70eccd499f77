//! Helpers shared by the integration tests of this directory: the `gate` binary run as an
//! agent runtime would run it, with the environment of the test runner's own agent removed.

// Every test binary that declares `mod common` compiles all of it and uses a part.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const GATE: &str = env!("CARGO_BIN_EXE_gate");

/// Prefixes of the variables a test must not inherit: gate's own configuration, the XDG
/// directories, and the markers and settings of an agent the tests may be run from.
const RUNNER_ENV: [&str; 6] = ["GATE_", "XDG_", "CODEX_", "COPILOT_", "CLAUDE", "GEMINI_"];

/// `gate` without any of the runner's gate, XDG or agent variables: a test sees only what it
/// sets.
pub fn gate_command() -> Command {
    let mut command = Command::new(GATE);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if RUNNER_ENV.iter().any(|p| key.starts_with(p)) {
            command.env_remove(key);
        }
    }
    command
}

/// Run `command` with `stdin` as its input and collect its output. A command that exits
/// before reading (an error found first) closes the pipe early: that is its answer, not a
/// test failure.
pub fn run(mut command: Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gate");
    if let Err(e) = child.stdin.take().expect("piped stdin").write_all(stdin) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    child.wait_with_output().expect("wait for gate")
}

/// The workspace root, where `specs/`, `examples/` and `tests/` are.
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// `gate ARGS` in the workspace root, as the commands that read only specs and files are
/// run: no configuration file, and a database it must never open.
pub fn gate_in_repo(args: &[&str]) -> Output {
    gate_command()
        .args(args)
        .env("GATE_DB", "/nonexistent/never-opened/gate.db")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .current_dir(repo_root())
        .output()
        .expect("run gate")
}

/// A scratch project (with `.git`, the hook's cwd, where `.gate/config.toml` is found), a
/// home beside it, and a database path under `state/`.
pub struct Project {
    _dir: tempfile::TempDir,
    pub project: std::path::PathBuf,
    pub db: std::path::PathBuf,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().expect("a scratch directory");
        let project = dir.path().join("proj");
        std::fs::create_dir_all(project.join(".git")).expect("the project");
        std::fs::create_dir_all(project.join(".gate")).expect("its .gate directory");
        let db = dir.path().join("state/gate.db");
        Project {
            _dir: dir,
            project,
            db,
        }
    }

    /// Write the project's `.gate/config.toml`.
    pub fn config(&self, text: &str) {
        std::fs::write(self.project.join(".gate/config.toml"), text).expect("write the config");
    }

    /// `gate ARGS` in the project, with the home beside it and the database under `state/`.
    pub fn gate(&self, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
        let mut command = gate_command();
        command
            .args(args)
            .current_dir(&self.project)
            .env(
                "HOME",
                self.project.parent().expect("a parent").join("home"),
            )
            .env("GATE_DB", &self.db)
            .envs(env.iter().copied());
        run(command, stdin)
    }
}
