//! What the object-storage CLIs' words need read as code: which side of a copy is a store
//! (`s3://b/x`, `gs://b`) and which a local path (`object_copy`, `object_sync`), and what an aws operation
//! no form names grants or runs (`cloud_operation`). Each is an analyser reached by name
//! from `commands/cloud.toml`, which says which subcommands copy, move, sync and delete.

use super::super::getopt::Args;
use super::super::{Cmd, Sink};
use super::table::destination::is_dir_spelling;
use gate_spec::effect::{Act, Place};
use std::borrow::Cow;

#[cfg(test)]
mod tests;

/// A copy between local paths and an object store (`aws s3 cp|mv|sync`, `gsutil cp|mv|rsync`,
/// the form's operands `SRC… DEST`): a store source is fetched, a local one read (a secret
/// uploaded is so a send of a secret); a store destination is sent to, a local one
/// overwritten (inside it, named as the source, when it is spelled as a directory). An
/// operand naming a scheme (`s3://`, `gs://`) is a store. What the form deletes (the sources
/// of a move, the destination's extra objects under `--delete`) the data says. A dry run
/// (`--dryrun`) or `--help` copies nothing.
pub(crate) fn object_copy(_: &Cmd<'_, '_>, a: &Args<'_>, ops: &[Cow<'_, str>], out: &mut Sink) {
    if super::table::inert(a) {
        return;
    }
    let Some((dest, srcs)) = ops.split_last() else {
        return;
    };
    for src in srcs {
        transfer(out, src, dest, true);
    }
}

/// A sync (`aws s3 sync`, `gsutil rsync`, `SRC DEST`): as [`object_copy`], but what the
/// source holds lands in the destination itself, never under it by the source's name.
pub(crate) fn object_sync(_: &Cmd<'_, '_>, a: &Args<'_>, ops: &[Cow<'_, str>], out: &mut Sink) {
    if super::table::inert(a) {
        return;
    }
    let Some((dest, srcs)) = ops.split_last() else {
        return;
    };
    for src in srcs {
        transfer(out, src, dest, false);
    }
}

fn is_store(word: &str) -> bool {
    word.contains("://")
}

/// One source copied to `dest`; `named`: into a directory, it lands under its own name.
fn transfer(out: &mut Sink, src: &str, dest: &str, named: bool) {
    if is_store(src) {
        out.place(Act::Fetch, Place::Remote);
    } else if src != "-" {
        out.path(Act::Read, src);
    }
    if is_store(dest) {
        out.place(Act::Send, Place::Remote);
    } else if named && dest != "/" && is_dir_spelling(dest) {
        // Into a directory (`dir/`, `.`, `~`, `$HOME`): the copy lands under it, named as
        // the source. The root is kept whole: a copy there is taken to replace it.
        let name = src
            .trim_end_matches('/')
            .rsplit(['/', ':'])
            .next()
            .unwrap_or("");
        if name.is_empty() || name == "*" {
            out.path(Act::Write, dest);
        } else {
            out.path(
                Act::Overwrite,
                &format!("{}/{name}", dest.trim_end_matches('/')),
            );
        }
    } else if dest != "-" {
        out.path(Act::Overwrite, dest);
    }
}

/// An aws operation no form names (`aws iam attach-user-policy …`, `aws ssm send-command
/// …`): what the generic reading finds it grants (an administrator policy attached), and
/// the code it sends to instances (`--parameters commands=…`).
/// A dry run (`--dry-run`) changes nothing.
pub(crate) fn cloud_operation(cmd: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    if !super::table::inert(a) {
        super::unmodelled_operation(cmd.args, out);
    }
}
