//! Shell command understanding for the observer: a bounded, linear-time tokenizer that sees
//! through quoting, wrappers and nesting ([`parse`]), the action class of a command line
//! ([`classify`]), the paths it touches ([`paths`]) and command-pattern matching ([`matches`]).
//!
//! The lexer is hand-written: splitter crates (shell-words, shlex) handle quoting but not
//! operators, redirections or substitutions, and full bash parsers are neither bounded nor
//! built to survive hostile input. Every byte is scanned a bounded number of times: nested
//! scripts (`bash -c`, `eval`, `env -S`) are re-scanned once per nesting level, and nesting is
//! capped at [`MAX_DEPTH`], so the work ([`Parsed::steps`]) grows linearly with the input.
//!
//! What is seen through: quotes (`'…'`, `"…"`, `$'…'`, backslashes), `;` `&&` `||` `&` `|` `|&`
//! and newlines, subshells `( … )`, groups `{ …; }`, the reserved words of compound commands,
//! `$( … )`, backticks, `<( … )`/`>( … )`, `${…}` and `$((…))` (commands inside count too),
//! array literals `a=(…)` (values, not commands), extended globs `?(…)` `@(…)` `!(…)` …
//! (part of their word), function definitions (the body's commands count), `((…))` and
//! `$((…))` arithmetic (read as such only when the `((` closes with `))`, as bash decides;
//! `<<` in it is a shift), `case` (patterns are values, the clauses' commands count; `;;`
//! `;&` `;;&`), `[[ … ]]` (`<` `>` compare), `for`/`select` headers (values),
//! `coproc [NAME] { …; }`, redirections (write targets are recorded),
//! here-documents (their body is the command's [`SimpleCommand::stdin`]; substitutions in
//! an unquoted one run and are parsed), here-strings (also `stdin`), comments, assignments
//! ([`Parsed::assigns`], [`SimpleCommand::env`]), and the wrappers, each with its option
//! grammar (`parse/wrappers.rs`): `VAR=…`, `sudo`, `doas`, `env` (also `env -S`), `command`,
//! `builtin`, `exec`, `nohup`, `setsid`, `coproc`, `time`, `nice`, `ionice`, `chrt`,
//! `taskset`, `stdbuf`, `timeout`, `xargs`, `busybox`, `watch`, `su -c`, `runuser`, `sg`,
//! `pkexec`, `chroot`, `flock` (also `-c`), `strace`, `ltrace`, `cgexec`, `firejail`, `bwrap`,
//! `systemd-run`, `unshare`, `nsenter`, `caffeinate`, `xvfb-run`, `dbus-run-session`,
//! `script -c`, `tmux` (`new`, `send-keys`, `run-shell`, …), `screen` (also `-X stuff`),
//! `parallel` (`:::` arguments bound), `npx`/`npm exec` (also `-c`), `pnpm dlx|exec`, `pnpx`,
//! `yarn dlx|exec`, `bunx`/`bun x`, `uvx`/`uv run`/`uv tool run`, `poetry run`, `pipx run`,
//! `pdm run`, `hatch run`, `conda|mamba run`, `bundle exec`, `op run`, `dotenv`,
//! `direnv exec`, `sh|bash|zsh|dash|ksh -c '…'`, `eval`, `find … -exec cmd … ;`, and scripts
//! fed on standard input to a shell, `at`/`batch` or `parallel` (`sh <<< '…'`,
//! `at now <<EOF … EOF`, `echo '…' | sh`).
//!
//! Known limits (documented rather than guessed): variable values are recorded, not
//! substituted (`$X` stays the literal text `$X`, so `a=rm; $a -rf /` has the program `$a`
//! and is classed `exec`; a reader may resolve it from [`Parsed::assigns`]), aliases and
//! functions are not resolved, remote commands (`ssh host 'rm …'`) are not parsed, `git`
//! aliases are left to the version-control model. When a cap is hit, [`Parsed::truncated`] is
//! set and [`classify`] never returns less than `exec` for such a line.

mod classify;
mod matching;
mod parse;
mod prefilter;

pub use classify::{class_of, classify, paths, paths_into};
pub use matching::{matches, matches_in, stage_matches};
pub use parse::{parse, parse_argv, parse_in, ParseRoom};
pub use prefilter::{admits, Facts, LineFacts, Need};

use std::borrow::Cow;

/// An argv array as one shell line that parses back to the same words: each word that is
/// not plainly safe is single-quoted (`'` written as `'\''`). Tools that take a command as
/// an array (`["bash", "-lc", "rm -rf ~"]`) are read as this line.
pub fn quote_argv(words: &[&str]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let safe = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
        if safe {
            out.push_str(w);
        } else {
            out.push('\'');
            out.push_str(&w.replace('\'', "'\\''"));
            out.push('\'');
        }
    }
    out
}

