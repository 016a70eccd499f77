//! Data-driven diagnostics tests: every `tests/fixtures/NAME.toml` is compiled and its rendered
//! diagnostics are compared with `NAME.expected`. Run with `GATE_BLESS=1` to rewrite them.

use gate_spec::diag::{render_all, Code, Severity};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

fn fixture_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("the fixtures directory exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths
}

/// What a fixture's `.expected` holds: the rendered diagnostics and the outcome. Fixtures are
/// compiled from their files, so one may extend others beside it.
fn render_case(path: &Path) -> (String, BTreeSet<Code>) {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a UTF-8 file name");
    let shown = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let compiled = gate_spec::compile_file(path, &shown).expect("a readable fixture");
    let (spec, diags) = (compiled.spec.as_ref(), &compiled.diags);
    let source = std::fs::read_to_string(path).expect("a readable fixture");
    if !source.contains("extends") && !source.contains("alongside") {
        // Without `extends` (nor `alongside`, checked against the files beside it), the file
        // compiles exactly as its text does.
        let (text_spec, text_diags) = gate_spec::compile(&source);
        assert_eq!(text_diags.items, diags.items, "{name}");
        assert_eq!(
            text_spec.map(|s| serde_json::to_string(&s).expect("serialise")),
            spec.map(|s| serde_json::to_string(s).expect("serialise")),
            "{name}"
        );
    }
    let mut out = compiled.render();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(if spec.is_some() {
        "=> accepted\n"
    } else {
        "=> rejected\n"
    });
    assert_eq!(
        spec.is_some(),
        !diags.items.iter().any(|d| d.severity == Severity::Error),
        "{name}: the IR is returned exactly when there is no error"
    );
    (out, diags.items.iter().map(|d| d.code).collect())
}

