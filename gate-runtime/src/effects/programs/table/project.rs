//! A project's own command models: `.gate/commands/*.toml` under the project, in the
//! built-ins' format, read when a live hook call starts ([`begin`]; one `stat` when the
//! directory is absent). They add programs, or add effects to a built-in's: both are read
//! and their effects joined, so a project's file can raise what a command is, never lower
//! it. A file with an error adds nothing (the hook never fails on it); `gate explain`
//! shows the error.

use super::super::super::getopt::{Grammar, Style};
use super::super::super::{Cmd, Sink};
use super::analysers;
use super::model::{At, CodeSettings, Cond, Destination, Eff, Form, Program, Queries};
use super::schema;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A project's programs, and the errors its files have.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    programs: Vec<&'static Program>,
    pub(crate) faults: Vec<String>,
}

thread_local! {
    /// The project commands of the hook call under way.
    static CURRENT: RefCell<Option<&'static Loaded>> = const { RefCell::new(None) };
}

/// What each project directory's files gave, read once per process (a hook call is one
/// process; tests and `gate explain` read several).
static CACHE: Mutex<Vec<(PathBuf, &'static Loaded)>> = Mutex::new(Vec::new());

/// The directory a project keeps its command models in.
pub(crate) const DIR: &str = ".gate/commands";

/// Read `project`'s command models, when it has any, for the commands read until [`end`].
pub fn begin(project: &str) {
    let dir = Path::new(project).join(DIR);
    let loaded = if dir.is_dir() { Some(load(&dir)) } else { None };
    CURRENT.with(|c| *c.borrow_mut() = loaded);
}

/// Stop reading a project's command models.
pub fn end() {
    CURRENT.with(|c| *c.borrow_mut() = None);
}

/// The errors in `project`'s command files (`file:line:col: …`).
pub fn faults(project: &str) -> Vec<String> {
    let dir = Path::new(project).join(DIR);
    if dir.is_dir() {
        load(&dir).faults.clone()
    } else {
        Vec::new()
    }
}

/// The project's model of `cmd`'s program, when it has one: its effects into `out`.
pub(crate) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let Some(loaded) = CURRENT.with(|c| *c.borrow()) else {
        return false;
    };
    let mut any = false;
    for p in &loaded.programs {
        if p.names.contains(&cmd.program) {
            any |= super::run(p, cmd, out);
        }
    }
    any
}

fn load(dir: &Path) -> &'static Loaded {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, l)) = cache.iter().find(|(d, _)| d == dir) {
        return l;
    }
    let loaded: &'static Loaded = Box::leak(Box::new(read_dir(dir)));
    cache.push((dir.to_path_buf(), loaded));
    loaded
}

fn read_dir(dir: &Path) -> Loaded {
    let mut out = Loaded::default();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(e) => {
            out.faults.push(format!("{DIR}: {e}"));
            return out;
        }
    };
    files.sort();
    for path in files {
        let name = format!(
            "{DIR}/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| format!("{name}: {e}"))
            .and_then(|text| schema::parse(&name, &text, false));
        match parsed {
            Ok(programs) => out.programs.extend(
                programs
                    .into_iter()
                    .map(|p| &*Box::leak(Box::new(program(p)))),
            ),
            Err(e) => out.faults.push(e),
        }
    }
    out
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn text(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn texts(v: Vec<String>) -> &'static [&'static str] {
    leak(v.into_iter().map(text).collect())
}

fn program(p: schema::Program) -> Program {
    Program {
        names: texts(p.names),
        grammar: Grammar {
            short: text(p.short),
            short_value: text(p.short_value),
            long: texts(p.long),
            long_value: texts(p.long_value),
            posix: p.posix,
        },
        short_optional: text(p.short_optional),
        queries: p.queries.map(queries),
        sub: p.sub.map(grammar),
        dash_operands: text(p.dash_operands),
        subcommands: p.subcommands,
        dir: p.dir.map(text),
        signals: p.signals.map(text),
        before: p.before.as_deref().and_then(analysers::by_name),
        code_options: p.code_options.map(text),
        code_settings: p.code_settings.map(|c| CodeSettings {
            options: text(c.options),
            keys: texts(c.keys),
        }),
        style: match p.style {
            schema::StyleName::Gnu => Style::Gnu,
            schema::StyleName::Exact => Style::Exact,
            schema::StyleName::Go => Style::Go,
        },
        inert: leak(p.inert.into_iter().map(cond).collect()),
        skip: texts(p.skip),
        forms: leak(p.forms.into_iter().map(form).collect()),
        otherwise: leak(p.otherwise.into_iter().map(eff).collect()),
        analyser: p.analyser.as_deref().and_then(analysers::by_name),
        partial: p.partial,
        windows: p.windows,
        cmdlet: p.cmdlet,
        tasks: p.tasks,
        names_only: p.names_only,
        roles: roles(p.roles),
        source: text(p.source),
        destination: p.destination.map(|d| Destination {
            into: text(d.into),
            exact: text(d.exact),
            keep: leak(d.keep.into_iter().map(cond).collect()),
            default: d.default.map(text),
        }),
    }
}

fn roles(r: Vec<(String, String)>) -> &'static [(&'static str, &'static str)] {
    leak(r.into_iter().map(|(a, b)| (text(a), text(b))).collect())
}

