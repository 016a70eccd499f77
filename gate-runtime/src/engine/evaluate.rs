//! The per-event evaluation: observe, step the machine, apply the fired transitions'
//! effects, keep the window's books, render and combine the verdict under the tier's mode
//! and the role, and carry guidance an answer cannot hold.

use super::templates::{Vars, WindowBefore};
use super::texts::{verdict_text, Texts};
use super::{ClosedBy, ClosedWindow, Context, Detail, Engine, Note, Outcome, ScopeState};
use crate::event::Event;
use crate::observer;
use crate::verdict::{Decision, Verdict};
use gate_spec::exec::Input;
use gate_spec::ir::{Block, Effect, Family, Mode, Phase, SignalId, TemplateId, Trigger};
use serde_json::json;

/// Per-evaluation buffers an engine keeps between events, so that an evaluation allocates
/// only what its [`Outcome`] keeps. Their contents never carry from one event to the next:
/// each is cleared before it is filled.
#[derive(Default)]
pub(super) struct Scratch {
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
    /// Per region: its state's timer ran out before this event.
    region_timeouts: Vec<bool>,
}

impl<'s> Engine<'s> {
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
        self.evaluate_scratch(state, event, cx, out, false);
    }

    /// [`evaluate_into`](Self::evaluate_into) of an event whose classification `out`
    /// already holds ([`Engine::classify_into`] of this same event by this engine): the
    /// driver classifies first, to bind a grant to what the action reads from the disk.
    pub fn evaluate_classified(
        &self,
        state: &mut ScopeState,
        event: &Event,
        cx: &mut Context<'_>,
        out: &mut Outcome,
    ) {
        self.evaluate_scratch(state, event, cx, out, true);
    }

    /// [`evaluate_in`](Self::evaluate_in) with the engine's buffers, unless an evaluation is
    /// already using them (only a `grant_id` callback that evaluates again could do that):
    /// then fresh ones.
    fn evaluate_scratch(
        &self,
        state: &mut ScopeState,
        event: &Event,
        cx: &mut Context<'_>,
        out: &mut Outcome,
        classified: bool,
    ) {
        match self.scratch.try_borrow_mut() {
            Ok(mut scratch) => self.evaluate_in(state, event, cx, &mut scratch, out, classified),
            Err(_) => self.evaluate_in(state, event, cx, &mut Scratch::default(), out, classified),
        }
    }

    fn evaluate_in(
        &self,
        state: &mut ScopeState,
        event: &Event,
        cx: &mut Context<'_>,
        scratch: &mut Scratch,
        out: &mut Outcome,
        classified: bool,
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
            alongside,
            own_strictness: _,
        } = out;
        // The machines beside this one are the driver's to add (`driver::alongside`).
        alongside.clear();
        fired.clear();
        rising.clear();
        falling.clear();
        notes.clear();
        let spec = self.spec;
        let phase = self.phase_of(event);
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

        if !classified {
            self.classifier.classify_as(event, cx.role, class);
        }
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
        calendar_faults(spec, enabled, phase, now, notes);
        let tool_event = phase.is_tool();
        // The current state's own timer: its deadline, and whether this event comes after it.
        let since = *state.observer.state_since_ms.get_or_insert(now);
        let deadline = spec.states[state.machine.state as usize]
            .timeout_secs
            .map(|secs| since.saturating_add(i64::from(secs) * 1000));
        let timeout = deadline.is_some_and(|d| now >= d);
        let region_deadlines = super::region_timers::deadlines(
            spec,
            &mut state.observer,
            &state.machine,
            now,
            &mut scratch.region_timeouts,
        );
        let regions_before = state.machine.regions.clone();
        let input = Input {
            phase,
            tier: tool_event.then_some(class.tier),
            kind: tool_event.then_some(class.kind),
            role: cx.role,
            raw: &scratch.raw,
            enabled,
            checkpoints: &scratch.checkpoints,
            backstop,
            timeout,
            region_timeouts: &scratch.region_timeouts,
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
        // Why the window closed: the trigger of the first fired transition that closes it
        // (closes or re-arms it, or leaves a window state), else of the last one fired.
        let mut close_cause: Option<ClosedBy> = None;
        let mut last_cause: Option<ClosedBy> = None;
        let mut by_timeout = false;
        // When a window's seconds backstop ran out before this event: the expiry's time.
        let mut backstop_at: Option<i64> = None;
        for &t in fired.iter() {
            let tr = &spec.transitions[t as usize];
            let closes_here = tr
                .effects
                .iter()
                .any(|e| matches!(e, Effect::Arm | Effect::Close))
                || (spec.states[tr.from as usize].window && !spec.states[tr.to as usize].window);
            last_cause = Some(close_cause_of(spec, tr.trigger));
            if closes_here && close_cause.is_none() {
                close_cause = last_cause;
            }
            match tr.trigger {
                Trigger::Timeout => {
                    // An expiry happened at its deadline, not at this event: recorded so. A
                    // region's timer is its own (and moves only the region).
                    let region =
                        super::region_timers::deadline_of(spec, tr.from, &region_deadlines);
                    let in_region = spec.var_of(tr.from) != 0;
                    by_timeout |= !in_region;
                    let deadline = if in_region { region } else { deadline }.unwrap_or(now);
                    let since = match spec.var_of(tr.from) {
                        0 => since,
                        v => (state.observer.region_since_ms.get(v - 1))
                            .copied()
                            .flatten()
                            .unwrap_or(now),
                    };
                    notes.push(Note {
                        kind: "timeout",
                        detail: Detail::Json(json!({
                            "state": spec.state_label(tr.from),
                            "deadline_ms": deadline,
                            "after_secs": (deadline.saturating_sub(since)).max(0) / 1000,
                        })),
                    });
                }
                Trigger::Signal(s) | Trigger::Clear(s) | Trigger::While(s) => {
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
                    let seg = &state.observer.segment;
                    let (_, secs) = observer::effective_backstop(spec, seg, cx.baselines);
                    backstop_at = seg
                        .opened_ms
                        .zip(secs)
                        .map(|(t, s)| t.saturating_add(i64::from(s) * 1000))
                        .filter(|at| *at <= now);
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
                    // The machine's step changed the counter (exec.rs rule 5); it persists
                    // with the state.
                    Effect::Inc { .. } | Effect::Reset { .. } => {}
                }
            }
        }
        let to_state = state.machine.state;
        super::region_timers::after_step(
            spec,
            &mut state.observer,
            &regions_before,
            &state.machine,
            fired,
            &region_deadlines,
            now,
        );
        // The time the machine moved: a timeout's deadline, else this event.
        let moved_at = match (deadline, backstop_at) {
            (Some(d), _) if by_timeout => d,
            (_, Some(at)) => at,
            _ => now,
        };
        // A timer with `restart` restarts on every transition that ends in its state, from
        // the last such: at the deadline when that is the state's own timeout, else now.
        let restart = spec.states[to_state as usize].restart;
        let last_into = (fired.iter().rev())
            .map(|&t| &spec.transitions[t as usize])
            .find(|t| t.to == to_state);
        match last_into {
            Some(t) if restart && to_state == from_state => {
                let at = if t.trigger == Trigger::Timeout {
                    moved_at
                } else {
                    now
                };
                state.observer.state_since_ms = Some(at);
            }
            _ if to_state != from_state => state.observer.state_since_ms = Some(moved_at),
            _ => {}
        }
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
            } else {
                close_cause.or(last_cause).unwrap_or(ClosedBy::Other)
            };
            let w = ClosedWindow {
                kind: seg.dominant_kind().map_or_else(
                    || spec.kinds[spec.default_kind as usize].name.to_string(),
                    |k| spec.kinds[k as usize].name.to_string(),
                ),
                actions: seg.actions,
                secs: seg
                    .opened_ms
                    .map_or(0, |t| (moved_at.saturating_sub(t)).max(0) as u64 / 1000),
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
        for (i, t) in steers.iter().enumerate() {
            // A template steers once an event; a quiet one not again until its period ends.
            if steers[..i].contains(t) {
                continue;
            }
            if !super::quiet::speaks(spec, &mut state.observer, *t, now) {
                notes.push(Note {
                    kind: "quiet",
                    detail: Detail::Json(json!({"template": &*spec.templates[*t as usize].name})),
                });
                continue;
            }
            let mut text = texts.take();
            vars.render_into(&mut text, *t, None);
            // A text already given once (a base's steer and an extension's saying the same)
            // is shown once.
            if steer_text.contains(&text) {
                texts.keep(text);
            } else {
                steer_text.push(text);
            }
        }
        // A template rendered into a kept string, then the steer texts after it (but the
        // one it equals).
        let mut render = |t: TemplateId, grant: Option<&str>| {
            let mut text = texts.take();
            vars.render_into(&mut text, t, grant);
            let len = text.len();
            for rest in &steer_text {
                if *rest != text[..len] {
                    text.push('\n');
                    text.push_str(rest);
                }
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
        // Mode `reversible`: an action the tier would withhold is made recoverable first
        // (never one gate denies whatever the spec says); the grant is not minted for it.
        // An action the tier lets through that loses files (a delete, an overwrite, a move, a
        // permissions change, a rebase's rewrite of the refs) is backed up too: the always-on
        // backup of seed L15b.
        let protected = if mode == Mode::Reversible
            && phase == Phase::PreTool
            && (block.is_some() || crate::backup::backs_up(&class.effects, event.target.as_deref()))
            && crate::effects::self_protection(&class.effects).is_none()
            && crate::effects::catastrophic(&class.effects).is_none()
        {
            Some(self.protect(event, class, now))
        } else {
            None
        };
        let backed_up = matches!(protected, Some(Ok(_)));
        let proposed = match block {
            Some((b, t)) if phase == Phase::PreTool => match b {
                Block::Deny => Verdict::Deny {
                    reason: render(t, None),
                },
                Block::Ask if backed_up => Verdict::Ask {
                    reason: render(t, None),
                    grant_id: String::new(),
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
            // A deny on a stop keeps the agent working with the reason (the runtimes' Stop
            // block), except on a stop that already continued once: gate never loops it.
            Some((Block::Deny, t)) if blocks_stop(event) => Verdict::Deny {
                reason: render(t, None),
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
            (Mode::Reversible, Verdict::Ask { .. } | Verdict::Deny { .. }) => match &protected {
                Some(Ok(backup)) => Verdict::Steer {
                    text: crate::backup::undo_guidance(&class.reason, backup),
                },
                _ => texts.copy_verdict(&proposed),
            },
            (_, v) => texts.copy_verdict(v),
        };
        if let (Some(Ok(backup)), Verdict::Allow | Verdict::Steer { .. }) = (&protected, &verdict) {
            if block.is_none() {
                let guidance = crate::backup::undo_guidance("", backup);
                verdict = match verdict {
                    Verdict::Steer { mut text } => {
                        text.push('\n');
                        text.push_str(&guidance);
                        Verdict::Steer { text }
                    }
                    _ => Verdict::Steer { text: guidance },
                };
            }
        }
        match protected {
            Some(Ok(backup)) => notes.push(Note {
                kind: "backup",
                detail: Detail::Json(backup.json()),
            }),
            Some(Err(why)) => notes.push(Note {
                kind: "backup",
                detail: Detail::Json(json!({"unrecoverable": why})),
            }),
            None => {}
        }
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
            } else if !matches!(verdict, Verdict::Deny { .. }) {
                // Catastrophic targets (the root, the home directory itself, a whole disk)
                // are denied under every spec and role, never asked or steered.
                if let Some(reason) = crate::effects::catastrophic(&class.effects) {
                    verdict = Verdict::Deny {
                        reason: reason.to_string(),
                    };
                }
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

/// Why a transition on `trigger` that closes the open window closed it (R8: calibration
/// learns only from [`ClosedBy::Boundary`]). A budget signal is the backstop in signal form,
/// not a real boundary; a new session's start ends the old session's window.
fn close_cause_of(spec: &gate_spec::ir::Spec, trigger: Trigger) -> ClosedBy {
    match trigger {
        Trigger::Signal(s) | Trigger::Clear(s) | Trigger::While(s) => {
            if matches!(spec.signals[s as usize].family, Family::Budget { .. }) {
                ClosedBy::Backstop
            } else {
                ClosedBy::Boundary
            }
        }
        // A state's own timer running out is an expiry, like a backstop.
        Trigger::Backstop | Trigger::Timeout => ClosedBy::Backstop,
        Trigger::Event(Phase::SessionEnd | Phase::SessionStart) => ClosedBy::SessionEnd,
        Trigger::Event(Phase::Stop | Phase::SubagentStop) => ClosedBy::Stop,
        Trigger::Checkpoint(_) => ClosedBy::Checkpoint,
        Trigger::Approved => ClosedBy::Approval,
        _ => ClosedBy::Other,
    }
}

/// Whether a `deny` proposed on this event blocks it as a stop: a `stop` or `subagent_stop`
/// the runtime has not already continued because of a stop hook (`stop_hook_active`).
fn blocks_stop(event: &Event) -> bool {
    matches!(event.phase, Some(Phase::Stop | Phase::SubagentStop)) && !event.stop_hook_active
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

/// A calendar signal whose clock or zone could not be read sampled false (fail open): each
/// is recorded as a fault (audit kind `fault`) on the event. Only calendar signals are
/// looked at, so a spec without one pays a loop over its signals' families.
fn calendar_faults(
    spec: &gate_spec::ir::Spec,
    enabled: &[bool],
    phase: Phase,
    now: i64,
    notes: &mut Vec<Note>,
) {
    for (i, signal) in spec.signals.iter().enumerate() {
        if let Family::Calendar { zone, .. } = &signal.family {
            if !enabled.get(i).copied().unwrap_or(false) || !signal.samples.contains(&phase) {
                continue;
            }
            if let Err(fault) = gate_spec::calendar::local(now, zone) {
                notes.push(Note {
                    kind: "fault",
                    detail: Detail::Json(json!({
                        "signal": signal.name.as_ref(),
                        "calendar": fault.to_string(),
                    })),
                });
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use gate_spec::exec::Snapshot;

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
                counters: Vec::new(),
                regions: Vec::new(),
            };
            let before: Vec<bool> = pairs.iter().map(|p| p.0).collect();
            let after: Vec<bool> = pairs.iter().map(|p| p.1).collect();
            proptest::prop_assert_eq!(
                edges(&before, &after),
                gate_spec::exec::edges(&snapshot(before.clone()), &snapshot(after.clone()))
            );
        }
    }
}
