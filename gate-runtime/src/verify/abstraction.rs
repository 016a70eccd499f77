//! The counter abstraction: how a spec whose counters multiply its control space beyond the
//! exact explorer's budget is still explored. The explored node holds no counter value;
//! instead each letter is extended with a valuation of the spec's counter guard conditions
//! (`edits >= 40`, `fails < 2`, …) and every valuation is allowed at every node. Any real
//! run's counters give each of its events one of these valuations, so the explored graph
//! holds every real run: a safety property proven over it holds for every real run, while one
//! that fails over it may fail only for counter values no run reaches (possibly spurious).
//!
//! Per counter, the guards' constants cut `0..=max` into intervals (`[0,c1)`, `[c1,c2)`, …,
//! `[ck,max]`) and every condition is true or false on a whole interval, so a valuation is
//! one interval per counter; a letter is extended only over the counters that the guards of
//! the triggers it can carry read (the others are never asked about on it).
//!
//! Within one step, a transition's `reset:` and `inc:` move the counter's range of possible
//! values for the triggers after it (a reset to `0..=0`, an increment to one more at each
//! end, saturating). Where a counter incremented by one trigger of a letter is read by a
//! later trigger of the same letter, its intervals are cut finer on that letter (each
//! interval's last value apart), so that one increment lands in one interval. A read of a
//! range that still straddles a guard's constant is not decided: such a step is counted
//! ([`AbstractCounters::undetermined`]) and nothing is proven of the spec. Across steps the
//! counters are forgotten: the next event may carry any valuation.

use gate_spec::ir::{CounterGuard, Effect, Phase, Spec, Trigger};
use serde::Serialize;

use super::alphabet::{Extra, Letter};
use crate::interp::CounterTruth;

/// One valuation: an interval per counter (a digit per counter, mixed radix over the finer
/// cut's sizes), of which only the counters in `relevant` (a bit per counter) are read on its
/// letter, and those in `fine` are cut finer ([`Abstraction::fine`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Valuation {
    pub index: u32,
    pub relevant: u32,
    pub fine: u32,
}

/// A spec's counters cut into the intervals its guards tell apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abstraction {
    /// Per counter, its intervals as inclusive ranges, ascending, covering `0..=max`.
    pub intervals: Vec<Vec<(u16, u16)>>,
    /// The same, each interval's last value apart (except the last interval's, where an
    /// increment saturates): one increment of a value in one of these lands in one interval.
    pub fine: Vec<Vec<(u16, u16)>>,
    /// Per counter, its name and maximum.
    names: Vec<(String, u16)>,
}

