//! Interpreter one-liners and code on standard input (python, node, deno, bun, perl, ruby,
//! php, lua, awk, osascript, Rscript): each interpreter's option grammar finds the code
//! (`-c`, `-e`, `-r`, stdin); the common effectful calls with literal arguments become
//! shell commands or paths ([`calls`]); other code that runs commands, touches files or
//! evaluates code is opaque. A script file operand runs with unknown effect (`exec`).

pub(super) mod calls;
mod decoded;
mod imported;
pub(crate) mod scan;
mod tables;

use std::borrow::Cow;

use gate_spec::effect::{Act, Place};

use super::super::{Cmd, How, Runs, Sink};
use scan::Lang;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let p = cmd.program;
    if is_versioned(p, "python") || is_versioned(p, "pypy") || p == "py" {
        python(cmd, out);
    } else if is_versioned(p, "node") || p == "nodejs" {
        node(cmd, out);
    } else if p == "deno" {
        return deno(cmd, out);
    } else if p == "bun" {
        return bun(cmd, out);
    } else if is_versioned(p, "perl") {
        return perl(cmd, out);
    } else if is_versioned(p, "ruby") {
        ruby(cmd, out);
    } else if is_versioned(p, "php") {
        php(cmd, out);
    } else if is_versioned(p, "lua") || p == "luajit" {
        simple(cmd, out, Lang::Lua, "e", "lv", "");
    } else if matches!(p, "awk" | "gawk" | "mawk" | "nawk") {
        return awk(cmd, out);
    } else if p == "osascript" {
        osascript(cmd, out);
    } else if p == "Rscript" || p == "R" {
        simple(cmd, out, Lang::R, "e", "", "");
    } else {
        return false;
    }
    true
}

