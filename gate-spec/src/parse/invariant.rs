//! `[[invariant]]`: reading and checking the invariants a spec declares about itself, with
//! the same diagnostics (codes, spans, "did you mean") as every other section.
//!
//! ```toml
//! [[invariant]]
//! name = "blocked_is_never_allowed"
//! tier = ">= blocked"          # which events: state, window, phase, tier, kind, role,
//! never = ["allow", "steer"]   # signal, first, approved, timeout, backstop; then one
//!                              # claim: never, always or reachable
//! ```

use super::{section_tables, span_of, truncate, Names, Obj};
use crate::diag::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::invariant::{Answer, Claim, Invariant, When};
use crate::ir::{KindId, Phase, SignalId, Span, StateId, TierId};
use toml::de::DeTable;

/// The keys an invariant may have.
const KEYS: [&str; 15] = [
    "name",
    "state",
    "window",
    "phase",
    "tier",
    "kind",
    "role",
    "signal",
    "first",
    "approved",
    "timeout",
    "backstop",
    "never",
    "always",
    "reachable",
];

/// The declared names an invariant refers to.
pub(super) struct Scope<'a> {
    pub states: &'a Names,
    pub tiers: &'a Names,
    pub kinds: &'a Names,
    pub roles: &'a Names,
    pub signals: &'a Names,
}

/// Every `[[invariant]]` of the spec.
pub(super) fn parse_all(
    root: &DeTable<'_>,
    names: &Scope<'_>,
    diags: &mut Diagnostics,
) -> Vec<Invariant> {
    let mut declared = Names::new("invariant");
    let mut out = Vec::new();
    for (table, span) in section_tables(root, "invariant", diags) {
        let o = Obj::new(table, span, "`[[invariant]]`");
        o.check_keys(&KEYS, diags);
        let name = o.req_str("name", diags);
        if let Some((n, s)) = &name {
            super::check_ident(n, *s, "invariant", diags);
            declared.declare(n.clone(), *s, diags);
        }
        let when = when(&o, names, diags);
        let claim = claim(&o, span, names, &when, diags);
        if let (Some((name, _)), Some(claim)) = (name, claim) {
            out.push(Invariant {
                name: name.into(),
                span,
                when,
                claim,
            });
        }
    }
    out
}

fn resolve_all<T>(
    o: &Obj<'_, '_>,
    key: &str,
    names: &Names,
    id: impl Fn(usize) -> T,
    diags: &mut Diagnostics,
) -> Vec<T> {
    o.strings(key, diags)
        .into_iter()
        .filter_map(|(n, s)| names.resolve(&n, s, diags).map(&id))
        .collect()
}

fn when(o: &Obj<'_, '_>, names: &Scope<'_>, diags: &mut Diagnostics) -> When {
    let phases = o
        .strings("phase", diags)
        .into_iter()
        .filter_map(|(text, s)| {
            super::parse_enum(&text, s, "phase", &Phase::ALL, Phase::as_str, diags)
        })
        .collect();
    let roles = super::role_list(o, names.roles, diags);
    When {
        states: resolve_all(o, "state", names.states, |i| i as StateId, diags),
        window: o.bool("window", diags),
        phases,
        tier: o
            .str("tier", diags)
            .and_then(|(text, span)| tier_range(&text, span, names.tiers, diags)),
        kinds: resolve_all(o, "kind", names.kinds, |i| i as KindId, diags),
        roles,
        signals: resolve_all(o, "signal", names.signals, |i| i as SignalId, diags),
        first: o.bool("first", diags),
        approved: o.bool("approved", diags),
        timeout: o.bool("timeout", diags),
        backstop: o.bool("backstop", diags),
    }
}

