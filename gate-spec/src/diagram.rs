//! Diagrams of a spec's control machine: Mermaid (`stateDiagram-v2`) and Graphviz DOT, plus the
//! markdown page committed under `docs/machines/`.
//!
//! Both renderers implement [`Graph`], whose provided [`Graph::render`] walks the IR in one
//! fixed order (states, the initial marker, transitions in declaration order, the legend), so
//! the same spec always gives byte-identical text. Window states and withholding states are
//! styled distinctly; each edge is labelled `trigger [guard] / effects`; a legend lists the
//! tiers with their modes and backstops and the classifier rules that set each tier.

use crate::ir::{Block, Effect, Guard, Rule, Spec, StateId, Transition};
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

/// A graph renderer. Implementations write their syntax; [`Graph::render`] fixes the order.
pub trait Graph {
    /// Opening lines (graph header, style classes).
    fn begin(&self, out: &mut String, spec: &Spec);
    /// One state. `note` is the extra line shown under the name (may be empty).
    fn state(&self, out: &mut String, id: StateId, name: &str, style: StateStyle, note: &str);
    /// The initial-state marker.
    fn initial(&self, out: &mut String, name: &str);
    /// One transition.
    fn edge(&self, out: &mut String, from: &str, to: &str, label: &str);
    /// The legend: tiers, modes, backstops and classifier rules, one line each.
    fn legend(&self, out: &mut String, initial: &str, lines: &[String]);
    /// Closing lines.
    fn end(&self, out: &mut String);

    /// The whole diagram.
    fn render(&self, spec: &Spec) -> String {
        let mut out = String::new();
        self.begin(&mut out, spec);
        for (i, state) in spec.states.iter().enumerate() {
            self.state(
                &mut out,
                i as StateId,
                &state.name,
                style_of(spec, i as StateId),
                &state_note(spec, i as StateId),
            );
        }
        let initial = spec.state_name(spec.initial);
        self.initial(&mut out, initial);
        for t in &spec.transitions {
            self.edge(
                &mut out,
                spec.state_name(t.from),
                spec.state_name(t.to),
                &transition_label(spec, t),
            );
        }
        self.legend(&mut out, initial, &legend_lines(spec));
        self.end(&mut out);
        out
    }
}

/// Mermaid `stateDiagram-v2`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mermaid;

/// Graphviz DOT.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dot;

/// The Mermaid diagram of a spec.
pub fn mermaid(spec: &Spec) -> String {
    Mermaid.render(spec)
}

/// The DOT diagram of a spec.
pub fn dot(spec: &Spec) -> String {
    Dot.render(spec)
}

/// The markdown page for `docs/machines/<spec>.md`: title, a short legend, both diagrams.
pub fn markdown(spec: &Spec) -> String {
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
         (`gate diagram --check` fails when this page is stale).\n\n",
    );
    out.push_str("Legend:\n\n");
    out.push_str("- the arrow from the start dot marks the initial state;\n");
    out.push_str("- blue states hold a window open (a window licenses nothing);\n");
    out.push_str(
        "- red states withhold every tool action (ask or deny) until a transition leaves them;\n",
    );
    out.push_str(
        "- edges read `trigger [guard] / effects`; transitions are tried in declaration order \
         and the first whose guard holds fires;\n",
    );
    out.push_str("- the note lists the risk tiers (lowest first) with their modes and backstops, and the rules that classify into each.\n\n");
    out.push_str("```mermaid\n");
    out.push_str(&mermaid(spec));
    out.push_str("```\n\n");
    out.push_str("<details><summary>Graphviz (DOT)</summary>\n\n");
    out.push_str("```dot\n");
    out.push_str(&dot(spec));
    out.push_str("```\n\n");
    out.push_str("</details>\n");
    out
}

fn style_of(spec: &Spec, id: StateId) -> StateStyle {
    let state = &spec.states[id as usize];
    match &state.withhold {
        Some(w) => StateStyle::Withhold(w.block),
        None if state.window => StateStyle::Window,
        None => StateStyle::Plain,
    }
}

