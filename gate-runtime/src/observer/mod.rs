//! The observer: classifies each event from the spec's rules and keeps the window context
//! from which every signal's raw sample and every checkpoint's evidence are computed.
//!
//! Everything here is deterministic and bounded: the context keeps at most a fixed number of
//! scopes, targets and timestamps, so a long session cannot grow the per-call state without
//! limit. Time comes from the event (or the caller's clock); a clock that goes backwards
//! counts as no time elapsed.
//!
//! One concern a file: `classify.rs` the [`Classifier`] (rule matching) and its
//! [`Classification`], `index.rs` what a classifier used more than once derives from its spec
//! (byte sets, path needs, rule candidates, programs by hash), `window.rs` the context kept
//! per scope and how an event is folded into it, `signals.rs` each signal's raw sample and
//! each checkpoint's evidence for one event, `keys.rs` the digests targets and scopes are
//! remembered by.

mod classify;
mod index;
mod keys;
pub mod locations;
mod signals;
mod window;

pub use classify::{
    is_shell_tool, path_matches, path_matches_plain, Classification, Classifier, HIT_COMMAND,
    HIT_EXCEPT,
};
pub use keys::{target_key, EventKeys};
pub(crate) use signals::observe_in;
pub use signals::{
    effective_backstop, enabled_signals, missing_telemetry, observe, observe_into, observe_with,
    Observation,
};
pub use window::{
    reset_segment, update, update_with, Baselines, ObserverState, QuietMark, Segment,
};