/// `name`, `name3`, `name3.12`, `name-3.12`.
fn is_versioned(p: &str, name: &str) -> bool {
    p.strip_prefix(name).is_some_and(|rest| {
        rest.trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
    })
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

/// Read interpreter options: `code_opts` are letters whose value is code (repeatable),
/// `valued` letters take a value; long options are skipped (with `=value`).
fn read_code<'a>(args: &'a [Cow<'a, str>], code_opts: &str, valued: &str) -> Code<'a> {
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
        if w.starts_with("--") {
            continue;
        }
        if let Some(flags) = w.strip_prefix('-') {
            for (i, c) in flags.char_indices() {
                if code_opts.contains(c) || valued.contains(c) {
                    let rest = &flags[i + c.len_utf8()..];
                    if attached_only(valued, c) {
                        break;
                    }
                    let value = if rest.is_empty() {
                        k += 1;
                        args.get(k - 1).map(|v| v.to_string()).unwrap_or_default()
                    } else {
                        rest.to_string()
                    };
                    if code_opts.contains(c) {
                        let s = code.get_or_insert_with(String::new);
                        if !s.is_empty() {
                            s.push('\n');
                        }
                        s.push_str(&value);
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

/// Whether option letter `c` takes only an attached value (`valued` lists those after a `|`).
fn attached_only(valued: &str, c: char) -> bool {
    valued.split_once('|').is_some_and(|(_, a)| a.contains(c))
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

fn simple(cmd: &Cmd<'_, '_>, out: &mut Sink, lang: Lang, code_opts: &str, valued: &str, _l: &str) {
    run(read_code(cmd.args, code_opts, valued), lang, cmd.stdin, out);
}

fn python(cmd: &Cmd<'_, '_>, out: &mut Sink) {
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
            if !matches!(c, 'c' | 'm' | 'W' | 'X') {
                continue;
            }
            let rest = &flags[i + 1..];
            let value: String = if rest.is_empty() {
                k += 1;
                args.get(k - 1).map(|v| v.to_string()).unwrap_or_default()
            } else {
                rest.to_string()
            };
            match c {
                'c' => {
                    imported_from_cwd(&value, out);
                    return calls::analyse(&value, Lang::Python, out);
                }
                'm' => return python_module(&value, &args[k.min(args.len())..], cmd.stdin, out),
                _ => break,
            }
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
        if base == "manage.py" {
            return framework("manage.py", rest, cmd, out);
        }
    }
    run(code, Lang::Python, cmd.stdin, out);
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

/// Python's archive modules run as programs (`python3 -m zipfile -e A.zip DIR`, `-m tarfile
/// -c OUT SRC…`), each read as the archiver that does the same: the module, the words that
/// extract an archive (then the archive, and the option before the directory, `.` when
/// none is given), and those that create one (then the archive and its sources).
const STDLIB_ARCHIVERS: &[(&str, &[&str], &str, &[&str])] = &[
    ("zipfile", &["unzip", "-o"], "-d", &["zip", "-r"]),
    ("tarfile", &["tar", "-xf"], "-C", &["tar", "-cf"]),
];

fn stdlib_archiver(module: &str, words: &[&str], out: &mut Sink) {
    let Some((_, extract, dir_flag, create)) = STDLIB_ARCHIVERS.iter().find(|(m, ..)| *m == module)
    else {
        return;
    };
    let mut argv: Vec<&str> = Vec::new();
    match words {
        ["-e" | "--extract", archive, rest @ ..] => {
            argv.extend_from_slice(extract);
            argv.push(archive);
            argv.push(dir_flag);
            argv.push(rest.first().copied().unwrap_or("."));
        }
        ["-c" | "--create", archive, sources @ ..] => {
            argv.extend_from_slice(create);
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

fn python_module(module: &str, rest: &[Cow<'_, str>], stdin: Option<&str>, out: &mut Sink) {
    let words: Vec<&str> = rest.iter().map(|w| &**w).collect();
    let line = |prog: &str| {
        let mut s = prog.to_string();
        if !words.is_empty() {
            s.push(' ');
            s.push_str(&super::database::shell_join(&words));
        }
        s
    };
    match module {
        "pip" | "pip3" | "ensurepip" => {
            if words
                .iter()
                .any(|w| matches!(*w, "install" | "download" | "wheel"))
            {
                out.place(Act::Fetch, Place::Remote);
            }
            out.script(&line("pip"));
        }
        "twine" => {
            if words.first() == Some(&"upload") {
                out.none(Act::Publish);
            }
        }
        "zipfile" | "tarfile" => stdlib_archiver(module, &words, out),
        "venv" | "virtualenv" => {
            for w in words.iter().filter(|w| !w.starts_with('-')) {
                out.path(Act::Write, w);
            }
        }
        "http.server" | "SimpleHTTPServer" | "json.tool" | "this" | "timeit" | "site"
        | "platform" | "sysconfig" | "pydoc" | "calendar" | "dis" | "tokenize" | "py_compile"
        | "compileall" | "tabnanny" | "pyclbr" | "pstats" | "webbrowser" | "base64" | "uuid"
        | "ensurepip.version" => {
            if module == "json.tool" {
                for w in words.iter().filter(|w| !w.starts_with('-')).take(1) {
                    out.path(Act::Read, w);
                }
            }
        }
        "django" => {
            let cmd = Cmd {
                program: "django-admin",
                args: rest,
                stdin,
                stdin_file: None,
            };
            super::table::model(&cmd, out);
        }
        "alembic" | "flask" | "prisma" => out.script(&line(module)),
        _ => {
            out.none(Act::Exec);
            // The working directory comes first on `sys.path`: a module written there is
            // what runs (`python3 -m tool` with `tool.py` or `tool/__main__.py` beside it).
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
    }
}

fn node(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // `-e`/`--eval`/`-p`/`--print` take code; `-r`/`--require`, `--import` a module.
    let mut args: Vec<Cow<'_, str>> = Vec::new();
    let mut it = cmd.args.iter();
    while let Some(a) = it.next() {
        match &**a {
            "--eval" | "--print" => {
                args.push(Cow::Borrowed("-e"));
            }
            s if s.starts_with("--eval=") || s.starts_with("--print=") => {
                args.push(Cow::Borrowed("-e"));
                args.push(Cow::Owned(
                    s.split_once('=').map(|x| x.1).unwrap_or("").to_string(),
                ));
            }
            "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "--input-type"
            | "--env-file"
            | "--conditions" => {
                it.next();
            }
            _ => args.push(a.clone()),
        }
    }
    run(read_code(&args, "ep", "rC"), Lang::Js, cmd.stdin, out);
}

fn deno(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.args.first().map(|a| &**a) {
        Some("eval") => {
            let code: Vec<&str> = cmd.args[1..]
                .iter()
                .map(|a| &**a)
                .filter(|a| !a.starts_with('-'))
                .collect();
            calls::analyse(&code.join(" "), Lang::Js, out);
        }
        Some("run") => {
            let script = cmd.args[1..].iter().find(|a| !a.starts_with('-'));
            match script {
                Some(s) if s.contains("://") => {
                    out.place(Act::Fetch, Place::Remote);
                    out.none(Act::RemoteExec);
                }
                Some(s) => {
                    out.path(Act::Read, s);
                    out.none(Act::Exec);
                    runs_file(s, Lang::Js, &[], out);
                }
                None => out.none(Act::Exec),
            }
        }
        _ => return false,
    }
    true
}

fn bun(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let code = cmd
        .args
        .iter()
        .position(|a| matches!(&**a, "-e" | "--eval" | "-p" | "--print"));
    match code {
        Some(k) => {
            if let Some(c) = cmd.args.get(k + 1) {
                calls::analyse(c, Lang::Js, out);
            }
            true
        }
        None => false,
    }
}

fn perl(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    // `-i` edits files in place: the files family's.
    let inplace = inplace_flag(cmd.args, "eE|IMmFCdDx");
    if inplace {
        return false;
    }
    let code = read_code(cmd.args, "eE", "|IMmFCdDx");
    // Files after the code are read (`-n`, `-p`).
    if let Code::Inline(_) = &code {
        for f in operands_after_code(cmd.args, "eE", "|IMmFCdDx") {
            out.path(Act::Read, f);
        }
    }
    run(code, Lang::Perl, cmd.stdin, out);
    true
}

/// Whether a leading option bundle has `-i` (in-place edit) before any option that takes a
/// value (`-MFile::Path` is not `-i`).
fn inplace_flag(args: &[Cow<'_, str>], valued: &str) -> bool {
    args.iter()
        .take_while(|a| a.starts_with('-') && *a != "--" && !a.starts_with("--"))
        .any(|a| {
            a[1..]
                .chars()
                .take_while(|c| !valued.contains(*c))
                .any(|c| c == 'i')
        })
}

/// The operands after inline code (the files a `-n`/`-p` loop reads).
fn operands_after_code<'a>(
    args: &'a [Cow<'a, str>],
    code_opts: &str,
    valued: &str,
) -> Vec<&'a str> {
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
            if let Some((i, c)) = flags
                .char_indices()
                .find(|(_, c)| code_opts.contains(*c) || valued.contains(*c))
            {
                skip_next = flags.len() == i + c.len_utf8() && !attached_only(valued, c);
            }
            continue;
        }
        out.push(&**w);
    }
    out
}

fn ruby(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let inplace = inplace_flag(cmd.args, "erICFEx");
    let code = read_code(cmd.args, "e", "rICFEx");
    if let Code::Inline(_) = &code {
        let act = if inplace { Act::Write } else { Act::Read };
        for f in operands_after_code(cmd.args, "e", "rICFEx") {
            out.path(act, f);
        }
    }
    run(code, Lang::Ruby, cmd.stdin, out);
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

fn php(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // Lint, serve, version, modules, info: nothing runs.
    if cmd.args.iter().any(|a| {
        matches!(
            &**a,
            "-S" | "-l" | "-v" | "-m" | "-i" | "--version" | "--ini"
        )
    }) {
        if cmd.args.iter().any(|a| a == "-l") {
            for f in cmd.args.iter().filter(|a| !a.starts_with('-')) {
                out.path(Act::Read, f);
            }
        }
        return;
    }
    let code = read_code(cmd.args, "rBRE", "dcfzStnFt");
    match code {
        Code::Script(s, rest) => {
            let base = s.rsplit('/').next().unwrap_or(s);
            match base {
                "artisan" | "console" => framework(base, rest, cmd, out),
                "composer.phar" | "composer" => {
                    let words: Vec<&str> = rest.iter().map(|w| &**w).collect();
                    out.script(&format!("composer {}", super::database::shell_join(&words)));
                }
                _ => run(code, Lang::Php, cmd.stdin, out),
            }
        }
        _ => {
            // `-f FILE` runs a file; `-S`/`-l` serve and lint.
            if cmd
                .args
                .iter()
                .any(|a| a == "-S" || a == "-l" || a == "-v" || a == "-m" || a == "-i")
            {
                return;
            }
            if let Some(k) = cmd.args.iter().position(|a| a == "-f") {
                if let Some(f) = cmd.args.get(k + 1) {
                    out.path(Act::Read, f);
                    out.none(Act::Exec);
                    runs_file(f, Lang::Php, &[], out);
                }
                return;
            }
            let code = match code {
                Code::Inline(c) => Code::Inline(c.trim_start_matches("<?php").to_string()),
                c => c,
            };
            run(code, Lang::Php, cmd.stdin, out);
        }
    }
}

fn awk(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    let mut k = 0;
    let mut program: Option<String> = None;
    let mut files_mode = false;
    let mut first_operand = args.len();
    while let Some(w) = args.get(k) {
        let w: &str = w;
        k += 1;
        match w {
            "--" => {
                first_operand = k;
                break;
            }
            "-i" | "--include" => {
                if args
                    .get(k)
                    .is_some_and(|v| v == "inplace" || v == "inplace.awk")
                {
                    return false;
                }
                k += 1;
            }
            "-f" | "--file" => {
                if let Some(f) = args.get(k) {
                    out.path(Act::Read, f);
                    out.none(Act::Exec);
                    runs_file(f, Lang::Awk, &[], out);
                    files_mode = true;
                }
                k += 1;
            }
            "-e" | "--source" => {
                if let Some(c) = args.get(k) {
                    let s = program.get_or_insert_with(String::new);
                    s.push_str(c);
                    s.push('\n');
                }
                k += 1;
            }
            "-v" | "-F" | "-l" | "--load" | "--assign" | "--field-separator" | "-W" => k += 1,
            _ if w.starts_with("-iinplace") || w.starts_with("--include=inplace") => return false,
            _ if w.starts_with('-') && w.len() > 1 => {}
            _ => {
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
        calls::analyse(&p, Lang::Awk, out);
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

fn osascript(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let js = cmd
        .args
        .windows(2)
        .any(|w| w[0] == "-l" && w[1].eq_ignore_ascii_case("javascript"));
    let lang = if js { Lang::Js } else { Lang::AppleScript };
    run(read_code(cmd.args, "e", "lis"), lang, cmd.stdin, out);
}

#[cfg(test)]
mod tests;
