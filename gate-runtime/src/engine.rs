//! The engine: one event in, one decision out — observe, step the machine, combine the proposed
//! effects with the tier's mode and the identity's role, render templates, and list what the
//! audit must record.
//!
//! The engine is pure: no I/O, no clock, no store. The caller (the hook driver, replay,
//! explain, tests) supplies the time, the role, whether a grant was consumed, the learned
//! baselines, and a way to mint a grant id, and persists the returned [`ScopeState`].
//!
//! Verdict combination (DESIGN.md, "Verdict and modes"):
//! - the fired transitions propose effects; a withholding state proposes its block for every
//!   pre-tool action while the machine is in it;
//! - an `ask` is satisfied by a consumed grant for this exact action (`approved`);
//! - blocks only exist on pre-tool events; on other phases they degrade to guidance;
//! - the mode of the action's tier (overridden by the role) caps the result: observe records
//!   what would have happened and answers nothing, steer turns a block into guidance, gate
//!   withholds as proposed;
//! - a window never blocks by itself (the spec checker rejects window states that do);
//! - steer text on a phase whose answer cannot carry context (Gemini BeforeTool) is kept and
//!   attached to the next answer that can.

use crate::event::{Event, Runtime};
use crate::observer::{self, Baselines, Classification, Classifier, ObserverState};
use crate::verdict::{Decision, Verdict};
use gate_spec::exec::{Input, Machine, Snapshot};
use gate_spec::ir::{
    Block, Effect, Family, Mode, Phase, RoleId, SignalId, Spec, TemplateId, TemplatePart,
    TemplateVar, Trigger,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cell::{OnceCell, RefCell};

/// Everything persisted per scope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeState {
    pub machine: Snapshot,
    pub observer: ObserverState,
    /// Guidance waiting for an answer that can carry it.
    pub carried: Option<String>,
}

impl ScopeState {
    pub fn initial(spec: &Spec, machine: &dyn Machine) -> ScopeState {
        let mut observer = ObserverState::default();
        observer.segment.kind_counts = vec![0; spec.kinds.len()];
        ScopeState {
            machine: machine.initial(),
            observer,
            carried: None,
        }
    }

    /// Whether a loaded state fits this spec's shape (else it is reset).
    pub fn fits(&self, spec: &Spec) -> bool {
        (self.machine.state as usize) < spec.states.len()
            && self.machine.level.len() == spec.signals.len()
            && self.machine.count.len() == spec.signals.len()
    }
}

/// What the caller supplies for one evaluation.
pub struct Context<'a> {
    pub now_ms: i64,
    pub role: Option<RoleId>,
    /// A grant for this exact action was consumed.
    pub approved: bool,
    pub baselines: &'a Baselines,
    /// Mint a grant id for an ask (the store records the pending grant under it).
    pub grant_id: &'a mut dyn FnMut() -> String,
}

/// Why a window closed (for calibration: only real boundaries give uncontaminated lengths).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedBy {
    Boundary,
    Backstop,
    SessionEnd,
}

/// A window that closed on this event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedWindow {
    pub kind: String,
    pub actions: u32,
    pub secs: u64,
    pub closed_by: ClosedBy,
}

/// One audit note (the driver adds the common columns).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// `event`, `signal`, `transition`, `boundary`, `arm`, `close`, `skip`, `steer`, `ask`,
    /// `deny`, `grant`, `disabled`, `observe` …
    pub kind: &'static str,
    pub detail: Detail,
}

impl Note {
    /// The note's detail as the audit stores it (names read from `spec`, the spec the note
    /// was made under).
    pub fn detail_json(&self, spec: &Spec) -> Value {
        self.detail.json(spec)
    }
}

/// What a note says, kept as ids into the spec and owned text until the audit needs its
/// JSON ([`Detail::json`]): most evaluations store nothing (replay, explain), and the JSON
/// object of a note cost more than the rest of its evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Detail {
    /// `{"signal": name, "edge": "on" | "off"}`.
    Edge { signal: SignalId, on: bool },
    /// `{"checkpoint": name}`.
    Checkpoint(gate_spec::ir::CheckpointId),
    /// `{"signal": name}`: a transition fired on the signal.
    Boundary(SignalId),
    /// `{"window_actions": n}`.
    Expiry { window_actions: u32 },
    /// `{"index", "from", "trigger", "to"}` of the transition.
    Transition(u16),
    /// `{"label": label}` of the transition's `effect`-th effect (a `record`).
    Record { transition: u16, effect: u16 },
    /// `{"state": name}`.
    Arm(gate_spec::ir::StateId),
    /// `{"consumed": true}`.
    Consumed,
    /// `{"text": text}`.
    Text(String),
    /// `{"reason": reason}`.
    Reason(String),
    /// `{"reason": reason, "grant": grant}`.
    Ask { reason: String, grant: String },
    /// Any other detail, as built.
    Json(Value),
}

