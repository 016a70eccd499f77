//! The documentation names only commands and flags the binary has: every `gate …` command in
//! README.md's command table, and every `gate …` command quoted in README.md and docs/
//! (inline code and shell blocks), is checked word by word against the clap definition
//! (`gate_cli::cli::command()`, walked with clap's own introspection): each subcommand must
//! exist where it is used, each flag must be one that command takes (its own or a global
//! one), and a value given to a flag with a fixed set of values must be one of them.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("gate-cli lives inside the workspace")
        .to_path_buf()
}

/// The clap command tree, built (global flags propagated to every subcommand).
fn cli() -> clap::Command {
    let mut command = gate_cli::cli::command();
    command.build();
    command
}

/// Words that end a gate command inside a shell line.
fn ends_command(word: &str) -> bool {
    matches!(
        word,
        "|" | "||" | "&&" | ";" | "<" | ">" | ">>" | "2>&1" | "#"
    ) || word.starts_with('>')
}

/// A placeholder rather than a literal: `<id>`, `FILE`, `NAME`, `{event}`, `…`.
fn is_placeholder(word: &str) -> bool {
    word.starts_with('<')
        || word.starts_with('{')
        || word.contains('…')
        || word.contains("...")
        || word.starts_with('$')
        || (word.chars().any(|c| c.is_ascii_uppercase())
            && !word.chars().any(|c| c.is_ascii_lowercase()))
}

/// Checks one command line (`gate` first); returns what does not exist.
fn check_command(line: &str, root: &clap::Command) -> Result<(), String> {
    // Table cells escape `|` as `\|`; brackets and parentheses only group.
    let cleaned = line
        .replace("\\|", " \\| ")
        .replace(['[', ']', '(', ')'], " ");
    let mut words = cleaned.split_whitespace().peekable();
    let first = words.next().unwrap_or_default();
    if first != "gate" && !first.ends_with("/gate") {
        return Err(format!("not a gate command: {line}"));
    }
    let mut command = root;
    let mut path = String::from("gate");
    // Whether a positional of the current command has been seen (then no subcommand follows).
    let mut positional_seen = false;
    while let Some(word) = words.next() {
        let word = word.trim_end_matches([',', '.', ':']);
        // The end of a command, or an ellipsis standing for words not shown (after which the
        // subcommand is unknown).
        if ends_command(word) || word == "…" || word == "..." {
            break;
        }
        if word.is_empty() || word == "\\|" || word == "/" || is_placeholder(word) {
            continue;
        }
        if let Some(flag) = word.strip_prefix("--") {
            let (name, inline) = match flag.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (flag, None),
            };
            if name == "help" || (name == "version" && command.get_name() == "gate") {
                continue;
            }
            let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(name)) else {
                return Err(format!("`{path}` has no flag --{name} (in `{line}`)"));
            };
            if arg.get_action().takes_values() {
                let value = match inline {
                    Some(value) => Some(value.to_string()),
                    None => words.next().map(str::to_string),
                };
                if let Some(value) = value {
                    check_values(arg, &value, &path, line)?;
                }
            }
            continue;
        }
        if let Some(short) = word.strip_prefix('-') {
            let mut chars = short.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return Err(format!(
                    "`{path}`: cannot read the flag {word} (in `{line}`)"
                ));
            };
            if c == 'h' {
                continue;
            }
            let Some(arg) = command.get_arguments().find(|a| a.get_short() == Some(c)) else {
                return Err(format!("`{path}` has no flag -{c} (in `{line}`)"));
            };
            if arg.get_action().takes_values() {
                words.next();
            }
            continue;
        }
        if command.has_subcommands() && !positional_seen {
            match command.find_subcommand(word) {
                Some(sub) => {
                    path = format!("{path} {word}");
                    command = sub;
                    continue;
                }
                None => return Err(format!("`{path}` has no subcommand `{word}` (in `{line}`)")),
            }
        }
        // A positional value: checked against the first positional's values, if fixed.
        if !positional_seen {
            if let Some(arg) = command.get_positionals().next() {
                check_values(arg, word, &path, line)?;
            }
        }
        positional_seen = true;
    }
    Ok(())
}

