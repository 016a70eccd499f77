//! Version control: hub (git with GitHub's commands), and the analysers the version control
//! data reaches by name: git's (`git/`), the forge CLIs' (`forge.rs`), and here the clones
//! and checkouts of the others (hg, jj, svn). The forms of git, jj, hg and svn are
//! `commands/vcs.toml`; gh, glab, tea's `commands/forge.toml`.
//!
//! Local history rewrites and discarded work are `history` at the repository's metadata
//! (`vcs`), with the paths they overwrite or delete; pushes are `send` at `remote`, forced
//! ones also `history` there; forge deletions are `cloud_delete`, releases `publish` /
//! `unpublish`.

use std::borrow::Cow;

use super::super::getopt::Args;
use super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

pub(crate) mod forge;
pub(crate) mod git;
#[cfg(test)]
mod tests;

pub(crate) use git::{git_stored, GitCall, GIT_VIEWERS};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "hub" => {
            // hub is git with GitHub's commands added: `hub delete REPO` deletes the hosted
            // repository, and `api`, `release`, `issue`, `pr`, `gist` are gh's.
            let first = cmd.args.iter().map(|a| &**a).find(|a| !a.starts_with('-'));
            match first {
                Some("delete") => {
                    if !cmd.args.iter().any(|a| a == "--help" || a == "-h") {
                        out.place(Act::CloudDelete, Place::Remote);
                    }
                }
                Some("api" | "release" | "issue" | "pr" | "gist") => {
                    super::table::model(
                        &Cmd {
                            program: "gh",
                            ..*cmd
                        },
                        out,
                    );
                }
                // The rest is git's.
                _ => {
                    super::table::model(
                        &Cmd {
                            program: "git",
                            ..*cmd
                        },
                        out,
                    );
                }
            }
            true
        }
        _ => false,
    }
}

/// `path` as seen from directory `dir` (a `-C DIR`, `-R DIR`, `--cwd DIR`): relative paths
/// are prefixed with it; absolute, home and variable paths stand as they are.
pub(super) fn join(dir: Option<&str>, path: &str) -> String {
    match dir {
        Some(d) if !is_rooted(path) => {
            if path == "." || path.is_empty() {
                d.to_string()
            } else {
                format!(
                    "{}/{}",
                    d.trim_end_matches('/'),
                    path.trim_start_matches("./")
                )
            }
        }
        _ => path.to_string(),
    }
}

/// Whether a path does not depend on the working directory.
pub(super) fn is_rooted(path: &str) -> bool {
    path.starts_with('/') || path.starts_with('~') || path.starts_with('$')
}

/// Whether a repository argument names another machine (a URL or `host:path`), not a
/// local directory.
pub(super) fn is_remote(s: &str) -> bool {
    if s.contains("://") {
        return !s.starts_with("file://");
    }
    // scp-like `user@host:path`: a colon before any slash.
    match (s.find(':'), s.find('/')) {
        (Some(c), Some(sl)) => c < sl && c > 1,
        (Some(c), None) => c > 1,
        _ => false,
    }
}

/// `clone SOURCE [DEST]`: a fetch (or a read of a local source) and a write at the
/// destination (the source's last component when none).
pub(super) fn clone_like(out: &mut Sink, dir: Option<&str>, ops: &[Cow<'_, str>]) {
    let Some(src) = ops.first() else {
        return;
    };
    if is_remote(src) {
        out.place(Act::Fetch, Place::Remote);
    } else {
        out.path(Act::Read, &join(dir, src));
    }
    let dest = match ops.get(1) {
        Some(d) => d.to_string(),
        None => src
            .trim_end_matches('/')
            .rsplit(['/', ':'])
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or("repo")
            .trim_end_matches(".git")
            .to_string(),
    };
    out.path(Act::Write, &join(dir, &dest));
}

/// `clone SOURCE [DEST]` (`hg clone`, `jj git clone`): a fetch (or a read of a local
/// source) and the destination written, seen from the program's `dir` option (`-R`).
pub(crate) fn clone(cmd: &Cmd<'_, '_>, args: &Args<'_>, rest: &[Cow<'_, str>], out: &mut Sink) {
    let dir = super::table::directory_of(cmd, args);
    clone_like(out, dir.as_deref(), rest);
}

/// `svn checkout|export SOURCE [DEST]`: a fetch from a repository URL (`://`, or `^/` for
/// one relative to the working copy's repository), a read of a local source (`svn export .
/// DIR`), and the destination (the source's last component when none) written, or
/// overwritten with `--force`.
pub(crate) fn svn_checkout(
    _: &Cmd<'_, '_>,
    args: &Args<'_>,
    rest: &[Cow<'_, str>],
    out: &mut Sink,
) {
    let Some(src) = rest.first() else {
        return;
    };
    if src.contains("://") || src.starts_with('^') {
        out.place(Act::Fetch, Place::Remote);
    } else {
        out.path(Act::Read, src);
    }
    let dest = match rest.get(1) {
        Some(d) => d.to_string(),
        None => src
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(".")
            .to_string(),
    };
    let act = if args.has("force") {
        Act::Overwrite
    } else {
        Act::Write
    };
    out.path(act, &dest);
}
