//! Where gate's trust boundary is enforced, per runtime: by the runtime's own OS sandbox
//! (nothing the agent's commands run can write gate's files), partly, or by gate's hook
//! alone; why, and what to install or run to move it below the hook. `gate doctor` shows it.

mod codex;

use crate::install::Locations;
use crate::sandbox::Protected;
use gate_runtime::event::Runtime;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How far below the hook a runtime keeps gate's locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Enforcement {
    /// The runtime's sandbox refuses every write at gate's locations and the key's read.
    Os,
    /// The sandbox covers some of them; the rest rely on the hook.
    Partial,
    /// Only gate's hook stands between the agent's commands and gate's files.
    HookOnly,
}

/// One runtime's boundary.
#[derive(Clone, Debug, Serialize)]
pub struct Boundary {
    pub enforcement: Enforcement,
    /// Why it is not (fully) OS-enforced, or what holds it.
    pub why: Vec<String>,
    /// What to install or run to move it below the hook.
    pub fix: Vec<String>,
    /// A sandbox is turned on but does not run (a missing program, its file rules off, an
    /// unsupported platform): `gate doctor` fails on it.
    pub broken: bool,
    /// Settings that would move the boundary below the hook, generated from gate's
    /// configuration (Codex: the permission profile for `config.toml`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<String>,
}

/// Programs Claude Code's sandbox needs on Linux (bubblewrap for the file system, socat
/// for its network proxy), with the Debian package of each.
const LINUX_SANDBOX_PROGRAMS: &[(&str, &str)] = &[("bwrap", "bubblewrap"), ("socat", "socat")];

/// The boundary of `runtime` on this machine.
pub fn of(runtime: Runtime, loc: &Locations, protected: &Protected) -> Boundary {
    match runtime {
        Runtime::ClaudeCode => claude(loc, protected, &Platform::current()),
        Runtime::Codex => codex::boundary(loc, protected),
        Runtime::Gemini => Boundary {
            enforcement: Enforcement::HookOnly,
            why: vec![
                "Gemini CLI's sandbox (GEMINI_SANDBOX: docker, podman or macOS sandbox-exec) \
                 mounts the project writable and takes no list of denied paths, so gate cannot \
                 have it protect `.gemini/`, `.claude/`, `.gate/` or gate's state"
                    .into(),
            ],
            fix: vec![
                "none within Gemini CLI; run it inside a container or VM that does not mount \
                 gate's state and settings writable"
                    .into(),
            ],
            broken: false,
            settings: None,
        },
        Runtime::Copilot => Boundary {
            enforcement: Enforcement::HookOnly,
            why: vec!["Copilot CLI runs its tools without an OS sandbox".into()],
            fix: vec![
                "none within Copilot CLI; run it inside a container or VM that does not mount \
                 gate's state and settings writable"
                    .into(),
            ],
            broken: false,
            settings: None,
        },
    }
}

/// What the platform offers Claude Code's sandbox.
#[derive(Clone, Debug)]
pub struct Platform {
    pub os: &'static str,
    /// Programs the sandbox needs that are not on PATH (Linux).
    pub missing: Vec<(&'static str, &'static str)>,
}

