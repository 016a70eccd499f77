//! The resolved intermediate representation of a spec: every name is an index, every list is in declaration order.
//!
//! The IR is what every consumer works from: the static checks, the code generator, the
//! diagram renderers, the runtime's observer and the reference interpreter. It is plain data
//! (serde-serialisable, no interior references) so that generated code can embed it (as a
//! function building it from literals, whose texts are borrowed from the binary ([`Text`]),
//! plus JSON for introspection) and the runtime can load it without the TOML parser. Enums use serde's default external tagging, which both formats support. Spans (`Span`) are byte ranges into the spec
//! source and are kept for diagnostics only; they never influence semantics.

pub use crate::effect::{Act, Place};
use serde::{Deserialize, Serialize};

/// A text of the IR: borrowed from the binary in a compiled spec (the generated code builds
/// its IR from string literals, copying no text), owned when parsed from a source.
pub type Text = std::borrow::Cow<'static, str>;

/// A list of small values of the IR (phases, classes, ids, modes, effects): in a compiled spec
/// borrowed from a static array, so building the IR does not allocate it; owned when parsed
/// from a source. It dereferences to a slice; it serialises, compares and prints exactly as a
/// `Vec` would.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct List<T: Clone + 'static>(pub std::borrow::Cow<'static, [T]>);

impl<T: Clone + 'static> List<T> {
    /// A list of values in the binary (what generated code builds).
    pub const fn borrowed(items: &'static [T]) -> List<T> {
        List(std::borrow::Cow::Borrowed(items))
    }
}

impl<T: Clone + 'static> Default for List<T> {
    fn default() -> Self {
        List::borrowed(&[])
    }
}

impl<T: Clone + 'static> std::ops::Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: Clone + 'static> From<Vec<T>> for List<T> {
    fn from(items: Vec<T>) -> Self {
        List(std::borrow::Cow::Owned(items))
    }
}

impl<T: Clone + 'static> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        List::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, T: Clone + 'static> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Clone + PartialEq + 'static> PartialEq<Vec<T>> for List<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == other[..]
    }
}

impl<T: Clone + PartialEq + 'static> PartialEq<[T]> for List<T> {
    fn eq(&self, other: &[T]) -> bool {
        **self == *other
    }
}

impl<T: Clone + PartialEq + 'static, const N: usize> PartialEq<[T; N]> for List<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        **self == other[..]
    }
}

impl<T: Clone + std::fmt::Debug + 'static> std::fmt::Debug for List<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone + Serialize + 'static> Serialize for List<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: Clone + Deserialize<'de> + 'static> Deserialize<'de> for List<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(List::from)
    }
}

/// A byte range into the spec source.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(range: std::ops::Range<usize>) -> Span {
        Span {
            start: range.start.min(u32::MAX as usize) as u32,
            end: range.end.min(u32::MAX as usize) as u32,
        }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Index of a tier in [`Spec::tiers`]; tiers are ordered by risk, lowest first.
pub type TierId = u8;
/// Index of a work kind in [`Spec::kinds`].
pub type KindId = u8;
/// Index of a signal in [`Spec::signals`].
pub type SignalId = u8;
/// Index of a checkpoint in [`Spec::checkpoints`].
pub type CheckpointId = u8;
/// Index of a control state in [`Spec::states`].
pub type StateId = u8;
/// Index of a role in [`Spec::roles`].
pub type RoleId = u8;
pub type ProfileId = u8;
/// Index of a template in [`Spec::templates`].
pub type TemplateId = u8;
/// Index of a classifier rule in [`Spec::rules`].
pub type RuleId = u16;
/// Index of a bounded counter in [`Spec::counters`].
pub type CounterId = u8;
/// Index of a region in [`Spec::regions`].
pub type RegionId = u8;

