//! Database clients and framework tasks: SQL read from arguments, `-c`/`-e`, here-strings, here-documents and piped stdin, classed as destroy (DROP, TRUNCATE, DELETE or UPDATE without WHERE, …), write or read; redis, mongo and framework resets.

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let _ = (cmd, out);
    false
}
