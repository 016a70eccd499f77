//! Package managers and registries: publish, unpublish and yank; `npx`-style runners are peeled by the parser.

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let _ = (cmd, out);
    false
}
