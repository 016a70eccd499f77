//! Adapter tests: every recorded payload normalises to the right phase, tool and target, and
//! each runtime's answers are pinned per verdict (golden JSON).

use super::*;
use gate_runtime::event::Status;
use std::path::PathBuf;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/payloads")
}

fn runtime_of_dir(dir: &str) -> Runtime {
    match dir {
        "claude" => Runtime::ClaudeCode,
        "codex" => Runtime::Codex,
        "gemini" => Runtime::Gemini,
        "copilot" => Runtime::Copilot,
        other => panic!("unexpected fixture directory {other}"),
    }
}

/// Normalise a fixture as the installed hook would: Copilot gets `--event <name>` from the
/// file name (its camelCase payloads carry no event name).
fn load(dir: &str, file: &str) -> Event {
    let path = fixtures_dir().join(dir).join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let event_name = file.trim_end_matches(".json").split('-').next().unwrap();
    let runtime = runtime_of_dir(dir);
    let hint = (runtime == Runtime::Copilot).then_some(event_name);
    normalize(runtime, &bytes, hint).unwrap_or_else(|e| panic!("{dir}/{file}: {e}"))
}

#[test]
fn every_fixture_normalises_to_its_phase() {
    let mut seen = 0;
    for dir in ["claude", "codex", "gemini", "copilot"] {
        let mut files: Vec<String> = std::fs::read_dir(fixtures_dir().join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f.ends_with(".json"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no fixtures for {dir}");
        for file in files {
            let event = load(dir, &file);
            let name = file.trim_end_matches(".json").split('-').next().unwrap();
            let mut expected = phase_of(name);
            if expected == Phase::PostTool && event.status == Some(Status::Failure) {
                expected = Phase::PostToolFailure;
            }
            assert_eq!(event.phase, Some(expected), "{dir}/{file}");
            assert_eq!(event.runtime, Some(runtime_of_dir(dir)), "{dir}/{file}");
            assert!(event.session_id.is_some(), "{dir}/{file}: session id");
            assert_eq!(
                event.cwd.as_deref(),
                Some("/home/user/proj"),
                "{dir}/{file}"
            );
            if matches!(
                expected,
                Phase::PreTool | Phase::PostTool | Phase::PostToolFailure
            ) {
                assert!(event.tool.is_some(), "{dir}/{file}: tool");
                assert!(event.target.is_some(), "{dir}/{file}: target");
                assert!(event.class.is_some(), "{dir}/{file}: class");
            }
            if matches!(expected, Phase::PostTool | Phase::PostToolFailure) && dir != "codex" {
                assert!(event.status.is_some(), "{dir}/{file}: status");
            }
            seen += 1;
        }
    }
    assert!(seen >= 80, "only {seen} fixtures");
}

struct Expect {
    dir: &'static str,
    file: &'static str,
    phase: Phase,
    tool: Option<&'static str>,
    class: Option<ActionClass>,
    target: Option<&'static str>,
    status: Option<Status>,
}

const F: &str = "/home/user/proj/scratch/f.txt";

#[test]
fn fixtures_have_the_right_tool_target_and_status() {
    use ActionClass::*;
    use Phase::*;
    let cases = [
        Expect {
            dir: "claude",
            file: "PreToolUse-Bash.json",
            phase: PreTool,
            tool: Some("Bash"),
            class: Some(Exec),
            target: Some("false"),
            status: None,
        },
        Expect {
            dir: "claude",
            file: "PreToolUse-Write.json",
            phase: PreTool,
            tool: Some("Write"),
            class: Some(Write),
            target: Some(F),
            status: None,
        },
        Expect {
            dir: "claude",
            file: "PreToolUse-Read.json",
            phase: PreTool,
            tool: Some("Read"),
            class: Some(Read),
            target: Some(F),
            status: None,
        },
        Expect {
            dir: "claude",
            file: "PostToolUse-Edit.json",
            phase: PostTool,
            tool: Some("Edit"),
            class: Some(Write),
            target: Some(F),
            status: Some(Status::Success),
        },
        Expect {
            dir: "claude",
            file: "PostToolUseFailure-Bash.json",
            phase: PostToolFailure,
            tool: Some("Bash"),
            class: Some(Exec),
            target: Some("false"),
            status: Some(Status::Failure),
        },
        Expect {
            dir: "claude",
            file: "UserPromptSubmit.json",
            phase: Prompt,
            tool: None,
            class: None,
            target: Some("run it"),
            status: None,
        },
        Expect {
            dir: "claude",
            file: "Stop.json",
            phase: Stop,
            tool: None,
            class: None,
            target: None,
            status: None,
        },
        Expect {
            dir: "claude",
            file: "PermissionRequest-Bash.json",
            phase: Phase::Other,
            tool: Some("Bash"),
            class: Some(Exec),
            target: Some("touch /home/user/proj/scratch/ran"),
            status: None,
        },
        Expect {
            dir: "codex",
            file: "PreToolUse-Bash.json",
            phase: PreTool,
            tool: Some("Bash"),
            class: Some(Exec),
            target: Some("cat /home/user/proj/scratch/f.txt"),
            status: None,
        },
        Expect {
            dir: "codex",
            file: "PreToolUse-apply_patch.json",
            phase: PreTool,
            tool: Some("apply_patch"),
            class: Some(Write),
            target: Some(F),
            status: None,
        },
        Expect {
            dir: "codex",
            file: "PostToolUse-apply_patch-update.json",
            phase: PostTool,
            tool: Some("apply_patch"),
            class: Some(Write),
            target: Some(F),
            status: Some(Status::Success),
        },
        Expect {
            dir: "codex",
            file: "PostToolUse-Bash.json",
            phase: PostTool,
            tool: Some("Bash"),
            class: Some(Exec),
            target: Some("cat /home/user/proj/scratch/f.txt"),
            // No exit status: `cat` alone on the line printed the file and no failure
            // (gate_runtime::evidence).
            status: Some(Status::Success),
        },
        Expect {
            dir: "gemini",
            file: "BeforeTool-run_shell_command.json",
            phase: PreTool,
            tool: Some("run_shell_command"),
            class: Some(Exec),
            target: Some("rm -rf /home/user/proj/scratch/victim"),
            status: None,
        },
        Expect {
            dir: "gemini",
            file: "BeforeTool-replace.json",
            phase: PreTool,
            tool: Some("replace"),
            class: Some(Write),
            target: Some(F),
            status: None,
        },
        Expect {
            dir: "gemini",
            file: "AfterTool-read_file.json",
            phase: PostTool,
            tool: Some("read_file"),
            class: Some(Read),
            target: Some(F),
            status: Some(Status::Success),
        },
        Expect {
            dir: "gemini",
            file: "AfterTool-run_shell_command-nonzero-exit.json",
            phase: PostToolFailure,
            tool: Some("run_shell_command"),
            class: Some(Exec),
            target: Some("false"),
            status: Some(Status::Failure),
        },
        Expect {
            dir: "gemini",
            file: "AfterAgent.json",
            phase: Stop,
            tool: None,
            class: None,
            target: None,
            status: None,
        },
        Expect {
            dir: "gemini",
            file: "BeforeAgent.json",
            phase: Prompt,
            tool: None,
            class: None,
            target: Some("run it"),
            status: None,
        },
        Expect {
            dir: "gemini",
            file: "PreCompress.json",
            phase: Compact,
            tool: None,
            class: None,
            target: None,
            status: None,
        },
        Expect {
            dir: "copilot",
            file: "preToolUse-bash.json",
            phase: PreTool,
            tool: Some("bash"),
            class: Some(Exec),
            target: Some("rm -rf /home/user/proj/scratch/victim"),
            status: None,
        },
        Expect {
            dir: "copilot",
            file: "preToolUse-create.json",
            phase: PreTool,
            tool: Some("create"),
            class: Some(Write),
            target: Some(F),
            status: None,
        },
        Expect {
            dir: "copilot",
            file: "postToolUse-view.json",
            phase: PostTool,
            tool: Some("view"),
            class: Some(Read),
            target: Some(F),
            status: Some(Status::Success),
        },
        Expect {
            dir: "copilot",
            file: "postToolUse-bash-nonzero-exit.json",
            phase: PostToolFailure,
            tool: Some("bash"),
            class: Some(Exec),
            target: Some("false"),
            status: Some(Status::Failure),
        },
        Expect {
            dir: "copilot",
            file: "postToolUseFailure-view-missing-file.json",
            phase: PostToolFailure,
            tool: Some("view"),
            class: Some(Read),
            target: Some("/home/user/proj/scratch/missing.txt"),
            status: Some(Status::Failure),
        },
        Expect {
            dir: "copilot",
            file: "userPromptSubmitted.json",
            phase: Prompt,
            tool: None,
            class: None,
            target: Some("run it"),
            status: None,
        },
        Expect {
            dir: "copilot",
            file: "agentStop.json",
            phase: Stop,
            tool: None,
            class: None,
            target: None,
            status: None,
        },
        Expect {
            dir: "copilot",
            file: "PreToolUse-Write.json",
            phase: PreTool,
            tool: Some("Write"),
            class: Some(Write),
            target: Some(F),
            status: None,
        },
        Expect {
            dir: "copilot",
            file: "PostToolUse-Bash-nonzero-exit.json",
            phase: PostToolFailure,
            tool: Some("Bash"),
            class: Some(Exec),
            target: Some("false"),
            status: Some(Status::Failure),
        },
        Expect {
            dir: "copilot",
            file: "PostToolUseFailure-Read-missing-file.json",
            phase: PostToolFailure,
            tool: Some("Read"),
            class: Some(Read),
            target: Some("/home/user/proj/scratch/missing.txt"),
            status: Some(Status::Failure),
        },
    ];
    for c in cases {
        let e = load(c.dir, c.file);
        let at = format!("{}/{}", c.dir, c.file);
        assert_eq!(e.phase, Some(c.phase), "{at}: phase");
        assert_eq!(e.tool.as_deref(), c.tool, "{at}: tool");
        assert_eq!(e.class, c.class, "{at}: class");
        assert_eq!(e.target.as_deref(), c.target, "{at}: target");
        assert_eq!(e.status, c.status, "{at}: status");
    }
}

#[test]
fn file_tools_and_patches_list_their_paths() {
    assert_eq!(
        load("claude", "PreToolUse-Write.json").paths,
        vec![F.to_string()]
    );
    assert_eq!(
        load("copilot", "preToolUse-edit.json").paths,
        vec![F.to_string()]
    );
    assert_eq!(
        load("codex", "PreToolUse-apply_patch.json").paths,
        vec![F.to_string()]
    );
    assert!(load("claude", "PreToolUse-Bash.json").paths.is_empty());
}

#[test]
fn patch_paths_cover_add_update_delete_and_move() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-y\n+z\n*** Delete File: d.txt\n*** Update File: a.txt\n*** End Patch\n";
    let files = codex::patch_files(patch);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "b.txt", "c.txt", "d.txt"]);
    assert_eq!(files[3].op, codex::PatchOp::Delete);
    let payload = br#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Delete File: old.rs\n*** End Patch\n"}}"#;
    let e = normalize(Runtime::Codex, payload, None).unwrap();
    assert_eq!(e.class, Some(ActionClass::Delete));
    assert_eq!(e.paths, vec!["old.rs".to_string()]);
}

