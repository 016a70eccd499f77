//! Rules that apply to a role (`roles = [..]` on a `[[rule]]`): a read-only reviewer is one
//! rule of the policy, not a second machine, and the rule changes nothing for anyone else.

mod common;

use common::engine::{bash, Scope, T0};
use common::specs::{compile, leak};
use gate_runtime::event::Event;
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{RoleId, Spec};

const SPEC: &str = r#"
[machine]
name = "review"
initial = "idle"
kinds = ["work"]

[[tier]]
name = "routine"
mode = "observe"
max_actions = 100

[[tier]]
name = "forbidden"
mode = "gate"
max_actions = 100

[[rule]]
name = "reviewer_changes"
roles = ["reviewer"]
effects = ["write", "overwrite", "delete", "move", "permissions"]
tier = "forbidden"
reason = "a reviewer reads and comments; it does not change the tree"

[[state]]
name = "idle"

[[transition]]
from = "idle"
on = "tier:forbidden"
effects = ["deny:forbidden"]

[[role]]
name = "reviewer"

[[role]]
name = "author"

[template]
forbidden = "{reason}"
"#;

fn spec() -> &'static Spec {
    leak(compile(SPEC))
}

/// The shell running `line` in a project, with no class given by the runtime.
fn shell(line: &str) -> Event {
    Event {
        cwd: Some("/home/dev/project".to_string()),
        class: None,
        ..bash(line, T0)
    }
}

fn verdict(role: Option<&str>, line: &str) -> (Verdict, String) {
    let spec = spec();
    let role: Option<RoleId> =
        role.map(|name| spec.roles.iter().position(|r| r.name == name).unwrap() as RoleId);
    let out = Scope::new(spec).evaluate_as(&shell(line), role, false);
    let rule = out
        .classification
        .rule
        .map(|r| spec.rules[r as usize].name.to_string())
        .unwrap_or_default();
    (out.decision.verdict, rule)
}

#[test]
fn a_rule_for_a_role_applies_to_that_role_only() {
    for line in [
        "rm -f src/lib.rs",
        "echo x > README.md",
        "sed -i s/a/b/ src/main.rs",
        "mv a.txt b.txt",
    ] {
        let (answer, rule) = verdict(Some("reviewer"), line);
        assert!(
            matches!(answer, Verdict::Deny { .. }),
            "reviewer: {line}: {answer:?}"
        );
        assert_eq!(rule, "reviewer_changes", "{line}");
        for other in [None, Some("author")] {
            let (answer, rule) = verdict(other, line);
            assert_eq!(answer, Verdict::Allow, "{other:?}: {line}");
            assert_eq!(rule, "", "{other:?}: {line}");
        }
    }
}

#[test]
fn a_rule_for_a_role_leaves_that_role_its_reads() {
    for line in ["cat src/lib.rs", "git log --oneline", "grep -rn todo src"] {
        assert_eq!(verdict(Some("reviewer"), line).0, Verdict::Allow, "{line}");
    }
}
