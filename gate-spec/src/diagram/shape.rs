//! What a diagram draws, worked out once from the IR: the states in the order and groups the
//! spec gives them, the "any state" marker for transitions taken from (nearly) every state,
//! and the edges: one per (from, to) pair in the overview, one per transition family in the
//! detail view. Both renderers draw a [`Shape`]; the tables under a diagram list the same
//! families, so a reader can go from an edge to every transition it stands for.

use super::label;
use crate::ir::{Spec, StateId, Transition};

/// How much a diagram shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// The shape: one edge per (from, to) pair, short labels (trigger and effect verbs).
    #[default]
    Overview,
    /// One edge per transition family, each with its full `trigger [guard] / effects` label.
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
    /// `Some(exceptions)` when it is drawn from the "any state" marker: the states (other
    /// than its target) it does not leave from, at most [`MAX_EXCEPTIONS`].
    pub any_but: Option<Vec<StateId>>,
}

/// An end of a drawn edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum End {
    /// An "any state" marker: an index into [`Shape::markers`].
    Any(usize),
    State(StateId),
}

/// One drawn edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub from: End,
    pub to: StateId,
    pub label: String,
    /// Indices into [`Shape::families`] this edge stands for.
    pub families: Vec<usize>,
    /// The edge runs against the drawing order (to a state drawn earlier): a layout engine
    /// should not let it decide the ranks.
    pub back: bool,
}

/// A group of states drawn together; `name` is `None` for the states the spec leaves
/// ungrouped.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub name: Option<String>,
    pub states: Vec<StateId>,
}

/// Everything a renderer draws.
#[derive(Clone, Debug)]
pub struct Shape<'a> {
    pub spec: &'a Spec,
    pub view: View,
    /// The states in drawing order, grouped; the initial state's group comes first.
    pub groups: Vec<Group>,
    pub families: Vec<Family>,
    /// The "any state" markers, each the states it leaves out (none for "any state"), in
    /// the order their first family is declared.
    pub markers: Vec<Vec<StateId>>,
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
        let order = drawing_order(spec, &groups);
        let families = families(spec);
        let mut markers: Vec<Vec<StateId>> = Vec::new();
        for but in families.iter().filter_map(|f| f.any_but.as_ref()) {
            if !markers.contains(but) {
                markers.push(but.clone());
            }
        }
        let edges = match view {
            View::Overview => overview_edges(spec, &families, &markers, &order),
            View::Detail => detail_edges(spec, &families, &markers, &order),
        };
        Shape {
            spec,
            view,
            groups,
            families,
            markers,
            edges,
        }
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

    /// A marker's text: `any state`, `any state but open, granted`.
    pub fn marker_text(&self, marker: usize) -> String {
        let but = &self.markers[marker];
        if but.is_empty() {
            return "any state".to_string();
        }
        let names: Vec<&str> = but.iter().map(|s| self.spec.state_name(*s)).collect();
        format!("any state but {}", names.join(", "))
    }

    /// The number of edges drawn from each state (the marker not counted), by state id.
    pub fn out_degrees(&self) -> Vec<usize> {
        let mut out = vec![0; self.spec.states.len()];
        for edge in &self.edges {
            if let End::State(s) = edge.from {
                out[s as usize] += 1;
            }
        }
        out
    }
}

/// The spec's groups in the order their first state is declared, the initial state's group
/// moved first; ungrouped states form unnamed groups of one, in place.
fn groups(spec: &Spec) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, state) in spec.states.iter().enumerate() {
        let id = i as StateId;
        let name = state.group.as_ref().map(|g| g.to_string());
        match groups.iter_mut().find(|g| name.is_some() && g.name == name) {
            Some(group) => group.states.push(id),
            None => groups.push(Group {
                name,
                states: vec![id],
            }),
        }
    }
    if let Some(at) = groups.iter().position(|g| g.states.contains(&spec.initial)) {
        let group = groups.remove(at);
        groups.insert(0, group);
    }
    groups
}

/// Each state's position in the drawing order.
fn drawing_order(spec: &Spec, groups: &[Group]) -> Vec<usize> {
    let mut order = vec![0; spec.states.len()];
    for (position, id) in groups.iter().flat_map(|g| &g.states).enumerate() {
        order[*id as usize] = position;
    }
    order
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
            }),
        }
    }
    for family in &mut families {
        family.from.sort_unstable();
        let missing: Vec<StateId> = (0..spec.states.len() as StateId)
            .filter(|s| *s != family.to && !family.from.contains(s))
            .collect();
        if family.from.len() >= MIN_ANY_SOURCES && missing.len() <= MAX_EXCEPTIONS {
            family.any_but = Some(missing);
        }
    }
    families
}

/// Where a family is drawn from: its marker, or each state it leaves from.
fn sources(family: &Family, markers: &[Vec<StateId>]) -> Vec<End> {
    match &family.any_but {
        Some(but) => vec![End::Any(
            markers.iter().position(|m| m == but).unwrap_or_default(),
        )],
        None => family.from.iter().map(|s| End::State(*s)).collect(),
    }
}

fn overview_edges(
    spec: &Spec,
    families: &[Family],
    markers: &[Vec<StateId>],
    order: &[usize],
) -> Vec<Edge> {
    // (from, to) -> families, in the order the pair first appears.
    let mut pairs: Vec<(End, StateId, Vec<usize>)> = Vec::new();
    let mut add = |from: End, to: StateId, family: usize| match pairs
        .iter_mut()
        .find(|(f, t, _)| *f == from && *t == to)
    {
        Some((_, _, list)) => {
            if !list.contains(&family) {
                list.push(family);
            }
        }
        None => pairs.push((from, to, vec![family])),
    };
    for (i, family) in families.iter().enumerate() {
        for from in sources(family, markers) {
            add(from, family.to, i);
        }
    }
    pairs
        .into_iter()
        .map(|(from, to, list)| Edge {
            from,
            to,
            label: label::overview(
                spec,
                families,
                &list,
                if from == End::State(to) {
                    label::LOOP_LABEL
                } else {
                    label::OVERVIEW_LABEL
                },
            ),
            back: is_back(from, to, order),
            families: list,
        })
        .collect()
}

fn detail_edges(
    spec: &Spec,
    families: &[Family],
    markers: &[Vec<StateId>],
    order: &[usize],
) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (i, family) in families.iter().enumerate() {
        let label = label::detail(spec, family);
        for from in sources(family, markers) {
            edges.push(Edge {
                from,
                to: family.to,
                label: label.clone(),
                back: is_back(from, family.to, order),
                families: vec![i],
            });
        }
    }
    edges
}

fn is_back(from: End, to: StateId, order: &[usize]) -> bool {
    match from {
        End::Any(_) => false,
        End::State(from) => order[to as usize] < order[from as usize],
    }
}
