//! Re-runs the build when anything under `specs/` changes, so adding a spec file needs no Rust
//! edit, and prints every spec's warnings (G017, G019, G020 …) into cargo's build output: the
//! proc-macro that compiles the specs can fail the build with errors but cannot warn.

fn main() {
    println!("cargo:rerun-if-changed=../specs");
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    for warning in gate_codegen::build_warnings(std::path::Path::new(&manifest_dir), "../specs") {
        // Cargo takes one line per instruction; the excerpt keeps its lines.
        for line in warning.lines() {
            println!("cargo:warning={line}");
        }
    }
}
