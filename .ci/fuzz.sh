#!/usr/bin/env bash
# Smoke run of every cargo-fuzz target in fuzz/ (adapter, shell, spec, replay): each target
# starts from its committed seed corpus (fuzz/corpus/<target>/) and runs for
# FUZZ_SECONDS (default 20) seconds. New inputs go to a scratch corpus under fuzz/target, so
# the committed seeds are never rewritten. A crash fails the script and leaves the input in
# fuzz/artifacts/<target>/ (replay it with `cargo +nightly fuzz run <target> <file>`).
#
#   .ci/fuzz.sh                 every target, FUZZ_SECONDS each
#   .ci/fuzz.sh shell spec      only these targets
#
# Needs a nightly toolchain (rustup toolchain install nightly) and cargo-fuzz, which is
# installed with `cargo install cargo-fuzz` when missing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${FUZZ_SECONDS:-20}
all_targets=(adapter shell spec replay)

fail() {
  echo "fuzz.sh: $*" >&2
  exit 1
}

case "${1:-}" in
  -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [ -d "$repo/fuzz/corpus/$t" ] || fail "unknown target '$t' (expected one of: ${all_targets[*]})"
done

command -v cargo >/dev/null 2>&1 || fail "cargo was not found on PATH"
cargo +nightly --version >/dev/null 2>&1 \
  || fail "no nightly toolchain: cargo-fuzz needs one (rustup toolchain install nightly)"
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: cargo-fuzz is missing; installing it"
  cargo install --locked cargo-fuzz \
    || fail "could not install cargo-fuzz (cargo install cargo-fuzz failed)"
  cargo +nightly fuzz --version >/dev/null 2>&1 \
    || fail "cargo-fuzz was installed but 'cargo +nightly fuzz' still does not run; is ~/.cargo/bin on PATH?"
fi

cd "$repo/fuzz"
# The bundled SQLite C code is built with AddressSanitizer as well, and ASan reports its
# globals (e.g. `aiOff`) as an ODR violation at start-up, before any input runs: a false
# positive of the mixed C/Rust instrumentation, not a gate bug. Only that check is switched
# off; every other ASan check stays on.
export ASAN_OPTIONS="detect_odr_violation=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
cargo +nightly fuzz build -O || fail "the fuzz targets do not build"
for t in "${targets[@]}"; do
  scratch="$repo/fuzz/target/corpus/$t"
  mkdir -p "$scratch"
  echo "fuzz.sh: $t for ${seconds}s"
  cargo +nightly fuzz run -O "$t" "$scratch" "corpus/$t" -- \
    -max_total_time="$seconds" -print_final_stats=1 \
    || fail "target '$t' failed: see fuzz/artifacts/$t/ for the input"
done
echo "fuzz.sh: ${#targets[@]} target(s) ran ${seconds}s each without a crash"
