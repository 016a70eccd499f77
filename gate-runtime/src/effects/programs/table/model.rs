//! The command model's tables as the interpreter reads them: `&'static` data, written by
//! `build.rs` from `commands/*.toml` (and made from a project's files by [`super::project`]).

use super::super::super::getopt::{Grammar, Style};
use super::super::Lang;
use super::analysers::{Analyser, Language};
use gate_spec::effect::{Act, Place};

/// One program: its names, option grammar, forms, and what it does when no form matches.
#[derive(Debug)]
pub(crate) struct Program {
    pub names: &'static [&'static str],
    pub grammar: Grammar,
    /// Short options whose value is optional and only attached (`mysql -pSECRET`).
    pub short_optional: &'static str,
    /// The queries a command no form matches runs.
    pub queries: Option<Queries>,
    /// The options after the first operand, when they are not `grammar`'s.
    pub sub: Option<Grammar>,
    pub style: Style,
    /// The options that give the signal the program sends, when it takes one as an option
    /// (`-9`, `-KILL`: words its grammar does not read).
    pub signals: Option<&'static str>,
    /// A word of one dash and then only these characters is an operand (`chmod -x f`).
    pub dash_operands: &'static str,
    /// `PROG help …` prints help (`false`: `rm help` removes a file named `help`).
    pub subcommands: bool,
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
    /// A Windows program: found in any case and with `.exe`; its words read lower-cased,
    /// with `\` as `/`, as Windows paths where they name one.
    pub windows: bool,
    /// A PowerShell cmdlet: found only in PowerShell text.
    pub cmdlet: bool,
    /// Each operand is a task the program runs in turn, read through the `verb` forms.
    pub tasks: bool,
    /// The program shows names, sizes and types, never content (`ls`): nothing revealed.
    pub names_only: bool,
    /// Which options carry what the program's analyser reads: `(role, "a|b")`.
    pub roles: Roles,
    /// Where the program (and its `otherwise`) is written.
    pub source: &'static str,
    /// How a copy's operands are read (`$src`, `$dest`).
    pub destination: Option<Destination>,
}

/// A copy's operands (see the schema's `Destination`).
#[derive(Debug)]
pub(crate) struct Destination {
    /// Options (`t|target-directory`) whose value is the directory every operand lands in.
    pub into: &'static str,
    /// Options (`T|no-target-directory`): the last operand is the destination itself.
    pub exact: &'static str,
    /// Any of these holds: what a destination held is kept; an overwrite there is a write.
    pub keep: &'static [Cond],
    /// The directory a lone operand lands in (`ln TARGET`: `.`).
    pub default: Option<&'static str>,
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
    /// The queries the command runs.
    pub queries: Option<Queries>,
    /// Which options carry what the form's analyser reads.
    pub roles: Roles,
    /// The subcommand's own options, read from the words after the path.
    pub options: Option<Grammar>,
    /// The command prints every item of its kind (`brew list`).
    pub lists: bool,
    /// The command prints every item of its kind as a table, a row each (`docker ps -a`).
    pub rows: bool,
}

/// Where a command takes the queries it runs and what reads them (see the schema's
/// `Queries`); option names are `a|b`, empty for none.
#[derive(Debug)]
pub(crate) struct Queries {
    pub language: Language,
    pub text: &'static str,
    pub files: &'static str,
    pub first: &'static str,
    pub split: &'static str,
    pub operands: &'static str,
    pub database: u8,
    pub readonly: &'static str,
    pub in_memory: &'static str,
    pub output: &'static str,
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
    ValueHas(&'static str, &'static str, bool),
    ValueLacks(&'static str, &'static str, bool),
    OperandHas(u8, &'static str),
    OperandLacks(u8, &'static str),
    OperandIs(u8, &'static str),
    OperandIsNot(u8, &'static str),
    AnyOperandHas(&'static str),
    NoOperandHas(&'static str),
    Every,
    ValueIn(&'static str, &'static str),
    AnyOperandIs(&'static str),
    NoOperandIs(&'static str),
    Signal(&'static str, &'static str),
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
    Sources,
    Landings,
    SourcesFromLandings,
    Keyed(&'static str),
    OperandWith(u8, &'static str),
}

/// An example a form shows: a line and its exact effects.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct Example {
    pub source: &'static str,
    pub line: &'static str,
    pub effects: &'static [&'static str],
}

/// A family of consoles (see the schema's `Console`): read by `programs/consoles.rs`.
#[derive(Debug)]
pub(crate) struct Console {
    pub programs: &'static [&'static str],
    pub options: &'static [&'static str],
    pub attached: &'static [&'static str],
    pub stdin: bool,
    pub tcl: bool,
    pub escapes: &'static [(&'static str, Then)],
}

/// What the text after a console's escape is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Then {
    /// A shell command line.
    Shell,
    /// Code in a language gate reads.
    Code(Lang),
    /// Code in a language gate does not read: `opaque`, with the places it names.
    Opaque,
}
