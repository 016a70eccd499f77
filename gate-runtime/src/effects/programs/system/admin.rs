//! Administration read rather than matched: services (`systemctl`, `service`,
//! `rc-service`: which units are ordinary), firewall (`iptables`, `nft`, `ufw`,
//! `firewall-cmd`, `pfctl`: rule changes in every spelling) and the reversible user and
//! group changes ([`reversible`]). Queries (`status`, `-L`, `list`) do nothing. The
//! administration whose forms are words is data (`commands/system.toml`).

use super::super::super::{Cmd, Sink};
use super::operands;
use super::reversible;
use gate_spec::effect::Act;

/// systemctl options that take a value.
const SYSTEMCTL_VALUES: &[&str] = &[
    "-t",
    "--type",
    "-p",
    "--property",
    "-s",
    "--signal",
    "-H",
    "--host",
    "-M",
    "--machine",
    "--state",
    "--job-mode",
    "--kill-whom",
    "--kill-value",
    "--root",
    "-n",
    "--lines",
    "-o",
    "--output",
    "--what",
    "--timestamp",
    "--boot-loader-menu",
    "--boot-loader-entry",
    "--reboot-argument",
    "--message",
    "--when",
    "--image",
    "--drop-in",
    "--check-inhibitors",
    "--preset-mode",
    "--image-policy",
    "-P",
];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let p = cmd.program;
    match p {
        "systemctl" => systemctl(cmd, out),
        "service" | "rc-service" => {
            let ops = operands(cmd.args, &[]);
            // `service NAME VERB`; `--status-all` lists. Stopping one ordinary service is
            // undone by starting it.
            if let Some(verb) = ops.get(1) {
                if *verb == "stop" && reversible::ordinary_units(&ops[..1]) {
                    out.none(Act::Admin);
                } else if stops(verb) {
                    out.none(Act::Service);
                }
            }
        }
        "iptables" | "ip6tables" | "iptables-legacy" | "ip6tables-legacy" | "iptables-nft"
        | "ip6tables-nft" | "ebtables" | "arptables" => iptables(cmd, out),
        "nft" => nft(cmd, out),
        "ufw" => {
            if cmd.args.iter().any(|a| a == "--dry-run") {
                return true;
            }
            if let Some(act) = reversible::ufw(operands(cmd.args, &[]).first().copied()) {
                out.none(act);
            }
        }
        "firewall-cmd" | "firewall-offline-cmd" => {
            let changes = cmd.args.iter().any(|a| {
                let a = a.split('=').next().unwrap_or("");
                a.starts_with("--add")
                    || a.starts_with("--remove")
                    || a.starts_with("--set")
                    || a.starts_with("--change")
                    || a.starts_with("--new")
                    || a.starts_with("--delete")
                    || a.starts_with("--load")
                    || a == "--panic-on"
                    || a == "--complete-reload"
                    || a == "--runtime-to-permanent"
                    || a == "--reset-to-defaults"
            }) || cmd.args.iter().any(|a| a == "--passthrough");
            if changes {
                out.none(if reversible::firewalld_opens(cmd.args) {
                    Act::Admin
                } else {
                    Act::Firewall
                });
            }
        }
        "pfctl" => pfctl(cmd, out),
        _ if reversible::users(p, cmd.args).is_some() => {
            if !cmd.args.iter().any(|a| a == "--help") {
                if let Some(act) = reversible::users(p, cmd.args) {
                    out.none(act);
                }
            }
        }
        _ => return false,
    }
    true
}

/// Service verbs that stop, disable or mask.
fn stops(verb: &str) -> bool {
    matches!(
        verb,
        "stop"
            | "disable"
            | "mask"
            | "kill"
            | "force-stop"
            | "zap"
            | "unload"
            | "bootout"
            | "remove"
    )
}

