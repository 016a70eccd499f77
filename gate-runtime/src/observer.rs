//! The observer: classifies each event from the spec's rules and keeps the window context
//! from which every signal's raw sample and every checkpoint's evidence are computed.
//!
//! Everything here is deterministic and bounded: the context keeps at most a fixed number of
//! scopes, targets and timestamps, so a long session cannot grow the per-call state without
//! limit. Time comes from the event (or the caller's clock); a clock that goes backwards
//! counts as no time elapsed.

use crate::event::{Event, Runtime, Status};
use crate::{glob, shell};
use gate_spec::commands::{CommandTable, PatternRef};
use gate_spec::ir::{
    ActionClass, Family, KindId, Phase, RuleId, Spec, StatusFilter, Telemetry, TierId,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Bounds on the per-scope context.
const MAX_SCOPES: usize = 64;
const MAX_TARGETS: usize = 32;
const MAX_RECENT: usize = 1024;

/// Tool names whose target is a shell command.
pub fn is_shell_tool(tool: &str) -> bool {
    matches!(
        tool,
        "Bash" | "bash" | "run_shell_command" | "exec_command" | "shell" | "local_shell"
    )
}

/// The result of classifying one tool event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    pub class: Option<ActionClass>,
    pub tier: TierId,
    pub kind: KindId,
    /// The rule that set the tier (the highest-tier match), if any.
    pub rule: Option<RuleId>,
    pub reason: String,
    /// Every rule that matched, in declaration order.
    pub matched: Vec<RuleId>,
    /// Paths the action touches (file tools, patch paths, shell operands and redirects).
    pub paths: Vec<String>,
    /// The shell parser stopped at a bound (the command was classified on what was parsed).
    pub truncated: bool,
}

/// Classifies tool events against a spec's rules.
///
/// Command patterns come parsed and indexed by program ([`CommandTable`]): a generated
/// machine carries its table as a static built at compile time, so a hook process parses no
/// pattern; an interpreted spec builds the table once here.
#[derive(Debug)]
pub struct Classifier<'s> {
    spec: &'s Spec,
    table: Cow<'s, CommandTable>,
}

/// Flag of [`Classifier::command_hits`]: one of the rule's `commands` matches the line.
pub const HIT_COMMAND: u8 = 1;
/// Flag of [`Classifier::command_hits`]: one of the rule's `except_commands` matches.
pub const HIT_EXCEPT: u8 = 2;

impl<'s> Classifier<'s> {
    /// A classifier that parses the spec's command patterns now.
    pub fn new(spec: &'s Spec) -> Self {
        Classifier::with_table(spec, None)
    }

    /// A classifier over a prebuilt table (a generated machine's
    /// [`Machine::commands`](gate_spec::exec::Machine::commands)); `None` builds one from
    /// `spec`. A prebuilt table must have been built from this same spec.
    pub fn with_table(spec: &'s Spec, table: Option<&'s CommandTable>) -> Self {
        let table = match table {
            Some(t) if t.rules.len() == spec.rules.len() => Cow::Borrowed(t),
            _ => Cow::Owned(CommandTable::build(spec)),
        };
        Classifier { spec, table }
    }

    /// The parsed, indexed command patterns.
    pub fn table(&self) -> &CommandTable {
        &self.table
    }

    /// Which rules' command patterns ([`HIT_COMMAND`]) and exception patterns
    /// ([`HIT_EXCEPT`]) match the line, per rule. Only the patterns indexed under the
    /// programs the line runs, plus the few that name no program literally, are tried.
    /// `parsed` is `shell::parse(raw)`.
    pub fn command_hits(&self, parsed: &shell::Parsed, raw: &str) -> Vec<u8> {
        let table = &*self.table;
        let mut hits = vec![0u8; table.rules.len()];
        let mut try_pattern = |at: PatternRef| {
            let bit = if at.except { HIT_EXCEPT } else { HIT_COMMAND };
            let Some(slot) = hits.get_mut(usize::from(at.rule)) else {
                return;
            };
            if *slot & bit == 0
                && table
                    .pattern(at)
                    .is_some_and(|p| shell::matches_in(p, parsed, raw))
            {
                *slot |= bit;
            }
        };
        let mut programs: Vec<&str> = parsed.commands.iter().map(|c| c.program.as_str()).collect();
        programs.sort_unstable();
        programs.dedup();
        for program in programs {
            for &at in table.for_program(program) {
                try_pattern(at);
            }
        }
        for &at in table.always() {
            try_pattern(at);
        }
        hits
    }

