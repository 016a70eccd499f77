//! Directories a program writes into because an option or an operand of one of its
//! subcommands names them (`pip install --target DIR`, `npm install --prefix DIR`, `cargo
//! new DIR`, `uv venv DIR`, `git submodule add URL DIR`): one table, one reader. It adds a
//! `write` at each such directory and passes the program on to its own model, so that a
//! package, a crate or a checkout written into gate's files is a change to them.

use gate_spec::effect::Act;

use super::super::{Cmd, Sink};

/// One form: the programs, the subcommand words it starts with (none: any), the options
/// whose value is a directory written (`--target DIR`, `--target=DIR`), and which operand
/// after the subcommand words, if any, is one.
struct Output {
    programs: &'static [&'static str],
    sub: &'static [&'static str],
    options: &'static [&'static str],
    operand: Option<usize>,
}

const OUTPUTS: &[Output] = &[
    Output {
        programs: &["pip", "pip3"],
        sub: &["install"],
        options: &["--target", "-t", "--prefix", "--root", "--src"],
        operand: None,
    },
    Output {
        programs: &["uv"],
        sub: &["pip", "install"],
        options: &["--target", "--prefix"],
        operand: None,
    },
    Output {
        programs: &["uv"],
        sub: &["venv"],
        options: &[],
        operand: Some(0),
    },
    Output {
        programs: &["npm", "pnpm"],
        sub: &[],
        options: &["--prefix"],
        operand: None,
    },
    Output {
        programs: &["yarn"],
        sub: &[],
        options: &["--cwd", "--modules-folder"],
        operand: None,
    },
    Output {
        programs: &["cargo"],
        sub: &["new"],
        options: &[],
        operand: Some(0),
    },
    Output {
        programs: &["cargo"],
        sub: &["init"],
        options: &[],
        operand: Some(0),
    },
    Output {
        programs: &["cargo"],
        sub: &["install"],
        options: &["--root"],
        operand: None,
    },
    Output {
        programs: &["git"],
        sub: &["submodule", "add"],
        options: &[],
        operand: Some(1),
    },
    Output {
        programs: &["git"],
        sub: &["init"],
        options: &["--git-dir", "--separate-git-dir"],
        operand: Some(0),
    },
    Output {
        programs: &["go"],
        sub: &["mod", "vendor"],
        options: &["-o"],
        operand: None,
    },
];

/// Add a `write` at each directory `cmd`'s options or operands name; never claims it.
pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    for form in OUTPUTS.iter().filter(|f| f.programs.contains(&cmd.program)) {
        let mut words = Vec::new();
        let mut dirs = Vec::new();
        let mut k = 0;
        while let Some(a) = cmd.args.get(k).map(|a| &**a) {
            k += 1;
            if a == "--" {
                words.extend(cmd.args[k..].iter().map(|a| &**a));
                break;
            }
            if form.options.contains(&a) {
                if let Some(v) = cmd.args.get(k) {
                    dirs.push(&**v);
                    k += 1;
                }
                continue;
            }
            if let Some(v) = form
                .options
                .iter()
                .find_map(|o| a.strip_prefix(o).and_then(|r| r.strip_prefix('=')))
            {
                dirs.push(v);
                continue;
            }
            if !a.starts_with('-') {
                words.push(a);
            }
        }
        if !words.starts_with(form.sub) {
            continue;
        }
        if let Some(n) = form.operand {
            dirs.extend(words.get(form.sub.len() + n));
        }
        for dir in dirs {
            out.path(Act::Write, dir);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn a_directory_an_install_or_a_new_project_writes_into() {
        for line in [
            "pip install --target .claude requests",
            "pip install -t ~/.local/state/gate x",
            "pip3 install --prefix=.claude x",
            "uv pip install --target .claude x",
            "uv venv .claude",
            "npm install --prefix .claude left-pad",
            "npm init -y --prefix .claude",
            "pnpm add --prefix=.claude x",
            "yarn add x --modules-folder .claude",
            "cargo new .claude",
            "cargo init --lib .claude",
            "git submodule add ./x .claude",
            "git --git-dir=.claude init",
            "git init --separate-git-dir .claude x",
        ] {
            assert!(has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
        for line in [
            "pip install --target vendor requests",
            "pip install requests",
            "uv venv",
            "npm install --prefix web",
            "cargo new app",
            "git submodule add https://x/y.git vendor/y",
            "git submodule update --init",
            "git --git-dir=.claude log",
        ] {
            assert!(!has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
    }
}
