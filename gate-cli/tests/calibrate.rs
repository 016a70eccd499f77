//! Calibration by itself: `gate hook` under the jwc spec, fed windows that real boundaries
//! close, starts a detached `gate calibrate` once enough of them have closed, and the
//! baselines appear in the database without anyone running `gate calibrate`.

mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One hook call with `payload` (the session, cwd and time filled in); exit 0, no stderr.
fn hook(db: &Path, cwd: &Path, now_ms: i64, mut payload: Value) {
    payload["session_id"] = json!("s1");
    payload["cwd"] = json!(cwd.to_str().unwrap());
    payload["timestamp"] = json!(now_ms);
    let mut command = common::gate_command();
    command
        .args([
            "--db",
            db.to_str().unwrap(),
            "hook",
            "claude-code",
            "--spec",
            "jwc",
        ])
        .current_dir(cwd)
        .env("HOME", cwd);
    let out = common::run(command, payload.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

fn call(db: &Path, cwd: &Path, now: &mut i64, tool: &str, input: Value) {
    for event in ["PreToolUse", "PostToolUse"] {
        hook(
            db,
            cwd,
            *now,
            json!({"hook_event_name": event, "tool_name": tool, "tool_input": input,
                   "tool_response": {"stdout": "", "stderr": "", "interrupted": false}}),
        );
        *now += 1000;
    }
}

fn baselines(db: &Path) -> i64 {
    if !db.exists() {
        return 0;
    }
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT COUNT(*) FROM baselines", [], |r| r.get(0))
        .unwrap_or(0)
}

#[test]
fn baselines_are_learned_in_the_background_once_enough_windows_closed() {
    let dir = tempfile::tempdir().unwrap();
    let repo: PathBuf = dir.path().join("proj");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let db = dir.path().join("state/gate.db");
    let mut now = 1_700_000_000_000_i64;
    let file = |name: String| json!({"file_path": repo.join(name).to_str().unwrap()});
    // Ten windows, each closed by the work-shift boundary (edits, then reads), each followed
    // by evidence (a passing test run) that re-arms the next one.
    for w in 0..10 {
        for e in 0..5 {
            call(
                &db,
                &repo,
                &mut now,
                "Edit",
                file(format!("src/w{w}e{e}.rs")),
            );
        }
        assert_eq!(
            baselines(&db),
            0,
            "nothing learned before window {w} closed"
        );
        for r in 0..3 {
            call(
                &db,
                &repo,
                &mut now,
                "Read",
                file(format!("src/w{w}r{r}.rs")),
            );
        }
        call(
            &db,
            &repo,
            &mut now,
            "Bash",
            json!({"command": "cargo test"}),
        );
        now += 30_000;
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let clean: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM windows WHERE closed_by = 'boundary'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(clean >= 10, "{clean} boundary windows");
    let start = Instant::now();
    while baselines(&db) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no background calibration learned a baseline"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (repo_key, kind): (String, String) = conn
        .query_row("SELECT repo, kind FROM baselines", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(repo_key, repo.to_str().unwrap());
    assert_eq!(kind, "edit");
}
