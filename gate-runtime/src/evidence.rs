//! What a build or test runner's own output says of its result, for tool results that carry
//! no exit status (Codex's shell result is the command's output text only).
//!
//! Each runner prints a result line of its own (`test result: ok.`, `=== 3 passed in 0.1s ===`,
//! `BUILD FAILURE`); [`status_from_output`] reads them from a table. The output is evidence only
//! when the command line ran the runner alone: anything else on the line (`cargo test; echo
//! 'test result: ok.'`, `pytest | sed s/failed/passed/`) could have printed or rewritten it, so
//! such a line gives no status at all, and a checkpoint that needs success does not fire.

use crate::event::Status;
use crate::shell;

/// One result line: a trimmed line that starts with `starts` and contains `contains`.
#[derive(Clone, Copy, Debug)]
struct Marker {
    starts: &'static str,
    contains: &'static str,
    status: Status,
}

const fn fail(starts: &'static str, contains: &'static str) -> Marker {
    Marker {
        starts,
        contains,
        status: Status::Failure,
    }
}

const fn pass(starts: &'static str, contains: &'static str) -> Marker {
    Marker {
        starts,
        contains,
        status: Status::Success,
    }
}

/// Result lines of the runners gate's specs name as evidence. Failures are read first: a
/// failure line anywhere in the output outweighs a success line (`1 failed, 2 passed`).
const MARKERS: &[Marker] = &[
    // cargo (test, build, nextest).
    fail("test result: FAILED", ""),
    fail("error: test failed", ""),
    fail("error: could not compile", ""),
    fail("error: test run failed", ""),
    fail("error: no test", ""),
    fail("FAIL [", ""),
    pass("test result: ok.", ""),
    pass("Summary [", " passed"),
    pass("Finished `", "profile"),
    pass("Finished dev", ""),
    pass("Finished release", ""),
    pass("Finished test", ""),
    // pytest's summary line (`==== 2 failed, 3 passed in 0.2s ====`); exit 5 (`no tests ran`)
    // is a failure.
    fail("=", " failed"),
    fail("=", " error"),
    fail("=", "no tests ran"),
    pass("=", " passed"),
    // go test.
    fail("--- FAIL:", ""),
    fail("FAIL", ""),
    pass("ok  \t", ""),
    // jest and vitest.
    fail("Tests:", " failed"),
    fail("Test Files", " failed"),
    fail("Tests ", " failed"),
    pass("Tests:", " passed"),
    pass("Tests ", " passed"),
    // Maven, Gradle, CTest, tox.
    fail("[INFO] BUILD FAILURE", ""),
    fail("BUILD FAILED", ""),
    fail("", "tests failed out of"),
    fail("", "evaluation failed :("),
    fail("ERROR: InvocationError", ""),
    pass("[INFO] BUILD SUCCESS", ""),
    pass("BUILD SUCCESSFUL", ""),
    pass("100% tests passed", ""),
    pass("congratulations :)", ""),
    // npm, make, and a program that was never found.
    fail("npm ERR!", ""),
    fail("npm error", ""),
    fail("make: ***", ""),
    fail("make[", "] ***"),
    fail("", "command not found"),
];

/// Programs that build or run tests (and the launchers they run under): their status comes
/// only from their own result line, never from having printed something.
const RUNNERS: &[&str] = &[
    "cargo", "pytest", "py.test", "python", "python3", "go", "npm", "npx", "yarn", "pnpm", "bun",
    "deno", "node", "jest", "vitest", "mocha", "mvn", "mvnw", "gradle", "gradlew", "make", "cmake",
    "ctest", "tox", "nox", "dotnet", "mix", "rake", "bundle", "phpunit", "composer", "tsc", "mypy",
    "swift", "zig", "bazel", "just",
];

/// What a failed command other than a runner prints (to the output Codex reports).
const FAILURE_WORDS: &[&str] = &[
    "No such file or directory",
    "Permission denied",
    "Is a directory",
    "command not found",
    "Operation not permitted",
];

/// The result a command's output reports, when the command line ran one program alone (after
/// `cd`s); `None` when the output says nothing or the line could have forged it. A runner's
/// status is its own result line ([`MARKERS`]); any other program (`cat PLAN.md`) succeeded
/// when it printed something and no failure.
pub fn status_from_output(command: &str, output: &str) -> Option<Status> {
    let program = runner_alone(command)?;
    let marked = marked_status(output);
    if marked.is_some() || RUNNERS.contains(&program.as_str()) {
        return marked;
    }
    if FAILURE_WORDS.iter().any(|w| output.contains(w)) {
        return Some(Status::Failure);
    }
    (!output.trim().is_empty()).then_some(Status::Success)
}

