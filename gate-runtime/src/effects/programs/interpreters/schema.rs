//! The format of the interpreters' call tables (`commands/interpreters/calls.toml`): which
//! library call of which language does what with its arguments, read and checked by
//! `build.rs` (compiled into static tables) and by the tests; the hook parses nothing.

use gate_spec::effect::Act;
use serde::Deserialize;
use toml::Spanned;

/// The version of the format this gate reads.
pub const VERSION: u32 = 1;

/// The languages a call table is for, as the file names them.
pub const LANGUAGES: &[&str] = &["python", "js", "perl", "ruby", "php", "lua", "r"];

/// What a call does with its arguments, other than an act on paths (`does = "delete"`): the
/// name in the file and the name of the `Eff` variant it compiles to.
pub const KINDS: &[(&str, &str)] = &[
    ("run", "Run"),
    ("run-argv", "RunArgv"),
    ("move", "Move"),
    ("copy", "Copy"),
    ("link", "Link"),
    ("open", "Open"),
    ("fetch", "Fetch"),
    ("fetch-to", "FetchTo"),
    ("send", "Send"),
    ("read-or-fetch", "ReadOrFetch"),
    ("eval", "Eval"),
    ("eval-text", "EvalText"),
    ("sql", "Sql"),
];

/// The acts a call may have on the paths it is given.
pub const PATH_ACTS: &[Act] = &[Act::Delete, Act::Overwrite, Act::Write, Act::Permissions];

/// One checked call entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub lang: String,
    /// `q.name`, `name` or `=name` (see the file's header).
    pub callee: String,
    /// The Rust expression of its `Eff` (`Run`, `Path(Act::Delete)`, `All(Act::Delete, 0)`).
    pub eff: String,
    pub examples: Vec<Example>,
    /// `file:line` of the entry, for provenance and errors.
    pub source: String,
}

/// A command line and the exact effects it has (`act@place`, sorted).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub line: String,
    pub effects: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<u32>,
    #[serde(default)]
    call: Vec<Spanned<RawCall>>,
    #[serde(default)]
    path_method: Vec<Spanned<PathMethod>>,
}

/// A method of a path object (`Path("x").unlink()`): its act on the path it is called on.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PathMethod {
    pub name: String,
    pub act: String,
    /// The name is this method's alone: called on a path the line does not show, the code
    /// is opaque (`p.unlink()`), where a common name (`d.touch()`) says nothing.
    #[serde(default)]
    pub distinctive: bool,
    #[serde(default)]
    pub examples: Vec<Example>,
}

/// Read and check the path methods of the same file.
pub fn parse_path_methods(file: &str, text: &str) -> Result<Vec<PathMethod>, String> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(file, text, offset, e.message().trim())
    })?;
    let mut out: Vec<PathMethod> = Vec::new();
    for entry in &raw.path_method {
        let m = entry.get_ref();
        let here = entry.span().start;
        if Act::parse(&m.act).is_none() {
            return Err(at(
                file,
                text,
                here,
                &format!("{}: unknown act `{}`", m.name, m.act),
            ));
        }
        if out.iter().any(|o| o.name == m.name) {
            return Err(at(
                file,
                text,
                here,
                &format!("path method `{}` is listed twice", m.name),
            ));
        }
        if m.examples.is_empty() {
            return Err(at(
                file,
                text,
                here,
                &format!("{} shows no example", m.name),
            ));
        }
        out.push(m.clone());
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCall {
    lang: Spanned<String>,
    callee: Spanned<String>,
    does: Spanned<String>,
    /// Every argument from this index is a target (perl and ruby lists, `chmod MODE, FILES`);
    /// without it, the first argument (each element of a list).
    from: Option<Spanned<u8>>,
    #[serde(default)]
    examples: Vec<Example>,
}

fn at(file: &str, text: &str, offset: usize, message: &str) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{file}:{line}:{col}: {message}")
}

