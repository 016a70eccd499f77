//! Re-runs the build when anything under `specs/` changes, so adding a spec file needs no Rust edit.

fn main() {
    println!("cargo:rerun-if-changed=../specs");
}
