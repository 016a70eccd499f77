//! A [`Shape`] as a Mermaid flowchart: groups as subgraphs in the spec's order, the initial
//! state's marker, the "any state" marker, and one labelled arrow per drawn edge.

use super::shape::{End, Shape};
use super::{state_style, StateStyle};
use crate::ir::{Block, StateId};
use std::fmt::Write as _;

/// Mermaid has no string quoting inside labels: characters that would end or confuse a
/// statement are written as its `#code;` entities.
pub(super) fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || " _.,:=/*+!?@$%^&~'-".contains(c) {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
    out
}

fn id(shape: &Shape, state: StateId) -> String {
    // State names are identifiers; the prefix keeps them clear of Mermaid keywords (`end`).
    format!("s_{}", shape.spec.state_name(state))
}

fn end_id(shape: &Shape, end: End) -> String {
    match end {
        End::Any(m) => format!("any_{m}"),
        End::State(s) => id(shape, s),
    }
}

/// The flowchart.
pub fn render(shape: &Shape) -> String {
    let spec = shape.spec;
    let mut out = String::new();
    out.push_str("flowchart LR\n");
    let _ = writeln!(out, "    %% spec {}", text(&spec.name));
    out.push_str("    classDef window fill:#dbeafe,stroke:#1d4ed8\n");
    out.push_str("    classDef ask fill:#fee2e2,stroke:#b91c1c\n");
    out.push_str("    classDef deny fill:#fecaca,stroke:#7f1d1d,stroke-width:3px\n");
    out.push_str("    classDef marker fill:#ffffff,stroke:#64748b,stroke-dasharray:4 3\n");
    out.push_str("    classDef start fill:#111827,stroke:#111827\n");
    out.push_str("    start_marker(( )):::start\n");
    for m in 0..shape.markers.len() {
        let _ = writeln!(
            out,
            "    any_{m}([\"{}\"]):::marker",
            text(&shape.marker_text(m))
        );
    }
    for (g, group) in shape.groups.iter().enumerate() {
        let indent = match &group.name {
            Some(name) => {
                let _ = writeln!(out, "    subgraph g{g} [\"{}\"]", text(name));
                "        "
            }
            None => "    ",
        };
        for state in &group.states {
            node(shape, &mut out, indent, *state);
        }
        if group.name.is_some() {
            out.push_str("    end\n");
        }
    }
    let _ = writeln!(out, "    start_marker --> {}", id(shape, spec.initial));
    for edge in &shape.edges {
        let _ = writeln!(
            out,
            "    {} -->|\"{}\"| {}",
            end_id(shape, edge.from),
            text(&edge.label),
            id(shape, edge.to)
        );
    }
    out
}

fn node(shape: &Shape, out: &mut String, indent: &str, state: StateId) {
    let name = shape.spec.state_name(state);
    let note = super::state_note(shape.spec, state);
    let label = if note.is_empty() {
        text(name)
    } else {
        format!("{}<br/><small>{}</small>", text(name), text(&note))
    };
    let class = match state_style(shape.spec, state) {
        StateStyle::Plain => "",
        StateStyle::Window => ":::window",
        StateStyle::Withhold(Block::Ask) => ":::ask",
        StateStyle::Withhold(Block::Deny) => ":::deny",
    };
    let _ = writeln!(out, "{indent}{}(\"{label}\"){class}", id(shape, state));
}
