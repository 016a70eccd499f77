//! What a composed spec's own file does to what it inherits beyond merging by name: a
//! `[[tier]]` that `renames` an inherited tier (with every reference to it), an entry placed
//! `before` or `after` another, and `"..."` in a list standing for the inherited list.
//!
//! These keys belong to composition, not to the spec language: they are taken out of the
//! tree before it is read, and a file that extends nothing is told so when it uses them.

use crate::diag::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::ir::Span;
use std::borrow::Cow;
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

/// In a list the own file gives, this item stands for the inherited list.
pub const SPLICE: &str = "...";

/// The sections whose entries are named, and so can be placed among inherited ones.
const NAMED: [&str; 7] = [
    "tier",
    "rule",
    "signal",
    "checkpoint",
    "state",
    "role",
    "invariant",
];

/// The comparison operators a tier reference may start with (`">= high"`).
const OPERATORS: [&str; 5] = ["<=", ">=", "==", "<", ">"];

/// An entry of the own file to be moved next to another once the files are merged.
pub struct Placement {
    section: &'static str,
    name: String,
    anchor: String,
    anchor_span: Span,
    after: bool,
}

/// Apply every `renames` of the own file's `[[tier]]` entries to the inherited tree `acc`:
/// the inherited tier takes the new name, and so does every reference to it as a tier
/// (`default_tier`, a rule's or signal's `tier`, a guard's or invariant's `tier` comparison,
/// a `tier:` trigger, a role's `modes` key). By the convention the shipped specs follow, a
/// template named after the tier (`ask:protected`) and the record labels it prefixes
/// (`record:protected_asked`) are renamed with it; other templates and records keep their
/// names. The `renames` keys are taken out of `own`.
pub fn renames(own: &mut DeTable<'_>, acc: &mut DeTable<'_>, diags: &mut Diagnostics) {
    let inherited = entry_names(acc, "tier");
    let mut done: Vec<(String, String)> = Vec::new();
    for entry in entries_mut(own, "tier") {
        let Some(given) = entry.remove("renames") else {
            continue;
        };
        let at = Span::new(given.span());
        let DeValue::String(old) = given.get_ref() else {
            diags.push(Diagnostic::error(
                Code::InvalidValue,
                at,
                "`renames` names the inherited tier this one is",
            ));
            continue;
        };
        let old = old.to_string();
        let Some(new) = name_of(entry) else {
            continue;
        };
        if !inherited.contains(&old) {
            let d = Diagnostic::error(
                Code::UnknownName,
                at,
                format!("`renames`: no base declares a tier `{old}`"),
            );
            diags.push(
                match did_you_mean(&old, inherited.iter().map(String::as_str)) {
                    Some(s) => d.with_help(format!("did you mean `{s}`?")),
                    None => d.with_help(format!(
                        "the inherited tiers are {}",
                        list(inherited.iter().map(String::as_str))
                    )),
                },
            );
            continue;
        }
        if new != old && inherited.contains(&new) {
            diags.push(
                Diagnostic::error(
                    Code::Composition,
                    at,
                    format!("`{old}` cannot be renamed `{new}`: a base already declares a tier `{new}`"),
                )
                .with_help("give this tier a name no base uses, or change the inherited one by its own name"),
            );
            continue;
        }
        if let Some((_, first)) = done.iter().find(|(o, _)| *o == old) {
            diags.push(Diagnostic::error(
                Code::Composition,
                at,
                format!("the tier `{old}` is already renamed `{first}`"),
            ));
            continue;
        }
        done.push((old, new));
    }
    for (old, new) in &done {
        rename_in_table(acc, None, old, new);
    }
}

