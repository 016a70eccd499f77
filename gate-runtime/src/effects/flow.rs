//! What the line's data carries from one command to another, where the command model alone
//! cannot see it: text written where something later runs or obeys it (a start-up file, a
//! package manager's configuration, the hosts file), a substitution whose value the line
//! knows (`$(pwd)`, `$(mktemp -d)`, and the producers of [`super::producers`]), and a
//! package runner handed a URL instead of a package. (Secrets carried along a line are
//! `effects::secrets`'.)

use std::borrow::Cow;

use gate_spec::effect::{Act, Place};

use super::places::{self, Where};
use super::shell::{in_substitution, printed, MAX_NESTING};
use super::Sink;
use crate::shell::SimpleCommand;

/// Wrappers (as the parser names them) that fetch a package and run it.
pub(super) const PACKAGE_RUNNERS: &[&str] = &[
    "npx", "npm exec", "pnpm dlx", "yarn dlx", "bunx", "bun x", "uvx", "pipx run",
];

/// Whether a package spec names a place code is fetched from that is no registry: a URL, a
/// git remote, a forge shorthand.
pub(super) fn names_code_source(spec: &str) -> bool {
    spec.contains("://")
        || ["git+", "github:", "gitlab:", "bitbucket:", "gist:"]
            .iter()
            .any(|p| spec.starts_with(p))
}