impl Detail {
    /// The JSON the audit stores: exactly what `json!` built when notes carried it
    /// (`tests::detail_json_is_what_json_built`).
    pub fn json(&self, spec: &Spec) -> Value {
        match self {
            Detail::Edge { signal, on } => object([
                (
                    "signal",
                    Value::from(spec.signals[*signal as usize].name.as_ref()),
                ),
                ("edge", Value::from(if *on { "on" } else { "off" })),
            ]),
            Detail::Checkpoint(c) => object([(
                "checkpoint",
                Value::from(spec.checkpoints[*c as usize].name.as_ref()),
            )]),
            Detail::Boundary(s) => object([(
                "signal",
                Value::from(spec.signals[*s as usize].name.as_ref()),
            )]),
            Detail::Expiry { window_actions } => {
                object([("window_actions", Value::from(*window_actions))])
            }
            Detail::Transition(t) => {
                let tr = &spec.transitions[*t as usize];
                object([
                    ("index", Value::from(*t)),
                    ("from", Value::from(spec.state_name(tr.from))),
                    ("trigger", Value::from(spec.trigger_text(tr.trigger))),
                    ("to", Value::from(spec.state_name(tr.to))),
                ])
            }
            Detail::Record { transition, effect } => {
                match &spec.transitions[*transition as usize].effects[*effect as usize] {
                    Effect::Record { label } => object([("label", Value::from(label.as_ref()))]),
                    _ => Value::Null,
                }
            }
            Detail::Arm(s) => object([("state", Value::from(spec.state_name(*s)))]),
            Detail::Consumed => object([("consumed", Value::from(true))]),
            Detail::Text(text) => object([("text", Value::from(text.as_str()))]),
            Detail::Reason(reason) => object([("reason", Value::from(reason.as_str()))]),
            Detail::Ask { reason, grant } => object([
                ("reason", Value::from(reason.as_str())),
                ("grant", Value::from(grant.as_str())),
            ]),
            Detail::Json(v) => v.clone(),
        }
    }

    /// Appends the stored text of [`Detail::json`]: what
    /// [`redact_json_to_string`](crate::redact::redact_json_to_string) writes for it, without
    /// building the value (`tests::detail_text_is_the_redacted_json`).
    pub fn write_json(&self, spec: &Spec, out: &mut String) {
        use crate::redact::{push_object, push_redacted_json, Field};
        match self {
            Detail::Edge { signal, on } => push_object(
                out,
                &mut [
                    ("signal", Field::Name(&spec.signals[*signal as usize].name)),
                    ("edge", Field::Name(if *on { "on" } else { "off" })),
                ],
            ),
            Detail::Checkpoint(c) => push_object(
                out,
                &mut [(
                    "checkpoint",
                    Field::Name(&spec.checkpoints[*c as usize].name),
                )],
            ),
            Detail::Boundary(s) => push_object(
                out,
                &mut [("signal", Field::Name(&spec.signals[*s as usize].name))],
            ),
            Detail::Expiry { window_actions } => push_object(
                out,
                &mut [("window_actions", Field::Uint(u64::from(*window_actions)))],
            ),
            Detail::Transition(t) => {
                let tr = &spec.transitions[*t as usize];
                let trigger = spec.trigger_text(tr.trigger);
                push_object(
                    out,
                    &mut [
                        ("index", Field::Uint(u64::from(*t))),
                        ("from", Field::Name(spec.state_name(tr.from))),
                        ("trigger", Field::Name(&trigger)),
                        ("to", Field::Name(spec.state_name(tr.to))),
                    ],
                )
            }
            Detail::Record { transition, effect } => {
                match &spec.transitions[*transition as usize].effects[*effect as usize] {
                    Effect::Record { label } => {
                        push_object(out, &mut [("label", Field::Name(label))])
                    }
                    _ => out.push_str("null"),
                }
            }
            Detail::Arm(s) => push_object(out, &mut [("state", Field::Name(spec.state_name(*s)))]),
            Detail::Consumed => push_object(out, &mut [("consumed", Field::Bool(true))]),
            Detail::Text(text) => push_object(out, &mut [("text", Field::Text(text))]),
            Detail::Reason(reason) => push_object(out, &mut [("reason", Field::Text(reason))]),
            Detail::Ask { reason, grant } => push_object(
                out,
                &mut [
                    ("reason", Field::Text(reason)),
                    ("grant", Field::Text(grant)),
                ],
            ),
            Detail::Json(v) => push_redacted_json(out, v),
        }
    }
}

/// The result of one evaluation.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub decision: Decision,
    /// The verdict before the mode cap (what gate mode would have done).
    pub proposed: Verdict,
    pub mode: Mode,
    pub classification: Classification,
    pub fired: Vec<u16>,
    pub rising: Vec<SignalId>,
    pub falling: Vec<SignalId>,
    pub armed: bool,
    pub closed: Option<ClosedWindow>,
    pub notes: Vec<Note>,
    /// The grant id minted for an ask, if any.
    pub grant_id: Option<String>,
    /// The time the event was evaluated at (the caller's clock, never behind the scope's).
    pub now_ms: i64,
}

impl Outcome {
    /// An outcome with nothing in it, for [`Engine::evaluate_into`] to fill.
    pub fn empty() -> Outcome {
        Outcome {
            decision: Decision::allow(),
            proposed: Verdict::Allow,
            mode: Mode::Observe,
            classification: Classification::default(),
            fired: Vec::new(),
            rising: Vec::new(),
            falling: Vec::new(),
            armed: false,
            closed: None,
            notes: Vec::new(),
            grant_id: None,
            now_ms: 0,
        }
    }
}

/// One spec, ready to evaluate events.
pub struct Engine<'s> {
    pub spec: &'s Spec,
    pub machine: &'s dyn Machine,
    classifier: Classifier<'s>,
    /// [`observer::enabled_signals`] per runtime (no runtime first, then
    /// [`Runtime::ALL`](crate::event::Runtime::ALL) in order), computed when first needed.
    enabled: [OnceCell<Vec<bool>>; 5],
    /// Buffers one evaluation fills and the next reuses (see [`Scratch`]).
    scratch: RefCell<Scratch>,
}

/// Per-evaluation buffers an engine keeps between events, so that an evaluation allocates
/// only what its [`Outcome`] keeps. Their contents never carry from one event to the next:
/// each is cleared before it is filled.
#[derive(Default)]
struct Scratch {
    /// The event's digests (cleared per event: they are of that event's target and paths).
    keys: observer::EventKeys,
    raw: Vec<bool>,
    checkpoints: Vec<bool>,
    /// The machine's debounced levels before the step (for the edges).
    level: Vec<bool>,
    /// An evaluation used these buffers before (the next keeps recent digests: see
    /// [`observer::EventKeys::remember`]; a hook evaluates once and keeps none).
    used: bool,
    /// Texts of the outcome an evaluation writes over, for its own texts.
    texts: Texts,
    /// The rendered steer templates of one evaluation (emptied after use).
    steer_text: Vec<String>,
}

