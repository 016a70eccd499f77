//! Calendar signals (`family = "calendar"`) through the engine on an injected clock: "Fridays
//! after 15:00 in Berlin" holds exactly then (daylight saving and the date line included),
//! `while:` steers on every action in the window, and a clock or zone the engine cannot
//! read fails open (no steer) with a fault in the audit notes.

mod common;

use common::engine::{pre_tool, Scope};
use common::specs::{compile, leak};
use gate_runtime::engine::Outcome;
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Family, Spec};

const SPEC: &str = r#"
[machine]
name = "freeze"
initial = "open"
kinds = ["work"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 100

[[signal]]
name = "friday_afternoon"
family = "calendar"
days = ["fri"]
from = "15:00"
zone = "Europe/Berlin"
enter = 1
exit = 1
requires = ["timestamp"]

[[state]]
name = "open"

[[transition]]
from = "open"
on = "while:friday_afternoon"
effects = ["steer:frozen"]

[template]
frozen = "Release freeze: Friday afternoon in Berlin."
"#;

fn spec() -> Spec {
    compile(SPEC)
}

/// Milliseconds of a UTC date and time (`2026-11-27T14:00`).
fn utc(date: &str, hh: i64, mm: i64) -> i64 {
    let days = match date {
        "2026-11-26" => 20_783,
        "2026-11-27" => 20_784,
        "2026-06-26" => 20_630,
        other => panic!("no fixture for {other}"),
    };
    (days * 86_400 + hh * 3600 + mm * 60) * 1000
}

/// An edit of the project's source at `now`, evaluated in `scope`.
fn at(scope: &mut Scope, now: i64) -> Outcome {
    scope.evaluate(&pre_tool(
        "Edit",
        ActionClass::Write,
        "/repo/src/lib.rs",
        now,
    ))
}

fn steers(o: &Outcome) -> bool {
    matches!(o.proposed, Verdict::Steer { .. })
}

fn faults(o: &Outcome) -> usize {
    o.notes.iter().filter(|n| n.kind == "fault").count()
}

#[test]
fn the_date_check_fixture_is_right() {
    // 2026-11-27 is a Friday; so is 2026-06-26.
    assert_eq!(
        gate_spec::calendar::local(utc("2026-11-27", 0, 0), "UTC"),
        Ok((4, 0))
    );
    assert_eq!(
        gate_spec::calendar::local(utc("2026-06-26", 0, 0), "UTC"),
        Ok((4, 0))
    );
    assert_eq!(
        gate_spec::calendar::local(utc("2026-11-26", 0, 0), "UTC"),
        Ok((3, 0))
    );
}

#[test]
fn friday_after_three_in_berlin_steers_every_action_and_nothing_else() {
    let mut scope = Scope::new(leak(spec()));
    // Thursday afternoon: open.
    assert!(!steers(&at(&mut scope, utc("2026-11-26", 15, 0))));
    // Friday 13:59 UTC is 14:59 in Berlin (CET): still open.
    assert!(!steers(&at(&mut scope, utc("2026-11-27", 13, 59))));
    // 14:00 UTC is 15:00 in Berlin: frozen, on every action while it lasts.
    let o = at(&mut scope, utc("2026-11-27", 14, 0));
    assert!(steers(&o), "{:?}", o.proposed);
    assert_eq!(faults(&o), 0);
    assert!(steers(&at(&mut scope, utc("2026-11-27", 20, 0))));
    // 23:00 UTC is midnight in Berlin: Saturday, open again.
    assert!(!steers(&at(&mut scope, utc("2026-11-27", 23, 0))));
}

#[test]
fn summer_time_moves_the_window_by_an_hour() {
    let mut scope = Scope::new(leak(spec()));
    // In June Berlin is UTC+2 (CEST): 13:00 UTC is 15:00 there.
    assert!(!steers(&at(&mut scope, utc("2026-06-26", 12, 59))));
    assert!(steers(&at(&mut scope, utc("2026-06-26", 13, 0))));
}

#[test]
fn a_clock_that_cannot_be_read_fails_open_and_is_recorded() {
    let mut scope = Scope::new(leak(spec()));
    let o = at(&mut scope, 0);
    assert!(!steers(&o));
    assert_eq!(faults(&o), 1);
}

#[test]
fn a_zone_the_database_lacks_fails_open_and_is_recorded() {
    // `gate check` rejects an unknown zone; a zone missing at run time (an IR built against
    // another database) must still fail open.
    let mut spec = spec();
    if let Family::Calendar { zone, .. } = &mut spec.signals[0].family {
        *zone = "Mars/Olympus_Mons".into();
    }
    let mut scope = Scope::new(leak(spec));
    let o = at(&mut scope, utc("2026-11-27", 14, 0));
    assert!(!steers(&o));
    assert_eq!(faults(&o), 1);
    let note = o.notes.iter().find(|n| n.kind == "fault").expect("a fault");
    assert!(format!("{:?}", note.detail).contains("Mars/Olympus_Mons"));
}
