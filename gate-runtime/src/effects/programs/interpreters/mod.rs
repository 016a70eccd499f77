//! Interpreter one-liners and code on standard input (python, node, deno, bun, perl, ruby,
//! php, lua, awk, osascript, Rscript): each interpreter's option grammar
//! (`commands/interpreters/programs.toml`, [`grammar`]) finds the code (`-c`, `-e`, `-r`,
//! stdin), walked by the reader its entry names; the common effectful calls with literal
//! arguments become shell commands or paths ([`calls`]); other code that runs commands,
//! touches files or evaluates code is opaque. A script file operand runs with unknown
//! effect (`exec`).

pub(super) mod calls;
mod decoded;
mod grammar;
mod imported;
pub(crate) mod scan;
#[cfg(test)]
mod schema;
mod tables;

use std::borrow::Cow;

use gate_spec::effect::{Act, Place};

use super::super::{Cmd, How, Runs, Sink};
use grammar::{short, Interp, Reader};
use scan::Lang;

/// An interpreter's command, read by the reader its entry names; `false` when the program
/// is no interpreter or the form is another family's (`perl -i`, `gawk -i inplace`).
pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let Some(i) = grammar::find(cmd.program) else {
        return false;
    };
    match i.reader {
        Reader::Python => python(i, cmd, out),
        Reader::Node => node(i, cmd, out),
        Reader::Deno => return deno(i, cmd, out),
        Reader::Bun => return bun(i, cmd, out),
        Reader::Perl => return perl(i, cmd, out),
        Reader::Ruby => ruby(i, cmd, out),
        Reader::Php => php(i, cmd, out),
        Reader::Code => run(read_code(cmd.args, i), i.lang, cmd.stdin, out),
        Reader::Awk => return awk(i, cmd, out),
        Reader::Osascript => osascript(i, cmd, out),
    }
    true
}

