//! The interpreter programs as `commands/interpreters/programs.toml` gives them (compiled by
//! `build.rs`): names, language, the reader that walks their words, and the option letters
//! and names that carry code, a module or a script; found by program name.

use super::scan::Lang;

/// The code that walks an interpreter's words (`mod.rs`), named by the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reader {
    Python,
    Node,
    Deno,
    Bun,
    Perl,
    Ruby,
    Php,
    /// Options, then inline code, a script, or standard input (`lua`, `Rscript`).
    Code,
    Awk,
    Osascript,
}

/// One interpreter program: see the header of `programs.toml` for each field.
#[derive(Debug)]
pub(super) struct Interp {
    pub names: &'static [&'static str],
    pub versioned: &'static [&'static str],
    pub lang: Lang,
    pub reader: Reader,
    pub code: &'static str,
    pub module: &'static str,
    pub script: &'static str,
    pub valued: &'static str,
    pub attached: &'static str,
    pub inplace: &'static str,
    pub long_code: &'static [&'static str],
    pub long_script: &'static [&'static str],
    pub long_valued: &'static [&'static str],
    pub inert: &'static [&'static str],
    pub lint: &'static [&'static str],
    pub code_subcommands: &'static [&'static str],
    pub script_subcommands: &'static [&'static str],
    pub consoles: &'static [&'static str],
    pub programs: &'static [(&'static str, &'static str)],
}

/// A module Python runs as a program: see `[[module]]` in `programs.toml`.
#[derive(Debug)]
pub(super) struct PyModule {
    pub names: &'static [&'static str],
    pub line: &'static str,
    pub program: &'static str,
    pub fetch_when: &'static [&'static str],
    pub publish_when: &'static [&'static str],
    pub extract: &'static [&'static str],
    pub extract_dir: &'static str,
    pub create: &'static [&'static str],
    pub writes_operands: bool,
    pub reads_first: bool,
}

include!(concat!(env!("OUT_DIR"), "/interpreter_programs.rs"));

/// The module Python runs by this name, if it is listed.
pub(super) fn module(name: &str) -> Option<&'static PyModule> {
    MODULES.iter().find(|m| m.names.contains(&name))
}

impl Interp {
    /// Whether option letter `c` takes a value (code, a module, a script or another).
    pub(super) fn takes_value(&self, c: char) -> bool {
        self.code.contains(c)
            || self.module.contains(c)
            || self.script.contains(c)
            || self.valued.contains(c)
            || self.attached.contains(c)
    }

    /// Whether `w` is a code option written alone (`-e`, `--eval`).
    pub(super) fn is_code_word(&self, w: &str) -> bool {
        match w.strip_prefix("--") {
            Some(long) => self.long_code.contains(&long),
            None => short(w).is_some_and(|c| self.code.contains(c)),
        }
    }
}

/// The letter of a one-letter option word (`-e`).
pub(super) fn short(w: &str) -> Option<char> {
    let mut chars = w.strip_prefix('-')?.chars();
    let c = chars.next()?;
    (chars.next().is_none() && c != '-').then_some(c)
}

/// The interpreter a program name is: an exact name, or a versioned one (`python3.12`).
pub(super) fn find(program: &str) -> Option<&'static Interp> {
    INTERPRETERS.iter().find(|i| {
        i.names.contains(&program) || i.versioned.iter().any(|v| is_versioned(program, v))
    })
}

/// `name`, `name3`, `name3.12`, `name-3.12`.
fn is_versioned(p: &str, name: &str) -> bool {
    p.strip_prefix(name).is_some_and(|rest| {
        rest.trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
    })
}
