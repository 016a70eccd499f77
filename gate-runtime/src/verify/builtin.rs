//! The invariants that hold for every spec, checked over the explored graphs: the machine is
//! consistent (and equals the reference interpreter), a forbidden tier is never allowed, a
//! window licenses nothing, anti-flap, fail-open, and every withholding state can be left.

use std::collections::{BTreeSet, VecDeque};

use gate_spec::ir::{Effect, Phase, Spec, StateId, TierId, Transition, Trigger};

use super::alphabet::{Age, Extra};
use super::answer::Answer;
use super::counterexample::{role_name, transition_text, Counterexample, Finding};
use super::debounce::Debouncers;
use super::explorer::{step_machine, Graph, Node, Stepper};

fn arms(t: &Transition) -> bool {
    t.effects.iter().any(|e| matches!(e, Effect::Arm))
}

fn blocks(t: &Transition) -> bool {
    t.effects.iter().any(|e| e.block().is_some())
}

fn finding(name: &str, statement: &str) -> Finding {
    Finding {
        name: name.to_string(),
        builtin: true,
        statement: statement.to_string(),
        checked: 0,
        note: None,
        counterexample: None,
        counters_abstracted: false,
        undecided: None,
    }
}

/// Every step is well formed: the transitions fired chain from the state the event arrived
/// in to the one it left, tier and action triggers fire only on pre-tool events, and (when a
/// reference machine was explored beside) the compiled machine equals the interpreter.
pub fn machine_consistent(spec: &Spec, graphs: &[Graph], reference: bool) -> Finding {
    let mut f = finding(
        "machine_consistent",
        if reference {
            "the compiled machine equals the reference interpreter on every explored step, and every step's transitions chain from the state it arrives in"
        } else {
            "every step's transitions chain from the state it arrives in to the state it leaves"
        },
    );
    for g in graphs {
        if let Some(m) = g.mismatches.first() {
            f.counterexample.get_or_insert_with(|| {
                let path = g.path_to(m.from);
                let mut c = Counterexample::of_path(spec, g, &path, String::new());
                c.why = format!(
                    "then {}: the compiled machine reaches {} firing [{}], the interpreter {} firing [{}]",
                    g.letters[m.letter].describe(spec),
                    spec.state_name(m.machine.0.state),
                    m.machine.1.iter().map(|t| transition_text(spec, *t)).collect::<Vec<_>>().join("; "),
                    spec.state_name(m.reference.0.state),
                    m.reference.1.iter().map(|t| transition_text(spec, *t)).collect::<Vec<_>>().join("; "),
                );
                c
            });
        }
        for (i, step) in g.steps.iter().enumerate() {
            f.checked += 1;
            let letter = &g.letters[step.letter];
            // Each state variable (the main machine's, each region's) chains on its own.
            let node = &g.nodes[step.from];
            let mut vars: Vec<StateId> = std::iter::once(node.state)
                .chain(node.regions.iter().copied())
                .collect();
            let mut why = None;
            for &t in &step.fired {
                let tr = &spec.transitions[t as usize];
                let var = spec.var_of(tr.from);
                let Some(state) = vars.get_mut(var) else {
                    why = Some(format!(
                        "transition {} fired in a region the memory has no state for",
                        transition_text(spec, t)
                    ));
                    continue;
                };
                if tr.from != *state {
                    why = Some(format!(
                        "transition {} fired from state {}",
                        transition_text(spec, t),
                        spec.state_label(*state)
                    ));
                }
                if matches!(tr.trigger, Trigger::Tier(_) | Trigger::Action)
                    && letter.phase != Phase::PreTool
                {
                    why = Some(format!(
                        "an action trigger fired on {}",
                        letter.phase.as_str()
                    ));
                }
                *state = tr.to;
            }
            let to = &g.nodes[step.to];
            if vars[0] != to.state || vars[1..] != to.regions[..] {
                why = Some("the machine left a state no fired transition leads to".to_string());
            }
            if let Some(why) = why {
                if f.counterexample.is_none() {
                    f.counterexample = Some(Counterexample::to_step(spec, g, i, why));
                }
            }
        }
    }
    f
}

