//! Configuration: spec, role, database and home, resolved from flags, environment, the
//! project file `.gate/config.toml` (searched upward) and the user file, in that order, each
//! value remembering where it came from; and the hook's own settings (fail-closed tiers, the
//! deadline, the audit sink), whose bad values are listed in [`Config::problems`] rather
//! than failing the whole configuration.

use anyhow::{Context, Result};
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// The spec enforced when nothing names one.
pub const DEFAULT_SPEC: &str = "default";
/// The project config file, relative to a project root.
pub const PROJECT_FILE: &str = ".gate/config.toml";
/// The hook's deadline when none is configured (seconds).
pub const DEFAULT_HOOK_DEADLINE_SECS: u64 = 9;
/// The longest deadline allowed: one second inside the hook timeout `gate init` installs,
/// so the hook always answers (or records its fault) before the runtime kills it.
pub const MAX_HOOK_DEADLINE_SECS: u64 = crate::install::HOOK_TIMEOUT_SECS - 1;

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Flag { flag: &'static str },
    Env { var: &'static str },
    ProjectFile { path: PathBuf },
    UserFile { path: PathBuf },
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag { flag } => write!(f, "flag {flag}"),
            Source::Env { var } => write!(f, "env {var}"),
            Source::ProjectFile { path } => write!(f, "project file {}", path.display()),
            Source::UserFile { path } => write!(f, "user file {}", path.display()),
            Source::Default => write!(f, "default"),
        }
    }
}

/// A value and its source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

/// Values given on the command line.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub spec: Option<String>,
    pub role: Option<String>,
    pub db: Option<PathBuf>,
    pub home: Option<PathBuf>,
}

impl From<&crate::cli::GlobalArgs> for Overrides {
    fn from(g: &crate::cli::GlobalArgs) -> Overrides {
        Overrides {
            spec: g.spec.clone(),
            role: g.role.clone(),
            db: g.db.clone(),
            home: g.home.clone(),
        }
    }
}

/// The resolved configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Config {
    pub spec: Sourced<String>,
    /// No role unless one is configured (the spec's default posture applies).
    pub role: Option<Sourced<String>>,
    pub db: Sourced<PathBuf>,
    pub home: Sourced<PathBuf>,
    /// The project profiles named by an override (`GATE_PROFILE`, `profile` in a config file;
    /// a comma-separated list); none means they are detected from the repository's files.
    pub profile: Option<Sourced<String>>,
    /// The config files that were found, in precedence order.
    pub files: Vec<PathBuf>,
    /// Tiers whose actions are denied when gate's own infrastructure fails
    /// (`fail_closed = ["forbidden", …]`, `GATE_FAIL_CLOSED=forbidden,…`); checked against
    /// the spec by `gate config` and `gate doctor`, unknown names ignored by the hook.
    pub fail_closed: Option<Sourced<Vec<String>>>,
    /// The hook's deadline in seconds (`hook_deadline`, `GATE_HOOK_DEADLINE`), within
    /// 1..=[`MAX_HOOK_DEADLINE_SECS`]; an invalid value leaves the default and a problem.
    pub hook_deadline: Sourced<u64>,
    /// From this many store faults in a row within a session on, the hook denies a
    /// pre-tool action of a tier whose answer needs the policy's state, until the store works
    /// again (`[hook] stateful_fail_closed_after`, 0 turns it off;
    /// `gate_runtime::driver::FaultCount`).
    pub stateful_fail_closed_after: Sourced<u32>,
    /// Machines (spec names: the chosen spec or one beside it) whose state outlives the
    /// session: a session's end does not reach them (`outlive_sessions`).
    pub outlive_sessions: Option<Sourced<Vec<String>>>,
    /// The audit sink (`[sink]`), when one is configured and valid.
    pub sink: Option<Sourced<crate::sink::SinkConfig>>,
    /// The backup caps of mode `reversible` (`[reversible]`).
    pub reversible: Sourced<Reversible>,
    /// Values that were set but cannot be used, each said in full: `gate config` and
    /// `gate doctor` report them as errors, the hook uses the defaults silently.
    pub problems: Vec<String>,
}

