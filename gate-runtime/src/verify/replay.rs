//! A counterexample run again on a machine, from its initial memory, each event stepped on
//! the whole memory the previous one left (state, re-arm counter, every counter's value):
//! what shows that a counterexample is a real trace and not an artefact of the exploration
//! (a path through nodes that do not chain, or a step taken from another node than the one
//! the path reaches).
//!
//! Each abstract event is made concrete as the explorer makes it ([`realise`]): the signals'
//! debouncers are free inputs there (see docs/spec.md, "Invariants"), everything else is
//! carried.

use gate_spec::exec::Machine;
use gate_spec::ir::{RoleId, Spec, StateId};

use super::alphabet::{realise, Age, Extra, Letter};
use super::answer::{verdicts, Verdicts};
use super::explorer::Node;

/// One event of a replayed trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The state the event arrives in and the state it leaves.
    pub from: StateId,
    pub to: StateId,
    /// Fired transitions, in order (indices into `Spec::transitions`).
    pub fired: Vec<u16>,
    pub verdicts: Verdicts,
}

/// Runs `trace` on `machine` under `role` from a new identity. `Err(i)` when event `i` cannot
/// happen where the trace has brought the machine (the age or the state rules it out).
pub fn replay(
    spec: &Spec,
    machine: &dyn Machine,
    role: Option<RoleId>,
    trace: &[Letter],
) -> Result<Vec<Replayed>, usize> {
    let mut memory = machine.initial();
    let mut age = Age::New;
    let mut out = Vec::with_capacity(trace.len());
    for (i, letter) in trace.iter().enumerate() {
        let node = Node {
            state: memory.state,
            since_arm: memory.since_arm,
            age,
            counters: memory.counters.clone(),
            regions: memory.regions.clone(),
        };
        let realised = realise(spec, &node, letter).ok_or(i)?;
        let mut after = realised.memory.clone();
        let mut fired = Vec::new();
        machine.step(&mut after, &realised.input(letter, role), &mut |t| {
            fired.push(t)
        });
        let v = verdicts(
            spec,
            letter.phase,
            letter.tier,
            role,
            letter.extra == Extra::Approved,
            &fired,
            after.state,
        );
        out.push(Replayed {
            from: memory.state,
            to: after.state,
            fired,
            verdicts: v,
        });
        memory = after;
        age = age.after(letter.phase);
    }
    Ok(out)
}
