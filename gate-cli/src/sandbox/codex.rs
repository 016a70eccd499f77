//! Codex's OS sandbox over gate's locations: a permission profile (`default_permissions =
//! "gate"`, `[permissions.gate]` extending `:workspace`) generated from gate's configuration,
//! which `gate init codex --sandbox` merges into `$CODEX_HOME/config.toml` and `--remove` takes
//! out again (byte for byte when the file was not changed since). `"read"` keeps a location
//! read-only, `"none"` unreadable, also below the project root (`":project_roots"`).

use super::Protected;
use crate::install::{EnvironmentConflict, Locations, Outcome};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The name of the profile gate writes.
pub const PROFILE: &str = "gate";

/// Below the temporary directory, a writable root of `:workspace`, Codex 0.169's sandbox
/// does not start with a `"none"` rule for a file inside a `"read"` one (bubblewrap: "Can't
/// create file … Read-only file system"), so the key is left readable there.
pub fn in_tmp(path: &Path) -> bool {
    temp_dirs().iter().any(|t| path.starts_with(t))
}

fn temp_dirs() -> Vec<PathBuf> {
    vec![PathBuf::from("/tmp"), std::env::temp_dir()]
}

/// The profile gate's locations need, generated from its configuration, as `config.toml`
/// text (it replaces `sandbox_mode`, which profiles do not compose with).
pub fn profile_snippet(loc: &Locations, protected: &Protected) -> String {
    snippet_in(loc, protected, &temp_dirs())
}

pub(crate) fn snippet_in(loc: &Locations, protected: &Protected, temp: &[PathBuf]) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut absolute = Vec::new();
    let mut project = Vec::new();
    for path in &protected.deny_write {
        match path.strip_prefix(&loc.project) {
            Ok(rel) if !rel.as_os_str().is_empty() => project.push(rel.display().to_string()),
            _ => absolute.push(path.display().to_string()),
        }
    }
    let mut text = format!(
        "default_permissions = \"{PROFILE}\"\n\n[permissions.{PROFILE}]\nextends = \
         \":workspace\"\n\n[permissions.{PROFILE}.filesystem]\n"
    );
    for path in &absolute {
        text.push_str(&format!("{} = \"read\"\n", quote(path)));
    }
    for key in protected
        .deny_read
        .iter()
        .filter(|k| !temp.iter().any(|t| k.starts_with(t)))
    {
        text.push_str(&format!(
            "{} = \"none\"\n",
            quote(&key.display().to_string())
        ));
    }
    text.push_str(&format!(
        "\n[permissions.{PROFILE}.filesystem.\":project_roots\"]\n"
    ));
    for rel in &project {
        text.push_str(&format!("{} = \"read\"\n", quote(rel)));
    }
    text
}

/// The locations that exist now. A rule for a missing path makes Codex 0.169 stand a
/// placeholder in for it, and two of its sandboxed helpers starting at once can then race
/// (one removes the placeholder the other binds: "bwrap: Can't find source path", and the
/// session does not start). gate's home, database and key exist once `gate init` made them;
/// a settings directory created later is held by the hook until `gate init codex --sandbox`
/// runs again (`gate doctor` says so).
pub fn existing(protected: &Protected) -> Protected {
    let keep = |paths: &[PathBuf]| paths.iter().filter(|p| p.exists()).cloned().collect();
    Protected {
        deny_write: keep(&protected.deny_write),
        deny_read: keep(&protected.deny_read),
    }
}

/// What `gate init codex --sandbox` did to `config.toml`: the file before (absent: `None`) and
/// what gate wrote, kept beside it (`config.toml.gate-sandbox`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub before: Option<String>,
    pub after: String,
}

