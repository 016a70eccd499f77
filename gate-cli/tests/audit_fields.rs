//! What the audit records beyond the decision, through the real binary: a post-tool call's
//! error text (redacted, bounded) for every runtime that sends one, the session a runtime
//! names in its environment when the payload has none, and the role of every row; each seen
//! in `gate log` (text and `--json`), `gate audit export` and covered by `gate audit verify`.

mod common;

use std::path::PathBuf;
use std::process::Output;

/// A scratch home with a database path; the environment of the test runner's own agent
/// (if any) is removed, so only what a test sets is seen.
struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    db: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let db = home.join("state/gate.db");
        World {
            _dir: dir,
            home,
            db,
        }
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
        let mut command = common::gate_command();
        command.arg("--db").arg(&self.db).args(args);
        command.current_dir(&self.home);
        command.env("HOME", &self.home).envs(env.iter().copied());
        common::run(command, stdin)
    }

    /// `gate hook RUNTIME [args]` with `payload`: exit 0 and an empty stderr, always.
    fn hook(&self, runtime: &str, args: &[&str], env: &[(&str, &str)], payload: &str) -> Output {
        let mut all = vec!["hook", runtime];
        all.extend_from_slice(args);
        let out = self.run(&all, env, payload.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
        out
    }

    fn log_json(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["log", "-n", "1000", "--json"], &[], b"");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args, &[], b"");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn event_rows(rows: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    rows.iter().filter(|r| r["kind"] == "event").collect()
}

const SECRET: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

/// Each runtime's post-tool error field, as the real clients send it
/// (tests/fixtures/payloads): the text reaches the event row redacted and bounded.
#[test]
fn post_tool_error_text_is_audited_redacted_and_bounded() {
    let world = World::new();
    let long = "y".repeat(20_000);
    let cases: [(&str, &[&str], String, &str); 5] = [
        (
            "claude-code",
            &[],
            format!(
                r#"{{"hook_event_name":"PostToolUseFailure","session_id":"c1","cwd":"/tmp/p","tool_name":"Bash","tool_input":{{"command":"git push"}},"error":"Exit code 128\nfatal: token {SECRET} rejected","is_interrupt":false}}"#
            ),
            "Exit code 128\nfatal: token [REDACTED] rejected",
        ),
        (
            "claude-code",
            &[],
            format!(
                r#"{{"hook_event_name":"PostToolUse","session_id":"c2","cwd":"/tmp/p","tool_name":"Bash","tool_input":{{"command":"make"}},"tool_response":{{"stdout":"","stderr":"warning: {long}","interrupted":false}}}}"#
            ),
            "warning: yyyy",
        ),
        (
            "gemini",
            &[],
            r#"{"hook_event_name":"AfterTool","session_id":"g1","cwd":"/tmp/p","tool_name":"read_file","tool_input":{"file_path":"/tmp/p/missing"},"tool_response":{"llmContent":"","returnDisplay":"","error":{"message":"File not found: /tmp/p/missing","type":"file_not_found"}}}"#.to_string(),
            "File not found: /tmp/p/missing",
        ),
        (
            "copilot",
            &["--event", "postToolUseFailure"],
            r#"{"sessionId":"p1","timestamp":1767225600000,"cwd":"/tmp/p","toolName":"view","toolArgs":{"path":"/tmp/p/missing.txt"},"error":"Path does not exist"}"#.to_string(),
            "Path does not exist",
        ),
        (
            "copilot",
            &["--event", "postToolUse"],
            r#"{"sessionId":"p2","timestamp":1767225600000,"cwd":"/tmp/p","toolName":"bash","toolArgs":{"command":"cargo build"},"toolResult":{"resultType":"failure","textResultForLlm":"error[E0425]: cannot find value `x`"}}"#.to_string(),
            "error[E0425]: cannot find value `x`",
        ),
    ];
    for (runtime, args, payload, _) in &cases {
        world.hook(runtime, args, &[], payload);
    }
    // Codex: a failed command's PostToolUse carries only its output; no error text is taken.
    world.hook(
        "codex",
        &[],
        &[],
        r#"{"hook_event_name":"PostToolUse","session_id":"x1","cwd":"/tmp/p","tool_name":"Bash","tool_input":{"command":"false"},"tool_response":"Exit code: 1\nOutput:\nboom"}"#,
    );
    let rows = world.log_json();
    let events = event_rows(&rows);
    assert_eq!(events.len(), cases.len() + 1);
    for (row, (runtime, _, _, want)) in events.iter().zip(&cases) {
        let error = row["detail"]["error"].as_str().unwrap_or_else(|| {
            panic!("{runtime}: no error text in {row}");
        });
        assert!(error.starts_with(want), "{runtime}: {error:?}");
        assert!(error.len() <= 2048 + 3, "{runtime}: {} bytes", error.len());
    }
    assert!(events[1]["detail"]["error"]
        .as_str()
        .unwrap()
        .ends_with('…'));
    assert!(events[5]["detail"].get("error").is_none(), "{}", events[5]);
    // Nowhere is the secret stored or shown.
    let log = world.ok(&["log", "-n", "1000"]);
    let export = world.ok(&["audit", "export", "--format", "jsonl"]);
    for (what, out) in [("log", &log), ("export", &export)] {
        assert!(!out.contains(SECRET), "{what}");
        assert!(
            out.contains("fatal: token [REDACTED] rejected"),
            "{what}: {out}"
        );
        assert!(out.contains("Path does not exist"), "{what}");
    }
    assert!(log.contains("       error: Exit code 128\n"), "{log}");
    assert!(world.ok(&["audit", "verify"]).contains("audit chain ok"));
}

