//! Signals and checkpoints: which signals a runtime can run, and for one event each signal's
//! raw sample, each checkpoint's evidence and the backstop, read from the window context
//! before the event is folded in.

use super::classify::{is_shell_tool, path_matches_plain};
use super::index::ByteSet;
use super::keys::{same_key, EventKeys};
use super::{Baselines, Classification, Classifier, ObserverState, Segment};
use crate::event::{Event, Runtime, Status};
use crate::glob;
use crate::shell;
use gate_spec::ir::{CheckpointId, Family, KindId, Phase, Spec, StatusFilter, Telemetry};
use std::cell::OnceCell;

/// What the observer saw on one event: the machine's inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    pub raw: Vec<bool>,
    pub enabled: Vec<bool>,
    pub checkpoints: Vec<bool>,
    pub backstop: bool,
    pub rearm_secs_ok: bool,
}

/// Which signals can run on this runtime (R12).
pub fn enabled_signals(spec: &Spec, runtime: Option<Runtime>) -> Vec<bool> {
    spec.signals
        .iter()
        .map(|s| match runtime {
            Some(r) => s.requires.iter().all(|t| r.provides(*t)),
            None => s.requires.is_empty(),
        })
        .collect()
}

/// The effective backstop of the open window: the tightest over the tiers acted at, with a
/// learned baseline (clamped) replacing a tier's static limits when the tier asks for one.
pub fn effective_backstop(
    spec: &Spec,
    segment: &Segment,
    baselines: &Baselines,
) -> (Option<u32>, Option<u32>) {
    backstop_of(spec, segment, segment.dominant_kind(), baselines)
}

/// [`effective_backstop`] with the segment's dominant kind already known.
fn backstop_of(
    spec: &Spec,
    segment: &Segment,
    dominant: Option<KindId>,
    baselines: &Baselines,
) -> (Option<u32>, Option<u32>) {
    let top = segment.max_tier.unwrap_or(spec.default_tier);
    let mut actions: Option<u32> = None;
    let mut secs: Option<u32> = None;
    let learned = dominant.and_then(|k| baselines.get(k as usize).copied().flatten());
    for tier in spec
        .tiers
        .iter()
        .take(top as usize + 1)
        .skip(spec.default_tier.min(top) as usize)
    {
        let b = &tier.backstop;
        let (mut a, mut s) = (b.max_actions, b.max_secs);
        if let (Some(clamp), Some((la, ls))) = (&b.baseline, learned) {
            a = Some(la.clamp(clamp.min_actions, clamp.max_actions));
            s = Some(ls.clamp(clamp.min_secs, clamp.max_secs));
        }
        actions = match (actions, a) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        secs = match (secs, s) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
    }
    (actions, secs)
}

fn elapsed_secs(since: Option<i64>, now_ms: i64) -> u64 {
    since.map_or(0, |t| (now_ms.saturating_sub(t)).max(0) as u64 / 1000)
}

/// Compute the machine inputs for one event, before the context is updated with it.
pub fn observe(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    enabled: &[bool],
    baselines: &Baselines,
    now_ms: i64,
) -> Observation {
    let mut keys = EventKeys::default();
    observe_with(
        spec, state, event, class, enabled, baselines, now_ms, &mut keys, None,
    )
}

/// [`observe`] with the event's digests kept in `keys` (pass the same `keys` to
/// [`update_with`](super::update_with) for this event), and what `classifier` (of this spec)
/// derived from the checkpoints' target globs once it was used for several events.
#[allow(clippy::too_many_arguments)]
pub fn observe_with(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    enabled: &[bool],
    baselines: &Baselines,
    now_ms: i64,
    keys: &mut EventKeys,
    classifier: Option<&Classifier<'_>>,
) -> Observation {
    let mut raw = Vec::new();
    let mut checkpoints = Vec::new();
    let (backstop, rearm_secs_ok) = observe_into(
        spec,
        state,
        event,
        class,
        baselines,
        now_ms,
        keys,
        classifier,
        &mut raw,
        &mut checkpoints,
    );
    Observation {
        raw,
        enabled: enabled.to_vec(),
        checkpoints,
        backstop,
        rearm_secs_ok,
    }
}

