//! A Makefile read for what `make` runs: the recipes of the targets asked for (the default
//! goal when none) and of the targets they depend on, with the Makefile's variables and
//! make's automatic variables expanded, each recipe line read as the shell line make hands
//! `sh -c` in the directory make runs in; and the `$(shell …)` and `!=` commands make runs
//! while it reads the file. Included files are read too (bounded).
//!
//! The reading is a superset where make would choose: every branch of a conditional counts,
//! and a function gate does not evaluate (`$(call …)`, `$(foreach …)`, `$(eval …)`) is an
//! unknown word, so a recipe built from one is not read as harmless. A variable the
//! Makefile does not set is the environment's (unknown), not empty.

use super::disk::{self, Unreadable};
use super::places::{self, Where};
use super::runs::{Earlier, MAX_SCRIPT};
use super::Sink;

/// Most files read for one `make` (the Makefile and what it includes).
const MAX_FILES: usize = 8;
/// Most rules whose recipes are gathered.
const MAX_RULES: usize = 64;
/// Deepest variable expansion.
const MAX_EXPAND: usize = 8;
/// Longest expansion of one text.
const MAX_TEXT: usize = 64 * 1024;

/// What stands for a value gate does not compute.
const UNKNOWN: &str = "$GATE_MAKE_UNKNOWN";

/// One rule: its targets, prerequisites and recipe lines (as written).
#[derive(Debug, Default)]
struct Rule {
    targets: Vec<String>,
    prereqs: Vec<String>,
    recipe: Vec<String>,
}

/// A Makefile as read.
#[derive(Debug, Default)]
struct Make {
    rules: Vec<Rule>,
    /// Assignments in order: name, value, whether it appends (`+=`).
    vars: Vec<(String, String, bool)>,
    /// Shell commands make runs while reading (`$(shell …)` in an immediate assignment,
    /// `VAR != cmd`).
    parse_time: Vec<String>,
    default_goal: Option<String>,
    /// Something gate could not read (an include it could not find or read).
    unknown: bool,
}

/// What `make` run in `dir` (absolute) with the Makefile `file` (or the default names), the
/// `targets` and the command-line `vars` runs: read and put into `sink`.
pub(super) fn read(
    dir: &str,
    file: Option<&str>,
    targets: &[String],
    vars: &[(String, String)],
    at: &Where,
    earlier: &dyn Fn(&str) -> Earlier,
    sink: &mut Sink,
) {
    let path = match file {
        Some(f) => places::place_of(f, dir, None, at).1,
        None => ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .map(|n| format!("{}/{n}", dir.trim_end_matches('/')))
            .find(|p| {
                std::fs::symlink_metadata(p).is_ok() || matches!(earlier(p), Earlier::Wrote(_))
            })
            .unwrap_or_else(|| format!("{}/Makefile", dir.trim_end_matches('/'))),
    };
    let mut make = Make::default();
    let mut files = 0;
    if !load(&path, dir, earlier, &mut make, &mut files) {
        sink.opaque(&path);
        return;
    }
    if make.unknown {
        sink.opaque(&path);
    }
    // Command-line variables override the Makefile's.
    for (n, v) in vars {
        make.vars.push((n.clone(), v.clone(), false));
    }
    let mut code = String::new();
    for cmd in &make.parse_time {
        let line = expand(&make, cmd, &Auto::default(), dir, 0);
        push_line(&mut code, &line);
    }
    let goals: Vec<String> = if targets.is_empty() {
        make.default_goal.iter().cloned().collect()
    } else {
        targets.to_vec()
    };
    // Breadth-first over prerequisites, each rule once.
    let mut queue: Vec<String> = goals;
    let mut done: Vec<String> = Vec::new();
    let mut rules = 0;
    while let Some(target) = queue.pop() {
        if done.contains(&target) || rules >= MAX_RULES {
            continue;
        }
        done.push(target.clone());
        for (rule, stem) in rules_for(&make, &target) {
            rules += 1;
            let auto = Auto {
                target: target.clone(),
                prereqs: rule.prereqs.iter().map(|p| p.replace('%', &stem)).collect(),
                stem: stem.clone(),
            };
            for p in &auto.prereqs {
                let p = expand(&make, p, &auto, dir, 0);
                queue.extend(p.split_whitespace().map(str::to_string));
            }
            for line in &rule.recipe {
                let line = expand(&make, line, &auto, dir, 0);
                push_line(&mut code, &line);
            }
        }
    }
    if !code.is_empty() {
        sink.scripts_in.push((dir.to_string(), code));
    }
}

