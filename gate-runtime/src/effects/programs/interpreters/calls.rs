//! The effectful calls of each language, with literal arguments: shell commands
//! (`os.system`, `child_process.execSync`, `system`, backticks, JS `$` tagged templates)
//! become scripts to analyse,
//! file calls (`shutil.rmtree`, `fs.rmSync`, `unlink`, `FileUtils.rm_rf`, `open(…, "w")`)
//! paths, network calls fetches and sends; a call of these with a computed argument, or
//! `eval`/`exec`-like code, is opaque.

use gate_spec::effect::{Act, Place};

use super::super::super::{RawTarget, Sink};
use super::scan::{tokens, Lang, Tok};
use super::tables::{Eff, Table, JS, LUA, PATH_METHODS, PERL, PHP, PYTHON, R, RUBY};
use Eff::*;

/// Names of ruby and perl calls that may be written without parentheses.
fn bare_call_ok(lang: Lang) -> bool {
    matches!(lang, Lang::Perl | Lang::Ruby)
}

/// Analyse interpreter code: its effectful calls into the sink.
pub(crate) fn analyse(code: &str, lang: Lang, out: &mut Sink) {
    let toks = super::decoded::fold(super::imported::fold(tokens(code, lang)));
    let mut st = State::default();
    let table: Table = match lang {
        Lang::Python => PYTHON,
        Lang::Js => JS,
        Lang::Perl => PERL,
        Lang::Ruby => RUBY,
        Lang::Php => PHP,
        Lang::Lua => LUA,
        Lang::R => R,
        Lang::Awk => return awk(&toks, code, out),
        Lang::AppleScript => return applescript(&toks, code, out),
    };
    let mentions_child_process = code.contains("child_process");
    // `require('https').get(…)`, `const h = require("http"); h.request(…)`.
    let mentions_http = lang == Lang::Js
        && [
            "'http'",
            "'https'",
            "\"http\"",
            "\"https\"",
            "'node:http",
            "\"node:http",
        ]
        .iter()
        .any(|m| code.contains(m));
    for k in 0..toks.len() {
        match &toks[k] {
            Tok::Cmd(s, interp) => {
                if *interp {
                    st.opaque = true;
                } else {
                    out.script(s);
                }
                continue;
            }
            Tok::Ident(name) => {
                // A `$` tagged template runs its text as a shell line (Bun's `Bun.$`, zx's
                // `$`): `` $`rm -rf ~` ``; with interpolations it is not known.
                if lang == Lang::Js && *name == "$" {
                    match toks.get(k + 1) {
                        Some(Tok::Str(line)) => {
                            out.script(line);
                            continue;
                        }
                        Some(Tok::Interp(_)) => {
                            st.opaque = true;
                            continue;
                        }
                        _ => {}
                    }
                }
                // A call of a computed name (`$f(…)`, php).
                if lang == Lang::Php
                    && name.starts_with('$')
                    && toks.get(k + 1) == Some(&Tok::P(b'('))
                {
                    st.opaque = true;
                    continue;
                }
                let qual = qualifier(&toks, k);
                let found = lookup(table, name, qual.as_deref(), lang, mentions_child_process);
                let found = found.or_else(|| {
                    (mentions_http && qual.is_some() && matches!(*name, "get" | "request"))
                        .then_some(Fetch)
                });
                let Some(eff) = found else {
                    if lang == Lang::Python {
                        pathlib_method(&toks, k, name, out, &mut st);
                    }
                    if lang == Lang::Js && *name == "require" {
                        if let Some(args) = call_args(&toks, k, false) {
                            if args.first().is_some_and(|a| lit(a).is_none()) {
                                st.opaque = true;
                            }
                        }
                    }
                    continue;
                };
                // Perl `eval {` is a block, not code in a string.
                if matches!(eff, Eval | EvalText)
                    && lang == Lang::Perl
                    && toks.get(k + 1) == Some(&Tok::P(b'{'))
                {
                    continue;
                }
                let Some(args) = call_args(&toks, k, bare_call_ok(lang)) else {
                    // Named but not called (`import subprocess`, `os.system` as a value).
                    continue;
                };
                apply(eff, &args, lang, out, &mut st);
            }
            _ => {}
        }
    }
    if st.opaque {
        out.opaque(code);
    }
    // Every string literal that may be a path is resolved and classed where it lands: one
    // of gate's locations is protected whatever the code does with it (a database opened,
    // a file handed to a library), and a look-alike elsewhere (`/tmp/delegate.db`) is not.
    for t in &toks {
        if let Tok::Str(s) | Tok::Interp(s) = t {
            let understood = |t: &RawTarget| matches!(t, RawTarget::Path(p) if p == s);
            if may_be_path(s) && !out.raw.iter().any(|(_, t)| understood(t)) {
                out.mention(Act::Opaque, s);
            }
        }
    }
    if st.eval && st.fetch {
        out.none(Act::RemoteExec);
    }
    if reverse_shell(code) {
        out.none(Act::RemoteExec);
    }
}

