//! Link the `gate` binary as a position-dependent executable on Linux.
//!
//! An agent runtime starts `gate hook` on every tool call, so the dynamic loader's start-up
//! work is paid on every call. A position-independent executable carries one relative
//! relocation for every pointer in its static data (the compiled specs' tables, the effect
//! model's option grammars, SQLite's): about 16,000, which the loader rewrites before
//! `main` runs, a sixth of an allow call's instructions. Linked at a fixed address they are
//! resolved by the linker instead (measured in docs/performance.md, "After composition and
//! machines side by side").
//! The cost is address-space randomisation of the executable's own image (shared libraries
//! stay randomised): the same choice Go makes for its executables by default, and gate is a
//! memory-safe program whose C part, SQLite, reads only gate's own database.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if linux {
        println!("cargo:rustc-link-arg-bin=gate=-no-pie");
    }
}