/// A literal value given to `arg` must be one of its possible values, when it has a fixed set
/// (alternatives written `a|b` are each checked).
fn check_values(arg: &clap::Arg, value: &str, path: &str, line: &str) -> Result<(), String> {
    let possible = arg.get_possible_values();
    if possible.is_empty() {
        return Ok(());
    }
    // A flag that takes a list (`--only ask,deny`) is checked item by item.
    let delimiter = arg.get_value_delimiter().unwrap_or('|');
    for value in value
        .split(['|', '\\', delimiter])
        .filter(|v| !v.is_empty())
    {
        if is_placeholder(value) {
            continue;
        }
        if !possible.iter().any(|p| p.matches(value, false)) {
            let names: Vec<&str> = possible.iter().map(|p| p.get_name()).collect();
            return Err(format!(
                "`{path}`: `{value}` is not a value of {} (values: {}) (in `{line}`)",
                arg.get_id(),
                names.join(", ")
            ));
        }
    }
    Ok(())
}

/// The `gate …` commands in the first column of README.md's command table.
fn readme_table_commands(readme: &str) -> Vec<String> {
    let table = readme
        .split("## Commands")
        .nth(1)
        .expect("README.md has a `## Commands` section");
    let mut commands = Vec::new();
    for row in table.lines().filter(|l| l.starts_with("| `gate")) {
        // The first cell ends at the first `|` that is not escaped.
        let mut cell = String::new();
        let mut chars = row[1..].chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'|') => {
                    cell.push_str("\\|");
                    chars.next();
                }
                '|' => break,
                c => cell.push(c),
            }
        }
        commands.extend(code_spans(&cell).into_iter().filter(|s| is_gate_line(s)));
    }
    commands
}

/// The contents of the inline code spans of one line.
fn code_spans(line: &str) -> Vec<String> {
    line.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, span)| span.to_string())
        .collect()
}

fn is_gate_line(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or_default();
    (first == "gate" || first.ends_with("/gate")) && text.split_whitespace().nth(1).is_some()
}

/// Every `gate …` command quoted in a Markdown file: inline code, and the lines of fenced
/// shell blocks (a leading `$ ` is dropped; a command may follow `&&` or `|`).
fn quoted_commands(markdown: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(info.trim().to_string()),
            };
            continue;
        }
        match &fence {
            Some(info) if matches!(info.as_str(), "sh" | "bash" | "console" | "shell" | "") => {
                let line = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
                for part in line.split("&&").flat_map(|p| p.split(" | ")) {
                    let part = part.trim();
                    if is_gate_line(part) {
                        commands.push(part.to_string());
                    }
                }
            }
            Some(_) => {}
            None => commands.extend(code_spans(line).into_iter().filter(|s| is_gate_line(s))),
        }
    }
    commands
}

fn markdown_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
}

#[test]
fn readme_command_table_matches_the_binary() {
    let root = cli();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let commands = readme_table_commands(&readme);
    // Every subcommand but the hidden ones has a row; a parsing slip would find few.
    let visible = root.get_subcommands().filter(|c| !c.is_hide_set()).count();
    assert!(
        commands.len() >= visible,
        "only {} commands read from README.md's table (the binary has {visible} subcommands): \
         {commands:?}",
        commands.len()
    );
    let mut named: Vec<String> = commands
        .iter()
        .filter_map(|c| c.split_whitespace().nth(1).map(str::to_string))
        .collect();
    named.sort();
    named.dedup();
    let missing: Vec<&str> = root
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .map(|c| c.get_name())
        .filter(|name| !named.iter().any(|n| n == name))
        .collect();
    assert!(
        missing.is_empty(),
        "subcommands missing from README.md's table: {missing:?}"
    );
    let problems: Vec<String> = commands
        .iter()
        .filter_map(|c| check_command(c, &root).err())
        .collect();
    assert!(
        problems.is_empty(),
        "README.md's command table names what the binary does not have:\n  {}",
        problems.join("\n  ")
    );
}

/// Commands the docs quote on purpose to show how gate treats bad input.
const DELIBERATELY_INVALID: &[&str] = &[
    // docs/reliability.md's fault table: the hook answers nothing, exit 0.
    "gate hook not-a-runtime --bogus-flag",
];

#[test]
fn commands_quoted_in_the_docs_exist() {
    let root = cli();
    let mut files = vec![repo().join("README.md")];
    markdown_files(&repo().join("docs"), &mut files);
    let mut checked = 0;
    let mut problems = Vec::new();
    for file in &files {
        let mut text = std::fs::read_to_string(file).unwrap();
        // The generated machine pages' tables quote the spec's command patterns
        // (`gate uninstall`, what a rule matches), not commands to run: their prose is checked.
        if file.parent().is_some_and(|d| d.ends_with("docs/machines")) {
            text = text
                .lines()
                .filter(|l| !l.starts_with('|'))
                .collect::<Vec<_>>()
                .join("\n");
        }
        for command in quoted_commands(&text) {
            checked += 1;
            if DELIBERATELY_INVALID.contains(&command.as_str()) {
                assert!(
                    check_command(&command, &root).is_err(),
                    "`{command}` is listed as invalid but is valid"
                );
                continue;
            }
            if let Err(problem) = check_command(&command, &root) {
                let shown = file.strip_prefix(repo()).unwrap_or(file).display();
                problems.push(format!("{shown}: {problem}"));
            }
        }
    }
    assert!(checked >= 40, "only {checked} quoted gate commands found");
    assert!(
        problems.is_empty(),
        "the docs quote commands or flags the binary does not have:\n  {}",
        problems.join("\n  ")
    );
}

