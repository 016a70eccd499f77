//! Machines side by side (`[machine] alongside`): the one place where the machines beside a
//! spec's own are evaluated on an event and their answers combined ([`beside`]), whatever
//! keeps their states: a hook's transaction, a batch, a replay in memory, `gate explain`, a
//! degraded run. Each machine has its own state (stored under its own spec name and its own
//! scope key), its own signals, its own role, and its own audit rows; only the answer is
//! shared.
//!
//! The answer is the strictest of the machines' answers ([`combine`]): deny > ask > steer >
//! allow. The texts of every machine that gave that answer are joined, in machine order (the
//! spec's own first, then the `alongside` list's), with a blank line between them and a text
//! equal to one already taken left out; lesser answers' texts are not shown (they stay in
//! their machines' audit rows). An ask carries the grant of the first machine that asked: every
//! ask of one event is for the same action, so the store hands each machine the same pending
//! grant. Guidance carried to a later answer (Gemini's BeforeTool) is every machine's, joined
//! with a newline.
//!
//! A grant is consumed once per event, before any machine runs, and every machine sees it. An
//! approval lifts only an ask (the engine never lets a grant lift a deny), so when one
//! machine asks and another denies, approving the ask leaves the deny standing: strictest-first
//! then answers deny. Because each machine's own answer can only be lifted by its own state,
//! a forbidden action that any machine denies is denied by the composition.

use crate::engine::{Alongside, Engine, Outcome};
use crate::verdict::{Decision, Verdict};
use gate_spec::ir::StateId;

/// How strict an answer is: deny > ask > steer > allow.
pub fn strictness(verdict: &Verdict) -> u8 {
    match verdict {
        Verdict::Allow => 0,
        Verdict::Steer { .. } => 1,
        Verdict::Ask { .. } => 2,
        Verdict::Deny { .. } => 3,
    }
}

/// Evaluate every machine beside `engine`'s own on one event with `each` (given the machine's
/// index, 1 for the first `alongside` spec, and its engine; it returns the machine's outcome
/// and its state after the event), record them in `outcome.alongside`, and make
/// `outcome.decision` (the own machine's answer on entry) the combination of all answers.
/// Nothing changes for a spec with nothing beside it.
pub fn beside<E>(
    engine: &Engine<'_>,
    outcome: &mut Outcome,
    mut each: impl FnMut(usize, &Engine<'_>) -> Result<(Outcome, StateId), E>,
) -> Result<(), E> {
    outcome.alongside.clear();
    if engine.alongside.is_empty() {
        return Ok(());
    }
    for (i, machine) in engine.alongside.iter().enumerate() {
        let (theirs, state) = each(i + 1, machine)?;
        outcome.alongside.push(Alongside {
            spec: machine.spec.name.clone(),
            state,
            outcome: theirs,
        });
    }
    outcome.own_strictness = strictness(&outcome.decision.verdict);
    let answers: Vec<&Decision> = std::iter::once(&outcome.decision)
        .chain(outcome.alongside.iter().map(|a| &a.outcome.decision))
        .collect();
    outcome.decision = combine(&answers);
    Ok(())
}

/// The machines that gave `outcome`'s answer, in machine order: 0 is the spec's own, `i` the
/// `i`-th beside it (`outcome.alongside[i - 1]`). With nothing beside the spec, its own.
pub fn answering(outcome: &Outcome) -> impl Iterator<Item = usize> + '_ {
    let top = strictness(&outcome.decision.verdict);
    let own = outcome.alongside.is_empty() || outcome.own_strictness == top;
    own.then_some(0).into_iter().chain(
        outcome
            .alongside
            .iter()
            .enumerate()
            .filter(move |(_, a)| strictness(&a.outcome.decision.verdict) == top)
            .map(|(i, _)| i + 1),
    )
}