    /// Classify a tool event. Non-tool events get the default tier and kind.
    pub fn classify(&self, event: &Event) -> Classification {
        let spec = self.spec;
        let mut out = Classification {
            class: event.class,
            tier: spec.default_tier,
            kind: spec.default_kind,
            ..Classification::default()
        };
        let phase = event.phase.unwrap_or(Phase::Other);
        let Some(tool) = event.tool.as_deref().filter(|_| phase.is_tool()) else {
            return out;
        };
        let parsed = match (is_shell_tool(tool), event.target.as_deref()) {
            (true, Some(cmd)) => {
                let parsed = shell::parse(cmd);
                out.class = Some(shell::classify(&parsed));
                out.truncated = parsed.truncated;
                out.paths.extend(shell::paths(&parsed));
                Some(parsed)
            }
            _ => None,
        };
        out.paths.extend(event.paths.iter().cloned());
        let hits = match (&parsed, event.target.as_deref()) {
            (Some(parsed), Some(raw)) if !self.table.is_empty() => {
                Some(self.command_hits(parsed, raw))
            }
            _ => None,
        };
        let cwd = event.cwd.as_deref().unwrap_or("");
        let mut best: Option<(TierId, RuleId)> = None;
        let mut kind_set = false;
        for (i, rule) in spec.rules.iter().enumerate() {
            if !rule.phases.is_empty() && !rule.phases.contains(&phase) {
                continue;
            }
            if !rule.tools.is_empty() && !rule.tools.iter().any(|g| glob::text(&g.text, tool)) {
                continue;
            }
            if !rule.classes.is_empty() && !out.class.is_some_and(|c| rule.classes.contains(&c)) {
                continue;
            }
            if !rule.paths.is_empty()
                && !out
                    .paths
                    .iter()
                    .any(|p| rule.paths.iter().any(|g| path_matches(&g.text, p, cwd)))
            {
                continue;
            }
            let hit = hits.as_ref().and_then(|h| h.get(i)).copied().unwrap_or(0);
            if !rule.commands.is_empty() && hit & HIT_COMMAND == 0 {
                continue;
            }
            if hit & HIT_EXCEPT != 0 {
                continue;
            }
            if !rule.except_paths.is_empty()
                && !out.paths.is_empty()
                && out.paths.iter().all(|p| {
                    rule.except_paths
                        .iter()
                        .any(|g| path_matches(&g.text, p, cwd))
                })
            {
                continue;
            }
            let id = i as RuleId;
            out.matched.push(id);
            if let Some(t) = rule.tier {
                if best.is_none_or(|(bt, _)| t > bt) {
                    best = Some((t, id));
                }
            }
            if let (Some(k), false) = (rule.kind, kind_set) {
                out.kind = k;
                kind_set = true;
            }
        }
        if let Some((t, id)) = best {
            out.tier = t;
            out.rule = Some(id);
            out.reason = spec.rules[id as usize].reason.to_string();
        }
        out
    }
}

/// A path glob matches the path as given, or relative to the working directory.
fn path_matches(glob_text: &str, path: &str, cwd: &str) -> bool {
    if glob::path(glob_text, path) {
        return true;
    }
    if !cwd.is_empty() {
        if let Some(rel) = path.strip_prefix(cwd) {
            let rel = rel.trim_start_matches('/');
            if !rel.is_empty() && glob::path(glob_text, rel) {
                return true;
            }
        }
    }
    false
}

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
    /// digests ([`target_key`]): a command may carry a secret, and state is stored as is.
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

/// The digest a target is remembered by: fixed size, and no secret it carries is stored.
pub fn target_key(target: &str) -> String {
    let mut hex = gate_spec::hash::sha256_hex(target.as_bytes());
    hex.truncate(24);
    hex
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
}

/// Learned window baselines for the current repository, per kind: (actions, secs).
pub type Baselines = Vec<Option<(u32, u32)>>;

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

/// The prefix of a path that names its scope: the first `depth` components under cwd.
fn scope_of(path: &str, cwd: &str, depth: usize) -> String {
    let rel = path
        .strip_prefix(cwd)
        .filter(|_| !cwd.is_empty())
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(path);
    let mut parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    // The last component is the file itself; a scope is its directory prefix.
    if parts.len() > 1 {
        parts.pop();
    }
    parts.truncate(depth.max(1));
    parts.join("/")
}