/// Deepest nesting of subshells, substitutions and `-c` scripts that is followed.
pub const MAX_DEPTH: usize = 24;
/// Most simple commands recorded for one command line.
pub const MAX_COMMANDS: usize = 4096;
/// Longest word kept (in bytes); the rest of a longer word is scanned but dropped.
pub const MAX_WORD: usize = 64 * 1024;
/// Longest standard input text kept ([`SimpleCommand::stdin`], in bytes); a longer
/// here-document is cut there (at a character boundary) and the parse marked truncated.
pub const MAX_STDIN: usize = 64 * 1024;

/// One write redirection, e.g. `2>> log.txt` is `{ op: ">>", fd: Some(2), target: "log.txt" }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, or `<` (an input file: read,
    /// not written).
    pub op: String,
    /// The explicit file descriptor before the operator, if any.
    pub fd: Option<u32>,
    /// The target, unquoted.
    pub target: String,
}

/// One simple command after wrappers were peeled. Its words borrow from the parsed line
/// where the line spells them plainly (see [`parse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand<'a> {
    /// Basename of the program (`rm` for `/bin/rm`); empty for a line that is only
    /// assignments or only a redirection (`> file`).
    pub program: Cow<'a, str>,
    /// The program word as written, unquoted (`/bin/rm`).
    pub program_path: Cow<'a, str>,
    /// The remaining words, unquoted; substitutions appear as `$(…)`, variables as written.
    pub args: Vec<Cow<'a, str>>,
    /// What was peeled to reach the program, outermost first: `sudo`, `env`, `X=`, `bash -c`,
    /// `eval`, `xargs`, `find -exec`, `$()` (inside a command substitution) …
    pub wrappers: Vec<String>,
    /// File redirections of this command: its writes, and `<` (an input file).
    pub writes: Vec<Redirect>,
    /// What the command reads on standard input when the line spells it: the word of its
    /// last here-string (`<<< 'DROP TABLE t'`, unquoted) or the body of its here-document
    /// (as written, with its final newline; an unquoted body's `$X` and `$(…)` are kept as
    /// text; `<<-` strips leading tabs). For a group or a pipeline element with several
    /// commands, the last one. At most [`MAX_STDIN`] bytes.
    pub stdin: Option<Cow<'a, str>>,
    /// The variables set for this command only (`X=1 cmd`, `env X=1 cmd`, `sudo X=1 cmd`):
    /// name and value as written, unquoted, in order. (The `X=` wrapper entries stay.)
    pub env: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// Runs in the background (`&`).
    pub background: bool,
    /// Nesting depth (0 for a top-level command).
    pub depth: usize,
    /// Index (in [`Parsed::commands`]) of the command this one pipes into.
    pub pipe_to: Option<usize>,
}

/// A shell variable assignment: a bare `NAME=value` (recorded as a command with an empty
/// program whose wrappers are `NAME=`), or an operand of `export`, `declare`, `local`,
/// `readonly` or `typeset`. (`NAME=value cmd` is for one command: [`SimpleCommand::env`].)
///
/// It holds for the commands after command [`by`](Self::by), up to the next assignment of
/// the same name. A reader resolving `$NAME` should take the last assignment whose `by` is
/// below the command's index, and mind scope: one made inside a subshell, a substitution
/// or a pipeline element (`commands[by].depth > 0`, or a pipe) does not outlive it, so a
/// cautious reader treats such a value as one possibility among others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment<'a> {
    /// Index in [`Parsed::commands`] of the command that makes the assignment.
    pub by: usize,
    /// The variable's name (`D` for `D=/` and `D+=x`; `a[1]` for an element).
    pub name: Cow<'a, str>,
    /// The value as written, unquoted: `~` not expanded, `$X`, `${X}` and `$(…)` kept as
    /// text (`$(…)` for any command substitution). For `NAME+=more`, the last recorded
    /// value (or `$NAME`) followed by `more`. Array literals (`a=(…)`) are not recorded. A
    /// loop header (`for f in a b`) assigns its words, one per line.
    pub value: Cow<'a, str>,
}

/// The result of [`parse`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed<'a> {
    /// Every simple command found, in source order of completion (commands inside a
    /// substitution come before the command that uses it).
    pub commands: Vec<SimpleCommand<'a>>,
    /// Pipeline adjacency: `(a, b)` means command `a`'s output feeds command `b`.
    pub pipes: Vec<(usize, usize)>,
    /// The shell variables the line sets, in order, for a reader that resolves `$NAME`
    /// in later commands (`D=/; rm -rf $D`).
    pub assigns: Vec<Assignment<'a>>,
    /// A cap (depth, commands, word length) was hit; the picture is incomplete.
    pub truncated: bool,
    /// Lexer work done, in steps (about one per byte scanned per nesting level).
    pub steps: u64,
}