/// A recipe line as the shell gets it: make's own prefixes (`@`, `-`, `+`) removed, run in a
/// subshell of its own (each line is its own `sh -c`, so a `cd` ends with it).
fn push_line(code: &mut String, line: &str) {
    let line = line.trim_start_matches(['@', '-', '+', ' ', '\t']);
    if line.trim().is_empty() {
        return;
    }
    code.push('(');
    code.push_str(line);
    code.push_str(")\n");
}

/// Read the Makefile at `path` (and what it includes) into `make`; false when the file
/// itself cannot be read.
fn load(
    path: &str,
    dir: &str,
    earlier: &dyn Fn(&str) -> Earlier,
    make: &mut Make,
    files: &mut usize,
) -> bool {
    *files += 1;
    if *files > MAX_FILES {
        return false;
    }
    let text = match earlier(path) {
        // The text the line wrote there is the Makefile make reads.
        Earlier::Wrote(text) => text,
        Earlier::Shown | Earlier::Changed => return false,
        Earlier::Unchanged => match disk::read_text(path, MAX_SCRIPT) {
            Ok(t) => t,
            Err(
                Unreadable::Missing
                | Unreadable::NotText
                | Unreadable::TooLarge
                | Unreadable::Binary,
            ) => return false,
        },
    };
    parse(&text, dir, earlier, make, files);
    true
}

/// Read Makefile text into `make`.
fn parse(
    text: &str,
    dir: &str,
    earlier: &dyn Fn(&str) -> Earlier,
    make: &mut Make,
    files: &mut usize,
) {
    let mut lines = text.lines().peekable();
    // The rules of the last rule line, whose recipe a tab-led line adds to.
    let mut current: Option<usize> = None;
    while let Some(raw) = lines.next() {
        let mut line = raw.to_string();
        while line.ends_with('\\') {
            line.pop();
            match lines.next() {
                Some(next) => {
                    line.push(' ');
                    line.push_str(next.trim_start());
                }
                None => break,
            }
        }
        if let Some(recipe) = line.strip_prefix('\t') {
            if let Some(r) = current {
                make.rules[r].recipe.push(recipe.to_string());
            }
            continue;
        }
        let line = strip_comment(&line);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let word = trimmed.split_whitespace().next().unwrap_or("");
        match word {
            // Conditionals: every branch is read.
            "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif" => continue,
            "define" => {
                // A multi-line variable: its body until `endef`.
                let name = trimmed[6..]
                    .trim()
                    .trim_end_matches(['=', ':', '+', '?', '!', ' '])
                    .to_string();
                let mut body = Vec::new();
                for l in lines.by_ref() {
                    if l.trim() == "endef" {
                        break;
                    }
                    body.push(l);
                }
                make.vars.push((name, body.join("\n"), false));
                current = None;
                continue;
            }
            "include" | "-include" | "sinclude" => {
                let optional = word != "include";
                for f in trimmed[word.len()..].split_whitespace() {
                    let f = expand(make, f, &Auto::default(), dir, 0);
                    if f.contains('$') || f.contains(['*', '?', '[']) {
                        make.unknown = true;
                        continue;
                    }
                    let p = places::normalise(&if f.starts_with('/') {
                        f
                    } else {
                        format!("{dir}/{f}")
                    });
                    let exists = std::fs::symlink_metadata(&p).is_ok();
                    if !exists && optional {
                        continue;
                    }
                    if !load(&p, dir, earlier, make, files) {
                        make.unknown = true;
                    }
                }
                continue;
            }
            _ => {}
        }
        if let Some((name, value, kind)) = assignment(trimmed) {
            current = None;
            match kind {
                Assign::Shell => make.parse_time.push(value.to_string()),
                Assign::Immediate => {
                    gather_shell(value, &mut make.parse_time);
                    make.vars.push((name.to_string(), value.to_string(), false));
                }
                Assign::Recursive | Assign::Conditional => {
                    make.vars.push((name.to_string(), value.to_string(), false))
                }
                Assign::Append => make.vars.push((name.to_string(), value.to_string(), true)),
            }
            if name == ".DEFAULT_GOAL" {
                make.default_goal = Some(value.trim().to_string());
            }
            continue;
        }
        if let Some(colon) = rule_colon(trimmed) {
            let targets: Vec<String> = trimmed[..colon]
                .split_whitespace()
                .map(str::to_string)
                .collect();
            let mut rest = trimmed[colon + 1..].trim_start_matches(':');
            let mut inline = None;
            if let Some(semi) = rest.find(';') {
                inline = Some(rest[semi + 1..].to_string());
                rest = &rest[..semi];
            }
            // `target: VAR = value` sets a variable for the target: no rule of its own.
            if assignment(rest.trim()).is_some() {
                current = None;
                continue;
            }
            let prereqs: Vec<String> = rest
                .split_whitespace()
                .filter(|p| *p != "|")
                .map(str::to_string)
                .collect();
            if make.default_goal.is_none() {
                if let Some(first) = targets.first() {
                    if !first.starts_with('.') && !first.contains('%') {
                        make.default_goal = Some(first.clone());
                    }
                }
            }
            make.rules.push(Rule {
                targets,
                prereqs,
                recipe: inline.into_iter().collect(),
            });
            current = Some(make.rules.len() - 1);
        }
    }
}

