//! Version control: hg, svn, hub (git with GitHub's commands), and the analysers git's, jj's
//! and the forge CLIs' data reach by name (git's and jj's forms are `commands/vcs.toml`;
//! gh, glab, tea's `commands/forge.toml`).
//!
//! Local history rewrites and discarded work are `history` at the repository's metadata
//! (`vcs`), with the paths they overwrite or delete; pushes are `send` at `remote`, forced
//! ones also `history` there; forge deletions are `cloud_delete`, releases `publish` /
//! `unpublish`.

use std::borrow::Cow;

use super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

pub(crate) mod forge;
pub(crate) mod git;
mod hg;

pub(crate) use git::{git_stored, GitCall, GIT_VIEWERS};
pub(crate) mod jj;
mod svn;

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
        "hg" | "chg" => {
            hg::model(cmd.args, out);
            true
        }
        "svn" => {
            svn::model(cmd.args, out);
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

/// The effect of `act` on each operand (seen from `dir`), or on `dir` itself when none.
pub(super) fn each(out: &mut Sink, act: Act, dir: Option<&str>, ops: &[Cow<'_, str>]) {
    if ops.is_empty() {
        out.path(act, dir.unwrap_or("."));
    }
    for o in ops {
        out.path(act, &join(dir, o));
    }
}

pub(super) fn meta(out: &mut Sink, act: Act, dir: Option<&str>, name: &str) {
    out.path(act, &join(dir, name));
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
