//! Static checks of regions (`[[region]]`): a region no transition moves, and which `in`
//! guards can both hold (for G009).

use crate::broken::Broken;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Spec, StateId};

/// Whether some values of the state variables satisfy both `in` lists (each state with its
/// variable): they do unless, for a variable both name, they name no common state.
pub fn states_meet(a: &[(usize, StateId)], b: &[(usize, StateId)]) -> bool {
    a.iter().all(|&(var, _)| {
        let theirs: Vec<StateId> = b.iter().filter(|x| x.0 == var).map(|x| x.1).collect();
        theirs.is_empty()
            || a.iter()
                .filter(|x| x.0 == var)
                .any(|x| theirs.contains(&x.1))
    })
}

/// G027: a region no transition leaves any state of: it keeps its initial state forever, so
/// every `in` on it is a constant.
pub fn check(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    for (r, region) in spec.regions.iter().enumerate() {
        let moves = spec
            .transitions
            .iter()
            .any(|t| spec.var_of(t.from) == r + 1);
        // A broken transition may have been this region's.
        let maybe = broken.transitions.iter().any(|l| match &l.from {
            None => true,
            Some(from) => from.iter().any(|&s| spec.var_of(s) == r + 1),
        });
        if !moves && !maybe {
            diags.push(
                Diagnostic::error(
                    Code::Region,
                    region.span,
                    format!(
                        "region `{}` has no transitions: it stays in `{}` forever",
                        region.name,
                        spec.state_name(region.initial)
                    ),
                )
                .with_help(
                    "give it a `[[transition]]` from one of its states (`from = \"REGION.*\"` is every one)",
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_guards_meet_unless_one_variable_is_split() {
        assert!(states_meet(&[], &[(1, 3)]));
        assert!(states_meet(&[(1, 3), (1, 4)], &[(1, 4)]));
        assert!(!states_meet(&[(1, 3)], &[(1, 4)]));
        assert!(states_meet(&[(1, 3)], &[(2, 4)]));
        assert!(!states_meet(&[(0, 0), (1, 3)], &[(1, 4), (2, 5)]));
    }
}
