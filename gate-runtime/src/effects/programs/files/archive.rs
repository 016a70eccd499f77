//! Archivers: `tar` (old-style bundles too), `unzip`, `zip`, `7z`, `cpio`: where an
//! extraction's members land and which archive's list of members is read. The compressors
//! (`gzip`, `xz`, …) are data (`commands/files-archive.toml`).

use std::borrow::Cow;

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Reach, Sink};
use super::each;
use gate_spec::effect::Act;

const TAR: Grammar = Grammar {
    short: "cxtruAdzjJavkpPhlmOSWUiBGMnwqZ",
    short_value: "fCTXbKNVgLFIH",
    long: &[
        "create",
        "extract",
        "get",
        "list",
        "append",
        "update",
        "catenate",
        "concatenate",
        "delete",
        "diff",
        "compare",
        "gzip",
        "gunzip",
        "ungzip",
        "bzip2",
        "xz",
        "zstd",
        "lzma",
        "lzip",
        "lzop",
        "compress",
        "uncompress",
        "auto-compress",
        "verbose",
        "keep-old-files",
        "skip-old-files",
        "keep-newer-files",
        "keep-directory-symlink",
        "overwrite",
        "overwrite-dir",
        "no-overwrite-dir",
        "remove-files",
        "unlink-first",
        "recursive-unlink",
        "absolute-names",
        "dereference",
        "to-stdout",
        "preserve-permissions",
        "same-permissions",
        "preserve",
        "numeric-owner",
        "no-same-owner",
        "same-owner",
        "no-same-permissions",
        "totals",
        "sparse",
        "verify",
        "wildcards",
        "no-wildcards",
        "no-recursion",
        "recursion",
        "one-file-system",
        "ignore-zeros",
        "ignore-failed-read",
        "interactive",
        "confirmation",
        "show-transformed-names",
        "null",
        "no-null",
        "check-links",
        "exclude-vcs",
        "exclude-vcs-ignores",
        "exclude-backups",
        "exclude-caches",
        "xattrs",
        "acls",
        "selinux",
        "touch",
        "utc",
        "full-time",
        "posix",
        "checkpoint",
    ],
    long_value: &[
        "file",
        "directory",
        "files-from",
        "exclude",
        "exclude-from",
        "transform",
        "xform",
        "strip-components",
        "owner",
        "group",
        "mode",
        "mtime",
        "newer",
        "after-date",
        "newer-mtime",
        "use-compress-program",
        "format",
        "label",
        "blocking-factor",
        "record-size",
        "index-file",
        "listed-incremental",
        "to-command",
        "info-script",
        "new-volume-script",
        "rsh-command",
        "checkpoint-action",
        "suffix",
        "warning",
        "occurrence",
        "level",
        "sort",
        "tape-length",
        "volno-file",
        "backup",
        "quoting-style",
    ],
    posix: false,
};

/// Old-style `tar xzf ARCHIVE -C DIR`: a first word without a dash is a bundle of letters,
/// each value-taking letter taking the next words in turn.
fn tar_words<'a>(args: &[Cow<'a, str>]) -> Vec<Cow<'a, str>> {
    let Some(first) = args.first() else {
        return Vec::new();
    };
    if first.starts_with('-') || first.is_empty() || !first.chars().all(|c| c.is_ascii_alphabetic())
    {
        return args.to_vec();
    }
    let mut out = Vec::new();
    let mut next = 1;
    for c in first.chars() {
        out.push(Cow::Owned(format!("-{c}")));
        if TAR.short_value.contains(c) {
            if let Some(v) = args.get(next) {
                out.push(v.clone());
            }
            next += 1;
        }
    }
    out.extend(args.iter().skip(next).cloned());
    out
}

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "tar" | "gtar" | "bsdtar" => tar(cmd, out),
        "unzip" => unzip(cmd, out),
        "zip" => zip(cmd, out),
        "7z" | "7za" | "7zr" | "7zz" => seven(cmd, out),
        "cpio" => cpio(cmd, out),
        _ => return false,
    }
    true
}

