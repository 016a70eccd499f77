//! The Markdown tables under a diagram: what the drawing leaves out (every transition with its
//! guard and full effects, the tiers with their modes and backstops, the roles, the rules
//! with their patterns), in the spec's own order and syntax.

use super::shape::Family;
use super::{effect_text, guard_text};
use crate::ir::{Block, Effect, Pattern, Rule, Spec, StateId};
use std::fmt::Write as _;

/// A table cell: pipes escaped, line breaks as `<br>`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', "<br>")
}

/// A code span that survives any backticks inside it, for a table cell.
fn code(text: &str) -> String {
    let fence = if text.contains('`') { "`` " } else { "`" };
    let close = if text.contains('`') { " ``" } else { "`" };
    cell(&format!("{fence}{text}{close}"))
}

fn codes(patterns: &[Pattern]) -> String {
    let items: Vec<String> = patterns.iter().map(|p| code(&p.text)).collect();
    items.join(", ")
}

/// The states: group, and what holds while the machine is in each.
pub fn states(spec: &Spec, out: &mut String) {
    out.push_str("| State | Group | While in it |\n|---|---|---|\n");
    for (i, state) in spec.states.iter().enumerate() {
        let mut facts = Vec::new();
        if spec.initials().contains(&(i as StateId)) {
            facts.push("initial".to_string());
        }
        let note = super::state_note(spec, i as StateId);
        if !note.is_empty() {
            facts.push(note);
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            spec.state_label(i as StateId),
            cell(state.group.as_deref().unwrap_or("")),
            cell(&facts.join(", "))
        );
    }
}

fn from_cell(spec: &Spec, family: &Family) -> String {
    let names = |ids: &[StateId]| -> String {
        let names: Vec<String> = ids
            .iter()
            .map(|s| format!("`{}`", spec.state_name(*s)))
            .collect();
        names.join(", ")
    };
    let any = match family.var {
        0 => "any state".to_string(),
        v => format!("any `{}` state", spec.regions[v - 1].name),
    };
    match &family.any_but {
        Some(but) if but.is_empty() => any,
        Some(but) => format!("{any} but {}", names(but)),
        None => names(&family.from),
    }
}

/// Every transition family, in declaration order: from, trigger, guard, to, full effects.
pub fn transitions(spec: &Spec, families: &[Family], out: &mut String) {
    out.push_str("| From | On | Guard | To | Effects |\n|---|---|---|---|---|\n");
    for family in families {
        let t = &spec.transitions[family.transitions[0]];
        let effects: Vec<String> = t
            .effects
            .iter()
            .map(|e| code(&effect_text(spec, e)))
            .collect();
        let guard = guard_text(spec, &t.guard);
        let _ = writeln!(
            out,
            "| {} | {} | {} | `{}` | {} |",
            from_cell(spec, family),
            code(&spec.trigger_text(t.trigger)),
            if guard.is_empty() {
                String::new()
            } else {
                code(&guard)
            },
            spec.state_name(family.to),
            effects.join(", ")
        );
    }
}

/// The tiers, lowest risk first: mode, backstop, and the rules that classify into each.
pub fn tiers(spec: &Spec, out: &mut String) {
    out.push_str("| Tier | Mode | Backstop | Rules |\n|---|---|---|---|\n");
    for (i, tier) in spec.tiers.iter().enumerate() {
        let mut mode = tier.mode.as_str().to_string();
        if i == spec.default_tier as usize {
            mode.push_str(" (default tier)");
        }
        if tier.fail == crate::ir::FailPolicy::Closed {
            mode.push_str(", fails closed");
        }
        let mut backstop = Vec::new();
        if let Some(n) = tier.backstop.max_actions {
            backstop.push(format!("{n} actions"));
        }
        if let Some(n) = tier.backstop.max_secs {
            backstop.push(format!("{n} s"));
        }
        if let Some(b) = &tier.backstop.baseline {
            backstop.push(format!(
                "learned: {}..{} actions, {}..{} s",
                b.min_actions, b.max_actions, b.min_secs, b.max_secs
            ));
        }
        let rules: Vec<String> = spec
            .rules
            .iter()
            .filter(|r| r.tier == Some(i as u8))
            .map(|r| format!("`{}`", r.name))
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            tier.name,
            mode,
            backstop.join(" or "),
            rules.join(", ")
        );
    }
}

