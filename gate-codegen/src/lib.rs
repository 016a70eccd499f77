//! gate-codegen: turns a checked spec IR into Rust tokens (a state machine with exhaustive matches).
