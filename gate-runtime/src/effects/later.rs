//! Files whose contents something else runs or obeys later: a write to one of them is more
//! than a write. Shell start-up files, cron tables, service units, autostart entries and the
//! loader's preload list schedule code (`cron`); the account and sudo databases grant
//! privilege (`users`). The write itself stays an effect of its own; this adds the second.
//! When the line shows the text it writes, that text decides too: a line added to a shell
//! start-up file is code every later shell runs (analysed as such, and a `PATH` that puts a
//! temporary directory first or an `LD_PRELOAD` is `cron`), and a package manager's
//! configuration that names where packages come from (`registry=`, `index-url =`) decides
//! what code later installs run (`cron`), as a hosts entry or name server that sends a name
//! elsewhere decides what every later connection reaches (`cron`). The running kernel's
//! own files are obeyed at once: a setting written under `/proc/sys` or `/sys` is a
//! `service` change (as `sysctl -w` is), and `/proc/sysrq-trigger` reboots or halts the
//! machine (`power`).

use gate_spec::effect::Act;

/// Names in the home directory that a shell or session runs when it starts.
const HOME_STARTUP: &[&[&str]] = &[
    &[".bashrc"],
    // Sourced by the stock `.bashrc` of Debian and Ubuntu.
    &[".bash_aliases"],
    &[".bash_profile"],
    &[".bash_login"],
    &[".bash_logout"],
    &[".profile"],
    &[".zshrc"],
    &[".zshenv"],
    &[".zprofile"],
    &[".zlogin"],
    &[".zlogout"],
    &[".kshrc"],
    &[".mkshrc"],
    &[".cshrc"],
    &[".tcshrc"],
    &[".login"],
    &[".xprofile"],
    &[".xinitrc"],
    &[".xsession"],
    &[".pam_environment"],
    &[".ssh", "rc"],
    &[".config", "fish", "config.fish"],
    &[".config", "fish", "conf.d"],
    &[".config", "autostart"],
    &[".config", "systemd", "user"],
    &[".config", "environment.d"],
    &["Library", "LaunchAgents"],
];

/// System locations (from the root) whose files are run at start-up or on a schedule.
const SYSTEM_STARTUP: &[&[&str]] = &[
    &["etc", "profile"],
    &["etc", "profile.d"],
    &["etc", "bash.bashrc"],
    &["etc", "bashrc"],
    &["etc", "zshrc"],
    &["etc", "zsh"],
    &["etc", "environment"],
    &["etc", "rc.local"],
    &["etc", "init.d"],
    &["etc", "systemd"],
    &["lib", "systemd"],
    &["usr", "lib", "systemd"],
    &["etc", "xdg", "autostart"],
    &["etc", "crontab"],
    &["etc", "cron.d"],
    &["etc", "cron.hourly"],
    &["etc", "cron.daily"],
    &["etc", "cron.weekly"],
    &["etc", "cron.monthly"],
    &["etc", "anacrontab"],
    &["var", "spool", "cron"],
    &["etc", "ld.so.preload"],
    &["etc", "udev", "rules.d"],
    &["Library", "LaunchAgents"],
    &["Library", "LaunchDaemons"],
];

/// System files that say who may log in and who may act as root.
/// Files of the running kernel that it obeys when written, and what writing one is: a
/// setting (`echo 1 > /proc/sys/net/ipv4/ip_forward`, `tee /sys/block/sda/queue/scheduler`)
/// or a command to the machine (`echo b > /proc/sysrq-trigger` reboots it).
const KERNEL: &[(&[&str], Act)] = &[
    (&["proc", "sysrq-trigger"], Act::Power),
    (&["proc", "sys"], Act::Service),
    (&["sys"], Act::Service),
];