#[test]
fn fixtures_render_as_expected() {
    let bless = std::env::var_os("GATE_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    let paths = fixture_paths();
    assert!(
        paths.len() >= 20,
        "expected the fixture set, found {} files",
        paths.len()
    );
    for path in &paths {
        let (actual, _) = render_case(path);
        let expected_path = path.with_extension("expected");
        if bless {
            std::fs::write(&expected_path, &actual).expect("write the expected file");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "--- {} (expected)\n{expected}+++ actual\n{actual}",
                expected_path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ (GATE_BLESS=1 rewrites them):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_code_is_produced_by_a_fixture() {
    let mut seen = BTreeSet::new();
    for path in fixture_paths() {
        seen.extend(render_case(&path).1);
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !seen.contains(c))
        .map(|c| c.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "no fixture produces {}",
        missing.join(", ")
    );
}

#[test]
fn shipped_specs_have_no_errors() {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("specs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&specs)
        .expect("the specs directory exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let shown = |p: &Path| p.display().to_string();
    for path in paths {
        // From the file: a shipped spec may extend the others beside it.
        let compiled = gate_spec::compile_file(&path, &shown).expect("a readable spec");
        assert!(compiled.spec.is_some(), "{}", compiled.render());
        assert!(
            compiled.diags.items.is_empty(),
            "a shipped spec has no warnings either:\n{}",
            compiled.render()
        );
    }
}

/// A 10 MB string value: refused as too large by `compile`, and the parser itself (which has
/// no size limit) still answers with bounded diagnostics instead of panicking.
#[test]
fn ten_megabyte_string_gives_diagnostics() {
    let huge = "x".repeat(10 * 1024 * 1024);
    let source = format!(
        "[machine]\nname = \"{huge}\"\ninitial = \"idle\"\nkinds = [\"k\"]\n\n[[tier]]\nname = \"low\"\nmode = \"steer\"\nmax_actions = 5\n\n[[state]]\nname = \"idle\"\n"
    );
    let (spec, diags) = gate_spec::compile(&source);
    assert!(spec.is_none());
    assert_eq!(diags.items.len(), 1);
    assert_eq!(diags.items[0].code, Code::TooLarge);
    let rendered = render_all("huge.toml", &source, &diags.items);
    assert!(rendered.contains("error[G018]"), "{rendered}");

    let mut diags = gate_spec::diag::Diagnostics::default();
    let parsed = gate_spec::parse::parse(&source, &mut diags);
    assert!(parsed.is_none());
    let codes: Vec<Code> = diags.items.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::InvalidValue], "{diags:?}");
    let rendered = render_all("huge.toml", &source, &diags.items);
    assert!(
        rendered.len() < 2_000,
        "the excerpt is bounded: {} bytes",
        rendered.len()
    );
    assert!(rendered.contains("is not an identifier"), "{rendered}");
}

/// The worked example in `docs/spec.md` passes the check without a single diagnostic.
#[test]
fn documented_example_is_clean() {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("docs")
        .join("spec.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/spec.md exists");
    let section = doc
        .split("## Worked example")
        .nth(1)
        .expect("docs/spec.md has a worked example section");
    let source = section
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the worked example is a toml code block");
    let (spec, diags) = gate_spec::compile(source);
    assert!(
        diags.items.is_empty() && spec.is_some(),
        "{}",
        render_all("docs/spec.md example", source, &diags.items)
    );
}

/// Every prefix of every fixture (a file cut off anywhere) still yields diagnostics, never a
/// panic, and the rendering stays within bounds.
#[test]
fn truncated_fixtures_do_not_panic() {
    for path in fixture_paths() {
        let source = String::from_utf8_lossy(&std::fs::read(&path).expect("a readable fixture"))
            .into_owned();
        let cuts: Vec<usize> = (0..source.len())
            .step_by(5)
            .filter(|i| source.is_char_boundary(*i))
            .collect();
        for cut in cuts {
            let prefix = &source[..cut];
            let (spec, diags) = gate_spec::compile(prefix);
            let rendered = render_all("cut.toml", prefix, &diags.items);
            assert_eq!(
                spec.is_none(),
                diags.has_errors(),
                "{}: cut at {cut}",
                path.display()
            );
            assert!(
                rendered.lines().all(|l| l.chars().count() < 1_000),
                "{}: cut at {cut}",
                path.display()
            );
        }
    }
}

/// Per-item errors do not hold back the whole-machine checks: a spec with five mistakes in
/// single items and four that only the whole machine shows reports all nine in one run.
#[test]
fn every_diagnostic_comes_in_one_round() {
    let path = fixtures_dir().join("one_round.toml");
    let source = std::fs::read_to_string(&path).expect("a readable fixture");
    let (spec, diags) = gate_spec::compile(&source);
    assert!(spec.is_none());
    let codes: Vec<&str> = diags.items.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        ["G012", "G013", "G002", "G005", "G016", "G003", "G007", "G009", "G014"],
        "{}",
        render_all("one_round.toml", &source, &diags.items)
    );
}

/// A broken item is skipped by the checks that depend on it, not reported again through
/// them: a transition into a misspelt state does not make the state it meant unreachable,
/// and a tier whose mode is misspelt does not count as weakening the order.
#[test]
fn broken_items_cause_no_follow_on_diagnostics() {
    let source = r#"
[machine]
name = "x"
initial = "idle"
kinds = ["k"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 5

[[tier]]
name = "high"
mode = "gaet"
max_actions = 2

[[state]]
name = "idle"

[[state]]
name = "open"
window = true

[[transition]]
from = "idle"
on = "action"
to = "opne"
effects = ["arm"]

[rearm]
min_actions = 1
"#;
    let (_, diags) = gate_spec::compile(source);
    let codes: Vec<&str> = diags.items.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        ["G003", "G005"],
        "{}",
        render_all("x.toml", source, &diags.items)
    );
}

/// The merge rules, on the composed IR: kinds are the union in order, rules and transitions
/// come in the bases' order, a rule named by the spec keeps the keys it does not give, and
/// the spec's own declarations settle what the bases disagree on.
#[test]
fn composition_merges_by_the_documented_rules() {
    let path = fixtures_dir().join("compose_settled.toml");
    let shown = |p: &Path| p.display().to_string();
    let compiled = gate_spec::compile_file(&path, &shown).expect("a readable fixture");
    let spec = compiled
        .spec
        .as_ref()
        .unwrap_or_else(|| panic!("{}", compiled.render()));
    let names = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
    assert_eq!(spec.name, "compose_settled");
    assert_eq!(
        spec.kinds
            .iter()
            .map(|k| k.name.to_string())
            .collect::<Vec<_>>(),
        names(vec!["explore", "edit", "verify"])
    );
    assert_eq!(
        spec.rules
            .iter()
            .map(|r| r.name.to_string())
            .collect::<Vec<_>>(),
        names(vec!["edits", "pushes", "tests"])
    );
    let tests = &spec.rules[2];
    assert_eq!(spec.tier_name(tests.tier.expect("re-tiered")), "high");
    assert_eq!(tests.commands.len(), 1, "the inherited commands stay");
    assert!(tests.kind.is_some(), "the inherited kind stays");
    assert_eq!(spec.tiers[1].mode, gate_spec::ir::Mode::Gate);
    assert_eq!(spec.transitions.len(), 2);
    assert_eq!(compiled.sources.files.len(), 3);
    // A change in a base changes the composed spec's hash.
    let alone = gate_spec::compile_file(&fixtures_dir().join("compose_base_a.toml"), &shown)
        .expect("readable");
    assert_ne!(alone.spec.expect("valid").hash, spec.hash);
}

/// A spec that extends itself through its bases is a diagnostic, not a hang.
#[test]
fn an_extends_cycle_is_reported() {
    let dir = std::env::temp_dir().join(format!("gate-spec-cycle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let spec = |name: &str, base: &str| {
        format!("[machine]\nname = \"{name}\"\nextends = [\"{base}\"]\ninitial = \"idle\"\nkinds = [\"k\"]\n\n[[tier]]\nname = \"low\"\nmode = \"steer\"\nmax_actions = 5\n\n[[state]]\nname = \"idle\"\n")
    };
    std::fs::write(dir.join("a.toml"), spec("a", "b")).expect("write");
    std::fs::write(dir.join("b.toml"), spec("b", "a")).expect("write");
    let shown = |p: &Path| p.display().to_string();
    let compiled = gate_spec::compile_file(&dir.join("a.toml"), &shown).expect("readable");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compiled.spec.is_none());
    assert!(
        compiled
            .diags
            .items
            .iter()
            .any(|d| d.code == Code::Composition && d.message.contains("extends itself")),
        "{}",
        compiled.render()
    );
}

/// Refining what is inherited, on the composed IR: a renamed tier keeps its place and every
/// reference to it, a placed rule lands before its anchor, and `"..."` keeps the inherited
/// list in front of what the spec adds.
#[test]
fn composition_renames_places_and_extends() {
    let path = fixtures_dir().join("compose_refined.toml");
    let shown = |p: &Path| p.display().to_string();
    let compiled = gate_spec::compile_file(&path, &shown).expect("a readable fixture");
    let spec = compiled
        .spec
        .as_ref()
        .unwrap_or_else(|| panic!("{}", compiled.render()));
    let tiers: Vec<&str> = spec.tiers.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(tiers, ["low", "risky", "denied"]);
    let rules: Vec<&str> = spec.rules.iter().map(|r| r.name.as_ref()).collect();
    assert_eq!(rules, ["edits", "force_pushes", "pushes"]);
    let pushes = &spec.rules[2];
    assert_eq!(
        spec.tier_name(pushes.tier.expect("inherited tier")),
        "risky"
    );
    assert_eq!(
        pushes.commands.len(),
        2,
        "the inherited command, then the added one"
    );
    assert_eq!(pushes.reason, "a push publishes");
    // The inherited transition on `tier:high` is on `tier:risky` now.
    let triggers: Vec<gate_spec::ir::Trigger> =
        spec.transitions.iter().map(|t| t.trigger).collect();
    assert_eq!(
        triggers,
        [
            gate_spec::ir::Trigger::Tier(1),
            gate_spec::ir::Trigger::Tier(2)
        ]
    );
}

/// Mode `reversible` parses for tiers and roles, sits between steer and gate in the G012
/// order, and a misspelling of it is pointed at it.
#[test]
fn mode_reversible_parses_orders_and_is_suggested() {
    let spec = |low: &str, high: &str, role: &str| {
        format!(
            r#"
[machine]
name = "x"
initial = "idle"
kinds = ["k"]

[[tier]]
name = "low"
mode = "{low}"
max_actions = 5

[[tier]]
name = "high"
mode = "{high}"
max_actions = 2

[[state]]
name = "idle"

[[role]]
name = "director"
modes = {{ all = "{role}" }}
"#
        )
    };
    let (ir, diags) = gate_spec::compile(&spec("steer", "reversible", "reversible"));
    assert!(diags.items.is_empty(), "{:?}", diags.items);
    let ir = ir.expect("compiles");
    assert_eq!(ir.tiers[1].mode, gate_spec::ir::Mode::Reversible);
    assert!(ir.uses_mode(gate_spec::ir::Mode::Reversible));
    assert!(gate_spec::ir::Mode::Steer < gate_spec::ir::Mode::Reversible);
    assert!(gate_spec::ir::Mode::Reversible < gate_spec::ir::Mode::Gate);
    // Weaker above stronger: G012.
    let (_, diags) = gate_spec::compile(&spec("gate", "reversible", "gate"));
    assert!(diags.items.iter().any(|d| d.code.as_str() == "G012"));
    let (_, diags) = gate_spec::compile(&spec("steer", "reversable", "steer"));
    let d = diags.items.first().expect("a diagnostic");
    assert!(d.help.iter().any(|h| h.contains("`reversible`")), "{:?}", d);
}
