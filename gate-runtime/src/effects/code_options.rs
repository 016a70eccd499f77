//! Code a command runs without naming it as a program: the values of its options that are
//! programs or shell text (`tar --to-command`, `rsync -e`, `zip -TT`), and the variables of
//! its environment that programs run (`GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`, `PAGER`,
//! `EDITOR`, `PROMPT_COMMAND`), source (`BASH_ENV`, `ENV`), load (`LD_PRELOAD`, `MAKEFILES`,
//! `GIT_CONFIG_GLOBAL`) or search for code by name (`PYTHONPATH`, `PERL5LIB`, `NODE_PATH`,
//! `LD_LIBRARY_PATH`). Both are tables of data read by one reader each: where the code is
//! text the line shows it is analysed as what it is; where it is not (a library, a file the
//! line does not show), it is `opaque`, which never lowers a tier.

use gate_spec::effect::Place;

use super::getopt::Args;
use super::{places, Lang, Sink};

/// How the value of an option or a variable runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    /// Shell text, or a program with its arguments, run on this machine (`sh -c VALUE`, or
    /// the value split into words: read the same way).
    Line,
    /// The text after a prefix of the value (`--checkpoint-action=exec=CMD`).
    After(&'static str),
    /// A command line run on the other machine (`rsync --rsync-path`).
    There,
    /// A file a shell reads as code before it starts (`BASH_ENV=FILE`): the file is run.
    Source,
    /// Makefile text (`make --eval`): its recipes and `$(shell …)` calls are shell lines.
    Makefile,
    /// Code loaded into the program (`LD_PRELOAD=lib.so`), or a file of code or settings it
    /// reads first (`MAKEFILES`, `GIT_CONFIG_GLOBAL`): never readable here (a file the line
    /// wrote is its text, `opaque` with the places it names). `/dev/null` loads nothing.
    Load,
    /// Directories, `:`-separated, that the program searches for the code it loads by name
    /// (`PYTHONPATH`, `PERL5LIB`, `NODE_PATH`, `LD_LIBRARY_PATH`): a module the line wrote
    /// in one is its code; a directory outside the project and the system is `opaque`.
    Dirs,
    /// Options of an interpreter (`NODE_OPTIONS`, `PERL5OPT`): code loaded when they name a
    /// module to load first (`--require`, `-M`), nothing otherwise.
    Preload(&'static [&'static str]),
    /// A directory or file the program reads and writes as its own, whatever it is asked
    /// (`GIT_DIR=.claude git init`): a write at gate's files when it names them.
    Writes,
    /// A callable named `module.attr`, imported by name and called with the program's own
    /// arguments (`PYTHONBREAKPOINT=os.system` calls `os.system` with what `breakpoint()` is
    /// given): one of the listed hooks (debuggers) does what it says; any other runs code
    /// gate cannot follow, with arguments it does not see (`opaque` at `unknown`).
    Callable(&'static [&'static str]),
    /// A list of a tool's own options in which one names a program it runs
    /// (`RUSTFLAGS='-C linker=/tmp/x'`, `GOFLAGS=-toolexec=/tmp/x`): the text after one of
    /// these prefixes, in any word of the value, is run as [`Runs::Line`].
    Flags(&'static [&'static str]),
    /// Python's warning filters (`action:message:category:module:lineno`, comma-separated):
    /// a category named by a dotted path imports its module by name, running it. A module of
    /// a package every project installs is known; any other is code gate cannot follow.
    Warnings,
    /// Commands in the program's own language, not the shell's (vim's `VIMINIT`, `EXINIT`):
    /// code gate does not read, `opaque` with the places it names.
    Text,
    /// A file of settings that may name a program the tool runs (a kubeconfig's `exec`,
    /// AWS's `credential_process`, a `.psqlrc`'s `\\!`): as [`Runs::Load`] where the line
    /// wrote it or it lies in a temporary or outside directory; elsewhere it is the user's
    /// or the project's own settings, read as the tool reads its default one.
    Settings,
    /// A file the program writes what it does to (`GIT_TRACE=/tmp/t`, `SSLKEYLOGFILE`): a
    /// write there when the value is a path (git's numbers and `true` name no file).
    WritesFile,
}

/// Options of one family of programs whose value is code they run: the programs' names,
/// and each option (by its name as the program's grammar reads it) with how its value runs.
type CodeOptions = (&'static [&'static str], &'static [(&'static str, Runs)]);

/// The options of programs whose value is code they run, by the option's name as the
/// program's own grammar reads it (a short letter, or a long name in full).
pub(crate) const OPTIONS: &[CodeOptions] = &[
    (
        &["tar", "gtar", "bsdtar"],
        &[
            ("to-command", Runs::Line),
            ("use-compress-program", Runs::Line),
            ("I", Runs::Line),
            ("rsh-command", Runs::Line),
            ("info-script", Runs::Line),
            ("new-volume-script", Runs::Line),
            ("F", Runs::Line),
            ("checkpoint-action", Runs::After("exec=")),
        ],
    ),
    (&["zip"], &[("unzip-command", Runs::Line)]),
    (
        &["rsync", "openrsync"],
        &[
            ("e", Runs::Line),
            ("rsh", Runs::Line),
            ("rsync-path", Runs::There),
        ],
    ),
    (&["sort", "gsort"], &[("compress-program", Runs::Line)]),
    (&["cpio"], &[("rsh-command", Runs::Line)]),
    (&["man"], &[("P", Runs::Line), ("pager", Runs::Line)]),
    (
        &["make", "gmake"],
        &[("eval", Runs::Makefile), ("E", Runs::Makefile)],
    ),
];

/// The code that the options of `program`, read through its grammar into `a`, run.
pub(crate) fn options(program: &str, a: &Args<'_>, out: &mut Sink) {
    let Some((_, table)) = OPTIONS.iter().find(|(names, _)| names.contains(&program)) else {
        return;
    };
    for opt in &a.opts {
        let Some(value) = opt.value.as_deref() else {
            continue;
        };
        if let Some((_, runs)) = table.iter().find(|(name, _)| *name == opt.name) {
            value_runs(*runs, value, out);
        }
    }
}

