//! Catastrophic targets through the real binary: deleting, moving, overwriting or
//! re-permissioning the file-system root or the home directory itself, and formatting or
//! writing a whole disk, are denied (never asked, steered or let through) under every shipped
//! spec, with every role the spec declares and with none, on every runtime.

mod common;

use std::process::Output;

/// The forms: the root, the home directory by every spelling, a whole disk, through
/// wrappers and after a `cd`.
const CATASTROPHIC: &[&str] = &[
    "rm -rf /",
    "rm -rf /*",
    "rm -r -f /",
    "sudo rm -rf --no-preserve-root /",
    "bash -c \"rm -rf /\"",
    "cd / && rm -rf *",
    "find / -delete",
    "chmod -R 000 /",
    "chown -R nobody /",
    "rm -rf ~",
    "rm -rf ~/",
    "rm -fr ~",
    "rm -rf $HOME",
    "rm -rf \"$HOME\"",
    "rm -rf ${HOME}/",
    "cd ~ && rm -rf .",
    "find ~ -delete",
    "mv ~ /tmp/x",
    "dd if=/dev/zero of=/dev/sda",
    "dd of=/dev/sda",
    "dd if=/dev/urandom of=/dev/nvme0n1 bs=1M",
    "cat /dev/zero > /dev/sda",
    "mkfs /dev/nvme0n1",
    "mkfs.ext4 /dev/sda1",
    "wipefs -a /dev/sda",
    "shred -n 1 /dev/sda",
    // cmd.exe's forms typed into a POSIX shell (Git Bash on Windows runs format.com).
    "format c:",
    "format C: /q",
    "del /s /q c:\\",
    "rd /s /q c:\\",
];

/// Near misses that are not catastrophic and must not be denied by this rule.
const NOT_CATASTROPHIC: &[&str] = &[
    "ls > /dev/null",
    "rm -rf ./target",
    "rm -rf /tmp/build-cache",
    "dd if=/dev/sda of=/tmp/disk.img",
];

fn gate(args: &[&str], env: &[(&str, &str)], stdin: &[u8], home: &std::path::Path) -> Output {
    let mut command = common::gate_command();
    command
        .args(args)
        .current_dir(home)
        .env("HOME", "/home/user")
        .env("GATE_HOME", home)
        .envs(env.iter().copied());
    common::run(command, stdin)
}

/// Each runtime's pre-tool shell call, and whether an answer is a deny.
fn payload(runtime: &str, command: &str) -> String {
    let json = match runtime {
        "claude-code" | "codex" => serde_json::json!({"hook_event_name": "PreToolUse",
            "session_id": "s", "cwd": "/home/user/proj", "tool_name": "Bash",
            "tool_input": {"command": command}}),
        "gemini" => serde_json::json!({"hook_event_name": "BeforeTool", "session_id": "s",
            "cwd": "/home/user/proj", "tool_name": "run_shell_command",
            "tool_input": {"command": command}}),
        _ => serde_json::json!({"sessionId": "s", "timestamp": 1_767_225_600_000i64,
            "cwd": "/home/user/proj", "toolName": "bash", "toolArgs": {"command": command}}),
    };
    json.to_string()
}

fn is_deny(runtime: &str, out: &Output) -> bool {
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
        return false;
    };
    let decision = match runtime {
        "claude-code" | "codex" => &answer["hookSpecificOutput"]["permissionDecision"],
        "gemini" => &answer["decision"],
        _ => &answer["permissionDecision"],
    };
    // Codex and Gemini have no native ask: their asks are denies that name `gate approve`.
    decision == "deny" && !answer.to_string().contains("gate approve")
}

/// The shipped specs and their roles, from `gate specs --json` and each spec's IR.
fn specs_and_roles(home: &std::path::Path) -> Vec<(String, Vec<String>)> {
    let out = gate(&["specs", "--json"], &[], b"", home);
    let specs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap().to_string();
            let spec = compiled_spec(&name).unwrap();
            let roles = spec.ir().roles.iter().map(|r| r.name.to_string()).collect();
            (name, roles)
        })
        .collect()
}

#[test]
fn catastrophic_targets_are_denied_under_every_spec_and_role() {
    let dir = tempfile::tempdir().unwrap();
    let specs = specs_and_roles(dir.path());
    assert!(specs.len() >= 5, "{specs:?}");
    let mut failures = Vec::new();
    for (spec, roles) in &specs {
        let roles: Vec<Option<&str>> = std::iter::once(None)
            .chain(roles.iter().map(|r| Some(r.as_str())))
            .collect();
        for role in roles {
            for command in CATASTROPHIC {
                let mut args = vec!["hook", "claude-code", "--spec", spec.as_str()];
                if let Some(role) = role {
                    args.extend(["--role", role]);
                }
                let out = gate(
                    &args,
                    &[],
                    payload("claude-code", command).as_bytes(),
                    dir.path(),
                );
                if !is_deny("claude-code", &out) {
                    failures.push(format!(
                        "{spec} role {role:?}: `{command}` answered {}",
                        String::from_utf8_lossy(&out.stdout)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn catastrophic_targets_are_denied_on_every_runtime_and_near_misses_are_not() {
    let dir = tempfile::tempdir().unwrap();
    for runtime in ["claude-code", "codex", "gemini", "copilot"] {
        for spec in ["jwc", "waypoints", "waypoints_phases"] {
            let mut args = vec!["hook", runtime, "--spec", spec];
            if runtime == "copilot" {
                args.extend(["--event", "preToolUse"]);
            }
            for command in ["rm -rf ~", "dd of=/dev/sda", "rm -rf /"] {
                let out = gate(&args, &[], payload(runtime, command).as_bytes(), dir.path());
                assert!(is_deny(runtime, &out), "{runtime} {spec}: `{command}`");
            }
            for command in NOT_CATASTROPHIC {
                let out = gate(&args, &[], payload(runtime, command).as_bytes(), dir.path());
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(
                    !text.contains("whole file system, the whole home directory"),
                    "{runtime} {spec}: `{command}`: {text}"
                );
            }
        }
    }
}

/// Windows forms through a PowerShell tool (Copilot's `powershell`): the drive root and a
/// whole volume.
#[test]
fn windows_drive_roots_are_denied_through_powershell() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["jwc", "waypoints", "waypoints_phases", "default"] {
        for command in [
            "Remove-Item -Recurse -Force C:\\",
            "cmd /c rd /s /q c:\\",
            "Format-Volume -DriveLetter C",
        ] {
            let payload = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s",
                "cwd": "/home/user/proj", "tool_name": "powershell",
                "tool_input": {"command": command}});
            let out = gate(
                &["hook", "copilot", "--event", "PreToolUse", "--spec", spec],
                &[],
                payload.to_string().as_bytes(),
                dir.path(),
            );
            assert!(is_deny("copilot", &out), "{spec}: `{command}`");
        }
    }
}

/// The compiled specs, as the `gate` binary installs them (the library links none itself).
fn compiled_specs() -> &'static [&'static gate_spec::exec::CompiledSpec] {
    gate_cli::registry::install(gate_specs::ALL);
    gate_cli::cmd::compiled_specs()
}

/// A compiled spec by name, from the installed registry.
fn compiled_spec(name: &str) -> anyhow::Result<&'static gate_spec::exec::CompiledSpec> {
    compiled_specs();
    gate_cli::cmd::compiled_spec(name)
}