/// The status the result lines of [`MARKERS`] report, a failure outweighing a success.
fn marked_status(output: &str) -> Option<Status> {
    let mut found = None;
    for line in output.lines() {
        let line = line.trim();
        for m in MARKERS {
            if line.starts_with(m.starts) && line.contains(m.contains) {
                if m.status == Status::Failure {
                    return Some(Status::Failure);
                }
                found = Some(Status::Success);
            }
        }
    }
    found
}

/// The program a line runs, when it runs one (with `cd`s before it) and nothing that could
/// print, filter or rewrite its output.
fn runner_alone(command: &str) -> Option<String> {
    let parsed = shell::parse(command);
    if parsed.truncated || !parsed.pipes.is_empty() {
        return None;
    }
    let mut runners = parsed
        .commands
        .iter()
        .filter(|c| !matches!(&*c.program, "cd" | "pushd"));
    let runner = runners.next()?;
    (runners.next().is_none()
        && runner.depth == 0
        && !runner.background
        && runner.writes.iter().all(|r| is_stream_merge(&r.target)))
    .then(|| runner.program.to_string())
}

/// `2>&1` and `>&2` move a stream; any other redirection sends output away from the result.
fn is_stream_merge(target: &str) -> bool {
    matches!(target, "&1" | "&2" | "1" | "2")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runners_report_their_own_results() {
        let cases: &[(&str, &str, Option<Status>)] = &[
            ("cargo test", "running 3 tests\ntest result: ok. 3 passed; 0 failed", Some(Status::Success)),
            ("cargo test", "test a ... FAILED\ntest result: FAILED. 2 passed; 1 failed", Some(Status::Failure)),
            ("cargo build", "error[E0308]: mismatched types\nerror: could not compile `x`", Some(Status::Failure)),
            ("cargo build", "   Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.1s", Some(Status::Success)),
            ("cargo nextest run", "        FAIL [   0.003s] x tests::a\n     Summary [   0.010s] 2 tests run: 1 passed, 1 failed\nerror: test run failed", Some(Status::Failure)),
            ("cargo nextest run", "     Summary [   0.010s] 2 tests run: 2 passed, 0 skipped", Some(Status::Success)),
            ("pytest -q", "..F\n=========== 1 failed, 2 passed in 0.12s ===========", Some(Status::Failure)),
            ("pytest", "============ 3 passed in 0.02s ============", Some(Status::Success)),
            ("pytest", "============ no tests ran in 0.01s ============", Some(Status::Failure)),
            ("go test ./...", "ok  \texample.com/a\t0.01s\n--- FAIL: TestB (0.00s)\nFAIL\texample.com/b\t0.01s", Some(Status::Failure)),
            ("go test ./...", "ok  \texample.com/a\t0.01s", Some(Status::Success)),
            ("npx jest", "Tests:       1 failed, 4 passed, 5 total", Some(Status::Failure)),
            ("npx vitest run", " Test Files  1 passed (1)\n      Tests  3 passed (3)", Some(Status::Success)),
            ("npm test", "npm error code ELIFECYCLE", Some(Status::Failure)),
            ("mvn test", "[INFO] BUILD SUCCESS", Some(Status::Success)),
            ("gradle test", "BUILD FAILED in 2s", Some(Status::Failure)),
            ("make test", "make: *** [Makefile:3: test] Error 1", Some(Status::Failure)),
            ("cd crates/a && cargo test 2>&1", "test result: ok. 1 passed", Some(Status::Success)),
            // Nothing said.
            ("cargo test", "", None),
            ("pytest", "collected 3 items", None),
            ("python3 -m pytest", "collected 3 items", None),
            // Another program: it printed something, and no failure.
            ("cat docs/PLAN.md", "# Plan\n1. parse", Some(Status::Success)),
            ("cat docs/PLAN.md", "cat: docs/PLAN.md: No such file or directory", Some(Status::Failure)),
            ("cat docs/PLAN.md", "", None),
        ];
        for (command, output, want) in cases {
            assert_eq!(
                status_from_output(command, output),
                *want,
                "{command:?} printing {output:?}"
            );
        }
    }

    #[test]
    fn a_line_that_could_forge_the_output_gives_no_status() {
        for command in [
            "cargo test; echo 'test result: ok.'",
            "cargo test || printf 'test result: ok.'",
            "pytest | sed s/failed/passed/",
            "pytest > /dev/null",
            "cargo test & wait",
            "bash -c 'cargo test'",
            "",
        ] {
            assert_eq!(
                status_from_output(command, "test result: ok. 3 passed"),
                None,
                "{command:?}"
            );
        }
    }
}
