//! The OS sandbox below the hook: gate's protected locations, generated from its own
//! configuration, which `gate init <runtime> --sandbox` hands to the runtime's sandbox
//! (`claude.rs`: Claude Code's settings block; `codex.rs`: Codex's permission profile), and
//! the record kept beside a file gate changed, so that `--remove` takes out exactly that.

pub mod claude;
pub mod claude_rules;
pub mod codex;

use crate::config::Config;
use crate::install::Locations;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Suffix of the record kept next to a settings file whose sandbox block gate changed.
pub const RECORD_SUFFIX: &str = ".gate-sandbox";

/// Directories that hold a runtime's hook settings or gate's own config, in a project and
/// in the home directory (the same names the engine protects: `effects/places.rs`).
const SETTINGS_DIRS: &[&str] = &[".claude", ".codex", ".gemini", ".copilot", ".gate"];
/// Settings files and directories below the project root.
const PROJECT_PATHS: &[&str] = &[".github/hooks"];
/// Settings files and directories below the home directory.
const HOME_PATHS: &[&str] = &[".claude.json", ".cargo/bin/gate", ".local/bin/gate"];
/// The files the store keeps beside its database (`gate-runtime/src/store`,
/// `driver/hook.rs`, `sink/schedule.rs`): suffixes of the database's own name.
const DB_SIDE_SUFFIXES: &[&str] = &[
    "-wal",
    "-shm",
    "-journal",
    ".lock",
    ".sink.lock",
    ".sink-due",
];
/// Files beside the database, by name.
const DB_SIDE_FILES: &[&str] = &["faults.jsonl", "faults.jsonl.1"];

/// gate's locations as the OS sandbox sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protected {
    /// No write below these (directories or files).
    pub deny_write: Vec<PathBuf>,
    /// No read of these (the audit key).
    pub deny_read: Vec<PathBuf>,
}

impl Protected {
    /// From gate's resolved configuration, the installer's locations and the gate binary.
    pub fn generate(loc: &Locations, config: &Config, exe: &Path) -> Protected {
        Protected::generate_in(loc, config, exe, &|dir| dir.is_dir())
    }

    /// [`Protected::generate`], with `is_dir` telling which directories exist. A location
    /// whose parent does not exist is left out: the sandboxes stand a placeholder in for a
    /// missing path, and for `.github/hooks` in a project without `.github/` that would be a
    /// read-only `.github/` (no workflow could be added). `gate doctor` names it once the
    /// parent exists. gate's home is the exception: `gate init --sandbox` creates it first.
    pub fn generate_in(
        loc: &Locations,
        config: &Config,
        exe: &Path,
        is_dir: &dyn Fn(&Path) -> bool,
    ) -> Protected {
        let mut write = Vec::new();
        let home = &config.home.value;
        write.push(home.clone());
        let db = &config.db.value;
        let key = gate_runtime::store::key_path(db);
        if !db.starts_with(home) {
            // A database elsewhere: its files one by one (its directory may be a project).
            write.push(db.clone());
            for suffix in DB_SIDE_SUFFIXES {
                let mut name = db.as_os_str().to_os_string();
                name.push(suffix);
                write.push(PathBuf::from(name));
            }
            write.push(key.clone());
            if let Some(dir) = db.parent() {
                write.extend(DB_SIDE_FILES.iter().map(|f| dir.join(f)));
            }
        }
        for dir in SETTINGS_DIRS {
            write.push(loc.project.join(dir));
            write.push(loc.home.join(dir));
        }
        write.extend(PROJECT_PATHS.iter().map(|p| loc.project.join(p)));
        write.extend(HOME_PATHS.iter().map(|p| loc.home.join(p)));
        // The runtimes' own homes, wherever their variables put them.
        write.push(loc.claude_home.clone());
        write.push(loc.codex_home.clone());
        write.push(loc.copilot_home.clone());
        write.push(loc.gemini_home.join(".gemini"));
        // gate's config files: the user's directory and every file that was read.
        write.push(loc.home.join(".config/gate"));
        if let Some(user) = crate::config::user_file(&crate::config::ProcessEnv) {
            write.extend(user.parent().map(Path::to_path_buf));
        }
        write.extend(
            config
                .files
                .iter()
                .filter_map(|f| f.parent().map(Path::to_path_buf)),
        );
        write.push(exe.to_path_buf());
        // gate's home is always listed (`gate init --sandbox` creates it beforehand).
        let write = dedup(write)
            .into_iter()
            .filter(|p| p.starts_with(home) || p.parent().is_some_and(is_dir))
            .collect();
        // The backups of mode `reversible` hold copies of what actions lost, secrets among
        // them: not writable (they sit in gate's home or beside its database) nor readable.
        let backups = gate_runtime::backup::store_dir(db);
        let write: Vec<PathBuf> = if backups.starts_with(home) {
            write
        } else {
            dedup(write.into_iter().chain([backups.clone()]).collect())
        };
        Protected {
            deny_write: write,
            deny_read: vec![key, backups],
        }
    }
}

