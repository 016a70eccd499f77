//! gate-runtime: drives a compiled (or interpreted) spec once per hook event.
//!
//! It knows nothing about clap, terminals or any runtime's JSON: adapters in gate-cli turn a
//! payload into an [`event::Event`] and a [`verdict::Decision`] back into an answer.

pub mod backup;
pub mod driver;
pub mod effects;
pub mod engine;
pub mod event;
pub mod evidence;
pub mod glob;
pub mod interp;
pub mod observer;
pub mod redact;
pub mod replay;
pub mod shell;
pub mod store;
pub mod verdict;
pub mod verify;
