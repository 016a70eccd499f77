//! Version control: git (global options, subcommands and their option grammars, aliases given with `-c`), hg, svn, jj, and forge CLIs (gh, glab).

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let _ = (cmd, out);
    false
}