#[test]
fn codex_accepts_cmd_and_reads_exit_codes() {
    let payload = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"cmd":["git","status"]}}"#;
    let e = normalize(Runtime::Codex, payload, None).unwrap();
    assert_eq!(e.target.as_deref(), Some("git status"));
    let payload = br#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"false"},"tool_response":"Exit code: 1\nOutput:\n"}"#;
    let e = normalize(Runtime::Codex, payload, None).unwrap();
    assert_eq!(e.status, Some(Status::Failure));
    assert_eq!(e.phase, Some(Phase::PostToolFailure));
}

#[test]
fn copilot_tool_args_may_be_a_json_string() {
    let payload = br#"{"sessionId":"s","timestamp":1767225600000,"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"ls -la\"}"}"#;
    let e = normalize(Runtime::Copilot, payload, Some("preToolUse")).unwrap();
    assert_eq!(e.phase, Some(Phase::PreTool));
    assert_eq!(e.target.as_deref(), Some("ls -la"));
    assert_eq!(e.timestamp_ms, Some(1_767_225_600_000));
}

#[test]
fn copilot_camel_case_without_a_hint_is_an_error() {
    let bytes = std::fs::read(fixtures_dir().join("copilot/preToolUse-bash.json")).unwrap();
    assert_eq!(
        normalize(Runtime::Copilot, &bytes, None),
        Err(AdapterError::NoEventName)
    );
}

