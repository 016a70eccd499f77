//! A [`Shape`] as a Mermaid flowchart: the nodes in the spec's order (clusters as
//! subgraphs), the initial state's marker, the "any state" markers, and one labelled arrow
//! per drawn edge. An edge from a node to itself is written inside the node (`↻ triggers /
//! verbs`): Mermaid's layout lays a loop's label over its neighbours'.

use super::shape::{Block, End, Node, Shape};
use super::StateStyle;
use crate::ir::Block as Withheld;
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

/// A node's Mermaid id: the prefix keeps names clear of Mermaid keywords (`end`).
fn id(node: &Node) -> String {
    format!("s_{}", node.id)
}

fn end_id(shape: &Shape, end: End) -> String {
    match end {
        End::Any(m) => format!("any_{m}"),
        End::Node(n) => id(&shape.nodes[n]),
    }
}

/// The flowchart.
pub fn render(shape: &Shape) -> String {
    let mut out = String::new();
    out.push_str("flowchart LR\n");
    let _ = writeln!(out, "    %% spec {}", text(&shape.spec.name));
    out.push_str("    classDef window fill:#dbeafe,stroke:#1d4ed8\n");
    out.push_str("    classDef ask fill:#fee2e2,stroke:#b91c1c\n");
    out.push_str("    classDef deny fill:#fecaca,stroke:#7f1d1d,stroke-width:3px\n");
    out.push_str("    classDef group fill:#f8fafc,stroke:#334155,stroke-width:2px\n");
    out.push_str("    classDef marker fill:#ffffff,stroke:#64748b,stroke-dasharray:4 3\n");
    out.push_str("    classDef start fill:#111827,stroke:#111827\n");
    out.push_str("    start_marker(( )):::start\n");
    for r in 0..shape.spec.regions.len() {
        let _ = writeln!(out, "    start_marker_{r}(( )):::start");
    }
    for m in 0..shape.markers.len() {
        let _ = writeln!(
            out,
            "    any_{m}([\"{}\"]):::marker",
            text(&shape.marker_text(m))
        );
    }
    let stays = |n: usize| {
        shape
            .edges
            .iter()
            .find(|e| e.from == End::Node(n) && e.to == n)
            .map(|e| e.label.as_str())
    };
    for (c, block) in shape.layout.iter().enumerate() {
        match block {
            Block::Node(n) => node(&mut out, "    ", &shape.nodes[*n], stays(*n)),
            Block::Cluster { name, nodes } => {
                let _ = writeln!(out, "    subgraph c{c} [\"{}\"]", text(name));
                for n in nodes {
                    node(&mut out, "        ", &shape.nodes[*n], stays(*n));
                }
                out.push_str("    end\n");
            }
        }
    }
    let _ = writeln!(
        out,
        "    start_marker --> {}",
        id(&shape.nodes[shape.initial()])
    );
    for (r, n) in shape.region_initials().into_iter().enumerate() {
        let _ = writeln!(out, "    start_marker_{r} --> {}", id(&shape.nodes[n]));
    }
    for edge in shape.edges.iter().filter(|e| e.from != End::Node(e.to)) {
        let _ = writeln!(
            out,
            "    {} -->|\"{}\"| {}",
            end_id(shape, edge.from),
            text(&edge.label),
            id(&shape.nodes[edge.to])
        );
    }
    out
}

fn node(out: &mut String, indent: &str, node: &Node, stays: Option<&str>) {
    let mut label = text(&node.title);
    let mut notes: Vec<String> = node.notes.iter().map(|n| text(n)).collect();
    if let Some(stays) = stays {
        notes.push(format!("#8635; {}", text(stays)));
    }
    if !notes.is_empty() {
        let _ = write!(label, "<br/><small>{}</small>", notes.join("<br/>"));
    }
    let class = match node.style {
        StateStyle::Plain if node.states.len() > 1 => ":::group",
        StateStyle::Plain => "",
        StateStyle::Window => ":::window",
        StateStyle::Withhold(Withheld::Ask) => ":::ask",
        StateStyle::Withhold(Withheld::Deny) => ":::deny",
    };
    let _ = writeln!(out, "{indent}{}(\"{label}\"){class}", id(node));
}
