//! Claude Code's sandbox over gate's locations: the `sandbox` block `gate init claude-code
//! --sandbox` merges into the settings file it writes (a union with the user's block, their
//! keys kept), with the permission rules that cover Claude Code's own file tools
//! ([`super::claude_rules`]), and takes out again exactly as it was added.

use super::claude_rules::{self, RulesRecord};
use super::Protected;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// What gate changed in a settings file's `sandbox` block: enough to take out exactly that.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The `sandbox` value before gate (absent: `None`).
    pub before: Option<Value>,
    /// The `sandbox` value gate wrote.
    pub after: Value,
    /// `filesystem.denyWrite` entries gate added.
    pub deny_write: Vec<String>,
    /// `filesystem.denyRead` entries gate added.
    pub deny_read: Vec<String>,
    /// The `permissions.deny` rules gate added for the file tools (absent in records written
    /// before gate added them).
    #[serde(default)]
    pub rules: Option<RulesRecord>,
}

/// Merge gate's sandbox settings into a Claude Code settings document: `enabled: true`,
/// `autoAllowBashIfSandboxed: false` and `allowUnsandboxedCommands: false` unless the user
/// set them, and every protected path in
/// `filesystem.denyWrite` / `denyRead` (a union: the user's entries and other keys stay, in
/// their order). Nothing about the network is written.
pub fn add(doc: &mut Value, protected: &Protected) -> Result<Record> {
    let map = doc
        .as_object_mut()
        .context("the settings file is not a JSON object")?;
    let before = map.get("sandbox").cloned();
    let sandbox = map
        .entry("sandbox")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .context("`sandbox` in the settings file is not an object")?;
    sandbox.insert("enabled".into(), json!(true));
    // Pinned where the user has no value: the default of auto-allow has changed between
    // Claude Code versions, and an auto-allowed command would skip the user's prompt.
    for (key, value) in [
        ("autoAllowBashIfSandboxed", false),
        ("allowUnsandboxedCommands", false),
    ] {
        if !sandbox.contains_key(key) {
            sandbox.insert(key.into(), json!(value));
        }
    }
    let fs = sandbox
        .entry("filesystem")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .context("`sandbox.filesystem` in the settings file is not an object")?;
    let deny_write = union(fs, "denyWrite", &protected.deny_write)?;
    let deny_read = union(fs, "denyRead", &protected.deny_read)?;
    let after = map.get("sandbox").cloned().unwrap_or(Value::Null);
    let rules = claude_rules::add(doc, &protected.deny_write, &protected.deny_read)?;
    Ok(Record {
        before,
        after,
        deny_write,
        deny_read,
        rules: Some(rules),
    })
}

/// Append the paths a list lacks; return those appended.
fn union(fs: &mut Map<String, Value>, key: &str, paths: &[PathBuf]) -> Result<Vec<String>> {
    let list = fs
        .entry(key)
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .with_context(|| {
            format!("`sandbox.filesystem.{key}` in the settings file is not a list")
        })?;
    let mut added = Vec::new();
    for path in paths {
        let text = path.display().to_string();
        if !list.iter().any(|v| v.as_str() == Some(text.as_str())) {
            list.push(json!(text));
            added.push(text);
        }
    }
    Ok(added)
}

/// Take out what `record` says gate added. When the block is as gate wrote it, it becomes
/// what it was before, exactly; when the user changed it since, only gate's entries go (and
/// the switches gate set return to their earlier values if they are still gate's).
pub fn strip(doc: &mut Value, record: &Record) {
    if let Some(rules) = &record.rules {
        claude_rules::strip(doc, rules);
    }
    let Some(map) = doc.as_object_mut() else {
        return;
    };
    if map.get("sandbox") == Some(&record.after) {
        match &record.before {
            Some(before) => {
                map.insert("sandbox".into(), before.clone());
            }
            None => {
                map.shift_remove("sandbox");
            }
        }
        return;
    }
    let Some(sandbox) = map.get_mut("sandbox").and_then(Value::as_object_mut) else {
        return;
    };
    let before = record.before.as_ref().and_then(Value::as_object);
    for key in [
        "enabled",
        "autoAllowBashIfSandboxed",
        "allowUnsandboxedCommands",
    ] {
        if sandbox.get(key) == record.after.get(key) {
            match before.and_then(|b| b.get(key)) {
                Some(v) => {
                    sandbox.insert(key.into(), v.clone());
                }
                None => {
                    sandbox.shift_remove(key);
                }
            }
        }
    }
    let fs_before = before
        .and_then(|b| b.get("filesystem"))
        .and_then(Value::as_object);
    if let Some(fs) = sandbox.get_mut("filesystem").and_then(Value::as_object_mut) {
        for (key, added) in [
            ("denyWrite", &record.deny_write),
            ("denyRead", &record.deny_read),
        ] {
            if let Some(list) = fs.get_mut(key).and_then(Value::as_array_mut) {
                list.retain(|v| !v.as_str().is_some_and(|s| added.iter().any(|a| a == s)));
                if list.is_empty() && fs_before.is_none_or(|b| !b.contains_key(key)) {
                    fs.shift_remove(key);
                }
            }
        }
        if fs.is_empty() && fs_before.is_none() {
            sandbox.shift_remove("filesystem");
        }
    }
    if sandbox.is_empty() && before.is_none() {
        map.shift_remove("sandbox");
    }
}

