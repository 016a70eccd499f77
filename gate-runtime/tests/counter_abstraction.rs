//! The counter abstraction (`verify::abstraction`) against the exact explorer, on specs with
//! counters small enough to explore both ways: an invariant proven with the counters
//! abstracted is proven exactly too (never abstract proven but exact refuted), and where the
//! abstraction is too coarse (a guard that reads a value no run reaches, an increment read by
//! a later trigger of the same event) it says "not proven", never "proven".

mod common;

use common::specs::{compile, finding};
use gate_runtime::interp::Interpreter;
use gate_runtime::verify::{self, Report};
use gate_spec::ir::Spec;

const HEAD: &str = r#"
machine.name = "t"
machine.initial = "idle"
machine.kinds = ["explore", "edit"]
tier = [
    { name = "low", mode = "gate", max_actions = 10 },
    { name = "high", mode = "gate", max_actions = 10 },
]
template.many = "too many edits"
template.frozen = "frozen"
"#;

/// Precise: a freeze declared by a checkpoint makes high actions ask; edits past three are
/// denied. Nothing reads a counter after the same event changed it.
const FREEZE: &str = r#"
state = [{ name = "idle" }]
checkpoint = [{ name = "freeze", events = ["prompt"], targets = ["freeze"] }]
counter = [{ name = "declared", max = 1 }, { name = "edits", max = 5 }]

transition = [
    { from = "*", on = "checkpoint:freeze", effects = ["inc:declared"] },
    { from = "*", on = "event:prompt", effects = ["reset:edits"] },
    { from = "*", on = "event:pre_tool", guard = { kind = "edit", counter = "edits < 3" }, effects = ["inc:edits"] },
    { from = "*", on = "event:pre_tool", guard = { kind = "edit", counter = "edits >= 3" }, effects = ["deny:many"] },
    { from = "idle", on = "tier:high", guard = { counter = "declared >= 1" }, effects = ["ask:frozen"] },
]
invariant = [
    { name = "low_explore_never_withheld", tier = "low", kind = "explore", never = ["ask", "deny"] },
    { name = "edits_never_denied", kind = "edit", never = "deny" },
]
"#;

/// Too coarse: nothing increments `edits`, so exactly the deny never happens; abstractly
/// `edits >= 3` may hold on any event.
const NEVER_COUNTED: &str = r#"
state = [{ name = "idle" }]
counter = [{ name = "edits", max = 3 }]

transition = [
    { from = "idle", on = "event:pre_tool", guard = { kind = "edit", counter = "edits >= 3" }, effects = ["deny:many"] },
]
invariant = [{ name = "edits_never_denied", kind = "edit", never = "deny" }]
"#;

/// Too coarse the other way: a state left only once a counter that nothing increments is
/// one. Exactly it is never left (refuted); abstractly the leaving step is not one every
/// counter value takes, so it is not proven either.
const STUCK: &str = r#"
state = [{ name = "idle" }, { name = "jail", withhold = "deny:many" }]
counter = [{ name = "paroles", max = 1 }]

transition = [
    { from = "idle", on = "tier:high", to = "jail" },
    { from = "jail", on = "approved", guard = { counter = "paroles >= 1" }, to = "idle" },
]
"#;

/// Read by a later trigger of the same event: one increment before the read is decided (the
/// counter is cut finer on that event), as in `ONE_INCREMENT`; two are not, in `TWO_INCREMENTS`.
const ONE_INCREMENT: &str = r#"
state = [{ name = "idle" }, { name = "tired" }]
counter = [{ name = "edits", max = 3 }]
transition = [
    { from = "*", on = "event:pre_tool", guard = { kind = "edit" }, effects = ["inc:edits"] },
    { from = "idle", on = "action", guard = { counter = "edits >= 3" }, to = "tired", effects = ["steer:frozen"] },
    { from = "tired", on = "event:prompt", to = "idle", effects = ["reset:edits"] },
]
"#;

const TWO_INCREMENTS: &str = r#"
state = [{ name = "idle" }, { name = "tired" }]
counter = [{ name = "edits", max = 3 }]
transition = [
    { from = "*", on = "event:pre_tool", guard = { kind = "edit" }, effects = ["inc:edits"] },
    { from = "*", on = "tier:low", guard = { kind = "edit" }, effects = ["inc:edits"] },
    { from = "idle", on = "action", guard = { counter = "edits >= 3" }, to = "tired", effects = ["steer:frozen"] },
    { from = "tired", on = "event:prompt", to = "idle", effects = ["reset:edits"] },
]
"#;

