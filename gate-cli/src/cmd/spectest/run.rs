//! Running one spec test case the way the hooks would: each step's payload goes through the
//! runtime's adapter and [`gate_runtime::driver::run`] against a database of the case's own
//! (a fresh temporary directory), on a clock fixed by the steps' offsets; an `approve` step
//! approves the newest pending grant in that database as `gate approve` does. What the rules,
//! transitions and templates did is added to the [`Coverage`].

use std::collections::HashMap;

use anyhow::{Context as _, Result};
use gate_runtime::driver::{self, Options};
use gate_runtime::engine::{Engine, Outcome};
use gate_runtime::store::{ApproveOutcome, GrantStatus, Store};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{Effect, Phase, Spec, StateId};
use serde_json::{json, Value};

use super::file::{Action, Case, EventStep, Expect};
use super::payload;

/// The time a case starts at (2026-01-01T00:00:00Z): every case runs on the same clock.
pub const CASE_START_MS: i64 = 1_767_225_600_000;

/// Which of a spec's rules, transitions and templates some step exercised.
#[derive(Debug, Clone)]
pub struct Coverage {
    /// A rule matched a step's action.
    pub rules: Vec<bool>,
    /// A transition fired.
    pub transitions: Vec<bool>,
    /// A template was rendered into a verdict (a fired effect or a withholding state).
    pub templates: Vec<bool>,
    /// The same of each machine beside the spec's own (`alongside`), in the engine's order,
    /// kept apart: an item of a machine beside is that machine's, never the spec's.
    pub beside: Vec<Coverage>,
}

impl Coverage {
    /// Nothing exercised yet of `spec` and of the machines `beside` it.
    pub fn new(spec: &Spec, beside: &[&Spec]) -> Coverage {
        Coverage {
            rules: vec![false; spec.rules.len()],
            transitions: vec![false; spec.transitions.len()],
            templates: vec![false; spec.templates.len()],
            beside: beside.iter().map(|b| Coverage::new(b, &[])).collect(),
        }
    }

    /// Add what one evaluation exercised of the machines beside the spec's own.
    fn add_beside(&mut self, engine: &Engine<'_>, outcome: &Outcome, phase: Phase) {
        for ((c, a), m) in self
            .beside
            .iter_mut()
            .zip(&outcome.alongside)
            .zip(&engine.alongside)
        {
            c.add(m.spec, &a.outcome, phase, a.state);
        }
    }

    /// Add what one evaluation exercised; `state_after` is the control state it left.
    fn add(&mut self, spec: &Spec, outcome: &Outcome, phase: Phase, state_after: StateId) {
        for &r in &outcome.classification.matched {
            self.rules[r as usize] = true;
        }
        for &t in &outcome.fired {
            self.transitions[t as usize] = true;
            for effect in spec.transitions[t as usize].effects.iter() {
                if let Effect::Steer { template }
                | Effect::Ask { template }
                | Effect::Deny { template } = effect
                {
                    self.templates[*template as usize] = true;
                }
            }
        }
        if phase == Phase::PreTool {
            if let Some(w) = &spec.states[state_after as usize].withhold {
                self.templates[w.template as usize] = true;
            }
        }
    }

    /// Merge another run's coverage of the same spec.
    pub fn merge(&mut self, other: &Coverage) {
        for (a, b) in self.beside.iter_mut().zip(&other.beside) {
            a.merge(b);
        }
        for (a, b) in [
            (&mut self.rules, &other.rules),
            (&mut self.transitions, &other.transitions),
            (&mut self.templates, &other.templates),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= *y;
            }
        }
    }
}

/// What one step answered.
#[derive(Debug, Clone)]
pub struct Actual {
    pub verdict: &'static str,
    pub rule: Option<String>,
    pub tier: Option<String>,
    pub kind: Option<String>,
    pub state: String,
    /// The reason or guidance text of the verdict.
    pub text: String,
}

/// Why a case failed, at which step.
#[derive(Debug, Clone)]
pub struct Failure {
    /// 1-based step number.
    pub step: usize,
    pub line: usize,
    /// The step's event, in words.
    pub event: String,
    pub expected: String,
    /// What was answered, when the step was evaluated.
    pub actual: Option<Actual>,
    /// A failure that is not a verdict mismatch (nothing to approve).
    pub message: Option<String>,
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub name: String,
    pub line: usize,
    pub failure: Option<Failure>,
}

