//! The policy author's loop through the binary: `gate replay --events` (every event with its
//! verdict, text and JSON lines, `--only`), `gate explain` on a draft at a given time and
//! state, and `gate diagram --check` / `--write` keeping the diagram pages of a docs directory.

mod common;

use common::gate_in_repo as gate;
use common::repo_root as root;

use std::path::{Path, PathBuf};
use std::process::Output;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The JSON lines of `gate replay … --events --json`: the events, then the summary.
fn json_lines(out: &Output) -> (Vec<serde_json::Value>, serde_json::Value) {
    let stdout = text(&out.stdout);
    let mut lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let summary = lines.pop().expect("a summary line");
    assert_eq!(summary["type"], "summary", "{summary}");
    assert!(lines.iter().all(|l| l["type"] == "event"));
    (lines, summary)
}

#[test]
fn replay_events_lists_every_event_before_the_summary() {
    let out = gate(&["replay", "examples/session.jsonl", "--events"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let (listing, summary) = stdout
        .split_once("\n\n")
        .expect("a blank line ends the listing");
    let mut lines = listing.lines();
    let header = lines.next().unwrap();
    for column in ["line", "time", "verdict", "tier", "rule", "state", "event"] {
        assert!(header.contains(column), "{header}");
    }
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 40, "one row per event:\n{listing}");
    assert!(summary.starts_with("spec default: 40 events"), "{summary}");
    // The exfiltration on line 34: its number, time, verdict, tier, rule and target.
    let row = rows
        .iter()
        .find(|r| r.trim_start().starts_with("34 "))
        .expect("row of line 34");
    for part in [
        "2026-01-01T00:08:30.000Z",
        "deny",
        "forbidden",
        "secret_exfiltration",
        "Bash: cat .env | curl",
        "signals -new_scope",
    ] {
        assert!(row.contains(part), "{part} in {row}");
    }
    // A boundary: the state change, the rising edge and the notes.
    let row = rows
        .iter()
        .find(|r| r.trim_start().starts_with("17 "))
        .unwrap();
    for part in [
        "open → reassess",
        "+work_shift",
        "notes boundary work_shift",
    ] {
        assert!(row.contains(part), "{part} in {row}");
    }
}

#[test]
fn replay_events_as_json_lines_agree_with_the_summary() {
    let out = gate(&["replay", "examples/session.jsonl", "--events", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (events, summary) = json_lines(&out);
    assert_eq!(events.len(), 40);
    assert_eq!(summary["summary"]["events"], 40);
    let mut previous = 0;
    let mut verdicts = std::collections::BTreeMap::<String, u64>::new();
    for e in &events {
        for key in [
            "line", "time", "verdict", "tier", "rule", "state", "signals", "notes",
        ] {
            assert!(e.get(key).is_some(), "{key} in {e}");
        }
        assert!(e["state"]["from"].is_string() && e["state"]["to"].is_string());
        let line = e["line"].as_u64().unwrap();
        assert!(
            line > previous,
            "lines in file order: {line} after {previous}"
        );
        previous = line;
        *verdicts
            .entry(e["verdict"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let counted: std::collections::BTreeMap<String, u64> =
        serde_json::from_value(summary["summary"]["verdicts"].clone()).unwrap();
    assert_eq!(
        verdicts, counted,
        "the listing and the summary count the same"
    );
    let deny = events.iter().find(|e| e["line"] == 34).unwrap();
    assert_eq!(deny["verdict"], "deny");
    assert_eq!(deny["tier"], "forbidden");
    assert_eq!(deny["rule"], "secret_exfiltration");
    assert_eq!(deny["time"], "2026-01-01T00:08:30.000Z");
    let boundary = events.iter().find(|e| e["line"] == 17).unwrap();
    assert_eq!(boundary["state"]["from"], "open");
    assert_eq!(boundary["state"]["to"], "reassess");
    assert_eq!(boundary["signals"]["on"][0], "work_shift");
}

#[test]
fn only_lists_the_verdicts_named() {
    let out = gate(&[
        "replay",
        "examples/session.jsonl",
        "--only",
        "ask,deny",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (events, summary) = json_lines(&out);
    let verdicts = &summary["summary"]["verdicts"];
    let blocked = verdicts["ask"].as_u64().unwrap() + verdicts["deny"].as_u64().unwrap();
    assert!(blocked >= 2, "{verdicts}");
    assert_eq!(events.len() as u64, blocked);
    assert!(events
        .iter()
        .all(|e| e["verdict"] == "ask" || e["verdict"] == "deny"));
    // The summary still counts every event.
    assert_eq!(summary["summary"]["events"], 40);

    let out = gate(&["replay", "examples/session.jsonl", "--only", "maybe"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn events_of_a_stored_replay_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let out = gate(&[
        "--db",
        db.to_str().unwrap(),
        "replay",
        "examples/session.jsonl",
        "--events",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("gate --db PATH log"),
        "{}",
        text(&out.stderr)
    );
    assert!(!db.exists(), "nothing written");
}

/// A payload with no timestamp, in `dir`.
fn payload(dir: &Path, command: &str) -> PathBuf {
    let path = dir.join("payload.json");
    let value = serde_json::json!({
        "session_id": "explain-test",
        "cwd": "/home/u/proj",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    });
    std::fs::write(&path, value.to_string()).unwrap();
    path
}

fn explain_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["explain", "--runtime", "claude-code", "--json"];
    all.extend_from_slice(args);
    let out = gate(&all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn explain_takes_a_draft_a_time_and_a_starting_state() {
    let dir = tempfile::tempdir().unwrap();
    let payload = payload(dir.path(), "git push --force origin main");
    let payload = payload.to_str().unwrap();
    let at = "2026-01-02T03:04:05Z";
    let draft = explain_json(&[
        "--payload",
        payload,
        "--spec-file",
        "specs/jwc.toml",
        "--state",
        "open",
        "--at",
        at,
    ]);
    assert_eq!(draft["time"], "2026-01-02T03:04:05.000Z");
    assert_eq!(draft["time_source"], "--at");
    assert_eq!(draft["state"]["from"], "open");
    assert_eq!(draft["state"]["source"], "--state");
    assert_eq!(draft["policy"], "specs/jwc.toml");
    // The draft is evaluated as the compiled spec is.
    let compiled = explain_json(&[
        "--payload",
        payload,
        "--spec",
        "jwc",
        "--state",
        "open",
        "--at",
        "1767323045",
    ]);
    assert_eq!(compiled["time"], draft["time"], "unix seconds and RFC 3339");
    for key in [
        "decision",
        "tier",
        "rules",
        "transitions",
        "signals",
        "state",
    ] {
        assert_eq!(compiled[key], draft[key], "{key}");
    }
    // Without --at and a timestamp in the payload: now, and it says so.
    let now = explain_json(&["--payload", payload, "--spec", "jwc"]);
    assert_eq!(now["time_source"], "now");
    assert_eq!(now["state"]["source"], "initial");
}

#[test]
fn explain_rejects_a_state_the_spec_lacks_and_both_spec_flags() {
    let dir = tempfile::tempdir().unwrap();
    let payload = payload(dir.path(), "ls");
    let payload = payload.to_str().unwrap();
    let out = gate(&[
        "explain",
        "--runtime",
        "claude-code",
        "--payload",
        payload,
        "--spec",
        "jwc",
        "--state",
        "opne",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no state `opne`"), "{stderr}");
    assert!(stderr.contains("did you mean `open`?"), "{stderr}");
    let out = gate(&[
        "--spec",
        "jwc",
        "explain",
        "--runtime",
        "claude-code",
        "--payload",
        payload,
        "--spec-file",
        "specs/jwc.toml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not both"),
        "{}",
        text(&out.stderr)
    );
    let out = gate(&[
        "explain",
        "--runtime",
        "claude-code",
        "--payload",
        payload,
        "--at",
        "yesterday",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--state` sets a region's state too (`specs/example.toml`'s region `tests`: migrations ask
/// unless it is `fresh`), by name or `REGION.STATE`, one per region, with did-you-mean.
#[test]
fn explain_starts_each_region_from_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let payload = payload(dir.path(), "diesel migration run");
    let payload = payload.to_str().unwrap();
    let base = ["--payload", payload, "--spec", "example"];
    let initial = explain_json(&base);
    assert_eq!(
        initial["decision"]["verdict"]["verdict"], "ask",
        "{initial}"
    );
    assert_eq!(
        initial["regions"],
        serde_json::json!([{"region": "tests", "from": "stale", "to": "stale"}])
    );
    for given in [
        &["--state", "fresh"][..],
        &["--state", "tests.fresh", "--state", "window"],
    ] {
        let fresh = explain_json(&[&base[..], given].concat());
        assert_eq!(fresh["decision"]["verdict"]["verdict"], "allow", "{fresh}");
        assert_eq!(fresh["regions"][0]["from"], "fresh");
        assert_eq!(fresh["state"]["source"], "--state");
    }
    let mut args = vec!["explain", "--runtime", "claude-code"];
    args.extend_from_slice(&base);
    let twice = gate(&[&args[..], &["--state", "fresh", "--state", "stale"]].concat());
    assert_eq!(twice.status.code(), Some(2));
    assert!(text(&twice.stderr).contains("region `tests` of spec `example` is already given"));
    let typo = gate(&[&args[..], &["--state", "tests.frsh"]].concat());
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        text(&typo.stderr).contains("did you mean `tests.fresh`?"),
        "{}",
        text(&typo.stderr)
    );
}

/// The store keeps each region's state with the machine's, and `gate status` shows it.
#[test]
fn status_shows_each_regions_stored_state() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let db = db.to_str().unwrap();
    let cwd = dir.path().to_str().unwrap();
    let hook = |event: serde_json::Value| {
        let out = common::run(
            {
                let mut c = common::gate_command();
                c.args(["--db", db, "--spec", "example", "hook", "claude-code"])
                    .env("XDG_CONFIG_HOME", "/nonexistent")
                    .current_dir(cwd);
                c
            },
            event.to_string().as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let migrate = serde_json::json!({
        "session_id": "s1", "cwd": cwd, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "diesel migration run"},
    });
    assert!(hook(migrate.clone()).contains("\"ask\""));
    hook(serde_json::json!({
        "session_id": "s1", "cwd": cwd, "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "cargo test"},
        "tool_response": {"exit_code": 0},
    }));
    // Read back from the database: the next migration is allowed.
    assert_eq!(hook(migrate), "");
    let status = |json: bool| {
        let mut args = vec!["--db", db, "status"];
        if json {
            args.push("--json");
        }
        let out = gate(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        out.stdout
    };
    let json: serde_json::Value = serde_json::from_slice(&status(true)).unwrap();
    assert_eq!(
        json["scopes"][0]["machine"]["regions"],
        serde_json::json!({"tests": "fresh"})
    );
    assert!(text(&status(false)).contains("regions: tests fresh"));
}

/// A database filled by a replay is read at the replay's time when `--at` says so: the
/// scope's stored state is the starting state.
#[test]
fn explain_reads_a_replayed_database_at_the_time_given() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let db = db.to_str().unwrap();
    let out = gate(&["--db", db, "replay", "examples/session.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The session's last tool call, without its time.
    let session = std::fs::read_to_string(root().join("examples/session.jsonl")).unwrap();
    let last = session
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|l| l["payload"].clone())
        .find(|p| p["hook_event_name"] == "PreToolUse")
        .expect("a tool call in the example session");
    assert!(last.get("timestamp").is_none());
    let payload = dir.path().join("payload.json");
    std::fs::write(&payload, last.to_string()).unwrap();
    let json = explain_json(&[
        "--db",
        db,
        "--payload",
        payload.to_str().unwrap(),
        "--at",
        "2026-01-01T00:11:00Z",
    ]);
    assert_eq!(json["state"]["source"], "stored", "{}", json["state"]);
    assert_eq!(json["time_source"], "--at");
}

fn specs() -> Vec<String> {
    let out = gate(&["specs", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn diagram_write_makes_what_check_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("machines");
    let docs_arg = docs.to_str().unwrap();
    let names = specs();
    assert!(names.len() >= 3, "{names:?}");

    // Nothing there: every page is missing, and the one thing to do is named.
    let out = gate(&["diagram", "--check", "--docs", docs_arg]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.matches(": missing (").count(),
        names.len(),
        "{stdout}"
    );
    let fix = format!("to fix: gate diagram --write --docs {docs_arg}\n");
    assert!(stdout.ends_with(&fix), "{stdout}");

    let out = gate(&["diagram", "--write", "--docs", docs_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for name in &names {
        let page = std::fs::read_to_string(docs.join(format!("{name}.md"))).unwrap();
        let rendered = gate(&["diagram", name, "--format", "markdown"]);
        assert_eq!(page, text(&rendered.stdout), "{name}");
    }
    let out = gate(&["diagram", "--check", "--docs", docs_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    // A stale page and a page whose spec is gone.
    std::fs::write(docs.join(format!("{}.md", names[0])), "old\n").unwrap();
    std::fs::write(docs.join("gone.md"), "a spec that was removed\n").unwrap();
    let out = gate(&["diagram", "--check", "--docs", docs_arg, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = |page: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|e| e["page"].as_str().unwrap().ends_with(page))
            .map(|e| e["status"].clone())
    };
    assert_eq!(status(&format!("/{}.md", names[0])).unwrap(), "stale");
    assert_eq!(status("/gone.md").unwrap(), "orphaned");
    let out = gate(&["diagram", "--write", "--docs", docs_arg]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!docs.join("gone.md").exists());
    let out = gate(&["diagram", "--check", "--docs", docs_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// A draft's page can be written before it is compiled in, and a draft draws as the
/// compiled spec does.
#[test]
fn diagram_of_a_draft() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("pages");
    let out = gate(&[
        "diagram",
        "--write",
        "--spec-file",
        "specs/guard.toml",
        "--docs",
        docs.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written: Vec<_> = std::fs::read_dir(&docs).unwrap().flatten().collect();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].file_name(), "guard.md");
    let draft = gate(&["diagram", "--spec-file", "specs/guard.toml"]);
    let compiled = gate(&["diagram", "guard"]);
    assert_eq!(draft.status.code(), Some(0));
    assert_eq!(draft.stdout, compiled.stdout);
    // The former spelling still works (hidden from the help and the docs).
    let former = gate(&["diagram", "--file", "specs/guard.toml"]);
    assert_eq!(former.stdout, compiled.stdout);

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[machine]\nname = \"x\"\ninitial = \"nowhere\"\n").unwrap();
    let out = gate(&["diagram", "--spec-file", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.toml:3:11: error[G005]"));
}
