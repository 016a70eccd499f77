//! System programs where their words need reading rather than matching: which processes
//! `kill`'s targets are and how wide a process pattern is, whether `fuser`'s names are
//! ports, which units a stop names, the shell's aliases and environment. Each is reached by
//! name from `commands/process.toml` or `commands/system.toml` (`analyser = "…"`), which hold
//! the programs, their options and every form that is words.

use super::super::{Cmd, Sink};

#[cfg(test)]
mod admin_tests;
mod process;
mod shell_state;
mod units;

pub(crate) use process::narrow as narrow_process_pattern;
pub(crate) use process::{fuser_ports, kill, process_patterns};
pub(crate) use units::{service_unit, units};

/// The shell's environment, aliases and builtins that keep code (`analyser =
/// "shell_state"`).
pub(crate) fn shell_state(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    shell_state::model(cmd, out);
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
