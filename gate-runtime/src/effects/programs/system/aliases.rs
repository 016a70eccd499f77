//! `alias NAME=VALUE`: a later command `NAME …` runs `VALUE …`. A value that runs the program
//! its name already runs (`alias rm='rm -i'`, `alias ls='ls --color'`) only respells it and
//! does what the value itself does; a value that runs another program shadows the name
//! (`alias ls=rm`), so it is read as that program applied to words not known yet.

use super::super::super::{Cmd, Sink};

/// The word that stands for what a later command passes to an alias.
const LATER_WORDS: &str = "\"$ALIAS_ARGS\"";

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    if cmd.program != "alias" {
        return false;
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
