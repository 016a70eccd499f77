//! Snapshot, determinism and sensitivity tests of the generated code for `specs/example.toml`.
//!
//! Run with `GATE_BLESS=1` to rewrite the snapshot after an intended change.

use std::path::PathBuf;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example_source() -> String {
    std::fs::read_to_string(manifest_dir().join("../specs/example.toml")).expect("read example")
}

fn compile(source: &str) -> gate_spec::ir::Spec {
    let (spec, diags) = gate_spec::compile(source);
    spec.unwrap_or_else(|| panic!("spec does not compile: {:?}", diags.items))
}

/// The path is fixed so the snapshot does not depend on where the repository is checked out.
fn generate(spec: &gate_spec::ir::Spec) -> String {
    gate_codegen::generate(spec, "specs/example.toml", "/spec/example.toml").to_string()
}

fn pretty(tokens: &str) -> String {
    let file: syn::File = syn::parse_str(tokens).expect("generated code parses as a file");
    prettyplease::unparse(&file)
}

/// The code with the long embedded strings elided: the IR JSON follows every IR change and the
/// diagrams have golden files of their own in gate-spec.
fn elide_embedded(code: &str) -> String {
    code.lines()
        .map(|line| {
            for name in ["IR_JSON", "MERMAID", "DOT"] {
                let head = format!("pub const {name}: &str = ");
                if line.starts_with(&head) {
                    return format!("{head}\"…\";");
                }
            }
            line.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn example_matches_snapshot() {
    let actual = elide_embedded(&pretty(&generate(&compile(&example_source()))));
    let path = manifest_dir().join("tests/snapshots/example.rs.txt");
    if std::env::var_os("GATE_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("write snapshot");
        return;
    }
    let expected =
        std::fs::read_to_string(&path).expect("snapshot exists (GATE_BLESS=1 creates it)");
    assert!(
        expected == actual,
        "generated code changed (run with GATE_BLESS=1 to accept)\n{actual}"
    );
}

#[test]
fn generation_is_deterministic() {
    let source = example_source();
    let first = generate(&compile(&source));
    let second = generate(&compile(&source));
    assert_eq!(first, second);
}

#[test]
fn a_spec_edit_changes_the_output() {
    let source = example_source();
    let edited = source.replace("enter = 2", "enter = 3");
    assert_ne!(source, edited, "the example declares `enter = 2`");
    let before = generate(&compile(&source));
    let after = generate(&compile(&edited));
    assert_ne!(before, after);
    assert!(
        after.contains("3u16"),
        "the new threshold is a constant in the code"
    );
}

#[test]
fn the_transition_match_has_no_wildcard_arm() {
    let code = pretty(&generate(&compile(&example_source())));
    let select = code
        .split("pub fn select(")
        .nth(1)
        .expect("select is generated");
    let body = select
        .split("pub const fn phase_trigger")
        .next()
        .unwrap_or_default();
    assert!(body.contains("match (state, trigger)"));
    assert!(!body.contains("_ =>"), "{body}");
}

#[test]
fn errors_start_with_the_display_path_and_keep_the_items() {
    let source = "[machine]\nname = \"x\"\ninitial = \"nowhere\"\n";
    let (_, diags) = gate_spec::compile(source);
    let rendered: Vec<String> = diags
        .items
        .iter()
        .map(|d| gate_spec::diag::render_for_build("specs/x.toml", source, d))
        .collect();
    let code = gate_codegen::generate_error("specs/x.toml", None, &rendered).to_string();
    assert!(code.contains("compile_error ! (\"specs/x.toml:"), "{code}");
    assert_eq!(
        code.matches("compile_error !").count(),
        rendered.len(),
        "one compile_error! per diagnostic: {code}"
    );
    for item in [
        "NAME", "HASH", "IR_JSON", "MERMAID", "DOT", "COMPILED", "Machine",
    ] {
        assert!(code.contains(item), "{item} missing from the skeleton");
    }
    pretty(&code);
}

#[test]
fn every_valid_shipped_spec_generates_deterministic_parseable_code() {
    let dir = manifest_dir().join("../specs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("specs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut generated = 0;
    for path in files {
        // A spec being edited may be invalid for a while; gate-specs reports that at build time.
        // From the file, as the macro compiles it: a spec may extend the others beside it.
        let shown = |p: &std::path::Path| p.display().to_string();
        let Some(spec) = gate_spec::compile_file(&path, &shown)
            .expect("read spec")
            .spec
        else {
            continue;
        };
        let display = format!(
            "specs/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let first = gate_codegen::generate(&spec, &display, "/spec.toml").to_string();
        let second = gate_codegen::generate(&spec, &display, "/spec.toml").to_string();
        assert_eq!(first, second, "{display}");
        let code = pretty(&first);
        assert!(code.contains("match (state, trigger)"), "{display}");
        generated += 1;
    }
    assert!(generated > 0, "at least specs/example.toml compiles");
}

/// A scratch directory under the target dir's temp area, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("gate-codegen-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_directory_compiles_sorted_and_reports_bad_and_duplicate_specs_once_each() {
    let scratch = Scratch::new("dir");
    let example = example_source();
    std::fs::write(scratch.0.join("b.toml"), &example).expect("write");
    std::fs::write(scratch.0.join("a.toml"), &example).expect("write");
    std::fs::write(scratch.0.join("c.toml"), "[machine]\nname = \"c\"\n").expect("write");
    std::fs::write(scratch.0.join("notes.txt"), "not a spec").expect("write");
    let code = gate_codegen::compile_dir(&scratch.0, ".").to_string();
    // a.toml compiles as `example`; b.toml has the same name; c.toml is invalid.
    assert!(code.contains("pub mod example"), "{code}");
    // One for b.toml, one per error of c.toml (four missing keys).
    assert_eq!(code.matches("compile_error").count(), 5, "{code}");
    assert!(code.contains("is already used by"), "{code}");
    assert!(code.contains("c.toml:1:1: [G004]"), "{code}");
    assert!(
        !code.contains("error["),
        "the compiler says `error` once: {code}"
    );
    let all = code
        .split("pub static ALL")
        .nth(1)
        .expect("ALL is generated");
    assert!(
        all.contains("& example :: COMPILED , & spec_1 :: COMPILED , & c :: COMPILED"),
        "{all}"
    );
    pretty(&code);
}

/// Warnings cannot come from the proc-macro; `build_warnings` renders them for gate-specs'
/// build script, one per diagnostic, each starting with its place, and leaves errors out.
#[test]
fn build_warnings_are_rendered_with_their_place_and_errors_are_left_to_the_macro() {
    let scratch = Scratch::new("warnings");
    let unused = example_source().replace("[template]\n", "[template]\nnever = \"unused\"\n");
    std::fs::write(scratch.0.join("a.toml"), unused).expect("write");
    std::fs::write(scratch.0.join("b.toml"), "[machine]\nname = \"b\"\n").expect("write");
    std::fs::write(scratch.0.join("c.toml"), example_source()).expect("write");
    let warnings = gate_codegen::build_warnings(&scratch.0, ".");
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    let (head, rest) = warnings[0].split_once('\n').expect("an excerpt follows");
    assert!(
        head.ends_with("[G019] template `never` is never used"),
        "{head}"
    );
    assert!(head.contains("a.toml:"), "{head}");
    assert!(rest.contains("never = \"unused\""), "{rest}");
}