/// A whole compiled spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub name: Text,
    pub description: Text,
    /// SHA-256 (hex) of the spec source bytes. State written under another hash is reset.
    pub hash: Text,
    pub initial: StateId,
    pub scope: Scope,
    pub fail: FailPolicy,
    pub tiers: Vec<Tier>,
    pub kinds: Vec<Named>,
    pub default_tier: TierId,
    pub default_kind: KindId,
    pub rules: Vec<Rule>,
    pub signals: Vec<Signal>,
    pub rearm: Rearm,
    pub checkpoints: Vec<Checkpoint>,
    pub states: Vec<State>,
    pub transitions: Vec<Transition>,
    pub templates: Vec<Template>,
    pub roles: Vec<Role>,
    /// Bounded counters (`[[counter]]`), in declaration order: part of the machine's memory
    /// beside its state, changed by transitions' `inc`/`reset` effects, read by guards.
    #[serde(default)]
    pub counters: Vec<Counter>,
    /// Regions (`[[region]]`): further state variables that step with the main machine on
    /// every event, each over its own states (those of [`Spec::states`] whose `region` is it).
    #[serde(default)]
    pub regions: Vec<Region>,
    /// The invariants the spec declares about itself (`[[invariant]]`).
    #[serde(default)]
    pub invariants: Vec<crate::invariant::Invariant>,
    /// Project profiles (languages), in declaration order.
    #[serde(default)]
    pub profiles: Vec<Profile>,
    /// The specs whose machines run beside this one on every event (`[machine] alongside`),
    /// by name, in the order given; each keeps its own state, scope and audit rows, and the
    /// answers combine strictest first.
    #[serde(default)]
    pub alongside: Vec<Text>,
}

/// A project profile: files whose presence at the repository root selects it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub name: Text,
    pub span: Span,
    /// File names looked for at the repository root; any one present selects the profile.
    pub detect: Vec<Text>,
}

/// A bounded counter: a number in `0..=max` the machine keeps beside its state. `inc`
/// saturates at `max`, so the control space stays finite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    pub name: Text,
    pub span: Span,
    /// The largest value; an `inc` at it keeps it.
    pub max: u16,
}

/// A region: a state variable of its own beside the main machine's, over the states that
/// name it (`[[state]] region = "…"`), moved by the transitions from those states. Every
/// region steps on every event (see `exec`); guards anywhere read it with `in`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub name: Text,
    pub span: Span,
    /// The region's state when the machine starts (one of its own states).
    pub initial: StateId,
}

/// A guard's condition on a counter: its value lies in `lo..=hi` (both within `0..=max`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CounterGuard {
    pub counter: CounterId,
    pub lo: u16,
    pub hi: u16,
}

/// A name with the span where it was declared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    pub name: Text,
    pub span: Span,
}

/// What a machine's state is keyed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One machine per agent session.
    Session,
    /// One machine per (session, subagent): subagents get their own windows.
    SessionAgent,
    /// One machine per repository (the event's cwd), shared by every session in it.
    Repo,
}

/// What happens to a verdict when gate's own infrastructure fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailPolicy {
    /// Degrade to allow (the default everywhere, R12).
    Open,
    /// Keep a block that the classification itself produced.
    Closed,
}

/// Enforcement mode of a tier. Ordered: observe < steer < reversible < gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Record what would have happened; never change the agent's course.
    Observe,
    /// Turn any block into injected guidance.
    Steer,
    /// Let a block through only once gate has made the action recoverable (a copy of exactly
    /// its targets), steering with how to undo it; where gate cannot, withhold as `gate` does.
    Reversible,
    /// Withhold (ask or deny) as the machine proposes.
    Gate,
}

impl Mode {
    /// The name a spec writes (and serde uses).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Observe => "observe",
            Mode::Steer => "steer",
            Mode::Reversible => "reversible",
            Mode::Gate => "gate",
        }
    }
}

/// A risk tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tier {
    pub name: Text,
    pub span: Span,
    pub mode: Mode,
    /// `Some(FailPolicy::Closed)` only when the tier opts in.
    pub fail: FailPolicy,
    pub backstop: Backstop,
}

/// A window's backstop for a tier: the window is over budget when either limit is reached.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Backstop {
    pub max_actions: Option<u32>,
    pub max_secs: Option<u32>,
    /// Learned from closed windows (`gate calibrate`), clamped to these bounds.
    pub baseline: Option<Baseline>,
    pub span: Span,
}

/// Clamps for a learned baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub min_actions: u32,
    pub max_actions: u32,
    pub min_secs: u32,
    pub max_secs: u32,
}

