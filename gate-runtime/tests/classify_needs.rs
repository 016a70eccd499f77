//! The command prefilter's needs come with the table and change no answer: the needs a
//! generated machine carries are `Need::of` of each of its patterns, and classification
//! through a classifier's first use (no index) and its repeated use both equal classification
//! with a table that holds no needs (every candidate pattern tried), for every shipped spec,
//! on the labelled corpus and on generated lines.

use std::borrow::Cow;

use gate_runtime::event::Event;
use gate_runtime::observer::{Classification, Classifier};
use gate_runtime::shell;
use gate_spec::commands::{CommandTable, Need};
use gate_spec::exec::CompiledSpec;
use gate_spec::ir::Phase;
use proptest::prelude::*;

mod common;
use common::lines::{corpus, line_strategy, refs};
use common::specs::shipped;

fn specs() -> impl Iterator<Item = &'static CompiledSpec> {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    gate_specs::ALL.iter().copied()
}

fn table(compiled: &CompiledSpec) -> &CommandTable {
    compiled
        .machine
        .commands()
        .expect("a generated machine has a table")
}

/// The same table without needs: the classifier then tries every candidate pattern.
fn without_needs(table: &CommandTable) -> CommandTable {
    CommandTable {
        needs: Cow::Borrowed(&[]),
        ..table.clone()
    }
}

fn bash(line: &str) -> Event {
    Event {
        phase: Some(Phase::PreTool),
        tool: Some("Bash".into()),
        target: Some(line.into()),
        cwd: Some("/home/dev/project".into()),
        ..Default::default()
    }
}

/// A classifier that has classified twice, so that it holds its index.
fn used<'s>(compiled: &'s CompiledSpec, table: &'s CommandTable) -> Classifier<'s> {
    let classifier = Classifier::with_table(compiled.ir(), Some(table));
    for _ in 0..2 {
        classifier.classify(&bash("true"));
    }
    classifier
}

/// One fresh classifier per event, as a hook classifies.
fn first_use(compiled: &CompiledSpec, table: &CommandTable, event: &Event) -> Classification {
    Classifier::with_table(compiled.ir(), Some(table)).classify(event)
}

/// Per rule, which of its command and exception patterns match the line, through a fresh
/// classifier (no index): finer than the classification, which one matching pattern of a
/// rule decides.
fn first_hits(compiled: &CompiledSpec, table: &CommandTable, line: &str) -> Vec<u8> {
    Classifier::with_table(compiled.ir(), Some(table)).command_hits(&shell::parse(line), line)
}

/// Every pattern of every shipped spec that matches the line is admitted by its need, the
/// property the skipping rests on (checked per pattern: a rule often has a second pattern
/// that would hide a wrongly skipped one). Returns how many patterns matched.
fn needs_admit_every_match(line: &str) -> Result<usize, String> {
    let parsed = shell::parse(line);
    let mut matched = 0;
    for compiled in specs() {
        let table = table(compiled);
        let mut room = Vec::new();
        let mut facts = shell::LineFacts::new(&parsed, &mut room);
        for at in refs(table) {
            let (pattern, need) = table.candidate(at).expect("a reference of the table");
            if shell::matches_in(pattern, &parsed, line) {
                matched += 1;
                if !facts.admit(need) {
                    return Err(format!(
                        "spec `{}`: {at:?} matches {line:?} but its need {need:?} rejects it",
                        compiled.name
                    ));
                }
            }
        }
    }
    Ok(matched)
}

#[test]
fn the_emitted_needs_are_the_needs_of_the_patterns() {
    for compiled in specs() {
        let table = table(compiled);
        assert_eq!(
            table.needs.len(),
            table.patterns.len(),
            "spec `{}`: one need per pattern",
            compiled.name
        );
        let all = refs(table);
        // Every rule pattern is in the program index; checkpoint patterns are not (they are
        // tried per checkpoint, on the command a tool result reports).
        let checkpoint_patterns: u32 = table
            .checkpoints
            .iter()
            .map(|c| c.commands.len + c.except_commands.len)
            .sum();
        assert_eq!(
            all.len() + checkpoint_patterns as usize,
            table.patterns.len(),
            "spec `{}`",
            compiled.name
        );
        for at in all {
            let pattern = table.pattern(at).expect("a reference of the table");
            assert_eq!(
                table.need(at),
                Need::of(pattern).as_ref(),
                "spec `{}`, {at:?}",
                compiled.name
            );
        }
        let plain = without_needs(table);
        assert!(
            refs(&plain).into_iter().all(|at| plain.need(at).is_none()),
            "a table without needs gives none"
        );
    }
}

#[test]
fn the_needs_skip_patterns_of_the_lines_program() {
    // Not an equivalence test: the prefilter must actually reject something, or the tests
    // below would compare the same work twice.
    let compiled = shipped("default");
    let table = table(compiled);
    let parsed = shell::parse("git reset --hard");
    let mut room = Vec::new();
    let mut facts = shell::LineFacts::new(&parsed, &mut room);
    let candidates = table.for_program("git");
    let rejected = candidates
        .iter()
        .filter(|&&at| !facts.admit(table.need(at)))
        .count();
    assert!(
        rejected * 2 > candidates.len(),
        "{rejected} of {} `git` patterns rejected",
        candidates.len()
    );
}

