//! Static checks over a resolved spec: each rule is its own `check_*` function with its own code.
//!
//! Every check reads the IR only and pushes diagnostics; none of them stops the others, so
//! one run of `gate check` reports every problem. The one rule that needs a span the IR does
//! not keep (G010 points at a signal's `enter`) is [`check_enter_within_backstop`], which the
//! parser calls with that span.
//!
//! The checks also run on a spec with errors in some items ([`run_with`] and its
//! [`Broken`] record): each skips what depends on a broken item and checks the rest, so
//! per-item and whole-machine diagnostics come in one round.

use crate::broken::Broken;
use crate::diag::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Run every static check on a spec that parsed without errors.
pub fn run(spec: &Spec, diags: &mut Diagnostics) {
    run_with(spec, &Broken::default(), diags);
}

/// Run every static check, skipping only what depends on a broken item.
pub fn run_with(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    let reachable = reachable_states(spec, broken);
    if !broken.initial {
        check_unreachable_states(spec, broken, &reachable, diags);
    }
    check_dead_end_states(spec, broken, &reachable, diags);
    check_nondeterminism(spec, broken, diags);
    if !broken.rearm {
        check_rearm_floor(spec, diags);
    }
    check_monotonic_modes(spec, broken, diags);
    check_backstops(spec, broken, diags);
    check_window_blocks(spec, diags);
    check_telemetry(spec, broken, diags);
    check_unused(spec, broken, diags);
    check_guards_can_hold(spec, broken, diags);
    check_template_vars_provided(spec, broken, diags);
    crate::counter::check(spec, broken, diags);
    crate::region::check(spec, broken, diags);
    crate::quiet::check(spec, diags);
}

/// States reachable from `initial`, following every transition whatever its guard. A
/// transition with an error may lead wherever its broken part could name; with a broken
/// `initial`, every state counts as reachable.
fn reachable_states(spec: &Spec, broken: &Broken) -> Vec<bool> {
    if broken.initial {
        return vec![true; spec.states.len()];
    }
    let mut seen = vec![false; spec.states.len()];
    // The main machine's initial state and each region's.
    let mut queue = VecDeque::from(spec.initials());
    for &i in &queue {
        if let Some(s) = seen.get_mut(i as usize) {
            *s = true;
        }
    }
    loop {
        while let Some(state) = queue.pop_front() {
            for t in spec.transitions.iter().filter(|t| t.from == state) {
                if !seen[t.to as usize] {
                    seen[t.to as usize] = true;
                    queue.push_back(t.to);
                }
            }
        }
        // Loose transitions whose source may be reached add their targets; repeat until none
        // adds anything.
        let before = queue.len();
        for loose in &broken.transitions {
            let leaves = match &loose.from {
                None => true,
                Some(from) => from.iter().any(|&f| seen[f as usize]),
            };
            let targets: Vec<StateId> = match loose.to {
                _ if !leaves => Vec::new(),
                None => (0..spec.states.len() as StateId).collect(),
                Some(None) => Vec::new(),
                Some(Some(to)) => vec![to],
            };
            for to in targets {
                if !seen[to as usize] {
                    seen[to as usize] = true;
                    queue.push_back(to);
                }
            }
        }
        if queue.len() == before {
            break;
        }
    }
    seen
}

/// G007: a state no path from the initial state reaches.
fn check_unreachable_states(
    spec: &Spec,
    broken: &Broken,
    reachable: &[bool],
    diags: &mut Diagnostics,
) {
    for (i, state) in spec.states.iter().enumerate() {
        if !reachable[i] && !broken.states.contains(&(i as StateId)) {
            let (whose, initial) = match state.region {
                Some(r) => (
                    format!("region `{}`'s", spec.regions[r as usize].name),
                    spec.regions[r as usize].initial,
                ),
                None => ("the".to_string(), spec.initial),
            };
            diags.push(
                Diagnostic::error(
                    Code::UnreachableState,
                    state.span,
                    format!(
                        "state `{}` is unreachable: no transition path leads to it from {whose} initial state `{}`",
                        state.name,
                        spec.state_name(initial)
                    ),
                )
                .with_help("add a transition into it, or remove it"),
            );
        }
    }
}

