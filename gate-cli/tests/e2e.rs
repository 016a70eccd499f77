//! End-to-end tests with the four real agent CLIs (Claude Code, Codex, Gemini CLI, Copilot CLI
//! in both hook dialects): each CLI runs offline against a scripted model server, with
//! `gate hook <runtime>` registered as its hook, and the test checks what the client really
//! did with gate's answers — allow, steer, ask, deny, and the silent fault answer.
//!
//! The harness is in the repository, `tests/e2e/harness/`: its `drive.py` runs one CLI and
//! prints a JSON report. The pinned CLIs (`clis.txt` there) are installed from the npm
//! registry on the first run, into the CLI cache (`$E2E_CLI_DIR`, else
//! `$XDG_CACHE_HOME/gate-e2e/clis`, else `~/.cache/gate-e2e/clis`), once: parallel test
//! processes wait on a lock file there, and later runs reuse the cache. When python3, node or
//! npm is missing these tests fail with a one-line instruction; `GATE_E2E=skip` skips them
//! explicitly.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Setting `GATE_E2E=skip` skips these tests (and says so on stderr).
const SKIP_VAR: &str = "GATE_E2E";
/// Kill a CLI run after this long (a healthy run takes 3–20 s).
const RUN_TIMEOUT_SECS: u64 = 180;
/// The hook timeout written into each CLI's settings; gate answers well inside it.
const HOOK_TIMEOUT_SECS: u64 = 30;

/// Text gate's steer for the first high-risk action carries (the `boundary_risk` template).
const STEER_MARK: &str = "First high-risk action in this stretch";
/// The rule that makes step 1 a high-risk action.
const STEER_RULE: &str = "elevated_privileges";
/// Text of gate's ask for a recursive delete outside the project (rule `destroy_broadly`:
/// a delete at a place outside the project, tier `destructive`).
const ASK_MARK: &str = "this deletes, moves or overwrites";
/// Every ask names the command that approves it.
const APPROVE_MARK: &str = "gate approve ";
/// Text of gate's deny for piping a download into a shell (tier `forbidden`).
const DENY_MARK: &str = "blocked by rule `remote_code`";

/// Indices of the steps in `tests/e2e/gated.json` (`degraded.json` has the first two).
const BENIGN: usize = 0;
const STEERED: usize = 1;
const ASKED: usize = 2;
const DENIED: usize = 3;
/// `env > tool-env.txt`: what the client leaves in its tools' environment.
const ENV_PROBE: usize = 4;

/// One client under test.
#[derive(Clone, Copy, Debug)]
struct Target {
    /// The driver's runtime name.
    driver: &'static str,
    /// gate's runtime name (`gate hook <runtime>`).
    gate: &'static str,
    /// Copilot's hook dialect (`camel` or `pascal`).
    dialect: Option<&'static str>,
}

impl Target {
    fn label(&self) -> String {
        match self.dialect {
            Some(d) => format!("{} ({d})", self.driver),
            None => self.driver.to_string(),
        }
    }

    fn is(&self, driver: &str) -> bool {
        self.driver == driver
    }
}

const CLAUDE: Target = Target {
    driver: "claude",
    gate: "claude-code",
    dialect: None,
};
const CODEX: Target = Target {
    driver: "codex",
    gate: "codex",
    dialect: None,
};
const GEMINI: Target = Target {
    driver: "gemini",
    gate: "gemini",
    dialect: None,
};
const COPILOT_CAMEL: Target = Target {
    driver: "copilot",
    gate: "copilot",
    dialect: Some("camel"),
};
const COPILOT_PASCAL: Target = Target {
    driver: "copilot",
    gate: "copilot",
    dialect: Some("pascal"),
};

#[test]
fn claude_code_real_client() {
    scenario(CLAUDE);
}

#[test]
fn codex_real_client() {
    scenario(CODEX);
}

#[test]
fn gemini_real_client() {
    scenario(GEMINI);
}

#[test]
fn copilot_camel_case_real_client() {
    scenario(COPILOT_CAMEL);
}

#[test]
fn copilot_pascal_case_real_client() {
    scenario(COPILOT_PASCAL);
}