fn state_note(spec: &Spec, id: StateId) -> String {
    let state = &spec.states[id as usize];
    let mut parts = Vec::new();
    if state.window {
        parts.push("window".to_string());
    }
    if let Some(w) = &state.withhold {
        let block = match w.block {
            Block::Ask => "ask",
            Block::Deny => "deny",
        };
        parts.push(format!(
            "withholds {block}:{}",
            spec.templates[w.template as usize].name
        ));
    }
    if let Some(secs) = state.timeout_secs {
        parts.push(format!("timeout {secs} s"));
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

fn rule_text(spec: &Spec, rule: &Rule) -> String {
    let mut criteria = Vec::new();
    let list = |items: &[crate::ir::Pattern]| {
        items
            .iter()
            .map(|p| p.text.as_ref())
            .collect::<Vec<_>>()
            .join(" | ")
    };
    if !rule.tools.is_empty() {
        criteria.push(format!("tools {}", list(&rule.tools)));
    }
    if !rule.classes.is_empty() {
        let names: Vec<&str> = rule.classes.iter().map(|c| c.as_str()).collect();
        criteria.push(format!("classes {}", names.join(" | ")));
    }
    if !rule.paths.is_empty() {
        criteria.push(format!("paths {}", list(&rule.paths)));
    }
    if !rule.commands.is_empty() {
        criteria.push(format!("commands {}", list(&rule.commands)));
    }
    if !rule.except_commands.is_empty() {
        criteria.push(format!("except commands {}", list(&rule.except_commands)));
    }
    if !rule.except_paths.is_empty() {
        criteria.push(format!("except paths {}", list(&rule.except_paths)));
    }
    if !rule.phases.is_empty() {
        let names: Vec<&str> = rule.phases.iter().map(|p| p.as_str()).collect();
        criteria.push(format!("phases {}", names.join(" | ")));
    }
    if criteria.is_empty() {
        criteria.push("every action".to_string());
    }
    let mut text = format!("{}: {}", rule.name, criteria.join("; "));
    if let (Some(kind), Some(_)) = (rule.kind, rule.tier) {
        let _ = write!(text, " (kind {})", spec.kinds[kind as usize].name);
    }
    text
}

/// The legend's lines: per tier its mode, backstop and rules; then the kind-only rules.
pub fn legend_lines(spec: &Spec) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, tier) in spec.tiers.iter().enumerate() {
        let mut facts = vec![tier.mode.as_str().to_string()];
        if i == spec.default_tier as usize {
            facts.push("default".to_string());
        }
        if tier.fail == crate::ir::FailPolicy::Closed {
            facts.push("fail closed".to_string());
        }
        let mut backstop = Vec::new();
        if let Some(n) = tier.backstop.max_actions {
            backstop.push(format!("{n} actions"));
        }
        if let Some(n) = tier.backstop.max_secs {
            backstop.push(format!("{n} s"));
        }
        if let Some(b) = &tier.backstop.baseline {
            backstop.push(format!(
                "baseline {}..{} actions, {}..{} s",
                b.min_actions, b.max_actions, b.min_secs, b.max_secs
            ));
        }
        if !backstop.is_empty() {
            facts.push(format!("backstop {}", backstop.join(" or ")));
        }
        lines.push(format!("tier {}: {}", tier.name, facts.join(", ")));
        for rule in spec.rules.iter().filter(|r| r.tier == Some(i as u8)) {
            lines.push(format!("  {}", rule_text(spec, rule)));
        }
    }
    let kind_rules: Vec<&Rule> = spec.rules.iter().filter(|r| r.tier.is_none()).collect();
    let kinds: Vec<String> = spec
        .kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            if i == spec.default_kind as usize {
                format!("{} (default)", k.name)
            } else {
                k.name.to_string()
            }
        })
        .collect();
    lines.push(format!("kinds: {}", kinds.join(", ")));
    for rule in kind_rules {
        let kind = rule
            .kind
            .map(|k| spec.kinds[k as usize].name.as_ref())
            .unwrap_or("-");
        lines.push(format!("  {} (kind {kind})", rule_text(spec, rule)));
    }
    if !spec.alongside.is_empty() {
        let names: Vec<&str> = spec.alongside.iter().map(|n| n.as_ref()).collect();
        lines.push(format!(
            "beside this machine, each with its own state: {}",
            names.join(", ")
        ));
    }
    lines
}

/// Mermaid has no string quoting inside labels: characters that would end or confuse a
/// statement are written as its `#code;` entities.
fn mermaid_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || " _.,:=|/*+()[]!?@$%^&~'-".contains(c) {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
    out
}

fn mermaid_id(name: &str) -> String {
    // State names are identifiers; the prefix keeps them clear of Mermaid keywords.
    format!("s_{name}")
}

impl Graph for Mermaid {
    fn begin(&self, out: &mut String, spec: &Spec) {
        out.push_str("stateDiagram-v2\n");
        let _ = writeln!(out, "    %% spec {}", mermaid_text(&spec.name));
        out.push_str("    classDef window fill:#dbeafe,stroke:#1d4ed8\n");
        out.push_str("    classDef ask fill:#fee2e2,stroke:#b91c1c\n");
        out.push_str("    classDef deny fill:#fecaca,stroke:#7f1d1d,stroke-width:3px\n");
    }