/// The effective backstop of the open window: the tightest over the tiers acted at, with a
/// learned baseline (clamped) replacing a tier's static limits when the tier asks for one.
pub fn effective_backstop(
    spec: &Spec,
    segment: &Segment,
    baselines: &Baselines,
) -> (Option<u32>, Option<u32>) {
    let top = segment.max_tier.unwrap_or(spec.default_tier);
    let mut actions: Option<u32> = None;
    let mut secs: Option<u32> = None;
    let learned = segment
        .dominant_kind()
        .and_then(|k| baselines.get(k as usize).copied().flatten());
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
    let phase = event.phase.unwrap_or(Phase::Other);
    let cwd = event.cwd.as_deref().unwrap_or("");
    let seg = &state.segment;
    let target = event.target.as_deref().unwrap_or("");
    let failed = matches!(event.status, Some(Status::Failure)) || phase == Phase::PostToolFailure;
    let (max_actions, max_secs) = effective_backstop(spec, seg, baselines);
    let window_secs = elapsed_secs(seg.opened_ms, now_ms);
    let over_budget = |a: Option<u32>, s: Option<u32>| {
        a.is_some_and(|a| seg.actions >= a) || s.is_some_and(|s| window_secs >= u64::from(s))
    };
    let raw = spec
        .signals
        .iter()
        .map(|signal| match &signal.family {
            Family::KindShift => {
                phase == Phase::PreTool && seg.dominant_kind().is_some_and(|k| k != class.kind)
            }
            Family::TierAtLeast { tier } => phase == Phase::PreTool && class.tier >= *tier,
            Family::FailureStreak { count } => failed && state.failures + 1 >= u32::from(*count),
            Family::RepeatedTarget { count } => {
                phase == Phase::PreTool
                    && !target.is_empty()
                    && seg
                        .targets
                        .iter()
                        .find(|(t, _)| *t == target_key(target))
                        .map_or(0, |(_, n)| *n)
                        + 1
                        >= u32::from(*count)
            }
            Family::ScopeChange { depth } => {
                phase == Phase::PreTool
                    && !seg.scopes.is_empty()
                    && class.paths.iter().any(|p| {
                        let s = scope_of(p, cwd, *depth as usize);
                        !s.is_empty() && seg.scopes.binary_search(&target_key(&s)).is_err()
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
        })
        .collect();
    let checkpoints = spec
        .checkpoints
        .iter()
        .map(|c| {
            let by_tool = !c.tools.is_empty()
                && matches!(phase, Phase::PostTool | Phase::PostToolFailure)
                && event
                    .tool
                    .as_deref()
                    .is_some_and(|t| c.tools.iter().any(|g| glob::text(&g.text, t)))
                && match c.status {
                    StatusFilter::Any => true,
                    StatusFilter::Success => !failed,
                    StatusFilter::Failure => failed,
                }
                && (c.targets.is_empty()
                    || c.targets.iter().any(|g| {
                        glob::text(&g.text, target)
                            || class.paths.iter().any(|p| path_matches(&g.text, p, cwd))
                    }));
            let text = event.prompt.as_deref().unwrap_or(target);
            let by_event = c.events.contains(&phase)
                && (c.targets.is_empty() || c.targets.iter().any(|g| glob::text(&g.text, text)));
            by_tool || by_event
        })
        .collect();
    let backstop =
        state.window_open && phase == Phase::PreTool && over_budget(max_actions, max_secs);
    let rearm_secs_ok = state
        .last_arm_ms
        .is_none_or(|t| now_ms.saturating_sub(t) >= i64::from(spec.rearm.min_secs) * 1000);
    Observation {
        raw,
        enabled: enabled.to_vec(),
        checkpoints,
        backstop,
        rearm_secs_ok,
    }
}

/// Start a new segment (a window was armed, or one closed).
pub fn reset_segment(spec: &Spec, state: &mut ObserverState, now_ms: i64) {
    state.segment = Segment {
        opened_ms: Some(now_ms),
        kind_counts: vec![0; spec.kinds.len()],
        ..Segment::default()
    };
}

/// Fold one event into the context (after the machine stepped).
pub fn update(
    spec: &Spec,
    state: &mut ObserverState,
    event: &Event,
    class: &Classification,
    now_ms: i64,
) {
    let phase = event.phase.unwrap_or(Phase::Other);
    state.events += 1;
    if state.segment.opened_ms.is_none() {
        state.segment.opened_ms = Some(now_ms);
    }
    match phase {
        Phase::PreTool => {
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
            for p in &class.paths {
                let s = scope_of(p, cwd, depth);
                if s.is_empty() {
                    continue;
                }
                // Kept as a digest, like targets: a path operand may be a URL with a password.
                let s = target_key(&s);
                if let Err(at) = seg.scopes.binary_search(&s) {
                    if seg.scopes.len() < MAX_SCOPES {
                        seg.scopes.insert(at, s);
                    }
                }
            }
            if let Some(target) = event.target.as_deref().filter(|t| !t.is_empty()) {
                let key = target_key(target);
                if let Some(pos) = seg.targets.iter().position(|(t, _)| *t == key) {
                    let (t, n) = seg.targets.remove(pos);
                    seg.targets.push((t, n.saturating_add(1)));
                } else {
                    if seg.targets.len() >= MAX_TARGETS {
                        seg.targets.remove(0);
                    }
                    seg.targets.push((key, 1));
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
