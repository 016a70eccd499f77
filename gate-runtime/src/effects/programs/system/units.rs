//! Which services a stop names (the programs and their verbs are data:
//! `commands/system.toml`): stopping one ordinary service (`systemctl stop app.service`,
//! `service nginx stop`) is undone by starting it, `admin`; a glob, a target, a socket, or a
//! unit the machine is reached, named, logged or protected by (`sshd`, the network: the
//! `critical-units` set) is `service`.

use std::borrow::Cow;

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::super::table::{inert, words};
use gate_spec::effect::Act;

/// Whether stopping each of `units` is reversible: an ordinary service, named (no glob, no
/// target, none the machine depends on).
fn ordinary(units: &[Cow<'_, str>]) -> bool {
    let critical = words("critical-units");
    !units.is_empty()
        && units.iter().all(|u| {
            let name = u.trim_end_matches(".service");
            !u.ends_with(".target")
                && !u.ends_with(".socket")
                && !u.contains(['*', '?', '['])
                && !u.starts_with('-')
                && !critical.iter().any(|c| c.eq_ignore_ascii_case(name))
        })
}

/// `systemctl stop|kill|freeze UNIT…` (`analyser = "units"`): `admin` when every unit is an
/// ordinary service, else `service`.
pub(crate) fn units(_: &Cmd<'_, '_>, args: &Args<'_>, rest: &[Cow<'_, str>], out: &mut Sink) {
    if !inert(args) {
        out.none(if ordinary(rest) {
            Act::Admin
        } else {
            Act::Service
        });
    }
}

/// `service NAME stop` (`analyser = "service_unit"`): the unit is the first operand.
pub(crate) fn service_unit(_: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    if !inert(args) {
        let unit = &args.operands[..args.operands.len().min(1)];
        out.none(if ordinary(unit) {
            Act::Admin
        } else {
            Act::Service
        });
    }
}