/// `tar`: extraction writes at `-C DIR` (else `.`), an overwrite with `--overwrite`,
/// `--unlink-first` or `--recursive-unlink`; creation overwrites the `-f` archive and reads
/// the operands (`--remove-files` deletes them); append/update write the archive; listing
/// reads it. `--to-command` runs shell code.
fn tar(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let words = tar_words(cmd.args);
    let a = getopt::read(&TAR, &words);
    let archive = a.value("f").or(a.value("file")).filter(|f| *f != "-");
    let dir = a.value("C").or(a.value("directory"));
    let in_dir = |p: &str| match dir {
        Some(d) if !p.starts_with('/') => format!("{}/{}", d.trim_end_matches('/'), p),
        _ => p.to_string(),
    };
    for f in a.values(&["T", "files-from", "X", "exclude-from"]) {
        if f != "-" {
            out.path(Act::Read, f);
        }
    }
    crate::effects::code_options::options(cmd.program, &a, out);
    if a.any(&["x", "extract", "get"]) {
        if let Some(f) = archive {
            out.path(Act::Read, f);
        }
        if a.any(&["O", "to-stdout"]) || a.has("to-command") {
            return;
        }
        let act = if a.any(&["overwrite", "U", "unlink-first", "recursive-unlink"]) {
            Act::Overwrite
        } else {
            Act::Write
        };
        let at = dir.unwrap_or(".");
        // What the members write where they land: read from the archive's list of members
        // in a live hook call, everything under the directory when it cannot be read.
        let reach = match archive {
            Some(f) if !a.any(&["transform", "xform", "P", "absolute-names"]) => Reach::Archive {
                path: f.to_string(),
                strip: a
                    .value("strip-components")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0),
            },
            _ => Reach::All,
        };
        if a.operands.is_empty() {
            out.tree(act, at, reach);
        } else {
            for m in &a.operands {
                out.path(act, &in_dir(m));
            }
            out.within(act, at, reach);
        }
        return;
    }
    if a.any(&["c", "create"]) {
        if let Some(f) = archive {
            out.path(Act::Overwrite, f);
        }
        for op in &a.operands {
            out.path(Act::Read, &in_dir(op));
        }
    } else if a.any(&[
        "r",
        "append",
        "u",
        "update",
        "A",
        "catenate",
        "concatenate",
        "delete",
    ]) {
        if let Some(f) = archive {
            out.path(Act::Write, f);
        }
        if !a.has("delete") {
            for op in &a.operands {
                out.path(Act::Read, &in_dir(op));
            }
        }
    } else {
        // -t, -d: a listing or a comparison.
        if let Some(f) = archive {
            out.path(Act::Read, f);
        }
        if a.any(&["d", "diff", "compare"]) {
            out.path(Act::Read, dir.unwrap_or("."));
        }
    }
    if a.has("remove-files") {
        for op in &a.operands {
            out.path(Act::Delete, &in_dir(op));
        }
    }
}

/// `unzip [-opts] ARCHIVE [MEMBER…] [-x XLIST] [-d DIR]`: reads the archive; writes at DIR
/// (`.` by default), an overwrite with `-o`; listing, testing and printing only read.
fn unzip(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut flags = String::new();
    let mut dir: Option<&str> = None;
    let mut ops: Vec<&str> = Vec::new();
    let mut excluding = false;
    let mut k = 0;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        let w: &str = w;
        if let Some(f) = w.strip_prefix('-').filter(|f| !f.is_empty()) {
            excluding = false;
            for (i, c) in f.char_indices() {
                let rest = &f[i + c.len_utf8()..];
                match c {
                    'd' => {
                        dir = if rest.is_empty() {
                            k += 1;
                            cmd.args.get(k - 1).map(|a| &**a)
                        } else {
                            Some(rest)
                        };
                        break;
                    }
                    'P' => {
                        if rest.is_empty() {
                            k += 1;
                        }
                        break;
                    }
                    'x' => {
                        excluding = true;
                    }
                    c => flags.push(c),
                }
            }
            continue;
        }
        if !excluding {
            ops.push(w);
        }
    }
    if let Some(z) = ops.first() {
        out.path(Act::Read, z);
    }
    if flags.contains(['l', 'v', 't', 'z', 'p', 'c', 'Z']) {
        return;
    }
    let act = if flags.contains('o') {
        Act::Overwrite
    } else {
        Act::Write
    };
    let at = dir.unwrap_or(".");
    let reach = match ops.first() {
        Some(z) if *z != "-" => Reach::Archive {
            path: z.to_string(),
            strip: 0,
        },
        _ => Reach::All,
    };
    if ops.len() > 1 && dir.is_none() {
        for m in &ops[1..] {
            out.path(act, m);
        }
        out.within(act, at, reach);
    } else {
        out.tree(act, at, reach);
    }
}

