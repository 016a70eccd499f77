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
/// name prefixes).
pub(crate) fn find(name: &str) -> Option<&'static Program> {
    let index = match NAMES.binary_search_by(|(n, _)| (*n).cmp(name)) {
        Ok(i) => NAMES[i].1,
        Err(_) => PREFIXES.iter().find(|(p, _)| name.starts_with(p))?.1,
    };
    Some(&PROGRAMS[usize::from(index)])
}