/// Strings of an outcome being written over ([`Engine::evaluate_into`]), kept so that the new
/// outcome's verdict texts, note texts and grant ids are written into their room rather than
/// allocated. Only what the new outcome holds is read from them: each is cleared when taken.
#[derive(Default)]
struct Texts(Vec<String>);

impl Texts {
    /// Most strings kept, and the most room a kept string may have (bounds the memory held).
    const MAX: usize = 32;
    const MAX_ROOM: usize = 64 * 1024;

    fn keep(&mut self, s: String) {
        if self.0.len() < Self::MAX && s.capacity() > 0 && s.capacity() <= Self::MAX_ROOM {
            self.0.push(s);
        }
    }

    /// The strings of `v`.
    fn keep_verdict(&mut self, v: Verdict) {
        match v {
            Verdict::Allow => {}
            Verdict::Steer { text } => self.keep(text),
            Verdict::Ask { reason, grant_id } => {
                self.keep(reason);
                self.keep(grant_id);
            }
            Verdict::Deny { reason } => self.keep(reason),
        }
    }

    /// The strings of `out`, which is left without texts (allow, no notes, no grant).
    fn keep_outcome(&mut self, out: &mut Outcome) {
        self.keep_verdict(std::mem::replace(&mut out.decision.verdict, Verdict::Allow));
        self.keep_verdict(std::mem::replace(&mut out.proposed, Verdict::Allow));
        if let Some(s) = out.decision.carried.take() {
            self.keep(s);
        }
        if let Some(s) = out.grant_id.take() {
            self.keep(s);
        }
        for note in out.notes.drain(..) {
            match note.detail {
                Detail::Text(s) | Detail::Reason(s) => self.keep(s),
                Detail::Ask { reason, grant } => {
                    self.keep(reason);
                    self.keep(grant);
                }
                _ => {}
            }
        }
    }

    /// An empty string (with room, when one was kept).
    fn take(&mut self) -> String {
        match self.0.pop() {
            Some(mut s) => {
                s.clear();
                s
            }
            None => String::new(),
        }
    }

    /// `text.to_string()`, in a kept string's room.
    fn copy(&mut self, text: &str) -> String {
        match self.0.pop() {
            Some(mut s) => {
                s.clear();
                s.push_str(text);
                s
            }
            None => text.to_string(),
        }
    }

    /// `v.clone()`, in kept strings' room.
    fn copy_verdict(&mut self, v: &Verdict) -> Verdict {
        match v {
            Verdict::Allow => Verdict::Allow,
            Verdict::Steer { text } => Verdict::Steer {
                text: self.copy(text),
            },
            Verdict::Ask { reason, grant_id } => Verdict::Ask {
                reason: self.copy(reason),
                grant_id: self.copy(grant_id),
            },
            Verdict::Deny { reason } => Verdict::Deny {
                reason: self.copy(reason),
            },
        }
    }
}

impl std::fmt::Debug for Engine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("spec", &self.spec.name)
            .finish_non_exhaustive()
    }
}