/// [`observe_with`] writing the raw samples and the checkpoint evidence into `raw` and
/// `checkpoints` (cleared first: a caller reuses them across events); returns `(backstop,
/// rearm_secs_ok)`. The enabled signals are the caller's (they depend only on the runtime).
#[allow(clippy::too_many_arguments)]
pub fn observe_into(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    baselines: &Baselines,
    now_ms: i64,
    keys: &mut EventKeys,
    classifier: Option<&Classifier<'_>>,
    raw: &mut Vec<bool>,
    checkpoints: &mut Vec<bool>,
) -> (bool, bool) {
    let dominant = state.segment.dominant_kind();
    observe_in(
        spec,
        state,
        event,
        class,
        baselines,
        now_ms,
        keys,
        classifier,
        raw,
        checkpoints,
        dominant,
    )
}

/// [`observe_into`] with the segment's dominant kind ([`Segment::dominant_kind`]) already
/// counted by the caller (the engine reads it for its templates too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn observe_in(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    baselines: &Baselines,
    now_ms: i64,
    keys: &mut EventKeys,
    classifier: Option<&Classifier<'_>>,
    raw: &mut Vec<bool>,
    checkpoints: &mut Vec<bool>,
    dominant: Option<KindId>,
) -> (bool, bool) {
    let phase = event.phase.unwrap_or(Phase::Other);
    let cwd = event.cwd.as_deref().unwrap_or("");
    let seg = &state.segment;
    let target = event.target.as_deref().unwrap_or("");
    let failed = matches!(event.status, Some(Status::Failure)) || phase == Phase::PostToolFailure;
    // Success is what the runtime reported. A result without a status is success only where
    // the runtime always reports failures (a Claude Code PostToolUse); on Codex, whose shell
    // results carry no exit status, it is unknown and no evidence (R13).
    let succeeded = !failed
        && (event.status == Some(Status::Success)
            || (event.status.is_none()
                && event.runtime.is_none_or(|r| r.provides(Telemetry::Status))));
    let (max_actions, max_secs) = backstop_of(spec, seg, dominant, baselines);
    let window_secs = elapsed_secs(seg.opened_ms, now_ms);
    let over_budget = |a: Option<u32>, s: Option<u32>| {
        a.is_some_and(|a| seg.actions >= a) || s.is_some_and(|s| window_secs >= u64::from(s))
    };
    raw.clear();
    raw.extend(spec.signals.iter().map(|signal| {
        match &signal.family {
            Family::KindShift => {
                phase == Phase::PreTool && dominant.is_some_and(|k| k != class.kind)
            }
            Family::TierAtLeast { tier } => phase == Phase::PreTool && class.tier >= *tier,
            Family::FailureStreak { count } => failed && state.failures + 1 >= u32::from(*count),
            Family::RepeatedTarget { count } => {
                phase == Phase::PreTool && !target.is_empty() && {
                    // No digest is needed while nothing was remembered.
                    let seen = if seg.targets.is_empty() {
                        0
                    } else {
                        let key = keys.target(target);
                        seg.targets
                            .iter()
                            .find(|(t, _)| same_key(t, &key))
                            .map_or(0, |(_, n)| *n)
                    };
                    seen + 1 >= u32::from(*count)
                }
            }
            Family::ScopeChange { depth } => {
                phase == Phase::PreTool
                    && !seg.scopes.is_empty()
                    && class.paths.iter().enumerate().any(|(i, p)| {
                        keys.scope(i, p, cwd, *depth as usize).is_some_and(|k| {
                            // Hex digits are ASCII: byte order is text order.
                            seg.scopes
                                .binary_search_by(|s| s.as_bytes().cmp(&k.0[..]))
                                .is_err()
                        })
                    })
            }
            Family::Lifecycle { events } => events.contains(&phase),
            Family::Budget {
                max_actions: a,
                max_secs: s,
            } => {
                let (a, s) = if a.is_none() && s.is_none() {
                    (max_actions, max_secs)
                } else {
                    (*a, *s)
                };
                phase == Phase::PreTool && over_budget(a, s)
            }
            Family::Rate { max, per_secs } => {
                let from = now_ms.saturating_sub(i64::from(*per_secs) * 1000);
                let n = state
                    .recent_ms
                    .iter()
                    .filter(|t| **t > from && **t <= now_ms)
                    .count();
                phase == Phase::PreTool && n as u64 + 1 > u64::from(*max)
            }
            Family::Denied => phase == Phase::PreTool && state.last_blocked,
            // A clock or zone that cannot be read samples false (fail open); the engine
            // records the fault (`engine::evaluate`, `calendar_faults`).
            Family::Calendar {
                days,
                after,
                before,
                zone,
            } => gate_spec::calendar::holds(days, *after, *before, zone, now_ms).unwrap_or(false),
        }
    }));
    // What a used classifier knows of the checkpoints' targets (see `index::Index::checkpoints`).
    let needs = classifier
        .and_then(|c| c.index.get())
        .map(|index| &index.checkpoints);
    let target_bytes = OnceCell::new();
    checkpoints.clear();
    // A checkpoint over commands reads the shell command's parse (once for all of them).
    let parsed = OnceCell::new();
    checkpoints.extend(spec.checkpoints.iter().enumerate().map(|(ci, c)| {
        let by_tool = (!c.tools.is_empty() || !c.commands.is_empty())
            && matches!(phase, Phase::PostTool | Phase::PostToolFailure)
            && event.tool.as_deref().is_some_and(|t| {
                if c.tools.is_empty() {
                    is_shell_tool(t)
                } else {
                    c.tools.iter().any(|g| glob::text(&g.text, t))
                }
            })
            && (c.commands.is_empty()
                || command_evidence(
                    classifier.map(Classifier::table),
                    ci as CheckpointId,
                    c,
                    target,
                    parsed.get_or_init(|| shell::parse(target)),
                ))
            && match c.status {
                StatusFilter::Any => true,
                StatusFilter::Success => succeeded,
                StatusFilter::Failure => failed,
            }
            && (c.targets.is_empty()
                || c.targets.iter().enumerate().any(|(j, g)| {
                    let known = needs.and_then(|n| n.get(ci)).and_then(|n| n.get(j));
                    let text_possible = known.is_none_or(|(_, bytes)| {
                        bytes.within(
                            target_bytes.get_or_init(|| ByteSet(glob::byte_set(target.as_bytes()))),
                        )
                    });
                    let need = known.map_or_else(
                        || glob::PathNeed::of(&g.text),
                        |(need, _)| need.get(&g.text),
                    );
                    (text_possible && glob::text(&g.text, target))
                        || class
                            .paths
                            .iter()
                            .any(|p| need.admits(p) && path_matches_plain(&g.text, p, cwd))
                }));
        // A prompt is matched as the user sent it, without the blank space around it.
        let text = event.prompt.as_deref().map_or(target, str::trim);
        let by_event = c.events.contains(&phase)
            && (c.targets.is_empty() || c.targets.iter().any(|g| glob::text(&g.text, text)));
        by_tool || by_event
    }));
    let backstop =
        state.window_open && phase == Phase::PreTool && over_budget(max_actions, max_secs);
    let rearm_secs_ok = state
        .last_arm_ms
        .is_none_or(|t| now_ms.saturating_sub(t) >= i64::from(spec.rearm.min_secs) * 1000);
    (backstop, rearm_secs_ok)
}

