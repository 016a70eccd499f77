//! Network programs: downloads (fetch, and the files they write), uploads and exfiltration (send), remote shells and copies.
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

use http::{aria2c, curl, httpie, wget};
pub(crate) use remote::ssm_commands;
use remote::{ansible_playbook, fan_out, netcat, rclone, salt, scp, socat, ssh, ssh_keygen};

use super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    match cmd.program {
        "curl" => curl(args, out),
        "wget" | "wget2" => wget(args, out),
        "aria2c" | "axel" => aria2c(args, out),
        "http" | "https" | "xh" | "xhs" | "httpie" => httpie(args, out),
        "scp" => scp(args, out),
        "sftp" | "ftp" | "lftp" | "tftp" | "ncftp" | "smbclient" => {
            out.place(Act::Send, Place::Remote);
            out.place(Act::Fetch, Place::Remote);
            if let Some(batch) = value_after(args, &["-b"]) {
                out.path(Act::Read, batch);
            }
        }
        "ssh" | "autossh" | "mosh" => ssh(args, cmd.stdin, cmd.stdin_file, out),
        "pdsh" | "pssh" | "parallel-ssh" | "clush" => fan_out(cmd.program, args, out),
        "salt" | "salt-ssh" => salt(args, out),
        "ansible-playbook" => ansible_playbook(args, out),
        "ssh-copy-id" => {
            out.place(Act::Send, Place::Remote);
            if let Some(key) = value_after(args, &["-i"]) {
                out.path(Act::Read, key);
            }
        }
        "ssh-keyscan" => out.place(Act::Fetch, Place::Remote),
        "ssh-keygen" => ssh_keygen(args, out),
        "nc" | "ncat" | "netcat" | "nc.openbsd" | "nc.traditional" | "telnet" | "websocat"
        | "grpcurl" | "ngrok" | "cloudflared" | "lt" => netcat(args, out),
        "socat" => socat(args, out),
        "rclone" => rclone(args, out),
        "mail" | "mailx" | "sendmail" | "msmtp" | "mutt" | "neomutt" | "s-nail" | "ssmtp" => {
            out.place(Act::Send, Place::Remote);
            for f in values_after(args, &["-a", "-A", "--attach"]) {
                out.path(Act::Read, f);
            }
        }
        "lynx" | "w3m" | "links" | "elinks" => out.place(Act::Fetch, Place::Remote),
        _ => return false,
    }
    true
}

/// The word after the first of `names`.
fn value_after<'c>(args: &'c [Cow<'_, str>], names: &[&str]) -> Option<&'c str> {
    values_after(args, names).next()
}

/// Every word after one of `names`.
fn values_after<'c, 'n>(
    args: &'c [Cow<'_, str>],
    names: &'n [&'n str],
) -> impl Iterator<Item = &'c str> + 'n
where
    'c: 'n,
{
    args.windows(2)
        .filter(move |w| names.contains(&&*w[0]))
        .map(|w| &*w[1])
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