/// The process environment as the resolver sees it (a seam for tests).
pub trait Environment {
    fn var(&self, name: &str) -> Option<String>;
    fn cwd(&self) -> Result<PathBuf>;
}

/// The real process environment.
#[derive(Debug, Clone, Copy)]
pub struct ProcessEnv;

impl Environment for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
    fn cwd(&self) -> Result<PathBuf> {
        std::env::current_dir().context("cannot read the current directory")
    }
}

/// One config file's values.
#[derive(Debug, Default)]
struct FileValues {
    spec: Option<String>,
    role: Option<String>,
    db: Option<PathBuf>,
    home: Option<PathBuf>,
    profile: Option<String>,
    /// Raw: a list of tier names, checked in [`Config::resolve_in`].
    fail_closed: Option<toml::Value>,
    /// Raw: an integer number of seconds, checked in [`Config::resolve_in`].
    hook_deadline: Option<toml::Value>,
    sink: Option<toml::Value>,
    /// Raw: the `[hook]` table, checked in [`Config::resolve_in`].
    hook: Option<toml::Value>,
    /// Raw: a list of spec names, checked in [`Config::resolve_in`].
    outlive_sessions: Option<toml::Value>,
    /// Raw: the `[reversible]` table, checked in [`Config::resolve_in`].
    reversible: Option<toml::Value>,
}

/// How much mode `reversible` may copy (`[reversible]`): per action and in the whole store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Reversible {
    pub max_action_bytes: u64,
    pub max_action_files: u64,
    pub max_total_bytes: u64,
}

impl Default for Reversible {
    fn default() -> Reversible {
        Reversible {
            max_action_bytes: gate_runtime::backup::DEFAULT_MAX_ACTION_BYTES,
            max_action_files: gate_runtime::backup::DEFAULT_MAX_ACTION_FILES,
            max_total_bytes: gate_runtime::backup::DEFAULT_MAX_TOTAL_BYTES,
        }
    }
}

/// A size: a whole number of bytes, or text with a `K`, `M` or `G` suffix (powers of 1024).
pub fn size_of(value: &toml::Value) -> Option<u64> {
    match value {
        toml::Value::Integer(n) => u64::try_from(*n).ok(),
        toml::Value::String(s) => parse_size(s),
        _ => None,
    }
}

/// [`size_of`] for text (`512K`, `256M`, `2G`, `1000`).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s
        .trim()
        .trim_end_matches(['b', 'B'])
        .trim_end_matches(['i']);
    let (digits, unit) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1 << 20),
        (i, 'g' | 'G') => (&s[..i], 1 << 30),
        (i, 't' | 'T') => (&s[..i], 1 << 40),
        _ => (s, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(unit)
}

/// The `[reversible]` table as given.
fn reversible_of(value: &toml::Value, what: &str) -> Result<Reversible, String> {
    let Some(table) = value.as_table() else {
        return Err(format!(
            "{what}: `reversible` must be a table (`[reversible]`)"
        ));
    };
    let mut out = Reversible::default();
    for (key, v) in table {
        let slot = match key.as_str() {
            "max_action_bytes" => &mut out.max_action_bytes,
            "max_action_files" => &mut out.max_action_files,
            "max_total_bytes" => &mut out.max_total_bytes,
            other => {
                return Err(format!(
                    "{what}: [reversible] has no key `{other}` (known: max_action_bytes, \
                     max_action_files, max_total_bytes)"
                ))
            }
        };
        *slot = size_of(v).ok_or_else(|| {
            format!(
                "{what}: [reversible] {key} must be a size (a number of bytes or `256M`), not \
                 {v}; the defaults apply"
            )
        })?;
    }
    Ok(out)
}