/// A forbidden tier is never allowed, for every role, from every reachable state, including a
/// new identity's first event.
///
/// A tier is *forbidden* for a role when every pre-tool action at that tier is denied from
/// every state the identity can reach once it has acted. The invariant: it is then denied
/// before that too, on the identity's first event and after any events that are not actions.
/// (Under a store fault the hook answers what a new identity's first event gets, so this is
/// also what keeps a forbidden action denied when the store is unusable.)
pub fn forbidden_never_allowed(spec: &Spec, graphs: &[Graph]) -> Finding {
    let mut f = finding(
        "forbidden_never_allowed",
        "a tier denied from every state once an identity has acted is denied on its first event and before its first action too, for every role",
    );
    let mut forbidden_notes = Vec::new();
    for g in graphs {
        let mut forbidden = Vec::new();
        for tier in 0..spec.tiers.len() as TierId {
            let at_tier = |s: &&super::explorer::Step| {
                let l = &g.letters[s.letter];
                l.phase == Phase::PreTool && l.tier == Some(tier)
            };
            let mut acted = g
                .steps
                .iter()
                .filter(|s| g.nodes[s.from].age == Age::Acted)
                .filter(at_tier)
                .peekable();
            if acted.peek().is_none() || !acted.all(|s| s.verdicts.answer == Answer::Deny) {
                continue;
            }
            forbidden.push(spec.tier_name(tier).to_string());
            for (i, step) in g.steps.iter().enumerate() {
                if g.nodes[step.from].age == Age::Acted || !at_tier(&step) {
                    continue;
                }
                f.checked += 1;
                if step.verdicts.answer != Answer::Deny && f.counterexample.is_none() {
                    let when = if g.nodes[step.from].age == Age::New {
                        "as a new identity's first event"
                    } else {
                        "before the identity's first action"
                    };
                    f.counterexample = Some(Counterexample::to_step(
                        spec,
                        g,
                        i,
                        format!(
                            "tier {} is denied from every state once the identity has acted, but {when} in state {} the answer is {}",
                            spec.tier_name(tier),
                            spec.state_name(g.nodes[step.from].state),
                            step.verdicts.answer.as_str()
                        ),
                    ));
                }
            }
        }
        forbidden_notes.push(format!(
            "role {}: {}",
            role_name(spec, g.role),
            if forbidden.is_empty() {
                "none".to_string()
            } else {
                forbidden.join(", ")
            }
        ));
    }
    f.note = Some(format!("forbidden tiers: {}", forbidden_notes.join("; ")));
    f
}

/// States that are "closed" for the window property: no window, no withholding, and not
/// entered by a user's approval (a grant licenses; a window does not).
pub fn closed_states(spec: &Spec) -> Vec<StateId> {
    let granted: BTreeSet<StateId> = spec
        .transitions
        .iter()
        .filter(|t| t.trigger == Trigger::Approved && t.to != t.from)
        .map(|t| t.to)
        .collect();
    spec.states_of(0)
        .filter(|s| {
            let st = &spec.states[*s as usize];
            !st.window && st.withhold.is_none() && !granted.contains(s)
        })
        .collect()
}

