#!/usr/bin/env bash
# Prepares the real-client end-to-end tests (gate-cli/tests/e2e.rs): installs the four pinned
# agent CLIs (Claude Code, Codex, Gemini CLI, Copilot CLI) with the shared harness's setup.sh,
# from `../shared/e2e` beside the repository (or GATE_E2E_DIR).
#
# The CLIs go to $E2E_CLI_DIR, by default $HOME/.cache/gate-e2e/clis: cache that directory in
# CI (keyed on the hash of setup.sh) and later runs take seconds.
#
#   .ci/e2e.sh            install (or confirm) the CLIs
#   .ci/e2e.sh --test     then run the e2e tests too
#
# GATE_E2E=skip makes this a no-op (the tests then skip themselves as well).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
e2e_dir=${GATE_E2E_DIR:-$repo/../shared/e2e}

fail() {
  echo "e2e.sh: $*" >&2
  exit 1
}

run_tests=0
for arg in "$@"; do
  case "$arg" in
    --test) run_tests=1 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$arg' (expected: --test)" ;;
  esac
done

if [ "${GATE_E2E:-}" = "skip" ]; then
  echo "e2e.sh: GATE_E2E=skip is set: the real-client e2e tests are skipped, nothing installed"
  exit 0
fi

command -v node >/dev/null 2>&1 \
  || fail "node was not found on PATH; the real-client e2e tests need Node.js 20 or newer (with npm). Install it, or set GATE_E2E=skip to skip these tests explicitly."
command -v npm >/dev/null 2>&1 \
  || fail "npm was not found on PATH; it ships with Node.js 20 or newer. Install it, or set GATE_E2E=skip to skip these tests explicitly."
command -v python3 >/dev/null 2>&1 \
  || fail "python3 was not found on PATH; the e2e driver needs Python 3.8 or newer. Install it, or set GATE_E2E=skip."
[ -f "$e2e_dir/setup.sh" ] && [ -f "$e2e_dir/drive.py" ] \
  || fail "the e2e harness was not found in $e2e_dir (expected ../shared/e2e beside the repository; set GATE_E2E_DIR to its location)"

export E2E_CLI_DIR=${E2E_CLI_DIR:-$HOME/.cache/gate-e2e/clis}
echo "e2e.sh: installing the pinned CLIs into $E2E_CLI_DIR"
bash "$e2e_dir/setup.sh" || fail "setup.sh could not install the CLIs (see its messages above)"

if [ "$run_tests" = 1 ]; then
  cd "$repo"
  cargo test -p gate-cli --test e2e
fi
