//! What a change to a spec changes in its text, item by item: the tiers, rules, states,
//! transitions, signals, roles and templates added, removed or changed between two specs.
//! Items are matched by name (a transition by its source, trigger and guard) and compared by
//! a canonical description with every id resolved to its name and every span left out, so
//! moving an item in the file or renumbering what it refers to is no change.

use serde::Serialize;
use serde_json::Value;

use crate::diagram::{effect_text, guard_text};
use crate::ir::{Block, Mode, Spec, Transition};

/// How an item changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

/// One item that differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// `tier`, `rule`, `state`, `transition`, `signal`, `role` or `template`.
    pub section: &'static str,
    /// The item's name (a transition's `from --trigger--> [guard]`).
    pub item: String,
    pub kind: ChangeKind,
    /// Its description in the old and the new spec.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// A value's JSON with every `span` left out.
fn without_spans(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("span");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn json_of(v: &impl Serialize) -> Value {
    without_spans(serde_json::to_value(v).unwrap_or(Value::Null))
}

/// A transition's identity: `from --trigger--> [guard]`.
fn transition_key(spec: &Spec, t: &Transition) -> String {
    let guard = guard_text(spec, &t.guard);
    let mut key = format!(
        "{} --{}-->",
        spec.state_name(t.from),
        spec.trigger_text(t.trigger)
    );
    if !guard.is_empty() {
        key.push_str(&format!(" [{guard}]"));
    }
    key
}

fn transition_text(spec: &Spec, t: &Transition) -> String {
    let effects: Vec<String> = t.effects.iter().map(|e| effect_text(spec, e)).collect();
    format!(
        "to {}; effects [{}]",
        spec.state_name(t.to),
        effects.join(", ")
    )
}

/// Every item of one section of a spec, as (name, description), in declaration order.
fn items(spec: &Spec, section: &str) -> Vec<(String, String)> {
    let mode = |m: Option<Mode>| m.map_or("-", Mode::as_str);
    match section {
        "tier" => spec
            .tiers
            .iter()
            .map(|t| {
                let mut v = json_of(t);
                if let Value::Object(map) = &mut v {
                    map.remove("name");
                }
                (t.name.to_string(), v.to_string())
            })
            .collect(),
        "rule" => spec
            .rules
            .iter()
            .map(|r| {
                let mut v = json_of(r);
                if let Value::Object(map) = &mut v {
                    map.remove("name");
                    map.insert(
                        "tier".into(),
                        r.tier.map_or(Value::Null, |t| spec.tier_name(t).into()),
                    );
                    map.insert(
                        "kind".into(),
                        r.kind.map_or(Value::Null, |k| {
                            spec.kinds[k as usize].name.to_string().into()
                        }),
                    );
                }
                (r.name.to_string(), v.to_string())
            })
            .collect(),
        "state" => spec
            .states
            .iter()
            .map(|s| {
                let withhold = s.withhold.as_ref().map_or("none".to_string(), |w| {
                    let block = match w.block {
                        Block::Ask => "ask",
                        Block::Deny => "deny",
                    };
                    format!(
                        "{block}:{}",
                        spec.templates
                            .get(w.template as usize)
                            .map_or("?", |t| &t.name)
                    )
                });
                let region = s.region.map_or(String::new(), |r| {
                    let name = spec.regions.get(r as usize).map_or("?", |r| &r.name);
                    format!(", region {name}")
                });
                (
                    s.name.to_string(),
                    format!("window {}, withhold {withhold}{region}", s.window),
                )
            })
            .collect(),
        "transition" => spec
            .transitions
            .iter()
            .map(|t| (transition_key(spec, t), transition_text(spec, t)))
            .collect(),
        "signal" => spec
            .signals
            .iter()
            .map(|s| {
                let mut v = json_of(s);
                if let Value::Object(map) = &mut v {
                    map.remove("name");
                }
                (s.name.to_string(), v.to_string())
            })
            .collect(),
        "role" => spec
            .roles
            .iter()
            .map(|r| {
                let modes: Vec<String> = r
                    .modes
                    .iter()
                    .enumerate()
                    .map(|(t, m)| format!("{}={}", spec.tier_name(t as u8), mode(*m)))
                    .collect();
                let types: Vec<&str> = r.subagent_types.iter().map(|p| &*p.text).collect();
                let env: Vec<String> = r.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                (
                    r.name.to_string(),
                    format!(
                        "modes [{}]; subagent types [{}]; env [{}]",
                        modes.join(", "),
                        types.join(", "),
                        env.join(", ")
                    ),
                )
            })
            .collect(),
        "template" => spec
            .templates
            .iter()
            .map(|t| (t.name.to_string(), json_of(&t.parts).to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The sections compared, in the order changes are listed.
pub const SECTIONS: [&str; 7] = [
    "tier",
    "rule",
    "state",
    "transition",
    "signal",
    "role",
    "template",
];

/// Every item added, removed or changed from `old` to `new`, section by section (in
/// [`SECTIONS`] order), removed and changed items in `old`'s order, then added ones in
/// `new`'s.
pub fn changes(old: &Spec, new: &Spec) -> Vec<Change> {
    let mut out = Vec::new();
    for section in SECTIONS {
        let before = items(old, section);
        let after = items(new, section);
        let find = |list: &[(String, String)], key: &str| {
            list.iter().find(|(k, _)| k == key).map(|(_, d)| d.clone())
        };
        for (key, desc) in &before {
            match find(&after, key) {
                None => out.push(Change {
                    section,
                    item: key.clone(),
                    kind: ChangeKind::Removed,
                    before: Some(desc.clone()),
                    after: None,
                }),
                Some(d) if d != *desc => out.push(Change {
                    section,
                    item: key.clone(),
                    kind: ChangeKind::Changed,
                    before: Some(desc.clone()),
                    after: Some(d),
                }),
                Some(_) => {}
            }
        }
        for (key, desc) in &after {
            if find(&before, key).is_none() {
                out.push(Change {
                    section,
                    item: key.clone(),
                    kind: ChangeKind::Added,
                    before: None,
                    after: Some(desc.clone()),
                });
            }
        }
    }
    out
}

/// One thing the new spec answers less strictly than the old by its text: a rule set to a
/// lower tier (or removed), a tier with a weaker mode (or removed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Relaxation {
    /// `rule` or `tier`.
    pub section: &'static str,
    pub item: String,
    /// What was lowered: a rule's `tier`, a tier's `mode`.
    pub key: &'static str,
    pub before: String,
    /// The new value, or `removed`.
    pub after: String,
}

/// A tier's place in the risk order, by name: in the new spec when it has both names, else
/// in the old one.
fn rank(old: &Spec, new: &Spec, a: &str, b: &str) -> Option<(usize, usize)> {
    let at = |spec: &Spec, n: &str| spec.tiers.iter().position(|t| *t.name == *n);
    let both = |spec: &Spec| Some((at(spec, a)?, at(spec, b)?));
    both(new).or_else(|| both(old))
}

/// Every relaxation from `old` to `new`, rules first, each in the old spec's order.
pub fn relaxations(old: &Spec, new: &Spec) -> Vec<Relaxation> {
    let mut out = Vec::new();
    for rule in &old.rules {
        let Some(before) = rule.tier.map(|t| old.tier_name(t).to_string()) else {
            continue;
        };
        let after = match new.rules.iter().find(|r| r.name == rule.name) {
            None => "removed".to_string(),
            Some(r) => match r.tier {
                Some(t) => new.tier_name(t).to_string(),
                None => "none".to_string(),
            },
        };
        let lower = match rank(old, new, &before, &after) {
            Some((b, a)) => a < b,
            None => after == "removed" || after == "none",
        };
        if lower {
            out.push(Relaxation {
                section: "rule",
                item: rule.name.to_string(),
                key: "tier",
                before,
                after,
            });
        }
    }
    for tier in &old.tiers {
        let now = new.tiers.iter().find(|t| t.name == tier.name);
        if now.is_some_and(|t| t.mode >= tier.mode) {
            continue;
        }
        out.push(Relaxation {
            section: "tier",
            item: tier.name.to_string(),
            key: "mode",
            before: tier.mode.as_str().to_string(),
            after: now.map_or("removed", |t| t.mode.as_str()).to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
[machine]
name = "d"
initial = "idle"
kinds = ["k"]

[[tier]]
name = "low"
mode = "steer"
max_actions = 5

[[tier]]
name = "high"
mode = "gate"
max_actions = 5

[[rule]]
name = "push"
commands = ["git push"]
tier = "high"

[[state]]
name = "idle"

[[transition]]
from = "idle"
on = "tier:high"
effects = ["ask:why"]

[template]
why = "why"
"#;

    fn compile(source: &str) -> Spec {
        let (spec, diags) = crate::compile(source);
        spec.unwrap_or_else(|| panic!("{:?}", diags.items))
    }

    #[test]
    fn a_spec_has_no_changes_against_itself_even_moved() {
        let spec = compile(SPEC);
        assert!(changes(&spec, &spec).is_empty());
        let moved = compile(&format!("\n\n# moved\n{SPEC}"));
        assert!(changes(&spec, &moved).is_empty());
    }

    #[test]
    fn added_removed_and_changed_items_are_listed() {
        let old = compile(SPEC);
        let new = compile(
            &(SPEC
                .replace("effects = [\"ask:why\"]", "effects = [\"deny:why\"]")
                .replace("commands = [\"git push\"]", "commands = [\"git push --force\"]")
                + "\n[[state]]\nname = \"held\"\n\n[[transition]]\nfrom = \"idle\"\non = \"event:stop\"\nto = \"held\"\n\n[[transition]]\nfrom = \"held\"\non = \"event:prompt\"\nto = \"idle\"\n"),
        );
        let got: Vec<(String, String, ChangeKind)> = changes(&old, &new)
            .into_iter()
            .map(|c| (c.section.to_string(), c.item, c.kind))
            .collect();
        assert_eq!(
            got,
            [
                ("rule", "push", ChangeKind::Changed),
                ("state", "held", ChangeKind::Added),
                ("transition", "idle --tier:high-->", ChangeKind::Changed),
                ("transition", "idle --event:stop-->", ChangeKind::Added),
                ("transition", "held --event:prompt-->", ChangeKind::Added),
            ]
            .map(|(s, i, k)| (s.to_string(), i.to_string(), k))
        );
        let c = &changes(&old, &new)[2];
        assert_eq!(c.before.as_deref(), Some("to idle; effects [ask:why]"));
        assert_eq!(c.after.as_deref(), Some("to idle; effects [deny:why]"));
    }

    #[test]
    fn lowered_rules_and_modes_are_relaxations_and_raises_are_not() {
        let old = compile(SPEC);
        assert!(relaxations(&old, &old).is_empty());
        let lowered = compile(&SPEC.replace("tier = \"high\"", "tier = \"low\""));
        let got = relaxations(&old, &lowered);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            (
                got[0].section,
                got[0].item.as_str(),
                got[0].before.as_str(),
                got[0].after.as_str()
            ),
            ("rule", "push", "high", "low")
        );
        // The other way is a raise.
        assert!(relaxations(&lowered, &old).is_empty());
        let weaker = compile(&SPEC.replace("mode = \"gate\"", "mode = \"steer\""));
        let got = relaxations(&old, &weaker);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!((got[0].section, got[0].key), ("tier", "mode"));
        assert!(relaxations(&weaker, &old).is_empty());
    }
}
