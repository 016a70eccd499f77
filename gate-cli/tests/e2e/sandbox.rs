//! Claude Code with the OS sandbox `gate init claude-code --sandbox` writes: an agent's Bash
//! calls go for gate's files with programs the hook cannot see through (a Python script, an
//! archive, sqlite3 from a script, a renamed copy of gate, a glob at the audit key). Whatever
//! the hook answers, the operating system refuses each write and the key's read, the hook
//! still answers every call, and every attempt is in the audit.

use super::{missing, skip_requested, Harness, Run, CLAUDE};
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
    (4, "a renamed copy of gate removing its own hooks"),
    (5, "od reading the audit key"),
];
/// Work in the project the sandbox must leave alone: a workflow in a project that has no
/// `.github/` yet (gate's list names `.github/hooks` only once `.github/` exists).
const BENIGN: usize = 6;
/// What a refused write or read says, by program.
const REFUSALS: &[&str] = &[
    "Read-only file system",
    "readonly database",
    "Permission denied",
    "Cannot open: File exists",
];

/// What the sandbox needs on Linux, and the tool the sqlite3 step runs.
fn prerequisites() {
    let mut tools = vec!["sqlite3"];
    if cfg!(target_os = "linux") {
        tools.extend(["bwrap", "socat"]);
    }
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
    prerequisites();
    let harness = Harness::locate();
    let scratch = tempfile::Builder::new()
        .prefix("gate-e2e-sandbox-")
        .tempdir()
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
    let setup = format!(
        "/usr/bin/env -u GATE_DB -u GATE_SPEC -u GATE_ROLE GATE_HOME={} {} init claude-code \
         --sandbox",
        super::shell_quote(&home.to_string_lossy()),
        super::shell_quote(&gate),
    );
    let run = harness.drive_with(
        CLAUDE,
        &steps.to_string_lossy(),
        &home,
        &root.join("sandbox"),
        Some(&setup),
    );
    let mut failures = Vec::new();
    check(&harness, &home, &run, &mut failures);
    if !failures.is_empty() {
        let kept = scratch.keep();
        panic!(
            "claude (sandbox): {} expectation(s) failed against the real client (work \
             directories kept in {}):\n  - {}",
            failures.len(),
            kept.display(),
            failures.join("\n  - ")
        );
    }
}

fn check(harness: &Harness, home: &Path, run: &Run, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("[sandbox run {}] {what}", run.workdir));
    run.common(&mut fail);
    let settings = Path::new(&run.workdir).join("proj/.claude/settings.json");
    let doc: Value = std::fs::read(&settings)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    if doc.pointer("/sandbox/enabled") != Some(&Value::Bool(true)) || doc.get("hooks").is_none() {
        fail(format!(
            "{} lost its hooks or its sandbox block: {doc}",
            settings.display()
        ));
    }
    let key = std::fs::read(home.join("gate.key")).unwrap_or_default();
    let key_as_od: Vec<String> = key.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let mut reached_os = 0;
    for &(step, what) in ATTACKS {
        let text = run.result_text(step);
        let denied = run.hook_answer(step, "PreToolUse").is_some_and(|a| {
            a.pointer("/hookSpecificOutput/permissionDecision") == Some(&"deny".into())
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
    if !run.tool_ran(BENIGN) {
        fail(format!(
            "ordinary work in the project was refused under the sandbox: {}",
            run.result_text(BENIGN)
        ));
    }
    if reached_os == 0 {
        fail("no attack reached the operating system, so the sandbox was not exercised".into());
    }
    if !key.is_empty() && run.result_text(5).contains(&key_as_od.join(" ")) {
        fail("the audit key was read from inside the sandbox".into());
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
