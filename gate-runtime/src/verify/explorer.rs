//! The exhaustive explorer: breadth first over a machine's control space from a new
//! identity, one role at a time, every letter of the abstract alphabet from every node.
//! Letters no transition tells apart ([`super::classes`]) are stepped once per class (the
//! machine under test on every letter when a reference is given, the reference once per
//! class), and the graph is the one stepping every letter gives.
//!
//! A node is the control part of a machine's memory (state, each region's state, re-arm
//! counter and the value of every bounded counter, each saturating, so there are finitely many) and the identity's
//! [`Age`]. The debouncers are left out: they evolve independently of the control
//! state (exec.rs rule 2 reads only the samples), so every edge is a free input here and is
//! checked on its own in [`super::debounce`]. Breadth first means the first path found to a
//! node is a shortest one, which is what a counterexample prints.

use std::collections::BTreeMap;

use gate_spec::exec::{Machine, Snapshot};
use gate_spec::ir::{RoleId, Spec, StateId};

use super::abstraction::{AbstractCounters, Abstraction};
use super::alphabet::{realise, Age, Letter, Realised};
use super::answer::{verdicts, Verdicts};
use crate::interp::Interpreter;

/// What steps an explored letter: a machine on its whole memory, or the reference
/// interpreter with the counters abstracted ([`super::abstraction`]: the node holds no
/// counter value, the letter's valuation says which guard conditions hold).
#[derive(Clone, Copy)]
pub enum Stepper<'a> {
    Machine(&'a dyn Machine),
    Abstract(Interpreter<'a>, &'a Abstraction),
}

impl Stepper<'_> {
    /// The initial memory (no counter values when they are abstracted).
    pub fn initial(&self) -> Snapshot {
        match *self {
            Stepper::Machine(m) => m.initial(),
            Stepper::Abstract(interp, _) => {
                let mut s = interp.initial();
                s.counters.clear();
                s
            }
        }
    }

    /// Steps a realised letter: the memory after, the fired transitions, and whether a guard
    /// read a counter the abstraction could not decide (never for a machine).
    fn step(
        &self,
        realised: &Realised,
        letter: &Letter,
        role: Option<RoleId>,
    ) -> (Snapshot, Vec<u16>, bool) {
        let mut memory = realised.memory.clone();
        let mut fired = Vec::new();
        let input = realised.input(letter, role);
        match *self {
            Stepper::Machine(m) => {
                m.step(&mut memory, &input, &mut |t| fired.push(t));
                (memory, fired, false)
            }
            Stepper::Abstract(interp, abs) => {
                let val = letter.val.unwrap_or(super::abstraction::Valuation {
                    index: 0,
                    relevant: 0,
                    fine: 0,
                });
                let mut truth = AbstractCounters::new(abs, val);
                interp.step_with(&mut memory, &input, &mut |t| fired.push(t), &mut truth);
                (memory, fired, truth.undetermined)
            }
        }
    }
}

/// One explored control node.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Node {
    pub state: StateId,
    pub since_arm: u16,
    pub age: Age,
    /// Value per counter (`Spec::counters`).
    pub counters: Vec<u16>,
    /// State per region (`Spec::regions`): the product of every region with the main
    /// machine is explored.
    pub regions: Vec<StateId>,
}

/// One explored step: a letter from a node, what fired, where it went, what the hook answers.
#[derive(Clone, Debug)]
pub struct Step {
    /// Index into [`Graph::nodes`].
    pub from: usize,
    /// Index into [`Graph::letters`].
    pub letter: usize,
    pub to: usize,
    /// Fired transitions, in order (indices into `Spec::transitions`).
    pub fired: Vec<u16>,
    pub verdicts: Verdicts,
    /// Every valuation of the letter's event leads to the same node from here (always, when
    /// the counters are not abstracted): a step a real run can take whatever its counters
    /// hold, so paths of such steps show what can be reached.
    pub must: bool,
}

/// Where the compiled machine and the reference interpreter disagree.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub from: usize,
    pub letter: usize,
    pub machine: (Snapshot, Vec<u16>),
    pub reference: (Snapshot, Vec<u16>),
}