/// The action classes an event can be normalised to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionClass {
    Read,
    Search,
    Write,
    Delete,
    Exec,
    Vcs,
    Network,
    Spawn,
    Mcp,
    Other,
}

impl ActionClass {
    pub const ALL: [ActionClass; 10] = [
        ActionClass::Read,
        ActionClass::Search,
        ActionClass::Write,
        ActionClass::Delete,
        ActionClass::Exec,
        ActionClass::Vcs,
        ActionClass::Network,
        ActionClass::Spawn,
        ActionClass::Mcp,
        ActionClass::Other,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            ActionClass::Read => "read",
            ActionClass::Search => "search",
            ActionClass::Write => "write",
            ActionClass::Delete => "delete",
            ActionClass::Exec => "exec",
            ActionClass::Vcs => "vcs",
            ActionClass::Network => "network",
            ActionClass::Spawn => "spawn",
            ActionClass::Mcp => "mcp",
            ActionClass::Other => "other",
        }
    }
    pub fn parse(s: &str) -> Option<ActionClass> {
        ActionClass::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// The hook phase of an event, common to every runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    PreTool,
    PostTool,
    PostToolFailure,
    Prompt,
    SessionStart,
    SessionEnd,
    Stop,
    SubagentStart,
    SubagentStop,
    Compact,
    Other,
}

impl Phase {
    pub const ALL: [Phase; 11] = [
        Phase::PreTool,
        Phase::PostTool,
        Phase::PostToolFailure,
        Phase::Prompt,
        Phase::SessionStart,
        Phase::SessionEnd,
        Phase::Stop,
        Phase::SubagentStart,
        Phase::SubagentStop,
        Phase::Compact,
        Phase::Other,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::PreTool => "pre_tool",
            Phase::PostTool => "post_tool",
            Phase::PostToolFailure => "post_tool_failure",
            Phase::Prompt => "prompt",
            Phase::SessionStart => "session_start",
            Phase::SessionEnd => "session_end",
            Phase::Stop => "stop",
            Phase::SubagentStart => "subagent_start",
            Phase::SubagentStop => "subagent_stop",
            Phase::Compact => "compact",
            Phase::Other => "other",
        }
    }
    pub fn parse(s: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == s)
    }
    /// Index of this phase in [`Phase::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
    /// Whether this phase carries a tool call.
    pub fn is_tool(self) -> bool {
        matches!(
            self,
            Phase::PreTool | Phase::PostTool | Phase::PostToolFailure
        )
    }
}

/// Observable telemetry fields a signal can depend on (R12: a signal self-disables when a
/// runtime does not provide what it requires).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Telemetry {
    ToolName,
    Target,
    Status,
    Timestamp,
    SessionId,
    Subagent,
    Cwd,
    PermissionMode,
    Prompt,
    Lifecycle,
}

