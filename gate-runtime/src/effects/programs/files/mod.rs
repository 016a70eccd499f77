//! File programs modelled in code: what each does to the paths it names — in-place
//! editors and archivers. One file per sub-family; [`model`] asks each in
//! turn. The removers, makers and mode, owner and attribute changes are data
//! (`commands/files.toml`), and so are moving, copying, linking and the programs that write
//! the files they name (`commands/files-copy.toml`), the readers (`commands/files-read.toml`)
//! and the compressors (`commands/files-archive.toml`); what they need read is here, reached by
//! name: a mode's bits (`mode.rs`), an owner (`owner.rs`), `mktemp`'s template, `find`,
//! `fd`, `rsync`'s remotes, `rename`'s expression, `jq`/`yq` and `patch`'s diff.

use super::super::{Cmd, Sink};
use gate_spec::effect::Act;

mod archive;
#[cfg(test)]
mod copy_tests;
mod edit;
mod editors;
mod fd;
mod find;
mod jq;
mod mktemp;
mod mode;
mod owner;
mod patch;
#[cfg(test)]
mod read_tests;
mod rename;
mod rsync;
#[cfg(test)]
mod tests;

pub(crate) use fd::fd;
pub(crate) use find::{find, targets as find_targets, Action as FindAction};
pub(crate) use jq::{jq, yq};
pub(crate) use mktemp::mktemp;
pub(crate) use mode::chmod_mode;
pub(crate) use owner::chown_owner;
pub(crate) use patch::patch;
pub(crate) use rename::rename;
pub(crate) use rsync::rsync;

/// The sub-families, asked in order; the first that knows the program models it.
const PARTS: &[fn(&Cmd<'_, '_>, &mut Sink) -> bool] =
    &[edit::model, editors::model, archive::model];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    PARTS.iter().any(|part| part(cmd, out))
}

/// `act` on each operand that names a file (not `-`, standard input or output).
fn each<S: AsRef<str>>(out: &mut Sink, act: Act, operands: &[S]) {
    for op in operands {
        let op = op.as_ref();
        if op != "-" && !op.is_empty() {
            out.path(act, op);
        }
    }
}

/// Whether an operand names a remote (`host:path`, `user@host:path`, `host::module`,
/// `rsync://…`, `scheme://…`).
fn is_remote(op: &str) -> bool {
    if op.contains("://") {
        return true;
    }
    match op.find(':') {
        Some(i) if i > 0 => !op[..i].contains('/'),
        _ => false,
    }
}

#[cfg(test)]
pub(super) mod testing {
    //! The family tests' helpers, and one for a program given its standard input (the
    //! parser does not pass here-documents on yet).

    pub(crate) use super::super::testing::{effects, has};
    use crate::effects::{places, Cmd, RawTarget, Sink};
    use std::borrow::Cow;

