#!/usr/bin/env python3
"""Turn recorded hook payloads into stable fixtures: machine paths become /home/user/...,
UUIDs become numbered fake UUIDs, timestamps become 2026-01-01T00:00:00.

    python3 scrub.py RESULT.json OUTDIR      # RESULT.json: the output of drive.py

Writes one file per distinct hook call of the run, named <Event>[-<tool>].json, keeping the first
call of each name. The work directory's proj/ becomes /home/user/proj and its home/ becomes
/home/user, also inside the dash-encoded project names some CLIs use for their own folders.
The fixtures in tests/fixtures/payloads/ went through the same Scrubber class.
"""
import json
import os
import re
import sys

UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
ISO_TIME = re.compile(r"\b20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
FILE_TIME = re.compile(r"\b20\d\d-\d\d-\d\dT\d\d-\d\d(-\d\d)?\b")  # in file names: rollout-…, session-…
DATE_DIR = re.compile(r"/20\d\d/\d\d/\d\d/")
FIXED_EPOCH_MS = 1767225600000  # 2026-01-01T00:00:00Z


def dash_encode(path):
    """How Claude Code names a project's folder under ~/.claude/projects."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


class Scrubber:
    def __init__(self, rules):
        """rules: [(regex, replacement)], applied in order to every string"""
        self.rules = [(re.compile(p) if isinstance(p, str) else p, r) for p, r in rules]
        self.uuids = {}
        self.shorts = {}

    def fake_uuid(self, real):
        if real not in self.uuids:
            n = len(self.uuids) + 1
            fake = f"{n:08x}-0000-4000-8000-{n:012x}"
            self.uuids[real] = fake
            self.shorts[real[:8]] = fake[:8]
        return self.uuids[real]

    def text(self, s):
        for pattern, repl in self.rules:
            s = pattern.sub(repl, s)
        s = UUID.sub(lambda m: self.fake_uuid(m.group(0)), s)
        s = ISO_TIME.sub(lambda m: "2026-01-01T00:00:00" + (".000" if m.group(1) else "") + (m.group(2) or ""), s)
        s = FILE_TIME.sub(lambda m: "2026-01-01T00-00" + ("-00" if m.group(1) else ""), s)
        s = DATE_DIR.sub("/2026/01/01/", s)
        for real, fake in self.shorts.items():  # short session ids in file names (Gemini chats)
            s = s.replace(f"-{real}.jsonl", f"-{fake}.jsonl")
        return s

    def __call__(self, obj, key=None):
        if isinstance(obj, dict):
            return {k: self(v, k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self(v) for v in obj]
        if isinstance(obj, str):
            return self.text(obj)
        if key == "timestamp" and isinstance(obj, (int, float)) and not isinstance(obj, bool):
            return FIXED_EPOCH_MS
        return obj


def rules_for_workdir(workdir):
    rules = []
    for real, fake in ((os.path.join(workdir, "proj"), "/home/user/proj"),
                       (os.path.join(workdir, "home"), "/home/user")):
        rules.append((re.escape(real), fake))
        rules.append((re.escape(dash_encode(real)), dash_encode(fake)))
    return rules


def fixture_name(call):
    p = call.get("payload") or {}
    tool = p.get("tool_name") or p.get("toolName")
    name = call.get("event") or p.get("hook_event_name") or "unknown"
    return f"{name}-{tool}" if tool else name


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        result = json.load(f)
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    scrub = Scrubber(rules_for_workdir(result["workdir"]))
    written = []
    for call in result.get("hook_payloads") or []:
        name = fixture_name(call)
        if name in written:
            continue
        with open(os.path.join(outdir, name + ".json"), "w") as f:
            json.dump(scrub(call.get("payload")), f, indent=2)
            f.write("\n")
        written.append(name)
    print("\n".join(written))


if __name__ == "__main__":
    main()
