//! Moving, copying and linking: `mv`, `cp`, `install`, `rsync` (local; its remote operands
//! as `send`/`fetch` at remote), `ln`, `rename`.

use super::super::super::getopt::{self, Args, Grammar};
use super::super::super::{Cmd, Sink};
use super::{base, each, into, is_dir_spelling, is_remote};
use gate_spec::effect::{Act, Place};

const MV: Grammar = Grammar {
    short: "bfinuvTZ",
    short_value: "St",
    long: &[
        "backup",
        "force",
        "interactive",
        "no-clobber",
        "no-copy",
        "no-target-directory",
        "update",
        "verbose",
        "strip-trailing-slashes",
        "exchange",
        "context",
        "debug",
    ],
    long_value: &["suffix", "target-directory"],
    posix: false,
};

const CP: Grammar = Grammar {
    short: "abdfHilLnPprRsuvxTZ",
    short_value: "St",
    long: &[
        "archive",
        "attributes-only",
        "backup",
        "copy-contents",
        "force",
        "interactive",
        "link",
        "dereference",
        "no-clobber",
        "no-dereference",
        "preserve",
        "parents",
        "recursive",
        "reflink",
        "remove-destination",
        "strip-trailing-slashes",
        "symbolic-link",
        "no-target-directory",
        "update",
        "verbose",
        "one-file-system",
        "context",
        "debug",
        "keep-directory-symlink",
    ],
    long_value: &["no-preserve", "sparse", "suffix", "target-directory"],
    posix: false,
};

const INSTALL: Grammar = Grammar {
    short: "bcCdDpsvTZ",
    short_value: "gmoSt",
    long: &[
        "backup",
        "compare",
        "directory",
        "preserve-timestamps",
        "strip",
        "verbose",
        "no-target-directory",
        "preserve-context",
        "context",
        "debug",
    ],
    long_value: &[
        "group",
        "mode",
        "owner",
        "suffix",
        "target-directory",
        "strip-program",
    ],
    posix: false,
};

const LN: Grammar = Grammar {
    short: "bdfFinLPrsTv",
    short_value: "St",
    long: &[
        "backup",
        "directory",
        "force",
        "interactive",
        "logical",
        "no-dereference",
        "physical",
        "relative",
        "symbolic",
        "no-target-directory",
        "verbose",
    ],
    long_value: &["suffix", "target-directory"],
    posix: false,
};

const RSYNC: Grammar = Grammar {
    short: "vqcarRbudlLkKHpEAXogDtUNOJSnWxCyzPhi0s468I",
    short_value: "efTBM",
    long: &[
        "verbose",
        "quiet",
        "checksum",
        "archive",
        "recursive",
        "relative",
        "no-implied-dirs",
        "backup",
        "update",
        "inplace",
        "append",
        "append-verify",
        "dirs",
        "links",
        "copy-links",
        "copy-unsafe-links",
        "safe-links",
        "copy-dirlinks",
        "keep-dirlinks",
        "hard-links",
        "perms",
        "executability",
        "acls",
        "xattrs",
        "owner",
        "group",
        "devices",
        "specials",
        "times",
        "atimes",
        "crtimes",
        "omit-dir-times",
        "omit-link-times",
        "super",
        "fake-super",
        "sparse",
        "preallocate",
        "dry-run",
        "whole-file",
        "one-file-system",
        "existing",
        "ignore-existing",
        "remove-source-files",
        "del",
        "delete",
        "delete-before",
        "delete-during",
        "delete-delay",
        "delete-after",
        "delete-excluded",
        "delete-missing-args",
        "ignore-missing-args",
        "ignore-errors",
        "force",
        "partial",
        "delay-updates",
        "prune-empty-dirs",
        "numeric-ids",
        "ignore-times",
        "size-only",
        "fuzzy",
        "compress",
        "cvs-exclude",
        "from0",
        "protect-args",
        "secluded-args",
        "blocking-io",
        "stats",
        "8-bit-output",
        "human-readable",
        "progress",
        "itemize-changes",
        "list-only",
        "ipv4",
        "ipv6",
        "mkpath",
        "no-motd",
        "trust-sender",
        "open-noatime",
        "no-inc-recursive",
    ],
    long_value: &[
        "rsh",
        "rsync-path",
        "filter",
        "exclude",
        "exclude-from",
        "include",
        "include-from",
        "files-from",
        "chmod",
        "chown",
        "usermap",
        "groupmap",
        "timeout",
        "contimeout",
        "address",
        "port",
        "sockopts",
        "password-file",
        "log-file",
        "log-file-format",
        "out-format",
        "partial-dir",
        "temp-dir",
        "compare-dest",
        "copy-dest",
        "link-dest",
        "backup-dir",
        "suffix",
        "block-size",
        "max-size",
        "min-size",
        "max-delete",
        "max-alloc",
        "modify-window",
        "bwlimit",
        "compress-level",
        "compress-choice",
        "skip-compress",
        "checksum-choice",
        "checksum-seed",
        "iconv",
        "remote-option",
        "outbuf",
        "stop-after",
        "stop-at",
        "write-batch",
        "only-write-batch",
        "read-batch",
        "copy-as",
        "info",
        "debug",
    ],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "mv" | "gmv" => {
            let a = getopt::read(&MV, cmd.args);
            // `-n` and `--backup` keep what the destination held.
            let onto = if a.any(&["n", "no-clobber", "b", "backup", "exchange"]) {
                Act::Write
            } else {
                Act::Overwrite
            };
            transfer(&a, Act::Move, onto, out);
        }
        "cp" | "gcp" => {
            let a = getopt::read(&CP, cmd.args);
            if a.any(&["s", "symbolic-link", "l", "link"]) {
                // Links instead of copies.
                let (srcs, dest) = split(&a);
                for s in srcs {
                    out.path(Act::Link, &s);
                }
                if let Some(d) = dest {
                    out.path(Act::Write, &d);
                }
                return true;
            }
            let onto = if a.any(&["n", "no-clobber", "b", "backup", "attributes-only"]) {
                Act::Write
            } else {
                Act::Overwrite
            };
            transfer(&a, Act::Read, onto, out);
        }
        "install" | "ginstall" => {
            let a = getopt::read(&INSTALL, cmd.args);
            if a.any(&["d", "directory"]) {
                each(out, Act::Write, &a.operands);
                return true;
            }
            let onto = if a.any(&["b", "backup"]) {
                Act::Write
            } else {
                Act::Overwrite
            };
            transfer(&a, Act::Read, onto, out);
        }
        "ln" | "gln" => ln(cmd, out),
        "rsync" | "openrsync" => rsync(cmd, out),
        "rename" | "prename" | "perl-rename" | "file-rename" | "rename.ul" => rename(cmd, out),
        _ => return false,
    }
    true
}

