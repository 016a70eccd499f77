//! Keeping the WAL short: `gate checkpoint` ([`checkpoint`], which the hook starts detached
//! when a commit leaves the WAL past its bound), and the [`Checkpointer`] thread that copies a
//! stored replay's commits into the database while its writer goes on.

use super::*;
use crate::store::{self, StoreError};
use std::path::Path;
use std::time::Duration;

/// How long `gate checkpoint` waits for its turn and for the database.
pub const CHECKPOINT_WAIT: Duration = Duration::from_secs(2);

/// Fold the WAL of `db` into the database and truncate it (`gate checkpoint`; the hook
/// starts it detached when a commit leaves the WAL past
/// [`WAL_TRUNCATE_BYTES`](crate::store::WAL_TRUNCATE_BYTES)). Takes its turn behind other
/// gate processes like a hook does. Returns whether the checkpoint completed (false: other
/// processes kept the database busy; a later commit asks again).
///
/// The copying (and its fsync of the database) runs first as a PASSIVE checkpoint, which
/// does not block writers; only the final TRUNCATE, with little left to copy, takes the
/// writer turn, so hooks arriving meanwhile wait for as short a time as possible.
pub fn checkpoint(db: &Path) -> Result<bool, StoreError> {
    let wal = store::WalOnly::open(db, BUSY_TIMEOUT)?;
    // Best effort: a busy PASSIVE only means the TRUNCATE has more to copy.
    let _ = wal.checkpoint(store::Checkpoint::Passive, Duration::ZERO);
    let _turn = writer_turn(db, CHECKPOINT_WAIT);
    wal.checkpoint(store::Checkpoint::Truncate, CHECKPOINT_WAIT)
}

/// What a [`Pipeline`]'s writer leaves in the WAL when it stops: as much as a hook's commit
/// would ([`store::WAL_TRUNCATE_BYTES`]).
pub(super) const WAL_LEFT_BYTES: u64 = store::WAL_TRUNCATE_BYTES;

/// Batches a [`Pipeline`]'s writer commits between two waits for its [`Checkpointer`] to
/// catch up: the WAL holds at most this many batches' pages (≈ 80 MB for a stored replay's
/// 4,096-event batches). Each wait is one batch's checkpoint (its copy and two fsyncs);
/// 1 M events, alternating runs on a loaded machine: 16 batches 29.0–31.1 s wall, 8
/// batches 31.9–35.2 s, 4 batches 31.9–34.6 s, the checkpoint inside each commit
/// 32.9–38.0 s.
pub(super) const CHECKPOINT_CYCLE: u64 = 16;

/// A thread with its own connection that copies a [`Pipeline`]'s commits from the WAL into
/// the database (PASSIVE checkpoints, as SQLite's automatic checkpoint does inside a commit,
/// with the same two fsyncs) while the writer goes on with the next batch. The copy and,
/// above all, the fsyncs' wait were a third of the writer's time in line.
///
/// SQLite starts the WAL again from its beginning only when a write transaction begins on a
/// fully copied WAL; a checkpoint that runs while the next batch is written never leaves it
/// so. So every [`CHECKPOINT_CYCLE`] batches the writer waits for the checkpoint of its last
/// commit before it begins the next ([`Checkpointer::catch_up`]), and the WAL stays that
/// many batches long, its file pages reused. A checkpoint that other connections keep from
/// finishing (a hook reading an older snapshot) only leaves the WAL longer until a later one
/// does; each is still safe to interrupt at any point, like SQLite's own.
pub(super) struct Checkpointer {
    /// Asks for a checkpoint of everything committed up to the given batch number.
    pub(super) ask: Option<std::sync::mpsc::Sender<u64>>,
    /// The batch numbers of finished checkpoints.
    pub(super) done: std::sync::mpsc::Receiver<u64>,
    pub(super) thread: Option<std::thread::JoinHandle<()>>,
    /// The last batch asked for and the last one covered by a finished checkpoint.
    pub(super) asked: u64,
    pub(super) covered: u64,
}

impl Checkpointer {
    /// Opens the second connection and starts the thread; `None` when either fails (the
    /// writer's commits then checkpoint in line, as SQLite does by default).
    pub(super) fn start(path: &Path) -> Option<Checkpointer> {
        let wal = store::WalOnly::open(path, Duration::ZERO).ok()?;
        let (ask, asked) = std::sync::mpsc::channel::<u64>();
        let (done_to, done) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("gate-replay-checkpoint".to_string())
            .spawn(move || {
                while let Ok(mut batch) = asked.recv() {
                    // One checkpoint covers every commit asked for so far.
                    while let Ok(later) = asked.try_recv() {
                        batch = later;
                    }
                    // A failed or incomplete checkpoint leaves the pages in the WAL, where
                    // the next one (or the final truncation) copies them.
                    let _ = wal.checkpoint(store::Checkpoint::Passive, Duration::ZERO);
                    if done_to.send(batch).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Checkpointer {
            ask: Some(ask),
            done,
            thread: Some(thread),
            asked: 0,
            covered: 0,
        })
    }

    /// Batch `batch` committed: copy it. Every [`CHECKPOINT_CYCLE`] batches, waits for the
    /// copy so that the next batch writes the WAL from its start. Returns false when the
    /// thread is gone (the writer must checkpoint again itself).
    pub(super) fn committed(&mut self, batch: u64) -> bool {
        self.asked = batch;
        let Some(ask) = &self.ask else {
            return false;
        };
        if ask.send(batch).is_err() {
            return false;
        }
        if batch.is_multiple_of(CHECKPOINT_CYCLE) {
            return self.catch_up();
        }
        true
    }

    /// Waits until a checkpoint that began after the last commit asked for has finished.
    pub(super) fn catch_up(&mut self) -> bool {
        while self.covered < self.asked {
            match self.done.recv() {
                Ok(batch) => self.covered = batch,
                Err(_) => return false,
            }
        }
        true
    }

    /// Waits for the checkpoints asked for and stops the thread.
    pub(super) fn stop(mut self) {
        self.ask = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
