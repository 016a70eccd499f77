//! `docs/machines/<spec>.md` is the diagram page of every shipped spec, and it is current:
//! the comparison `gate diagram --check` makes, and `gate diagram --write` fixes.

use std::path::PathBuf;

fn docs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/machines")
}

/// The one thing to do when a page is missing, stale or orphaned (a new spec included).
const FIX: &str = "cargo run -p gate-cli -- diagram --write";

#[test]
fn every_shipped_spec_has_a_current_diagram_page() {
    let dir = docs_dir();
    let mut problems = Vec::new();
    for compiled in gate_specs::ALL {
        let page = gate_spec::diagram::markdown(compiled.ir());
        let path = dir.join(format!("{}.md", compiled.name));
        match std::fs::read_to_string(&path) {
            Ok(text) if text == page => {}
            Ok(_) => problems.push(format!("docs/machines/{}.md is stale", compiled.name)),
            Err(_) => problems.push(format!("docs/machines/{}.md is missing", compiled.name)),
        }
    }
    let names: Vec<String> = gate_specs::ALL
        .iter()
        .map(|c| format!("{}.md", c.name))
        .collect();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.ends_with(".md") && !names.contains(&file) {
            problems.push(format!("docs/machines/{file} has no spec in specs/"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}
to fix, run in the workspace root: {FIX}",
        problems.join("\n")
    );
}

#[test]
fn every_spec_file_is_compiled() {
    let specs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../specs");
    let mut files: Vec<String> = std::fs::read_dir(&specs)
        .expect("specs/ exists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .map(|n| format!("specs/{n}"))
        .collect();
    files.sort();
    let compiled: Vec<&str> = gate_specs::ALL.iter().map(|c| c.path).collect();
    assert_eq!(
        compiled, files,
        "ALL lists every spec file, sorted by file name"
    );
}

#[test]
fn embedded_diagrams_and_ir_agree() {
    for compiled in gate_specs::ALL {
        let ir = compiled.ir();
        assert_eq!(ir.name, compiled.name);
        assert_eq!(ir.hash, compiled.hash);
        assert_eq!(
            gate_spec::diagram::mermaid(ir),
            compiled.mermaid,
            "{}",
            compiled.name
        );
        assert_eq!(
            gate_spec::diagram::dot(ir),
            compiled.dot,
            "{}",
            compiled.name
        );
    }
}
