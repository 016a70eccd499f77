//! Network programs whose words need reading: downloads (fetch, and the files they write),
//! uploads and exfiltration (send), remote shells and copies. Each is an analyser reached by
//! name from `commands/network.toml`, which holds every program's option grammar and which
//! option carries what (its roles), and the programs whose forms are words (sftp and ftp
//! clients, mail senders, sockets, `ansible-playbook`, `ssh-copy-id`, `ssh-keygen`).
//!
//! Every download is a `fetch` at `remote` (the caller turns one piped into an interpreter
//! into `remote_exec`), with an `overwrite` or `write` of the files it saves; every upload
//! is a `send` at `remote`, with a `read` of each local file it sends. Remote shells and
//! raw sockets (`ssh`, `nc`, `socat`, `telnet`) send; one that hands a local shell to the
//! network (`nc -e /bin/sh`, `socat … EXEC:`) runs remote code.

use std::borrow::Cow;

mod http;
mod method;
mod remote;

pub(crate) use remote::ssm_commands;

use super::super::getopt::Args;
use super::super::{Cmd, Sink};
use gate_spec::effect::Act;

/// What each analyser is given (see `table::analysers::Analyser`).
type Words<'c, 'a> = &'c [Cow<'a, str>];

/// `curl`: its requests, uploads and the files it writes (`http.rs`).
pub(crate) fn curl(_: &Cmd<'_, '_>, args: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    http::curl(args, out);
}

/// `wget`, `wget2`.
pub(crate) fn wget(_: &Cmd<'_, '_>, args: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    http::wget(args, out);
}

/// `aria2c`, `axel`.
pub(crate) fn aria2c(_: &Cmd<'_, '_>, args: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    http::aria2c(args, out);
}

/// HTTPie and xh (`http DELETE …`, `xh post … @file`).
pub(crate) fn httpie(_: &Cmd<'_, '_>, args: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    http::httpie(args, out);
}

/// `scp`: send or fetch by direction (`remote.rs`).
pub(crate) fn scp(_: &Cmd<'_, '_>, args: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    remote::scp(args, out);
}

/// `ssh`, `autossh`, `mosh`: a session there, its command (the words it is handed: after
/// the host, as the data's form says) or fed script a line there.
pub(crate) fn ssh(cmd: &Cmd<'_, '_>, args: &Args<'_>, command: Words<'_, '_>, out: &mut Sink) {
    remote::ssh(args, command, cmd.stdin, cmd.stdin_file, out);
}

/// The words a form (or a program) is handed are a command run on other machines (`pdsh`,
/// `pssh`, `clush`, `salt … cmd.run`).
pub(crate) fn remote_command(
    _: &Cmd<'_, '_>,
    args: &Args<'_>,
    words: Words<'_, '_>,
    out: &mut Sink,
) {
    remote::remote_command(args, words, out);
}

/// The words a form is handed are paths removed on other machines (`salt … file.remove`).
pub(crate) fn remote_removes(_: &Cmd<'_, '_>, _: &Args<'_>, words: Words<'_, '_>, out: &mut Sink) {
    remote::remote_removes(words, out);
}

/// `socat`: its addresses (`EXEC:`, `CREATE:`).
pub(crate) fn socat(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    remote::socat(cmd.args, out);
}

/// `rclone`: syncs and deletions on remotes.
pub(crate) fn rclone(_: &Cmd<'_, '_>, args: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    remote::rclone(args, out);
}

/// A file a download writes to, unless it is standard output.
pub(super) fn saved(out: &mut Sink, act: Act, file: &str) {
    if file != "-" && !file.is_empty() {
        out.path(act, file);
    }
}

/// The last path component of a URL (what `curl -O` and `wget` name the file).
pub(super) fn url_file(url: &str) -> &str {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    let path = no_query.split_once("://").map_or(no_query, |(_, r)| r);
    match path.split_once('/') {
        Some((_, p)) => p.rsplit('/').next().unwrap_or(""),
        None => "",
    }
}

pub(super) fn dir_join(dir: Option<&str>, name: &str) -> String {
    match dir {
        Some(d) if !name.starts_with('/') => format!("{}/{}", d.trim_end_matches('/'), name),
        _ => name.to_string(),
    }
}
