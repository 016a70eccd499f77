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