const PRIVILEGE: &[&[&str]] = &[
    &["etc", "passwd"],
    &["etc", "shadow"],
    &["etc", "group"],
    &["etc", "gshadow"],
    &["etc", "sudoers"],
    &["etc", "sudoers.d"],
    &["etc", "doas.conf"],
    &["etc", "pam.d"],
    &["etc", "security"],
    &["etc", "ssh", "sshd_config"],
    &["etc", "ssh", "sshd_config.d"],
];

/// Directories (from the root) a service manager reads its service definitions from.
const SERVICE_DIRS: &[&[&str]] = &[
    &["etc", "systemd", "system"],
    &["etc", "systemd", "user"],
    &["lib", "systemd", "system"],
    &["usr", "lib", "systemd", "system"],
    &["Library", "LaunchDaemons"],
    &["Library", "LaunchAgents"],
];

/// The names a service definition in one of [`SERVICE_DIRS`] ends with.
const SERVICE_SUFFIXES: &[&str] = &[
    ".service", ".timer", ".socket", ".path", ".mount", ".target", ".plist",
];

/// Whether `resolved` (absolute, normalised) is one named service definition, directly in a
/// service manager's directory (`/etc/systemd/system/app.service`,
/// `/Library/LaunchDaemons/com.x.plist`): not the directory, not a selection (`*.service`).
pub fn is_service_definition(resolved: &str) -> bool {
    let parts: Vec<&str> = resolved.split('/').filter(|c| !c.is_empty()).collect();
    let Some((leaf, dir)) = parts.split_last() else {
        return false;
    };
    !leaf.contains(['*', '?', '[', '{', '$'])
        && SERVICE_SUFFIXES
            .iter()
            .any(|s| leaf.len() > s.len() && leaf.ends_with(s))
        && SERVICE_DIRS.iter().any(|d| {
            d.len() == dir.len() && d.iter().zip(dir).all(|(a, b)| a.eq_ignore_ascii_case(b))
        })
}

/// The second effect of changing (by `act`) the file at `resolved` (an absolute, normalised
/// path), if something runs or obeys it later; `home` is the user's home directory. A line
/// added to one's own shell start-up file (`>> ~/.bashrc`) is ordinary set-up and stays a
/// dotfile write; replacing or removing it, or any change to the system's, is not.
pub fn runs_later(resolved: &str, home: &str, act: Act) -> Option<Act> {
    let parts: Vec<&str> = resolved.split('/').filter(|c| !c.is_empty()).collect();
    let home: Vec<&str> = home.split('/').filter(|c| !c.is_empty()).collect();
    let under = |base: &[&str], list: &[&[&str]]| {
        parts.len() > base.len()
            && parts[..base.len()]
                .iter()
                .zip(base)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
            && list.iter().any(|entry| {
                let rest = &parts[base.len()..];
                rest.len() >= entry.len()
                    && rest
                        .iter()
                        .zip(entry.iter())
                        .all(|(a, b)| a.eq_ignore_ascii_case(b))
            })
    };
    if under(&[], PRIVILEGE) {
        return Some(Act::Users);
    }
    if matches!(act, Act::Write | Act::Overwrite) {
        let kernel = KERNEL.iter().find(|(file, _)| {
            parts.len() >= file.len() && parts.iter().zip(file.iter()).all(|(a, b)| a == b)
        });
        if let Some((_, obeyed)) = kernel {
            return Some(*obeyed);
        }
    }
    let own_startup = !home.is_empty() && under(&home, HOME_STARTUP);
    if under(&[], SYSTEM_STARTUP) || (own_startup && act != Act::Write) {
        return Some(Act::Cron);
    }
    // A link's own effect names what it points to; its name is a write, checked as one.
    if act != Act::Link && shadows_a_program(&parts, &home) {
        return Some(Act::Cron);
    }
    None
}

/// Directories of programs on the usual search path: the system's, and the user's own
/// (`~/.local/bin`, `~/bin`, `~/.cargo/bin`), which shells often put first.
const PROGRAM_DIRS: &[&[&str]] = &[
    &["usr", "local", "bin"],
    &["usr", "local", "sbin"],
    &["usr", "bin"],
    &["usr", "sbin"],
    &["bin"],
    &["sbin"],
    &["opt", "homebrew", "bin"],
];
const HOME_PROGRAM_DIRS: &[&[&str]] = &[&[".local", "bin"], &["bin"], &[".cargo", "bin"]];