/// `config.toml` with gate's profile in force: `default_permissions = "gate"` and the
/// `[permissions.gate]` tables (replaced when gate's are there already). Refused when the
/// user's `sandbox_mode` or another profile would decide instead: gate does not change a
/// choice the user made.
pub fn add(text: &str, loc: &Locations, protected: &Protected) -> Result<String> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .context("config.toml is not valid TOML; fix it first")?;
    if let Some(mode) = doc.get("sandbox_mode").and_then(|v| v.as_str()) {
        return Err(EnvironmentConflict(format!(
            "config.toml sets sandbox_mode = \"{mode}\", and Codex then ignores every \
             permission profile: remove it first if gate's profile (`:workspace` with gate's \
             locations read-only) is to decide instead"
        ))
        .into());
    }
    if let Some(name) = doc.get("default_permissions").and_then(|v| v.as_str()) {
        if name != PROFILE {
            return Err(EnvironmentConflict(format!(
                "config.toml runs Codex under the permission profile {name}: add gate's rules \
                 to it (`gate doctor` prints them) rather than replacing it"
            ))
            .into());
        }
    }
    let profile: toml_edit::DocumentMut = profile_snippet(loc, protected)
        .parse()
        .context("gate's generated profile is not TOML")?;
    doc.insert("default_permissions", toml_edit::value(PROFILE));
    let permissions = doc
        .entry("permissions")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .context("`permissions` in config.toml is not a table")?;
    permissions.insert(PROFILE, profile["permissions"][PROFILE].clone());
    Ok(doc.to_string())
}

/// `config.toml` without gate's profile: the file as it was when nothing changed since
/// (`None`: remove it), else the text with gate's keys taken out.
pub fn strip(text: &str, record: &Record) -> Result<Option<String>> {
    if text == record.after {
        return Ok(record.before.clone());
    }
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .context("config.toml is not valid TOML; fix it first")?;
    if doc.get("default_permissions").and_then(|v| v.as_str()) == Some(PROFILE) {
        doc.remove("default_permissions");
    }
    if let Some(permissions) = doc.get_mut("permissions").and_then(|p| p.as_table_mut()) {
        permissions.remove(PROFILE);
        if permissions.is_empty() {
            doc.remove("permissions");
        }
    }
    Ok(Some(doc.to_string()))
}

/// What `gate init codex` will do to `config.toml`, planned before anything is written.
pub struct Planned {
    path: PathBuf,
    current: Option<String>,
    after: String,
    record: Record,
    old_record: Option<Record>,
}

/// Plan gate's profile in `$CODEX_HOME/config.toml` (the user's file: a project's
/// `config.toml` cannot choose the sandbox): with `--sandbox`, or when gate wrote it before
/// (a later `gate init codex` keeps it). `None`: nothing to do.
pub fn plan(loc: &Locations, wanted: bool, protected: &Protected) -> Result<Option<Planned>> {
    let path = loc.codex_home.join("config.toml");
    let old_record: Option<Record> = super::read_record(&path)?;
    if !wanted && old_record.is_none() {
        return Ok(None);
    }
    let current = crate::install::read(&path)?
        .map(|b| String::from_utf8(b).context("config.toml is not UTF-8"))
        .transpose()?;
    // The file without gate's profile: what it was, when nothing changed since gate wrote it.
    let base = match (&current, &old_record) {
        (Some(text), Some(record)) => strip(text, record)?,
        (current, _) => current.clone(),
    };
    let after = add(base.as_deref().unwrap_or(""), loc, &existing(protected))?;
    Ok(Some(Planned {
        path,
        record: Record {
            before: base,
            after: after.clone(),
        },
        current,
        after,
        old_record,
    }))
}

/// Write a planned profile (not in a dry run) and say what changed.
pub fn apply(planned: Planned, dry_run: bool) -> Result<Outcome> {
    let changed = planned.current.as_deref() != Some(planned.after.as_str());
    let mut notes = vec![format!(
        "Codex's sandbox: the permission profile `{PROFILE}` in {} keeps gate's files and every \
         runtime's hook settings read-only and the audit key unreadable for the commands Codex \
         runs. What changes: every Codex session runs under it (`:workspace`: writes in the \
         workspace and the temporary directory, network as in workspace-write), also one Codex \
         would otherwise start read-only; a run with --sandbox or \
         --dangerously-bypass-approvals-and-sandbox still overrides it",
        planned.path.display()
    )];
    if !changed {
        notes.push(format!("{} already has it", planned.path.display()));
    }
    if !dry_run {
        if changed {
            if let Some(dir) = planned.path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            crate::install::write_atomic(&planned.path, planned.after.as_bytes())?;
        }
        if planned.old_record.as_ref() != Some(&planned.record) {
            super::write_record(&planned.path, Some(&planned.record))?;
        }
    }
    Ok(Outcome {
        path: planned.path,
        before: planned.current,
        after: Some(planned.after),
        changed,
        notes,
        also: Vec::new(),
    })
}

