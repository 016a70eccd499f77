//! Help for mistakes that spelling distance gets wrong: a template variable named by what it
//! means (`{file}` is `{target}`, not `{role}`), a comparison written backwards in a `tier`
//! guard (`=> high`), a list where a transition takes one trigger.

use crate::ir::TemplateVar;

/// Words an author may use for a template variable, by the variable they mean.
const MEANINGS: [(&[&str], TemplateVar); 12] = [
    (
        &[
            "file",
            "path",
            "filename",
            "file_path",
            "filepath",
            "command",
            "cmd",
            "args",
            "url",
            "dir",
            "directory",
            "location",
        ],
        TemplateVar::Target,
    ),
    (
        &["tool_name", "toolname", "name_of_tool"],
        TemplateVar::Tool,
    ),
    (&["risk", "level", "risk_tier"], TemplateVar::Tier),
    (&["work", "work_kind", "action_kind"], TemplateVar::Kind),
    (&["why", "message", "explanation"], TemplateVar::Reason),
    (&["rule_name", "matched_rule"], TemplateVar::Rule),
    (
        &["secs", "seconds", "elapsed", "duration", "age", "time"],
        TemplateVar::WindowSecs,
    ),
    (
        &["actions", "count", "action_count", "steps"],
        TemplateVar::WindowActions,
    ),
    (&["signals", "edge", "boundary"], TemplateVar::Signal),
    (&["evidence"], TemplateVar::Checkpoint),
    (&["grant", "id", "approval_id"], TemplateVar::GrantId),
    (&["user", "identity", "agent", "who"], TemplateVar::Role),
];

/// The variable an unknown template variable most likely means, by meaning rather than by
/// spelling: `{file}` and `{path}` are the action's `{target}`.
pub fn template_var_by_meaning(name: &str) -> Option<TemplateVar> {
    let name = name.trim().to_ascii_lowercase();
    MEANINGS
        .iter()
        .find(|(words, _)| words.contains(&name.as_str()))
        .map(|(_, var)| *var)
}

/// The comparisons a `tier` guard takes, operator first.
pub const COMPARISONS: [&str; 5] = ["<=", ">=", "==", "<", ">"];

/// Help for a `tier` guard whose text is not `[OP] NAME`: an operator written backwards
/// (`=> high`, `=< high`, `= high`, `high >=`), when `is_tier` accepts the name left over.
pub fn misplaced_comparison(text: &str, is_tier: impl Fn(&str) -> bool) -> Option<String> {
    let t = text.trim();
    let is_op = |c: char| matches!(c, '<' | '>' | '=' | '!');
    let lead: String = t.chars().take_while(|c| is_op(*c)).collect();
    let trail: String = {
        let mut v: Vec<char> = t.chars().rev().take_while(|c| is_op(*c)).collect();
        v.reverse();
        v.into_iter().collect()
    };
    let (op, name, after) = if !lead.is_empty() {
        (lead.clone(), t[lead.len()..].trim(), false)
    } else if !trail.is_empty() {
        (trail.clone(), t[..t.len() - trail.len()].trim(), true)
    } else {
        return None;
    };
    if !is_tier(name) {
        return None;
    }
    let fixed = match op.as_str() {
        "=>" => Some(">="),
        "=<" => Some("<="),
        "=" => Some("=="),
        o => COMPARISONS.iter().copied().find(|c| *c == o),
    };
    let forms = "`<= NAME`, `>= NAME`, `== NAME`, `< NAME`, `> NAME` or just `NAME`";
    Some(match (fixed, after) {
        (Some(f), true) => {
            format!("the operator goes before the tier: write `{f} {name}` (one of {forms})")
        }
        (Some(f), false) => format!("write `{f} {name}`: the operator goes first ({forms})"),
        (None, _) => format!("`{op}` is not a comparison: write one of {forms}"),
    })
}

/// Help for `on = [..]`: a transition fires on one trigger.
pub const ONE_TRIGGER: &str = "a transition fires on one trigger: write one [[transition]] per trigger (each may repeat `from`, `to` and `effects`)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_the_target() {
        assert_eq!(template_var_by_meaning("file"), Some(TemplateVar::Target));
        assert_eq!(template_var_by_meaning("Path"), Some(TemplateVar::Target));
        assert_eq!(template_var_by_meaning("zebra"), None);
    }

    #[test]
    fn backwards_operators_are_named_and_fixed() {
        let tier = |n: &str| n == "protected";
        let help = misplaced_comparison("=> protected", tier).expect("a hint");
        assert!(help.contains("`>= protected`"), "{help}");
        assert!(help.contains("goes first"), "{help}");
        let help = misplaced_comparison("protected >=", tier).expect("a hint");
        assert!(help.contains("`>= protected`"), "{help}");
        assert!(help.contains("goes before"), "{help}");
        assert_eq!(misplaced_comparison("=> nothing", tier), None);
        assert_eq!(misplaced_comparison("protected", tier), None);
    }
}