/// Variables whose value something the line starts runs, sources or loads.
pub(crate) const VARIABLES: &[(&str, Runs)] = &[
    ("GIT_EXTERNAL_DIFF", Runs::Line),
    ("GIT_EDITOR", Runs::Line),
    ("GIT_SEQUENCE_EDITOR", Runs::Line),
    ("GIT_SSH_COMMAND", Runs::Line),
    ("GIT_SSH", Runs::Line),
    ("GIT_PAGER", Runs::Line),
    ("GIT_ASKPASS", Runs::Line),
    ("GIT_PROXY_COMMAND", Runs::Line),
    ("PAGER", Runs::Line),
    ("MANPAGER", Runs::Line),
    ("SYSTEMD_PAGER", Runs::Line),
    ("EDITOR", Runs::Line),
    ("VISUAL", Runs::Line),
    ("SUDO_EDITOR", Runs::Line),
    ("FCEDIT", Runs::Line),
    ("SSH_ASKPASS", Runs::Line),
    ("SUDO_ASKPASS", Runs::Line),
    ("RSYNC_RSH", Runs::Line),
    ("CVS_RSH", Runs::Line),
    ("LESSOPEN", Runs::Line),
    ("LESSCLOSE", Runs::Line),
    ("PROMPT_COMMAND", Runs::Line),
    // Prompt strings: their command substitutions run each time one is shown (`PS4` under
    // `bash -x`, `PS0`-`PS2` in an interactive shell).
    ("PS0", Runs::Line),
    ("PS1", Runs::Line),
    ("PS2", Runs::Line),
    ("PS4", Runs::Line),
    ("BROWSER", Runs::Line),
    ("HGEDITOR", Runs::Line),
    ("SVN_EDITOR", Runs::Line),
    ("CVSEDITOR", Runs::Line),
    ("GIT_MERGE_AUTOEDIT_EDITOR", Runs::Line),
    ("TERMINAL", Runs::Line),
    // The shell a program starts for commands it is given (`script`, an editor's `:!`).
    ("SHELL", Runs::Line),
    // less's options from the environment: `+!CMD` runs CMD when it starts.
    ("LESS", Runs::After("+!")),
    // The shell package managers and configure scripts run their scripts with.
    ("npm_config_script_shell", Runs::Line),
    ("NPM_CONFIG_SCRIPT_SHELL", Runs::Line),
    ("CONFIG_SHELL", Runs::Line),
    // Compilers and wrappers a build runs (`make`, `cargo`, `./configure`, `cc` crates).
    ("CC", Runs::Line),
    ("CXX", Runs::Line),
    ("CPP", Runs::Line),
    ("LD", Runs::Line),
    ("AR", Runs::Line),
    ("FC", Runs::Line),
    ("OBJC", Runs::Line),
    ("PKG_CONFIG", Runs::Line),
    ("CARGO_BUILD_RUSTC", Runs::Line),
    ("CARGO_BUILD_RUSTDOC", Runs::Line),
    ("CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", Runs::Line),
    ("RUSTC", Runs::Line),
    ("RUSTC_WRAPPER", Runs::Line),
    ("RUSTC_WORKSPACE_WRAPPER", Runs::Line),
    ("CARGO_BUILD_RUSTC_WRAPPER", Runs::Line),
    ("RUSTDOC", Runs::Line),
    // Files of code or settings read first.
    ("MAKEFILES", Runs::Load),
    ("GIT_CONFIG_GLOBAL", Runs::Load),
    ("GIT_CONFIG_SYSTEM", Runs::Load),
    ("GIT_CONFIG", Runs::Load),
    ("PYTHONSTARTUP", Runs::Load),
    ("PERL5DB", Runs::Load),
    ("PYTHONBREAKPOINT", Runs::Callable(DEBUGGERS)),
    ("PYTHONWARNINGS", Runs::Warnings),
    ("VIMINIT", Runs::Text),
    ("EXINIT", Runs::Text),
    ("GVIMINIT", Runs::Text),
    ("PSQLRC", Runs::Settings),
    ("IRBRC", Runs::Settings),
    ("CURL_HOME", Runs::Settings),
    ("WGETRC", Runs::Settings),
    // Configuration files that name a program to run for credentials (a kubeconfig's
    // `exec`, AWS's `credential_process`).
    ("KUBECONFIG", Runs::Settings),
    ("AWS_CONFIG_FILE", Runs::Settings),
    // Compiler flags that name the linker or a wrapper around every tool of a build.
    ("RUSTFLAGS", Runs::Flags(RUST_RUNS)),
    ("RUSTDOCFLAGS", Runs::Flags(RUST_RUNS)),
    ("CARGO_BUILD_RUSTFLAGS", Runs::Flags(RUST_RUNS)),
    ("CARGO_ENCODED_RUSTFLAGS", Runs::Flags(RUST_RUNS)),
    (
        "GOFLAGS",
        Runs::Flags(&["-toolexec=", "--toolexec=", "-exec=", "--exec="]),
    ),
    // Where programs write a trace of what they do, or the session keys of their TLS.
    ("GIT_TRACE", Runs::WritesFile),
    ("GIT_TRACE2", Runs::WritesFile),
    ("GIT_TRACE2_EVENT", Runs::WritesFile),
    ("GIT_TRACE2_PERF", Runs::WritesFile),
    ("GIT_TRACE_PACKET", Runs::WritesFile),
    ("GIT_TRACE_PERFORMANCE", Runs::WritesFile),
    ("GIT_TRACE_SETUP", Runs::WritesFile),
    ("GIT_TRACE_CURL", Runs::WritesFile),
    ("SSLKEYLOGFILE", Runs::WritesFile),
    ("NPM_CONFIG_USERCONFIG", Runs::Load),
    ("npm_config_userconfig", Runs::Load),
    ("PHPRC", Runs::Load),
    ("R_PROFILE", Runs::Load),
    ("R_PROFILE_USER", Runs::Load),
    // Where git keeps the repository it works on.
    ("GIT_DIR", Runs::Writes),
    ("GIT_WORK_TREE", Runs::Writes),
    ("GIT_INDEX_FILE", Runs::Writes),
    ("GIT_OBJECT_DIRECTORY", Runs::Writes),
    ("GIT_COMMON_DIR", Runs::Writes),
    // Search paths for code loaded by name.
    ("PYTHONPATH", Runs::Dirs),
    ("PYTHONHOME", Runs::Dirs),
    ("PYTHONUSERBASE", Runs::Dirs),
    ("PERL5LIB", Runs::Dirs),
    ("PERLLIB", Runs::Dirs),
    ("RUBYLIB", Runs::Dirs),
    ("GEM_PATH", Runs::Dirs),
    ("GEM_HOME", Runs::Dirs),
    ("NODE_PATH", Runs::Dirs),
    ("LD_LIBRARY_PATH", Runs::Dirs),
    ("DYLD_LIBRARY_PATH", Runs::Dirs),
    ("DYLD_FRAMEWORK_PATH", Runs::Dirs),
    ("GCONV_PATH", Runs::Dirs),
    ("GIT_EXEC_PATH", Runs::Dirs),
    ("GIT_TEMPLATE_DIR", Runs::Dirs),
    ("CLASSPATH", Runs::Dirs),
    ("LUA_PATH", Runs::Dirs),
    ("LUA_CPATH", Runs::Dirs),
    ("R_LIBS", Runs::Dirs),
    ("R_LIBS_USER", Runs::Dirs),
    ("JULIA_LOAD_PATH", Runs::Dirs),
    ("PHP_INI_SCAN_DIR", Runs::Dirs),
    // zsh reads `$ZDOTDIR/.zshenv` first, in every zsh it starts.
    ("ZDOTDIR", Runs::Dirs),
    ("BASH_ENV", Runs::Source),
    ("ENV", Runs::Source),
    ("LD_PRELOAD", Runs::Load),
    ("LD_AUDIT", Runs::Load),
    ("DYLD_INSERT_LIBRARIES", Runs::Load),
    (
        "NODE_OPTIONS",
        Runs::Preload(&[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ]),
    ),
    ("PERL5OPT", Runs::Preload(&["-M", "-m", "-d"])),
    ("RUBYOPT", Runs::Preload(&["-r"])),
    (
        "JAVA_TOOL_OPTIONS",
        Runs::Preload(&["-javaagent", "-agentpath", "-agentlib"]),
    ),
    (
        "_JAVA_OPTIONS",
        Runs::Preload(&["-javaagent", "-agentpath", "-agentlib"]),
    ),
];

