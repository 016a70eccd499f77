//! Reversible administration (`admin`), told apart from its destructive neighbours: adding
//! a user, a group or a member of an ordinary group (`adduser bob`, `usermod -aG docker
//! bob`) is undone by removing it, and removing one (`userdel -r bob`) is not; opening a
//! firewall port (`ufw allow 8080`) is undone by closing it, and flushing or disabling the
//! firewall is not; stopping one ordinary service (`systemctl stop app.service`) is undone
//! by starting it, and disabling, masking, or stopping what the machine is reached or run
//! by (`sshd`, the network, a target) is not; suspending the machine ends nothing. What is
//! known is data: the groups that grant root, the units the machine depends on.

use std::borrow::Cow;

use super::super::super::getopt::{self, Grammar};
use gate_spec::effect::Act;

/// Groups whose members are root, or can read what root can (a member added is a new
/// administrator, `users`).
const PRIVILEGED_GROUPS: &[&str] = &[
    "root", "sudo", "wheel", "admin", "adm", "shadow", "disk", "staff", "lxd", "kvm",
];

/// Units the machine is reached, named, logged or protected by: stopping one is `service`
/// (`systemctl stop sshd` can lock every user out of a remote machine).
const CRITICAL_UNITS: &[&str] = &[
    "ssh",
    "sshd",
    "networking",
    "network",
    "NetworkManager",
    "systemd-networkd",
    "systemd-resolved",
    "wpa_supplicant",
    "dbus",
    "dbus-broker",
    "systemd-logind",
    "systemd-journald",
    "systemd-udevd",
    "display-manager",
    "gdm",
    "gdm3",
    "sddm",
    "lightdm",
    "firewalld",
    "ufw",
    "nftables",
    "iptables",
    "apparmor",
    "auditd",
    "polkit",
    "getty@tty1",
    "tailscaled",
    "cloudflared",
];

/// Whether stopping each of `units` is reversible: an ordinary service, named (no glob, no
/// target, none the machine depends on).
pub(super) fn ordinary_units(units: &[&str]) -> bool {
    !units.is_empty()
        && units.iter().all(|u| {
            let name = u.trim_end_matches(".service");
            !u.ends_with(".target")
                && !u.ends_with(".socket")
                && !u.contains(['*', '?', '['])
                && !u.starts_with('-')
                && !CRITICAL_UNITS.iter().any(|c| c.eq_ignore_ascii_case(name))
        })
}

/// `systemctl` verbs that sleep the machine: it wakes with everything as it was.
pub(super) const SLEEPS: &[&str] = &[
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "sleep",
];

const USERADD: Grammar = Grammar {
    short: "DlmMNorU",
    short_value: "bcdefgGkKpsuZR",
    long: &[
        "defaults",
        "no-log-init",
        "create-home",
        "no-create-home",
        "no-user-group",
        "non-unique",
        "system",
        "user-group",
        "help",
    ],
    long_value: &[
        "base-dir",
        "comment",
        "home-dir",
        "expiredate",
        "inactive",
        "gid",
        "groups",
        "skel",
        "key",
        "password",
        "shell",
        "uid",
        "selinux-user",
        "root",
        "prefix",
    ],
    posix: false,
};

const USERMOD: Grammar = Grammar {
    short: "aLmUor",
    short_value: "cdefgGlpsuvVwWZRP",
    long: &[
        "append",
        "lock",
        "move-home",
        "unlock",
        "non-unique",
        "remove",
    ],
    long_value: &[
        "comment",
        "home",
        "expiredate",
        "inactive",
        "gid",
        "groups",
        "login",
        "password",
        "shell",
        "uid",
        "add-subuids",
        "del-subuids",
        "add-subgids",
        "del-subgids",
        "selinux-user",
        "root",
        "prefix",
    ],
    posix: false,
};

/// Debian's `adduser`/`addgroup`: long options, a few with values.
const ADDUSER: Grammar = Grammar {
    short: "qDv",
    short_value: "cu",
    long: &[
        "system",
        "group",
        "disabled-password",
        "disabled-login",
        "no-create-home",
        "quiet",
        "debug",
        "force-badname",
        "allow-badname",
        "allow-all-names",
        "add-extra-groups",
        "add_extra_groups",
        "encrypt-home",
        "verbose",
    ],
    long_value: &[
        "home",
        "shell",
        "ingroup",
        "gid",
        "uid",
        "firstuid",
        "lastuid",
        "firstgid",
        "lastgid",
        "gecos",
        "comment",
        "conf",
        "extrausers",
    ],
    posix: false,
};

const GPASSWD: Grammar = Grammar {
    short: "rRQ",
    short_value: "adAM",
    long: &["remove-password", "restrict"],
    long_value: &["add", "delete", "administrators", "members", "root"],
    posix: false,
};

fn privileged(groups: &str) -> bool {
    groups.split(',').any(|g| {
        PRIVILEGED_GROUPS
            .iter()
            .any(|p| p.eq_ignore_ascii_case(g.trim()))
    })
}

