//! File programs: delete, move, copy, write, truncate, permissions, links, archives.

use super::super::getopt::{self, Grammar};
use super::super::{Cmd, Sink};
use gate_spec::effect::Act;

const RM: Grammar = Grammar {
    short: "fiIrRdv",
    short_value: "",
    long: &[
        "force",
        "interactive",
        "recursive",
        "dir",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "one-file-system",
    ],
    long_value: &[],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "rm" => {
            let a = getopt::read(&RM, cmd.args);
            for op in &a.operands {
                out.path(Act::Delete, op);
            }
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn rm_targets_every_spelling() {
        assert!(has("rm -rf ~", "delete@home"));
        assert!(has("rm --rec --forc /", "delete@root"));
        assert!(has("cd / && rm -rf *", "delete@root"));
        assert!(has("cd src; rm -rf ../..", "delete@home"));
        assert!(has("rm -rf {/,~}", "delete@root"));
        assert!(has("sudo rm -rf -- ~/", "delete@home"));
        assert!(has("rm -rf /home/u/proj/target", "delete@outputs"));
        assert!(has("rm .cl*/settings.json", "delete@gate"));
        assert_eq!(effects("rm -f src/a.rs"), vec!["delete@source"]);
    }
}
