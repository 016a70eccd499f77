//! The program index of command patterns changes no answer: for every shipped spec, the
//! patterns tried through the index match exactly the rules that trying every pattern on
//! every line matches, on the labelled corpus and on generated lines; and the table a
//! generated machine carries is the one the spec builds at run time.

use gate_runtime::observer::{Classifier, HIT_COMMAND, HIT_EXCEPT};
use gate_runtime::shell;
use gate_spec::pattern::{ArgPattern, CommandPattern, CommandTable};
use proptest::prelude::*;

fn specs() -> impl Iterator<Item = &'static gate_spec::exec::CompiledSpec> {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    gate_specs::ALL.iter().copied()
}

/// Every pattern tried on the line: the answer the index must reproduce.
fn brute_force(table: &CommandTable, line: &str) -> Vec<u8> {
    let parsed = shell::parse(line);
    let any = |list: &[CommandPattern]| list.iter().any(|p| shell::matches(p, &parsed, line));
    table
        .rules
        .iter()
        .map(|r| {
            let mut hit = 0;
            if any(&r.commands) {
                hit |= HIT_COMMAND;
            }
            if any(&r.except_commands) {
                hit |= HIT_EXCEPT;
            }
            hit
        })
        .collect()
}

fn indexed(classifier: &Classifier<'_>, line: &str) -> Vec<u8> {
    classifier.command_hits(&shell::parse(line), line)
}

fn corpus() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/commands.tsv");
    let text = std::fs::read_to_string(path).expect("the labelled corpus is readable");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, cmd)| cmd.to_string()))
        .collect()
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
        let indexed: usize = built.by_program.iter().map(|e| e.patterns.len()).sum();
        assert_eq!(
            indexed + built.always.len(),
            patterns,
            "spec `{}`: every pattern is indexed exactly once",
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
        for line in &lines {
            let want = brute_force(classifier.table(), line);
            matched_somewhere += usize::from(want.iter().any(|&h| h != 0));
            assert_eq!(
                indexed(&classifier, line),
                want,
                "spec `{}`, line {line:?}",
                compiled.name
            );
        }
    }
    assert!(
        matched_somewhere > 100,
        "the corpus exercises matches ({matched_somewhere})"
    );
}

/// Words for generated lines: every program and argument token the shipped patterns name,
/// plus words no pattern names.
fn vocabulary() -> (Vec<String>, Vec<String>) {
    let mut programs = vec!["foo".to_string(), "/usr/bin/rm".to_string()];
    let mut args = vec!["x".to_string(), "--".to_string(), "-rf".to_string()];
    for compiled in specs() {
        let table = CommandTable::build(compiled.ir());
        for rule in table.rules.iter() {
            for p in rule.commands.iter().chain(rule.except_commands.iter()) {
                let CommandPattern::Stages(stages) = p else {
                    continue;
                };
                for stage in stages.iter() {
                    programs.push(stage.program.replace('*', "x"));
                    for a in stage.args.iter() {
                        args.push(match a {
                            ArgPattern::ShortFlag(c) => format!("-{c}"),
                            ArgPattern::LongFlag(name) => format!("--{name}"),
                            ArgPattern::Glob(g) => g.replace('*', "y"),
                        });
                    }
                }
            }
        }
    }
    programs.sort();
    programs.dedup();
    args.sort();
    args.dedup();
    (programs, args)
}

fn line_strategy() -> impl Strategy<Value = String> {
    let (programs, args) = vocabulary();
    let command = (
        proptest::sample::select(programs),
        proptest::collection::vec(proptest::sample::select(args), 0..5),
    )
        .prop_map(|(p, a)| {
            let mut words = vec![p];
            words.extend(a);
            words.join(" ")
        });
    let joiner = proptest::sample::select(vec![" | ", " && ", "; ", " || "]);
    (
        command.clone(),
        proptest::collection::vec((joiner, command), 0..3),
        proptest::sample::select(vec!["", "sudo ", "bash -c '", "env X=1 "]),
    )
        .prop_map(|(first, rest, prefix)| {
            let mut line = format!("{prefix}{first}");
            for (j, c) in rest {
                line.push_str(j);
                line.push_str(&c);
            }
            if prefix.ends_with('\'') {
                line.push('\'');
            }
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
    ))]

    #[test]
    fn the_index_agrees_with_trying_every_pattern_on_generated_lines(line in line_strategy()) {
        for compiled in specs() {
            let classifier = Classifier::with_table(compiled.ir(), compiled.machine.commands());
            prop_assert_eq!(
                indexed(&classifier, &line),
                brute_force(classifier.table(), &line),
                "spec `{}`", compiled.name
            );
        }
    }
}
