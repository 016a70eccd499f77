//! What a command runs that is text on the disk, read in a live hook call and analysed as
//! what it is: a script a shell or an interpreter is given, or that is run as a program
//! (`bash run.sh`, `./run.sh`, `. ./env.sh`, `python3 x.py`; its `#!` line says which), the
//! recipes of Makefile targets (`make`, `make -C dir t`; [`super::makefile`]), and a
//! package's `package.json` scripts with their `pre`/`post` scripts (`npm test`, `yarn
//! build`, an install's lifecycle scripts). Shell text is read as shell lines run where
//! the program runs them, interpreter code by the interpreters' analysers.
//!
//! Bounded: a file larger than [`MAX_SCRIPT`], or that is not text, or that is missing
//! (when something should be there), or that the line itself changes before running it,
//! is `opaque` (never less than the spec's tier for code gate cannot read); nesting is the
//! shell analysis' own bound.

use super::disk::{self, Unreadable};
use super::places::{self, Where};
use super::{makefile, How, Lang, Runs, Sink};

/// Largest script, Makefile or `package.json` read.
pub(super) const MAX_SCRIPT: u64 = 256 * 1024;

/// Most directories walked up to find a `package.json`.
const MAX_UP: usize = 32;

/// What the line did earlier to a file a command now runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Earlier {
    /// Nothing: what is on the disk now is what runs.
    Unchanged,
    /// It wrote it with text the line shows, analysed where it is run (`effects::shell`).
    Shown,
    /// It wrote it with this text, which the line shows: what runs is that text, not what
    /// is on the disk now (`printf 'x:\n\t…' > Makefile && make x`).
    Wrote(String),
    /// It changed it some other way: what runs is not what is on the disk now.
    Changed,
}

/// Read and analyse what `runs` names into `sink`: `cwd` is where the command runs,
/// `earlier` what the line did before to a path (absolute).
pub(super) fn read(
    runs: &[Runs],
    cwd: &str,
    oldpwd: Option<&str>,
    at: &Where,
    earlier: &dyn Fn(&str) -> Earlier,
    sink: &mut Sink,
) {
    let resolve = |p: &str| places::place_of(p, cwd, oldpwd, at).1;
    for run in runs {
        match run {
            Runs::File {
                path,
                how,
                args,
                optional,
            } => {
                let (place, abs) = places::place_of(path, cwd, oldpwd, at);
                if abs.starts_with('?') {
                    if !optional {
                        sink.opaque(path);
                    }
                    continue;
                }
                // Code from a temporary or outside directory that cannot be read is foreign
                // code there (`bash /tmp/x.sh`, `/tmp/x` with no file gate can read).
                let read = file(&abs, *how, args, *optional, cwd, earlier, sink);
                if !read && super::code_options::foreign(place, false) {
                    sink.named(gate_spec::effect::Act::Opaque, place, &abs);
                }
            }
            Runs::Make {
                dir,
                file,
                targets,
                vars,
            } => {
                let dir = dir.as_deref().map_or_else(|| cwd.to_string(), resolve);
                if dir.starts_with('?') {
                    sink.opaque("make");
                    continue;
                }
                makefile::read(&dir, file.as_deref(), targets, vars, at, earlier, sink);
            }
            Runs::Scripts { dir, names } => {
                let dir = dir.as_deref().map_or_else(|| cwd.to_string(), resolve);
                if dir.starts_with('?') {
                    sink.opaque("package.json");
                    continue;
                }
                scripts(&dir, names, earlier, sink);
            }
        }
    }
}

/// The file at `abs`, run `how` with `args`, in `run_in`: its text analysed into `sink`;
/// `false` when what runs could not be read (a missing, unreadable or changed file, which
/// is `opaque`).
pub(super) fn file(
    abs: &str,
    how: How,
    args: &[String],
    optional: bool,
    run_in: &str,
    earlier: &dyn Fn(&str) -> Earlier,
    sink: &mut Sink,
) -> bool {
    let text = match earlier(abs) {
        Earlier::Shown => return true,
        Earlier::Changed => {
            sink.opaque(abs);
            return false;
        }
        Earlier::Wrote(text) => text,
        Earlier::Unchanged => match disk::read_text(abs, MAX_SCRIPT) {
            Ok(t) => t,
            Err(Unreadable::Missing) if optional => return true,
            Err(_) => {
                sink.opaque(abs);
                return false;
            }
        },
    };
    let code = match how {
        How::Shell => Code::Shell,
        How::Lang(l) => Code::Lang(l),
        How::Program => shebang(&text),
    };
    match code {
        Code::Shell => {
            let text = positional(&text, abs, args);
            sink.scripts_in.push((run_in.to_string(), text));
        }
        Code::Lang(lang) => super::programs::analyse_code(&text, lang, sink),
        Code::Unknown => {
            sink.opaque(&text);
            return false;
        }
    }
    true
}