/// Programs every system has in `/usr/bin` or `/bin`, and the agents' own CLIs: a file of
/// one of these names in a directory earlier on the search path runs in their place.
const BASE_PROGRAMS: &[&str] = &[
    "rm", "cp", "mv", "ln", "ls", "cat", "chmod", "chown", "find", "grep", "sed", "awk", "tar",
    "curl", "wget", "ssh", "scp", "rsync", "sh", "bash", "zsh", "dash", "env", "sudo", "su",
    "doas", "python3", "perl", "make", "kill", "tee", "xargs", "dd", "git", "gpg", "id", "whoami",
    "ps", "which", "test", "head", "tail", "sort", "cut", "date", "gate", "claude", "codex",
    "gemini", "copilot",
];

/// Whether a file at `parts` is a base program put in a directory of programs (`cp x
/// ~/.local/bin/git`, `install evil /usr/local/bin/sudo`): it runs in place of that program
/// in every later command that names it. A tool of its own name (`~/.local/bin/mytool`,
/// `/usr/local/bin/kubectl`) shadows nothing.
fn shadows_a_program(parts: &[&str], home: &[&str]) -> bool {
    let Some((name, dir)) = parts.split_last() else {
        return false;
    };
    let in_dir = |base: &[&str], list: &[&[&str]]| {
        list.iter().any(|d| {
            dir.len() == base.len() + d.len()
                && dir[..base.len()] == *base
                && dir[base.len()..] == **d
        })
    };
    let program_dir =
        in_dir(&[], PROGRAM_DIRS) || (!home.is_empty() && in_dir(home, HOME_PROGRAM_DIRS));
    program_dir && BASE_PROGRAMS.contains(name)
}

/// Whether a write target, as written, could be a file whose text this module reads (a
/// start-up file, a package manager's configuration, the hosts file): a cheap test on the
/// words before the target is resolved, so that an ordinary `> out.txt` costs nothing more.
pub fn may_be_read_later(target: &str) -> bool {
    // What every such path contains, compared without case.
    const NEEDLES: &[&str] = &[
        "rc.",
        "profile",
        "login",
        "logout",
        "zsh",
        "bash",
        "xsession",
        "environment",
        "fish",
        "autostart",
        "systemd",
        "launchagents",
        "pip.",
        "uv.toml",
        "bunfig",
        "cargo/config",
        "hosts",
        "resolv.conf",
        "$",
        "~",
    ];
    // A variable or `~` may stand for anything; resolving it is what tells.
    let bytes = target.as_bytes();
    // `.bashrc`, `.npmrc`, `.ssh/rc` end in `rc`; `.yarnrc.yml` has `rc.` (in NEEDLES).
    let ends_rc = bytes.len() >= 2 && bytes[bytes.len() - 2..].eq_ignore_ascii_case(b"rc");
    ends_rc
        || NEEDLES.iter().any(|n| {
            bytes
                .windows(n.len())
                .any(|w| w.eq_ignore_ascii_case(n.as_bytes()))
        })
}

/// Whether `resolved` is one of the user's own shell start-up files (`~/.bashrc`, …).
pub fn is_own_startup(resolved: &str, home: &str) -> bool {
    let Some(rest) = resolved.strip_prefix(home) else {
        return false;
    };
    !home.is_empty()
        && rest.starts_with('/')
        && HOME_STARTUP.iter().any(|entry| {
            let mut parts = rest.split('/').filter(|c| !c.is_empty());
            entry
                .iter()
                .all(|b| parts.next().is_some_and(|a| a.eq_ignore_ascii_case(b)))
        })
}

