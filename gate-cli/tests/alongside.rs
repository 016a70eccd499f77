//! Machines side by side as a user meets them: a draft (`--spec-file`) finds the specs its
//! `alongside` names beside its file; `gate check` points at a bad name; `gate test` checks a
//! `SPEC.STATE` expectation against the machine beside; `gate verify` proves each machine;
//! `gate hook` on the shipped `default_trust` answers with trust's deny and writes a state per
//! machine; `gate replay` of a recorded session runs both machines, in memory and into a
//! database alike; `gate test --coverage` reports each machine beside apart.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn gate(args: &[&str], home: &Path, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(args)
        .current_dir(repo())
        .env_remove("GATE_SPEC")
        .env_remove("GATE_ROLE")
        .env_remove("GATE_DB")
        .env("GATE_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gate runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const OWN: &str = r#"
[machine]
name = "own"
alongside = ["strict"]
initial = "s"
kinds = ["k"]

[[tier]]
name = "low"
mode = "gate"
max_actions = 10

[[state]]
name = "s"
"#;

/// Denies `rm` and counts it in a state of its own.
const STRICT: &str = r#"
[machine]
name = "strict"
initial = "calm"
kinds = ["k"]

[[tier]]
name = "low"
mode = "gate"
max_actions = 10

[[tier]]
name = "bad"
mode = "gate"
max_actions = 10

[[rule]]
name = "removals"
commands = ["rm"]
tier = "bad"
reason = "no removals"

[[state]]
name = "calm"

[[state]]
name = "warned"

[[transition]]
from = ["calm", "warned"]
on = "tier:bad"
to = "warned"
effects = ["deny:no"]

[template]
no = "strict says no: {reason}"
"#;

fn drafts(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("own.toml"), OWN).unwrap();
    std::fs::write(dir.join("strict.toml"), STRICT).unwrap();
    dir.join("own.toml")
}

#[test]
fn a_draft_finds_the_specs_beside_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let own = drafts(dir.path());
    let own = own.to_str().unwrap();
    let payload = br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm notes.txt"},"cwd":"/tmp"}"#;
    let out = gate(
        &[
            "explain",
            "--runtime",
            "claude-code",
            "--spec-file",
            own,
            "--json",
        ],
        dir.path(),
        payload,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["decision"]["verdict"]["verdict"], "deny", "{v}");
    assert_eq!(v["alongside"][0]["spec"], "strict", "{v}");
    assert_eq!(v["alongside"][0]["state"]["to"], "warned", "{v}");
    assert_eq!(
        v["decision"]["verdict"]["reason"], "strict says no: no removals",
        "{v}"
    );

    // A spec test names the machine beside by its spec: `strict.warned`.
    let tests = dir.path().join("tests");
    std::fs::create_dir(&tests).unwrap();
    std::fs::write(
        tests.join("own.test.toml"),
        "[[case]]\nname = \"beside\"\nsteps = [\n  { bash = \"ls\", state = \"strict.calm\" },\n  { bash = \"rm x\", expect = \"deny\", state = \"strict.warned\" },\n]\n",
    )
    .unwrap();
    let test_path = tests.join("own.test.toml");
    let out = gate(&["test", test_path.to_str().unwrap()], dir.path(), b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    // A wrong one fails with both machines' states in the answer.
    std::fs::write(
        &test_path,
        "[[case]]\nname = \"beside\"\nsteps = [{ bash = \"rm x\", expect = \"deny\", state = \"strict.calm\" }]\n",
    )
    .unwrap();
    let out = gate(&["test", test_path.to_str().unwrap()], dir.path(), b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("state strict.calm"), "{stdout}");
    assert!(stdout.contains("state s strict.warned"), "{stdout}");
    // And a machine that is not beside it is a mistake in the file.
    std::fs::write(
        &test_path,
        "[[case]]\nname = \"beside\"\nsteps = [{ bash = \"ls\", state = \"trust.calm\" }]\n",
    )
    .unwrap();
    let out = gate(&["test", test_path.to_str().unwrap()], dir.path(), b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no machine `trust` runs beside spec `own`"),
        "{}",
        text(&out.stderr)
    );

    // Each machine is proven on its own.
    let out = gate(&["verify", "--spec-file", own], dir.path(), b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!("strict (beside {own})")),
        "{stdout}"
    );
    assert!(stdout.contains("forbidden_never_allowed holds for the composition"));
}