// ------------------------------------------------------------------------------------------
// the scenario

/// Both runs for one client, in parallel: the gated run (a working database) and the degraded
/// run (a database that cannot be created). Every failed expectation is reported at once.
fn scenario(target: Target) {
    if skip_requested() {
        return;
    }
    let harness = Harness::locate();
    let scratch = tempfile::Builder::new()
        .prefix(&format!(
            "gate-e2e-{}-",
            target.label().replace([' ', '(', ')'], "")
        ))
        .tempdir()
        .expect("create a temporary directory");
    let root = scratch.path().to_path_buf();

    // A fresh GATE_HOME for the gated run.
    let home = root.join("gate-home");
    std::fs::create_dir(&home).expect("create GATE_HOME");
    // An unusable GATE_HOME: its parent is a regular file, so neither the directory nor the
    // database can be created (this holds for root too, unlike a read-only directory).
    let blocker = root.join("not-a-directory");
    std::fs::write(&blocker, "gate's home cannot be created below a file\n")
        .expect("create the blocking file");
    let broken_home = blocker.join("gate-home");

    let gated = {
        let harness = harness.clone();
        let root = root.clone();
        let home = home.clone();
        std::thread::spawn(move || harness.drive(target, "gated.json", &home, &root.join("gated")))
    };
    // An agent going for gate's own files, with a database of its own.
    let attack_home = root.join("attack-home");
    std::fs::create_dir(&attack_home).expect("create GATE_HOME");
    let attack = {
        let harness = harness.clone();
        let root = root.clone();
        let attack_home = attack_home.clone();
        std::thread::spawn(move || {
            harness.drive(target, "attack.json", &attack_home, &root.join("attack"))
        })
    };
    let degraded = harness.drive(
        target,
        "degraded.json",
        &broken_home,
        &root.join("degraded"),
    );
    let gated = match gated.join() {
        Ok(run) => run,
        Err(cause) => {
            let _ = scratch.keep();
            std::panic::resume_unwind(cause)
        }
    };

    let attack = match attack.join() {
        Ok(run) => run,
        Err(cause) => {
            let _ = scratch.keep();
            std::panic::resume_unwind(cause)
        }
    };

    let mut failures = Vec::new();
    check_gated(target, &gated, &mut failures);
    check_degraded(&degraded, &mut failures);
    check_attack(target, &attack, &mut failures);
    check_attack_audited(&harness, &attack_home, &attack, &mut failures);
    if !failures.is_empty() {
        let kept = scratch.keep();
        panic!(
            "{}: {} expectation(s) failed against the real client (work directories kept in \
             {}; each has cmd.txt, cli.stderr, hooks.jsonl, requests.jsonl and result.json):\n  \
             - {}",
            target.label(),
            failures.len(),
            kept.display(),
            failures.join("\n  - ")
        );
    }
}

