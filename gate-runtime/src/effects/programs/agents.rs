//! Agent CLIs started from inside a session (`claude -p …`, `codex exec …`, `gemini -p …`,
//! `copilot -p …`): a nested agent runs what it likes (`exec`), under its hooks, so under
//! gate. Started without them, or with its permission checks or sandbox switched off, it is
//! an agent gate does not guard, acting for this one: that is a change to gate, a `write` at
//! `gate`, as editing the hook settings is. The flags that do it are data ([`AGENTS`]); the
//! variables that move an agent's settings away (`CODEX_HOME=/tmp/c codex …`) are in
//! `gate_env`. An agent CLI gate installs no hooks in (`aider`, `opencode`, `goose`, …) is
//! the same change when it is run to act on its own (`--yes-always`, `opencode run`).

use super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

/// How one option of an agent CLI turns its hooks, permissions or sandbox off.
#[derive(Clone, Copy, Debug)]
enum Off {
    /// Given at all (`--dangerously-skip-permissions`, `-y`).
    Flag,
    /// With a value among these (ASCII case ignored): `--permission-mode bypassPermissions`.
    Value(&'static [&'static str]),
    /// With a value that mentions one of these (`--settings '{"disableAllHooks":true}'`,
    /// `-c sandbox_mode=…`), or that is not text the line shows (a settings file).
    Mentions(&'static [&'static str]),
    /// With a list of setting sources that leaves one of these out (`--setting-sources
    /// user` drops the project's and the local settings, and their hooks).
    Omits(&'static [&'static str]),
}

/// One agent CLI: the names it runs under, and its options that switch gate off. Each option
/// is spelled as on its command line (`-y`, `--yolo`); a long one also as `--name=VALUE`.
struct Agent {
    names: &'static [&'static str],
    /// Options that take a value (the value is the next word unless attached).
    valued: &'static [&'static str],
    off: &'static [(&'static str, Off)],
    /// Subcommands that run the agent on its own, with nobody to confirm what it does
    /// (`opencode run …`, `goose run …`): for an agent that has no hooks gate installs.
    acting: &'static [&'static str],
}

const HOOK_WORDS: &[&str] = &["hook", "disableallhooks", "bypasspermissions"];