fn read_file(path: &Path, base: &Path) -> Result<FileValues> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("{} is not valid TOML", path.display()))?;
    let mut values = FileValues::default();
    for (key, value) in &table {
        let text = || {
            value
                .as_str()
                .with_context(|| format!("{}: `{key}` must be a string", path.display()))
        };
        match key.as_str() {
            "spec" => values.spec = Some(text()?.to_string()),
            "role" => values.role = Some(text()?.to_string()),
            "db" => values.db = Some(base.join(text()?)),
            "home" => values.home = Some(base.join(text()?)),
            "profile" => values.profile = Some(text()?.to_string()),
            "fail_closed" => values.fail_closed = Some(value.clone()),
            "hook_deadline" => values.hook_deadline = Some(value.clone()),
            "sink" => values.sink = Some(value.clone()),
            "hook" => values.hook = Some(value.clone()),
            "outlive_sessions" => values.outlive_sessions = Some(value.clone()),
            "reversible" => values.reversible = Some(value.clone()),
            other => anyhow::bail!(
                "{}: unknown key `{other}` (known: spec, role, db, home, profile, fail_closed, \
                 hook_deadline, sink, hook, outlive_sessions, reversible)",
                path.display()
            ),
        }
    }
    Ok(values)
}

/// A deadline value as given (`what` names where), checked against the allowed range.
fn hook_deadline_of(value: &toml::Value, what: &str) -> Result<u64, String> {
    let secs = match value {
        toml::Value::Integer(n) => Some(*n),
        toml::Value::String(s) => s.trim().trim_end_matches('s').trim().parse::<i64>().ok(),
        _ => None,
    };
    match secs {
        Some(n) if (1..=MAX_HOOK_DEADLINE_SECS as i64).contains(&n) => Ok(n as u64),
        Some(n) => Err(format!(
            "{what}: hook_deadline = {n} s is outside 1..={MAX_HOOK_DEADLINE_SECS} s (the hook \
             timeout `gate init` installs is {} s); the hook uses {DEFAULT_HOOK_DEADLINE_SECS} s",
            crate::install::HOOK_TIMEOUT_SECS
        )),
        None => Err(format!(
            "{what}: hook_deadline must be a whole number of seconds, not {value}; the hook \
             uses {DEFAULT_HOOK_DEADLINE_SECS} s"
        )),
    }
}

/// The `[hook]` table as given: `stateful_fail_closed_after`, a whole number of faults.
fn hook_table_of(value: &toml::Value, what: &str) -> Result<Option<u32>, String> {
    let Some(table) = value.as_table() else {
        return Err(format!(
            "{what}: `hook` must be a table (`[hook]`), not {value}"
        ));
    };
    let mut after = None;
    for (key, v) in table {
        match key.as_str() {
            "stateful_fail_closed_after" => match v.as_integer() {
                Some(n) if (0..=1_000_000).contains(&n) => after = Some(n as u32),
                _ => {
                    return Err(format!(
                        "{what}: [hook] stateful_fail_closed_after must be a whole number of \
                         faults (0 turns it off), not {v}; the hook uses {}",
                        gate_runtime::driver::DEFAULT_STATEFUL_FAIL_CLOSED_AFTER
                    ))
                }
            },
            other => {
                return Err(format!(
                    "{what}: [hook] has no key `{other}` (known: stateful_fail_closed_after)"
                ))
            }
        }
    }
    Ok(after)
}

/// A fail-closed list as given: tier names (a TOML list, or comma-separated text).
fn fail_closed_of(value: &toml::Value, what: &str) -> Result<Vec<String>, String> {
    names_of(value).ok_or_else(|| {
        format!(
            "{what}: fail_closed must be a list of tier names, not {value}; the hook fails open"
        )
    })
}

/// `outlive_sessions` as given: a list of spec names (or one comma-separated string).
fn outlive_sessions_of(value: &toml::Value, what: &str) -> Result<Vec<String>, String> {
    names_of(value).ok_or_else(|| {
        format!(
            "{what}: outlive_sessions must be a list of spec names, not {value}; every machine \
             ends with the session"
        )
    })
}