impl<'s> Engine<'s> {
    pub fn new(spec: &'s Spec, machine: &'s dyn Machine) -> Engine<'s> {
        Engine {
            spec,
            machine,
            classifier: Classifier::with_table(spec, machine.commands()),
            enabled: Default::default(),
            scratch: RefCell::new(Scratch::default()),
        }
    }

    /// Which signals can run on `runtime` ([`observer::enabled_signals`], kept per runtime).
    fn enabled(&self, runtime: Option<Runtime>) -> &[bool] {
        let slot = runtime.map_or(0, |r| {
            Runtime::ALL
                .iter()
                .position(|&x| x == r)
                .map_or(0, |i| i + 1)
        });
        match self.enabled.get(slot) {
            Some(cell) => cell.get_or_init(|| observer::enabled_signals(self.spec, runtime)),
            None => &[],
        }
    }

    pub fn classify(&self, event: &Event) -> Classification {
        self.classifier.classify(event)
    }

    /// The role an identity carries: by subagent type, then by `NAME=VALUE` environment
    /// matches, then by an explicit role name (flag, `GATE_ROLE`, config).
    pub fn resolve_role(
        &self,
        event: &Event,
        env: &dyn Fn(&str) -> Option<String>,
        explicit: Option<&str>,
    ) -> Option<RoleId> {
        let roles = &self.spec.roles;
        if let Some(t) = event.agent_type.as_deref() {
            if let Some(i) = roles.iter().position(|r| {
                r.subagent_types
                    .iter()
                    .any(|g| crate::glob::text(&g.text, t))
            }) {
                return Some(i as RoleId);
            }
        }
        if let Some(i) = roles.iter().position(|r| {
            r.env
                .iter()
                .any(|(k, v)| env(k).as_deref() == Some(v.as_ref()))
        }) {
            return Some(i as RoleId);
        }
        explicit.and_then(|name| {
            roles
                .iter()
                .position(|r| r.name == name)
                .map(|i| i as RoleId)
        })
    }

    /// Evaluate one event against a scope's state, updating it in place.
    pub fn evaluate(&self, state: &mut ScopeState, event: &Event, cx: &mut Context<'_>) -> Outcome {
        let mut out = Outcome::empty();
        self.evaluate_into(state, event, cx, &mut out);
        out
    }

    /// [`evaluate`](Self::evaluate) written into `out`, whose contents are replaced (nothing
    /// of the previous outcome is read): its vectors and its classification keep their room,
    /// so that a caller that reuses one outcome per event (the replay) allocates little for
    /// it. The outcome equals the one [`evaluate`](Self::evaluate) returns
    /// (`tests::evaluate_into_a_used_outcome_is_evaluate`).
    pub fn evaluate_into(
        &self,
        state: &mut ScopeState,
        event: &Event,
        cx: &mut Context<'_>,
        out: &mut Outcome,
    ) {
        // The engine's buffers, unless an evaluation is already using them (only a
        // `grant_id` callback that evaluates again could do that): then fresh ones.
        match self.scratch.try_borrow_mut() {
            Ok(mut scratch) => self.evaluate_in(state, event, cx, &mut scratch, out),
            Err(_) => self.evaluate_in(state, event, cx, &mut Scratch::default(), out),
        }
    }

    fn evaluate_in(
        &self,
        state: &mut ScopeState,
        event: &Event,
        cx: &mut Context<'_>,
        scratch: &mut Scratch,
        out: &mut Outcome,
    ) {
        let texts = &mut scratch.texts;
        texts.keep_outcome(out);
        let Outcome {
            decision,
            proposed: out_proposed,
            mode: out_mode,
            classification: class,
            fired,
            rising,
            falling,
            armed: out_armed,
            closed: out_closed,
            notes,
            grant_id: out_grant_id,
            now_ms: out_now,
        } = out;
        fired.clear();
        rising.clear();
        falling.clear();
        notes.clear();
        let spec = self.spec;
        let phase = event.phase.unwrap_or(Phase::Other);
        // Time is monotonic per scope: a clock that steps back counts as no time passing.
        let now = state
            .observer
            .last_ms
            .map_or(cx.now_ms, |last| cx.now_ms.max(last));
        state.observer.last_ms = Some(now);

        if !state.fits(spec) {
            *state = ScopeState::initial(spec, self.machine);
            notes.push(Note {
                kind: "reset",
                detail: Detail::Json(json!({"why": "stored state does not fit this spec"})),
            });
        }
        let enabled = self.enabled(event.runtime);
        if !state.observer.disabled_reported {
            state.observer.disabled_reported = true;
            for (name, missing) in observer::missing_telemetry(spec, event.runtime) {
                notes.push(Note {
                    kind: "disabled",
                    detail: Detail::Json(json!({"signal": name, "missing": missing})),
                });
            }
        }

        self.classifier.classify_into(event, class);
        let class = &*class;
        // Templates describe the window the event happened in, before any re-arm resets it.
        let window_before = WindowBefore::of(&state.observer.segment);
        let keys = &mut scratch.keys;
        keys.clear();
        if scratch.used {
            keys.remember();
        }
        scratch.used = true;
        let (backstop, rearm_secs_ok) = observer::observe_in(
            spec,
            &state.observer,
            event,
            class,
            cx.baselines,
            now,
            keys,
            Some(&self.classifier),
            &mut scratch.raw,
            &mut scratch.checkpoints,
            window_before.dominant,
        );
        let tool_event = phase.is_tool();
        let input = Input {
            phase,
            tier: tool_event.then_some(class.tier),
            kind: tool_event.then_some(class.kind),
            role: cx.role,
            raw: &scratch.raw,
            enabled,
            checkpoints: &scratch.checkpoints,
            backstop,
            rearm_secs_ok,
            approved: cx.approved,
        };
        // Only the levels and the state of the machine before the step are read afterwards.
        scratch.level.clear();
        scratch.level.extend_from_slice(&state.machine.level);
        let from_state = state.machine.state;
        self.machine
            .step(&mut state.machine, &input, &mut |t| fired.push(t));
        edges_into(&scratch.level, &state.machine.level, rising, falling);

        for &s in rising.iter() {
            notes.push(Note {
                kind: "signal",
                detail: Detail::Edge {
                    signal: s,
                    on: true,
                },
            });
        }
        for &s in falling.iter() {
            notes.push(Note {
                kind: "signal",
                detail: Detail::Edge {
                    signal: s,
                    on: false,
                },
            });
        }
        for (i, hit) in scratch.checkpoints.iter().enumerate() {
            if *hit {
                notes.push(Note {
                    kind: "checkpoint",
                    detail: Detail::Checkpoint(i as gate_spec::ir::CheckpointId),
                });
            }
        }

        // Effects of the fired transitions, in order.
        let mut armed = false;
        let mut closed_effect = false;
        let mut block: Option<(Block, TemplateId)> = None;
        let mut steers: Vec<TemplateId> = Vec::new();
        let mut fired_signals: Vec<&str> = Vec::new();
        let mut fired_checkpoint: Option<&str> = None;
        let mut by_backstop = false;
        for &t in fired.iter() {
            let tr = &spec.transitions[t as usize];
            match tr.trigger {
                Trigger::Signal(s) | Trigger::Clear(s) => {
                    // A budget signal is the backstop in signal form, not a real boundary:
                    // the window it closes is not learned from (R8).
                    if matches!(spec.signals[s as usize].family, Family::Budget { .. }) {
                        by_backstop = true;
                    }
                    fired_signals.push(&spec.signals[s as usize].name);
                    notes.push(Note {
                        kind: "boundary",
                        detail: Detail::Boundary(s),
                    });
                }
                Trigger::Checkpoint(c) => {
                    fired_checkpoint = Some(&spec.checkpoints[c as usize].name)
                }
                Trigger::Backstop => {
                    by_backstop = true;
                    notes.push(Note {
                        kind: "expiry",
                        detail: Detail::Expiry {
                            window_actions: state.observer.segment.actions,
                        },
                    });
                }
                _ => {}
            }
            notes.push(Note {
                kind: "transition",
                detail: Detail::Transition(t),
            });
            for (effect, e) in tr.effects.iter().enumerate() {
                match e {
                    Effect::Arm => armed = true,
                    Effect::Close => closed_effect = true,
                    Effect::Steer { template } => steers.push(*template),
                    Effect::Ask { template } => merge_block(&mut block, Block::Ask, *template),
                    Effect::Deny { template } => merge_block(&mut block, Block::Deny, *template),
                    Effect::Record { .. } => notes.push(Note {
                        kind: "record",
                        detail: Detail::Record {
                            transition: t,
                            effect: effect as u16,
                        },
                    }),
                }
            }
        }
        let to_state = state.machine.state;
        if phase == Phase::PreTool {
            if let Some(w) = &spec.states[to_state as usize].withhold {
                merge_block(&mut block, w.block, w.template);
            }
        }

        // Window bookkeeping: arms, closes, and the segment the next event is measured in.
        let was_open = state.observer.window_open;
        let now_open = spec.states[to_state as usize].window;
        let entered = now_open && !spec.states[from_state as usize].window;
        let arm = armed || entered;
        let close = was_open && (closed_effect || !now_open || arm);
        let mut closed = None;
        if close {
            let seg = &state.observer.segment;
            let closed_by = if phase == Phase::SessionEnd {
                ClosedBy::SessionEnd
            } else if by_backstop {
                ClosedBy::Backstop
            } else {
                ClosedBy::Boundary
            };
            let w = ClosedWindow {
                kind: seg.dominant_kind().map_or_else(
                    || spec.kinds[spec.default_kind as usize].name.to_string(),
                    |k| spec.kinds[k as usize].name.to_string(),
                ),
                actions: seg.actions,
                secs: seg
                    .opened_ms
                    .map_or(0, |t| (now.saturating_sub(t)).max(0) as u64 / 1000),
                closed_by,
            };
            notes.push(Note {
                kind: "close",
                detail: Detail::Json(serde_json::to_value(&w).unwrap_or_default()),
            });
            closed = Some(w);
        }
        if arm {
            notes.push(Note {
                kind: "arm",
                detail: Detail::Arm(to_state),
            });
            state.observer.last_arm_ms = Some(now);
        }
        state.observer.window_open = now_open || (arm && !close_only(closed_effect, armed));
        if arm || close {
            // The action that crossed the boundary belongs to the new segment.
            observer::reset_segment(spec, &mut state.observer, now);
        }
        observer::update_with(spec, &mut state.observer, event, class, now, keys);

        // Render and combine.
        let role_name = cx
            .role
            .map_or("none", |r| spec.roles[r as usize].name.as_ref());
        let mode_tier = if tool_event {
            class.tier
        } else {
            spec.default_tier
        };
        let mode = spec.mode_for(mode_tier, cx.role);
        let mut grant_id = None;
        let vars = Vars {
            spec,
            event,
            class,
            segment: &window_before,
            from: from_state,
            to: to_state,
            signals: &fired_signals,
            checkpoint: fired_checkpoint,
            role: role_name,
            now,
        };
        let mut steer_text = std::mem::take(&mut scratch.steer_text);
        for t in &steers {
            let mut text = texts.take();
            vars.render_into(&mut text, *t, None);
            steer_text.push(text);
        }
        // A template rendered into a kept string, then the steer texts after it.
        let mut render = |t: TemplateId, grant: Option<&str>| {
            let mut text = texts.take();
            vars.render_into(&mut text, t, grant);
            for rest in &steer_text {
                text.push('\n');
                text.push_str(rest);
            }
            text
        };
        if cx.approved && matches!(block, Some((Block::Ask, _))) {
            notes.push(Note {
                kind: "grant",
                detail: Detail::Consumed,
            });
            block = None;
        }
        let proposed = match block {
            Some((b, t)) if phase == Phase::PreTool => match b {
                Block::Deny => Verdict::Deny {
                    reason: render(t, None),
                },
                Block::Ask => {
                    let id = (cx.grant_id)();
                    let reason = render(t, Some(&id));
                    grant_id = Some(texts.copy(&id));
                    Verdict::Ask {
                        reason,
                        grant_id: id,
                    }
                }
            },
            Some((_, t)) => Verdict::Steer {
                text: render(t, None),
            },
            None if !steer_text.is_empty() => {
                let mut text = texts.take();
                for (i, rest) in steer_text.iter().enumerate() {
                    if i > 0 {
                        text.push('\n');
                    }
                    text.push_str(rest);
                }
                Verdict::Steer { text }
            }
            None => Verdict::Allow,
        };
        for text in steer_text.drain(..) {
            texts.keep(text);
        }
        scratch.steer_text = steer_text;
        let mut verdict = match (mode, &proposed) {
            (_, Verdict::Allow) => Verdict::Allow,
            (Mode::Observe, _) => Verdict::Allow,
            (Mode::Steer, Verdict::Ask { reason, .. } | Verdict::Deny { reason }) => {
                Verdict::Steer {
                    text: texts.copy(reason),
                }
            }
            (_, v) => texts.copy_verdict(v),
        };
        if mode == Mode::Observe && proposed != Verdict::Allow {
            notes.push(Note {
                kind: "observe",
                detail: Detail::Json(
                    json!({"would": proposed.name(), "text": verdict_text(&proposed)}),
                ),
            });
        }
        // gate protects itself whatever the spec and the role say (the trust boundary):
        // changing gate's own files, state, config or any runtime's hook settings, approving
        // its asks, and reading its audit key are denied on every tool surface.
        if phase == Phase::PreTool {
            if let Some(reason) = crate::effects::self_protection(&class.effects) {
                verdict = Verdict::Deny {
                    reason: reason.to_string(),
                };
            }
        }
        if !matches!(verdict, Verdict::Ask { .. }) {
            grant_id = None;
        }
        match &verdict {
            Verdict::Steer { text } => notes.push(Note {
                kind: "steer",
                detail: Detail::Text(texts.copy(text)),
            }),
            Verdict::Ask { reason, grant_id } => notes.push(Note {
                kind: "ask",
                detail: Detail::Ask {
                    reason: texts.copy(reason),
                    grant: texts.copy(grant_id),
                },
            }),
            Verdict::Deny { reason } => notes.push(Note {
                kind: "deny",
                detail: Detail::Reason(texts.copy(reason)),
            }),
            Verdict::Allow => {}
        }
        if phase == Phase::PreTool {
            state.observer.last_blocked = verdict.blocks();
        }

        // Guidance that this answer cannot carry waits for one that can.
        let runtime_carries = event.runtime.is_none_or(|r| r.context_on(phase));
        let mut carried = None;
        if let Verdict::Steer { text } = &verdict {
            if !runtime_carries {
                state.carried = Some(match state.carried.take() {
                    Some(prev) => format!("{prev}\n{text}"),
                    None => text.clone(),
                });
                notes.push(Note {
                    kind: "carry",
                    detail: Detail::Text(texts.copy(text)),
                });
                verdict = Verdict::Allow;
            }
        }
        if runtime_carries && state.carried.is_some() {
            carried = state.carried.take();
        }

        *decision = Decision { verdict, carried };
        *out_proposed = proposed;
        *out_mode = mode;
        *out_armed = arm;
        *out_closed = closed;
        *out_grant_id = grant_id;
        *out_now = now;
    }
}

