//! The agent CLIs of `commands/agents.toml` through the whole line walker: wrapped, run
//! by a package runner, inside `bash -c`, and their settings moved by a variable.

use super::super::testing::{effects, has};
use super::is_agent;

#[test]
fn the_agent_clis_are_the_programs_of_their_file() {
    for p in [
        "claude", "codex", "gemini", "copilot", "aider", "opencode", "qwen", "amp",
    ] {
        assert!(is_agent(p), "{p}");
    }
    for p in ["git", "npm", "gate", "bash", "nope"] {
        assert!(!is_agent(p), "{p}");
    }
    for line in [
        "CODEX_HOME=/tmp/c codex exec go",
        "HOME=/tmp/h claude -p go",
        "env CODEX_HOME=/tmp/c codex exec go",
    ] {
        assert!(has(line, "write@gate"), "{line}: {:?}", effects(line));
    }
}

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
