//! `gate replay` through the binary: every input format, bad lines by number, the choice to
//! stop or go on, interpreted spec files, and a clear error for a spec that is not compiled.

mod common;

use common::gate_in_repo as gate;
use common::repo_root as root;

use std::process::Command;

const GATE: &str = env!("CARGO_BIN_EXE_gate");

fn replay(args: &[&str]) -> (i32, serde_json::Value, String) {
    replay_with(args, &[])
}

/// [`replay`] with these environment variables set (the developer's GATE_SPEC and GATE_ROLE
/// never reach a run).
fn replay_with(args: &[&str], env: &[(&str, &str)]) -> (i32, serde_json::Value, String) {
    let out = Command::new(GATE)
        .arg("replay")
        .args(args)
        .arg("--json")
        .env_remove("GATE_SPEC")
        .env_remove("GATE_ROLE")
        .envs(env.iter().copied())
        .env("GATE_DB", "/nonexistent/never-opened/gate.db")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .current_dir(root())
        .output()
        .expect("run gate");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn example_session_summary() {
    let (code, json, stderr) = replay(&["examples/session.jsonl"]);
    assert_eq!(code, 0, "{stderr}");
    let s = &json["summary"];
    assert_eq!(s["spec"], "default");
    assert_eq!(s["events"], 40);
    assert!(s["verdicts"]["deny"].as_u64().unwrap_or(0) >= 1, "{s}");
    assert!(s["verdicts"]["ask"].as_u64().unwrap_or(0) >= 1, "{s}");
    assert!(s["windows_armed"].as_u64().unwrap_or(0) >= 1, "{s}");
    assert!(
        !std::path::Path::new("/nonexistent/never-opened").exists(),
        "replay writes nothing"
    );
}

/// The role changes tier modes in a replay as in a hook call, whether it is given with
/// `--role` or `GATE_ROLE`, in memory or through a database; a role the spec does not define
/// is a usage error.
#[test]
fn role_changes_the_answers() {
    let verdicts = |args: &[&str], env: &[(&str, &str)]| {
        let (code, json, stderr) = replay_with(args, env);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        json["summary"]["verdicts"].clone()
    };
    let session = "examples/session.jsonl";
    let plain = verdicts(&[session], &[]);
    let asks = plain["ask"].as_u64().unwrap_or(0);
    assert!(asks >= 1, "{plain}");
    // director: mode `reversible`, which a replay (copying no files) answers by its fallback:
    // the asks and denies stand, nothing is let through unprotected.
    let director = verdicts(&[session, "--role", "director"], &[]);
    assert_eq!(director["ask"], plain["ask"], "{director}");
    assert_eq!(director["deny"], plain["deny"], "{director}");
    assert_eq!(verdicts(&[session], &[("GATE_ROLE", "director")]), director);
    // worker: high-tier actions are gated.
    let worker = verdicts(&[session, "--role", "worker"], &[]);
    assert_ne!(worker, plain);
    // Through a database, the same answers.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("replay.db");
    let stored = verdicts(
        &[session, "--role", "director", "--db", db.to_str().unwrap()],
        &[],
    );
    assert_eq!(stored, director);

    let (code, _, stderr) = replay(&[session, "--role", "nobody"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("role `nobody`") && stderr.contains("director, worker"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn claude_code_transcript() {
    let (code, json, stderr) = replay(&["tests/fixtures/transcript.jsonl", "--spec", "guard"]);
    assert_eq!(code, 0, "{stderr}");
    let s = &json["summary"];
    // 1 prompt, 3 tool uses, 2 tool results; the summary line is not an event.
    assert_eq!(s["events"], 6, "{s}");
    let blocked =
        s["verdicts"]["ask"].as_u64().unwrap_or(0) + s["verdicts"]["deny"].as_u64().unwrap_or(0);
    assert_eq!(blocked, 2, "rm -rf ~/ and the force push are withheld: {s}");
}

#[test]
fn bad_lines_are_reported_and_skipped_or_stop_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mixed.jsonl");
    let good = r#"{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    std::fs::write(&file, format!("{good}\nnot json\n[1]\n{good}\n")).unwrap();
    let path = file.to_str().unwrap();
    let (code, json, _) = replay(&[path]);
    assert_eq!(code, 1, "bad lines are findings");
    assert_eq!(json["summary"]["events"], 2);
    let lines: Vec<u64> = json["bad_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![2, 3]);
    let (code, _, stderr) = replay(&[path, "--stop-on-error"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("line 2"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one-line error: {stderr}");
}

#[test]
fn spec_file_is_interpreted_and_checked() {
    let (code, json, stderr) =
        replay(&["examples/session.jsonl", "--spec-file", "specs/guard.toml"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["summary"]["spec"], "guard");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[machine]\nname = \"x\"\ninitial = \"nowhere\"\n").unwrap();
    let (code, _, stderr) = replay(&[
        "examples/session.jsonl",
        "--spec-file",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("bad.toml:3:11: error[G005]: unknown state `nowhere`"),
        "diagnostics with file:line:col: {stderr}"
    );
    // The whole caret block, as `gate check` prints it, after the one-line error.
    assert!(
        stderr.starts_with("gate: ") && stderr.contains("is not a valid spec"),
        "{stderr}"
    );
    assert!(
        stderr.contains("3 | initial = \"nowhere\"\n  |           ^^^^^^^^^"),
        "caret block kept: {stderr}"
    );
}

#[test]
fn unknown_spec_lists_the_compiled_ones() {
    let (code, _, stderr) = replay(&["examples/session.jsonl", "--spec", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no compiled spec named `nope`"), "{stderr}");
    assert!(
        stderr.contains("guard") && stderr.contains("jwc"),
        "{stderr}"
    );
}

#[test]
fn missing_file_is_a_clear_error() {
    let (code, _, stderr) = replay(&["does/not/exist.jsonl"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("gate: cannot read does/not/exist.jsonl"),
        "{stderr}"
    );
}

#[test]
fn db_flag_stores_what_the_hooks_would_have() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("replay.db");
    let db_arg = db.to_str().unwrap();
    let (code, memory, stderr) = replay(&["examples/session.jsonl"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stored, stderr) = replay(&["examples/session.jsonl", "--db", db_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stored["summary"], memory["summary"], "same answers");
    assert_eq!(stored["db"]["stored_events"], 40);
    assert_eq!(stored["db"]["transactions"], 1);
    assert!(memory.get("db").is_none());

    let out = gate(&["--db", db_arg, "audit", "verify", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let verify: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = verify["rows_ok"].as_u64().unwrap_or(0);
    assert!(rows >= 40, "one event row per event, and notes: {verify}");
    let out = gate(&["--db", db_arg, "log", "-n", "1000", "--json"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "event")
        .count();
    assert_eq!(events, 40, "{log}");
    // The asks of the session were recorded as grants (expired by now: the session is old).
    let store = gate_runtime::store::Store::open_read_only(&db).unwrap();
    let grants = store.grants(0, false).unwrap();
    assert!(!grants.is_empty(), "asks create grants");
    drop(store);

    // A second replay goes on from the stored states: the chain grows and still verifies.
    let (code, again, stderr) = replay(&["examples/session.jsonl", "--db", db_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(again["db"]["stored_events"], 40);
    let out = gate(&["--db", db_arg, "audit", "verify", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let verify: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(verify["rows_ok"].as_u64().unwrap_or(0) > rows);
}

#[test]
fn unusable_db_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let blocked = dir.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let under_a_file = blocked.join("gate.db");
    for db in [&junk, &under_a_file] {
        let out = gate(&[
            "replay",
            "examples/session.jsonl",
            "--db",
            db.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "environment error: {stderr}");
        assert!(
            stderr.starts_with("gate: cannot use the database ")
                && stderr.contains(db.to_str().unwrap()),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(out.stdout.is_empty(), "no summary for a failed replay");
    }
}

#[test]
fn progress_only_when_asked_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let out = gate(&["replay", "examples/session.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "stderr is not a terminal here");
    let out = gate(&[
        "replay",
        "examples/session.jsonl",
        "--progress",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = stderr.lines().count();
    assert!(
        stderr.ends_with("(100%), 40 events stored\n"),
        "a last line with the totals: {stderr}"
    );
    assert_eq!(stderr.matches('\r').count(), 0, "{lines} plain lines");
}

#[test]
fn stop_on_error_with_db_keeps_what_came_before() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mixed.jsonl");
    let good = r#"{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    std::fs::write(&file, format!("{good}\n{good}\nnot json\n{good}\n")).unwrap();
    let db = dir.path().join("stop.db");
    let out = gate(&[
        "replay",
        file.to_str().unwrap(),
        "--stop-on-error",
        "--db",
        db.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");
    let store = gate_runtime::store::Store::open_read_only(&db).unwrap();
    let events = store
        .audit_rows(&gate_runtime::store::AuditFilter {
            kind: Some(gate_runtime::store::AuditKind::Event),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(events.len(), 2, "the two lines before the bad one");
}

/// A new database is built aside and moved into place whole: nothing but the database and
/// its key is left, and while another process builds it, a second replay is refused.
#[test]
fn a_new_db_is_built_aside_and_published() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let db_arg = db.to_str().unwrap();
    let (code, _, stderr) = replay(&["examples/session.jsonl", "--db", db_arg]);
    assert_eq!(code, 0, "{stderr}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["new.db", "new.key"]);
    let out = gate(&["--db", db_arg, "audit", "verify", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    // Another process holds the build of a second database.
    let other = dir.path().join("other.db");
    let partial = gate_runtime::store::partial_path(&other).unwrap();
    let held = std::fs::File::create(&partial).unwrap();
    held.lock().unwrap();
    let out = gate(&[
        "replay",
        "examples/session.jsonl",
        "--db",
        other.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("another process is building it"),
        "{stderr}"
    );
    assert!(!other.exists());
    drop(held);
    // Once it is let go, the leftover is started over.
    let out = gate(&[
        "replay",
        "examples/session.jsonl",
        "--db",
        other.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(other.exists() && !partial.exists());
}