/// Take `before` / `after` out of the own file's named entries.
pub fn placements(own: &mut DeTable<'_>, diags: &mut Diagnostics) -> Vec<Placement> {
    let mut out = Vec::new();
    for section in NAMED {
        for entry in entries_mut(own, section) {
            let before = entry.remove("before");
            let after = entry.remove("after");
            let (given, is_after) = match (before, after) {
                (None, None) => continue,
                (Some(b), Some(a)) => {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            Span::new(a.span()),
                            "an entry is placed `before` or `after` another, not both",
                        )
                        .with_label(Span::new(b.span()), "`before` given here"),
                    );
                    continue;
                }
                (Some(b), None) => (b, false),
                (None, Some(a)) => (a, true),
            };
            let Some(name) = name_of(entry) else {
                continue;
            };
            let DeValue::String(anchor) = given.get_ref() else {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    Span::new(given.span()),
                    format!(
                        "`{}` names the [[{section}]] entry to place this one beside",
                        if is_after { "after" } else { "before" }
                    ),
                ));
                continue;
            };
            out.push(Placement {
                section,
                name,
                anchor: anchor.to_string(),
                anchor_span: Span::new(given.span()),
                after: is_after,
            });
        }
    }
    out
}

/// Move each placed entry of the merged tree next to its anchor.
pub fn place(acc: &mut DeTable<'_>, placements: Vec<Placement>, diags: &mut Diagnostics) {
    for p in placements {
        let Some(DeValue::Array(items)) = acc.get_mut(p.section).map(|v| v.get_mut()) else {
            continue;
        };
        let mut list: Vec<Spanned<DeValue<'_>>> = std::mem::replace(items, DeArray::new())
            .into_iter()
            .collect();
        let find = |list: &[Spanned<DeValue<'_>>], name: &str| {
            list.iter().position(|e| match e.get_ref() {
                DeValue::Table(t) => name_of(t).is_some_and(|n| n == name),
                _ => false,
            })
        };
        match (find(&list, &p.name), find(&list, &p.anchor)) {
            (Some(from), Some(_)) if p.name != p.anchor => {
                let entry = list.remove(from);
                let anchor = find(&list, &p.anchor).unwrap_or(list.len());
                list.insert(if p.after { anchor + 1 } else { anchor }, entry);
            }
            (_, Some(_)) => diags.push(Diagnostic::error(
                Code::InvalidValue,
                p.anchor_span,
                format!(
                    "[[{}]] `{}` cannot be placed beside itself",
                    p.section, p.name
                ),
            )),
            (_, None) => {
                let names: Vec<String> = list
                    .iter()
                    .filter_map(|e| match e.get_ref() {
                        DeValue::Table(t) => name_of(t),
                        _ => None,
                    })
                    .collect();
                let d = Diagnostic::error(
                    Code::UnknownName,
                    p.anchor_span,
                    format!("no [[{}]] is named `{}`", p.section, p.anchor),
                );
                diags.push(
                    match did_you_mean(&p.anchor, names.iter().map(String::as_str)) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None => d,
                    },
                );
            }
        }
        *items = list.into_iter().collect();
    }
}

/// The own file's list `value` with `"..."` replaced by the inherited list `existing`; `None`
/// when `value` has no `"..."`.
pub fn splice<'s>(
    existing: &Spanned<DeValue<'s>>,
    value: &Spanned<DeValue<'s>>,
) -> Option<Spanned<DeValue<'s>>> {
    let DeValue::Array(given) = value.get_ref() else {
        return None;
    };
    if !given.iter().any(is_splice) {
        return None;
    }
    let inherited: Vec<Spanned<DeValue<'s>>> = match existing.get_ref() {
        DeValue::Array(a) => a.iter().cloned().collect(),
        _ => vec![existing.clone()],
    };
    let mut out = DeArray::new();
    for item in given.iter() {
        if is_splice(item) {
            for i in &inherited {
                out.push(i.clone());
            }
        } else {
            out.push(item.clone());
        }
    }
    Some(Spanned::new(value.span(), DeValue::Array(out)))
}

