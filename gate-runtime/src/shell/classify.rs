//! Action classes and touched paths of a parsed command line.
//!
//! Strength order (strongest first), used to pick one class for a whole line:
//! `delete > network > vcs > write > spawn > exec > search > read > other`.
//!
//! Decisions: a write redirection (`> file`, also the truncation idiom `: > file`) is
//! `write`, not `delete` (a path rule catches precious targets); `git clean` and `git rm` are
//! `delete`; other git/hg/svn/gh/jj commands are `vcs`; a background job, `nohup`, `setsid`,
//! `coproc` and starting another coding agent CLI are `spawn`; harmless builtins (`echo`,
//! `cd`, `true` …) are `other`; unknown programs are `exec`. Redirections to `/dev/null`,
//! `/dev/stdout`, `/dev/stderr` and `/dev/fd/*` are not writes.

use std::collections::BTreeSet;

use gate_spec::ir::ActionClass;

use super::{Parsed, SimpleCommand};

fn strength(class: ActionClass) -> u8 {
    match class {
        ActionClass::Delete => 9,
        ActionClass::Network => 8,
        ActionClass::Vcs => 7,
        ActionClass::Write => 6,
        ActionClass::Spawn => 5,
        ActionClass::Exec => 4,
        ActionClass::Mcp => 3,
        ActionClass::Search => 2,
        ActionClass::Read => 1,
        ActionClass::Other => 0,
    }
}

fn stronger(a: ActionClass, b: ActionClass) -> ActionClass {
    if strength(b) > strength(a) {
        b
    } else {
        a
    }
}

/// The strongest class of any command of the line; `other` for an empty line, at least
/// `exec` when the parse was truncated.
pub fn classify(parsed: &Parsed) -> ActionClass {
    let mut class = if parsed.truncated {
        ActionClass::Exec
    } else {
        ActionClass::Other
    };
    for cmd in &parsed.commands {
        class = stronger(class, class_of(cmd));
    }
    class
}

fn is_real_write(target: &str) -> bool {
    !matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) && !target.starts_with("/dev/fd/")
}

fn has_arg(cmd: &SimpleCommand, pred: impl Fn(&str) -> bool) -> bool {
    cmd.args.iter().any(|a| pred(a))
}

fn first_operand<'c>(cmd: &'c SimpleCommand<'_>) -> Option<&'c str> {
    cmd.args.iter().map(|a| &**a).find(|a| !a.starts_with('-'))
}

fn short_flag(cmd: &SimpleCommand, c: char) -> bool {
    has_arg(cmd, |a| {
        a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c)
    })
}

/// The class of one simple command, ignoring the rest of the line.
pub fn class_of(cmd: &SimpleCommand) -> ActionClass {
    let own = program_class(cmd);
    let mut class = own;
    if cmd
        .writes
        .iter()
        .any(|r| r.op != "<" && is_real_write(&r.target))
    {
        class = stronger(class, ActionClass::Write);
    }
    if cmd.background
        || cmd
            .wrappers
            .iter()
            .any(|w| matches!(w.as_str(), "nohup" | "setsid" | "coproc"))
    {
        class = stronger(class, ActionClass::Spawn);
    }
    class
}

fn program_class(cmd: &SimpleCommand) -> ActionClass {
    use ActionClass::*;
    let sub = first_operand(cmd).unwrap_or("");
    match cmd.program.as_ref() {
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" | "wipefs" => Delete,
        p if p.starts_with("mkfs") => Delete,
        "find" => {
            if has_arg(cmd, |a| a == "-delete") {
                Delete
            } else {
                Search
            }
        }
        "rsync" => {
            if has_arg(cmd, |a| {
                a.starts_with("--delete") || a == "--remove-source-files"
            }) {
                Delete
            } else if has_arg(cmd, |a| {
                !a.starts_with('-') && (a.contains("::") || a.contains("://") || remote_spec(a))
            }) {
                Network
            } else {
                Write
            }
        }
        "git" => match git_subcommand(cmd) {
            Some("clean" | "rm") => Delete,
            _ => Vcs,
        },
        "hg" | "svn" | "gh" | "jj" | "fossil" | "glab" => Vcs,
        "curl" | "wget" | "ssh" | "scp" | "sftp" | "ftp" | "nc" | "ncat" | "netcat" | "telnet"
        | "socat" | "http" | "https" | "xh" | "aria2c" | "mosh" => Network,
        "npm" | "pnpm" | "yarn" | "bun" | "cargo" | "poetry" | "gem" | "dotnet" | "mvn"
        | "gradle"
            if has_arg(cmd, |a| a == "publish" || a == "push" || a == "deploy") =>
        {
            Network
        }
        "twine" if sub == "upload" => Network,
        "docker" | "podman" if sub == "push" => Network,
        "tee" => {
            if first_operand(cmd).is_some() {
                Write
            } else {
                Read
            }
        }
        "sed" if short_flag(cmd, 'i') || has_arg(cmd, |a| a.starts_with("--in-place")) => Write,
        "perl" if short_flag(cmd, 'i') => Write,
        "dd" if has_arg(cmd, |a| a.starts_with("of=")) => Write,
        "cp" | "mv" | "install" | "touch" | "mkdir" | "chmod" | "chown" | "chgrp" | "ln"
        | "truncate" | "patch" | "mktemp" | "tar" | "unzip" | "setfacl" | "chattr" => Write,
        "sort" if short_flag(cmd, 'o') || has_arg(cmd, |a| a.starts_with("--output")) => Write,
        "cat" | "less" | "more" | "head" | "tail" | "bat" | "wc" | "file" | "stat" | "diff"
        | "cmp" | "od" | "xxd" | "hexdump" | "strings" | "jq" | "yq" | "sed" | "cut" | "sort"
        | "uniq" | "tr" | "nl" | "column" | "readlink" | "realpath" | "du" | "df" | "md5sum"
        | "sha256sum" | "sha1sum" | "base64" | "zcat" | "tac" | "rev" | "view" => Read,
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "ls" | "fd" | "fdfind" | "tree"
        | "locate" | "which" | "whereis" | "type" | "dir" => Search,
        "claude" | "codex" | "gemini" | "copilot" | "aider" | "disown" => Spawn,
        "" | "echo" | "printf" | "true" | "false" | ":" | "pwd" | "cd" | "pushd" | "popd"
        | "test" | "[" | "[[" | "export" | "unset" | "set" | "local" | "declare" | "readonly"
        | "read" | "wait" | "exit" | "return" | "shift" | "sleep" | "date" | "whoami" | "id"
        | "hostname" | "uname" | "basename" | "dirname" | "seq" | "yes" | "clear" => Other,
        _ => Exec,
    }
}