/// The directory a start-up line puts first on `PATH` (`export PATH=/tmp/x:$PATH`), and
/// whether it sets the loader's preload list; the caller classes the directory.
pub fn path_first(text: &str) -> (Option<&str>, bool) {
    let mut first = None;
    let mut preload = false;
    for word in text.split([';', '\n', ' ', '&', '|']) {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        if let Some(v) = word.strip_prefix("PATH=") {
            let dir = v.trim_matches(|c| c == '"' || c == '\'').split(':').next();
            if dir.is_some_and(|d| !d.is_empty() && !d.starts_with('$')) {
                first = dir;
            }
        }
        preload |= word.starts_with("LD_PRELOAD=") || word.starts_with("DYLD_INSERT_LIBRARIES=");
    }
    (first, preload)
}

/// Whether `resolved` is a file that decides where every later connection goes by name
/// (`/etc/hosts`, `/etc/resolv.conf`).
pub fn is_name_config(resolved: &str) -> bool {
    matches!(
        resolved,
        "/etc/hosts" | "/etc/resolv.conf" | "/private/etc/hosts" | "/private/etc/resolv.conf"
    )
}

/// Whether lines written to a name file send a name somewhere else: a hosts entry whose
/// address is not this machine's loopback or the null address (`1.2.3.4 github.com`; a
/// `127.0.0.1 myapp.local` or `0.0.0.0 ads.example` is not), or a `nameserver` line.
pub fn redirects_names(text: &str) -> bool {
    text.lines().any(|line| {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("nameserver"), Some(_)) => true,
            (Some(addr), Some(_)) if !addr.starts_with('#') => {
                let local = addr.starts_with("127.")
                    || addr == "::1"
                    || addr == "0.0.0.0"
                    || addr == "::"
                    || addr.starts_with("fe80:");
                !local
                    && addr
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() || b == b'.' || b == b':')
            }
            _ => false,
        }
    })
}

/// Package managers' configuration files, by name.
const PACKAGE_CONFIG: &[&str] = &[
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmrc",
    "pip.conf",
    "pip.ini",
    ".condarc",
    ".gemrc",
    ".pydistutils.cfg",
    "uv.toml",
    "bunfig.toml",
];

/// Whether `resolved` is a package manager's configuration (`.npmrc`, `pip.conf`,
/// `.cargo/config.toml`, …).
pub fn is_package_config(resolved: &str) -> bool {
    let name = resolved.rsplit('/').next().unwrap_or(resolved);
    PACKAGE_CONFIG.iter().any(|n| name.eq_ignore_ascii_case(n))
        || resolved.ends_with("/.cargo/config.toml")
        || resolved.ends_with("/.cargo/config")
}

/// Keys of package managers' configuration that say where code comes from, or whether it is
/// checked: the registry, index, mirror or channel, TLS checking, the program run for scripts.
const SOURCE_KEYS: &[&str] = &[
    "registry",
    "index-url",
    "extra-index-url",
    "find-links",
    "trusted-host",
    "index",
    "npmregistryserver",
    "yarnpath",
    "script-shell",
    "strict-ssl",
    "replace-with",
    "channels",
    "default_channels",
    "channel_alias",
    "source",
    "sources",
    "unsafehttpwhitelist",
    "enablestrictssl",
];

/// Whether configuration `text` (`key=value`, `key = value`, `key: value` lines, or
/// `[source.*]` tables) sets where a package manager fetches code from.
pub fn names_package_source(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim();
        if line.starts_with("[source") {
            return true;
        }
        let Some(at) = line.find(['=', ':']) else {
            return false;
        };
        let key = line[..at].trim().trim_matches('"').to_ascii_lowercase();
        // `@scope:registry=…`, `global.index-url`, `//host/:_authToken` is a credential.
        let key = key.rsplit(['.', ':']).next().unwrap_or(&key).to_string();
        let key = if line[..at].trim_end().ends_with(":registry") {
            "registry".to_string()
        } else {
            key
        };
        SOURCE_KEYS.contains(&key.as_str())
    }) || text.contains(":registry=")
}

