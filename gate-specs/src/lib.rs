//! gate-specs: every spec shipped in `specs/`, compiled at build time into a Rust state machine.
//!
//! Each `specs/<file>.toml` becomes a module named after the spec (`[machine] name`) with
//! `State` and `Trigger` enums, the constants `NAME`, `HASH`, `IR_JSON`, `MERMAID`, `DOT`, a
//! `Machine` implementing [`gate_spec::exec::Machine`] and a `COMPILED` registry entry.
//! [`ALL`] lists every compiled spec, sorted by file name. Adding a spec file is enough: the
//! build script re-runs the macro when the directory changes, and an invalid spec fails the
//! build with the same diagnostics `gate check` prints (one compiler error each, starting with
//! `specs/x.toml:LINE:COL`); the build script prints the warnings (`cargo:warning`).

gate_macros::specs!("../specs");
