//! Diagrams of a spec's control machine, for a person to read: Mermaid and Graphviz DOT of
//! its shape, and the Markdown page committed under `docs/machines/` with the tables that
//! hold the details.
//!
//! A diagram shows the shape ([`shape`]): the spec's groups of states each drawn as one node
//! (every state apart, in clusters, with [`View::States`]), one edge per pair of nodes with
//! short labels ([`label`]), transitions taken from nearly every state drawn once from an
//! "any state" marker. The detail view ([`View::Detail`]) draws one edge per transition
//! family with its whole label. Rule patterns, records and full effects are
//! in the page's tables ([`tables`]), not in the drawing. The same spec always gives
//! byte-identical text.

pub mod dot;
pub mod label;
pub mod mermaid;
pub mod shape;
pub mod tables;

pub use shape::{Shape, View};

use crate::ir::{Block, Effect, Guard, Spec, StateId, Transition};
use std::fmt::Write as _;

/// How a state is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateStyle {
    /// Neither a window nor withholding.
    Plain,
    /// A window is open while in this state.
    Window,
    /// Every pre-tool action is withheld while in this state.
    Withhold(Block),
}

/// The Mermaid overview of a spec.
pub fn mermaid(spec: &Spec) -> String {
    mermaid::render(&Shape::new(spec, View::Overview))
}

/// The DOT overview of a spec.
pub fn dot(spec: &Spec) -> String {
    dot::render(&Shape::new(spec, View::Overview))
}

/// The Mermaid diagram of a spec in `view`.
pub fn mermaid_view(spec: &Spec, view: View) -> String {
    mermaid::render(&Shape::new(spec, view))
}

/// The DOT diagram of a spec in `view`.
pub fn dot_view(spec: &Spec, view: View) -> String {
    dot::render(&Shape::new(spec, view))
}

/// The markdown page for `docs/machines/<spec>.md`: title, legend, the overview (Mermaid,
/// and DOT folded), then the tables.
pub fn markdown(spec: &Spec) -> String {
    let shape = Shape::new(spec, View::Overview);
    let mut out = String::new();
    let _ = writeln!(out, "# `{}` state machine", spec.name);
    out.push('\n');
    if !spec.description.trim().is_empty() {
        let _ = writeln!(out, "{}", spec.description.trim());
        out.push('\n');
    }
    if !spec.alongside.is_empty() {
        let links: Vec<String> = spec
            .alongside
            .iter()
            .map(|n| format!("[`{n}`]({n}.md)"))
            .collect();
        let _ = writeln!(
            out,
            "Beside this machine run {} on every event, each with its own state, scope, signals \
             and audit rows; the answer is the strictest of theirs (docs/spec.md, \
             \"Machines side by side\"). The diagram below is this spec's own machine.",
            links.join(", ")
        );
        out.push('\n');
    }
    out.push_str(
        "Generated from the spec by `gate diagram`; do not edit by hand \
         (`gate diagram --check` fails when this page is stale). \
         `gate diagram NAME --detail` draws every transition with its whole label.\n\n",
    );
    out.push_str("Legend:\n\n");
    out.push_str("- the arrow from the black dot marks the initial state;\n");
    out.push_str(
        "- a box with a double border is a group of states the spec groups (a phase, a \
         level), drawn as one; \"Every state\" draws them apart, in dashed boxes;\n",
    );
    out.push_str("- blue states hold a window open (a window licenses nothing);\n");
    out.push_str(
        "- red states withhold every tool action (ask or deny) until a transition leaves them;\n",
    );
    out.push_str(
        "- an edge reads `triggers / what it does`, one edge for all the transitions between \
         two states; a dashed \"any state\" box stands for every state, or every state but \
         those it names;\n",
    );
    out.push_str(
        "- the tables below list every transition with its guard and effects (tried in \
         declaration order, the first whose guard holds fires), the tiers, roles and rules.\n\n",
    );
    out.push_str("```mermaid\n");
    out.push_str(&mermaid::render(&shape));
    out.push_str("```\n\n");
    if spec.states.iter().any(|s| s.group.is_some()) {
        out.push_str("<details><summary>Every state (each group drawn as one above)</summary>\n\n");
        out.push_str("```mermaid\n");
        out.push_str(&mermaid::render(&Shape::new(spec, View::States)));
        out.push_str("```\n\n");
        out.push_str("</details>\n\n");
    }
    out.push_str("<details><summary>Graphviz (DOT)</summary>\n\n");
    out.push_str("```dot\n");
    out.push_str(&dot::render(&shape));
    out.push_str("```\n\n");
    out.push_str("</details>\n\n");
    out.push_str("## States\n\n");
    tables::states(spec, &mut out);
    tables::counters(spec, &mut out);
    out.push_str("\n## Transitions\n\n");
    tables::transitions(spec, &shape.families, &mut out);
    out.push_str("\n## Tiers\n\n");
    tables::tiers(spec, &mut out);
    let mut roles = String::new();
    if tables::roles(spec, &mut roles) {
        out.push_str("\n## Roles\n\n");
        out.push_str(&roles);
    }
    out.push_str("\n## Rules\n\n");
    tables::rules(spec, &mut out);
    if !spec.alongside.is_empty() {
        let names: Vec<&str> = spec.alongside.iter().map(|n| n.as_ref()).collect();
        let _ = writeln!(
            out,
            "\nBeside this machine, each with its own state: {}.",
            names.join(", ")
        );
    }
    out
}

