//! A hook's classification (a fresh classifier, no index) with the command table's needs
//! equals classification with a table that holds none, for every shipped spec on the
//! benchmark workload and every recorded Claude Code payload.

use std::borrow::Cow;

use gate_bench::workload_events;
use gate_runtime::observer::Classifier;
use gate_spec::commands::CommandTable;

#[test]
fn first_use_classification_is_unchanged_by_the_needs() {
    let events = workload_events().expect("fixtures load");
    assert!(events.len() > 16, "{} events", events.len());
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    let mut matched = 0;
    for compiled in gate_specs::ALL.iter().copied() {
        let table = compiled.machine.commands().expect("a generated table");
        assert_eq!(
            table.needs.len(),
            table.patterns.len(),
            "spec `{}` carries one need per pattern",
            compiled.name
        );
        let plain = CommandTable {
            needs: Cow::Borrowed(&[]),
            ..table.clone()
        };
        for event in &events {
            let want = Classifier::with_table(compiled.ir(), Some(&plain)).classify(event);
            matched += usize::from(!want.matched.is_empty());
            let got = Classifier::with_table(compiled.ir(), Some(table)).classify(event);
            assert_eq!(
                got, want,
                "spec `{}`, event {:?}",
                compiled.name, event.target
            );
        }
    }
    assert!(matched > 10, "the workload matches rules ({matched})");
}
