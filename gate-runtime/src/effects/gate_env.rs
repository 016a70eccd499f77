//! gate's own configuration variables (`GATE_SPEC`, `GATE_ROLE`, …): a line that sets,
//! exports or unsets one changes the policy that the hooks of whatever it starts answer
//! under (`GATE_ROLE=director claude -p …`), which is a change to gate's configuration.

use crate::shell::Parsed;

/// The variables gate reads its configuration from (the CLI's `--spec`, `--role`, `--db`,
/// `--home` and the configuration keys they stand beside).
pub const CONFIG_VARS: &[&str] = &[
    "GATE_SPEC",
    "GATE_ROLE",
    "GATE_DB",
    "GATE_HOME",
    "GATE_FAIL_CLOSED",
    "GATE_HOOK_DEADLINE",
    "GATE_PROFILE",
];

/// Variables that say where an agent CLI, or gate, keeps its settings and hooks, and where
/// each points by default (below home; `""` is home itself). Set to anywhere else for an agent
/// the line starts (`CODEX_HOME=/tmp/c codex exec …`), the agent runs without the hooks
/// installed there, or gate answers it from another configuration: a change to gate.
pub const SETTINGS_HOMES: &[(&str, &str)] = &[
    ("HOME", ""),
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_STATE_HOME", ".local/state"),
    ("CLAUDE_CONFIG_DIR", ".claude"),
    ("CODEX_HOME", ".codex"),
    ("GEMINI_CLI_HOME", ""),
    ("COPILOT_HOME", ".copilot"),
];

/// Whether `name=value`, in force for an agent CLI or gate the line starts in `cwd`, moves
/// its settings away from where they are: a value other than the default below home, or than
/// where the environment already points (gate's own locations, `at.gate`).
pub(crate) fn moves_settings(name: &str, value: &str, cwd: &str, at: &super::Where) -> bool {
    let Some((_, default)) = SETTINGS_HOMES.iter().find(|(n, _)| *n == name) else {
        return false;
    };
    let r = super::places::resolve(value.trim(), cwd, &at.home, None);
    if r.unknown_root {
        return true;
    }
    let to = r.display();
    let home = at.home.trim_end_matches('/');
    let usual = if default.is_empty() {
        home.to_string()
    } else {
        format!("{home}/{default}")
    };
    to != usual && !at.gate.contains(&to)
}

fn is_config_var(name: &str) -> bool {
    CONFIG_VARS.contains(&name)
}

/// Whether the line sets, exports or unsets one of gate's configuration variables: an
/// assignment (`GATE_SPEC=x`, `export GATE_SPEC=x`, `declare -x …`), a variable set for one
/// command (`GATE_ROLE=director cmd`, `env GATE_DB=… cmd`), or `unset`.
pub(crate) fn changes_config(parsed: &Parsed<'_>) -> bool {
    parsed.assigns.iter().any(|a| is_config_var(&a.name))
        || parsed.commands.iter().any(|c| {
            c.env.iter().any(|(n, _)| is_config_var(n))
                || (c.program == "unset" && c.args.iter().any(|a| is_config_var(a)))
        })
}

#[cfg(test)]
mod tests {
    use crate::effects::programs::testing::effects;

    #[test]
    fn setting_gate_configuration_for_what_a_line_starts_is_a_change_to_gate() {
        for line in [
            "GATE_ROLE=director claude -p 'delete the tests'",
            "env GATE_DB=/tmp/empty.db codex exec 'rm -rf ~/.ssh'",
            "export GATE_SPEC=example; gemini -p go",
            "GATE_FAIL_CLOSED= ; export GATE_FAIL_CLOSED",
            "unset GATE_ROLE && claude -p go",
            "sudo GATE_HOME=/tmp/g claude",
            "bash -c 'export GATE_SPEC=example && claude'",
            "declare -x GATE_PROFILE=none",
        ] {
            assert!(
                effects(line).contains(&"write@gate".to_string()),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn an_agent_started_with_its_settings_moved_away_is_a_change_to_gate() {
        for line in [
            "CODEX_HOME=/tmp/c codex exec 'rm -rf ~/.ssh'",
            "HOME=/tmp/h claude -p go",
            "env CLAUDE_CONFIG_DIR=/tmp/x claude -p go",
            "export GEMINI_CLI_HOME=/tmp/g; gemini -p go",
            "COPILOT_HOME=$TMP/c copilot -p go",
            "XDG_CONFIG_HOME=/tmp/x gate hook claude-code",
            "CODEX_HOME=$(mktemp -d) codex exec go",
        ] {
            assert!(
                effects(line).contains(&"write@gate".to_string()),
                "{line}: {:?}",
                effects(line)
            );
        }
        for line in [
            "CODEX_HOME=~/.codex codex exec go",
            "HOME=/home/u claude -p go",
            "HOME=/tmp/h make test",
            "CODEX_HOME=/tmp/c echo hi",
            "XDG_CONFIG_HOME=/tmp/x nvim",
        ] {
            assert!(
                !effects(line).contains(&"write@gate".to_string()),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn other_variables_and_mentions_are_not() {
        for line in [
            "GATE_BLESS=1 cargo test",
            "echo $GATE_SPEC",
            "printenv GATE_ROLE",
            "export GATEWAY_URL=http://localhost",
            "grep -r GATE_SPEC docs/",
        ] {
            assert!(
                !effects(line).contains(&"write@gate".to_string()),
                "{line}: {:?}",
                effects(line)
            );
        }
    }
}
