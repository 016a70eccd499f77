//! Verification of a spec by exhaustive exploration: every property is decided over the
//! machine's whole control space, and a false one comes with the shortest event sequence
//! from a new identity that breaks it.
//!
//! "Proven" here means: true on every step of the abstract alphabet ([`alphabet`]) from every
//! control node reachable from a new identity, under every role. The alphabet is the machine's
//! view of an event (phase, tier, kind, at most one extra trigger, the floor's seconds part);
//! the debouncers are explored apart ([`debounce`]). What the abstraction leaves out is listed
//! in docs/spec.md ("Invariants").
//!
//! One concern a file: `alphabet.rs` the abstract events and how one is realised,
//! `budget.rs` the bound that refuses a space too large to explore, `classes.rs` the letters
//! no transition tells apart,
//! `explorer.rs` the breadth-first exploration, `answer.rs` the hook's verdict of a step,
//! `debounce.rs` the signals' debouncers, `builtin.rs` the invariants every spec holds,
//! `declared.rs` the spec's own `[[invariant]]`s, `compare.rs` two specs' behaviour side by side,
//! `counterexample.rs` counterexamples and findings, `replay.rs` a counterexample run again
//! on a machine from its initial memory.

pub mod alphabet;
pub mod answer;
pub mod budget;
pub mod builtin;
pub mod classes;
pub mod compare;
pub mod counterexample;
pub mod debounce;
pub mod declared;
pub mod explorer;
pub mod replay;

use gate_spec::exec::Machine;
use gate_spec::ir::Spec;
use serde::Serialize;

pub use answer::Answer;
pub use budget::TooLarge;
pub use counterexample::{Counterexample, Finding};
pub use explorer::Graph;

/// What verifying one spec found.
#[derive(Debug, Serialize)]
pub struct Report {
    pub spec: String,
    /// Roles explored (no role first).
    pub roles: Vec<String>,
    /// Letters of the abstract alphabet.
    pub letters: usize,
    /// Control nodes reached, summed over roles.
    pub nodes: usize,
    /// Steps explored, summed over roles.
    pub steps: usize,
    pub debouncer_states: usize,
    pub debouncer_steps: usize,
    pub invariants: Vec<Finding>,
}

impl Report {
    /// Whether every invariant holds.
    pub fn holds(&self) -> bool {
        self.invariants.iter().all(Finding::holds)
    }
}

/// The explored graphs of a spec, one per role (no role first); `Err` without exploring
/// when the space could be beyond [`budget::MAX_STEPS`].
pub fn explore_all(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
) -> Result<Vec<Graph>, TooLarge> {
    let letters = alphabet::letters(spec);
    budget::check(spec, letters.len())?;
    Ok(explorer::roles(spec)
        .into_iter()
        .map(|role| explorer::explore(spec, machine, reference, role, &letters))
        .collect())
}

/// Explores `machine` (checked against `reference` when given: the interpreter beside a
/// compiled machine) and checks every built-in invariant; `Err` when the space is too large
/// to explore ([`budget`]).
pub fn verify(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
) -> Result<Report, TooLarge> {
    let graphs = explore_all(spec, machine, reference)?;
    let debouncers = debounce::explore(spec, machine);
    let mut invariants = vec![
        builtin::machine_consistent(spec, &graphs, reference.is_some()),
        builtin::forbidden_never_allowed(spec, &graphs),
        builtin::window_licenses_nothing(spec, machine, &graphs),
        builtin::anti_flap(spec, &graphs, &debouncers),
        builtin::fail_open(spec, &graphs),
        builtin::withholding_is_left(spec, &graphs),
    ];
    invariants.extend(
        spec.invariants
            .iter()
            .map(|inv| declared::check(spec, inv, &graphs)),
    );
    Ok(Report {
        spec: spec.name.to_string(),
        roles: explorer::roles(spec)
            .into_iter()
            .map(|r| counterexample::role_name(spec, r).to_string())
            .collect(),
        letters: graphs.first().map_or(0, |g| g.letters.len()),
        nodes: graphs.iter().map(|g| g.nodes.len()).sum(),
        steps: graphs.iter().map(|g| g.steps.len()).sum(),
        debouncer_states: debouncers.states,
        debouncer_steps: debouncers.steps,
        invariants,
    })
}