/// `# comment` removed (not `\#`).
fn strip_comment(line: &str) -> String {
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'#' && (i == 0 || b[i - 1] != b'\\') {
            return line[..i].to_string();
        }
    }
    line.to_string()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Assign {
    Recursive,
    Immediate,
    Conditional,
    Append,
    Shell,
}

/// `NAME = v`, `NAME := v`, `NAME ::= v`, `NAME ?= v`, `NAME += v`, `NAME != cmd`, with
/// `override` and `export` before it.
fn assignment(line: &str) -> Option<(&str, &str, Assign)> {
    let line = line
        .strip_prefix("override ")
        .or_else(|| line.strip_prefix("export "))
        .unwrap_or(line)
        .trim_start();
    let eq = line.find('=')?;
    let before = &line[..eq];
    // A rule's colon comes before any `=` of a rule line (`a: b=c` is no assignment here).
    let (name_end, kind) = if let Some(n) = before.strip_suffix("::") {
        (n.len(), Assign::Immediate)
    } else if let Some(n) = before.strip_suffix(':') {
        (n.len(), Assign::Immediate)
    } else if let Some(n) = before.strip_suffix('?') {
        (n.len(), Assign::Conditional)
    } else if let Some(n) = before.strip_suffix('+') {
        (n.len(), Assign::Append)
    } else if let Some(n) = before.strip_suffix('!') {
        (n.len(), Assign::Shell)
    } else {
        (before.len(), Assign::Recursive)
    };
    let name = line[..name_end].trim();
    if name.is_empty() || name.contains(char::is_whitespace) || name.contains(':') {
        return None;
    }
    Some((name, line[eq + 1..].trim(), kind))
}

/// The colon of a rule line (outside `$(…)`), when the line is one.
fn rule_colon(line: &str) -> Option<usize> {
    let mut depth = 0i32;
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth -= 1,
            b':' if depth == 0 => {
                // `C:\…` on Windows-written Makefiles is rare; `::` is a double-colon rule.
                return Some(i);
            }
            _ => {}
        }
    }
    None
}

/// Every `$(shell …)` in `text` (what make runs when it expands it).
fn gather_shell(text: &str, out: &mut Vec<String>) {
    let mut rest = text;
    while let Some(at) = rest.find("$(shell ") {
        let body = &rest[at + 8..];
        let end = matching_paren(body).unwrap_or(body.len());
        out.push(body[..end].to_string());
        rest = &body[end.min(body.len())..];
    }
}

/// The index of the `)` that closes a `$(` whose body starts at `body`.
fn matching_paren(body: &str) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in body.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The rules whose recipe makes `target`: the explicit ones naming it, else the first
/// pattern rule (`%.o: %.c`) that matches it, with its stem.
fn rules_for<'m>(make: &'m Make, target: &str) -> Vec<(&'m Rule, String)> {
    let explicit: Vec<(&Rule, String)> = make
        .rules
        .iter()
        .filter(|r| r.targets.iter().any(|t| t == target))
        .map(|r| (r, String::new()))
        .collect();
    if explicit.iter().any(|(r, _)| !r.recipe.is_empty()) {
        return explicit;
    }
    let pattern = make.rules.iter().find_map(|r| {
        r.targets.iter().find_map(|t| {
            let (pre, post) = t.split_once('%')?;
            let stem = target.strip_prefix(pre)?.strip_suffix(post)?;
            (!r.recipe.is_empty()).then(|| (r, stem.to_string()))
        })
    });
    let mut out = explicit;
    out.extend(pattern);
    out
}

