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

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
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
            assert_eq!(effects(line), ["read@secrets"], "{line}");
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
