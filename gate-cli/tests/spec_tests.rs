//! Every spec's tests run in `cargo test`: each `specs/tests/<name>.test.toml` is found by
//! listing the directory (no registration) and run against the compiled spec it is named
//! after, through the same code `gate test` runs (the hook's path, a database per case).

use std::path::{Path, PathBuf};

use gate_cli::cmd::policy::Policy;
use gate_cli::cmd::spectest::{self, file, Planned};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../specs")
        .join(file::DIR)
}

/// Every test file in `specs/tests/`, sorted.
fn test_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(tests_dir())
        .expect("specs/tests exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| file::is_test_file(p))
        .collect();
    files.sort();
    files
}

fn spec_name(path: &Path) -> String {
    let name = path.file_name().unwrap().to_str().unwrap();
    name.strip_suffix(file::SUFFIX).unwrap().to_string()
}

#[test]
fn every_spec_test_passes() {
    let mut failures = String::new();
    let mut cases = 0;
    for path in test_files() {
        let name = spec_name(&path);
        let compiled = gate_cli::cmd::compiled_spec(&name)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let planned = Planned {
            path: path.clone(),
            policy: Policy::Compiled(compiled),
        };
        let tests = spectest::load(&path, compiled.ir())
            .unwrap_or_else(|e| panic!("{} is not a valid test file:\n{e}", path.display()));
        let report = spectest::run_file(&planned, &tests).expect("the cases run");
        cases += report.cases.len();
        for case in &report.cases {
            failures.push_str(&spectest::render_failure(&path, case));
        }
    }
    assert!(
        cases > 0,
        "no spec test cases found in {}",
        tests_dir().display()
    );
    assert!(failures.is_empty(), "spec tests failed:\n{failures}");
}

#[test]
fn every_compiled_spec_has_tests() {
    let names: Vec<String> = test_files().iter().map(|p| spec_name(p)).collect();
    let missing: Vec<&str> = gate_cli::cmd::compiled_specs()
        .iter()
        .map(|c| c.name)
        .filter(|n| !names.iter().any(|m| m == n))
        .collect();
    assert!(
        missing.is_empty(),
        "specs without a specs/tests/<name>.test.toml: {missing:?}"
    );
}
