//! The wrappers the parser sees through — programs that run another program or a script
//! (`sudo`, `env`, `npx`, `uv run`, `flock`, `tmux new -d '…'`, `parallel … ::: …`) — each
//! with its real option grammar, so that options taking a value are skipped with it.

use super::{basename, FinalWord};

/// What one word of a simple command is, as a wrapper ([`peel`]).
pub(super) enum Peel {
    /// Not a wrapper (or one that runs nothing here): the word is the program.
    Program,
    /// A wrapper called `name`: the program, or the next wrapper, is the word at `next`,
    /// less its first `strip` bytes (`hatch run ENV:cmd`).
    Wrapper {
        next: usize,
        name: &'static str,
        strip: usize,
    },
    /// A wrapper called `name` that runs shell code: parse it one level deeper.
    Script { script: String, name: String },
}

fn wrapper(next: usize, name: &'static str) -> Peel {
    Peel::Wrapper {
        next,
        name,
        strip: 0,
    }
}

fn script(script: String, name: &str) -> Peel {
    Peel::Script {
        script,
        name: name.to_string(),
    }
}

/// Options of a wrapper: which short letters and long names take a separate value, and
/// which of them give shell code the wrapper runs (`npx -c 'cmd'`, `flock -c`, `script -c`).
pub(super) struct Opts {
    pub(super) short_arg: &'static str,
    pub(super) long_arg: &'static [&'static str],
    script_short: &'static str,
    script_long: &'static [&'static str],
}