impl Telemetry {
    pub const ALL: [Telemetry; 10] = [
        Telemetry::ToolName,
        Telemetry::Target,
        Telemetry::Status,
        Telemetry::Timestamp,
        Telemetry::SessionId,
        Telemetry::Subagent,
        Telemetry::Cwd,
        Telemetry::PermissionMode,
        Telemetry::Prompt,
        Telemetry::Lifecycle,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Telemetry::ToolName => "tool_name",
            Telemetry::Target => "target",
            Telemetry::Status => "status",
            Telemetry::Timestamp => "timestamp",
            Telemetry::SessionId => "session_id",
            Telemetry::Subagent => "subagent",
            Telemetry::Cwd => "cwd",
            Telemetry::PermissionMode => "permission_mode",
            Telemetry::Prompt => "prompt",
            Telemetry::Lifecycle => "lifecycle",
        }
    }
    pub fn parse(s: &str) -> Option<Telemetry> {
        Telemetry::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// A classifier rule: every criterion given must match (each list is an OR of its items).
/// The matching rule with the highest tier sets the tier and the reason; the first matching
/// rule (in declaration order) that names a kind sets the work kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub name: Text,
    pub span: Span,
    /// Globs over the raw tool name (`Bash`, `run_shell_command`, `mcp__*`).
    pub tools: Vec<Pattern>,
    /// Action classes.
    pub classes: List<ActionClass>,
    /// Globs over the target when it is a path (absolute, and relative to cwd).
    pub paths: Vec<Pattern>,
    /// Command patterns, matched on each simple command of the tokenised shell command.
    pub commands: Vec<Pattern>,
    /// Exceptions: the rule does not match when one of these command patterns matches
    /// (`cargo publish --dry-run` beside `cargo publish`).
    #[serde(default)]
    pub except_commands: Vec<Pattern>,
    /// Exceptions: the rule does not match when every path the action touches matches one of
    /// these path globs (`.env.example` beside `.env*`).
    #[serde(default)]
    pub except_paths: Vec<Pattern>,
    /// Phases the rule applies to; empty means every tool phase.
    pub phases: List<Phase>,
    /// What the action does: the rule matches when one of the action's effects has one of
    /// these acts (at one of [`locations`](Self::locations), when given).
    #[serde(default)]
    pub effects: List<Act>,
    /// Where: the places an effect must land for the rule to match.
    #[serde(default)]
    pub locations: List<Place>,
    pub tier: Option<TierId>,
    pub kind: Option<KindId>,
    pub reason: Text,
    /// Profiles the rule applies under; empty means under every profile and none.
    #[serde(default)]
    pub profiles: List<ProfileId>,
    /// Roles the rule applies to; empty means every identity, with a role or none.
    #[serde(default)]
    pub roles: List<RoleId>,
}

/// A pattern as written, with its span (for "pattern does not compile" diagnostics).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pattern {
    pub text: Text,
    pub span: Span,
}

impl Pattern {
    /// Patterns from records `[text start, text end, span start, span end]` whose texts are
    /// ranges of `text`: how a compiled spec's generated code builds its pattern lists (the
    /// records are plain numbers in one static array, the texts borrowed from one literal).
    pub fn list(text: &'static str, records: &[[u32; 4]]) -> Vec<Pattern> {
        records
            .iter()
            .map(|&[from, to, start, end]| Pattern {
                text: std::borrow::Cow::Borrowed(
                    text.get(from as usize..to as usize).unwrap_or(""),
                ),
                span: Span { start, end },
            })
            .collect()
    }
}

/// A boundary signal: a family, its parameters and its hysteresis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    pub name: Text,
    pub span: Span,
    pub family: Family,
    /// Consecutive qualifying samples before the signal turns on (>= 1).
    pub enter: u16,
    /// Consecutive non-qualifying samples before it turns off (>= 1).
    pub exit: u16,
    pub requires: List<Telemetry>,
    /// The phases on which this signal is sampled (derived from the family).
    pub samples: List<Phase>,
}

/// Signal families and their parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The action's work kind differs from the window's dominant kind.
    KindShift,
    /// The action's tier is at least `tier`.
    TierAtLeast { tier: TierId },
    /// The last `count` tool results in a row failed.
    FailureStreak { count: u16 },
    /// The same target was acted on `count` times in the window.
    RepeatedTarget { count: u16 },
    /// The action's path prefix (first `depth` components under cwd) is new to the window.
    ScopeChange { depth: u16 },
    /// One of these lifecycle phases happened.
    Lifecycle { events: List<Phase> },
    /// The window exceeds an action or time budget (the tier backstop when none is given).
    Budget {
        max_actions: Option<u32>,
        max_secs: Option<u32>,
    },
    /// Actions in the last `per_secs` seconds exceed `max` (a rate limit).
    Rate { max: u32, per_secs: u32 },
    /// The previous verdict in this scope withheld the action (ask or deny).
    Denied,
    /// The event's time, in the time zone `zone`, falls on one of `days` (0 = Monday … 6 =
    /// Sunday) at or after `after` and before `before` (minutes of the local day, `before`
    /// up to 1440; a spec writes them `from` and `until`). The observer computes it from the clock (`crate::calendar`); a clock or
    /// zone it cannot read samples false and is recorded as a fault.
    Calendar {
        days: List<u8>,
        after: u16,
        before: u16,
        zone: Text,
    },
}

