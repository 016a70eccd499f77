//! The keys a spec test file may use, checked before it is read, so that every misspelled
//! key of the file is reported in one run, each with the key meant.

use std::ops::Range;

use toml::de::{DeTable, DeValue};

use super::file::Problem;

/// The keys of the file itself.
const FILE: &[&str] = &["spec", "case"];
/// The keys of a `[[case]]`.
const CASE: &[&str] = &[
    "name", "runtime", "role", "agent", "session", "cwd", "env", "steps",
];
/// The keys of a step.
const STEP: &[&str] = &[
    "event", "bash", "tool", "path", "input", "exit", "output", "prompt", "approve", "at",
    "repeat", "every", "runtime", "role", "agent", "session", "cwd", "expect", "rule", "tier",
    "kind", "state",
];

/// Every key of the file, its cases and their steps that the format does not have. A file
/// TOML cannot read has none here (reading it reports the syntax error).
pub fn unknown(source: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Ok(root) = DeTable::parse(source) else {
        return problems;
    };
    check(root.get_ref(), FILE, "the file", &mut problems);
    for case in tables(root.get_ref(), "case") {
        check(case, CASE, "a case", &mut problems);
        for step in tables(case, "steps") {
            check(step, STEP, "a step", &mut problems);
        }
    }
    problems
}

/// The tables of the array `key` of `table` (other items are the reader's to report).
fn tables<'a, 's>(table: &'a DeTable<'s>, key: &str) -> impl Iterator<Item = &'a DeTable<'s>> {
    let items = match table.get(key).map(|v| v.get_ref()) {
        Some(DeValue::Array(a)) => a.iter().collect::<Vec<_>>(),
        _ => Vec::new(),
    };
    items.into_iter().filter_map(|v| match v.get_ref() {
        DeValue::Table(t) => Some(t),
        _ => None,
    })
}

fn check(table: &DeTable<'_>, known: &[&str], what: &str, problems: &mut Vec<Problem>) {
    for (key, _) in table.iter() {
        let name: &str = key.get_ref();
        if known.contains(&name) {
            continue;
        }
        let meant = match gate_spec::diag::did_you_mean(name, known.iter().copied()) {
            Some(m) => format!("did you mean `{m}`?"),
            None => format!("its keys: {}", known.join(", ")),
        };
        let span: Range<usize> = key.span();
        problems.push(Problem {
            span,
            message: format!("unknown key `{name}` in {what}; {meant}"),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unknown_key_is_reported_with_the_key_meant() {
        let source = "spc = \"guard\"\n[[case]]\nnme = \"a\"\nsteps = [\n  { bash = \"ls\", exepct = \"allow\" },\n  { bsh = \"ls\", zzzz = 1 },\n]\n";
        let found: Vec<String> = unknown(source).into_iter().map(|p| p.message).collect();
        assert_eq!(
            found,
            [
                "unknown key `spc` in the file; did you mean `spec`?",
                "unknown key `nme` in a case; did you mean `name`?",
                "unknown key `exepct` in a step; did you mean `expect`?",
                "unknown key `bsh` in a step; did you mean `bash`?",
                &format!(
                    "unknown key `zzzz` in a step; its keys: {}",
                    STEP.join(", ")
                ),
            ]
        );
        // `input` and `env` are free-form.
        assert!(unknown("[[case]]\nname = \"a\"\nenv = { X = \"1\" }\nsteps = [{ tool = \"T\", input = { anything = 1 } }]\n").is_empty());
    }
}