/// What `gate init claude-code --sandbox` changes for the user, said once at install.
pub fn notes(record: &Record) -> Vec<String> {
    let mut notes = vec![format!(
        "Claude Code's sandbox is on: Bash commands and every program they start cannot write \
         gate's files or any runtime's hook settings ({} paths in sandbox.filesystem.denyWrite) \
         nor read the audit key. What changes for Bash commands: they write only in the \
         project and the temporary directory (elsewhere: \"Read-only file system\"), and a \
         host they reach for the first time goes through the sandbox's network proxy, which \
         asks you (Claude Code has no allow-all value). Permission prompts and rules stay as \
         they were (autoAllowBashIfSandboxed is false). Claude Code's own file tools are \
         refused the same paths by permissions.deny rules (Edit(//…), Read(//…) for the key), \
         whether or not gate's hook runs",
        record
            .after
            .pointer("/filesystem/denyWrite")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    )];
    if record.after.get("allowUnsandboxedCommands") != Some(&json!(false)) {
        notes.push(
            "allowUnsandboxedCommands is not false in this file: a command Claude reruns with \
             dangerouslyDisableSandbox runs outside the sandbox (gate's hook still judges it)"
                .into(),
        );
    }
    if cfg!(target_os = "linux") {
        notes.push(
            "on Linux the sandbox needs bubblewrap and socat (apt-get install bubblewrap socat); \
             `gate doctor` checks them"
                .into(),
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected() -> Protected {
        Protected {
            deny_write: vec![
                PathBuf::from("/h/.local/state/gate"),
                PathBuf::from("/p/.claude"),
            ],
            deny_read: vec![PathBuf::from("/h/.local/state/gate/gate.key")],
        }
    }

    #[test]
    fn adds_the_block_and_strips_it_back() {
        let mut doc = json!({"model": "opus"});
        let record = add(&mut doc, &protected()).unwrap();
        assert_eq!(
            doc["sandbox"],
            json!({"enabled": true, "autoAllowBashIfSandboxed": false,
                "allowUnsandboxedCommands": false, "filesystem": {
                "denyWrite": ["/h/.local/state/gate", "/p/.claude"],
                "denyRead": ["/h/.local/state/gate/gate.key"]}})
        );
        // No network key: gate sets no allowed domains for the user.
        assert!(doc["sandbox"].get("network").is_none());
        strip(&mut doc, &record);
        assert_eq!(doc, json!({"model": "opus"}));
    }

    #[test]
    fn merges_with_the_users_block() {
        let user = json!({"enabled": false, "allowUnsandboxedCommands": true,
            "network": {"allowedDomains": ["github.com"]},
            "filesystem": {"denyWrite": ["/p/.claude", "/secret"], "allowWrite": ["/tmp/x"]}});
        let mut doc = json!({"sandbox": user.clone(), "z": 1});
        let record = add(&mut doc, &protected()).unwrap();
        let s = &doc["sandbox"];
        assert_eq!(s["enabled"], true);
        // The user's explicit choice stays.
        assert_eq!(s["allowUnsandboxedCommands"], true);
        assert_eq!(s["autoAllowBashIfSandboxed"], false);
        assert_eq!(s["network"], user["network"]);
        assert_eq!(s["filesystem"]["allowWrite"], json!(["/tmp/x"]));
        assert_eq!(
            s["filesystem"]["denyWrite"],
            json!(["/p/.claude", "/secret", "/h/.local/state/gate"])
        );
        assert_eq!(record.deny_write, vec!["/h/.local/state/gate".to_string()]);
        // Keys keep their order: sandbox first, then z; the permission rules come last.
        let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["sandbox", "z", "permissions"]);
        strip(&mut doc, &record);
        assert_eq!(doc["sandbox"], user);
    }

    #[test]
    fn strip_keeps_later_edits() {
        let mut doc = json!({});
        let record = add(&mut doc, &protected()).unwrap();
        doc["sandbox"]["filesystem"]["denyWrite"]
            .as_array_mut()
            .unwrap()
            .push(json!("/mine"));
        doc["sandbox"]["excludedCommands"] = json!(["docker"]);
        strip(&mut doc, &record);
        assert_eq!(
            doc,
            json!({"sandbox": {"filesystem": {"denyWrite": ["/mine"]}, "excludedCommands": ["docker"]}})
        );
    }
}
