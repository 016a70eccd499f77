//! Generated command lines for the classifier's property tests: the words every shipped
//! spec's command patterns name, joined into pipelines and lists with the wrappers a line
//! may carry (shared by `classify_index.rs` and `classify_needs.rs`).

use gate_spec::commands::{Arg, CommandTable, Pattern, PatternRef};
use proptest::prelude::*;

/// The command table of every shipped spec.
pub fn tables() -> impl Iterator<Item = &'static CommandTable> {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    gate_specs::ALL.iter().map(|c| {
        c.machine
            .commands()
            .expect("a generated machine has a table")
    })
}

/// The commands of the labelled corpus (`tests/corpus/commands.tsv`).
pub fn corpus() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/commands.tsv");
    let text = std::fs::read_to_string(path).expect("the labelled corpus is readable");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, cmd)| cmd.to_string()))
        .collect()
}

/// Every pattern of the table, as the references the classifier uses.
pub fn refs(table: &CommandTable) -> Vec<PatternRef> {
    let mut out = Vec::new();
    for rule in 0..table.rules.len() as u16 {
        for except in [false, true] {
            let n = table.rule_patterns(rule, except).count();
            out.extend((0..n as u16).map(|index| PatternRef {
                rule,
                except,
                index,
            }));
        }
    }
    out
}

/// Words for generated lines: every program and argument token the shipped patterns name,
/// plus words no pattern names.
pub fn vocabulary() -> (Vec<String>, Vec<String>) {
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
    for table in tables() {
        for at in refs(table) {
            let Some(p @ Pattern::Stages(..)) = table.pattern(at) else {
                continue;
            };
            for stage in p.stages() {
                programs.push(stage.program.replace('*', "x"));
                for a in stage.args() {
                    args.push(match a {
                        Arg::ShortFlag(c) => format!("-{c}"),
                        Arg::LongFlag(name) => format!("--{name}"),
                        Arg::Glob(g) => g.replace('*', "y"),
                    });
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

pub fn line_strategy() -> impl Strategy<Value = String> {
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