/// `systemctl [OPTS] VERB [UNIT…]`: stop, disable, mask, kill and clean are `service`;
/// poweroff, reboot, halt, kexec, suspend, hibernate and isolating a power target are
/// `power`; queries and starting do nothing.
fn systemctl(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    if cmd.args.iter().any(|a| a == "--dry-run") {
        return;
    }
    let ops = operands(cmd.args, SYSTEMCTL_VALUES);
    let Some(verb) = ops.first().copied() else {
        return;
    };
    match verb {
        "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot" | "emergency" | "rescue" => {
            out.none(Act::Power)
        }
        // The machine sleeps and wakes with everything as it was.
        v if reversible::SLEEPS.contains(&v) => out.none(Act::Admin),
        // Stopping one ordinary service is undone by starting it.
        "stop" | "kill" | "freeze" if reversible::ordinary_units(&ops[1..]) => out.none(Act::Admin),
        "isolate" => {
            let power = ops[1..].iter().any(|u| {
                let u = u.trim_end_matches(".target");
                matches!(
                    u,
                    "poweroff"
                        | "reboot"
                        | "halt"
                        | "rescue"
                        | "emergency"
                        | "runlevel0"
                        | "runlevel6"
                        | "runlevel1"
                        | "kexec"
                )
            });
            out.none(if power { Act::Power } else { Act::Service });
        }
        "start"
        | "restart"
        | "try-restart"
        | "reload"
        | "reload-or-restart"
        | "try-reload-or-restart"
        | "condrestart"
        | "force-reload" => {
            // Starting a power target is a power-off.
            if ops[1..].iter().any(|u| {
                matches!(
                    u.trim_end_matches(".target"),
                    "poweroff" | "reboot" | "halt" | "kexec"
                )
            }) {
                out.none(Act::Power);
            }
        }
        v if stops(v) || v == "clean" || v == "freeze" => out.none(Act::Service),
        "status" | "show" | "cat" | "help" | "is-active" | "is-enabled" | "is-failed"
        | "is-system-running" | "get-default" | "show-environment" | "list-units"
        | "list-unit-files" | "list-timers" | "list-sockets" | "list-dependencies"
        | "list-jobs" | "list-machines" | "list-paths" | "list-automounts" | "enable"
        | "reenable" | "unmask" | "daemon-reload" | "daemon-reexec" | "reset-failed" | "thaw"
        | "preset" | "log-level" | "log-target" | "service-log-level" | "service-log-target"
        | "whoami" | "edit" | "set-environment" | "import-environment" | "unset-environment"
        | "add-wants" | "add-requires" | "link" | "revert" | "default" | "set-property"
        | "bind" | "mount-image" | "switch-root" | "exit" => {}
        _ => out.none(Act::Exec),
    }
}

/// `iptables`: a rule change (`-A -D -I -R -F -X -Z -N -P -E`, also in bundles and long)
/// is `firewall`; `-L`, `-S`, `-C` list or check.
fn iptables(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const VALUES: &[&str] = &[
        "-p",
        "-s",
        "-d",
        "-i",
        "-o",
        "-j",
        "-g",
        "-m",
        "-t",
        "-w",
        "-W",
        "--table",
        "--protocol",
        "--source",
        "--destination",
        "--jump",
        "--goto",
        "--match",
        "--in-interface",
        "--out-interface",
        "--wait",
        "--wait-interval",
        "--dport",
        "--sport",
        "--dports",
        "--sports",
        "--state",
        "--ctstate",
        "--to-destination",
        "--to-source",
        "--to-ports",
        "--comment",
        "--set-mark",
        "--mark",
        "--uid-owner",
        "--limit",
        "--log-prefix",
        "--icmp-type",
        "--reject-with",
        "-c",
        "--set-counters",
        "--modprobe",
    ];
    const CHANGE_LONG: &[&str] = &[
        "--append",
        "--delete",
        "--insert",
        "--replace",
        "--flush",
        "--delete-chain",
        "--zero",
        "--new-chain",
        "--new",
        "--policy",
        "--rename-chain",
    ];
    let mut k = 0;
    // The change the command makes: `adds` for a rule appended or inserted, `other` for
    // every other change (delete, flush, policy, chains).
    let (mut adds, mut other) = (false, false);
    let mut jump: Option<&str> = None;
    let mut table: Option<&str> = None;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        let w: &str = w;
        if VALUES.contains(&w) {
            let value = cmd.args.get(k).map(|v| &**v);
            match w {
                "-j" | "--jump" => jump = value,
                "-t" | "--table" => table = value,
                _ => {}
            }
            k += 1;
            continue;
        }
        let name = w.split('=').next().unwrap_or(w);
        if w.starts_with("--") {
            if CHANGE_LONG.contains(&name) {
                let add = matches!(name, "--append" | "--insert");
                adds |= add;
                other |= !add;
            }
            continue;
        }
        if let Some(flags) = w.strip_prefix('-') {
            if flags.chars().any(|c| "ADIRFXZNPE".contains(c))
                && !flags.chars().any(|c| c.is_ascii_digit())
            {
                let add = flags.chars().all(|c| "AI".contains(c));
                adds |= add;
                other |= !add;
            }
        }
    }
    if !(adds || other) {
        return;
    }
    // A rule that only lets traffic in, in the filter table (`-I INPUT -p tcp --dport 8080 -j
    // ACCEPT`), opens a port as `ufw allow` does: reversible administration. Dropping,
    // rejecting or redirecting traffic, and every other change, is the firewall's.
    let opens = adds
        && !other
        && jump.is_some_and(|j| j.eq_ignore_ascii_case("ACCEPT"))
        && table.is_none_or(|t| t == "filter");
    out.none(if opens { Act::Admin } else { Act::Firewall });
}

