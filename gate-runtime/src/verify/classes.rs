//! Letters of the abstract alphabet that no transition of a spec can tell apart, so the
//! explorer steps the reference interpreter once per class and gives every other letter of
//! the class the same step.
//!
//! Two letters are in one class when they differ only in
//!
//! - the action's kind, between kinds that every transition guard lists both or neither of
//!   (a machine reads the kind only in a guard's `kind` list: exec.rs rule 4; the verdict
//!   does not read it), or
//! - a checkpoint's evidence that no transition is triggered by, against no extra trigger (a
//!   machine reads checkpoint evidence only as `checkpoint:` triggers: exec.rs rule 3; the
//!   evidence is realisable wherever the letter without it is).
//!
//! Such letters are realisable at the same nodes and give a machine the same input up to what
//! it does not read, so the same fired transitions, memory and verdict. A class is named by
//! its representative, the letter with the smallest kind of its class and no extra trigger
//! where the class has one: it comes first in the alphabet's order (kinds ascend, and
//! `Extra::None` precedes every checkpoint), so the explorer has stepped it before any
//! other letter of its class.

use std::collections::HashMap;

use gate_spec::ir::{KindId, Spec, Trigger};

use super::alphabet::{Extra, Letter};

/// Per letter of `letters`, the index of its class's representative (itself for one).
pub fn representatives(spec: &Spec, letters: &[Letter]) -> Vec<usize> {
    let kind_rep = kind_representatives(spec);
    let mut used = vec![false; spec.checkpoints.len()];
    for t in &spec.transitions {
        if let Trigger::Checkpoint(c) = t.trigger {
            used[c as usize] = true;
        }
    }
    let index: HashMap<Letter, usize> = letters.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    letters
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let canonical = Letter {
                kind: l.kind.map(|k| kind_rep[k as usize]),
                extra: match l.extra {
                    Extra::Checkpoint(c) if !used[c as usize] => Extra::None,
                    e => e,
                },
                ..*l
            };
            index.get(&canonical).copied().unwrap_or(i).min(i)
        })
        .collect()
}

/// Per kind, the smallest kind that every transition guard lists exactly when it lists
/// this one.
fn kind_representatives(spec: &Spec) -> Vec<KindId> {
    let lists: Vec<&[KindId]> = spec
        .transitions
        .iter()
        .map(|t| &t.guard.kinds[..])
        .filter(|l| !l.is_empty())
        .collect();
    let signature = |k: KindId| -> Vec<bool> { lists.iter().map(|l| l.contains(&k)).collect() };
    let signatures: Vec<Vec<bool>> = (0..spec.kinds.len())
        .map(|k| signature(k as KindId))
        .collect();
    (0..spec.kinds.len())
        .map(|k| {
            signatures
                .iter()
                .position(|s| *s == signatures[k])
                .unwrap_or(k) as KindId
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec made to have classes that `tests/letter_classes.rs` explores both ways.
    const SPEC: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/specs/letter_classes.toml"
    ));

    #[test]
    fn kinds_no_guard_tells_apart_and_unused_checkpoints_share_a_class() {
        let (spec, diags) = gate_spec::compile(SPEC);
        let spec = spec.unwrap_or_else(|| panic!("{:?}", diags.items));
        // `edit` and `plan` are listed by the same guards; `explore` and `test` differ.
        let kinds = [0, 1, 2, 1];
        assert_eq!(kind_representatives(&spec), kinds);
        let letters = super::super::alphabet::letters(&spec);
        let reps = representatives(&spec, &letters);
        for (i, l) in letters.iter().enumerate() {
            let r = &letters[reps[i]];
            assert!(reps[i] <= i);
            assert_eq!((r.phase, r.tier, r.secs_ok), (l.phase, l.tier, l.secs_ok));
            assert_eq!(r.kind, l.kind.map(|k| kinds[k as usize]), "{l:?}");
            match l.extra {
                // `red` triggers nothing: it is the letter without it.
                Extra::Checkpoint(1) => assert_eq!(r.extra, Extra::None),
                e => assert_eq!(r.extra, e),
            }
        }
        let classes = reps.iter().enumerate().filter(|(i, r)| *i == **r).count();
        assert!(classes < letters.len(), "{classes} of {}", letters.len());
    }
}