/// The event of a step, in words: `pre_tool Bash "git push -f" (role director)`.
pub fn describe(step: &EventStep) -> String {
    let mut text = step.phase_name().to_string();
    if let Some(tool) = &step.tool {
        text.push(' ');
        text.push_str(tool);
        match step.input.get("command").and_then(Value::as_str) {
            Some(command) => text.push_str(&format!(" `{command}`")),
            None if step.input.as_object().is_some_and(|m| !m.is_empty()) => {
                text.push(' ');
                text.push_str(&step.input.to_string());
            }
            None => {}
        }
    }
    if let Some(exit) = step.exit {
        text.push_str(&format!(" exit {exit}"));
    }
    if let Some(prompt) = &step.prompt {
        text.push_str(&format!(" {prompt:?}"));
    }
    let mut who = Vec::new();
    if step.runtime != gate_runtime::event::Runtime::ClaudeCode {
        who.push(step.runtime.as_str().to_string());
    }
    if let Some(role) = &step.role {
        who.push(format!("role {role}"));
    }
    if let Some(agent) = &step.agent {
        who.push(format!("agent {agent}"));
    }
    if !who.is_empty() {
        text.push_str(&format!(" ({})", who.join(", ")));
    }
    text
}

impl EventStep {
    fn phase_name(&self) -> &'static str {
        payload::EVENT_KINDS
            .iter()
            .find(|(_, p)| *p == self.phase)
            .map_or(self.phase.as_str(), |(n, _)| n)
    }
}

/// What a step expects, in words: `ask, rule force_push, state watch`.
pub fn describe_expect(engine: &Engine<'_>, e: &Expect) -> String {
    let spec = engine.spec;
    let mut parts = vec![e.verdict.as_str().to_string()];
    if let Some(r) = e.rule {
        parts.push(format!("rule {}", spec.rules[r as usize].name));
    }
    if let Some(t) = e.tier {
        parts.push(format!("tier {}", spec.tiers[t as usize].name));
    }
    if let Some(k) = e.kind {
        parts.push(format!("kind {}", spec.kinds[k as usize].name));
    }
    if let Some(s) = e.state {
        parts.push(format!("state {}", spec.state_name(s)));
    }
    if let Some(m) = e.beside_state.and_then(|(i, s)| {
        let m = engine.alongside.get(i)?.spec;
        Some(format!("state {}.{}", m.name, m.state_name(s)))
    }) {
        parts.push(m);
    }
    parts.join(", ")
}

impl Actual {
    /// In words, naming the same things the expectation names (and always the rule).
    pub fn describe(&self) -> String {
        let mut parts = vec![self.verdict.to_string()];
        parts.push(match &self.rule {
            Some(r) => format!("rule {r}"),
            None => "no rule".to_string(),
        });
        if let Some(t) = &self.tier {
            parts.push(format!("tier {t}"));
        }
        if let Some(k) = &self.kind {
            parts.push(format!("kind {k}"));
        }
        parts.push(format!("state {}", self.state));
        parts.join(", ")
    }

    pub fn json(&self) -> Value {
        json!({
            "verdict": self.verdict,
            "rule": self.rule,
            "tier": self.tier,
            "kind": self.kind,
            "state": self.state,
            "text": self.text,
        })
    }
}

fn verdict_text(v: &Verdict) -> &str {
    match v {
        Verdict::Allow => "",
        Verdict::Steer { text } => text,
        Verdict::Ask { reason, .. } | Verdict::Deny { reason } => reason,
    }
}