/// A JSON object of `fields`, in order: what `json!` builds, with the map sized up front and
/// values moved in rather than serialised from references.
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut map = serde_json::Map::with_capacity(N);
    for (k, v) in fields {
        map.insert(k.to_string(), v);
    }
    Value::Object(map)
}

/// [`gate_spec::exec::edges`] of two snapshots' levels.
#[cfg(test)]
fn edges(before: &[bool], after: &[bool]) -> (Vec<SignalId>, Vec<SignalId>) {
    let mut rising = Vec::new();
    let mut falling = Vec::new();
    edges_into(before, after, &mut rising, &mut falling);
    (rising, falling)
}

/// The edges of two snapshots' levels, appended to `rising` and `falling`.
fn edges_into(
    before: &[bool],
    after: &[bool],
    rising: &mut Vec<SignalId>,
    falling: &mut Vec<SignalId>,
) {
    for (i, (a, b)) in before.iter().zip(after).enumerate() {
        if !a && *b {
            rising.push(i as SignalId);
        } else if *a && !b {
            falling.push(i as SignalId);
        }
    }
}

fn close_only(closed_effect: bool, armed: bool) -> bool {
    closed_effect && !armed
}

fn merge_block(block: &mut Option<(Block, TemplateId)>, b: Block, t: TemplateId) {
    if block.is_none_or(|(have, _)| b > have) {
        *block = Some((b, t));
    }
}

