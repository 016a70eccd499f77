//! The real clients under the OS sandbox `gate init <runtime> --sandbox` generates: Claude
//! Code with its settings' sandbox block, Codex with the permission profile in its
//! config.toml. An agent's shell calls go for gate's files with programs the hook cannot see
//! through (a Python script, an archive, sqlite3 from a script, a renamed copy of gate, a glob
//! at the audit key, `gate approve` under `env -i`). Whatever the hook answers, the operating
//! system refuses each write and the key's read, the hook still answers every call, every
//! attempt is in the audit, and ordinary work in the project is still written.

use super::{missing, shell_quote, skip_requested, Harness, Run, Target, CLAUDE, CODEX};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// `tests/e2e/sandbox.json`, with `@GATE_HOME@` and `@GATE@` filled in by the test.
const STEPS: &str = include_str!("../../../tests/e2e/sandbox.json");
/// The attack steps, and what each goes for.
const ATTACKS: &[(usize, &str)] = &[
    (0, "python3 rewriting .claude/settings.json"),
    (2, "tar extracting over .claude/settings.json"),
    (3, "sqlite3 deleting the audit"),
    (
        4,
        "a renamed copy of gate rewiring the hooks to another spec",
    ),
    (5, "od reading the audit key"),
    (7, "gate approve with a cleared environment"),
    // A path the hook cannot know: built at run time. The hook lets the run through (it
    // steers on code it cannot follow); the operating system must refuse the write.
    (
        8,
        "python3 appending to .claude/settings.json by a path built at run time",
    ),
];
/// Work in the project the sandbox must leave alone: a workflow in a project that has no
/// `.github/` yet (gate's list names `.github/hooks` only once `.github/` exists).
const BENIGN: usize = 6;
/// What a refused write or read says, by program and sandbox.
const REFUSALS: &[&str] = &[
    "Read-only file system",
    "readonly database",
    "Permission denied",
    "Cannot open: File exists",
    "Not a directory",
];

/// What the sandboxes need on Linux, and the tools the steps run.
fn prerequisites(tools: &[&str]) {
    let mut tools = tools.to_vec();
    tools.push("sqlite3");
    for tool in tools {
        let found = std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()));
        if !found {
            missing(&format!(
                "{tool} was not found on PATH (Claude Code's sandbox needs bubblewrap and socat \
                 on Linux; Debian: apt-get install bubblewrap socat sqlite3)"
            ));
        }
    }
}

#[test]
fn claude_code_sandbox_real_client() {
    if skip_requested() {
        return;
    }
    prerequisites(if cfg!(target_os = "linux") {
        &["git", "bwrap", "socat"]
    } else {
        &["git"]
    });
    // The project is a repository of its own, so that `gate init` takes it as the project
    // whatever the directories above it hold.
    sandboxed(CLAUDE, std::env::temp_dir(), &[], |home, gate| {
        format!(
            "git init -q . && {} init claude-code --sandbox",
            with_gate_home(home, gate)
        )
    });
}

#[test]
fn codex_sandbox_real_client() {
    if skip_requested() {
        return;
    }
    prerequisites(&["git"]);
    // Codex refuses its helpers below /tmp, and takes the enclosing repository as the
    // project unless the project is a repository of its own. Its sandbox leaves empty
    // placeholders for the metadata it protects in the writable /tmp (`.git`, `.agents`,
    // `.codex`): those it made are taken away again.
    let tmp = std::env::temp_dir();
    let _cleanup = Placeholders(
        [".git", ".agents", ".codex"]
            .iter()
            .map(|name| tmp.join(name))
            .filter(|p| !p.exists())
            .collect(),
    );
    // `--permissions default`: no `sandbox_mode` on the command line, so the profile rules
    // (the driver's own hooks then replace the ones `gate init` wrote beside it).
    let driver = ["--permissions", "default"].map(String::from);
    sandboxed(CODEX, codex_runs_dir(), &driver, |home, gate| {
        format!(
            "git init -q . && {} init codex --global --sandbox",
            with_gate_home(home, gate)
        )
    });
}

/// Where Codex's runs are made: below the target directory, unless that is itself below
/// the system's temporary directory (a checkout in /tmp), where Codex refuses its sandbox
/// helper (`bwrap: execvp codex-linux-sandbox`): then in the user's cache, beside the
/// agent CLIs the harness installs.
fn codex_runs_dir() -> std::path::PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    if !(target.starts_with(std::env::temp_dir()) || target.starts_with("/tmp")) {
        return target.to_path_buf();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(|| target.to_path_buf());
    let dir = cache.join("gate-e2e").join("sandbox-runs");
    std::fs::create_dir_all(&dir).expect("a directory for Codex's runs in the user's cache");
    dir
}

/// Empty directories a run left where there were none: removed when dropped.
struct Placeholders(Vec<std::path::PathBuf>);

