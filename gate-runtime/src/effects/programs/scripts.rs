//! Programs that run code kept in a file: a shell given a script (`bash run.sh`, `sh -x
//! build.sh arg`), `source FILE` and `. FILE`, and `make` (the recipes of a Makefile: its
//! options are data, `commands/runners.toml`, which reaches [`make`] by name). The
//! model says which file runs ([`Runs`]); a live hook call reads it (`effects::runs`), and
//! otherwise what runs is unknown (`exec`), as any program's effect is.

use std::borrow::Cow;

use super::super::getopt::Args;
use super::super::{Cmd, How, Runs, Sink};
use gate_spec::effect::Act;

/// The shells a script is given to.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh",
];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        p if SHELLS.contains(&p) => shell(cmd, out),
        "source" | "." => {
            let k = usize::from(cmd.args.first().is_some_and(|a| a == "--"));
            match cmd.args.get(k) {
                Some(file) => script_file(cmd, file, &cmd.args[k + 1..], out),
                None => out.none(Act::Exec),
            }
        }
        _ => return false,
    }
    true
}

/// `FILE ARG…` run by a shell (`bash FILE`, `source FILE`): the file is read and runs with
/// the arguments; a file that is standard input (`bash /dev/stdin <<< CODE`, `source
/// /dev/stdin <<< CODE`) runs what standard input holds.
fn script_file(cmd: &Cmd<'_, '_>, file: &str, args: &[Cow<'_, str>], out: &mut Sink) {
    match cmd.stdin {
        Some(code) if reads_stdin(file) => out.script(code),
        _ => {
            out.path(Act::Read, file);
            out.none(Act::Exec);
            out.runs(Runs::File {
                path: file.to_string(),
                how: How::Shell,
                args: args.iter().map(|a| a.to_string()).collect(),
                optional: false,
            });
        }
    }
}

/// A file operand that is the program's own standard input.
fn reads_stdin(file: &str) -> bool {
    matches!(file, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// Options of the shells that take a value (`-o errexit`, `--rcfile FILE`).
const SHELL_VALUED: &[&str] = &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"];

/// `bash [OPTIONS] [FILE [ARG…]]`: the file is run; with none (or `-s`), standard input is.
/// `-n` only reads the script (a syntax check).
fn shell(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let args = cmd.args;
    let mut k = 0;
    let mut check_only = false;
    let mut from_stdin = false;
    while let Some(a) = args.get(k) {
        let a: &str = a;
        if a == "--" || a == "-" {
            k += 1;
            from_stdin |= a == "-";
            break;
        }
        if SHELL_VALUED.contains(&a) {
            k += 2;
            continue;
        }
        if a.starts_with("--") {
            k += 1;
            continue;
        }
        match a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
            Some(flags) if !flags.is_empty() => {
                check_only |= a.starts_with('-') && flags.contains('n');
                from_stdin |= flags.contains('s');
                // `-euo pipefail`: the bundle's `o` takes the next word.
                if flags.ends_with('o') || flags.ends_with('O') {
                    k += 1;
                }
                k += 1;
            }
            _ => break,
        }
    }
    if check_only {
        if let Some(f) = args.get(k) {
            out.path(Act::Read, f);
        }
        return;
    }
    match args.get(k).filter(|_| !from_stdin) {
        Some(file) => script_file(cmd, file, &args[k + 1..], out),
        None => match cmd.stdin {
            // `bash <<'EOF' … EOF`, `sh < x.sh` once the file is read: the code it runs.
            Some(code) => out.script(code),
            None => out.none(Act::Exec),
        },
    }
}

/// `make`'s options that take a value (attached or as the next word).
const MAKE_VALUED: &[(&str, &str)] = &[
    ("-C", "--directory"),
    ("-f", "--file"),
    ("-f", "--makefile"),
    ("-I", "--include-dir"),
    ("-o", "--old-file"),
    ("-o", "--assume-old"),
    ("-W", "--what-if"),
    ("-W", "--new-file"),
    ("-W", "--assume-new"),
];

/// `make` (`analyser = "make"`): the makefile on the disk (read in a live hook call), and
/// the recipes the line itself hands make: a makefile on standard input (`-f -`, the `file`
/// role), or a `SHELL=` override that runs them with another program than `sh`. (`--eval`
/// text is read as code before every command: `before = "option_code"`.)
pub(crate) fn make(cmd: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    makefile(cmd.args, out);
    for f in args.role_values("file") {
        if matches!(f, "-" | "/dev/stdin") {
            match cmd.stdin {
                Some(text) => out.script(&crate::effects::code_options::recipes(text)),
                None => out.opaque("make -f -"),
            }
        }
    }
    // `make SHELL=/tmp/x`: every recipe runs under that program instead of `sh`.
    let plain = super::table::words("make-plain-shells");
    for op in &args.operands {
        if let Some(shell) = op.strip_prefix("SHELL=") {
            if !plain.contains(&shell) {
                out.opaque(shell);
            }
        }
    }
}

/// `make [OPTIONS] [VAR=VALUE…] [TARGET…]`: the makefile it runs, and where.
fn makefile(args: &[Cow<'_, str>], out: &mut Sink) {
    let mut dir: Option<String> = None;
    let mut file: Option<String> = None;
    let mut targets = Vec::new();
    let mut vars = Vec::new();
    let mut dry = false;
    let mut k = 0;
    let set = |opt: &str, value: &str, dir: &mut Option<String>, file: &mut Option<String>| {
        match opt {
            // `-C a -C b` is `a/b`.
            "-C" => {
                *dir = Some(match dir.take() {
                    Some(d) if !value.starts_with('/') => format!("{d}/{value}"),
                    _ => value.to_string(),
                })
            }
            "-f" => *file = Some(value.to_string()),
            _ => {}
        }
    };
    while let Some(a) = args.get(k) {
        let a: &str = a;
        k += 1;
        if a == "--" {
            targets.extend(args[k..].iter().map(|t| t.to_string()));
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if matches!(name, "dry-run" | "just-print" | "recon" | "question") {
                dry = true;
                continue;
            }
            if name == "eval" {
                // Makefile text given on the line: read as code before the command (`option_code`).
                continue;
            }
            if let Some((short, _)) = MAKE_VALUED.iter().find(|(_, l)| &l[2..] == name) {
                let value = match value {
                    Some(v) => v.to_string(),
                    None => {
                        k += 1;
                        args.get(k - 1).map(|v| v.to_string()).unwrap_or_default()
                    }
                };
                set(short, &value, &mut dir, &mut file);
            }
            continue;
        }
        if let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (i, c) in flags.char_indices() {
                let rest = &flags[i + c.len_utf8()..];
                match c {
                    'n' | 'q' => dry = true,
                    'C' | 'f' | 'I' | 'o' | 'W' => {
                        let value = if rest.is_empty() {
                            k += 1;
                            args.get(k - 1).map(|v| v.to_string()).unwrap_or_default()
                        } else {
                            rest.to_string()
                        };
                        set(&format!("-{c}"), &value, &mut dir, &mut file);
                        break;
                    }
                    // An optional number, attached or as the next word.
                    'j' | 'l' => {
                        if rest.is_empty()
                            && args.get(k).is_some_and(|n| {
                                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                            })
                        {
                            k += 1;
                        }
                        break;
                    }
                    'O' | 'E' => break,
                    _ => {}
                }
            }
            continue;
        }
        match a.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') =>
            {
                vars.push((name.to_string(), value.to_string()));
            }
            _ => targets.push(a.to_string()),
        }
    }
    out.none(Act::Exec);
    // A makefile read from standard input is the line's own text ([`make`]).
    if dry
        || file
            .as_deref()
            .is_some_and(|f| matches!(f, "-" | "/dev/stdin"))
    {
        return;
    }
    out.runs(Runs::Make {
        dir,
        file,
        targets,
        vars,
    });
}

#[cfg(test)]
mod tests {
    use super::super::super::{How, Runs, Sink};
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
    use super::super::Cmd;
    use std::borrow::Cow;

    fn runs(program: &str, args: &[&str]) -> Vec<Runs> {
        let args: Vec<Cow<'_, str>> = args.iter().map(|a| Cow::Borrowed(*a)).collect();
        let mut sink = Sink::default();
        super::super::model(
            &Cmd {
                program,
                args: &args,
                stdin: None,
                stdin_file: None,
            },
            &mut sink,
        );
        sink.runs
    }

    fn file(path: &str, how: How, args: &[&str]) -> Runs {
        Runs::File {
            path: path.into(),
            how,
            args: args.iter().map(|a| a.to_string()).collect(),
            optional: false,
        }
    }

    #[test]
    fn a_shell_given_its_own_standard_input_runs_what_it_holds() {
        for line in [
            "source /dev/stdin <<< 'rm -rf ~'",
            ". /dev/stdin <<< 'rm -rf ~'",
            "bash /dev/stdin <<< 'rm -rf ~'",
            "echo 'rm -rf ~' | sh /dev/fd/0",
            "bash <(echo 'rm -rf ~')",
            ". <(printf 'rm -rf ~\\n')",
            "source <(echo 'rm -rf ~')",
        ] {
            assert!(
                super::super::testing::has(line, "delete@home"),
                "{line}: {:?}",
                super::super::testing::effects(line)
            );
        }
    }

    #[test]
    fn shells_run_the_file_they_are_given() {
        assert_eq!(runs("bash", &["run.sh"]), [file("run.sh", How::Shell, &[])]);
        assert_eq!(
            runs("sh", &["-x", "-e", "b.sh", "a", "b"]),
            [file("b.sh", How::Shell, &["a", "b"])]
        );
        assert_eq!(
            runs("bash", &["-euo", "pipefail", "x.sh"]),
            [file("x.sh", How::Shell, &[])]
        );
        assert_eq!(
            runs("bash", &["--norc", "-o", "errexit", "--", "x.sh"]),
            [file("x.sh", How::Shell, &[])]
        );
        assert_eq!(
            runs("source", &["env.sh"]),
            [file("env.sh", How::Shell, &[])]
        );
        assert_eq!(
            runs(".", &["./env.sh", "x"]),
            [file("./env.sh", How::Shell, &["x"])]
        );
        assert_eq!(
            runs("source", &["--", "env.sh", "a", "--"]),
            [file("env.sh", How::Shell, &["a", "--"])]
        );
        assert!(runs("source", &["--"]).is_empty());
        // A syntax check runs nothing; stdin and an interactive shell are no file.
        assert!(runs("bash", &["-n", "x.sh"]).is_empty());
        assert!(runs("bash", &["-s", "x"]).is_empty());
        assert!(runs("bash", &[]).is_empty());
    }

    #[test]
    fn make_names_its_directory_file_targets_and_variables() {
        let make =
            |dir: Option<&str>, file: Option<&str>, targets: &[&str], vars: &[(&str, &str)]| {
                vec![Runs::Make {
                    dir: dir.map(str::to_string),
                    file: file.map(str::to_string),
                    targets: targets.iter().map(|t| t.to_string()).collect(),
                    vars: vars
                        .iter()
                        .map(|(n, v)| (n.to_string(), v.to_string()))
                        .collect(),
                }]
            };
        assert_eq!(runs("make", &[]), make(None, None, &[], &[]));
        assert_eq!(runs("make", &["clean"]), make(None, None, &["clean"], &[]));
        assert_eq!(
            runs("make", &["-C", "sub", "-j", "4", "t", "X=1"]),
            make(Some("sub"), None, &["t"], &[("X", "1")])
        );
        assert_eq!(
            runs("make", &["-Ca", "-C", "b", "--file=m.mk", "-j8", "all"]),
            make(Some("a/b"), Some("m.mk"), &["all"], &[])
        );
        assert_eq!(
            runs("gmake", &["--directory", "d", "-f", "x.mk"]),
            make(Some("d"), Some("x.mk"), &[], &[])
        );
        assert!(runs("make", &["-n", "clean"]).is_empty());
        assert!(runs("make", &["--dry-run"]).is_empty());
    }
}
