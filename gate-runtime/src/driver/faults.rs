//! Store faults in a row, per session, and the tiers that fail closed after a few of them.
//!
//! Under a store fault a hook answers from a fresh in-memory state ([`super::degrade`]): what
//! the rules alone decide stands, and everything that needs the machine's state falls away.
//! An agent that can make the store fail (fill the disk, hold its lock) would so lift every
//! block that comes from state (a worker's method block before it reassesses, a throttled
//! session's withheld actions). So the faults are counted, per session, outside the
//! database; from the `stateful_fail_closed_after`th fault in a row on, a pre-tool action of
//! a tier whose answer can depend on state ([`needs_state`]) is denied until the store works
//! again. The first hook that finds the store working again records how many faults there
//! were in the audit and clears the count.
//!
//! The count is a file beside the database per session (`gate.db-faults-<digest>`) whose
//! *length* is the number of faults: growing it is `ftruncate`, which allocates no data
//! block, so a full disk does not stop it. When even that cannot be done (no directory, no
//! inode), the worst is assumed: the threshold is taken as reached.

use std::path::{Path, PathBuf};

use gate_spec::ir::{Block, Effect, Mode, Phase, RoleId, Spec, TierId, Trigger};

use crate::engine::Outcome;
use crate::event::Event;
use crate::verdict::{Decision, Verdict};

/// The faults in a row after which stateful tiers fail closed when nothing is configured.
pub const DEFAULT_STATEFUL_FAIL_CLOSED_AFTER: u32 = 3;

/// The fault count of one session beside one database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultCount {
    path: PathBuf,
}

impl FaultCount {
    /// The count of `session` (the event's, or `no-session`) beside the database `db`.
    pub fn of(db: &Path, session: Option<&str>) -> FaultCount {
        // FNV-1a: a name per session, stable across processes; two sessions that share one
        // only share their count (every hook pays for this, a SHA-256 block costs 3 k
        // instructions).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in session.unwrap_or("no-session").bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut name = db
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| "gate.db".into());
        name.push("-faults-");
        name.push(format!("{h:016x}"));
        FaultCount {
            path: db.with_file_name(name),
        }
    }

    /// Where the count is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The faults in a row recorded (0 when none, or when the count cannot be read).
    pub fn read(&self) -> u64 {
        std::fs::symlink_metadata(&self.path).map_or(0, |m| m.len())
    }

    /// One more fault in a row: the new count, `None` when it could not be recorded.
    pub fn bump(&self) -> Option<u64> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.path)
            .ok()?;
        let n = file.metadata().ok()?.len().saturating_add(1);
        file.set_len(n).ok()?;
        Some(n)
    }

    /// The store works again: no faults in a row.
    pub fn clear(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// Every session's count beside the database `db`: (count, last fault in ms since the
    /// epoch), for `gate doctor` and `gate status`.
    pub fn all(db: &Path) -> Vec<(u64, i64)> {
        let Some(dir) = db.parent() else {
            return Vec::new();
        };
        let mut prefix = db
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        prefix.push_str("-faults-");
        let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        }) else {
            return Vec::new();
        };
        let mut out: Vec<(u64, i64)> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                let ms = m
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?
                    .as_millis() as i64;
                Some((m.len(), ms))
            })
            .collect();
        out.sort_by(|a, b| b.cmp(a));
        out
    }
}