#[test]
fn coverage_keeps_the_machines_beside_apart() {
    let dir = tempfile::tempdir().unwrap();
    drafts(dir.path());
    let tests = dir.path().join("tests");
    std::fs::create_dir(&tests).unwrap();
    let test_path = tests.join("own.test.toml");
    let test = test_path.to_str().unwrap();
    // Only `ls`: strict's rule, transition and template are not exercised.
    std::fs::write(
        &test_path,
        "[[case]]\nname = \"calm\"\nsteps = [{ bash = \"ls\", state = \"strict.calm\" }]\n",
    )
    .unwrap();
    let out = gate(&["test", test, "--coverage", "--json"], dir.path(), b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let own = &v["coverage"][0];
    assert_eq!(own["rules"], serde_json::json!([0, 0]), "{own}");
    let strict = &own["beside"][0];
    assert_eq!(strict["spec"], "strict", "{own}");
    assert_eq!(strict["rules"], serde_json::json!([0, 1]), "{strict}");
    // `from = ["calm", "warned"]` is two transitions.
    assert_eq!(strict["transitions"], serde_json::json!([0, 2]), "{strict}");
    let missed = strict["missed"].to_string();
    assert!(missed.contains("removals"), "{missed}");
    assert!(missed.contains("strict.toml"), "{missed}");
    assert!(
        !own["missed"].to_string().contains("removals"),
        "strict's items are not the spec's own: {own}"
    );
    let out = gate(&["test", test, "--coverage"], dir.path(), b"");
    let shown = text(&out.stdout);
    assert!(
        shown.contains("machine beside `strict`: rules 0/1, transitions 0/2, templates 0/1"),
        "{shown}"
    );
    assert!(shown.contains("no case exercises rule removals"), "{shown}");
    // A case that removes something once exercises strict's rule, template and first
    // transition (calm → warned), not the second (warned → warned).
    std::fs::write(
        &test_path,
        "[[case]]\nname = \"rm\"\nsteps = [{ bash = \"rm x\", expect = \"deny\", state = \"strict.warned\" }]\n",
    )
    .unwrap();
    let out = gate(&["test", test, "--coverage"], dir.path(), b"");
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{shown}{}", text(&out.stderr));
    assert!(
        shown.contains("machine beside `strict`: rules 1/1, transitions 1/2, templates 1/1"),
        "{shown}"
    );
}

#[test]
fn check_points_at_a_spec_that_is_not_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.toml");
    std::fs::write(&path, OWN.replace("[\"strict\"]", "[\"missing\"]")).unwrap();
    let out = gate(&["check", path.to_str().unwrap()], dir.path(), b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("own.toml:4:14: error[G005]"), "{stdout}");
}

#[test]
fn the_hook_answers_for_both_machines_of_default_trust() {
    let dir = tempfile::tempdir().unwrap();
    let payload = br#"{"session_id":"s-9","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"},"cwd":"/tmp"}"#;
    let out = gate(
        &["hook", "claude-code", "--spec", "default_trust"],
        dir.path(),
        payload,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    // default asks for the force push; trust_levels lets a standard identity take a
    // destructive action (it is `risky` there), so the ask is the answer.
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "ask",
        "{answer}"
    );
    let out = gate(&["status", "--json"], dir.path(), b"");
    let status = text(&out.stdout);
    assert!(status.contains("\"default_trust\""), "{status}");
    assert!(status.contains("\"trust_levels\""), "{status}");
    // The log says which machine wrote each row, and each machine answered for itself.
    let out = gate(&["log", "-n", "100"], dir.path(), b"");
    let log = text(&out.stdout);
    let event_of = |spec: &str| {
        log.lines()
            .find(|l| l.contains(" event ") && l.contains(&format!("spec={spec} ")))
            .unwrap_or_else(|| panic!("no event row of {spec}: {log}"))
            .to_string()
    };
    assert!(event_of("default_trust").contains(" ask "), "{log}");
    assert!(event_of("trust_levels").contains(" allow "), "{log}");
}