/// A window licenses nothing: no window state withholds and nothing that opens a window
/// blocks; and a plain action that every closed state withholds (for a role, at a re-arm
/// counter the exploration reached) is withheld in every window state too.
pub fn window_licenses_nothing(spec: &Spec, machine: &Stepper<'_>, graphs: &[Graph]) -> Finding {
    let mut f = finding(
        "window_licenses_nothing",
        "an action withheld in every closed state is withheld in every window state, and opening a window neither asks nor denies",
    );
    let static_fail = |why: String| Counterexample {
        role: "none".to_string(),
        events: Vec::new(),
        why,
        trace: Vec::new(),
    };
    for s in &spec.states {
        f.checked += 1;
        if s.window && s.withhold.is_some() && f.counterexample.is_none() {
            f.counterexample = Some(static_fail(format!("window state {} withholds", s.name)));
        }
    }
    for (i, t) in spec.transitions.iter().enumerate() {
        f.checked += 1;
        let enters = spec.states[t.to as usize].window && !spec.states[t.from as usize].window;
        if (enters || arms(t)) && blocks(t) && f.counterexample.is_none() {
            f.counterexample = Some(static_fail(format!(
                "{} opens a window and blocks",
                transition_text(spec, i as u16)
            )));
        }
    }
    let closed = closed_states(spec);
    let windows: Vec<StateId> = (0..spec.states.len() as StateId)
        .filter(|s| spec.states[*s as usize].window)
        .collect();
    if closed.is_empty() || windows.is_empty() {
        f.note = Some("no window state, or no closed state to compare with".to_string());
        return f;
    }
    for g in graphs {
        // The control memory besides the state: the re-arm counter, the bounded counters and
        // the regions' states.
        let counters: BTreeSet<(u16, &[u16], &[StateId])> = g
            .nodes
            .iter()
            .map(|n| (n.since_arm, n.counters.as_slice(), n.regions.as_slice()))
            .collect();
        for (li, letter) in g.letters.iter().enumerate() {
            if !letter.is_plain_action() {
                continue;
            }
            for &(counter, values, regions) in &counters {
                let withheld = |state: StateId| {
                    let node = Node {
                        state,
                        since_arm: counter,
                        age: Age::Acted,
                        counters: values.to_vec(),
                        regions: regions.to_vec(),
                    };
                    step_machine(machine, spec, &node, letter, g.role).map(|(after, fired)| {
                        super::answer::verdicts(
                            spec,
                            letter.phase,
                            letter.tier,
                            g.role,
                            false,
                            &fired,
                            after.state,
                        )
                        .proposed
                        .withholds()
                    })
                };
                if !closed.iter().all(|c| withheld(*c) == Some(true)) {
                    continue;
                }
                for &w in &windows {
                    f.checked += 1;
                    if withheld(w) == Some(false) && f.counterexample.is_none() {
                        let why = format!(
                            "withheld in every closed state, but allowed in window state {} (re-arm counter {counter})",
                            spec.state_name(w)
                        );
                        let reached = g.nodes.iter().position(|n| {
                            n.state == w
                                && n.since_arm == counter
                                && n.counters == values
                                && n.age == Age::Acted
                        });
                        f.counterexample = Some(
                            match reached.and_then(|n| {
                                g.steps_from(n)
                                    .iter()
                                    .position(|s| s.letter == li)
                                    .map(|k| g.out[n].start + k)
                            }) {
                                Some(step) => Counterexample::to_step(spec, g, step, why),
                                None => Counterexample {
                                    role: role_name(spec, g.role).to_string(),
                                    events: Vec::new(),
                                    why: format!("{}: {why}", letter.describe(spec)),
                                    trace: Vec::new(),
                                },
                            },
                        );
                    }
                }
            }
        }
    }
    f
}

