//! Claude Code's own permission rules over gate's locations: the `permissions.deny` entries
//! `gate init claude-code --sandbox` adds beside the sandbox block, and takes out again.
//!
//! The sandbox covers what Bash runs; Claude Code's file tools (Edit, Write, MultiEdit,
//! NotebookEdit; Read, and the searches that read) are governed by its permission rules
//! instead. An `Edit(//PATH)` deny rule refuses every built-in edit of PATH and what is below
//! it, a `Read(//PATH)` rule every built-in read, whatever the hook answers or whether it runs
//! at all (`//` anchors a rule at the file-system root; one `/` would anchor it at the
//! settings file's directory). Deny rules add no prompt: they only refuse.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// What gate changed in a settings file's `permissions` object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RulesRecord {
    /// The `permissions` value before gate (absent: `None`).
    pub before: Option<Value>,
    /// The `permissions` value gate wrote.
    pub after: Value,
    /// `permissions.deny` entries gate added.
    pub deny: Vec<String>,
}

/// The rule for a path: `Tool(//abs/path)`, and `Tool(//abs/path/**)` for what is below it.
fn rules_for(tool: &str, path: &Path, out: &mut Vec<String>) {
    let text = path.display().to_string().replace('\\', "/");
    let text = text.trim_end_matches('/');
    // An absolute path already starts with `/`: one more makes the rule's `//` anchor.
    let anchored = if text.starts_with('/') {
        format!("/{text}")
    } else {
        format!("//{text}")
    };
    out.push(format!("{tool}({anchored})"));
    out.push(format!("{tool}({anchored}/**)"));
}

/// The deny rules for gate's protected locations: edits of every one, reads of the unreadable.
pub fn rules(deny_write: &[PathBuf], deny_read: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for path in deny_write {
        rules_for("Edit", path, &mut out);
    }
    for path in deny_read {
        rules_for("Read", path, &mut out);
    }
    out
}

/// Add the deny rules a settings document lacks to `permissions.deny` (the user's rules and
/// other keys stay, in their order).
pub fn add(doc: &mut Value, deny_write: &[PathBuf], deny_read: &[PathBuf]) -> Result<RulesRecord> {
    let map = doc
        .as_object_mut()
        .context("the settings file is not a JSON object")?;
    let before = map.get("permissions").cloned();
    let list = map
        .entry("permissions")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .context("`permissions` in the settings file is not an object")?
        .entry("deny")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .context("`permissions.deny` in the settings file is not a list")?;
    let mut deny = Vec::new();
    for rule in rules(deny_write, deny_read) {
        if !list.iter().any(|v| v.as_str() == Some(rule.as_str())) {
            list.push(json!(rule));
            deny.push(rule);
        }
    }
    Ok(RulesRecord {
        before,
        after: map.get("permissions").cloned().unwrap_or(Value::Null),
        deny,
    })
}

/// Take out what `record` says gate added: exactly the earlier value when the object is as
/// gate wrote it, otherwise only gate's rules.
pub fn strip(doc: &mut Value, record: &RulesRecord) {
    let Some(map) = doc.as_object_mut() else {
        return;
    };
    if map.get("permissions") == Some(&record.after) {
        match &record.before {
            Some(before) => {
                map.insert("permissions".into(), before.clone());
            }
            None => {
                map.shift_remove("permissions");
            }
        }
        return;
    }
    let before = record.before.as_ref().and_then(Value::as_object);
    let Some(permissions) = map.get_mut("permissions").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(list) = permissions.get_mut("deny").and_then(Value::as_array_mut) {
        list.retain(|v| {
            !v.as_str()
                .is_some_and(|s| record.deny.iter().any(|a| a == s))
        });
        if list.is_empty() && before.is_none_or(|b| !b.contains_key("deny")) {
            permissions.shift_remove("deny");
        }
    }
    if permissions.is_empty() && before.is_none() {
        map.shift_remove("permissions");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> (Vec<PathBuf>, Vec<PathBuf>) {
        (
            vec![
                PathBuf::from("/h/.local/state/gate"),
                PathBuf::from("/p/.claude/"),
            ],
            vec![PathBuf::from("/h/.local/state/gate/gate.key")],
        )
    }

    #[test]
    fn rules_are_anchored_at_the_root_and_cover_what_is_below() {
        let (w, r) = paths();
        assert_eq!(
            rules(&w, &r),
            [
                "Edit(//h/.local/state/gate)",
                "Edit(//h/.local/state/gate/**)",
                "Edit(//p/.claude)",
                "Edit(//p/.claude/**)",
                "Read(//h/.local/state/gate/gate.key)",
                "Read(//h/.local/state/gate/gate.key/**)",
            ]
        );
    }

    #[test]
    fn adds_to_the_users_rules_and_strips_back_exactly() {
        let (w, r) = paths();
        let user = json!({"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]});
        let mut doc = json!({"permissions": user.clone(), "model": "opus"});
        let record = add(&mut doc, &w, &r).unwrap();
        let deny = doc["permissions"]["deny"].as_array().unwrap();
        assert_eq!(deny[0], "Read(./.env)");
        assert_eq!(deny.len(), 7);
        assert_eq!(doc["permissions"]["allow"], user["allow"]);
        strip(&mut doc, &record);
        assert_eq!(doc, json!({"permissions": user, "model": "opus"}));

        let mut doc = json!({});
        let record = add(&mut doc, &w, &r).unwrap();
        strip(&mut doc, &record);
        assert_eq!(doc, json!({}));
    }

    #[test]
    fn strip_keeps_later_edits() {
        let (w, r) = paths();
        let mut doc = json!({});
        let record = add(&mut doc, &w, &r).unwrap();
        doc["permissions"]["deny"]
            .as_array_mut()
            .unwrap()
            .push(json!("Bash(rm *)"));
        strip(&mut doc, &record);
        assert_eq!(doc, json!({"permissions": {"deny": ["Bash(rm *)"]}}));
    }
}
