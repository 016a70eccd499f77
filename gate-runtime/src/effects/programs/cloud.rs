//! Cloud and infrastructure CLIs: what deletes resources (terraform, pulumi, kubectl, helm, aws, gcloud, gsutil, az, docker and compose, …).

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let _ = (cmd, out);
    false
}