    fn state(&self, out: &mut String, _id: StateId, name: &str, style: StateStyle, note: &str) {
        let id = mermaid_id(name);
        let _ = writeln!(out, "    state \"{}\" as {id}", mermaid_text(name));
        if !note.is_empty() {
            let _ = writeln!(out, "    {id} : {}", mermaid_text(note));
        }
        let class = match style {
            StateStyle::Plain => None,
            StateStyle::Window => Some("window"),
            StateStyle::Withhold(Block::Ask) => Some("ask"),
            StateStyle::Withhold(Block::Deny) => Some("deny"),
        };
        if let Some(class) = class {
            let _ = writeln!(out, "    class {id} {class}");
        }
    }

    fn initial(&self, out: &mut String, name: &str) {
        let _ = writeln!(out, "    [*] --> {}", mermaid_id(name));
    }

    fn edge(&self, out: &mut String, from: &str, to: &str, label: &str) {
        let _ = writeln!(
            out,
            "    {} --> {} : {}",
            mermaid_id(from),
            mermaid_id(to),
            mermaid_text(label)
        );
    }

    fn legend(&self, out: &mut String, initial: &str, lines: &[String]) {
        let _ = writeln!(out, "    note right of {}", mermaid_id(initial));
        for line in lines {
            let line = match line.strip_prefix("  ") {
                Some(rule) => format!("- {rule}"),
                None => line.clone(),
            };
            let _ = writeln!(out, "        {}", mermaid_text(&line));
        }
        out.push_str("    end note\n");
    }

    fn end(&self, _out: &mut String) {}
}

/// A DOT double-quoted string body.
fn dot_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

impl Graph for Dot {
    fn begin(&self, out: &mut String, spec: &Spec) {
        let _ = writeln!(out, "digraph \"{}\" {{", dot_text(&spec.name));
        out.push_str("    rankdir=LR;\n");
        out.push_str("    node [shape=box, style=rounded, fontname=\"Helvetica\"];\n");
        out.push_str("    edge [fontname=\"Helvetica\", fontsize=10];\n");
    }

    fn state(&self, out: &mut String, _id: StateId, name: &str, style: StateStyle, note: &str) {
        let label = if note.is_empty() {
            dot_text(name)
        } else {
            format!("{}\\n({})", dot_text(name), dot_text(note))
        };
        let attrs = match style {
            StateStyle::Plain => String::new(),
            StateStyle::Window => {
                ", style=\"rounded,filled\", fillcolor=\"#dbeafe\", color=\"#1d4ed8\"".to_string()
            }
            StateStyle::Withhold(Block::Ask) => {
                ", shape=octagon, style=filled, fillcolor=\"#fee2e2\", color=\"#b91c1c\""
                    .to_string()
            }
            StateStyle::Withhold(Block::Deny) => {
                ", shape=doubleoctagon, style=filled, fillcolor=\"#fecaca\", color=\"#7f1d1d\""
                    .to_string()
            }
        };
        let _ = writeln!(
            out,
            "    \"{}\" [label=\"{label}\"{attrs}];",
            dot_text(name)
        );
    }

    fn initial(&self, out: &mut String, name: &str) {
        out.push_str("    \"__initial\" [shape=point, width=0.15, label=\"\"];\n");
        let _ = writeln!(out, "    \"__initial\" -> \"{}\";", dot_text(name));
    }

    fn edge(&self, out: &mut String, from: &str, to: &str, label: &str) {
        let _ = writeln!(
            out,
            "    \"{}\" -> \"{}\" [label=\"{}\"];",
            dot_text(from),
            dot_text(to),
            dot_text(label)
        );
    }

    fn legend(&self, out: &mut String, _initial: &str, lines: &[String]) {
        let mut label = String::new();
        for line in lines {
            label.push_str(&dot_text(line));
            label.push_str("\\l");
        }
        let _ = writeln!(
            out,
            "    \"__legend\" [shape=note, style=\"\", fontsize=10, label=\"{label}\"];"
        );
    }

    fn end(&self, out: &mut String) {
        out.push_str("}\n");
    }
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
        assert!(m.contains("class s_held deny"), "{m}");
        assert!(m.contains("s_held : withholds deny:stop"), "{m}");
        assert!(
            m.contains("backstop / record:a #34;quoted#34;#59; label #35; here"),
            "{m}"
        );
        assert!(m.contains("approved [role=none, !rearm]"), "{m}");
        let d = dot(&spec);
        assert!(d.contains("shape=doubleoctagon"), "{d}");
        assert!(d.contains("record:a \\\"quoted\\\"; label # here"), "{d}");
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
        assert!(page.contains("s_held : withholds deny:stop"), "{page}");
        assert!(
            mermaid(&spec).contains("beside this machine, each with its own state: trust, audit")
        );
        assert!(dot(&spec).contains("trust, audit"));
        assert!(!markdown(&self::spec(HELD)).contains("Beside this machine"));
    }

    #[test]
    fn rendering_is_deterministic() {
        let spec = spec(HELD);
        assert_eq!(markdown(&spec), markdown(&spec.clone()));
    }
}