/// Whether the command run is one of the checkpoint's commands, matched on its parsed
/// simple commands as rule patterns are (so `echo cargo test` is not `cargo test`), and
/// none of its exceptions (`cargo test --no-run`). The patterns come parsed from the spec's
/// command table (built at compile time for a generated machine); only a caller without a
/// classifier has them parsed here.
fn command_evidence(
    table: Option<&gate_spec::commands::CommandTable>,
    ci: CheckpointId,
    c: &gate_spec::ir::Checkpoint,
    raw: &str,
    parsed: &shell::Parsed<'_>,
) -> bool {
    if let Some(table) = table {
        let hit = |except: bool| {
            table
                .checkpoint_patterns(ci, except)
                .any(|p| shell::matches_in(p, parsed, raw))
        };
        return hit(false) && !hit(true);
    }
    let hit = |list: &[gate_spec::ir::Pattern]| {
        list.iter().any(|p| {
            gate_spec::pattern::parse_command(&p.text)
                .is_ok_and(|pattern| shell::matches(&pattern, parsed, raw))
        })
    };
    hit(&c.commands) && !hit(&c.except_commands)
}

/// Telemetry names a signal needs that this runtime lacks (for the audit's "disabled" row).
pub fn missing_telemetry(spec: &Spec, runtime: Option<Runtime>) -> Vec<(String, Vec<Telemetry>)> {
    spec.signals
        .iter()
        .filter_map(|s| {
            let missing: Vec<Telemetry> = s
                .requires
                .iter()
                .copied()
                .filter(|t| runtime.is_none_or(|r| !r.provides(*t)))
                .collect();
            (!missing.is_empty()).then(|| (s.name.to_string(), missing))
        })
        .collect()
}