pub(crate) fn state_style(spec: &Spec, id: StateId) -> StateStyle {
    let state = &spec.states[id as usize];
    match &state.withhold {
        Some(w) => StateStyle::Withhold(w.block),
        None if state.window => StateStyle::Window,
        None => StateStyle::Plain,
    }
}

/// What holds while in a state, shown under its name: `window`, `withholds ask:t`,
/// `timeout 30 s`.
pub(crate) fn state_note(spec: &Spec, id: StateId) -> String {
    let state = &spec.states[id as usize];
    let mut parts = Vec::new();
    if state.window {
        parts.push("window".to_string());
    }
    if let Some(w) = &state.withhold {
        parts.push(format!(
            "withholds {}:{}",
            tables::block_word(w.block),
            spec.templates[w.template as usize].name
        ));
    }
    if let Some(secs) = state.timeout_secs {
        let restarts = if state.restart { ", restarts" } else { "" };
        parts.push(format!("timeout {secs} s{restarts}"));
    }
    parts.join(", ")
}

/// The guard as text (`tier=high, kind=edit|explore, role=none, rearm`); empty when absent.
pub fn guard_text(spec: &Spec, guard: &Guard) -> String {
    let mut parts = Vec::new();
    if let Some((lo, hi)) = guard.tier {
        if lo == hi {
            parts.push(format!("tier={}", spec.tier_name(lo)));
        } else {
            parts.push(format!(
                "tier={}..{}",
                spec.tier_name(lo),
                spec.tier_name(hi)
            ));
        }
    }
    if !guard.kinds.is_empty() {
        let names: Vec<&str> = guard
            .kinds
            .iter()
            .map(|k| spec.kinds[*k as usize].name.as_ref())
            .collect();
        parts.push(format!("kind={}", names.join("|")));
    }
    if !guard.roles.is_empty() {
        let names: Vec<&str> = guard
            .roles
            .iter()
            .map(|r| match r {
                Some(r) => spec.roles[*r as usize].name.as_ref(),
                None => "none",
            })
            .collect();
        parts.push(format!("role={}", names.join("|")));
    }
    match guard.rearm {
        Some(true) => parts.push("rearm".to_string()),
        Some(false) => parts.push("!rearm".to_string()),
        None => {}
    }
    parts.extend(guard.counters.iter().map(|g| spec.counter_guard_text(g)));
    if !guard.states.is_empty() {
        let names: Vec<String> = guard.states.iter().map(|s| spec.state_label(*s)).collect();
        parts.push(format!("in={}", names.join("|")));
    }
    parts.join(", ")
}

