//! Codex CLI's sandbox against gate's locations: the legacy `sandbox_mode` (whose
//! workspace-write cannot deny a path below a writable root), or a permission profile
//! (`default_permissions`, `[permissions.<name>.filesystem]`), which can: `"read"` keeps a
//! path read-only, `"none"` unreadable, also below the project root (`":project_roots"`).

use super::{Boundary, Enforcement};
use crate::install::Locations;
use crate::sandbox::codex::{in_tmp, profile_snippet};
use crate::sandbox::Protected;
use std::path::{Path, PathBuf};

/// Accesses that keep a path from being written, and those that keep it from being read.
const NO_WRITE: &[&str] = &["read", "none", "deny"];
const NO_READ: &[&str] = &["none", "deny"];

/// The user's config, then the project's (the project file cannot choose the sandbox).
fn tables(loc: &Locations) -> Vec<toml::Table> {
    [
        loc.codex_home.join("config.toml"),
        loc.project.join(".codex/config.toml"),
    ]
    .iter()
    .filter_map(|p| std::fs::read_to_string(p).ok()?.parse().ok())
    .collect()
}

/// A permission profile's file rules, each path with its access.
fn profile_rules(tables: &[toml::Table], name: &str, project: &Path) -> Vec<(PathBuf, String)> {
    let mut rules = Vec::new();
    for table in tables {
        let Some(fs) = table
            .get("permissions")
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("filesystem"))
            .and_then(|f| f.as_table())
        else {
            continue;
        };
        for (key, value) in fs {
            match (key.as_str(), value) {
                (":project_roots" | ":workspace_roots", toml::Value::Table(sub)) => {
                    for (rel, access) in sub {
                        if let Some(access) = access.as_str() {
                            rules.push((project.join(rel), access.to_string()));
                        }
                    }
                }
                (path, toml::Value::String(access)) if path.starts_with('/') => {
                    rules.push((PathBuf::from(path), access.clone()));
                }
                _ => {}
            }
        }
    }
    rules
}

/// The most specific rule at `path` (the longest path that holds it) keeps it from `deny`.
fn held(path: &Path, rules: &[(PathBuf, String)], deny: &[&str]) -> bool {
    rules
        .iter()
        .filter(|(p, _)| path.starts_with(p))
        .max_by_key(|(p, _)| p.components().count())
        .is_some_and(|(_, access)| deny.contains(&access.as_str()))
}

/// Codex's boundary on this machine, from its config files; short of OS-enforced, with the
/// profile that would make it so.
pub fn boundary(loc: &Locations, protected: &Protected) -> Boundary {
    // Codex is given the locations that exist (`sandbox::codex::existing`).
    let protected = &crate::sandbox::codex::existing(protected);
    let mut b = judge(loc, protected);
    if b.enforcement != Enforcement::Os {
        b.settings = Some(profile_snippet(loc, protected));
    }
    b
}

fn judge(loc: &Locations, protected: &Protected) -> Boundary {
    let tables = tables(loc);
    let top = |k: &str| {
        tables
            .iter()
            .find_map(|t| t.get(k))
            .and_then(|v| v.as_str().map(str::to_string))
    };
    let config = loc.codex_home.join("config.toml");
    let fix_profile = if top("sandbox_mode").is_some() {
        format!(
            "remove sandbox_mode from {} (Codex ignores permission profiles beside it), then \
             `gate init codex --sandbox`: it writes the profile below (`settings` in --json), \
             generated from gate's configuration",
            config.display()
        )
    } else {
        format!(
            "`gate init codex --sandbox`: it writes the permission profile below (`settings` \
             in --json), generated from gate's configuration, into {} (Codex's permission \
             profiles are beta)",
            config.display()
        )
    };
    let boundary = |enforcement, why: Vec<String>, fix: Vec<String>| Boundary {
        enforcement,
        why,
        fix,
        broken: false,
        settings: None,
    };
    let mode = top("sandbox_mode");
    if let (Some(name), None) = (top("default_permissions"), &mode) {
        return profile(loc, protected, &tables, &name, fix_profile);
    }
    match mode.as_deref() {
        Some("danger-full-access") => boundary(
            Enforcement::HookOnly,
            vec!["sandbox_mode is danger-full-access: Codex runs commands unsandboxed".into()],
            vec![fix_profile],
        ),
        Some("read-only") => boundary(
            Enforcement::Partial,
            vec![
                "sandbox_mode is read-only: Codex's commands write nothing without an approval, \
                 but they can read the audit key"
                    .into(),
            ],
            vec![fix_profile],
        ),
        other => boundary(
            Enforcement::Partial,
            vec![
                match other {
                    Some(mode) => format!("sandbox_mode is {mode}"),
                    None => "neither sandbox_mode nor default_permissions is set: Codex picks \
                             the sandbox per run (workspace-write for a trusted project)"
                        .into(),
                },
                "outside the writable roots (gate's state and key, its config, $CODEX_HOME, \
                 ~/.claude) commands cannot write; but workspace-write cannot deny a path below \
                 a writable root (only `.git/`, `.agents/` and `.codex/` there are kept \
                 read-only), so the project's `.claude/`, `.gemini/`, `.github/hooks/` and \
                 `.gate/` stay writable to its commands, and they can read the audit key"
                    .into(),
            ],
            vec![fix_profile],
        ),
    }
}