/// G008: a (reachable) state from which no path leads to a state that does not withhold.
fn check_dead_end_states(
    spec: &Spec,
    broken: &Broken,
    reachable: &[bool],
    diags: &mut Diagnostics,
) {
    // Backward search from every non-withholding state: those states can get out.
    let mut escapes: Vec<bool> = spec.states.iter().map(|s| s.withhold.is_none()).collect();
    let mut queue: VecDeque<StateId> = (0..spec.states.len())
        .filter(|&i| escapes[i])
        .map(|i| i as StateId)
        .collect();
    loop {
        while let Some(state) = queue.pop_front() {
            for t in spec.transitions.iter().filter(|t| t.to == state) {
                if !escapes[t.from as usize] {
                    escapes[t.from as usize] = true;
                    queue.push_back(t.from);
                }
            }
        }
        // A loose transition that may lead to an escaping state is a way out of its sources
        // (of every state, when a source did not resolve).
        for loose in &broken.transitions {
            let sources: Vec<StateId> = match &loose.from {
                None => (0..spec.states.len() as StateId).collect(),
                Some(from) => from.clone(),
            };
            for from in sources {
                let out = match loose.to {
                    None => true,
                    Some(None) => false,
                    Some(Some(to)) => escapes[to as usize],
                };
                if out && !escapes[from as usize] {
                    escapes[from as usize] = true;
                    queue.push_back(from);
                }
            }
        }
        if queue.is_empty() {
            break;
        }
    }
    for (i, state) in spec.states.iter().enumerate() {
        if escapes[i] || !reachable[i] {
            continue;
        }
        let mut d = Diagnostic::error(
            Code::DeadEndState,
            state.span,
            format!(
                "state `{}` is a dead end: it withholds every action and no transition leads from it to a state that does not withhold",
                state.name
            ),
        );
        if let Some(w) = &state.withhold {
            d = d.with_label(w.span, "every action is withheld here");
        }
        diags.push(d.with_help(
            "add a way out, e.g. a transition `on = \"approved\"` or `on = \"checkpoint:<name>\"` to a state that does not withhold",
        ));
    }
}

/// What a guard admits on one trigger, as sets (`None` = everything).
#[derive(Clone, Debug, PartialEq)]
struct Admits {
    /// Tier indices, `None` when the trigger carries no tool action constraint.
    tiers: Option<BTreeSet<TierId>>,
    kinds: Option<BTreeSet<KindId>>,
    roles: Option<BTreeSet<Option<RoleId>>>,
    rearm: Option<bool>,
    /// Each counter's admitted range (`crate::counter::ranges_meet`).
    counters: Vec<crate::ir::CounterGuard>,
    /// The states an `in` names, each with its state variable (`crate::region::states_meet`).
    states: Vec<(usize, StateId)>,
}

/// Whether a trigger's event certainly carries a tool action (`Some(true)`), certainly does
/// not (`Some(false)`), or may either way (`None`).
fn trigger_has_tool(spec: &Spec, trigger: Trigger) -> Option<bool> {
    match trigger {
        Trigger::Event(phase) => Some(phase.is_tool()),
        Trigger::Approved | Trigger::Tier(_) | Trigger::Action => Some(true),
        Trigger::Checkpoint(c) => {
            let cp = &spec.checkpoints[c as usize];
            let lifecycle_only = cp.tools.is_empty() && cp.events.iter().all(|p| !p.is_tool());
            lifecycle_only.then_some(false)
        }
        Trigger::Signal(s) => {
            let signal = &spec.signals[s as usize];
            match &signal.family {
                // A rising edge happens on a qualifying sample: one of the listed events.
                Family::Lifecycle { events } if events.iter().all(|p| !p.is_tool()) => Some(false),
                Family::Lifecycle { .. } => None,
                // The clock turns it on on whatever event comes.
                Family::Calendar { .. } => None,
                _ => Some(signal.samples.iter().all(|p| p.is_tool())),
            }
        }
        // An edge or a level is seen on an event the signal samples.
        Trigger::Clear(s) | Trigger::While(s) => {
            let signal = &spec.signals[s as usize];
            if signal.samples.iter().all(|p| p.is_tool()) {
                Some(true)
            } else if signal.samples.iter().all(|p| !p.is_tool()) {
                Some(false)
            } else {
                None
            }
        }
        // The observer raises the backstop on a pre-tool action in an open window.
        Trigger::Backstop => Some(true),
        // A state's timer runs out on whatever event comes next.
        Trigger::Timeout => None,
    }
}

