//! Readers: programs that only read the files they name (`cat`, `head`, `grep`, `ls`,
//! `diff`, …), with each one's value-taking options so that a pattern or a count is not
//! taken for a path; and path queries that touch nothing (`basename`, `realpath`).

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

/// A reader: its grammar, and how many leading operands are not paths (a grep pattern).
struct Reader {
    names: &'static [&'static str],
    grammar: Grammar,
    /// Leading operands that are not paths, unless a pattern option is given.
    pattern_operands: usize,
    /// Options that give the pattern (then every operand is a path).
    pattern_options: &'static [&'static str],
    /// Read `.` when no operand names a path (recursive search).
    default_dot: bool,
}

const fn g(
    short: &'static str,
    short_value: &'static str,
    long_value: &'static [&'static str],
) -> Grammar {
    Grammar {
        short,
        short_value,
        long: &[],
        long_value,
        posix: false,
    }
}

/// Readers that list names, sizes and types, never a file's content.
const NAMES_ONLY: &[&str] = &[
    "ls", "dir", "vdir", "gls", "file", "stat", "du", "tree", "exa", "eza", "lsd",
];

const READERS: &[Reader] = &[
    Reader {
        // No value-taking options worth knowing: every operand is a path.
        names: &[
            "cat",
            "tac",
            "more",
            "most",
            "rev",
            "strings",
            "base64",
            "base32",
            "basenc",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
            "shasum",
            "md5",
            "expand",
            "unexpand",
            "tsort",
            "wc",
            "readlink",
            "lsattr",
            "getfacl",
            "namei",
            "cmp",
            "comm",
            "paste",
            "look",
            "tokei",
            "cloc",
            "scc",
            "jless",
            "glow",
            "mdcat",
            "identify",
            "exiftool",
            "objdump",
            "readelf",
            "nm",
            "ldd",
            "size",
            "hexdump",
            "hd",
        ],
        grammar: g(
            "",
            "",
            &["files0-from", "format", "width", "block-size", "tabs"],
        ),
        pattern_operands: 0,
        pattern_options: &[],
        default_dot: false,
    },
    Reader {
        names: &["nl", "od", "fold", "fmt", "pr", "column", "shuf"],
        grammar: g(
            "",
            "bdfhilnsvwAjNtSWoHLe",
            &[
                "width",
                "format",
                "output",
                "head-count",
                "separator",
                "table-columns",
                "output-separator",
                "input-separator",
                "random-source",
                "header",
                "number-separator",
                "read-bytes",
                "skip-bytes",
                "address-radix",
            ],
        ),
        pattern_operands: 0,
        pattern_options: &[],
        default_dot: false,
    },
    Reader {
        names: &[
            "file", "stat", "du", "tree", "exa", "eza", "lsd", "bat", "batcat",
        ],
        grammar: g(
            "",
            "cmeFPBdtXLIlHr",
            &[
                "format",
                "printf",
                "max-depth",
                "block-size",
                "exclude",
                "threshold",
                "time-style",
                "time",
                "level",
                "sort",
                "color",
                "ignore-glob",
                "language",
                "theme",
                "style",
                "pager",
                "map-syntax",
                "decorations",
                "line-range",
                "highlight-line",
                "tabs",
                "wrap",
                "separator",
                "magic-file",
                "exclude-quiet",
                "parameter",
            ],
        ),
        pattern_operands: 0,
        pattern_options: &[],
        default_dot: false,
    },
    Reader {
        names: &["head", "tail", "less"],
        grammar: g(
            "qvzfFrRSNnMiIX",
            "ncsbhjkoOpPtTxyz",
            &[
                "lines",
                "bytes",
                "sleep-interval",
                "pid",
                "max-unchanged-stats",
                "follow",
                "log-file",
                "LOG-FILE",
                "tag-file",
                "pattern",
                "prompt",
                "tabs",
                "shift",
            ],
        ),
        pattern_operands: 0,
        pattern_options: &[],
        default_dot: false,
    },
    Reader {
        names: &["ls", "dir", "vdir", "gls"],
        grammar: g(
            "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
            "IwT",
            &[
                "hide",
                "ignore",
                "format",
                "sort",
                "time",
                "time-style",
                "width",
                "tabsize",
                "block-size",
                "color",
                "quoting-style",
                "indicator-style",
            ],
        ),
        pattern_operands: 0,
        pattern_options: &[],
        default_dot: false,
    },
    Reader {
        names: &[
            "cut",
            "tr",
            "join",
            "diff",
            "diff3",
            "sdiff",
            "colordiff",
            "icdiff",
            "delta",
            "difft",
            "meld",
        ],
        grammar: g(
            "",
            "bcdfUCILFxXSWt12oej",
            &[
                "bytes",
                "characters",
                "delimiter",
                "fields",
                "output-delimiter",
                "unified",
                "context",
                "ignore-matching-lines",
                "label",
                "show-function-line",
                "exclude",
                "exclude-from",
                "starting-file",
                "width",
                "tabsize",
                "horizon-lines",
                "line-format",
                "old-line-format",
                "new-line-format",
                "unchanged-line-format",
                "old-group-format",
                "new-group-format",
                "changed-group-format",
                "unchanged-group-format",
                "color",
                "palette",
                "from-file",
                "to-file",
            ],
        ),
        pattern_operands: 0,
        pattern_options: &[],
        default_dot: false,
    },
    Reader {
        names: &[
            "grep",
            "egrep",
            "fgrep",
            "ggrep",
            "zgrep",
            "pcregrep",
            "pcre2grep",
            "ack",
            "ag",
            "pt",
            "sift",
            "ugrep",
            "ug",
        ],
        grammar: g(
            "",
            "efmABCdDgG",
            &[
                "regexp",
                "file",
                "max-count",
                "after-context",
                "before-context",
                "context",
                "binary-files",
                "devices",
                "directories",
                "exclude",
                "exclude-from",
                "exclude-dir",
                "include",
                "label",
                "color",
                "colour",
                "group-separator",
                "ignore-dir",
                "ignore",
                "file-search-regex",
                "depth",
                "type",
                "type-add",
                "pager",
            ],
        ),
        pattern_operands: 1,
        pattern_options: &["e", "f", "regexp", "file"],
        default_dot: false,
    },
    Reader {
        names: &["rg"],
        grammar: g(
            "",
            "efgmABCEjMrtTdcl",
            &[
                "regexp",
                "file",
                "glob",
                "iglob",
                "max-count",
                "after-context",
                "before-context",
                "context",
                "encoding",
                "threads",
                "max-columns",
                "replace",
                "type",
                "type-not",
                "type-add",
                "type-clear",
                "max-depth",
                "maxdepth",
                "ignore-file",
                "colors",
                "color",
                "sort",
                "sortr",
                "path-separator",
                "pre",
                "pre-glob",
                "field-match-separator",
                "field-context-separator",
                "context-separator",
                "engine",
                "dfa-size-limit",
                "regex-size-limit",
                "max-filesize",
                "hyperlink-format",
                "generate",
            ],
        ),
        pattern_operands: 1,
        pattern_options: &["e", "f", "regexp", "file", "files", "type-list"],
        default_dot: true,
    },
];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let p = cmd.program;
    if matches!(p, "basename" | "dirname" | "realpath" | "pwd" | "pathchk") {
        return true;
    }
    let Some(r) = READERS.iter().find(|r| r.names.contains(&p)) else {
        return false;
    };
    out.names_only = NAMES_ONLY.contains(&p);
    let a = getopt::read(&r.grammar, cmd.args);
    // `rg --files` and `grep -e PAT`/`-f FILE`: every operand is a path.
    let unknown_pattern = r.pattern_operands > 0
        && (a.unknown.iter().any(|u| u == "files" || u == "type-list") || a.any(r.pattern_options));
    let skip = if unknown_pattern {
        0
    } else {
        r.pattern_operands
    };
    for f in a.values(&[
        "f",
        "file",
        "exclude-from",
        "files0-from",
        "from-file",
        "to-file",
    ]) {
        if p != "cut" && p != "tr" && f != "-" {
            out.path(Act::Read, f);
        }
    }
    let paths: Vec<&str> = a.operands.iter().skip(skip).map(|o| &**o).collect();
    if p == "tr" {
        // Its operands are character sets.
        return true;
    }
    if paths.is_empty() {
        let recursive = r.default_dot
            || a.unknown
                .iter()
                .any(|u| matches!(&**u, "recursive" | "dereference-recursive"))
            || a.opts.iter().any(|o| o.name == "r" || o.name == "R");
        if (recursive && r.pattern_operands > 0) || (p == "ls" || p == "tree" || p == "du") {
            out.path(Act::Read, ".");
        }
        return true;
    }
    each(out, Act::Read, &paths);
    true
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn readers_read_their_operands() {
        assert_eq!(effects("cat a.txt"), vec!["read@source"]);
        assert_eq!(
            effects("cat ~/.ssh/id_rsa"),
            vec!["read@secrets", "reveal@secrets"]
        );
        assert_eq!(
            effects("head -n 5 .env"),
            vec!["read@secrets", "reveal@secrets"]
        );
        assert_eq!(effects("tail -n 100 -f log.txt"), vec!["read@source"]);
        assert_eq!(effects("less -N +G a.txt"), vec!["read@source"]);
        assert_eq!(effects("wc -l src/a.rs"), vec!["read@source"]);
        assert_eq!(effects("ls -la ~"), vec!["read@home"]);
        assert_eq!(effects("ls"), vec!["read@project"]);
        assert_eq!(effects("ls -I target"), vec!["read@project"]);
        assert_eq!(effects("stat -c %s a.bin"), vec!["read@source"]);
        assert_eq!(effects("diff -u a b"), vec!["read@source"]);
        assert_eq!(effects("diff -U 3 -L x a b"), vec!["read@source"]);
        assert_eq!(effects("cut -d, -f1 data.csv"), vec!["read@source"]);
        assert_eq!(effects("tr a-z A-Z"), Vec::<String>::new());
        assert_eq!(effects("realpath ../x"), Vec::<String>::new());
        assert_eq!(effects("basename /etc/passwd"), Vec::<String>::new());
        assert_eq!(effects("du -sh /var/log"), vec!["read@system"]);
    }

    #[test]
    fn grep_pattern_is_not_a_path() {
        assert_eq!(effects("grep foo a.txt"), vec!["read@source"]);
        assert_eq!(effects("grep '/etc' a.txt"), vec!["read@source"]);
        assert_eq!(effects("grep -rn TODO src"), vec!["read@source"]);
        assert_eq!(effects("grep -r TODO"), vec!["read@project"]);
        assert_eq!(effects("grep TODO"), Vec::<String>::new());
        assert_eq!(
            effects("grep -e /etc -e x ~/.bashrc"),
            vec!["read@dotfiles"]
        );
        assert_eq!(effects("grep -f pats.txt a"), vec!["read@source"]);
        assert_eq!(effects("grep -A 3 -m1 x a"), vec!["read@source"]);
        assert_eq!(effects("grep --regexp=/ a"), vec!["read@source"]);
        assert!(has("grep -r password ~/.aws", "read@secrets"));
        assert_eq!(effects("rg foo"), vec!["read@project"]);
        assert_eq!(effects("rg -g '*.rs' foo src"), vec!["read@source"]);
        assert_eq!(effects("rg --files src"), vec!["read@source"]);
        assert_eq!(effects("rg -t rust -r bar foo"), vec!["read@project"]);
        assert!(!has("rg ~ a.txt", "read@home"));
    }
}