/// What kind of file, read later, a text lands in: a shell start-up file (the text is code
/// every later shell runs), where names are resolved, or a package manager's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lands {
    Startup,
    Names,
    Packages,
}

/// The kind of file at `resolved` (absolute, normalised) a text written there lands in.
pub fn lands(resolved: &str, home: &str) -> Option<Lands> {
    if is_own_startup(resolved, home) {
        Some(Lands::Startup)
    } else if is_name_config(resolved) {
        Some(Lands::Names)
    } else if is_package_config(resolved) {
        Some(Lands::Packages)
    } else {
        None
    }
}

/// Whether `text`, landing in a file of kind `lands`, makes the write `cron`: a start-up
/// line that puts a temporary directory (`is_temp`) first on `PATH` or sets a preload list,
/// a name sent elsewhere, a package source. (A start-up file's text is also analysed as code
/// by the caller, each surface its own way.)
pub fn text_is_cron(lands: Lands, text: &str, is_temp: impl Fn(&str) -> bool) -> bool {
    match lands {
        Lands::Startup => {
            let (first, preload) = path_first(text);
            preload || first.is_some_and(is_temp)
        }
        Lands::Names => redirects_names(text),
        Lands::Packages => names_package_source(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_files_are_obeyed_when_written() {
        let h = "/home/u";
        for p in [
            "/proc/sys/kernel/sysrq",
            "/proc/sys/net/ipv4/ip_forward",
            "/sys/block/sda/queue/scheduler",
            "/sys/class/net/eth0/mtu",
        ] {
            assert_eq!(runs_later(p, h, Act::Write), Some(Act::Service), "{p}");
        }
        assert_eq!(
            runs_later("/proc/sysrq-trigger", h, Act::Overwrite),
            Some(Act::Power)
        );
        // Read, or a name that only begins the same way, it is nothing more.
        assert_eq!(runs_later("/proc/sys/kernel/sysrq", h, Act::Read), None);
        assert_eq!(runs_later("/system/x", h, Act::Write), None);
        assert_eq!(runs_later("/proc/cpuinfo", h, Act::Write), None);
    }

    #[test]
    fn a_base_program_put_earlier_on_the_search_path_runs_later() {
        let h = "/home/u";
        for p in [
            "/home/u/.local/bin/git",
            "/home/u/bin/sudo",
            "/home/u/.cargo/bin/ls",
            "/usr/local/bin/ssh",
            "/opt/homebrew/bin/claude",
        ] {
            assert_eq!(runs_later(p, h, Act::Write), Some(Act::Cron), "{p}");
        }
        for p in [
            "/home/u/.local/bin/mytool",
            "/usr/local/bin/kubectl",
            "/usr/local/bin/composer",
            "/home/u/proj/bin/git",
            "/home/u/.local/share/git",
            "/usr/bin/python",
        ] {
            assert_eq!(runs_later(p, h, Act::Write), None, "{p}");
        }
    }

    #[test]
    fn one_named_unit_in_a_service_directory_is_a_service_definition() {
        for p in [
            "/etc/systemd/system/app.service",
            "/usr/lib/systemd/system/backup.timer",
            "/Library/LaunchDaemons/com.example.agent.plist",
        ] {
            assert!(is_service_definition(p), "{p}");
        }
        for p in [
            "/etc/systemd/system",
            "/etc/systemd/system/*.service",
            "/etc/systemd/system/app.service.d",
            "/etc/systemd/system/multi-user.target.wants/app.service",
            "/etc/sudoers",
            "/home/u/proj/app.service",
        ] {
            assert!(!is_service_definition(p), "{p}");
        }
    }

    #[test]
    fn start_up_files_schedule_code_and_account_files_grant_privilege() {
        let h = "/home/u";
        for p in [
            "/home/u/.bashrc",
            "/home/u/.ZSHRC",
            "/home/u/.config/fish/conf.d/x.fish",
            "/home/u/.config/systemd/user/x.service",
            "/etc/profile.d/evil.sh",
            "/etc/cron.d/job",
            "/var/spool/cron/crontabs/u",
            "/etc/ld.so.preload",
        ] {
            assert_eq!(runs_later(p, h, Act::Overwrite), Some(Act::Cron), "{p}");
        }
        for p in [
            "/etc/sudoers",
            "/etc/sudoers.d/eve",
            "/etc/passwd",
            "/etc/pam.d/sshd",
        ] {
            assert_eq!(runs_later(p, h, Act::Overwrite), Some(Act::Users), "{p}");
        }
        for p in [
            "/home/u/.bashrc.bak/x",
            "/home/u/proj/.bashrc",
            "/home/u/.config/nvim/init.lua",
            "/etc/hosts",
            "/etc",
            "/home/u",
        ] {
            // Components compare whole: `.bashrc.bak` is not `.bashrc`.
            assert_eq!(runs_later(p, h, Act::Overwrite), None, "{p}");
        }
        assert_eq!(runs_later("/etc/profile", h, Act::Write), Some(Act::Cron));
        assert_eq!(
            runs_later("/home/u/.bashrc", h, Act::Write),
            None,
            "an added line"
        );
        assert_eq!(
            runs_later("/etc/sudoers.d/x", h, Act::Write),
            Some(Act::Users)
        );
    }

    #[test]
    fn text_written_to_start_up_and_package_files() {
        let h = "/home/u";
        for t in [
            "~/.bashrc",
            ".zshrc",
            "$HOME/.profile",
            ".npmrc",
            "/etc/hosts",
            "pip.conf",
            "x/.cargo/config.toml",
            "~/.config/fish/config.fish",
            "~/.pam_environment",
        ] {
            assert!(may_be_read_later(t), "{t}");
        }
        for t in ["out.txt", "build.log", "src/lib.rs", "/tmp/x.json"] {
            assert!(!may_be_read_later(t), "{t}");
        }
        assert!(is_own_startup("/home/u/.bashrc", h));
        assert!(is_own_startup("/home/u/.bash_aliases", h));
        assert!(is_own_startup("/home/u/.config/fish/config.fish", h));
        assert!(!is_own_startup("/home/u/proj/.bashrc", h));
        assert_eq!(
            path_first("export PATH=/tmp/evil:$PATH"),
            (Some("/tmp/evil"), false)
        );
        assert_eq!(path_first("export PATH=\"$HOME/bin:$PATH\""), (None, false));
        assert!(path_first("export LD_PRELOAD=/tmp/x.so").1);
        assert!(is_package_config("/home/u/.npmrc"));
        assert!(is_package_config("/home/u/.config/pip/pip.conf"));
        assert!(is_package_config("/home/u/proj/.cargo/config.toml"));
        assert!(!is_package_config("/home/u/proj/package.json"));
        for text in [
            "registry=https://evil.example",
            "@corp:registry=https://evil.example",
            "[global]\nindex-url = https://evil.example/simple",
            "extra-index-url=https://x",
            "npmRegistryServer: \"https://x\"",
            "[source.crates-io]\nreplace-with = \"mirror\"",
            "strict-ssl=false",
        ] {
            assert!(names_package_source(text), "{text}");
        }
        assert!(is_name_config("/etc/hosts"));
        assert!(redirects_names("1.2.3.4 github.com"));
        assert!(redirects_names("nameserver 1.2.3.4"));
        assert!(!redirects_names("127.0.0.1 myapp.local"));
        assert!(!redirects_names("0.0.0.0 ads.example.com"));
        assert!(!redirects_names("# 1.2.3.4 x"));
        for text in [
            "save-exact=true",
            "fund=false",
            "[global]\ntimeout = 60",
            "engine-strict=true",
        ] {
            assert!(!names_package_source(text), "{text}");
        }
    }
}
