//! How large an exhaustive exploration can be, bounded before it starts: a spec whose
//! control space is beyond what `gate verify` explores in reasonable time is explored with
//! its counters abstracted (`super::abstraction`, bounded the same way), or refused with the
//! sizes that make it so, rather than explored for hours (or until memory runs out).
//!
//! The bound multiplies what a node can hold (state, re-arm counter, age, every counter's
//! value) by the letters of the alphabet and the roles; the explorer meets at most that many
//! steps. The counters multiply it: six counters of maxima 1, 41, 1, 3, 1 and 5 give 8064
//! value vectors per state, times 14578 letters, times four roles.

use gate_spec::ir::Spec;
use serde::Serialize;

/// The most steps (bounded as [`size`] does) the explorer takes on: `default` is bounded
/// by about 2.2 million (and explores 0.4 million in about two seconds on a debug build),
/// the counter example by 0.2 million, release_train by 3.9·10¹⁰.
pub const MAX_STEPS: u128 = 100_000_000;

/// An upper bound on one spec's exploration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Size {
    /// States × re-arm values × ages × counter vectors.
    pub nodes: u128,
    /// Value vectors of the counters (1 without counters).
    pub counter_vectors: u128,
    pub letters: usize,
    /// Roles, no role included.
    pub roles: usize,
    /// Nodes × letters × roles.
    pub steps: u128,
}

/// The bound on `spec`'s exploration over an alphabet of `letters` letters.
pub fn size(spec: &Spec, letters: usize) -> Size {
    let counter_vectors: u128 = spec
        .counters
        .iter()
        .map(|c| u128::from(c.max) + 1)
        .product();
    // The main machine's states times each region's: the product is explored.
    let states: u128 = (0..=spec.regions.len())
        .map(|var| spec.states_of(var).count().max(1) as u128)
        .product();
    let nodes = states * (u128::from(spec.rearm.min_actions) + 1) * 3 * counter_vectors;
    let roles = spec.roles.len() + 1;
    Size {
        nodes,
        counter_vectors,
        letters,
        roles,
        steps: nodes * letters as u128 * roles as u128,
    }
}

/// A spec refused because its exploration could be larger than [`MAX_STEPS`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TooLarge {
    pub spec: String,
    pub size: Size,
    /// Each counter and its number of values, as `name 0..=max`.
    pub counters: Vec<String>,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.size;
        write!(
            f,
            "{}: not explored: its control space is up to {} nodes ({} counter value vectors) \
             × {} abstract events × {} roles = {} steps, beyond the {} the exhaustive explorer \
             takes on",
            self.spec, s.nodes, s.counter_vectors, s.letters, s.roles, s.steps, MAX_STEPS
        )?;
        if !self.counters.is_empty() {
            write!(
                f,
                "; the counters multiply it ({}), and with them abstracted it is still beyond",
                self.counters.join(", ")
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for TooLarge {}

/// `Err` when `spec`'s exploration over `letters` letters could exceed [`MAX_STEPS`].
pub fn check(spec: &Spec, letters: usize) -> Result<Size, TooLarge> {
    let size = size(spec, letters);
    if size.steps <= MAX_STEPS {
        return Ok(size);
    }
    Err(TooLarge {
        spec: spec.name.to_string(),
        size,
        counters: spec
            .counters
            .iter()
            .map(|c| format!("{} 0..={}", c.name, c.max))
            .collect(),
    })
}
