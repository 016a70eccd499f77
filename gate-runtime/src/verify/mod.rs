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
//! When the counters multiply the exact space beyond the budget, the counters are abstracted
//! instead ([`abstraction`]): proofs then hold for every value of each counter, and a
//! counterexample is an abstract trace, possibly spurious.
//!
//! One concern a file: `abstraction.rs` the counter abstraction, `alphabet.rs` the abstract events and how one is realised,
//! `budget.rs` the bound that refuses a space too large to explore, `classes.rs` the letters
//! no transition tells apart,
//! `explorer.rs` the breadth-first exploration, `answer.rs` the hook's verdict of a step,
//! `debounce.rs` the signals' debouncers, `builtin.rs` the invariants every spec holds,
//! `declared.rs` the spec's own `[[invariant]]`s, `compare.rs` two specs' behaviour side by side,
//! `counterexample.rs` counterexamples and findings, `replay.rs` a counterexample run again
//! on a machine from its initial memory.

pub mod abstraction;
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
    /// The counters were abstracted (the exact space is beyond the budget): every value of
    /// each counter is allowed on every event.
    pub counters_abstracted: bool,
    pub invariants: Vec<Finding>,
}

impl Report {
    /// Whether every invariant holds.
    pub fn holds(&self) -> bool {
        self.invariants.iter().all(Finding::holds)
    }
}

/// A spec's explored graphs, one per role (no role first).
pub struct Explored {
    pub graphs: Vec<Graph>,
    /// The counter abstraction they were explored under, when the exact space is beyond
    /// the budget.
    pub abstraction: Option<abstraction::Abstraction>,
}

/// The explored graphs of a spec: exactly when the space is within [`budget::MAX_STEPS`],
/// else with the counters abstracted when that is within it; `Err` without exploring when
/// neither is.
pub fn explore_all(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
) -> Result<Explored, TooLarge> {
    let letters = alphabet::letters(spec);
    let too_large = match budget::check(spec, letters.len()) {
        Ok(_) => {
            return Ok(Explored {
                graphs: explorer::roles(spec)
                    .into_iter()
                    .map(|role| explorer::explore(spec, machine, reference, role, &letters))
                    .collect(),
                abstraction: None,
            })
        }
        Err(e) => e,
    };
    if spec.counters.is_empty() {
        return Err(too_large);
    }
    let mut explored = explore_abstract(spec).ok_or(too_large)?;
    // A compiled machine beside the interpreter: checked on every abstract step with the
    // counters at a value of the step's valuation.
    if let (Some(_), Some(abs)) = (reference, &explored.abstraction) {
        for g in &mut explored.graphs {
            g.mismatches = explorer::representative_mismatches(spec, abs, machine, g);
        }
    }
    Ok(explored)
}

/// The graphs of `spec` with its counters abstracted; `None` when even that is beyond the
/// budget.
pub fn explore_abstract(spec: &Spec) -> Option<Explored> {
    let abs = abstraction::Abstraction::of(spec);
    let letters = abstraction::extend(spec, &abs, &alphabet::letters(spec));
    if abstraction::size(spec, letters.len()) > budget::MAX_STEPS {
        return None;
    }
    Some(Explored {
        graphs: explorer::roles(spec)
            .into_iter()
            .map(|role| explorer::explore_abstract(spec, &abs, role, &letters))
            .collect(),
        abstraction: Some(abs),
    })
}

/// Explores `machine` (checked against `reference` when given: the interpreter beside a
/// compiled machine) and checks every built-in invariant; `Err` when the space is too large
/// to explore ([`budget`]).
pub fn verify(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
) -> Result<Report, TooLarge> {
    let explored = explore_all(spec, machine, reference)?;
    Ok(check(spec, machine, reference, &explored))
}

/// Checks every invariant over graphs [`explore_all`] gave (`machine` and `reference` as
/// they were explored; with the counters abstracted, the interpreter was).
pub fn check(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
    explored: &Explored,
) -> Report {
    let graphs = &explored.graphs;
    let interp = crate::interp::Interpreter::new(spec);
    let stepper = match &explored.abstraction {
        Some(abs) => explorer::Stepper::Abstract(interp, abs),
        None => explorer::Stepper::Machine(machine),
    };
    let compared = reference.is_some();
    let debouncers = debounce::explore(spec, machine);
    let mut invariants = vec![
        builtin::machine_consistent(spec, graphs, compared),
        builtin::forbidden_never_allowed(spec, graphs),
        builtin::window_licenses_nothing(spec, &stepper, graphs),
        builtin::anti_flap(spec, graphs, &debouncers),
        builtin::fail_open(spec, graphs),
        builtin::withholding_is_left(spec, graphs),
    ];
    invariants.extend(
        spec.invariants
            .iter()
            .map(|inv| declared::check(spec, inv, graphs)),
    );
    let undetermined: usize = graphs.iter().map(|g| g.undetermined).sum();
    if explored.abstraction.is_some() {
        for f in &mut invariants {
            f.counters_abstracted = true;
            if undetermined > 0 && f.counterexample.is_none() {
                f.undecided = Some(format!(
                    "{undetermined} abstract step(s) read a counter that an earlier transition \
                     of the same event incremented, perhaps across a guard's constant: the \
                     abstraction cannot decide them"
                ));
            }
        }
    }
    Report {
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
        counters_abstracted: explored.abstraction.is_some(),
        invariants,
    }
}