/// `nft [OPTS] COMMAND …` or `nft -f FILE`: `list`, `describe`, `monitor` only read; every
/// other command (add, delete, flush, reset, replace, …) and a loaded file change rules;
/// `-c`/`--check` only checks.
fn nft(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let args = cmd.args;
    if args.iter().any(|a| {
        a == "-c" || a == "--check" || a == "-v" || a == "--version" || a == "-h" || a == "--help"
    }) {
        return;
    }
    let file = args.iter().any(|a| {
        a == "-f" || a == "--file" || a.starts_with("--file=") || a == "-i" || a == "--interactive"
    });
    let ops = operands(
        args,
        &[
            "-I",
            "--includepath",
            "-D",
            "--define",
            "-d",
            "--debug",
            "-o",
            "--optimize",
        ],
    );
    // `nft 'flush ruleset'`: the command may be one word.
    let first = ops.first().and_then(|o| o.split_whitespace().next());
    let reads = matches!(first, Some("list" | "describe" | "monitor" | "export"));
    if file || (!reads && first.is_some()) {
        out.none(Act::Firewall);
    }
}

/// `pfctl`: `-d` disables, `-F` flushes, `-f` loads rules, `-k`/`-K` kill states, `-e`
/// enables; `-s` shows and `-n` only parses.
fn pfctl(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut changes = false;
    let mut parse_only = false;
    for w in cmd.args.iter() {
        if let Some(flags) = w.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            for c in flags.chars() {
                match c {
                    'd' | 'F' | 'f' | 'k' | 'K' | 'e' | 'X' => changes = true,
                    'n' => parse_only = true,
                    // The rest of a bundle is the value of `-s`/`-a`/`-t`…
                    's' | 'a' | 't' | 'T' | 'x' | 'i' | 'p' | 'D' => break,
                    _ => {}
                }
            }
        }
    }
    if changes && !parse_only {
        out.none(Act::Firewall);
    }
}

