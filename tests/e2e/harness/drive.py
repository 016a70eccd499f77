#!/usr/bin/env python3
"""Drive one real agent CLI offline, against a scripted model on loopback, with a hook wired in.

    python3 drive.py --runtime claude|codex|gemini|copilot --hook-cmd 'gate hook claude-code' \
        [--events pre,post,session-start,stop,prompt] [--steps steps.json] [--timeout 120]

What one run does:
 1. makes a fresh work directory (--workdir, else a new directory under $E2E_WORK, else under the
    system temp dir) holding proj/ (the CLI's working directory) and home/ (its HOME);
 2. runs --setup-cmd, if given, in proj/ with the CLI's environment; then
    writes the runtime's own hook settings file, registering --hook-cmd for the chosen events
    behind hookwrap.py, which records every call and passes stdin, stdout, stderr and the exit
    code through unchanged;
 3. starts the matching mock model server on a free loopback port, with the steps translated
    into that runtime's real tools, and records its PID;
 4. runs the CLI headless in proj/, then stops the mock by its PID;
 5. prints ONE JSON object on stdout (also saved as result.json in the work directory):
    {"runtime", "version", "dialect", "exit", "timed_out", "secs", "workdir", "settings_file",
     "events", "steps": [{"index", "step", "tool", "tool_ran", "tool_ran_evidence", "tool_result_text",
                "hook_calls", "hook_events", "skipped"?}],
     "model_requests": [{"after_step", "tool_results", "texts"}],
     "hook_payloads": [{"event", "step", "payload", "exit", "stdout", "stderr", "ms", "env", "cwd"}],
     "notes": [...]}

Steps file: a JSON list, or {"files": {"rel/path": "content", "emptydir/": null}, "steps": [...]}
whose files are created in proj/ before the run. Runtime-neutral steps:
    {"shell": "rm -rf victim"}
    {"write": {"path": "f.txt", "content": "x\\n"}}
    {"edit":  {"path": "f.txt", "old": "a", "new": "b"}}
    {"read":  "f.txt"}
    {"raw":   <a step in the mock's own format for this runtime>}
Relative paths are resolved inside proj/. A step may add "creates": "path" or "removes": "path"
to decide tool_ran from the file system instead of from the tool result.

Exit status: 0 when the run happened and the JSON was printed (whatever the CLI did), 2 for bad
arguments or a bad steps file, 3 when the CLI is not installed (setup.sh installs it).
"""
import argparse
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
MOCK_DIR = os.path.join(HERE, "mocks")
HOOKWRAP = os.path.join(HERE, "hookwrap.py")

RUNTIMES = {
    "claude": {"package": "@anthropic-ai/claude-code", "bin": "claude", "mock": "anthropic.py", "api": "anthropic"},
    "codex": {"package": "@openai/codex", "bin": "codex", "mock": "responses.py", "api": "responses"},
    "gemini": {"package": "@google/gemini-cli", "bin": "gemini", "mock": "gemini.py", "api": "gemini"},
    "copilot": {"package": "@github/copilot", "bin": "copilot", "mock": "anthropic.py", "api": "anthropic"},
}

# runtime-neutral event name -> the runtime's own event name (the key in its settings file)
EVENTS = {
    "claude": {"pre": "PreToolUse", "post": "PostToolUse", "post-failure": "PostToolUseFailure",
               "permission": "PermissionRequest", "session-start": "SessionStart", "session-end": "SessionEnd",
               "stop": "Stop", "prompt": "UserPromptSubmit", "notification": "Notification"},
    "codex": {"pre": "PreToolUse", "post": "PostToolUse", "permission": "PermissionRequest",
              "session-start": "SessionStart", "session-end": "SessionEnd", "stop": "Stop",
              "prompt": "UserPromptSubmit"},
    "gemini": {"pre": "BeforeTool", "post": "AfterTool", "session-start": "SessionStart",
               "session-end": "SessionEnd", "stop": "AfterAgent", "prompt": "BeforeAgent",
               "notification": "Notification"},
    "copilot-camel": {"pre": "preToolUse", "post": "postToolUse", "post-failure": "postToolUseFailure",
                      "permission": "permissionRequest", "session-start": "sessionStart",
                      "session-end": "sessionEnd", "stop": "agentStop", "prompt": "userPromptSubmitted",
                      "notification": "notification"},
    "copilot-pascal": {"pre": "PreToolUse", "post": "PostToolUse", "post-failure": "PostToolUseFailure",
                       "session-start": "SessionStart", "session-end": "SessionEnd", "stop": "Stop",
                       "prompt": "UserPromptSubmit"},
}
NEUTRAL_EVENTS = sorted({n for table in EVENTS.values() for n in table})

