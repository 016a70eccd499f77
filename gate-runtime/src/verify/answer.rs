//! The answer a hook gives for one explored step: the engine's verdict combination
//! (`engine/evaluate.rs`) over the fired transitions, the target state's withholding, a
//! consumed grant, and the mode of the action's tier for the identity's role, without the
//! texts.
//!
//! Two parts of the engine's verdict are outside the abstract alphabet and left out here:
//! gate's self-protection (a deny of any change to gate's own files, whatever the spec says:
//! it only ever adds a deny) and the carrying of guidance on a phase whose answer cannot hold
//! it (Gemini's BeforeTool: a steer becomes an allow there and is attached to a later answer).
//! `tests/verify.rs` holds this combination equal to `Engine::evaluate` on event traces of
//! every shipped spec.

use gate_spec::ir::{Block, Effect, Mode, Phase, RoleId, Spec, StateId, TierId};

pub use gate_spec::invariant::Answer;

/// What one step proposes and what the hook answers after the mode cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdicts {
    /// What the machine proposes (`Outcome::proposed`).
    pub proposed: Answer,
    /// What the hook answers (`Decision::verdict`): the proposal capped by the mode.
    pub answer: Answer,
    /// The mode that capped it.
    pub mode: Mode,
}

/// The verdicts of one step: `fired` transitions (indices into `spec.transitions`) that left
/// the machine in `to`, on an event of `phase` whose action is at `tier` (tool phases),
/// under `role`, with a consumed grant when `approved`.
pub fn verdicts(
    spec: &Spec,
    phase: Phase,
    tier: Option<TierId>,
    role: Option<RoleId>,
    approved: bool,
    fired: &[u16],
    to: StateId,
) -> Verdicts {
    let mut block: Option<Block> = None;
    let mut steers = false;
    for &t in fired {
        for effect in spec.transitions[t as usize].effects.iter() {
            match effect {
                Effect::Steer { .. } => steers = true,
                e => {
                    if let Some(b) = e.block() {
                        block = block.max(Some(b));
                    }
                }
            }
        }
    }
    if phase == Phase::PreTool {
        if let Some(w) = &spec.states[to as usize].withhold {
            block = block.max(Some(w.block));
        }
    }
    if approved && block == Some(Block::Ask) {
        block = None;
    }
    let proposed = match block {
        Some(Block::Deny) if phase == Phase::PreTool => Answer::Deny,
        Some(Block::Ask) if phase == Phase::PreTool => Answer::Ask,
        Some(_) => Answer::Steer,
        None if steers => Answer::Steer,
        None => Answer::Allow,
    };
    let mode_tier = match tier {
        Some(t) if phase.is_tool() => t,
        _ => spec.default_tier,
    };
    let mode = spec.mode_for(mode_tier, role);
    // `reversible` is modelled by its fallback: what gate answers when it cannot make the
    // action recoverable (a live hook may steer instead, after a backup).
    let answer = match (mode, proposed) {
        (_, Answer::Allow) | (Mode::Observe, _) => Answer::Allow,
        (Mode::Steer, Answer::Ask | Answer::Deny) => Answer::Steer,
        (_, p) => p,
    };
    Verdicts {
        proposed,
        answer,
        mode,
    }
}
