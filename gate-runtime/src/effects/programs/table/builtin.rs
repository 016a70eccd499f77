//! The built-in programs: `commands/*.toml` as compiled by `build.rs` (static tables, no
//! parsing at run time), and the lookup of a program by name.

use super::super::super::getopt::{Grammar, Style};
use super::super::Lang;
use super::analysers::{self, Analyser, Language};
#[cfg(test)]
use super::model::Example;
use super::model::{
    At, CodeSettings, Cond, Console, Destination, Eff, Form, Program, Queries, Then,
};
use gate_spec::effect::{Act, Place};

include!(concat!(env!("OUT_DIR"), "/commands.rs"));

/// The words of the built-in word set `name` (`[word_sets]` in `commands/*.toml`); none
/// when no file declares it (a test checks that every set an analyser reads is declared).
pub(crate) fn words(name: &str) -> &'static [&'static str] {
    WORD_SETS
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .map_or(&[], |i| WORD_SETS[i].1)
}

/// The built-in program named `name` (a binary search over the sorted names, then the few
/// name prefixes; a Windows program's name in another case or with `.exe`: `VSSADMIN.EXE`).
/// PowerShell's cmdlets are found only in PowerShell text ([`find_windows`]).
pub(crate) fn find(name: &str) -> Option<&'static Program> {
    let index = match NAMES.binary_search_by(|(n, _)| (*n).cmp(name)) {
        Ok(i) => NAMES[i].1,
        Err(_) => match PREFIXES.iter().find(|(p, _)| name.starts_with(p)) {
            Some((_, i)) => *i,
            None => return windows_spelled(name),
        },
    };
    Some(&PROGRAMS[usize::from(index)]).filter(|p| !p.cmdlet)
}

/// A Windows program named in another case or with `.exe`; none for any other name, and
/// no allocation for a name in lower case without `.exe` (most commands).
fn windows_spelled(name: &str) -> Option<&'static Program> {
    let base = strip_exe(name);
    if base.len() == name.len() && !name.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let lower = base.to_ascii_lowercase();
    let i = NAMES
        .binary_search_by(|(n, _)| (*n).cmp(lower.as_str()))
        .ok()?;
    Some(&PROGRAMS[usize::from(NAMES[i].1)]).filter(|p| p.windows && !p.cmdlet)
}

/// `name` without a `.exe` in any case.
fn strip_exe(name: &str) -> &str {
    match name.len().checked_sub(4) {
        Some(at) if name.is_char_boundary(at) && name[at..].eq_ignore_ascii_case(".exe") => {
            &name[..at]
        }
        _ => name,
    }
}

/// The Windows program or PowerShell cmdlet named `name` in PowerShell or cmd.exe text (any
/// case, with or without `.exe`).
pub(crate) fn find_windows(name: &str) -> Option<&'static Program> {
    let lower = strip_exe(name).to_ascii_lowercase();
    let i = NAMES
        .binary_search_by(|(n, _)| (*n).cmp(lower.as_str()))
        .ok()?;
    Some(&PROGRAMS[usize::from(NAMES[i].1)]).filter(|p| p.windows)
}