/// The recorded session replayed through `default_trust`: in memory and into a database the
/// answers are the same; default's ask and denials stand (a standard identity's destructive
/// action is asked, as under default) and trust adds its probation reminder; the database
/// holds an event row per machine per event.
#[test]
fn a_recorded_session_replays_through_both_machines() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["replay", "examples/session.jsonl", "--json"];
        all.extend_from_slice(args);
        let out = gate(&all, dir.path(), b"");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let alone = run(&["--spec", "default"]);
    let memory = run(&["--spec", "default_trust"]);
    let db = dir.path().join("replay.db");
    let stored = run(&["--spec", "default_trust", "--db", db.to_str().unwrap()]);
    assert_eq!(memory["summary"], stored["summary"], "same answers");
    let verdicts = |v: &serde_json::Value, name: &str| v["summary"]["verdicts"][name].as_u64();
    assert_eq!(verdicts(&alone, "ask"), Some(1), "{alone}");
    for verdict in ["ask", "deny"] {
        assert_eq!(
            verdicts(&memory, verdict),
            verdicts(&alone, verdict),
            "{verdict}: {memory}"
        );
    }
    // The session's denials in a row put the identity on probation, where trust adds its
    // reminder: one of default's allows is a steer beside trust.
    assert_eq!(
        verdicts(&memory, "steer"),
        verdicts(&alone, "steer").map(|s| s + 1),
        "{memory}"
    );
    let store = gate_runtime::store::Store::open_read_only(&db).unwrap();
    let rows = store
        .audit_rows(&gate_runtime::store::AuditFilter {
            kind: Some(gate_runtime::store::AuditKind::Event),
            limit: Some(1000),
            ..Default::default()
        })
        .unwrap();
    let by = |spec: &str| rows.iter().filter(|r| r.record.spec == spec).count();
    assert_eq!(by("default_trust"), 40);
    assert_eq!(by("trust_levels"), 40);
    assert!(store.verify_chain().unwrap().is_ok());
}