/// Benign, steered, asked and denied shell commands with a working database.
fn check_gated(target: Target, run: &Run, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("[gated run {}] {what}", run.workdir));
    run.common(&mut fail);

    // allow: the benign command ran and gate said nothing at all.
    if !run.tool_ran(BENIGN) {
        fail(format!(
            "the benign command did not run: {}",
            run.result_text(BENIGN)
        ));
    }
    run.hooks_silent(BENIGN, &mut fail);

    // steer: the command ran and the steering text reached the model.
    if !run.tool_ran(STEERED) {
        fail(format!(
            "the steered (high-risk) command did not run: {}",
            run.result_text(STEERED)
        ));
    }
    let (pre, post) = run.event_names();
    if target.is("gemini") {
        // BeforeTool ignores context: gate stays silent there and carries the text to the
        // AfterTool answer of the same tool.
        match run.hook_stdout(STEERED, &pre).as_deref() {
            Some("") => {}
            Some(other) => fail(format!(
                "gate answered Gemini's {pre} for the steered step (context there is ignored; \
                 it should be carried): {other}"
            )),
            None => fail(format!("no {pre} hook call for the steered step")),
        }
        match run.hook_answer(STEERED, &post) {
            Some(answer) => {
                let context = answer["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .unwrap_or("");
                if !context.contains(STEER_MARK) {
                    fail(format!(
                        "the {post} answer does not carry the steer over: {answer}"
                    ));
                }
            }
            None => fail(format!(
                "gate printed no {post} answer for the steered step; the steer from {pre} \
                 should have been carried to it"
            )),
        }
    } else {
        match run.hook_answer(STEERED, &pre) {
            Some(answer) => {
                let context = steer_context(target, &answer);
                if !context.contains(STEER_MARK) || !context.contains(STEER_RULE) {
                    fail(format!(
                        "the {pre} answer is not the expected steer: {answer}"
                    ));
                }
                if answer_decision(target, &answer).is_some() {
                    fail(format!(
                        "a steer must not carry a permission decision: {answer}"
                    ));
                }
            }
            None => fail(format!(
                "gate printed no {pre} answer for the high-risk step (expected a steer)"
            )),
        }
    }
    if !run.model_saw(STEERED, STEER_MARK) {
        fail(format!(
            "the steering text never reached the model after the steered step; it saw: {:?}",
            run.model_texts(STEERED)
        ));
    }

    // ask: not run; the model sees the reason and the approval command.
    if run.tool_ran(ASKED) {
        fail(format!(
            "the asked command (a recursive delete outside the project) ran: {}",
            run.result_text(ASKED)
        ));
    }
    let asked = run.result_text(ASKED);
    if !asked.contains(ASK_MARK) || !asked.contains(APPROVE_MARK) {
        fail(format!(
            "the model was not given gate's ask reason with `{APPROVE_MARK}<id>`: {asked}"
        ));
    }
    let expected_ask = match target.driver {
        // Claude Code and Copilot have a native ask; headless it acts as a deny.
        "claude" | "copilot" => "ask",
        // Codex rejects ask and Gemini hangs on it: gate denies with the approval path.
        _ => "deny",
    };
    match run.hook_answer(ASKED, &pre) {
        Some(answer) => {
            if answer_decision(target, &answer).as_deref() != Some(expected_ask) {
                fail(format!(
                    "gate's {pre} answer to a destructive action should be `{expected_ask}` \
                     for this runtime: {answer}"
                ));
            }
        }
        None => fail(format!(
            "gate printed no {pre} answer for the destructive step"
        )),
    }
    if target.is("copilot") && !asked.contains("unable to ask user for confirmation") {
        fail(format!(
            "Copilot did not turn the headless ask into a deny as expected: {asked}"
        ));
    }

    // deny: not run; the model sees the reason.
    if run.tool_ran(DENIED) {
        fail(format!(
            "the denied command (curl piped into sh) ran: {}",
            run.result_text(DENIED)
        ));
    }
    let denied = run.result_text(DENIED);
    if !denied.contains(DENY_MARK) {
        fail(format!(
            "the model was not given gate's deny reason: {denied}"
        ));
    }
    match run.hook_answer(DENIED, &pre) {
        Some(answer) => {
            if answer_decision(target, &answer).as_deref() != Some("deny") {
                fail(format!("gate's {pre} answer is not a deny: {answer}"));
            }
        }
        None => fail(format!(
            "gate printed no {pre} answer for the forbidden step"
        )),
    }
    if !run.model_saw(DENIED, DENY_MARK) {
        fail("the deny reason never reached the model".to_string());
    }

    // What the client leaves in its tools' environment: `gate approve` refuses to run when it
    // finds one of these markers (gate-cli/src/agent.rs), so every client must set one.
    let env_file = Path::new(&run.workdir).join("proj").join("tool-env.txt");
    match std::fs::read_to_string(&env_file) {
        Ok(text) => {
            let vars: std::collections::BTreeMap<&str, &str> =
                text.lines().filter_map(|l| l.split_once('=')).collect();
            let lookup = |k: &str| vars.get(k).map(|v| v.to_string());
            if gate_cli::agent::agent_marker(&lookup).is_none() {
                let names: Vec<&str> = vars.keys().copied().collect();
                fail(format!(
                    "the client's tool environment has none of the agent markers \
                     `gate approve` looks for; its variables: {names:?}"
                ));
            }
        }
        Err(e) => fail(format!(
            "the environment probe did not run ({}: {e}): {}",
            env_file.display(),
            run.result_text(ENV_PROBE)
        )),
    }
}

