//! Programs that write files they name: `tee`, `dd`, `sort -o`, `uniq IN OUT`, `sponge`,
//! `jq`/`yq` (`-i`), `patch`, `dos2unix`, `iconv -o`, `xxd`, `split`.

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

const TEE: Grammar = Grammar {
    short: "aip",
    short_value: "",
    long: &["append", "ignore-interrupts", "output-error"],
    long_value: &[],
    posix: false,
};

const SORT: Grammar = Grammar {
    short: "bdfgiMhnRrVcCmsuz",
    short_value: "kotST",
    long: &[
        "ignore-leading-blanks",
        "dictionary-order",
        "ignore-case",
        "general-numeric-sort",
        "ignore-nonprinting",
        "month-sort",
        "human-numeric-sort",
        "numeric-sort",
        "random-sort",
        "reverse",
        "version-sort",
        "check",
        "merge",
        "stable",
        "unique",
        "zero-terminated",
        "debug",
    ],
    long_value: &[
        "key",
        "output",
        "field-separator",
        "buffer-size",
        "temporary-directory",
        "parallel",
        "files0-from",
        "compress-program",
        "batch-size",
        "random-source",
        "sort",
    ],
    posix: false,
};

const UNIQ: Grammar = Grammar {
    short: "cdDiuz",
    short_value: "fsw",
    long: &[
        "count",
        "repeated",
        "all-repeated",
        "ignore-case",
        "unique",
        "zero-terminated",
        "group",
    ],
    long_value: &["skip-fields", "skip-chars", "check-chars"],
    posix: false,
};

const SPONGE: Grammar = Grammar {
    short: "a",
    short_value: "",
    long: &[],
    long_value: &[],
    posix: false,
};

const PATCH: Grammar = Grammar {
    short: "bcelnNRsStuUEfZTxC",
    short_value: "BdDFgiopVYrz",
    long: &[
        "backup",
        "context",
        "ed",
        "normal",
        "unified",
        "forward",
        "reverse",
        "silent",
        "quiet",
        "batch",
        "force",
        "dry-run",
        "check",
        "posix",
        "remove-empty-files",
        "ignore-whitespace",
        "binary",
        "verbose",
        "merge",
        "set-utc",
        "set-time",
        "follow-symlinks",
        "backup-if-mismatch",
        "no-backup-if-mismatch",
    ],
    long_value: &[
        "strip",
        "input",
        "output",
        "directory",
        "reject-file",
        "ifdef",
        "fuzz",
        "prefix",
        "basename-prefix",
        "suffix",
        "version-control",
        "get",
        "quoting-style",
        "read-only",
        "reject-format",
    ],
    posix: false,
};

const DOS2UNIX: Grammar = Grammar {
    short: "abcfhikLlmnoqrsStuvV17F",
    short_value: "",
    long: &[
        "ascii",
        "keepdate",
        "force",
        "newfile",
        "oldfile",
        "quiet",
        "safe",
        "verbose",
        "keep-bom",
        "add-bom",
        "remove-bom",
        "info",
    ],
    long_value: &["convmode", "code-page"],
    posix: false,
};

const ICONV: Grammar = Grammar {
    short: "clsT",
    short_value: "fto",
    long: &["list", "silent", "verbose"],
    long_value: &["from-code", "to-code", "output"],
    posix: false,
};

const XXD: Grammar = Grammar {
    short: "abCEeiprdu",
    short_value: "cgloRsn",
    long: &[],
    long_value: &[],
    posix: false,
};

