//! The system journal: `journalctl --vacuum-size/-time/-files` and `--rotate` with a vacuum
//! delete the journal's files (`delete` at `/var/log/journal`); reading it does nothing.

use super::super::super::{Cmd, Sink};
use gate_spec::effect::Act;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    if cmd.program != "journalctl" {
        return false;
    }
    if cmd.args.iter().any(|a| a.starts_with("--vacuum")) {
        out.path(Act::Delete, "/var/log/journal");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn vacuuming_the_journal_deletes_it() {
        for line in [
            "sudo journalctl --vacuum-time=1s",
            "journalctl --rotate --vacuum-size=1K",
            "journalctl --vacuum-files 1",
        ] {
            assert!(has(line, "delete@system"), "{line}: {:?}", effects(line));
        }
        assert_eq!(
            effects("journalctl -u nginx --since today"),
            Vec::<String>::new()
        );
    }
}
