//! The abstract event alphabet: every shape one hook event can have as the machine sees it
//! (phase, tier, kind, the re-arm floor's seconds part, at most one extra trigger), and how a
//! shape is realised as a machine memory and input from an explored control node.

use gate_spec::exec::{Input, Snapshot};
use gate_spec::ir::{CheckpointId, KindId, Phase, RegionId, SignalId, Spec, TierId};

/// The one extra trigger an abstract event carries besides its phase (and tier and action).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Extra {
    None,
    /// A grant for this exact action was consumed.
    Approved,
    /// Evidence of this checkpoint was observed.
    Checkpoint(CheckpointId),
    /// This signal turned on.
    Rise(SignalId),
    /// This signal turned off.
    Fall(SignalId),
    /// This signal was on and stays on (a `while:` trigger without an edge; a rising edge
    /// carries its `while:` too).
    On(SignalId),
    /// The open window reached its backstop.
    Backstop,
    /// The state's own timer ran out (only in a state with `timeout_secs`).
    Timeout,
    /// This region's state's own timer ran out (only in a region state with `timeout_secs`).
    RegionTimeout(RegionId),
}

/// One abstract event. The role is not part of it: an identity's role is fixed for a whole
/// exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Letter {
    pub phase: Phase,
    /// The action's tier and kind (tool phases only).
    pub tier: Option<TierId>,
    pub kind: Option<KindId>,
    /// The seconds part of the re-arm floor is met.
    pub secs_ok: bool,
    pub extra: Extra,
    /// The truth of the counters' guard conditions, when the counters are abstracted
    /// ([`super::abstraction`]); `None` when the explored node holds their values.
    pub val: Option<super::abstraction::Valuation>,
}

impl Letter {
    /// Whether the letter is a plain pre-tool action: no extra trigger.
    pub fn is_plain_action(&self) -> bool {
        self.phase == Phase::PreTool && self.extra == Extra::None
    }

    /// The letter in the spec's own words: `pre_tool tier=blocked kind=risky` and what else
    /// happened on the event.
    pub fn describe(&self, spec: &Spec) -> String {
        let mut out = self.phase.as_str().to_string();
        if let Some(t) = self.tier {
            out.push_str(&format!(" tier={}", spec.tier_name(t)));
        }
        if let Some(k) = self.kind {
            out.push_str(&format!(" kind={}", spec.kinds[k as usize].name));
        }
        match self.extra {
            Extra::None => {}
            Extra::Approved => out.push_str(", approved by the user"),
            Extra::Checkpoint(c) => out.push_str(&format!(
                ", evidence of checkpoint {}",
                spec.checkpoints[c as usize].name
            )),
            Extra::Rise(s) => out.push_str(&format!(
                ", signal {} turns on",
                spec.signals[s as usize].name
            )),
            Extra::Fall(s) => out.push_str(&format!(
                ", signal {} turns off",
                spec.signals[s as usize].name
            )),
            Extra::On(s) => {
                out.push_str(&format!(", signal {} is on", spec.signals[s as usize].name))
            }
            Extra::Backstop => out.push_str(", the window reaches its backstop"),
            Extra::Timeout => out.push_str(", the state's timer runs out"),
            Extra::RegionTimeout(r) => out.push_str(&format!(
                ", the timer of region {}'s state runs out",
                spec.regions[r as usize].name
            )),
        }
        if !self.secs_ok && spec.rearm.min_secs > 0 {
            out.push_str(&format!(
                ", within {}s of the last arm",
                spec.rearm.min_secs
            ));
        }
        if let Some(val) = self.val {
            let text = super::abstraction::Abstraction::of(spec).describe(val);
            if !text.is_empty() {
                out.push_str(&format!(", counters {text}"));
            }
        }
        out
    }
}

/// How old the identity is at an explored node: what its next event may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Age {
    /// No event yet: the next one is the identity's first (a new session, or a subagent's
    /// first call in a `session_agent` scope; also what the rules alone decide under a fault).
    New,
    /// Events, but no pre-tool action yet.
    Unacted,
    /// At least one pre-tool action.
    Acted,
}

impl Age {
    /// The age after an event of `phase`.
    pub fn after(self, phase: Phase) -> Age {
        if phase == Phase::PreTool || self == Age::Acted {
            Age::Acted
        } else {
            Age::Unacted
        }
    }
}

/// Every letter of a spec's alphabet, in a fixed order (phase, tier, kind, seconds, extra).
/// Seconds unmet appear only when the spec has a seconds floor (else they equal met).
pub fn letters(spec: &Spec) -> Vec<Letter> {
    let mut extras = vec![Extra::None, Extra::Approved, Extra::Backstop];
    let timed = |var: usize| {
        spec.states_of(var)
            .any(|s| spec.states[s as usize].timeout_secs.is_some())
    };
    if timed(0) {
        extras.push(Extra::Timeout);
    }
    extras.extend(
        (0..spec.regions.len())
            .filter(|&r| timed(r + 1))
            .map(|r| Extra::RegionTimeout(r as RegionId)),
    );
    extras.extend((0..spec.checkpoints.len()).map(|c| Extra::Checkpoint(c as CheckpointId)));
    for s in 0..spec.signals.len() {
        extras.push(Extra::Rise(s as SignalId));
        extras.push(Extra::Fall(s as SignalId));
        extras.push(Extra::On(s as SignalId));
    }
    let secs: &[bool] = if spec.rearm.min_secs > 0 {
        &[true, false]
    } else {
        &[true]
    };
    let mut out = Vec::new();
    for phase in Phase::ALL {
        let shapes: Vec<(Option<TierId>, Option<KindId>)> = if phase.is_tool() {
            (0..spec.tiers.len())
                .flat_map(|t| {
                    (0..spec.kinds.len()).map(move |k| (Some(t as TierId), Some(k as KindId)))
                })
                .collect()
        } else {
            vec![(None, None)]
        };
        for &(tier, kind) in &shapes {
            for &secs_ok in secs {
                for &extra in &extras {
                    out.push(Letter {
                        phase,
                        tier,
                        kind,
                        secs_ok,
                        extra,
                        val: None,
                    });
                }
            }
        }
    }
    out
}

