//! The trybuild suite: one compile-fail case per diagnostic code (each `tests/ui/*.rs` compiles
//! the `.toml` next to it and its `.stderr` pins the rendered diagnostics: one compiler `error:`
//! per diagnostic, starting with `path:LINE:COL: [G0xx]`), and compile-pass
//! cases that compile every shipped spec.
//!
//! Run with `TRYBUILD=overwrite` to rewrite the `.stderr` files after an intended change.

#[test]
fn ui() {
    // The trybuild crate is built under `target/`; point the macros back at this crate so the
    // paths in the cases stay relative to it.
    std::env::set_var("GATE_MANIFEST_DIR_OVERRIDE", env!("CARGO_MANIFEST_DIR"));
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/pass/*.rs");
}

#[test]
fn every_error_code_has_a_compile_fail_case() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut missing = Vec::new();
    for code in gate_spec::diag::Code::ALL {
        // Only errors fail a build; warning-only codes cannot have a compile-fail case.
        let prefix = code.as_str().to_ascii_lowercase();
        let has_case = std::fs::read_dir(&dir)
            .expect("tests/ui exists")
            .filter_map(|e| e.ok())
            .any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with(&prefix) && name.ends_with(".stderr") && {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    // The compiler says `error:`; the message starts with the place and
                    // the code, `error: path:LINE:COL: [G0xx] …`.
                    text.lines().any(|line| {
                        line.starts_with("error: ")
                            && line.contains(&format!(": [{}] ", code.as_str()))
                    })
                }
            });
        if !has_case && !is_warning_only(code) {
            missing.push(code.as_str());
        }
    }
    assert!(
        missing.is_empty(),
        "codes without a compile-fail case: {missing:?}"
    );
}

/// Codes that the checks only ever report as warnings.
fn is_warning_only(code: gate_spec::diag::Code) -> bool {
    matches!(code.as_str(), "G019" | "G020" | "G021")
}