/// Under a permission profile: which of gate's locations its rules hold.
fn profile(
    loc: &Locations,
    protected: &Protected,
    tables: &[toml::Table],
    name: &str,
    fix: String,
) -> Boundary {
    let boundary = |enforcement, why: Vec<String>, fix: Vec<String>| Boundary {
        enforcement,
        why,
        fix,
        broken: false,
        settings: None,
    };
    if name == ":danger-full-access" {
        return boundary(
            Enforcement::HookOnly,
            vec!["default_permissions is :danger-full-access: commands run unsandboxed".into()],
            vec![fix],
        );
    }
    if name.starts_with(':') {
        return boundary(
            Enforcement::Partial,
            vec![format!(
                "default_permissions is the built-in {name}: it has no rules for gate's \
                 locations inside the project or for the audit key"
            )],
            vec![fix],
        );
    }
    let rules = profile_rules(tables, name, &loc.project);
    let open_write: Vec<String> = protected
        .deny_write
        .iter()
        .filter(|p| !held(p, &rules, NO_WRITE))
        .map(|p| p.display().to_string())
        .collect();
    let open_read: Vec<String> = protected
        .deny_read
        .iter()
        .filter(|p| !held(p, &rules, NO_READ))
        .map(|p| p.display().to_string())
        .collect();
    if open_write.is_empty() && open_read.is_empty() {
        return boundary(
            Enforcement::Os,
            vec![format!(
                "the permission profile {name} keeps all {} of gate's locations read-only and \
                 the audit key unreadable for Codex's commands (unless a run passes --sandbox or \
                 --dangerously-bypass-approvals-and-sandbox)",
                protected.deny_write.len()
            )],
            Vec::new(),
        );
    }
    let mut why = Vec::new();
    if !open_write.is_empty() {
        why.push(format!(
            "the permission profile {name} has no \"read\" or \"none\" rule for: {}",
            open_write.join(", ")
        ));
    }
    if !open_read.is_empty() {
        why.push(format!(
            "the permission profile {name} leaves the audit key readable: {}{}",
            open_read.join(", "),
            if protected.deny_read.iter().any(|k| in_tmp(k)) {
                " (below the temporary directory Codex's sandbox cannot hide it; keep gate's \
                 home elsewhere)"
            } else {
                ""
            }
        ));
    }
    boundary(Enforcement::Partial, why, vec![fix])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Locations, Protected) {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let loc = Locations {
            project: r.join("p"),
            home: r.join("h"),
            codex_home: r.join("c"),
            copilot_home: r.join("h/.copilot"),
            claude_home: r.join("h/.claude"),
            gemini_home: r.join("h"),
        };
        std::fs::create_dir_all(&loc.codex_home).unwrap();
        std::fs::create_dir_all(r.join("h/.local/state/gate")).unwrap();
        std::fs::create_dir_all(r.join("p/.claude")).unwrap();
        std::fs::write(r.join("h/.local/state/gate/gate.key"), "k").unwrap();
        let protected = Protected {
            deny_write: vec![r.join("h/.local/state/gate"), r.join("p/.claude")],
            deny_read: vec![r.join("h/.local/state/gate/gate.key")],
        };
        (dir, loc, protected)
    }

    fn write(loc: &Locations, text: &str) {
        std::fs::write(loc.codex_home.join("config.toml"), text).unwrap();
    }

    #[test]
    fn legacy_modes() {
        let (_dir, loc, protected) = setup();
        write(&loc, "sandbox_mode = \"danger-full-access\"\n");
        assert_eq!(
            boundary(&loc, &protected).enforcement,
            Enforcement::HookOnly
        );
        write(&loc, "sandbox_mode = \"workspace-write\"\n");
        let b = boundary(&loc, &protected);
        assert_eq!(b.enforcement, Enforcement::Partial);
        assert!(b.why[1].contains("cannot deny a path below a writable root"));
        assert!(b.fix[0].contains("remove sandbox_mode"), "{b:?}");
        assert!(b
            .settings
            .as_deref()
            .unwrap()
            .contains("[permissions.gate]"));
    }

    #[test]
    fn the_generated_profile_holds_every_location() {
        let (_dir, loc, protected) = setup();
        let snippet = crate::sandbox::codex::snippet_in(&loc, &protected, &[]);
        assert!(snippet.contains("\".claude\" = \"read\""), "{snippet}");
        assert!(snippet.contains("gate.key\" = \"none\""), "{snippet}");
        // Below a temporary directory the key's rule is left out (Codex would not start).
        let tmp = loc.home.parent().unwrap().to_path_buf();
        assert!(!crate::sandbox::codex::snippet_in(&loc, &protected, &[tmp]).contains("\"none\""));
        write(&loc, &format!("model = \"x\"\n{snippet}"));
        let b = boundary(&loc, &protected);
        assert_eq!(b.enforcement, Enforcement::Os, "{b:?}");
        // sandbox_mode beside it wins in Codex: the profile is not in force.
        write(
            &loc,
            &format!("sandbox_mode = \"workspace-write\"\n{snippet}"),
        );
        assert_eq!(boundary(&loc, &protected).enforcement, Enforcement::Partial);
    }

    #[test]
    fn a_profile_missing_rules_names_them() {
        let (_dir, loc, protected) = setup();
        let home = protected.deny_write[0].display().to_string();
        write(
            &loc,
            &format!(
                "default_permissions = \"mine\"\n[permissions.mine]\nextends = \":workspace\"\n\
                 [permissions.mine.filesystem]\n\"{home}\" = \"read\"\n"
            ),
        );
        let b = boundary(&loc, &protected);
        assert_eq!(b.enforcement, Enforcement::Partial);
        assert!(b.why[0].contains(".claude"), "{b:?}");
        assert!(b.why[1].contains("gate.key"), "{b:?}");
    }
}
