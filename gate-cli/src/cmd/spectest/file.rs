//! Spec test files (`specs/tests/<name>.test.toml`): the format, read with spans, and checked
//! against the spec they test, so that every problem is reported at once with
//! `file:line:col`.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use gate_runtime::event::Runtime;
use gate_spec::ir::{KindId, Phase, RuleId, Spec, StateId, TierId};
use serde::Deserialize;
use toml::Spanned;

use super::payload;

/// The suffix that marks a spec test file.
pub const SUFFIX: &str = ".test.toml";

/// Whether a file name is a spec test file (`guard.test.toml`) rather than a spec.
pub fn is_test_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(SUFFIX))
}

/// The directory beside the specs that holds their tests: `specs/tests/`. A subdirectory, so
/// that everything that reads `specs/*.toml` as specs (the build, `gate check specs/*.toml`)
/// never meets a test file.
pub const DIR: &str = "tests";

/// The spec a test file tests, when it exists: `specs/tests/guard.test.toml` →
/// `specs/guard.toml` (or `guard.toml` in the test file's own directory).
pub fn spec_for(test: &Path) -> Option<PathBuf> {
    let name = test.file_name()?.to_str()?.strip_suffix(SUFFIX)?;
    let file = format!("{name}.toml");
    let dir = test.parent()?;
    let candidates = [
        (dir.file_name() == Some(std::ffi::OsStr::new(DIR)))
            .then(|| dir.parent().map(|d| d.join(&file)))
            .flatten(),
        Some(dir.join(&file)),
    ];
    candidates.into_iter().flatten().find(|p| p.is_file())
}

/// Where a spec's tests live: `specs/guard.toml` → `specs/tests/guard.test.toml`.
pub fn tests_for(spec: &Path) -> Option<PathBuf> {
    let name = spec.file_name()?.to_str()?.strip_suffix(".toml")?;
    Some(spec.with_file_name(DIR).join(format!("{name}{SUFFIX}")))
}

// ------------------------------------------------------------------------------------------
// The raw file, as TOML gives it.

// Unknown keys are reported by `keys`, every one in one run.
#[derive(Deserialize)]
struct RawFile {
    spec: Option<Spanned<String>>,
    #[serde(default)]
    case: Vec<Spanned<RawCase>>,
}

/// Settings a case gives for all its steps and a step may override.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawWho {
    runtime: Option<Spanned<String>>,
    role: Option<Spanned<String>>,
    agent: Option<Spanned<String>>,
    session: Option<String>,
    cwd: Option<String>,
}

// Unknown keys are reported by `keys`, every one in one run.
#[derive(Deserialize)]
struct RawCase {
    name: Spanned<String>,
    runtime: Option<Spanned<String>>,
    role: Option<Spanned<String>>,
    agent: Option<Spanned<String>>,
    session: Option<String>,
    cwd: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    steps: Spanned<Vec<Spanned<RawStep>>>,
}

// Unknown keys are reported by `keys`, every one in one run.
#[derive(Deserialize)]
struct RawStep {
    event: Option<Spanned<String>>,
    bash: Option<String>,
    tool: Option<String>,
    path: Option<String>,
    input: Option<toml::Table>,
    exit: Option<Spanned<i64>>,
    output: Option<String>,
    prompt: Option<String>,
    approve: Option<Spanned<bool>>,
    at: Option<Spanned<i64>>,
    repeat: Option<Spanned<i64>>,
    every: Option<Spanned<i64>>,
    runtime: Option<Spanned<String>>,
    role: Option<Spanned<String>>,
    agent: Option<Spanned<String>>,
    session: Option<String>,
    cwd: Option<String>,
    expect: Option<Spanned<String>>,
    rule: Option<Spanned<String>>,
    tier: Option<Spanned<String>>,
    kind: Option<Spanned<String>>,
    state: Option<Spanned<String>>,
}

// ------------------------------------------------------------------------------------------
// The checked file.

/// A test file, read and checked against its spec.
#[derive(Debug)]
pub struct TestFile {
    pub cases: Vec<Case>,
}