# events whose settings entry takes a tool matcher
MATCHER_EVENTS = {
    "claude": {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"},
    "codex": {"PreToolUse", "PostToolUse", "PermissionRequest"},
    "gemini": {"BeforeTool", "AfterTool"},
    "copilot": set(),
}
# a call of one of these inside a step's window proves the tool ran
POST_TOOL_EVENTS = {"PostToolUse", "PostToolUseFailure", "AfterTool", "postToolUse", "postToolUseFailure"}

ENV_DROP_PREFIXES = ("ANTHROPIC_", "CLAUDE", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "COPILOT_", "GH_",
                     "GITHUB_", "AZURE_OPENAI")
ENV_DROP = {"CI", "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
            "no_proxy", "NO_PROXY"}


class UsageError(Exception):
    pass


class NotInstalled(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# small helpers

def read_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    out.append({"_unparsed": line})
    return out


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def content_text(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(content_text(c.get("text") if isinstance(c, dict) else c) for c in content
                         if not isinstance(c, dict) or "text" in c)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return content["text"]
    return json.dumps(content)


# ---------------------------------------------------------------------------------------------
# installed CLIs

def cli_dir():
    """Where setup.sh installs the CLIs: $E2E_CLI_DIR, else the gate-e2e cache."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.environ.get("E2E_CLI_DIR") or os.path.join(cache, "gate-e2e", "clis")


def find_cli(runtime):
    spec = RUNTIMES[runtime]
    override = os.environ.get(f"E2E_{runtime.upper()}_BIN")
    if override:
        if not os.access(override, os.X_OK):
            raise NotInstalled(f"E2E_{runtime.upper()}_BIN={override} is not an executable file")
        try:
            out = subprocess.run([override, "--version"], capture_output=True, text=True, timeout=60,
                                 env=dict(os.environ, XDG_CACHE_HOME=os.path.join(cli_dir(), "copilot-cache")))
            version = (out.stdout.strip().splitlines() or ["unknown"])[0]
        except Exception:
            version = "unknown"
        return override, version
    prefix = os.path.join(cli_dir(), runtime)
    exe = os.path.join(prefix, "node_modules", ".bin", spec["bin"])
    if not os.access(exe, os.X_OK):
        raise NotInstalled(f"{runtime} CLI not found at {exe}; run setup.sh (it installs into "
                           f"E2E_CLI_DIR={cli_dir()}) or set E2E_{runtime.upper()}_BIN")
    try:
        with open(os.path.join(prefix, "node_modules", spec["package"], "package.json")) as f:
            version = json.load(f).get("version", "unknown")
    except (OSError, ValueError):
        version = "unknown"
    return exe, version


# ---------------------------------------------------------------------------------------------
# steps: runtime-neutral -> the runtime's real tools

def load_steps(path):
    if not path:
        return {}, []
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read steps file {path}: {e}")
    files, steps = {}, doc
    if isinstance(doc, dict):
        files, steps = doc.get("files") or {}, doc.get("steps") or []
    if not isinstance(steps, list) or not isinstance(files, dict):
        raise UsageError("steps file: expected a JSON list of steps or {\"files\": {...}, \"steps\": [...]}")
    for i, s in enumerate(steps):
        kinds = [k for k in ("shell", "write", "edit", "read", "raw") if isinstance(s, dict) and k in s]
        if len(kinds) != 1:
            raise UsageError(f"step {i}: needs exactly one of shell/write/edit/read/raw, got {s!r}")
        k = kinds[0]
        if k == "shell" and not isinstance(s[k], str):
            raise UsageError(f"step {i}: \"shell\" takes a command string")
        if k == "write" and not (isinstance(s[k], dict) and "path" in s[k] and "content" in s[k]):
            raise UsageError(f"step {i}: \"write\" takes {{\"path\", \"content\"}}")
        if k == "edit" and not (isinstance(s[k], dict) and {"path", "old", "new"} <= set(s[k])):
            raise UsageError(f"step {i}: \"edit\" takes {{\"path\", \"old\", \"new\"}}")
        if k == "read" and not isinstance(s[k], str):
            raise UsageError(f"step {i}: \"read\" takes a path string")
    return files, steps


def step_kind(step):
    return next(k for k in ("shell", "write", "edit", "read", "raw") if k in step)


def add_file_patch(path, content):
    lines = content.split("\n")
    if content.endswith("\n"):
        lines = lines[:-1]
    body = "".join(f"+{line}\n" for line in lines)
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


def map_step(runtime, step, proj):
    """-> (mock step or None, tool name, note)"""
    kind = step_kind(step)
    if kind == "raw":
        raw = step["raw"]
        name = raw.get("name") or raw.get("tool") or raw.get("custom") or ("shell" if "shell" in raw else "?")
        return raw, name, None

    def p(rel):
        return rel if os.path.isabs(rel) else os.path.join(proj, rel)

    desc = step.get("description", "requested by the test")
    if kind == "shell":
        cmd = step["shell"]
        return {
            "claude": ({"name": "Bash", "input": {"command": cmd, "description": desc}}, "Bash", None),
            "codex": ({"shell": cmd}, "exec_command", None),
            "gemini": ({"name": "run_shell_command", "args": {"command": cmd, "description": desc}},
                       "run_shell_command", None),
            "copilot": ({"name": "bash", "input": {"command": cmd, "description": desc}}, "bash", None),
        }[runtime]
    if kind == "write":
        path, content = p(step["write"]["path"]), step["write"]["content"]
        return {
            "claude": ({"name": "Write", "input": {"file_path": path, "content": content}}, "Write", None),
            "codex": ({"custom": "apply_patch", "input": add_file_patch(path, content)}, "apply_patch",
                      None if content.endswith("\n") or not content else
                      "apply_patch always ends the written file with a newline"),
            "gemini": ({"name": "write_file", "args": {"file_path": path, "content": content}}, "write_file", None),
            "copilot": ({"name": "create", "input": {"path": path, "file_text": content}}, "create", None),
        }[runtime]
    if kind == "edit":
        e = step["edit"]
        path = p(e["path"])
        return {
            "claude": ({"name": "Edit", "input": {"file_path": path, "old_string": e["old"], "new_string": e["new"]}},
                       "Edit", None),
            "codex": ({"patch_edit": {"path": path, "old": e["old"], "new": e["new"]}}, "apply_patch", None),
            "gemini": ({"name": "replace", "args": {"file_path": path, "old_string": e["old"], "new_string": e["new"],
                                                    "instruction": "edit requested by the test"}}, "replace", None),
            "copilot": ({"name": "edit", "input": {"path": path, "old_str": e["old"], "new_str": e["new"]}}, "edit", None),
        }[runtime]
    # read
    path = p(step["read"])
    return {
        "claude": ({"name": "Read", "input": {"file_path": path}}, "Read", None),
        "codex": (None, None, "skipped: Codex has no file-read tool (its model reads files through the shell); "
                              "use {\"shell\": \"cat FILE\"} instead"),
        "gemini": ({"name": "read_file", "args": {"file_path": path}}, "read_file", None),
        "copilot": ({"name": "view", "input": {"path": path}}, "view", None),
    }[runtime]


# ---------------------------------------------------------------------------------------------
# hook settings, one writer per runtime

def resolve_events(runtime, dialect, wanted):
    table = EVENTS[f"copilot-{dialect}" if runtime == "copilot" else runtime]
    chosen, notes = {}, []
    for name in wanted:
        if name in table:
            chosen[name] = table[name]
        elif name in NEUTRAL_EVENTS:
            label = f"copilot ({dialect})" if runtime == "copilot" else runtime
            notes.append(f"event {name!r} skipped: {label} has no such hook event")
        else:
            chosen[name] = name  # a runtime event name given as is, e.g. PostToolBatch
    return chosen, notes


def wrapped(hook_cmd, log, event):
    cmd = hook_cmd.replace("{event}", event)
    return " ".join(shlex.quote(a) for a in (sys.executable, HOOKWRAP, log, event, cmd))


def write_settings(runtime, events, hook_cmd, log, matcher, timeout_s, proj, home):
    rt_events = list(dict.fromkeys(events.values()))
    if runtime in ("claude", "codex", "gemini"):
        hooks = {}
        for ev in rt_events:
            h = {"type": "command", "command": wrapped(hook_cmd, log, ev)}
            if runtime == "gemini":
                h["name"] = f"gate-e2e-{ev}"
                h["timeout"] = int(timeout_s * 1000)  # Gemini counts milliseconds
            else:
                h["timeout"] = timeout_s  # seconds
            entry = {"hooks": [h]}
            if ev in MATCHER_EVENTS[runtime]:
                entry["matcher"] = matcher
            hooks[ev] = [entry]
        if runtime == "claude":
            path = os.path.join(proj, ".claude", "settings.json")
            # Settings a --setup-cmd wrote (a sandbox block) stay; the hooks are the recorder's.
            doc = {}
            if os.path.exists(path):
                with open(path) as f:
                    doc = json.load(f)
            doc["hooks"] = hooks
            write_json(path, doc)
        elif runtime == "codex":
            path = os.path.join(home, ".codex", "hooks.json")
            write_json(path, {"hooks": hooks})
        else:
            path = os.path.join(home, ".gemini", "settings.json")
            write_json(path, {"security": {"auth": {"selectedType": "gemini-api-key"}},
                              "privacy": {"usageStatisticsEnabled": False},
                              "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                              "hooks": hooks})
        return path
    # copilot: no matchers; the event-name spelling picks the payload dialect
    hooks = {ev: [{"type": "command", "bash": wrapped(hook_cmd, log, ev), "timeoutSec": timeout_s}]
             for ev in rt_events}
    path = os.path.join(proj, ".github", "hooks", "gate-e2e.json")
    write_json(path, {"version": 1, "hooks": hooks})
    return path


# ---------------------------------------------------------------------------------------------
# how each CLI is pointed at the mock

def cli_invocation(runtime, exe, port, prompt, home, args):
    base = f"http://127.0.0.1:{port}"
    allow_all = args.permissions == "allow-all"
    extra = list(args.cli_arg or [])
    if runtime == "claude":
        env = {"HOME": home, "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
               "ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "sk-test",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1"}
        argv = [exe, "-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events"]
        if allow_all:
            argv += ["--allowedTools", "Bash,Write,Edit,Read"]
        return argv + extra, env, None
    if runtime == "codex":
        codex_home = os.path.join(home, ".codex")
        os.makedirs(codex_home, exist_ok=True)
        with open(os.path.join(codex_home, "config.toml"), "w") as f:
            # a known model slug, so that Codex offers apply_patch
            f.write('model = "gpt-5.5"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\n'
                    f'base_url = "{base}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n\n'
                    '[analytics]\nenabled = false\n')
        env = {"HOME": home, "CODEX_HOME": codex_home, "MOCK_API_KEY": "dummy"}
        argv = [exe, "exec", "--json", "--skip-git-repo-check"]
        if not args.no_trust_bypass:
            argv.append("--dangerously-bypass-hook-trust")
        if allow_all:
            argv += ["-c", 'approval_policy="never"', "-c", 'sandbox_mode="danger-full-access"']
        return argv + extra + [prompt], env, b""
    if runtime == "gemini":
        env = {"HOME": home, "GEMINI_CLI_HOME": home, "GEMINI_API_KEY": "dummy-key", "GOOGLE_GEMINI_BASE_URL": base}
        argv = [exe, "-p", prompt, "--skip-trust", "-o", "stream-json"]
        if allow_all:
            argv.append("--yolo")
        return argv + extra, env, b""
    env = {"HOME": home, "COPILOT_HOME": os.path.join(home, ".copilot"),
           "XDG_CACHE_HOME": os.path.join(cli_dir(), "copilot-cache"),
           "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_TYPE": "anthropic", "COPILOT_PROVIDER_BASE_URL": base,
           "COPILOT_PROVIDER_API_KEY": "sk-test", "COPILOT_MODEL": "claude-sonnet-4.5", "COPILOT_AUTO_UPDATE": "false"}
    argv = [exe, "-p", prompt, "--trust-folder", "--output-format", "json", "--disable-client-telemetry"]
    if allow_all:
        argv.append("--allow-all-tools")
    return argv + extra, env, b""


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if k not in ENV_DROP and not k.startswith(ENV_DROP_PREFIXES)}
    env.update(extra)
    return env


# ---------------------------------------------------------------------------------------------
# processes: everything started here is stopped here, by the PID recorded at start

def start_mock(runtime, script_path, log_path, workdir):
    mock = os.path.join(MOCK_DIR, RUNTIMES[runtime]["mock"])
    err = open(os.path.join(workdir, "mock.stderr"), "w")
    env = clean_env({"MOCK_LOG": log_path})
    p = subprocess.Popen([sys.executable, "-B", mock, "0", script_path], stdout=subprocess.PIPE, stderr=err,
                         stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    err.close()
    with open(os.path.join(workdir, "mock.pid"), "w") as f:
        f.write(f"{p.pid}\n")
    ready, _, _ = select.select([p.stdout], [], [], 15)
    line = p.stdout.readline().decode() if ready else ""
    m = re.match(r"listening 127\.0\.0\.1:(\d+)", line)
    if not m:
        stop_pid(p)
        raise RuntimeError(f"mock server did not start; see {workdir}/mock.stderr")
    return p, int(m.group(1))


def stop_pid(p):
    if p.poll() is not None:
        return
    try:
        os.kill(p.pid, signal.SIGTERM)
        p.wait(5)
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait(5)
    except ProcessLookupError:
        pass


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def run_cli(argv, env, stdin, cwd, workdir, timeout):
    t0 = time.time()
    with open(os.path.join(workdir, "cli.stdout"), "wb") as so, open(os.path.join(workdir, "cli.stderr"), "wb") as se:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=so, stderr=se,
                             stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                             start_new_session=True)
        with open(os.path.join(workdir, "cli.pid"), "w") as f:
            f.write(f"{p.pid}\n")
        timed_out = False
        try:
            p.communicate(input=stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)  # the CLI's own process group, created above
            p.wait()
    # leftovers in the CLI's process group (shell sessions, helpers): stop them too
    if group_alive(p.pid):
        os.killpg(p.pid, signal.SIGTERM)
        for _ in range(20):
            if not group_alive(p.pid):
                break
            time.sleep(0.1)
        if group_alive(p.pid):
            os.killpg(p.pid, signal.SIGKILL)
    return ("timeout" if timed_out else p.returncode), timed_out, time.time() - t0


# ---------------------------------------------------------------------------------------------
# reading what the model received

def view_request(api, body):
    """-> (tool results [{"id", "text", "is_error"}] in order, texts sent to the model in order)"""
    results, texts = [], []
    if api == "anthropic":
        for m in body.get("messages") or []:
            if m.get("role") == "assistant":
                continue
            c = m.get("content")
            if isinstance(c, str):
                texts.append(c)
                continue
            for b in c or []:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text":
                    texts.append(b.get("text") or "")
                elif b.get("type") == "tool_result":
                    t = content_text(b.get("content"))
                    results.append({"id": b.get("tool_use_id"), "text": t, "is_error": bool(b.get("is_error"))})
                    texts.append(t)
    elif api == "responses":
        for it in body.get("input") or []:
            if not isinstance(it, dict):
                continue
            t = it.get("type")
            if t in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
                o = it.get("output")
                txt = o if isinstance(o, str) else content_text(o)
                results.append({"id": it.get("call_id"), "text": txt, "is_error": False})
                texts.append(txt)
            elif (t == "message" or (t is None and "role" in it)) and it.get("role") != "assistant":
                c = it.get("content")
                if isinstance(c, str):
                    texts.append(c)
                else:
                    texts += [x.get("text") or "" for x in c or [] if isinstance(x, dict) and "text" in x]
    else:
        for c in body.get("contents") or []:
            if c.get("role") == "model":
                continue
            for part in c.get("parts") or []:
                if not isinstance(part, dict):
                    continue
                if "text" in part:
                    texts.append(part["text"])
                elif "functionResponse" in part:
                    fr = part["functionResponse"]
                    r = fr.get("response")
                    if isinstance(r, dict) and isinstance(r.get("output"), str):
                        txt, err = r["output"], False
                    elif isinstance(r, dict) and isinstance(r.get("error"), str):
                        txt, err = r["error"], True
                    else:
                        txt, err = json.dumps(r), isinstance(r, dict) and "error" in r
                    results.append({"id": fr.get("id"), "text": txt, "is_error": err})
                    texts.append(txt)
    return results, texts


def ran_from_result(runtime, tool, result):
    """Did the tool execute, judged from the result text the model received?"""
    text, is_error = result["text"] or "", result["is_error"]
    if runtime == "claude":
        if tool == "Bash":
            return not is_error or bool(re.match(r"Exit code -?\d+", text))
        return not is_error
    if runtime == "codex":
        return bool(re.search(r"Process exited with code -?\d+|Process running with session ID|^Exit code: -?\d+",
                              text, re.M))
    if runtime == "gemini":
        return not is_error
    # copilot
    if tool == "bash":
        return bool(re.search(r"completed with exit code -?\d+|<shellId: \d+", text))
    return not re.match(r"(Denied by|Permission denied|The user (denied|rejected))", text)


def fs_ran(step, proj):
    def p(rel):
        return rel if os.path.isabs(rel) else os.path.join(proj, rel)
    if "creates" in step:
        return os.path.exists(p(step["creates"]))
    if "removes" in step:
        return not os.path.exists(p(step["removes"]))
    return None


# ---------------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Run one real agent CLI offline against a scripted loopback model, with a hook wired in, "
                    "and print one JSON object describing what happened.",
        epilog="Environment: E2E_CLI_DIR (installed CLIs, default $XDG_CACHE_HOME/gate-e2e/clis or "
               "~/.cache/gate-e2e/clis), E2E_WORK (parent of "
               "the per-run work directory), E2E_<RUNTIME>_BIN (use this CLI binary instead).")
    ap.add_argument("--runtime", required=True, choices=sorted(RUNTIMES))
    ap.add_argument("--hook-cmd", required=True,
                    help="shell command the CLI runs for each hook event; {event} is replaced by the runtime's "
                         "event name (Copilot camelCase payloads carry no event name)")
    ap.add_argument("--events", default="pre,post",
                    help="comma list of " + ", ".join(NEUTRAL_EVENTS) +
                         ", or the runtime's own event names (default: pre,post)")
    ap.add_argument("--steps", help="JSON steps file (see the module docstring); default: no tool calls")
    ap.add_argument("--prompt", default="run it", help="the user prompt (default: 'run it')")
    ap.add_argument("--timeout", type=float, default=120, help="seconds before the CLI is killed (default 120)")
    ap.add_argument("--hook-timeout", type=int, default=30,
                    help="hook timeout in seconds, written in the runtime's unit (default 30)")
    ap.add_argument("--matcher", default="*", help="tool matcher for tool events where the runtime has one")
    ap.add_argument("--copilot-dialect", choices=("camel", "pascal"), default="camel",
                    help="Copilot event spelling: camel (preToolUse, native payloads) or pascal (PreToolUse, "
                         "Claude-style payloads)")
    ap.add_argument("--permissions", choices=("allow-all", "default"), default="allow-all",
                    help="allow-all: the CLI may run every tool without asking (Claude --allowedTools, Codex "
                         "approval never + full access, Gemini --yolo, Copilot --allow-all-tools); default: none "
                         "of that, so the CLI's own headless permission rules apply")
    ap.add_argument("--no-trust-bypass", action="store_true",
                    help="Codex: leave out --dangerously-bypass-hook-trust (untrusted hooks are then skipped)")
    ap.add_argument("--cli-arg", action="append", metavar="ARG", help="extra argument for the CLI (repeatable)")
    ap.add_argument("--workdir", help="use this (new or empty) directory instead of a fresh temporary one")
    ap.add_argument("--setup-cmd", help="shell command run in proj/ with the CLI's environment before the hook "
                    "settings are written (Claude: the settings file it leaves is kept, its hooks replaced)")
    return ap.parse_args(argv)


def make_workdir(args):
    if args.workdir:
        wd = os.path.abspath(args.workdir)
        if os.path.exists(wd) and os.listdir(wd):
            raise UsageError(f"--workdir {wd} exists and is not empty")
        os.makedirs(wd, exist_ok=True)
        return wd
    parent = os.environ.get("E2E_WORK") or None
    if parent:
        os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix=f"{args.runtime}-", dir=parent)


def drive(args):
    runtime = args.runtime
    exe, version = find_cli(runtime)
    files, steps = load_steps(args.steps)
    wanted = [e.strip() for e in args.events.split(",") if e.strip()]
    events, notes = resolve_events(runtime, args.copilot_dialect, wanted)

    workdir = make_workdir(args)
    proj, home = os.path.join(workdir, "proj"), os.path.join(workdir, "home")
    os.makedirs(proj)
    os.makedirs(home)
    for rel, content in files.items():
        target = os.path.join(proj, rel)
        if rel.endswith("/") or content is None:
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write(content)
    if runtime == "copilot" and shutil.which("git"):
        # a repository root, as in real use; Copilot also finds .github/hooks without one
        subprocess.run(["git", "init", "-q", proj], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    plan = []  # per neutral step: {"mock_index", "tool", "note"}
    script = []
    for s in steps:
        mock_step, tool, note = map_step(runtime, s, proj)
        if mock_step is None:
            plan.append({"mock_index": None, "tool": tool, "note": note})
            continue
        plan.append({"mock_index": len(script), "tool": tool, "note": note})
        script.append(mock_step)
    script_path = os.path.join(workdir, "mock-script.json")
    write_json(script_path, script)

    hooks_log = os.path.join(workdir, "hooks.jsonl")
    requests_log = os.path.join(workdir, "requests.jsonl")

    mock, port = start_mock(runtime, script_path, requests_log, workdir)
    try:
        argv, env_extra, stdin = cli_invocation(runtime, exe, port, args.prompt, home, args)
        if args.setup_cmd:
            setup = subprocess.run(["/bin/sh", "-c", args.setup_cmd], cwd=proj, env=clean_env(env_extra),
                                   stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
            with open(os.path.join(workdir, "setup.out"), "wb") as f:
                f.write(setup.stdout + setup.stderr)
            if setup.returncode != 0:
                raise RuntimeError(f"--setup-cmd exited {setup.returncode}; see {workdir}/setup.out")
        settings = write_settings(runtime, events, args.hook_cmd, hooks_log, args.matcher, args.hook_timeout,
                                  proj, home)
        with open(os.path.join(workdir, "cmd.txt"), "w") as f:
            f.write(f"# cwd: {proj}\n")
            f.write("".join(f"{k}={shlex.quote(v)} \\\n" for k, v in env_extra.items()))
            f.write("  " + " ".join(shlex.quote(a) for a in argv) + "\n")
        code, timed_out, secs = run_cli(argv, clean_env(env_extra), stdin, proj, workdir, args.timeout)
    finally:
        stop_pid(mock)

    if timed_out:
        notes.append(f"the CLI was killed after {args.timeout:g}s")
    out_steps, model_requests, hook_payloads = analyse(runtime, steps, plan, workdir, notes)
    return {
        "runtime": runtime,
        "version": version,
        "dialect": args.copilot_dialect if runtime == "copilot" else None,
        "exit": code,
        "timed_out": timed_out,
        "secs": round(secs, 1),
        "workdir": workdir,
        "settings_file": settings,
        "events": events,
        "steps": out_steps,
        "model_requests": model_requests,
        "hook_payloads": hook_payloads,
        "notes": notes,
    }


def analyse(runtime, steps, plan, workdir, notes):
    """Read the mock's request log and the hook log back into the result's steps, model_requests
    and hook_payloads. A hook call belongs to step k when it happened after the model asked for
    step k and before the next model request that carries step k's result."""
    api = RUNTIMES[runtime]["api"]
    proj = os.path.join(workdir, "proj")
    reqs = [r for r in read_jsonl(os.path.join(workdir, "requests.jsonl")) if r.get("main")]
    views = [view_request(api, r.get("body") or {}) for r in reqs]
    calls, results = [], {}
    for rec in read_jsonl(os.path.join(workdir, "hooks.jsonl")):
        if rec.get("kind") == "call":
            calls.append(rec)
        elif rec.get("kind") == "result":
            results[rec.get("id")] = rec
    calls.sort(key=lambda c: c["t"])
    to_neutral = {pl["mock_index"]: n for n, pl in enumerate(plan) if pl["mock_index"] is not None}

    issued, refused = {}, {}  # mock step index -> (request index, time, tool call id) / reason
    for i, r in enumerate(reqs):
        rep = r.get("reply") or {}
        if "step" in rep and rep["step"] not in issued:
            issued[rep["step"]] = (i, r["t"], rep.get("id"))
        if "skipped_step" in rep:
            refused.setdefault(rep["skipped_step"], rep.get("reason"))

    call_step = {}
    for k, (i, t_start, _) in issued.items():
        t_end = next((reqs[j]["t"] for j in range(i + 1, len(reqs)) if len(views[j][0]) > k), float("inf"))
        for c in calls:
            if t_start < c["t"] < t_end:
                call_step[c["id"]] = k

    out_steps = []
    for n, (s, pl) in enumerate(zip(steps, plan)):
        entry = {"index": n, "step": s, "tool": pl["tool"]}
        k = pl["mock_index"]
        if k is None:
            entry.update(tool_ran=False, tool_ran_evidence="skipped", tool_result_text=None, hook_calls=0,
                         hook_events={}, skipped=pl["note"])
            out_steps.append(entry)
            continue
        if pl["note"]:
            entry["note"] = pl["note"]
        mine = [c for c in calls if call_step.get(c["id"]) == k]
        entry["hook_calls"] = len(mine)
        entry["hook_events"] = dict(Counter(c["event"] for c in mine))
        result = None
        if k in issued:
            tool_id = issued[k][2]
            for res_list, _ in views:
                if len(res_list) > k:
                    result = next((x for x in res_list if tool_id and x["id"] == tool_id), res_list[k])
                    break
        entry["tool_result_text"] = result["text"] if result else None
        by_fs = fs_ran(s, proj)
        if k not in issued:
            why = f"not requested: {refused[k]}" if k in refused else "not requested: the run ended before this step"
            entry.update(tool_ran=False, tool_ran_evidence=why)
            if k in refused:
                entry["skipped"] = refused[k]
        elif by_fs is not None:
            entry.update(tool_ran=by_fs, tool_ran_evidence="file system")
        elif any(c["event"] in POST_TOOL_EVENTS for c in mine):
            entry.update(tool_ran=True, tool_ran_evidence="post-tool hook fired")
        elif result is not None:
            entry.update(tool_ran=ran_from_result(runtime, pl["tool"], result), tool_ran_evidence="tool result text")
        else:
            entry.update(tool_ran=False, tool_ran_evidence="no tool result reached the model")
        out_steps.append(entry)

    model_requests = []
    prev = Counter()
    for res_list, texts in views:
        left = Counter(texts) - prev
        new = []
        for t in texts:
            if left[t] > 0:
                new.append(t)
                left[t] -= 1
        after = to_neutral.get(len(res_list) - 1) if res_list else None
        model_requests.append({"after_step": after, "tool_results": len(res_list), "texts": new})
        prev = Counter(texts)

    hook_payloads = []
    for c in calls:
        r = results.get(c["id"], {})
        k = call_step.get(c["id"])
        rec = {"event": c["event"], "step": to_neutral.get(k) if k is not None else None,
               "payload": c.get("payload"), "exit": r.get("exit"), "stdout": r.get("stdout"),
               "stderr": r.get("stderr"), "ms": r.get("ms"), "env": c.get("env"), "cwd": c.get("cwd")}
        if not r:
            rec["note"] = "no result recorded: the hook was killed (timeout) or outlived the CLI"
        hook_payloads.append(rec)
    return out_steps, model_requests, hook_payloads


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    try:
        result = drive(args)
    except UsageError as e:
        print(f"drive.py: {e}", file=sys.stderr)
        return 2
    except NotInstalled as e:
        print(f"drive.py: {e}", file=sys.stderr)
        return 3
    with open(os.path.join(result["workdir"], "result.json"), "w") as f:
        json.dump(result, f, indent=2)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