const SPLIT: Grammar = Grammar {
    short: "denux",
    short_value: "abClt",
    long: &[
        "elide-empty-files",
        "unbuffered",
        "verbose",
        "numeric-suffixes",
        "hex-suffixes",
    ],
    long_value: &[
        "suffix-length",
        "additional-suffix",
        "bytes",
        "line-bytes",
        "lines",
        "number",
        "separator",
        "filter",
    ],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "tee" | "gtee" => {
            let a = getopt::read(&TEE, cmd.args);
            let act = if a.any(&["a", "append"]) {
                Act::Write
            } else {
                Act::Overwrite
            };
            each(out, act, &a.operands);
        }
        "sponge" => {
            let a = getopt::read(&SPONGE, cmd.args);
            let act = if a.has("a") {
                Act::Write
            } else {
                Act::Overwrite
            };
            each(out, act, &a.operands);
        }
        "dd" | "gdd" => dd(cmd, out),
        "sort" | "gsort" => {
            let a = getopt::read(&SORT, cmd.args);
            crate::effects::code_options::options(cmd.program, &a, out);
            each(out, Act::Read, &a.operands);
            for f in a.values(&["files0-from"]) {
                out.path(Act::Read, f);
            }
            for o in a.values(&["o", "output"]) {
                out.path(Act::Overwrite, o);
            }
        }
        "uniq" | "guniq" => {
            let a = getopt::read(&UNIQ, cmd.args);
            if let Some(i) = a.operands.first() {
                each(out, Act::Read, &[i]);
            }
            if let Some(o) = a.operands.get(1) {
                each(out, Act::Overwrite, &[o]);
            }
        }
        "jq" | "gojq" | "jaq" => jq(cmd, out),
        "yq" => yq(cmd, out),
        "patch" | "gpatch" => patch(cmd, out),
        "dos2unix" | "unix2dos" | "mac2unix" | "unix2mac" => {
            let a = getopt::read(&DOS2UNIX, cmd.args);
            let new_file = a.any(&["n", "newfile"]);
            if new_file {
                // `-n IN OUT` pairs.
                for pair in a.operands.chunks(2) {
                    each(out, Act::Read, &pair[..1]);
                    each(out, Act::Overwrite, &pair[1..]);
                }
            } else {
                each(out, Act::Write, &a.operands);
            }
        }
        "iconv" => {
            let a = getopt::read(&ICONV, cmd.args);
            each(out, Act::Read, &a.operands);
            for o in a.values(&["o", "output"]) {
                out.path(Act::Overwrite, o);
            }
        }
        "xxd" => {
            let a = getopt::read(&XXD, cmd.args);
            each(out, Act::Read, &a.operands[..1.min(a.operands.len())]);
            if let Some(o) = a.operands.get(1) {
                // `xxd -r` patches into an existing file without truncating it (`-r` with
                // a seek); plain `xxd IN OUT` replaces OUT.
                out.path(Act::Overwrite, o);
            }
        }
        "split" | "gsplit" | "csplit" => {
            let a = getopt::read(&SPLIT, cmd.args);
            if let Some(i) = a.operands.first() {
                each(out, Act::Read, &[i]);
            }
            let prefix = a.operands.get(1).map(|p| &**p).unwrap_or("x");
            if cmd.program != "csplit" {
                out.path(Act::Write, &format!("{prefix}aa"));
            } else {
                out.path(Act::Write, "xx00");
            }
        }
        _ => return false,
    }
    true
}

/// `dd if=IN of=OUT …`: a read of IN, an overwrite of OUT (`conv=notrunc` still writes over
/// what is there). A device target is classed by the caller.
fn dd(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    for a in cmd.args.iter() {
        if let Some(i) = a.strip_prefix("if=") {
            out.path(Act::Read, i);
        } else if let Some(o) = a.strip_prefix("of=") {
            out.path(Act::Overwrite, o);
        }
    }
}

/// `jq [OPTS] FILTER [FILE…]`: reads its files; never writes (`--arg NAME VALUE` and
/// `--argjson` take two words, `--slurpfile`/`--rawfile NAME FILE` read FILE, `--args`
/// makes the rest arguments).
fn jq(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    let mut filter_given = false;
    let mut rest_are_args = false;
    let mut operands = Vec::new();
    let mut only_operands = false;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        let w: &str = w;
        if only_operands || !w.starts_with('-') || w == "-" {
            operands.push(w);
            continue;
        }
        match w {
            "--" => only_operands = true,
            "--arg" | "--argjson" => k += 2,
            "--slurpfile" | "--rawfile" => {
                if let Some(f) = cmd.args.get(k + 1) {
                    out.path(Act::Read, f);
                }
                k += 2;
            }
            "-f" | "--from-file" => {
                if let Some(f) = cmd.args.get(k) {
                    out.path(Act::Read, f);
                }
                filter_given = true;
                k += 1;
            }
            "-L" | "--indent" => k += 1,
            "--args" | "--jsonargs" => rest_are_args = true,
            _ => {}
        }
    }
    let skip = usize::from(!filter_given);
    if rest_are_args {
        return;
    }
    each(out, Act::Read, &operands[skip.min(operands.len())..]);
}