/// Families of variables named by a pattern, `PREFIX…SUFFIX` (the middle is a target, a
/// registry), whose value runs like one of [`VARIABLES`]: cargo's runner and linker for a
/// target (`CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=/tmp/r.sh cargo test`) and a
/// registry's credential provider.
const VARIABLE_FAMILIES: &[(&str, &str, Runs)] = &[
    ("CARGO_TARGET_", "_RUNNER", Runs::Line),
    ("CARGO_TARGET_", "_LINKER", Runs::Line),
    ("CARGO_REGISTRIES_", "_CREDENTIAL_PROVIDER", Runs::Line),
    ("CARGO_REGISTRY_", "_CREDENTIAL_PROVIDER", Runs::Line),
];

/// The prefixes of rustc's options (in a flags variable) whose value is the program that
/// links (`-C linker=X`, `-Clinker=X`).
const RUST_RUNS: &[&str] = &["-Clinker=", "linker="];

/// The top-level packages whose warning categories a filter may name and import
/// (`ignore::urllib3.exceptions.InsecureRequestWarning`): installed libraries, not code the
/// agent wrote beside the script.
const KNOWN_WARNING_PACKAGES: &[&str] = &[
    "warnings",
    "builtins",
    "exceptions",
    "urllib3",
    "requests",
    "django",
    "numpy",
    "pandas",
    "scipy",
    "sklearn",
    "matplotlib",
    "sqlalchemy",
    "setuptools",
    "pkg_resources",
    "distutils",
    "pytest",
    "_pytest",
    "pydantic",
    "botocore",
    "boto3",
    "yaml",
    "jinja2",
    "tensorflow",
    "torch",
    "cryptography",
];

/// Python's breakpoint hooks that are debuggers (`PYTHONBREAKPOINT`), and the values that
/// turn the hook off.
const DEBUGGERS: &[&str] = &[
    "0",
    "pdb.set_trace",
    "ipdb.set_trace",
    "pudb.set_trace",
    "pdbr.set_trace",
    "web_pdb.set_trace",
    "remote_pdb.set_trace",
    "madbg.set_trace",
    "IPython.embed",
    "IPython.core.debugger.set_trace",
    "debugpy.breakpoint",
];

/// How the value of variable `name` runs, when it is one of [`VARIABLES`] or
/// [`VARIABLE_FAMILIES`], or a function bash exports to the shells it starts
/// (`BASH_FUNC_ls%%='() { …; }'`: the body runs when a child shell calls the name).
pub(crate) fn variable(name: &str) -> Option<Runs> {
    if name.starts_with("BASH_FUNC_") {
        return Some(Runs::After("()"));
    }
    VARIABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
        .or_else(|| {
            VARIABLE_FAMILIES
                .iter()
                .find(|(pre, suf, _)| {
                    name.len() > pre.len() + suf.len()
                        && name.starts_with(pre)
                        && name.ends_with(suf)
                })
                .map(|(_, _, r)| *r)
        })
}

/// Modules an interpreter's option variable may load by name that are instrumentation every
/// project uses (`PERL5OPT=-MCarp::Always`, `NODE_OPTIONS='-r ts-node/register'`,
/// `RUBYOPT=-rbundler/setup`): what they do is known. Any other module loaded by name into
/// every interpreter the command starts comes from a search path the agent can extend or
/// install into: code gate cannot read (`opaque` at `unknown`).
const KNOWN_PRELOADS: &[&str] = &[
    // perl (`-M`, `-m`; `-d:NAME` loads `Devel::NAME`).
    "strict",
    "warnings",
    "utf8",
    "lib",
    "open",
    "diagnostics",
    "Carp",
    "Carp::Always",
    "Devel::Cover",
    "Devel::NYTProf",
    "Devel::Confess",
    "Devel::Trace",
    "Devel::DProf",
    "Devel::SmallProf",
    "Data::Dumper",
    "local::lib",
    // node (`-r`, `--require`, `--import`, `--loader`).
    "ts-node/register",
    "ts-node/esm",
    "ts-node/register/transpile-only",
    "tsx",
    "tsx/cjs",
    "tsx/esm",
    "esm",
    "dotenv/config",
    "source-map-support/register",
    "@babel/register",
    "@swc/register",
    "@swc-node/register",
    "esbuild-register",
    "module-alias/register",
    "tsconfig-paths/register",
    "reflect-metadata",
    "@opentelemetry/auto-instrumentations-node/register",
    "dd-trace/init",
    "newrelic",
    "elastic-apm-node/start",
    "@sentry/node/preload",
    "global-agent/bootstrap",
    "pnpapi",
    "./.pnp.cjs",
    // ruby (`-r`).
    "bundler/setup",
    "rubygems",
    "json",
    "pp",
    "set",
    "simplecov",
    "debug",
    "pry",
    "byebug",
];

/// The modules a `Preload` value loads by name, not by path (`-Mx::y`, `-r ts-node/register`,
/// `-d:NYTProf` as `Devel::NYTProf`), with perl's import list after `=` dropped.
fn preloaded_modules<'v>(value: &'v str, flags: &[&str]) -> Vec<std::borrow::Cow<'v, str>> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for f in flags {
            let named = if *w == *f {
                words.get(i + 1).copied()
            } else if w.len() > f.len() && w.starts_with(f) {
                Some(w[f.len()..].trim_start_matches(['=', ':']))
            } else {
                None
            };
            let Some(m) = named.filter(|m| !m.is_empty() && !m.starts_with('-')) else {
                continue;
            };
            // A path (`-r ./x.js`, `/tmp/x.js`) is placed by [`loaded_from`].
            if m.contains('/') && (m.starts_with(['.', '/', '~', '$'])) {
                continue;
            }
            // Perl's `-MName=import,list`, and `-d:Name` for `Devel::Name`.
            let m = if *f == "-M" || *f == "-m" {
                m.split(['=', ' ']).next().unwrap_or(m)
            } else {
                m
            };
            if *f == "-d" && w.starts_with("-d:") {
                out.push(std::borrow::Cow::Owned(format!("Devel::{m}")));
            } else {
                out.push(std::borrow::Cow::Borrowed(m));
            }
        }
    }
    out
}

/// Where code loaded into a program comes from makes it foreign: a temporary directory
/// (where an agent's own files live) or a path outside the project that is no place of the
/// system's or the user's. Such code is `opaque` at that place, so the policy can treat it
/// apart from a library of the project's or the system's (`LD_LIBRARY_PATH=build/lib`,
/// `/usr/local/cuda/lib64`), which stays merely unread. A directory only searched by name
/// counts from temporary directories alone (`PYTHONPATH=../shared` is a sibling checkout).
pub(crate) fn foreign(place: Place, searched: bool) -> bool {
    match place {
        Place::Temp => true,
        Place::Outside => !searched,
        _ => false,
    }
}