impl Family {
    pub fn name(&self) -> &'static str {
        match self {
            Family::KindShift => "kind_shift",
            Family::TierAtLeast { .. } => "tier_at_least",
            Family::FailureStreak { .. } => "failure_streak",
            Family::RepeatedTarget { .. } => "repeated_target",
            Family::ScopeChange { .. } => "scope_change",
            Family::Lifecycle { .. } => "lifecycle",
            Family::Budget { .. } => "budget",
            Family::Rate { .. } => "rate",
            Family::Denied => "denied",
            Family::Calendar { .. } => "calendar",
        }
    }
}

/// The re-arm floor: no two window arms within `min_actions` pre-tool actions or `min_secs`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rearm {
    pub min_actions: u16,
    pub min_secs: u32,
    /// Where `[rearm]` was declared; `None` when the spec has none.
    pub span: Option<Span>,
}

/// Checkpoint evidence: a tool call (tool glob + target glob, seen after it ran with the
/// given status) or a lifecycle event (optionally with a target glob, e.g. on the prompt).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub name: Text,
    pub span: Span,
    pub tools: Vec<Pattern>,
    pub targets: Vec<Pattern>,
    /// Command patterns the tool's shell command must match (on its parsed simple
    /// commands, as rules match them): `echo cargo test` is not a test run.
    #[serde(default)]
    pub commands: Vec<Pattern>,
    /// Command patterns that make a run not count (`* --no-run`).
    #[serde(default)]
    pub except_commands: Vec<Pattern>,
    pub events: List<Phase>,
    pub status: StatusFilter,
}

/// Which tool results count as checkpoint evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    Any,
    Success,
    Failure,
}

/// A control state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub name: Text,
    pub span: Span,
    /// A window is open while the machine is in this state. A window licenses nothing.
    pub window: bool,
    /// While in this state every pre-tool action is withheld with this verdict.
    pub withhold: Option<Withhold>,
    /// The state's own timer: after this many seconds in the state, the `timeout` trigger
    /// fires on the next event (independent of any tier backstop).
    #[serde(default)]
    pub timeout_secs: Option<u32>,
    /// The timer restarts whenever a transition ends in this state, also one that stays in
    /// it (`restart = true`); otherwise only entering it from another state starts it.
    #[serde(default)]
    pub restart: bool,
    /// The group the spec draws this state in (a phase, a trust level, the window states):
    /// diagrams only, no effect on behaviour.
    #[serde(default)]
    pub group: Option<Text>,
    /// The region this state belongs to; `None` for the main machine's states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<RegionId>,
}

/// How a withholding state withholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Withhold {
    pub block: Block,
    pub template: TemplateId,
    pub span: Span,
}

/// A blocking effect's strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Block {
    Ask,
    Deny,
}

/// What makes a transition fire. Triggers of one event are considered in this enum's order
/// (see [`Trigger::order_key`]); each fires at most one transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The event's hook phase.
    Event(Phase),
    /// The current state's own timer (`timeout_secs`) ran out before this event.
    Timeout,
    /// The user approved this exact action (a grant was consumed).
    Approved,
    /// Checkpoint evidence was observed.
    Checkpoint(CheckpointId),
    /// A signal turned off (falling edge after `exit` samples).
    Clear(SignalId),
    /// A signal turned on (rising edge after `enter` samples).
    Signal(SignalId),
    /// A signal is on on this event (level, not edge): every event of a phase the signal is
    /// sampled on, while enabled, whose debounced level is on, its rising edge's included.
    While(SignalId),
    /// The open window reached its backstop.
    Backstop,
    /// A pre-tool action classified at exactly this tier.
    Tier(TierId),
    /// Any pre-tool action.
    Action,
}

/// A guard: every present condition must hold.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Guard {
    /// The action's tier must be within `lo..=hi` (indices).
    pub tier: Option<(TierId, TierId)>,
    /// The action's work kind must be one of these.
    pub kinds: List<KindId>,
    /// The identity's role must be one of these (`None` in the list means "no role").
    pub roles: List<Option<RoleId>>,
    /// The re-arm floor must (true) or must not (false) be satisfied.
    pub rearm: Option<bool>,
    /// Each counter named must lie in its range (at the moment the transition is tried).
    #[serde(default)]
    pub counters: Vec<CounterGuard>,
    /// `in`: the machine or a region must be in one of these states when the transition is
    /// tried (states of one variable are alternatives; each variable named must hold).
    #[serde(default, skip_serializing_if = "<[StateId]>::is_empty")]
    pub states: List<StateId>,
    pub span: Option<Span>,
}