#[test]
fn bad_payloads_are_errors_not_panics() {
    assert!(matches!(
        normalize(Runtime::ClaudeCode, b"not json", None),
        Err(AdapterError::NotJson(_))
    ));
    assert_eq!(
        normalize(Runtime::ClaudeCode, b"[1,2]", None),
        Err(AdapterError::NotObject)
    );
    assert_eq!(
        normalize(Runtime::Gemini, b"{}", None),
        Err(AdapterError::NoEventName)
    );
    let e = normalize(
        Runtime::ClaudeCode,
        br#"{"hook_event_name":"PreToolUse","tool_name":7,"tool_input":[1]}"#,
        None,
    )
    .unwrap();
    assert_eq!(e.tool, None);
    assert_eq!(e.target, None);
}

#[test]
fn timestamps_parse_to_epoch_milliseconds() {
    assert_eq!(
        load("gemini", "BeforeAgent.json").timestamp_ms,
        Some(1_767_225_600_000)
    );
    assert_eq!(
        load("copilot", "sessionStart.json").timestamp_ms,
        Some(1_767_225_600_000)
    );
    assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        parse_rfc3339_ms("2000-02-29T12:30:15.250+01:00"),
        Some(951_823_815_250)
    );
    assert_eq!(parse_rfc3339_ms("2026-13-01T00:00:00Z"), None);
    assert_eq!(parse_rfc3339_ms("yesterday"), None);
}