fn both(body: &str) -> (Spec, Report, Report) {
    let spec = compile(&format!("{HEAD}{body}"));
    let interp = Interpreter::new(&spec);
    let exact = verify::verify(&spec, &interp, None).expect("within the exact budget");
    assert!(!exact.counters_abstracted);
    let explored = verify::explore_abstract(&spec).expect("within the budget abstracted");
    let abs = verify::check(&spec, &interp, None, &explored);
    assert!(abs.counters_abstracted);
    assert_eq!(exact.invariants.len(), abs.invariants.len());
    (spec, exact, abs)
}

fn holds(r: &Report, name: &str) -> bool {
    finding(r, name).holds()
}

#[test]
fn abstractly_proven_is_exactly_proven() {
    let mut coarse = 0;
    for (what, body) in [
        ("freeze", FREEZE),
        ("never counted", NEVER_COUNTED),
        ("stuck", STUCK),
        ("one increment", ONE_INCREMENT),
        ("two increments", TWO_INCREMENTS),
    ] {
        let (_, exact, abs) = both(body);
        for (e, a) in exact.invariants.iter().zip(&abs.invariants) {
            assert_eq!(e.name, a.name);
            assert!(a.counters_abstracted);
            if a.holds() {
                assert!(
                    e.holds(),
                    "{what}: {} proven abstractly, refuted exactly",
                    a.name
                );
            }
            if e.holds() && !a.holds() {
                coarse += 1;
            }
            println!(
                "{what}: {}: exact {}, abstract {}",
                e.name,
                if e.holds() { "proven" } else { "refuted" },
                if a.holds() { "proven" } else { "not proven" },
            );
        }
    }
    assert!(
        coarse > 0,
        "some invariant shows the abstraction too coarse"
    );
}

#[test]
fn a_precise_abstraction_proves_what_the_exact_explorer_does() {
    let (_, exact, abs) = both(FREEZE);
    assert!(holds(&exact, "low_explore_never_withheld"));
    assert!(holds(&abs, "low_explore_never_withheld"));
    // The fourth edit is denied: refuted exactly, and abstractly with an abstract trace.
    assert!(!holds(&exact, "edits_never_denied"));
    let f = finding(&abs, "edits_never_denied");
    let trace = f.counterexample.as_ref().expect("an abstract trace");
    let last = trace.events.last().expect("one event at least");
    assert!(last.event.contains("counters edits>=3"), "{}", last.event);
    for f in &abs.invariants {
        if f.builtin {
            assert!(f.holds(), "{}: {:?}", f.name, f.counterexample);
        }
    }
}

#[test]
fn a_value_no_run_reaches_leaves_the_invariant_not_proven() {
    let (_, exact, abs) = both(NEVER_COUNTED);
    assert!(holds(&exact, "edits_never_denied"));
    let f = finding(&abs, "edits_never_denied");
    assert!(!f.holds() && f.counterexample.is_some() && f.undecided.is_none());
}

#[test]
fn a_way_out_that_needs_a_counter_is_not_proven_abstractly() {
    let (_, exact, abs) = both(STUCK);
    assert!(!holds(&exact, "withholding_is_left"));
    assert!(!holds(&abs, "withholding_is_left"));
}

#[test]
fn one_increment_read_later_in_the_same_event_is_decided() {
    let (_, exact, abs) = both(ONE_INCREMENT);
    for (e, a) in exact.invariants.iter().zip(&abs.invariants) {
        assert!(e.holds() && a.holds(), "{}", a.name);
    }
}

#[test]
fn two_increments_read_later_in_the_same_event_are_undecided() {
    let (_, _, abs) = both(TWO_INCREMENTS);
    for f in &abs.invariants {
        assert!(!f.holds(), "{} proven", f.name);
        assert!(
            f.counterexample.is_some() || f.undecided.is_some(),
            "{}",
            f.name
        );
    }
}

/// With the counters abstracted, a compiled machine is checked on every abstract step with
/// the counters at a value of the step's valuation: the interpreter of the same spec agrees
/// everywhere, that of a spec that denies one edit later does not.
#[test]
fn a_machine_is_checked_at_a_value_of_each_valuation() {
    let spec = compile(&format!("{HEAD}{FREEZE}"));
    let explored = verify::explore_abstract(&spec).expect("within the budget abstracted");
    let abs = explored.abstraction.as_ref().expect("abstracted");
    let same = Interpreter::new(&spec);
    let later = compile(
        &format!("{HEAD}{FREEZE}")
            .replace("edits < 3", "edits < 4")
            .replace("edits >= 3", "edits >= 4"),
    );
    let later = Interpreter::new(&later);
    let mut differs = 0;
    for g in &explored.graphs {
        assert!(verify::explorer::representative_mismatches(&spec, abs, &same, g).is_empty());
        differs += verify::explorer::representative_mismatches(&spec, abs, &later, g).len();
    }
    assert!(differs > 0);
}
