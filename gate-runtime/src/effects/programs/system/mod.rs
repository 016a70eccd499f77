//! System programs whose words need reading rather than matching: processes (kill,
//! pkill, killall) and power, services and firewall rules read whole, the reversible user
//! changes, the shell's aliases and environment. One file per sub-family, each reached by
//! name from `commands/system.toml` (`analyser = "…"`), which also holds the programs whose
//! forms are words (mounts, file systems and devices are all data: `commands/storage.toml`).

use super::super::{Cmd, Sink};

mod admin;
mod process;
mod reversible;

pub(crate) use process::narrow as narrow_process_pattern;
mod shell_state;

/// Processes and power (`analyser = "processes"`).
pub(crate) fn processes(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    process::model(cmd, out);
}

/// Services, firewall rules and users read whole (`analyser = "admin"`).
pub(crate) fn admin(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    admin::model(cmd, out);
}

/// The shell's environment, aliases and builtins that keep code (`analyser =
/// "shell_state"`).
pub(crate) fn shell_state(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    shell_state::model(cmd, out);
}

/// The operands of a command line: words not starting with `-` (after `--`, every word),
/// skipping the value of each option in `takes_value` (spelled exactly, e.g. `-u`, `--user`).
fn operands<'c>(args: &'c [std::borrow::Cow<'_, str>], takes_value: &[&str]) -> Vec<&'c str> {
    let mut out = Vec::new();
    let mut k = 0;
    let mut rest = false;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if rest || !w.starts_with('-') || w == "-" {
            out.push(w);
        } else if w == "--" {
            rest = true;
        } else if takes_value.contains(&w) {
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod hostile {
    //! Every program of the family on hostile arguments: no panic.

    use super::super::testing::effects;

    const PROGRAMS: &[&str] = &[
        "kill",
        "pkill",
        "killall",
        "killall5",
        "fuser",
        "shutdown",
        "reboot",
        "init",
        "loginctl",
        "systemctl",
        "service",
        "launchctl",
        "sysctl",
        "modprobe",
        "iptables",
        "ip",
        "ifconfig",
        "ifdown",
        "nmcli",
        "route",
        "journalctl",
        "alias",
        "printenv",
        "env",
        "export",
        "set",
        "nft",
        "ufw",
        "firewall-cmd",
        "pfctl",
        "crontab",
        "useradd",
        "passwd",
        "dscl",
        "mount",
        "umount",
        "swapon",
        "mkfs.ext4",
        "wipefs",
        "fdisk",
        "sfdisk",
        "sgdisk",
        "parted",
        "hdparm",
        "cryptsetup",
        "zpool",
        "zfs",
        "lvremove",
        "lvresize",
        "mdadm",
        "badblocks",
        "nvme",
        "diskutil",
    ];
    const ARGS: &[&str] = &[
        "-", "--", "-é", "--é=ü", "-9", "-s", "--signal", "-1", "0", "é", "-L", "-F", "stop", "-u",
        "-r", "-n", "-", "=", "/dev/sda", "$X", "*", "-o", "destroy", "print",
    ];

    #[test]
    fn no_panic_on_hostile_arguments() {
        for p in PROGRAMS {
            for a in ARGS {
                for b in ARGS {
                    let _ = effects(&format!("{p} {a} {b}"));
                }
            }
        }
    }
}
