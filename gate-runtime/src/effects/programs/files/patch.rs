//! `patch`, reached from `commands/files-copy.toml` by name: the file it changes is an
//! operand, an option's directory, or each file the patch it is fed names (`+++ b/src/x.rs`,
//! stripped by `-p N`).

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::super::table::destination::base;
use gate_spec::effect::Act;
use std::borrow::Cow;

/// `patch [OPTS] [ORIGFILE [PATCHFILE]]`: writes the original file (or the files the patch
/// names, under `-d DIR`, when none is given); `-i`/`--input` and a second operand are read;
/// `-o`/`--output` is overwritten instead of the original. `--dry-run` only reads.
pub(crate) fn patch(cmd: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    for f in a.values(&["i", "input"]) {
        out.path(Act::Read, f);
    }
    if let Some(p) = a.operands.get(1) {
        out.path(Act::Read, p);
    }
    let dry = a.any(&["dry-run", "check", "C"]);
    if dry {
        return;
    }
    if let Some(o) = a.value("o").or(a.value("output")) {
        if o != "-" {
            out.path(Act::Overwrite, o);
        }
        return;
    }
    let dir = a.value("d").or(a.value("directory"));
    let join = |p: &str| match dir {
        Some(d) if !p.starts_with('/') => format!("{}/{}", d.trim_end_matches('/'), p),
        _ => p.to_string(),
    };
    if let Some(f) = a.operands.first() {
        out.path(Act::Write, &join(f));
        return;
    }
    // The files the patch names, when it is on the line (a here-document).
    let strip: usize = a
        .value("p")
        .or(a.value("strip"))
        .and_then(|p| p.parse().ok())
        .unwrap_or(usize::MAX);
    let mut named = false;
    if let Some(text) = cmd.stdin {
        for line in text.lines().take(100_000) {
            let Some(path) = line
                .strip_prefix("+++ ")
                .or_else(|| line.strip_prefix("*** ").filter(|l| !l.ends_with("****")))
            else {
                continue;
            };
            let path = path.split('\t').next().unwrap_or("").trim();
            if path.is_empty() || path == "/dev/null" {
                continue;
            }
            let stripped = if strip == usize::MAX {
                // Without -p, patch uses the base name.
                base(path).to_string()
            } else {
                path.splitn(strip + 1, '/')
                    .nth(strip)
                    .unwrap_or(path)
                    .to_string()
            };
            out.path(Act::Write, &join(&stripped));
            named = true;
        }
    }
    if !named {
        out.path(Act::Write, &join("."));
    }
}