/// The explored control graph of one spec under one role.
#[derive(Debug)]
pub struct Graph {
    pub role: Option<RoleId>,
    pub letters: Vec<Letter>,
    /// Reachable nodes in breadth-first order; `nodes[0]` is the new identity.
    pub nodes: Vec<Node>,
    /// Per node, the step that first reached it (`None` for the start).
    pub parent: Vec<Option<usize>>,
    pub steps: Vec<Step>,
    /// Per node, the range of its steps in `steps`.
    pub out: Vec<std::ops::Range<usize>>,
    pub mismatches: Vec<Mismatch>,
    /// Abstract steps whose guards read a counter the abstraction could not decide.
    pub undetermined: usize,
}

impl Graph {
    /// The shortest event sequence from the new identity to `node`, as step indices.
    pub fn path_to(&self, node: usize) -> Vec<usize> {
        let mut path = Vec::new();
        let mut at = node;
        while let Some(step) = self.parent[at] {
            path.push(step);
            at = self.steps[step].from;
        }
        path.reverse();
        path
    }

    /// The steps leaving `node`.
    pub fn steps_from(&self, node: usize) -> &[Step] {
        &self.steps[self.out[node].clone()]
    }
}

/// Steps `stepper` with `letter` from a node; `None` when the letter cannot happen there.
pub fn step_machine(
    stepper: &Stepper<'_>,
    spec: &Spec,
    node: &Node,
    letter: &Letter,
    role: Option<RoleId>,
) -> Option<(Snapshot, Vec<u16>)> {
    let realised = realise(spec, node, letter)?;
    let (after, fired, _) = stepper.step(&realised, letter, role);
    Some((after, fired))
}

/// Explores `machine` over `spec`'s alphabet under `role`, from its initial memory. When a
/// `reference` machine is given, every step is also run on it (once per class of letters)
/// and differences are recorded.
pub fn explore(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
    role: Option<RoleId>,
    letters: &[Letter],
) -> Graph {
    let reps = super::classes::representatives(spec, letters);
    explore_classes(
        spec,
        Stepper::Machine(machine),
        reference,
        role,
        letters,
        &reps,
    )
}

/// [`explore`] with the counters abstracted: the reference interpreter of `spec` stepped on
/// `letters` extended with valuations ([`super::abstraction::extend`]).
pub fn explore_abstract(
    spec: &Spec,
    abs: &Abstraction,
    role: Option<RoleId>,
    letters: &[Letter],
) -> Graph {
    let reps = super::classes::representatives(spec, letters);
    let stepper = Stepper::Abstract(Interpreter::new(spec), abs);
    let mut graph = explore_classes(spec, stepper, None, role, letters, &reps);
    mark_must(&mut graph);
    graph
}

/// Per node, a step is a must step when every valuation of its letter's event goes to the
/// same node (the extended letters of one event are next to each other).
fn mark_must(graph: &mut Graph) {
    let base = |l: &Letter| Letter { val: None, ..*l };
    for range in graph.out.clone() {
        let mut i = range.start;
        while i < range.end {
            let event = base(&graph.letters[graph.steps[i].letter]);
            let mut j = i;
            while j < range.end && base(&graph.letters[graph.steps[j].letter]) == event {
                j += 1;
            }
            let to = graph.steps[i].to;
            let same = graph.steps[i..j].iter().all(|s| s.to == to);
            for s in &mut graph.steps[i..j] {
                s.must = same;
            }
            i = j;
        }
    }
}

/// [`explore`] stepping every letter on its own: the oracle the classes are tested against.
pub fn explore_plain(
    spec: &Spec,
    machine: &dyn Machine,
    reference: Option<&dyn Machine>,
    role: Option<RoleId>,
    letters: &[Letter],
) -> Graph {
    let reps: Vec<usize> = (0..letters.len()).collect();
    explore_classes(
        spec,
        Stepper::Machine(machine),
        reference,
        role,
        letters,
        &reps,
    )
}

