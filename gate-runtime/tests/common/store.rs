//! The database side of the tests: a fresh database path of its own, and the options of a
//! hook run that persists to it.

use std::path::{Path, PathBuf};

use gate_runtime::driver::{self, Options};

/// A database path in a new temporary directory, under a `state/` folder not yet made; the
/// directory goes when the returned guard is dropped.
pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("state").join("gate.db");
    (dir, db)
}

/// An environment with nothing set.
pub fn no_env(_: &str) -> Option<String> {
    None
}

/// The hook's options for a run at `now_ms` that persists to `db`: no role and no
/// environment, the hook's own busy timeout, nothing failing closed, the checkpoint in line.
pub fn persisting(db: &Path, now_ms: i64) -> Options<'static> {
    Options {
        db_path: Some(db.to_path_buf()),
        role: None,
        env: &no_env,
        now_ms,
        persist: true,
        busy_timeout: driver::BUSY_TIMEOUT,
        defer_checkpoint: false,
        exits_after: false,
        fail_closed: &[],
        stateful_fail_closed_after: 0,
    }
}
