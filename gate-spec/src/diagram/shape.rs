//! What a diagram draws, worked out once from the IR: its nodes (a state, or in the overview a
//! group of states the spec groups, drawn as one), the clusters and order the spec gives them,
//! the "any state" markers for transitions taken from (nearly) every state, and the edges: one
//! per pair of nodes with a short label, or in the detail view one per transition family with
//! its whole label. Both renderers draw a [`Shape`]; the tables under a diagram list the same
//! families, so a reader can go from an edge to every transition it stands for.

use super::{label, state_note, state_style, StateStyle};
use crate::ir::{Spec, StateId, Transition};

/// How much a diagram shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// The shape at a glance: each group of states the spec declares drawn as one node, one
    /// edge per pair of nodes, short labels (triggers and effect verbs).
    #[default]
    Overview,
    /// Every state, in clusters for its group, one edge per pair of states, short labels.
    States,
    /// Every state, one edge per transition family with its whole `trigger [guard] /
    /// effects` label.
    Detail,
}

/// A transition written once for every state it leaves from: the same trigger, guard,
/// target and effects. Families are in the order of their first declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// Indices into `spec.transitions`, in declaration order.
    pub transitions: Vec<usize>,
    /// The states it leaves from, in state order.
    pub from: Vec<StateId>,
    pub to: StateId,
    /// `Some(exceptions)` when it is drawn from an "any state" marker: the states (other
    /// than its target) it does not leave from, at most [`MAX_EXCEPTIONS`].
    pub any_but: Option<Vec<StateId>>,
    /// The state variable it moves: 0 for the main machine, `1 + r` for region `r`.
    pub var: usize,
}

/// A node drawn: one state, or a group of states drawn as one.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// A name unique among the nodes: the state's name, or `__group_N`.
    pub id: String,
    /// What the box says first: the state's or the group's name.
    pub title: String,
    /// The lines under the title: what holds in the state, or the group's states with theirs.
    pub notes: Vec<String>,
    pub style: StateStyle,
    pub states: Vec<StateId>,
}

/// What a diagram lays out, in order: a node on its own, or a named cluster of nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Node(usize),
    Cluster { name: String, nodes: Vec<usize> },
}

/// An end of a drawn edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum End {
    /// An "any state" marker: an index into [`Shape::markers`].
    Any(usize),
    /// An index into [`Shape::nodes`].
    Node(usize),
}

/// One drawn edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub from: End,
    /// An index into [`Shape::nodes`].
    pub to: usize,
    pub label: String,
    /// Indices into [`Shape::families`] this edge stands for.
    pub families: Vec<usize>,
    /// The edge runs against the drawing order (to a node drawn earlier): a layout engine
    /// should not let it decide the ranks.
    pub back: bool,
}

/// Everything a renderer draws.
#[derive(Clone, Debug)]
pub struct Shape<'a> {
    pub spec: &'a Spec,
    pub view: View,
    pub nodes: Vec<Node>,
    /// The nodes in drawing order; the initial state's comes first.
    pub layout: Vec<Block>,
    pub families: Vec<Family>,
    /// The "any state" markers, each the state variable it stands for (0 the main machine,
    /// `1 + r` region `r`) and the states it leaves out (none for "any state"), in the order
    /// their first family is declared.
    pub markers: Vec<(usize, Vec<StateId>)>,
    pub edges: Vec<Edge>,
}

/// A transition family is drawn from "any state" when it leaves from all states but at
/// most this many (its target aside).
pub const MAX_EXCEPTIONS: usize = 2;
/// ... and from at least this many states: in a small machine every edge is drawn.
const MIN_ANY_SOURCES: usize = 3;

impl<'a> Shape<'a> {
    /// The shape of `spec` for `view`.
    pub fn new(spec: &'a Spec, view: View) -> Self {
        let groups = groups(spec);
        let (nodes, layout) = nodes(spec, &groups, view == View::Overview);
        let mut node_of = vec![0; spec.states.len()];
        for (n, node) in nodes.iter().enumerate() {
            for s in &node.states {
                node_of[*s as usize] = n;
            }
        }
        let mut order = vec![0; nodes.len()];
        for (position, n) in layout
            .iter()
            .flat_map(|b| match b {
                Block::Node(n) => std::slice::from_ref(n),
                Block::Cluster { nodes, .. } => nodes.as_slice(),
            })
            .enumerate()
        {
            order[*n] = position;
        }
        let families = families(spec);
        let mut markers: Vec<(usize, Vec<StateId>)> = Vec::new();
        for f in &families {
            if let Some(but) = &f.any_but {
                let marker = (f.var, but.clone());
                if !markers.contains(&marker) {
                    markers.push(marker);
                }
            }
        }
        let ends = Ends {
            node_of: &node_of,
            markers: &markers,
            order: &order,
        };
        let edges = match view {
            View::Overview | View::States => pair_edges(spec, &families, &ends),
            View::Detail => detail_edges(spec, &families, &ends),
        };
        Shape {
            spec,
            view,
            nodes,
            layout,
            families,
            markers,
            edges,
        }
    }

