//! Attributes and creation: `chmod`, `chown`, `chgrp`, `chattr`, `chflags`, `setfacl`,
//! `chcon` (permissions on their file operands, never on the mode or owner operand),
//! `touch`, `mkdir`, `mkfifo`, `mktemp` (write), `truncate` and `fallocate`.

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

const CHMOD: Grammar = Grammar {
    short: "cfvR",
    short_value: "",
    long: &[
        "changes",
        "silent",
        "quiet",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "recursive",
        "dereference",
        "no-dereference",
    ],
    long_value: &["reference"],
    posix: false,
};

const CHOWN: Grammar = Grammar {
    short: "cfvRhHLP",
    short_value: "",
    long: &[
        "changes",
        "dereference",
        "no-dereference",
        "silent",
        "quiet",
        "verbose",
        "recursive",
        "preserve-root",
        "no-preserve-root",
    ],
    long_value: &["from", "reference"],
    posix: false,
};

const SETFACL: Grammar = Grammar {
    short: "bkndRLPtv",
    short_value: "mMxX",
    long: &[
        "remove-all",
        "remove-default",
        "no-mask",
        "mask",
        "default",
        "recursive",
        "logical",
        "physical",
        "test",
    ],
    long_value: &[
        "modify",
        "modify-file",
        "remove",
        "remove-file",
        "set",
        "set-file",
        "restore",
    ],
    posix: false,
};

const CHCON: Grammar = Grammar {
    short: "hHLPRv",
    short_value: "urtl",
    long: &[
        "dereference",
        "no-dereference",
        "preserve-root",
        "no-preserve-root",
        "recursive",
        "verbose",
    ],
    long_value: &["reference", "user", "role", "type", "range"],
    posix: false,
};

const TOUCH: Grammar = Grammar {
    short: "acfhm",
    short_value: "drt",
    long: &["no-create", "no-dereference"],
    long_value: &["date", "reference", "time"],
    posix: false,
};

const MKDIR: Grammar = Grammar {
    short: "pvZ",
    short_value: "m",
    long: &["parents", "verbose", "context"],
    long_value: &["mode"],
    posix: false,
};

const TRUNCATE: Grammar = Grammar {
    short: "co",
    short_value: "rs",
    long: &["no-create", "io-blocks"],
    long_value: &["reference", "size"],
    posix: false,
};

const MKTEMP: Grammar = Grammar {
    short: "dqutV",
    short_value: "p",
    long: &["directory", "quiet", "dry-run"],
    long_value: &["suffix", "tmpdir"],
    posix: false,
};