impl Platform {
    pub fn current() -> Platform {
        let os = std::env::consts::OS;
        let missing = if os == "linux" {
            LINUX_SANDBOX_PROGRAMS
                .iter()
                .filter(|(program, _)| !on_path(program))
                .copied()
                .collect()
        } else {
            Vec::new()
        };
        Platform { os, missing }
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Claude Code's settings files, highest precedence first (local, project, user).
fn claude_files(loc: &Locations) -> Vec<PathBuf> {
    vec![
        loc.project.join(".claude/settings.local.json"),
        loc.project.join(".claude/settings.json"),
        loc.claude_home.join("settings.json"),
    ]
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Claude Code: its sandbox, as the settings files configure it, against gate's locations.
pub fn claude(loc: &Locations, protected: &Protected, platform: &Platform) -> Boundary {
    let docs: Vec<Value> = claude_files(loc)
        .iter()
        .filter_map(|p| read_json(p))
        .collect();
    let sandboxes: Vec<&Value> = docs.iter().filter_map(|d| d.get("sandbox")).collect();
    // A scalar: the highest-precedence file that sets it.
    let first = |key: &str| sandboxes.iter().find_map(|s| s.get(key)).cloned();
    let pointer = |ptr: &str| sandboxes.iter().find_map(|s| s.pointer(ptr)).cloned();
    // Lists merge across the files.
    let list = |key: &str| -> Vec<PathBuf> {
        sandboxes
            .iter()
            .filter_map(|s| s.pointer(&format!("/filesystem/{key}")))
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_str)
            .map(|s| expand(s, &loc.home))
            .collect()
    };
    let mut why = Vec::new();
    let mut fix = Vec::new();
    let init = "gate init claude-code --sandbox";
    let enabled = first("enabled") == Some(Value::Bool(true));
    if platform.os == "windows" {
        return Boundary {
            enforcement: Enforcement::HookOnly,
            why: vec!["Claude Code's sandbox does not run on native Windows".into()],
            fix: vec!["run Claude Code in WSL2, then `gate init claude-code --sandbox`".into()],
            broken: enabled,
            settings: None,
        };
    }
    if !enabled {
        return Boundary {
            enforcement: Enforcement::HookOnly,
            why: vec!["Claude Code's sandbox is not enabled (sandbox.enabled)".into()],
            fix: vec![format!(
                "`{init}` (what it changes for Bash commands: docs/reliability.md)"
            )],
            broken: false,
            settings: None,
        };
    }
    if pointer("/filesystem/disabled") == Some(Value::Bool(true)) {
        return Boundary {
            enforcement: Enforcement::HookOnly,
            why: vec!["sandbox.filesystem.disabled is true: no file rules are applied".into()],
            fix: vec!["remove sandbox.filesystem.disabled".into()],
            broken: true,
            settings: None,
        };
    }
    if !platform.missing.is_empty() {
        let programs: Vec<&str> = platform.missing.iter().map(|(p, _)| *p).collect();
        let packages: Vec<&str> = platform.missing.iter().map(|(_, p)| *p).collect();
        return Boundary {
            enforcement: Enforcement::HookOnly,
            why: vec![format!(
                "the sandbox is enabled but {} not on PATH: Claude Code warns and runs Bash \
                 unsandboxed",
                if programs.len() == 1 {
                    format!("{} is", programs[0])
                } else {
                    format!("{} are", programs.join(" and "))
                }
            )],
            fix: vec![format!(
                "install {} (Debian/Ubuntu: `sudo apt-get install {}`)",
                packages.join(" and "),
                packages.join(" ")
            )],
            broken: true,
            settings: None,
        };
    }
    let deny_write = list("denyWrite");
    let deny_read = list("denyRead");
    let covered = |path: &PathBuf, by: &[PathBuf]| by.iter().any(|d| path.starts_with(d));
    let missing_write: Vec<String> = protected
        .deny_write
        .iter()
        .filter(|p| !covered(p, &deny_write))
        .map(|p| p.display().to_string())
        .collect();
    let missing_read: Vec<String> = protected
        .deny_read
        .iter()
        .filter(|p| !covered(p, &deny_read))
        .map(|p| p.display().to_string())
        .collect();
    if !missing_write.is_empty() {
        why.push(format!(
            "sandbox.filesystem.denyWrite lacks {} of gate's locations: {}",
            missing_write.len(),
            missing_write.join(", ")
        ));
    }
    if !missing_read.is_empty() {
        why.push(format!(
            "sandbox.filesystem.denyRead lacks the audit key: {}",
            missing_read.join(", ")
        ));
    }
    if !missing_write.is_empty() || !missing_read.is_empty() {
        fix.push(format!(
            "`{init}` again (it adds the locations of the current configuration)"
        ));
    }
    // `false` anywhere holds (Claude Code ignores a project's `true` over it).
    let escapable = !sandboxes
        .iter()
        .any(|s| s.get("allowUnsandboxedCommands") == Some(&Value::Bool(false)));
    if escapable {
        why.push(
            "allowUnsandboxedCommands is not false: a command rerun with \
             dangerouslyDisableSandbox runs outside the sandbox, judged by the hook alone"
                .into(),
        );
        fix.push("set sandbox.allowUnsandboxedCommands to false".into());
    }
    for (key, what) in [
        (
            "allowNestedUserNamespaces",
            "lets a sandboxed command undo the write denies",
        ),
        (
            "enableWeakerNestedSandbox",
            "leaves the host's /proc readable",
        ),
    ] {
        if first(key) == Some(Value::Bool(true)) {
            why.push(format!("sandbox.{key} is true: it {what}"));
            fix.push(format!("remove sandbox.{key}"));
        }
    }
    if why.is_empty() {
        why.push(format!(
            "Claude Code's sandbox ({}) write-protects all {} of gate's locations and hides the \
             audit key from Bash commands and every program they start; hooks run outside it",
            if platform.os == "linux" {
                "bubblewrap"
            } else {
                "Seatbelt"
            },
            protected.deny_write.len()
        ));
        why.push(
            "Claude Code's own file tools (Write, Edit) are not sandboxed: gate's hook denies \
             them at gate's locations"
                .into(),
        );
        Boundary {
            enforcement: Enforcement::Os,
            why,
            fix,
            broken: false,
            settings: None,
        }
    } else {
        Boundary {
            enforcement: Enforcement::Partial,
            why,
            fix,
            broken: false,
            settings: None,
        }
    }
}

/// `~/x` against home; anything else as written.
fn expand(entry: &str, home: &Path) -> PathBuf {
    match entry.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => PathBuf::from(entry.strip_prefix('/').map_or(entry.to_string(), |rest| {
            // `//abs` is the older spelling of an absolute path.
            format!("/{}", rest.trim_start_matches('/'))
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn setup(settings: Value) -> (tempfile::TempDir, Locations, Protected) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let loc = Locations {
            project: root.join("p"),
            home: root.join("h"),
            codex_home: root.join("h/.codex"),
            copilot_home: root.join("h/.copilot"),
            claude_home: root.join("h/.claude"),
            gemini_home: root.join("h"),
        };
        let file = loc.project.join(".claude/settings.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, settings.to_string()).unwrap();
        let protected = Protected {
            deny_write: vec![root.join("h/.local/state/gate"), root.join("p/.claude")],
            deny_read: vec![root.join("h/.local/state/gate/gate.key")],
        };
        (dir, loc, protected)
    }

    fn linux(missing: &[(&'static str, &'static str)]) -> Platform {
        Platform {
            os: "linux",
            missing: missing.to_vec(),
        }
    }

    #[test]
    fn os_enforced_when_every_location_is_denied() {
        let (dir, loc, protected) = setup(json!({}));
        let mut doc = json!({});
        crate::sandbox::claude::add(&mut doc, &protected).unwrap();
        std::fs::write(loc.project.join(".claude/settings.json"), doc.to_string()).unwrap();
        let b = claude(&loc, &protected, &linux(&[]));
        assert_eq!(b.enforcement, Enforcement::Os, "{b:?}");
        drop(dir);
    }

    #[test]
    fn each_reason_is_named_with_its_fix() {
        let (_dir, loc, protected) = setup(json!({}));
        let b = claude(&loc, &protected, &linux(&[]));
        assert_eq!(b.enforcement, Enforcement::HookOnly);
        assert!(!b.broken);
        assert!(b.why[0].contains("not enabled"));
        assert!(b.fix[0].contains("gate init claude-code --sandbox"));

        let (_dir, loc, protected) = setup(json!({"sandbox": {"enabled": true}}));
        let b = claude(&loc, &protected, &linux(&[("bwrap", "bubblewrap")]));
        assert_eq!(b.enforcement, Enforcement::HookOnly);
        assert!(b.why[0].contains("bwrap is not on PATH"), "{b:?}");
        assert!(b.fix[0].contains("apt-get install bubblewrap"));
        assert!(
            b.broken,
            "an enabled sandbox that cannot start fails gate doctor"
        );

        let b = claude(&loc, &protected, &linux(&[]));
        assert_eq!(b.enforcement, Enforcement::Partial);
        assert!(b
            .why
            .iter()
            .any(|w| w.contains("lacks 2 of gate's locations")));
        assert!(b.why.iter().any(|w| w.contains("allowUnsandboxedCommands")));

        let b = claude(
            &loc,
            &protected,
            &Platform {
                os: "windows",
                missing: Vec::new(),
            },
        );
        assert_eq!(b.enforcement, Enforcement::HookOnly);

        let (_dir, loc, protected) =
            setup(json!({"sandbox": {"enabled": true, "filesystem": {"disabled": true}}}));
        let b = claude(&loc, &protected, &linux(&[]));
        assert!(b.why[0].contains("filesystem.disabled"));
    }

    #[test]
    fn lists_merge_across_files_and_a_parent_covers_its_contents() {
        let (dir, loc, protected) = setup(json!({}));
        std::fs::write(
            loc.project.join(".claude/settings.json"),
            json!({"sandbox": {"enabled": true, "allowUnsandboxedCommands": false,
                "filesystem": {"denyWrite": [dir_of(&protected.deny_write[1])]}}})
            .to_string(),
        )
        .unwrap();
        let user = loc.claude_home.join("settings.json");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(
            &user,
            json!({"sandbox": {"filesystem": {
                "denyWrite": [dir_of(&protected.deny_write[0]).replace("/state/gate", "/state")],
                "denyRead": [dir_of(&protected.deny_read[0])]}}})
            .to_string(),
        )
        .unwrap();
        let b = claude(&loc, &protected, &linux(&[]));
        assert_eq!(b.enforcement, Enforcement::Os, "{b:?}");
        drop(dir);
    }

    fn dir_of(p: &Path) -> String {
        p.display().to_string()
    }
}