/// A transition of the control machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub span: Span,
    pub from: StateId,
    pub trigger: Trigger,
    pub guard: Guard,
    pub to: StateId,
    pub effects: List<Effect>,
}

/// An effect a transition proposes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Open (or re-open) a window. Transitions that arm carry an implicit re-arm floor guard.
    Arm,
    /// Close the open window.
    Close,
    /// Inject guidance rendered from a template.
    Steer { template: TemplateId },
    /// Withhold until the user approves this exact action.
    Ask { template: TemplateId },
    /// Withhold.
    Deny { template: TemplateId },
    /// Write an audit row with this label.
    Record { label: Text },
    /// Add one to a counter, saturating at its `max`.
    Inc { counter: CounterId },
    /// Set a counter to zero.
    Reset { counter: CounterId },
}

impl Effect {
    pub fn block(&self) -> Option<Block> {
        match self {
            Effect::Ask { .. } => Some(Block::Ask),
            Effect::Deny { .. } => Some(Block::Deny),
            _ => None,
        }
    }
}

/// A steer / ask / deny text with `{variable}` holes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Template {
    pub name: Text,
    pub span: Span,
    pub parts: Vec<TemplatePart>,
    /// How long a steer rendered from this template stays quiet after it was shown
    /// (`quiet_actions`, `quiet_secs`); `None` is shown every time.
    #[serde(default)]
    pub quiet: Option<Quiet>,
}

/// A template's quiet period: after a steer from it is shown in a scope, it is not shown
/// again while both limits given still hold (fewer than `actions` further pre-tool actions,
/// fewer than `secs` seconds); the first limit reached ends it. At least one is `Some`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quiet {
    /// The pre-tool actions after the shown one that stay quiet.
    pub actions: Option<u32>,
    /// The seconds after it was shown that stay quiet.
    pub secs: Option<u32>,
}

impl Quiet {
    /// The quiet period shown at (`shown_ms`, `shown_action`) still holds at (`now_ms`,
    /// `action`), `action` counting the scope's pre-tool actions as `shown_action` does.
    pub fn holds(&self, shown_ms: i64, shown_action: u64, now_ms: i64, action: u64) -> bool {
        let by_actions = self
            .actions
            .is_none_or(|n| action.saturating_sub(shown_action) <= u64::from(n));
        let by_secs = self
            .secs
            .is_none_or(|s| now_ms.saturating_sub(shown_ms) < i64::from(s) * 1000);
        by_actions && by_secs
    }
}

/// A piece of a template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplatePart {
    Text(Text),
    Var(TemplateVar),
}

/// Variables a template may use. They are filled from the machine and observer state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateVar {
    /// The signal(s) whose edge fired the transition.
    Signal,
    /// The checkpoint whose evidence fired the transition.
    Checkpoint,
    /// The action's tier name.
    Tier,
    /// The action's work kind.
    Kind,
    /// The window's dominant kind.
    WindowKind,
    /// Actions in the open window.
    WindowActions,
    /// Seconds since the window opened.
    WindowSecs,
    /// The reason of the classifier rule that set the tier.
    Reason,
    /// The name of the classifier rule that set the tier.
    Rule,
    /// The raw tool name.
    Tool,
    /// The collapsed target (redacted).
    Target,
    /// The control state after the transition.
    State,
    /// The control state before the transition.
    From,
    /// The identity's role, or "none".
    Role,
    /// The grant id of an ask.
    GrantId,
    /// The command a user runs to approve (`gate approve <id>`).
    Approve,
}

