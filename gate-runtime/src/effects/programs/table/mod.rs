//! The command model as data: programs described in `commands/*.toml` (compiled by
//! `build.rs` into [`builtin`]'s static tables) and in a project's `.gate/commands/*.toml`
//! ([`project`]), read by one interpreter. It finds the program by name, reads its words
//! with getopt ([`crate::effects::getopt`]) in the program's style, walks the subcommand
//! tree to the first form that matches, and writes that form's effects into the [`Sink`],
//! each marked with the file and entry it came from.

pub(crate) mod analysers;
mod builtin;
pub(crate) use builtin::{words, CONSOLES};
pub(crate) use model::{Console, Then};
pub(crate) mod destination;
mod model;
pub(crate) mod project;
mod queries;
// Shared with build.rs: the examples it keeps are read only by build.rs and the tests.
#[allow(dead_code)]
pub(crate) mod schema;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_agents;

use super::super::getopt::{self, Args};
use super::super::{Cmd, Sink, EVERY_LISTED};
use gate_spec::effect::{Act, Place};
use model::{At, Cond, Destination, Eff, Form, Program};
use std::borrow::Cow;

/// The built-in model of `cmd`'s program, when the files have one: its effects into `out`.
/// `false` when they have none, or only forms of a `partial` program that `cmd` is not.
pub(crate) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    builtin::find(cmd.program).is_some_and(|program| run(program, cmd, out))
}

/// Whether `cmd` is a built-in form that prints every item of its kind, one a line
/// (`brew list`, a form with `lists = true`): a command handed that output acts on all.
pub(crate) fn lists_every(cmd: &Cmd<'_, '_>) -> bool {
    listing(cmd).is_some_and(|f| f.lists)
}

/// Whether `cmd` is a built-in form that prints every item of its kind as a table, a row
/// each (`docker ps -a`, a form with `rows = true`): cut to a column, it names them all.
pub(crate) fn lists_every_row(cmd: &Cmd<'_, '_>) -> bool {
    listing(cmd).is_some_and(|f| f.rows)
}

/// The built-in form `cmd` is, when it changes something at all (not `--help`).
fn listing(cmd: &Cmd<'_, '_>) -> Option<&'static Form> {
    let p = builtin::find(cmd.program)?;
    let args = read(p, cmd.args);
    let ops = skipped(p, &args.operands);
    if inert(&args) {
        return None;
    }
    p.forms
        .iter()
        .find_map(|f| fits(p, f, ops, &args, cmd))
        .map(|(f, _)| f)
}

/// The operands with the program's leading words that are no part of the path skipped
/// (each a word or a pattern: `+*` for cargo's `+nightly`).
fn skipped<'o, 'a>(p: &Program, mut ops: &'o [Cow<'a, str>]) -> &'o [Cow<'a, str>] {
    while let Some(first) = ops.first() {
        if !p.skip.iter().any(|s| one_word_is(s, first)) {
            break;
        }
        ops = &ops[1..];
    }
    ops
}

/// The file of the agent CLIs (`commands/agents.toml`): every program it models is one.
const AGENTS_FILE: &str = "commands/agents.toml:";

/// Whether `program` is an agent CLI (one gate guards, or one it installs no hooks in): a
/// program of `commands/agents.toml`.
pub(crate) fn is_agent(program: &str) -> bool {
    builtin::find(program).is_some_and(|p| p.source.starts_with(AGENTS_FILE))
}

/// Read `cmd` through its built-in program's forms again, without the code its program runs
/// before them (a git alias's expansion: the global options were read already); `false`
/// when there is no such program.
pub(crate) fn run_forms(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    builtin::find(cmd.program).is_some_and(|program| run_with(program, cmd, false, out))
}

/// Read `cmd` through `p`; `false` when `p` is `partial` and no form of it matches (the
/// command is read as one of a program gate has no model of).
pub(crate) fn run(p: &Program, cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    run_with(p, cmd, true, out)
}