/// A letter made concrete from a control node: the machine memory and the input buffers.
#[derive(Clone, Debug)]
pub struct Realised {
    pub memory: Snapshot,
    pub raw: Vec<bool>,
    pub enabled: Vec<bool>,
    pub checkpoints: Vec<bool>,
    pub backstop: bool,
    pub timeout: bool,
    pub region_timeouts: Vec<bool>,
}

impl Realised {
    /// The machine input of this realisation of `letter` under `role`.
    pub fn input<'a>(&'a self, letter: &Letter, role: Option<gate_spec::ir::RoleId>) -> Input<'a> {
        Input {
            phase: letter.phase,
            tier: letter.tier,
            kind: letter.kind,
            role,
            raw: &self.raw,
            enabled: &self.enabled,
            checkpoints: &self.checkpoints,
            backstop: self.backstop,
            timeout: self.timeout,
            region_timeouts: &self.region_timeouts,
            rearm_secs_ok: letter.secs_ok,
            approved: matches!(letter.extra, Extra::Approved),
        }
    }
}

/// Builds the machine memory and input for `letter` at a control node, so that exactly the
/// letter's triggers are present. `None` when the letter cannot happen there:
///
/// - an approval, or the backstop, on anything but a pre-tool event;
/// - an edge of a signal not sampled on the letter's phase;
/// - on a new identity's first event: a falling edge (every signal starts off), a rising edge
///   of a signal that needs more than one sample, the backstop (no window is open yet), or
///   the seconds part of the floor unmet (nothing has armed yet);
/// - before the first action: a rising edge of a signal sampled only on pre-tool events that
///   needs more than one sample;
/// - a signal staying on: on a new identity's first event, or before the first action when
///   the signal is sampled only on pre-tool events (it has had no sample to turn on with).
pub fn realise(spec: &Spec, node: &super::explorer::Node, letter: &Letter) -> Option<Realised> {
    let (state, age) = (node.state, node.age);
    let n = spec.signals.len();
    let mut memory = Snapshot {
        state,
        level: vec![false; n],
        count: vec![0; n],
        since_arm: node.since_arm,
        counters: node.counters.clone(),
        regions: node.regions.clone(),
    };
    let mut region_timeouts = vec![false; spec.regions.len()];
    let mut raw = vec![false; n];
    let mut enabled = vec![false; n];
    let mut checkpoints = vec![false; spec.checkpoints.len()];
    let mut backstop = false;
    let mut timeout = false;
    if age == Age::New && !letter.secs_ok {
        return None;
    }
    match letter.extra {
        Extra::None => {}
        Extra::Approved => {
            if letter.phase != Phase::PreTool {
                return None;
            }
        }
        Extra::Checkpoint(c) => checkpoints[c as usize] = true,
        Extra::On(s) => {
            let sig = &spec.signals[s as usize];
            if !sig.samples.contains(&letter.phase) {
                return None;
            }
            let sampled_yet = match age {
                Age::New => false,
                Age::Unacted => !sig.samples.iter().all(|p| *p == Phase::PreTool),
                Age::Acted => true,
            };
            if !sampled_yet {
                return None;
            }
            // On, and this sample qualifies: it stays on with no edge.
            enabled[s as usize] = true;
            memory.level[s as usize] = true;
            raw[s as usize] = true;
        }
        Extra::Rise(s) | Extra::Fall(s) => {
            let sig = &spec.signals[s as usize];
            if !sig.samples.contains(&letter.phase) {
                return None;
            }
            enabled[s as usize] = true;
            if matches!(letter.extra, Extra::Rise(_)) {
                let first_sample = match age {
                    Age::New => true,
                    Age::Unacted => sig.samples.iter().all(|p| *p == Phase::PreTool),
                    Age::Acted => false,
                };
                if first_sample && sig.enter > 1 {
                    return None;
                }
                memory.count[s as usize] = sig.enter - 1;
                raw[s as usize] = true;
            } else {
                if age == Age::New {
                    return None;
                }
                memory.level[s as usize] = true;
                memory.count[s as usize] = sig.exit - 1;
            }
        }
        Extra::Backstop => {
            // The observer reports the backstop only on a pre-tool event in an open window.
            if letter.phase != Phase::PreTool
                || age == Age::New
                || !spec.states[state as usize].window
            {
                return None;
            }
            backstop = true;
        }
        Extra::Timeout => {
            // The observer raises it only in a state with a timer, once the identity has acted.
            if age == Age::New || spec.states[state as usize].timeout_secs.is_none() {
                return None;
            }
            timeout = true;
        }
        Extra::RegionTimeout(r) => {
            // As `Timeout`, for the region's own state.
            let timed = (node.regions.get(r as usize))
                .is_some_and(|&s| spec.states[s as usize].timeout_secs.is_some());
            if age == Age::New || !timed {
                return None;
            }
            region_timeouts[r as usize] = true;
        }
    }
    Some(Realised {
        memory,
        raw,
        enabled,
        checkpoints,
        backstop,
        timeout,
        region_timeouts,
    })
}
