//! Programs that run code handed to them through an option or their input rather than as a
//! program: `man -P PAGER`, and `make`, whose makefile's recipes are shell lines (`make -f -`
//! reads one from standard input, `--eval` takes one as text; a `SHELL=` override runs the
//! recipes with another program). The options are in [`crate::effects::code_options::OPTIONS`].

use super::super::getopt::{self, Grammar};
use super::super::{Cmd, Sink};
use gate_spec::effect::Act;

const MAN: Grammar = Grammar {
    short: "aw7cdDfFhikKlQtTVWYzZu",
    short_value: "CMPSsLmReEIpRHrX",
    long: &[
        "all",
        "where",
        "path",
        "location",
        "catman",
        "debug",
        "default",
        "whatis",
        "apropos",
        "local-file",
        "ignore-case",
        "match-case",
        "regex",
        "wildcard",
        "names-only",
        "no-subpages",
        "no-hyphenation",
        "no-justification",
        "update",
        "no-ascii",
        "help",
        "usage",
        "version",
    ],
    long_value: &[
        "config-file",
        "manpath",
        "pager",
        "sections",
        "systems",
        "extension",
        "locale",
        "encoding",
        "preprocessor",
        "prompt",
        "recode",
        "html",
        "gxditview",
        "troff-device",
    ],
    posix: false,
};

const MAKE: Grammar = Grammar {
    short: "bBdeiknpqrRsStvwLOj",
    short_value: "CfIoWEl",
    long: &[
        "always-make",
        "environment-overrides",
        "ignore-errors",
        "keep-going",
        "dry-run",
        "just-print",
        "recon",
        "print-data-base",
        "question",
        "no-builtin-rules",
        "no-builtin-variables",
        "silent",
        "quiet",
        "stop",
        "touch",
        "trace",
        "version",
        "print-directory",
        "no-print-directory",
        "warn-undefined-variables",
        "check-symlink-times",
        "help",
        "jobs",
        "load-average",
        "debug",
        "output-sync",
        "shuffle",
    ],
    long_value: &[
        "directory",
        "file",
        "makefile",
        "include-dir",
        "old-file",
        "assume-old",
        "what-if",
        "new-file",
        "assume-new",
        "eval",
        "jobserver-auth",
        "jobserver-style",
    ],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "man" => {
            let a = getopt::read(&MAN, cmd.args);
            crate::effects::code_options::options(cmd.program, &a, out);
        }
        // `make` is claimed first by `scripts`, which calls [`make`] beside its own reading.
        "make" | "gmake" => make(cmd, out),
        _ => return false,
    }
    true
}

/// `make`: the recipes of the project's makefile, which the line does not show (`exec`),
/// and those it does: a makefile read from standard input, or given with `--eval`.
pub(super) fn make(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&MAKE, cmd.args);
    crate::effects::code_options::options(cmd.program, &a, out);
    out.none(Act::Exec);
    for f in a.values(&["f", "file", "makefile"]) {
        if matches!(f, "-" | "/dev/stdin") {
            match cmd.stdin {
                Some(text) => out.script(&crate::effects::code_options::recipes(text)),
                None => out.opaque("make -f -"),
            }
        }
    }
    // `make SHELL=/tmp/x`: every recipe runs under that program instead of `sh`.
    for op in &a.operands {
        if let Some(shell) = op.strip_prefix("SHELL=") {
            if !matches!(
                shell,
                "/bin/sh" | "/bin/bash" | "sh" | "bash" | "/usr/bin/bash"
            ) {
                out.opaque(shell);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn a_makefile_the_line_shows_runs_its_recipes() {
        for line in [
            "make -f - <<< 'x:; rm -rf ~'",
            "make -f - x <<'EOF'\nx:\n\t@rm -rf ~\nEOF",
            "printf 'x:\\n\\trm -rf ~\\n' | make -f -",
            "echo 'x:; rm -rf ~' | make -f /dev/stdin",
            "make --eval='x:; rm -rf ~' x",
            "make -E 'y := $(shell rm -rf ~)'",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        assert!(has("cat mk | make -f -", "opaque@none"));
        assert!(has("make SHELL=/tmp/x all", "opaque@none"));
        for line in [
            "make",
            "make -j4 test",
            "make -C sub all",
            "make -f - <<< 'x:; echo hi'",
        ] {
            let e = effects(line);
            assert!(
                !e.iter()
                    .any(|e| e.starts_with("delete@") || e.starts_with("opaque@")),
                "{line}: {e:?}"
            );
        }
    }
}
