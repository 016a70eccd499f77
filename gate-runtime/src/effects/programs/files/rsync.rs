//! `rsync` (and `openrsync`), reached from `commands/files-copy.toml` by name: which of its
//! operands are remote (`host:path`, `host::module`, `rsync://…`) decides whether a source
//! is read or fetched and a destination overwritten or sent to, and `--delete*` and
//! `--remove-source-files` delete where that is.

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::super::table::destination::into;
use super::is_remote;
use gate_spec::effect::{Act, Place};
use std::borrow::Cow;

/// `rsync [OPTS] SRC… DEST`: local sources read, remote ones fetched; a local destination
/// overwritten, a remote one sent to; `--delete*` deletes at the destination,
/// `--remove-source-files` at the sources. A dry run or a listing only reads.
pub(crate) fn rsync(cmd: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    crate::effects::code_options::options(cmd.program, a, out);
    for f in a.values(&[
        "exclude-from",
        "include-from",
        "files-from",
        "password-file",
    ]) {
        if !is_remote(f) {
            out.path(Act::Read, f);
        }
    }
    let ops: Vec<&str> = a.operands.iter().map(|o| &**o).collect();
    let dry = a.any(&["n", "dry-run", "list-only"]) || ops.len() < 2;
    let Some((dest, srcs)) = ops.split_last() else {
        return;
    };
    let srcs = if ops.len() < 2 { &ops[..] } else { srcs };
    for s in srcs {
        if is_remote(s) {
            if !dry {
                out.place(Act::Fetch, Place::Remote);
            }
        } else {
            out.path(Act::Read, s);
        }
    }
    if dry {
        return;
    }
    let deletes = a.has("del")
        || a.opts.iter().any(|o| o.name.starts_with("delete"))
        || a.unknown.iter().any(|u| u.starts_with("delete"));
    let remote_dest = is_remote(dest);
    if remote_dest {
        out.place(Act::Send, Place::Remote);
        // A remote that is this machine (`localhost:DIR`) is a local destination.
        if let Some(local) = crate::effects::places::loopback_path(dest) {
            out.path(Act::Overwrite, &local);
            if deletes {
                out.path(Act::Delete, &local);
            }
        }
        if deletes {
            // Files on another machine deleted to mirror this one (`rsync --delete ./dist/
            // prod:/var/www/`), as `rclone sync` and `aws s3 sync --delete` delete remote
            // objects: a remote deletion.
            out.place(Act::CloudDelete, Place::Remote);
        }
    } else {
        for s in srcs {
            // `rsync a/ dest` fills dest; `rsync a dest` makes dest/a when `a` is a
            // directory or dest is one, and is dest itself when one file is copied to a
            // name that is no directory (`rsync /dev/null ~/.claude.json`).
            if s.ends_with('/') || is_remote(s) {
                out.path(Act::Overwrite, dest);
            } else {
                out.path(Act::Overwrite, &into(&format!("{dest}/"), s));
                if srcs.len() == 1 && !dest.ends_with('/') {
                    out.path(Act::Overwrite, dest);
                }
            }
        }
        if deletes {
            // What is deleted: files in the destination the source lacks.
            out.path(Act::Delete, dest);
        }
    }
    if a.has("remove-source-files") {
        for s in srcs {
            if is_remote(s) {
                out.place(Act::Delete, Place::Remote);
            } else {
                out.path(Act::Move, s);
                out.path(Act::Delete, s);
            }
        }
    }
}