/// The checker itself finds what it is for (a docs test that cannot fail proves nothing).
#[test]
fn the_checker_rejects_what_the_binary_does_not_have() {
    let root = cli();
    for good in [
        "gate log -n 5 --decision deny --since 2h --tier destructive --rule remote_code",
        "gate replay session.jsonl --only ask,deny --json",
        "gate --spec guard replay session.jsonl --role worker --json",
        "gate audit export --format jsonl > audit.jsonl",
        "gate diagram [SPEC] [--format mermaid\\|dot\\|markdown] [--check]",
        "gate init codex --global",
        "gate hook copilot --event {event}",
        "/usr/local/bin/gate hook claude-code",
        "gate … --remove",
    ] {
        assert_eq!(check_command(good, &root), Ok(()), "{good}");
    }
    for bad in [
        "gate frobnicate",
        "gate log --nope",
        "gate log --decision maybe",
        "gate replay session.jsonl --only ask,maybe",
        "gate audit rewrite",
        "gate diagram --format svg",
        "gate init vim",
        "gate status -q",
        "gate check --since 2h",
    ] {
        assert!(check_command(bad, &root).is_err(), "accepted: {bad}");
    }
    assert_eq!(
        readme_table_commands(
            "## Commands\n| `gate a --x` / `gate b` | text `gate c` |\n| `gate d [x\\|y]` | t |\n"
        ),
        ["gate a --x", "gate b", "gate d [x\\|y]"]
    );
    assert_eq!(
        quoted_commands(
            "Run `gate x`.\n```sh\n$ gate y --z && gate w | jq .\n```\n```toml\ngate q\n```\n"
        ),
        ["gate x", "gate y --z", "gate w"]
    );
}

/// Every `fn NAME` in the workspace's Rust sources and every spec-test case name
/// (`name = "NAME"` in `specs/tests/*.test.toml`): the tests a doc may cite.
fn test_names() -> std::collections::HashSet<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if !matches!(&*name, "target" | ".git" | "node_modules") {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") || name.ends_with(".test.toml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo(), &mut files);
    let mut names = std::collections::HashSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for line in text.lines() {
            let line = line.trim_start();
            let name = line
                .strip_prefix("fn ")
                .or_else(|| line.strip_prefix("pub fn "))
                .map(|rest| rest.split(['(', '<']).next().unwrap_or(""))
                .or_else(|| {
                    line.strip_prefix("name = \"")
                        .and_then(|rest| rest.split('"').next())
                });
            if let Some(name) = name.filter(|n| !n.is_empty()) {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// The seed tables of `docs/specs/*.md` (requirement, status, …, test): every row whose
/// status says it works names, in its last cell, at least one test, and every test a row
/// names exists, so the suite that CI runs is what backs each "works".
#[test]
fn every_working_seed_row_names_tests_that_exist() {
    let names = test_names();
    let mut problems = Vec::new();
    let mut rows = 0;
    for entry in std::fs::read_dir(repo().join("docs/specs")).expect("docs/specs") {
        let path = entry.expect("a docs entry").path();
        let text = std::fs::read_to_string(&path).expect("a readable doc");
        for (n, line) in text.lines().enumerate() {
            let cells: Vec<&str> = line
                .trim()
                .trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect();
            if cells.len() < 3 || !cells.iter().skip(1).any(|c| c.starts_with("works")) {
                continue;
            }
            rows += 1;
            let last = cells.last().copied().unwrap_or("");
            let cited: Vec<&str> = last
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|w| {
                    w.contains('_')
                        && w.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
                .collect();
            let at = format!("{}:{}", path.display(), n + 1);
            if cited.is_empty() {
                problems.push(format!("{at}: a working row names no test: {line}"));
            }
            for name in cited {
                if !names.contains(name) {
                    problems.push(format!("{at}: `{name}` is no test in the workspace"));
                }
            }
        }
    }
    assert!(
        rows >= 30,
        "only {rows} working rows found: is the table format read?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
