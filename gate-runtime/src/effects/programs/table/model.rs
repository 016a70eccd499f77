//! The command model's tables as the interpreter reads them: `&'static` data, written by
//! `build.rs` from `commands/*.toml` (and made from a project's files by [`super::project`]).

use super::super::super::getopt::{Grammar, Style};
use super::analysers::Analyser;
use gate_spec::effect::{Act, Place};

/// One program: its names, option grammar, forms, and what it does when no form matches.
#[derive(Debug)]
pub(crate) struct Program {
    pub names: &'static [&'static str],
    pub grammar: Grammar,
    /// The options after the first operand, when they are not `grammar`'s.
    pub sub: Option<Grammar>,
    pub style: Style,
    /// The option whose values are the directory relative targets resolve from.
    pub dir: Option<&'static str>,
    /// Code run on every command before its form (global options that carry code).
    pub before: Option<Analyser>,
    /// Options (`a|b`) whose value is a shell line the program runs.
    pub code_options: Option<&'static str>,
    /// Options whose `KEY=VALUE` settings run code when the key starts so.
    pub code_settings: Option<CodeSettings>,
    /// Any of these holds: the command changes nothing.
    pub inert: &'static [Cond],
    /// Leading operand words that are no part of the subcommand path.
    pub skip: &'static [&'static str],
    pub forms: &'static [Form],
    pub otherwise: &'static [Eff],
    /// Code that reads each command no form matches, in place of `otherwise`.
    pub analyser: Option<Analyser>,
    /// A command no form matches is read as one of a program gate has no model of.
    pub partial: bool,
    /// Which options carry what the program's analyser reads: `(role, "a|b")`.
    pub roles: Roles,
    /// Where the program (and its `otherwise`) is written.
    pub source: &'static str,
}

/// Settings options (`config|config-toml`) and the key prefixes whose value is code.
#[derive(Debug)]
pub(crate) struct CodeSettings {
    pub options: &'static str,
    pub keys: &'static [&'static str],
}

/// A form: a place in the subcommand tree, the conditions it needs, its effects.
#[derive(Debug)]
pub(crate) struct Form {
    /// `commands/cloud.toml: kubectl delete|drain`.
    pub source: &'static str,
    pub path: &'static [&'static [&'static str]],
    pub end: bool,
    pub verb: &'static [&'static str],
    pub verb_from: u8,
    pub when: &'static [Cond],
    pub effects: &'static [Eff],
    pub analyser: Option<Analyser>,
    /// Which options carry what the form's analyser reads.
    pub roles: Roles,
    /// The subcommand's own options, read from the words after the path.
    pub options: Option<Grammar>,
    /// The command prints every item of its kind (`brew list`).
    pub lists: bool,
}

/// The roles the data gives an analyser: `(role, "a|b")` (see `getopt::Args::role`).
pub(crate) type Roles = &'static [(&'static str, &'static str)];

/// A condition on the command line (see the schema's `Cond`).
#[derive(Debug)]
pub(crate) enum Cond {
    Has(&'static str),
    Lacks(&'static str),
    Is(&'static str, &'static str),
    IsNot(&'static str, &'static str),
    ValueHas(&'static str, &'static str),
    OperandHas(u8, &'static str),
    OperandLacks(u8, &'static str),
    AnyOperandHas(&'static str),
    NoOperandHas(&'static str),
    Every,
    Only(&'static str),
    NotOnly(&'static str),
}

/// An act at a target.
#[derive(Debug)]
pub(crate) struct Eff {
    pub act: Act,
    pub at: At,
}

/// Where an effect lands (see the schema's `At`).
#[derive(Debug)]
pub(crate) enum At {
    Place(Place),
    Path(&'static str),
    Operand(u8),
    Operands,
    Last,
    AllButLast,
    Value(&'static str),
}

/// An example a form shows: a line and its exact effects.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct Example {
    pub source: &'static str,
    pub line: &'static str,
    pub effects: &'static [&'static str],
}