/// The strictest of `answers` (in machine order), with the texts of every machine that gave
/// it and everyone's carried guidance (see the module's documentation).
pub fn combine(answers: &[&Decision]) -> Decision {
    let top = answers
        .iter()
        .map(|d| strictness(&d.verdict))
        .max()
        .unwrap_or(0);
    let mut texts: Vec<&str> = Vec::new();
    let mut grant: Option<&str> = None;
    for d in answers {
        if strictness(&d.verdict) != top {
            continue;
        }
        let text = match &d.verdict {
            Verdict::Allow => continue,
            Verdict::Steer { text } => text,
            Verdict::Ask { reason, grant_id } => {
                grant.get_or_insert(grant_id);
                reason
            }
            Verdict::Deny { reason } => reason,
        };
        if !texts.contains(&text.as_str()) {
            texts.push(text);
        }
    }
    let joined = texts.join("\n\n");
    let verdict = match top {
        0 => Verdict::Allow,
        1 => Verdict::Steer { text: joined },
        2 => Verdict::Ask {
            reason: joined,
            grant_id: grant.unwrap_or_default().to_string(),
        },
        _ => Verdict::Deny { reason: joined },
    };
    let carried: Vec<&str> = answers
        .iter()
        .filter_map(|d| d.carried.as_deref())
        .collect();
    Decision {
        verdict,
        carried: (!carried.is_empty()).then(|| carried.join("\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(verdict: Verdict) -> Decision {
        Decision {
            verdict,
            carried: None,
        }
    }
    fn allow() -> Decision {
        d(Verdict::Allow)
    }
    fn steer(t: &str) -> Decision {
        d(Verdict::Steer { text: t.into() })
    }
    fn ask(r: &str, g: &str) -> Decision {
        d(Verdict::Ask {
            reason: r.into(),
            grant_id: g.into(),
        })
    }
    fn deny(r: &str) -> Decision {
        d(Verdict::Deny { reason: r.into() })
    }

    /// The machines named as answering are exactly those whose own answer is the combined one.
    #[test]
    fn answering_names_the_machines_that_gave_the_answer() {
        let all = [allow(), steer("s"), ask("a", "g-1"), deny("d")];
        for own in &all {
            for a in &all {
                for b in &all {
                    let mut outcome = Outcome::empty();
                    outcome.own_strictness = strictness(&own.verdict);
                    for theirs in [a, b] {
                        let mut o = Outcome::empty();
                        o.decision = theirs.clone();
                        outcome.alongside.push(Alongside {
                            spec: "beside".into(),
                            state: 0,
                            outcome: o,
                        });
                    }
                    outcome.decision = combine(&[own, a, b]);
                    let got: Vec<usize> = answering(&outcome).collect();
                    let want: Vec<usize> = [own, a, b]
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| d.verdict.name() == outcome.decision.verdict.name())
                        .map(|(i, _)| i)
                        .collect();
                    assert_eq!(got, want, "{own:?} {a:?} {b:?}");
                }
            }
        }
        // With nothing beside it, the spec's own machine answered.
        let mut alone = Outcome::empty();
        alone.decision = deny("d");
        assert_eq!(answering(&alone).collect::<Vec<_>>(), vec![0]);
    }

    /// Every pair of answers, both ways round: the strictest wins, with its own text.
    #[test]
    fn the_strictest_of_every_pair_wins() {
        let all = [allow(), steer("s"), ask("a", "g-1"), deny("d")];
        for x in &all {
            for y in &all {
                let got = combine(&[x, y]);
                let want = if strictness(&x.verdict) >= strictness(&y.verdict) {
                    x
                } else {
                    y
                };
                assert_eq!(got.verdict, want.verdict, "{x:?} beside {y:?}");
            }
        }
    }

    #[test]
    fn texts_of_the_winning_answer_are_joined_in_machine_order_once() {
        let got = combine(&[
            &deny("own"),
            &ask("theirs", "g"),
            &deny("other"),
            &deny("own"),
        ]);
        assert_eq!(
            got.verdict,
            Verdict::Deny {
                reason: "own\n\nother".into()
            }
        );
        let got = combine(&[&steer("a"), &steer("b"), &allow()]);
        assert_eq!(
            got.verdict,
            Verdict::Steer {
                text: "a\n\nb".into()
            }
        );
        let got = combine(&[&allow(), &ask("x", "g-2"), &ask("y", "g-2")]);
        assert_eq!(
            got.verdict,
            Verdict::Ask {
                reason: "x\n\ny".into(),
                grant_id: "g-2".into()
            }
        );
        assert_eq!(combine(&[&allow(), &allow()]).verdict, Verdict::Allow);
    }

    proptest::proptest! {
        /// What makes each machine's proof of `forbidden_never_allowed` hold for the
        /// composition: the combined answer is never less strict than any machine's, so a
        /// deny of any machine is the answer, whatever the others say.
        #[test]
        fn no_machines_answer_is_weakened(kinds in proptest::collection::vec(0u8..4, 1..6)) {
            let answers: Vec<Decision> = kinds
                .iter()
                .enumerate()
                .map(|(i, k)| match k {
                    0 => allow(),
                    1 => steer(&format!("s{i}")),
                    2 => ask(&format!("a{i}"), "g"),
                    _ => deny(&format!("d{i}")),
                })
                .collect();
            let refs: Vec<&Decision> = answers.iter().collect();
            let got = combine(&refs);
            for a in &answers {
                proptest::prop_assert!(strictness(&got.verdict) >= strictness(&a.verdict));
            }
            if kinds.contains(&3) {
                let denied = matches!(got.verdict, Verdict::Deny { .. });
                proptest::prop_assert!(denied, "{:?}", got);
            }
        }
    }

    #[test]
    fn carried_guidance_is_everyones() {
        let mut a = allow();
        a.carried = Some("one".into());
        let mut b = deny("no");
        b.carried = Some("two".into());
        let got = combine(&[&a, &b]);
        assert_eq!(got.carried.as_deref(), Some("one\ntwo"));
        assert_eq!(combine(&[&allow(), &deny("x")]).carried, None);
    }
}