/// The Windows program or PowerShell cmdlet `name` that PowerShell or cmd.exe text runs
/// with `args` (`sc.exe`, `vssadmin`, `Stop-Computer`): its effects into `out`; `false`
/// when the files have no such program.
pub(crate) fn windows(name: &str, args: &[&str], out: &mut Sink) -> bool {
    let Some(p) = builtin::find_windows(name) else {
        return false;
    };
    let args: Vec<Cow<'_, str>> = args.iter().map(|a| Cow::Borrowed(*a)).collect();
    let cmd = Cmd {
        program: name,
        args: &args,
        stdin: None,
        stdin_file: None,
    };
    run(p, &cmd, out)
}

fn run_with(p: &Program, cmd: &Cmd<'_, '_>, before: bool, out: &mut Sink) -> bool {
    if p.windows {
        // Words in any case, `\` as `/`, Windows paths as the caller classes them.
        let args: Vec<Cow<'_, str>> = cmd
            .args
            .iter()
            .map(|a| Cow::Owned(lower_but_variables(&super::windows::win_path(a))))
            .collect();
        let cmd = Cmd {
            args: &args,
            ..*cmd
        };
        return run_read(p, &cmd, before, out);
    }
    run_read(p, cmd, before, out)
}

/// `word` in lower case but for the names of the variables it expands (`$HOME`, `${X}`),
/// which the caller expands as written.
fn lower_but_variables(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut in_name = false;
    for c in word.chars() {
        in_name = match c {
            '$' => true,
            '{' | '}' | '_' => in_name,
            _ => in_name && c.is_ascii_alphanumeric(),
        };
        out.push(if in_name { c } else { c.to_ascii_lowercase() });
    }
    out
}

fn run_read(p: &Program, cmd: &Cmd<'_, '_>, before: bool, out: &mut Sink) -> bool {
    let mut args = read(p, cmd.args);
    args.roles = p.roles;
    let ops = skipped(p, &args.operands);
    // `prog help …` prints help in every CLI that has the word.
    if p.subcommands && ops.first().is_some_and(|w| w == "help") {
        return true;
    }
    out.names_only |= p.names_only;
    let from = out.raw.len();
    if before {
        if let Some(before) = p.before {
            before(cmd, &args, ops, out);
        }
        code(p, &args, out);
        mark(out, from, p.source);
    }
    let inert = inert(&args) || p.inert.iter().any(|c| holds(c, &args, &[], cmd));
    let found = p.forms.iter().find_map(|f| fits(p, f, ops, &args, cmd));
    let dir = p.dir.map(|name| directory(&args, name));
    let dir = dir.as_deref().filter(|d| !d.is_empty());
    if p.tasks
        && !inert
        && found
            .as_ref()
            .is_some_and(|(f, _)| f.path.is_empty() && !f.verb.is_empty())
    {
        tasks(p, ops, &args, cmd, dir, out);
        return true;
    }
    match found {
        // Code the command runs elsewhere is read even under `--help`: whose option it is
        // cannot always be told, and uncertainty lowers nothing.
        Some((f, own))
            if !(inert || own.as_ref().is_some_and(self::inert)) || f.analyser.is_some() =>
        {
            let from = out.raw.len();
            let inert = inert || own.as_ref().is_some_and(self::inert);
            // The roles the form's analyser reads: the form's own, else the program's.
            let roles = if f.roles.is_empty() { p.roles } else { f.roles };
            let mut own = own;
            let relabelled;
            let (args, rest) = match &mut own {
                Some(own) => {
                    own.roles = roles;
                    (&*own, &own.operands[..])
                }
                None if !std::ptr::eq(roles, args.roles) => {
                    relabelled = Args {
                        roles,
                        ..args.clone()
                    };
                    (&relabelled, &ops[f.path.len()..])
                }
                None => (&args, &ops[f.path.len()..]),
            };
            if !inert {
                let copy = copy(p, args, rest, cmd);
                write(f.effects, rest, args, dir, copy, out);
                if let Some(q) = &f.queries {
                    queries::read(q, cmd, args, rest, out);
                }
            }
            if let Some(analyse) = f.analyser {
                analyse(cmd, args, rest, out);
            }
            mark(out, from, f.source);
        }
        Some(_) => {}
        None if p.partial => return false,
        // Code that reads the whole command decides what `--help` means itself.
        None if p.analyser.is_some() || !inert => {
            let from = out.raw.len();
            match p.analyser {
                Some(analyse) => analyse(cmd, &args, ops, out),
                None => write(p.otherwise, ops, &args, dir, copy(p, &args, ops, cmd), out),
            }
            if let (Some(q), false) = (&p.queries, inert) {
                queries::read(q, cmd, &args, ops, out);
            }
            mark(out, from, p.source);
        }
        _ => {}
    }
    true
}