/// What an interpreter's arguments say it runs.
enum Code<'a> {
    /// Code given on the line (several `-e` joined).
    Inline(String),
    /// A script file (or module) and its arguments.
    Script(&'a str, &'a [Cow<'a, str>]),
    /// Code on standard input.
    Stdin,
}

/// Read interpreter options: the entry's `code` letters and `long_code` names take code
/// (repeatable, joined), the other valued letters and `long_valued` names take a value;
/// other long options are skipped (with `=value`).
fn read_code<'a>(args: &'a [Cow<'a, str>], it: &Interp) -> Code<'a> {
    let mut code: Option<String> = None;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if w == "--" {
            break;
        }
        if w == "-" {
            return code.map_or(Code::Stdin, Code::Inline);
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let is_code = it.long_code.contains(&name);
            if is_code || (value.is_none() && it.long_valued.contains(&name)) {
                let value = match value {
                    Some(v) => v,
                    None => {
                        k += 1;
                        args.get(k - 1).map_or("", |v| &**v)
                    }
                };
                if is_code {
                    push_code(&mut code, value);
                }
            }
            continue;
        }
        if let Some(flags) = w.strip_prefix('-') {
            for (i, c) in flags.char_indices() {
                if it.takes_value(c) {
                    let rest = &flags[i + c.len_utf8()..];
                    if it.attached.contains(c) {
                        break;
                    }
                    let value = if rest.is_empty() {
                        k += 1;
                        args.get(k - 1).map(|v| v.to_string()).unwrap_or_default()
                    } else {
                        rest.to_string()
                    };
                    if it.code.contains(c) {
                        push_code(&mut code, &value);
                    }
                    break;
                }
            }
            continue;
        }
        if code.is_some() {
            break;
        }
        return Code::Script(&args[k - 1], &args[k..]);
    }
    if let Some(c) = code {
        return Code::Inline(c);
    }
    if args.get(k.saturating_sub(1)).is_some_and(|a| a == "--") {
        if let Some(s) = args.get(k) {
            return Code::Script(s, &args[k + 1..]);
        }
    }
    Code::Stdin
}

/// Several pieces of code are one program, a line each.
fn push_code(code: &mut Option<String>, value: &str) {
    let s = code.get_or_insert_with(String::new);
    if !s.is_empty() {
        s.push('\n');
    }
    s.push_str(value);
}

/// Run code or a script: inline code and stdin analysed, a script is `exec`.
fn run(code: Code<'_>, lang: Lang, stdin: Option<&str>, out: &mut Sink) {
    match code {
        Code::Inline(c) => calls::analyse(&c, lang, out),
        Code::Stdin => {
            if let Some(s) = stdin {
                calls::analyse(s, lang, out);
            }
        }
        Code::Script(s, rest) => {
            if s.contains("://") {
                out.place(Act::Fetch, Place::Remote);
                out.none(Act::RemoteExec);
            } else {
                out.path(Act::Read, s);
                out.none(Act::Exec);
                runs_file(s, lang, rest, out);
            }
        }
    }
}

/// The script file an interpreter runs, to be read in a live hook call.
/// A Python script run with nothing on its command line (`manage.py shell < script.py`).
pub(super) fn runs_python_file(path: &str, out: &mut Sink) {
    runs_file(path, Lang::Python, &[], out);
}

fn runs_file(path: &str, lang: Lang, args: &[Cow<'_, str>], out: &mut Sink) {
    out.runs(Runs::File {
        path: path.to_string(),
        how: How::Lang(lang),
        args: args.iter().map(|a| a.to_string()).collect(),
        optional: false,
    });
}

fn python(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // `-c` ends the options; `-m MOD` runs a module with the rest as its arguments.
    let args = cmd.args;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if w == "-" || w == "--" || !w.starts_with('-') || w.starts_with("--") {
            if w.starts_with("--") && w != "--" {
                continue;
            }
            break;
        }
        let flags = &w[1..];
        for (i, c) in flags.char_indices() {
            if !it.takes_value(c) {
                continue;
            }
            let rest = &flags[i + 1..];
            let value: String = if rest.is_empty() {
                k += 1;
                args.get(k - 1).map(|v| v.to_string()).unwrap_or_default()
            } else {
                rest.to_string()
            };
            if it.code.contains(c) {
                imported_from_cwd(&value, out);
                return calls::analyse(&value, it.lang, out);
            }
            if it.module.contains(c) {
                return python_module(&value, &args[k.min(args.len())..], cmd.stdin, out);
            }
            break;
        }
    }
    let code = match args.get(k.saturating_sub(1)).map(|a| &**a) {
        None => Code::Stdin,
        Some(w) if w.starts_with('-') && w != "-" && w != "--" => Code::Stdin,
        Some("-") => Code::Stdin,
        Some("--") => match args.get(k) {
            Some(s) => Code::Script(s, &args[k + 1..]),
            None => Code::Stdin,
        },
        Some(s) => Code::Script(s, &args[k..]),
    };
    if let Code::Script(s, rest) = code {
        let base = s.rsplit('/').next().unwrap_or(s);
        if let Some(console) = it.consoles.iter().find(|c| **c == base) {
            return framework(console, rest, cmd, out);
        }
    }
    run(code, it.lang, cmd.stdin, out);
}

/// Most modules a one-liner's imports are looked for beside it.
const MAX_IMPORTS: usize = 8;

/// The modules a `python -c` one-liner imports (`import x`, `from x import y`), which Python
/// looks for first in the working directory: a module written there is what runs.
fn imported_from_cwd(code: &str, out: &mut Sink) {
    let mut names = Vec::new();
    for stmt in code.split(['\n', ';']).map(str::trim) {
        let list = if let Some(rest) = stmt.strip_prefix("import ") {
            rest
        } else if let Some(rest) = stmt.strip_prefix("from ") {
            rest.split_whitespace().next().unwrap_or("")
        } else {
            continue;
        };
        for item in list.split(',') {
            let top = item.split_whitespace().next().unwrap_or("");
            let top = top.split('.').next().unwrap_or("");
            if !top.is_empty()
                && top.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !names.contains(&top)
                && names.len() < MAX_IMPORTS
            {
                names.push(top);
            }
        }
    }
    for name in names {
        for file in [format!("{name}.py"), format!("{name}/__init__.py")] {
            out.runs(Runs::File {
                path: file,
                how: How::Lang(Lang::Python),
                args: Vec::new(),
                optional: true,
            });
        }
    }
}

/// An archiver module's words read as the archiver that does the same (`python3 -m zipfile
/// -e A.zip DIR`: `unzip -o A.zip -d DIR`, `.` when no directory is given; `-m tarfile -c
/// OUT SRC…`: `tar -cf OUT SRC…`); listing or testing reads the archive.
fn stdlib_archiver(m: &grammar::PyModule, words: &[&str], out: &mut Sink) {
    let mut argv: Vec<&str> = Vec::new();
    match words {
        ["-e" | "--extract", archive, rest @ ..] => {
            argv.extend_from_slice(m.extract);
            argv.push(archive);
            argv.push(m.extract_dir);
            argv.push(rest.first().copied().unwrap_or("."));
        }
        ["-c" | "--create", archive, sources @ ..] => {
            argv.extend_from_slice(m.create);
            argv.push(archive);
            argv.extend_from_slice(sources);
        }
        ["-l" | "--list" | "-t" | "--test", archive, ..] => out.path(Act::Read, archive),
        _ => {}
    }
    if !argv.is_empty() {
        out.script(&crate::shell::quote_argv(&argv));
    }
}

/// `python -m MODULE WORDS…`: a listed module as its entry says; any other runs code from
/// the working directory first (a module written there is what runs), or an installed one.
fn python_module(module: &str, rest: &[Cow<'_, str>], stdin: Option<&str>, out: &mut Sink) {
    let words: Vec<&str> = rest.iter().map(|w| &**w).collect();
    let Some(m) = grammar::module(module) else {
        return unlisted_module(module, &words, out);
    };
    if words.iter().any(|w| m.fetch_when.contains(w)) {
        out.place(Act::Fetch, Place::Remote);
    }
    if words.first().is_some_and(|w| m.publish_when.contains(w)) {
        out.none(Act::Publish);
    }
    if !m.line.is_empty() {
        let mut s = m.line.to_string();
        if !words.is_empty() {
            s.push(' ');
            s.push_str(&super::database::shell_join(&words));
        }
        out.script(&s);
    }
    if !m.program.is_empty() {
        let cmd = Cmd {
            program: m.program,
            args: rest,
            stdin,
            stdin_file: None,
        };
        super::table::model(&cmd, out);
    }
    if !m.extract.is_empty() {
        stdlib_archiver(m, &words, out);
    }
    let operands = words.iter().filter(|w| !w.starts_with('-'));
    if m.writes_operands {
        for w in operands.clone() {
            out.path(Act::Write, w);
        }
    }
    if m.reads_first {
        for w in operands.take(1) {
            out.path(Act::Read, w);
        }
    }
}

fn unlisted_module(module: &str, words: &[&str], out: &mut Sink) {
    out.none(Act::Exec);
    // The working directory comes first on `sys.path`: a module written there is what runs
    // (`python3 -m tool` with `tool.py` or `tool/__main__.py` beside it).
    if !module.is_empty()
        && module
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    {
        let path = module.replace('.', "/");
        for file in [format!("{path}.py"), format!("{path}/__main__.py")] {
            out.runs(Runs::File {
                path: file,
                how: How::Lang(Lang::Python),
                args: words.iter().map(|w| w.to_string()).collect(),
                optional: true,
            });
        }
    }
}

fn node(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // `-e`/`--eval`/`-p`/`--print` take code; `-r`/`--require`, `--import` a module.
    run(read_code(cmd.args, it), it.lang, cmd.stdin, out);
}

fn deno(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let Some(first) = cmd.args.first().map(|a| &**a) else {
        return false;
    };
    if it.code_subcommands.contains(&first) {
        let code: Vec<&str> = cmd.args[1..]
            .iter()
            .map(|a| &**a)
            .filter(|a| !a.starts_with('-'))
            .collect();
        calls::analyse(&code.join(" "), it.lang, out);
        return true;
    }
    if !it.script_subcommands.contains(&first) {
        return false;
    }
    let script = cmd.args[1..].iter().find(|a| !a.starts_with('-'));
    match script {
        Some(s) if s.contains("://") => {
            out.place(Act::Fetch, Place::Remote);
            out.none(Act::RemoteExec);
        }
        Some(s) => {
            out.path(Act::Read, s);
            out.none(Act::Exec);
            runs_file(s, it.lang, &[], out);
        }
        None => out.none(Act::Exec),
    }
    true
}

fn bun(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let code = cmd.args.iter().position(|a| it.is_code_word(a));
    match code {
        Some(k) => {
            if let Some(c) = cmd.args.get(k + 1) {
                calls::analyse(c, it.lang, out);
            }
            true
        }
        None => false,
    }
}

fn perl(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    // `-i` edits files in place: the files family's.
    if inplace_flag(cmd.args, it) {
        return false;
    }
    let code = read_code(cmd.args, it);
    // Files after the code are read (`-n`, `-p`).
    if let Code::Inline(_) = &code {
        for f in operands_after_code(cmd.args, it) {
            out.path(Act::Read, f);
        }
    }
    run(code, it.lang, cmd.stdin, out);
    true
}

/// Whether a leading option bundle has an in-place letter (`-i`) before any option that
/// takes a value (`-MFile::Path` is not `-i`).
fn inplace_flag(args: &[Cow<'_, str>], it: &Interp) -> bool {
    args.iter()
        .take_while(|a| a.starts_with('-') && *a != "--" && !a.starts_with("--"))
        .any(|a| {
            a[1..]
                .chars()
                .take_while(|c| !it.takes_value(*c))
                .any(|c| it.inplace.contains(c))
        })
}

/// The operands after inline code (the files a `-n`/`-p` loop reads).
fn operands_after_code<'a>(args: &'a [Cow<'a, str>], it: &Interp) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut k = 0;
    let mut skip_next = false;
    while let Some(w) = args.get(k) {
        k += 1;
        if skip_next {
            skip_next = false;
            continue;
        }
        if let Some(flags) = w
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !f.starts_with('-'))
        {
            if let Some((i, c)) = flags.char_indices().find(|(_, c)| it.takes_value(*c)) {
                skip_next = flags.len() == i + c.len_utf8() && !it.attached.contains(c);
            }
            continue;
        }
        out.push(&**w);
    }
    out
}

fn ruby(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let inplace = inplace_flag(cmd.args, it);
    let code = read_code(cmd.args, it);
    if let Code::Inline(_) = &code {
        let act = if inplace { Act::Write } else { Act::Read };
        for f in operands_after_code(cmd.args, it) {
            out.path(act, f);
        }
    }
    run(code, it.lang, cmd.stdin, out);
}

/// A framework's console run by its interpreter (`python manage.py flush`, `php artisan
/// migrate:fresh`, `php bin/console doctrine:database:drop`): its tasks are data
/// (`commands/database.toml`), read as the program `console` names.
fn framework(console: &str, args: &[Cow<'_, str>], cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let cmd = Cmd {
        program: console,
        args,
        ..*cmd
    };
    super::table::model(&cmd, out);
}

fn php(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // Lint, serve, version, modules, info: nothing runs.
    if cmd.args.iter().any(|a| it.inert.contains(&&**a)) {
        if cmd.args.iter().any(|a| it.lint.contains(&&**a)) {
            for f in cmd.args.iter().filter(|a| !a.starts_with('-')) {
                out.path(Act::Read, f);
            }
        }
        return;
    }
    let code = read_code(cmd.args, it);
    if let Code::Script(s, rest) = code {
        let base = s.rsplit('/').next().unwrap_or(s);
        if let Some(console) = it.consoles.iter().find(|c| **c == base) {
            return framework(console, rest, cmd, out);
        }
        if let Some((_, program)) = it.programs.iter().find(|(name, _)| *name == base) {
            let words: Vec<&str> = rest.iter().map(|w| &**w).collect();
            let line = format!("{program} {}", super::database::shell_join(&words));
            return out.script(&line);
        }
        return run(code, it.lang, cmd.stdin, out);
    }
    // `-f FILE` runs a file.
    if let Some(k) = cmd
        .args
        .iter()
        .position(|a| short(a).is_some_and(|c| it.script.contains(c)))
    {
        if let Some(f) = cmd.args.get(k + 1) {
            out.path(Act::Read, f);
            out.none(Act::Exec);
            runs_file(f, it.lang, &[], out);
        }
        return;
    }
    let code = match code {
        Code::Inline(c) => Code::Inline(c.trim_start_matches("<?php").to_string()),
        c => c,
    };
    run(code, it.lang, cmd.stdin, out);
}

/// The option an awk word is, as the entry's letters and long names say (exact words only:
/// awk's options are not bundled).
fn awk_option(it: &Interp, w: &str) -> Option<AwkOpt> {
    let (long, letter) = match w.strip_prefix("--") {
        Some(l) => (Some(l), None),
        None => (None, short(w)),
    };
    let is = |letters: &str, names: &[&str]| {
        letter.is_some_and(|c| letters.contains(c)) || long.is_some_and(|l| names.contains(&l))
    };
    if is(it.code, it.long_code) {
        Some(AwkOpt::Code)
    } else if is(it.script, it.long_script) {
        Some(AwkOpt::Script)
    } else if is(it.valued, it.long_valued) {
        Some(AwkOpt::Valued)
    } else {
        None
    }
}

enum AwkOpt {
    Code,
    Script,
    Valued,
}

/// gawk's in-place extension (`-i inplace`) makes the command the files family's.
fn awk_inplace(value: &str) -> bool {
    value == "inplace" || value == "inplace.awk"
}

fn awk(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    let mut k = 0;
    let mut program: Option<String> = None;
    let mut files_mode = false;
    let mut first_operand = args.len();
    while let Some(w) = args.get(k) {
        let w: &str = w;
        k += 1;
        if w == "--" {
            first_operand = k;
            break;
        }
        match awk_option(it, w) {
            Some(AwkOpt::Code) => {
                if let Some(c) = args.get(k) {
                    let s = program.get_or_insert_with(String::new);
                    s.push_str(c);
                    s.push('\n');
                }
                k += 1;
            }
            Some(AwkOpt::Script) => {
                if let Some(f) = args.get(k) {
                    out.path(Act::Read, f);
                    out.none(Act::Exec);
                    runs_file(f, it.lang, &[], out);
                    files_mode = true;
                }
                k += 1;
            }
            Some(AwkOpt::Valued) => {
                if args.get(k).is_some_and(|v| awk_inplace(v)) {
                    return false;
                }
                k += 1;
            }
            None if w.starts_with("-iinplace") || w.starts_with("--include=inplace") => {
                return false
            }
            None if w.starts_with('-') && w.len() > 1 => {}
            None => {
                first_operand = k - 1;
                break;
            }
        }
    }
    let mut files = first_operand;
    if program.is_none() && !files_mode {
        match args.get(first_operand) {
            Some(p) => program = Some(p.to_string()),
            None => return true,
        }
        files += 1;
    }
    if let Some(p) = program {
        calls::analyse(&p, it.lang, out);
    }
    for f in args
        .iter()
        .skip(files)
        .filter(|a| !a.contains('=') && *a != "-")
    {
        out.path(Act::Read, f);
    }
    true
}

fn osascript(it: &Interp, cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let js = cmd
        .args
        .windows(2)
        .any(|w| w[0] == "-l" && w[1].eq_ignore_ascii_case("javascript"));
    let lang = if js { Lang::Js } else { it.lang };
    run(read_code(cmd.args, it), lang, cmd.stdin, out);
}

#[cfg(test)]
mod tests;
