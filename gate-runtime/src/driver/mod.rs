//! The fail-open driver: one event through the engine with the store around it.
//!
//! `run` loads the scope's state, consumes a grant for this exact action, evaluates, and
//! writes state, audit rows, pending grants and closed windows in one `BEGIN IMMEDIATE`
//! transaction, so parallel hooks of one session serialize and never lose an update.
//! [`Batch`] evaluates many events (a stored `gate replay`) in one transaction through the
//! same code, keeping each scope's state in memory until the transaction ends.
//!
//! Degraded behaviour (R12). When the store cannot be used — missing or read-only directory,
//! a lock held past the busy timeout, a corrupt or future-version database, a missing or
//! unreadable key, a full disk — the event is evaluated from a fresh in-memory state, the
//! fault is recorded in `faults.jsonl` beside the database (best effort), and the answer is
//! degraded: nothing is said (no steer, no ask, no deny) unless the action's tier opted into
//! `fail = "closed"`, in which case a block that the classification produced is kept.
//! State written under another spec hash is not a fault: the scope is reset and the audit
//! gets a `reset` row.
//!
//! The code by concern: `hook.rs`, the per-event hook path with fail-open and degrade (read
//! it first); `evaluate.rs`, the one evaluation of an event inside a transaction that both
//! paths share; `alongside.rs`, the machines that run beside a spec's own and how their
//! answers combine (every path goes through it); `batch.rs`, many events per transaction; `pipeline.rs`, the stored replay's
//! writer thread; `checkpoint.rs`, WAL checkpoints; `repo.rs`, the repository a `repo`-scoped
//! machine is keyed on.

mod alongside;
mod batch;
mod checkpoint;
mod director;
mod evaluate;
mod faults;
mod hook;
mod pipeline;
pub(crate) mod repo;

pub use alongside::{answering, beside, combine, strictness};
pub use batch::Batch;
pub use checkpoint::{checkpoint, CHECKPOINT_WAIT};
pub use evaluate::{action_hash, scope_key, write_scope_key, GRANT_TTL_MS};
pub use faults::{
    needs_state, stateful_fail_closed, FaultCount, DEFAULT_STATEFUL_FAIL_CLOSED_AFTER,
};
pub use hook::{
    degrade, fail_closed, record_fault, resolve_db, run, Options, RunResult, BUSY_TIMEOUT,
    CALIBRATE_EVERY, LOCK_WAIT,
};
pub use pipeline::Pipeline;
pub use repo::repo_root;

use batch::*;
use checkpoint::*;
use evaluate::*;
use hook::*;