#[test]
fn claude_subagent_and_permission_mode_fields() {
    let payload = br#"{"hook_event_name":"PreToolUse","session_id":"s","agent_id":"a1","agent_type":"worker","permission_mode":"bypassPermissions","tool_name":"WebFetch","tool_input":{"url":"https://example.org","prompt":"x"}}"#;
    let e = normalize(Runtime::ClaudeCode, payload, None).unwrap();
    assert_eq!(e.agent_id.as_deref(), Some("a1"));
    assert_eq!(e.agent_type.as_deref(), Some("worker"));
    assert!(e.bypasses_permissions());
    assert_eq!(e.class, Some(ActionClass::Network));
    assert_eq!(e.target.as_deref(), Some("https://example.org"));
    let mcp = br#"{"hook_event_name":"PreToolUse","tool_name":"mcp__github__create_issue","tool_input":{}}"#;
    assert_eq!(
        normalize(Runtime::ClaudeCode, mcp, None).unwrap().class,
        Some(ActionClass::Mcp)
    );
}

// ---- golden answers -------------------------------------------------------------------

fn steer(text: &str) -> Decision {
    Decision {
        verdict: Verdict::Steer { text: text.into() },
        carried: None,
    }
}
fn ask() -> Decision {
    Decision {
        verdict: Verdict::Ask {
            reason: "protected: run `gate approve 7f3a`".into(),
            grant_id: "7f3a".into(),
        },
        carried: None,
    }
}
fn deny() -> Decision {
    Decision {
        verdict: Verdict::Deny {
            reason: "no force push".into(),
        },
        carried: None,
    }
}