/// Read and check the file; entries keep file order (the first that matches a call wins).
pub fn parse(file: &str, text: &str) -> Result<Vec<Call>, String> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(file, text, offset, e.message().trim())
    })?;
    let err = |offset: usize, message: String| at(file, text, offset, &message);
    if *raw.version.get_ref() != VERSION {
        return Err(err(
            raw.version.span().start,
            format!(
                "unsupported version {} (this gate reads version {VERSION})",
                raw.version.get_ref()
            ),
        ));
    }
    let mut out: Vec<Call> = Vec::new();
    for entry in &raw.call {
        let c = entry.get_ref();
        let lang = c.lang.get_ref();
        if !LANGUAGES.contains(&lang.as_str()) {
            return Err(err(
                c.lang.span().start,
                format!("unknown language `{lang}` ({})", LANGUAGES.join(", ")),
            ));
        }
        let callee = c.callee.get_ref();
        let bare = callee.strip_prefix('=').unwrap_or(callee);
        if bare.is_empty() || bare.contains(char::is_whitespace) || bare.ends_with('.') {
            return Err(err(
                c.callee.span().start,
                format!("`{callee}`: a callee is `q.name`, `name` or `=name`"),
            ));
        }
        if out.iter().any(|o| o.lang == *lang && o.callee == *callee) {
            return Err(err(
                c.callee.span().start,
                format!("`{callee}` is listed twice for {lang}"),
            ));
        }
        let does = c.does.get_ref();
        let eff = if let Some((_, variant)) = KINDS.iter().find(|(n, _)| n == does) {
            if let Some(from) = &c.from {
                return Err(err(
                    from.span().start,
                    format!("`from` is for an act on paths, not `{does}`"),
                ));
            }
            (*variant).to_string()
        } else if let Some(act) = Act::parse(does).filter(|a| PATH_ACTS.contains(a)) {
            let variant = format!("{act:?}");
            match &c.from {
                Some(from) => format!("All(Act::{variant}, {})", from.get_ref()),
                None => format!("Path(Act::{variant})"),
            }
        } else {
            let kinds: Vec<&str> = KINDS.iter().map(|(n, _)| *n).collect();
            let acts: Vec<&str> = PATH_ACTS.iter().map(|a| a.as_str()).collect();
            return Err(err(
                c.does.span().start,
                format!(
                    "unknown `does = \"{does}\"` (one of {}, or an act on paths: {})",
                    kinds.join(", "),
                    acts.join(", ")
                ),
            ));
        };
        if c.examples.is_empty() {
            return Err(err(
                entry.span().start,
                format!("`{callee}` shows no example (examples = [{{ line = …, effects = […] }}])"),
            ));
        }
        let line = text[..entry.span().start].matches('\n').count() + 1;
        out.push(Call {
            lang: lang.clone(),
            callee: callee.clone(),
            eff,
            examples: c.examples.clone(),
            source: format!("{file}:{line}"),
        });
    }
    Ok(out)
}

/// The languages an interpreter's code may be read as.
pub const PROGRAM_LANGUAGES: &[(&str, &str)] = &[
    ("python", "Python"),
    ("js", "Js"),
    ("perl", "Perl"),
    ("ruby", "Ruby"),
    ("php", "Php"),
    ("lua", "Lua"),
    ("r", "R"),
    ("awk", "Awk"),
    ("applescript", "AppleScript"),
];

/// The readers an interpreter entry may name: code that walks its words (`mod.rs`).
pub const READERS: &[(&str, &str)] = &[
    ("python", "Python"),
    ("node", "Node"),
    ("deno", "Deno"),
    ("bun", "Bun"),
    ("perl", "Perl"),
    ("ruby", "Ruby"),
    ("php", "Php"),
    ("code", "Code"),
    ("awk", "Awk"),
    ("osascript", "Osascript"),
];

/// One checked interpreter entry: every field as the file gives it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Interpreter {
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub versioned: Vec<String>,
    pub lang: String,
    pub reader: String,
    #[serde(default)]
    pub code: String,
    #[serde(default)]
    pub module: String,
    #[serde(default)]
    pub script: String,
    #[serde(default)]
    pub valued: String,
    #[serde(default)]
    pub attached: String,
    #[serde(default)]
    pub inplace: String,
    #[serde(default)]
    pub long_code: Vec<String>,
    #[serde(default)]
    pub long_script: Vec<String>,
    #[serde(default)]
    pub long_valued: Vec<String>,
    #[serde(default)]
    pub inert: Vec<String>,
    #[serde(default)]
    pub lint: Vec<String>,
    #[serde(default)]
    pub code_subcommands: Vec<String>,
    #[serde(default)]
    pub script_subcommands: Vec<String>,
    #[serde(default)]
    pub consoles: Vec<String>,
    #[serde(default)]
    pub programs: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub examples: Vec<Example>,
}