    /// The number of edges drawn from each node, by node.
    pub fn out_degrees(&self) -> Vec<usize> {
        let mut out = vec![0; self.nodes.len()];
        for edge in &self.edges {
            if let End::Node(n) = edge.from {
                out[n] += 1;
            }
        }
        out
    }

    /// The number of edges drawn from each "any state" marker, by marker.
    pub fn marker_degrees(&self) -> Vec<usize> {
        let mut out = vec![0; self.markers.len()];
        for edge in &self.edges {
            if let End::Any(m) = edge.from {
                out[m] += 1;
            }
        }
        out
    }

    /// A marker's text: `any state`, `any state but open, granted`, `any tests state` (of
    /// region `tests`).
    pub fn marker_text(&self, marker: usize) -> String {
        let (var, but) = &self.markers[marker];
        let any = match var {
            0 => "any state".to_string(),
            v => format!("any {} state", self.spec.regions[v - 1].name),
        };
        if but.is_empty() {
            return any;
        }
        let names: Vec<&str> = but.iter().map(|s| self.spec.state_name(*s)).collect();
        format!("{any} but {}", names.join(", "))
    }

    /// The node each region's initial state is drawn in, by region.
    pub fn region_initials(&self) -> Vec<usize> {
        (self.spec.regions.iter())
            .map(|r| {
                (self.nodes.iter())
                    .position(|n| n.states.contains(&r.initial))
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The node the spec's initial state is drawn in.
    pub fn initial(&self) -> usize {
        self.nodes
            .iter()
            .position(|n| n.states.contains(&self.spec.initial))
            .unwrap_or_default()
    }
}

/// The main machine's groups in the order their first state is declared, the initial
/// state's group moved first; ungrouped states are unnamed groups of one, in place. Regions'
/// states are drawn apart ([`nodes`]).
fn groups(spec: &Spec) -> Vec<(Option<String>, Vec<StateId>)> {
    let mut groups: Vec<(Option<String>, Vec<StateId>)> = Vec::new();
    for id in spec.states_of(0) {
        let state = &spec.states[id as usize];
        let name = state.group.as_ref().map(|g| g.to_string());
        match groups
            .iter_mut()
            .find(|(g, _)| name.is_some() && *g == name)
        {
            Some((_, states)) => states.push(id),
            None => groups.push((name, vec![id])),
        }
    }
    if let Some(at) = groups
        .iter()
        .position(|(_, states)| states.contains(&spec.initial))
    {
        let group = groups.remove(at);
        groups.insert(0, group);
    }
    groups
}

fn state_node(spec: &Spec, state: StateId) -> Node {
    let note = state_note(spec, state);
    Node {
        id: spec.state_name(state).to_string(),
        title: spec.state_name(state).to_string(),
        notes: if note.is_empty() { vec![] } else { vec![note] },
        style: state_style(spec, state),
        states: vec![state],
    }
}

/// A group drawn as one node: its name, then each state with what holds in it. It takes a
/// style only when all its states share it.
fn group_node(spec: &Spec, index: usize, name: &str, states: &[StateId]) -> Node {
    let notes = states
        .iter()
        .map(|s| {
            let note = state_note(spec, *s);
            if note.is_empty() {
                spec.state_name(*s).to_string()
            } else {
                format!("{}: {note}", spec.state_name(*s))
            }
        })
        .collect();
    let style = state_style(spec, states[0]);
    let shared = states.iter().all(|s| state_style(spec, *s) == style);
    Node {
        id: format!("__group_{index}"),
        title: name.to_string(),
        notes,
        style: if shared { style } else { StateStyle::Plain },
        states: states.to_vec(),
    }
}

/// The nodes and their layout: each named group one node when `collapse`, else a cluster.
fn nodes(
    spec: &Spec,
    groups: &[(Option<String>, Vec<StateId>)],
    collapse: bool,
) -> (Vec<Node>, Vec<Block>) {
    let mut nodes = Vec::new();
    let mut layout = Vec::new();
    for (g, (name, states)) in groups.iter().enumerate() {
        match name {
            Some(name) if collapse => {
                layout.push(Block::Node(nodes.len()));
                nodes.push(group_node(spec, g, name, states));
            }
            Some(name) => {
                let members: Vec<usize> = (nodes.len()..nodes.len() + states.len()).collect();
                nodes.extend(states.iter().map(|s| state_node(spec, *s)));
                layout.push(Block::Cluster {
                    name: name.clone(),
                    nodes: members,
                });
            }
            None => {
                layout.push(Block::Node(nodes.len()));
                nodes.push(state_node(spec, states[0]));
            }
        }
    }
    // Each region is a cluster of its own, every state apart, its initial state first.
    for (r, region) in spec.regions.iter().enumerate() {
        let mut states: Vec<StateId> = spec.states_of(r + 1).collect();
        states.sort_by_key(|&s| s != region.initial);
        let members: Vec<usize> = (nodes.len()..nodes.len() + states.len()).collect();
        nodes.extend(states.iter().map(|s| state_node(spec, *s)));
        layout.push(Block::Cluster {
            name: format!("region {}", region.name),
            nodes: members,
        });
    }
    (nodes, layout)
}

fn same_family(a: &Transition, b: &Transition) -> bool {
    a.trigger == b.trigger && a.guard == b.guard && a.to == b.to && a.effects == b.effects
}

/// The spec's transitions as families, each marked as drawn from "any state" where it is.
pub fn families(spec: &Spec) -> Vec<Family> {
    let mut families: Vec<Family> = Vec::new();
    for (i, t) in spec.transitions.iter().enumerate() {
        let found = families
            .iter_mut()
            .find(|f| same_family(&spec.transitions[f.transitions[0]], t));
        match found {
            Some(family) => {
                family.transitions.push(i);
                if !family.from.contains(&t.from) {
                    family.from.push(t.from);
                }
            }
            None => families.push(Family {
                transitions: vec![i],
                from: vec![t.from],
                to: t.to,
                any_but: None,
                var: spec.var_of(t.from),
            }),
        }
    }
    for family in &mut families {
        family.from.sort_unstable();
        let missing: Vec<StateId> = (spec.states_of(family.var))
            .filter(|s| *s != family.to && !family.from.contains(s))
            .collect();
        if family.from.len() >= MIN_ANY_SOURCES && missing.len() <= MAX_EXCEPTIONS {
            family.any_but = Some(missing);
        }
    }
    families
}

/// How states and markers map to drawn ends.
struct Ends<'x> {
    node_of: &'x [usize],
    markers: &'x [(usize, Vec<StateId>)],
    order: &'x [usize],
}

impl Ends<'_> {
    /// Where a family is drawn from: its marker, or the node of each state it leaves from.
    fn sources(&self, family: &Family) -> Vec<End> {
        match &family.any_but {
            Some(but) => vec![End::Any(
                self.markers
                    .iter()
                    .position(|(var, m)| *var == family.var && m == but)
                    .unwrap_or_default(),
            )],
            None => {
                let mut out: Vec<End> = Vec::new();
                for s in &family.from {
                    let end = End::Node(self.node_of[*s as usize]);
                    if !out.contains(&end) {
                        out.push(end);
                    }
                }
                out
            }
        }
    }

    fn is_back(&self, from: End, to: usize) -> bool {
        match from {
            End::Any(_) => false,
            End::Node(from) => self.order[to] < self.order[from],
        }
    }
}

fn pair_edges(spec: &Spec, families: &[Family], ends: &Ends) -> Vec<Edge> {
    // (from, to) -> families, in the order the pair first appears.
    let mut pairs: Vec<(End, usize, Vec<usize>)> = Vec::new();
    for (i, family) in families.iter().enumerate() {
        let to = ends.node_of[family.to as usize];
        for from in ends.sources(family) {
            match pairs.iter_mut().find(|(f, t, _)| *f == from && *t == to) {
                Some((_, _, list)) => list.push(i),
                None => pairs.push((from, to, vec![i])),
            }
        }
    }
    pairs
        .into_iter()
        .map(|(from, to, list)| {
            let max = if from == End::Node(to) {
                label::LOOP_LABEL
            } else {
                label::OVERVIEW_LABEL
            };
            Edge {
                from,
                to,
                label: label::overview(spec, families, &list, max),
                back: ends.is_back(from, to),
                families: list,
            }
        })
        .collect()
}

fn detail_edges(spec: &Spec, families: &[Family], ends: &Ends) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (i, family) in families.iter().enumerate() {
        let label = label::detail(spec, family);
        let to = ends.node_of[family.to as usize];
        for from in ends.sources(family) {
            edges.push(Edge {
                from,
                to,
                label: label.clone(),
                back: ends.is_back(from, to),
                families: vec![i],
            });
        }
    }
    edges
}