impl TemplateVar {
    pub const ALL: [TemplateVar; 16] = [
        TemplateVar::Signal,
        TemplateVar::Checkpoint,
        TemplateVar::Tier,
        TemplateVar::Kind,
        TemplateVar::WindowKind,
        TemplateVar::WindowActions,
        TemplateVar::WindowSecs,
        TemplateVar::Reason,
        TemplateVar::Rule,
        TemplateVar::Tool,
        TemplateVar::Target,
        TemplateVar::State,
        TemplateVar::From,
        TemplateVar::Role,
        TemplateVar::GrantId,
        TemplateVar::Approve,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            TemplateVar::Signal => "signal",
            TemplateVar::Checkpoint => "checkpoint",
            TemplateVar::Tier => "tier",
            TemplateVar::Kind => "kind",
            TemplateVar::WindowKind => "window_kind",
            TemplateVar::WindowActions => "window_actions",
            TemplateVar::WindowSecs => "window_secs",
            TemplateVar::Reason => "reason",
            TemplateVar::Rule => "rule",
            TemplateVar::Tool => "tool",
            TemplateVar::Target => "target",
            TemplateVar::State => "state",
            TemplateVar::From => "from",
            TemplateVar::Role => "role",
            TemplateVar::GrantId => "grant_id",
            TemplateVar::Approve => "approve",
        }
    }
    pub fn parse(s: &str) -> Option<TemplateVar> {
        TemplateVar::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// An identity's role and its per-tier mode overrides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Role {
    pub name: Text,
    pub span: Span,
    /// Subagent types (globs) that carry this role.
    pub subagent_types: Vec<Pattern>,
    /// `NAME=VALUE` environment matches that carry this role.
    pub env: Vec<(Text, Text)>,
    /// Mode override per tier (`None` = the tier's own mode).
    pub modes: List<Option<Mode>>,
}

