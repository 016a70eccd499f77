//! The OS sandbox below the hook: gate's protected locations generated from its own
//! configuration, written into Claude Code's `sandbox` settings block by `gate init
//! claude-code --sandbox` (merged with the user's block, and taken out again byte for byte),
//! and a record of exactly what was added so that `--remove` can take out only that.

pub mod codex;

use crate::config::Config;
use crate::install::Locations;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
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
    /// parent exists.
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
        let write = dedup(write)
            .into_iter()
            .filter(|p| p.parent().is_some_and(is_dir))
            .collect();
        Protected {
            deny_write: write,
            deny_read: vec![key],
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
    Ok(Record {
        before,
        after: map.get("sandbox").cloned().unwrap_or(Value::Null),
        deny_write,
        deny_read,
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
        // Keys keep their order: sandbox first, then z.
        let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["sandbox", "z"]);
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
        assert_eq!(p.deny_read, [PathBuf::from("/data/g/state.key")]);
        // Without `.github/` in the project its hooks directory is left out (a placeholder
        // would make `.github/` read-only); the project's own names stay.
        let p = Protected::generate_in(&loc, &config, Path::new("/opt/bin/gate"), &|d| {
            d != Path::new("/p/.github")
        });
        assert!(!p.deny_write.contains(&PathBuf::from("/p/.github/hooks")));
        assert!(p.deny_write.contains(&PathBuf::from("/p/.gemini")));
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