/// `crontab -l` lists; `-r` (`-ir`) removes, `-e` edits, `crontab FILE` and `crontab -`
/// (or no operand: standard input) replace the table.
#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn services() {
        // Stopping one ordinary service is `admin` (see `reversible`); these are not.
        for line in [
            "systemctl stop sshd",
            "sudo systemctl disable --now sshd",
            "systemctl mask docker.socket",
            "systemctl disable app",
            "systemctl --user stop 'pipewire*'",
            "systemctl -H host stop networking",
            "systemctl clean --what=state app",
            "systemctl isolate multi-user.target",
            "service nginx disable",
            "sudo service ssh stop",
            "rc-service sshd stop",
            "rc-update del sshd default",
            "update-rc.d ssh disable",
            "chkconfig sshd off",
            "sv down nginx",
            "launchctl unload -w ~/Library/LaunchAgents/x.plist",
            "launchctl unload /Library/LaunchDaemons/x.plist",
            "launchctl unload ~/Library/LaunchAgents/a.plist ~/Library/LaunchAgents/b.plist",
            "launchctl bootout gui/501/x",
            "sudo launchctl stop com.x",
            "systemctl stop graphical.target",
            "sysctl -w net.ipv4.ip_forward=0",
            "sysctl kernel.panic=1",
            "sysctl -p",
            "sudo sysctl --system",
            "modprobe -r nvidia",
            "rmmod e1000e",
            "modprobe --remove kvm",
            "modprobe -rv nvidia",
            "modprobe -qr kvm",
            "sysctl --wr vm.swappiness=10",
        ] {
            assert_eq!(effects(line), vec!["service@none"], "{line}");
        }
        for line in [
            "systemctl status nginx",
            "systemctl list-units --type=service",
            "systemctl is-active x",
            "systemctl show -p MainPID x",
            "systemctl cat x",
            "systemctl start nginx",
            "systemctl restart app",
            "systemctl daemon-reload",
            "systemctl enable --now x",
            "systemctl --dry-run stop x",
            "service nginx status",
            "service --status-all",
            "launchctl list",
            "sysctl -a",
            "sysctl net.ipv4.ip_forward",
            "modprobe kvm",
            "systemctl",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        assert_eq!(effects("systemctl frobnicate x"), vec!["exec@none"]);
    }

    #[test]
    fn systemctl_power() {
        for line in [
            "systemctl poweroff",
            "sudo systemctl reboot",
            "systemctl halt",
            "systemctl kexec",
            "systemctl -i reboot",
            "systemctl isolate poweroff.target",
            "systemctl start reboot.target",
            "systemctl --force --force poweroff",
            "systemctl soft-reboot",
        ] {
            assert_eq!(effects(line), vec!["power@none"], "{line}");
        }
    }

    #[test]
    fn a_rule_that_only_lets_traffic_in_opens_a_port() {
        for line in [
            "iptables -I INPUT -s 1.2.3.4 -j ACCEPT",
            "sudo iptables -A INPUT -p tcp --dport 8080 -j ACCEPT",
            "iptables -I INPUT 1 -i tun+ -s $VPN_SUBNET/24 -j ACCEPT",
            "ip6tables --append INPUT -p udp --dport 51820 --jump ACCEPT",
        ] {
            assert_eq!(effects(line), vec!["admin@none"], "{line}");
        }
    }

    #[test]
    fn firewall() {
        for line in [
            "iptables -F",
            "sudo iptables --flush",
            "iptables -X",
            "iptables -t nat -F",
            "iptables -P INPUT DROP",
            "iptables --policy INPUT ACCEPT",
            "iptables -A INPUT -p tcp --dport 22 -j DROP",
            "iptables -D INPUT 1",
            "iptables -Z",
            "iptables -t nat -A PREROUTING -p tcp --dport 80 -j DNAT --to-destination 10.0.0.2",
            "iptables -A INPUT -j REJECT",
            "ip6tables -F",
            "iptables -vF",
            "nft flush ruleset",
            "nft 'flush ruleset'",
            "nft delete table inet filter",
            "nft add rule inet filter input drop",
            "nft -f /etc/nftables.conf",
            "ufw disable",
            "sudo ufw reset",
            "ufw --force reset",
            "ufw delete 1",
            "ufw deny 22",
            "ufw default deny incoming",
            "firewall-cmd --remove-service=ssh",
            "firewall-cmd --panic-on",
            "firewall-cmd --permanent --add-port=80/tcp --remove-port=22/tcp",
            "pfctl -d",
            "pfctl -F all",
            "pfctl -f /etc/pf.conf",
            "sudo pfctl -Fa -f x",
        ] {
            assert_eq!(effects(line), vec!["firewall@none"], "{line}");
        }
        assert_eq!(effects("iptables-restore --test < x"), vec!["read@source"]);
        assert_eq!(
            effects("iptables-restore < rules.v4"),
            vec!["firewall@none", "read@source"]
        );
        for line in [
            "iptables -L",
            "iptables -nvL",
            "iptables -L -n -v",
            "iptables -S",
            "iptables --list",
            "iptables -t nat -L",
            "iptables -C INPUT -j DROP",
            "iptables-save",
            "nft list ruleset",
            "nft -c -f x.conf",
            "ufw status",
            "ufw status verbose",
            "ufw app list",
            "ufw --dry-run disable",
            "firewall-cmd --list-all",
            "firewall-cmd --state",
            "firewall-cmd --get-zones",
            "pfctl -s rules",
            "pfctl -sr",
            "pfctl -nf /etc/pf.conf",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn cron() {
        for line in [
            "crontab -r",
            "crontab -ir",
            "crontab -ri",
            "crontab -u bob -r",
            "sudo crontab -r -u root",
            "crontab -",
            "echo '* * * * * x' | crontab -",
            "crontab",
            "atrm 3",
        ] {
            assert!(has(line, "cron@none"), "{line}");
        }
        assert!(has("crontab jobs.txt", "cron@none"));
        // An edit in the user's editor is a write the user sees, not a replacement.
        assert_eq!(effects("crontab -e"), vec!["write@system"]);
        assert!(has("crontab jobs.txt", "read@source"));
        for line in ["crontab -l", "crontab -u bob -l", "sudo crontab -l -u root"] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn users() {
        for line in [
            "useradd -m -G sudo bob",
            "sudo userdel -r bob",
            "usermod -aG sudo bob",
            "groupadd -g 0 -o dev",
            "groupdel dev",
            "passwd",
            "passwd bob",
            "echo 'bob:pw' | chpasswd",
            "deluser bob",
            "adduser --disabled-password bob sudo",
            "gpasswd -M bob,alice docker",
            "chage -E 0 bob",
            "visudo",
            "dscl . -delete /Users/bob",
            "sudo dscl . -create /Users/x",
            "dscl . -passwd /Users/bob pw",
            "sysadminctl -deleteUser bob",
            "pw userdel bob",
            "chsh -s /bin/zsh",
        ] {
            assert!(has(line, "users@none"), "{line}");
        }
        for line in [
            "passwd -S bob",
            "chage -l bob",
            "dscl . -read /Users/bob",
            "dscl . -list /Users",
            "visudo -c",
            "id bob",
        ] {
            assert!(!has(line, "users@none"), "{line}");
        }
    }
}
