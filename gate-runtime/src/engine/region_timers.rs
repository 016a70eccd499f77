//! The timers of regions' states (`timeout_secs` on a `[[state]]` with `region`): when each
//! region's timer runs out, and when each region entered its state, kept beside the main
//! machine's own timer (`ObserverState::state_since_ms`) by the same rules (rule 6 of
//! `gate_spec::exec`).

use crate::observer::ObserverState;
use gate_spec::exec::Snapshot;
use gate_spec::ir::{Spec, StateId, Trigger};

/// Each region's timer deadline before the step (`None`: its state has no timer), the time
/// it entered its state being this event's when unknown. Fills `timeouts` with whether each
/// ran out by `now`.
pub(super) fn deadlines(
    spec: &Spec,
    observer: &mut ObserverState,
    machine: &Snapshot,
    now: i64,
    timeouts: &mut Vec<bool>,
) -> Vec<Option<i64>> {
    timeouts.clear();
    if spec.regions.is_empty() {
        return Vec::new();
    }
    observer.region_since_ms.resize(spec.regions.len(), None);
    let mut out = Vec::with_capacity(spec.regions.len());
    for (r, since) in observer.region_since_ms.iter_mut().enumerate() {
        let since = *since.get_or_insert(now);
        let state = machine.regions.get(r).copied();
        let deadline = state
            .and_then(|s| spec.states.get(s as usize))
            .and_then(|s| s.timeout_secs)
            .map(|secs| since.saturating_add(i64::from(secs) * 1000));
        timeouts.push(deadline.is_some_and(|d| now >= d));
        out.push(deadline);
    }
    out
}

/// After the step: a region that moved entered its new state at its timer's deadline when
/// its own `timeout` moved it, else now; one that stayed in a `restart` state restarts from
/// the last transition of it that ended there.
pub(super) fn after_step(
    spec: &Spec,
    observer: &mut ObserverState,
    before: &[StateId],
    after: &Snapshot,
    fired: &[u16],
    deadlines: &[Option<i64>],
    now: i64,
) {
    for (r, since) in observer.region_since_ms.iter_mut().enumerate() {
        let (Some(&from), Some(&to)) = (before.get(r), after.regions.get(r)) else {
            continue;
        };
        let last_into = (fired.iter().rev())
            .map(|&t| &spec.transitions[t as usize])
            .find(|t| t.to == to && spec.var_of(t.from) == r + 1);
        let at = |t: &gate_spec::ir::Transition| match (t.trigger, deadlines.get(r)) {
            (Trigger::Timeout, Some(Some(d))) => *d,
            _ => now,
        };
        match last_into {
            Some(t) if to != from => *since = Some(at(t)),
            Some(t) if spec.states[to as usize].restart => *since = Some(at(t)),
            _ => {}
        }
    }
}

/// The deadline of the region a `timeout` transition from `from` belongs to, if it is a
/// region's (the main machine's is the caller's own).
pub(super) fn deadline_of(spec: &Spec, from: StateId, deadlines: &[Option<i64>]) -> Option<i64> {
    match spec.var_of(from) {
        0 => None,
        v => deadlines.get(v - 1).copied().flatten(),
    }
}
