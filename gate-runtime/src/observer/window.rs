//! The window context kept per scope: the [`Segment`] of work since the last arm, the
//! [`ObserverState`] around it, and how an event is folded in after the machine stepped.

use super::keys::{same_key, EventKeys};
use super::Classification;
use crate::event::{Event, Status};
use gate_spec::ir::{Family, KindId, Phase, Spec, TierId};
use serde::{Deserialize, Serialize};

/// Bounds on the per-scope context.
const MAX_SCOPES: usize = 64;
const MAX_TARGETS: usize = 32;
const MAX_RECENT: usize = 1024;

/// The span of work since the last arm (or since the scope started).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub opened_ms: Option<i64>,
    pub actions: u32,
    /// Actions per work kind.
    pub kind_counts: Vec<u32>,
    /// Digests of the path prefixes seen (sorted, bounded).
    pub scopes: Vec<String>,
    /// Recent targets with their counts (bounded, most recent last). Targets are kept as
    /// digests ([`target_key`](super::target_key)): a command may carry a secret, and state
    /// is stored as is.
    pub targets: Vec<(String, u32)>,
    /// The highest tier acted at (risk-proportional backstops).
    pub max_tier: Option<TierId>,
}

impl Segment {
    /// The kind with the most actions (ties: the lowest id), if any action happened.
    pub fn dominant_kind(&self) -> Option<KindId> {
        let mut best: Option<(u32, KindId)> = None;
        for (k, n) in self.kind_counts.iter().enumerate() {
            if *n > 0 && best.is_none_or(|(bn, _)| *n > bn) {
                best = Some((*n, k as KindId));
            }
        }
        best.map(|(_, k)| k)
    }
}

/// Everything the observer remembers for one scope.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObserverState {
    pub window_open: bool,
    pub segment: Segment,
    /// Consecutive failed tool results.
    pub failures: u32,
    pub last_arm_ms: Option<i64>,
    /// Pre-tool action times, for rate signals (bounded).
    pub recent_ms: Vec<i64>,
    /// The previous pre-tool verdict withheld the action.
    pub last_blocked: bool,
    /// Disabled signals were already reported for this scope.
    pub disabled_reported: bool,
    pub events: u64,
    /// The latest time this scope has seen: time never runs backwards within a scope (a
    /// clock step back, or hooks that read the clock before queueing for the lock).
    #[serde(default)]
    pub last_ms: Option<i64>,
    /// When the machine entered its current state (for the state's own `timeout_secs`): the
    /// event that moved it there, or the deadline when a timeout moved it.
    #[serde(default)]
    pub state_since_ms: Option<i64>,
    /// Per region (`Spec::regions`): when it entered its current state, as `state_since_ms`
    /// is for the main machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub region_since_ms: Vec<Option<i64>>,
    /// Pre-tool actions seen in this scope (the clock of templates' `quiet_actions`).
    #[serde(default)]
    pub actions: u64,
    /// When each quiet template (`quiet_actions`/`quiet_secs`) last steered in this scope, by
    /// name: at most one entry per quiet template of the spec.
    #[serde(default)]
    pub quiet: Vec<QuietMark>,
}

/// The last time a steer from one quiet template was shown in a scope.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuietMark {
    pub template: String,
    pub shown_ms: i64,
    /// [`ObserverState::actions`] when it was shown.
    pub shown_action: u64,
}

/// Learned window baselines for the current repository, per kind: (actions, secs).
pub type Baselines = Vec<Option<(u32, u32)>>;

/// Start a new segment (a window was armed, or one closed).
pub fn reset_segment(spec: &Spec, state: &mut ObserverState, now_ms: i64) {
    // The new segment is `Segment { opened_ms: Some(now_ms), kind_counts: vec![0; kinds],
    // ..Segment::default() }`, written in place so that its vectors keep their room.
    let Segment {
        opened_ms,
        actions,
        kind_counts,
        scopes,
        targets,
        max_tier,
    } = &mut state.segment;
    *opened_ms = Some(now_ms);
    *actions = 0;
    kind_counts.clear();
    kind_counts.resize(spec.kinds.len(), 0);
    scopes.clear();
    targets.clear();
    *max_tier = None;
}