/// One case: steps run in order against a fresh store.
#[derive(Debug)]
pub struct Case {
    pub name: String,
    pub line: usize,
    pub env: BTreeMap<String, String>,
    pub steps: Vec<Step>,
}

/// One step of a case.
#[derive(Debug, Clone)]
pub struct Step {
    pub line: usize,
    /// Milliseconds after the case started.
    pub at_ms: i64,
    pub action: Action,
}

/// What a step does.
#[derive(Debug, Clone)]
pub enum Action {
    /// A hook event, and what its answer must be.
    Event(Box<EventStep>),
    /// The user approves the newest pending grant (`gate approve <id>`): what the latest ask
    /// minted, also when a steer-mode tier turned that ask into guidance.
    Approve,
}

/// A hook event a step sends.
#[derive(Debug, Clone)]
pub struct EventStep {
    pub runtime: Runtime,
    pub phase: Phase,
    pub tool: Option<String>,
    pub input: serde_json::Value,
    pub exit: Option<i64>,
    pub output: Option<String>,
    pub prompt: Option<String>,
    pub role: Option<String>,
    pub agent: Option<String>,
    pub session: String,
    pub cwd: String,
    pub expect: Expect,
}

/// The verdicts a step can expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Steer,
    Ask,
    Deny,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [Verdict::Allow, Verdict::Steer, Verdict::Ask, Verdict::Deny];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Steer => "steer",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

/// What a step's answer must be: the verdict, and optionally the rule that set the tier,
/// the tier, the work kind and the control state after the event.
#[derive(Debug, Clone)]
pub struct Expect {
    pub verdict: Verdict,
    pub rule: Option<RuleId>,
    pub tier: Option<TierId>,
    pub kind: Option<KindId>,
    pub state: Option<StateId>,
    /// The state a machine beside the spec's own must be in after the event: its index
    /// among the machines beside it, and the state (`state = "SPEC.STATE"`).
    pub beside_state: Option<(usize, StateId)>,
}

/// The default working directory of a case.
pub const DEFAULT_CWD: &str = "/home/user/proj";
/// The default session id of a case.
pub const DEFAULT_SESSION: &str = "spec-test";

/// One problem in a test file.
#[derive(Debug, Clone)]
pub struct Problem {
    pub span: Range<usize>,
    pub message: String,
}

/// Problems of one file, rendered `file:line:col: error: …` with the source line and a
/// caret.
pub fn render(shown: &str, source: &str, problems: &[Problem]) -> String {
    let mut text = String::new();
    for p in problems {
        let (line, col) = gate_spec::diag::line_col(source, p.span.start);
        let line_text = source.lines().nth(line - 1).unwrap_or("");
        let width = source
            .get(p.span.clone())
            .map(|s| s.lines().next().unwrap_or("").chars().count())
            .unwrap_or(1)
            .clamp(1, line_text.chars().count().saturating_sub(col - 1).max(1));
        let gutter = line.to_string().len();
        text.push_str(&format!(
            "{shown}:{line}:{col}: error: {}\n{:gutter$} |\n{line} | {line_text}\n{:gutter$} | {}{}\n",
            p.message,
            "",
            "",
            " ".repeat(col - 1),
            "^".repeat(width),
        ));
    }
    text
}

/// Read a test file's text and check it against `spec`: every name it uses must be the
/// spec's, and a top-level `spec = "NAME"` key must name it. All problems are returned at
/// once (every unknown key and name with the one meant), except that a file TOML cannot read,
/// or a value of the wrong type, stops at the first.
pub fn parse(source: &str, spec: &Spec) -> Result<TestFile, Vec<Problem>> {
    parse_beside(source, spec, &[])
}