fn answer(dir: &str, file: &str, decision: &Decision) -> Option<String> {
    let event = load(dir, file);
    render(event.runtime.unwrap(), &event, decision)
}

#[test]
fn allow_prints_nothing_on_every_runtime() {
    for (dir, file) in [
        ("claude", "PreToolUse-Bash.json"),
        ("codex", "PreToolUse-Bash.json"),
        ("gemini", "BeforeTool-run_shell_command.json"),
        ("copilot", "preToolUse-bash.json"),
        ("copilot", "PreToolUse-Bash.json"),
    ] {
        assert_eq!(answer(dir, file, &Decision::allow()), None, "{dir}/{file}");
    }
}

#[test]
fn golden_claude() {
    let pre = "PreToolUse-Bash.json";
    assert_eq!(
        answer("claude", pre, &steer("slow down")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"slow down"}}"#
    );
    assert_eq!(
        answer("claude", pre, &ask()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"protected: run `gate approve 7f3a`"}}"#
    );
    assert_eq!(
        answer("claude", pre, &deny()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force push"}}"#
    );
    assert_eq!(
        answer("claude", "PostToolUse-Bash.json", &steer("noted")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"noted"}}"#
    );
    assert_eq!(
        answer("claude", "Stop.json", &deny()).unwrap(),
        r#"{"decision":"block","reason":"no force push"}"#
    );
    assert_eq!(answer("claude", "Stop.json", &steer("x")), None);
    assert_eq!(answer("claude", "SessionEnd.json", &deny()), None);
}

#[test]
fn claude_ask_in_bypass_mode_is_a_deny() {
    let mut event = load("claude", "PreToolUse-Bash.json");
    event.permission_mode = Some("bypassPermissions".into());
    assert_eq!(
        render(Runtime::ClaudeCode, &event, &ask()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"protected: run `gate approve 7f3a`"}}"#
    );
}

#[test]
fn stop_block_never_loops() {
    for (dir, file, runtime) in [
        ("claude", "Stop.json", Runtime::ClaudeCode),
        ("codex", "Stop.json", Runtime::Codex),
        ("gemini", "AfterAgent.json", Runtime::Gemini),
        ("copilot", "agentStop.json", Runtime::Copilot),
        ("copilot", "Stop.json", Runtime::Copilot),
    ] {
        let mut event = load(dir, file);
        assert_eq!(
            render(runtime, &event, &deny()).unwrap(),
            r#"{"decision":"block","reason":"no force push"}"#,
            "{dir}/{file}"
        );
        event.stop_hook_active = true;
        assert_eq!(render(runtime, &event, &deny()), None, "{dir}/{file}");
    }
}

#[test]
fn golden_codex() {
    let pre = "PreToolUse-Bash.json";
    assert_eq!(
        answer("codex", pre, &steer("slow down")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"slow down"}}"#
    );
    assert_eq!(
        answer("codex", pre, &ask()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"protected: run `gate approve 7f3a`"}}"#
    );
    assert_eq!(
        answer("codex", pre, &deny()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force push"}}"#
    );
    assert_eq!(
        answer("codex", "PostToolUse-Bash.json", &deny()).unwrap(),
        r#"{"decision":"block","reason":"no force push"}"#
    );
    assert_eq!(
        answer(
            "codex",
            "PostToolUse-Bash-nonzero-exit.json",
            &steer("retry?")
        )
        .unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"retry?"}}"#
    );
    assert_eq!(
        answer("codex", "SessionStart.json", &steer("hello")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"hello"}}"#
    );
}