    /// The effects of `program args…` reading `stdin`, as sorted `act@place` strings.
    pub(crate) fn stdin_effects(program: &str, args: &[&str], stdin: &str) -> Vec<String> {
        let args: Vec<Cow<'_, str>> = args.iter().map(|a| Cow::Borrowed(*a)).collect();
        let cmd = Cmd {
            program,
            args: &args,
            stdin: Some(stdin),
            stdin_file: None,
        };
        let mut sink = Sink::default();
        assert!(
            super::super::model(&cmd, &mut sink),
            "{program} not modelled"
        );
        let at = super::super::testing::at();
        let mut v: Vec<String> = sink
            .raw
            .iter()
            .map(|(act, t)| match t {
                RawTarget::Path(p) => {
                    format!("{act}@{}", places::place_of(p, &at.cwd, None, &at).0)
                }
                RawTarget::Place(place) | RawTarget::Named(place, _) => format!("{act}@{place}"),
                RawTarget::Mention(t) => format!("{act}~{t}"),
                RawTarget::Loads(t) | RawTarget::Program(t) => format!("{act}<{t}"),
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

#[cfg(test)]
mod hostile {
    //! Every program of the family on hostile arguments: no panic, bounded work.

    use super::testing::effects;

    const PROGRAMS: &[&str] = &[
        "rm",
        "rmdir",
        "unlink",
        "shred",
        "srm",
        "wipe",
        "find",
        "fd",
        "mv",
        "cp",
        "install",
        "rsync",
        "ln",
        "rename",
        "chmod",
        "chown",
        "chgrp",
        "chattr",
        "chflags",
        "setfacl",
        "chcon",
        "touch",
        "mkdir",
        "mkfifo",
        "mktemp",
        "truncate",
        "fallocate",
        "tee",
        "sponge",
        "dd",
        "sort",
        "uniq",
        "jq",
        "yq",
        "patch",
        "dos2unix",
        "iconv",
        "xxd",
        "split",
        "sed",
        "ed",
        "ex",
        "vim",
        "nvim",
        "nano",
        "perl",
        "awk",
        "gawk",
        "tar",
        "unzip",
        "zip",
        "7z",
        "cpio",
        "gzip",
        "zstd",
        "zcat",
        "zgrep",
        "cat",
        "head",
        "ls",
        "grep",
        "rg",
        "diff",
    ];
    const ARGS: &[&str] = &[
        "-",
        "--",
        "-é",
        "--é=ü",
        "-iü",
        "-ié",
        "sé",
        "s",
        "-e",
        "-f",
        "-t",
        "-o",
        "-C",
        "-d",
        "--in-place=",
        "=",
        "{}",
        "\\;",
        "-x",
        "-exec",
        "-delete",
        "-name",
        "+",
        "x:y",
        "é:ü",
        "-pié",
        "--to-command=",
        "if=",
        "of=",
        "+wq",
        "-c",
        "--cmd",
        "-S",
        "-s",
        "'",
    ];

    #[test]
    fn no_panic_on_hostile_arguments() {
        for p in PROGRAMS {
            for (i, a) in ARGS.iter().enumerate() {
                for b in ARGS.iter().skip(i % 7).step_by(5) {
                    let _ = effects(&format!("{p} {a} {b}"));
                    let _ = effects(&format!("{p} {b} {a} é"));
                }
                let _ = effects(&format!("{p} {a}"));
            }
        }
        // Long lines stay linear.
        let long = format!("rm {}", "-rf x ".repeat(5000));
        assert_eq!(effects(&long).len(), 1);
    }
}

#[cfg(test)]
mod wrappers {
    //! The family's programs under every wrapper the parser peels.

    use super::testing::has;

    const WRAPS: &[(&str, &str)] = &[
        ("", ""),
        ("sudo ", ""),
        ("sudo -u root ", ""),
        ("env X=1 ", ""),
        ("X=1 ", ""),
        ("nice -n 10 ", ""),
        ("timeout 5 ", ""),
        ("command ", ""),
        ("bash -c '", "'"),
        ("sh -c \"", "\""),
        ("sudo bash -c '", "'"),
    ];

    #[test]
    fn destructive_forms_under_wrappers() {
        let cases = [
            ("rm -rf ~", "delete@home"),
            ("mv ~/.ssh /tmp/x", "move@secrets"),
            ("cp /dev/null ~/.bashrc", "overwrite@dotfiles"),
            ("chmod -R 777 /", "permissions@root"),
            ("chown -R nobody ~", "permissions@home"),
            ("dd if=/dev/zero of=/dev/sda", "overwrite@device"),
            ("tar xzf a.tgz -C /", "write@root"),
            ("sed -i s/a/b/ ~/.zshrc", "write@dotfiles"),
            ("truncate -s 0 ~/.bash_history", "overwrite@dotfiles"),
            ("find ~ -delete", "delete@home"),
            ("shred -u ~/.ssh/id_rsa", "delete@secrets"),
            ("ln -sf /dev/null ~/.bashrc", "overwrite@dotfiles"),
            ("rsync -a --delete empty/ ~/", "delete@home"),
            ("gzip -r /etc", "delete@system"),
        ];
        for (pre, post) in WRAPS {
            for (cmd, effect) in cases {
                let line = format!("{pre}{cmd}{post}");
                assert!(has(&line, effect), "{line} lacks {effect}");
            }
        }
        // Through xargs, on what the producer names.
        assert!(has("echo ~ | xargs rm -rf", "delete@home"));
        assert!(has("ls ~ | xargs rm -rf", "delete@home"));
        assert!(has(
            "find / -maxdepth 1 | xargs chmod 777",
            "permissions@root"
        ));
    }

    #[test]
    fn benign_forms_stay_benign() {
        let benign = [
            "ls -la",
            "cat README.md",
            "grep -rn TODO src",
            "rg -l foo",
            "head -n 20 src/main.rs",
            "diff -u a.txt b.txt",
            "wc -l src/*.rs",
            "mkdir -p build",
            "touch src/new.rs",
            "cp src/a.rs src/b.rs",
            "mv src/old.rs src/new.rs",
            "sed -n '1,20p' src/main.rs",
            "tar czf /tmp/src.tgz src",
            "find . -name '*.rs' -type f",
            "chmod +x scripts/run.sh",
            "rm -rf target",
            "rm -rf node_modules dist",
            "gzip -k logs/a.log",
            "unzip -l a.zip",
            "sort -u names.txt",
        ];
        const BAD: &[&str] = &[
            "@home",
            "@root",
            "@project",
            "@secrets",
            "@gate",
            "@system",
            "@dotfiles",
            "@vcs",
            "@device",
        ];
        for line in benign {
            for e in super::testing::effects(line) {
                let protected = BAD.iter().any(|b| e.ends_with(b));
                let only_read = e.starts_with("read@");
                assert!(!protected || only_read, "{line}: {e}");
            }
        }
    }
}