impl Spec {
    pub fn tier_name(&self, id: TierId) -> &str {
        &self.tiers[id as usize].name
    }
    pub fn state_name(&self, id: StateId) -> &str {
        &self.states[id as usize].name
    }
    /// The state variable a state belongs to: 0 for the main machine, `1 + r` for region `r`
    /// (`Snapshot::state` is variable 0, `Snapshot::regions[r]` variable `1 + r`).
    pub fn var_of(&self, id: StateId) -> usize {
        self.states[id as usize]
            .region
            .map_or(0, |r| usize::from(r) + 1)
    }
    /// The states of one state variable (0 = the main machine, `1 + r` = region `r`), as ids.
    pub fn states_of(&self, var: usize) -> impl Iterator<Item = StateId> + '_ {
        (0..self.states.len())
            .filter(move |&i| self.var_of(i as StateId) == var)
            .map(|i| i as StateId)
    }
    /// The initial state of each state variable: the main machine's, then each region's.
    pub fn initials(&self) -> Vec<StateId> {
        std::iter::once(self.initial)
            .chain(self.regions.iter().map(|r| r.initial))
            .collect()
    }
    /// A state's name as tools show it: `REGION.STATE` for a region's state, else its name.
    pub fn state_label(&self, id: StateId) -> String {
        match self.states[id as usize].region {
            Some(r) => format!("{}.{}", self.regions[r as usize].name, self.state_name(id)),
            None => self.state_name(id).to_string(),
        }
    }
    /// A counter guard in the spec's syntax (`edits >= 40`, `edits == 0`, `edits >= 3, edits <= 9`).
    pub fn counter_guard_text(&self, g: &CounterGuard) -> String {
        let c = &self.counters[g.counter as usize];
        match (g.lo, g.hi) {
            (lo, hi) if lo == hi => format!("{} == {lo}", c.name),
            (0, hi) => format!("{} <= {hi}", c.name),
            (lo, hi) if hi == c.max => format!("{} >= {lo}", c.name),
            (lo, hi) => format!("{0} >= {lo}, {0} <= {hi}", c.name),
        }
    }
    /// Human-readable trigger, in the spec's own syntax (`signal:kind_shift`).
    pub fn trigger_text(&self, trigger: Trigger) -> String {
        match trigger {
            Trigger::Event(phase) => format!("event:{}", phase.as_str()),
            Trigger::Timeout => "timeout".to_string(),
            Trigger::Approved => "approved".to_string(),
            Trigger::Checkpoint(c) => format!("checkpoint:{}", self.checkpoints[c as usize].name),
            Trigger::Clear(s) => format!("clear:{}", self.signals[s as usize].name),
            Trigger::Signal(s) => format!("signal:{}", self.signals[s as usize].name),
            Trigger::While(s) => format!("while:{}", self.signals[s as usize].name),
            Trigger::Backstop => "backstop".to_string(),
            Trigger::Tier(t) => format!("tier:{}", self.tiers[t as usize].name),
            Trigger::Action => "action".to_string(),
        }
    }
    /// Every trigger this spec can produce, in evaluation order.
    pub fn all_triggers(&self) -> Vec<Trigger> {
        let mut out: Vec<Trigger> = Phase::ALL.iter().map(|p| Trigger::Event(*p)).collect();
        out.push(Trigger::Timeout);
        out.push(Trigger::Approved);
        out.extend((0..self.checkpoints.len()).map(|c| Trigger::Checkpoint(c as CheckpointId)));
        out.extend((0..self.signals.len()).map(|s| Trigger::Clear(s as SignalId)));
        out.extend((0..self.signals.len()).map(|s| Trigger::Signal(s as SignalId)));
        out.extend((0..self.signals.len()).map(|s| Trigger::While(s as SignalId)));
        out.push(Trigger::Backstop);
        out.extend((0..self.tiers.len()).map(|t| Trigger::Tier(t as TierId)));
        out.push(Trigger::Action);
        out
    }
    /// Whether any tier, under no role or any role, is in `mode`.
    pub fn uses_mode(&self, mode: Mode) -> bool {
        self.tiers.iter().any(|t| t.mode == mode)
            || self.roles.iter().any(|r| r.modes.contains(&Some(mode)))
    }

    /// Effective mode of a tier for a role.
    pub fn mode_for(&self, tier: TierId, role: Option<RoleId>) -> Mode {
        let base = self.tiers[tier as usize].mode;
        match role {
            Some(r) => self.roles[r as usize].modes[tier as usize].unwrap_or(base),
            None => base,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modes_name_is_its_serialised_name() {
        for mode in [Mode::Observe, Mode::Steer, Mode::Reversible, Mode::Gate] {
            assert_eq!(
                serde_json::to_string(&mode).expect("serialises"),
                format!("\"{}\"", mode.as_str())
            );
        }
    }

    #[test]
    fn a_borrowed_list_is_an_owned_one_with_the_same_items() {
        static PHASES: [Phase; 2] = [Phase::PreTool, Phase::Stop];
        let borrowed: List<Phase> = List::borrowed(&PHASES);
        let owned: List<Phase> = vec![Phase::PreTool, Phase::Stop].into();
        assert!(matches!(borrowed.0, std::borrow::Cow::Borrowed(_)));
        assert!(matches!(owned.0, std::borrow::Cow::Owned(_)));
        assert_eq!(borrowed, owned);
        assert_ne!(borrowed, List::borrowed(&PHASES[..1]));
        assert_eq!(borrowed, vec![Phase::PreTool, Phase::Stop]);
        assert_eq!(borrowed, [Phase::PreTool, Phase::Stop]);
        assert_eq!(format!("{borrowed:?}"), format!("{:?}", PHASES.to_vec()));
        let json = serde_json::to_string(&borrowed).expect("serialises");
        assert_eq!(
            json,
            serde_json::to_string(&PHASES.to_vec()).expect("serialises")
        );
        let back: List<Phase> = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, borrowed);
        assert_eq!((&borrowed).into_iter().count(), 2);
        assert!(List::<Phase>::default().is_empty());
        let collected: List<Phase> = PHASES.iter().copied().collect();
        assert_eq!(collected, borrowed);
    }

    #[test]
    fn pattern_lists_borrow_their_texts_from_one_literal() {
        let list = Pattern::list(
            "rm -rfgit push",
            &[[0, 6, 10, 18], [6, 14, 20, 30], [0, 2, 1, 2]],
        );
        let texts: Vec<&str> = list.iter().map(|p| &*p.text).collect();
        assert_eq!(texts, ["rm -rf", "git push", "rm"]);
        assert!(list
            .iter()
            .all(|p| matches!(p.text, std::borrow::Cow::Borrowed(_))));
        assert_eq!(list[1].span, Span { start: 20, end: 30 });
        assert_eq!(
            Pattern::list("é", &[[0, 1, 0, 0]])[0].text,
            "",
            "not a char boundary"
        );
    }
}
