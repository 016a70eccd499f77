//! Golden-file tests of the Mermaid and DOT renderers on `specs/example.toml`.
//!
//! Run with `GATE_BLESS=1` to rewrite the golden files after an intended change.

use std::path::{Path, PathBuf};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example() -> gate_spec::ir::Spec {
    let path = manifest_dir().join("../specs/example.toml");
    let source = std::fs::read_to_string(&path).expect("specs/example.toml is readable");
    let (spec, diags) = gate_spec::compile(&source);
    spec.unwrap_or_else(|| panic!("specs/example.toml does not compile: {:?}", diags.items))
}

fn golden(name: &str, actual: &str) {
    let path: PathBuf = manifest_dir().join("tests/diagrams").join(name);
    if std::env::var_os("GATE_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with GATE_BLESS=1 to create it)", rel(&path)));
    assert!(
        expected == actual,
        "{} is stale (run with GATE_BLESS=1 to update)\n--- expected\n{expected}\n--- actual\n{actual}",
        rel(&path)
    );
}

fn rel(path: &Path) -> String {
    path.strip_prefix(manifest_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn example_mermaid_matches_golden_file() {
    golden("example.mmd", &gate_spec::diagram::mermaid(&example()));
}

#[test]
fn example_dot_matches_golden_file() {
    golden("example.dot", &gate_spec::diagram::dot(&example()));
}

#[test]
fn example_markdown_embeds_both_diagrams() {
    let spec = example();
    let page = gate_spec::diagram::markdown(&spec);
    assert!(page.starts_with("# `example` state machine\n"));
    assert!(page.contains(&format!(
        "```mermaid\n{}```",
        gate_spec::diagram::mermaid(&spec)
    )));
    assert!(page.contains(&format!("```dot\n{}```", gate_spec::diagram::dot(&spec))));
}