/// `gate explain --state MACHINE.STATE` starts the machine beside in that state (the spec's
/// own takes a plain NAME); a machine not beside it is an input error with did-you-mean.
#[test]
fn explain_sets_the_state_of_each_machine() {
    let dir = tempfile::tempdir().unwrap();
    let own = drafts(dir.path());
    let own = own.to_str().unwrap();
    let payload = br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/tmp"}"#;
    let explain = |states: &[&str]| {
        let mut args = vec![
            "explain",
            "--runtime",
            "claude-code",
            "--spec-file",
            own,
            "--json",
        ];
        for s in states {
            args.extend(["--state", s]);
        }
        gate(&args, dir.path(), payload)
    };
    let out = explain(&["s", "strict.warned"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["state"]["source"], "--state", "{v}");
    assert_eq!(v["alongside"][0]["state"]["from"], "warned", "{v}");
    assert_eq!(v["alongside"][0]["state"]["source"], "--state", "{v}");
    // Without it, the machine beside starts where it would (its initial state here).
    let out = explain(&[]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["alongside"][0]["state"]["from"], "calm", "{v}");
    // The own machine may be named by its spec too.
    let out = explain(&["own.s"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for (states, says) in [
        (&["strct.warned"][..], "did you mean `strict`?"),
        (&["strict.wared"][..], "did you mean `warned`?"),
        (&["strict.calm", "strict.warned"][..], "already given"),
    ] {
        let out = explain(states);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{states:?}: {stderr}");
        assert!(stderr.contains(says), "{states:?}: {stderr}");
    }
}

/// `gate replay --events` names the machine that answered each event: trust_levels' probation
/// reminder beside default's allow is trust_levels' answer; an ask is default_trust's own.
#[test]
fn replay_events_name_the_machine_that_answered() {
    let dir = tempfile::tempdir().unwrap();
    let out = gate(
        &[
            "replay",
            "examples/session.jsonl",
            "--spec",
            "default_trust",
            "--events",
            "--json",
        ],
        dir.path(),
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "event")
        .collect();
    assert_eq!(events.len(), 40);
    let by = |verdict: &str| -> Vec<Vec<String>> {
        events
            .iter()
            .filter(|e| e["verdict"] == verdict)
            .map(|e| {
                assert_eq!(e["beside"][0]["spec"], "trust_levels", "{e}");
                e["answered_by"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect()
            })
            .collect()
    };
    assert!(
        by("ask").iter().all(|m| m == &["default_trust"]),
        "{events:?}"
    );
    assert!(
        by("steer").iter().any(|m| m == &["trust_levels"]),
        "{events:?}"
    );
    assert!(
        by("allow")
            .iter()
            .all(|m| m == &["default_trust", "trust_levels"]),
        "{events:?}"
    );
    // The text listing says it too.
    let out = gate(
        &[
            "replay",
            "examples/session.jsonl",
            "--spec",
            "default_trust",
            "--events",
            "--only",
            "ask",
        ],
        dir.path(),
        b"",
    );
    let listing = text(&out.stdout);
    assert!(
        listing
            .lines()
            .any(|l| l.contains(" ask ") && l.contains("  by default_trust")),
        "{listing}"
    );
}

/// `gate diff` compares the machines beside the two policies: a machine beside that re-tiers
/// its rule lower is a relaxation and a change of classification, though the spec's own is
/// unchanged; a machine beside only one side is a change of behaviour.
#[test]
fn diff_compares_the_machines_beside() {
    let old = tempfile::tempdir().unwrap();
    let new = tempfile::tempdir().unwrap();
    let old_own = drafts(old.path());
    let new_own = drafts(new.path());
    std::fs::write(
        new.path().join("strict.toml"),
        STRICT.replace("tier = \"bad\"\nreason", "tier = \"low\"\nreason"),
    )
    .unwrap();
    let args = |json: bool| {
        let mut a = vec![
            "diff".to_string(),
            old_own.to_str().unwrap().to_string(),
            new_own.to_str().unwrap().to_string(),
        ];
        if json {
            a.push("--json".to_string());
        }
        a
    };
    let run = |json: bool| {
        let a = args(json);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        gate(&refs, old.path(), b"")
    };
    let out = run(false);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("beside strict:"), "{stdout}");
    assert!(stdout.contains("RELAXED: rule removals"), "{stdout}");
    assert!(
        stdout.contains("tier bad (rule removals) -> tier low (rule removals)"),
        "{stdout}"
    );
    assert!(stdout.contains("the classification differs"), "{stdout}");
    let out = run(true);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["same_behaviour"], false, "{v}");
    assert_eq!(v["beside"][0]["spec"], "strict", "{v}");
    assert_eq!(v["beside"][0]["status"], "both", "{v}");
    assert_eq!(v["beside"][0]["relaxations"][0]["item"], "removals", "{v}");
    assert_eq!(
        v["beside"][0]["moved"][0]["after"], "tier low (rule removals)",
        "{v}"
    );
    // A machine beside only NEW.
    let alone = old.path().join("alone.toml");
    std::fs::write(&alone, OWN.replace("alongside = [\"strict\"]\n", "")).unwrap();
    let out = gate(
        &["diff", alone.to_str().unwrap(), old_own.to_str().unwrap()],
        old.path(),
        b"",
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("beside strict: added"), "{stdout}");
    assert!(stdout.contains("the behaviour differs"), "{stdout}");
    // A policy diffed against itself is the same, machines beside included.
    let same = gate(
        &["diff", old_own.to_str().unwrap(), old_own.to_str().unwrap()],
        old.path(),
        b"",
    );
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));
}
