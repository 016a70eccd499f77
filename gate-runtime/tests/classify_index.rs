//! The program index of command patterns changes no answer: for every shipped spec, the
//! patterns tried through the index match exactly the rules that trying every pattern on
//! every line matches, on the labelled corpus and on generated lines; and the table a
//! generated machine carries is the one the spec builds at run time.

use gate_runtime::observer::{Classifier, HIT_COMMAND, HIT_EXCEPT};
use gate_runtime::shell;
use gate_spec::commands::CommandTable;
use gate_spec::pattern::{parse_command, ArgPattern, CommandPattern};
use proptest::prelude::*;

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

fn corpus() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/commands.tsv");
    let text = std::fs::read_to_string(path).expect("the labelled corpus is readable");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, cmd)| cmd.to_string()))
        .collect()
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

/// Words for generated lines: every program and argument token the shipped patterns name,
/// plus words no pattern names.
fn vocabulary() -> (Vec<String>, Vec<String>) {
    let mut programs = vec!["foo".to_string(), "/usr/bin/rm".to_string()];
    let mut args = [
        "x",
        "--",
        "-rf",
        "-fr",
        "-Rf",
        "-R",
        "--recursive",
        "--force",
        "--force=1",
        "--force-with-lease",
        "--in-place=.bak",
        "-é",
    ]
    .map(String::from)
    .to_vec();
    for compiled in specs() {
        for rule in &compiled.ir().rules {
            for p in rule.commands.iter().chain(&rule.except_commands) {
                let Ok(CommandPattern::Stages(stages)) = parse_command(&p.text) else {
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