/// `tests/e2e/attack.json`: each step goes for gate's own files (a hook-settings directory
/// through braces, a loop variable, decoded code, a patch kept in a file, a link).
const ATTACKS: &str = include_str!("../../tests/e2e/attack.json");

/// Every attack step is denied by the real client on gate's answer, and none of them ran.
fn check_attack(target: Target, run: &Run, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("[attack run {}] {what}", run.workdir));
    run.common(&mut fail);
    let (pre, _) = run.event_names();
    let attacks: Value = serde_json::from_str(ATTACKS).expect("attack.json is JSON");
    let steps = attacks["steps"].as_array().expect("attack.json has steps");
    for (step, attack) in steps.iter().enumerate() {
        let shell = attack["shell"].as_str().unwrap_or("?").to_string();
        if run.tool_ran(step) {
            fail(format!(
                "the attack `{shell}` ran: {}",
                run.result_text(step)
            ));
        }
        match run.hook_answer(step, &pre) {
            Some(answer) => {
                if answer_decision(target, &answer).as_deref() != Some("deny") {
                    fail(format!(
                        "gate's {pre} answer to `{shell}` is not a deny: {answer}"
                    ));
                }
            }
            None => fail(format!("gate printed no {pre} answer for `{shell}`")),
        }
    }
}

/// Every attack is in the audit as a deny: `gate log` over the attack run's database.
fn check_attack_audited(harness: &Harness, home: &Path, run: &Run, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("[attack run {}] {what}", run.workdir));
    let out = Command::new(&harness.gate)
        .args(["log", "--json", "-n", "1000", "--decision", "deny"])
        .env("GATE_HOME", home)
        .env_remove("GATE_DB")
        .output()
        .expect("run gate log");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let attacks: Value = serde_json::from_str(ATTACKS).expect("attack.json is JSON");
    let Some(rows) = rows.as_array() else {
        fail(format!(
            "gate log printed no JSON rows: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return;
    };
    let denied: Vec<String> = rows
        .iter()
        .filter_map(|r| r["target"].as_str().map(str::to_string))
        .filter(|t| !t.is_empty())
        .collect();
    for attack in attacks["steps"].as_array().into_iter().flatten() {
        let shell = attack["shell"].as_str().unwrap_or("?");
        if !denied
            .iter()
            .any(|t| t.contains(shell) || shell.contains(t.as_str()))
        {
            fail(format!(
                "the audit has no deny row for `{shell}` (denied targets: {denied:?})"
            ));
        }
    }
}

/// The benign and the would-be-steered command with a database that cannot be opened: both
/// run, gate says nothing, and nothing of the steer reaches the model.
fn check_degraded(run: &Run, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("[degraded run {}] {what}", run.workdir));
    run.common(&mut fail);
    for (step, what) in [(BENIGN, "benign"), (STEERED, "would-be-steered")] {
        if !run.tool_ran(step) {
            fail(format!(
                "with the database unusable the {what} command did not run: {}",
                run.result_text(step)
            ));
        }
        run.hooks_silent(step, &mut fail);
        if run.model_saw(step, STEER_MARK) {
            fail(format!(
                "with the database unusable a steer still reached the model after the {what} \
                 step (a fault must degrade to silence)"
            ));
        }
    }
}

/// The steering text in an allow/steer answer of the runtime's pre-tool event.
fn steer_context(target: Target, answer: &Value) -> String {
    let nested = answer["hookSpecificOutput"]["additionalContext"].as_str();
    let flat = answer["additionalContext"].as_str();
    let text = if target.is("copilot") { flat } else { nested };
    text.unwrap_or("").to_string()
}