#[test]
fn classification_with_needs_equals_classification_without_on_the_corpus() {
    let lines = corpus();
    assert!(lines.len() > 200, "the corpus has {} lines", lines.len());
    let mut matched = 0;
    let mut patterns_matched = 0;
    for line in &lines {
        patterns_matched += needs_admit_every_match(line).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(patterns_matched > 100, "{patterns_matched} pattern matches");
    for compiled in specs() {
        let table = table(compiled);
        let plain = without_needs(table);
        let (used_needs, used_plain) = (used(compiled, table), used(compiled, &plain));
        for line in &lines {
            assert_eq!(
                first_hits(compiled, table, line),
                first_hits(compiled, &plain, line),
                "spec `{}`, line {line:?} (pattern hits)",
                compiled.name
            );
            let event = bash(line);
            let want = first_use(compiled, &plain, &event);
            matched += usize::from(!want.matched.is_empty());
            assert_eq!(
                first_use(compiled, table, &event),
                want,
                "spec `{}`, line {line:?} (first use)",
                compiled.name
            );
            assert_eq!(
                used_plain.classify(&event),
                want,
                "spec `{}`, line {line:?} (index, no needs)",
                compiled.name
            );
            assert_eq!(
                used_needs.classify(&event),
                want,
                "spec `{}`, line {line:?} (index)",
                compiled.name
            );
        }
    }
    assert!(matched > 100, "the corpus exercises matches ({matched})");
}

/// Every staged pattern's stages as words: the program and each argument matcher written as a
/// command would (a short flag as `-c`, a long one as `--name`, a glob with `*` as `y`).
fn pattern_stages() -> Vec<Vec<Vec<String>>> {
    use gate_spec::commands::{Arg, Pattern};
    let mut out = Vec::new();
    for compiled in specs() {
        let table = table(compiled);
        for at in refs(table) {
            let Some(p @ Pattern::Stages(..)) = table.pattern(at) else {
                continue;
            };
            out.push(
                p.stages()
                    .map(|stage| {
                        let mut words = vec![stage.program.replace(['*', '?'], "y")];
                        words.extend(stage.args().map(|a| match a {
                            Arg::ShortFlag(c) => format!("-{c}"),
                            Arg::LongFlag(name) => format!("--{name}"),
                            Arg::Glob(g) => g.replace(['*', '?'], "y"),
                        }));
                        words
                    })
                    .collect(),
            );
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Lines close to a pattern, so that many match and many nearly match: a pattern's stages
/// with each word kept, dropped, or rewritten (short flags joined into clusters or written as
/// long equivalents, long flags given values, words replaced) and a few words added.
fn near_pattern_line() -> impl Strategy<Value = String> {
    const REWRITES: [&str; 12] = [
        "-rf",
        "-fr",
        "-Rv",
        "--recursive",
        "--force",
        "--force=1",
        "--symbolic",
        "--in-place=.bak",
        "--insecure",
        "--",
        "x",
        "-v",
    ];
    let stages = pattern_stages();
    assert!(stages.len() > 100, "{} staged patterns", stages.len());
    (
        proptest::sample::select(stages),
        proptest::collection::vec(0u8..16, 24),
        proptest::collection::vec(proptest::sample::select(REWRITES.to_vec()), 24),
        proptest::sample::select(vec![" | ", " && ", "; "]),
    )
        .prop_map(|(stages, choices, rewrites, joiner)| {
            let mut k = 0;
            let mut next = || {
                k += 1;
                (choices[k % choices.len()], rewrites[k % rewrites.len()])
            };
            let commands: Vec<String> = stages
                .iter()
                .map(|words| {
                    let mut out = vec![words[0].clone()];
                    for w in &words[1..] {
                        let (choice, rewrite) = next();
                        match choice {
                            0 => {}
                            1 => out.push(rewrite.to_string()),
                            2 => {
                                out.push(w.clone());
                                out.push(rewrite.to_string());
                            }
                            3 if w.len() == 2 && w.starts_with('-') => {
                                out.push(format!("{w}v"));
                            }
                            4 if w.starts_with("--") => out.push(format!("{w}=v")),
                            _ => out.push(w.clone()),
                        }
                    }
                    out.join(" ")
                })
                .collect();
            commands.join(joiner)
        })
}

/// The property both generators check: every match is admitted by its need, and the pattern
/// hits and classifications with the table's needs equal those without them, on first use
/// and (`with_index`) through a classifier's index.
fn same_with_and_without_needs(line: &str, with_index: bool) -> Result<(), TestCaseError> {
    if let Err(e) = needs_admit_every_match(line) {
        prop_assert!(false, "{}", e);
    }
    let event = bash(line);
    for compiled in specs() {
        let table = table(compiled);
        let plain = without_needs(table);
        prop_assert_eq!(
            first_hits(compiled, table, line),
            first_hits(compiled, &plain, line),
            "spec `{}` (pattern hits)",
            compiled.name
        );
        let want = first_use(compiled, &plain, &event);
        prop_assert_eq!(
            first_use(compiled, table, &event),
            want.clone(),
            "spec `{}` (first use)",
            compiled.name
        );
        if with_index {
            prop_assert_eq!(
                used(compiled, table).classify(&event),
                want,
                "spec `{}` (index)",
                compiled.name
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn classification_with_needs_equals_classification_without_on_generated_lines(
        line in line_strategy()
    ) {
        same_with_and_without_needs(&line, true)?;
    }

    #[test]
    fn classification_with_needs_equals_classification_without_near_patterns(
        line in near_pattern_line()
    ) {
        same_with_and_without_needs(&line, false)?;
    }
}
