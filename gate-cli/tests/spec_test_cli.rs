//! `gate test` as a user runs it: exit 0 when every case passes, 1 with the failing step's
//! expected and actual answer when one fails, 2 with `file:line:col` for a bad test file;
//! `--json`, `--coverage` and `--spec-file` (a draft, interpreted).

mod common;

use common::gate_in_repo as gate;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A test file in a temporary directory (named so that no spec sits beside it).
fn test_file(dir: &tempfile::TempDir, name: &str, body: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    path.display().to_string()
}

#[test]
fn shipped_tests_pass() {
    let out = gate(&["test"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(" 0 failed"), "{stdout}");
    assert!(stdout.contains("ok   guard_grant_is_one_shot"), "{stdout}");
}

#[test]
fn a_failing_case_names_the_step_the_answers_and_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(
        &dir,
        "guard.test.toml",
        "[[case]]\nname = \"wrong\"\nsteps = [\n  { bash = \"ls\" },\n  { bash = \"rm -rf /\", expect = \"allow\" },\n]\n",
    );
    let out = gate(&["test", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!("FAIL wrong ({file}:1)")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("step 2 ({file}:5): pre_tool Bash `rm -rf /`")),
        "{stdout}"
    );
    assert!(stdout.contains("expected: allow\n"), "{stdout}");
    assert!(
        stdout.contains("actual:   deny, rule destroy_catastrophic, tier forbidden"),
        "{stdout}"
    );
    assert!(stdout.contains("0 passed, 1 failed"), "{stdout}");

    let out = gate(&["test", &file, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["failed"], 1);
    let failure = &report["files"][0]["cases"][0]["failure"];
    assert_eq!(failure["step"], 2);
    assert_eq!(failure["actual"]["verdict"], "deny");
    assert_eq!(failure["actual"]["rule"], "destroy_catastrophic");
}

#[test]
fn a_bad_test_file_is_exit_2_with_every_problem_located() {
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(
        &dir,
        "guard.test.toml",
        "[[case]]\nname = \"bad\"\nsteps = [\n  { bash = \"ls\", expect = \"alow\" },\n  { bash = \"ls\", state = \"nowhere\" },\n]\n",
    );
    let out = gate(&["test", &file]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}{stderr}", text(&out.stdout));
    assert!(
        stderr.contains(&format!("{file}:4:27: error: unknown verdict `alow`")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{file}:5:26: error: the spec has no state `nowhere`"
        )),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no case runs");

    let out = gate(&["test", &file, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"].as_array().unwrap().len(), 2);
    assert_eq!(report["errors"][0]["line"], 4);
}

#[test]
fn every_typo_of_a_test_file_comes_in_one_run_with_the_name_meant() {
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(
        &dir,
        "guard.test.toml",
        "[[case]]\nname = \"typos\"\nsteps = [\n  { bash = \"git push\", exepct = \"ask\" },\n  { bash = \"ls\", expect = \"alow\", rule = \"outward_change\" },\n  { bsh = \"ls\" },\n]\n",
    );
    let out = gate(&["test", &file]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}{stderr}", text(&out.stdout));
    for (at, message) in [
        (
            "4:24",
            "unknown key `exepct` in a step; did you mean `expect`?",
        ),
        ("5:27", "unknown verdict `alow`"),
        ("5:42", "the spec has no rule `outward_change`"),
        ("6:5", "unknown key `bsh` in a step; did you mean `bash`?"),
    ] {
        assert!(
            stderr.contains(&format!("{file}:{at}: error: {message}")),
            "{at} {message}\n{stderr}"
        );
    }
    assert!(stderr.contains("did you mean `allow`?"), "{stderr}");
    assert!(
        stderr.contains("did you mean `outward_changes`?"),
        "{stderr}"
    );
}

#[test]
fn coverage_lists_what_no_case_exercises() {
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(
        &dir,
        "one.test.toml",
        "spec = \"guard\"\n[[case]]\nname = \"one\"\nsteps = [{ bash = \"git rebase main\", expect = \"steer\" }]\n",
    );
    let out = gate(&["test", &file, "--coverage"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("coverage of guard: rules 1/"), "{stdout}");
    assert!(
        stdout.contains("no case exercises rule change_gate (specs/guard.toml:"),
        "{stdout}"
    );
    assert!(!stdout.contains("exercises rule history_risky"), "{stdout}");
    assert!(
        stdout.contains("no case exercises transition #0 watch --approved--> granted"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no case exercises template forbidden"),
        "{stdout}"
    );
}

#[test]
fn spec_file_runs_a_draft_and_spec_picks_the_tests_beside_it() {
    // The example spec, interpreted from its file, passes its own tests.
    let out = gate(&[
        "test",
        "specs/tests/example.test.toml",
        "--spec-file",
        "specs/example.toml",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = gate(&["test", "--spec", "example"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.starts_with("specs/tests/example.test.toml (spec example)"),
        "{stdout}"
    );
    let out = gate(&[
        "test",
        "--spec",
        "example",
        "--spec-file",
        "specs/example.toml",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--coverage` lists the author's own items one by one and counts those inherited from the
/// specs it extends per file, not as the author's; `--json` marks them `inherited`.
#[test]
fn coverage_does_not_list_inherited_items_as_the_authors() {
    let out = gate(&["test", "--spec", "default_trust", "--coverage"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(!stdout.contains("(specs/jwc.toml:"), "{stdout}");
    assert!(
        stdout.contains("inherited from specs/jwc.toml: "),
        "{stdout}"
    );
    let out = gate(&["test", "--spec", "default_trust", "--coverage", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let missed = v["coverage"][0]["missed"].as_array().unwrap();
    assert!(missed
        .iter()
        .any(|m| m["file"] == "specs/jwc.toml" && m["inherited"] == true));
    assert!(missed
        .iter()
        .all(|m| (m["file"] == "specs/default_trust.toml") == (m["inherited"] == false)));
}
