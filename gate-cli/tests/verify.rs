//! `gate verify` end to end: every compiled spec is proven (no registration: the test walks
//! `gate_specs::ALL`), every shipped spec file verifies as a draft, the old trust spec's
//! first-action hole is reported with its one-event counterexample and exit 1, and bad input
//! is exit 2.

mod common;

use common::gate_in_repo as gate;

use std::process::Output;

/// Whether a compiled spec is beyond the exact explorer's budget (`verify::budget`): only
/// release_train, whose five counters multiply its space (gate-runtime's exhaustive test
/// holds that list); it is explored with its counters abstracted.
fn beyond_exact(compiled: &gate_spec::exec::CompiledSpec) -> bool {
    let spec = compiled.ir();
    let letters = gate_runtime::verify::alphabet::letters(spec).len();
    gate_runtime::verify::budget::check(spec, letters).is_err()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn every_compiled_spec_is_proven() {
    assert!(!gate_specs::ALL.is_empty());
    for compiled in gate_specs::ALL {
        let o = gate(&["verify", "--spec", compiled.name, "--json"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}{}",
            compiled.name,
            stdout(&o),
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(v["holds"], true);
        let report = &v["specs"][0]["report"];
        assert_eq!(report["spec"], compiled.name);
        assert_eq!(
            report["counters_abstracted"],
            beyond_exact(compiled),
            "{}",
            compiled.name
        );
        assert!(report["nodes"].as_u64().unwrap() >= 1);
        let names: Vec<&str> = report["invariants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        for builtin in [
            "machine_consistent",
            "forbidden_never_allowed",
            "window_licenses_nothing",
            "anti_flap",
            "fail_open",
            "withholding_is_left",
        ] {
            assert!(names.contains(&builtin), "{}: {names:?}", compiled.name);
        }
    }
}

/// release_train, beyond the exact budget, is proven with its counters abstracted, and says
/// so on every invariant.
#[test]
fn release_train_is_proven_with_its_counters_abstracted() {
    let o = gate(&["verify", "--spec-file", "specs/release_train.toml"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("explored with the counters abstracted"),
        "{text}"
    );
    let proven: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("proven"))
        .collect();
    assert!(proven.len() >= 6, "{text}");
    for line in proven {
        assert!(
            line.contains("(counters abstracted: every value of each counter allowed)"),
            "{line}"
        );
    }
}

#[test]
fn the_old_trust_spec_fails_on_a_new_identitys_first_action() {
    let old = "tests/fixtures/specs/trust_first_action_allowed.toml";
    let o = gate(&["verify", "--spec-file", old]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("FALSE   forbidden_never_allowed"), "{text}");
    assert!(
        text.contains("1. pre_tool tier=blocked kind=routine -> allow  [fresh -> standard]"),
        "{text}"
    );
    assert!(
        !text.contains("  2. "),
        "the counterexample is one event: {text}"
    );
    let o = gate(&["verify", "--spec-file", old, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["holds"], false);
    let false_ones: Vec<&serde_json::Value> = v["specs"][0]["report"]["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f.get("counterexample").is_some())
        .collect();
    assert_eq!(false_ones.len(), 1);
    let events = &false_ones[0]["counterexample"]["events"];
    assert_eq!(events.as_array().unwrap().len(), 1);
    assert_eq!(events[0]["from"], "fresh");
    assert_eq!(events[0]["answer"], "allow");
    // The shipped spec, fixed, passes, as a draft and as named files.
    let o = gate(&["verify", "--spec-file", "specs/trust.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = gate(&["verify", "specs/trust.toml", "specs/guard.toml"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("specs/guard.toml: explored"), "{text}");
    assert!(text.contains("proven  forbidden_never_allowed"), "{text}");
}

#[test]
fn bad_input_is_exit_2() {
    let o = gate(&["verify", "--spec", "no_such_spec"]);
    assert_eq!(o.status.code(), Some(2));
    let o = gate(&["verify", "/nonexistent/spec.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = gate(&["verify", "--spec", "trust", "specs/trust.toml"]);
    assert_eq!(o.status.code(), Some(2));
    // Every role is explored; naming one is a mistake, not a filter silently ignored.
    let o = gate(&["verify", "--spec", "default", "--role", "worker"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--role does not apply"));
}