/// What opens a network connection, in any of the languages.
const SOCKETS: &[&str] = &[
    "socket.socket",
    "socket.create_connection",
    "IO::Socket",
    "use Socket",
    "TCPSocket",
    "fsockopen",
    "stream_socket_client",
    "net.connect",
    "net.Socket",
    "net.createConnection",
    "socket.connect",
    "/dev/tcp/",
    "Net::TCP",
    "socket.tcp",
];

/// What binds a shell to that connection: its streams duplicated onto it, or a shell run.
const SHELL_BOUND: &[&str] = &[
    "dup2",
    "/bin/sh",
    "/bin/bash",
    "/bin/zsh",
    "pty.spawn",
    "cmd.exe",
    "powershell",
    "sh -i",
    "bash -i",
    "<&",
    ">&",
    "open(STDIN",
    "child_process",
];

/// Code that opens a connection and hands a shell to it (a reverse shell,
/// `python -c 'import socket,subprocess,os;…os.dup2(s.fileno(),0)…'`): the network drives
/// the machine, as a remote script piped into a shell does.
fn reverse_shell(code: &str) -> bool {
    SOCKETS.iter().any(|m| code.contains(m)) && SHELL_BOUND.iter().any(|m| code.contains(m))
}

/// Whether a string literal may name a file: one word with a directory separator or a
/// dot, of a path's length.
fn may_be_path(s: &str) -> bool {
    (1..=4096).contains(&s.len())
        && s.contains(['/', '.'])
        && !s.contains(char::is_whitespace)
        && !s.contains("://")
}

#[derive(Default)]
struct State {
    opaque: bool,
    eval: bool,
    fetch: bool,
}