/// A program that runs each task it is named in turn (`rake db:drop db:create`, `flyway
/// clean migrate`): each operand is read through the `verb` forms, and the first that
/// matches it (its conditions seeing every operand) adds its effects.
fn tasks(
    p: &Program,
    ops: &[Cow<'_, str>],
    args: &Args<'_>,
    cmd: &Cmd<'_, '_>,
    dir: Option<&str>,
    out: &mut Sink,
) {
    for (k, w) in ops.iter().enumerate() {
        let task = p.forms.iter().find(|f| {
            f.path.is_empty()
                && f.options.is_none()
                && word_is(f.verb, w)
                && f.when.iter().all(|c| holds(c, args, ops, cmd))
        });
        if let Some(f) = task {
            let from = out.raw.len();
            write(f.effects, &ops[k + 1..], args, dir, None, out);
            mark(out, from, f.source);
        }
    }
}

/// The code the program's options carry: shell lines (`code_options`), and settings whose
/// key names code it runs (`code_settings`: what runs is unknown, `opaque`).
fn code(p: &Program, args: &Args<'_>, out: &mut Sink) {
    if let Some(names) = p.code_options {
        for o in &args.opts {
            if let Some(v) = o.value.as_deref() {
                if names.split('|').any(|n| n == o.name) {
                    out.script(v);
                    out.program(v);
                }
            }
        }
    }
    if let Some(s) = &p.code_settings {
        for o in &args.opts {
            let Some(kv) = o.value.as_deref() else {
                continue;
            };
            if !s.options.split('|').any(|n| n == o.name) {
                continue;
            }
            let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
            if s.keys.iter().any(|k| key.starts_with(k)) {
                out.opaque(kv);
                // A program named by its path (`target.x.linker="/tmp/l"`) is placed.
                if let Some((_, value)) = kv.split_once('=') {
                    out.program(value.trim().trim_matches(['"', '\'']));
                }
            }
        }
    }
}

/// The directory `cmd`'s built-in program resolves relative targets from (its `dir`
/// option's values in `args`), when it has one and the line gives it.
pub(crate) fn directory_of(cmd: &Cmd<'_, '_>, args: &Args<'_>) -> Option<String> {
    let name = builtin::find(cmd.program)?.dir?;
    Some(directory(args, name)).filter(|d| !d.is_empty())
}

/// The form `f` when `ops` is of it and its conditions hold, with the words after its path
/// read through its own options when it has them.
fn fits<'f, 'a>(
    p: &Program,
    f: &'f Form,
    ops: &[Cow<'a, str>],
    args: &Args<'a>,
    cmd: &Cmd<'_, '_>,
) -> Option<(&'f Form, Option<Args<'a>>)> {
    match &f.options {
        None => {
            let rest = matches(f, ops)?;
            f.when
                .iter()
                .all(|c| holds(c, args, rest, cmd))
                .then_some((f, None))
        }
        Some(grammar) => {
            if ops.len() < f.path.len() || !f.path.iter().zip(ops).all(|(a, w)| word_is(a, w)) {
                return None;
            }
            let own = getopt::read_as(grammar, p.style, &ops[f.path.len()..]);
            let rest = &own.operands[..];
            let fits = (!f.end || rest.is_empty())
                && (f.verb.is_empty()
                    || rest
                        .iter()
                        .skip(usize::from(f.verb_from).saturating_sub(f.path.len()))
                        .any(|w| word_is(f.verb, w)))
                && f.when.iter().all(|c| holds(c, &own, rest, cmd));
            fits.then_some((f, Some(own)))
        }
    }
}

/// The directory the values of option `name` (`R|repository`: either) lead to, each seen
/// from the one before (`git -C a -C b`: `a/b`); empty when none is given.
fn directory(args: &Args<'_>, name: &str) -> String {
    let mut dir: Option<String> = None;
    let given = args
        .opts
        .iter()
        .filter(|o| name.split('|').any(|n| n == o.name))
        .filter_map(|o| o.value.as_deref());
    for v in given.filter(|v| !v.is_empty()) {
        dir = Some(super::vcs::join(dir.as_deref(), v));
    }
    dir.unwrap_or_default()
}

/// `words` read through `p`'s options: its own, and its subcommands' after the first
/// operand when it has those.
fn read<'a>(p: &Program, words: &[Cow<'a, str>]) -> Args<'a> {
    // A signal given as an option (`-9`, `-KILL`) is no option of the grammar.
    let unsignalled: Vec<Cow<'a, str>>;
    let words = match p.signals {
        Some(_) if words.iter().any(|w| signal_word(w).is_some()) => {
            unsignalled = words
                .iter()
                .filter(|w| signal_word(w).is_none())
                .cloned()
                .collect();
            &unsignalled[..]
        }
        _ => words,
    };
    let extras = getopt::Extras {
        dash_operands: p.dash_operands,
        optional: p.short_optional,
    };
    let Some(sub) = &p.sub else {
        return getopt::read_with(&p.grammar, p.style, words, extras);
    };
    let global = getopt::Grammar {
        posix: true,
        ..p.grammar
    };
    let mut args = getopt::read_with(&global, p.style, words, extras);
    if args.operands.len() > 1 {
        let rest = args.operands.split_off(1);
        let more = getopt::read_with(sub, p.style, &rest, extras);
        args.opts.extend(more.opts);
        args.operands.extend(more.operands);
        args.unknown.extend(more.unknown);
    }
    args
}

