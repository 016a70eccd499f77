//! Windows shells: PowerShell and cmd commands with a destructive core (Remove-Item -Recurse -Force, rd /s /q, del /s /q, format, Clear-Disk, Stop-Computer).

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let _ = (cmd, out);
    false
}
