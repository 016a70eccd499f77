//! The effectful calls of each interpreter language: what a call does with its arguments
//! ([`Eff`]), and the per-language tables compiled from `commands/interpreters/calls.toml`
//! by `build.rs` (callee patterns in file order; the first that matches wins).

use gate_spec::effect::Act;

/// What a call does with its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Eff {
    /// Runs a shell command: a string, or program and arguments (lists joined).
    Run,
    /// Runs the program named by the list argument (`os.execvp(f, [..])`).
    RunArgv,
    /// `act` on the first argument (each element of a list).
    Path(Act),
    /// `act` on every argument from the given index (perl/ruby lists, `chmod MODE, FILES`).
    All(Act, usize),
    /// First argument moved, second overwritten.
    Move,
    /// First argument read, second overwritten.
    Copy,
    /// Second argument is a link.
    Link,
    /// Opens a file with a mode (python, ruby, lua, php, perl).
    Open,
    Fetch,
    /// Downloads its first argument into the file named by the second.
    FetchTo,
    Send,
    /// Fetches a URL, or reads a file.
    ReadOrFetch,
    /// Runs code it is given, or code it finds by a name or path it is given (`getattr`,
    /// `runpy.run_path`, `send`, `dofile`): opaque.
    Eval,
    /// Runs the code text it is given (`exec`, `eval`, `Function`, `instance_eval`,
    /// `loadstring`): a literal is analysed as code of the same language; anything else is
    /// as [`Eff::Eval`].
    EvalText,
    /// Runs SQL it is given (`cursor.execute("DROP TABLE t")`, `db.exec(…)`, `client.query(…)`):
    /// each string literal of its first argument that reads as SQL.
    Sql,
}

use Eff::*;

/// A callee pattern: `q.name` (the qualifier before the name), `name` (anything or
/// nothing before it), `=name` (nothing before it).
pub(super) type Table = &'static [(&'static str, Eff)];

include!(concat!(env!("OUT_DIR"), "/interpreter_calls.rs"));