/// The signal a word gives as an option (`-9`, `-KILL`, `-SIGTERM`: digits, or two or more
/// capitals and digits), as written without its dash.
pub(crate) fn signal_word(w: &str) -> Option<&str> {
    w.strip_prefix('-').filter(|s| {
        !s.is_empty()
            && (s.chars().all(|c| c.is_ascii_digit())
                || s.len() > 1
                    && s.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
    })
}

/// Whether the signal `cmd` sends (a `-SIGNAL` word, or a value of one of the `options`),
/// named without `SIG` in any case, is one of `words` (`0|HUP`).
fn signal_is(cmd: &Cmd<'_, '_>, args: &Args<'_>, options: &str, words: &str) -> bool {
    let given = cmd.args.iter().filter_map(|w| signal_word(w));
    let valued = args
        .opts
        .iter()
        .filter(|o| options.split('|').any(|n| n == o.name))
        .filter_map(|o| o.value.as_deref());
    given.chain(valued).any(|s| {
        let s = s
            .strip_prefix("SIG")
            .or_else(|| s.strip_prefix("sig"))
            .unwrap_or(s);
        words.split('|').any(|w| w.eq_ignore_ascii_case(s))
    })
}

/// Whether `word` is one of `words` (`a|b`).
fn one_of(words: &str, word: &str) -> bool {
    words.split('|').any(|w| w == word)
}

/// Whether option `name` is given: a full name, or `prefix-*` for any option so named,
/// declared or not (`add-*`).
fn given(args: &Args<'_>, name: &str) -> bool {
    match name.strip_suffix('*') {
        Some(prefix) => {
            args.opts.iter().any(|o| o.name.starts_with(prefix))
                || args
                    .unknown
                    .iter()
                    .any(|u| u.split('=').next().unwrap_or("").starts_with(prefix))
        }
        None => args.has(name),
    }
}

/// What every CLI reads as changing nothing: `--help`, and a dry run (`--dry-run`,
/// `--dry-run=client`; not `--dry-run=none`).
pub(crate) fn inert(args: &Args<'_>) -> bool {
    let named = args
        .opts
        .iter()
        .map(|o| (&*o.name, o.value.as_deref()))
        .chain(args.unknown.iter().map(|u| match u.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (&**u, None),
        }));
    for (name, value) in named {
        match name {
            "help" => return true,
            "dry-run" | "dryrun" if !matches!(value, Some("none" | "false")) => return true,
            _ => {}
        }
    }
    false
}

