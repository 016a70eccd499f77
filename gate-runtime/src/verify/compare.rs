//! Two specs' behaviour compared over the abstract alphabet: every (role, state, event)
//! both can meet is explored in each, and the pairs whose answers differ are listed with the
//! transitions that fired on each side. States, roles and events are matched by name, so
//! a renumbered spec compares equal to itself.

use std::collections::{BTreeMap, BTreeSet};

use gate_spec::exec::Machine;
use gate_spec::ir::Spec;
use serde::Serialize;

use super::alphabet::Age;
use super::answer::Answer;
use super::counterexample::{role_name, transition_text};
use super::explorer::Graph;

/// One (role, state, event) whose answer differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub role: String,
    /// The state the event arrives in.
    pub state: String,
    /// The event is the identity's first.
    pub first: bool,
    pub event: String,
    /// The answers it gets (over every re-arm counter and history that reaches the state).
    pub before: Vec<Answer>,
    pub after: Vec<Answer>,
    /// The transitions that fired on each side, at one such node.
    pub fired_before: Vec<String>,
    pub fired_after: Vec<String>,
}

/// What comparing two specs' behaviour found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Comparison {
    /// (role, state, event) triples both specs meet, compared.
    pub compared: usize,
    pub differences: Vec<Difference>,
    /// Triples only one spec meets (a state, role, tier, kind or trigger the other lacks, or
    /// a state it never reaches).
    pub only_before: usize,
    pub only_after: usize,
}

type Key = (String, String, bool, String);
type Seen = BTreeMap<Key, (BTreeSet<Answer>, Vec<String>)>;

fn observed(spec: &Spec, graphs: &[Graph]) -> Seen {
    let mut out: Seen = BTreeMap::new();
    for g in graphs {
        let role = role_name(spec, g.role).to_string();
        for step in &g.steps {
            let node = &g.nodes[step.from];
            let key = (
                role.clone(),
                spec.state_name(node.state).to_string(),
                node.age == Age::New,
                g.letters[step.letter].describe(spec),
            );
            let entry = out.entry(key).or_insert_with(|| {
                (
                    BTreeSet::new(),
                    step.fired
                        .iter()
                        .map(|&t| transition_text(spec, t))
                        .collect(),
                )
            });
            entry.0.insert(step.verdicts.answer);
        }
    }
    out
}

/// Compares the behaviour of `before` and `after`, each explored as a new identity under
/// every role it defines; `Err` when either is too large to explore.
pub fn compare(
    before: (&Spec, &dyn Machine),
    after: (&Spec, &dyn Machine),
) -> Result<Comparison, super::TooLarge> {
    let old = observed(before.0, &super::explore_all(before.0, before.1, None)?);
    let new = observed(after.0, &super::explore_all(after.0, after.1, None)?);
    let mut c = Comparison::default();
    for (key, (answers, fired)) in &old {
        match new.get(key) {
            None => c.only_before += 1,
            Some((other, other_fired)) => {
                c.compared += 1;
                if answers != other {
                    c.differences.push(Difference {
                        role: key.0.clone(),
                        state: key.1.clone(),
                        first: key.2,
                        event: key.3.clone(),
                        before: answers.iter().copied().collect(),
                        after: other.iter().copied().collect(),
                        fired_before: fired.clone(),
                        fired_after: other_fired.clone(),
                    });
                }
            }
        }
    }
    c.only_after = new.keys().filter(|k| !old.contains_key(*k)).count();
    Ok(c)
}