/// An effect in the spec's own syntax (`steer:boundary`).
pub fn effect_text(spec: &Spec, effect: &Effect) -> String {
    let template = |t: u8| spec.templates[t as usize].name.as_ref();
    match effect {
        Effect::Arm => "arm".to_string(),
        Effect::Close => "close".to_string(),
        Effect::Steer { template: t } => format!("steer:{}", template(*t)),
        Effect::Ask { template: t } => format!("ask:{}", template(*t)),
        Effect::Deny { template: t } => format!("deny:{}", template(*t)),
        Effect::Record { label } => format!("record:{label}"),
        Effect::Inc { counter } => format!("inc:{}", spec.counters[*counter as usize].name),
        Effect::Reset { counter } => format!("reset:{}", spec.counters[*counter as usize].name),
    }
}

/// `trigger [guard] / effects`, leaving out the parts that are empty.
pub fn transition_label(spec: &Spec, t: &Transition) -> String {
    let mut label = spec.trigger_text(t.trigger);
    let guard = guard_text(spec, &t.guard);
    if !guard.is_empty() {
        let _ = write!(label, " [{guard}]");
    }
    if !t.effects.is_empty() {
        let effects: Vec<String> = t.effects.iter().map(|e| effect_text(spec, e)).collect();
        let _ = write!(label, " / {}", effects.join(", "));
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(source: &str) -> Spec {
        let (spec, diags) = crate::compile(source);
        assert!(!diags.has_errors(), "{:?}", diags.items);
        spec.expect("valid spec")
    }

    const HELD: &str = r#"
[machine]
name = "held"
initial = "idle"
kinds = ["work"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 5

[[state]]
name = "idle"

[[state]]
name = "held"
withhold = "deny:stop"

[[transition]]
from = "idle"
on = "backstop"
to = "held"
effects = ["record:a \"quoted\"; label # here"]

[[transition]]
from = "held"
on = "approved"
guard = { role = "none", rearm = false }
to = "idle"

[template]
stop = "stop"
"#;

    #[test]
    fn withholding_state_is_styled_and_labels_are_escaped() {
        let spec = spec(HELD);
        let m = mermaid(&spec);
        assert!(m.contains(":::deny"), "{m}");
        assert!(m.contains("withholds deny:stop"), "{m}");
        assert!(m.contains("s_idle -->|\"backstop\"| s_held"), "{m}");
        let detail = mermaid_view(&spec, View::Detail);
        assert!(
            detail.contains("backstop / record:a #34;quoted#34;#59; label #35; here"),
            "{detail}"
        );
        assert!(
            detail.contains("approved #91;role=none, !rearm#93;"),
            "{detail}"
        );
        let d = dot_view(&spec, View::Detail);
        assert!(d.contains("shape=doubleoctagon"), "{d}");
        assert!(d.contains("\\\"quoted\\\"; label # here"), "{d}");
    }

    /// A transition written from every state is drawn once, from the "any state" marker,
    /// and an edge stands for every transition between its two states.
    #[test]
    fn a_transition_from_every_state_is_drawn_once() {
        let source = r#"
[machine]
name = "many"
initial = "a"
kinds = ["work"]

[[tier]]
name = "low"
mode = "steer"

[[state]]
name = "a"
[[state]]
name = "b"
group = "busy"
[[state]]
name = "c"
group = "busy"
[[state]]
name = "d"

[[transition]]
from = ["a", "b", "c", "d"]
on = "event:session_start"
to = "a"

[[transition]]
from = "a"
on = "approved"
to = "b"
effects = ["steer:t"]

[[transition]]
from = "a"
on = "backstop"
to = "b"
effects = ["record:x"]

[[transition]]
from = "b"
on = "timeout"
to = "c"

[[transition]]
from = "c"
on = "backstop"
to = "d"

[template]
t = "t"
"#;
        let spec =
            self::spec(&source.replace("name = \"b\"\n", "name = \"b\"\ntimeout_secs = 5\n"));
        let shape = Shape::new(&spec, View::Overview);
        assert_eq!(shape.markers, [(0, Vec::<StateId>::new())]);
        assert_eq!(shape.marker_text(0), "any state");
        let any: Vec<&shape::Edge> = shape
            .edges
            .iter()
            .filter(|e| e.from == shape::End::Any(0))
            .collect();
        assert_eq!(any.len(), 1, "{:?}", shape.edges);
        assert_eq!(any[0].label, "session start");
        let ab: Vec<&shape::Edge> = shape
            .edges
            .iter()
            .filter(|e| e.from == shape::End::Node(0) && e.to == 1)
            .collect();
        assert_eq!(ab.len(), 1);
        assert_eq!(ab[0].label, "approved | backstop / steer");
        // The overview draws the group `busy` as one node; the states view as a cluster.
        assert_eq!(shape.nodes.len(), 3);
        assert_eq!(shape.nodes[1].title, "busy");
        assert_eq!(shape.nodes[1].states, [1, 2]);
        assert_eq!(shape.nodes[1].notes, ["b: timeout 5 s", "c"]);
        let states = Shape::new(&spec, View::States);
        assert_eq!(
            states.layout[1],
            shape::Block::Cluster {
                name: "busy".to_string(),
                nodes: vec![1, 2]
            }
        );
        let m = mermaid_view(&spec, View::States);
        assert!(m.contains("subgraph c1 [\"busy\"]"), "{m}");
        let restarting = self::spec(&source.replace(
            "name = \"b\"\n",
            "name = \"b\"\ntimeout_secs = 5\nrestart = true\n",
        ));
        assert_eq!(state_note(&restarting, 1), "timeout 5 s, restarts");
        let d = dot_view(&spec, View::States);
        assert!(d.contains("subgraph \"cluster_1\""), "{d}");
        assert!(dot(&spec)
            .contains("\"__group_1\" [label=\"busy\\nb: timeout 5 s\\nc\", peripheries=2];"));
        let detail = Shape::new(&spec, View::Detail);
        assert_eq!(detail.edges.len(), 5);
        let page = markdown(&spec);
        assert!(
            page.contains("| any state | `event:session_start` |  | `a` |  |"),
            "{page}"
        );
        assert!(
            page.contains("| `a` | `backstop` |  | `b` | `record:x` |"),
            "{page}"
        );
    }

    /// A spec with machines beside it draws its own machine and names them, in order.
    #[test]
    fn the_machines_beside_a_spec_are_named() {
        let source = HELD.replacen(
            "kinds = [\"work\"]",
            "kinds = [\"work\"]\nalongside = [\"trust\", \"audit\"]",
            1,
        );
        let spec = spec(&source);
        assert_eq!(spec.alongside, ["trust", "audit"]);
        let page = markdown(&spec);
        assert!(
            page.contains("run [`trust`](trust.md), [`audit`](audit.md) on every event"),
            "{page}"
        );
        assert!(page.contains("withholds deny:stop"), "{page}");
        assert!(
            page.contains("Beside this machine, each with its own state: trust, audit."),
            "{page}"
        );
        assert!(!markdown(&self::spec(HELD)).contains("Beside this machine"));
    }

    /// The rules table names every criterion a rule has, effects and places included.
    #[test]
    fn the_rules_table_names_every_criterion() {
        let source = HELD.replacen(
            "[[state]]",
            "[[rule]]\nname = \"wipe\"\neffects = [\"delete\"]\nlocations = [\"home\", \"root\"]\ntier = \"low\"\n\n[[state]]",
            1,
        );
        let page = markdown(&spec(&source));
        assert!(
            page.contains("| `wipe` | tier `low` | effects `delete`<br>at `home`, `root` |"),
            "{page}"
        );
    }

    #[test]
    fn rendering_is_deterministic() {
        let spec = spec(HELD);
        assert_eq!(markdown(&spec), markdown(&spec.clone()));
    }
}
