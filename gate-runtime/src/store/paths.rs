//! Where the database and its key live, and the best-effort fault log beside them.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::StoreError;

/// Above this size `faults.jsonl` is rotated to `faults.jsonl.1` (one old file kept).
pub const FAULT_LOG_MAX_BYTES: u64 = 4 * 1024 * 1024;

/// `GATE_DB`, else `$GATE_HOME/gate.db`, else `$XDG_STATE_HOME/gate/gate.db`, else
/// `~/.local/state/gate/gate.db`. Empty variables count as unset.
pub fn default_path() -> Result<PathBuf, StoreError> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(db) = var("GATE_DB") {
        return Ok(PathBuf::from(db));
    }
    if let Some(home) = var("GATE_HOME") {
        return Ok(PathBuf::from(home).join("gate.db"));
    }
    if let Some(state) = var("XDG_STATE_HOME") {
        return Ok(PathBuf::from(state).join("gate").join("gate.db"));
    }
    if let Some(home) = var("HOME") {
        return Ok(PathBuf::from(home)
            .join(".local")
            .join("state")
            .join("gate")
            .join("gate.db"));
    }
    Err(StoreError::NoHome)
}

/// The HMAC key file beside a database: `<db stem>.key`.
pub fn key_path(db: &Path) -> PathBuf {
    let stem = db
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "gate".into());
    let mut name = stem;
    name.push(".key");
    db.with_file_name(name)
}

/// Creates `dir` (and missing parents) with mode 0700; an existing directory is left as is.
pub(crate) fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Opens a file for appending, creating it with mode 0600.
pub(crate) fn open_private_append(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Opens a file for writing without truncating it, creating it with mode 0600.
pub(crate) fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Appends one JSON line to `faults.jsonl` beside the database (or in the directory, when a
/// directory is given). For use when the database itself cannot be used: best effort, never
/// panics, never reports an error. Strings in `line` are redacted.
pub fn fallback_log(dir_or_db_path: &Path, line: &serde_json::Value) {
    let _ = append_fault(&fault_log_path(dir_or_db_path), line);
}

/// Where [`fallback_log`] writes: `faults.jsonl` beside the database, or in the directory
/// when a directory is given.
pub fn fault_log_path(dir_or_db_path: &Path) -> PathBuf {
    let dir = if dir_or_db_path.is_dir() {
        dir_or_db_path
    } else {
        dir_or_db_path.parent().unwrap_or(Path::new("."))
    };
    dir.join("faults.jsonl")
}

fn append_fault(path: &Path, line: &serde_json::Value) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    ensure_dir(dir)?;
    if std::fs::metadata(path).is_ok_and(|m| m.len() > FAULT_LOG_MAX_BYTES) {
        std::fs::rename(path, dir.join("faults.jsonl.1"))?;
    }
    let mut text = serde_json::to_string(&crate::redact::redact_json(line))
        .unwrap_or_else(|_| "null".to_string());
    text.push('\n');
    // One write of the whole line: concurrent appenders do not interleave within a line.
    open_private_append(path)?.write_all(text.as_bytes())
}