/// `yq [eval|e|eval-all|ea] [-i] EXPR FILE…` (v4), `yq w -i FILE PATH VALUE` (v3), and the
/// jq-wrapper `yq -i`: files written in place with `-i`/`--inplace`, read otherwise.
fn yq(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const YQ: Grammar = Grammar {
        short: "ienrPCMNvSjyYxcsa",
        short_value: "opIs",
        long: &[
            "inplace",
            "in-place",
            "exit-status",
            "null-input",
            "unwrapScalar",
            "prettyPrint",
            "colors",
            "no-colors",
            "no-doc",
            "verbose",
            "header-preprocess",
            "nul-output",
            "yaml-output",
            "xml-output",
            "toml-output",
            "raw-output",
            "slurp",
        ],
        long_value: &[
            "output-format",
            "input-format",
            "indent",
            "front-matter",
            "expression",
            "from-file",
            "split-exp",
            "arg",
        ],
        posix: false,
    };
    let a = getopt::read(&YQ, cmd.args);
    let in_place = a.any(&["i", "inplace", "in-place"]);
    let mut ops: Vec<&str> = a.operands.iter().map(|o| &**o).collect();
    let v3 = matches!(
        ops.first().copied(),
        Some(
            "w" | "write"
                | "d"
                | "delete"
                | "m"
                | "merge"
                | "p"
                | "prefix"
                | "r"
                | "read"
                | "n"
                | "new"
                | "v"
                | "validate"
        )
    );
    if v3 {
        // The file comes first, then paths and values.
        ops = ops.get(1..2).map(|s| s.to_vec()).unwrap_or_default();
    } else {
        if matches!(ops.first().copied(), Some("eval" | "e" | "eval-all" | "ea")) {
            ops.remove(0);
        }
        let expr_given = a.any(&["expression", "from-file"]);
        // With one operand that looks like a file and no expression, it is the file.
        let lone_file = ops.len() == 1 && looks_like_data_file(ops[0]);
        if !expr_given && !lone_file && !ops.is_empty() {
            ops.remove(0);
        }
    }
    let act = if in_place { Act::Write } else { Act::Read };
    each(out, act, &ops);
}

fn looks_like_data_file(s: &str) -> bool {
    [
        ".yaml",
        ".yml",
        ".json",
        ".toml",
        ".xml",
        ".properties",
        ".csv",
        ".tsv",
    ]
    .iter()
    .any(|e| s.to_ascii_lowercase().ends_with(e))
}

