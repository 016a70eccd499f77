//! A [`Shape`] as Graphviz DOT: groups as clusters in the spec's order, left to right, edges
//! that run back against that order kept out of the ranking, labels wrapped to short lines.

use super::label::wrap;
use super::shape::{End, Shape};
use super::{state_style, StateStyle};
use crate::ir::{Block, StateId};
use std::fmt::Write as _;

/// The widest line of an edge label, in characters.
const LABEL_WIDTH: usize = 28;

/// A DOT double-quoted string body.
pub(super) fn text(text: &str) -> String {
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

fn end_id(shape: &Shape, end: End) -> String {
    match end {
        End::Any(m) => format!("__any_{m}"),
        End::State(s) => text(shape.spec.state_name(s)),
    }
}

/// The digraph.
pub fn render(shape: &Shape) -> String {
    let spec = shape.spec;
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", text(&spec.name));
    out.push_str("    rankdir=LR;\n");
    out.push_str("    newrank=true;\n");
    out.push_str("    nodesep=0.3;\n");
    out.push_str("    ranksep=0.5;\n");
    out.push_str("    node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("    edge [fontname=\"Helvetica\", fontsize=9];\n");
    out.push_str("    \"__initial\" [shape=point, width=0.15, label=\"\"];\n");
    for (g, group) in shape.groups.iter().enumerate() {
        let indent = match &group.name {
            Some(name) => {
                let _ = writeln!(out, "    subgraph \"cluster_{g}\" {{");
                let _ = writeln!(
                    out,
                    "        label=\"{}\"; fontname=\"Helvetica\"; fontsize=10; style=\"rounded,dashed\"; color=\"#94a3b8\";",
                    text(name)
                );
                "        "
            }
            None => "    ",
        };
        for state in &group.states {
            node(shape, &mut out, indent, *state);
        }
        if group.name.is_some() {
            out.push_str("    }\n");
        }
    }
    for m in 0..shape.markers.len() {
        let label: Vec<String> = wrap(&shape.marker_text(m), LABEL_WIDTH)
            .iter()
            .map(|l| text(l))
            .collect();
        let _ = writeln!(
            out,
            "    \"__any_{m}\" [label=\"{}\", style=\"rounded,dashed\", color=\"#64748b\"];",
            label.join("\\n")
        );
    }
    let _ = writeln!(
        out,
        "    \"__initial\" -> \"{}\";",
        text(spec.state_name(spec.initial))
    );
    for edge in &shape.edges {
        let label: Vec<String> = wrap(&edge.label, LABEL_WIDTH)
            .iter()
            .map(|l| text(l))
            .collect();
        let mut attrs = format!("label=\"{}\"", label.join("\\n"));
        if edge.back {
            attrs.push_str(", constraint=false");
        }
        if matches!(edge.from, End::Any(_)) {
            attrs.push_str(", style=dashed, color=\"#64748b\"");
        }
        let _ = writeln!(
            out,
            "    \"{}\" -> \"{}\" [{attrs}];",
            end_id(shape, edge.from),
            text(spec.state_name(edge.to))
        );
    }
    out.push_str("}\n");
    out
}

fn node(shape: &Shape, out: &mut String, indent: &str, state: StateId) {
    let name = shape.spec.state_name(state);
    let note = super::state_note(shape.spec, state);
    let label = if note.is_empty() {
        text(name)
    } else {
        let lines: Vec<String> = wrap(&note, LABEL_WIDTH).iter().map(|l| text(l)).collect();
        format!("{}\\n{}", text(name), lines.join("\\n"))
    };
    let attrs = match state_style(shape.spec, state) {
        StateStyle::Plain => String::new(),
        StateStyle::Window => {
            ", style=\"rounded,filled\", fillcolor=\"#dbeafe\", color=\"#1d4ed8\"".to_string()
        }
        StateStyle::Withhold(Block::Ask) => {
            ", shape=octagon, style=filled, fillcolor=\"#fee2e2\", color=\"#b91c1c\"".to_string()
        }
        StateStyle::Withhold(Block::Deny) => {
            ", shape=doubleoctagon, style=filled, fillcolor=\"#fecaca\", color=\"#7f1d1d\""
                .to_string()
        }
    };
    let _ = writeln!(
        out,
        "{indent}\"{}\" [label=\"{label}\"{attrs}];",
        text(name)
    );
}