/// The tiers an event of this trigger can carry (`None` = any tier).
fn trigger_tiers(spec: &Spec, trigger: Trigger) -> Option<BTreeSet<TierId>> {
    match trigger {
        Trigger::Tier(t) => Some(BTreeSet::from([t])),
        Trigger::Signal(s) => match spec.signals[s as usize].family {
            // The rising sample qualified: the action's tier is at least `tier`.
            Family::TierAtLeast { tier } => Some((tier..spec.tiers.len() as TierId).collect()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the spec has a re-arm floor at all.
fn has_rearm_floor(spec: &Spec) -> bool {
    spec.rearm.min_actions > 0 || spec.rearm.min_secs > 0
}

/// The re-arm requirement a transition effectively has: explicit, or implied by `arm`.
/// `Err(())` when the two contradict (the transition can never fire).
fn effective_rearm(t: &Transition) -> Result<Option<bool>, ()> {
    let arms = t.effects.contains(&Effect::Arm);
    match (t.guard.rearm, arms) {
        (Some(false), true) => Err(()),
        (Some(r), _) => Ok(Some(r)),
        (None, true) => Ok(Some(true)),
        (None, false) => Ok(None),
    }
}

/// Why a transition's guard can never hold on its trigger, if it cannot.
fn never_holds(spec: &Spec, t: &Transition) -> Option<String> {
    let g = &t.guard;
    let trigger = spec.trigger_text(t.trigger);
    if t.trigger == Trigger::Timeout && spec.states[t.from as usize].timeout_secs.is_none() {
        return Some(format!(
            "`timeout` never fires from state `{}`: it has no `timeout_secs`",
            spec.state_name(t.from)
        ));
    }
    if trigger_has_tool(spec, t.trigger) == Some(false) {
        if g.tier.is_some() {
            return Some(format!(
                "a `tier` guard never holds on `{trigger}`: that trigger carries no tool action"
            ));
        }
        if !g.kinds.is_empty() {
            return Some(format!(
                "a `kind` guard never holds on `{trigger}`: that trigger carries no tool action"
            ));
        }
    }
    if let (Some((lo, hi)), Some(possible)) = (g.tier, trigger_tiers(spec, t.trigger)) {
        if !possible.iter().any(|x| (lo..=hi).contains(x)) {
            return Some(format!(
                "the `tier` guard ({}) never holds on `{trigger}`, whose actions are {}",
                tier_range_text(spec, lo, hi),
                tier_set_text(spec, &possible)
            ));
        }
    }
    if effective_rearm(t).is_err() {
        return Some(
            "`rearm = false` never holds on a transition that arms: arming requires the re-arm floor to be met"
                .to_string(),
        );
    }
    if g.rearm == Some(false) && !has_rearm_floor(spec) {
        return Some(
            "`rearm = false` never holds: the spec has no re-arm floor, so it is always met"
                .to_string(),
        );
    }
    None
}

fn tier_range_text(spec: &Spec, lo: TierId, hi: TierId) -> String {
    if lo == hi {
        format!("tier `{}`", spec.tier_name(lo))
    } else {
        format!("tiers `{}` to `{}`", spec.tier_name(lo), spec.tier_name(hi))
    }
}

fn tier_set_text(spec: &Spec, tiers: &BTreeSet<TierId>) -> String {
    let names: Vec<String> = tiers
        .iter()
        .map(|t| format!("`{}`", spec.tier_name(*t)))
        .collect();
    if names.len() == 1 {
        format!("always at tier {}", names[0])
    } else {
        format!("at tiers {}", names.join(", "))
    }
}

/// What a transition's guard admits on its trigger; `None` when it can never hold.
fn admits(spec: &Spec, t: &Transition) -> Option<Admits> {
    if never_holds(spec, t).is_some() {
        return None;
    }
    let g = &t.guard;
    let mut tiers = trigger_tiers(spec, t.trigger);
    if let Some((lo, hi)) = g.tier {
        let range: BTreeSet<TierId> = (lo..=hi).collect();
        tiers = Some(match tiers {
            Some(set) => set.intersection(&range).copied().collect(),
            None => range,
        });
    }
    let rearm = effective_rearm(t).ok()?;
    // Without a floor, `rearm = true` always holds: it constrains nothing.
    let rearm = rearm.filter(|_| has_rearm_floor(spec));
    Some(Admits {
        tiers,
        kinds: (!g.kinds.is_empty()).then(|| g.kinds.iter().copied().collect()),
        roles: (!g.roles.is_empty()).then(|| g.roles.iter().copied().collect()),
        rearm,
        counters: g.counters.clone(),
        states: g.states.iter().map(|&s| (spec.var_of(s), s)).collect(),
    })
}

fn sets_meet<T: Ord>(a: &Option<BTreeSet<T>>, b: &Option<BTreeSet<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.intersection(b).next().is_some(),
        _ => true,
    }
}

/// Whether some event satisfies both guards.
fn overlap(a: &Admits, b: &Admits) -> bool {
    sets_meet(&a.tiers, &b.tiers)
        && sets_meet(&a.kinds, &b.kinds)
        && sets_meet(&a.roles, &b.roles)
        && match (a.rearm, b.rearm) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
        && crate::counter::ranges_meet(&a.counters, &b.counters)
        && crate::region::states_meet(&a.states, &b.states)
}

/// G009: two transitions from one state on one trigger whose guards can both hold.
/// Reported once per pair of declarations (a `from = "*"` transition is one declaration),
/// on the later one with a label on the earlier, naming every state where they collide.
fn check_nondeterminism(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    let mut by_source: BTreeMap<(StateId, Trigger), Vec<usize>> = BTreeMap::new();
    for (i, t) in spec.transitions.iter().enumerate() {
        if broken.trigger_is_broken(t.trigger) {
            continue;
        }
        by_source.entry((t.from, t.trigger)).or_default().push(i);
    }
    // (earlier span, later span, trigger) -> states where both can fire.
    let mut clashes: BTreeMap<(Span, Span, Trigger), Vec<StateId>> = BTreeMap::new();
    for ((from, trigger), list) in &by_source {
        for (n, &i) in list.iter().enumerate() {
            let Some(a) = admits(spec, &spec.transitions[i]) else {
                continue;
            };
            for &j in &list[n + 1..] {
                let (ti, tj) = (&spec.transitions[i], &spec.transitions[j]);
                if ti.span == tj.span {
                    continue; // one declaration listing a state twice
                }
                let Some(b) = admits(spec, tj) else {
                    continue;
                };
                if overlap(&a, &b) {
                    let states = clashes.entry((ti.span, tj.span, *trigger)).or_default();
                    if !states.contains(from) {
                        states.push(*from);
                    }
                }
            }
        }
    }
    for ((earlier, later, trigger), states) in clashes {
        let names: Vec<String> = states
            .iter()
            .map(|s| format!("`{}`", spec.state_name(*s)))
            .collect();
        let trigger = spec.trigger_text(trigger);
        diags.push(
            Diagnostic::error(
                Code::Nondeterminism,
                later,
                format!(
                    "this transition and the one declared earlier both fire on `{trigger}` from {} {} and their guards can both hold",
                    if names.len() == 1 { "state" } else { "states" },
                    names.join(", ")
                ),
            )
            .with_label(earlier, "the earlier transition, which wins when both hold")
            .with_help("make the guards disjoint (tier, kind, role, rearm or counter), or merge the two transitions"),
        );
    }
}

/// G010 (called by the parser, which knows where `enter` is): a signal sampled on pre-tool
/// actions only whose `enter` exceeds the smallest action backstop of any tier, so a window
/// reaches its backstop before the signal could turn on inside it.
pub fn check_enter_within_backstop(
    tiers: &[Tier],
    signal: &Signal,
    enter_span: Span,
    diags: &mut Diagnostics,
) {
    if signal.samples != [Phase::PreTool] {
        return;
    }
    let smallest = tiers
        .iter()
        .filter_map(|t| {
            let b = &t.backstop;
            let learned = b.baseline.as_ref().map(|bl| bl.min_actions);
            let n = match (b.max_actions, learned) {
                (Some(a), Some(l)) => a.min(l),
                (a, l) => a.or(l)?,
            };
            Some((n, t))
        })
        .min_by_key(|(n, _)| *n);
    let Some((limit, tier)) = smallest else {
        return;
    };
    if u32::from(signal.enter) > limit {
        diags.push(
            Diagnostic::error(
                Code::InvalidHysteresis,
                enter_span,
                format!(
                    "signal `{}` needs {} consecutive actions to turn on, but a window at tier `{}` reaches its backstop after {limit}",
                    signal.name, signal.enter, tier.name
                ),
            )
            .with_label(tier.backstop.span, "the smallest action backstop is here")
            .with_help(format!("lower `enter` to at most {limit}, or raise the backstop")),
        );
    }
}

/// Triggers that fire without a person or evidence: arming on them needs a re-arm floor.
fn is_automatic(trigger: Trigger) -> bool {
    !matches!(trigger, Trigger::Approved | Trigger::Checkpoint(_))
}

/// G011: an automatic trigger arms a window and the spec has no re-arm floor.
fn check_rearm_floor(spec: &Spec, diags: &mut Diagnostics) {
    if has_rearm_floor(spec) {
        return;
    }
    let mut seen = BTreeSet::new();
    for t in &spec.transitions {
        if !t.effects.contains(&Effect::Arm) || !is_automatic(t.trigger) || !seen.insert(t.span) {
            continue;
        }
        let mut d = Diagnostic::error(
            Code::NoRearmFloor,
            t.span,
            format!(
                "this transition arms a window automatically on `{}` but the spec has no re-arm floor, so windows could flap",
                spec.trigger_text(t.trigger)
            ),
        );
        if let Some(span) = spec.rearm.span {
            d = d.with_label(span, "both `min_actions` and `min_secs` are 0 here");
        }
        diags.push(d.with_help("add `[rearm]` with `min_actions` and/or `min_secs` above 0"));
    }
}

/// G012: a higher tier with a weaker mode than a lower one (also through a role's overrides).
fn check_monotonic_modes(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    let n = spec.tiers.len();
    let mut strongest: Option<(Mode, TierId)> = None;
    for (i, tier) in spec.tiers.iter().enumerate() {
        if broken.tiers.contains(&(i as TierId)) {
            continue;
        }
        if let Some((mode, at)) = strongest {
            if tier.mode < mode {
                diags.push(
                    Diagnostic::error(
                        Code::NonMonotonicModes,
                        tier.span,
                        format!(
                            "tier `{}` is riskier than `{}` but has a weaker mode ({} < {})",
                            tier.name,
                            spec.tier_name(at),
                            tier.mode.as_str(),
                            mode.as_str()
                        ),
                    )
                    .with_label(spec.tiers[at as usize].span, "the lower tier is declared here")
                    .with_help("tiers are declared lowest risk first; modes must not weaken as risk grows (observe < steer < reversible < gate)"),
                );
                continue;
            }
        }
        if strongest.is_none_or(|(m, _)| tier.mode > m) {
            strongest = Some((tier.mode, i as TierId));
        }
    }
    for (r, role) in spec.roles.iter().enumerate() {
        if broken.roles.contains(&(r as RoleId)) {
            continue;
        }
        let mut strongest: Option<(Mode, TierId)> = None;
        for tier in 0..n as TierId {
            if broken.tiers.contains(&tier) {
                continue;
            }
            let mode = spec.mode_for(tier, Some(r as RoleId));
            if let Some((m, at)) = strongest {
                if mode < m {
                    // Where the weaker mode is written: the role's `modes`, or (when the role
                    // keeps it) the tier's own `mode`, which may be a composed spec's change.
                    let d = Diagnostic::error(
                        Code::NonMonotonicModes,
                        role.span,
                        format!(
                            "for role `{}`, tier `{}` has a weaker mode than the lower tier `{}` ({} < {})",
                            role.name,
                            spec.tier_name(tier),
                            spec.tier_name(at),
                            mode.as_str(),
                            m.as_str()
                        ),
                    )
                    .with_help("a role's `modes` must not weaken as risk grows");
                    let d = match role.modes[tier as usize] {
                        Some(_) => d,
                        None => Diagnostic {
                            span: spec.tiers[tier as usize].span,
                            ..d
                        }
                        .with_label(role.span, "the role whose modes weaken"),
                    };
                    diags.push(d);
                    break;
                }
            }
            if strongest.is_none_or(|(m, _)| mode > m) {
                strongest = Some((mode, tier));
            }
        }
    }
}

/// G013: a tier without any backstop, so a window at that tier would never expire.
fn check_backstops(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    // A spec without windows (no window state, no arm) has nothing for a backstop to expire.
    let has_windows = spec.states.iter().any(|s| s.window)
        || spec
            .transitions
            .iter()
            .any(|t| t.effects.contains(&crate::ir::Effect::Arm));
    if !has_windows {
        return;
    }
    for (i, tier) in spec.tiers.iter().enumerate() {
        if broken.tiers.contains(&(i as TierId)) {
            continue;
        }
        let b = &tier.backstop;
        if b.max_actions.is_none() && b.max_secs.is_none() && b.baseline.is_none() {
            diags.push(
                Diagnostic::error(
                    Code::NoBackstop,
                    tier.span,
                    format!(
                        "tier `{}` has no backstop: a window at this tier would never expire",
                        tier.name
                    ),
                )
                .with_help("give it `max_actions`, `max_secs` or a `baseline`"),
            );
        }
    }
}

/// G015: a window state that withholds, or a transition entering a window state that asks
/// or denies. A window licenses nothing, and it blocks nothing either.
fn check_window_blocks(spec: &Spec, diags: &mut Diagnostics) {
    for state in &spec.states {
        if let (true, Some(w)) = (state.window, &state.withhold) {
            diags.push(
                Diagnostic::error(
                    Code::WindowBlocks,
                    w.span,
                    format!(
                        "window state `{}` withholds every action: a window must not block",
                        state.name
                    ),
                )
                .with_label(state.span, "declared as a window here")
                .with_help("withhold in a separate state that is not a window"),
            );
        }
    }
    let mut seen = BTreeSet::new();
    for t in &spec.transitions {
        let target = &spec.states[t.to as usize];
        if !target.window || t.to == t.from || t.effects.iter().all(|e| e.block().is_none()) {
            continue;
        }
        if !seen.insert(t.span) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                Code::WindowBlocks,
                t.span,
                format!(
                    "this transition enters window state `{}` and withholds the action: opening a window must not block",
                    target.name
                ),
            )
            .with_label(target.span, "the window state")
            .with_help("steer instead, or ask/deny on a transition that does not open a window"),
        );
    }
}

/// The telemetry a family reads, as (field, why).
fn family_needs(spec: &Spec, family: &Family) -> Vec<(Telemetry, &'static str)> {
    match family {
        Family::FailureStreak { .. } => vec![(Telemetry::Status, "it counts failed tool results")],
        Family::RepeatedTarget { .. } => vec![(Telemetry::Target, "it compares targets")],
        Family::ScopeChange { .. } => vec![(Telemetry::Target, "it reads the target's path")],
        Family::Lifecycle { .. } => vec![(Telemetry::Lifecycle, "it watches lifecycle events")],
        Family::Rate { .. } => vec![(Telemetry::Timestamp, "it counts actions per second")],
        Family::Budget {
            max_actions,
            max_secs,
        } => {
            let tier_secs = spec
                .tiers
                .iter()
                .any(|t| t.backstop.max_secs.is_some() || t.backstop.baseline.is_some());
            let secs = max_secs.is_some() || (max_actions.is_none() && tier_secs);
            if secs {
                vec![(Telemetry::Timestamp, "its budget is in seconds")]
            } else {
                Vec::new()
            }
        }
        Family::Calendar { .. } => vec![(Telemetry::Timestamp, "it reads the event's time")],
        Family::KindShift | Family::TierAtLeast { .. } | Family::Denied => Vec::new(),
    }
}

/// G017 (warning): a signal reads telemetry its `requires` does not list, so it would not be
/// disabled on a runtime that lacks that field.
fn check_telemetry(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    for (i, signal) in spec.signals.iter().enumerate() {
        if broken.signals.contains(&(i as SignalId)) {
            continue;
        }
        for (field, why) in family_needs(spec, &signal.family) {
            if signal.requires.contains(&field) {
                continue;
            }
            diags.push(
                Diagnostic::warning(
                    Code::UnavailableTelemetry,
                    signal.span,
                    format!(
                        "signal `{}` ({}) reads `{}` ({why}) but its `requires` does not list it",
                        signal.name,
                        signal.family.name(),
                        field.as_str()
                    ),
                )
                .with_help(format!(
                    "add \"{}\" to `requires` so the signal is disabled where a runtime does not provide it",
                    field.as_str()
                )),
            );
        }
    }
}

/// Unused declarations (warnings): a template no effect or state uses, a signal and a
/// checkpoint no transition is triggered by.
fn check_unused(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    // A reference from a broken item counts as a use.
    let used = |n: usize, set: &BTreeSet<usize>| (0..n).map(|i| set.contains(&i)).collect();
    let mut templates: Vec<bool> = used(spec.templates.len(), &broken.used_templates);
    let mut signals: Vec<bool> = used(spec.signals.len(), &broken.used_signals);
    let mut checkpoints: Vec<bool> = used(spec.checkpoints.len(), &broken.used_checkpoints);
    // A reference that did not resolve may have meant any of them: say nothing.
    if broken.unresolved_template {
        templates.fill(true);
    }
    if broken.unresolved_trigger {
        signals.fill(true);
        checkpoints.fill(true);
    }
    for t in &spec.transitions {
        for e in &t.effects {
            if let Effect::Steer { template }
            | Effect::Ask { template }
            | Effect::Deny { template } = e
            {
                templates[*template as usize] = true;
            }
        }
        match t.trigger {
            Trigger::Signal(s) | Trigger::Clear(s) | Trigger::While(s) => {
                signals[s as usize] = true
            }
            Trigger::Checkpoint(c) => checkpoints[c as usize] = true,
            _ => {}
        }
    }
    for state in &spec.states {
        if let Some(w) = &state.withhold {
            templates[w.template as usize] = true;
        }
    }
    let unused = |what: &str, name: &str, span: Span, help: &str| {
        Diagnostic::warning(Code::Unused, span, format!("{what} `{name}` is never used"))
            .with_help(help.to_string())
    };
    for (i, t) in spec.templates.iter().enumerate() {
        if !templates[i] {
            diags.push(unused(
                "template",
                &t.name,
                t.span,
                "use it in an effect (`steer:`, `ask:`, `deny:`) or a `withhold`, or remove it",
            ));
        }
    }
    for (i, s) in spec.signals.iter().enumerate() {
        if !signals[i] {
            diags.push(unused(
                "signal",
                &s.name,
                s.span,
                "trigger a transition with `signal:<name>`, `clear:<name>` or `while:<name>`, or remove it",
            ));
        }
    }
    for (i, c) in spec.checkpoints.iter().enumerate() {
        if !checkpoints[i] {
            diags.push(unused(
                "checkpoint",
                &c.name,
                c.span,
                "trigger a transition with `checkpoint:<name>`, or remove it",
            ));
        }
    }
}

/// Warnings: a transition whose guard can never hold on its trigger (it never fires).
fn check_guards_can_hold(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    let mut seen = BTreeSet::new();
    for t in &spec.transitions {
        if broken.trigger_is_broken(t.trigger) {
            continue;
        }
        let Some(why) = never_holds(spec, t) else {
            continue;
        };
        if !seen.insert(t.span) {
            continue;
        }
        let at = t.guard.span.unwrap_or(t.span);
        diags.push(
            Diagnostic::warning(
                Code::GuardNeverHolds,
                at,
                format!("this transition never fires: {why}"),
            )
            .with_label(t.span, "the transition"),
        );
    }
}

/// "Did you mean" for a telemetry field name (used by the parser for `requires`).
pub fn suggest_telemetry(name: &str) -> Option<&'static str> {
    did_you_mean(name, Telemetry::ALL.map(Telemetry::as_str))
}

