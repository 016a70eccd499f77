//! The words the generic reading knows, as data: verbs that destroy, raise privilege,
//! publish or only read, the modifiers that force a weak verb, and the programs whose words
//! are no subcommand path. Each entry carries command lines it is read in, which
//! `generic::tests` runs through the whole line model (so an entry that stops working, or a
//! program that gains a family of its own, shows there).
//!
//! A verb is matched against a whole word or one of its parts: words are split at `-`, `_`,
//! `:` and `.` and where a lower-case letter meets an upper-case one (`delete-stack`,
//! `remove_item`, `deleteBucket`, `Remove-Item`, `db:drop`), and a Windows `/delete` or
//! PowerShell `-Delete` spelling is the word itself. The first part of a word that is in any
//! table decides it (`list-deleted-items` lists).

/// One word of a table and lines it is read in.
pub(crate) struct Entry {
    /// The word (lower case; compared without regard to case).
    pub word: &'static str,
    /// Whole command lines in which the word is read as the table says (kept for the tests
    /// only: the hook never reads them).
    #[cfg(test)]
    pub examples: &'static [&'static str],
}

macro_rules! entries {
    ($($word:literal => [$($ex:literal),* $(,)?]),* $(,)?) => {
        &[$(Entry { word: $word, #[cfg(test)] examples: &[$($ex),*] }),*]
    };
}

/// Verbs that destroy what they name, with no modifier needed.
pub(crate) const DESTROY: &[Entry] = entries![
    "delete" => ["openstack volume delete v1", "velero backup delete b", "argocd app delete x",
                 "mycloud delete-stack --stack-name s", "storagecli deleteBucket b",
                 "apptainer delete -F library://u/c/x:1"],
    "del" => ["mytool del item-1", "wine reg del 'HKCU\\Software\\X'"],
    "rm" => ["mytool rm x", "ctr images rm x"],
    "rmi" => ["nerdctl-like rmi img", "ctr-like rmi img"],
    "rb" => ["s3cmd rb s3://bucket --recursive", "mc rb --force local/bucket"],
    "rmdir" => ["mytool rmdir projects"],
    "remove" => ["mytool remove x", "cli remove_item x", "pwsh-like Remove-Item x", "tool RemoveThing x"],
    "destroy" => ["vagrant destroy -f", "acmectl destroy env"],
    "purge" => ["acmectl purge queue", "sudo apt-like purge x"],
    "prune" => ["borg prune -v --keep-daily 7 ::", "restic-like prune"],
    "wipe" => ["acmectl wipe data"],
    "drop" => ["acmectl drop table t", "atlas-like schema drop x", "rails-like db:drop"],
    "erase" => ["acmectl erase all"],
    "uninstall" => ["acmectl uninstall pkg"],
    "terminate" => ["mycloud terminate-instances --ids i-1"],
    "obliterate" => ["svnlike obliterate x", "git obliterate secrets.txt"],
    "nuke" => ["aws-nuke-like nuke", "acmectl nuke"],
    "revoke" => ["acmectl revoke token-a", "certbot revoke --cert-name x"],
    "deregister" => ["mycloud deregister-image --image-id ami-1"],
    "unregister" => ["acmectl unregister runner"],
    "truncate" => ["acmectl truncate events"],
    "evict" => ["acmectl evict cache"],
    "discard" => ["acmectl discard changes"],
    "expunge" => ["acmectl expunge inbox"],
    "shred" => ["acmectl shred secrets"],
    "unpublish" => ["acmectl unpublish pkg"],
    "decommission" => ["acmectl decommission node-a"],
    "teardown" => ["acmectl teardown"],
    "tear-down" => ["acmectl tear-down"],
    "force-delete" => ["acmectl force-delete x"],
    "undefine" => ["virsh undefine vm1 --remove-all-storage"],
    "deleteall" => ["zkcli-like deleteall /app"],
    "removeall" => ["acmectl removeall"],
    "purgeall" => ["acmectl purgeall"],
    "forget" => ["restic-like forget --prune --keep-last 1", "acmectl forget snapshot-a"],
];

/// Verbs that destroy only with a forcing modifier ([`FORCING`]): alone they are routine
/// (`mvn clean`, `pm2 flush`, `foo reset`), forced they discard (`git undo --hard`,
/// `acmectl reset --force`, `acmectl clean --all`).
pub(crate) const WEAK: &[Entry] = entries![
    "clean" => ["acmectl clean --all", "acmectl clean -f"],
    "cleanup" => ["acmectl cleanup --all"],
    "clear" => ["acmectl clear --all"],
    "flush" => ["acmectl flush --all"],
    "reset" => ["acmectl reset --hard", "acmectl reset --force", "git undo --hard"],
    "undo" => ["git undo --hard"],
    "kill" => ["acmectl kill --all"],
    "overwrite" => ["acmectl overwrite --force"],
    "rollback" => ["acmectl rollback --force"],
];

/// Modifiers that make a weak verb destroy (`--force`, `--all`, `--hard`, `-y`, `/all`,
/// `/q`), as whole words; short ones also inside a bundle (`-fa`).
pub(crate) const FORCING: &[&str] = &[
    "--force",
    "--all",
    "--hard",
    "--purge",
    "--recursive",
    "--yes",
    "--assume-yes",
    "--no-confirm",
    "--noconfirm",
    "--force-all",
    "/all",
    "/q",
    "/f",
    "-Force",
    "-Recurse",
];

/// Windows switches that are no path (`vssadmin delete shadows /all /quiet`).
pub(crate) const SWITCHES: &[&str] = &[
    "/quiet",
    "/force",
    "/norestart",
    "/for",
    "/on",
    "/oldest",
    "/shadow",
    "/tn",
    "/va",
];

/// Short forcing letters inside a bundle (`-f`, `-a`, `-y`, `-r`).
pub(crate) const FORCING_SHORT: &str = "fayrR";

/// Long options whose name is a destroying verb, the action of a program that takes its
/// action as an option (`dpkg --purge`, `foo --delete NAME`), read when no subcommand verb
/// is: only these exact spellings, without `=value` (`--delete-after-upload=false` is a
/// setting).
pub(crate) const OPTION_VERBS: &[Entry] = entries![
    "--delete" => ["acmectl --delete item"],
    "--purge" => ["acmectl --purge queue"],
    "--prune" => ["acmectl --prune"],
    "--remove" => ["acmectl --remove x"],
    "--uninstall" => ["acmectl --uninstall"],
    "--erase" => ["acmectl --erase disk-image"],
    "--destroy" => ["acmectl --destroy"],
    "--wipe" => ["acmectl --wipe"],
];

/// Long (or Java-style single-dash) options whose first part is one of these verbs are the
/// program's action when no subcommand verb is (`gpg --delete-secret-keys KEY`, `keytool
/// -delete -alias k`); shorter verbs (`--rm`) are settings too often (`run --rm`).
pub(crate) const OPTION_VERB_PARTS: &[&str] = &[
    "delete",
    "remove",
    "purge",
    "erase",
    "destroy",
    "uninstall",
    "wipe",
    "deleteall",
];

/// Options whose value is SQL a client runs (`snowsql -q 'DROP DATABASE prod'`, `cqlsh -e
/// …`, `clickhouse-client --query …`): read as SQL.
pub(crate) const SQL_OPTIONS: &[&str] = &[
    "-q",
    "-e",
    "-c",
    "--query",
    "--execute",
    // Go's flag package (`influx -execute 'DROP MEASUREMENT m'`).
    "-execute",
    "--sql",
    "--command",
    "--statement",
];

/// Domain suffixes: an operand ending in one is a host, not a local file (`certbot delete
/// --cert-name example.com`).
pub(crate) const DOMAIN_SUFFIXES: &[&str] = &[
    "com", "org", "net", "io", "dev", "app", "co", "ai", "cloud", "xyz", "me", "us", "uk", "de",
    "fr", "eu", "info", "biz", "tech", "site", "online", "local", "internal", "lan",
];

/// Programs whose action is a short option (`dpkg -P`, `rpm -e`, `pacman -R`): the letters
/// that remove. Their operands are system packages.
pub(crate) const SHORT_ACTIONS: &[(&str, &str)] = &[("dpkg", "Pr"), ("rpm", "e"), ("pacman", "R")];

/// Words and options that make a package removal take the package's configuration (which
/// the user may have edited) or its data with it: `apt purge`, `apt-get remove --purge`,
/// `snap remove --purge` (its saved data), `brew uninstall --zap`.
pub(crate) const PURGES: &[&str] = &["purge", "autopurge", "--purge", "--zap", "--remove-data"];

/// The short action letters that purge, by program, in the removing bundle (`dpkg -P`,
/// `pacman -Rn`, `pacman -Rns`).
pub(crate) const SHORT_PURGES: &[(&str, &str)] = &[("dpkg", "P"), ("pacman", "n")];

/// System package managers: removing a named package is reversible administration (it is
/// installed again as it was), not a destruction, unless a forcing override is given
/// ([`PACKAGE_OVERRIDES`]) or it purges ([`PURGES`]): then it is a delete at `system`
/// (`sudo dpkg -P --force-all libc6`, `apt purge nginx`).
pub(crate) const PACKAGE_MANAGERS: &[&str] = &[
    "apt",
    "apt-get",
    "aptitude",
    "dpkg",
    "rpm",
    "yum",
    "dnf",
    "microdnf",
    "zypper",
    "pacman",
    "yay",
    "paru",
    "apk",
    "opkg",
    "pkg",
    "emerge",
    "xbps-remove",
    "brew",
    "port",
    "snap",
    "flatpak",
    "choco",
    "winget",
    "scoop",
];

/// Version and environment managers whose removals take away software that is downloaded
/// again on the next install (`nvm uninstall 16`, `conda env remove -n old`, `ollama rm
/// llama2`): no destruction of anything the user made.
pub(crate) const REINSTALLABLE: &[&str] = &[
    "conda",
    "mamba",
    "micromamba",
    "rustup",
    "nvm",
    "fnm",
    "volta",
    "n",
    "pyenv",
    "rbenv",
    "nodenv",
    "goenv",
    "jenv",
    "asdf",
    "mise",
    "rtx",
    "sdk",
    "jabba",
    "juliaup",
    "ghcup",
    "elan",
    "opam",
    "ollama",
    "sdkmanager",
    "jupyter",
    "code",
    "codium",
    "cursor",
    "vagrant-plugin",
];

/// Nouns of PowerShell cmdlets the generic reading leaves alone: the session's own state,
/// whose removal (`Remove-Variable x`, `Remove-Module PSReadLine`, `Remove-Job 3`) ends with
/// the session, and the cmdlets the Windows family reads (`Remove-Item`).
pub(crate) const SESSION_NOUNS: &[&str] = &[
    "Variable",
    "Module",
    "PSDrive",
    "Job",
    "Event",
    "TypeData",
    "PSSession",
    "Alias",
    "PSBreakpoint",
    "PSSnapin",
    "PSReadLineKeyHandler",
    // Read by the Windows family itself (`windows/cmdlets.rs`), where a line is PowerShell.
    "Item",
    "ItemProperty",
    "Content",
    "Disk",
    "Log",
    "RecycleBin",
    "LocalGroupMember",
    "LocalUser",
    "NetFirewallRule",
    "Partition",
    "PhysicalDisk",
    "Service",
];

/// Packages the machine is reached, protected or administered by (its firewall, its ssh
/// server, `sudo`, its network manager, its mandatory access control): removing one stops
/// that service for good and may cut every user off a remote machine (`service`), as
/// stopping what [`super::super::system`] calls a critical unit is. Names as the
/// distributions' package managers spell them.
pub(crate) const MACHINE_PACKAGES: &[&str] = &[
    "ufw",
    "firewalld",
    "nftables",
    "iptables",
    "iptables-persistent",
    "netfilter-persistent",
    "openssh-server",
    "openssh",
    "ssh",
    "sshd",
    "sudo",
    "doas",
    "systemd",
    "network-manager",
    "networkmanager",
    "netplan.io",
    "ifupdown",
    "systemd-networkd",
    "wpasupplicant",
    "wpa_supplicant",
    "apparmor",
    "selinux-policy",
    "selinux-policy-targeted",
    "auditd",
    "audit",
    "fail2ban",
    "tailscale",
    "cloudflared",
    "dbus",
    "polkit",
    "policykit-1",
];

/// Overrides that let a package manager remove what it protects (essential packages,
/// dependencies of others).
pub(crate) const PACKAGE_OVERRIDES: &[&str] = &[
    "--force-all",
    "--force-remove-essential",
    "--force-depends",
    "--nodeps",
    "-dd",
    "-Rdd",
    "--allow-remove-essential",
    "--force-remove-reinstreq",
    "--all",
    "--delete-data",
];

/// Verbs that raise someone's privileges; with an administrator role named on the line
/// ([`ADMIN_ROLES`]) they are a change of users (`aws iam attach-user-policy …
/// AdministratorAccess`, `gcloud projects add-iam-policy-binding … roles/owner`).
pub(crate) const PRIVILEGE: &[Entry] = entries![
    "attach" => ["cloudcli iam attach-user-policy --policy-arn arn:aws:iam::aws:policy/AdministratorAccess"],
    "add-iam-policy-binding" => ["cloudcli projects add-iam-policy-binding p --role roles/owner"],
    "grant" => ["dbcli grant admin to bob"],
    "assign" => ["cloudcli role assign --role Owner --user u"],
    "promote" => ["acmectl promote bob --role admin"],
];

/// Role names that make a privilege verb a change of users.
pub(crate) const ADMIN_ROLES: &[&str] = &[
    "admin",
    "owner",
    "root",
    "superuser",
    "fullaccess",
    "poweruser",
    "cluster-admin",
    "sudo",
    "wheel",
];

/// Verbs that publish (`publish` at none).
pub(crate) const PUBLISH: &[Entry] = entries![
    "publish" => ["acmectl publish", "vsce-like publish --pat x"],
    "release" => ["goreleaser-like release --clean"],
];

/// Verbs that send what they name off the machine: each local file after one is read and
/// sent (`send` at `remote`; a secret among them is a send of it, see `effects/secrets.rs`).
pub(crate) const SEND: &[Entry] = entries![
    "send" => ["ffsend-like send ./notes.txt", "croc send ./a.txt"],
    "upload" => ["acmectl upload ./report.pdf", "acmectl files upload ~/data.csv"],
    "share" => ["acmectl share ./a.txt"],
    "paste" => ["acmectl paste ./log.txt"],
    "push" => ["acmectl push ./bundle.zip"],
    "put" => ["acmectl put ./a.txt"],
    "post" => ["acmectl post ./a.json"],
    "transfer" => ["acmectl transfer ./a.txt"],
];

/// Verbs that only read or plan, and words that change nothing by themselves: the first of
/// these in a path ends the reading with no effect (`borg list`, `velero backup describe b`,
/// `acmectl run delete-old`, `acmectl test remove`).
pub(crate) const HARMLESS: &[Entry] = entries![
    "get" => ["acmectl get delete-policy"], "list" => ["borg list", "openstack server list"],
    "ls" => ["acmectl ls"], "show" => ["acmectl show x"], "describe" => ["velero backup describe b"],
    "status" => ["acmectl status"], "info" => ["acmectl info"], "inspect" => ["acmectl inspect x"],
    "view" => ["acmectl view x"], "search" => ["acmectl search delete"], "logs" => ["acmectl logs x"],
    "log" => ["acmectl log"], "diff" => ["acmectl diff"], "plan" => ["acmectl plan destroy"],
    "version" => ["acmectl version"], "help" => ["acmectl help delete"],
    "explain" => ["acmectl explain delete"], "check" => ["acmectl check"],
    "validate" => ["acmectl validate"], "lint" => ["acmectl lint"], "test" => ["acmectl test delete"],
    "run" => ["acmectl run delete-old"], "exec" => ["acmectl exec remove"],
    "build" => ["acmectl build"], "create" => ["acmectl create x"], "new" => ["acmectl new x"],
    "init" => ["acmectl init"], "add" => ["acmectl add x"], "install" => ["acmectl install x"],
    "update" => ["acmectl update x"], "upgrade" => ["acmectl upgrade"], "start" => ["acmectl start"],
    "serve" => ["acmectl serve"], "watch" => ["acmectl watch"], "pull" => ["apptainer pull x"],
    "fetch" => ["acmectl fetch"], "download" => ["acmectl download x"], "find" => ["acmectl find x"],
    "query" => ["acmectl query"], "print" => ["acmectl print"], "cat" => ["acmectl cat x"],
    "export" => ["acmectl export"], "dump" => ["acmectl dump"], "whoami" => ["acmectl whoami"],
    "login" => ["acmectl login"], "config" => ["acmectl config get x"], "completion" => ["acmectl completion bash"],
    "doctor" => ["acmectl doctor"], "top" => ["acmectl top"], "lookup" => ["acmectl lookup x"],
    "dry-run" => ["acmectl dry-run delete x"], "preview" => ["acmectl preview"],
    "compare" => ["acmectl compare"], "verify" => ["acmectl verify"], "audit" => ["acmectl audit"],
    // A cache is rebuilt by the next run that needs it (`flutter pub cache clean -f`,
    // `acmectl delete-cache`).
    "cache" => ["flutter-like pub cache clean -f", "acmectl cache purge --all", "acmectl delete-cache"],
    "caches" => ["acmectl caches clear --all"],
];

/// Nouns of things rebuilt on demand: in a path (`pub cache clean`) they are harmless words
/// of [`HARMLESS`]; as a part of a verb word they make it harmless (`delete-cache`).
pub(crate) const CACHES: &[&str] = &["cache", "caches"];

/// Options that make the whole command harmless: help, version, a dry run (and `-h` or `-n`
/// standing alone, which `generic::harmless_options` reads).
pub(crate) const HARMLESS_OPTIONS: &[&str] = &[
    "--help",
    "-?",
    "/?",
    "--version",
    "--dry-run",
    "--dryrun",
    "--dry_run",
    "--plan",
    "--what-if",
    "-WhatIf",
    "--simulate",
    "--noop",
    "--no-act",
    "--check",
];

/// Short options that take no value in nearly every CLI (`-v`, `-q`, `-f`, `-y`, `-a`, `-r`):
/// a verb after one is a subcommand (`mycli -v delete x`). After any other short option the
/// next word is its value, verb or not (`fasd -d delete`).
pub(crate) const SHORT_FLAGS: &str = "vqfyarRiVF";

/// Options whose value is a pattern or a name, never a subcommand (`jest -t delete`,
/// `mocha --grep remove`, `tool -m "drop it"`).
pub(crate) const VALUE_OPTIONS: &[&str] = &[
    "-k",
    "-t",
    "-e",
    "-m",
    "-g",
    "-p",
    "-n",
    "--grep",
    "--filter",
    "--name",
    "--message",
    "--match",
    "--pattern",
    "--test",
    "--testNamePattern",
    "--spec",
    "--title",
    "--label",
    "--tag",
    "--profile",
    "--region",
    "--context",
    "--namespace",
    "--env",
];

/// Programs whose words are text, topics, test names or recipe names, never a subcommand
/// path: documentation and messages (`man git-rm`, `say delete done`), test runners
/// (`jest delete`), task runners whose recipes are read where their files are known
/// (`just clean-all`).
pub(crate) const NOT_SUBCOMMANDS: &[&str] = &[
    "man",
    "tldr",
    "info",
    "whatis",
    "apropos",
    "help",
    "which",
    "whereis",
    "type",
    "say",
    "espeak",
    "cowsay",
    "figlet",
    "toilet",
    "banner",
    "logger",
    "wall",
    "notify-send",
    "terminal-notifier",
    "lolcat",
    "yes",
    "jest",
    "vitest",
    "mocha",
    "ava",
    "tap",
    "karma",
    "cypress",
    "playwright",
    "rspec",
    "phpunit",
    "pest",
    "tox",
    "nox",
    "bats",
    "behave",
    "nose2",
    "ward",
    "robot",
    "ctest",
    "just",
    "task",
    "mage",
    "invoke",
    "doit",
    "nx",
    "turbo",
    "lerna",
    "moon",
    "earthly",
    "alias",
    "unalias",
    "history",
    "hash",
    "complete",
    "compgen",
    // Directory jumpers: their words are queries over the directories visited.
    "autojump",
    "fasd",
    "zoxide",
    "z",
    "j",
    // Shell builtins and small utilities whose words are data (`echo rm`, `read -r drop`).
    "echo",
    "printf",
    "print",
    "read",
    "test",
    "[",
    "[[",
    "declare",
    "local",
    "typeset",
    "readonly",
    "export",
    "set",
    "unset",
    "shift",
    "exit",
    "return",
    "true",
    "false",
    "sleep",
    "wait",
    "jobs",
    "fg",
    "bg",
    "disown",
    "umask",
    "ulimit",
    "getopts",
    "let",
    "expr",
    "seq",
    "date",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "tput",
    "printenv",
    "column",
    "gettext",
    "ngettext",
    "figlet",
    "boxes",
];