/// A list of names: a TOML array of strings, or one comma-separated string.
fn names_of(value: &toml::Value) -> Option<Vec<String>> {
    let names: Option<Vec<String>> = match value {
        toml::Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(|s| s.trim().to_string()))
            .collect(),
        toml::Value::String(s) => Some(
            s.split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect(),
        ),
        _ => None,
    };
    names
}

/// The nearest `.gate/config.toml` from `cwd` upward.
pub fn find_project_file(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(PROJECT_FILE))
        .find(|p| p.is_file())
}

/// The user config file: `$XDG_CONFIG_HOME/gate/config.toml`, else `~/.config/gate/config.toml`.
pub fn user_file(env: &dyn Environment) -> Option<PathBuf> {
    if let Some(xdg) = env.var("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(xdg).join("gate/config.toml"));
    }
    env.var("HOME")
        .map(|home| PathBuf::from(home).join(".config/gate/config.toml"))
}

/// gate's default data directory, where the store puts its database by default:
/// `$XDG_STATE_HOME/gate`, else `~/.local/state/gate`.
fn default_home(env: &dyn Environment) -> Option<PathBuf> {
    if let Some(xdg) = env.var("XDG_STATE_HOME") {
        return Some(PathBuf::from(xdg).join("gate"));
    }
    env.var("HOME")
        .map(|home| PathBuf::from(home).join(".local/state/gate"))
}

impl Config {
    /// Resolve from the real environment.
    pub fn resolve(overrides: &Overrides) -> Result<Config> {
        Config::resolve_in(overrides, &ProcessEnv)
    }