/// make's automatic variables for one rule.
#[derive(Debug, Default)]
struct Auto {
    target: String,
    prereqs: Vec<String>,
    stem: String,
}

/// `text` with make's variables and functions expanded (bounded).
fn expand(make: &Make, text: &str, auto: &Auto, dir: &str, depth: usize) -> String {
    if depth > MAX_EXPAND || !text.contains('$') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        if out.len() > MAX_TEXT {
            return out;
        }
        let after = &rest[at + 1..];
        let Some(c) = after.chars().next() else {
            out.push('$');
            rest = "";
            break;
        };
        match c {
            '$' => {
                out.push('$');
                rest = &after[1..];
            }
            '(' | '{' => {
                let close = if c == '(' { ')' } else { '}' };
                let body = &after[1..];
                let end = if c == '(' {
                    matching_paren(body)
                } else {
                    body.find(close)
                };
                let Some(end) = end else {
                    out.push_str(UNKNOWN);
                    rest = "";
                    break;
                };
                let inner = &body[..end];
                out.push_str(&reference(make, inner, auto, dir, depth));
                rest = &body[end + 1..];
            }
            c => {
                out.push_str(&reference(make, &c.to_string(), auto, dir, depth));
                rest = &after[c.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of `$(inner)`: an automatic variable, a function, or a variable.
fn reference(make: &Make, inner: &str, auto: &Auto, dir: &str, depth: usize) -> String {
    let again = |t: &str| expand(make, t, auto, dir, depth + 1);
    match inner {
        "@" => return auto.target.clone(),
        "<" => return auto.prereqs.first().cloned().unwrap_or_default(),
        "^" | "+" | "?" => return auto.prereqs.join(" "),
        "*" => return auto.stem.clone(),
        "@D" => {
            return auto
                .target
                .rsplit_once('/')
                .map_or(".".to_string(), |(d, _)| d.to_string())
        }
        "@F" => {
            return auto
                .target
                .rsplit_once('/')
                .map_or(auto.target.clone(), |(_, f)| f.to_string())
        }
        _ => {}
    }
    if let Some((func, args)) = inner.split_once([' ', '\t']) {
        let args = args.trim_start();
        let split = |n: usize| -> Vec<String> { args.splitn(n, ',').map(&again).collect() };
        match func {
            "shell" => return UNKNOWN.to_string(),
            "wildcard" | "abspath" | "realpath" | "strip" | "sort" | "firstword" | "lastword"
            | "dir" | "notdir" | "basename" | "value" => return again(args),
            "addprefix" => {
                let a = split(2);
                let (p, list) = (
                    a.first().cloned().unwrap_or_default(),
                    a.get(1).cloned().unwrap_or_default(),
                );
                return list
                    .split_whitespace()
                    .map(|w| format!("{p}{w}"))
                    .collect::<Vec<_>>()
                    .join(" ");
            }
            "addsuffix" => {
                let a = split(2);
                let (s, list) = (
                    a.first().cloned().unwrap_or_default(),
                    a.get(1).cloned().unwrap_or_default(),
                );
                return list
                    .split_whitespace()
                    .map(|w| format!("{w}{s}"))
                    .collect::<Vec<_>>()
                    .join(" ");
            }
            "subst" => {
                let a = split(3);
                if let [from, to, text] = a.as_slice() {
                    if !from.is_empty() {
                        return text.replace(from.as_str(), to);
                    }
                }
                return UNKNOWN.to_string();
            }
            "patsubst" => {
                let a = split(3);
                if let [from, to, text] = a.as_slice() {
                    if let Some((pre, post)) = from.split_once('%') {
                        return text
                            .split_whitespace()
                            .map(
                                |w| match w.strip_prefix(pre).and_then(|s| s.strip_suffix(post)) {
                                    Some(stem) => to.replacen('%', stem, 1),
                                    None => w.to_string(),
                                },
                            )
                            .collect::<Vec<_>>()
                            .join(" ");
                    }
                }
                return UNKNOWN.to_string();
            }
            // Every branch, so that a path chosen by a condition is read whichever it is.
            "if" | "or" | "and" => {
                let a = split(3);
                return a.get(1..).unwrap_or_default().join(" ");
            }
            "filter" | "filter-out" => {
                let a = split(2);
                return a.get(1).cloned().unwrap_or_default();
            }
            "info" | "warning" | "error" => return String::new(),
            "foreach" | "call" | "eval" | "file" | "origin" | "flavor" | "guile" | "let"
            | "intcmp" | "word" | "wordlist" | "words" | "join" | "suffix" => {
                return UNKNOWN.to_string()
            }
            _ => {}
        }
    }
    // `$(VAR:a=b)`: a substitution reference.
    let (name, subst) = match inner.split_once(':') {
        Some((n, s)) if s.contains('=') => (n, Some(s)),
        _ => (inner, None),
    };
    let name = again(name);
    let value = variable(make, &name, dir, auto, depth);
    match subst.and_then(|s| s.split_once('=')) {
        Some((from, to)) => value
            .split_whitespace()
            .map(|w| match w.strip_suffix(from) {
                Some(stem) => format!("{stem}{to}"),
                None => w.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        None => value,
    }
}

/// A variable's value: the Makefile's (appends joined), make's built-in ones, else the
/// environment's, which gate does not know.
fn variable(make: &Make, name: &str, dir: &str, auto: &Auto, depth: usize) -> String {
    let mut value: Option<String> = None;
    for (n, v, append) in &make.vars {
        if n != name {
            continue;
        }
        value = Some(match (value, append) {
            (Some(prev), true) => format!("{prev} {v}"),
            _ => v.clone(),
        });
    }
    match value {
        Some(v) => expand(make, &v, auto, dir, depth + 1),
        None => match name {
            "MAKE" => "make".to_string(),
            "RM" => "rm -f".to_string(),
            "CC" => "cc".to_string(),
            "CXX" => "g++".to_string(),
            "AR" => "ar".to_string(),
            "SHELL" => "/bin/sh".to_string(),
            "CURDIR" => dir.to_string(),
            "MAKEFLAGS" | "MFLAGS" | "MAKECMDGOALS" | "CFLAGS" | "CXXFLAGS" | "LDFLAGS"
            | "CPPFLAGS" | "LDLIBS" | "ARFLAGS" => String::new(),
            n if n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') && !n.is_empty() => {
                format!("${n}")
            }
            _ => UNKNOWN.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipes(text: &str, targets: &[&str]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Makefile");
        std::fs::write(&path, text).unwrap();
        let mut sink = Sink::default();
        let at = Where {
            cwd: "/p".into(),
            project: "/p".into(),
            home: "/h".into(),
            gate: vec![],
            disk: true,
        };
        let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
        read(
            dir.path().to_str().unwrap(),
            None,
            &targets,
            &[],
            &at,
            &|_| Earlier::Unchanged,
            &mut sink,
        );
        sink.scripts_in
            .iter()
            .map(|(_, c)| c.clone())
            .collect::<Vec<_>>()
            .join("")
    }

    #[test]
    fn the_default_goal_and_its_prerequisites_run() {
        let text = "BUILD := out\n.PHONY: all clean\nall: build\n\t@echo done\nbuild:\n\tmkdir -p $(BUILD)\nclean:\n\t-rm -rf $(BUILD) $(DIST)\n";
        let all = recipes(text, &[]);
        assert!(all.contains("(echo done)"), "{all}");
        assert!(all.contains("(mkdir -p out)"), "{all}");
        assert!(!all.contains("rm -rf"), "{all}");
        let clean = recipes(text, &["clean"]);
        assert_eq!(clean, "(rm -rf out $DIST)\n");
    }

    #[test]
    fn shell_functions_automatic_variables_and_patterns() {
        let text = "X != rm -rf ~\nY := $(shell touch /tmp/y)\n%.o: %.c\n\t$(CC) -c $< -o $@\nz: a.o\n\t$(RM) $^ ; $(MAKE) -C sub\n";
        let z = recipes(text, &["z"]);
        assert!(z.contains("(rm -rf ~)"), "{z}");
        assert!(z.contains("(touch /tmp/y)"), "{z}");
        assert!(z.contains("(rm -f a.o ; make -C sub)"), "{z}");
        assert!(z.contains("(cc -c a.c -o a.o)"), "{z}");
        // A function gate does not evaluate is unknown, never empty.
        let t = recipes("t:\n\trm -rf $(call dir_of,x)\n", &["t"]);
        assert!(t.contains(UNKNOWN), "{t}");
    }
}