/// The files a `Load` or `Preload` value loads (`LD_PRELOAD=a.so:b.so`, `-r ./x.js`), each
/// placed by `spot`: one in a [`foreign`] place is `opaque` there.
pub(crate) fn loaded_from(
    runs: Runs,
    value: &str,
    spot: impl Fn(&str) -> (Place, String),
    out: &mut Sink,
) {
    let files: Vec<&str> = match runs {
        Runs::Load | Runs::Settings => value
            .split([':', ' '])
            .filter(|f| !f.is_empty() && *f != "/dev/null")
            .collect(),
        Runs::Preload(flags) => {
            let words: Vec<&str> = value.split_whitespace().collect();
            let mut files = Vec::new();
            for (i, w) in words.iter().enumerate() {
                for f in flags {
                    if *w == *f {
                        files.extend(words.get(i + 1).copied());
                    } else if let Some(rest) = w.strip_prefix(f).filter(|_| f.len() >= 2) {
                        let rest = rest.trim_start_matches(['=', ':']);
                        if !rest.is_empty() {
                            files.push(rest);
                        }
                    }
                }
            }
            // A module loaded by name from the program's own search path is not a file.
            files.retain(|f| f.contains('/') || f.starts_with('.'));
            files
        }
        _ => return,
    };
    for file in files {
        let (place, abs) = spot(file);
        if foreign(place, false) {
            out.named(gate_spec::effect::Act::Opaque, place, &abs);
        }
    }
}

/// The code a variable's value runs, where something the line starts runs it. `Source`
/// values are the caller's (it knows the files the line wrote); here they are a file run
/// with its text unseen.
pub(crate) fn variable_runs(name: &str, value: &str, out: &mut Sink) {
    if let Some(runs) = variable(name) {
        value_runs(runs, value, out);
    }
}

/// The `git -c KEY=VALUE` settings the variables in force give every git command
/// (`GIT_CONFIG_PARAMETERS`, and `GIT_CONFIG_KEY_<n>` with `GIT_CONFIG_VALUE_<n>`), in the
/// order git applies them; `vars` in the order they were set (later ones win).
pub(crate) fn git_settings(vars: &[(String, String)]) -> Vec<String> {
    let last = |want: &str| {
        vars.iter()
            .rev()
            .find(|(k, _)| k == want)
            .map(|(_, v)| v.as_str())
    };
    let mut out = Vec::new();
    if let Some(list) = last("GIT_CONFIG_PARAMETERS") {
        // Shell-quoted words, each `'KEY'='VALUE'`.
        let line = format!("git {list}");
        let parsed = crate::shell::parse(&line);
        if let Some(cmd) = parsed.commands.first() {
            out.extend(cmd.args.iter().map(|a| a.to_string()));
        }
    }
    for n in 0..64 {
        let Some(key) = last(&format!("GIT_CONFIG_KEY_{n}")) else {
            break;
        };
        let value = last(&format!("GIT_CONFIG_VALUE_{n}")).unwrap_or("");
        out.push(format!("{key}={value}"));
    }
    out
}

/// Variables a program reads as options given before its own (`TAR_OPTIONS`, `ZIPOPT`):
/// the variable, and the programs that read it.
const OPTION_VARIABLES: &[(&str, &[&str])] = &[
    ("TAR_OPTIONS", &["tar", "gtar"]),
    ("ZIPOPT", &["zip"]),
    ("UNZIP", &["unzip"]),
    ("UNZIPOPT", &["unzip"]),
    ("GZIP", &["gzip", "gunzip"]),
    ("XZ_OPT", &["xz", "unxz"]),
    ("PARALLEL", &["parallel"]),
    ("MAKEFLAGS", &["make", "gmake"]),
    ("MFLAGS", &["make", "gmake"]),
];

/// The options `program` takes from the variables in force (`vars`, in the order they were
/// set), as words to put before its own: `TAR_OPTIONS='--to-command=…' tar -x` is read as
/// `tar --to-command=… -x`. make's flags may come without their dash (`MAKEFLAGS=ks`).
pub(crate) fn option_words(program: &str, vars: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (var, programs) in OPTION_VARIABLES {
        if !programs.contains(&program) {
            continue;
        }
        let Some(value) = vars.iter().rev().find(|(k, _)| k == var).map(|(_, v)| v) else {
            continue;
        };
        let line = format!("{program} {value}");
        let parsed = crate::shell::parse(&line);
        let Some(cmd) = parsed.commands.first() else {
            continue;
        };
        for (i, w) in cmd.args.iter().enumerate() {
            let bare = i == 0 && var.contains("MAKE") && !w.starts_with('-') && !w.contains('=');
            out.push(if bare { format!("-{w}") } else { w.to_string() });
        }
    }
    out
}

/// Where git finds the user's configuration, by the variable that moves it.
const GIT_CONFIG_HOMES: &[(&str, &str)] =
    &[("HOME", ".gitconfig"), ("XDG_CONFIG_HOME", "git/config")];

/// A git command whose user configuration the line moved (`HOME=/tmp/h git log`): a
/// configuration the line wrote there is its text (`opaque`, with the places it names); a
/// directory other than the project's, the system's or the home is not read (`opaque`).
/// `vars` are the variables in force, in the order they were set.
pub(crate) fn git_homes(
    vars: &[(String, String)],
    written: &[(String, Option<String>)],
    spot: impl Fn(&str) -> (Place, String),
    out: &mut Sink,
) {
    for (var, file) in GIT_CONFIG_HOMES {
        let Some(dir) = vars.iter().rev().find(|(k, _)| k == var).map(|(_, v)| v) else {
            continue;
        };
        let (place, abs) = spot(dir);
        let config = format!("{}/{file}", abs.trim_end_matches('/'));
        match written.iter().find(|(p, _)| *p == config) {
            Some((_, Some(text))) => out.opaque(text),
            Some(_) => out.opaque(&config),
            None => {
                let ordinary = matches!(
                    place,
                    Place::Project | Place::Source | Place::Outputs | Place::System | Place::Home
                );
                if !ordinary {
                    out.opaque(dir);
                    if foreign(place, false) {
                        out.named(gate_spec::effect::Act::Opaque, place, &config);
                    }
                }
            }
        }
    }
}

/// The shell lines of a makefile's text: its recipe lines (after a tab, or after `;` on a
/// rule's line), without make's `@`, `-` and `+` marks, and the code of its `$(shell …)`
/// calls, one a line.
pub(crate) fn recipes(text: &str) -> String {
    let mut out = String::new();
    let mut push = |code: &str| {
        let code = code.trim_start_matches(['@', '-', '+', ' ', '\t']).trim();
        if !code.is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    };
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            push(recipe);
        } else if let Some((rule, recipe)) = line.split_once(';') {
            if rule.contains(':') && !rule.trim_start().starts_with('#') {
                push(recipe);
            }
        }
        let mut rest = line;
        while let Some(at) = rest.find("$(shell ") {
            let body = &rest[at + 8..];
            let end = body.find(')').unwrap_or(body.len());
            push(&body[..end]);
            rest = &body[end..];
        }
    }
    out
}

