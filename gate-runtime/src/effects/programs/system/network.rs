//! Network interfaces and routes: taking an interface down (`ip link set DEV down`,
//! `ifconfig DEV down`, `ifdown`), flushing its addresses or routes, deleting the default
//! route or turning networking off (`nmcli networking off`) cuts the machine off, as a
//! firewall that drops everything does (`firewall`). Listings do nothing.

use super::super::super::{Cmd, Sink};
use gate_spec::effect::Act;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let words: Vec<&str> = cmd
        .args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let cuts = match cmd.program {
        // `ip [OPTS] OBJECT COMMAND …`, objects and commands as unambiguous prefixes.
        "ip" => match words.as_slice() {
            [obj, set, .., state] if is(obj, "link") && is(set, "set") => *state == "down",
            [obj, cmd, ..] if is(obj, "address") || is(obj, "route") => {
                is(cmd, "flush")
                    || (is(obj, "route") && is(cmd, "delete") && words.contains(&"default"))
            }
            _ => false,
        },
        "ifconfig" => words.last() == Some(&"down"),
        "ifdown" => !words.is_empty(),
        "nmcli" => match words.as_slice() {
            [n, "off", ..] if is(n, "networking") || is(n, "radio") => true,
            [d, "disconnect" | "down", ..] if is(d, "device") || is(d, "connection") => true,
            _ => false,
        },
        "route" => words.first() == Some(&"del") && words.contains(&"default"),
        _ => return false,
    };
    if cuts {
        out.none(Act::Firewall);
    }
    true
}

/// Whether `word` is `full` or an unambiguous prefix of it as `ip` accepts (`l`, `addr`).
fn is(word: &str, full: &str) -> bool {
    !word.is_empty() && full.starts_with(word)
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn cutting_the_machine_off_the_network() {
        for line in [
            "sudo ip link set eth0 down",
            "ip l set dev eth0 down",
            "sudo ifconfig eth0 down",
            "sudo ip addr flush dev eth0",
            "sudo ip route del default",
            "sudo ifdown eth0",
            "nmcli networking off",
            "sudo route del default",
        ] {
            assert!(has(line, "firewall@none"), "{line}: {:?}", effects(line));
        }
        for line in [
            "ip link show",
            "ip a",
            "ip route",
            "ifconfig",
            "ifconfig eth0",
            "sudo ip link set eth0 up",
            "nmcli device status",
        ] {
            assert!(!has(line, "firewall@none"), "{line}: {:?}", effects(line));
        }
    }
}