/// Take every `"..."` out of a value that inherits nothing, returning where each was.
pub fn drop_splices(value: &mut Spanned<DeValue<'_>>) -> Vec<Span> {
    let mut found = Vec::new();
    match value.get_mut() {
        DeValue::Array(items) => {
            let list: Vec<Spanned<DeValue<'_>>> = std::mem::replace(items, DeArray::new())
                .into_iter()
                .collect();
            let mut kept = DeArray::new();
            for mut item in list {
                if is_splice(&item) {
                    found.push(Span::new(item.span()));
                } else {
                    found.extend(drop_splices(&mut item));
                    kept.push(item);
                }
            }
            *items = kept;
        }
        DeValue::Table(t) => {
            for (_, v) in t.iter_mut() {
                found.extend(drop_splices(v));
            }
        }
        _ => {}
    }
    found
}

/// The diagnostic for a `"..."` with no inherited list to stand for.
pub fn nothing_to_splice(at: Span) -> Diagnostic {
    Diagnostic::error(
        Code::InvalidValue,
        at,
        "`...` stands for the inherited list, and nothing is inherited here",
    )
    .with_help("`...` is for a list this spec changes of an entry it inherits through `extends`")
}

/// In a file that extends nothing, the keys of composition are mistakes: report and remove
/// them, so the parser does not report them a second time.
pub fn without_bases(own: &mut DeTable<'_>, diags: &mut Diagnostics) {
    for section in NAMED {
        for entry in entries_mut(own, section) {
            for key in ["renames", "before", "after", "relax"] {
                if (section != "tier" && key == "renames")
                    || (!matches!(section, "tier" | "rule") && key == "relax")
                {
                    continue;
                }
                if let Some((k, _)) = entry.remove_entry(key) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            Span::new(k.span()),
                            format!("`{key}` changes what a spec inherits, and this spec extends nothing"),
                        )
                        .with_help("`[machine] extends` names the specs this one builds on"),
                    );
                }
            }
        }
    }
    for (_, v) in own.iter_mut() {
        for at in drop_splices(v) {
            diags.push(nothing_to_splice(at));
        }
    }
}

fn is_splice(v: &Spanned<DeValue<'_>>) -> bool {
    matches!(v.get_ref(), DeValue::String(s) if s == SPLICE)
}

/// The named entries of a `[[section]]`, mutably.
pub(crate) fn entries_mut<'a, 's>(
    root: &'a mut DeTable<'s>,
    section: &str,
) -> impl Iterator<Item = &'a mut DeTable<'s>> {
    let items: &'a mut [Spanned<DeValue<'s>>] = match root.get_mut(section).map(|v| v.get_mut()) {
        Some(DeValue::Array(a)) => a,
        _ => &mut [],
    };
    items.iter_mut().filter_map(|e| match e.get_mut() {
        DeValue::Table(t) => Some(t),
        _ => None,
    })
}