/// What a user-administration program does: `admin` for an addition that its removal undoes
/// (a user, a group, a member of an ordinary group), else `users`. `None` when it is not
/// one of these programs.
pub(super) fn users(program: &str, args: &[Cow<'_, str>]) -> Option<Act> {
    let root_id = |v: Option<&str>| v.is_some_and(|v| v.trim() == "0");
    let reversible = match program {
        "useradd" | "luseradd" => {
            let a = getopt::read(&USERADD, args);
            a.operands.len() == 1
                && !a.any(&["o", "non-unique"])
                && !root_id(a.value("u").or(a.value("uid")))
                && !root_id(a.value("g").or(a.value("gid")))
                && !a.values(&["G", "groups", "g", "gid"]).any(privileged)
        }
        "groupadd" | "addgroup" => {
            let a = getopt::read(&ADDUSER, args);
            a.operands.len() == 1
                && !a.operands.iter().any(|g| privileged(g))
                && !root_id(a.value("gid"))
                && !args
                    .iter()
                    .any(|w| w == "-o" || w == "--non-unique" || w == "-g")
        }
        "adduser" => {
            let a = getopt::read(&ADDUSER, args);
            // `adduser USER` adds a user, `adduser USER GROUP` a member to a group.
            matches!(a.operands.len(), 1 | 2)
                && !a.operands[1..].iter().any(|g| privileged(g))
                && !a.values(&["ingroup"]).any(privileged)
                && !root_id(a.value("uid"))
                && !root_id(a.value("gid"))
        }
        "usermod" => {
            let a = getopt::read(&USERMOD, args);
            // Only `-a -G GROUPS USER`: without `-a`, `-G` replaces every group the user has.
            let only_append = a
                .opts
                .iter()
                .all(|o| matches!(&*o.name, "a" | "append" | "G" | "groups"));
            only_append
                && a.any(&["a", "append"])
                && a.operands.len() == 1
                && !a.values(&["G", "groups"]).any(privileged)
        }
        "gpasswd" => {
            let a = getopt::read(&GPASSWD, args);
            a.opts.len() == 1
                && a.any(&["a", "add"])
                && a.operands.len() == 1
                && !privileged(a.operands[0].as_ref())
        }
        _ => return None,
    };
    Some(if reversible { Act::Admin } else { Act::Users })
}

/// `ufw VERB …`: opening (`allow`, `limit`) or logging is `admin`; anything else that
/// changes rules (`deny`, `delete`, `disable`, `reset`, `default`, `enable`, `insert`) is
/// `firewall`. `None` for a query.
pub(super) fn ufw(verb: Option<&str>) -> Option<Act> {
    match verb {
        None | Some("status" | "show" | "version" | "help" | "app") => None,
        // `reload` applies the rules already configured.
        Some("allow" | "limit" | "logging" | "reload") => Some(Act::Admin),
        Some(_) => Some(Act::Firewall),
    }
}

/// `firewall-cmd` options that open a port or a service (`--add-port=8080/tcp`), apply the
/// permanent set (`--reload`) or only say where: with only these the change is `admin`.
pub(super) fn firewalld_opens(args: &[Cow<'_, str>]) -> bool {
    args.iter().all(|a| {
        let name = a.split('=').next().unwrap_or("");
        matches!(
            name,
            "--add-port"
                | "--add-service"
                | "--permanent"
                | "--zone"
                | "--reload"
                | "-q"
                | "--quiet"
        ) || !a.starts_with('-')
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::effects;

    #[test]
    fn additions_are_reversible() {
        for line in [
            "adduser bob",
            "sudo adduser --disabled-password --gecos '' bob",
            "useradd -m -s /bin/bash bob",
            "sudo useradd -m bob",
            "groupadd devs",
            "addgroup devs",
            "usermod -aG docker $USER",
            "sudo usermod -a -G docker,video bob",
            "usermod --append --groups docker bob",
            "gpasswd -a bob docker",
            "adduser bob docker",
            "ufw allow 8080",
            "sudo ufw allow 22/tcp",
            "ufw limit ssh",
            "sudo ufw reload",
            "firewall-cmd --add-port=8080/tcp",
            "firewall-cmd --permanent --zone=public --add-service=http",
            "systemctl stop one.service",
            "sudo systemctl stop nginx",
            "systemctl kill app",
            "service nginx stop",
            "systemctl suspend",
            "systemctl hibernate",
        ] {
            assert_eq!(effects(line), vec!["admin@none"], "{line}");
        }
    }

    #[test]
    fn destructive_neighbours_stay() {
        for (line, act) in [
            ("userdel -r bob", "users@none"),
            ("deluser bob", "users@none"),
            ("usermod -G docker bob", "users@none"),
            ("usermod -aG sudo bob", "users@none"),
            ("usermod -L bob", "users@none"),
            ("useradd -o -u 0 toor", "users@none"),
            ("useradd -G wheel bob", "users@none"),
            ("adduser bob sudo", "users@none"),
            ("gpasswd -d bob docker", "users@none"),
            ("passwd bob", "users@none"),
            ("ufw disable", "firewall@none"),
            ("ufw reset", "firewall@none"),
            ("ufw deny 22", "firewall@none"),
            ("ufw default allow incoming", "firewall@none"),
            ("iptables -F", "firewall@none"),
            ("firewall-cmd --remove-service=ssh", "firewall@none"),
            ("firewall-cmd --panic-on", "firewall@none"),
            ("systemctl disable --now sshd", "service@none"),
            ("systemctl stop sshd", "service@none"),
            ("systemctl stop NetworkManager.service", "service@none"),
            ("systemctl stop multi-user.target", "service@none"),
            ("systemctl mask app", "service@none"),
            ("service ssh stop", "service@none"),
            ("systemctl poweroff", "power@none"),
            ("systemctl reboot", "power@none"),
        ] {
            assert_eq!(effects(line), vec![act], "{line}");
        }
    }
}