/// Whether a use of a template provides a variable: `on` is the trigger of the transition
/// using it (`None` for a state's `withhold`, rendered on a pre-tool action), `asks` whether
/// the use asks (only an ask has a grant). `None` when it does; otherwise why not.
fn unprovided(spec: &Spec, var: TemplateVar, on: Option<Trigger>, asks: bool) -> Option<String> {
    match var {
        TemplateVar::Signal => match on {
            Some(Trigger::Signal(_) | Trigger::Clear(_) | Trigger::While(_)) | None => None,
            Some(_) => {
                Some("only a `signal:`, `clear:` or `while:` trigger has a signal".to_string())
            }
        },
        TemplateVar::Checkpoint => match on {
            Some(Trigger::Checkpoint(_)) | None => None,
            Some(_) => Some("only a `checkpoint:` trigger has a checkpoint".to_string()),
        },
        TemplateVar::Tier
        | TemplateVar::Kind
        | TemplateVar::Reason
        | TemplateVar::Rule
        | TemplateVar::Tool
        | TemplateVar::Target => match on {
            Some(t) if trigger_has_tool(spec, t) == Some(false) => {
                Some("that trigger carries no tool action".to_string())
            }
            _ => None,
        },
        TemplateVar::GrantId | TemplateVar::Approve if !asks => {
            Some("only an `ask` has a grant to approve".to_string())
        }
        _ => None,
    }
}

