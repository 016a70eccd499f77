//! Each signal's debouncer, explored on its own against a sequence oracle (the run of
//! samples opposite to the level since the last edge): edges happen exactly when the oracle
//! says, never both at once, a signal or clear trigger fires only on its edge and a while
//! trigger only where the signal is on. This is the signal half of anti-flap; the explorer
//! treats edges and levels as free inputs.

use std::collections::BTreeMap;

use gate_spec::exec::{Input, Machine};
use gate_spec::ir::{SignalId, Spec, Trigger};

use super::counterexample::{Counterexample, Event};

/// One node: (machine level, machine count, oracle level, oracle run of opposite samples).
type Node = (bool, u16, bool, u16);

/// What the exploration of every signal's debouncer found.
#[derive(Debug, Default)]
pub struct Debouncers {
    pub states: usize,
    pub steps: usize,
    /// The first violation, with the samples that lead to it.
    pub violation: Option<Counterexample>,
}

fn sample_text(input: Option<bool>) -> &'static str {
    match input {
        Some(true) => "a qualifying sample",
        Some(false) => "a non-qualifying sample",
        None => "no sample (signal disabled)",
    }
}

/// Explores every signal's debouncer of `machine`.
pub fn explore(spec: &Spec, machine: &dyn Machine) -> Debouncers {
    let mut out = Debouncers::default();
    let n = spec.signals.len();
    for (s, sig) in spec.signals.iter().enumerate() {
        let Some(&phase) = sig.samples.first() else {
            continue;
        };
        let start: Node = (false, 0, false, 0);
        // Breadth first; per node, the node and input it was first reached from.
        let mut parent: BTreeMap<Node, Option<(Node, Option<bool>)>> =
            BTreeMap::from([(start, None)]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for input in [Some(true), Some(false), None] {
                let mut snap = machine.initial();
                snap.level[s] = node.0;
                snap.count[s] = node.1;
                let mut raw = vec![false; n];
                let mut enabled = vec![false; n];
                if let Some(v) = input {
                    raw[s] = v;
                    enabled[s] = true;
                }
                let checkpoints = vec![false; spec.checkpoints.len()];
                let tool = phase.is_tool();
                let inp = Input {
                    phase,
                    tier: tool.then_some(spec.default_tier),
                    kind: tool.then_some(spec.default_kind),
                    role: None,
                    raw: &raw,
                    enabled: &enabled,
                    checkpoints: &checkpoints,
                    backstop: false,
                    timeout: false,
                    region_timeouts: &[],
                    rearm_secs_ok: true,
                    approved: false,
                };
                let before = snap.clone();
                let mut fired = Vec::new();
                machine.step(&mut snap, &inp, &mut |t| fired.push(t));
                out.steps += 1;
                let (rising, falling) = gate_spec::exec::edges(&before, &snap);
                let rose = rising.contains(&(s as SignalId));
                let fell = falling.contains(&(s as SignalId));
                let on = fired.iter().any(|t| {
                    spec.transitions[*t as usize].trigger == Trigger::Signal(s as SignalId)
                });
                let off = fired.iter().any(|t| {
                    spec.transitions[*t as usize].trigger == Trigger::Clear(s as SignalId)
                });
                let held = fired.iter().any(|t| {
                    spec.transitions[*t as usize].trigger == Trigger::While(s as SignalId)
                });
                // The oracle.
                let (mut olevel, mut run) = (node.2, node.3);
                let (mut orise, mut ofall) = (false, false);
                if let Some(v) = input {
                    run = if v != olevel { run + 1 } else { 0 };
                    let need = if olevel { sig.exit } else { sig.enter };
                    if run >= need {
                        orise = !olevel;
                        ofall = olevel;
                        olevel = !olevel;
                        run = 0;
                    }
                }
                let why = if rose && fell {
                    Some("the signal turns on and off on one event".to_string())
                } else if on && off {
                    Some("its signal and clear transitions both fire on one event".to_string())
                } else if on && !rose {
                    Some("a signal transition fires without a rising edge".to_string())
                } else if off && !fell {
                    Some("a clear transition fires without a falling edge".to_string())
                } else if held && (input.is_none() || !olevel) {
                    Some("a while transition fires where the signal is not on".to_string())
                } else if (rose, fell) != (orise, ofall) || snap.level[s] != olevel {
                    Some(format!(
                        "the edges differ from {} consecutive samples to turn on and {} to turn off",
                        sig.enter, sig.exit
                    ))
                } else {
                    None
                };
                if let Some(why) = why {
                    if out.violation.is_none() {
                        let mut inputs = vec![input];
                        let mut at = node;
                        while let Some(Some((prev, inp))) = parent.get(&at) {
                            inputs.push(*inp);
                            at = *prev;
                        }
                        inputs.reverse();
                        out.violation = Some(Counterexample {
                            role: "none".to_string(),
                            events: inputs
                                .iter()
                                .map(|i| Event {
                                    event: format!(
                                        "{} of signal {} ({})",
                                        sample_text(*i),
                                        sig.name,
                                        phase.as_str()
                                    ),
                                    from: String::new(),
                                    to: String::new(),
                                    fired: Vec::new(),
                                    answer: None,
                                })
                                .collect(),
                            why: format!("signal {}: {why}", sig.name),
                            trace: Vec::new(),
                        });
                    }
                    continue;
                }
                let next: Node = (snap.level[s], snap.count[s], olevel, run);
                if let std::collections::btree_map::Entry::Vacant(e) = parent.entry(next) {
                    e.insert(Some((node, input)));
                    queue.push_back(next);
                }
            }
        }
        out.states += parent.len();
    }
    out
}
