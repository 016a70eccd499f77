//! The shell's own state. `alias NAME=VALUE`: a later command `NAME …` runs `VALUE …`. A
//! value that runs the program its name already runs (`alias rm='rm -i'`, `alias ls='ls
//! --color'`) only respells it and does what the value itself does; a value that runs
//! another program shadows the name (`alias ls=rm`), so it is read as that program applied
//! to words not known yet. A dump of the environment (`printenv`, `env`, `export -p`, `set`)
//! reads the secrets it holds (tokens, keys): `read` at `secrets`.

use super::super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

/// The word that stands for what a later command passes to an alias.
const LATER_WORDS: &str = "\"$ALIAS_ARGS\"";

/// Builtins that keep shell code to run later, or run what the line does not show (`trap
/// CODE SIG…` is peeled by the parser, as `eval` is): `mapfile -C CODE` per line read, `compgen`/`complete -C CODE` at completion, `bind -x 'KEYS:
/// CODE'` on the keys; `fc -s`/`fc -e` run commands from the history, `enable -f LIB` loads a
/// builtin, `hash -p PATH NAME` makes `NAME` run `PATH`: unknown code.
fn keeps_code(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let words: Vec<&str> = cmd.args.iter().map(|a| &**a).collect();
    let value = |flag: &str| {
        words.iter().enumerate().find_map(|(k, w)| {
            if *w == flag {
                words.get(k + 1).copied()
            } else {
                w.strip_prefix(flag)
                    .filter(|v| !v.is_empty() && w.len() > 2)
            }
        })
    };
    match cmd.program {
        "mapfile" | "readarray" => {
            if let Some(code) = value("-C") {
                out.script(code);
            }
        }
        "compgen" | "complete" => {
            if let Some(code) = value("-C") {
                out.script(code);
            }
        }
        "bind" => {
            if let Some(binding) = value("-x") {
                if let Some((_, code)) = binding.split_once(':') {
                    let code = code.trim().trim_matches('"').trim_matches('\'');
                    out.script(code);
                }
            }
        }
        "fc" => {
            if words
                .iter()
                .any(|w| w.starts_with("-s") || w.starts_with("-e"))
            {
                out.opaque("fc");
            }
        }
        "enable" => {
            if let Some(lib) = value("-f") {
                out.opaque(lib);
            }
        }
        "hash" => {
            if let Some(path) = value("-p") {
                out.opaque(path);
            }
        }
        _ => return false,
    }
    true
}

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    if keeps_code(cmd, out) {
        return true;
    }
    let dumps = match cmd.program {
        // `printenv NAME` prints one variable, which may be a secret too.
        "printenv" => true,
        // Bare: what is left after the parser peeled `env VAR=x cmd` and `env cmd`.
        "env" => cmd.args.iter().all(|a| a.starts_with('-') && *a != "-S"),
        "export" | "declare" | "typeset" => cmd
            .args
            .iter()
            .all(|a| matches!(&**a, "-p" | "-x" | "-px" | "-xp")),
        "set" => cmd.args.is_empty(),
        "alias" => false,
        _ => return false,
    };
    if dumps {
        out.place(Act::Read, Place::Secrets);
        return true;
    }
    if cmd.program != "alias" {
        return true;
    }
    for a in cmd.args.iter().filter(|a| !a.starts_with('-')) {
        let Some((name, value)) = a.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let first = value.split_whitespace().next().unwrap_or("");
        let program = first.rsplit('/').next().unwrap_or(first);
        if value.is_empty() {
            continue;
        }
        if program == name || program == format!("\\{name}") {
            out.script(value);
        } else {
            out.script(&format!("{value} {LATER_WORDS}"));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn a_dump_of_the_environment_reads_its_secrets() {
        for line in [
            "printenv",
            "env",
            "export -p",
            "set",
            "declare -x",
            "printenv AWS_SECRET_ACCESS_KEY",
        ] {
            // (A secret variable printed is also a `reveal`: `effects::secrets`.)
            let reads: Vec<String> = effects(line)
                .into_iter()
                .filter(|e| e != "reveal@secrets")
                .collect();
            assert_eq!(reads, ["read@secrets"], "{line}");
        }
        for line in [
            "export FOO=1",
            "set -euo pipefail",
            "env FOO=1 make",
            "declare -a arr",
        ] {
            assert!(!has(line, "read@secrets"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn builtins_that_keep_code_run_it() {
        for line in [
            "trap 'rm -rf ~' EXIT",
            "trap -- 'rm -rf ~' EXIT INT",
            "trap \"rm -rf ~\" ERR; false",
            "bash -c \"trap 'rm -rf ~' EXIT; true\"",
            "mapfile -C 'rm -rf ~' -c 1 lines < list",
            "readarray -t -C'rm -rf ~' lines < list",
            "compgen -C 'rm -rf ~' x",
            "complete -C 'rm -rf ~' git",
            "bind -x '\"\\C-a\": rm -rf ~'",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        for line in [
            "fc -s",
            "fc -e vi 10",
            "enable -f /tmp/x.so rm",
            "hash -p /tmp/x rm",
        ] {
            assert!(has(line, "opaque@none"), "{line}: {:?}", effects(line));
        }
        for line in [
            "trap 'echo done' EXIT",
            "trap 'rm -f \"$tmp\"' EXIT",
            "trap - EXIT",
            "trap '' INT",
            "trap -p",
            "trap -l",
            "mapfile -t lines < list",
            "fc -l",
            "hash -r",
            "complete -F _git git",
        ] {
            let e = effects(line);
            assert!(
                !e.iter()
                    .any(|e| e.starts_with("delete@home") || e.starts_with("opaque@")),
                "{line}: {e:?}"
            );
        }
    }

    #[test]
    fn an_alias_that_shadows_a_command_runs_its_value_on_later_words() {
        for line in [
            "alias ls=rm",
            "alias ls='rm -rf'",
            "alias cd='rm -rf'",
            "alias -- ll='/bin/rm -f'",
            "alias sudo='sudo rm -rf /'",
            "alias ls='ls; rm -rf ~'",
        ] {
            let e = effects(line);
            assert!(e.iter().any(|e| e.starts_with("delete@")), "{line}: {e:?}");
        }
        assert!(has("alias sudo='sudo rm -rf /'", "delete@root"));
        // Respelling a command, or a harmless shortcut.
        for line in [
            "alias rm='rm -i'",
            "alias ls='ls --color=auto'",
            "alias grep='grep --color=auto'",
            "alias gs='git status'",
            "alias k=kubectl",
            "alias",
            "alias -p",
        ] {
            let e = effects(line);
            assert!(e.iter().all(|e| !e.starts_with("delete@")), "{line}: {e:?}");
        }
    }
}