fn grammar(o: schema::Options) -> Grammar {
    Grammar {
        short: text(o.short),
        short_value: text(o.short_value),
        long: texts(o.long),
        long_value: texts(o.long_value),
        posix: false,
    }
}

fn form(f: schema::Form) -> Form {
    Form {
        source: text(f.source),
        path: leak(f.path.into_iter().map(texts).collect()),
        end: f.end,
        verb: texts(f.verb),
        verb_from: f.verb_from,
        when: leak(f.when.into_iter().map(cond).collect()),
        effects: leak(f.effects.into_iter().map(eff).collect()),
        // The schema admits only names the registry has (a test keeps them in step).
        analyser: f.analyser.as_deref().and_then(analysers::by_name),
        queries: f.queries.map(queries),
        roles: roles(f.roles),
        options: f.options.map(grammar),
        lists: f.lists,
        rows: f.rows,
    }
}

/// The schema admits only languages the registry has (a test keeps them in step).
fn queries(q: schema::Queries) -> Queries {
    Queries {
        language: analysers::language(&q.language).unwrap_or(analysers::sql),
        text: text(q.text),
        files: text(q.files),
        first: text(q.first),
        split: text(q.split),
        operands: text(q.operands),
        database: q.database,
        readonly: text(q.readonly),
        in_memory: text(q.in_memory),
        output: text(q.output),
    }
}

fn cond(c: schema::Cond) -> Cond {
    match c {
        schema::Cond::Has(n) => Cond::Has(text(n)),
        schema::Cond::Lacks(n) => Cond::Lacks(text(n)),
        schema::Cond::Is(n, v) => Cond::Is(text(n), text(v)),
        schema::Cond::IsNot(n, v) => Cond::IsNot(text(n), text(v)),
        schema::Cond::ValueHas(n, v, c) => Cond::ValueHas(text(n), text(v), c),
        schema::Cond::ValueLacks(n, v, c) => Cond::ValueLacks(text(n), text(v), c),
        schema::Cond::OperandHas(i, t) => Cond::OperandHas(i, text(t)),
        schema::Cond::OperandLacks(i, t) => Cond::OperandLacks(i, text(t)),
        schema::Cond::OperandIs(i, t) => Cond::OperandIs(i, text(t)),
        schema::Cond::OperandIsNot(i, t) => Cond::OperandIsNot(i, text(t)),
        schema::Cond::AnyOperandHas(t) => Cond::AnyOperandHas(text(t)),
        schema::Cond::NoOperandHas(t) => Cond::NoOperandHas(text(t)),
        schema::Cond::Every => Cond::Every,
        schema::Cond::ValueIn(n, w) => Cond::ValueIn(text(n), text(w)),
        schema::Cond::AnyOperandIs(w) => Cond::AnyOperandIs(text(w)),
        schema::Cond::NoOperandIs(w) => Cond::NoOperandIs(text(w)),
        schema::Cond::Signal(o, w) => Cond::Signal(text(o), text(w)),
        schema::Cond::Only(n) => Cond::Only(text(n)),
        schema::Cond::NotOnly(n) => Cond::NotOnly(text(n)),
    }
}

fn eff(e: schema::Eff) -> Eff {
    Eff {
        act: e.act,
        at: match e.at {
            schema::At::Place(p) => At::Place(p),
            schema::At::Path(s) => At::Path(text(s)),
            schema::At::Operand(n) => At::Operand(n),
            schema::At::Operands => At::Operands,
            schema::At::Last => At::Last,
            schema::At::AllButLast => At::AllButLast,
            schema::At::Value(n) => At::Value(text(n)),
            schema::At::Sources => At::Sources,
            schema::At::Landings => At::Landings,
            schema::At::SourcesFromLandings => At::SourcesFromLandings,
            schema::At::Keyed(k) => At::Keyed(text(k)),
            schema::At::OperandWith(n, t) => At::OperandWith(n, text(t)),
        },
    }
}
