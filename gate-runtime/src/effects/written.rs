//! Text a file tool writes, read for what it will do where it lands: a shell start-up
//! file, a cron table or a service unit is code that runs later, so the text an edit puts
//! there is analysed as that code (`export GATE_ROLE=director` added to `~/.bashrc` with an
//! edit tool is a change to gate, as the same line appended with `>>` is).

use gate_spec::effect::Act;

use super::places::Where;
use super::Effect;

/// Add the effects of `text`, written by a file tool, as the code it becomes where it
/// lands: for each changed target that something runs later (see
/// [`super::later::runs_later`]), the text is analysed as a shell line. Effects already in
/// `out` name the targets.
pub fn effects_of_written(text: &str, at: &Where, out: &mut Vec<Effect>) {
    let lands_where_it_runs = out.iter().any(|e| {
        matches!(e.act, Act::Write | Act::Overwrite)
            && !e.target.is_empty()
            && super::later::runs_later(&e.target, &at.home, Act::Overwrite) == Some(Act::Cron)
    });
    if lands_where_it_runs && !text.trim().is_empty() {
        super::effects_of_line(text, at, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::effects::programs::testing::{at, labels};
    use crate::effects::tools::effects_of_event_parsed;
    use crate::event::Event;
    use gate_spec::ir::ActionClass;

    fn effects(tool: &str, path: &str, written: &str) -> Vec<String> {
        let event = Event {
            tool: Some(tool.to_string()),
            class: Some(ActionClass::Write),
            target: Some(path.to_string()),
            paths: vec![path.to_string()],
            written: Some(written.to_string()),
            ..Event::default()
        };
        let mut out = Vec::new();
        effects_of_event_parsed(&event, &at(), None, &mut out);
        labels(&out)
    }

    #[test]
    fn text_an_edit_puts_in_a_start_up_file_is_the_code_it_runs() {
        for (tool, path) in [
            ("Write", "/home/u/.bashrc"),
            ("Edit", "~/.zshrc"),
            ("write_file", "/home/u/.profile"),
            ("create", "/home/u/.config/fish/conf.d/x.fish"),
            ("str_replace", "/etc/profile.d/x.sh"),
        ] {
            let e = effects(tool, path, "alias ll='ls -l'\nexport GATE_ROLE=director\n");
            assert!(
                e.contains(&"write@gate".to_string()),
                "{tool} {path}: {e:?}"
            );
            let e = effects(tool, path, "rm -rf ~\n");
            assert!(
                e.contains(&"delete@home".to_string()),
                "{tool} {path}: {e:?}"
            );
        }
    }

    #[test]
    fn the_same_text_elsewhere_is_only_text() {
        for path in ["/home/u/proj/README.md", "/home/u/proj/scripts/setup.sh"] {
            let e = effects("Write", path, "export GATE_ROLE=director\nrm -rf ~\n");
            assert!(!e.contains(&"write@gate".to_string()), "{path}: {e:?}");
            assert!(!e.contains(&"delete@home".to_string()), "{path}: {e:?}");
        }
        // An ordinary line added to one's own start-up file stays a dotfile write: what it
        // runs later (a listing) changes nothing.
        let e = effects("Edit", "/home/u/.bashrc", "alias ll='ls -l'\n");
        assert!(e.contains(&"write@dotfiles".to_string()), "{e:?}");
        let changes = [
            "write",
            "overwrite",
            "delete",
            "move",
            "permissions",
            "cron",
        ];
        assert!(
            !e.iter()
                .any(|x| x != "write@dotfiles" && changes.iter().any(|c| x.starts_with(c))),
            "{e:?}"
        );
    }
}