/// `patch [OPTS] [ORIGFILE [PATCHFILE]]`: writes the original file (or the files the patch
/// names, under `-d DIR`, when none is given); `-i`/`--input` and a second operand are read;
/// `-o`/`--output` is overwritten instead of the original. `--dry-run` only reads.
fn patch(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&PATCH, cmd.args);
    for f in a.values(&["i", "input"]) {
        out.path(Act::Read, f);
    }
    if let Some(p) = a.operands.get(1) {
        out.path(Act::Read, p);
    }
    let dry = a.any(&["dry-run", "check", "C"]);
    if dry {
        return;
    }
    if let Some(o) = a.value("o").or(a.value("output")) {
        if o != "-" {
            out.path(Act::Overwrite, o);
        }
        return;
    }
    let dir = a.value("d").or(a.value("directory"));
    let join = |p: &str| match dir {
        Some(d) if !p.starts_with('/') => format!("{}/{}", d.trim_end_matches('/'), p),
        _ => p.to_string(),
    };
    if let Some(f) = a.operands.first() {
        out.path(Act::Write, &join(f));
        return;
    }
    // The files the patch names, when it is on the line (a here-document).
    let strip: usize = a
        .value("p")
        .or(a.value("strip"))
        .and_then(|p| p.parse().ok())
        .unwrap_or(usize::MAX);
    let mut named = false;
    if let Some(text) = cmd.stdin {
        for line in text.lines().take(100_000) {
            let Some(path) = line
                .strip_prefix("+++ ")
                .or_else(|| line.strip_prefix("*** ").filter(|l| !l.ends_with("****")))
            else {
                continue;
            };
            let path = path.split('\t').next().unwrap_or("").trim();
            if path.is_empty() || path == "/dev/null" {
                continue;
            }
            let stripped = if strip == usize::MAX {
                // Without -p, patch uses the base name.
                super::base(path).to_string()
            } else {
                path.splitn(strip + 1, '/')
                    .nth(strip)
                    .unwrap_or(path)
                    .to_string()
            };
            out.path(Act::Write, &join(&stripped));
            named = true;
        }
    }
    if !named {
        out.path(Act::Write, &join("."));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has, stdin_effects};

    #[test]
    fn tee_and_sponge() {
        assert_eq!(effects("tee out.txt"), vec!["overwrite@source"]);
        assert!(has("echo x | sudo tee /etc/hosts", "overwrite@system"));
        assert!(has("echo x | tee -a ~/.bashrc", "write@dotfiles"));
        assert!(has("echo x | tee --append ~/.bashrc", "write@dotfiles"));
        assert!(!has(
            "echo x | tee --append ~/.bashrc",
            "overwrite@dotfiles"
        ));
        assert!(has(
            "echo k | tee a ~/.ssh/authorized_keys",
            "overwrite@secrets"
        ));
        assert!(has("cat x | sponge ~/.zshrc", "overwrite@dotfiles"));
        assert!(has("cat x | sponge -a ~/.zshrc", "write@dotfiles"));
        assert!(has("jq '.a=1' f.json | sponge f.json", "overwrite@source"));
    }

    #[test]
    fn dd_forms() {
        assert!(has("dd if=/dev/zero of=/dev/sda bs=1M", "overwrite@device"));
        assert!(has(
            "sudo dd if=ubuntu.iso of=/dev/disk2 bs=4m",
            "overwrite@device"
        ));
        assert!(has(
            "dd if=/dev/urandom of=/dev/nvme0n1",
            "overwrite@device"
        ));
        assert!(has("dd if=/dev/sda of=/tmp/mbr.bin count=1", "read@device"));
        assert!(has("dd if=/dev/zero of=~/.bashrc", "overwrite@dotfiles"));
        assert_eq!(
            effects("dd if=a.img of=b.img"),
            vec!["overwrite@source", "read@source"]
        );
        assert_eq!(
            effects("dd if=/dev/zero of=/dev/null count=1"),
            vec!["read@none"]
        );
    }

    #[test]
    fn sort_uniq_outputs() {
        assert_eq!(effects("sort a.txt"), vec!["read@source"]);
        assert_eq!(
            effects("sort -o a.txt a.txt"),
            vec!["overwrite@source", "read@source"]
        );
        assert!(has("sort -k2 -t, x -o ~/.bashrc", "overwrite@dotfiles"));
        assert!(has("sort --output=/etc/passwd x", "overwrite@system"));
        assert!(has("sort --out /etc/passwd x", "overwrite@system"));
        assert!(has("sort -uo ~/.ssh/known_hosts x", "overwrite@secrets"));
        assert!(!has("sort -k 2 data.txt", "overwrite@source"));
        assert!(has("uniq in.txt ~/.profile", "overwrite@dotfiles"));
        assert_eq!(effects("uniq -c in.txt"), vec!["read@source"]);
    }

    #[test]
    fn jq_yq() {
        assert_eq!(effects("jq .name package.json"), vec!["read@source"]);
        assert_eq!(
            effects("jq -r --arg k v '.[$k]' a.json"),
            vec!["read@source"]
        );
        assert_eq!(effects("jq -n '1'"), Vec::<String>::new());
        assert!(has(
            "jq --slurpfile x ~/.aws/credentials . a.json",
            "read@secrets"
        ));
        assert_eq!(effects("yq '.a' c.yaml"), vec!["read@source"]);
        assert_eq!(effects("yq -i '.a = 1' c.yaml"), vec!["write@source"]);
        assert_eq!(effects("yq e -i '.a = 1' c.yaml"), vec!["write@source"]);
        assert_eq!(
            effects("yq eval --inplace '.a = 1' c.yaml"),
            vec!["write@source"]
        );
        assert!(has("yq w -i ~/.kube/config a b", "write@secrets"));
        assert_eq!(effects("yq c.yaml"), vec!["read@source"]);
    }

    #[test]
    fn patch_forms() {
        assert_eq!(
            effects("patch -p1 < fix.diff"),
            vec!["read@source", "write@project"]
        );
        assert!(has("patch -p1 -i fix.diff", "read@source"));
        assert!(has("patch --input=fix.diff -d /etc", "write@system"));
        assert!(has("patch ~/.bashrc fix.diff", "write@dotfiles"));
        assert!(has("patch -o out.c in.c fix.diff", "overwrite@source"));
        assert!(!has("patch -o out.c in.c fix.diff", "write@source"));
        assert_eq!(
            effects("patch --dry-run -p1 -i fix.diff"),
            vec!["read@source"]
        );
        // The files a patch on standard input names.
        let diff = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n";
        assert_eq!(stdin_effects("patch", &["-p1"], diff), vec!["write@source"]);
        let diff = "--- a\n+++ /home/u/.bashrc\t2024\n@@\n";
        assert_eq!(
            stdin_effects("patch", &["-p0"], diff),
            vec!["write@dotfiles"]
        );
        let diff = "*** a/x.rs\n--- b/x.rs\n***************\n*** 1,3 ****\n";
        assert_eq!(
            stdin_effects("patch", &["-p1", "-d", "/etc"], diff),
            vec!["write@system"]
        );
    }

    #[test]
    fn converters() {
        assert_eq!(effects("dos2unix a.sh b.sh"), vec!["write@source"]);
        assert!(has("dos2unix -n in.txt ~/.profile", "overwrite@dotfiles"));
        assert!(has(
            "iconv -f latin1 -t utf8 a.txt -o ~/.bashrc",
            "overwrite@dotfiles"
        ));
        assert_eq!(
            effects("iconv -f latin1 -t utf8 a.txt"),
            vec!["read@source"]
        );
        assert!(has("xxd -r dump.hex /usr/bin/ls", "overwrite@system"));
        assert_eq!(effects("xxd a.bin"), vec!["read@source"]);
        assert!(has("split -l 100 big.txt /tmp/part_", "write@temp"));
    }
}