impl Abstraction {
    /// The intervals of `spec`'s counters.
    pub fn of(spec: &Spec) -> Abstraction {
        let intervals = spec
            .counters
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut cuts = vec![0u16];
                for t in &spec.transitions {
                    for g in t.guard.counters.iter().filter(|g| g.counter as usize == i) {
                        cuts.push(g.lo);
                        if g.hi < c.max {
                            cuts.push(g.hi + 1);
                        }
                    }
                }
                cuts.retain(|&v| v <= c.max);
                cuts.sort_unstable();
                cuts.dedup();
                cuts.iter()
                    .enumerate()
                    .map(|(k, &lo)| (lo, cuts.get(k + 1).map_or(c.max, |next| next - 1)))
                    .collect()
            })
            .collect::<Vec<Vec<(u16, u16)>>>();
        let fine = intervals
            .iter()
            .map(|ranges| {
                let last = ranges.len() - 1;
                ranges
                    .iter()
                    .enumerate()
                    .flat_map(|(k, &(lo, hi))| {
                        if k < last && lo < hi {
                            vec![(lo, hi - 1), (hi, hi)]
                        } else {
                            vec![(lo, hi)]
                        }
                    })
                    .collect()
            })
            .collect();
        Abstraction {
            intervals,
            fine,
            names: spec
                .counters
                .iter()
                .map(|c| (c.name.to_string(), c.max))
                .collect(),
        }
    }

    /// The interval index of counter `c` in `val`.
    fn digit(&self, val: Valuation, c: usize) -> usize {
        let mut index = val.index as usize;
        for ranges in &self.fine[..c] {
            index /= ranges.len();
        }
        index % self.fine[c].len()
    }

    /// Counter `c`'s intervals in `val`: the finer cut or the guards' own.
    fn cut(&self, val: Valuation, c: usize) -> &[(u16, u16)] {
        if val.fine & (1 << c) != 0 {
            &self.fine[c]
        } else {
            &self.intervals[c]
        }
    }

    /// The interval of each counter in `val`.
    pub fn ranges(&self, val: Valuation) -> Vec<(u16, u16)> {
        (0..self.intervals.len())
            .map(|c| self.cut(val, c)[self.digit(val, c)])
            .collect()
    }

    /// The valuation readably: the relevant counters' intervals, e.g. `edits>=40, green==0`.
    pub fn describe(&self, val: Valuation) -> String {
        let ranges = self.ranges(val);
        (0..self.intervals.len())
            .filter(|c| val.relevant & (1 << c) != 0)
            .map(|c| {
                let (name, max) = &self.names[c];
                let (lo, hi) = ranges[c];
                if lo == hi {
                    format!("{name}=={lo}")
                } else if lo == 0 {
                    format!("{name}<{}", hi + 1)
                } else if hi == *max {
                    format!("{name}>={lo}")
                } else {
                    format!("{lo}<={name}<={hi}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every valuation over the counters in `relevant` (the others at their first interval),
    /// those in `fine` cut finer.
    fn valuations(&self, relevant: u32, fine: u32) -> Vec<Valuation> {
        let mut out = vec![0u32];
        let mut radix = 1u32;
        for c in 0..self.intervals.len() {
            if relevant & (1 << c) != 0 {
                let n = if fine & (1 << c) != 0 {
                    self.fine[c].len()
                } else {
                    self.intervals[c].len()
                } as u32;
                out = out
                    .iter()
                    .flat_map(|&i| (0..n).map(move |d| i + d * radix))
                    .collect();
            }
            radix *= self.fine[c].len() as u32;
        }
        out.into_iter()
            .map(|index| Valuation {
                index,
                relevant,
                fine,
            })
            .collect()
    }
}

/// Whether `trigger` can be present on an event of `letter`'s shape.
fn may_carry(letter: &Letter, trigger: Trigger) -> bool {
    let tool = letter.phase == Phase::PreTool;
    match trigger {
        Trigger::Event(p) => p == letter.phase,
        Trigger::Timeout => letter.extra == Extra::Timeout,
        Trigger::Approved => letter.extra == Extra::Approved,
        Trigger::Checkpoint(c) => letter.extra == Extra::Checkpoint(c),
        Trigger::Clear(s) => letter.extra == Extra::Fall(s),
        Trigger::Signal(s) => letter.extra == Extra::Rise(s),
        Trigger::While(s) => matches!(letter.extra, Extra::Rise(x) | Extra::On(x) if x == s),
        Trigger::Backstop => letter.extra == Extra::Backstop,
        Trigger::Tier(t) => tool && letter.tier == Some(t),
        Trigger::Action => tool,
    }
}

/// The counters (a bit each) that the guards of `letter`'s possible triggers read, and those
/// of them that a trigger before the reading one (in `exec`'s order) may increment.
pub fn relevant(spec: &Spec, letter: &Letter) -> (u32, u32) {
    let (mut read, mut fine, mut counted) = (0u32, 0u32, 0u32);
    for trigger in spec.all_triggers() {
        if !may_carry(letter, trigger) {
            continue;
        }
        let mut incs = 0u32;
        for t in spec.transitions.iter().filter(|t| t.trigger == trigger) {
            for g in &t.guard.counters {
                read |= 1 << g.counter;
                if counted & (1 << g.counter) != 0 {
                    fine |= 1 << g.counter;
                }
            }
            for e in t.effects.iter() {
                if let Effect::Inc { counter } = e {
                    incs |= 1 << counter;
                }
            }
        }
        counted |= incs;
    }
    (read, fine)
}

/// Every letter of `letters` extended with each valuation of its relevant counters, a
/// letter's valuations next to each other.
pub fn extend(spec: &Spec, abs: &Abstraction, letters: &[Letter]) -> Vec<Letter> {
    letters
        .iter()
        .flat_map(|l| {
            let (read, fine) = relevant(spec, l);
            abs.valuations(read, fine)
                .into_iter()
                .map(move |v| Letter { val: Some(v), ..*l })
        })
        .collect()
}

/// The counters' truth of one abstract step: per counter the range of values it may hold,
/// from the letter's valuation, moved by the step's own effects.
pub struct AbstractCounters {
    ranges: Vec<(u16, u16)>,
    max: Vec<u16>,
    /// A guard read a range that straddles its constant.
    pub undetermined: bool,
}

impl AbstractCounters {
    pub fn new(abs: &Abstraction, val: Valuation) -> Self {
        AbstractCounters {
            ranges: abs.ranges(val),
            max: abs.names.iter().map(|(_, max)| *max).collect(),
            undetermined: false,
        }
    }
}

impl CounterTruth for AbstractCounters {
    fn hold(&mut self, guards: &[CounterGuard]) -> bool {
        guards.iter().all(|g| {
            let (lo, hi) = self.ranges[g.counter as usize];
            if g.lo <= lo && hi <= g.hi {
                true
            } else if hi < g.lo || g.hi < lo {
                false
            } else {
                self.undetermined = true;
                false
            }
        })
    }

    fn apply(&mut self, _spec: &Spec, effects: &[Effect]) {
        for e in effects {
            match *e {
                Effect::Reset { counter } => self.ranges[counter as usize] = (0, 0),
                Effect::Inc { counter } => {
                    let c = counter as usize;
                    let (lo, hi) = self.ranges[c];
                    let up = |v: u16| v.saturating_add(1).min(self.max[c]);
                    self.ranges[c] = (up(lo), up(hi));
                }
                _ => {}
            }
        }
    }
}

/// An upper bound on the abstract exploration's steps: the exact bound (`budget::size`:
/// states of every state variable × re-arm values × ages × letters × roles) over the
/// extended letters, without the counters' value vectors.
pub fn size(spec: &Spec, extended: usize) -> u128 {
    let s = super::budget::size(spec, extended);
    s.steps / s.counter_vectors.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_train_counters_are_cut_at_their_constants() {
        let spec = gate_specs::ALL
            .iter()
            .find(|c| c.name == "release_train")
            .expect("shipped")
            .ir();
        let abs = Abstraction::of(spec);
        // declared, edits, fails, steered, hush.
        assert_eq!(
            abs.intervals,
            [
                vec![(0, 0), (1, 1)],
                vec![(0, 39), (40, 41)],
                vec![(0, 1), (2, 3)],
                vec![(0, 0), (1, 1)],
                vec![(0, 4), (5, 5)],
            ]
        );
        assert_eq!(abs.fine[4], [(0, 3), (4, 4), (5, 5)]);
        assert_eq!(abs.fine[0], [(0, 0), (1, 1)]);
        let all = abs.valuations(0b11111, 0);
        assert_eq!(all.len(), 32);
        assert_eq!(abs.valuations(0b11111, 0b10000).len(), 48);
        let v = all
            .iter()
            .find(|v| abs.ranges(**v) == [(1, 1), (40, 41), (0, 1), (0, 0), (0, 4)])
            .expect("every combination");
        // An increment then a read: 0..=3 moves to 1..=4 (`hush < 5` holds), 4 to 5.
        for (range, holds) in [((0, 3), true), ((4, 4), false)] {
            let val = abs
                .valuations(0b10000, 0b10000)
                .into_iter()
                .find(|v| abs.ranges(*v)[4] == range)
                .expect("cut finer");
            let mut truth = AbstractCounters::new(&abs, val);
            truth.apply(spec, &[Effect::Inc { counter: 4 }]);
            let below = CounterGuard {
                counter: 4,
                lo: 0,
                hi: 4,
            };
            assert_eq!(truth.hold(&[below]), holds);
            assert!(!truth.undetermined);
        }
        assert_eq!(
            abs.describe(Valuation {
                relevant: 0b110,
                ..*v
            }),
            "edits>=40, fails<2"
        );
    }
}
