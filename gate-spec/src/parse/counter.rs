//! `[[counter]]`: bounded counters, the `inc:NAME` / `reset:NAME` effects that change them and
//! the `counter` guard that compares one with a constant, with the same diagnostics (codes,
//! spans, "did you mean") as every other section.
//!
//! ```toml
//! [[counter]]
//! name = "edits_since_green"
//! max = 41                      # saturates: an inc at 41 stays 41
//!
//! [[transition]]
//! from = "*"
//! on = "tier:routine"
//! guard = { kind = "edit", counter = "edits_since_green >= 40" }
//! effects = ["inc:edits_since_green", "steer:too_many_edits"]
//! ```

use super::{inner_span, truncate, Names, Obj};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Counter, CounterGuard, CounterId, Effect, Span};
use toml::de::DeTable;

/// The largest `max` a counter may have: every value up to it is a state `gate verify`
/// explores, times every other counter's and every control state.
pub const MAX_MAX: i64 = 1000;

/// The comparison operators of a counter guard, longest first (so `>=` is not read as `>`).
const OPS: [&str; 5] = [">=", "<=", "==", ">", "<"];

/// Read every `[[counter]]` (their names are already declared in `names`).
pub(super) fn parse_all(
    tables: &[(&DeTable<'_>, Span)],
    names: &Names,
    diags: &mut Diagnostics,
) -> Vec<Counter> {
    let mut out = Vec::new();
    for ((t, span), (name, nspan)) in tables.iter().zip(&names.items) {
        let o = Obj::new(t, *span, format!("[[counter]] `{name}`"));
        o.check_keys(&["name", "max"], diags);
        let max = match o.int("max", 1, MAX_MAX, diags) {
            Some((n, _)) => n as u16,
            None => {
                if o.get("max").is_none() {
                    o.missing("max", diags);
                }
                1
            }
        };
        out.push(Counter {
            name: name.clone().into(),
            span: *nspan,
            max,
        });
    }
    out
}

/// The `counter` key of a guard: one comparison or a list of them, all of which must hold.
/// Two comparisons of one counter meet in one range.
pub(super) fn parse_guard(
    source: &str,
    o: &Obj<'_, '_>,
    names: &Names,
    counters: &[Counter],
    diags: &mut Diagnostics,
) -> Vec<CounterGuard> {
    let mut out: Vec<CounterGuard> = Vec::new();
    for (text, span) in o.strings("counter", diags) {
        let Some(g) = comparison(source, &text, span, names, counters, diags) else {
            continue;
        };
        match out.iter_mut().find(|x| x.counter == g.counter) {
            Some(x) => {
                x.lo = x.lo.max(g.lo);
                x.hi = x.hi.min(g.hi);
                if x.lo > x.hi {
                    diags.push(Diagnostic::error(
                        Code::InvalidValue,
                        span,
                        format!(
                            "`{}` contradicts the other condition on this counter: this guard can never hold",
                            truncate(text.trim())
                        ),
                    ));
                }
            }
            None => out.push(g),
        }
    }
    out
}

/// One comparison `NAME OP N` as the range of values it admits.
fn comparison(
    source: &str,
    text: &str,
    span: Span,
    names: &Names,
    counters: &[Counter],
    diags: &mut Diagnostics,
) -> Option<CounterGuard> {
    let t = text.trim();
    let found = OPS
        .iter()
        .find_map(|op| t.find(op).map(|at| (at, *op)))
        .map(|(at, op)| (t[..at].trim(), op, t[at + op.len()..].trim()));
    let Some((name, op, value)) = found else {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                span,
                format!("`counter` guard `{}` is not a comparison", truncate(t)),
            )
            .with_help("write `NAME OP N` with OP one of >=, >, <=, <, == (`edits >= 40`)"),
        );
        return None;
    };
    let name_at = inner_span(source, span, 1, name);
    let id = names.resolve(name, name_at, diags)?;
    let max = counters.get(id).map_or(0, |c| c.max);
    let Ok(n) = value.parse::<u32>() else {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                span,
                format!(
                    "`{}` compares the counter with `{}`, which is not a whole number",
                    truncate(t),
                    truncate(value)
                ),
            )
            .with_help(format!(
                "a counter is compared with a constant from 0 to its max ({max})"
            )),
        );
        return None;
    };
    let max32 = u32::from(max);
    let (lo, hi) = match op {
        ">=" => (n, max32),
        ">" => (n.saturating_add(1), max32),
        "<=" => (0, n.min(max32)),
        "<" if n == 0 => (1, 0),
        "<" => (0, (n - 1).min(max32)),
        _ => (n, n),
    };
    if lo > hi || lo > max32 {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                span,
                format!(
                    "counter `{name}` is never {op} {n}: it counts from 0 to {max}, so this guard can never hold"
                ),
            )
            .with_help(format!("raise its `max`, or compare with a value up to {max}")),
        );
        return None;
    }
    Some(CounterGuard {
        counter: id as CounterId,
        lo: lo as u16,
        hi: hi.min(max32) as u16,
    })
}

/// `inc:NAME` or `reset:NAME`, when `head` is one of them; `None` for any other effect.
pub(super) fn parse_effect(
    source: &str,
    head: &str,
    arg: &str,
    span: Span,
    names: &Names,
    diags: &mut Diagnostics,
) -> Option<Option<Effect>> {
    let make: fn(CounterId) -> Effect = match head {
        "inc" => |counter| Effect::Inc { counter },
        "reset" => |counter| Effect::Reset { counter },
        _ => return None,
    };
    let at = inner_span(source, span, 1 + head.len() + 1, arg);
    Some(names.resolve(arg, at, diags).map(|i| make(i as CounterId)))
}
