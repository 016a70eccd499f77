//! The queries a command runs, read where a form's or program's `queries` says it takes
//! them: query text given by options or as operands, files of it named by options or
//! operands, else standard input (a piped text, or a file redirected in, whose name is the
//! evidence), each read by the query language's analyser; the results written to an output
//! file or piped to a command, and the database file written when the queries write.

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::analysers::{Query, Verdict};
use super::model::Queries;
use gate_spec::effect::Act;
use std::borrow::Cow;

/// File names that are the command's own standard input.
const INPUT: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// Whether option `name` is one of `set` (`c|command`).
fn named(set: &str, name: &str) -> bool {
    !set.is_empty() && set.split('|').any(|n| n == name)
}

/// Read the queries `cmd` runs into `out`; `args` are its words as the program read them,
/// `rest` the operands after the form's path.
pub(super) fn read(
    q: &Queries,
    cmd: &Cmd<'_, '_>,
    args: &Args<'_>,
    rest: &[Cow<'_, str>],
    out: &mut Sink,
) {
    let mut v = Verdict::default();
    // Whether the command runs queries given on the line (so not its input), and whether a
    // file option names its input.
    let (mut ran, mut input) = (false, false);
    for o in &args.opts {
        let Some(value) = o.value.as_deref() else {
            continue;
        };
        if named(q.output, &o.name) {
            match value.strip_prefix('|') {
                Some(command) => out.script(command),
                None => out.path(Act::Overwrite, value),
            }
        }
        let first = named(q.first, &o.name);
        if named(q.text, &o.name) {
            v.merge((q.language)(Query::Text(value), out));
            ran |= !first;
        } else if named(q.files, &o.name) {
            let split = q.split.chars().next();
            for file in value.split(|c| Some(c) == split) {
                if INPUT.contains(&file) {
                    input = true;
                    continue;
                }
                out.path(Act::Read, file);
                v.merge((q.language)(Query::File(file), out));
                ran |= !first;
            }
        }
    }
    let database = usize::from(q.database).checked_sub(1);
    let files: Vec<&str> = q.operands.split('|').collect();
    for (k, w) in rest.iter().enumerate() {
        if Some(k) == database || q.operands.is_empty() {
            continue;
        }
        if q.operands == "text" {
            v.merge((q.language)(Query::Text(w), out));
            ran = true;
        } else if super::word_is(&files, w) {
            out.path(Act::Read, w);
            v.merge((q.language)(Query::File(w), out));
            ran = true;
        }
    }
    if !ran || input {
        if let Some(text) = cmd.stdin {
            v.merge((q.language)(Query::Text(text), out));
        } else if let Some(file) = cmd.stdin_file {
            v.merge((q.language)(Query::File(file), out));
        }
    }
    let file = database.and_then(|k| rest.get(k)).map(|w| &**w);
    if let Some(file) = file.filter(|f| *f != q.in_memory) {
        let readonly = q.readonly.split('|').any(|n| !n.is_empty() && args.has(n));
        let act = if (v.destroy || v.write) && !readonly {
            Act::Write
        } else {
            Act::Read
        };
        out.path(act, file);
    }
    v.emit(out);
}