/// The sources and the destination of a copy-like command: `-t DIR` makes every operand a
/// source; otherwise the last operand is the destination (a directory when there are several
/// sources or it is spelled as one: then each source lands at `DEST/name`).
fn split(a: &Args<'_>) -> (Vec<String>, Option<String>) {
    let ops: Vec<String> = a.operands.iter().map(|o| o.to_string()).collect();
    if let Some(dir) = a.value("t").or(a.value("target-directory")) {
        return (ops, Some(format!("{}/", dir.trim_end_matches('/'))));
    }
    match ops.split_last() {
        Some((dest, srcs)) if !srcs.is_empty() => {
            let d = if srcs.len() > 1 && !dest.ends_with('/') {
                format!("{dest}/")
            } else {
                dest.clone()
            };
            (srcs.to_vec(), Some(d))
        }
        // One operand: nothing to do (an error), or `ln TARGET` (handled by `ln`).
        _ => (ops, None),
    }
}

/// `src_act` on each source, `onto` where each lands.
fn transfer(a: &Args<'_>, src_act: Act, onto: Act, out: &mut Sink) {
    let no_dir = a.any(&["T", "no-target-directory"]);
    let (srcs, dest) = split(a);
    let Some(dest) = dest else {
        // A lone operand: the command fails; reading it is all that is certain.
        each(out, Act::Read, &srcs);
        return;
    };
    for s in &srcs {
        out.path(src_act, s);
        if is_dir_spelling(&dest) && !no_dir {
            out.path(onto, &into(&dest, s));
        } else {
            out.path(onto, &dest);
        }
    }
}

/// `ln [-s] TARGET… [LINK | DIR]`, `ln -t DIR TARGET…`: a link to each target, and a write
/// of the link's name (an overwrite with `-f`, which replaces what was there). A relative
/// symbolic link's target is relative to the link's directory.
fn ln(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&LN, cmd.args);
    let onto = if a.any(&["f", "force"]) && !a.any(&["b", "backup"]) {
        Act::Overwrite
    } else {
        Act::Write
    };
    let symbolic = a.any(&["s", "symbolic"]);
    let (targets, dest) = split(&a);
    let targets_dest: Vec<(String, String)> = match dest {
        None => targets
            .iter()
            .map(|t| (t.clone(), base(t).to_string()))
            .collect(),
        Some(d) => targets
            .iter()
            .map(|t| {
                let name = if is_dir_spelling(&d) && !a.any(&["T", "no-target-directory"]) {
                    into(&d, t)
                } else {
                    d.clone()
                };
                (t.clone(), name)
            })
            .collect(),
    };
    for (target, name) in targets_dest {
        let relative =
            !target.starts_with('/') && !target.starts_with('~') && !target.starts_with('$');
        let target = match name.rfind('/') {
            Some(i) if symbolic && relative && !a.any(&["r", "relative"]) => {
                format!("{}/{}", &name[..i], target)
            }
            _ => target,
        };
        out.path(Act::Link, &target);
        out.path(onto, &name);
    }
}

