//! What the parser could not read: the items whose own diagnostics were errors, so that the
//! whole-machine checks still run on the rest of a spec in the same round and skip only what
//! depends on a broken item.
//!
//! A broken item stays in the IR with placeholder values (its name keeps its index, so every
//! other reference still resolves); this record says which values are placeholders. A
//! transition the parser could not complete is not in the IR at all; what is known of it is
//! kept as a [`LooseTransition`], which the path checks (G007, G008) treat as an edge that
//! may lead anywhere its broken parts could name.

use crate::ir::{CheckpointId, RoleId, SignalId, Span, StateId, TierId};
use std::collections::BTreeSet;

/// A transition with an error in it: the states it is known to leave and to enter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LooseTransition {
    pub span: Span,
    /// The source states, or `None` when a source did not resolve (it may be any state).
    pub from: Option<Vec<StateId>>,
    /// The target state, `Some(None)` when it stays in its source, or `None` when the
    /// target did not resolve (it may be any state).
    pub to: Option<Option<StateId>>,
}

/// The placeholders of a spec that has errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Broken {
    /// `[machine] initial` did not resolve: the IR's initial state is a placeholder.
    pub initial: bool,
    /// Tiers with an error in their declaration (mode, fail or backstop may be placeholders).
    pub tiers: BTreeSet<TierId>,
    /// Signals with an error in their declaration (family or counts may be placeholders).
    pub signals: BTreeSet<SignalId>,
    /// Checkpoints with an error in their declaration.
    pub checkpoints: BTreeSet<CheckpointId>,
    /// States with an error in their declaration (`withhold` may be missing).
    pub states: BTreeSet<StateId>,
    /// Roles with an error in their declaration (their modes may be incomplete).
    pub roles: BTreeSet<RoleId>,
    /// `[rearm]` has an error (the floor may be a placeholder).
    pub rearm: bool,
    /// Transitions left out of the IR because of an error in them.
    pub transitions: Vec<LooseTransition>,
    /// Some transition's trigger did not resolve: it may have meant any signal or checkpoint.
    pub unresolved_trigger: bool,
    /// Some effect or `withhold` did not resolve: it may have meant any template.
    pub unresolved_template: bool,
    /// Names referenced anywhere in the source, broken items included, by section: a
    /// declaration only a broken item uses is not reported as unused (G019).
    pub used_templates: BTreeSet<usize>,
    pub used_signals: BTreeSet<usize>,
    pub used_checkpoints: BTreeSet<usize>,
    pub used_counters: BTreeSet<usize>,
}

impl Broken {
    /// Whether a transition on this trigger reads a broken declaration.
    pub fn trigger_is_broken(&self, trigger: crate::ir::Trigger) -> bool {
        use crate::ir::Trigger;
        match trigger {
            Trigger::Signal(s) | Trigger::Clear(s) | Trigger::While(s) => self.signals.contains(&s),
            Trigger::Checkpoint(c) => self.checkpoints.contains(&c),
            Trigger::Tier(t) => self.tiers.contains(&t),
            _ => false,
        }
    }
}