/// G021 (warning): a template used where one of its variables is never provided, so it would
/// always render as `none` (or an empty value) there: `{target}` on `event:session_start`,
/// `{signal}` on `checkpoint:tests`, `{approve}` in a `steer:`.
fn check_template_vars_provided(spec: &Spec, broken: &Broken, diags: &mut Diagnostics) {
    // (template, variable, use) reported once.
    let mut seen = BTreeSet::new();
    let mut uses: Vec<(TemplateId, Option<Trigger>, bool, Span, String)> = Vec::new();
    for t in &spec.transitions {
        if broken.trigger_is_broken(t.trigger) {
            continue;
        }
        for e in &t.effects {
            let (template, asks) = match e {
                Effect::Steer { template } | Effect::Deny { template } => (*template, false),
                Effect::Ask { template } => (*template, true),
                _ => continue,
            };
            let what = format!("used on `{}` here", spec.trigger_text(t.trigger));
            uses.push((template, Some(t.trigger), asks, t.span, what));
        }
    }
    for state in &spec.states {
        if let Some(w) = &state.withhold {
            let what = format!("the `withhold` of state `{}`", state.name);
            uses.push((w.template, None, w.block == Block::Ask, w.span, what));
        }
    }
    for (template, on, asks, span, what) in uses {
        let tmpl = &spec.templates[template as usize];
        for part in &tmpl.parts {
            let TemplatePart::Var(var) = part else {
                continue;
            };
            let Some(why) = unprovided(spec, *var, on, asks) else {
                continue;
            };
            if !seen.insert((template, *var, span)) {
                continue;
            }
            diags.push(
                Diagnostic::warning(
                    Code::TemplateVarNotProvided,
                    tmpl.span,
                    format!(
                        "template `{}` uses `{{{}}}`, which this use never provides: {why}",
                        tmpl.name,
                        var.as_str()
                    ),
                )
                .with_label(span, what.clone())
                .with_help("it would render as `none` there; use a variable the trigger provides, or a template of its own"),
            );
        }
    }
}