fn verdict_text(v: &Verdict) -> &str {
    match v {
        Verdict::Allow => "",
        Verdict::Steer { text } => text,
        Verdict::Ask { reason, .. } | Verdict::Deny { reason } => reason,
    }
}

/// What templates show of the window an event happened in (read before the event is folded
/// in; the segment itself is not copied: its remembered targets and scopes are not shown).
struct WindowBefore {
    dominant: Option<gate_spec::ir::KindId>,
    actions: u32,
    opened_ms: Option<i64>,
}

impl WindowBefore {
    fn of(seg: &observer::Segment) -> WindowBefore {
        WindowBefore {
            dominant: seg.dominant_kind(),
            actions: seg.actions,
            opened_ms: seg.opened_ms,
        }
    }
}

/// Template variables for one event.
struct Vars<'a> {
    spec: &'a Spec,
    event: &'a Event,
    class: &'a Classification,
    /// The window as it was when the event arrived.
    segment: &'a WindowBefore,
    from: u8,
    to: u8,
    signals: &'a [&'a str],
    checkpoint: Option<&'a str>,
    role: &'a str,
    now: i64,
}

/// Longest target shown in a message (the audit keeps its own redacted copy).
const MAX_TARGET_IN_TEXT: usize = 200;

impl Vars<'_> {
    /// Appends the text of `template`.
    fn render_into(&self, out: &mut String, template: TemplateId, grant: Option<&str>) {
        let parts = &self.spec.templates[template as usize].parts;
        // Room for the literal text and a typical value per variable up front, so that the
        // text is not moved as it grows (the capacity changes nothing else).
        let room = parts
            .iter()
            .map(|part| match part {
                TemplatePart::Text(t) => t.len(),
                TemplatePart::Var(_) => 24,
            })
            .sum();
        if out.capacity() == 0 {
            *out = String::with_capacity(room);
        } else {
            out.reserve(room);
        }
        for part in parts {
            match part {
                TemplatePart::Text(t) => out.push_str(t),
                TemplatePart::Var(v) => self.write_value(out, *v, grant),
            }
        }
    }

    /// Appends the text of `var` to `out` (what [`value`](Self::value) returns).
    fn write_value(&self, out: &mut String, var: TemplateVar, grant: Option<&str>) {
        use std::fmt::Write as _;
        let spec = self.spec;
        let seg = self.segment;
        match var {
            TemplateVar::Signal => {
                if self.signals.is_empty() {
                    out.push_str("none");
                } else {
                    for (i, s) in self.signals.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(s);
                    }
                }
            }
            TemplateVar::Checkpoint => out.push_str(self.checkpoint.unwrap_or("none")),
            TemplateVar::Tier => out.push_str(spec.tier_name(self.class.tier)),
            TemplateVar::Kind => out.push_str(&spec.kinds[self.class.kind as usize].name),
            TemplateVar::WindowKind => match seg.dominant {
                Some(k) => out.push_str(&spec.kinds[k as usize].name),
                None => out.push_str("none"),
            },
            TemplateVar::WindowActions => {
                let _ = write!(out, "{}", seg.actions);
            }
            TemplateVar::WindowSecs => {
                let secs = seg
                    .opened_ms
                    .map_or(0, |t| (self.now.saturating_sub(t)).max(0) / 1000);
                let _ = write!(out, "{secs}");
            }
            TemplateVar::Reason => {
                if self.class.reason.is_empty() {
                    out.push_str("policy");
                } else {
                    out.push_str(&self.class.reason);
                }
            }
            TemplateVar::Rule => match self.class.rule {
                Some(r) => out.push_str(&spec.rules[r as usize].name),
                None => out.push_str("none"),
            },
            TemplateVar::Tool => out.push_str(self.event.tool.as_deref().unwrap_or("none")),
            TemplateVar::Target => {
                let t = self.event.target.as_deref().unwrap_or("");
                let t = crate::redact::redact(t);
                match t.char_indices().nth(MAX_TARGET_IN_TEXT) {
                    Some((cut, _)) => {
                        out.push_str(&t[..cut]);
                        out.push('…');
                    }
                    None => out.push_str(&t),
                }
            }
            TemplateVar::State => out.push_str(spec.state_name(self.to)),
            TemplateVar::From => out.push_str(spec.state_name(self.from)),
            TemplateVar::Role => out.push_str(self.role),
            TemplateVar::GrantId => out.push_str(grant.unwrap_or("none")),
            TemplateVar::Approve => match grant {
                Some(id) => {
                    out.push_str("gate approve ");
                    out.push_str(id);
                }
                None => out.push_str("gate approve <id>"),
            },
        }
    }

    /// The text of one template variable, as first written (one `String` per variable):
    /// the reference [`write_value`](Self::write_value) is tested against.
    #[cfg(test)]
    fn value(&self, var: TemplateVar, grant: Option<&str>) -> String {
        let spec = self.spec;
        let seg = self.segment;
        match var {
            TemplateVar::Signal => {
                if self.signals.is_empty() {
                    "none".to_string()
                } else {
                    self.signals.join(", ")
                }
            }
            TemplateVar::Checkpoint => self.checkpoint.unwrap_or("none").to_string(),
            TemplateVar::Tier => spec.tier_name(self.class.tier).to_string(),
            TemplateVar::Kind => spec.kinds[self.class.kind as usize].name.to_string(),
            TemplateVar::WindowKind => seg.dominant.map_or_else(
                || "none".to_string(),
                |k| spec.kinds[k as usize].name.to_string(),
            ),
            TemplateVar::WindowActions => seg.actions.to_string(),
            TemplateVar::WindowSecs => seg
                .opened_ms
                .map_or(0, |t| (self.now.saturating_sub(t)).max(0) / 1000)
                .to_string(),
            TemplateVar::Reason => {
                if self.class.reason.is_empty() {
                    "policy".to_string()
                } else {
                    self.class.reason.clone()
                }
            }
            TemplateVar::Rule => self.class.rule.map_or_else(
                || "none".to_string(),
                |r| spec.rules[r as usize].name.to_string(),
            ),
            TemplateVar::Tool => self
                .event
                .tool
                .clone()
                .unwrap_or_else(|| "none".to_string()),
            TemplateVar::Target => {
                let t = self.event.target.as_deref().unwrap_or("");
                let t = crate::redact::redact(t);
                if t.chars().count() > MAX_TARGET_IN_TEXT {
                    format!(
                        "{}…",
                        t.chars().take(MAX_TARGET_IN_TEXT).collect::<String>()
                    )
                } else {
                    t.into_owned()
                }
            }
            TemplateVar::State => spec.state_name(self.to).to_string(),
            TemplateVar::From => spec.state_name(self.from).to_string(),
            TemplateVar::Role => self.role.to_string(),
            TemplateVar::GrantId => grant.unwrap_or("none").to_string(),
            TemplateVar::Approve => match grant {
                Some(id) => format!("gate approve {id}"),
                None => "gate approve <id>".to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The edges read from the saved levels are the ones `gate_spec::exec::edges` reads
        /// from whole snapshots.
        #[test]
        fn edges_of_levels_are_the_snapshots_edges(
            pairs in proptest::collection::vec((proptest::bool::ANY, proptest::bool::ANY), 0..12),
        ) {
            let snapshot = |level: Vec<bool>| Snapshot {
                state: 0,
                count: vec![0; level.len()],
                level,
                since_arm: 0,
            };
            let before: Vec<bool> = pairs.iter().map(|p| p.0).collect();
            let after: Vec<bool> = pairs.iter().map(|p| p.1).collect();
            proptest::prop_assert_eq!(
                edges(&before, &after),
                gate_spec::exec::edges(&snapshot(before.clone()), &snapshot(after.clone()))
            );
        }
    }

    /// Every template variable writes the text it was first rendered as, over varied
    /// events, classifications, windows, signals and grants.
    #[test]
    fn written_values_are_the_first_rendered_ones() {
        let compiled = gate_specs::ALL
            .iter()
            .find(|s| s.name == "default")
            .expect("the default spec is compiled in");
        let spec = compiled.ir();
        let long: String = "é✓x".repeat(120);
        let targets = [None, Some(""), Some("ls -la"), Some(long.as_str())];
        for (i, target) in targets.into_iter().enumerate() {
            let event = Event {
                tool: (i % 2 == 0).then(|| "Bash".to_string()),
                target: target.map(str::to_string),
                ..Event::default()
            };
            let class = Classification {
                tier: (i % spec.tiers.len()) as u8,
                kind: (i % spec.kinds.len()) as u8,
                rule: (i % 2 == 1).then_some(0),
                reason: if i % 2 == 1 {
                    "why".to_string()
                } else {
                    String::new()
                },
                ..Classification::default()
            };
            let segment = WindowBefore {
                dominant: (i % 3 != 0).then_some((i % spec.kinds.len()) as u8),
                actions: i as u32 * 7,
                opened_ms: (i % 2 == 0).then_some(1_000),
            };
            let signals: Vec<&str> = spec.signals.iter().take(i).map(|s| &*s.name).collect();
            let vars = Vars {
                spec,
                event: &event,
                class: &class,
                segment: &segment,
                from: 0,
                to: (i % spec.states.len()) as u8,
                signals: &signals,
                checkpoint: (i == 2).then_some("tests"),
                role: "none",
                now: 1_000 + i as i64 * 61_000,
            };
            for grant in [None, Some("g-1")] {
                for var in TemplateVar::ALL {
                    let mut out = String::from("x");
                    vars.write_value(&mut out, var, grant);
                    assert_eq!(out, format!("x{}", vars.value(var, grant)), "{var:?}");
                }
            }
        }
    }

    #[test]
    fn object_is_what_json_builds() {
        let (t, from, trigger, to) = (7u16, "idle", "signal:drift".to_string(), "armed");
        let built = object([
            ("index", Value::from(t)),
            ("from", Value::from(from)),
            ("trigger", Value::from(trigger.clone())),
            ("to", Value::from(to)),
        ]);
        let want = json!({"index": t, "from": from, "trigger": trigger, "to": to});
        assert_eq!(built, want);
        assert_eq!(built.to_string(), want.to_string());
        assert_eq!(object([]), json!({}));
    }

    proptest::proptest! {
        /// Details carrying text (reasons and steer texts built from targets, grant ids,
        /// payload-derived JSON) are stored as the redaction of their JSON.
        #[test]
        fn detail_text_is_the_redacted_json(
            text in "[ -~]{0,40}( ghp_[A-Za-z0-9]{20}| --password=[a-z]{6}| https://u:p@h| AKIA[A-Z0-9]{16}|\"\\\\\n\t\u{1}é)?[ -~]{0,12}",
            grant in "[a-z0-9-]{0,12}|sk-[a-z0-9]{20}",
            n in proptest::prelude::any::<u32>(),
        ) {
            let spec = gate_specs::ALL[0].ir();
            let details = [
                Detail::Text(text.clone()),
                Detail::Reason(text.clone()),
                Detail::Ask { reason: text.clone(), grant: grant.clone() },
                Detail::Expiry { window_actions: n },
                Detail::Consumed,
                Detail::Json(json!({"why": text, "old_hash": grant, "n": n, "token": "x"})),
            ];
            for d in details {
                let mut out = String::new();
                d.write_json(spec, &mut out);
                let want = crate::redact::redact_json_to_string(&d.json(spec)).unwrap();
                proptest::prop_assert_eq!(out, want);
            }
        }
    }

    /// Each typed detail renders to the bytes the `json!` it replaced built, for every
    /// signal, checkpoint, transition, record effect and state of every shipped spec.
    #[test]
    fn detail_json_is_what_json_built() {
        let same = |spec: &Spec, d: Detail, want: Value| {
            let got = d.json(spec);
            assert_eq!(got.to_string(), want.to_string(), "{d:?}");
            let mut text = String::new();
            d.write_json(spec, &mut text);
            let stored = crate::redact::redact_json_to_string(&want).unwrap();
            assert_eq!(text, stored, "{d:?}");
        };
        for compiled in gate_specs::ALL {
            let spec = compiled.ir();
            for (i, s) in spec.signals.iter().enumerate() {
                let id = i as SignalId;
                for (on, edge) in [(true, "on"), (false, "off")] {
                    let want = json!({"signal": s.name, "edge": edge});
                    same(spec, Detail::Edge { signal: id, on }, want);
                }
                same(spec, Detail::Boundary(id), json!({"signal": s.name}));
            }
            for (i, c) in spec.checkpoints.iter().enumerate() {
                let want = json!({"checkpoint": c.name});
                same(spec, Detail::Checkpoint(i as u8), want);
            }
            for (t, tr) in spec.transitions.iter().enumerate() {
                let want = json!({
                    "index": t as u16,
                    "from": spec.state_name(tr.from),
                    "trigger": spec.trigger_text(tr.trigger),
                    "to": spec.state_name(tr.to),
                });
                same(spec, Detail::Transition(t as u16), want);
                for (e, effect) in tr.effects.iter().enumerate() {
                    if let Effect::Record { label } = effect {
                        let d = Detail::Record {
                            transition: t as u16,
                            effect: e as u16,
                        };
                        same(spec, d, json!({"label": label}));
                    }
                }
            }
            for s in 0..spec.states.len() {
                let want = json!({"state": spec.state_name(s as u8)});
                same(spec, Detail::Arm(s as u8), want);
            }
            for n in [0u32, 7, u32::MAX] {
                let want = json!({"window_actions": n});
                same(spec, Detail::Expiry { window_actions: n }, want);
            }
            same(spec, Detail::Consumed, json!({"consumed": true}));
            let text = "a \"quoted\" text\nüber".to_string();
            same(spec, Detail::Text(text.clone()), json!({"text": text}));
            same(spec, Detail::Reason(text.clone()), json!({"reason": text}));
            let d = Detail::Ask {
                reason: text.clone(),
                grant: "g-1".into(),
            };
            same(spec, d, json!({"reason": text, "grant": "g-1"}));
            let v = json!({"why": "x", "n": 1});
            same(spec, Detail::Json(v.clone()), v);
        }
    }
}