/// Task runners and the task files they read in the directory they run in, with what the
/// file's text is: a task file the line itself writes is read as that (`printf … > justfile
/// && just x`); `Unknown` is `opaque` with the places the text names.
pub(super) const TASK_FILES: &[(&[&str], &[&str], Code)] = &[
    (
        &["just"],
        &["justfile", "Justfile", ".justfile"],
        Code::Shell,
    ),
    (
        &["rake"],
        &["Rakefile", "rakefile", "Rakefile.rb"],
        Code::Lang(Lang::Ruby),
    ),
    (&["invoke", "inv"], &["tasks.py"], Code::Lang(Lang::Python)),
    (&["nox"], &["noxfile.py"], Code::Lang(Lang::Python)),
    (&["doit"], &["dodo.py"], Code::Lang(Lang::Python)),
    (&["fab"], &["fabfile.py"], Code::Lang(Lang::Python)),
    (
        &["gulp"],
        &["gulpfile.js", "gulpfile.mjs"],
        Code::Lang(Lang::Js),
    ),
    (&["grunt"], &["Gruntfile.js"], Code::Lang(Lang::Js)),
    (
        &["jake"],
        &["Jakefile", "Jakefile.js"],
        Code::Lang(Lang::Js),
    ),
    (
        &["task", "go-task"],
        &["Taskfile.yml", "Taskfile.yaml", "taskfile.yml"],
        Code::Unknown,
    ),
    (&["mise"], &["mise.toml", ".mise.toml"], Code::Unknown),
    (&["tox"], &["tox.ini"], Code::Unknown),
    (&["cargo-make", "makers"], &["Makefile.toml"], Code::Unknown),
    // A build's own script: a package's `setup.py`, a crate's `build.rs`.
    (&["pip", "pip3"], &["setup.py"], Code::Lang(Lang::Python)),
    (&["cargo"], &["build.rs"], Code::Unknown),
];

/// What a file's text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Code {
    Shell,
    Lang(Lang),
    /// An interpreter gate has no analyser for.
    Unknown,
}

/// What runs a file run as a program: its `#!` line's interpreter (through `env`), a shell
/// when it has none.
pub(super) fn shebang(text: &str) -> Code {
    let Some(line) = text.strip_prefix("#!") else {
        return Code::Shell;
    };
    let line = line.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let mut program = words.next().unwrap_or("");
    if program.rsplit('/').next() == Some("env") {
        // `#!/usr/bin/env [-S] [VAR=x] python3 -u`.
        program = words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .unwrap_or("");
    }
    code_of_program(program)
}

/// What code `program` (a name or a path) runs a file it is handed as.
pub(super) fn code_of_program(program: &str) -> Code {
    let base = program.rsplit('/').next().unwrap_or(program);
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    match stem {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "busybox" | "csh"
        | "tcsh" => Code::Shell,
        "python" | "pypy" => Code::Lang(Lang::Python),
        "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node" => Code::Lang(Lang::Js),
        "perl" => Code::Lang(Lang::Perl),
        "ruby" => Code::Lang(Lang::Ruby),
        "php" => Code::Lang(Lang::Php),
        "lua" | "luajit" => Code::Lang(Lang::Lua),
        "Rscript" => Code::Lang(Lang::R),
        "awk" | "gawk" | "mawk" | "nawk" => Code::Lang(Lang::Awk),
        "osascript" => Code::Lang(Lang::AppleScript),
        _ => Code::Unknown,
    }
}