const AGENTS: &[Agent] = &[
    Agent {
        names: &["claude", "claude-code"],
        valued: &[
            "--settings",
            "--setting-sources",
            "--permission-mode",
            "--model",
            "--output-format",
            "--input-format",
            "--allowedTools",
            "--allowed-tools",
            "--disallowedTools",
            "--disallowed-tools",
            "--append-system-prompt",
            "--system-prompt",
            "--mcp-config",
            "--add-dir",
            "--session-id",
            "--resume",
            "-r",
            "--agents",
            "--fallback-model",
            "--max-turns",
            "--permission-prompt-tool",
            "--plugin-dir",
        ],
        off: &[
            ("--dangerously-skip-permissions", Off::Flag),
            ("--allow-dangerously-skip-permissions", Off::Flag),
            ("--permission-mode", Off::Value(&["bypasspermissions"])),
            ("--settings", Off::Mentions(HOOK_WORDS)),
            (
                "--setting-sources",
                Off::Omits(&["user", "project", "local"]),
            ),
            ("--bare", Off::Flag),
        ],
        acting: &[],
    },
    Agent {
        names: &["codex"],
        valued: &[
            "-c",
            "--config",
            "-s",
            "--sandbox",
            "-a",
            "--ask-for-approval",
            "-m",
            "--model",
            "-p",
            "--profile",
            "-C",
            "--cd",
            "-i",
            "--image",
            "--enable",
            "--disable",
            "--add-dir",
            "--output-last-message",
            "-o",
            "--color",
        ],
        off: &[
            ("--dangerously-bypass-approvals-and-sandbox", Off::Flag),
            ("--yolo", Off::Flag),
            ("-s", Off::Value(&["danger-full-access"])),
            ("--sandbox", Off::Value(&["danger-full-access"])),
            ("-a", Off::Value(&["never"])),
            ("--ask-for-approval", Off::Value(&["never"])),
            (
                "-c",
                Off::Mentions(&["hook", "sandbox", "approval", "danger", "notify"]),
            ),
            (
                "--config",
                Off::Mentions(&["hook", "sandbox", "approval", "danger", "notify"]),
            ),
            ("--disable", Off::Mentions(&["hook"])),
        ],
        acting: &[],
    },
    Agent {
        names: &["gemini", "gemini-cli"],
        valued: &[
            "-m",
            "--model",
            "-p",
            "--prompt",
            "-i",
            "--prompt-interactive",
            "--approval-mode",
            "-e",
            "--extensions",
            "--include-directories",
            "--allowed-tools",
            "--allowed-mcp-server-names",
            "-o",
            "--output-format",
            "-r",
            "--resume",
        ],
        off: &[
            ("-y", Off::Flag),
            ("--yolo", Off::Flag),
            ("--approval-mode", Off::Value(&["yolo"])),
        ],
        acting: &[],
    },
    Agent {
        names: &["copilot"],
        valued: &[
            "-p",
            "--prompt",
            "--model",
            "--allow-tool",
            "--deny-tool",
            "--add-dir",
            "--config-dir",
            "--log-dir",
            "--log-level",
            "--resume",
            "--agent",
        ],
        off: &[
            ("--allow-all-tools", Off::Flag),
            ("--allow-all", Off::Flag),
            ("--yolo", Off::Flag),
            ("--allow-all-paths", Off::Flag),
            ("--config-dir", Off::Mentions(&[])),
        ],
        acting: &[],
    },
    // Agent CLIs gate installs no hooks in: run so that they act with nobody confirming
    // each step, they are agents gate does not guard.
    Agent {
        names: &["aider"],
        valued: &[
            "--message",
            "-m",
            "--model",
            "--message-file",
            "-f",
            "--config",
            "-c",
        ],
        off: &[("--yes-always", Off::Flag), ("--yes", Off::Flag)],
        acting: &[],
    },
    Agent {
        names: &["opencode"],
        valued: &["--model", "-m", "--agent", "--session", "-s", "--prompt"],
        off: &[],
        acting: &["run"],
    },
    Agent {
        names: &["goose"],
        valued: &["--text", "-t", "--instructions", "-i", "--name", "-n"],
        off: &[],
        acting: &["run"],
    },
    Agent {
        names: &["cursor-agent"],
        valued: &["--model", "-m", "--output-format", "--api-key"],
        off: &[
            ("--force", Off::Flag),
            ("-f", Off::Flag),
            ("--print", Off::Flag),
            ("-p", Off::Flag),
        ],
        acting: &[],
    },
    Agent {
        names: &["amp"],
        valued: &["--mode", "--settings-file"],
        off: &[
            ("--dangerously-allow-all", Off::Flag),
            ("--execute", Off::Flag),
            ("-x", Off::Flag),
        ],
        acting: &[],
    },
    Agent {
        names: &["qwen", "crush"],
        valued: &[
            "-m",
            "--model",
            "-p",
            "--prompt",
            "--approval-mode",
            "-c",
            "--cwd",
        ],
        off: &[
            ("-y", Off::Flag),
            ("--yolo", Off::Flag),
            ("--approval-mode", Off::Value(&["yolo"])),
        ],
        acting: &[],
    },
];

/// Whether `program` is an agent CLI (one gate guards, or one it installs no hooks in).
pub(crate) fn is_agent(program: &str) -> bool {
    AGENTS.iter().any(|a| a.names.contains(&program))
}

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let Some(agent) = AGENTS.iter().find(|a| a.names.contains(&cmd.program)) else {
        return false;
    };
    // What it does is what the nested agent decides: unknown.
    out.none(Act::Exec);
    if switches_gate_off(agent, cmd) {
        out.place(Act::Write, Place::Gate);
    }
    true
}