const FALLOCATE: Grammar = Grammar {
    short: "cdipxznvZ",
    short_value: "lo",
    long: &[
        "collapse-range",
        "dig-holes",
        "insert-range",
        "punch-hole",
        "posix",
        "zero-range",
        "keep-size",
        "verbose",
    ],
    long_value: &["length", "offset"],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "chmod" | "gchmod" => {
            // A mode spelled like an option (`chmod -x f`, `chmod -R -w d`) is not one.
            let dash_mode = cmd.args.iter().find(|w| is_dash_mode(w));
            let a = getopt::read(&CHMOD, cmd.args);
            let skip = usize::from(!a.has("reference") && dash_mode.is_none());
            let mode = match dash_mode {
                Some(m) => Some(&**m),
                None if skip == 1 => a.operands.first().map(|m| &**m),
                None => None,
            };
            let recursive = a.any(&["R", "recursive"]);
            let access = mode.and_then(|m| super::mode::read(m, recursive));
            out.owner_only = access.is_some_and(super::mode::Access::owner_only);
            out.shares_read_only = access.is_some_and(super::mode::Access::shares_read_only);
            out.owner_gains_only = access.is_some_and(|a| a.owner_gains_only);
            out.admin_in_project = access.is_some_and(super::mode::Access::conventional);
            out.public_mode = access.is_some_and(super::mode::Access::public_read_only);
            each(
                out,
                Act::Permissions,
                &a.operands[skip.min(a.operands.len())..],
            );
            read_reference(&a, out);
        }
        "chown" | "chgrp" | "gchown" | "gchgrp" | "lchown" => {
            let a = getopt::read(&CHOWN, cmd.args);
            let skip = usize::from(!a.has("reference"));
            out.to_self_owner = skip == 1
                && !cmd.program.ends_with("chgrp")
                && a.operands.first().is_some_and(|o| super::owner::is_self(o));
            out.admin_in_project = out.to_self_owner;
            out.to_system_owner = skip == 1
                && !cmd.program.ends_with("chgrp")
                && a.operands
                    .first()
                    .is_some_and(|o| super::owner::is_system(o));
            each(
                out,
                Act::Permissions,
                &a.operands[skip.min(a.operands.len())..],
            );
            read_reference(&a, out);
        }
        "chattr" => chattr(cmd, out),
        "chflags" => {
            // BSD: `chflags [-fhvx] [-R [-H|-L|-P]] FLAGS FILE…`.
            let a = getopt::read(&CHOWN, cmd.args);
            each(
                out,
                Act::Permissions,
                &a.operands[1.min(a.operands.len())..],
            );
        }
        "setfacl" => {
            let a = getopt::read(&SETFACL, cmd.args);
            each(out, Act::Permissions, &a.operands);
            for f in a.values(&["M", "X", "modify-file", "remove-file", "set-file"]) {
                if f != "-" {
                    out.path(Act::Read, f);
                }
            }
            if let Some(f) = a.value("restore") {
                // The files are named inside the backup.
                out.path(Act::Read, f);
                out.place(Act::Permissions, gate_spec::effect::Place::Unknown);
            }
        }
        "chcon" => {
            let a = getopt::read(&CHCON, cmd.args);
            let by_option = a.any(&[
                "reference",
                "u",
                "r",
                "t",
                "l",
                "user",
                "role",
                "type",
                "range",
            ]);
            let skip = usize::from(!by_option);
            each(
                out,
                Act::Permissions,
                &a.operands[skip.min(a.operands.len())..],
            );
        }
        "touch" => {
            let a = getopt::read(&TOUCH, cmd.args);
            each(out, Act::Write, &a.operands);
            if let Some(r) = a.value("r").or(a.value("reference")) {
                out.path(Act::Read, r);
            }
        }
        "mkdir" | "gmkdir" => each(out, Act::Write, &getopt::read(&MKDIR, cmd.args).operands),
        "mkfifo" | "mknod" => {
            let a = getopt::read(&MKDIR, cmd.args);
            each(out, Act::Write, &a.operands[..1.min(a.operands.len())]);
        }
        "mktemp" | "gmktemp" => {
            let a = getopt::read(&MKTEMP, cmd.args);
            if a.any(&["u", "dry-run"]) {
                return true;
            }
            let dir = a.value("p").or(a.value("tmpdir"));
            let template = a.operands.first().map(|t| &**t);
            match (dir, template) {
                (Some(d), Some(t)) => out.path(Act::Write, &format!("{d}/{t}")),
                (Some(d), None) => out.path(Act::Write, &format!("{d}/tmp.X")),
                // `-t`, or a template with no directory part: under $TMPDIR.
                (None, Some(t)) if t.contains('/') && !a.has("t") => out.path(Act::Write, t),
                (None, _) => out.path(Act::Write, "/tmp/tmp.X"),
            }
        }
        "truncate" | "gtruncate" => {
            let a = getopt::read(&TRUNCATE, cmd.args);
            // Only growing (`+N`, `>N`, `%N` rounding up) keeps the content.
            let grows = a
                .value("s")
                .or(a.value("size"))
                .is_some_and(|s| s.starts_with('+') || s.starts_with('>') || s.starts_with('%'));
            let act = if grows { Act::Write } else { Act::Overwrite };
            each(out, act, &a.operands);
            read_reference(&a, out);
        }
        "fallocate" => {
            let a = getopt::read(&FALLOCATE, cmd.args);
            let destroys = a.any(&[
                "c",
                "p",
                "z",
                "d",
                "collapse-range",
                "punch-hole",
                "zero-range",
                "dig-holes",
                "insert-range",
                "i",
            ]);
            let act = if destroys { Act::Overwrite } else { Act::Write };
            each(out, act, &a.operands);
        }
        _ => return false,
    }
    true
}

fn read_reference(a: &getopt::Args<'_>, out: &mut Sink) {
    if let Some(r) = a.value("reference").or(a.value("r")) {
        out.path(Act::Read, r);
    }
}

/// A symbolic mode that begins with `-` (`-x`, `-rwx`, `-w,+x`, `-0`-less): chmod takes it
/// as the mode, not as options.
fn is_dash_mode(w: &str) -> bool {
    w.len() > 1
        && w.starts_with('-')
        && !w.starts_with("--")
        && w[1..].chars().all(|c| {
            matches!(
                c,
                'r' | 'w' | 'x' | 'X' | 's' | 't' | 'u' | 'g' | 'o' | ',' | '+' | '-' | '='
            )
        })
}