/// A shell script's text with its positional parameters made the words it is given (`$1`,
/// `${2}`, `${1:-x}`, `"$@"`, `$*`, `$#`) and `$0` its path; a parameter it is not given is an
/// unknown word (`$GATE_UNSET_1`), not an empty one, since a script usually checks for it.
/// Its own directory as `$(dirname "$0")` and its common spellings is the path's directory.
pub(super) fn positional(text: &str, path: &str, args: &[String]) -> String {
    let dir = path
        .rsplit_once('/')
        .map_or(".", |(d, _)| if d.is_empty() { "/" } else { d });
    // A word as the script sees it: as it is (a parameter's value is not read again by the
    // shell), quoted only when it holds what the analysis would otherwise read as code.
    let quote = |w: &str| {
        if w.contains(['\'', '"', '\\', '`', '$']) {
            crate::shell::quote_argv(&[w])
        } else {
            w.to_string()
        }
    };
    let mut text = text.to_string();
    for own in [
        "$(dirname \"$0\")",
        "$(dirname $0)",
        "$(dirname -- \"$0\")",
        "$(dirname \"${BASH_SOURCE[0]}\")",
        "$(dirname \"${BASH_SOURCE}\")",
        "$(dirname \"$BASH_SOURCE\")",
        "$(dirname ${BASH_SOURCE[0]})",
        "${0%/*}",
        "${BASH_SOURCE%/*}",
        "${BASH_SOURCE[0]%/*}",
    ] {
        if text.contains(own) {
            text = text.replace(own, dir);
        }
    }
    // `$(cd "DIR" && pwd)` once DIR is known.
    for form in [
        format!("$(cd \"{dir}\" && pwd)"),
        format!("$(cd {dir} && pwd)"),
        format!("$(cd \"{dir}\" >/dev/null 2>&1 && pwd)"),
        format!("$(cd -- \"{dir}\" && pwd)"),
        format!("$( cd \"{dir}\" && pwd )"),
    ] {
        if text.contains(&form) {
            text = text.replace(&form, dir);
        }
    }
    if !text.contains('$') {
        return text;
    }
    let all = args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ");
    let arg = |n: usize| match n {
        0 => quote(path),
        n => args
            .get(n - 1)
            .map_or_else(|| format!("$GATE_UNSET_{n}"), |a| quote(a)),
    };
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            let next = text[i..].find('$').map_or(text.len(), |k| i + k);
            out.push_str(&text[i..next]);
            i = next;
            continue;
        }
        let rest = &text[i + 1..];
        match rest.as_bytes().first() {
            Some(d @ b'0'..=b'9') => {
                out.push_str(&arg(usize::from(d - b'0')));
                i += 2;
            }
            Some(b'@' | b'*') => {
                out.push_str(&all);
                i += 2;
            }
            Some(b'#') => {
                out.push_str(&args.len().to_string());
                i += 2;
            }
            Some(b'{') => {
                let Some(end) = rest.find('}') else {
                    out.push('$');
                    i += 1;
                    continue;
                };
                let body = &rest[1..end];
                let digits = body.bytes().take_while(u8::is_ascii_digit).count();
                if digits == 0 || digits > 2 {
                    out.push('$');
                    i += 1;
                    continue;
                }
                let n: usize = body[..digits].parse().unwrap_or(0);
                let op = &body[digits..];
                let given = n == 0 || n <= args.len();
                let value = if let Some(default) = op.strip_prefix(":-").or(op.strip_prefix('-')) {
                    if given {
                        arg(n)
                    } else {
                        default.to_string()
                    }
                } else if op.is_empty() || op.starts_with(":?") || op.starts_with('?') {
                    arg(n)
                } else {
                    // Other expansions of a parameter: as written.
                    format!("${{{body}}}")
                };
                out.push_str(&value);
                i += 2 + end;
            }
            _ => {
                out.push('$');
                i += 1;
            }
        }
    }
    out
}