/// `zip [-opts] ARCHIVE FILE…`: the archive written, the files read; `-m` moves them into
/// the archive (delete), `-d` deletes members (a write of the archive).
fn zip(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const ZIP: Grammar = Grammar {
        short: "rRjJmqvTdDfugFlkoSXyz0123456789AcCeEhL@",
        short_value: "bnPtOZsiIx",
        long: &[
            "recurse-paths",
            "move",
            "quiet",
            "verbose",
            "delete",
            "freshen",
            "update",
            "junk-paths",
            "symlinks",
            "encrypt",
            "test",
            "grow",
        ],
        long_value: &[
            "temp-path",
            "password",
            "output-file",
            "suffixes",
            "exclude",
            "include",
            "unzip-command",
        ],
        posix: false,
    };
    // zip's two-letter options (`-TT CMD` is `--unzip-command CMD`).
    let words: Vec<Cow<'_, str>> = cmd
        .args
        .iter()
        .map(|w| match &**w {
            "-TT" => Cow::Borrowed("--unzip-command"),
            _ => w.clone(),
        })
        .collect();
    let a = getopt::read(&ZIP, &words);
    crate::effects::code_options::options(cmd.program, &a, out);
    let Some((archive, files)) = a.operands.split_first() else {
        return;
    };
    let target = a.value("O").or(a.value("output-file"));
    match target {
        Some(t) => {
            out.path(Act::Read, archive);
            out.path(Act::Overwrite, t);
        }
        None => out.path(Act::Write, archive),
    }
    if a.any(&["d", "delete"]) {
        return;
    }
    each(out, Act::Read, files);
    if a.any(&["m", "move"]) {
        each(out, Act::Delete, files);
    }
}

/// `7z COMMAND [-switches] ARCHIVE [FILE…]`: `x`/`e` extract (at `-oDIR`, an overwrite with
/// `-aoa`/`-y`), `a`/`u` write the archive and read the files (`-sdel` deletes them), `d`
/// writes the archive, `l`/`t`/`h`/`i` read.
fn seven(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut ops: Vec<&str> = Vec::new();
    let mut switches: Vec<&str> = Vec::new();
    let mut only_ops = false;
    for w in cmd.args.iter() {
        let w: &str = w;
        if only_ops || !w.starts_with('-') || w == "-" {
            ops.push(w);
        } else if w == "--" {
            only_ops = true;
        } else {
            switches.push(&w[1..]);
        }
    }
    let Some((command, rest)) = ops.split_first() else {
        return;
    };
    let archive = rest.first().copied();
    let files = rest.get(1..).unwrap_or(&[]);
    let outdir = switches.iter().find_map(|s| s.strip_prefix('o'));
    match command.to_ascii_lowercase().as_str() {
        "x" | "e" => {
            if let Some(z) = archive {
                out.path(Act::Read, z);
            }
            if switches.contains(&"so") {
                return;
            }
            let act = if switches.iter().any(|s| *s == "aoa" || *s == "y") {
                Act::Overwrite
            } else {
                Act::Write
            };
            out.tree(
                act,
                outdir.filter(|d| !d.is_empty()).unwrap_or("."),
                Reach::All,
            );
        }
        "a" | "u" => {
            if let Some(z) = archive {
                out.path(Act::Write, z);
            }
            each(out, Act::Read, files);
            if switches.contains(&"sdel") {
                each(out, Act::Delete, files);
            }
        }
        "d" | "rn" => {
            if let Some(z) = archive {
                out.path(Act::Write, z);
            }
        }
        _ => {
            if let Some(z) = archive {
                out.path(Act::Read, z);
            }
        }
    }
}

