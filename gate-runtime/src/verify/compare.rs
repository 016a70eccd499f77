//! Two specs' behaviour compared over the abstract alphabet: every (role, state, event)
//! both can meet is explored in each, and the pairs whose answers differ are listed with the
//! transitions that fired on each side. States, roles and events are matched by name, so
//! a renumbered spec compares equal to itself.
//!
//! When a side is beyond the exact budget its counters are abstracted (see
//! [`super::abstraction`]): its events carry a valuation of its counter conditions, and the
//! pairs are compared per valuation (a side explored exactly, or without counters, answers
//! the same under every valuation).

use std::collections::{BTreeMap, BTreeSet};

use gate_spec::exec::Machine;
use gate_spec::ir::Spec;
use serde::Serialize;

use super::alphabet::Age;
use super::answer::Answer;
use super::counterexample::{role_name, transition_text};

/// One (role, state, event) whose answer differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub role: String,
    /// The state the event arrives in.
    pub state: String,
    /// The event is the identity's first.
    pub first: bool,
    pub event: String,
    /// The valuation of the abstracted counters' conditions it carries, e.g.
    /// `edits>=40, green==0` (absent when neither side's counters are abstracted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valuation: Option<String>,
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
    /// a state it never reaches). An event of NEW's with an extra trigger OLD lacks (a new
    /// checkpoint's evidence, a new signal's edge) is compared instead with the same event
    /// without it, when OLD meets that.
    pub only_before: usize,
    pub only_after: usize,
    /// Of the triples only one spec meets, those it answers other than `allow` (a new tier
    /// that asks, a new role denied): `before` empty for those only NEW meets, `after` for
    /// those only OLD does.
    pub unmatched_withheld: Vec<Difference>,
    /// A side's counters were abstracted: compared per valuation of its counter conditions.
    pub counters_abstracted: bool,
}

/// (role, state, first event, event without valuation, valuation text: empty when none).
type Key = (String, String, bool, String, String);
/// The answers met for a key, and the transitions fired at one step of it.
type Entry = (BTreeSet<Answer>, Vec<String>);
type Seen = BTreeMap<Key, Entry>;

/// Per event description, the same event without its extra trigger (a checkpoint's evidence,
/// a signal's edge, …).
type Plain = BTreeMap<String, String>;