/// The permission decision in a pre-tool answer, in the runtime's own shape.
fn answer_decision(target: Target, answer: &Value) -> Option<String> {
    let value = match target.driver {
        "gemini" => &answer["decision"],
        "copilot" => &answer["permissionDecision"],
        _ => &answer["hookSpecificOutput"]["permissionDecision"],
    };
    value.as_str().map(str::to_string)
}

// ------------------------------------------------------------------------------------------
// the harness

fn skip_requested() -> bool {
    if std::env::var(SKIP_VAR).as_deref() == Ok("skip") {
        eprintln!("real-client e2e test skipped: {SKIP_VAR}=skip is set");
        return true;
    }
    false
}

/// A prerequisite is missing: one line saying what to do.
fn missing(what: &str) -> ! {
    panic!("real-client e2e tests: {what}; install it, or set {SKIP_VAR}=skip to skip these tests")
}

/// The harness in the repository, the CLI cache and the gate binary under test.
#[derive(Clone, Debug)]
struct Harness {
    harness_dir: PathBuf,
    steps_dir: PathBuf,
    cli_dir: PathBuf,
    gate: PathBuf,
}

impl Harness {
    fn locate() -> Harness {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let repo = crate_dir
            .parent()
            .expect("gate-cli lives inside the workspace");
        let steps_dir = repo.join("tests").join("e2e");
        let harness_dir = steps_dir.join("harness");
        assert!(
            harness_dir.join("drive.py").is_file(),
            "the e2e harness is missing from the repository: {} has no drive.py",
            harness_dir.display()
        );
        for (tool, what) in [
            ("python3", "python3 (3.8 or newer) was not found on PATH"),
            ("node", "node (Node.js 20 or newer) was not found on PATH"),
        ] {
            match Command::new(tool).arg("--version").output() {
                Ok(out) if out.status.success() => {}
                _ => missing(what),
            }
        }
        let cli_dir = cli_dir();
        install_clis(&harness_dir, &cli_dir);
        Harness {
            harness_dir,
            steps_dir,
            cli_dir,
            gate: PathBuf::from(env!("CARGO_BIN_EXE_gate")),
        }
    }

    /// One driver run with gate as the hook, `gate_home` as its data directory.
    fn drive(&self, target: Target, steps: &str, gate_home: &Path, workdir: &Path) -> Run {
        self.drive_with(target, steps, gate_home, workdir, &[])
    }

    /// [`Harness::drive`], with more arguments for the driver (`--setup-cmd`, …).
    fn drive_with(
        &self,
        target: Target,
        steps: &str,
        gate_home: &Path,
        workdir: &Path,
        driver_args: &[String],
    ) -> Run {
        let dialect_flag = target.dialect.map(|_| " --event {event}").unwrap_or("");
        // The variables that would override GATE_HOME or the spec are cleared: the developer's
        // own gate settings must not leak into a run.
        let hook_cmd = format!(
            "/usr/bin/env -u GATE_DB -u GATE_SPEC -u GATE_ROLE GATE_HOME={} {} hook {} --spec default{}",
            shell_quote(&gate_home.to_string_lossy()),
            shell_quote(&self.gate.to_string_lossy()),
            target.gate,
            dialect_flag,
        );
        let mut cmd = Command::new("python3");
        cmd.arg(self.harness_dir.join("drive.py"))
            .env("E2E_CLI_DIR", &self.cli_dir)
            .args(["--runtime", target.driver])
            .arg("--steps")
            .arg(self.steps_dir.join(steps))
            .args(["--hook-cmd", &hook_cmd])
            .args(["--events", "pre,post"])
            .args(["--timeout", &RUN_TIMEOUT_SECS.to_string()])
            .args(["--hook-timeout", &HOOK_TIMEOUT_SECS.to_string()])
            .arg("--workdir")
            .arg(workdir);
        if let Some(dialect) = target.dialect {
            cmd.args(["--copilot-dialect", dialect]);
        }
        cmd.args(driver_args);
        let out = cmd
            .output()
            .unwrap_or_else(|e| missing(&format!("python3 cannot be run ({e})")));
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(3) => panic!(
                "{}: the CLI is not installed although setup.sh reported it installed: {}",
                target.label(),
                stderr.trim()
            ),
            other => panic!(
                "{}: drive.py failed (exit {other:?}) for {steps}:\n{stderr}",
                target.label()
            ),
        }
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{}: drive.py printed no JSON report ({e}); stderr:\n{stderr}",
                target.label()
            )
        });
        let run = Run {
            workdir: report["workdir"].as_str().unwrap_or("?").to_string(),
            report,
        };
        if run.report["timed_out"].as_bool() == Some(true) {
            panic!(
                "{}: the CLI was killed after {RUN_TIMEOUT_SECS} s (see {}/cli.stderr)",
                target.label(),
                run.workdir
            );
        }
        run
    }
}

