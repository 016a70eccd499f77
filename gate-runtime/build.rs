//! Compiles the command model (`commands/*.toml`) into static Rust tables in `OUT_DIR`, so
//! the hook parses nothing at run time; a bad entry fails the build at `file:line:col`.

#[path = "src/effects/programs/table/schema.rs"]
#[allow(dead_code)]
mod schema;

#[path = "src/effects/programs/interpreters/schema.rs"]
#[allow(dead_code)]
mod call_schema;

use schema::{At, Cond, Eff, Program, StyleName};
use std::fmt::Write as _;

fn main() {
    let dir = std::path::Path::new("commands");
    println!("cargo:rerun-if-changed=commands");
    println!("cargo:rerun-if-changed=src/effects/programs/table/schema.rs");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("gate-runtime/commands")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut programs: Vec<Program> = Vec::new();
    let mut words: Vec<(String, Vec<String>, String)> = Vec::new();
    let mut consoles: Vec<schema::Console> = Vec::new();
    let mut failed = false;
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = format!("commands/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(path).expect("readable command file");
        if let Ok(sets) = schema::word_sets(&name, &text) {
            words.extend(sets.into_iter().map(|(n, w)| (n, w, name.clone())));
        }
        match schema::consoles(&name, &text) {
            Ok(c) => consoles.extend(c),
            Err(e) => {
                println!("cargo::error=gate-runtime/{e}");
                failed = true;
            }
        }
        match schema::parse(&name, &text, true) {
            Ok(p) => programs.extend(p),
            Err(e) => {
                // Cargo shows a build script's `error:` lines at the top of its failure.
                println!("cargo::error=gate-runtime/{e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
    let mut names: Vec<(&str, usize)> = programs
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.names.iter().map(move |n| (n.as_str(), i)))
        .collect();
    names.sort();
    for pair in names.windows(2) {
        if pair[0].0 == pair[1].0 {
            println!(
                "cargo::error=gate-runtime: program `{}` is modelled twice ({} and {})",
                pair[0].0, programs[pair[0].1].source, programs[pair[1].1].source
            );
            std::process::exit(1);
        }
    }
    words.sort();
    for pair in words.windows(2) {
        if pair[0].0 == pair[1].0 {
            println!(
                "cargo::error=gate-runtime: word set `{}` is declared twice ({} and {})",
                pair[0].0, pair[0].2, pair[1].2
            );
            std::process::exit(1);
        }
    }
    let mut out = String::new();
    out.push_str("/// Every file's word sets, sorted by name (`[word_sets]`).\npub(crate) static WORD_SETS: &[(&str, &[&str])] = &[\n");
    for (n, w, _) in &words {
        let _ = writeln!(out, "    ({n:?}, {}),", strs(w));
    }
    out.push_str("];\n\n");
    out.push_str(
        "/// Every built-in program, in file order.\npub(crate) static PROGRAMS: &[Program] = &[\n",
    );
    for p in &programs {
        program(&mut out, p);
    }
    out.push_str("];\n\n/// Every name, sorted, with its program's index in [`PROGRAMS`].\npub(crate) static NAMES: &[(&str, u16)] = &[\n");
    for (n, i) in &names {
        let _ = writeln!(out, "    ({n:?}, {i}),");
    }
    out.push_str("];\n\n/// Name prefixes (`terraform-`), with their program's index.\npub(crate) static PREFIXES: &[(&str, u16)] = &[\n");
    for (i, p) in programs.iter().enumerate() {
        for prefix in &p.prefixes {
            let _ = writeln!(out, "    ({prefix:?}, {i}),");
        }
    }
    out.push_str("];\n\n/// The consoles (`[[console]]`), in file order.\npub(crate) static CONSOLES: &[Console] = &[\n");
    for c in &consoles {
        console(&mut out, c);
    }
    out.push_str("];\n\n/// Every example the files show.\n#[cfg(test)]\npub(crate) static EXAMPLES: &[Example] = &[\n");
    for p in &programs {
        for e in &p.examples {
            example(&mut out, &p.source, e);
        }
        for f in &p.forms {
            for e in &f.examples {
                example(&mut out, f.examples_from.as_ref().unwrap_or(&f.source), e);
            }
        }
    }
    for c in &consoles {
        for e in &c.examples {
            example(&mut out, &c.source, e);
        }
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("commands.rs");
    std::fs::write(dest, out).expect("OUT_DIR writable");
    interpreter_calls();
}

/// The interpreters' call tables (`commands/interpreters/calls.toml`), one static table a
/// language in file order, and their examples.
fn interpreter_calls() {
    let path = "commands/interpreters/calls.toml";
    println!("cargo:rerun-if-changed={path}");
    println!("cargo:rerun-if-changed=src/effects/programs/interpreters/schema.rs");
    let text = std::fs::read_to_string(path).expect("readable call tables");
    let calls = match call_schema::parse(path, &text) {
        Ok(c) => c,
        Err(e) => {
            println!("cargo::error=gate-runtime/{e}");
            std::process::exit(1);
        }
    };
    let mut out = String::new();
    for lang in call_schema::LANGUAGES {
        let _ = writeln!(
            out,
            "/// The calls of `{lang}` code, in file order.\npub(super) static {}: Table = &[",
            lang.to_uppercase()
        );
        for c in calls.iter().filter(|c| c.lang == *lang) {
            let _ = writeln!(out, "    ({:?}, {}),", c.callee, c.eff);
        }
        out.push_str("];\n\n");
    }
    let methods = match call_schema::parse_path_methods(path, &text) {
        Ok(m) => m,
        Err(e) => {
            println!("cargo::error=gate-runtime/{e}");
            std::process::exit(1);
        }
    };
    out.push_str("/// The methods of Python's path objects: name, act, distinctive.\npub(super) static PATH_METHODS: &[(&str, Act, bool)] = &[\n");
    for m in &methods {
        let act = gate_spec::effect::Act::parse(&m.act).unwrap();
        let _ = writeln!(out, "    ({:?}, Act::{act:?}, {}),", m.name, m.distinctive);
    }
    out.push_str("];\n\n");
    out.push_str("/// Every entry's examples: where it is, the line, its effects.\n#[cfg(test)]\npub(super) static EXAMPLES: &[(&str, &str, &[&str])] = &[\n");
    for m in &methods {
        for e in &m.examples {
            let _ = writeln!(
                out,
                "    ({:?}, {:?}, &{:?}),",
                format!("{path}: path method {}", m.name),
                e.line,
                e.effects
            );
        }
    }
    for c in &calls {
        for e in &c.examples {
            let _ = writeln!(
                out,
                "    ({:?}, {:?}, &{:?}),",
                format!("{} {} {}", c.source, c.lang, c.callee),
                e.line,
                e.effects
            );
        }
    }
    out.push_str("];\n");
    let dest =
        std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("interpreter_calls.rs");
    std::fs::write(dest, out).expect("OUT_DIR writable");
    interpreter_programs();
}

/// The interpreter programs (`commands/interpreters/programs.toml`): one static table.
fn interpreter_programs() {
    let path = "commands/interpreters/programs.toml";
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).expect("readable interpreter programs");
    let (programs, modules) = match call_schema::parse_programs(path, &text) {
        Ok(p) => p,
        Err(e) => {
            println!("cargo::error=gate-runtime/{e}");
            std::process::exit(1);
        }
    };
    fn variant(table: &'static [(&'static str, &'static str)], name: &str) -> &'static str {
        table
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_default()
    }
    let mut out = String::from(
        "/// Every interpreter program, in file order.\npub(super) static INTERPRETERS: &[Interp] = &[\n",
    );
    for i in &programs {
        let programs: Vec<(&String, &String)> = i.programs.iter().collect();
        let _ = writeln!(
            out,
            "    Interp {{ names: &{:?}, versioned: &{:?}, lang: Lang::{}, reader: Reader::{}, \
             code: {:?}, module: {:?}, script: {:?}, valued: {:?}, attached: {:?}, inplace: {:?}, \
             long_code: &{:?}, long_script: &{:?}, long_valued: &{:?}, inert: &{:?}, lint: &{:?}, \
             code_subcommands: &{:?}, script_subcommands: &{:?}, consoles: &{:?}, programs: &{:?} }},",
            i.names,
            i.versioned,
            variant(call_schema::PROGRAM_LANGUAGES, &i.lang),
            variant(call_schema::READERS, &i.reader),
            i.code,
            i.module,
            i.script,
            i.valued,
            i.attached,
            i.inplace,
            i.long_code,
            i.long_script,
            i.long_valued,
            i.inert,
            i.lint,
            i.code_subcommands,
            i.script_subcommands,
            i.consoles,
            programs,
        );
    }
    out.push_str("];\n\n/// The modules Python runs as programs, in file order.\npub(super) static MODULES: &[PyModule] = &[\n");
    for m in &modules {
        let _ = writeln!(
            out,
            "    PyModule {{ names: &{:?}, line: {:?}, program: {:?}, fetch_when: &{:?}, \
             publish_when: &{:?}, extract: &{:?}, extract_dir: {:?}, create: &{:?}, \
             writes_operands: {}, reads_first: {} }},",
            m.names,
            m.line,
            m.program,
            m.fetch_when,
            m.publish_when,
            m.extract,
            m.extract_dir,
            m.create,
            m.writes_operands,
            m.reads_first,
        );
    }
    out.push_str("];\n\n/// Every entry's examples: its first name, the line, its effects.\n#[cfg(test)]\npub(super) static EXAMPLES: &[(&str, &str, &[&str])] = &[\n");
    let modules = modules
        .iter()
        .map(|m| (format!("module {}", m.names[0]), &m.examples));
    let interpreters = programs.iter().map(|i| {
        let first = i.names.iter().chain(&i.versioned).next().unwrap();
        (first.clone(), &i.examples)
    });
    for (first, examples) in interpreters.chain(modules) {
        for e in examples {
            let _ = writeln!(
                out,
                "    ({:?}, {:?}, &{:?}),",
                format!("{path}: {first}"),
                e.line,
                e.effects
            );
        }
    }
    out.push_str("];\n");
    let dest =
        std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("interpreter_programs.rs");
    std::fs::write(dest, out).expect("OUT_DIR writable");
}

fn example(out: &mut String, source: &str, e: &schema::Example) {
    let _ = writeln!(
        out,
        "    Example {{ source: {source:?}, line: {:?}, effects: &{:?} }},",
        e.line, e.effects
    );
}

fn console(out: &mut String, c: &schema::Console) {
    let escapes: Vec<String> = c
        .escapes
        .iter()
        .map(|(prefix, runs)| {
            let then = match runs.as_str() {
                "shell" => "Then::Shell".to_string(),
                "opaque" => "Then::Opaque".to_string(),
                "python" => "Then::Code(Lang::Python)".to_string(),
                "js" => "Then::Code(Lang::Js)".to_string(),
                "perl" => "Then::Code(Lang::Perl)".to_string(),
                "ruby" => "Then::Code(Lang::Ruby)".to_string(),
                "php" => "Then::Code(Lang::Php)".to_string(),
                "lua" => "Then::Code(Lang::Lua)".to_string(),
                other => unreachable!("escape {other} checked by the schema"),
            };
            format!("({prefix:?}, {then})")
        })
        .collect();
    let _ = writeln!(
        out,
        "    Console {{ programs: {}, options: {}, attached: {}, stdin: {}, tcl: {}, escapes: &[{}] }},",
        strs(&c.programs),
        strs(&c.options),
        strs(&c.attached),
        c.stdin,
        c.tcl,
        escapes.join(", ")
    );
}

fn strs(v: &[String]) -> String {
    format!("&{v:?}")
}

fn program(out: &mut String, p: &Program) {
    let style = match p.style {
        StyleName::Gnu => "Gnu",
        StyleName::Exact => "Exact",
        StyleName::Go => "Go",
    };
    let _ = writeln!(
        out,
        "    Program {{\n        names: {},\n        grammar: Grammar {{ short: {:?}, short_value: {:?}, long: {}, long_value: {}, posix: {} }},\n        short_optional: {:?},\n        queries: {},\n        sub: {},\n        style: Style::{style},\n        dash_operands: {:?},\n        subcommands: {},\n        signals: {:?},\n        dir: {:?},\n        before: {},\n        code_options: {:?},\n        code_settings: {},\n        inert: &[{}],\n        skip: {},\n        otherwise: &[{}],\n        analyser: {},\n        partial: {},\n        windows: {},\n        cmdlet: {},\n        tasks: {},\n        names_only: {},\n        roles: {},\n        source: {:?},\n        destination: {},\n        forms: &[",
        strs(&p.names),
        p.short,
        p.short_value,
        strs(&p.long),
        strs(&p.long_value),
        p.posix,
        p.short_optional,
        queries(&p.queries),
        opt_grammar(&p.sub),
        p.dash_operands,
        p.subcommands,
        p.signals,
        p.dir,
        match &p.before {
            Some(a) => format!("Some(analysers::{a} as Analyser)"),
            None => "None".into(),
        },
        p.code_options,
        match &p.code_settings {
            Some(c) => format!(
                "Some(CodeSettings {{ options: {:?}, keys: {} }})",
                c.options,
                strs(&c.keys)
            ),
            None => "None".into(),
        },
        conds(&p.inert),
        strs(&p.skip),
        effs(&p.otherwise),
        match &p.analyser {
            Some(a) => format!("Some(analysers::{a} as Analyser)"),
            None => "None".into(),
        },
        p.partial,
        p.windows,
        p.cmdlet,
        p.tasks,
        p.names_only,
        roles(&p.roles),
        p.source,
        destination(p.destination.as_ref()),
    );
    for f in &p.forms {
        let path: Vec<String> = f.path.iter().map(|alts| strs(alts)).collect();
        let analyser = match &f.analyser {
            Some(a) => format!("Some(analysers::{a} as Analyser)"),
            None => "None".into(),
        };
        let _ = writeln!(
            out,
            "            Form {{ source: {:?}, path: &[{}], end: {}, verb: {}, verb_from: {}, when: &[{}], effects: &[{}], analyser: {analyser}, queries: {}, roles: {}, options: {}, lists: {}, rows: {} }},",
            f.source,
            path.join(", "),
            f.end,
            strs(&f.verb),
            f.verb_from,
            conds(&f.when),
            effs(&f.effects),
            queries(&f.queries),
            roles(&f.roles),
            opt_grammar(&f.options),
            f.lists,
            f.rows,
        );
    }
    out.push_str("        ],\n    },\n");
}

fn roles(r: &[(String, String)]) -> String {
    format!("&{r:?}")
}

fn opt_grammar(o: &Option<schema::Options>) -> String {
    match o {
        Some(o) => format!(
            "Some(Grammar {{ short: {:?}, short_value: {:?}, long: {}, long_value: {}, posix: false }})",
            o.short, o.short_value, strs(&o.long), strs(&o.long_value)
        ),
        None => "None".into(),
    }
}

fn queries(q: &Option<schema::Queries>) -> String {
    match q {
        Some(q) => format!(
            "Some(Queries {{ language: analysers::{} as Language, text: {:?}, files: {:?}, first: {:?}, split: {:?}, operands: {:?}, database: {}, readonly: {:?}, in_memory: {:?}, output: {:?} }})",
            q.language, q.text, q.files, q.first, q.split, q.operands, q.database, q.readonly, q.in_memory, q.output
        ),
        None => "None".into(),
    }
}

fn destination(d: Option<&schema::Destination>) -> String {
    match d {
        Some(d) => format!(
            "Some(Destination {{ into: {:?}, exact: {:?}, keep: &[{}], default: {:?} }})",
            d.into,
            d.exact,
            conds(&d.keep),
            d.default
        ),
        None => "None".into(),
    }
}

fn conds(v: &[Cond]) -> String {
    v.iter()
        .map(|c| match c {
            Cond::Has(n) => format!("Cond::Has({n:?})"),
            Cond::Lacks(n) => format!("Cond::Lacks({n:?})"),
            Cond::Is(n, v) => format!("Cond::Is({n:?}, {v:?})"),
            Cond::IsNot(n, v) => format!("Cond::IsNot({n:?}, {v:?})"),
            Cond::ValueHas(n, v, c) => format!("Cond::ValueHas({n:?}, {v:?}, {c})"),
            Cond::ValueLacks(n, v, c) => format!("Cond::ValueLacks({n:?}, {v:?}, {c})"),
            Cond::OperandHas(i, t) => format!("Cond::OperandHas({i}, {t:?})"),
            Cond::OperandLacks(i, t) => format!("Cond::OperandLacks({i}, {t:?})"),
            Cond::OperandIs(i, t) => format!("Cond::OperandIs({i}, {t:?})"),
            Cond::OperandIsNot(i, t) => format!("Cond::OperandIsNot({i}, {t:?})"),
            Cond::AnyOperandHas(t) => format!("Cond::AnyOperandHas({t:?})"),
            Cond::NoOperandHas(t) => format!("Cond::NoOperandHas({t:?})"),
            Cond::Every => "Cond::Every".into(),
            Cond::ValueIn(n, w) => format!("Cond::ValueIn({n:?}, {w:?})"),
            Cond::AnyOperandIs(w) => format!("Cond::AnyOperandIs({w:?})"),
            Cond::NoOperandIs(w) => format!("Cond::NoOperandIs({w:?})"),
            Cond::Signal(o, w) => format!("Cond::Signal({o:?}, {w:?})"),
            Cond::Only(n) => format!("Cond::Only({n:?})"),
            Cond::NotOnly(n) => format!("Cond::NotOnly({n:?})"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn effs(v: &[Eff]) -> String {
    v.iter()
        .map(|e| {
            let at = match &e.at {
                At::Place(p) => format!("At::Place(Place::{p:?})"),
                At::Path(s) => format!("At::Path({s:?})"),
                At::Operand(i) => format!("At::Operand({i})"),
                At::Operands => "At::Operands".into(),
                At::Last => "At::Last".into(),
                At::AllButLast => "At::AllButLast".into(),
                At::Value(n) => format!("At::Value({n:?})"),
                At::Sources => "At::Sources".into(),
                At::Landings => "At::Landings".into(),
                At::SourcesFromLandings => "At::SourcesFromLandings".into(),
                At::Keyed(k) => format!("At::Keyed({k:?})"),
                At::OperandWith(i, t) => format!("At::OperandWith({i}, {t:?})"),
            };
            format!("Eff {{ act: Act::{:?}, at: {at} }}", e.act)
        })
        .collect::<Vec<_>>()
        .join(", ")
}