/// Fold one event into the context (after the machine stepped).
pub fn update(
    spec: &Spec,
    state: &mut ObserverState,
    event: &Event,
    class: &Classification,
    now_ms: i64,
) {
    update_with(spec, state, event, class, now_ms, &mut EventKeys::default());
}

/// [`update`] with the event's digests taken from `keys` (filled by
/// [`observe_with`](super::observe_with)).
pub fn update_with(
    spec: &Spec,
    state: &mut ObserverState,
    event: &Event,
    class: &Classification,
    now_ms: i64,
    keys: &mut EventKeys,
) {
    let phase = event.phase.unwrap_or(Phase::Other);
    state.events += 1;
    if state.segment.opened_ms.is_none() {
        state.segment.opened_ms = Some(now_ms);
    }
    match phase {
        Phase::PreTool => {
            state.actions = state.actions.saturating_add(1);
            let seg = &mut state.segment;
            seg.actions = seg.actions.saturating_add(1);
            if seg.kind_counts.len() != spec.kinds.len() {
                seg.kind_counts.resize(spec.kinds.len(), 0);
            }
            if let Some(n) = seg.kind_counts.get_mut(class.kind as usize) {
                *n = n.saturating_add(1);
            }
            seg.max_tier = Some(seg.max_tier.map_or(class.tier, |t| t.max(class.tier)));
            let cwd = event.cwd.as_deref().unwrap_or("");
            let depth = spec
                .signals
                .iter()
                .filter_map(|s| match s.family {
                    Family::ScopeChange { depth } => Some(depth as usize),
                    _ => None,
                })
                .max()
                .unwrap_or(1);
            for (i, p) in class.paths.iter().enumerate() {
                // Kept as a digest, like targets: a path operand may be a URL with a password.
                let Some(s) = keys.scope(i, p, cwd, depth) else {
                    continue;
                };
                if let Err(at) = seg.scopes.binary_search_by(|x| x.as_bytes().cmp(&s.0[..])) {
                    if seg.scopes.len() < MAX_SCOPES {
                        seg.scopes.insert(at, s.as_str().to_string());
                    }
                }
            }
            if let Some(target) = event.target.as_deref().filter(|t| !t.is_empty()) {
                let key = keys.target(target);
                if let Some(pos) = seg.targets.iter().position(|(t, _)| same_key(t, &key)) {
                    let (t, n) = seg.targets.remove(pos);
                    seg.targets.push((t, n.saturating_add(1)));
                } else if seg.targets.len() >= MAX_TARGETS {
                    // The oldest goes; its text's room holds the new digest.
                    let (mut t, _) = seg.targets.remove(0);
                    t.clear();
                    t.push_str(key.as_str());
                    seg.targets.push((t, 1));
                } else {
                    seg.targets.push((key.as_str().to_string(), 1));
                }
            }
            state.recent_ms.push(now_ms);
            let horizon = spec
                .signals
                .iter()
                .filter_map(|s| match s.family {
                    Family::Rate { per_secs, .. } => Some(i64::from(per_secs) * 1000),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            state
                .recent_ms
                .retain(|t| *t > now_ms.saturating_sub(horizon) && *t <= now_ms);
            if state.recent_ms.len() > MAX_RECENT {
                let extra = state.recent_ms.len() - MAX_RECENT;
                state.recent_ms.drain(..extra);
            }
        }
        Phase::PostTool | Phase::PostToolFailure => {
            let failed =
                matches!(event.status, Some(Status::Failure)) || phase == Phase::PostToolFailure;
            state.failures = if failed {
                state.failures.saturating_add(1)
            } else {
                0
            };
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A segment reset in place equals a new one.
    #[test]
    fn reset_segment_is_a_new_segment() {
        let spec = gate_specs::ALL[0].ir();
        let mut state = ObserverState {
            segment: Segment {
                opened_ms: Some(5),
                actions: 9,
                kind_counts: vec![3; spec.kinds.len() + 2],
                scopes: vec!["a".into(), "b".into()],
                targets: vec![("t".into(), 2)],
                max_tier: Some(1),
            },
            ..ObserverState::default()
        };
        reset_segment(spec, &mut state, 77);
        let fresh = Segment {
            opened_ms: Some(77),
            kind_counts: vec![0; spec.kinds.len()],
            ..Segment::default()
        };
        assert_eq!(state.segment, fresh);
    }
}