/// The roles and the tier modes each changes; nothing when the spec declares none.
pub fn roles(spec: &Spec, out: &mut String) -> bool {
    if spec.roles.is_empty() {
        return false;
    }
    out.push_str("| Role | Modes | Recognised from |\n|---|---|---|\n");
    for role in &spec.roles {
        let modes: Vec<String> = role
            .modes
            .iter()
            .enumerate()
            .filter_map(|(t, m)| m.map(|m| format!("`{}` {}", spec.tier_name(t as u8), m.as_str())))
            .collect();
        let mut from = Vec::new();
        if !role.subagent_types.is_empty() {
            from.push(format!("subagent types {}", codes(&role.subagent_types)));
        }
        for (name, value) in &role.env {
            from.push(code(&format!("{name}={value}")));
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            role.name,
            modes.join(", "),
            from.join(", ")
        );
    }
    true
}

/// Every classifier rule in order: the tier or kind it sets and what it matches.
pub fn rules(spec: &Spec, out: &mut String) {
    out.push_str("| Rule | Sets | Matches |\n|---|---|---|\n");
    for rule in &spec.rules {
        let mut sets = Vec::new();
        if let Some(t) = rule.tier {
            sets.push(format!("tier `{}`", spec.tier_name(t)));
        }
        if let Some(k) = rule.kind {
            sets.push(format!("kind `{}`", spec.kinds[k as usize].name));
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            rule.name,
            sets.join(", "),
            criteria(spec, rule).join("<br>")
        );
    }
    let kinds: Vec<String> = spec
        .kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            if i == spec.default_kind as usize {
                format!("`{}` (default)", k.name)
            } else {
                format!("`{}`", k.name)
            }
        })
        .collect();
    let _ = writeln!(out, "\nWork kinds: {}.", kinds.join(", "));
}

fn criteria(spec: &Spec, rule: &Rule) -> Vec<String> {
    let mut out = Vec::new();
    let names = |items: &mut dyn Iterator<Item = &str>| {
        items
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !rule.effects.is_empty() {
        out.push(format!(
            "effects {}",
            names(&mut rule.effects.iter().map(|a| a.as_str()))
        ));
    }
    if !rule.locations.is_empty() {
        out.push(format!(
            "at {}",
            names(&mut rule.locations.iter().map(|p| p.as_str()))
        ));
    }
    if !rule.profiles.is_empty() {
        out.push(format!(
            "profiles {}",
            names(
                &mut rule
                    .profiles
                    .iter()
                    .map(|p| spec.profiles[*p as usize].name.as_ref())
            )
        ));
    }
    if !rule.roles.is_empty() {
        out.push(format!(
            "for {}",
            names(
                &mut rule
                    .roles
                    .iter()
                    .map(|r| spec.roles[*r as usize].name.as_ref())
            )
        ));
    }
    let mut list = |what: &str, patterns: &[Pattern]| {
        if !patterns.is_empty() {
            out.push(format!("{what} {}", codes(patterns)));
        }
    };
    list("tools", &rule.tools);
    list("paths", &rule.paths);
    list("commands", &rule.commands);
    list("except commands", &rule.except_commands);
    list("except paths", &rule.except_paths);
    if !rule.classes.is_empty() {
        let names: Vec<String> = rule
            .classes
            .iter()
            .map(|c| format!("`{}`", c.as_str()))
            .collect();
        out.push(format!("classes {}", names.join(", ")));
    }
    if !rule.phases.is_empty() {
        let names: Vec<String> = rule
            .phases
            .iter()
            .map(|p| format!("`{}`", p.as_str()))
            .collect();
        out.push(format!("events {}", names.join(", ")));
    }
    if out.is_empty() {
        out.push("every action".to_string());
    }
    out
}

/// The withholding verdict of a state, for the legend.
pub fn block_word(block: Block) -> &'static str {
    match block {
        Block::Ask => "ask",
        Block::Deny => "deny",
    }
}

/// The `## Counters` section: each counter's range and the triggers of the transitions that
/// increment and reset it (nothing when the spec has no counters).
pub fn counters(spec: &Spec, out: &mut String) {
    if spec.counters.is_empty() {
        return;
    }
    out.push_str(
        "\n## Counters\n\n| counter | values | incremented by | reset by |\n|---|---|---|---|\n",
    );
    for (i, c) in spec.counters.iter().enumerate() {
        let by = |inc: bool| {
            let mut on: Vec<String> = Vec::new();
            for t in &spec.transitions {
                let hit = t.effects.iter().any(|e| match *e {
                    Effect::Inc { counter } => inc && usize::from(counter) == i,
                    Effect::Reset { counter } => !inc && usize::from(counter) == i,
                    _ => false,
                });
                let text = format!("`{}`", spec.trigger_text(t.trigger));
                if hit && !on.contains(&text) {
                    on.push(text);
                }
            }
            on.join(", ")
        };
        let _ = writeln!(
            out,
            "| `{}` | 0 to {} | {} | {} |",
            c.name,
            c.max,
            by(true),
            by(false)
        );
    }
}
