//! A [`Shape`] as Graphviz DOT: nodes in the spec's order (clusters as `cluster_` subgraphs),
//! left to right, edges that run back against that order kept out of the ranking, labels
//! wrapped to short lines.

use super::label::wrap;
use super::shape::{Block, End, Node, Shape};
use super::StateStyle;
use crate::ir::Block as Withheld;
use std::fmt::Write as _;

/// The widest line of a label, in characters.
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

/// A label wrapped to [`LABEL_WIDTH`], as a DOT string body.
fn wrapped(label: &str) -> String {
    let lines: Vec<String> = wrap(label, LABEL_WIDTH).iter().map(|l| text(l)).collect();
    lines.join("\\n")
}

fn end_id(shape: &Shape, end: End) -> String {
    match end {
        End::Any(m) => format!("__any_{m}"),
        End::Node(n) => text(&shape.nodes[n].id),
    }
}

/// The digraph.
pub fn render(shape: &Shape) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", text(&shape.spec.name));
    out.push_str("    rankdir=LR;\n");
    out.push_str("    newrank=true;\n");
    out.push_str("    nodesep=0.3;\n");
    out.push_str("    ranksep=0.5;\n");
    out.push_str("    node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("    edge [fontname=\"Helvetica\", fontsize=9];\n");
    out.push_str("    \"__initial\" [shape=point, width=0.15, label=\"\"];\n");
    for r in 0..shape.spec.regions.len() {
        let _ = writeln!(
            out,
            "    \"__initial_{r}\" [shape=point, width=0.15, label=\"\"];"
        );
    }
    for m in 0..shape.markers.len() {
        let _ = writeln!(
            out,
            "    \"__any_{m}\" [label=\"{}\", style=\"rounded,dashed\", color=\"#64748b\"];",
            wrapped(&shape.marker_text(m))
        );
    }
    for (c, block) in shape.layout.iter().enumerate() {
        match block {
            Block::Node(n) => node(&mut out, "    ", &shape.nodes[*n]),
            Block::Cluster { name, nodes } => {
                let _ = writeln!(out, "    subgraph \"cluster_{c}\" {{");
                let _ = writeln!(
                    out,
                    "        label=\"{}\"; fontname=\"Helvetica\"; fontsize=10; \
                     style=\"rounded,dashed\"; color=\"#94a3b8\";",
                    text(name)
                );
                for n in nodes {
                    node(&mut out, "        ", &shape.nodes[*n]);
                }
                out.push_str("    }\n");
            }
        }
    }
    let _ = writeln!(
        out,
        "    \"__initial\" -> \"{}\";",
        text(&shape.nodes[shape.initial()].id)
    );
    for (r, n) in shape.region_initials().into_iter().enumerate() {
        let _ = writeln!(
            out,
            "    \"__initial_{r}\" -> \"{}\";",
            text(&shape.nodes[n].id)
        );
    }
    for edge in &shape.edges {
        let mut attrs = format!("label=\"{}\"", wrapped(&edge.label));
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
            text(&shape.nodes[edge.to].id)
        );
    }
    out.push_str("}\n");
    out
}

fn node(out: &mut String, indent: &str, node: &Node) {
    let mut label = text(&node.title);
    for note in &node.notes {
        label.push_str("\\n");
        label.push_str(&wrapped(note));
    }
    let attrs = match node.style {
        StateStyle::Plain if node.states.len() > 1 => ", peripheries=2".to_string(),
        StateStyle::Plain => String::new(),
        StateStyle::Window => {
            ", style=\"rounded,filled\", fillcolor=\"#dbeafe\", color=\"#1d4ed8\"".to_string()
        }
        StateStyle::Withhold(Withheld::Ask) => {
            ", shape=octagon, style=filled, fillcolor=\"#fee2e2\", color=\"#b91c1c\"".to_string()
        }
        StateStyle::Withhold(Withheld::Deny) => {
            ", shape=doubleoctagon, style=filled, fillcolor=\"#fecaca\", color=\"#7f1d1d\""
                .to_string()
        }
    };
    let _ = writeln!(
        out,
        "{indent}\"{}\" [label=\"{label}\"{attrs}];",
        text(&node.id)
    );
}