/// [`parse`] for a spec with machines beside it (`beside`, in the spec's order): a step's
/// `state = "SPEC.STATE"` names the state of the machine of spec `SPEC` after the event.
pub fn parse_beside(source: &str, spec: &Spec, beside: &[&Spec]) -> Result<TestFile, Vec<Problem>> {
    let mut problems = super::keys::unknown(source);
    let raw: RawFile = match toml::from_str(source) {
        Ok(raw) => raw,
        Err(e) => {
            problems.push(Problem {
                span: e.span().unwrap_or(0..0),
                message: e.message().trim().to_string(),
            });
            return Err(problems);
        }
    };
    if let Some(name) = &raw.spec {
        if *name.get_ref() != *spec.name {
            problems.push(Problem {
                span: name.span(),
                message: format!(
                    "this file tests spec `{}`, but it is run against spec `{}`",
                    name.get_ref(),
                    spec.name
                ),
            });
        }
    }
    if raw.case.is_empty() {
        problems.push(Problem {
            span: 0..0,
            message: "no cases: add at least one [[case]] with steps".to_string(),
        });
    }
    let mut cases = Vec::new();
    let mut names: BTreeMap<String, Range<usize>> = BTreeMap::new();
    for raw_case in &raw.case {
        let c = raw_case.get_ref();
        if names
            .insert(c.name.get_ref().clone(), c.name.span())
            .is_some()
        {
            problems.push(Problem {
                span: c.name.span(),
                message: format!("case `{}` is named twice", c.name.get_ref()),
            });
        }
        let who = RawWho {
            runtime: c.runtime.clone(),
            role: c.role.clone(),
            agent: c.agent.clone(),
            session: c.session.clone(),
            cwd: c.cwd.clone(),
        };
        if c.steps.get_ref().is_empty() {
            problems.push(Problem {
                span: c.steps.span(),
                message: "a case needs at least one step".to_string(),
            });
        }
        let mut steps = Vec::new();
        let mut last_at = 0i64;
        for (i, raw_step) in c.steps.get_ref().iter().enumerate() {
            match step(source, (spec, beside), &who, raw_step, i, &mut last_at) {
                Ok(s) => match repetitions(raw_step.get_ref(), &mut last_at) {
                    Ok((count, every_ms)) => {
                        for n in 0..count {
                            let mut again = s.clone();
                            again.at_ms += n * every_ms;
                            steps.push(again);
                        }
                    }
                    Err(p) => problems.push(p),
                },
                Err(mut p) => problems.append(&mut p),
            }
        }
        cases.push(Case {
            name: c.name.get_ref().clone(),
            line: gate_spec::diag::line_col(source, raw_case.span().start).0,
            env: c.env.clone(),
            steps,
        });
    }
    if problems.is_empty() {
        Ok(TestFile { cases })
    } else {
        // In reading order: the unknown keys were found first.
        problems.sort_by_key(|p| p.span.start);
        Err(problems)
    }
}

/// How often a step is sent (`repeat`, default once) and how many milliseconds apart
/// (`every` seconds, default 1); `last_at` moves to the last repetition's time.
fn repetitions(s: &RawStep, last_at: &mut i64) -> Result<(i64, i64), Problem> {
    let count = match &s.repeat {
        None => 1,
        Some(r) if (1..=10_000).contains(r.get_ref()) => *r.get_ref(),
        Some(r) => return Err(problem(r.span(), "`repeat` is a count from 1 to 10000")),
    };
    let every = match &s.every {
        None => 1,
        Some(e) if s.repeat.is_none() => {
            return Err(problem(
                e.span(),
                "`every` spaces the repetitions of a `repeat`",
            ))
        }
        Some(e) if (0..=86_400).contains(e.get_ref()) => *e.get_ref(),
        Some(e) => return Err(problem(e.span(), "`every` is 0 to 86400 seconds")),
    };
    if s.approve.is_some() && count > 1 {
        return Err(problem(
            s.repeat.as_ref().map_or(0..0, Spanned::span),
            "an `approve` step cannot repeat",
        ));
    }
    *last_at += (count - 1) * every;
    Ok((count, every * 1000))
}

fn problem(span: Range<usize>, message: impl Into<String>) -> Problem {
    Problem {
        span,
        message: message.into(),
    }
}

/// `; did you mean `X`?` for a likely misspelling of one of `names`, else nothing.
fn meant<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> String {
    gate_spec::diag::did_you_mean(name, names)
        .map(|m| format!("; did you mean `{m}`?"))
        .unwrap_or_default()
}