/// A module Python runs as a program (`python3 -m NAME …`): what its words do. With no
/// field but `names` and `examples`, nothing runs (`http.server`, `json.tool` reads).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Module {
    pub names: Vec<String>,
    /// Its words are this program's command line (`-m pip install x`: `pip install x`).
    #[serde(default)]
    pub line: String,
    /// Its words are read as this program of the command files (`-m django flush`).
    #[serde(default)]
    pub program: String,
    /// A first… any of these words fetches from the network (`pip install`).
    #[serde(default)]
    pub fetch_when: Vec<String>,
    /// This first word publishes (`twine upload`).
    #[serde(default)]
    pub publish_when: Vec<String>,
    /// An archiver (`-e ARCHIVE [DIR]`, `-c ARCHIVE SOURCES…`, `-l ARCHIVE`) read as the
    /// program words that extract (then the archive, `extract_dir` and the directory) and
    /// create (then the archive and its sources).
    #[serde(default)]
    pub extract: Vec<String>,
    #[serde(default)]
    pub extract_dir: String,
    #[serde(default)]
    pub create: Vec<String>,
    /// Its operands are written (`-m venv .venv`).
    #[serde(default)]
    pub writes_operands: bool,
    /// Its first operand is read (`-m json.tool data.json`).
    #[serde(default)]
    pub reads_first: bool,
    #[serde(default)]
    pub examples: Vec<Example>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrograms {
    version: Spanned<u32>,
    #[serde(default)]
    interpreter: Vec<Spanned<Interpreter>>,
    #[serde(default)]
    module: Vec<Spanned<Module>>,
}

/// Read and check the interpreter programs and Python's modules; a name is claimed once.
pub fn parse_programs(file: &str, text: &str) -> Result<(Vec<Interpreter>, Vec<Module>), String> {
    let raw: RawPrograms = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(file, text, offset, e.message().trim())
    })?;
    let err = |offset: usize, message: String| at(file, text, offset, &message);
    if *raw.version.get_ref() != VERSION {
        return Err(err(
            raw.version.span().start,
            format!(
                "unsupported version {} (this gate reads version {VERSION})",
                raw.version.get_ref()
            ),
        ));
    }
    let mut out: Vec<Interpreter> = Vec::new();
    for entry in &raw.interpreter {
        let i = entry.get_ref();
        let here = entry.span().start;
        let first = i
            .names
            .iter()
            .chain(&i.versioned)
            .next()
            .cloned()
            .unwrap_or_default();
        if first.is_empty() {
            return Err(err(
                here,
                "an interpreter has `names` or `versioned`".into(),
            ));
        }
        if !PROGRAM_LANGUAGES.iter().any(|(n, _)| *n == i.lang) {
            return Err(err(here, format!("{first}: unknown language `{}`", i.lang)));
        }
        if !READERS.iter().any(|(n, _)| *n == i.reader) {
            let names: Vec<&str> = READERS.iter().map(|(n, _)| *n).collect();
            return Err(err(
                here,
                format!(
                    "{first}: unknown reader `{}` ({})",
                    i.reader,
                    names.join(", ")
                ),
            ));
        }
        for letters in [
            &i.code,
            &i.module,
            &i.script,
            &i.valued,
            &i.attached,
            &i.inplace,
        ] {
            if !letters.chars().all(|c| c.is_ascii_alphabetic()) {
                return Err(err(
                    here,
                    format!("{first}: `{letters}`: option letters only"),
                ));
            }
        }
        let claimed = |n: &String| {
            out.iter()
                .any(|o| o.names.contains(n) || o.versioned.contains(n))
        };
        if let Some(n) = i.names.iter().chain(&i.versioned).find(|n| claimed(n)) {
            return Err(err(here, format!("`{n}` is an interpreter twice")));
        }
        if i.examples.is_empty() {
            return Err(err(
                here,
                format!("{first} shows no example (examples = [{{ line = …, effects = […] }}])"),
            ));
        }
        out.push(i.clone());
    }
    let mut modules: Vec<Module> = Vec::new();
    for entry in &raw.module {
        let m = entry.get_ref();
        let here = entry.span().start;
        let Some(first) = m.names.first() else {
            return Err(err(here, "a module has `names`".into()));
        };
        if let Some(n) = m
            .names
            .iter()
            .find(|n| modules.iter().any(|o| o.names.contains(n)))
        {
            return Err(err(here, format!("module `{n}` is listed twice")));
        }
        let archiver = !m.extract.is_empty() || !m.create.is_empty() || !m.extract_dir.is_empty();
        if archiver && (m.extract.is_empty() || m.create.is_empty() || m.extract_dir.is_empty()) {
            return Err(err(
                here,
                format!("{first}: an archiver has `extract`, `extract_dir` and `create`"),
            ));
        }
        if !m.line.is_empty() && !m.program.is_empty() {
            return Err(err(here, format!("{first}: `line` or `program`, not both")));
        }
        if m.examples.is_empty() {
            return Err(err(
                here,
                format!("{first} shows no example (examples = [{{ line = …, effects = […] }}])"),
            ));
        }
        modules.push(m.clone());
    }
    Ok((out, modules))
}