/// Take gate's profile out of `$CODEX_HOME/config.toml`, if gate put it there.
pub fn remove(loc: &Locations, dry_run: bool) -> Result<Option<Outcome>> {
    let path = loc.codex_home.join("config.toml");
    let Some(record) = super::read_record::<Record>(&path)? else {
        return Ok(None);
    };
    let current = crate::install::read(&path)?
        .map(|b| String::from_utf8(b).context("config.toml is not UTF-8"))
        .transpose()?;
    let after = match &current {
        Some(text) => strip(text, &record)?,
        None => None,
    };
    let outcome = Outcome {
        path: path.clone(),
        changed: current != after,
        before: current,
        after: after.clone(),
        notes: vec![format!(
            "took gate's permission profile out of {}",
            path.display()
        )],
        also: Vec::new(),
    };
    if !dry_run {
        match (&outcome.before, &after) {
            (_, Some(text)) => crate::install::write_atomic(&path, text.as_bytes())?,
            (Some(_), None) => std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?,
            (None, None) => {}
        }
        super::write_record::<Record>(&path, None)?;
    }
    Ok(Some(outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Locations, Protected) {
        let loc = Locations {
            project: "/p".into(),
            home: "/h".into(),
            codex_home: "/h/.codex".into(),
            copilot_home: "/h/.copilot".into(),
            claude_home: "/h/.claude".into(),
            gemini_home: "/h".into(),
        };
        let protected = Protected {
            deny_write: vec![
                PathBuf::from("/h/.local/state/gate"),
                PathBuf::from("/p/.claude"),
            ],
            deny_read: vec![PathBuf::from("/h/.local/state/gate/gate.key")],
        };
        (loc, protected)
    }

    const USER: &str = "# mine\nmodel = \"o3\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n";

    #[test]
    fn adds_the_profile_and_strips_it_back() {
        let (loc, protected) = setup();
        let after = add(USER, &loc, &protected).unwrap();
        let doc: toml::Table = after.parse().unwrap();
        assert_eq!(doc["default_permissions"].as_str(), Some("gate"));
        assert_eq!(
            doc["permissions"]["gate"]["extends"].as_str(),
            Some(":workspace")
        );
        assert_eq!(
            doc["permissions"]["gate"]["filesystem"][":project_roots"][".claude"].as_str(),
            Some("read")
        );
        assert_eq!(doc["model"].as_str(), Some("o3"));
        assert!(after.starts_with("# mine\nmodel = \"o3\"\n"), "{after}");
        // Idempotent.
        assert_eq!(add(&after, &loc, &protected).unwrap(), after);
        let record = Record {
            before: Some(USER.into()),
            after: after.clone(),
        };
        assert_eq!(strip(&after, &record).unwrap().as_deref(), Some(USER));
        // Changed since (Codex recorded a hook's trust): only gate's keys go.
        let later = format!("{after}\n[hooks.state.\"x\"]\nenabled = true\n");
        let stripped = strip(&later, &record).unwrap().unwrap();
        let doc: toml::Table = stripped.parse().unwrap();
        assert!(doc.get("default_permissions").is_none() && doc.get("permissions").is_none());
        assert!(doc["hooks"]["state"]["x"]["enabled"].as_bool().unwrap());
        assert_eq!(doc["model"].as_str(), Some("o3"));
    }

    #[test]
    fn refuses_to_override_the_users_choice() {
        let (loc, protected) = setup();
        for text in [
            "sandbox_mode = \"workspace-write\"\n",
            "default_permissions = \"mine\"\n[permissions.mine]\nextends = \":workspace\"\n",
        ] {
            let err = add(text, &loc, &protected).unwrap_err();
            assert!(err.is::<EnvironmentConflict>(), "{err:#}");
        }
    }
}