/// `host:path` or `user@host:path` (an rsync/scp remote), not a Windows drive or URL.
fn remote_spec(arg: &str) -> bool {
    match arg.find(':') {
        Some(i) => i > 1 && !arg[..i].contains('/'),
        None => false,
    }
}

/// The git subcommand, skipping global options (`-C dir`, `-c k=v`, `--git-dir=…`).
fn git_subcommand<'c>(cmd: &'c SimpleCommand<'_>) -> Option<&'c str> {
    let mut k = 0;
    while let Some(a) = cmd.args.get(k) {
        match &**a {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => k += 2,
            a if a.starts_with('-') => k += 1,
            a => return Some(a),
        }
    }
    None
}

fn path_like(arg: &str) -> bool {
    arg.contains('/')
        || arg.starts_with('.')
        || arg.starts_with('~')
        || (arg.contains('.') && !arg.contains(' ') && !arg.contains('='))
}

/// Path-like operands and write-redirect targets of every command, deduplicated, in order.
///
/// For file commands (read, write, delete, search classes) every operand counts (except the
/// pattern of a grep-like tool and the script of `sed`); for other commands only operands
/// that look like paths (contain `/`, start with `.` or `~`, or have an extension). Values of
/// `--opt=value` and `of=`/`if=` are considered too.
pub fn paths(parsed: &Parsed) -> Vec<String> {
    let mut out = Vec::new();
    paths_into(parsed, &mut out);
    out
}

/// [`paths`] written into `out` (whose contents are replaced): the strings already in `out`
/// are overwritten in place, so that a caller that reuses `out` allocates only for paths
/// longer than the ones it held (`tests::paths_into_a_used_vector_are_the_paths`).
pub fn paths_into(parsed: &Parsed, out: &mut Vec<String>) {
    // `out[..n]` are this line's paths so far; the strings after them are room to reuse.
    let mut n = 0;
    // Lines touch few paths: a scan of those kept is cheaper than a set, until there are many.
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut add = |p: &str| {
        if p.is_empty() {
            return;
        }
        let new = if n < 16 {
            !out[..n].iter().any(|q| q == p)
        } else {
            if seen.is_empty() {
                seen.extend(out[..n].iter().cloned());
            }
            seen.insert(p.to_string())
        };
        if new {
            match out.get_mut(n) {
                Some(room) => {
                    room.clear();
                    room.push_str(p);
                }
                None => out.push(p.to_string()),
            }
            n += 1;
        }
    };
    for cmd in &parsed.commands {
        let class = program_class(cmd);
        let file_cmd = matches!(
            class,
            ActionClass::Read | ActionClass::Write | ActionClass::Delete | ActionClass::Search
        );
        let skip_first =
            matches!(
                cmd.program.as_ref(),
                "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "sed"
            ) && !has_arg(cmd, |a| a == "-e" || a == "-f" || a.starts_with("--regexp"));
        let mut operands_only = false;
        let mut skipped = false;
        for arg in &cmd.args {
            if !operands_only && arg == "--" {
                operands_only = true;
                continue;
            }
            if !operands_only && arg.starts_with('-') {
                if let Some((_, v)) = arg.split_once('=') {
                    if path_like(v) {
                        add(v);
                    }
                }
                continue;
            }
            if let Some(v) = arg.strip_prefix("of=").or_else(|| arg.strip_prefix("if=")) {
                add(v);
                continue;
            }
            if skip_first && !skipped {
                skipped = true;
                continue;
            }
            if file_cmd || path_like(arg) {
                add(arg);
            }
        }
        for w in &cmd.writes {
            add(&w.target);
        }
    }
    out.truncate(n);
}