    /// Resolve: flag, then environment, then project file, then user file, then default.
    pub fn resolve_in(overrides: &Overrides, env: &dyn Environment) -> Result<Config> {
        let cwd = env.cwd()?;
        let mut files = Vec::new();
        let project = match find_project_file(&cwd) {
            Some(path) => {
                // `<root>/.gate/config.toml`: relative paths are relative to `<root>`.
                let root = path
                    .parent()
                    .and_then(Path::parent)
                    .unwrap_or(&cwd)
                    .to_path_buf();
                files.push(path.clone());
                Some((read_file(&path, &root)?, path))
            }
            None => None,
        };
        let user = match user_file(env).filter(|p| p.is_file()) {
            Some(path) => {
                let dir = path.parent().unwrap_or(&cwd).to_path_buf();
                files.push(path.clone());
                Some((read_file(&path, &dir)?, path))
            }
            None => None,
        };
        let absolute = |p: &PathBuf| {
            if p.is_absolute() {
                p.clone()
            } else {
                cwd.join(p)
            }
        };

        macro_rules! pick {
            ($field:ident, $flag:literal, $var:literal, $conv:expr) => {{
                let conv = $conv;
                if let Some(v) = &overrides.$field {
                    Some(Sourced {
                        value: conv(v.clone(), true),
                        source: Source::Flag { flag: $flag },
                    })
                } else if let Some(v) = env.var($var) {
                    Some(Sourced {
                        value: conv(v.into(), true),
                        source: Source::Env { var: $var },
                    })
                } else if let Some(v) = project.as_ref().and_then(|(f, _)| f.$field.clone()) {
                    Some(Sourced {
                        value: conv(v, false),
                        source: Source::ProjectFile {
                            path: project.as_ref().map(|(_, p)| p.clone()).unwrap_or_default(),
                        },
                    })
                } else if let Some(v) = user.as_ref().and_then(|(f, _)| f.$field.clone()) {
                    Some(Sourced {
                        value: conv(v, false),
                        source: Source::UserFile {
                            path: user.as_ref().map(|(_, p)| p.clone()).unwrap_or_default(),
                        },
                    })
                } else {
                    None
                }
            }};
        }
        let same = |s: String, _| s;
        let spec = pick!(spec, "--spec", "GATE_SPEC", same).unwrap_or(Sourced {
            value: DEFAULT_SPEC.to_string(),
            source: Source::Default,
        });
        let role = pick!(role, "--role", "GATE_ROLE", same);
        let path = |p: PathBuf, from_cli: bool| if from_cli { absolute(&p) } else { p };
        let home = match pick!(home, "--home", "GATE_HOME", path) {
            Some(home) => home,
            None => Sourced {
                value: default_home(env).context(
                    "cannot find a home for gate's data: set GATE_HOME (or HOME, XDG_STATE_HOME)",
                )?,
                source: Source::Default,
            },
        };
        let db = pick!(db, "--db", "GATE_DB", path).unwrap_or_else(|| Sourced {
            value: home.value.join("gate.db"),
            source: Source::Default,
        });
        // No flag: a profile is a property of the project, not of one command.
        let profile = env
            .var("GATE_PROFILE")
            .map(|value| Sourced {
                value,
                source: Source::Env {
                    var: "GATE_PROFILE",
                },
            })
            .or_else(|| {
                let (values, path) = project.as_ref()?;
                Some(Sourced {
                    value: values.profile.clone()?,
                    source: Source::ProjectFile { path: path.clone() },
                })
            })
            .or_else(|| {
                let (values, path) = user.as_ref()?;
                Some(Sourced {
                    value: values.profile.clone()?,
                    source: Source::UserFile { path: path.clone() },
                })
            });
        let mut problems = Vec::new();
        // The hook's settings: environment, then project file, then user file.
        let raw = |var: &'static str, field: fn(&FileValues) -> Option<&toml::Value>| {
            if let Some(v) = env.var(var) {
                return Some((toml::Value::String(v), Source::Env { var }));
            }
            [&project, &user].into_iter().flatten().find_map(|(f, p)| {
                let source = if Some(p) == project.as_ref().map(|(_, p)| p) {
                    Source::ProjectFile { path: p.clone() }
                } else {
                    Source::UserFile { path: p.clone() }
                };
                field(f).map(|v| (v.clone(), source))
            })
        };
        let hook_deadline = match raw("GATE_HOOK_DEADLINE", |f| f.hook_deadline.as_ref()) {
            Some((value, source)) => match hook_deadline_of(&value, &source.to_string()) {
                Ok(value) => Sourced { value, source },
                Err(problem) => {
                    problems.push(problem);
                    Sourced {
                        value: DEFAULT_HOOK_DEADLINE_SECS,
                        source: Source::Default,
                    }
                }
            },
            None => Sourced {
                value: DEFAULT_HOOK_DEADLINE_SECS,
                source: Source::Default,
            },
        };
        let fail_closed =
            raw("GATE_FAIL_CLOSED", |f| f.fail_closed.as_ref()).and_then(|(value, source)| {
                match fail_closed_of(&value, &source.to_string()) {
                    Ok(value) => Some(Sourced { value, source }),
                    Err(problem) => {
                        problems.push(problem);
                        None
                    }
                }
            });
        let stateful_fail_closed_after = [&project, &user]
            .into_iter()
            .flatten()
            .find_map(|(f, p)| f.hook.as_ref().map(|v| (v, p)))
            .and_then(|(value, path)| {
                let source = if Some(path) == project.as_ref().map(|(_, p)| p) {
                    Source::ProjectFile { path: path.clone() }
                } else {
                    Source::UserFile { path: path.clone() }
                };
                match hook_table_of(value, &source.to_string()) {
                    Ok(Some(value)) => Some(Sourced { value, source }),
                    Ok(None) => None,
                    Err(problem) => {
                        problems.push(problem);
                        None
                    }
                }
            })
            .unwrap_or(Sourced {
                value: gate_runtime::driver::DEFAULT_STATEFUL_FAIL_CLOSED_AFTER,
                source: Source::Default,
            });
        let outlive_sessions = raw("GATE_OUTLIVE_SESSIONS", |f| f.outlive_sessions.as_ref())
            .and_then(
                |(value, source)| match outlive_sessions_of(&value, &source.to_string()) {
                    Ok(value) => Some(Sourced { value, source }),
                    Err(problem) => {
                        problems.push(problem);
                        None
                    }
                },
            );
        let sink = [&project, &user]
            .into_iter()
            .flatten()
            .find_map(|(f, p)| f.sink.as_ref().map(|v| (v, p)))
            .and_then(|(value, path)| {
                let source = if Some(path) == project.as_ref().map(|(_, p)| p) {
                    Source::ProjectFile { path: path.clone() }
                } else {
                    Source::UserFile { path: path.clone() }
                };
                match crate::sink::SinkConfig::from_toml(value) {
                    Ok(value) => Some(Sourced { value, source }),
                    Err(e) => {
                        problems.push(format!("{source}: [sink]: {e}; no audit rows are sent"));
                        None
                    }
                }
            });
        let reversible = [&project, &user]
            .into_iter()
            .flatten()
            .find_map(|(f, p)| f.reversible.as_ref().map(|v| (v, p)))
            .and_then(|(value, path)| {
                let source = if Some(path) == project.as_ref().map(|(_, p)| p) {
                    Source::ProjectFile { path: path.clone() }
                } else {
                    Source::UserFile { path: path.clone() }
                };
                match reversible_of(value, &source.to_string()) {
                    Ok(value) => Some(Sourced { value, source }),
                    Err(problem) => {
                        problems.push(problem);
                        None
                    }
                }
            })
            .unwrap_or(Sourced {
                value: Reversible::default(),
                source: Source::Default,
            });
        Ok(Config {
            spec,
            role,
            db,
            home,
            profile,
            files,
            fail_closed,
            hook_deadline,
            stateful_fail_closed_after,
            outlive_sessions,
            sink,
            reversible,
            problems,
        })
    }

    /// The fail-closed tier names that `spec` does not have (each one a problem for
    /// `gate config` and `gate doctor`; the hook ignores them).
    pub fn unknown_fail_closed_tiers(&self, spec: &gate_spec::ir::Spec) -> Vec<String> {
        self.fail_closed
            .iter()
            .flat_map(|f| &f.value)
            .filter(|name| !spec.tiers.iter().any(|t| t.name.as_ref() == name.as_str()))
            .map(|name| {
                format!(
                    "fail_closed names tier `{name}`, which spec `{}` does not have (its tiers: {})",
                    spec.name,
                    spec.tiers
                        .iter()
                        .map(|t| t.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect()
    }

    /// The `outlive_sessions` names that are no machine of `spec` (neither it nor one beside
    /// it, `beside`), and the machines named whose scope is a session's (their state is the
    /// session's own, so it cannot outlive it): problems for `gate config` and `gate doctor`;
    /// the hook ignores such names.
    pub fn outlive_sessions_problems(
        &self,
        spec: &gate_spec::ir::Spec,
        beside: &[&gate_spec::ir::Spec],
    ) -> Vec<String> {
        let machines: Vec<&gate_spec::ir::Spec> = std::iter::once(spec)
            .chain(beside.iter().copied())
            .collect();
        let mut out = Vec::new();
        for name in self.outlive_sessions.iter().flat_map(|o| &o.value) {
            match machines.iter().find(|m| m.name.as_ref() == name.as_str()) {
                None => out.push(format!(
                    "outlive_sessions names `{name}`, which is not a machine of spec `{}` (its \
                     machines: {})",
                    spec.name,
                    machines
                        .iter()
                        .map(|m| m.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Some(m) if m.scope != gate_spec::ir::Scope::Repo => out.push(format!(
                    "outlive_sessions names `{name}`, whose state belongs to a session \
                     (`scope = \"{}\"`); only a machine with `scope = \"repo\"` can outlive one",
                    match m.scope {
                        gate_spec::ir::Scope::Session => "session",
                        gate_spec::ir::Scope::SessionAgent => "session_agent",
                        gate_spec::ir::Scope::Repo => "repo",
                    }
                )),
                Some(_) => {}
            }
        }
        out
    }

    /// `gate config` text: one line per value with its source.
    pub fn to_text(&self) -> String {
        let role = self
            .role
            .as_ref()
            .map(|r| format!("role = {}  ({})", r.value, r.source))
            .unwrap_or_else(|| "role = (none)  (default)".to_string());
        let mut out = format!(
            "spec = {}  ({})\n{role}\ndb   = {}  ({})\nhome = {}  ({})\n",
            self.spec.value,
            self.spec.source,
            self.db.value.display(),
            self.db.source,
            self.home.value.display(),
            self.home.source,
        );
        if let Some(p) = &self.profile {
            out.push_str(&format!("profile = {}  ({})\n", p.value, p.source));
        }
        out.push_str(&match &self.fail_closed {
            Some(f) => format!("fail_closed = [{}]  ({})\n", f.value.join(", "), f.source),
            None => "fail_closed = []  (default: every tier fails open)\n".to_string(),
        });
        out.push_str(&format!(
            "hook_deadline = {} s  ({})\n",
            self.hook_deadline.value, self.hook_deadline.source
        ));
        out.push_str(&format!(
            "[hook] stateful_fail_closed_after = {}  ({})\n",
            self.stateful_fail_closed_after.value, self.stateful_fail_closed_after.source
        ));
        out.push_str(&match &self.outlive_sessions {
            Some(o) => format!(
                "outlive_sessions = [{}]  ({})\n",
                o.value.join(", "),
                o.source
            ),
            None => "outlive_sessions = []  (default: every machine ends with the session)\n"
                .to_string(),
        });
        let r = &self.reversible.value;
        out.push_str(&format!(
            "[reversible] max_action_bytes = {}, max_action_files = {}, max_total_bytes = {}  ({})\n",
            r.max_action_bytes, r.max_action_files, r.max_total_bytes, self.reversible.source
        ));
        out.push_str(&match &self.sink {
            Some(s) => format!("sink = {}  ({})\n", s.value.describe(), s.source),
            None => "sink = (none)  (default)\n".to_string(),
        });
        if self.files.is_empty() {
            out.push_str("config files: none found\n");
        } else {
            for f in &self.files {
                out.push_str(&format!("config file: {}\n", f.display()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_are_bytes_or_suffixed_text() {
        use super::parse_size;
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("512K"), Some(512 * 1024));
        assert_eq!(parse_size("256MiB"), Some(256 << 20));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("-1"), None);
    }

    use super::*;
    use std::collections::BTreeMap;

    struct FakeEnv {
        vars: BTreeMap<&'static str, String>,
        cwd: PathBuf,
    }

    impl Environment for FakeEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.vars.get(name).cloned()
        }
        fn cwd(&self) -> Result<PathBuf> {
            Ok(self.cwd.clone())
        }
    }

    fn setup() -> (tempfile::TempDir, FakeEnv) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj/sub/deeper");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let env = FakeEnv {
            vars: BTreeMap::from([("HOME", home.display().to_string())]),
            cwd: project,
        };
        (dir, env)
    }

    #[test]
    fn outlive_sessions_names_repo_machines_of_the_spec() {
        let (dir, env) = setup();
        let project = dir.path().join("proj/.gate/config.toml");
        std::fs::create_dir_all(project.parent().unwrap()).unwrap();
        std::fs::write(
            &project,
            "spec = \"waypoints\"\noutlive_sessions = [\"waypoints_phases\", \"waypoints\", \"nope\"]\n",
        )
        .unwrap();
        let config = Config::resolve_in(&Overrides::default(), &env).unwrap();
        let kept = config.outlive_sessions.as_ref().expect("read");
        assert_eq!(kept.value, ["waypoints_phases", "waypoints", "nope"]);
        assert!(config
            .to_text()
            .contains("outlive_sessions = [waypoints_phases"));
        let spec = crate::cmd::compiled_spec("waypoints").unwrap();
        let beside: Vec<&gate_spec::ir::Spec> = crate::cmd::policy::compiled_alongside(spec)
            .0
            .iter()
            .map(|b| b.ir())
            .collect();
        let problems = config.outlive_sessions_problems(spec.ir(), &beside);
        // The phase machine is the project's (`repo`): fine. The spec's own machine
        // (`default`'s, named `waypoints`) keeps a session's state, and `nope` is no machine
        // of the spec.
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("`waypoints`") && problems[0].contains("scope"));
        assert!(problems[1].contains("`nope`") && problems[1].contains("waypoints_phases"));
        // Not a list: a problem, and nothing outlives the session.
        std::fs::write(&project, "outlive_sessions = 3\n").unwrap();
        let config = Config::resolve_in(&Overrides::default(), &env).unwrap();
        assert!(config.outlive_sessions.is_none());
        assert!(config.problems[0].contains("outlive_sessions must be a list"));
    }

    #[test]
    fn defaults_when_nothing_is_configured() {
        let (dir, env) = setup();
        let config = Config::resolve_in(&Overrides::default(), &env).unwrap();
        assert_eq!(config.spec.value, "default");
        assert_eq!(config.spec.source, Source::Default);
        assert!(config.role.is_none());
        assert_eq!(config.home.value, dir.path().join("home/.local/state/gate"));
        assert_eq!(config.db.value, config.home.value.join("gate.db"));
    }

    #[test]
    fn precedence_is_flag_env_project_user() {
        let (dir, mut env) = setup();
        let user = dir.path().join("home/.config/gate/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(
            &user,
            "spec = \"from-user\"\nrole = \"worker\"\nhome = \"data\"\n",
        )
        .unwrap();
        let project = dir.path().join("proj/.gate/config.toml");
        std::fs::create_dir_all(project.parent().unwrap()).unwrap();
        std::fs::write(
            &project,
            "spec = \"from-project\"\ndb = \".gate/gate.db\"\n",
        )
        .unwrap();

        let config = Config::resolve_in(&Overrides::default(), &env).unwrap();
        assert_eq!(config.spec.value, "from-project");
        assert_eq!(
            config.spec.source,
            Source::ProjectFile {
                path: project.clone()
            }
        );
        assert_eq!(config.db.value, dir.path().join("proj/.gate/gate.db"));
        assert_eq!(config.role.as_ref().unwrap().value, "worker");
        assert_eq!(
            config.role.unwrap().source,
            Source::UserFile { path: user.clone() }
        );
        assert_eq!(config.home.value, dir.path().join("home/.config/gate/data"));

        env.vars.insert("GATE_SPEC", "from-env".into());
        let config = Config::resolve_in(&Overrides::default(), &env).unwrap();
        assert_eq!(config.spec.value, "from-env");
        assert_eq!(config.spec.source, Source::Env { var: "GATE_SPEC" });

        let flags = Overrides {
            spec: Some("from-flag".into()),
            ..Overrides::default()
        };
        let config = Config::resolve_in(&flags, &env).unwrap();
        assert_eq!(config.spec.value, "from-flag");
        assert_eq!(config.spec.source, Source::Flag { flag: "--spec" });
    }

    #[test]
    fn unknown_key_in_a_file_is_an_error() {
        let (dir, env) = setup();
        let project = dir.path().join("proj/.gate/config.toml");
        std::fs::create_dir_all(project.parent().unwrap()).unwrap();
        std::fs::write(&project, "sepc = \"x\"\n").unwrap();
        let err = Config::resolve_in(&Overrides::default(), &env).unwrap_err();
        assert!(format!("{err:#}").contains("unknown key `sepc`"), "{err:#}");
    }

    #[test]
    fn xdg_config_home_wins_over_home() {
        let (dir, mut env) = setup();
        let xdg = dir.path().join("xdg");
        std::fs::create_dir_all(xdg.join("gate")).unwrap();
        std::fs::write(xdg.join("gate/config.toml"), "spec = \"xdg\"\n").unwrap();
        env.vars
            .insert("XDG_CONFIG_HOME", xdg.display().to_string());
        let config = Config::resolve_in(&Overrides::default(), &env).unwrap();
        assert_eq!(config.spec.value, "xdg");
    }
}