/// A name looked up in one of the spec's lists.
fn lookup<'a>(
    what: &str,
    value: &Spanned<String>,
    names: impl Iterator<Item = &'a str> + Clone,
    problems: &mut Vec<Problem>,
) -> Option<usize> {
    let found = names.clone().position(|n| n == value.get_ref());
    if found.is_none() {
        let known: Vec<&str> = names.collect();
        problems.push(problem(
            value.span(),
            format!(
                "the spec has no {what} `{}` (its {what}s: {}){}",
                value.get_ref(),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                },
                meant(value.get_ref(), known.iter().copied())
            ),
        ));
    }
    found
}

fn step(
    source: &str,
    (spec, beside): (&Spec, &[&Spec]),
    who: &RawWho,
    raw: &Spanned<RawStep>,
    index: usize,
    last_at: &mut i64,
) -> Result<Step, Vec<Problem>> {
    let s = raw.get_ref();
    let span = raw.span();
    let line = gate_spec::diag::line_col(source, span.start).0;
    let mut problems = Vec::new();
    // Time: `at` seconds after the case started; by default one second after the last step.
    let at_secs = match &s.at {
        Some(at) => {
            if *at.get_ref() < *last_at {
                problems.push(problem(
                    at.span(),
                    format!(
                        "`at = {}` goes back in time: the step before is at {} s",
                        at.get_ref(),
                        last_at
                    ),
                ));
            } else if *at.get_ref() > 365 * 86_400 {
                problems.push(problem(at.span(), "`at` is at most a year (31536000 s)"));
            }
            *at.get_ref()
        }
        None if index == 0 => 0,
        None => *last_at + 1,
    };
    *last_at = at_secs.max(*last_at);
    let at_ms = at_secs.saturating_mul(1000);

    if let Some(approve) = &s.approve {
        let extra = s.event.is_some()
            || s.bash.is_some()
            || s.tool.is_some()
            || s.path.is_some()
            || s.input.is_some()
            || s.prompt.is_some()
            || s.expect.is_some()
            || s.rule.is_some()
            || s.tier.is_some()
            || s.kind.is_some()
            || s.state.is_some();
        if !approve.get_ref() {
            problems.push(problem(
                approve.span(),
                "`approve = false` means nothing: leave the step out",
            ));
        } else if extra {
            problems.push(problem(
                span,
                "an `approve` step only approves the newest pending grant (`at` may say when); \
                 retry the action in a step of its own",
            ));
        }
        return if problems.is_empty() {
            Ok(Step {
                line,
                at_ms,
                action: Action::Approve,
            })
        } else {
            Err(problems)
        };
    }

    // The runtime.
    let runtime_value = s.runtime.as_ref().or(who.runtime.as_ref());
    let runtime = match runtime_value {
        None => Runtime::ClaudeCode,
        Some(r) => Runtime::parse(r.get_ref()).unwrap_or_else(|| {
            let known: Vec<&str> = Runtime::ALL.iter().map(|r| r.as_str()).collect();
            problems.push(problem(
                r.span(),
                format!(
                    "unknown runtime `{}` (one of: {}){}",
                    r.get_ref(),
                    known.join(", "),
                    meant(r.get_ref(), known.iter().copied())
                ),
            ));
            Runtime::ClaudeCode
        }),
    };

    // The event kind: given, or implied by what the step carries.
    let has_action = s.bash.is_some() || s.tool.is_some();
    let phase = match &s.event {
        Some(e) => match payload::EVENT_KINDS.iter().find(|(n, _)| *n == e.get_ref()) {
            Some((_, p)) => *p,
            None => {
                let known: Vec<&str> = payload::EVENT_KINDS.iter().map(|(n, _)| *n).collect();
                problems.push(problem(
                    e.span(),
                    format!(
                        "unknown event `{}` (one of: {}){}",
                        e.get_ref(),
                        known.join(", "),
                        meant(e.get_ref(), known.iter().copied())
                    ),
                ));
                Phase::PreTool
            }
        },
        None if s.prompt.is_some() && !has_action => Phase::Prompt,
        None if has_action => Phase::PreTool,
        None => {
            problems.push(problem(
                span.clone(),
                "a step needs an action: `bash = \"…\"`, `tool = \"…\"`, `prompt = \"…\"`, \
                 `event = \"…\"` or `approve = true`",
            ));
            Phase::PreTool
        }
    };
    let tool_phase = matches!(
        phase,
        Phase::PreTool | Phase::PostTool | Phase::PostToolFailure
    );
    if s.bash.is_some() && s.tool.is_some() {
        problems.push(problem(
            span.clone(),
            "give `bash` (a shell command) or `tool` (with `input` or `path`), not both",
        ));
    }
    if tool_phase && !has_action {
        problems.push(problem(
            span.clone(),
            format!(
                "a {} event needs `bash = \"…\"` or `tool = \"…\"`",
                phase.as_str()
            ),
        ));
    }
    if !tool_phase && has_action {
        problems.push(problem(
            span.clone(),
            format!(
                "a {} event carries no tool call; leave out `bash` and `tool`",
                phase.as_str()
            ),
        ));
    }
    if s.bash.is_some() && (s.input.is_some() || s.path.is_some()) {
        problems.push(problem(
            span.clone(),
            "`bash` is the whole input; `input` and `path` go with `tool`",
        ));
    }
    if let Some(exit) = &s.exit {
        if phase != Phase::PostTool {
            problems.push(problem(
                exit.span(),
                "`exit` is the status of a tool that ran: only on `event = \"post_tool\"`",
            ));
        }
    }
    if s.output.is_some() && phase != Phase::PostTool {
        problems.push(problem(
            span.clone(),
            "`output` is what a tool that ran printed: only on `event = \"post_tool\"`",
        ));
    }
    if s.prompt.is_some() && phase != Phase::Prompt {
        problems.push(problem(
            span.clone(),
            "`prompt` is the user's text of a `prompt` event",
        ));
    }

    // The tool call.
    let (tool, input) = if let Some(command) = &s.bash {
        (
            Some(payload::shell_tool(runtime).to_string()),
            serde_json::json!({ "command": command }),
        )
    } else if let Some(tool) = &s.tool {
        let mut input = match &s.input {
            Some(table) => serde_json::to_value(table).unwrap_or_default(),
            None => serde_json::json!({}),
        };
        if let (Some(path), Some(map)) = (&s.path, input.as_object_mut()) {
            map.insert("file_path".to_string(), serde_json::json!(path));
        }
        (Some(tool.clone()), input)
    } else {
        (None, serde_json::Value::Null)
    };

    // Who acts.
    let role = s.role.as_ref().or(who.role.as_ref());
    if let Some(r) = role {
        lookup(
            "role",
            r,
            spec.roles.iter().map(|r| &*r.name),
            &mut problems,
        );
    }
    let agent = s.agent.as_ref().or(who.agent.as_ref());
    if let Some(a) = agent {
        if !runtime.provides(gate_spec::ir::Telemetry::Subagent) {
            problems.push(problem(
                a.span(),
                format!(
                    "{} reports no subagent; `agent` needs claude-code",
                    runtime.as_str()
                ),
            ));
        }
    }
    let exit = s.exit.as_ref().map(|e| *e.get_ref());
    if let Err(message) = payload::event_name(runtime, phase, exit) {
        let at = s
            .event
            .as_ref()
            .map(Spanned::span)
            .or_else(|| s.exit.as_ref().map(Spanned::span))
            .unwrap_or_else(|| span.clone());
        problems.push(problem(at, message));
    }

    // What the answer must be.
    let verdict = match &s.expect {
        None => Verdict::Allow,
        Some(v) => match Verdict::ALL.iter().find(|x| x.as_str() == v.get_ref()) {
            Some(x) => *x,
            None => {
                problems.push(problem(
                    v.span(),
                    format!(
                        "unknown verdict `{}` (one of: allow, steer, ask, deny){}",
                        v.get_ref(),
                        meant(v.get_ref(), Verdict::ALL.iter().map(|x| x.as_str()))
                    ),
                ));
                Verdict::Allow
            }
        },
    };
    let rule = s.rule.as_ref().and_then(|r| {
        lookup(
            "rule",
            r,
            spec.rules.iter().map(|r| &*r.name),
            &mut problems,
        )
        .map(|i| i as RuleId)
    });
    let tier = s.tier.as_ref().and_then(|t| {
        lookup(
            "tier",
            t,
            spec.tiers.iter().map(|t| &*t.name),
            &mut problems,
        )
        .map(|i| i as TierId)
    });
    let kind = s.kind.as_ref().and_then(|k| {
        lookup(
            "kind",
            k,
            spec.kinds.iter().map(|k| &*k.name),
            &mut problems,
        )
        .map(|i| i as KindId)
    });
    // `SPEC.STATE` names a state of a machine beside the spec's own; `REGION.STATE` one of
    // the spec's own regions (`[[region]]`), whose state names are unique in the spec.
    let own_region = |m: &str| spec.regions.iter().any(|r| *r.name == *m);
    let region_state = s.state.as_ref().and_then(|st| {
        st.get_ref()
            .split_once('.')
            .filter(|(m, _)| own_region(m))
            .map(|(_, n)| Spanned::new(st.span(), n.to_string()))
    });
    let qualified = s
        .state
        .as_ref()
        .filter(|_| region_state.is_none())
        .and_then(|st| st.get_ref().split_once('.').map(|(m, n)| (st, m, n)));
    let mut beside_state = None;
    if let Some((st, machine, name)) = qualified {
        match beside.iter().position(|b| *b.name == *machine) {
            Some(i) => {
                let named = Spanned::new(st.span(), name.to_string());
                beside_state = lookup(
                    "state",
                    &named,
                    beside[i].states.iter().map(|s| &*s.name),
                    &mut problems,
                )
                .map(|id| (i, id as StateId));
            }
            None => problems.push(problem(
                st.span(),
                format!(
                    "no machine `{machine}` runs beside spec `{}` (beside it: {})",
                    spec.name,
                    if beside.is_empty() {
                        "none".to_string()
                    } else {
                        beside
                            .iter()
                            .map(|b| &*b.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            )),
        }
    }
    let state = region_state
        .as_ref()
        .or(s.state.as_ref())
        .filter(|_| qualified.is_none())
        .and_then(|st| {
            lookup(
                "state",
                st,
                spec.states.iter().map(|s| &*s.name),
                &mut problems,
            )
            .map(|i| i as StateId)
        });
    // `REGION.STATE` must name a state of that region.
    if let (Some(st), Some(id)) = (s.state.as_ref(), state) {
        if let Some((region, name)) = st.get_ref().split_once('.').filter(|(m, _)| own_region(m)) {
            let own = spec.states[id as usize].region;
            if own.map(|r| &*spec.regions[r as usize].name) != Some(region) {
                problems.push(problem(
                    st.span(),
                    format!(
                        "region `{region}` has no state `{name}` (it is `{}`)",
                        spec.state_label(id)
                    ),
                ));
            }
        }
    }
    if !tool_phase {
        for (key, given) in [("rule", &s.rule), ("tier", &s.tier), ("kind", &s.kind)] {
            if let Some(v) = given {
                problems.push(problem(
                    v.span(),
                    format!("a {} event has no tool call, so no {key}", phase.as_str()),
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Step {
        line,
        at_ms,
        action: Action::Event(Box::new(EventStep {
            runtime,
            phase,
            tool,
            input,
            exit,
            output: s.output.clone(),
            prompt: s.prompt.clone(),
            role: role.map(|r| r.get_ref().clone()),
            agent: agent.map(|a| a.get_ref().clone()),
            session: s
                .session
                .clone()
                .or_else(|| who.session.clone())
                .unwrap_or_else(|| DEFAULT_SESSION.to_string()),
            cwd: s
                .cwd
                .clone()
                .or_else(|| who.cwd.clone())
                .unwrap_or_else(|| DEFAULT_CWD.to_string()),
            expect: Expect {
                verdict,
                rule,
                tier,
                kind,
                state,
                beside_state,
            },
        })),
    })
}