/// Run one case against `engine` in a database of its own.
pub fn run_case(engine: &Engine<'_>, case: &Case, coverage: &mut Coverage) -> Result<CaseResult> {
    let spec = engine.spec;
    let dir = tempfile::Builder::new()
        .prefix("gate-test-")
        .tempdir()
        .context("cannot create a temporary directory for the case's database")?;
    let db = dir.path().join("gate.db");
    let env = |name: &str| case.env.get(name).cloned();
    // The control state of every scope the case touched, followed from the fired transitions.
    // Per scope, every state variable's state: the machine's, then each region's.
    let mut states: HashMap<String, Vec<StateId>> = HashMap::new();
    let result = |failure| CaseResult {
        name: case.name.clone(),
        line: case.line,
        failure,
    };
    for (i, step) in case.steps.iter().enumerate() {
        let now_ms = CASE_START_MS + step.at_ms;
        let ev = match &step.action {
            Action::Approve => {
                let fail = |message: String| Failure {
                    step: i + 1,
                    line: step.line,
                    event: "approve".to_string(),
                    expected: "a pending ask to approve".to_string(),
                    actual: None,
                    message: Some(message),
                };
                // The newest pending grant, as the user would pick it from `gate grants`.
                let pending = if db.exists() {
                    let store = Store::open(&db).context("cannot open the case's database")?;
                    store
                        .grants(now_ms, true)?
                        .into_iter()
                        .find(|g| g.status(now_ms) == GrantStatus::Pending)
                } else {
                    None
                };
                let Some(grant) = pending else {
                    return Ok(result(Some(fail(
                        "nothing to approve: no ask before it is pending".to_string(),
                    ))));
                };
                let mut store = Store::open(&db).context("cannot open the case's database")?;
                match store.approve_grant(&grant.id, now_ms)? {
                    ApproveOutcome::Approved => {}
                    other => {
                        return Ok(result(Some(fail(format!(
                            "grant {} could not be approved: {other:?}",
                            grant.id
                        )))))
                    }
                }
                continue;
            }
            Action::Event(ev) => ev,
        };
        let payload = payload::build(ev, now_ms)
            .with_context(|| format!("{} has no such event", ev.runtime.as_str()))?;
        let bytes = serde_json::to_vec(&payload)?;
        let mut event = crate::adapters::normalize(ev.runtime, &bytes, None)
            .map_err(|e| anyhow::anyhow!("the adapter refused the step's payload: {e}"))?;
        // The project profiles, as the hook finds them: the case's `GATE_PROFILE`, else the
        // project files at the repository root of the step's directory.
        event.profiles = crate::profile::active(
            crate::profile::owner(engine),
            event.cwd.as_deref(),
            case.env.get("GATE_PROFILE").map(String::as_str),
        );
        let opts = Options {
            db_path: Some(db.clone()),
            role: ev.role.as_deref(),
            env: &env,
            now_ms,
            persist: true,
            busy_timeout: driver::BUSY_TIMEOUT,
            defer_checkpoint: false,
            exits_after: false,
            fail_closed: &[],
            stateful_fail_closed_after: 0,
        };
        let run = driver::run(engine, &event, &opts);
        if run.degraded || !run.faults.is_empty() {
            anyhow::bail!(
                "case `{}` step {}: the case's database failed ({}), so the answer is not the hook's",
                case.name,
                i + 1,
                run.faults.join("; ")
            );
        }
        let outcome = &run.outcome;
        let scope = driver::scope_key(spec.scope, &event);
        let vars = states.entry(scope).or_insert_with(|| spec.initials());
        for &t in &outcome.fired {
            let tr = &spec.transitions[t as usize];
            if let Some(v) = vars.get_mut(spec.var_of(tr.from)) {
                *v = tr.to;
            }
        }
        let vars = vars.clone();
        let state_after = vars[0];
        coverage.add(
            spec,
            outcome,
            event.phase.unwrap_or(Phase::Other),
            state_after,
        );
        coverage.add_beside(engine, outcome, event.phase.unwrap_or(Phase::Other));
        let tool_phase = matches!(
            event.phase,
            Some(Phase::PreTool | Phase::PostTool | Phase::PostToolFailure)
        );
        let c = &outcome.classification;
        let actual = Actual {
            verdict: run.decision.verdict.name(),
            rule: c.rule.map(|r| spec.rules[r as usize].name.to_string()),
            tier: tool_phase.then(|| spec.tiers[c.tier as usize].name.to_string()),
            kind: tool_phase.then(|| spec.kinds[c.kind as usize].name.to_string()),
            state: vars
                .iter()
                .map(|s| spec.state_label(*s))
                .chain(
                    outcome
                        .alongside
                        .iter()
                        .zip(&engine.alongside)
                        .map(|(a, m)| format!("{}.{}", a.spec, m.spec.state_name(a.state))),
                )
                .collect::<Vec<_>>()
                .join(" "),
            text: verdict_text(&run.decision.verdict).to_string(),
        };
        let e = &ev.expect;
        let ok = actual.verdict == e.verdict.as_str()
            && e.rule.is_none_or(|r| c.rule == Some(r))
            && e.tier.is_none_or(|t| tool_phase && c.tier == t)
            && e.kind.is_none_or(|k| tool_phase && c.kind == k)
            && e.state.is_none_or(|s| vars.get(spec.var_of(s)) == Some(&s))
            && e.beside_state
                .is_none_or(|(i, s)| outcome.alongside.get(i).is_some_and(|a| a.state == s));
        if !ok {
            return Ok(result(Some(Failure {
                step: i + 1,
                line: step.line,
                event: describe(ev),
                expected: describe_expect(engine, e),
                actual: Some(actual),
                message: None,
            })));
        }
    }
    Ok(result(None))
}
