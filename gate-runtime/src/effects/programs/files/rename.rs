//! `rename`, reached from `commands/files-copy.toml` by name: whether its first operand is a
//! Perl expression (`rename 's/a/b/' FILE…`) or the text to replace (util-linux's `rename
//! FROM TO FILE…`) decides which operands are the files it moves.

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;
use std::borrow::Cow;

/// `rename 's/a/b/' FILE…` (Perl) or `rename FROM TO FILE…` (util-linux): each file moved,
/// unless `-n`/`--no-act`.
pub(crate) fn rename(_: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let perl_expr = a.has("e")
        || a.has("E")
        || a.operands.first().is_some_and(|e| {
            e.starts_with("s/")
                || e.starts_with("y/")
                || e.starts_with("tr/")
                || e.starts_with('s')
                    && e.len() > 2
                    && e[1..].chars().next().is_some_and(|c| !c.is_alphanumeric())
        });
    let skip = if a.has("e") || a.has("E") {
        0
    } else if perl_expr {
        1
    } else {
        2
    };
    let files: Vec<&str> = a.operands.iter().skip(skip).map(|o| &**o).collect();
    let act = if a.any(&["n", "no-act", "dry-run", "just-print"]) {
        Act::Read
    } else {
        Act::Move
    };
    each(out, act, &files);
}
