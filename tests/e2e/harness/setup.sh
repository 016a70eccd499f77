#!/usr/bin/env bash
# Installs the pinned agent CLIs (clis.txt) with npm, one npm prefix per CLI under the CLI
# cache: $E2E_CLI_DIR, else $XDG_CACHE_HOME/gate-e2e/clis, else $HOME/.cache/gate-e2e/clis.
# A CLI whose stamp says its pinned version is installed is left alone, so running this again
# costs nothing. The real-client tests (gate-cli/tests/e2e.rs) run it themselves, under a
# lock, when a CLI is missing; run it by hand to install ahead of time.
#
#   tests/e2e/harness/setup.sh                 # all four
#   tests/e2e/harness/setup.sh codex gemini    # only these
#
# Progress and errors go to stderr; stdout gets one line per CLI: runtime, version, binary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { echo "gate e2e setup: $*" >&2; }

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  say "npm and node were not found on PATH; install Node.js 20 or newer (it ships npm)"
  exit 1
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  say "node $(node --version) is too old; the pinned CLIs need Node.js 20 or newer"
  exit 1
fi

cli_dir=${E2E_CLI_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gate-e2e/clis}
mkdir -p "$cli_dir"

pins=$(grep -v '^[[:space:]]*\(#\|$\)' "$here/clis.txt")
want=("$@")
[ ${#want[@]} -eq 0 ] && read -r -a want <<<"$(awk '{printf "%s ", $1}' <<<"$pins")"

rc=0
for rt in "${want[@]}"; do
  line=$(awk -v r="$rt" '$1 == r' <<<"$pins")
  if [ -z "$line" ]; then
    say "unknown runtime '$rt' (clis.txt pins: $(awk '{printf "%s ", $1}' <<<"$pins"))"
    rc=1
    continue
  fi
  read -r _ pkg ver bin <<<"$line"
  prefix="$cli_dir/$rt"
  stamp="$prefix/.installed"
  exe="$prefix/node_modules/.bin/$bin"
  if [ "$(cat "$stamp" 2>/dev/null)" = "$pkg@$ver" ] && [ -x "$exe" ]; then
    echo "$rt $ver $exe"
    continue
  fi
  say "installing $pkg@$ver into $prefix (once; later runs reuse it)"
  rm -f "$stamp"
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || echo '{"private": true}' >"$prefix/package.json"
  if ! npm install --prefix "$prefix" --no-fund --no-audit --loglevel=error "$pkg@$ver" \
      >"$prefix/install.log" 2>&1; then
    say "npm install of $pkg@$ver failed; see $prefix/install.log:"
    tail -n 20 "$prefix/install.log" >&2
    rc=1
    continue
  fi
  if [ ! -x "$exe" ]; then
    say "$exe is missing after the install of $pkg@$ver"
    rc=1
    continue
  fi
  # Copilot's npm package is a loader: the first run unpacks the real CLI (about 235 MB) into
  # its cache. --version does that here, so that no test run pays for it.
  if ! XDG_CACHE_HOME="$cli_dir/copilot-cache" COPILOT_AUTO_UPDATE=false "$exe" --version \
      >>"$prefix/install.log" 2>&1; then
    say "$exe --version failed after the install; see $prefix/install.log"
    rc=1
    continue
  fi
  echo "$pkg@$ver" >"$stamp"
  echo "$rt $ver $exe"
done
exit $rc
