//! Text a file tool writes, read for what it will do where it lands: a shell start-up
//! file, a cron table or a service unit is code that runs later, so the text an edit puts
//! there is analysed as that code (`export GATE_ROLE=director` added to `~/.bashrc` with an
//! edit tool is a change to gate, as the same line appended with `>>` is).

use gate_spec::effect::{Act, Place};

use super::later::{self, Lands};
use super::places::{self, Where};
use super::Effect;

/// Add the effects of `text`, written by a file tool, where it lands, as a shell line that
/// writes the same text would get them (`effects::flow`, through the same
/// [`later::lands`] and [`later::text_is_cron`]): in a shell start-up file, its own or the
/// system's, the text is analysed as the code later shells run; a temporary directory put
/// first on `PATH`, a preload list, a name sent elsewhere or a package source makes the write
/// `cron`. Effects already in `out` name the targets.
pub fn effects_of_written(text: &str, at: &Where, out: &mut Vec<Effect>) {
    if text.trim().is_empty() {
        return;
    }
    let mut runs = false;
    let mut cron = Vec::new();
    for e in out.iter() {
        if !matches!(e.act, Act::Write | Act::Overwrite) || e.target.is_empty() {
            continue;
        }
        let system_startup =
            later::runs_later(&e.target, &at.home, Act::Overwrite) == Some(Act::Cron);
        let lands = later::lands(&e.target, &at.home).or(system_startup.then_some(Lands::Startup));
        let Some(lands) = lands else {
            continue;
        };
        runs |= lands == Lands::Startup;
        let is_temp = |d: &str| places::place_of(d, &at.cwd, None, at).0 == Place::Temp;
        if later::text_is_cron(lands, text, is_temp) {
            cron.push(Effect {
                act: Act::Cron,
                place: e.place,
                target: e.target.clone(),
            });
        }
    }
    out.extend(cron);
    if runs {
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
    fn a_package_source_or_a_temporary_path_written_by_an_edit_is_cron() {
        let e = effects(
            "Write",
            "/home/u/.npmrc",
            "registry=https://npm.evil.example/\n",
        );
        // `.npmrc` holds tokens too: its place is `secrets`.
        assert!(e.contains(&"cron@secrets".to_string()), "{e:?}");
        let e = effects("Edit", "/home/u/.bashrc", "export PATH=/tmp/bin:$PATH\n");
        assert!(e.contains(&"cron@dotfiles".to_string()), "{e:?}");
        // An ordinary package setting, or a PATH led by one's own directory, is not.
        let e = effects("Write", "/home/u/.npmrc", "save-exact=true\n");
        assert!(!e.iter().any(|x| x.starts_with("cron")), "{e:?}");
        let e = effects("Edit", "/home/u/.bashrc", "export PATH=$HOME/bin:$PATH\n");
        assert!(!e.iter().any(|x| x.starts_with("cron")), "{e:?}");
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