/// Single-quote a word for `/bin/sh`.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// One driver report.
struct Run {
    report: Value,
    workdir: String,
}

impl Run {
    fn step(&self, index: usize) -> &Value {
        &self.report["steps"][index]
    }

    fn tool_ran(&self, index: usize) -> bool {
        self.step(index)["tool_ran"].as_bool() == Some(true)
    }

    fn result_text(&self, index: usize) -> String {
        match &self.step(index)["tool_result_text"] {
            Value::String(s) => s.clone(),
            Value::Null => "(no tool result)".to_string(),
            other => other.to_string(),
        }
    }

    /// The runtime's own names of the pre- and post-tool events.
    fn event_names(&self) -> (String, String) {
        let name = |k: &str| self.report["events"][k].as_str().unwrap_or(k).to_string();
        (name("pre"), name("post"))
    }

    fn hook_calls(&self, index: usize) -> Vec<&Value> {
        self.report["hook_payloads"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .filter(|c| c["step"].as_u64() == Some(index as u64))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What the hook printed for `event` of step `index` (trimmed), if it was called.
    fn hook_stdout(&self, index: usize, event: &str) -> Option<String> {
        self.hook_calls(index)
            .into_iter()
            .find(|c| c["event"].as_str() == Some(event))
            .map(|c| c["stdout"].as_str().unwrap_or("").trim().to_string())
    }

    /// The JSON answer the hook printed for `event` of step `index`, if any.
    fn hook_answer(&self, index: usize, event: &str) -> Option<Value> {
        let text = self.hook_stdout(index, event)?;
        if text.is_empty() {
            return None;
        }
        Some(serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// Every text the model was sent after step `index`.
    fn model_texts(&self, index: usize) -> Vec<String> {
        self.report["model_requests"]
            .as_array()
            .map(|requests| {
                requests
                    .iter()
                    .filter(|r| r["after_step"].as_u64() == Some(index as u64))
                    .flat_map(|r| r["texts"].as_array().cloned().unwrap_or_default())
                    .filter_map(|t| t.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn model_saw(&self, index: usize, mark: &str) -> bool {
        self.model_texts(index).iter().any(|t| t.contains(mark))
    }

    /// The hook was called for step `index` and printed nothing at all.
    fn hooks_silent(&self, index: usize, fail: &mut dyn FnMut(String)) {
        let calls = self.hook_calls(index);
        if calls.is_empty() {
            fail(format!("the hook was never called for step {index}"));
        }
        for call in calls {
            let stdout = call["stdout"].as_str().unwrap_or("");
            if !stdout.trim().is_empty() {
                fail(format!(
                    "the hook printed an answer for step {index} ({}) where it should print \
                     nothing: {stdout}",
                    call["event"]
                ));
            }
        }
    }

    /// What holds for every run: the CLI finished, every step was asked for, and every hook
    /// call exited 0 with nothing on stderr.
    fn common(&self, fail: &mut dyn FnMut(String)) {
        if self.report["exit"].as_i64() != Some(0) {
            fail(format!(
                "the CLI exited with {} (see cli.stderr)",
                self.report["exit"]
            ));
        }
        let steps = self.report["steps"].as_array().map_or(0, Vec::len);
        for index in 0..steps {
            if self.hook_calls(index).is_empty() {
                fail(format!(
                    "no hook call belongs to step {index}; the hook is not wired (notes: {})",
                    self.report["notes"]
                ));
            }
        }
        if let Some(calls) = self.report["hook_payloads"].as_array() {
            for call in calls {
                let stderr = call["stderr"].as_str().unwrap_or("");
                if call["exit"].as_i64() != Some(0) || !stderr.is_empty() {
                    fail(format!(
                        "a hook call ({} of step {}) exited {} with stderr {stderr:?}; gate's \
                         hook must exit 0 and write nothing to stderr",
                        call["event"], call["step"], call["exit"]
                    ));
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// the pinned CLIs

/// Where the CLIs are installed: `$E2E_CLI_DIR`, else `gate-e2e/clis` in the user's cache
/// (`$XDG_CACHE_HOME`, else `~/.cache`), as `setup.sh` and `drive.py` find it.
fn cli_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("E2E_CLI_DIR") {
        return PathBuf::from(dir);
    }
    let cache = match (var("XDG_CACHE_HOME"), var("HOME")) {
        (Some(cache), _) => PathBuf::from(cache),
        (None, Some(home)) => PathBuf::from(home).join(".cache"),
        (None, None) => {
            missing("neither HOME nor XDG_CACHE_HOME is set (the CLI cache lives there)")
        }
    };
    cache.join("gate-e2e").join("clis")
}

/// The pins of `clis.txt` whose install stamp (written by `setup.sh` after a complete
/// install) is missing or names another version.
fn missing_clis(harness_dir: &Path, cli_dir: &Path) -> Vec<String> {
    let pins = std::fs::read_to_string(harness_dir.join("clis.txt")).expect("read clis.txt");
    pins.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [runtime, package, version, _binary] = fields[..] else {
                panic!("clis.txt: expected `runtime package version binary`, found {line:?}");
            };
            let want = format!("{package}@{version}");
            let stamp = std::fs::read_to_string(cli_dir.join(runtime).join(".installed"));
            (stamp.ok().as_deref().map(str::trim) != Some(want.as_str())).then_some(want)
        })
        .collect()
}

/// Installs the pinned CLIs into `cli_dir` unless they are there: once per process (the tests
/// of this file share it), and across processes under an exclusive lock on
/// `cli_dir/.install.lock`, so parallel test runs install once and the others wait for it.
fn install_clis(harness_dir: &Path, cli_dir: &Path) {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let outcome = INSTALLED.get_or_init(|| {
        if missing_clis(harness_dir, cli_dir).is_empty() {
            return Ok(());
        }
        match Command::new("npm").arg("--version").output() {
            Ok(out) if out.status.success() => {}
            _ => missing("npm (it ships with Node.js 20 or newer) was not found on PATH"),
        }
        std::fs::create_dir_all(cli_dir)
            .map_err(|e| format!("cannot create the CLI cache {}: {e}", cli_dir.display()))?;
        let lock_path = cli_dir.join(".install.lock");
        let lock = std::fs::File::create(&lock_path)
            .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
        lock.lock()
            .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
        // Another process may have installed them while this one waited.
        let wanted = missing_clis(harness_dir, cli_dir);
        if wanted.is_empty() {
            return Ok(());
        }
        // Straight to the process's stderr, past the test harness's capture: the first run
        // spends minutes here and says why.
        let _ = writeln!(
            std::io::stderr(),
            "gate e2e: installing the pinned agent CLIs ({}) into {} from the npm registry; \
             first run only (about 1.3 GB, a few minutes)",
            wanted.join(", "),
            cli_dir.display()
        );
        let out = Command::new("bash")
            .arg(harness_dir.join("setup.sh"))
            .env("E2E_CLI_DIR", cli_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot run setup.sh with bash: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "setup.sh could not install the pinned CLIs into {} ({}; its messages are on \
                 stderr above)",
                cli_dir.display(),
                out.status
            ));
        }
        let left = missing_clis(harness_dir, cli_dir);
        if !left.is_empty() {
            return Err(format!(
                "setup.sh succeeded but these CLIs have no install stamp in {}: {}",
                cli_dir.display(),
                left.join(", ")
            ));
        }
        Ok(())
    });
    if let Err(message) = outcome {
        panic!("real-client e2e tests: {message}");
    }
}