fn session_of_last_event(world: &World) -> (String, String) {
    let rows = world.log_json();
    let last = event_rows(&rows).last().copied().unwrap().clone();
    (
        last["session"].as_str().unwrap().to_string(),
        last["scope"].as_str().unwrap().to_string(),
    )
}

/// A payload without a session id takes the one the runtime sets in its hook environment
/// (Claude Code `CLAUDE_CODE_SESSION_ID`, Gemini CLI `GEMINI_SESSION_ID`); a payload's own id
/// wins; runtimes that set none (Codex, Copilot) and an empty variable keep the shared
/// `no-session` scope.
#[test]
fn a_call_without_a_session_id_uses_the_runtimes_session_variable() {
    let world = World::new();
    let bash = |extra: &str| {
        format!(
            r#"{{"hook_event_name":"PreToolUse",{extra}"cwd":"/tmp/p","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#
        )
    };
    world.hook(
        "claude-code",
        &[],
        &[("CLAUDE_CODE_SESSION_ID", "env-claude-1")],
        &bash(""),
    );
    assert_eq!(
        session_of_last_event(&world),
        ("env-claude-1".into(), "env-claude-1:main".into())
    );
    world.hook(
        "claude-code",
        &[],
        &[("CLAUDE_CODE_SESSION_ID", "env-claude-1")],
        &bash(r#""session_id":"from-payload","#),
    );
    assert_eq!(session_of_last_event(&world).0, "from-payload");
    world.hook(
        "gemini",
        &[],
        &[("GEMINI_SESSION_ID", "env-gemini-7")],
        r#"{"hook_event_name":"BeforeTool","cwd":"/tmp/p","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#,
    );
    assert_eq!(session_of_last_event(&world).0, "env-gemini-7");
    // Another runtime's variable is not this runtime's session.
    world.hook(
        "gemini",
        &[],
        &[("CLAUDE_CODE_SESSION_ID", "env-claude-1")],
        r#"{"hook_event_name":"BeforeTool","cwd":"/tmp/p","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#,
    );
    assert_eq!(
        session_of_last_event(&world),
        (String::new(), "no-session:main".into())
    );
    for (runtime, args, payload) in [
        ("codex", &[][..], bash("")),
        (
            "copilot",
            &["--event", "preToolUse"][..],
            r#"{"timestamp":1767225600000,"cwd":"/tmp/p","toolName":"bash","toolArgs":{"command":"ls"}}"#.to_string(),
        ),
    ] {
        world.hook(
            runtime,
            args,
            &[
                ("CLAUDE_CODE_SESSION_ID", "env-claude-1"),
                ("GEMINI_SESSION_ID", "env-gemini-7"),
            ],
            &payload,
        );
        assert_eq!(
            session_of_last_event(&world),
            (String::new(), "no-session:main".into()),
            "{runtime}"
        );
    }
    world.hook(
        "claude-code",
        &[],
        &[("CLAUDE_CODE_SESSION_ID", "  ")],
        &bash(""),
    );
    assert_eq!(session_of_last_event(&world).1, "no-session:main");
}

/// Every row of an event carries the role it was evaluated under, from the flag or the
/// environment, and no role when there is none; the chain covers it.
#[test]
fn every_audit_row_records_its_role() {
    let world = World::new();
    let push = r#"{"hook_event_name":"PreToolUse","session_id":"r1","cwd":"/tmp/p","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}"#;
    world.hook("claude-code", &["--role", "director"], &[], push);
    world.hook("claude-code", &[], &[("GATE_ROLE", "worker")], push);
    world.hook("claude-code", &[], &[], push);
    let rows = world.log_json();
    let roles: Vec<(i64, Option<&str>)> = rows
        .iter()
        .map(|r| (r["seq"].as_i64().unwrap(), r["role"].as_str()))
        .collect();
    let events: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r["kind"] == "event")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(events.len(), 3);
    let want = [Some("director"), Some("worker"), None];
    for (n, &start) in events.iter().enumerate() {
        let end = events.get(n + 1).copied().unwrap_or(rows.len());
        for (seq, role) in &roles[start..end] {
            assert_eq!(*role, want[n], "row {seq}");
        }
    }
    let log = world.ok(&["log", "-n", "1000"]);
    assert!(log.contains("role=director Bash"), "{log}");
    assert!(log.contains("role=worker Bash"), "{log}");
    let export = world.ok(&["audit", "export", "--format", "jsonl"]);
    assert!(export.contains(r#""role":"director""#), "{export}");
    assert!(world.ok(&["audit", "verify"]).contains("audit chain ok"));
    // Rewriting a role is an edit of that row.
    let conn = rusqlite::Connection::open(&world.db).unwrap();
    let seq = roles[events[0]].0;
    conn.execute("UPDATE audit SET role = 'worker' WHERE seq = ?1", [seq])
        .unwrap();
    drop(conn);
    let out = world.run(&["audit", "verify", "--json"], &[], b"");
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["first_bad_seq"], seq);
}
