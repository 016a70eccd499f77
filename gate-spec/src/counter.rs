//! Static checks of bounded counters (`[[counter]]`): which guards can both hold, and counters
//! that are never read or never counted.

use crate::broken::Broken;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{CounterGuard, Effect, Spec};

/// Whether some counter values satisfy both lists of conditions (for G009): they do unless
/// one counter's two ranges are disjoint.
pub fn ranges_meet(a: &[CounterGuard], b: &[CounterGuard]) -> bool {
    a.iter().all(|x| {
        b.iter()
            .filter(|y| y.counter == x.counter)
            .all(|y| x.lo <= y.hi && y.lo <= x.hi)
    })
}

/// G019 (warnings): a counter no guard reads, or that no transition increments; G020
/// (warning): a guard that needs a counter above zero when nothing increments it.
pub fn check(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    let n = spec.counters.len();
    let mut read = vec![false; n];
    let mut counted = vec![false; n];
    for t in &spec.transitions {
        for g in &t.guard.counters {
            read[g.counter as usize] = true;
        }
        for e in t.effects.iter() {
            if let Effect::Inc { counter } = e {
                counted[*counter as usize] = true;
            }
        }
    }
    // A broken transition may have read or counted any counter it names.
    let unsure = |i: usize| broken.used_counters.contains(&i) && !broken.transitions.is_empty();
    for (i, c) in spec.counters.iter().enumerate() {
        if unsure(i) {
            continue;
        }
        if !read[i] {
            diags.push(
                Diagnostic::warning(
                    Code::Unused,
                    c.span,
                    format!("counter `{}` is never read", c.name),
                )
                .with_help(format!(
                    "compare it in a transition's guard (`counter = \"{} >= N\"`), or remove it",
                    c.name
                )),
            );
        } else if !counted[i] {
            diags.push(
                Diagnostic::warning(
                    Code::Unused,
                    c.span,
                    format!("counter `{}` is never incremented: it stays 0", c.name),
                )
                .with_help(format!("give a transition the effect `inc:{}`", c.name)),
            );
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for t in &spec.transitions {
        for g in &t.guard.counters {
            let i = g.counter as usize;
            if g.lo > 0 && !counted[i] && !unsure(i) && seen.insert(t.span) {
                diags.push(Diagnostic::warning(
                    Code::GuardNeverHolds,
                    t.guard.span.unwrap_or(t.span),
                    format!(
                        "this guard needs `{}`, but nothing increments counter `{}`: the transition never fires",
                        spec.counter_guard_text(g),
                        spec.counters[i].name
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(counter: u8, lo: u16, hi: u16) -> CounterGuard {
        CounterGuard { counter, lo, hi }
    }

    #[test]
    fn ranges_meet_unless_one_counter_is_split() {
        assert!(ranges_meet(&[], &[g(0, 40, 41)]));
        assert!(ranges_meet(&[g(0, 0, 40)], &[g(0, 40, 41)]));
        assert!(!ranges_meet(&[g(0, 0, 39)], &[g(0, 40, 41)]));
        assert!(ranges_meet(&[g(0, 0, 39)], &[g(1, 40, 41)]));
        assert!(!ranges_meet(&[g(1, 3, 3), g(0, 0, 0)], &[g(0, 1, 9)]));
    }
}