/// The places where the code in a file of this name is in a language gate reads.
const MODULE_LANGS: &[(&str, Lang)] = &[
    (".py", Lang::Python),
    (".pth", Lang::Python),
    (".pm", Lang::Perl),
    (".pl", Lang::Perl),
    (".rb", Lang::Ruby),
    (".js", Lang::Js),
    (".cjs", Lang::Js),
    (".mjs", Lang::Js),
    (".lua", Lang::Lua),
    (".php", Lang::Php),
    (".R", Lang::R),
];

/// Where a search path's directories load code from (`PYTHONPATH=DIR`): a file the line
/// `written` below one (with its text when shown) is analysed as the code it is, or is
/// `opaque`; a directory in no place of the project's or the system's is `opaque` (with the
/// places it names). `spot` resolves and classes a word as the command sees it.
pub(crate) fn dirs(
    name: &str,
    value: &str,
    written: &[(String, Option<String>)],
    spot: impl Fn(&str) -> (Place, String),
    out: &mut Sink,
) {
    // The search path it extends (`PYTHONPATH=$PYTHONPATH:src`) is the caller's own.
    let own = |d: &str| {
        let d = d.trim_start_matches('$').trim_start_matches('{');
        d.strip_prefix(name)
            .is_some_and(|r| r.is_empty() || r.starts_with(['}', ':', '-', '+']))
    };
    for dir in value.split(':').filter(|d| !d.trim().is_empty() && !own(d)) {
        let (place, abs) = spot(dir);
        let mut wrote = false;
        for (path, text) in written.iter().filter(|(p, _)| places::below(p, &abs)) {
            wrote = true;
            let lang = MODULE_LANGS
                .iter()
                .find(|(ext, _)| path.ends_with(ext))
                .map(|(_, l)| *l);
            match (text, lang) {
                (Some(code), Some(lang)) => super::programs::analyse_code(code, lang, out),
                (Some(code), None) => out.opaque(code),
                (None, _) => out.opaque(path),
            }
        }
        let ordinary = matches!(
            place,
            Place::Project | Place::Source | Place::Outputs | Place::System
        );
        if !wrote && !ordinary {
            out.opaque(dir);
            if foreign(place, true) {
                out.named(gate_spec::effect::Act::Opaque, place, &abs);
            }
        }
    }
}