impl Drop for Placeholders {
    fn drop(&mut self) {
        for dir in &self.0 {
            // Only succeeds on an empty directory.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// `gate` run with `GATE_HOME` set and the variables that would redirect it cleared.
fn with_gate_home(home: &Path, gate: &str) -> String {
    format!(
        "/usr/bin/env -u GATE_DB -u GATE_SPEC -u GATE_ROLE GATE_HOME={} {}",
        shell_quote(&home.to_string_lossy()),
        shell_quote(gate)
    )
}

/// One run of `target` with the sandbox `setup(gate_home, gate)` configures, then the checks.
fn sandboxed(
    target: Target,
    parent: std::path::PathBuf,
    driver: &[String],
    setup: impl Fn(&Path, &str) -> String,
) {
    let harness = Harness::locate();
    let scratch = tempfile::Builder::new()
        .prefix(&format!("gate-e2e-sandbox-{}-", target.driver))
        .tempdir_in(parent)
        .expect("create a temporary directory");
    let root = scratch.path();
    let home = root.join("gate-home");
    std::fs::create_dir(&home).expect("create GATE_HOME");
    let steps = root.join("sandbox.json");
    let gate = harness.gate.to_string_lossy().to_string();
    std::fs::write(
        &steps,
        STEPS
            .replace("@GATE_HOME@", &home.to_string_lossy())
            .replace("@GATE@", &gate),
    )
    .expect("write the steps");
    let run = harness.drive_with(
        target,
        &steps.to_string_lossy(),
        &home,
        &root.join("run"),
        &[driver, &["--setup-cmd".to_string(), setup(&home, &gate)]].concat(),
    );
    let mut failures = Vec::new();
    check(target, &harness, &home, &run, &mut failures);
    if !failures.is_empty() {
        let kept = scratch.keep();
        panic!(
            "{} (sandbox): {} expectation(s) failed against the real client (work \
             directories kept in {}):\n  - {}",
            target.label(),
            failures.len(),
            kept.display(),
            failures.join("\n  - ")
        );
    }
}

fn check(target: Target, harness: &Harness, home: &Path, run: &Run, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("[sandbox run {}] {what}", run.workdir));
    run.common(&mut fail);
    let settings = Path::new(&run.workdir).join("proj/.claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap_or_default();
    let doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let intact = if target.is("claude") {
        doc.pointer("/sandbox/enabled") == Some(&Value::Bool(true)) && doc.get("hooks").is_some()
    } else {
        text == "{}\n"
    };
    if !intact {
        fail(format!("{} was changed: {text}", settings.display()));
    }
    let key = std::fs::read(home.join("gate.key")).unwrap_or_default();
    let key_as_od: Vec<String> = key.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let mut reached_os = 0;
    for &(step, what) in ATTACKS {
        let text = run.result_text(step);
        let denied = run
            .hook_answer(step, &run.event_names().0)
            .is_some_and(|a| {
                // Withheld: denied, or asked (the user approves it or not).
                let decision = a.pointer("/hookSpecificOutput/permissionDecision");
                decision == Some(&"deny".into()) || decision == Some(&"ask".into())
            });
        if run.tool_ran(step) {
            reached_os += 1;
            if text.contains("rc=0") || !REFUSALS.iter().any(|r| text.contains(r)) {
                fail(format!(
                    "{what}: the command ran and the operating system did not refuse it: {text}"
                ));
            }
        } else if !denied {
            fail(format!(
                "{what}: neither run nor denied by the hook: {text}"
            ));
        }
    }
    if reached_os == 0 {
        fail("no attack reached the operating system, so the sandbox was not exercised".into());
    }
    if !key.is_empty() && run.result_text(5).contains(&key_as_od.join(" ")) {
        fail("the audit key was read from inside the sandbox".into());
    }
    if !run.tool_ran(BENIGN) {
        fail(format!(
            "ordinary work in the project was refused under the sandbox: {}",
            run.result_text(BENIGN)
        ));
    }
    // The store is intact and every attempt is in it.
    let verify = Command::new(&harness.gate)
        .args(["audit", "verify"])
        .env("GATE_HOME", home)
        .env_remove("GATE_DB")
        .output()
        .expect("run gate audit verify");
    if !verify.status.success() {
        fail(format!(
            "gate audit verify failed after the run: {}",
            String::from_utf8_lossy(&verify.stdout)
        ));
    }
    let out = Command::new(&harness.gate)
        .args(["log", "--json", "-n", "1000"])
        .env("GATE_HOME", home)
        .env_remove("GATE_DB")
        .output()
        .expect("run gate log");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let targets: Vec<&str> = rows
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["target"].as_str())
        .collect();
    for &(step, what) in ATTACKS {
        let shell = run.step(step)["step"]["shell"].as_str().unwrap_or("?");
        if !targets.iter().any(|t| t.contains(shell)) {
            fail(format!("{what}: `{shell}` is not in the audit"));
        }
    }
}