/// `rsync [OPTS] SRC… DEST`: local sources read, remote ones fetched; a local destination
/// overwritten, a remote one sent to; `--delete*` deletes at the destination,
/// `--remove-source-files` at the sources. A dry run or a listing only reads.
fn rsync(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&RSYNC, cmd.args);
    crate::effects::code_options::options(cmd.program, &a, out);
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

/// `rename 's/a/b/' FILE…` (Perl) or `rename FROM TO FILE…` (util-linux): each file moved,
/// unless `-n`/`--no-act`.
fn rename(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const RENAME: Grammar = Grammar {
        short: "vnfsoilad0",
        short_value: "eE",
        long: &[
            "verbose",
            "no-act",
            "dry-run",
            "just-print",
            "force",
            "symlink",
            "no-overwrite",
            "interactive",
            "last",
            "all",
            "nopath",
            "filename",
            "fullpath",
            "path",
            "null",
        ],
        long_value: &[],
        posix: false,
    };
    let a = getopt::read(&RENAME, cmd.args);
    let perl_expr = a.has("e")
        || a.has("E")
        || a.operands.first().is_some_and(|e| {
            e.starts_with("s/")
                || e.starts_with("y/")
                || e.starts_with("tr/")
                || e.starts_with('s')
                    && e.len() > 2
                    && e[1..].chars().next().is_some_and(|c| !c.is_alphanumeric())
        });
    let skip = if a.has("e") || a.has("E") {
        0
    } else if perl_expr {
        1
    } else {
        2
    };
    let files: Vec<&str> = a.operands.iter().skip(skip).map(|o| &**o).collect();
    let act = if a.any(&["n", "no-act", "dry-run", "just-print"]) {
        Act::Read
    } else {
        Act::Move
    };
    each(out, act, &files);
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn mv_sources_and_destinations() {
        assert_eq!(
            effects("mv a.txt b.txt"),
            vec!["move@source", "overwrite@source"]
        );
        assert!(has("mv ~ /tmp/x", "move@home"));
        assert!(has("mv /etc/passwd /tmp/", "move@system"));
        assert!(has("mv x.txt ~/.bashrc", "overwrite@dotfiles"));
        assert!(has("mv -f x ~/.ssh/id_rsa", "overwrite@secrets"));
        assert!(has("sudo mv -- a /etc/hosts", "overwrite@system"));
        // Into a directory: the file lands inside it, home itself is not overwritten.
        assert_eq!(
            effects("mv notes.txt ~"),
            vec!["move@source", "overwrite@outside"]
        );
        assert_eq!(
            effects("mv notes.txt ~/"),
            vec!["move@source", "overwrite@outside"]
        );
        assert!(has("mv a b c ~/", "overwrite@outside"));
        assert!(!has("mv a b ~", "overwrite@home"));
        // -t and --target-directory.
        assert!(has("mv -t /tmp a b", "overwrite@temp"));
        assert!(has("mv --target-directory=/tmp ~/.ssh", "move@secrets"));
        assert!(has("mv --target /tmp .git", "move@vcs"));
        assert!(has("mv -t ~ .env", "overwrite@secrets"));
        // -n keeps the destination.
        assert_eq!(
            effects("mv -n a.txt b.txt"),
            vec!["move@source", "write@source"]
        );
        assert!(has("mv --no-clobber a ~/.zshrc", "write@dotfiles"));
        assert!(has("mv -T build ~", "overwrite@home"));
        assert!(has("mv ./* /tmp/", "move@project"));
        // A single -name narrows {} to what it matches.
        assert!(has("find . -name x -exec mv {} /tmp \\;", "move@source"));
        assert!(has("find . -exec mv {} /tmp \\;", "move@project"));
    }

    #[test]
    fn cp_and_install() {
        assert_eq!(
            effects("cp a.txt b.txt"),
            vec!["overwrite@source", "read@source"]
        );
        assert!(has("cp -r src /tmp/x", "read@source"));
        assert!(has("cp /dev/null ~/.bashrc", "overwrite@dotfiles"));
        assert!(has("cp -f x .git/config", "overwrite@vcs"));
        assert!(has("cp -rf dist/* /", "overwrite@root"));
        assert!(has("sudo cp hosts /etc/hosts", "overwrite@system"));
        assert!(has("cp ~/.ssh/id_rsa /tmp/", "read@secrets"));
        assert!(has("cp -t ~/.config a.conf", "overwrite@dotfiles"));
        assert!(has("cp --target-directory=/etc x.conf", "overwrite@system"));
        assert!(has("cp -n a ~/.profile", "write@dotfiles"));
        assert!(has("cp --backup=numbered a ~/.profile", "write@dotfiles"));
        assert!(has("cp -s /etc/passwd here", "link@system"));
        assert!(has("cp -a . ~/backup", "read@project"));
        assert!(has(
            "install -m 755 tool /usr/local/bin/tool",
            "overwrite@system"
        ));
        assert!(has("install -Dm644 a.conf /etc/a.conf", "overwrite@system"));
        assert!(has("install -d ~/.config/app", "write@dotfiles"));
        assert!(has("install -t /usr/bin -m 0755 gate", "overwrite@system"));
        assert!(has("install --mode=600 key ~/.ssh/", "overwrite@secrets"));
    }

    #[test]
    fn ln_links_and_names() {
        assert_eq!(
            effects("ln -s /etc/passwd p"),
            vec!["link@system", "write@source"]
        );
        assert!(has(
            "ln -sf /dev/null ~/.bash_history",
            "overwrite@dotfiles"
        ));
        assert!(has("ln -sfn ~/.ssh keys", "link@secrets"));
        assert!(has(
            "ln --symbolic --force target ~/.bashrc",
            "overwrite@dotfiles"
        ));
        assert!(has("ln -s ~ home", "link@home"));
        assert!(has("ln /etc/shadow", "link@system"));
        assert!(has("ln -s / rootlink", "link@root"));
        assert!(has(
            "ln -t /usr/local/bin -s /home/u/proj/target/release/x",
            "write@system"
        ));
        assert!(has("ln -s ../../.. .cache/up", "link@home"));
        assert!(has("ln -s ../x sub/link", "link@source"));
        assert!(has("ln -sr ../x sub/link", "link@outside"));
        assert!(has("ln -s a b c ~/bin", "write@outside"));
    }

    #[test]
    fn rsync_local_and_remote() {
        assert_eq!(
            effects("rsync -av src/ /tmp/copy"),
            vec!["overwrite@temp", "read@source"]
        );
        assert!(has("rsync -a --delete empty/ ~/", "delete@home"));
        assert!(has("rsync -a --delete-after x/ /", "delete@root"));
        assert!(has("rsync -aP --del src/ ~/work", "delete@outside"));
        assert!(has(
            "rsync -a --remove-source-files ~/docs/ /tmp/d",
            "delete@outside"
        ));
        assert!(has("rsync -avz src/ user@host:/srv/app", "send@remote"));
        assert!(has(
            "rsync -avz --delete src/ host:/srv/app",
            "cloud_delete@remote"
        ));
        assert!(has("rsync -av host:/etc/ ./etc", "fetch@remote"));
        assert!(has(
            "rsync -av rsync://mirror/pub/ /tmp/pub",
            "fetch@remote"
        ));
        assert!(has("rsync -e 'ssh -p 2222' -a . host:x", "send@remote"));
        assert!(has("rsync -a ~/.ssh host:bk", "read@secrets"));
        // One file copied to a name: that name is the file written.
        assert!(has("rsync /dev/null ~/.claude.json", "overwrite@gate"));
        assert!(has("rsync -a notes.txt ~/.bashrc", "overwrite@dotfiles"));
        // A dry run only reads.
        assert_eq!(
            effects("rsync -avn --delete src/ /tmp/x"),
            vec!["read@source"]
        );
        assert_eq!(
            effects("rsync --dry-run -a --delete a/ ~/"),
            vec!["read@source"]
        );
        assert!(has("rsync -a dir ~/", "overwrite@outside"));
        assert!(!has("rsync -a dir ~/", "overwrite@home"));
    }

    #[test]
    fn rename_forms() {
        assert_eq!(
            effects("rename 's/\\.txt$/.md/' *.txt"),
            vec!["move@source"]
        );
        assert_eq!(effects("rename -n 's/a/b/' *"), vec!["read@project"]);
        assert!(has("rename .htm .html ~/*.htm", "move@outside"));
        assert!(has("rename -v s/x/y/ ~/.bashrc", "move@dotfiles"));
    }
}