#[test]
fn golden_gemini() {
    let pre = "BeforeTool-run_shell_command.json";
    assert_eq!(answer("gemini", pre, &steer("slow down")), None);
    assert_eq!(
        answer("gemini", pre, &ask()).unwrap(),
        r#"{"decision":"deny","reason":"protected: run `gate approve 7f3a`"}"#
    );
    assert_eq!(
        answer("gemini", pre, &deny()).unwrap(),
        r#"{"decision":"deny","reason":"no force push"}"#
    );
    let carried = Decision {
        verdict: Verdict::Allow,
        carried: Some("from before".into()),
    };
    assert_eq!(
        answer("gemini", "AfterTool-run_shell_command.json", &carried).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"from before"}}"#
    );
    let both = Decision {
        verdict: Verdict::Steer { text: "now".into() },
        carried: Some("from before".into()),
    };
    assert_eq!(
        answer("gemini", "BeforeAgent.json", &both).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"from before\n\nnow"}}"#
    );
    assert_eq!(
        answer("gemini", "BeforeTool-write_file.json", &carried),
        None
    );
    assert_eq!(
        answer("gemini", "SessionStart.json", &steer("hi")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"hi"}}"#
    );
}

#[test]
fn golden_copilot() {
    for pre in ["preToolUse-bash.json", "PreToolUse-Bash.json"] {
        assert_eq!(
            answer("copilot", pre, &steer("slow down")).unwrap(),
            r#"{"additionalContext":"slow down"}"#
        );
        assert_eq!(
            answer("copilot", pre, &ask()).unwrap(),
            r#"{"permissionDecision":"ask","permissionDecisionReason":"protected: run `gate approve 7f3a`"}"#
        );
        assert_eq!(
            answer("copilot", pre, &deny()).unwrap(),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"no force push"}"#
        );
    }
    assert_eq!(
        answer("copilot", "postToolUse-bash.json", &steer("noted")).unwrap(),
        r#"{"additionalContext":"noted"}"#
    );
    assert_eq!(
        answer("copilot", "PostToolUse-Bash.json", &steer("noted")).unwrap(),
        r#"{"additionalContext":"noted"}"#
    );
    assert_eq!(
        answer("copilot", "sessionStart.json", &steer("hi")).unwrap(),
        r#"{"additionalContext":"hi"}"#
    );
    assert_eq!(
        answer("copilot", "permissionRequest-bash.json", &deny()).unwrap(),
        r#"{"behavior":"deny","message":"no force push"}"#
    );
    assert_eq!(
        answer("copilot", "permissionRequest-bash.json", &ask()),
        None
    );
    assert_eq!(answer("copilot", "sessionEnd.json", &deny()), None);
}

#[test]
fn file_tools_carry_the_text_they_write() {
    for (dir, file, text) in [
        ("claude", "PreToolUse-Write.json", "alpha\n"),
        ("claude", "PreToolUse-Edit.json", "beta"),
        ("gemini", "BeforeTool-write_file.json", "alpha\n"),
        ("gemini", "BeforeTool-replace.json", "beta"),
        ("copilot", "preToolUse-create.json", "alpha\n"),
        ("copilot", "preToolUse-edit.json", "beta"),
    ] {
        assert_eq!(
            load(dir, file).written.as_deref(),
            Some(text),
            "{dir}/{file}"
        );
    }
    // A Codex patch: the lines it adds.
    assert_eq!(
        load("codex", "PreToolUse-apply_patch.json")
            .written
            .as_deref(),
        Some("alpha\n")
    );
    // Reads and shells carry none.
    assert_eq!(load("claude", "PreToolUse-Read.json").written, None);
    assert_eq!(load("claude", "PreToolUse-Bash.json").written, None);
    // Every edit of a multi-edit, one per line.
    let payload = br#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"MultiEdit","tool_input":{"file_path":"/p/a","edits":[{"old_string":"a","new_string":"one"},{"old_string":"b","new_string":"two"}]}}"#;
    let event = normalize(Runtime::ClaudeCode, payload, None).expect("a payload");
    assert_eq!(event.written.as_deref(), Some("one\ntwo"));
}

/// Every recorded payload of a built-in tool has all its keys in the role table: nothing of
/// theirs is a mention, so an ordinary call reads no stray string.
#[test]
fn built_in_tools_have_no_stray_fields() {
    for dir in ["claude", "codex", "gemini", "copilot"] {
        for entry in std::fs::read_dir(fixtures_dir().join(dir)).unwrap() {
            let file = entry.unwrap().file_name().into_string().unwrap();
            let event = load(dir, &file);
            assert!(
                event.mentions.is_empty(),
                "{dir}/{file}: {:?}",
                event.mentions
            );
            assert!(
                event.commands.is_empty(),
                "{dir}/{file}: {:?}",
                event.commands
            );
        }
    }
}

