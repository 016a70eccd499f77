//! Counterexamples: the shortest event sequence from a new identity that breaks an invariant,
//! in the spec's own words, and a finding (one invariant's result) that carries it.

use gate_spec::ir::{RoleId, Spec};
use serde::Serialize;

use super::alphabet::Letter;
use super::answer::Answer;
use super::explorer::Graph;

/// One event of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// The abstract event, e.g. `pre_tool tier=blocked kind=risky`.
    pub event: String,
    /// The state it arrives in and the state it leaves.
    pub from: String,
    pub to: String,
    /// The transitions that fired, as `from --trigger--> to`.
    pub fired: Vec<String>,
    /// What the hook answers (absent where the counterexample is below the verdict level).
    pub answer: Option<Answer>,
}

/// A concrete way to break an invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// The identity's role (`none` for no role).
    pub role: String,
    /// The events from a new identity, in order; the last one breaks the invariant.
    pub events: Vec<Event>,
    /// Why the last event breaks it.
    pub why: String,
    /// The abstract events of `events`, in order, when they are steps of the explored
    /// control graph ([`super::replay`] runs them again on a machine); empty for a
    /// counterexample outside it (a debouncer's samples, a finding about the spec's text).
    #[serde(skip)]
    pub trace: Vec<Letter>,
}

impl Counterexample {
    /// The counterexample of a path of steps (indices into `graph.steps`).
    pub fn of_path(spec: &Spec, graph: &Graph, path: &[usize], why: String) -> Counterexample {
        let events = path
            .iter()
            .map(|&s| {
                let step = &graph.steps[s];
                Event {
                    event: graph.letters[step.letter].describe(spec),
                    from: spec.state_name(graph.nodes[step.from].state).to_string(),
                    to: spec.state_name(graph.nodes[step.to].state).to_string(),
                    fired: step
                        .fired
                        .iter()
                        .map(|&t| transition_text(spec, t))
                        .collect(),
                    answer: Some(step.verdicts.answer),
                }
            })
            .collect();
        Counterexample {
            role: role_name(spec, graph.role).to_string(),
            events,
            why,
            trace: path
                .iter()
                .map(|&s| graph.letters[graph.steps[s].letter])
                .collect(),
        }
    }

    /// The path to `node` followed by one more step.
    pub fn to_step(spec: &Spec, graph: &Graph, step: usize, why: String) -> Counterexample {
        let mut path = graph.path_to(graph.steps[step].from);
        path.push(step);
        Counterexample::of_path(spec, graph, &path, why)
    }

    /// Renders the counterexample as numbered lines, each indented by `indent`.
    pub fn render(&self, indent: &str) -> String {
        let mut out = format!("{indent}role {}, from a new identity:\n", self.role);
        for (i, e) in self.events.iter().enumerate() {
            out.push_str(&format!("{indent}  {}. {}", i + 1, e.event));
            if let Some(a) = e.answer {
                out.push_str(&format!(" -> {}", a.as_str()));
            }
            if e.from.is_empty() {
            } else if e.from == e.to {
                out.push_str(&format!("  [in {}]", e.from));
            } else {
                out.push_str(&format!("  [{} -> {}]", e.from, e.to));
            }
            if !e.fired.is_empty() {
                out.push_str(&format!(" fired: {}", e.fired.join("; ")));
            }
            out.push('\n');
        }
        out.push_str(&format!("{indent}  {}\n", self.why));
        out
    }
}

/// A transition as `from --trigger--> to` (line of its declaration in the spec's spans).
pub fn transition_text(spec: &Spec, t: u16) -> String {
    let tr = &spec.transitions[t as usize];
    format!(
        "{} --{}--> {}",
        spec.state_name(tr.from),
        spec.trigger_text(tr.trigger),
        spec.state_name(tr.to)
    )
}

/// A role's name, `none` for no role.
pub fn role_name(spec: &Spec, role: Option<RoleId>) -> &str {
    role.map_or("none", |r| &spec.roles[r as usize].name)
}

/// The result of checking one invariant.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub name: String,
    /// Built into gate (holds for every spec), or declared by the spec (`[[invariant]]`).
    pub builtin: bool,
    /// What the invariant says.
    pub statement: String,
    /// How many steps (or nodes) it was checked on.
    pub checked: usize,
    /// What the check found along the way (e.g. which tiers are forbidden).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The shortest way to break it, when it does not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<Counterexample>,
    /// Decided with the counters abstracted (`super::abstraction`): proven means for every
    /// value of each counter; a counterexample is an abstract trace, possibly spurious.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub counters_abstracted: bool,
    /// Why it could not be decided (nothing is proven of it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
}

impl Finding {
    /// Whether it is proven.
    pub fn holds(&self) -> bool {
        self.counterexample.is_none() && self.undecided.is_none()
    }
}
