//! Specs for the tests: compiled from TOML text or from a fixture of `tests/fixtures/specs/`
//! (a spec that does not compile fails the test with its diagnostics), kept for the whole
//! test where an engine borrows them, verified, and a report's findings read by name.

use gate_runtime::interp::Interpreter;
use gate_runtime::verify::{self, Finding, Report};
use gate_spec::exec::CompiledSpec;
use gate_spec::ir::Spec;

/// The shipped spec `name` (`specs/NAME.toml`), compiled to a machine.
pub fn shipped(name: &str) -> &'static CompiledSpec {
    gate_specs::ALL
        .iter()
        .copied()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("spec `{name}` is not shipped"))
}

/// `source` compiled; the test fails with the diagnostics where it does not compile.
pub fn compile(source: &str) -> Spec {
    let (spec, diags) = gate_spec::compile(source);
    spec.unwrap_or_else(|| panic!("does not compile: {:?}", diags.items))
}

/// The path of `tests/fixtures/specs/NAME` (the workspace's spec fixtures).
pub fn fixture_path(name: &str) -> String {
    format!(
        "{}/../tests/fixtures/specs/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The text of the fixture `tests/fixtures/specs/NAME`.
pub fn fixture(name: &str) -> String {
    let path = fixture_path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The spec at `path`, compiled.
pub fn compile_path(path: &str) -> Spec {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (spec, diags) = gate_spec::compile(&source);
    spec.unwrap_or_else(|| panic!("{path} does not compile: {:?}", diags.items))
}

/// `spec` kept for the rest of the test binary, for an engine that outlives a helper.
pub fn leak(spec: Spec) -> &'static Spec {
    Box::leak(Box::new(spec))
}

/// Every invariant of `spec`, built-in and declared, checked on the interpreter alone.
pub fn verified(spec: &Spec) -> Report {
    let interp = Interpreter::new(spec);
    verify::verify(spec, &interp, None).expect("within the exploration budget")
}

/// The finding of the invariant `name` in `report`.
pub fn finding<'r>(report: &'r Report, name: &str) -> &'r Finding {
    report
        .invariants
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("{name} was checked"))
}