/// The operands after `f`'s subcommand path, when `ops` is of that form.
fn matches<'o, 'a>(f: &Form, ops: &'o [Cow<'a, str>]) -> Option<&'o [Cow<'a, str>]> {
    if ops.len() < f.path.len() {
        return None;
    }
    for (alts, word) in f.path.iter().zip(ops) {
        if !word_is(alts, word) {
            return None;
        }
    }
    let rest = &ops[f.path.len()..];
    if f.end && !rest.is_empty() {
        return None;
    }
    if !f.verb.is_empty() {
        let from = (f.verb_from as usize).max(f.path.len());
        if !ops.iter().skip(from).any(|w| word_is(f.verb, w)) {
            return None;
        }
    }
    Some(rest)
}

/// Whether `word` is one of the alternatives (`word`, `prefix*`, `*suffix`, `*infix*`,
/// `*`, `w[ord]`: `w` or a longer prefix of `word`) and none of the `!`-marked ones
/// (`publish*|!*ToMavenLocal`).
fn word_is(alts: &[&str], word: &str) -> bool {
    let mut yes = false;
    for a in alts {
        match a.strip_prefix('!') {
            Some(not) if one_word_is(not, word) => return false,
            Some(_) => {}
            None => yes = yes || one_word_is(a, word),
        }
    }
    yes
}

fn one_word_is(a: &str, word: &str) -> bool {
    if let Some((head, rest)) = a.strip_suffix(']').and_then(|a| a.split_once('[')) {
        word.strip_prefix(head)
            .is_some_and(|tail| rest.starts_with(tail))
    } else if a == "*" {
        true
    } else if let Some(suffix) = a.strip_prefix('*') {
        match suffix.strip_suffix('*') {
            Some(infix) => word.contains(infix),
            None => word.ends_with(suffix),
        }
    } else if let Some(prefix) = a.strip_suffix('*') {
        word.starts_with(prefix)
    } else {
        word == a
    }
}

fn holds(c: &Cond, args: &Args<'_>, rest: &[Cow<'_, str>], cmd: &Cmd<'_, '_>) -> bool {
    let operand = |n: u8| rest.get(usize::from(n) - 1).map(|w| &**w);
    match c {
        Cond::Has(n) => n.split('|').any(|n| given(args, n)),
        Cond::Lacks(n) => !n.split('|').any(|n| given(args, n)),
        Cond::Is(n, v) => args.value(n).is_some_and(|x| v.split('|').any(|v| v == x)),
        Cond::IsNot(n, v) => {
            args.has(n) && !args.value(n).is_some_and(|x| v.split('|').any(|v| v == x))
        }
        Cond::ValueHas(n, t, any_case) => n
            .split('|')
            .any(|n| args.values(&[n]).any(|v| has_text(v, t, *any_case))),
        Cond::ValueLacks(n, t, any_case) => n
            .split('|')
            .any(|n| args.values(&[n]).any(|v| !has_text(v, t, *any_case))),
        Cond::OperandHas(n, t) => operand(*n).is_some_and(|w| contains(w, t)),
        Cond::OperandLacks(n, t) => !operand(*n).is_some_and(|w| contains(w, t)),
        Cond::OperandIs(n, t) => operand(*n).is_some_and(|w| t.split('|').any(|t| t == w)),
        Cond::OperandIsNot(n, t) => !operand(*n).is_some_and(|w| t.split('|').any(|t| t == w)),
        Cond::AnyOperandHas(t) => rest.iter().any(|w| contains(w, t)),
        Cond::NoOperandHas(t) => !rest.iter().any(|w| contains(w, t)),
        Cond::Every => cmd.args.iter().any(|a| a == EVERY_LISTED),
        Cond::ValueIn(names, words) => names.split('|').any(|n| {
            args.values(&[n])
                .flat_map(|v| v.split(','))
                .any(|v| one_of(words, v.trim()))
        }),
        Cond::AnyOperandIs(words) => rest.iter().any(|w| one_of(words, w)),
        Cond::NoOperandIs(words) => !rest.iter().any(|w| one_of(words, w)),
        Cond::Signal(options, words) => signal_is(cmd, args, options, words),
        Cond::Only(names) => only(args, names),
        Cond::NotOnly(names) => !only(args, names),
    }
}

