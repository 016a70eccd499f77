//! The invariants a spec declares (`[[invariant]]`, carried in the IR), decided over the
//! explored graphs: a `never` or `always` claim on every step its `when` admits (pre-tool
//! events, the actions a hook answers, unless it names phases), a `reachable` claim from
//! every node it admits.

use std::collections::VecDeque;

use gate_spec::invariant::{Answer, Claim, Invariant, When};
use gate_spec::ir::{Phase, Spec};

use super::alphabet::{Age, Extra};
use super::counterexample::{Counterexample, Finding};
use super::explorer::{Graph, Node, Step};

/// An invariant in words: `tier >= blocked: never allow, steer`.
pub fn statement(spec: &Spec, inv: &Invariant) -> String {
    let w = &inv.when;
    let mut parts = Vec::new();
    let names = |ids: &mut dyn Iterator<Item = String>| ids.collect::<Vec<_>>().join(" or ");
    if !w.states.is_empty() {
        parts.push(format!(
            "in {}",
            names(&mut w.states.iter().map(|s| spec.state_name(*s).to_string()))
        ));
    }
    if let Some(win) = w.window {
        parts.push(
            if win {
                "in a window"
            } else {
                "outside a window"
            }
            .to_string(),
        );
    }
    if !w.phases.is_empty() {
        parts.push(format!(
            "on {}",
            names(&mut w.phases.iter().map(|p| p.as_str().to_string()))
        ));
    } else if !matches!(inv.claim, Claim::Reach(_)) {
        parts.push("on pre_tool".to_string());
    }
    if let Some((lo, hi)) = w.tier {
        parts.push(if lo == hi {
            format!("at tier {}", spec.tier_name(lo))
        } else {
            format!("at tiers {}..{}", spec.tier_name(lo), spec.tier_name(hi))
        });
    }
    if !w.kinds.is_empty() {
        parts.push(format!(
            "of kind {}",
            names(
                &mut w
                    .kinds
                    .iter()
                    .map(|k| spec.kinds[*k as usize].name.to_string())
            )
        ));
    }
    if !w.roles.is_empty() {
        parts.push(format!(
            "as {}",
            names(
                &mut w
                    .roles
                    .iter()
                    .map(|r| super::counterexample::role_name(spec, *r).to_string())
            )
        ));
    }
    if !w.signals.is_empty() {
        parts.push(format!(
            "when {} turns on",
            names(
                &mut w
                    .signals
                    .iter()
                    .map(|s| spec.signals[*s as usize].name.to_string())
            )
        ));
    }
    let either = |flag: Option<bool>, yes: &str, no: &str| {
        flag.map(|f| if f { yes.to_string() } else { no.to_string() })
    };
    parts.extend(either(
        w.approved,
        "approved by the user",
        "not approved by the user",
    ));
    parts.extend(either(
        w.timeout,
        "when the state's timer runs out",
        "unless the state's timer runs out",
    ));
    parts.extend(either(
        w.backstop,
        "when the window reaches its backstop",
        "unless the window reaches its backstop",
    ));
    if let Some(first) = w.first {
        parts.push(
            if first {
                "on an identity's first event"
            } else {
                "after an identity's first event"
            }
            .to_string(),
        );
    }
    let answers = |list: &[Answer]| {
        list.iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let claim = match &inv.claim {
        Claim::Never(list) => format!("the answer is never {}", answers(list)),
        Claim::Always(list) => format!("the answer is always {}", answers(list)),
        Claim::Reach(list) => format!(
            "{} can be reached",
            names(&mut list.iter().map(|s| spec.state_name(*s).to_string()))
        ),
    };
    let subject = if parts.is_empty() {
        match inv.claim {
            Claim::Reach(_) => "from every state".to_string(),
            _ => "on every event".to_string(),
        }
    } else if matches!(inv.claim, Claim::Reach(_)) {
        format!("from every state {}", parts.join(", "))
    } else {
        parts.join(", ")
    };
    format!("{subject}: {claim}")
}

/// Every state variable's value at a node: the main machine's state, then each region's.
fn node_vars(node: &Node) -> Vec<gate_spec::ir::StateId> {
    std::iter::once(node.state)
        .chain(node.regions.iter().copied())
        .collect()
}

/// Whether a node (the state an event arrives in, and the identity) is one `when` admits.
fn admits_node(spec: &Spec, w: &When, graph: &Graph, node: &Node) -> bool {
    // States of the main machine and of regions alike: each variable named must hold.
    (w.states.is_empty() || gate_spec::exec::states_hold(spec, &w.states, &node_vars(node)))
        && w.window
            .is_none_or(|win| spec.states[node.state as usize].window == win)
        && (w.roles.is_empty() || w.roles.contains(&graph.role))
        && w.first.is_none_or(|first| (node.age == Age::New) == first)
}

/// Whether a step is an event `when` admits.
fn admits_step(spec: &Spec, w: &When, graph: &Graph, step: &Step) -> bool {
    let letter = &graph.letters[step.letter];
    admits_node(spec, w, graph, &graph.nodes[step.from])
        && (if w.phases.is_empty() {
            letter.phase == Phase::PreTool
        } else {
            w.phases.contains(&letter.phase)
        })
        && w.tier
            .is_none_or(|(lo, hi)| letter.tier.is_some_and(|t| lo <= t && t <= hi))
        && (w.kinds.is_empty() || letter.kind.is_some_and(|k| w.kinds.contains(&k)))
        && (w.signals.is_empty()
            || matches!(letter.extra, Extra::Rise(s) if w.signals.contains(&s)))
        && w.approved
            .is_none_or(|a| (letter.extra == Extra::Approved) == a)
        && w.timeout
            .is_none_or(|t| (letter.extra == Extra::Timeout) == t)
        && w.backstop
            .is_none_or(|b| (letter.extra == Extra::Backstop) == b)
}

/// Decides one declared invariant over every role's graph.
pub fn check(spec: &Spec, inv: &Invariant, graphs: &[Graph]) -> Finding {
    let mut f = Finding {
        name: inv.name.to_string(),
        builtin: false,
        statement: statement(spec, inv),
        checked: 0,
        note: None,
        counterexample: None,
        counters_abstracted: false,
        undecided: None,
    };
    for g in graphs {
        if f.counterexample.is_some() {
            break;
        }
        match &inv.claim {
            Claim::Never(list) | Claim::Always(list) => {
                let never = matches!(inv.claim, Claim::Never(_));
                for (i, step) in g.steps.iter().enumerate() {
                    if !admits_step(spec, &inv.when, g, step) {
                        continue;
                    }
                    f.checked += 1;
                    let answer = step.verdicts.answer;
                    if list.contains(&answer) == never {
                        f.counterexample = Some(Counterexample::to_step(
                            spec,
                            g,
                            i,
                            format!("the answer is {}", answer.as_str()),
                        ));
                        break;
                    }
                }
            }
            Claim::Reach(targets) => {
                for start in 0..g.nodes.len() {
                    if !admits_node(spec, &inv.when, g, &g.nodes[start]) {
                        continue;
                    }
                    f.checked += 1;
                    let mut seen = vec![false; g.nodes.len()];
                    seen[start] = true;
                    let mut queue = VecDeque::from([start]);
                    let mut reached = false;
                    while let Some(n) = queue.pop_front() {
                        let vars = node_vars(&g.nodes[n]);
                        if targets.iter().any(|t| vars.get(spec.var_of(*t)) == Some(t)) {
                            reached = true;
                            break;
                        }
                        // Only steps every counter value takes (all, unabstracted).
                        for s in g.steps_from(n).iter().filter(|s| s.must) {
                            if !seen[s.to] {
                                seen[s.to] = true;
                                queue.push_back(s.to);
                            }
                        }
                    }
                    if !reached {
                        let path = g.path_to(start);
                        f.counterexample = Some(Counterexample::of_path(
                            spec,
                            g,
                            &path,
                            format!(
                                "from state {} no event sequence leads to {}",
                                spec.state_name(g.nodes[start].state),
                                targets
                                    .iter()
                                    .map(|s| spec.state_name(*s))
                                    .collect::<Vec<_>>()
                                    .join(" or ")
                            ),
                        ));
                        break;
                    }
                }
            }
        }
    }
    if f.checked == 0 && f.counterexample.is_none() {
        f.note =
            Some("no explored event or state is one it speaks of: it holds vacuously".to_string());
    }
    f
}
