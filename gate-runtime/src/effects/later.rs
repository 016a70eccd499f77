//! Files whose contents something else runs or obeys later: a write to one of them is more
//! than a write. Shell start-up files, cron tables, service units, autostart entries and the
//! loader's preload list schedule code (`cron`); the account and sudo databases grant
//! privilege (`users`). The write itself stays an effect of its own; this adds the second.

use gate_spec::effect::Act;

/// Names in the home directory that a shell or session runs when it starts.
const HOME_STARTUP: &[&[&str]] = &[
    &[".bashrc"],
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
    let own_startup = !home.is_empty() && under(&home, HOME_STARTUP);
    if under(&[], SYSTEM_STARTUP) || (own_startup && act != Act::Write) {
        return Some(Act::Cron);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
