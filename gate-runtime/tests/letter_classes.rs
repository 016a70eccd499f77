//! The explorer's letter classes (`verify::classes`) change nothing it finds: on every
//! shipped spec within the budget and on small specs made to have classes (kinds no guard
//! tells apart, checkpoints nothing is triggered by, counters), under every role, the graph
//! it explores equals the one stepping every letter on its own (`explore_plain`, the oracle):
//! the same nodes in the same order, the same parents, and step for step the same letter,
//! target, fired transitions and verdicts; with a reference machine, the same mismatches.

mod common;

use common::specs::{compile_path, fixture_path};
use gate_runtime::interp::Interpreter;
use gate_runtime::verify::{alphabet, budget, explorer, Graph};
use gate_spec::exec::Machine;
use gate_spec::ir::Spec;

fn assert_same(what: &str, plain: &Graph, classed: &Graph) {
    assert_eq!(plain.nodes, classed.nodes, "{what}: nodes");
    assert_eq!(plain.parent, classed.parent, "{what}: parents");
    assert_eq!(plain.out, classed.out, "{what}: steps per node");
    assert_eq!(plain.steps.len(), classed.steps.len(), "{what}: steps");
    for (a, b) in plain.steps.iter().zip(&classed.steps) {
        assert_eq!(
            (a.from, a.letter, a.to, &a.fired, a.verdicts),
            (b.from, b.letter, b.to, &b.fired, b.verdicts),
            "{what}"
        );
    }
    assert_eq!(plain.mismatches.len(), classed.mismatches.len(), "{what}");
}

fn both(what: &str, spec: &Spec, machine: &dyn Machine, reference: Option<&dyn Machine>) {
    let letters = alphabet::letters(spec);
    for role in explorer::roles(spec) {
        let plain = explorer::explore_plain(spec, machine, reference, role, &letters);
        let classed = explorer::explore(spec, machine, reference, role, &letters);
        assert_same(&format!("{what} role {role:?}"), &plain, &classed);
    }
}

#[test]
fn classes_equal_the_plain_exploration_on_every_shipped_spec() {
    let mut compared = 0;
    for compiled in gate_specs::ALL {
        let spec = compiled.ir();
        if budget::check(spec, alphabet::letters(spec).len()).is_err() {
            continue;
        }
        let interp = Interpreter::new(spec);
        both(compiled.name, spec, compiled.machine, Some(&interp));
        compared += 1;
    }
    assert!(compared >= 5, "{compared}");
}

/// A machine that reads one kind differently from the interpreter: what a code generator's
/// slip would look like. The classes must not hide it: every letter runs on the machine.
struct Misreads<'a> {
    inner: Interpreter<'a>,
    kind: u8,
}

impl Machine for Misreads<'_> {
    fn initial(&self) -> gate_spec::exec::Snapshot {
        self.inner.initial()
    }

    fn step(
        &self,
        memory: &mut gate_spec::exec::Snapshot,
        input: &gate_spec::exec::Input<'_>,
        fired: &mut dyn FnMut(u16),
    ) {
        let mut input = *input;
        if input.kind == Some(self.kind) {
            input.kind = Some(0);
        }
        self.inner.step(memory, &input, fired)
    }
}

#[test]
fn classes_equal_the_plain_exploration_on_a_spec_made_to_have_them() {
    let spec = compile_path(&fixture_path("letter_classes.toml"));
    let interp = Interpreter::new(&spec);
    both("small", &spec, &interp, None);
    both("small beside itself", &spec, &interp, Some(&interp));
    // A machine that misreads `plan` (in a class with `edit`) is caught on plan's letters.
    let misreads = Misreads {
        inner: Interpreter::new(&spec),
        kind: 3,
    };
    both("small misread", &spec, &misreads, Some(&interp));
    let letters = alphabet::letters(&spec);
    let g = explorer::explore(&spec, &misreads, Some(&interp), None, &letters);
    assert!(
        g.mismatches
            .iter()
            .any(|m| letters[m.letter].kind == Some(3)),
        "the misread kind is not caught"
    );
}
