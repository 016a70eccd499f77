//! `[[region]]`: further state variables beside the main machine, each over the `[[state]]`s
//! that name it, moved by the `[[transition]]`s from those states, read by guards with `in`.
//!
//! ```toml
//! [[region]]
//! name = "tests"
//! initial = "stale"
//!
//! [[state]]
//! name = "stale"
//! region = "tests"
//!
//! [[state]]
//! name = "fresh"
//! region = "tests"
//! timeout_secs = 600          # fresh for 10 minutes after a passing run
//!
//! [[transition]]
//! from = "tests.*"            # every state of region `tests`
//! on = "checkpoint:tests_pass"
//! to = "fresh"
//! effects = []
//!
//! [[transition]]
//! from = "fresh"
//! on = "timeout"
//! to = "stale"
//!
//! [[transition]]
//! from = "*"                  # every state of the main machine
//! on = "tier:migration"
//! guard = { in = "tests.stale" }
//! effects = ["ask:migration_needs_tests"]
//! ```
//!
//! State names are unique across the spec (the store, the audit and `explain --state` name
//! a state alone); `in` takes a name or `REGION.STATE`, which must agree.

use super::{truncate, Names, Obj};
use crate::diag::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::ir::{Effect, Region, RegionId, Span, State, StateId};

/// Read every `[[region]]` (their names are already declared in `names`) once the states are
/// read: each region's initial state must be one of its own. A region whose initial state
/// is missing or wrong gets its first state (the error is reported).
pub(super) fn parse_all(
    tables: &[(&toml::de::DeTable<'_>, Span)],
    names: &Names,
    states: &Names,
    ir_states: &[State],
    diags: &mut Diagnostics,
) -> Vec<Region> {
    let mut out = Vec::new();
    for (r, ((t, span), (name, nspan))) in tables.iter().zip(&names.items).enumerate() {
        let o = Obj::new(t, *span, format!("[[region]] `{name}`"));
        o.check_keys(&["name", "initial"], diags);
        let own = |s: usize| ir_states.get(s).and_then(|st| st.region) == Some(r as RegionId);
        let first = (0..ir_states.len()).find(|&s| own(s));
        // A second declaration of a name is reported as such (its states are the first's).
        let dup = names.dups.contains(&r);
        if first.is_none() && !name.is_empty() && !dup {
            diags.push(
                Diagnostic::error(
                    Code::Region,
                    *nspan,
                    format!("region `{name}` has no states"),
                )
                .with_help(format!(
                    "give it states: `[[state]]` tables with `region = \"{name}\"`"
                )),
            );
        }
        let initial = o.req_str("initial", diags).and_then(|(n, s)| {
            let i = states.resolve(&n, s, diags)?;
            if own(i) || dup {
                return Some(i);
            }
            diags.push(
                Diagnostic::error(
                    Code::Region,
                    s,
                    format!("`{n}` is not a state of region `{name}`"),
                )
                .with_help(own_states_help(name, ir_states, &own)),
            );
            None
        });
        out.push(Region {
            name: name.clone().into(),
            span: *nspan,
            initial: initial.or(first).unwrap_or(0) as StateId,
        });
    }
    out
}

fn own_states_help(region: &str, ir_states: &[State], own: &dyn Fn(usize) -> bool) -> String {
    let list: Vec<&str> = (0..ir_states.len())
        .filter(|&s| own(s))
        .map(|s| ir_states[s].name.as_ref())
        .collect();
    if list.is_empty() {
        format!("region `{region}` has no states")
    } else {
        format!("the states of region `{region}`: {}", list.join(", "))
    }
}

/// A state's `region` key: the region it belongs to, if it names a declared one.
pub(super) fn of_state(
    o: &Obj<'_, '_>,
    regions: &Names,
    diags: &mut Diagnostics,
) -> Option<RegionId> {
    let (n, s) = o.str("region", diags)?;
    regions.resolve(&n, s, diags).map(|i| i as RegionId)
}

/// G027 for a region state that opens a window or withholds: only the main machine does.
pub(super) fn check_state(o: &Obj<'_, '_>, name: &str, region: &str, diags: &mut Diagnostics) {
    for key in ["window", "withhold"] {
        if let Some(v) = o.get(key) {
            diags.push(
                Diagnostic::error(
                    Code::Region,
                    super::span_of(v),
                    format!("state `{name}` of region `{region}` cannot `{key}`: only the main machine's states open windows and withhold"),
                )
                .with_help("guard a main-machine transition with `in` on this state instead"),
            );
        }
    }
}

/// The states a `from` entry names: `*` is every state of the main machine, `REGION.*`
/// every state of that region, anything else one state by name. `None` when it names
/// nothing (reported).
pub(super) fn expand_from(
    text: &str,
    span: Span,
    states: &Names,
    regions: &Names,
    ir_states: &[State],
    diags: &mut Diagnostics,
) -> Option<Vec<usize>> {
    let of = |r: Option<RegionId>| -> Vec<usize> {
        (0..ir_states.len())
            .filter(|&s| ir_states[s].region == r)
            .collect()
    };
    if text == "*" {
        return Some(of(None));
    }
    if let Some(region) = text.strip_suffix(".*") {
        let r = regions.resolve(region, span, diags)?;
        return Some(of(Some(r as RegionId)));
    }
    states.resolve(text, span, diags).map(|i| vec![i])
}

/// G027 unless every state a transition leaves from and goes to belongs to one state
/// variable, and unless a region's transition leaves windows alone.
pub(super) fn check_transition(
    span: Span,
    from: &[usize],
    to: Option<usize>,
    effects: &[Effect],
    ir_states: &[State],
    regions: &Names,
    diags: &mut Diagnostics,
) {
    let var = |s: usize| ir_states.get(s).map(|st| st.region);
    let var_name = |v: Option<RegionId>| match v {
        Some(r) => format!(
            "region `{}`",
            regions
                .items
                .get(r as usize)
                .map_or("?", |(n, _)| n.as_str())
        ),
        None => "the main machine".to_string(),
    };
    let Some(&first) = from.first() else {
        return;
    };
    let Some(v) = var(first) else {
        return;
    };
    let other = from
        .iter()
        .copied()
        .chain(to)
        .find(|&s| var(s).is_some_and(|w| w != v));
    if let Some(o) = other {
        diags.push(
            Diagnostic::error(
                Code::Region,
                span,
                format!(
                    "this transition joins {} and {}: a transition moves one state variable",
                    var_name(v),
                    var_name(var(o).flatten())
                ),
            )
            .with_help("write one transition per region; read another region's state with `guard = { in = \"REGION.STATE\" }`"),
        );
        return;
    }
    if let Some(r) = v {
        if effects
            .iter()
            .any(|e| matches!(e, Effect::Arm | Effect::Close))
        {
            diags.push(
                Diagnostic::error(
                    Code::Region,
                    span,
                    format!(
                        "a transition of {} cannot `arm` or `close`: only the main machine opens and closes windows",
                        var_name(Some(r))
                    ),
                )
                .with_help("give a main-machine transition the effect, guarded with `in` on this region's state"),
            );
        }
    }
}

/// A guard's `in`: states, each by name or as `REGION.STATE` (the region must be the
/// state's own).
pub(super) fn parse_in(
    o: &Obj<'_, '_>,
    states: &Names,
    regions: &Names,
    ir_states: &[State],
    diags: &mut Diagnostics,
) -> Vec<StateId> {
    let mut out = Vec::new();
    for (text, span) in o.strings("in", diags) {
        let (region, name) = match text.split_once('.') {
            Some((r, n)) => (Some(r), n),
            None => (None, text.as_str()),
        };
        let Some(i) = states.resolve(name, span, diags) else {
            continue;
        };
        let own = ir_states.get(i).and_then(|s| s.region);
        if let Some(r) = region {
            let Some(want) = regions.resolve(r, span, diags) else {
                continue;
            };
            if own != Some(want as RegionId) {
                let mut d = Diagnostic::error(
                    Code::UnknownName,
                    span,
                    format!("region `{r}` has no state `{name}`"),
                );
                let theirs = (0..ir_states.len())
                    .filter(|&s| ir_states[s].region == Some(want as RegionId))
                    .map(|s| ir_states[s].name.as_ref());
                if let Some(s) = did_you_mean(name, theirs) {
                    d = d.with_help(format!("did you mean `{r}.{s}`?"));
                } else {
                    d = d.with_help(format!(
                        "`{}` is a state of {}",
                        truncate(name),
                        own.map_or("the main machine".to_string(), |o| format!(
                            "region `{}`",
                            regions.items[o as usize].0
                        ))
                    ));
                }
                diags.push(d);
                continue;
            }
        }
        out.push(i as StateId);
    }
    out
}