/// `"NAME"`, `"== NAME"`, `"< NAME"`, `"<= NAME"`, `"> NAME"`, `">= NAME"`: a range of tiers
/// in risk order (the syntax of a guard's `tier`).
fn tier_range(
    text: &str,
    span: Span,
    tiers: &Names,
    diags: &mut Diagnostics,
) -> Option<(TierId, TierId)> {
    let t = text.trim();
    let (op, name) = ["<=", ">=", "==", "<", ">"]
        .iter()
        .find_map(|op| t.strip_prefix(op).map(|rest| (*op, rest.trim())))
        .unwrap_or(("==", t));
    let id = tiers.resolve(name, span, diags)? as TierId;
    let max = tiers.items.len().saturating_sub(1) as TierId;
    let range = match op {
        "<=" => Some((0, id)),
        ">=" => Some((id, max)),
        "<" => id.checked_sub(1).map(|hi| (0, hi)),
        ">" => (id < max).then_some((id + 1, max)),
        _ => Some((id, id)),
    };
    if range.is_none() {
        diags.push(Diagnostic::error(
            Code::InvalidValue,
            span,
            format!("no tier is {op} `{name}`: this invariant would speak of nothing"),
        ));
    }
    range
}

fn answers(o: &Obj<'_, '_>, key: &str, diags: &mut Diagnostics) -> Vec<Answer> {
    let mut out = Vec::new();
    for (text, s) in o.strings(key, diags) {
        match Answer::parse(&text) {
            Some(a) => out.push(a),
            None => {
                let all = Answer::ALL.map(Answer::as_str);
                let mut d = Diagnostic::error(
                    Code::InvalidValue,
                    s,
                    format!("unknown answer `{}`", truncate(&text)),
                );
                d = match did_you_mean(&text, all) {
                    Some(m) => d.with_help(format!("did you mean `{m}`?")),
                    None => d.with_help("an answer is one of allow, steer, ask, deny"),
                };
                diags.push(d);
            }
        }
    }
    out
}

fn claim(
    o: &Obj<'_, '_>,
    span: Span,
    names: &Scope<'_>,
    when: &When,
    diags: &mut Diagnostics,
) -> Option<Claim> {
    let given: Vec<&str> = ["never", "always", "reachable"]
        .into_iter()
        .filter(|k| o.get(k).is_some())
        .collect();
    match given.as_slice() {
        [] => {
            diags.push(
                Diagnostic::error(
                    Code::MissingKey,
                    span,
                    "`[[invariant]]` needs a claim: `never`, `always` or `reachable`",
                )
                .with_help("e.g. `never = \"allow\"` with `tier = \">= forbidden\"`"),
            );
            None
        }
        [key] => {
            let at = o.get(key).map_or(span, span_of);
            let empty = |diags: &mut Diagnostics| {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    at,
                    format!("`{key}` must name at least one item"),
                ));
            };
            match *key {
                "never" | "always" => {
                    let list = answers(o, key, diags);
                    if list.is_empty() {
                        empty(diags);
                        return None;
                    }
                    Some(if *key == "never" {
                        Claim::Never(list)
                    } else {
                        Claim::Always(list)
                    })
                }
                _ => {
                    let events = [
                        ("phase", !when.phases.is_empty()),
                        ("tier", when.tier.is_some()),
                        ("kind", !when.kinds.is_empty()),
                        ("signal", !when.signals.is_empty()),
                        ("approved", when.approved.is_some()),
                        ("timeout", when.timeout.is_some()),
                        ("backstop", when.backstop.is_some()),
                    ];
                    for (k, present) in events {
                        if present {
                            let at = o.get(k).map_or(span, span_of);
                            diags.push(
                                Diagnostic::error(
                                    Code::InvalidValue,
                                    at,
                                    format!(
                                        "`{k}` speaks of events; a `reachable` invariant speaks of states"
                                    ),
                                )
                                .with_help("keep `state`, `window`, `role` and `first`, or claim `never`/`always`"),
                            );
                        }
                    }
                    let list = resolve_all(o, "reachable", names.states, |i| i as StateId, diags);
                    if list.is_empty() {
                        empty(diags);
                        return None;
                    }
                    Some(Claim::Reach(list))
                }
            }
        }
        [first, second, ..] => {
            let at = o.get(second).map_or(span, span_of);
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    at,
                    format!("an invariant makes one claim; `{first}` is already given"),
                )
                .with_help("split it into two `[[invariant]]`s"),
            );
            None
        }
    }
}