/// The names of a `[[section]]`'s entries.
pub(crate) fn entry_names(root: &DeTable<'_>, section: &str) -> Vec<String> {
    match root.get(section).map(|v| v.get_ref()) {
        Some(DeValue::Array(a)) => a
            .iter()
            .filter_map(|e| match e.get_ref() {
                DeValue::Table(t) => name_of(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn name_of(entry: &DeTable<'_>) -> Option<String> {
    match entry.get("name").map(|v| v.get_ref()) {
        Some(DeValue::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Rename tier `old` to `new` wherever the tree names it as a tier. `key` is the key the
/// table is the value of (`None` at the top).
fn rename_in_table(t: &mut DeTable<'_>, key: Option<&str>, old: &str, new: &str) {
    if key == Some("modes") {
        if let Some((k, v)) = t.remove_entry(old) {
            let k = Spanned::new(k.span(), Cow::Owned(new.to_string()));
            t.insert(k, v);
        }
        return;
    }
    if key.is_none() {
        // The template named after the tier; its text is prose, and no reference.
        if let Some(DeValue::Table(templates)) = t.get_mut("template").map(|v| v.get_mut()) {
            if let Some((k, v)) = templates.remove_entry(old) {
                templates.insert(Spanned::new(k.span(), Cow::Owned(new.to_string())), v);
            }
        }
    }
    for (k, v) in t.iter_mut() {
        let k: &str = k.get_ref();
        if key.is_none() && k == "template" {
            continue;
        }
        rename_in_value(v, k, old, new);
    }
    // A tier entry's own name.
    if key == Some("tier") {
        if let Some(n) = t.get_mut("name") {
            if matches!(n.get_ref(), DeValue::String(s) if s == old) {
                *n.get_mut() = DeValue::String(Cow::Owned(new.to_string()));
            }
        }
    }
}

fn rename_in_value(v: &mut Spanned<DeValue<'_>>, key: &str, old: &str, new: &str) {
    match v.get_mut() {
        DeValue::String(s) => {
            if let Some(renamed) = renamed_ref(s, key, old, new) {
                *s = Cow::Owned(renamed);
            }
        }
        DeValue::Array(items) => {
            for item in items.iter_mut() {
                rename_in_value(item, key, old, new);
            }
        }
        DeValue::Table(t) => rename_in_table(t, Some(key), old, new),
        _ => {}
    }
}

/// The text of a tier reference with `old` renamed, if `text` under `key` is one.
fn renamed_ref(text: &str, key: &str, old: &str, new: &str) -> Option<String> {
    match key {
        "tier" | "default_tier" => {
            let trimmed = text.trim();
            let (op, name) = OPERATORS
                .iter()
                .find_map(|op| trimmed.strip_prefix(op).map(|rest| (*op, rest)))
                .unwrap_or(("", trimmed));
            (name.trim() == old).then(|| {
                let pad = &name[..name.len() - name.trim_start().len()];
                format!("{op}{pad}{new}")
            })
        }
        "on" => (text.trim().strip_prefix("tier:")?.trim() == old).then(|| format!("tier:{new}")),
        // Effects and withholding that name the tier's template or records.
        "effects" | "withhold" => {
            let (head, arg) = text.split_once(':')?;
            match head.trim() {
                "ask" | "deny" | "steer" => (arg.trim() == old).then(|| format!("{head}:{new}")),
                "record" => {
                    let rest = arg.trim().strip_prefix(old)?;
                    (rest.is_empty() || rest.starts_with('_'))
                        .then(|| format!("{head}:{new}{rest}"))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_references_keep_their_operator() {
        let r = |text, key| renamed_ref(text, key, "protected", "destructive");
        assert_eq!(r("protected", "tier").as_deref(), Some("destructive"));
        assert_eq!(r(">= protected", "tier").as_deref(), Some(">= destructive"));
        assert_eq!(r("<protected", "tier").as_deref(), Some("<destructive"));
        assert_eq!(
            r("tier:protected", "on").as_deref(),
            Some("tier:destructive")
        );
        assert_eq!(
            r("protected", "default_tier").as_deref(),
            Some("destructive")
        );
        // Other names, other keys and other triggers are no references to it.
        assert_eq!(r("protected_area", "tier"), None);
        assert_eq!(r("signal:protected", "on"), None);
        assert_eq!(r("protected", "name"), None);
        // The template named after the tier, and the records it prefixes.
        assert_eq!(
            r("ask:protected", "effects").as_deref(),
            Some("ask:destructive")
        );
        assert_eq!(
            r("ask:protected", "withhold").as_deref(),
            Some("ask:destructive")
        );
        assert_eq!(
            r("record:protected_asked", "effects").as_deref(),
            Some("record:destructive_asked")
        );
        assert_eq!(r("record:protectedness", "effects"), None);
        assert_eq!(r("steer:approved_done", "effects"), None);
        assert_eq!(r("ask:protected", "on"), None);
    }
}