fn switches_gate_off(agent: &Agent, cmd: &Cmd<'_, '_>) -> bool {
    let mut k = 0;
    while let Some(word) = cmd.args.get(k) {
        k += 1;
        let w: &str = word;
        if w == "--" {
            break;
        }
        if !w.starts_with('-') {
            if agent.acting.contains(&w) {
                return true;
            }
            continue;
        }
        let (name, attached) = match w.split_once('=').filter(|_| w.starts_with("--")) {
            Some((n, v)) => (n, Some(v)),
            None => (w, None),
        };
        let takes = agent.valued.contains(&name)
            || agent
                .off
                .iter()
                .any(|(n, o)| *n == name && !matches!(o, Off::Flag));
        let value = match attached {
            Some(v) => Some(v),
            None if takes => {
                k += 1;
                cmd.args.get(k - 1).map(|v| &**v)
            }
            None => None,
        };
        let Some((_, off)) = agent.off.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let lower = value.map(str::to_ascii_lowercase).unwrap_or_default();
        let hit = match off {
            Off::Flag => true,
            Off::Value(values) => values.iter().any(|v| lower == *v),
            Off::Mentions(words) => {
                // A value that is not JSON or a setting the line shows (a file) may hold
                // anything.
                let shown = lower.trim_start().starts_with('{') || lower.contains('=');
                !shown || words.iter().any(|w| lower.contains(w))
            }
            Off::Omits(sources) => {
                let given: Vec<&str> = lower.split(',').map(str::trim).collect();
                sources.iter().any(|s| !given.contains(s))
            }
        };
        if hit {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn an_agent_without_gates_hooks_acting_on_its_own_is_a_change_to_gate() {
        for line in [
            "aider --yes-always --message 'delete the old logs'",
            "opencode run 'clean the repo'",
            "goose run -t 'tidy up'",
            "cursor-agent -p 'refactor' --force",
            "amp -x 'remove the cache'",
            "qwen -y -p go",
            "crush --yolo",
        ] {
            assert!(has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
        for line in [
            "aider --help",
            "opencode --version",
            "goose session list",
            "cursor-agent --help",
            "qwen -p 'explain the tests'",
        ] {
            assert!(!has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn an_agent_started_without_its_hooks_is_a_change_to_gate() {
        for line in [
            "claude --dangerously-skip-permissions -p 'clean up'",
            "claude -p go --permission-mode bypassPermissions",
            "claude --permission-mode=bypassPermissions -p go",
            "claude --settings '{\"disableAllHooks\":true}' -p go",
            "claude --settings '{\"hooks\":{}}' -p go",
            "claude --settings /tmp/s.json -p go",
            "claude --setting-sources user -p go",
            "claude --setting-sources=user,project -p go",
            "npx @anthropic-ai/claude-code --dangerously-skip-permissions -p go",
            "codex --dangerously-bypass-approvals-and-sandbox exec go",
            "codex exec --yolo go",
            "codex -s danger-full-access exec go",
            "codex exec --sandbox=danger-full-access go",
            "codex -a never exec go",
            "codex -c 'sandbox_mode=\"danger-full-access\"' exec go",
            "codex --config hooks=[] exec go",
            "codex --disable hooks exec go",
            "gemini -y -p go",
            "gemini --yolo -p go",
            "gemini --approval-mode yolo -p go",
            "gemini --approval-mode=YOLO -p go",
            "copilot --allow-all-tools -p go",
            "copilot -p go --allow-all",
            "copilot --yolo -p go",
            "copilot --config-dir /tmp/c -p go",
            "nohup claude --dangerously-skip-permissions -p go &",
            "bash -c 'gemini -y -p go'",
        ] {
            assert!(has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
        for line in [
            "claude -p 'summarise the diff'",
            "claude --model opus -p go --output-format json",
            "claude --setting-sources user,project,local -p go",
            "claude --permission-mode plan -p go",
            "codex exec 'explain the tests'",
            "codex -s workspace-write -a on-request exec go",
            "codex -c model=o3 exec go",
            "gemini -p 'explain' -m gemini-2.5-pro",
            "gemini --approval-mode auto_edit -p go",
            "copilot -p 'fix the test' --allow-tool 'shell(git)'",
            "echo claude --dangerously-skip-permissions",
        ] {
            assert!(!has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
    }
}
