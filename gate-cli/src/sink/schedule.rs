//! When the next flush may start, kept beside the database so that a hook can decide to
//! start one without opening the store: `<db>.sink-due` holds a time in milliseconds, and
//! `<db>.sink.lock` is held by the flush that is running.

use std::path::{Path, PathBuf};

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// The file that holds the next flush's earliest start.
pub fn due_path(db: &Path) -> PathBuf {
    beside(db, ".sink-due")
}

/// The lock a running flush holds, or `None` when another flush holds it (or it cannot be
/// opened).
pub fn try_lock(db: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(beside(db, ".sink.lock"))
        .ok()?;
    file.try_lock().ok()?;
    Some(file)
}

/// The earliest time (ms) the next flush may start; 0 when none was recorded.
pub fn due(db: &Path) -> i64 {
    std::fs::read_to_string(due_path(db))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// Records the earliest start of the next flush (best effort: without it, hooks start
/// flushes as often as they can, which is safe, only busier).
pub fn set_due(db: &Path, at_ms: i64) {
    let path = due_path(db);
    let tmp = beside(db, ".sink-due.tmp");
    if std::fs::write(&tmp, at_ms.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
}

/// Whether a hook should start a flush now: none is running and the schedule allows it.
pub fn should_start(db: &Path, now_ms: i64) -> bool {
    now_ms >= due(db) && try_lock(db).is_some()
}