/// Whether `word` contains one of the texts `a|b`.
fn contains(word: &str, texts: &str) -> bool {
    texts.split('|').any(|t| word.contains(t))
}

/// Whether `value` contains one of the texts `a|b`; `any_case`: in any ASCII case (the
/// texts are in lower case).
fn has_text(value: &str, texts: &str, any_case: bool) -> bool {
    if !any_case {
        return contains(value, texts);
    }
    texts.split('|').any(|t| {
        value
            .as_bytes()
            .windows(t.len())
            .any(|w| w.eq_ignore_ascii_case(t.as_bytes()))
    })
}

/// Whether every option given is one of `names` (`p|print`), none unknown.
fn only(args: &Args<'_>, names: &str) -> bool {
    args.unknown.is_empty()
        && args
            .opts
            .iter()
            .all(|o| names.split('|').any(|n| n == o.name))
}

/// The program's reading of a copy's operands, when it has one, and whether what a
/// destination held is kept (one of its `keep` conditions holds).
fn copy<'p>(
    p: &'p Program,
    args: &Args<'_>,
    rest: &[Cow<'_, str>],
    cmd: &Cmd<'_, '_>,
) -> Option<(&'p Destination, bool)> {
    let d = p.destination.as_ref()?;
    Some((d, d.keep.iter().any(|c| holds(c, args, rest, cmd))))
}