/// Absolute, with `.` and `..` folded, in first-seen order, each once; a path below another
/// one in the list is dropped (the sandbox protects a directory with all it holds).
fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| p.is_absolute())
        .map(|p| fold(&p))
        .collect();
    let mut out: Vec<PathBuf> = Vec::new();
    for p in &paths {
        let covered = paths.iter().any(|q| q != p && p.starts_with(q));
        if !covered && !out.contains(p) {
            out.push(p.clone());
        }
    }
    out
}

fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The record's path for a settings file.
pub fn record_path(settings: &Path) -> PathBuf {
    let mut name = settings.as_os_str().to_os_string();
    name.push(RECORD_SUFFIX);
    PathBuf::from(name)
}

/// Read the record of a settings file (none: gate never changed its sandbox).
pub fn read_record<T: serde::de::DeserializeOwned>(settings: &Path) -> Result<Option<T>> {
    let path = record_path(settings);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .with_context(|| format!("{} is not a record gate wrote", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Write (or, with `None`, delete) the record of a settings file.
pub fn write_record<T: Serialize>(settings: &Path, record: Option<&T>) -> Result<()> {
    let path = record_path(settings);
    match record {
        Some(record) => {
            let mut text = serde_json::to_string_pretty(record)?;
            text.push('\n');
            std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
        }
        None => match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e).with_context(|| format!("cannot remove {}", path.display())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_drops_what_a_listed_directory_holds() {
        let paths = ["/a/b", "/a", "/a/./c", "/d/../e", "/e", "rel"].map(PathBuf::from);
        assert_eq!(dedup(paths.to_vec()), ["/a", "/e"].map(PathBuf::from));
    }

    #[test]
    fn generated_from_the_configuration() {
        let env = TestEnv {
            home: "/h".into(),
            cwd: "/p".into(),
            vars: vec![("GATE_DB", "/data/g/state.db")],
        };
        let config = Config::resolve_in(&crate::config::Overrides::default(), &env).unwrap();
        let loc = Locations {
            project: "/p".into(),
            home: "/h".into(),
            codex_home: "/ch".into(),
            copilot_home: "/h/.copilot".into(),
            claude_home: "/h/.claude".into(),
            gemini_home: "/h".into(),
        };
        let p = Protected::generate_in(&loc, &config, Path::new("/opt/bin/gate"), &|_| true);
        let has = |s: &str| p.deny_write.contains(&PathBuf::from(s));
        for path in [
            "/h/.local/state/gate",
            "/data/g/state.db",
            "/data/g/state.db-wal",
            "/data/g/state.db.lock",
            "/data/g/state.key",
            "/data/g/faults.jsonl",
            "/data/g/state.backups",
            "/p/.claude",
            "/p/.codex",
            "/p/.gemini",
            "/p/.gate",
            "/p/.github/hooks",
            "/h/.claude",
            "/h/.claude.json",
            "/ch",
            "/opt/bin/gate",
        ] {
            assert!(has(path), "{path} missing from {:?}", p.deny_write);
        }
        assert!(
            !has("/data/g"),
            "the database's directory itself stays writable"
        );
        assert_eq!(
            p.deny_read,
            [
                PathBuf::from("/data/g/state.key"),
                PathBuf::from("/data/g/state.backups")
            ]
        );
        // Without `.github/` in the project its hooks directory is left out (a placeholder
        // would make `.github/` read-only); the project's own names stay.
        let p = Protected::generate_in(&loc, &config, Path::new("/opt/bin/gate"), &|d| {
            d != Path::new("/p/.github")
        });
        assert!(!p.deny_write.contains(&PathBuf::from("/p/.github/hooks")));
        assert!(p.deny_write.contains(&PathBuf::from("/p/.gemini")));
        // gate's home stays listed whatever exists above it.
        let p = Protected::generate_in(&loc, &config, Path::new("/opt/bin/gate"), &|d| {
            !d.starts_with("/h/.local")
        });
        assert!(p
            .deny_write
            .contains(&PathBuf::from("/h/.local/state/gate")));
    }

    struct TestEnv {
        home: String,
        cwd: String,
        vars: Vec<(&'static str, &'static str)>,
    }

    impl crate::config::Environment for TestEnv {
        fn var(&self, name: &str) -> Option<String> {
            if name == "HOME" {
                return Some(self.home.clone());
            }
            self.vars
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
        fn cwd(&self) -> Result<PathBuf> {
            Ok(PathBuf::from(&self.cwd))
        }
    }
}
