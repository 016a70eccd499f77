//! The administration programs of `commands/system.toml` by form, end to end: services,
//! firewall rules, cron and users, and the reversible changes told apart from their
//! destructive neighbours.

use super::super::testing::{effects, has};

#[test]
fn services() {
    // Stopping one ordinary service is `admin`; these are not.
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