/// A tool's input read by its keys' roles, whatever the tool is called.
#[test]
fn tool_inputs_are_read_by_the_roles_of_their_keys() {
    let read = |runtime: Runtime, hint: Option<&str>, payload: &str| {
        normalize(runtime, payload.as_bytes(), hint).unwrap()
    };
    // The working directory of a shell tool, and the keystrokes a shell driver sends.
    let e = read(
        Runtime::Codex,
        None,
        r#"{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":"rm -f settings.json","workdir":".claude"}}"#,
    );
    assert_eq!(e.target.as_deref(), Some("rm -f settings.json"));
    assert_eq!(e.workdir.as_deref(), Some(".claude"));
    assert!(
        e.commands.is_empty(),
        "the command is the target: {:?}",
        e.commands
    );
    for key in [
        "dir_path",
        "directory",
        "working_directory",
        "workingDirectory",
        "cwd",
    ] {
        let payload = format!(
            r#"{{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{{"command":"ls","{key}":"/p/.gemini"}}}}"#
        );
        assert_eq!(
            read(Runtime::Gemini, None, &payload).workdir.as_deref(),
            Some("/p/.gemini"),
            "{key}"
        );
    }
    let e = read(
        Runtime::Copilot,
        Some("preToolUse"),
        r#"{"toolName":"write_bash","toolArgs":"{\"sessionId\":\"a\",\"input\":\"rm -rf .claude\\n\"}"}"#,
    );
    assert_eq!(e.class, Some(ActionClass::Exec));
    assert_eq!(e.target.as_deref(), Some("rm -rf .claude\n"));
    let e = read(
        Runtime::ClaudeCode,
        None,
        r#"{"hook_event_name":"PreToolUse","tool_name":"mcp__tmux__send_keys","tool_input":{"keys":"rm -rf .claude"}}"#,
    );
    assert_eq!(e.commands, ["rm -rf .claude"]);
    // Text in a tool that drives no shell is only text.
    let e = read(
        Runtime::ClaudeCode,
        None,
        r#"{"hook_event_name":"PreToolUse","tool_name":"mcp__notes__append","tool_input":{"text":"rm -rf .claude"}}"#,
    );
    assert!(e.commands.is_empty(), "{:?}", e.commands);
    // Path keys at any depth, `file://` URIs, lists; shell text with its arguments.
    let e = read(
        Runtime::ClaudeCode,
        None,
        r#"{"hook_event_name":"PreToolUse","tool_name":"mcp__fs__frob","tool_input":{
            "filepath":"a","pathname":"b","src":"c","dest":"d","uri":"file:///p/e%20f",
            "url":"https://example.com/x","files":["g","h"],"opts":{"path":"i"},
            "command":"git","args":["clean","-fdx"],"steps":[{"cmd":["rm","-rf","j"]}],
            "thing":"~/.claude.json","note":"see the notes","n":3,"title":"/etc/passwd"}}"#,
    );
    assert_eq!(
        e.paths,
        ["a", "b", "c", "d", "/p/e f", "g", "h", "i"],
        "{:?}",
        e.paths
    );
    assert_eq!(
        e.commands,
        ["git clean -fdx", "rm -rf j"],
        "{:?}",
        e.commands
    );
    assert_eq!(e.mentions, ["~/.claude.json"], "{:?}", e.mentions);
    // A file tool of an MCP server that runs nothing acts on the directory it names.
    let e = read(
        Runtime::Gemini,
        None,
        r#"{"hook_event_name":"BeforeTool","tool_name":"mcp__fs__delete","tool_input":{"dir":".claude"}}"#,
    );
    assert_eq!(e.workdir.as_deref(), Some(".claude"));
    assert_eq!(e.paths, [".claude"]);
}