const fn opts(short_arg: &'static str, long_arg: &'static [&'static str]) -> Opts {
    Opts {
        short_arg,
        long_arg,
        script_short: "",
        script_long: &[],
    }
}

impl Opts {
    const fn script(self, short: &'static str, long: &'static [&'static str]) -> Opts {
        Opts {
            script_short: short,
            script_long: long,
            ..self
        }
    }
}

/// Skip the options of a wrapper starting at `k`; returns the index of the first operand.
pub(super) fn skip_opts(words: &[FinalWord<'_>], k: usize, opts: &Opts) -> usize {
    scan_opts(words, k, opts).0
}

/// [`skip_opts`], and the value of the last script option met.
fn scan_opts(words: &[FinalWord<'_>], mut k: usize, opts: &Opts) -> (usize, Option<String>) {
    let mut code = None;
    while let Some(w) = words.get(k) {
        let t: &str = &w.text;
        if t == "--" {
            return (k + 1, code);
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let is_script = opts.script_long.contains(&name);
            let takes = is_script || opts.long_arg.contains(&name);
            if is_script {
                code = attached
                    .map(str::to_string)
                    .or_else(|| words.get(k + 1).map(|v| v.text.to_string()));
            }
            k += if takes && attached.is_none() { 2 } else { 1 };
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            let flags = &t[1..];
            let mut step = 1;
            for (pos, ch) in flags.char_indices() {
                let is_script = opts.script_short.contains(ch);
                if is_script || opts.short_arg.contains(ch) {
                    let rest = &flags[pos + ch.len_utf8()..];
                    let value = if rest.is_empty() {
                        step = 2;
                        words.get(k + 1).map(|v| v.text.to_string())
                    } else {
                        Some(rest.to_string())
                    };
                    if is_script {
                        code = value;
                    }
                    break;
                }
            }
            k += step;
            continue;
        }
        break;
    }
    (k, code)
}

/// Whether the options in `words[from..to]` include the short flag `short` (alone or in a
/// bundle) or the long one `long`.
fn has_flag(words: &[FinalWord<'_>], from: usize, to: usize, short: char, long: &str) -> bool {
    words
        .get(from..to.min(words.len()))
        .unwrap_or_default()
        .iter()
        .any(|w| {
            let t: &str = &w.text;
            match t.strip_prefix("--") {
                Some(l) => l == long || l.split_once('=').is_some_and(|(n, _)| n == long),
                None => t.starts_with('-') && t[1..].contains(short),
            }
        })
}

pub(super) fn texts<'t>(words: &'t [FinalWord<'_>]) -> Vec<&'t str> {
    words.iter().map(|w| &*w.text).collect()
}

/// The words from `k` on, joined by spaces (a command a wrapper hands to a shell).
fn joined(words: &[FinalWord<'_>], k: usize) -> String {
    texts(words.get(k..).unwrap_or_default()).join(" ")
}

pub(super) const SUDO: Opts = opts(
    "ugpCDrtUTRh",
    &[
        "user",
        "group",
        "prompt",
        "close-from",
        "chdir",
        "role",
        "type",
        "other-user",
        "command-timeout",
        "chroot",
        "host",
    ],
);
/// `sudo` and `env` with the option that moves the command to another directory in the
/// slot [`scan_opts`] returns the value of.
const SUDO_CHDIR: Opts = SUDO.script("D", &["chdir"]);
const ENV_CHDIR: Opts = ENV.script("C", &["chdir"]);
const DOAS: Opts = opts("uC", &[]);
const ENV: Opts = opts(
    "uCPS",
    &[
        "unset",
        "chdir",
        "split-string",
        "block-signal",
        "default-signal",
        "ignore-signal",
    ],
);
const EXEC: Opts = opts("a", &[]);
const TIME: Opts = opts("fo", &["format", "output"]);
const NICE: Opts = opts("n", &["adjustment"]);
const IONICE: Opts = opts("cnpPu", &["class", "classdata", "pid", "pgid", "uid"]);
pub(super) const STDBUF: Opts = opts("ioe", &["input", "output", "error"]);
const TIMEOUT: Opts = opts("sk", &["signal", "kill-after"]);
const XARGS: Opts = opts(
    "adEILnPs",
    &[
        "arg-file",
        "delimiter",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
        "max-lines",
    ],
);
const WATCH: Opts = opts("nq", &["interval", "equexit"]);
pub(super) const NONE: Opts = opts("", &[]);
/// npm's options with a value (`npx`, `npm exec`), `-c`/`--call` giving a script.
const NPM: Opts = opts(
    "pw",
    &[
        "package",
        "workspace",
        "registry",
        "cache",
        "userconfig",
        "globalconfig",
        "prefix",
        "loglevel",
        "node-options",
        "script-shell",
        "shell",
        "include",
        "omit",
    ],
)
.script("c", &["call"]);
const PNPM: Opts = opts(
    "CF",
    &[
        "dir",
        "filter",
        "package",
        "workspace-dir",
        "reporter",
        "loglevel",
        "resume-from",
        "allow-build",
        "store-dir",
        "virtual-store-dir",
        "config",
    ],
);
const YARN: Opts = opts("p", &["package", "cwd"]);
const BUN: Opts = opts("p", &["package", "cwd", "config", "env-file", "preload"]);
const UV: Opts = opts(
    "pwiCPfb",
    &[
        "python",
        "with",
        "with-editable",
        "with-requirements",
        "from",
        "index",
        "index-url",
        "default-index",
        "extra-index-url",
        "find-links",
        "config-setting",
        "upgrade-package",
        "reinstall-package",
        "refresh-package",
        "no-build-package",
        "no-binary-package",
        "only-binary-package",
        "index-strategy",
        "keyring-provider",
        "resolution",
        "prerelease",
        "exclude-newer",
        "link-mode",
        "python-preference",
        "directory",
        "project",
        "cache-dir",
        "config-file",
        "color",
        "env-file",
        "extra",
        "group",
        "no-group",
        "only-group",
        "package",
        "constraints",
        "overrides",
        "build-constraints",
        "allow-insecure-host",
        "torch-backend",
        "python-platform",
        "no-extra",
    ],
);
const POETRY: Opts = opts("CP", &["directory", "project"]);
const PIPX: Opts = opts(
    "",
    &[
        "spec",
        "python",
        "pip-args",
        "index-url",
        "backend",
        "fetch-missing-python",
    ],
);
const PDM: Opts = opts("p", &["project", "venv"]);
const HATCH: Opts = opts("ep", &["env", "project", "data-dir", "cache-dir", "config"]);
const CONDA: Opts = opts("np", &["name", "prefix", "cwd"]);
const OP: Opts = opts(
    "",
    &["env-file", "account", "config", "encoding", "session"],
);
const DOTENV: Opts = opts("efvpq", &["file", "quote", "export"]);
const CHROOT: Opts = opts("", &["userspec", "groups"]);
const FLOCK: Opts = opts("wE", &["timeout", "wait", "conflict-exit-code"]);
const PKEXEC: Opts = opts("", &["user"]);
const RUNUSER: Opts = opts(
    "ugGsw",
    &[
        "user",
        "group",
        "supp-group",
        "shell",
        "whitelist-environment",
    ],
)
.script("c", &["command", "session-command"]);
const STRACE: Opts = opts(
    "oepuEsaIOSPXbU",
    &[
        "output",
        "trace",
        "attach",
        "user",
        "env",
        "string-limit",
        "signal",
        "status",
        "trace-path",
        "columns",
        "summary-sort-by",
        "summary-columns",
    ],
);
const LTRACE: Opts = opts(
    "oepuaADFlnswx",
    &["output", "library", "config", "indent", "align"],
);
const CHRT: Opts = opts("TPD", &["sched-runtime", "sched-period", "sched-deadline"]);
const CGEXEC: Opts = opts("g", &[]);
const SYSTEMD_RUN: Opts = opts(
    "upEHM",
    &[
        "unit",
        "property",
        "description",
        "slice",
        "setenv",
        "on-active",
        "on-boot",
        "on-startup",
        "on-unit-active",
        "on-unit-inactive",
        "on-calendar",
        "timer-property",
        "path-property",
        "socket-property",
        "host",
        "machine",
        "uid",
        "gid",
        "nice",
        "working-directory",
        "service-type",
    ],
);
const UNSHARE: Opts = opts(
    "SGRw",
    &[
        "propagation",
        "setgroups",
        "map-user",
        "map-group",
        "map-users",
        "map-groups",
        "root",
        "wd",
        "setuid",
        "setgid",
        "monotonic",
        "boottime",
    ],
);
const NSENTER: Opts = opts("tSG", &["target", "setuid", "setgid"]);
const SCRIPT: Opts = opts(
    "EIOBTm",
    &[
        "echo",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
        "logging-format",
        "output-limit",
    ],
)
.script("c", &["command"]);
const PARALLEL: Opts = opts(
    "aCdEIjLnNPSs",
    &[
        "arg-file",
        "colsep",
        "delimiter",
        "jobs",
        "max-args",
        "max-chars",
        "max-lines",
        "sshlogin",
        "sshloginfile",
        "tmpdir",
        "results",
        "res",
        "joblog",
        "delay",
        "timeout",
        "retries",
        "halt",
        "workdir",
        "wd",
        "env",
        "basefile",
        "transferfile",
        "return",
        "tagstring",
        "load",
        "memfree",
        "sshdelay",
        "arg-sep",
        "arg-file-sep",
        "termseq",
        "limit",
        "rpl",
        "tmux",
    ],
);
const CAFFEINATE: Opts = opts("tw", &[]);
const BUNDLE: Opts = opts("", &["gemfile"]);
const XVFB_RUN: Opts = opts(
    "efnpsw",
    &[
        "error-file",
        "auth-file",
        "server-num",
        "xauth-protocol",
        "server-args",
        "wait",
    ],
);
const DBUS_RUN_SESSION: Opts = opts("", &["config-file", "dbus-daemon"]);

pub(super) const SHELLS: [&str; 11] = [
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh",
];

/// Every name [`peel`] knows (sorted, bytewise): a program that cannot be one of them is
/// rejected before the match ([`maybe_wrapper`]).
pub(super) const WRAPPER_NAMES: [&str; 76] = [
    "ash",
    "bash",
    "builtin",
    "bun",
    "bundle",
    "bundler",
    "bunx",
    "busybox",
    "bwrap",
    "caffeinate",
    "cgexec",
    "chroot",
    "chrt",
    "command",
    "conda",
    "coproc",
    "csh",
    "dash",
    "dbus-run-session",
    "direnv",
    "doas",
    "dotenv",
    "env",
    "eval",
    "exec",
    "firejail",
    "fish",
    "flock",
    "hatch",
    "ionice",
    "ksh",
    "ltrace",
    "mamba",
    "micromamba",
    "mksh",
    "nice",
    "nohup",
    "npm",
    "npx",
    "nsenter",
    "op",
    "parallel",
    "pdm",
    "pipx",
    "pkexec",
    "pnpm",
    "pnpx",
    "poetry",
    "rlwrap",
    "runuser",
    "screen",
    "script",
    "setsid",
    "sg",
    "sh",
    "stdbuf",
    "strace",
    "su",
    "sudo",
    "systemd-run",
    "taskset",
    "tcsh",
    "time",
    "timeout",
    "tmux",
    "toybox",
    "trap",
    "unshare",
    "uv",
    "uvx",
    "watch",
    "xargs",
    "xvfb-run",
    "yarn",
    "yash",
    "zsh",
];

/// For each first byte, the lengths (bit `len`, up to 31) of the [`WRAPPER_NAMES`] that
/// start with it: built at compile time.
const FIRST_BYTE_LENGTHS: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < WRAPPER_NAMES.len() {
        let name = WRAPPER_NAMES[i].as_bytes();
        table[name[0] as usize] |= 1 << name.len();
        i += 1;
    }
    table
};

/// Whether `name` may be a wrapper: one table look-up rejects nearly every other program
/// (`git`, `cargo`, `ls`) before the match compares names.
#[inline]
pub(super) fn maybe_wrapper(name: &str) -> bool {
    let b = name.as_bytes();
    match b.first() {
        Some(&first) if b.len() < 32 => FIRST_BYTE_LENGTHS[first as usize] & (1 << b.len()) != 0,
        _ => false,
    }
}

/// The word at `k` (whose base name is `name`) as a wrapper.
pub(super) fn peel(words: &[FinalWord<'_>], k: usize, name: &str) -> Peel {
    if !maybe_wrapper(name) {
        return Peel::Program;
    }
    let at = |i: usize| words.get(i).map_or("", |w| &*w.text);
    let skip = |o: &Opts| skip_opts(words, k + 1, o);
    // Options, then a script option's code or the program.
    let run = |o: &Opts, name: &'static str, script_name: &str| {
        let (next, code) = scan_opts(words, k + 1, o);
        match code {
            Some(code) => script(code, script_name),
            None => wrapper(next, name),
        }
    };
    match name {
        "sudo" => {
            let next = skip(&SUDO);
            if has_flag(words, k + 1, next, 'e', "edit")
                || has_flag(words, k + 1, next, 'l', "list")
            {
                // `sudo -e FILE` edits files; `sudo -l CMD` only lists.
                return Peel::Program;
            }
            if let Some(moved) = in_dir(words, k + 1, &SUDO_CHDIR, "sudo ", "sudo -D") {
                return moved;
            }
            wrapper(next, "sudo")
        }
        "doas" => wrapper(skip(&DOAS), "doas"),
        "exec" => wrapper(skip(&EXEC), "exec"),
        "time" => wrapper(skip(&TIME), "time"),
        "nice" => wrapper(skip(&NICE), "nice"),
        "ionice" => wrapper(skip(&IONICE), "ionice"),
        "stdbuf" => wrapper(skip(&STDBUF), "stdbuf"),
        "timeout" => wrapper(skip(&TIMEOUT) + 1, "timeout"),
        "xargs" => wrapper(skip(&XARGS), "xargs"),
        "nohup" => wrapper(skip(&NONE), "nohup"),
        "rlwrap" => wrapper(skip(&NONE), "rlwrap"),
        "builtin" => wrapper(skip(&NONE), "builtin"),
        "setsid" => wrapper(skip(&NONE), "setsid"),
        "busybox" => wrapper(skip(&NONE), "busybox"),
        "toybox" => wrapper(skip(&NONE), "toybox"),
        "coproc" => wrapper(skip(&NONE), "coproc"),
        "caffeinate" => wrapper(skip(&CAFFEINATE), "caffeinate"),
        "pkexec" => wrapper(skip(&PKEXEC), "pkexec"),
        "strace" => wrapper(skip(&STRACE), "strace"),
        "ltrace" => wrapper(skip(&LTRACE), "ltrace"),
        "cgexec" => wrapper(skip(&CGEXEC), "cgexec"),
        // firejail's options take their values after `=`.
        "firejail" => wrapper(skip(&NONE), "firejail"),
        "systemd-run" => wrapper(skip(&SYSTEMD_RUN), "systemd-run"),
        "unshare" => wrapper(skip(&UNSHARE), "unshare"),
        "nsenter" => wrapper(skip(&NSENTER), "nsenter"),
        "xvfb-run" => wrapper(skip(&XVFB_RUN), "xvfb-run"),
        "dbus-run-session" => wrapper(skip(&DBUS_RUN_SESSION), "dbus-run-session"),
        "env" => {
            if let Some(code) = env_split_string(words, k + 1) {
                return script(code, "env -S");
            }
            if let Some(moved) = in_dir(words, k + 1, &ENV_CHDIR, "", "env -C") {
                return moved;
            }
            wrapper(skip(&ENV), "env")
        }
        "command" => {
            let rest = words.get(k + 1..).unwrap_or_default();
            if rest
                .iter()
                .take_while(|a| a.text.starts_with('-') && a.text != "--")
                .any(|a| a.text.contains('v') || a.text.contains('V'))
            {
                return Peel::Program;
            }
            wrapper(skip(&NONE), "command")
        }
        "eval" => script(joined(words, k + 1), "eval"),
        // `trap CODE SIG…`: the shell runs CODE when the signal comes (`EXIT`, `ERR`: in
        // this very line), as `eval` would.
        "trap" => match trap_action(words.get(k + 1..).unwrap_or_default()) {
            Some(code) => script(code, "trap"),
            None => Peel::Program,
        },
        "watch" => script(joined(words, skip(&WATCH)), "watch"),
        "su" => match su_command(words.get(k + 1..).unwrap_or_default()) {
            Some(code) => script(code, "su -c"),
            None => Peel::Program,
        },
        shell if SHELLS.contains(&shell) => match shell_script(words, k + 1) {
            Some(code) => script(code, &format!("{shell} -c")),
            None => Peel::Program,
        },
        "npx" => run(&NPM, "npx", "npx -c"),
        "npm" => {
            let sub = skip(&NPM);
            if !matches!(at(sub), "exec" | "x") {
                return Peel::Program;
            }
            let (next, code) = scan_opts(words, sub + 1, &NPM);
            match code {
                Some(code) => script(code, "npm exec -c"),
                None => wrapper(next, "npm exec"),
            }
        }
        "pnpx" => pnpm_run(words, k + 1, "pnpm dlx"),
        "pnpm" => {
            let sub = skip(&PNPM);
            match at(sub) {
                "dlx" => pnpm_run(words, sub + 1, "pnpm dlx"),
                "exec" => pnpm_run(words, sub + 1, "pnpm exec"),
                _ => Peel::Program,
            }
        }
        "yarn" => {
            let sub = skip(&YARN);
            match at(sub) {
                "dlx" => wrapper(skip_opts(words, sub + 1, &YARN), "yarn dlx"),
                "exec" => wrapper(skip_opts(words, sub + 1, &YARN), "yarn exec"),
                _ => Peel::Program,
            }
        }
        "bunx" => wrapper(skip(&BUN), "bunx"),
        "bun" => {
            let sub = skip(&BUN);
            match at(sub) {
                "x" => wrapper(skip_opts(words, sub + 1, &BUN), "bun x"),
                _ => Peel::Program,
            }
        }
        "uvx" => wrapper(skip(&UV), "uvx"),
        "uv" => {
            let sub = skip(&UV);
            match (at(sub), at(sub + 1)) {
                ("run", _) => wrapper(skip_opts(words, sub + 1, &UV), "uv run"),
                ("tool", "run") => wrapper(skip_opts(words, sub + 2, &UV), "uvx"),
                _ => Peel::Program,
            }
        }
        "poetry" => subcommand(words, k, &POETRY, "run", "poetry run"),
        "pipx" => subcommand(words, k, &PIPX, "run", "pipx run"),
        "pdm" => subcommand(words, k, &PDM, "run", "pdm run"),
        "conda" | "mamba" | "micromamba" => subcommand(words, k, &CONDA, "run", "conda run"),
        "op" => subcommand(words, k, &OP, "run", "op run"),
        // Bundler's `exec`, and its aliases `e`, `ex`, `exe`.
        "bundle" | "bundler" => {
            let sub = skip(&BUNDLE);
            match at(sub) {
                "exec" | "e" | "ex" | "exe" => {
                    wrapper(skip_opts(words, sub + 1, &BUNDLE), "bundle exec")
                }
                _ => Peel::Program,
            }
        }
        "hatch" => {
            let sub = skip(&HATCH);
            if at(sub) != "run" {
                return Peel::Program;
            }
            let next = skip_opts(words, sub + 1, &HATCH);
            // `hatch run ENV:cmd`: the environment's name is not part of the command.
            let strip = at(next)
                .split_once(':')
                .filter(|(env, _)| !env.is_empty() && !env.contains('/'))
                .map_or(0, |(env, _)| env.len() + 1);
            Peel::Wrapper {
                next,
                name: "hatch run",
                strip,
            }
        }
        "dotenv" => {
            let next = skip(&DOTENV);
            // python-dotenv: `dotenv [-f FILE] run CMD`; its other subcommands run nothing.
            if matches!(at(next), "list" | "get" | "set" | "unset") {
                return Peel::Program;
            }
            let next = if at(next) == "run" { next + 1 } else { next };
            wrapper(skip_opts(words, next, &NONE), "dotenv")
        }
        "direnv" => {
            let sub = skip(&NONE);
            if at(sub) != "exec" {
                return Peel::Program;
            }
            wrapper(sub + 2, "direnv exec")
        }
        "chroot" => wrapper(skip(&CHROOT) + 1, "chroot"),
        "flock" => {
            let file = skip(&FLOCK);
            match at(file + 1) {
                "-c" | "--command" => match words.get(file + 2) {
                    Some(code) => script(code.text.to_string(), "flock -c"),
                    None => Peel::Program,
                },
                _ if words.len() <= file + 1 => Peel::Program,
                _ => wrapper(file + 1, "flock"),
            }
        }
        "runuser" => {
            let (next, code) = scan_opts(words, k + 1, &RUNUSER);
            if let Some(code) = code {
                return script(code, "runuser -c");
            }
            if has_flag(words, k + 1, next, 'u', "user") {
                return wrapper(next, "runuser");
            }
            // `runuser [-] USER -c CMD`, the form of `su`.
            match su_command(words.get(k + 1..).unwrap_or_default()) {
                Some(code) => script(code, "runuser -c"),
                None => Peel::Program,
            }
        }
        "sg" => {
            let mut g = k + 1;
            if at(g) == "-" {
                g += 1;
            }
            match at(g + 1) {
                "" => Peel::Program,
                "-c" => script(at(g + 2).to_string(), "sg -c"),
                _ => script(joined(words, g + 1), "sg -c"),
            }
        }
        "chrt" => {
            let next = skip(&CHRT);
            if has_flag(words, k + 1, next, 'p', "pid") {
                return Peel::Program;
            }
            wrapper(next + 1, "chrt")
        }
        "taskset" => {
            let next = skip(&NONE);
            if has_flag(words, k + 1, next, 'p', "pid") {
                return Peel::Program;
            }
            wrapper(next + 1, "taskset")
        }
        "bwrap" => wrapper(bwrap_skip(words, k + 1), "bwrap"),
        "script" => {
            let (_, code) = scan_opts(words, k + 1, &SCRIPT);
            // Options may follow the log file's name.
            let code = code.or_else(|| {
                let rest = words.get(k + 1..).unwrap_or_default();
                rest.iter().enumerate().find_map(|(i, w)| {
                    let t: &str = &w.text;
                    if t == "--command"
                        || (t.starts_with('-') && !t.starts_with("--") && t.ends_with('c'))
                    {
                        rest.get(i + 1).map(|v| v.text.to_string())
                    } else {
                        t.strip_prefix("--command=").map(str::to_string)
                    }
                })
            });
            match code {
                Some(code) => script(code, "script -c"),
                None => Peel::Program,
            }
        }
        "tmux" => tmux(words, k + 1),
        "screen" => screen(words, k + 1),
        "parallel" => parallel(words, k + 1),
        _ => Peel::Program,
    }
}

/// `pnpm dlx|exec [opts] cmd …`; with `-c`/`--shell-mode`, the words are shell code.
fn pnpm_run(words: &[FinalWord<'_>], from: usize, name: &'static str) -> Peel {
    let next = skip_opts(words, from, &PNPM);
    if has_flag(words, from, next, 'c', "shell-mode") {
        return script(joined(words, next), &format!("{name} -c"));
    }
    wrapper(next, name)
}

/// `TOOL [opts] SUB [opts] cmd …` (`poetry run`, `conda run -n env`): a wrapper only with
/// the subcommand `sub`.
fn subcommand(
    words: &[FinalWord<'_>],
    k: usize,
    opts: &Opts,
    sub: &str,
    name: &'static str,
) -> Peel {
    let at = skip_opts(words, k + 1, opts);
    if words.get(at).is_none_or(|w| w.text != sub) {
        return Peel::Program;
    }
    wrapper(skip_opts(words, at + 1, opts), name)
}

/// `bwrap`'s options, each with its number of values; returns the index of the program.
fn bwrap_skip(words: &[FinalWord<'_>], mut k: usize) -> usize {
    const ONE: [&str; 36] = [
        "args",
        "argv0",
        "userns",
        "userns2",
        "pidns",
        "uid",
        "gid",
        "hostname",
        "chdir",
        "unsetenv",
        "lock-file",
        "sync-fd",
        "remount-ro",
        "exec-label",
        "file-label",
        "proc",
        "dev",
        "tmpfs",
        "mqueue",
        "dir",
        "seccomp",
        "add-seccomp-fd",
        "block-fd",
        "userns-block-fd",
        "info-fd",
        "json-status-fd",
        "cap-add",
        "cap-drop",
        "perms",
        "size",
        "overlay-src",
        "tmp-overlay",
        "ro-overlay",
        "level-prefix",
        "disable-userns",
        "assert-userns-disabled",
    ];
    const TWO: [&str; 14] = [
        "setenv",
        "bind",
        "bind-try",
        "dev-bind",
        "dev-bind-try",
        "ro-bind",
        "ro-bind-try",
        "file",
        "bind-data",
        "ro-bind-data",
        "symlink",
        "chmod",
        "bind-fd",
        "ro-bind-fd",
    ];
    while let Some(w) = words.get(k) {
        let t: &str = &w.text;
        if t == "--" {
            return k + 1;
        }
        let Some(name) = t.strip_prefix("--") else {
            break;
        };
        k += 1 + if name == "overlay" {
            3
        } else if TWO.contains(&name) {
            2
        } else if ONE.contains(&name)
            && !matches!(name, "disable-userns" | "assert-userns-disabled")
        {
            1
        } else {
            0
        };
    }
    k
}

/// `tmux [opts] COMMAND [flags] [shell-command]`: the shell command of `new-session`,
/// `new-window`, `split-window`, `respawn-pane`/`-window` and `run-shell`, the keys typed by
/// `send-keys`, and `tmux -c CMD`; commands chained with `;` are each read.
fn tmux(words: &[FinalWord<'_>], from: usize) -> Peel {
    const GLOBAL: Opts = opts("fLST", &[]).script("c", &[]);
    let (mut k, code) = scan_opts(words, from, &GLOBAL);
    if let Some(code) = code {
        return script(code, "tmux -c");
    }
    let mut out = String::new();
    while k < words.len() {
        let end = (k..words.len())
            .find(|&i| matches!(&*words[i].text, ";" | "\\;"))
            .unwrap_or(words.len());
        let part = &words[..end];
        let sub: &str = &words[k].text;
        let o = match sub {
            "new-session" | "new" => opts("cefFnstxy", &[]),
            "new-window" | "neww" => opts("ceFnt", &[]),
            "split-window" | "splitw" => opts("celtFp", &[]),
            "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => opts("cet", &[]),
            "run-shell" | "run" => opts("cdt", &[]),
            "send-keys" | "send" => opts("cNt", &[]),
            _ => opts("", &[]),
        };
        let next = skip_opts(part, k + 1, &o);
        match sub {
            "send-keys" | "send" => {
                let literal = has_flag(part, k + 1, next, 'l', "literal");
                for key in part.get(next..).unwrap_or_default() {
                    out.push_str(tmux_key(&key.text, literal));
                }
                out.push('\n');
            }
            "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
            | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" | "run-shell" | "run"
                if next < end =>
            {
                out.push_str(&joined(part, next));
                out.push('\n');
            }
            _ => {}
        }
        k = end + 1;
    }
    if out.is_empty() {
        Peel::Program
    } else {
        script(out, "tmux")
    }
}

/// The text a `tmux send-keys` key types: `Enter`/`C-m` a newline, `Space` a blank, other
/// key names (`C-c`, `Escape`, …) a line break too (what was typed may run), the rest as is.
fn tmux_key(key: &str, literal: bool) -> &str {
    if literal {
        return key;
    }
    match key {
        "Space" => " ",
        "Tab" => "\t",
        "Enter" | "C-m" | "C-j" | "KPEnter" | "Escape" | "BSpace" | "Up" | "Down" | "Left"
        | "Right" | "Home" | "End" | "PageUp" | "PageDown" | "PPage" | "NPage" => "\n",
        k if k.len() == 3 && matches!(&k[..2], "C-" | "M-" | "S-") => "\n",
        k => k,
    }
}

/// `screen [opts] [cmd …]` (`screen -dmS name cmd`), and `screen -X stuff 'text'`.
fn screen(words: &[FinalWord<'_>], mut k: usize) -> Peel {
    const VALUE: &str = "SceEhpstT";
    let mut stuff = false;
    while let Some(w) = words.get(k) {
        let t: &str = &w.text;
        if t == "--" {
            k += 1;
            break;
        }
        if t == "-Logfile" {
            k += 2;
            continue;
        }
        let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) else {
            break;
        };
        // One option word at a time: `-X` makes the rest a screen command.
        let mut step = 1;
        for (pos, ch) in flags.char_indices() {
            if ch == 'X' {
                stuff = true;
            } else if VALUE.contains(ch) {
                if pos + 1 == flags.len() {
                    step = 2;
                }
                break;
            }
        }
        k += step;
    }
    if stuff {
        // `-X COMMAND …`: only `stuff TEXT` types a command line.
        return match words.get(k).map(|w| &*w.text) {
            Some("stuff") => {
                let text = joined(words, k + 1)
                    .replace("\\n", "\n")
                    .replace("\\r", "\n")
                    .replace("^M", "\n")
                    .replace("\\012", "\n")
                    .replace("\\015", "\n");
                script(text, "screen")
            }
            _ => Peel::Program,
        };
    }
    if k >= words.len() {
        return Peel::Program;
    }
    wrapper(k, "screen")
}

/// `parallel [opts] CMD … ::: ARGS …` (also `::::` files, `:::+`): the command (run by a
/// shell, as parallel does) with the arguments in place of `{}` or after it; without a
/// command, the arguments are the commands.
fn parallel(words: &[FinalWord<'_>], from: usize) -> Peel {
    let start = skip_opts(words, from, &PARALLEL);
    if has_flag(words, from, start, '\0', "dry-run") || has_flag(words, from, start, '\0', "dryrun")
    {
        // Only prints the commands.
        return Peel::Program;
    }
    let is_sep = |t: &str| matches!(t, ":::" | "::::" | ":::+" | "::::+");
    let cmd_end = (start..words.len())
        .find(|&i| is_sep(&words[i].text))
        .unwrap_or(words.len());
    let mut args = Vec::new();
    let mut files = false;
    for w in words.get(cmd_end..).unwrap_or_default() {
        let t: &str = &w.text;
        if is_sep(t) {
            files = t.starts_with("::::");
        } else if files {
            // Arguments read from a file: unknown.
            args.push(format!("\"$(cat {})\"", quote(t)));
        } else {
            args.push(quote(t));
        }
    }
    if cmd_end == start {
        if args.is_empty() {
            // `… | parallel`: commands read on standard input.
            return Peel::Program;
        }
        let plain: Vec<&str> = words[cmd_end..]
            .iter()
            .map(|w| &*w.text)
            .filter(|t| !is_sep(t))
            .collect();
        return script(plain.join("\n"), BOUND);
    }
    let mut code = joined(&words[..cmd_end], start);
    if !args.is_empty() {
        let list = args.join(" ");
        let mut replaced = false;
        for token in ["{}", "{.}", "{/}", "{//}", "{/.}", "{1}"] {
            // The first of each replacement string only: the script stays linear in
            // the line (`{} {} {} … ::: a b c …` would square it).
            if code.contains(token) {
                code = code.replacen(token, &list, 1);
                replaced = true;
            }
        }
        if !replaced {
            code.push(' ');
            code.push_str(&list);
        }
        // Its arguments are on the line: it reads none from its input.
        return script(code, BOUND);
    }
    script(code, "parallel")
}

/// The wrapper name of a command `parallel` runs with its arguments bound on the line (`:::`),
/// apart from one that takes them from its input as `xargs` does.
const BOUND: &str = "parallel :::";

/// A wrapper whose option moves the command to another directory (`env -C DIR CMD`, `sudo -D
/// DIR CMD`): the command as shell code run after a `cd` there (behind `then`, what keeps the
/// wrapper's meaning: `sudo `), so its relative paths resolve where it runs.
fn in_dir(
    words: &[FinalWord<'_>],
    from: usize,
    opts: &Opts,
    then: &str,
    name: &str,
) -> Option<Peel> {
    let (next, dir) = scan_opts(words, from, opts);
    let dir = dir?;
    let rest: Vec<String> = words
        .get(next..)
        .unwrap_or_default()
        .iter()
        .map(|w| word(&w.text))
        .collect();
    if rest.is_empty() {
        return None;
    }
    Some(script(
        format!("cd {} && {then}{}", word(&dir), rest.join(" ")),
        name,
    ))
}

/// A word as shell text: as it is when it holds nothing the shell would split or expand
/// differently, else single-quoted.
fn word(t: &str) -> String {
    let plain = !t.is_empty()
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./~$=:@%+,-{}*?".contains(&b));
    if plain {
        t.to_string()
    } else {
        quote(t)
    }
}

/// A word as a single-quoted shell word.
fn quote(t: &str) -> String {
    format!("'{}'", t.replace('\'', "'\\''"))
}

/// A program that reads a script on its standard input, and the wrapper name for what it
/// runs: a shell (`sh`, `bash -s`, `bash -x`), `at`/`batch` (jobs), `parallel` with no
/// command (one command a line).
pub(super) fn stdin_runner(
    program: &str,
    args: &[std::borrow::Cow<'_, str>],
) -> Option<&'static str> {
    let options = || {
        args.iter()
            .map(|a| &**a)
            .take_while(|a| *a != "--" && (a.starts_with('-') || a.starts_with('+')))
    };
    let has = |c: char| options().any(|o| !o.starts_with("--") && o.contains(c));
    match program {
        p if SHELLS.contains(&p) => {
            (!has('c') && (has('s') || options().count() == args.len())).then_some("sh")
        }
        "at" | "batch" => {
            let reads = !args.iter().any(|a| {
                a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..].contains(['f', 'l', 'r', 'd', 'c', 'V'])
            });
            reads.then_some("at")
        }
        "parallel" => {
            let start = skip_opts_cow(args, &PARALLEL);
            (start == args.len()).then_some("parallel")
        }
        _ => None,
    }
}

/// [`skip_opts`] over argument texts.
fn skip_opts_cow(args: &[std::borrow::Cow<'_, str>], opts: &Opts) -> usize {
    let words: Vec<FinalWord<'_>> = args
        .iter()
        .map(|a| FinalWord {
            text: std::borrow::Cow::Borrowed(&**a),
            assign: false,
            array: false,
        })
        .collect();
    skip_opts(&words, 0, opts)
}

/// `sh [opts] -c SCRIPT …` → SCRIPT.
pub(super) fn shell_script(words: &[FinalWord<'_>], mut k: usize) -> Option<String> {
    let mut has_c = false;
    while let Some(w) = words.get(k) {
        let t: &str = &w.text;
        if t == "--" {
            k += 1;
            break;
        }
        if let Some(flags) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) {
            if t.starts_with("--") {
                k += 1;
                continue;
            }
            if flags.contains('c') {
                has_c = true;
            }
            // `-o option` / `+o option` take a value.
            k += if flags.ends_with('o') { 2 } else { 1 };
            continue;
        }
        break;
    }
    if has_c {
        words.get(k).map(|w| w.text.to_string())
    } else {
        None
    }
}

/// `su [opts] [user] -c CMD` / `--command=CMD` → CMD.
fn su_command(args: &[FinalWord<'_>]) -> Option<String> {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t: &str = &a.text;
        if let Some(v) = t
            .strip_prefix("--command=")
            .or_else(|| t.strip_prefix("--session-command="))
        {
            return Some(v.to_string());
        }
        if t == "--command"
            || t == "--session-command"
            || t == "-c"
            || (t.starts_with('-') && !t.starts_with("--") && t.ends_with('c'))
        {
            return args.get(k + 1).map(|v| v.text.to_string());
        }
        k += 1;
    }
    None
}

/// The code of `trap [--] CODE SIG…`; `None` for a listing (`-l`, `-p`), a reset (`trap -
/// SIG`, `trap SIG`) or an ignore (`trap '' SIG`).
fn trap_action(args: &[FinalWord<'_>]) -> Option<String> {
    let args = match args.first() {
        Some(a) if a.text == "--" => &args[1..],
        _ => args,
    };
    match args {
        [action, _, ..] if !matches!(&*action.text, "" | "-" | "-l" | "-p") => {
            Some(action.text.to_string())
        }
        _ => None,
    }
}

/// `env -S 'cmd args'` / `env --split-string=…` → the string plus the words after it.
fn env_split_string(words: &[FinalWord<'_>], mut k: usize) -> Option<String> {
    while let Some(w) = words.get(k) {
        let t: &str = &w.text;
        let value = if let Some(v) = t.strip_prefix("--split-string=") {
            Some((v.to_string(), k + 1))
        } else if t == "--split-string" || t == "-S" {
            words.get(k + 1).map(|v| (v.text.to_string(), k + 2))
        } else {
            t.strip_prefix("-S").map(|v| (v.to_string(), k + 1))
        };
        if let Some((mut script, next)) = value {
            for rest in &words[next.min(words.len())..] {
                script.push(' ');
                script.push_str(&rest.text);
            }
            return Some(script);
        }
        if !t.starts_with('-') || t == "--" {
            return None;
        }
        k += 1;
    }
    None
}

/// The base name of the word at `k`, for [`peel`].
pub(super) fn name_at<'w>(words: &'w [FinalWord<'_>], k: usize) -> &'w str {
    words.get(k).map_or("", |w| basename(&w.text))
}
