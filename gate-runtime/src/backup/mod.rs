//! Reversibility (mode `reversible`, seed L15b): before a withheld action is let through,
//! gate copies exactly what it would lose into its own store and steers with `gate undo <id>`;
//! where it cannot, the action stays withheld.
//!
//! `plan.rs` reads the action's effects into the locations to copy (or why none can be),
//! `copy.rs` copies trees exactly within a budget, `git.rs` records a repository's refs for
//! the git actions that lose or rewrite them and `git_undo.rs` restores them, `vault.rs` keeps
//! their commits in gate's store, `push.rs` keeps a remote's old tips for a forced push,
//! `run.rs` runs git within the hook's deadline, `settle.rs` records the state an action left
//! when its tool call ends, `store.rs` is the store on disk (one directory per backup with
//! its manifest; listing, sizes, pruning), `undo.rs` restores one.

mod copy;
mod git;
mod git_undo;
mod plan;
mod push;
mod run;
mod settle;
mod store;
mod undo;
mod vault;

pub use copy::{CopyError, Size};
pub use git::{GitState, Scope};
pub use plan::{loses, outermost, repos, roots};
pub use push::{PushState, PushedRef};
pub use settle::settle;
pub use store::{list, prune, store_dir, BackupStore, Entry, Manifest, Pruned, Root, RootKind};
pub use undo::{undo, UndoError, Undone, SETTLE_MS};

use crate::event::Event;
use crate::observer::Classification;
use serde_json::{json, Value};

/// Per-action byte cap when the configuration sets none (`[reversible] max_action_bytes`).
pub const DEFAULT_MAX_ACTION_BYTES: u64 = 256 * 1024 * 1024;
/// Per-action file cap when the configuration sets none (`[reversible] max_action_files`).
pub const DEFAULT_MAX_ACTION_FILES: u64 = 100_000;
/// Cap on the whole store when the configuration sets none (`[reversible] max_total_bytes`).
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// What makes an action recoverable before mode `reversible` lets it through.
pub trait Protector: Send + Sync {
    /// Copies what the action would lose; the backup made, or why the action cannot be made
    /// recoverable (it then stays withheld).
    fn protect(&self, event: &Event, class: &Classification, now_ms: i64)
        -> Result<Backup, String>;
}

/// Whether mode `reversible` backs the action up even where its tier lets it through: it
/// loses local files ([`loses`]), or it is a git action whose write at the repository moves
/// existing refs to rewritten commits (a rebase; see `git::rewrites`).
pub fn backs_up(effects: &[crate::effects::Effect], command: Option<&str>) -> bool {
    loses(effects) || (plan::writes_repository(effects) && command.is_some_and(git::rewrites))
}

/// A backup just made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backup {
    pub id: String,
    pub files: u64,
    pub bytes: u64,
    /// The locations copied (absolute paths).
    pub roots: Vec<String>,
}

impl Backup {
    /// The audit detail of a `backup` row.
    pub fn json(&self) -> Value {
        json!({"id": self.id, "files": self.files, "bytes": self.bytes, "roots": self.roots})
    }
}

/// The guidance a reversible action is let through with.
pub fn undo_guidance(reason: &str, backup: &Backup) -> String {
    let reason = reason.trim_end_matches('.');
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!("{reason}. ")
    };
    format!(
        "gate: {why}Allowed because it is recoverable: gate kept a copy of what it changes \
         ({} files and directories, {} bytes: {}) as backup `{}`. If this was a mistake, say so: the user \
         restores it with `gate undo {}`.",
        backup.files,
        backup.bytes,
        backup.roots.join(", "),
        backup.id,
        backup.id
    )
}
