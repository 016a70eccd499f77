//! gate-macros: proc-macro entry points; each is a few lines calling gate-codegen.
//!
//! - `specs!("../specs")` compiles every `*.toml` in a directory (sorted by file name) into
//!   `pub mod <spec name> { … }` and `pub static ALL: &[&gate_spec::exec::CompiledSpec]`.
//! - `spec!("path/x.toml")` expands to one spec's module body (wrap it in a `mod`).
//!
//! Paths are relative to the calling crate's `CARGO_MANIFEST_DIR`. An invalid spec becomes one
//! `compile_error!` per error, each the rendering `gate check` prints with its path relative to
//! the workspace root and without a second "error" (`error: specs/x.toml:LINE:COL: [G0xx] …`).
//! A proc-macro cannot place a diagnostic in a file that is not Rust nor emit a warning on
//! stable Rust: the compiler points at the macro call, and warnings reach the build through
//! gate-specs' build script (`gate_codegen::build_warnings`).

use proc_macro::TokenStream;
use std::path::PathBuf;
use syn::{parse_macro_input, LitStr};

/// The calling crate's manifest directory. `GATE_MANIFEST_DIR_OVERRIDE` replaces it for the
/// trybuild suite, whose test crate lives under `target/` away from the spec fixtures.
fn manifest_dir() -> PathBuf {
    let dir = std::env::var_os("GATE_MANIFEST_DIR_OVERRIDE")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .unwrap_or_default();
    PathBuf::from(dir)
}

/// Compile every spec in a directory: `gate_macros::specs!("../specs");`
#[proc_macro]
pub fn specs(input: TokenStream) -> TokenStream {
    let dir = parse_macro_input!(input as LitStr);
    gate_codegen::compile_dir(&manifest_dir(), &dir.value()).into()
}

/// Compile one spec: `mod example { gate_macros::spec!("../specs/example.toml"); }`
#[proc_macro]
pub fn spec(input: TokenStream) -> TokenStream {
    let path = parse_macro_input!(input as LitStr);
    let file = gate_codegen::SpecFile::resolve(&manifest_dir(), &path.value());
    gate_codegen::compile_file(&file).1.into()
}
