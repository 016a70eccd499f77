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

/// One test file run against the compiled spec it is named after: its case count and the
/// rendered failures.
fn run_tests_of(path: &Path) -> (usize, String) {
    let name = spec_name(path);
    let compiled = compiled_spec(&name).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let planned = Planned {
        path: path.to_path_buf(),
        policy: Policy::Compiled(compiled),
    };
    let tests = spectest::load(path, compiled.ir())
        .unwrap_or_else(|e| panic!("{} is not a valid test file:\n{e}", path.display()));
    let report = spectest::run_file(&planned, &tests).expect("the cases run");
    let failures = report
        .cases
        .iter()
        .map(|case| spectest::render_failure(path, case))
        .collect();
    (report.cases.len(), failures)
}

#[test]
fn every_spec_test_passes() {
    let files = test_files();
    // One thread per file: every case has its own database, so files run independently.
    let results: Vec<(usize, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .iter()
            .map(|path| scope.spawn(move || run_tests_of(path)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a test file's thread"))
            .collect()
    });
    let cases: usize = results.iter().map(|r| r.0).sum();
    let failures: String = results.into_iter().map(|r| r.1).collect();
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
    let missing: Vec<&str> = compiled_specs()
        .iter()
        .map(|c| c.name)
        .filter(|n| !names.iter().any(|m| m == n))
        .collect();
    assert!(
        missing.is_empty(),
        "specs without a specs/tests/<name>.test.toml: {missing:?}"
    );
}

/// Why jwc's `granted` state never meets a session start (and so default's, which extends it).
const GRANTED_AT_SESSION_START: &str =
    "`granted` is entered by consuming a grant on a pre-tool event and left on that \
     same event by the action's own tier transition (grants are minted only for \
     asked actions, and the same action classifies the same), so no `session_start` \
     event ever finds the machine there";

/// Why jwc's `granted` state never meets a session end.
const GRANTED_AT_SESSION_END: &str =
    "`granted` is entered by consuming a grant on a pre-tool event and left on that \
     same event by the action's own tier transition (grants are minted only for \
     asked actions, and the same action classifies the same), so no `session_end` \
     event ever finds the machine there";

/// Why jwc's `granted` state never meets the action trigger.
const GRANTED_ON_ACTION: &str =
    "the event that enters `granted` leaves it on its own tier transition, which \
     comes before the action trigger";

/// Why `looping` never rises inside jwc's one-action `reassess` state.
const LOOPING_IN_REASSESS: &str =
    "`reassess` lasts one pre-tool action (the next one leaves it, to `lapsed` or \
     with evidence to `open`) and the repeated-target count restarts when a \
     boundary closes the window, so the fourth same target cannot fall inside it";

/// What the cases of a shipped spec cannot exercise, and why. `(spec, what, name)` as
/// `gate test --coverage` names them.
const UNREACHABLE: &[(&str, &str, &str, &str)] = &[
    (
        "guard",
        "transition",
        "#7 granted --tier:forbidden--> watch",
        "`granted` is entered only by consuming a grant, and a grant is minted only for a \
         destructive action; the same action (tool, target, cwd, input) classifies the same, \
         so the event that enters `granted` is destructive and leaves it on tier:destructive",
    ),
    (
        "guard",
        "transition",
        "#8 granted --action--> watch",
        "as #7: the event that enters `granted` always leaves it on tier:destructive first",
    ),
    (
        "trust",
        "transition",
        "#6 trusted_throttled --clear:rate_trusted--> trusted",
        "the rate clears on the third sample under budget, and the two before it are denied \
         by the throttle, which raises `withheld` (demoting to standard_throttled) unless it \
         is already on; it can be on at `trusted` only after a promotion run of 25 actions in \
         which every other action was denied, followed by more than 120 actions a minute with \
         a denial at least every fourth: reachable, not yet written as a case",
    ),
    (
        "jwc",
        "transition",
        "#5 granted --event:session_start--> due",
        GRANTED_AT_SESSION_START,
    ),
    (
        "jwc",
        "transition",
        "#13 granted --event:session_end--> idle",
        GRANTED_AT_SESSION_END,
    ),
    (
        "jwc",
        "transition",
        "#132 granted --action--> idle",
        GRANTED_ON_ACTION,
    ),
    (
        "jwc",
        "transition",
        "#106 reassess --signal:looping--> reassess",
        LOOPING_IN_REASSESS,
    ),
    (
        "default",
        "transition",
        "#5 granted --event:session_start--> due",
        GRANTED_AT_SESSION_START,
    ),
    (
        "default",
        "transition",
        "#13 granted --event:session_end--> idle",
        GRANTED_AT_SESSION_END,
    ),
    (
        "default",
        "transition",
        "#139 granted --tier:forbidden--> idle",
        "as guard's #7: the event that enters `granted` consumed a grant of a \
         destructive action, never a forbidden one, and leaves on its own tier first",
    ),
    (
        "default",
        "transition",
        "#132 granted --action--> idle",
        GRANTED_ON_ACTION,
    ),
    (
        "default",
        "transition",
        "#106 reassess --signal:looping--> reassess",
        LOOPING_IN_REASSESS,
    ),
];

/// Specs whose cases exercise every rule, transition and template but those listed in
/// [`UNREACHABLE`]: every shipped spec.
const COMPLETE: &[&str] = &[
    "example",
    "guard",
    "trust",
    "waypoints_phases",
    "jwc",
    "default",
];

#[test]
fn shipped_specs_are_covered() {
    let mut problems = Vec::new();
    for name in COMPLETE {
        let path = tests_dir().join(format!("{name}{}", file::SUFFIX));
        let compiled = compiled_spec(name).unwrap();
        let tests = spectest::load(&path, compiled.ir()).unwrap();
        let planned = Planned {
            path: path.clone(),
            policy: Policy::Compiled(compiled),
        };
        let report = spectest::run_file(&planned, &tests).unwrap();
        let missed = spectest::missed(compiled.ir(), &report.coverage, None);
        for (what, item, _) in &missed {
            if !UNREACHABLE
                .iter()
                .any(|(s, w, n, _)| s == name && w == what && n == item)
            {
                problems.push(format!("{name}: no case exercises {what} {item}"));
            }
        }
        for (s, w, n, _) in UNREACHABLE.iter().filter(|u| u.0 == *name) {
            if !missed.iter().any(|(what, item, _)| what == w && item == n) {
                problems.push(format!(
                    "{s}: {w} {n} is listed as unreachable, but a case exercises it: \
                     take it out of UNREACHABLE"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The spec-test example in docs/spec.md passes against the worked example spec there.
#[test]
fn docs_example_passes() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/spec.md"))
            .unwrap();
    let block_after = |heading: &str| -> String {
        let at = docs
            .find(heading)
            .unwrap_or_else(|| panic!("{heading} in docs/spec.md"));
        let start = docs[at..].find("```toml\n").unwrap() + at + "```toml\n".len();
        let end = docs[start..].find("```").unwrap() + start;
        docs[start..end].to_string()
    };
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("worked.toml");
    let test_path = dir.path().join("worked.test.toml");
    std::fs::write(&spec_path, block_after("## Worked example")).unwrap();
    std::fs::write(&test_path, block_after("## Spec tests")).unwrap();
    let policy = Policy::draft(&spec_path).unwrap();
    let tests = spectest::load(&test_path, policy.spec()).unwrap();
    let planned = Planned {
        path: test_path.clone(),
        policy,
    };
    let report = spectest::run_file(&planned, &tests).unwrap();
    let failures: String = report
        .cases
        .iter()
        .map(|c| spectest::render_failure(&test_path, c))
        .collect();
    assert_eq!(report.cases.len(), 2);
    assert!(failures.is_empty(), "{failures}");
}

/// The compiled specs, as the `gate` binary installs them (the library links none itself).
fn compiled_specs() -> &'static [&'static gate_spec::exec::CompiledSpec] {
    gate_cli::registry::install(gate_specs::ALL);
    gate_cli::cmd::compiled_specs()
}

/// A compiled spec by name, from the installed registry.
fn compiled_spec(name: &str) -> anyhow::Result<&'static gate_spec::exec::CompiledSpec> {
    compiled_specs();
    gate_cli::cmd::compiled_spec(name)
}