/// What the text a command writes does where it lands, when the line shows it: a line
/// added to a shell start-up file is code every later shell runs (analysed, and a temporary
/// directory put first on `PATH` or a preload list is `cron`); a package manager's
/// configuration naming where packages come from is `cron` (later installs run that code),
/// and so is a hosts entry or name server that sends a name elsewhere.
#[allow(clippy::too_many_arguments)]
pub(super) fn later_text(
    cmd: &SimpleCommand<'_>,
    args: &[Cow<'_, str>],
    stdin: Option<&str>,
    cwd: &str,
    oldpwd: Option<&str>,
    at: &Where,
    depth: usize,
    sink: &mut Sink,
) {
    let tee = cmd.program == "tee";
    let targets = args
        .iter()
        .map(|a| &**a)
        .filter(|a| tee && !a.starts_with('-'))
        .chain(
            cmd.writes
                .iter()
                .filter(|w| !tee && w.op != "<" && w.op != "<>")
                .map(|w| w.target.as_str()),
        );
    // The text is read only for a target where it matters.
    let mut text: Option<Option<String>> = None;
    for target in targets {
        if !super::later::may_be_read_later(target) {
            continue;
        }
        let path = places::place_of(target, cwd, oldpwd, at).1;
        let Some(lands) = super::later::lands(&path, &at.home) else {
            continue;
        };
        let shown = text.get_or_insert_with(|| {
            if tee {
                stdin.map(str::to_string)
            } else {
                printed(cmd, stdin)
            }
        });
        let Some(text) = shown.as_deref() else {
            return;
        };
        if lands == super::later::Lands::Startup && depth < MAX_NESTING {
            sink.script(text);
        }
        let is_temp = |d: &str| places::place_of(d, cwd, oldpwd, at).0 == Place::Temp;
        if super::later::text_is_cron(lands, text, is_temp) {
            sink.path(Act::Cron, target);
        }
    }
}

/// Operands built on a substitution whose value the line knows: `$(pwd)` is the working
/// directory, `$(git rev-parse --show-toplevel)` the project, `$(git rev-parse --git-dir)`
/// its `.git` (`rm -rf "$(pwd)/target"` removes build outputs, `rm -rf "$(pwd)"` the
/// project). Only a command with one substitution among its operands, made by one command.
pub(super) fn known_substitutions(
    args: &mut [Cow<'_, str>],
    commands: &[SimpleCommand<'_>],
    i: usize,
    cwd: &str,
    at: &Where,
) {
    const SUB: &str = "$(…)";
    // Backquotes are left as written, a whole word (`` kill `lsof -t -i:3000` ``).
    let quoted = |a: &str| a.len() > 1 && a.starts_with('`') && a.ends_with('`');
    let mut uses = args.iter().filter(|a| a.contains(SUB) || quoted(a));
    let (Some(_), None) = (uses.next(), uses.next()) else {
        return;
    };
    let Some(value) = made_value(commands, i, cwd, at) else {
        return;
    };
    for a in args.iter_mut() {
        if quoted(a) {
            *a = Cow::Owned(value.clone());
        } else if a.contains(SUB) {
            *a = Cow::Owned(a.replacen(SUB, &value, 1));
        }
    }
}

/// The file-name ending a `grep` in a pipeline keeps (`grep '\.orig$'`, `grep -E
/// '[.]bak$'`, unquoted `grep \.orig$`): the lines it passes on are names ending so. `None` for any other filter (an
/// inverse `-v`, a pattern that is not an anchored ending).
pub(super) fn name_suffix_filter(c: &SimpleCommand<'_>) -> Option<String> {
    if !matches!(&*c.program, "grep" | "egrep" | "rg") {
        return None;
    }
    let mut pattern = None;
    for a in c.args.iter().map(|a| &**a) {
        match a {
            "-E" | "--extended-regexp" | "-e" => {}
            _ if a.starts_with('-') => return None,
            _ if pattern.is_none() => pattern = Some(a),
            _ => return None,
        }
    }
    let body = pattern?.strip_suffix('$')?;
    let ext = body
        .strip_prefix("\\.")
        .or_else(|| body.strip_prefix("[.]"))
        // Unquoted, the shell has taken the backslash: `.` is then any one character.
        .or_else(|| body.strip_prefix('.'))?;
    (!ext.is_empty()
        && ext
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')))
    .then(|| format!(".{ext}"))
}

/// Whether a command in a pipeline only cuts the rows it reads to columns, drops a header
/// or reorders them, selecting none: `tail -n +2`, `sed 1d`, `awk '{print $1}'` (no
/// pattern, or only `NR>1`), `cut`, `tr`, `sort`, `uniq`. A `grep`, `head` or an awk
/// pattern selects rows, so what it passes on is no longer every item.
pub(super) fn projects_rows(c: &SimpleCommand<'_>) -> bool {
    let words: Vec<&str> = c.args.iter().map(|a| &**a).collect();
    match &*c.program {
        "cut" | "tr" | "sort" | "uniq" => true,
        "tail" => match words.as_slice() {
            ["-n", n] | ["--lines", n] => header_skip(n),
            [w] => w
                .strip_prefix("-n")
                .or_else(|| w.strip_prefix("--lines="))
                .map_or(header_skip(w), header_skip),
            _ => false,
        },
        "sed" => matches!(words.as_slice(), ["1d"] | ["-e", "1d"]),
        "awk" | "gawk" | "mawk" => match words.as_slice() {
            [code] => {
                let code = code.trim();
                let action = code
                    .strip_prefix("NR>1")
                    .or_else(|| code.strip_prefix("NR > 1"))
                    .unwrap_or(code)
                    .trim_start();
                action.starts_with('{')
                    && action.ends_with('}')
                    && action.contains("print")
                    && !action.contains(['~', '=', '<', '>', '?'])
                    && !action.contains("if")
            }
            _ => false,
        },
        _ => false,
    }
}

/// `+1` or `+2`: every line, or every line after a header.
fn header_skip(n: &str) -> bool {
    matches!(n, "+1" | "+2")
}

/// What a substitution made by the one command `c` prints, when the line knows it: the
/// working directory, the project, its `.git`, or a new temporary file or directory
/// (`mktemp`, `mktemp -d`: a name under the temporary directory; `mktemp -p DIR`: under DIR).
fn value_of(c: &SimpleCommand<'_>, cwd: &str, at: &Where) -> Option<String> {
    let words: Vec<&str> = c.args.iter().map(|a| &**a).collect();
    Some(match (&*c.program, words.as_slice()) {
        ("pwd", [] | ["-L" | "-P"]) if !cwd.starts_with('$') => cwd.to_string(),
        ("git", ["rev-parse", "--show-toplevel"]) if !at.project.is_empty() => at.project.clone(),
        ("git", ["rev-parse", "--git-dir" | "--absolute-git-dir"]) if !at.project.is_empty() => {
            format!("{}/.git", at.project)
        }
        ("mktemp", _) => {
            let mut dir = "/tmp".to_string();
            let mut k = 0;
            while let Some(w) = words.get(k) {
                k += 1;
                match *w {
                    "-p" | "--tmpdir" => match words.get(k) {
                        Some(d) => {
                            dir = d.to_string();
                            k += 1;
                        }
                        None => return None,
                    },
                    w if w.starts_with("--tmpdir=") => dir = w["--tmpdir=".len()..].to_string(),
                    w if w.starts_with('-') => {}
                    // A template with a directory of its own is made there; one without, in
                    // the temporary directory with `-t`, else in the working directory.
                    w if w.contains('/') => return Some(w.replace('X', "x")),
                    _ if !words.iter().any(|w| {
                        matches!(*w, "-t" | "-p" | "--tmpdir") || w.starts_with("--tmpdir=")
                    }) =>
                    {
                        return Some(format!("{cwd}/{}", w.replace('X', "x")))
                    }
                    _ => {}
                }
            }
            if dir.contains('$') {
                return None;
            }
            format!("{}/tmp.gate-mktemp", dir.trim_end_matches('/'))
        }
        // A producer whose program says what it prints (a date, the processes on a port).
        _ => return super::producers::value(&c.program, &c.args),
    })
}

/// The value of an assignment made from one command substitution (`tmp=$(mktemp -d)`,
/// `root=$(git rev-parse --show-toplevel)`), when the line knows what it prints; `by` is the
/// assignment's command, whose substitutions the parser lists just before it.
pub(super) fn known_assignment(
    commands: &[SimpleCommand<'_>],
    by: usize,
    cwd: &str,
    at: &Where,
) -> Option<String> {
    made_value(commands, by, cwd, at)
}

/// What the substitution just before command `i` prints, when the line knows it: one
/// command's value ([`value_of`]), or a pipeline that keeps some of a bounded producer's
/// process ids (`$(lsof -i:3000 | grep LISTEN | awk '{print $2}')`, [`super::producers::pipeline`]).
fn made_value(commands: &[SimpleCommand<'_>], i: usize, cwd: &str, at: &Where) -> Option<String> {
    let n = commands[..i]
        .iter()
        .rev()
        .take_while(|c| in_substitution(c))
        .count();
    match n {
        0 => None,
        1 => value_of(&commands[i - 1], cwd, at),
        _ => super::producers::pipeline(
            commands[i - n..i]
                .iter()
                .map(|c| (&*c.program, c.args.as_slice())),
        ),
    }
}