/// Whether the answer to a pre-tool action of `tier`, for `role`, can depend on the machine's
/// state: the tier blocks under the role's mode, and some state blocks the action more
/// strongly than the initial state does (a transition from it on the action, or its
/// withhold), or a block fires on something other than the action (a signal, a backstop, a
/// timer, a checkpoint). Under a store fault the machine starts from its initial state, so
/// such a block would be lost.
pub fn needs_state(spec: &Spec, tier: TierId, role: Option<RoleId>) -> bool {
    // `reversible` withholds what it cannot back up, as `gate` does.
    if spec.mode_for(tier, role) < Mode::Reversible {
        return false;
    }
    let admits = |t: &gate_spec::ir::Transition| {
        t.guard
            .tier
            .is_none_or(|(lo, hi)| (lo..=hi).contains(&tier))
            && (t.guard.roles.0.is_empty() || t.guard.roles.0.contains(&role))
    };
    let strength = |effects: &[Effect]| {
        effects
            .iter()
            .map(|e| match e {
                Effect::Deny { .. } => 2u8,
                Effect::Ask { .. } => 1,
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    };
    let on_action = |t: &gate_spec::ir::Transition| match t.trigger {
        Trigger::Tier(x) => x == tier,
        Trigger::Action | Trigger::Event(Phase::PreTool) => true,
        _ => false,
    };
    // The strongest block an action of this tier meets in state `s`.
    let in_state = |s: usize| -> u8 {
        let held = spec.states[s]
            .withhold
            .as_ref()
            .map_or(0, |w| match w.block {
                Block::Deny => 2,
                Block::Ask => 1,
            });
        let fired = spec
            .transitions
            .iter()
            .filter(|t| t.from as usize == s && on_action(t) && admits(t))
            .map(|t| strength(&t.effects))
            .max()
            .unwrap_or(0);
        held.max(fired)
    };
    let initial = in_state(spec.initial as usize);
    if (0..spec.states.len()).any(|s| in_state(s) > initial) {
        return true;
    }
    // A block on a signal, a backstop, a timer or a checkpoint: what fires it is state.
    spec.transitions.iter().any(|t| {
        matches!(
            t.trigger,
            Trigger::Signal(_)
                | Trigger::Clear(_)
                | Trigger::While(_)
                | Trigger::Backstop
                | Trigger::Timeout
                | Trigger::Checkpoint(_)
        ) && admits(t)
            && strength(&t.effects) > 0
    })
}

/// The answer under the `count`th store fault in a row (`None`: the count could not be
/// kept), when stateful tiers fail closed after `after` faults (0: never): a pre-tool action
/// of a tier whose answer needs state is denied, in the spec's own machine or in any
/// machine beside it. `None` when this does not apply.
pub fn stateful_fail_closed(
    spec: &Spec,
    beside: &[(&Spec, Option<RoleId>)],
    event: &Event,
    outcome: &Outcome,
    role: Option<RoleId>,
    count: Option<u64>,
    after: u32,
) -> Option<Decision> {
    let reached = after > 0 && count.is_none_or(|n| n >= u64::from(after));
    if !reached
        || event.phase != Some(Phase::PreTool)
        || matches!(outcome.decision.verdict, Verdict::Deny { .. })
    {
        return None;
    }
    let mut stateful = needs_state(spec, outcome.classification.tier, role)
        .then(|| spec.tier_name(outcome.classification.tier).to_string());
    for (a, (s, r)) in outcome.alongside.iter().zip(beside) {
        if stateful.is_none() && needs_state(s, a.outcome.classification.tier, *r) {
            stateful = Some(format!(
                "{} ({})",
                s.tier_name(a.outcome.classification.tier),
                &*s.name
            ));
        }
    }
    let tier = stateful?;
    let faults = match count {
        Some(n) => format!("{n} store faults in a row"),
        None => "a store fault it could not even count".to_string(),
    };
    Some(Decision {
        verdict: Verdict::Deny {
            reason: format!(
                "gate could not check this {tier} action: its store failed ({faults}), and \
                 the answer to {tier} actions depends on gate's state, which it cannot read. \
                 Such actions are denied until the store works again; actions the rules \
                 alone decide still run. The user should run `gate doctor`."
            ),
        },
        carried: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_the_files_length_and_clears() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("gate.db");
        let c = FaultCount::of(&db, Some("s-1"));
        assert_eq!(c.read(), 0);
        assert_eq!(c.bump(), Some(1));
        assert_eq!(c.bump(), Some(2));
        assert_eq!(c.read(), 2);
        // Another session has its own.
        assert_eq!(FaultCount::of(&db, Some("s-2")).read(), 0);
        assert_eq!(FaultCount::all(&db).len(), 1);
        c.clear();
        assert_eq!(c.read(), 0);
        // No directory to keep it in: it cannot be counted.
        let gone = FaultCount::of(&dir.path().join("no/such/gate.db"), Some("s"));
        assert_eq!(gone.bump(), None);
    }

    #[test]
    fn which_tiers_need_state_in_the_shipped_specs() {
        for compiled in gate_specs::ALL {
            let spec = compiled.ir();
            let tier = |name: &str| {
                spec.tiers
                    .iter()
                    .position(|t| &*t.name == name)
                    .map(|i| i as TierId)
            };
            let role = |name: &str| {
                spec.roles
                    .iter()
                    .position(|r| &*r.name == name)
                    .map(|i| i as RoleId)
            };
            match spec.name.as_ref() {
                // The worker's method block: only from states after a boundary.
                "jwc" => {
                    let worker = role("worker");
                    assert!(needs_state(spec, tier("elevated").unwrap(), worker));
                    assert!(needs_state(spec, tier("high").unwrap(), worker));
                    assert!(!needs_state(spec, tier("elevated").unwrap(), None));
                    assert!(!needs_state(spec, tier("routine").unwrap(), worker));
                    // Asked from every state alike: the rules alone decide it.
                    assert!(!needs_state(spec, tier("protected").unwrap(), None));
                }
                "default" => {
                    // Denied and asked from every state alike; a worker's method block is state.
                    assert!(!needs_state(spec, tier("destructive").unwrap(), None));
                    assert!(!needs_state(spec, tier("forbidden").unwrap(), None));
                    assert!(needs_state(spec, tier("elevated").unwrap(), role("worker")));
                }
                "trust" => {
                    // A throttled session withholds every action: every tier that blocks.
                    for t in 0..spec.tiers.len() as TierId {
                        let gates = spec.mode_for(t, None) >= Mode::Reversible;
                        assert_eq!(needs_state(spec, t, None), gates, "{}", spec.tier_name(t));
                    }
                }
                _ => {}
            }
        }
    }
}
