//! Relaxing what a spec inherits: the spec's own file may lower an inherited rule's tier or
//! an inherited tier's mode only where it says so (`relax = true` in that entry); a lowering
//! it does not mark is an error (G025), and so is a `relax` that lowers nothing.
//!
//! Without this a re-tiering typo or a copied `mode = "steer"` would weaken a base's policy
//! silently (the spec's own value replaces the inherited one). Lowering is judged on the
//! composed spec: a rule's tier against the merged risk order (the spec's own tiers placed),
//! a mode against observe < steer < reversible < gate.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::Span;
use crate::refine::{entries_mut, entry_names, name_of};
use toml::de::{DeTable, DeValue};

/// The modes, weakest first (as `ir::Mode` orders them).
const MODES: [&str; 4] = ["observe", "steer", "reversible", "gate"];

/// The sections `relax` applies to, and the key whose lowering it allows.
const RELAXABLE: [(&str, &str); 2] = [("rule", "tier"), ("tier", "mode")];

/// One change the own file makes to an inherited entry's tier or mode.
pub struct Lowering {
    section: &'static str,
    name: String,
    key: &'static str,
    inherited: String,
    given: String,
    at: Span,
    relax: Option<Span>,
}

/// Take `relax` out of the own file's entries and note every inherited tier or mode the own
/// file gives (before the merge replaces it). A `relax` on an entry that inherits nothing, or
/// that is not `true`, is reported here.
pub fn noted(own: &mut DeTable<'_>, acc: &DeTable<'_>, diags: &mut Diagnostics) -> Vec<Lowering> {
    let mut out = Vec::new();
    for (section, key) in RELAXABLE {
        let inherited = entry_names(acc, section);
        for entry in entries_mut(own, section) {
            let relax = entry.remove("relax").and_then(|v| match v.get_ref() {
                DeValue::Boolean(true) => Some(Span::new(v.span())),
                _ => {
                    diags.push(Diagnostic::error(
                        Code::InvalidValue,
                        Span::new(v.span()),
                        "`relax` is `true` where this spec lowers what it inherits, and absent elsewhere",
                    ));
                    None
                }
            });
            let Some(name) = name_of(entry) else {
                continue;
            };
            if !inherited.contains(&name) {
                if let Some(at) = relax {
                    diags.push(
                        Diagnostic::error(
                            Code::Relaxes,
                            at,
                            format!(
                                "`relax`: no spec this one extends declares a {section} `{name}`"
                            ),
                        )
                        .with_help("`relax = true` marks a change that lowers an inherited entry"),
                    );
                }
                continue;
            }
            let given = entry.get(key).and_then(|v| match v.get_ref() {
                DeValue::String(s) => Some((s.to_string(), Span::new(v.span()))),
                _ => None,
            });
            let old = value_of(acc, section, &name, key);
            match (given, old) {
                (Some((given, at)), Some(inherited)) => out.push(Lowering {
                    section,
                    name,
                    key,
                    inherited,
                    given,
                    at,
                    relax,
                }),
                _ => {
                    if let Some(at) = relax {
                        diags.push(nothing_lowered(at, section, &name, key));
                    }
                }
            }
        }
    }
    out
}

/// Report, on the merged tree, each noted change that lowers without `relax` and each
/// `relax` that lowers nothing.
pub fn check(merged: &DeTable<'_>, noted: Vec<Lowering>, diags: &mut Diagnostics) {
    let tiers = entry_names(merged, "tier");
    for l in noted {
        let rank = |v: &str| match l.key {
            "tier" => tiers.iter().position(|t| t == v),
            _ => MODES.iter().position(|m| *m == v),
        };
        let lowers = matches!((rank(&l.inherited), rank(&l.given)), (Some(a), Some(b)) if b < a);
        match (lowers, l.relax) {
            (true, None) => diags.push(
                Diagnostic::error(
                    Code::Relaxes,
                    l.at,
                    format!(
                        "this lowers the inherited {} `{}` from {} `{}` to `{}`",
                        l.section, l.name, l.key, l.inherited, l.given
                    ),
                )
                .with_help(format!(
                    "a spec that extends another only adds to it unless it says otherwise: write `relax = true` in this [[{}]] to mean it (`gate diff` lists relaxations first)",
                    l.section
                )),
            ),
            (false, Some(at)) => diags.push(nothing_lowered(at, l.section, &l.name, l.key)),
            _ => {}
        }
    }
}

fn nothing_lowered(at: Span, section: &str, name: &str, key: &str) -> Diagnostic {
    Diagnostic::error(
        Code::Relaxes,
        at,
        format!("`relax`: this [[{section}]] `{name}` does not lower its inherited `{key}`"),
    )
    .with_help("`relax = true` marks only a change to a lower tier or a weaker mode; remove it")
}

/// The string value of `key` in the entry `name` of `[[section]]`.
fn value_of(root: &DeTable<'_>, section: &str, name: &str, key: &str) -> Option<String> {
    let DeValue::Array(items) = root.get(section)?.get_ref() else {
        return None;
    };
    items.iter().find_map(|e| {
        let DeValue::Table(t) = e.get_ref() else {
            return None;
        };
        if name_of(t).as_deref() != Some(name) {
            return None;
        }
        match t.get(key)?.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            _ => None,
        }
    })
}