/// What stands before the name at `k`: the name before a `.`, `->` or `::`, or `)` for a
/// method on a call's result.
fn qualifier(toks: &[Tok<'_>], k: usize) -> Option<String> {
    let before = k.checked_sub(1).map(|p| &toks[p]);
    let sep = match before {
        Some(Tok::P(b'.')) => 2,
        Some(Tok::P(b'>')) if k >= 2 && toks[k - 2] == Tok::P(b'-') => 3,
        Some(Tok::P(b':')) if k >= 2 && toks[k - 2] == Tok::P(b':') => 3,
        _ => return None,
    };
    match k.checked_sub(sep).map(|p| &toks[p]) {
        Some(Tok::Ident(q)) => Some(q.rsplit("::").next().unwrap_or(q).to_string()),
        Some(Tok::P(b')')) => Some(")".to_string()),
        _ => Some("?".to_string()),
    }
}

fn lookup(table: Table, name: &str, qual: Option<&str>, lang: Lang, cp: bool) -> Option<Eff> {
    let name = name.rsplit("::").next().unwrap_or(name);
    let mut found = None;
    for (pat, eff) in table {
        let hit = if let Some(bare) = pat.strip_prefix('=') {
            bare == name && qual.is_none()
        } else if let Some((q, n)) = pat.rsplit_once('.') {
            n == name && qual == Some(q)
        } else {
            *pat == name
        };
        if hit {
            found = Some(*eff);
            break;
        }
    }
    // `require('child_process').exec(…)`, `cp.spawn(…)` under any name.
    if found.is_none()
        && lang == Lang::Js
        && cp
        && qual.is_some()
        && matches!(name, "exec" | "spawn" | "fork")
    {
        found = Some(Run);
    }
    // `db.exec('DROP TABLE t')` on anything but child_process: a database's.
    if found.is_none() && lang == Lang::Js && !cp && qual.is_some() && name == "exec" {
        found = Some(Sql);
    }
    found
}

/// The arguments of a call at `k`: top-level comma-separated token runs; `None` when the
/// name is not called. Without parentheses (perl, ruby), up to `;`, `}` or a keyword.
fn call_args<'t, 's>(toks: &'t [Tok<'s>], k: usize, bare: bool) -> Option<Vec<&'t [Tok<'s>]>> {
    let (start, paren) = match toks.get(k + 1) {
        Some(Tok::P(b'(')) => (k + 2, true),
        Some(Tok::Str(_) | Tok::Interp(_) | Tok::Cmd(..)) if bare => (k + 1, false),
        // A variable, or a call whose value is the argument (`unlink glob("~/x/*")`).
        Some(Tok::Ident(w))
            if bare && !matches!(*w, "or" | "and" | "if" | "unless" | "do" | "then" | "for") =>
        {
            (k + 1, false)
        }
        Some(Tok::P(b'[')) if bare => (k + 1, false),
        _ => return None,
    };
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut from = start;
    let mut j = start;
    while let Some(t) = toks.get(j) {
        match t {
            Tok::P(b'(' | b'[' | b'{') => depth += 1,
            Tok::P(b')' | b']' | b'}') if depth > 0 => depth -= 1,
            Tok::P(b')') if paren => break,
            Tok::P(b')' | b']' | b'}' | b';') if !paren => break,
            Tok::Ident("or" | "and" | "if" | "unless" | "do" | "then") if !paren && depth == 0 => {
                break
            }
            Tok::P(b',') if depth == 0 => {
                args.push(&toks[from..j]);
                from = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    if j > from {
        args.push(&toks[from..j]);
    }
    Some(args)
}

/// Whether an argument is a keyword argument or an options object (not positional).
fn is_option(arg: &[Tok<'_>]) -> bool {
    match arg {
        [Tok::Ident(_), Tok::P(b'='), rest @ ..] => rest.first() != Some(&Tok::P(b'=')),
        [Tok::Ident(_), Tok::P(b':'), ..] => true,
        [Tok::P(b'{'), ..] => true,
        _ => false,
    }
}

fn positional<'t, 's>(args: &[&'t [Tok<'s>]]) -> Vec<&'t [Tok<'s>]> {
    args.iter()
        .copied()
        .filter(|a| !a.is_empty() && !is_option(a))
        .collect()
}

/// The literal value of an expression, when it is one: a string, concatenated strings,
/// a path built from literals (`Path("x")`, `os.path.join("a", "b")`, `Path.home() / "x"`,
/// `os.path.expanduser("~/x")`, `process.env.HOME`).
fn lit(arg: &[Tok<'_>]) -> Option<String> {
    lit_at(arg, 0)
}

fn lit_at(arg: &[Tok<'_>], depth: usize) -> Option<String> {
    if depth > 4 || arg.is_empty() {
        return None;
    }
    // Split on top-level `+`, `.` (perl, php concatenation) and `/` (pathlib).
    let mut parts: Vec<(u8, &[Tok<'_>])> = Vec::new();
    let mut d = 0usize;
    let mut from = 0;
    for (j, t) in arg.iter().enumerate() {
        match t {
            Tok::P(b'(' | b'[' | b'{') => d += 1,
            Tok::P(b')' | b']' | b'}') => d = d.saturating_sub(1),
            Tok::P(c @ (b'+' | b'/')) if d == 0 && j > from => {
                parts.push((*c, &arg[from..j]));
                from = j + 1;
            }
            Tok::P(b'.')
                if d == 0
                    && j > from
                    && matches!(arg[j - 1], Tok::Str(_))
                    && matches!(arg.get(j + 1), Some(Tok::Str(_))) =>
            {
                parts.push((b'+', &arg[from..j]));
                from = j + 1;
            }
            _ => {}
        }
    }
    if !parts.is_empty() {
        parts.push((b'+', &arg[from..]));
        let mut s = String::new();
        let mut sep = b'+';
        for (next_sep, p) in parts {
            let v = lit_at(p, depth + 1)?;
            if sep == b'/' && !s.ends_with('/') {
                s.push('/');
            }
            s.push_str(&v);
            sep = next_sep;
        }
        return Some(s);
    }
    match arg {
        [Tok::Str(s)] => return Some(s.clone()),
        // Python implicit concatenation.
        [Tok::Str(_), Tok::Str(_), ..] if arg.iter().all(|t| matches!(t, Tok::Str(_))) => {
            return Some(
                arg.iter()
                    .filter_map(|t| match t {
                        Tok::Str(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect(),
            )
        }
        [Tok::Ident("__dirname" | "__DIR__")] => return Some(".".into()),
        [Tok::Ident(e), Tok::P(b'['), Tok::Str(k), Tok::P(b']')]
            if e.ends_with("environ") || *e == "ENV" =>
        {
            return (k == "HOME").then(|| "~".into())
        }
        [Tok::Ident("process"), Tok::P(b'.'), Tok::Ident("env"), Tok::P(b'.'), Tok::Ident("HOME")] => {
            return Some("~".into())
        }
        // perl's `$ENV{HOME}` (a bareword or quoted key), ruby's `Dir.home`.
        [Tok::Ident("$ENV"), Tok::P(b'{'), key, Tok::P(b'}')] => {
            return matches!(key, Tok::Ident("HOME"))
                .then(|| "~".into())
                .or_else(|| matches!(key, Tok::Str(k) if k == "HOME").then(|| "~".into()))
        }
        [Tok::Ident("Dir"), Tok::P(b'.'), Tok::Ident("home")] => return Some("~".into()),
        // An interpolating string whose only variable is the home directory
        // (`"$ENV{HOME}/x"`, `"${HOME}"`).
        [Tok::Interp(s)] => return home_interpolated(s),
        _ => {}
    }
    // A call: the name before the `(` that the final `)` closes, and its arguments.
    if arg.last() != Some(&Tok::P(b')')) {
        return None;
    }
    let mut d = 0usize;
    let mut open = None;
    for j in (0..arg.len()).rev() {
        match arg[j] {
            Tok::P(b')') => d += 1,
            Tok::P(b'(') => {
                d -= 1;
                if d == 0 {
                    open = Some(j);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let Tok::Ident(f) = arg.get(open.checked_sub(1)?)? else {
        return None;
    };
    let plain_prefix = arg[..open]
        .iter()
        .all(|t| matches!(t, Tok::Ident(_) | Tok::P(b'.')));
    if !(plain_prefix
        || open + 2 == arg.len() && matches!(*f, "home" | "homedir" | "cwd" | "getcwd"))
    {
        return None;
    }
    let inner = &arg[open + 1..arg.len() - 1];
    let mut inner_args = Vec::new();
    let mut d = 0usize;
    let mut from = 0;
    for (j, t) in inner.iter().enumerate() {
        match t {
            Tok::P(b'(' | b'[' | b'{') => d += 1,
            Tok::P(b')' | b']' | b'}') => d = d.saturating_sub(1),
            Tok::P(b',') if d == 0 => {
                inner_args.push(&inner[from..j]);
                from = j + 1;
            }
            _ => {}
        }
    }
    if from < inner.len() {
        inner_args.push(&inner[from..]);
    }
    match *f {
        "home" | "homedir" | "expanduser" if inner_args.is_empty() => Some("~".into()),
        "cwd" | "getcwd" if inner_args.is_empty() => Some(".".into()),
        "Path" | "PurePath" | "PosixPath" | "expanduser" | "abspath" | "realpath" | "normpath"
        | "expand_path" | "resolve" | "fspath" | "str" | "String" | "normalize" | "glob"
            if inner_args.len() == 1 =>
        {
            lit_at(inner_args[0], depth + 1)
        }
        "join" | "joinpath" | "resolve" | "Path" | "file.path" => {
            let mut parts = Vec::new();
            for a in inner_args {
                parts.push(lit_at(a, depth + 1)?);
            }
            Some(parts.join("/"))
        }
        _ => None,
    }
}

/// The value of an interpolating string whose one variable is the home directory
/// (`$ENV{HOME}`, `${HOME}`, `$HOME`, php's `{$_SERVER['HOME']}` is not followed), as `~`.
fn home_interpolated(s: &str) -> Option<String> {
    const HOME: &[&str] = &["$ENV{HOME}", "${HOME}", "$HOME"];
    let (at, name) = HOME.iter().find_map(|h| s.find(h).map(|at| (at, *h)))?;
    let rest = &s[at + name.len()..];
    if at != 0 || rest.contains(['$', '@', '#']) || rest.starts_with(|c: char| c.is_alphanumeric())
    {
        return None;
    }
    Some(format!("~{rest}"))
}

/// The literal words of an argument: a string, a list of strings, `"a b".split()`.
fn lit_words(arg: &[Tok<'_>]) -> Option<Vec<String>> {
    match arg {
        [Tok::P(b'[' | b'('), inner @ .., Tok::P(b']' | b')')] => {
            let mut words = Vec::new();
            for part in inner.split(|t| *t == Tok::P(b',')) {
                if part.is_empty() {
                    continue;
                }
                words.push(lit(part)?);
            }
            Some(words)
        }
        [Tok::Ident("c"), rest @ ..] => lit_words(rest),
        [Tok::Str(s), Tok::P(b'.'), Tok::Ident("split"), Tok::P(b'('), Tok::P(b')')] => {
            Some(s.split_whitespace().map(String::from).collect())
        }
        [Tok::Ident("shlex"), Tok::P(b'.'), Tok::Ident("split"), Tok::P(b'('), Tok::Str(s), Tok::P(b')')] => {
            Some(s.split_whitespace().map(String::from).collect())
        }
        _ => None,
    }
}

fn apply(eff: Eff, args: &[&[Tok<'_>]], lang: Lang, out: &mut Sink, st: &mut State) {
    let pos = positional(args);
    match eff {
        Run | RunArgv => {
            let mut words: Vec<String> = Vec::new();
            let mut single: Option<String> = None;
            let list_only = eff == RunArgv;
            for (i, a) in pos.iter().enumerate() {
                if matches!(a.first(), Some(Tok::Num)) && a.len() == 1 {
                    continue;
                }
                if let Some(ws) = lit_words(a) {
                    words.extend(ws);
                } else if list_only && i == 0 {
                    continue;
                } else if let Some(s) = lit(a) {
                    if i == 0 && pos.len() == 1 {
                        single = Some(s);
                    } else {
                        words.push(s);
                    }
                } else {
                    st.opaque = true;
                    return;
                }
            }
            if single.is_none() && words.is_empty() {
                return;
            }
            let script = match single {
                Some(s) => s,
                None if words.len() == 1 => words.remove(0),
                None => {
                    // The program as written, its arguments quoted.
                    let prog = words.remove(0);
                    let rest = super::super::database::shell_join(&words);
                    format!("{prog} {rest}")
                }
            };
            if !script.trim().is_empty() {
                out.script(&script);
            }
        }
        Path(act) => {
            if let Some(a) = pos.first() {
                if let Some(ws) = lit_words(a) {
                    for w in ws {
                        out.path(act, &w);
                    }
                } else if let Some(p) = lit(a) {
                    out.path(act, &p);
                } else {
                    st.opaque = true;
                }
            }
        }
        All(act, from) => {
            for a in pos.iter().skip(from) {
                if let Some(ws) = lit_words(a) {
                    for w in ws {
                        out.path(act, &w);
                    }
                } else if let Some(p) = lit(a) {
                    out.path(act, &p);
                } else if !matches!(a, [Tok::Num]) {
                    st.opaque = true;
                }
            }
        }
        Move | Copy | Link => {
            let (first, second) = match eff {
                Move => (Some(Act::Move), Act::Overwrite),
                Copy => (Some(Act::Read), Act::Overwrite),
                _ => (None, Act::Link),
            };
            for (i, a) in pos.iter().take(2).enumerate() {
                let act = if i == 0 { first } else { Some(second) };
                match (act, lit(a)) {
                    (Some(act), Some(p)) => out.path(act, &p),
                    (Some(_), None) => st.opaque = true,
                    _ => {}
                }
            }
        }
        Open => {
            if !(lang == Lang::Ruby && ruby_open_special(&pos, out, st)) {
                open(&pos, args, lang, out, st)
            }
        }
        Fetch | Send => {
            st.fetch |= eff == Fetch;
            out.place(
                if eff == Fetch { Act::Fetch } else { Act::Send },
                Place::Remote,
            );
        }
        FetchTo => {
            st.fetch = true;
            out.place(Act::Fetch, Place::Remote);
            if let Some(a) = pos.get(1) {
                match lit(a) {
                    Some(p) => out.path(Act::Overwrite, &p),
                    None => st.opaque = true,
                }
            }
        }
        ReadOrFetch => match pos.first().and_then(|a| lit(a)) {
            Some(u) if u.contains("://") => {
                st.fetch = true;
                out.place(Act::Fetch, Place::Remote);
            }
            Some(p) => out.path(Act::Read, &p),
            None => {}
        },
        Eval => {
            st.eval = true;
            st.opaque = true;
        }
        EvalText => {
            // Code given as a literal (decoded ones folded in) is read as what it is.
            st.eval = true;
            let code = if lang == Lang::Js {
                pos.last()
            } else {
                pos.first()
            };
            match code.and_then(|a| lit(a)) {
                Some(code) => analyse(&code, lang, out),
                None => st.opaque = true,
            }
        }
        Sql => sql(&pos, out),
    }
}

/// The words SQL statements start with: a string that starts with none of them is not SQL
/// (`cursor.execute` of a prepared name, a `query` of something else).
const SQL_STARTS: &[&str] = &[
    "drop", "delete", "truncate", "alter", "update", "insert", "replace", "create", "grant",
    "revoke", "pragma", "with", "select", "begin", "vacuum", "attach", "detach", "merge", "upsert",
    "rename", "comment", "reindex",
];

/// SQL given to a driver: every string literal of its first argument (`text("…")` and
/// `sql\`…\`` included) that reads as SQL, analysed as a client's would be.
fn sql(pos: &[&[Tok<'_>]], out: &mut Sink) {
    let Some(first) = pos.first() else {
        return;
    };
    for t in first.iter() {
        let Tok::Str(text) = t else {
            continue;
        };
        let head = text
            .trim_start()
            .split(|c: char| !c.is_ascii_alphabetic())
            .next();
        if head.is_some_and(|h| SQL_STARTS.iter().any(|w| w.eq_ignore_ascii_case(h))) {
            super::super::database::sql::analyse(text, out).emit(out);
        }
    }
}

/// `open(path, mode)` (and perl's `open(FH, MODE, PATH)` / `open(FH, ">path")`).
fn open(pos: &[&[Tok<'_>]], all: &[&[Tok<'_>]], lang: Lang, out: &mut Sink, st: &mut State) {
    let mode_act = |m: &str| {
        // What follows `:` is an encoding (`"r:UTF-8"`) or a compression (`"r:xz"`).
        let m = m.split(':').next().unwrap_or(m);
        if m.contains('w') || m.contains('x') || m.contains('>') && !m.contains(">>") {
            Some(Act::Overwrite)
        } else if m.contains('a') || m.contains('+') || m.contains(">>") {
            Some(Act::Write)
        } else {
            None
        }
    };
    if lang == Lang::Perl {
        match pos {
            [_, mode, path, ..] => {
                let mode = lit(mode).unwrap_or_default();
                if mode.contains('|') {
                    match lit(path) {
                        Some(c) => out.script(&c),
                        None => st.opaque = true,
                    }
                } else if let Some(act) = mode_act(&mode) {
                    match lit(path) {
                        Some(p) => out.path(act, &p),
                        None => st.opaque = true,
                    }
                }
            }
            [_, spec] => {
                let Some(s) = lit(spec) else {
                    if matches!(spec, [Tok::Interp(_)]) {
                        st.opaque = true;
                    }
                    return;
                };
                let t = s.trim();
                if let Some(c) = t.strip_prefix('|').or_else(|| t.strip_suffix('|')) {
                    out.script(c.trim());
                } else if let Some(p) = t.strip_prefix(">>") {
                    out.path(Act::Write, p.trim());
                } else if let Some(p) = t.strip_prefix('>').or_else(|| t.strip_prefix("+<")) {
                    out.path(Act::Overwrite, p.trim());
                }
            }
            _ => {}
        }
        return;
    }
    let mode = pos
        .get(1)
        .and_then(|m| lit(m))
        .or_else(|| {
            all.iter().find_map(|a| match a {
                [Tok::Ident("mode"), Tok::P(b'='), rest @ ..] => lit(rest),
                _ => None,
            })
        })
        .unwrap_or_default();
    let Some(act) = mode_act(&mode) else {
        if let Some(p) = pos.first().and_then(|a| lit(a)) {
            out.path(Act::Read, &p);
        }
        return;
    };
    match pos.first().and_then(|a| lit(a)) {
        Some(p) => out.path(act, &p),
        None => st.opaque = true,
    }
}

/// Ruby's `open("|cmd")` runs a command; `open("http://…")` (open-uri) fetches.
fn ruby_open_special(pos: &[&[Tok<'_>]], out: &mut Sink, st: &mut State) -> bool {
    match pos.first().and_then(|a| lit(a)) {
        Some(p) if p.starts_with('|') => {
            out.script(&p[1..]);
            true
        }
        Some(p) if p.contains("://") => {
            st.fetch = true;
            out.place(Act::Fetch, Place::Remote);
            true
        }
        _ => false,
    }
}

/// `Path("x").unlink()` and other pathlib methods on a literal path.
fn pathlib_method(toks: &[Tok<'_>], k: usize, name: &str, out: &mut Sink, st: &mut State) {
    let Some(&(_, act, distinctive)) = PATH_METHODS.iter().find(|(n, ..)| *n == name) else {
        return;
    };
    if toks.get(k + 1) != Some(&Tok::P(b'(')) || k < 2 || toks[k - 1] != Tok::P(b'.') {
        return;
    }
    // The receiver: `Path(…)` just before, or a name.
    if toks[k - 2] != Tok::P(b')') {
        if distinctive && matches!(toks[k - 2], Tok::Ident(_)) {
            st.opaque = true;
        }
        return;
    }
    let mut d = 0usize;
    let mut j = k - 2;
    let lowest = k.saturating_sub(256);
    let open = loop {
        match toks[j] {
            Tok::P(b')') => d += 1,
            Tok::P(b'(') => {
                d -= 1;
                if d == 0 {
                    break Some(j);
                }
            }
            _ => {}
        }
        if j == lowest {
            break None;
        }
        j -= 1;
    };
    let Some(open) = open else {
        st.opaque |= distinctive;
        return;
    };
    let mut s = open;
    while s >= 2 && matches!(toks[s - 1], Tok::Ident(_)) && toks[s - 2] == Tok::P(b'.') {
        s -= 2;
    }
    s = s.saturating_sub(1);
    let receiver = &toks[s..k - 1];
    let is_path = matches!(
        toks.get(open.wrapping_sub(1)),
        Some(Tok::Ident("Path" | "PurePath" | "PosixPath"))
    );
    match (is_path, lit(receiver)) {
        (true, Some(p)) => {
            out.path(act, &p);
            if act == Act::Move {
                if let Some(args) = call_args(toks, k, false) {
                    if let Some(dst) = args.first().and_then(|a| lit(a)) {
                        out.path(Act::Overwrite, &dst);
                    }
                }
            }
        }
        _ if distinctive => st.opaque = true,
        _ => {}
    }
}

/// awk: `system("…")`, `print > "f"`, `print >> "f"`, `print | "cmd"`, `"cmd" | getline`,
/// `getline < "f"`.
fn awk(toks: &[Tok<'_>], code: &str, out: &mut Sink) {
    let mut opaque = false;
    let mut printing: Option<usize> = None;
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::P(b'(') => depth += 1,
            Tok::P(b')') => depth = depth.saturating_sub(1),
            Tok::P(b';' | b'}' | b'{') => printing = None,
            Tok::Ident("print" | "printf") => printing = Some(depth),
            Tok::Ident("system") => {
                if let Some(args) = call_args(toks, k, false) {
                    apply(Run, &args, Lang::Awk, out, &mut State::default());
                    if args.first().is_some_and(|a| lit(a).is_none()) {
                        opaque = true;
                    }
                }
            }
            Tok::Ident("getline") => {
                if toks.get(k + 1) == Some(&Tok::P(b'<')) {
                    if let Some(Tok::Str(f)) = toks.get(k + 2) {
                        out.path(Act::Read, f);
                    }
                }
                if k >= 2 && toks[k - 1] == Tok::P(b'|') {
                    match &toks[k - 2] {
                        Tok::Str(c) => out.script(c),
                        _ => opaque = true,
                    }
                }
            }
            Tok::P(c @ (b'>' | b'|')) if printing == Some(depth) => {
                let append = *c == b'>' && toks.get(k + 1) == Some(&Tok::P(b'>'));
                if k > 0 && toks[k - 1] == Tok::P(b'>') {
                    continue;
                }
                let target = toks.get(k + 1 + usize::from(append));
                let end = toks.get(k + 2 + usize::from(append));
                let literal = match (target, end) {
                    (Some(Tok::Str(s)), None | Some(Tok::P(b';' | b'}'))) => Some(s.as_str()),
                    _ => None,
                };
                match (c, literal) {
                    (b'|', Some(cmd)) => out.script(cmd),
                    (_, Some(f)) => out.path(if append { Act::Write } else { Act::Overwrite }, f),
                    _ => opaque = true,
                }
                printing = None;
            }
            _ => {}
        }
    }
    if opaque {
        out.opaque(code);
    }
}

/// AppleScript: `do shell script "…"`; deleting, emptying the trash and shutting down.
fn applescript(toks: &[Tok<'_>], code: &str, out: &mut Sink) {
    let mut opaque = false;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Ident(w)
                if w.eq_ignore_ascii_case("do")
                    && matches!(toks.get(k + 1), Some(Tok::Ident(s)) if s.eq_ignore_ascii_case("shell"))
                    && matches!(toks.get(k + 2), Some(Tok::Ident(s)) if s.eq_ignore_ascii_case("script")) =>
            {
                match (toks.get(k + 3), toks.get(k + 4)) {
                    (Some(Tok::Str(s)), next) if !matches!(next, Some(Tok::P(b'&'))) => {
                        out.script(s)
                    }
                    _ => opaque = true,
                }
            }
            Tok::Ident(w)
                if w.eq_ignore_ascii_case("restart")
                    || (w.eq_ignore_ascii_case("shut")
                        && matches!(toks.get(k + 1), Some(Tok::Ident(d)) if d.eq_ignore_ascii_case("down"))) =>
            {
                out.none(Act::Power)
            }
            Tok::Ident(w)
                if w.eq_ignore_ascii_case("delete")
                    || w.eq_ignore_ascii_case("empty")
                    || w.eq_ignore_ascii_case("run") =>
            {
                opaque = true
            }
            _ => {}
        }
    }
    if opaque {
        out.opaque(code);
    }
}
