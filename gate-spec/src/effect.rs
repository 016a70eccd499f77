//! The effect vocabulary: what an action does ([`Act`]) and where ([`Place`]), the words a
//! rule's `effects` and `locations` keys are written in.
//!
//! The runtime's command model (gate-runtime `effects`) reads every tool call, shell commands
//! included, into a list of (act, place) pairs; a rule that names acts and places matches an
//! action when one of its effects has a named act at a named place. The names are part of
//! the spec language: renaming one is a breaking change to every spec that uses it.

use serde::{Deserialize, Serialize};

macro_rules! vocabulary {
    ($(#[$doc:meta])* $ty:ident { $($(#[$vdoc:meta])* $v:ident = $s:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $ty {
            $($(#[$vdoc])* $v,)*
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$v,)*];

            /// The name a spec writes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$v => $s,)*
                }
            }

            /// The value a spec name stands for.
            pub fn parse(s: &str) -> Option<$ty> {
                match s {
                    $($s => Some($ty::$v),)*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// What an action does to its target.
    Act {
        /// Reads a file or lists a directory.
        Read = "read",
        /// Shows a secret's content to someone: prints it into the session transcript (`cat
        /// ~/.kube/config`, `gh auth token`, `printenv GITHUB_TOKEN`, the Read tool on `.env`;
        /// at `secrets`), or hands a credential to a host that is not its own service
        /// (`curl -H "Authorization: Bearer $API_TOKEN" https://host`; at `remote`). Listing,
        /// testing, sizing or fingerprinting a secret (`ls ~/.ssh`, `test -f .env`,
        /// `sha256sum .env`, `ssh-keygen -l`) is a `read`, not a reveal.
        Reveal = "reveal",
        /// Creates a file or changes one in place (an edit, `sed -i`, `>>`, `mkdir`, `touch`).
        Write = "write",
        /// Replaces or empties what is there (`>`, `cp` onto, `truncate`, `tee`, `curl -o`,
        /// `dd of=`, `sort -o`): the old content is gone.
        Overwrite = "overwrite",
        /// Removes (`rm`, `rmdir`, `unlink`, `shred`, `find -delete`, `git clean`,
        /// `rsync --delete`, `shutil.rmtree`).
        Delete = "delete",
        /// Moves away: the source is removed (`mv`, `rename`); its destination is an
        /// `overwrite`.
        Move = "move",
        /// Changes permissions, ownership or attributes (`chmod`, `chown`, `chgrp`, `chattr`,
        /// `setfacl`).
        Permissions = "permissions",
        /// Creates a link (`ln`): a later write through it lands at its target.
        Link = "link",
        /// Runs a program or script whose effect the model does not know.
        Exec = "exec",
        /// Downloads from the network.
        Fetch = "fetch",
        /// Sends local data to the network (uploads, `curl -d @file`, `scp` to a host, `nc`).
        Send = "send",
        /// Runs code fetched from the network without a copy on disk (`curl … | sh`).
        RemoteExec = "remote_exec",
        /// Publishes a package, image or release.
        Publish = "publish",
        /// Withdraws a published package or version (`npm unpublish`, `cargo yank`).
        Unpublish = "unpublish",
        /// Rewrites or discards version-control history or uncommitted work (`push --force`,
        /// `reset --hard`, `clean -f`, `checkout -- .`, `branch -D`, `stash clear`).
        History = "history",
        /// Sends a signal to one process.
        Kill = "kill",
        /// Kills by pattern or every process (`kill -9 -1`, `pkill -f .`, `killall`).
        KillAll = "kill_all",
        /// Powers off, reboots or halts the machine.
        Power = "power",
        /// Stops, disables or masks a system service (turning swap off included).
        Service = "service",
        /// A reversible change to the machine's administration, undone by its inverse: a
        /// user or group added (`adduser bob`, `usermod -aG docker bob`), a firewall port
        /// opened (`ufw allow 8080`), one ordinary service stopped (`systemctl stop
        /// app.service`), the machine suspended (`systemctl suspend`).
        Admin = "admin",
        /// Changes or flushes firewall rules.
        Firewall = "firewall",
        /// Replaces or removes scheduled jobs (`crontab -r`, `crontab FILE`).
        Cron = "cron",
        /// Adds, removes or changes users and groups, or their passwords.
        Users = "users",
        /// Mounts or unmounts file systems, or turns swap on.
        Mount = "mount",
        /// Writes to, partitions or formats a block device.
        Device = "device",
        /// Destroys data in a database (DROP, TRUNCATE, ALTER … DROP, DELETE or UPDATE without
        /// WHERE, FLUSHALL, framework resets).
        DbDestroy = "db_destroy",
        /// Changes data in a database in a bounded way (INSERT, UPDATE … WHERE, migrations).
        DbWrite = "db_write",
        /// Deletes cloud or cluster resources (`terraform destroy`, `kubectl delete`,
        /// `aws s3 rm --recursive`, `gsutil rm -r`, `docker compose down -v`).
        CloudDelete = "cloud_delete",
        /// Approves one of gate's own asks (`gate approve`).
        Approve = "approve",
        /// The command could not be fully read (a parse error, a bound reached, code in an
        /// interpreter the model cannot follow): its effect is unknown.
        Opaque = "opaque",
    }
}

vocabulary! {
    /// Where an effect lands: the class of a resolved location, most specific first.
    Place {
        /// gate's own files: its home and state (database, key, fault log), its config, the
        /// binary, and every runtime's hook settings with their directories.
        Gate = "gate",
        /// Credentials and secrets (`.env`, keys, `~/.ssh`, `~/.aws`, `*.pem`, …).
        Secrets = "secrets",
        /// Version-control metadata (`.git/`, `.hg/`, `.svn/`).
        Vcs = "vcs",
        /// Devices (`/dev/…`, except the harmless `null`, `zero`, `tty`, `std*`, `fd/*`).
        Device = "device",
        /// The file-system root itself or everything in it (`/`, `/*`).
        Root = "root",
        /// The home directory itself or everything in it (`~`, `~/*`, `$HOME`).
        Home = "home",
        /// Dotfiles and dot-directories directly under home (`~/.bashrc`, `~/.config`).
        Dotfiles = "dotfiles",
        /// System paths (`/etc`, `/usr`, `/bin`, `/boot`, `/var`, `/lib`, …).
        System = "system",
        /// The project root itself or everything in it (`.`, `*`, `$PWD`, a parent of it).
        Project = "project",
        /// Rebuildable outputs inside the project (`target/`, `node_modules/`, `dist/`, caches).
        Outputs = "outputs",
        /// Anything else inside the project.
        Source = "source",
        /// Temporary directories (`/tmp`, `/var/tmp`, `$TMPDIR`).
        Temp = "temp",
        /// A path outside the project that is none of the above.
        Outside = "outside",
        /// A remote location (`host:path`, a URL).
        Remote = "remote",
        /// A location the model cannot resolve (`$DIR`, `$(…)`).
        Unknown = "unknown",
        /// The effect has no location (a kill, a power-off, a publish).
        Nowhere = "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for &a in Act::ALL {
            assert_eq!(Act::parse(a.as_str()), Some(a));
            assert!(seen.insert(a.as_str()), "{a} twice");
        }
        seen.clear();
        for &p in Place::ALL {
            assert_eq!(Place::parse(p.as_str()), Some(p));
            assert!(seen.insert(p.as_str()), "{p} twice");
        }
        assert_eq!(Act::parse("destroy"), None);
        assert_eq!(Place::parse("nowhere"), None);
    }
}