/// `chattr [-RVf] [-v VERSION] [-p PROJECT] MODE… FILE…`, modes `+i`, `-a`, `=e`.
fn chattr(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    let mut only_files = false;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        let w: &str = w;
        if only_files {
            out.path(Act::Permissions, w);
            continue;
        }
        if w == "--" {
            only_files = true;
            continue;
        }
        if w == "-v" || w == "-p" {
            k += 1;
            continue;
        }
        if let Some(flags) = w.strip_prefix('-') {
            if !flags.is_empty() && flags.chars().all(|c| matches!(c, 'R' | 'V' | 'f')) {
                continue;
            }
            // `-i`, `-a`: an attribute removed.
            continue;
        }
        if w.starts_with('+') || w.starts_with('=') {
            continue;
        }
        out.path(Act::Permissions, w);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn chmod_mode_is_not_a_path() {
        assert_eq!(effects("chmod 755 run.sh"), vec!["permissions@source"]);
        assert_eq!(effects("chmod +x run.sh"), vec!["permissions@source"]);
        assert_eq!(effects("chmod -x run.sh"), vec!["permissions@source"]);
        assert_eq!(effects("chmod -R -w src"), vec!["permissions@source"]);
        assert_eq!(effects("chmod u+rwx,go-w a b"), vec!["permissions@source"]);
        assert!(has("chmod -R 777 /", "permissions@root"));
        assert!(has("sudo chmod -R 000 ~", "permissions@home"));
        assert!(has("chmod --recursive a+rwx ~/", "permissions@home"));
        // Credentials made private keep nothing from their owner and give nobody else
        // anything: no permissions change there; shutting the owner out, or opening them
        // to others, is one.
        for line in [
            "chmod 600 ~/.ssh/id_ed25519",
            "chmod 700 ~/.ssh",
            "chmod 0400 ~/.ssh/id_rsa",
            "chmod go-rwx ~/.ssh",
            "chmod -R go-rwx ~/.ssh",
            "chmod u=rw,go= .env",
            "sudo chmod 600 ${HOME}/.aws/credentials",
            "chmod 600 ~/.ssh/authorized_keys",
            "chmod 644 ~/.ssh/id_ed25519.pub",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        for line in [
            "chmod -R a-rwx ~/.ssh",
            "chmod 000 ~/.ssh/id_rsa",
            "chmod -R 600 ~/.ssh",
            "chmod u-r .env",
            "chmod 644 ~/.ssh/id_rsa",
            "chmod o+r ~/.aws/credentials",
            "chmod g=u ~/.ssh/id_rsa",
            "chmod $MODE ~/.ssh/id_rsa",
            "chmod 000 ~/.ssh/id_rsa.pub",
        ] {
            assert!(
                has(line, "permissions@secrets"),
                "{line}: {:?}",
                effects(line)
            );
        }
        // Elsewhere a private mode is still a permissions change.
        assert!(has("chmod -R 700 /etc", "permissions@system"));
        assert!(has("chmod -Rf 777 /etc", "permissions@system"));
        assert!(has(
            "chmod --reference=a.txt ~/.bashrc",
            "permissions@dotfiles"
        ));
        assert!(has("chmod --reference=a.txt ~/.bashrc", "read@source"));
        assert!(has("chmod 4755 /usr/bin/x", "permissions@system"));
        assert!(has("chmod 644 .claude/settings.json", "permissions@gate"));
        assert!(!has("chmod 755 run.sh", "permissions@project"));
    }

    #[test]
    fn conventional_modes_of_the_whole_project_are_administration() {
        // Only the owner gaining is no change of who may do what, anywhere.
        for line in ["chmod -R u+rwX .", "sudo chmod -R u+w \"$DIR\""] {
            assert!(effects(line).is_empty(), "{line}: {:?}", effects(line));
        }
        for line in [
            "sudo chmod -R 755 .",
            "sudo find . -type f -exec chmod 664 {} \\;",
            "sudo find . -type d -exec chmod 775 {} +",
        ] {
            assert!(has(line, "admin@project"), "{line}: {:?}", effects(line));
            assert!(!has(line, "permissions@project"), "{line}");
        }
        for line in [
            "chmod -R 777 .",
            "sudo chmod -R a+w .",
            "chmod -R 000 .",
            "chmod -R u+s .",
        ] {
            assert!(
                has(line, "permissions@project"),
                "{line}: {:?}",
                effects(line)
            );
        }
        assert!(has("chmod 755 /etc", "permissions@system"));
    }

    #[test]
    fn public_modes_on_locally_installed_software_are_administration() {
        for line in [
            "sudo chmod +x /usr/local/bin/docker-compose",
            "chmod 755 /var/www",
            "sudo chmod -R a+rX /srv",
            "sudo chmod 755 /opt",
        ] {
            assert_eq!(effects(line), ["admin@system"], "{line}");
        }
        for line in [
            "sudo chmod 4755 /usr/local/bin/helper",
            "sudo chmod -R 777 /var/www",
            "sudo chmod 750 /srv",
            "sudo chmod +x /usr/bin/tool",
            "chmod 644 /etc/shadow",
        ] {
            assert_eq!(effects(line), ["permissions@system"], "{line}");
        }
    }

    #[test]
    fn ones_own_dotfiles_given_back_are_administration() {
        for line in [
            "sudo chown -R $USER ~/.npm",
            "sudo chown -R $(whoami) ~/.npm",
            "sudo chown -R \"$(id -u):$(id -g)\" ~/.docker",
            "sudo chown -R $USER:$USER /home/$USER/.cache/x ~/.gradle",
        ] {
            assert!(has(line, "admin@dotfiles"), "{line}: {:?}", effects(line));
            assert!(!has(line, "permissions@dotfiles"), "{line}");
        }
        for line in [
            "sudo chown -R root ~/.npm",
            "sudo chown -R $(id -u jenkins) ~/.npm",
            "chgrp -R staff ~/.npm",
        ] {
            assert!(
                has(line, "permissions@dotfiles"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn chown_chgrp_owner_is_not_a_path() {
        assert_eq!(effects("chown u:u file"), vec!["permissions@source"]);
        assert!(has("sudo chown -R root:root /", "permissions@root"));
        assert!(has("chown -R $USER ~", "permissions@home"));
        assert!(has(
            "chown --recursive nobody ~/.ssh",
            "permissions@secrets"
        ));
        assert!(has("chown --from=root u /etc/x", "permissions@system"));
        assert!(has("chgrp -R staff .", "permissions@project"));
        assert!(has(
            "chgrp --reference=/etc/passwd ~/x",
            "permissions@outside"
        ));
        assert!(!has("chown root /tmp/x", "permissions@root"));
    }

    #[test]
    fn chattr_setfacl_chflags() {
        assert_eq!(
            effects("chattr +i /etc/resolv.conf"),
            vec!["permissions@system"]
        );
        assert_eq!(
            effects("sudo chattr -i ~/.bashrc"),
            vec!["permissions@dotfiles"]
        );
        assert!(has("chattr -R +i /", "permissions@root"));
        assert!(has("chattr -v 2 =e f", "permissions@source"));
        assert!(has("setfacl -m u:bob:rwx ~/.ssh", "permissions@secrets"));
        assert!(has("setfacl -R -b /", "permissions@root"));
        assert!(has("setfacl --modify=g:x:r ~", "permissions@home"));
        assert!(has("setfacl --restore=acl.txt", "permissions@unknown"));
        assert!(has("chflags -R schg /etc", "permissions@system"));
        assert!(has(
            "chcon -t httpd_sys_content_t /var/www",
            "permissions@system"
        ));
    }

    #[test]
    fn touch_mkdir_mktemp() {
        assert_eq!(effects("touch a.txt"), vec!["write@source"]);
        assert_eq!(
            effects("touch -d yesterday -r ref a"),
            vec!["read@source", "write@source"]
        );
        assert!(has("touch ~/.bashrc", "write@dotfiles"));
        assert_eq!(effects("mkdir -p build/x"), vec!["write@outputs"]);
        assert!(has("mkdir --mode=700 ~/.ssh", "write@secrets"));
        assert!(has("mkdir -m 755 /usr/local/x", "write@system"));
        assert_eq!(effects("mktemp -d"), vec!["write@temp"]);
        assert_eq!(effects("mktemp -u"), Vec::<String>::new());
        assert_eq!(effects("mktemp -p /tmp x.XXXX"), vec!["write@temp"]);
        assert_eq!(
            effects("mktemp --tmpdir=build x.XXX"),
            vec!["write@outputs"]
        );
        assert!(has("mkfifo /tmp/p", "write@temp"));
    }

    #[test]
    fn truncate_and_fallocate() {
        assert_eq!(effects("truncate -s 0 app.log"), vec!["overwrite@source"]);
        assert!(has("truncate -s0 ~/.bash_history", "overwrite@dotfiles"));
        assert!(has("truncate --size=0 /var/log/syslog", "overwrite@system"));
        assert!(has("truncate --si 0 .env", "overwrite@secrets"));
        assert_eq!(effects("truncate -s +1M a.img"), vec!["write@source"]);
        assert!(has("truncate -r ref.bin ~/x", "overwrite@outside"));
        assert_eq!(effects("fallocate -l 1G swap.img"), vec!["write@source"]);
        assert!(has(
            "fallocate -p -o 0 -l 1M ~/.bashrc",
            "overwrite@dotfiles"
        ));
    }
}
