#!/usr/bin/env python3
"""Put the Codex permission profile `gate doctor` generates into $CODEX_HOME/config.toml.

    python3 codex_profile.py /path/to/gate

Runs `gate doctor --json` (in the current directory, with the current environment), takes the
`settings` of the codex runtime's boundary, and writes its top-level keys above the file's
first table and its tables at the end. A --setup-cmd for drive.py: the sandbox test runs the
real Codex under the profile gate generated for that run's project and home.
"""
import json
import os
import subprocess
import sys


def main():
    out = subprocess.run([sys.argv[1], "doctor", "--json"], capture_output=True, check=False)
    report = json.loads(out.stdout)
    codex = next(r for r in report["runtimes"] if r["runtime"] == "codex")
    settings = codex["boundary"].get("settings")
    if not settings:
        sys.exit(f"gate doctor printed no Codex profile: {codex['boundary']}")
    lines = settings.splitlines(keepends=True)
    first_table = next(i for i, line in enumerate(lines) if line.startswith("["))
    top, tables = "".join(lines[:first_table]), "".join(lines[first_table:])
    path = os.path.join(os.environ["CODEX_HOME"], "config.toml")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(top + text + "\n" + tables)


if __name__ == "__main__":
    main()