fn write(
    effects: &[Eff],
    rest: &[Cow<'_, str>],
    args: &Args<'_>,
    dir: Option<&str>,
    copy: Option<(&Destination, bool)>,
    out: &mut Sink,
) {
    let file = |out: &mut Sink, act, path: &str| match dir {
        Some(_) => out.path(act, &super::vcs::join(dir, path)),
        None => out.path(act, path),
    };
    // An operand or a value that is `-` is standard input or output, as every program
    // reads it, and an empty word names nothing: no file.
    let at = |out: &mut Sink, act, path: &str| {
        if path != "-" && !path.is_empty() {
            file(out, act, path);
        }
    };
    for e in effects {
        if let (At::Sources | At::Landings | At::SourcesFromLandings, Some((d, keep))) =
            (&e.at, copy)
        {
            let act = match e.at {
                At::Landings if keep && e.act == Act::Overwrite => Act::Write,
                _ => e.act,
            };
            for (src, land) in destination::pairs(d, args, rest) {
                match e.at {
                    At::Sources => at(out, act, src),
                    At::Landings => land.iter().for_each(|l| at(out, act, l)),
                    _ => at(out, act, &destination::seen_from(src, land.as_deref())),
                }
            }
            continue;
        }
        if e.act == Act::Device && !matches!(e.at, At::Place(_) | At::Path(_)) {
            let name = [match &e.at {
                At::Value(name) => *name,
                _ => "",
            }];
            let words: Vec<&str> = match &e.at {
                At::Operand(n) => rest
                    .get(usize::from(*n) - 1)
                    .map(|w| &**w)
                    .into_iter()
                    .collect(),
                At::Operands => rest.iter().map(|w| &**w).collect(),
                At::Last => rest.last().map(|w| &**w).into_iter().collect(),
                At::AllButLast => rest
                    .split_last()
                    .map(|(_, but)| but.iter().map(|w| &**w).collect())
                    .unwrap_or_default(),
                At::Value(_) => args.values(&name).collect(),
                At::Keyed(k) => keyed(rest, k).collect(),
                At::OperandWith(..)
                | At::Place(_)
                | At::Path(_)
                | At::Sources
                | At::Landings
                | At::SourcesFromLandings => Vec::new(),
            };
            devices(&words, &mut |out, act, path| at(out, act, path), out);
            continue;
        }
        match &e.at {
            At::Place(Place::Nowhere) => out.none(e.act),
            At::Place(place) => out.place(e.act, *place),
            At::Path(path) => at(out, e.act, path),
            At::Operand(n) => {
                if let Some(w) = rest.get(usize::from(*n) - 1) {
                    at(out, e.act, w);
                }
            }
            At::Operands => rest.iter().for_each(|w| at(out, e.act, w)),
            At::Last => {
                if let Some(w) = rest.last() {
                    at(out, e.act, w);
                }
            }
            At::AllButLast => {
                let all_but = rest.len().saturating_sub(1);
                rest[..all_but].iter().for_each(|w| at(out, e.act, w));
            }
            At::Value(name) => args.values(&[*name]).for_each(|v| at(out, e.act, v)),
            // `dd of=-` is a file of that name: only an operand or a value alone is a stream.
            At::Keyed(k) => keyed(rest, k).for_each(|v| file(out, e.act, v)),
            At::OperandWith(n, tail) => {
                if let Some(w) = rest.get(usize::from(*n) - 1) {
                    at(out, e.act, &format!("{w}{tail}"));
                }
            }
            // Read above, with the program's destination (the schema admits them only so).
            At::Sources | At::Landings | At::SourcesFromLandings => {}
        }
    }
}

/// The text after `KEY=` of each operand spelled so (`dd of=/dev/sda`: `/dev/sda`).
fn keyed<'r>(rest: &'r [Cow<'_, str>], key: &'r str) -> impl Iterator<Item = &'r str> + 'r {
    rest.iter()
        .filter_map(move |w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
}

/// What an image file of a disk is named (`disk.img`): a block-device tool given one writes
/// an ordinary file.
const IMAGE_EXTENSIONS: &[&str] = &[".img", ".iso", ".raw", ".qcow2", ".bin", ".vhd", ".vmdk"];

/// `device` on words a block-device tool is given (`device@$1` in the data). A device node,
/// or a name that may hold one (`$DEV`, a pattern), is the device at that path; a path that
/// is no device node (`./disk.img`, `~/fs.raw`, `vm.qcow2`) is an image file, overwritten;
/// a name that is no path (a pool `tank`, a volume `vg0/lv0`) is a device gate cannot place,
/// as is a device only a variable or pattern names, or none named at all.
pub(super) fn devices(words: &[&str], at: &mut dyn FnMut(&mut Sink, Act, &str), out: &mut Sink) {
    let mut named = false;
    let mut unplaced = false;
    for word in words {
        let variable = word.starts_with('$');
        let pattern = word.contains(['*', '?', '[']);
        let path = word.starts_with(['/', '~'])
            || word.starts_with("./")
            || word.starts_with("../")
            || IMAGE_EXTENSIONS.iter().any(|e| word.ends_with(e));
        if variable || path {
            let act = if word.starts_with("/dev/") || variable {
                Act::Device
            } else {
                Act::Overwrite
            };
            at(out, act, word);
            named = true;
        }
        unplaced |= variable || pattern;
    }
    if !named || unplaced {
        out.none(Act::Device);
    }
}

/// Mark the effects written since `from` as coming from `source`, when the caller asked
/// where effects come from (`gate explain`).
fn mark(out: &mut Sink, from: usize, source: &'static str) {
    if super::super::provenance::recording() {
        for i in from..out.raw.len() {
            out.sources.push((i, source));
        }
    }
}
