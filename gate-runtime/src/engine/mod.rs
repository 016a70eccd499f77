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
//!   withholds as proposed; reversible withholds unless the [`Protector`] made the action
//!   recoverable first, and then steers with how to undo it;
//! - a window never blocks by itself (the spec checker rejects window states that do);
//! - steer text on a phase whose answer cannot carry context (Gemini BeforeTool) is kept and
//!   attached to the next answer that can.
//!
//! One concern a file: `outcome.rs` what an evaluation returns and the audit notes it lists,
//! `evaluate.rs` the per-event evaluation, `quiet.rs` templates' quiet periods, `roles.rs`
//! role resolution, `templates.rs` template rendering, `texts.rs` the verdict and note texts (and the reuse of their room).

mod evaluate;
mod outcome;
mod quiet;
mod region_timers;
mod roles;
mod templates;
mod texts;

pub use outcome::{Alongside, ClosedBy, ClosedWindow, Detail, Note, Outcome};

use crate::backup::Protector;
use crate::event::{Event, Runtime};
use crate::observer::{self, Baselines, Classification, Classifier, ObserverState};
use evaluate::Scratch;
use gate_spec::exec::{Machine, Snapshot};
use gate_spec::ir::{Phase, RoleId, Spec};
use serde::{Deserialize, Serialize};
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
            && self.machine.counters.len() == spec.counters.len()
            && (self.machine.counters.iter())
                .zip(&spec.counters)
                .all(|(v, c)| *v <= c.max)
            && self.machine.regions.len() == spec.regions.len()
            && (self.machine.regions.iter().enumerate()).all(|(r, s)| {
                spec.states
                    .get(*s as usize)
                    .is_some_and(|st| st.region == Some(r as gate_spec::ir::RegionId))
            })
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
    /// The machines that run beside this spec's own on every event (`[machine] alongside`),
    /// in the order the spec lists them; the driver evaluates each with its own state and
    /// combines the answers (`driver::alongside`).
    pub alongside: Vec<Engine<'s>>,
    /// This machine outlives sessions (`outlive_sessions` in the configuration): a session's
    /// end reaches it as an event of no phase (`other`), so its `event:session_end`
    /// transitions do not fire and its state carries over to the next session of its scope.
    pub outlives_sessions: bool,
    /// What makes an action recoverable for a tier in mode `reversible` (a live hook call
    /// only: [`Engine::protect_with`]); without one, such an action is withheld.
    protector: OnceCell<std::sync::Arc<dyn Protector>>,
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
            alongside: Vec::new(),
            outlives_sessions: false,
            protector: OnceCell::new(),
        }
    }

    /// This engine with every machine (its own, or one beside it) whose spec is named in
    /// `names` set to outlive sessions ([`Engine::outlives_sessions`]); other names are ignored
    /// (the configuration reports them).
    pub fn with_outliving(mut self, names: &[String]) -> Engine<'s> {
        let named = |spec: &Spec| names.iter().any(|n| n.as_str() == spec.name.as_ref());
        self.outlives_sessions = named(self.spec);
        for m in &mut self.alongside {
            m.outlives_sessions = named(m.spec);
        }
        self
    }

    /// The phase this machine sees an event as: its own, except a session's end for a
    /// machine that outlives sessions (`other`).
    pub fn phase_of(&self, event: &Event) -> Phase {
        match event.phase {
            Some(Phase::SessionEnd) if self.outlives_sessions => Phase::Other,
            p => p.unwrap_or(Phase::Other),
        }
    }

    /// This engine with `machines` running beside it (the engines of the specs its
    /// `[machine] alongside` names, resolved by the caller).
    pub fn with_alongside(mut self, machines: Vec<Engine<'s>>) -> Engine<'s> {
        self.alongside = machines;
        self
    }

    /// This engine, and every machine beside it, with `paths` (absolute) counted among gate's
    /// own locations ([`Classifier::with_gate_paths`]): the files of a draft policy, which
    /// self-protection then keeps from the agent as it keeps gate's configuration.
    pub fn with_gate_paths(mut self, paths: &[String]) -> Engine<'s> {
        self.classifier = self.classifier.with_gate_paths(paths);
        self.alongside = std::mem::take(&mut self.alongside)
            .into_iter()
            .map(|m| m.with_gate_paths(paths))
            .collect();
        self
    }

    /// This spec's own machine, then every machine beside it.
    pub fn machines(&self) -> impl Iterator<Item = &Engine<'s>> {
        std::iter::once(self).chain(&self.alongside)
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

    /// Let the classifier look at the file system: follow symbolic links and read the input
    /// files commands name. For a live hook call only (a replay must not depend on the disk).
    pub fn look_at_disk(&self) {
        self.classifier.look_at_disk();
        for machine in &self.alongside {
            machine.look_at_disk();
        }
    }

    /// Let mode `reversible` back actions up through `protector` (a live hook call only: a
    /// replay or an explanation must not copy files). Machines beside this one share it.
    pub fn protect_with(&self, protector: std::sync::Arc<dyn Protector>) {
        for machine in &self.alongside {
            machine.protect_with(protector.clone());
        }
        let _ = self.protector.set(protector);
    }

    /// Whether any tier, for any role, is in mode `reversible` (else no protector is needed).
    pub fn uses_reversible(&self) -> bool {
        self.machines()
            .any(|m| m.spec.uses_mode(gate_spec::ir::Mode::Reversible))
    }

    /// The action made recoverable, or why it cannot be (no protector: not a live hook).
    fn protect(
        &self,
        event: &Event,
        class: &Classification,
        now_ms: i64,
    ) -> Result<crate::backup::Backup, String> {
        match self.protector.get() {
            Some(p) => p.protect(event, class, now_ms),
            None => Err("no backup store in this evaluation".to_string()),
        }
    }

    pub fn classify(&self, event: &Event) -> Classification {
        self.classifier.classify(event)
    }

    /// [`classify`](Self::classify) written into `out`, for an identity carrying `role` (see
    /// [`Classifier::classify_as`](crate::observer::Classifier::classify_as)).
    pub fn classify_into(&self, event: &Event, role: Option<RoleId>, out: &mut Classification) {
        self.classifier.classify_as(event, role, out)
    }
}