/// [`explore`] with `reps[i]` the representative of letter `i`'s class (`reps[i] <= i`).
fn explore_classes(
    spec: &Spec,
    machine: Stepper<'_>,
    reference: Option<&dyn Machine>,
    role: Option<RoleId>,
    letters: &[Letter],
    reps: &[usize],
) -> Graph {
    let init = machine.initial();
    let start = Node {
        state: init.state,
        since_arm: init.since_arm,
        age: Age::New,
        counters: init.counters,
        regions: init.regions,
    };
    let mut index: BTreeMap<Node, usize> = BTreeMap::from([(start.clone(), 0)]);
    let mut graph = Graph {
        role,
        letters: letters.to_vec(),
        nodes: vec![start],
        parent: vec![None],
        steps: Vec::new(),
        out: Vec::new(),
        mismatches: Vec::new(),
        undetermined: 0,
    };
    let mut at = 0;
    while at < graph.nodes.len() {
        let node = graph.nodes[at].clone();
        let begin = graph.steps.len();
        // Per letter stepped from this node: its step, and the reference's result.
        let mut stepped: Vec<Option<usize>> = vec![None; letters.len()];
        let mut referenced: Vec<Option<(Snapshot, Vec<u16>)>> = vec![None; letters.len()];
        for (li, letter) in letters.iter().enumerate() {
            let rep = reps[li];
            if rep != li && reference.is_none() {
                // A letter no transition tells from its class's representative: its step.
                if let Some(si) = stepped[rep] {
                    let shared = graph.steps[si].clone();
                    stepped[li] = Some(graph.steps.len());
                    graph.steps.push(Step {
                        letter: li,
                        ..shared
                    });
                }
                continue;
            }
            let Some(realised) = realise(spec, &node, letter) else {
                continue;
            };
            let (after, fired, undetermined) = machine.step(&realised, letter, role);
            graph.undetermined += usize::from(undetermined);
            if let Some(reference) = reference {
                // The machine is stepped on every letter; the reference once per class.
                let other = match &referenced[rep] {
                    Some(r) if rep != li => r.clone(),
                    _ => {
                        let (m, f, _) = Stepper::Machine(reference).step(&realised, letter, role);
                        (m, f)
                    }
                };
                if other.0 != after || other.1 != fired {
                    graph.mismatches.push(Mismatch {
                        from: at,
                        letter: li,
                        machine: (after.clone(), fired.clone()),
                        reference: other.clone(),
                    });
                }
                if rep == li {
                    referenced[li] = Some(other);
                }
            }
            let next = Node {
                state: after.state,
                since_arm: after.since_arm,
                age: node.age.after(letter.phase),
                counters: after.counters.clone(),
                regions: after.regions.clone(),
            };
            let to = match index.get(&next) {
                Some(&i) => i,
                None => {
                    let i = graph.nodes.len();
                    index.insert(next.clone(), i);
                    graph.nodes.push(next);
                    graph.parent.push(Some(graph.steps.len()));
                    i
                }
            };
            let v = verdicts(
                spec,
                letter.phase,
                letter.tier,
                role,
                matches!(letter.extra, super::alphabet::Extra::Approved),
                &fired,
                after.state,
            );
            stepped[li] = Some(graph.steps.len());
            graph.steps.push(Step {
                from: at,
                letter: li,
                to,
                fired,
                verdicts: v,
                must: true,
            });
        }
        graph.out.push(begin..graph.steps.len());
        at += 1;
    }
    graph
}

/// Every role of a spec, `None` (no role) first.
pub fn roles(spec: &Spec) -> Vec<Option<RoleId>> {
    std::iter::once(None)
        .chain((0..spec.roles.len()).map(|r| Some(r as RoleId)))
        .collect()
}

/// Where `machine` (a compiled one) disagrees with an abstract graph: every step run again
/// on `machine` from its node with the counters at the lowest value of the letter's
/// valuation (their own values, which the abstract step reads exactly when no step was
/// undetermined), the state, re-arm counter and fired transitions compared.
pub fn representative_mismatches(
    spec: &Spec,
    abs: &Abstraction,
    machine: &dyn Machine,
    graph: &Graph,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (si, step) in graph.steps.iter().enumerate() {
        let node = &graph.nodes[step.from];
        let letter = &graph.letters[step.letter];
        let Some(mut realised) = realise(spec, node, letter) else {
            continue;
        };
        realised.memory.counters = match letter.val {
            Some(val) => abs.ranges(val).iter().map(|r| r.0).collect(),
            None => vec![0; spec.counters.len()],
        };
        let (after, fired, _) = Stepper::Machine(machine).step(&realised, letter, graph.role);
        let to = &graph.nodes[step.to];
        if after.state != to.state || after.since_arm != to.since_arm || fired != step.fired {
            let mut expected = after.clone();
            expected.state = to.state;
            expected.since_arm = to.since_arm;
            out.push(Mismatch {
                from: step.from,
                letter: step.letter,
                machine: (after, fired),
                reference: (expected, graph.steps[si].fired.clone()),
            });
        }
    }
    out
}
