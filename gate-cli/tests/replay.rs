//! `gate replay` through the binary: every input format, bad lines by number, the choice to
//! stop or go on, interpreted spec files, and a clear error for a spec that is not compiled.

use std::process::Command;

const GATE: &str = env!("CARGO_BIN_EXE_gate");

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn replay(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = Command::new(GATE)
        .arg("replay")
        .args(args)
        .arg("--json")
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
        stderr.contains("bad.toml:3:"),
        "diagnostics with file:line:col: {stderr}"
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