/// A package's scripts `names` (each with its `pre` and `post` script), from the
/// `package.json` in `dir` or the nearest one above it.
fn scripts(dir: &str, names: &[String], earlier: &dyn Fn(&str) -> Earlier, sink: &mut Sink) {
    let mut cur = dir.trim_end_matches('/').to_string();
    let mut found = None;
    for _ in 0..MAX_UP {
        let candidate = format!("{cur}/package.json");
        if std::fs::symlink_metadata(&candidate).is_ok() {
            found = Some((cur.clone(), candidate));
            break;
        }
        match cur.rsplit_once('/') {
            Some((parent, _)) if !parent.is_empty() => cur = parent.to_string(),
            _ => break,
        }
    }
    let Some((pkg_dir, manifest)) = found.or_else(|| {
        // A `package.json` the line wrote here, not yet on the disk.
        let candidate = format!("{}/package.json", dir.trim_end_matches('/'));
        matches!(earlier(&candidate), Earlier::Wrote(_)).then(|| (dir.to_string(), candidate))
    }) else {
        let lifecycle = names
            .iter()
            .all(|n| matches!(n.as_str(), "install" | "prepare" | "prepublish"));
        if !lifecycle {
            // `npm test` with no package here: whatever a package written meanwhile says.
            disk::note_read(&format!("{dir}/package.json"), b"\0Missing");
            sink.opaque("package.json");
        }
        return;
    };
    let text = match earlier(&manifest) {
        Earlier::Unchanged => match disk::read_text(&manifest, MAX_SCRIPT) {
            Ok(t) => t,
            Err(_) => {
                sink.opaque(&manifest);
                return;
            }
        },
        Earlier::Wrote(text) => text,
        Earlier::Shown | Earlier::Changed => {
            sink.opaque(&manifest);
            return;
        }
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        sink.opaque(&manifest);
        return;
    };
    let table = value.get("scripts").and_then(|s| s.as_object());
    let mut code = String::new();
    for name in names {
        for full in [format!("pre{name}"), name.clone(), format!("post{name}")] {
            match table.and_then(|t| t.get(&full)) {
                Some(serde_json::Value::String(s)) => {
                    code.push('(');
                    code.push_str(s);
                    code.push_str(")\n");
                }
                Some(_) => sink.opaque(&full),
                None => {}
            }
        }
        // `npm start` with no script runs `node server.js`.
        if name == "start" && table.is_none_or(|t| !t.contains_key("start")) {
            let server = format!("{pkg_dir}/server.js");
            file(
                &server,
                How::Lang(Lang::Js),
                &[],
                true,
                &pkg_dir,
                earlier,
                sink,
            );
        }
    }
    if !code.is_empty() {
        sink.scripts_in.push((pkg_dir, code));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scripts_words_are_its_positional_parameters() {
        let args = vec!["build".to_string(), "a b".to_string()];
        assert_eq!(
            positional("rm -rf \"$1\"", "/p/x.sh", &args),
            "rm -rf \"build\""
        );
        assert_eq!(
            positional("rm -rf \"${2}\"", "/p/x.sh", &args),
            "rm -rf \"a b\""
        );
        assert_eq!(
            positional("rm -rf \"$3\"", "/p/x.sh", &args),
            "rm -rf \"$GATE_UNSET_3\""
        );
        assert_eq!(
            positional("rm -rf ${3:-out}", "/p/x.sh", &args),
            "rm -rf out"
        );
        assert_eq!(positional("ls $@", "/p/x.sh", &args), "ls build a b");
        assert_eq!(positional("echo $HOME", "/p/x.sh", &args), "echo $HOME");
        assert_eq!(
            positional("cd \"$(dirname \"$0\")\" && rm -rf build", "/p/s/x.sh", &[]),
            "cd \"/p/s\" && rm -rf build"
        );
    }

    #[test]
    fn the_shebang_line_says_what_runs_a_program() {
        assert_eq!(shebang("echo hi"), Code::Shell);
        assert_eq!(shebang("#!/bin/bash\nrm -rf ~"), Code::Shell);
        assert_eq!(
            shebang("#!/usr/bin/env python3\n"),
            Code::Lang(Lang::Python)
        );
        assert_eq!(
            shebang("#!/usr/bin/env -S node --no-warnings\n"),
            Code::Lang(Lang::Js)
        );
        assert_eq!(shebang("#!/usr/bin/perl -w\n"), Code::Lang(Lang::Perl));
        assert_eq!(
            shebang("#!/usr/local/bin/python3.12\n"),
            Code::Lang(Lang::Python)
        );
        assert_eq!(shebang("#!/usr/bin/env fancylang\n"), Code::Unknown);
    }
}