fn observed(spec: &Spec, explored: &super::Explored) -> (Seen, Plain) {
    let mut out: Seen = BTreeMap::new();
    let mut plain: Plain = BTreeMap::new();
    let graphs = &explored.graphs;
    let Some(first) = graphs.first() else {
        return (out, plain);
    };
    // Each letter described once: the event, and its valuation.
    let names: Vec<(String, String)> = first
        .letters
        .iter()
        .map(|l| {
            let event = super::alphabet::Letter { val: None, ..*l }.describe(spec);
            let without = super::alphabet::Letter {
                val: None,
                extra: super::alphabet::Extra::None,
                ..*l
            }
            .describe(spec);
            plain.insert(event.clone(), without);
            let val = match (&explored.abstraction, l.val) {
                (Some(abs), Some(v)) => abs.describe(v),
                _ => String::new(),
            };
            (event, val)
        })
        .collect();
    for g in graphs {
        let role = role_name(spec, g.role).to_string();
        for step in &g.steps {
            let node = &g.nodes[step.from];
            let (event, val) = &names[step.letter];
            let key = (
                role.clone(),
                spec.state_name(node.state).to_string(),
                node.age == Age::New,
                event.clone(),
                val.clone(),
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
    (out, plain)
}

/// A side's entry for a key: the same valuation, else its one entry without valuation.
fn lookup(seen: &Seen, key: &Key) -> Option<Entry> {
    seen.get(key).cloned().or_else(|| {
        let mut plain = key.clone();
        plain.4 = String::new();
        seen.get(&plain).cloned()
    })
}

/// A key met by one side only, as a difference with the other side's answers empty.
fn unmatched(key: &Key, entry: &Entry, old_side: bool) -> Difference {
    let answers: Vec<Answer> = entry.0.iter().copied().collect();
    let (before, after) = if old_side {
        (answers, Vec::new())
    } else {
        (Vec::new(), answers)
    };
    let (fired_before, fired_after) = if old_side {
        (entry.1.clone(), Vec::new())
    } else {
        (Vec::new(), entry.1.clone())
    };
    Difference {
        role: key.0.clone(),
        state: key.1.clone(),
        first: key.2,
        event: key.3.clone(),
        valuation: (!key.4.is_empty()).then(|| key.4.clone()),
        before,
        after,
        fired_before,
        fired_after,
    }
}

/// OLD's keys matched with NEW's: the pairs (key, OLD's entry, NEW's entry), NEW's keys
/// matched, and OLD's keys NEW does not meet.
struct Paired {
    pairs: Vec<(Key, Entry, Entry)>,
    matched_new: BTreeSet<Key>,
    only_old: Vec<Key>,
}

fn pair(old: &Seen, new: &Seen) -> Paired {
    let mut p = Paired {
        pairs: Vec::new(),
        matched_new: BTreeSet::new(),
        only_old: Vec::new(),
    };
    for (key, entry) in old {
        // NEW may be valued where OLD is not: each of its valuations meets OLD's entry.
        let valued: Vec<&Key> = if key.4.is_empty() {
            let from = (
                key.0.clone(),
                key.1.clone(),
                key.2,
                key.3.clone(),
                String::new(),
            );
            new.range(from..)
                .map(|(k, _)| k)
                .take_while(|k| k.0 == key.0 && k.1 == key.1 && k.2 == key.2 && k.3 == key.3)
                .filter(|k| !k.4.is_empty())
                .collect()
        } else {
            Vec::new()
        };
        if !valued.is_empty() {
            for k in valued {
                p.matched_new.insert(k.clone());
                p.pairs.push((k.clone(), entry.clone(), new[k].clone()));
            }
            continue;
        }
        match lookup(new, key) {
            None => p.only_old.push(key.clone()),
            Some(other) => {
                p.matched_new.insert(key.clone());
                let mut plain = key.clone();
                plain.4 = String::new();
                p.matched_new.insert(plain);
                p.pairs.push((key.clone(), entry.clone(), other));
            }
        }
    }
    p
}

/// Compares the behaviour of `before` and `after`, each explored as a new identity under
/// every role it defines (exactly, or with its counters abstracted when beyond the exact
/// budget); `Err` when either is too large even so.
pub fn compare(
    before: (&Spec, &dyn Machine),
    after: (&Spec, &dyn Machine),
) -> Result<Comparison, super::TooLarge> {
    let old_explored = super::explore_all(before.0, before.1, None)?;
    let new_explored = super::explore_all(after.0, after.1, None)?;
    let (old, _) = observed(before.0, &old_explored);
    let (new, new_plain) = observed(after.0, &new_explored);
    let mut c = Comparison {
        counters_abstracted: old_explored.abstraction.is_some()
            || new_explored.abstraction.is_some(),
        ..Comparison::default()
    };
    let paired = pair(&old, &new);
    c.only_before = paired.only_old.len();
    for (key, (answers, fired), (other, other_fired)) in paired.pairs {
        c.compared += 1;
        if answers != other {
            c.differences.push(Difference {
                role: key.0,
                state: key.1,
                first: key.2,
                event: key.3,
                valuation: (!key.4.is_empty()).then_some(key.4),
                before: answers.into_iter().collect(),
                after: other.into_iter().collect(),
                fired_before: fired,
                fired_after: other_fired,
            });
        }
    }
    let withheld = |answers: &BTreeSet<Answer>| answers.iter().any(|a| *a != Answer::Allow);
    for (key, entry) in new.iter().filter(|(k, _)| !paired.matched_new.contains(*k)) {
        // An event whose extra trigger OLD lacks (a new checkpoint or signal) is compared
        // with the same event without it, which OLD meets.
        let fallback = new_plain
            .get(&key.3)
            .filter(|p| **p != key.3)
            .and_then(|p| {
                let without = (
                    key.0.clone(),
                    key.1.clone(),
                    key.2,
                    p.clone(),
                    key.4.clone(),
                );
                lookup(&old, &without)
            });
        if let Some((answers, fired)) = fallback {
            c.compared += 1;
            if answers != entry.0 {
                c.differences.push(Difference {
                    before: answers.into_iter().collect(),
                    fired_before: fired,
                    ..unmatched(key, entry, false)
                });
            }
            continue;
        }
        c.only_after += 1;
        if withheld(&entry.0) {
            c.unmatched_withheld.push(unmatched(key, entry, false));
        }
    }
    for key in &paired.only_old {
        let entry = &old[key];
        if withheld(&entry.0) {
            c.unmatched_withheld.push(unmatched(key, entry, true));
        }
    }
    Ok(c)
}
