//! `gate diff` of the machines beside two policies (`[machine] alongside`): each machine is
//! paired with the one of the same spec name on the other side and compared as the spec's own
//! is (relaxations, items changed, the (role, state, event) pairs answering differently, the
//! sample of actions mapped to another tier or rule); a
//! machine beside only one side is reported as added or removed.

use crate::cmd::diff_classes::Moved;
use gate_runtime::interp::Interpreter;
use gate_runtime::verify::compare::{compare, Comparison};
use gate_spec::diff::{changes, relaxations, Change, Relaxation};
use gate_spec::ir::Spec;

/// One machine beside either policy, compared.
#[derive(Debug, serde::Serialize)]
pub struct Beside {
    pub spec: String,
    /// `added` (beside NEW only), `removed` (beside OLD only) or `both`.
    pub status: &'static str,
    pub relaxations: Vec<Relaxation>,
    pub changes: Vec<Change>,
    /// The explored comparison, for a machine beside both.
    pub behaviour: Option<Comparison>,
    /// Why the behaviour of a machine beside both was not explored (beyond the budget).
    pub not_explored: Option<String>,
    /// The actions this machine maps to another tier or rule.
    pub moved: Vec<Moved>,
}

impl Beside {
    /// Whether this machine is beside both and answers the same (pair by pair) on both.
    pub fn behaves(&self) -> bool {
        self.status == "both"
            && self.not_explored.is_none()
            && self
                .behaviour
                .as_ref()
                .is_none_or(|c| c.differences.is_empty())
    }

    /// Whether it also classifies the sample of actions the same.
    pub fn same(&self) -> bool {
        self.behaves() && self.moved.is_empty()
    }
}

/// Every machine beside `old` or `new`, in the order OLD then NEW lists them, with the
/// actions each machine beside both maps to another tier or rule (`moved`, by spec name).
pub fn compare_beside(
    old: &[&Spec],
    new: &[&Spec],
    mut moved: Vec<(String, Vec<Moved>)>,
) -> Vec<Beside> {
    let mut out = Vec::new();
    let mut take = |name: &str| {
        moved
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| moved.swap_remove(i).1)
            .unwrap_or_default()
    };
    for a in old {
        match new.iter().find(|b| b.name == a.name) {
            Some(b) => {
                let (ia, ib) = (Interpreter::new(a), Interpreter::new(b));
                let explored = compare((a, &ia), (b, &ib));
                out.push(Beside {
                    spec: a.name.to_string(),
                    status: "both",
                    relaxations: relaxations(a, b),
                    changes: changes(a, b),
                    not_explored: explored.as_ref().err().map(ToString::to_string),
                    behaviour: explored.ok(),
                    moved: take(&a.name),
                });
            }
            None => out.push(Beside {
                spec: a.name.to_string(),
                status: "removed",
                relaxations: Vec::new(),
                changes: Vec::new(),
                behaviour: None,
                not_explored: None,
                moved: Vec::new(),
            }),
        }
    }
    for b in new {
        if !old.iter().any(|a| a.name == b.name) {
            out.push(Beside {
                spec: b.name.to_string(),
                status: "added",
                relaxations: Vec::new(),
                changes: Vec::new(),
                behaviour: None,
                not_explored: None,
                moved: Vec::new(),
            });
        }
    }
    out
}