fn value_runs(runs: Runs, value: &str, out: &mut Sink) {
    let value = value.trim();
    if value.is_empty() {
        return;
    }
    match runs {
        Runs::Line => {
            // `LESSOPEN='|lesspipe %s'`: the pipe marks are less's, `%s` the file.
            let code = value.trim_start_matches('|').replace("%s", "\"$FILE\"");
            out.script(&code);
            out.program(&code);
        }
        Runs::After(prefix) => {
            if let Some(code) = value.strip_prefix(prefix) {
                out.script(code);
                out.program(code);
            }
        }
        Runs::There => out.remote_script(value),
        Runs::Makefile => out.script(&recipes(value)),
        Runs::Writes => {
            if places::named_in(value).contains(&Place::Gate) {
                out.place(gate_spec::effect::Act::Write, Place::Gate);
            }
        }
        Runs::Source => out.script(&format!(". {}", crate::shell::quote_argv(&[value]))),
        Runs::Load => {
            if value != "/dev/null" {
                out.opaque(value);
            }
        }
        // Without the places (the shell walker's [`dirs`]): what the value names.
        Runs::Dirs => {
            if !places::named_in(value).is_empty() {
                out.opaque(value);
            }
        }
        Runs::Preload(flags) => {
            let loads = value.split_whitespace().any(|w| {
                flags
                    .iter()
                    .any(|f| w == *f || (w.starts_with(f) && f.len() >= 2))
            });
            if loads {
                // The module's path without the option's letters (`-r.claude/x`).
                let named: Vec<&str> = value
                    .split_whitespace()
                    .map(|w| {
                        flags
                            .iter()
                            .find_map(|f| w.strip_prefix(f))
                            .map_or(w, |rest| rest.trim_start_matches(['=', ':']))
                    })
                    .collect();
                out.opaque(&named.join(" "));
            }
            // Perl's `-M` is `use TEXT;`: code after the name (`-Mx;system(…)`) is code.
            let unknown = preloaded_modules(value, flags)
                .iter()
                .any(|m| !KNOWN_PRELOADS.contains(&&**m) || m.contains([';', '(', '`']));
            if unknown {
                out.place(gate_spec::effect::Act::Opaque, Place::Unknown);
            }
        }
        Runs::Callable(known) => {
            if !known.contains(&value) {
                out.opaque(value);
                out.place(gate_spec::effect::Act::Opaque, Place::Unknown);
            }
        }
        Runs::Flags(prefixes) => {
            for word in value.split([' ', '\t', '\n', '\u{1f}']) {
                if let Some(program) = prefixes.iter().find_map(|p| word.strip_prefix(p)) {
                    value_runs(Runs::Line, program, out);
                }
            }
        }
        Runs::Warnings => {
            let imports_unknown = value.split(',').any(|filter| {
                let category = filter.split(':').nth(2).unwrap_or("").trim();
                let package = category.split('.').next().unwrap_or("");
                category.contains('.') && !KNOWN_WARNING_PACKAGES.contains(&package)
            });
            if imports_unknown {
                out.opaque(value);
                out.place(gate_spec::effect::Act::Opaque, Place::Unknown);
            }
        }
        Runs::Text => out.opaque(value),
        // Placed by the walker ([`loaded_from`]); the value alone says nothing.
        Runs::Settings => {}
        Runs::WritesFile => {
            if value.starts_with(['/', '~', '.', '$']) {
                out.path(gate_spec::effect::Act::Write, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::programs::testing::{effects, has};

    /// Each code-running option with a destructive value, and its benign twin.
    #[test]
    fn options_that_run_code_are_read_as_the_code() {
        for line in [
            "tar -cf a.tar --to-command='rm -rf ~' .",
            "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf ~' .",
            "tar -cf a.tar --checkpoint-action exec='rm -rf ~' .",
            "tar -I 'rm -rf ~' -cf a.tar .",
            "tar -cI'rm -rf ~' -f a.tar .",
            "tar --use-compress-program='rm -rf ~' -cf a.tar .",
            "tar --use-comp='rm -rf ~' -cf a.tar .",
            "tar -cf host:a.tar --rsh-command='rm -rf ~' .",
            "tar -cf a.tar -F 'rm -rf ~' -M .",
            "tar -cf a.tar --info-script='rm -rf ~' -M .",
            "tar -cf a.tar --new-volume-script='rm -rf ~' -M .",
            "zip -TT 'rm -rf ~' -T a.zip x",
            "zip --unzip-command 'rm -rf ~' -T a.zip x",
            "zip --unzip-command='rm -rf ~' -T a.zip x",
            "rsync -e 'rm -rf ~' a host:b",
            "rsync --rsh='rm -rf ~' a host:b",
            "rsync -ae 'rm -rf ~' a host:b",
            "sort --compress-program='rm -rf ~' x",
            "cpio -o --rsh-command='rm -rf ~' < list",
            "man -P 'rm -rf ~' ls",
            "man --pager='rm -rf ~' ls",
            "make --eval='x:; rm -rf ~' x",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        for line in [
            "tar -czf a.tar.gz src",
            "tar -I zstd -cf a.tar.zst src",
            "tar --use-compress-program=pigz -cf a.tgz src",
            "tar -cf a.tar --checkpoint=1000 --checkpoint-action=dot src",
            "zip -r a.zip src",
            "zip -TT 'unzip -tqq' -T a.zip src",
            "rsync -e 'ssh -p 2222' -a src/ host:dst",
            "sort --compress-program=gzip big.txt",
            "man -P cat ls",
            "make --eval='x:; echo hi' x",
        ] {
            let e = effects(line);
            assert!(
                !e.iter()
                    .any(|e| e.starts_with("delete@") || e.starts_with("opaque@")),
                "{line}: {e:?}"
            );
        }
        // The remote shell's path runs on the other machine.
        assert!(has("rsync --rsync-path='rm -rf ~' a host:b", "delete@home"));
    }

    /// Each variable that programs run, source or load, set for one command or for the line.
    /// Flags variables naming a program, warning filters importing a module, an editor's own
    /// commands, and trace files: each with its benign twin.
    #[test]
    fn variables_in_tool_languages_are_read() {
        for line in [
            "RUSTFLAGS='-C linker=/tmp/l.sh' cargo build",
            "RUSTFLAGS=-Clinker=/tmp/l.sh cargo build",
            "export RUSTFLAGS='-C opt-level=3 -C linker=/tmp/l.sh'; cargo test",
            "RUSTDOCFLAGS='-C linker=/tmp/l.sh' cargo test --doc",
            "GOFLAGS=-toolexec=/tmp/t.sh go build ./...",
            "GOFLAGS='-mod=mod -exec=/tmp/t.sh' go test ./...",
        ] {
            assert!(has(line, "opaque@temp"), "{line}: {:?}", effects(line));
        }
        // A linker the line names by a path it wrote is that script.
        assert!(has(
            "printf 'rm -rf ~' > l.sh; RUSTFLAGS=-Clinker=./l.sh cargo build",
            "delete@home"
        ));
        for line in [
            "RUSTFLAGS='-C target-cpu=native' cargo build --release",
            "RUSTFLAGS=-Dwarnings cargo clippy",
            "GOFLAGS=-mod=vendor go build ./...",
            "PYTHONWARNINGS=ignore python3 app.py",
            "PYTHONWARNINGS=ignore::DeprecationWarning pytest",
            "PYTHONWARNINGS='ignore::urllib3.exceptions.InsecureRequestWarning' python3 a.py",
            "PYTHONWARNINGS=error::django.utils.deprecation.RemovedInDjango50Warning ./manage.py test",
            "GIT_TRACE=1 git fetch",
            "GIT_TRACE=true git status",
        ] {
            let e = effects(line);
            assert!(
                !e.iter().any(|e| e.starts_with("opaque@") || e.contains("@temp")),
                "{line}: {e:?}"
            );
        }
        for line in [
            "PYTHONWARNINGS=ignore::evil.W python3 -c pass",
            "export PYTHONWARNINGS='default,ignore::x.y.Z'; python3 a.py",
        ] {
            assert!(has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
        assert!(has("VIMINIT=':!rm -rf ~' vim x", "opaque@unknown"));
        assert!(has("EXINIT='!rm -rf .claude' ex x", "opaque@gate"));
        assert!(has("GIT_TRACE=/tmp/t.log git fetch", "write@temp"));
        assert!(has(
            "GIT_TRACE2_EVENT=~/.bashrc git status",
            "write@dotfiles"
        ));
        assert!(has("SSLKEYLOGFILE=/tmp/k curl https://x", "write@temp"));
        assert!(has("KUBECONFIG=/tmp/k kubectl get pods", "opaque@temp"));
        assert!(!effects("KUBECONFIG=~/.kube/staging kubectl get pods")
            .iter()
            .any(|e| e.starts_with("opaque@")));
    }

    #[test]
    fn variables_that_programs_run_are_read_as_the_code() {
        for (var, prog) in [
            ("GIT_EXTERNAL_DIFF", "git diff"),
            ("GIT_EDITOR", "git commit"),
            ("GIT_SEQUENCE_EDITOR", "git rebase -i HEAD~2"),
            ("GIT_SSH_COMMAND", "git fetch"),
            ("GIT_SSH", "git fetch"),
            ("GIT_PAGER", "git log"),
            ("GIT_ASKPASS", "git push"),
            ("GIT_PROXY_COMMAND", "git fetch"),
            ("PAGER", "git log"),
            ("MANPAGER", "man ls"),
            ("EDITOR", "crontab -e"),
            ("VISUAL", "git commit"),
            ("SUDO_EDITOR", "sudoedit /etc/hosts"),
            ("SSH_ASKPASS", "ssh host"),
            ("RSYNC_RSH", "rsync a host:b"),
            ("LESSOPEN", "less x"),
            ("PROMPT_COMMAND", "bash -i"),
            ("PS4", "bash -x -c true"),
            ("PS1", "bash -i"),
        ] {
            for line in [
                format!("{var}='rm -rf ~' {prog}"),
                format!("env {var}='rm -rf ~' {prog}"),
                format!("export {var}='rm -rf ~'; {prog}"),
                format!("{var}='rm -rf ~'; {prog}"),
                format!("sudo {var}='rm -rf ~' {prog}"),
            ] {
                assert!(has(&line, "delete@home"), "{line}: {:?}", effects(&line));
            }
            // Their ordinary values are what they say.
            let benign = format!("{var}=less {prog}");
            let e = effects(&benign);
            assert!(
                !e.iter()
                    .any(|e| e.starts_with("delete@") || e.starts_with("opaque@")),
                "{benign}: {e:?}"
            );
        }
        assert!(has("LESSOPEN='|rm -rf ~ %s' less x", "delete@home"));
        // A file sourced by every shell the command starts: run, unseen.
        assert!(has("BASH_ENV=/tmp/x.sh bash -c true", "exec@none"));
        assert!(has("ENV=/tmp/x.sh sh -c true", "exec@none"));
        assert!(has(
            "echo 'rm -rf ~' > /tmp/x.sh; BASH_ENV=/tmp/x.sh bash -c true",
            "delete@home"
        ));
        // Code loaded into the program.
        for line in [
            "LD_PRELOAD=/tmp/x.so ls",
            "export LD_PRELOAD=/tmp/x.so; ls",
            "LD_AUDIT=/tmp/a.so ls",
            "DYLD_INSERT_LIBRARIES=/tmp/x.dylib ls",
            "NODE_OPTIONS='--require /tmp/x.js' npm test",
            "NODE_OPTIONS=--import=/tmp/x.mjs node app.js",
            "PERL5OPT=-Mx perl -e 1",
            "RUBYOPT=-r/tmp/x ruby a.rb",
            "JAVA_TOOL_OPTIONS=-javaagent:/tmp/a.jar java -jar b.jar",
        ] {
            assert!(has(line, "opaque@none"), "{line}: {:?}", effects(line));
        }
        // From a temporary or outside directory it is foreign code, placed there; loaded from
        // the project, the system or by a module's name it is not.
        for line in [
            "LD_PRELOAD=/tmp/x.so ls",
            "LD_PRELOAD=/usr/lib/libjemalloc.so:/tmp/x.so ls",
            "LD_PRELOAD='/var/tmp/x.so' make",
            "NODE_OPTIONS='--require /tmp/x.js' npm test",
            "NODE_OPTIONS=--import=/tmp/x.mjs node app.js",
            "NODE_OPTIONS='-r /tmp/x.js' node app.js",
            "RUBYOPT=-r/tmp/x ruby a.rb",
            "GIT_CONFIG_GLOBAL=/tmp/evil.cfg git log",
            "env GIT_CONFIG_SYSTEM=/tmp/evil.cfg git log",
            "PYTHONHOME=/tmp/evil python3 -c 1",
            "LD_LIBRARY_PATH=/tmp/evil ls",
            "GIT_TEMPLATE_DIR=/tmp/t git init x",
            "LD_PRELOAD=/opt/other/x.so ls",
        ] {
            assert!(
                has(line, "opaque@temp") || has(line, "opaque@outside"),
                "{line}: {:?}",
                effects(line)
            );
        }
        for line in [
            "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ./server",
            "LD_LIBRARY_PATH=build/lib ./app",
            "LD_LIBRARY_PATH=/usr/local/cuda/lib64 python train.py",
            "PYTHONPATH=../shared python -m pytest",
            "NODE_OPTIONS='-r ts-node/register' node a.js",
            "NODE_OPTIONS='--require ./tracing.js' node app.js",
            "GIT_CONFIG_GLOBAL=/dev/null git log",
        ] {
            assert!(
                !has(line, "opaque@temp") && !has(line, "opaque@outside"),
                "{line}: {:?}",
                effects(line)
            );
        }
        // Options a program takes from its environment are read as its own.
        for line in [
            "TAR_OPTIONS=\"--to-command='rm -rf ~'\" tar -xf a.tar",
            "export TAR_OPTIONS=\"--checkpoint=1 '--checkpoint-action=exec=rm -rf ~'\"; tar -cf a.tar .",
            "ZIPOPT='-TT rm\\ -rf\\ ~ -T' zip a.zip x",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        for line in [
            "TAR_OPTIONS=--no-same-owner tar -xf a.tar -C build",
            "MAKEFLAGS=-j4 make",
            "MAKEFLAGS=j4 make test",
            "GZIP=-9 gzip x.log",
        ] {
            assert!(!has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        // A function bash exports to the shells it starts runs when they call its name.
        assert!(has(
            "env 'BASH_FUNC_ls%%=() { rm -rf ~; }' bash -c ls",
            "delete@home"
        ));
        assert!(has(
            "env BASH_FUNC_build%%='() { rm -rf ~; }' make",
            "delete@home"
        ));
        assert!(!has(
            "env BASH_FUNC_hi%%='() { echo hi; }' bash -c hi",
            "delete@home"
        ));
        for line in [
            "NODE_OPTIONS=--max-old-space-size=4096 npm test",
            "JAVA_TOOL_OPTIONS=-Xmx2g java -jar b.jar",
            "PAGER=cat git log",
            "GIT_PAGER= git log",
            "EDITOR=vim git commit",
            "GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy' git fetch",
        ] {
            assert!(!has(line, "opaque@none"), "{line}: {:?}", effects(line));
        }
        // Search paths for code loaded by name: gate's own directories, or one outside the
        // project and the system, are opaque (with the places they name); the project's
        // own, the system's and the search path extended are not.
        for (var, prog) in [
            ("PYTHONPATH", "python3 -c 'import x'"),
            ("PERL5LIB", "perl -Mx -e 1"),
            ("PERLLIB", "perl -Mx -e 1"),
            ("RUBYLIB", "ruby -rx -e 1"),
            ("NODE_PATH", "node -e 'require(\"x\")'"),
            ("LD_LIBRARY_PATH", "ls"),
            ("GIT_EXEC_PATH", "git status"),
            ("GCONV_PATH", "iconv -f x"),
            ("ZDOTDIR", "zsh -c true"),
        ] {
            for line in [
                format!("{var}=.claude {prog}"),
                format!("{var}=~/.local/state/gate {prog}"),
                format!("export {var}=src:.claude; {prog}"),
            ] {
                assert!(has(&line, "opaque@gate"), "{line}: {:?}", effects(&line));
            }
            assert!(has(&format!("{var}=/tmp/m {prog}"), "opaque@none"));
            for line in [
                format!("{var}=src {prog}"),
                format!("{var}=. {prog}"),
                format!("{var}=/usr/local/lib {prog}"),
                format!("{var}=$PWD/lib {prog}"),
                format!("{var}=${var}:src {prog}"),
                format!("{var}=\"${{{var}}}:lib\" {prog}"),
            ] {
                assert!(!has(&line, "opaque@none"), "{line}: {:?}", effects(&line));
            }
        }
        // Files loaded first, and programs a build or a tool runs.
        for line in [
            "MAKEFILES=.claude/x.mk make",
            "GIT_CONFIG_GLOBAL=.claude/x git log",
            "PYTHONSTARTUP=.claude/x.py python3 -i",
            "RUBYOPT='-r.claude/x' ruby a.rb",
            "GIT_DIR=.claude git init",
            "GIT_WORK_TREE=.claude git checkout -f HEAD -- .",
        ] {
            let e = effects(line);
            assert!(e.iter().any(|e| e.ends_with("@gate")), "{line}: {e:?}");
        }
        for line in [
            "CC='rm -rf ~;' make",
            "RUSTC_WRAPPER='rm -rf ~;' cargo build",
            "HGEDITOR='rm -rf ~' hg commit",
            "SVN_EDITOR='rm -rf ~' svn commit",
            "npm_config_script_shell='rm -rf ~;' npm test",
            "CONFIG_SHELL='rm -rf ~;' ./configure",
            "SHELL='rm -rf ~;' script -qc true /dev/null",
            "LESS='+!rm -rf ~' less README.md",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        for line in [
            "CC=clang make",
            "CC=gcc CXX=g++ ./configure",
            "RUSTC_WRAPPER=sccache cargo build",
            "GIT_CONFIG_GLOBAL=/dev/null git log",
            "GIT_DIR=.git git log",
            "LESS=-R less README.md",
            "SHELL=/bin/bash script -qc true /dev/null",
        ] {
            let e = effects(line);
            assert!(
                !e.iter().any(|e| e.starts_with("delete@")
                    || e.starts_with("opaque@")
                    || e.ends_with("@gate")),
                "{line}: {e:?}"
            );
        }
        // git's settings given through its environment.
        for line in [
            "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm -rf ~'\" git log",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~' git log",
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf ~'; git x",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        assert!(!has(
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x git log",
            "opaque@none"
        ));
        // git's user configuration moved with the home it is read from.
        for line in [
            "HOME=/tmp/h git status",
            "XDG_CONFIG_HOME=/tmp/x git log",
            "export HOME=/tmp/h; git status",
        ] {
            assert!(has(line, "opaque@none"), "{line}: {:?}", effects(line));
        }
        assert!(has(
            "printf '[alias]\\n\\tx = !rm -rf .claude\\n' > /tmp/h/.gitconfig && HOME=/tmp/h git x",
            "opaque@gate"
        ));
        for line in ["HOME=/tmp/h ls", "git status", "HOME=/home/u git log"] {
            assert!(!has(line, "opaque@none"), "{line}: {:?}", effects(line));
        }
    }

    /// A program a variable names by a path whose text is not there to read (in a test,
    /// never) is code from where it lies: foreign in a temporary or outside directory, for
    /// every variable of the kind (families by pattern included); a program by name, or
    /// from the project or the system, is not.
    #[test]
    fn a_program_a_variable_names_is_code_from_where_it_lies() {
        for (var, prog) in [
            ("RUSTC_WRAPPER", "cargo build"),
            ("RUSTC_WORKSPACE_WRAPPER", "cargo build"),
            ("CARGO_BUILD_RUSTC_WRAPPER", "cargo check"),
            ("CARGO_BUILD_RUSTC", "cargo build"),
            ("RUSTC", "cargo build"),
            ("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", "cargo test"),
            ("CARGO_TARGET_AARCH64_APPLE_DARWIN_LINKER", "cargo build"),
            ("CARGO_REGISTRIES_MY_CREDENTIAL_PROVIDER", "cargo publish"),
            ("GIT_SSH", "git fetch"),
            ("GIT_SSH_COMMAND", "git fetch"),
            ("GIT_ASKPASS", "git push"),
            ("SSH_ASKPASS", "ssh-add"),
            ("GIT_EDITOR", "git commit"),
            ("EDITOR", "git commit"),
            ("VISUAL", "crontab -e"),
            ("PAGER", "git log"),
            ("GIT_EXTERNAL_DIFF", "git diff"),
            ("CC", "make"),
            ("LD", "make"),
            ("PKG_CONFIG", "cargo build"),
            ("SHELL", "script -qc true /dev/null"),
            ("CONFIG_SHELL", "./configure"),
            ("npm_config_script_shell", "npm test"),
        ] {
            for line in [
                format!("{var}=/tmp/w.sh {prog}"),
                format!("{var}='/var/tmp/w --flag' {prog}"),
                format!("export {var}=/tmp/w.sh; {prog}"),
                format!("env {var}=/opt/other/w {prog}"),
            ] {
                assert!(
                    has(&line, "opaque@temp") || has(&line, "opaque@outside"),
                    "{line}: {:?}",
                    effects(&line)
                );
            }
            for line in [
                format!("{var}=sccache {prog}"),
                format!("{var}=vim {prog}"),
                format!("{var}=/usr/bin/less {prog}"),
                format!("{var}=./scripts/wrap.sh {prog}"),
            ] {
                assert!(
                    !has(&line, "opaque@temp") && !has(&line, "opaque@outside"),
                    "{line}: {:?}",
                    effects(&line)
                );
            }
        }
        // A variable that only looks like one of a family runs nothing.
        assert!(!has("CARGO_TARGET_DIR=/tmp/t cargo build", "opaque@temp"));
    }

    /// A module loaded by name from an interpreter's option variable: instrumentation every
    /// project uses is known; any other, or code after perl's `-M` name, is code gate
    /// cannot read, acting where it cannot say.
    #[test]
    fn modules_option_variables_load_by_name() {
        for line in [
            "PERL5OPT=-Mx perl -e 1",
            "PERL5OPT=-Mx::y perl -e 1",
            "PERL5OPT='-MCarp;system(q(rm -rf ~))' perl -e 1",
            "PERL5OPT=-d:Evil perl a.pl",
            "export PERL5OPT=-mEvil; git send-email x",
            "NODE_OPTIONS='--require evil-pkg' node a.js",
            "NODE_OPTIONS='--import=some-loader' npm test",
            "RUBYOPT=-rhack ruby a.rb",
        ] {
            assert!(has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
        for line in [
            "PERL5OPT=-Mstrict perl -e 1",
            "PERL5OPT='-MCarp::Always' prove -l",
            "PERL5OPT=-MDevel::Cover prove -l t",
            "PERL5OPT=-d:NYTProf perl a.pl",
            "NODE_OPTIONS='-r ts-node/register' node a.js",
            "NODE_OPTIONS='--require dotenv/config' node app.js",
            "NODE_OPTIONS=--max-old-space-size=4096 npm run build",
            "RUBYOPT=-rbundler/setup ruby a.rb",
            "RUBYOPT=-W0 ruby a.rb",
        ] {
            assert!(!has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
    }

    /// Python's breakpoint hook names a callable: a debugger is what it says; any other
    /// callable runs with arguments gate does not see.
    #[test]
    fn a_breakpoint_hook_other_than_a_debugger_is_unknown_code() {
        for line in [
            "PYTHONBREAKPOINT=os.system python3 -c 'breakpoint(\"rm -rf ~\")'",
            "PYTHONBREAKPOINT=x.y python3 app.py",
            "export PYTHONBREAKPOINT=subprocess.call; pytest",
        ] {
            assert!(has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
        for line in [
            "PYTHONBREAKPOINT=0 pytest",
            "PYTHONBREAKPOINT=ipdb.set_trace python3 app.py",
            "PYTHONBREAKPOINT=pudb.set_trace pytest -x",
        ] {
            assert!(!has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
    }

    /// A program an option or a git setting names by a path whose text is not there to
    /// read is code from where it lies, as one a variable names.
    #[test]
    fn a_program_an_option_or_setting_names_is_code_from_where_it_lies() {
        for line in [
            "tar --to-command=/tmp/x -xf a.tar",
            "tar -I /tmp/x -xf a.tar",
            "rsync -e /tmp/x a host:b",
            "man -P /tmp/p ls",
            "zip -TT /tmp/t -T a.zip x",
            "sort --compress-program=/tmp/c big.txt",
            "git -c core.sshCommand=/tmp/s fetch",
            "git -c core.pager=/tmp/p log",
            "git -c diff.external=/tmp/d diff",
            "git -c credential.helper=/tmp/c push",
            "git -c core.editor='/tmp/e --wait' commit",
            "git -c gpg.program=/tmp/g commit -S -m x",
            "git -c uploadpack.packObjectsHook=/tmp/h fetch",
            "git difftool --extcmd=/tmp/d",
            "git rebase --exec /tmp/x HEAD~2",
            "git bisect run /tmp/x",
            "ssh -o ProxyCommand=/tmp/p host",
            "ssh -o 'ProxyCommand /tmp/p %h' host",
            "less '+!/tmp/x' README.md",
            "git fetch --upload-pack=/tmp/u origin",
        ] {
            assert!(has(line, "opaque@temp"), "{line}: {:?}", effects(line));
        }
        for line in [
            "tar -I zstd -xf a.tar.zst",
            "rsync -e 'ssh -p 2222' a host:b",
            "git -c core.pager=less log",
            "git -c credential.helper=store push",
            "git -c core.editor='code --wait' commit",
            "git rebase --exec 'cargo test' HEAD~2",
            "git bisect run ./test.sh",
            "ssh -o ProxyCommand='ssh -W %h:%p bastion' host",
        ] {
            assert!(!has(line, "opaque@temp"), "{line}: {:?}", effects(line));
        }
    }
}
