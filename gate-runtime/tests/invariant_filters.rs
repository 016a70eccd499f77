//! The invariant filters for what else happens on an event: `approved` (the user's
//! approval of this exact action is spent), `timeout` (the state's timer runs out) and
//! `backstop` (the window reaches its backstop). Each invariant below is proven with its
//! filter and refuted without it, by a counterexample whose last event is the one the filter
//! leaves out.

mod common;

use common::specs::{compile, finding, fixture, verified};
use gate_runtime::verify::Finding;

/// The spec of `tests/fixtures/specs/timers.toml`, in which `high` actions are withheld
/// except on the events the filters speak of: idle asks (an approval lifts it), `cooling`
/// denies until its timer runs out (the timer moves it back to idle, which lets the action
/// through), and the window `open` denies until it reaches its backstop (which closes it).
fn spec_text() -> String {
    fixture("timers.toml")
}

/// The spec with one invariant, verified; the finding of that invariant.
fn verify_with(invariant: &str) -> Finding {
    let spec = compile(&format!(
        "{}\n[[invariant]]\nname = \"claim\"\n{invariant}\n",
        spec_text()
    ));
    finding(&verified(&spec), "claim").clone()
}

/// Proven with `filter`, refuted without it, the counterexample's last event saying `what`.
fn needs(filter: &str, claim: &str, what: &str) {
    let with = verify_with(&format!("{filter}\n{claim}"));
    assert!(
        with.holds() && with.checked > 0,
        "{filter}: {}",
        with.counterexample.map_or(String::new(), |c| c.render(""))
    );
    assert!(
        with.statement.contains(&statement_part(filter)),
        "{}",
        with.statement
    );
    let without = verify_with(claim);
    let c = without
        .counterexample
        .unwrap_or_else(|| panic!("{claim} holds without {filter}"));
    let last = c.events.last().expect("an event");
    assert!(last.event.contains(what), "{}", c.render(""));
}

/// What the statement of an invariant says for a filter (`approved = false`).
fn statement_part(filter: &str) -> String {
    match filter.split_once(" = ").expect("key = value") {
        ("approved", "false") => "not approved by the user",
        ("approved", _) => "approved by the user",
        ("timeout", "false") => "unless the state's timer runs out",
        ("timeout", _) => "when the state's timer runs out",
        ("backstop", "false") => "unless the window reaches its backstop",
        _ => "when the window reaches its backstop",
    }
    .to_string()
}

#[test]
fn not_approved_excludes_the_spent_approval() {
    needs(
        "approved = false",
        "state = \"idle\"\ntier = \"high\"\nalways = \"ask\"",
        "approved by the user",
    );
}

#[test]
fn approved_speaks_only_of_the_spent_approval() {
    // Approved, a high action in idle is let through; not approved, it is asked.
    needs(
        "approved = true",
        "state = \"idle\"\ntier = \"high\"\nalways = \"allow\"",
        "tier=high",
    );
}

#[test]
fn timeout_false_excludes_the_timer_running_out() {
    needs(
        "timeout = false",
        "state = \"cooling\"\ntier = \"high\"\nalways = \"deny\"",
        "the state's timer runs out",
    );
}

#[test]
fn backstop_false_excludes_the_backstop() {
    needs(
        "backstop = false",
        "state = \"open\"\ntier = \"high\"\nalways = \"deny\"",
        "the window reaches its backstop",
    );
}

#[test]
fn a_misspelled_filter_is_an_error_with_did_you_mean() {
    for (typo, meant) in [
        ("aproved", "approved"),
        ("timout", "timeout"),
        ("backstp", "backstop"),
    ] {
        let source = format!(
            "{}\n[[invariant]]\nname = \"claim\"\n{typo} = false\ntier = \"high\"\nnever = \"allow\"\n",
            spec_text()
        );
        let (spec, diags) = gate_spec::compile(&source);
        assert!(spec.is_none(), "{typo} is accepted");
        let d = diags
            .items
            .iter()
            .find(|d| d.message.contains(typo))
            .unwrap_or_else(|| panic!("{typo}: {:?}", diags.items));
        assert_eq!(
            d.help.as_deref(),
            Some(format!("did you mean `{meant}`?").as_str()),
            "{typo}"
        );
    }
}

#[test]
fn a_filter_of_events_is_an_error_on_a_reachable_claim() {
    for key in ["approved", "timeout", "backstop"] {
        let source = format!(
            "{}\n[[invariant]]\nname = \"claim\"\n{key} = true\nreachable = \"idle\"\n",
            spec_text()
        );
        let (spec, diags) = gate_spec::compile(&source);
        assert!(spec.is_none(), "{key} on a reachable claim is accepted");
        assert!(
            diags
                .items
                .iter()
                .any(|d| d.message.contains(&format!("`{key}` speaks of events"))),
            "{key}: {:?}",
            diags.items
        );
    }
}