/// `cpio -i` extracts (write at `-D DIR` or `.`, an overwrite with `-u`), `-o` creates (an
/// overwrite of `-O`/`-F FILE`), `-p DIR` copies into DIR.
fn cpio(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const CPIO: Grammar = Grammar {
        short: "ioptdmvuraBcfLnsSVb0",
        short_value: "DEFHIMORC",
        long: &[
            "extract",
            "create",
            "pass-through",
            "list",
            "make-directories",
            "unconditional",
            "preserve-modification-time",
            "verbose",
            "reset-access-time",
            "null",
            "link",
            "dereference",
            "no-absolute-filenames",
            "absolute-filenames",
            "swap",
            "quiet",
            "sparse",
            "to-stdout",
            "rename",
        ],
        long_value: &[
            "directory",
            "file",
            "format",
            "pattern-file",
            "owner",
            "message",
            "block-size",
            "io-size",
            "rsh-command",
        ],
        posix: false,
    };
    let a = getopt::read(&CPIO, cmd.args);
    crate::effects::code_options::options(cmd.program, &a, out);
    let archive = a.value("F").or(a.value("file"));
    let dir = a.value("D").or(a.value("directory"));
    let act = if a.any(&["u", "unconditional"]) {
        Act::Overwrite
    } else {
        Act::Write
    };
    if a.any(&["i", "extract"]) {
        if let Some(f) = archive.or(a.value("I")) {
            out.path(Act::Read, f);
        }
        if a.any(&["t", "list", "to-stdout"]) {
            return;
        }
        out.tree(act, dir.unwrap_or("."), Reach::All);
    } else if a.any(&["o", "create"]) {
        if let Some(f) = archive.or(a.value("O")) {
            out.path(Act::Overwrite, f);
        }
    } else if a.any(&["p", "pass-through"]) {
        each(out, act, &a.operands);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn tar_modes_and_spellings() {
        assert_eq!(
            effects("tar xzf a.tgz"),
            vec!["read@source", "write@project"]
        );
        assert_eq!(
            effects("tar -xzf a.tgz"),
            vec!["read@source", "write@project"]
        );
        assert_eq!(
            effects("tar --extract --file=a.tgz"),
            vec!["read@source", "write@project"]
        );
        assert!(has("tar xzf a.tgz -C /", "write@root"));
        assert!(has("tar -xf a.tar -C ~", "write@home"));
        assert!(has("tar -x -f a.tar --directory=/etc", "write@system"));
        assert!(has("tar xf a.tar --overwrite -C ~/", "overwrite@home"));
        assert!(has(
            "sudo tar -xvf a.tar --recursive-unlink -C /",
            "overwrite@root"
        ));
        assert!(has("tar xvfC a.tar /usr", "write@system"));
        assert!(has("tar -xf a.tar .bashrc -C ~", "write@dotfiles"));
        assert_eq!(effects("tar tzf a.tgz"), vec!["read@source"]);
        assert_eq!(effects("tar -tvf a.tar"), vec!["read@source"]);
        assert_eq!(effects("tar -xOf a.tar x"), vec!["read@source"]);
        assert!(has("tar czf ~/.bashrc src", "overwrite@dotfiles"));
        assert!(has("tar -czf /tmp/b.tgz ~/.ssh", "read@secrets"));
        assert!(has("tar -czf /tmp/b.tgz ~/.ssh", "overwrite@temp"));
        assert!(has(
            "tar --create --file b.tar --remove-files ~",
            "delete@home"
        ));
        assert!(has("tar -rf a.tar x", "write@source"));
        assert!(has("tar -xf a.tar --to-command='rm -rf ~'", "delete@home"));
        assert!(has("tar -xf a.tar --keep-old-files -C ~", "write@home"));
    }

    #[test]
    fn unzip_zip_7z_cpio() {
        assert_eq!(effects("unzip a.zip"), vec!["read@source", "write@project"]);
        assert_eq!(effects("unzip -l a.zip"), vec!["read@source"]);
        assert_eq!(effects("unzip -qq -t a.zip"), vec!["read@source"]);
        assert!(has("unzip -o a.zip -d ~", "overwrite@home"));
        assert!(has("unzip -oq a.zip -d /", "overwrite@root"));
        assert!(has("unzip a.zip -d/etc", "write@system"));
        assert!(has("unzip a.zip -x '*.txt' -d build", "write@outputs"));
        assert!(has("zip -r out.zip src", "write@source"));
        assert!(has("zip -rm out.zip ~/Documents", "delete@outside"));
        assert!(has("zip --move out.zip .env", "delete@secrets"));
        assert!(has("zip -r /tmp/k.zip ~/.ssh", "read@secrets"));
        assert!(has("7z x a.7z -o/", "write@root"));
        assert!(has("7z x a.7z -o/etc -aoa", "overwrite@system"));
        assert_eq!(effects("7z l a.7z"), vec!["read@source"]);
        assert!(has("7z a out.7z ~/docs -sdel", "delete@outside"));
        assert!(has("cpio -idmv < a.cpio", "write@project"));
        assert!(has("cpio -iu -D / < a.cpio", "overwrite@root"));
        assert!(has("find . | cpio -o -O /tmp/a.cpio", "overwrite@temp"));
        assert!(has("find . | cpio -pdm /etc", "write@system"));
        assert_eq!(effects("cpio -it < a.cpio"), vec!["read@source"]);
    }
}