/// Anti-flap: at most one arm per event, never below the re-arm floor, the counter reset by
/// every arm and never above the floor; and every signal's debouncer turns on and off exactly
/// after its `enter` and `exit` runs of samples.
pub fn anti_flap(spec: &Spec, graphs: &[Graph], debouncers: &Debouncers) -> Finding {
    let mut f = finding(
        "anti_flap",
        "at most one arm per event and never within the re-arm floor; signals turn on and off only after their enter and exit runs",
    );
    let min = spec.rearm.min_actions;
    for g in graphs {
        for (i, step) in g.steps.iter().enumerate() {
            f.checked += 1;
            let from = &g.nodes[step.from];
            let to = &g.nodes[step.to];
            let letter = &g.letters[step.letter];
            let arm_count = step
                .fired
                .iter()
                .filter(|t| arms(&spec.transitions[**t as usize]))
                .count();
            let counter = if letter.phase == Phase::PreTool {
                from.since_arm.saturating_add(1).min(min)
            } else {
                from.since_arm
            };
            let why = if to.since_arm > min {
                Some("the re-arm counter passed the floor".to_string())
            } else if arm_count > 1 {
                Some(format!("{arm_count} arms on one event"))
            } else if arm_count == 1 && !(counter >= min && letter.secs_ok) {
                Some(format!(
                    "a window armed {counter} actions after the last arm (floor {min} actions, {}s)",
                    spec.rearm.min_secs
                ))
            } else if arm_count == 1 && to.since_arm != 0 {
                Some("an arm did not reset the re-arm counter".to_string())
            } else {
                None
            };
            if let Some(why) = why {
                if f.counterexample.is_none() {
                    f.counterexample = Some(Counterexample::to_step(spec, g, i, why));
                }
            }
        }
    }
    f.checked += debouncers.steps;
    if f.counterexample.is_none() {
        f.counterexample = debouncers.violation.clone();
    }
    f
}

/// Fail-open: under a store fault the hook answers what the rules alone decide, the first
/// event of a new identity (blocks only). That answer withholds an action only when some
/// state the identity reaches once it has acted withholds the same action: a fault never
/// invents a block the policy itself never gives.
pub fn fail_open(spec: &Spec, graphs: &[Graph]) -> Finding {
    let mut f = finding(
        "fail_open",
        "what a fault answers (the rules alone, from a new identity) withholds only actions the policy withholds in some state once the identity has acted",
    );
    for g in graphs {
        // Per letter: withheld from some node the identity reaches once it has acted.
        let mut withheld_acted = vec![false; g.letters.len()];
        for s in &g.steps {
            if g.nodes[s.from].age == Age::Acted && s.verdicts.answer.withholds() {
                withheld_acted[s.letter] = true;
            }
        }
        for (i, step) in g.steps_from(0).iter().enumerate() {
            let letter = &g.letters[step.letter];
            if letter.phase != Phase::PreTool
                || letter.extra != Extra::None
                || !step.verdicts.answer.withholds()
            {
                continue;
            }
            f.checked += 1;
            if !withheld_acted[step.letter] && f.counterexample.is_none() {
                f.counterexample = Some(Counterexample::to_step(
                    spec,
                    g,
                    g.out[0].start + i,
                    format!(
                        "under a fault this action is answered {}, but no state reached after acting withholds it",
                        step.verdicts.answer.as_str()
                    ),
                ));
            }
        }
    }
    f
}

/// From every reachable state that withholds, a state that does not withhold is reachable.
pub fn withholding_is_left(spec: &Spec, graphs: &[Graph]) -> Finding {
    let mut f = finding(
        "withholding_is_left",
        "from every reachable withholding state a state that does not withhold is reachable",
    );
    let withholds = |n: &Node| spec.states[n.state as usize].withhold.is_some();
    for g in graphs {
        for start in 0..g.nodes.len() {
            if !withholds(&g.nodes[start]) {
                continue;
            }
            f.checked += 1;
            let mut seen = vec![false; g.nodes.len()];
            seen[start] = true;
            let mut queue = VecDeque::from([start]);
            let mut left = false;
            while let Some(n) = queue.pop_front() {
                if !withholds(&g.nodes[n]) {
                    left = true;
                    break;
                }
                // Only steps every counter value takes (all of them, unabstracted).
                for s in g.steps_from(n).iter().filter(|s| s.must) {
                    if !seen[s.to] {
                        seen[s.to] = true;
                        queue.push_back(s.to);
                    }
                }
            }
            if !left && f.counterexample.is_none() {
                let path = g.path_to(start);
                f.counterexample = Some(Counterexample::of_path(
                    spec,
                    g,
                    &path,
                    format!(
                        "state {} withholds every action and no event leads out of it",
                        spec.state_name(g.nodes[start].state)
                    ),
                ));
            }
        }
    }
    f
}
