//! `docs/machines/<spec>.md` is the diagram page of every shipped spec, and it is current.
//!
//! Run with `GATE_BLESS=1` to (re)write the pages; without it the test fails on a missing,
//! stale or orphaned page (the same comparison `gate diagram --check` makes).

use std::path::PathBuf;

fn docs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/machines")
}

#[test]
fn every_shipped_spec_has_a_current_diagram_page() {
    let bless = std::env::var_os("GATE_BLESS").is_some();
    let dir = docs_dir();
    if bless {
        std::fs::create_dir_all(&dir).expect("create docs/machines");
    }
    let mut problems = Vec::new();
    for compiled in gate_specs::ALL {
        let page = gate_spec::diagram::markdown(compiled.ir());
        let path = dir.join(format!("{}.md", compiled.name));
        if bless {
            std::fs::write(&path, &page).expect("write diagram page");
            continue;
        }
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
    for entry in std::fs::read_dir(&dir)
        .expect("docs/machines exists")
        .flatten()
    {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.ends_with(".md") && !names.contains(&file) {
            if bless {
                std::fs::remove_file(entry.path()).expect("remove orphaned page");
            } else {
                problems.push(format!("docs/machines/{file} has no spec in specs/"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n(run `GATE_BLESS=1 cargo test -p gate-specs --test docs` to regenerate)",
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
