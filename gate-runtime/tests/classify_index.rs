//! The program index of command patterns changes no answer: for every shipped spec, the
//! patterns tried through the index match exactly the rules that trying every pattern on
//! every line matches, on the labelled corpus and on generated lines; and the table a
//! generated machine carries is the one the spec builds at run time.

use gate_runtime::observer::{Classifier, HIT_COMMAND, HIT_EXCEPT};
use gate_runtime::shell;
use gate_spec::commands::CommandTable;
use gate_spec::pattern::{parse_command, ArgPattern, CommandPattern};
use proptest::prelude::*;

mod common;
use common::lines::{corpus, line_strategy};

fn specs() -> impl Iterator<Item = &'static gate_spec::exec::CompiledSpec> {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    gate_specs::ALL.iter().copied()
}

/// Every pattern tried on the line: the answer the index must reproduce.
fn brute_force(table: &CommandTable, line: &str) -> Vec<u8> {
    let parsed = shell::parse(line);
    let any = |rule, except| {
        table
            .rule_patterns(rule, except)
            .any(|p| shell::matches_in(p, &parsed, line))
    };
    (0..table.rules.len() as u16)
        .map(|rule| {
            let mut hit = 0;
            if any(rule, false) {
                hit |= HIT_COMMAND;
            }
            if any(rule, true) {
                hit |= HIT_EXCEPT;
            }
            hit
        })
        .collect()
}

fn indexed(classifier: &Classifier<'_>, line: &str) -> Vec<u8> {
    classifier.command_hits(&shell::parse(line), line)
}

/// A classifier that has classified twice, so that it holds its index (the `raw:` byte
/// groups; the first stages' needs, `shell::Need`, come with the table and are used on every
/// classification).
fn used<'s>(compiled: &'s gate_spec::exec::CompiledSpec) -> Classifier<'s> {
    let classifier = Classifier::with_table(compiled.ir(), compiled.machine.commands());
    for _ in 0..2 {
        let event = gate_runtime::event::Event {
            phase: Some(gate_spec::ir::Phase::PreTool),
            tool: Some("Bash".into()),
            target: Some("true".into()),
            ..Default::default()
        };
        classifier.classify(&event);
    }
    classifier
}

/// A table pattern back as the parser's tree.
fn tree(p: gate_spec::commands::Pattern<'_>) -> CommandPattern {
    use gate_spec::commands::{Arg, Pattern};
    use gate_spec::pattern::StagePattern;
    match p {
        Pattern::Raw(g) => CommandPattern::Raw(g.to_string()),
        Pattern::Stages(..) => CommandPattern::Stages(
            p.stages()
                .map(|s| StagePattern {
                    program: s.program.to_string(),
                    args: s
                        .args()
                        .map(|a| match a {
                            Arg::ShortFlag(c) => ArgPattern::ShortFlag(c),
                            Arg::LongFlag(n) => ArgPattern::LongFlag(n.to_string()),
                            Arg::Glob(g) => ArgPattern::Glob(g.to_string()),
                        })
                        .collect(),
                })
                .collect(),
        ),
    }
}

#[test]
fn the_flat_table_holds_exactly_the_parsed_patterns() {
    for compiled in specs() {
        let table = compiled
            .machine
            .commands()
            .expect("a generated machine has a table");
        for (i, rule) in compiled.ir().rules.iter().enumerate() {
            for (except, list) in [(false, &rule.commands), (true, &rule.except_commands)] {
                let want: Vec<CommandPattern> = list
                    .iter()
                    .map(|p| parse_command(&p.text).expect("shipped patterns parse"))
                    .collect();
                let got: Vec<CommandPattern> =
                    table.rule_patterns(i as u16, except).map(tree).collect();
                assert_eq!(got, want, "spec `{}`, rule `{}`", compiled.name, rule.name);
            }
        }
    }
}

#[test]
fn generated_tables_equal_tables_built_at_run_time() {
    for compiled in specs() {
        let spec = compiled.ir();
        let built = CommandTable::build(spec);
        assert_eq!(
            compiled.machine.commands(),
            Some(&built),
            "spec `{}`: the generated table differs from the one built at run time",
            compiled.name
        );
        let patterns: usize = spec
            .rules
            .iter()
            .map(|r| r.commands.len() + r.except_commands.len())
            .sum();
        assert_eq!(
            built.refs.len(),
            patterns,
            "spec `{}`: every pattern is indexed exactly once",
            compiled.name
        );
        let mut refs = built.refs.to_vec();
        refs.sort();
        refs.dedup();
        assert_eq!(
            refs.len(),
            patterns,
            "spec `{}`: no pattern indexed twice",
            compiled.name
        );
    }
}

#[test]
fn the_index_agrees_with_trying_every_pattern_on_the_corpus() {
    let lines = corpus();
    assert!(lines.len() > 200, "the corpus has {} lines", lines.len());
    let mut matched_somewhere = 0;
    for compiled in specs() {
        let spec = compiled.ir();
        let classifier = Classifier::with_table(spec, compiled.machine.commands());
        let used = used(compiled);
        for line in &lines {
            let want = brute_force(classifier.table(), line);
            matched_somewhere += usize::from(want.iter().any(|&h| h != 0));
            assert_eq!(
                indexed(&classifier, line),
                want,
                "spec `{}`, line {line:?}",
                compiled.name
            );
            assert_eq!(
                indexed(&used, line),
                want,
                "spec `{}`, line {line:?} (used classifier)",
                compiled.name
            );
        }
    }
    assert!(
        matched_somewhere > 100,
        "the corpus exercises matches ({matched_somewhere})"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
    ))]

    #[test]
    fn the_index_agrees_with_trying_every_pattern_on_generated_lines(line in line_strategy()) {
        for compiled in specs() {
            let classifier = Classifier::with_table(compiled.ir(), compiled.machine.commands());
            let want = brute_force(classifier.table(), &line);
            prop_assert_eq!(indexed(&classifier, &line), want.clone(), "spec `{}`", compiled.name);
            prop_assert_eq!(
                indexed(&used(compiled), &line),
                want,
                "spec `{}` (used classifier)", compiled.name
            );
        }
    }
}
