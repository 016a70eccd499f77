//! The texts a diagram writes on its edges: short in the overview (the trigger and the verb
//! of each effect, `plan_read / arm`), whole in the detail view, never longer than
//! [`MAX_LABEL`] characters where a reader meets them.

use super::shape::Family;
use super::{effect_text, guard_text};
use crate::ir::{Effect, Phase, Spec, Trigger};

/// The longest edge label an overview draws, in characters.
pub const MAX_LABEL: usize = 120;
/// The longest label an overview writes: well under the bar, so the drawing stays a shape.
pub const OVERVIEW_LABEL: usize = 72;
/// The longest label of an edge that leaves a state for itself: what it stays on is detail.
pub const LOOP_LABEL: usize = 48;

/// A trigger as a reader says it: `session start`, `plan_read`, `drift on`, `high action`.
pub fn trigger(spec: &Spec, trigger: Trigger) -> String {
    match trigger {
        Trigger::Event(phase) => event(phase),
        Trigger::Timeout => "timeout".to_string(),
        Trigger::Approved => "approved".to_string(),
        Trigger::Checkpoint(c) => spec.checkpoints[c as usize].name.to_string(),
        Trigger::Clear(s) => format!("{} off", spec.signals[s as usize].name),
        Trigger::Signal(s) => format!("{} on", spec.signals[s as usize].name),
        Trigger::While(s) => format!("while {}", spec.signals[s as usize].name),
        Trigger::Backstop => "backstop".to_string(),
        Trigger::Tier(t) => format!("{} action", spec.tiers[t as usize].name),
        Trigger::Action => "action".to_string(),
    }
}

fn event(phase: Phase) -> String {
    phase.as_str().replace('_', " ")
}

/// The verbs of a transition's effects, records left out (they are in the table).
fn verbs(effects: &[Effect], out: &mut Vec<&'static str>) {
    for effect in effects {
        let verb = match effect {
            Effect::Arm => "arm",
            Effect::Close => "close",
            Effect::Steer { .. } => "steer",
            Effect::Ask { .. } => "ask",
            Effect::Deny { .. } => "deny",
            Effect::Record { .. } => continue,
            Effect::Inc { .. } => "count",
            Effect::Reset { .. } => "reset",
        };
        if !out.contains(&verb) {
            out.push(verb);
        }
    }
}

/// An overview edge's label: its families' triggers, those under one guard written together
/// (`plan_read | todo_update [rearm]`), as many as fit, then `+N more`, then ` / ` and the
/// effect verbs.
pub fn overview(spec: &Spec, families: &[Family], list: &[usize], max: usize) -> String {
    // (guard, triggers) in the order the guards first appear.
    let mut guarded: Vec<(String, Vec<String>)> = Vec::new();
    let mut effect_verbs = Vec::new();
    for i in list {
        let t = &spec.transitions[families[*i].transitions[0]];
        let guard = guard_text(spec, &t.guard);
        let cause = trigger(spec, t.trigger);
        match guarded.iter_mut().find(|(g, _)| *g == guard) {
            Some((_, triggers)) if triggers.contains(&cause) => {}
            Some((_, triggers)) => triggers.push(cause),
            None => guarded.push((guard, vec![cause])),
        }
        verbs(&t.effects, &mut effect_verbs);
    }
    let tail = if effect_verbs.is_empty() {
        String::new()
    } else {
        format!(" / {}", effect_verbs.join(", "))
    };
    fit(&guarded, &tail, max)
}

/// Triggers grouped by guard, `a | b [guard], c`, showing the first `shown` triggers: a
/// group shown in part ends in `| …`, and the hidden ones are counted at the end
/// (`a | … [rearm], +3 more`).
fn render(groups: &[(String, Vec<String>)], shown: usize) -> String {
    let mut parts = Vec::new();
    let mut left = shown;
    let mut hidden = 0;
    for (guard, triggers) in groups {
        let k = left.min(triggers.len());
        left -= k;
        hidden += triggers.len() - k;
        if k == 0 {
            continue;
        }
        let mut part = triggers[..k].join(" | ");
        if k < triggers.len() {
            part.push_str(" | …");
        }
        if !guard.is_empty() {
            part.push_str(&format!(" [{guard}]"));
        }
        parts.push(part);
    }
    let mut text = parts.join(", ");
    if hidden > 0 {
        text.push_str(&format!(", +{hidden} more"));
    }
    text
}

/// The longest [`render`] of `groups` that fits `max` characters with `tail` after it;
/// a first trigger longer than the room is cut with `…`.
fn fit(groups: &[(String, Vec<String>)], tail: &str, max: usize) -> String {
    let room = max.saturating_sub(tail.chars().count());
    let total: usize = groups.iter().map(|(_, t)| t.len()).sum();
    let mut text = (1..=total)
        .rev()
        .map(|n| render(groups, n))
        .find(|t| t.chars().count() <= room)
        .unwrap_or_else(|| {
            // Not even one trigger with its guard fits: the first trigger alone, counted.
            let first = groups.iter().flat_map(|(_, t)| t).next();
            let short = match (first, total) {
                (Some(first), 1) => first.clone(),
                (Some(first), _) => format!("{first}, +{} more", total - 1),
                (None, _) => String::new(),
            };
            if short.chars().count() <= room {
                return short;
            }
            let mut cut: String = short.chars().take(room.saturating_sub(1)).collect();
            cut.push('…');
            cut
        });
    text.push_str(tail);
    text
}

/// A detail edge's label: `trigger [guard] / effects` in the spec's own syntax.
pub fn detail(spec: &Spec, family: &Family) -> String {
    let t = &spec.transitions[family.transitions[0]];
    let mut text = spec.trigger_text(t.trigger);
    let guard = guard_text(spec, &t.guard);
    if !guard.is_empty() {
        text.push_str(&format!(" [{guard}]"));
    }
    if !t.effects.is_empty() {
        let effects: Vec<String> = t.effects.iter().map(|e| effect_text(spec, e)).collect();
        text.push_str(&format!(" / {}", effects.join(", ")));
    }
    text
}

/// Breaks a label into lines of about `width` characters at spaces, for renderers that do
/// not wrap (DOT).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(items: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        items
            .iter()
            .map(|(g, t)| (g.to_string(), t.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn triggers_that_do_not_fit_are_counted() {
        let names: Vec<String> = (0..40).map(|i| format!("checkpoint_{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = fit(&groups(&[("", &refs)]), " / arm", MAX_LABEL);
        assert!(text.chars().count() <= MAX_LABEL, "{text}");
        assert!(text.starts_with("checkpoint_0 | checkpoint_1"), "{text}");
        let shown = text.matches("checkpoint_").count();
        assert!(
            text.ends_with(&format!(" | …, +{} more / arm", 40 - shown)),
            "{text}"
        );
    }

    #[test]
    fn a_guard_stays_with_its_triggers() {
        let g = groups(&[
            ("rearm", &["plan_read", "todo_update", "thinking"]),
            ("", &["stop"]),
        ]);
        assert_eq!(
            fit(&g, " / arm", MAX_LABEL),
            "plan_read | todo_update | thinking [rearm], stop / arm"
        );
        assert_eq!(
            fit(&g, " / arm", 40),
            "plan_read | … [rearm], +3 more / arm"
        );
    }

    #[test]
    fn a_label_that_fits_is_whole() {
        let g = groups(&[("", &["a", "b"])]);
        assert_eq!(fit(&g, " / steer", MAX_LABEL), "a | b / steer");
        assert_eq!(fit(&g, "", MAX_LABEL), "a | b");
    }

    #[test]
    fn one_long_trigger_is_cut() {
        let long = "x".repeat(300);
        let text = fit(&groups(&[("", &[long.as_str(), "y"])]), "", MAX_LABEL);
        assert!(text.chars().count() <= MAX_LABEL, "{text}");
        assert!(text.ends_with('…'), "{text}");
    }

    #[test]
    fn wrapping_keeps_every_word() {
        let lines = wrap("session start, approved (not open) / arm, steer", 16);
        assert_eq!(
            lines.join(" "),
            "session start, approved (not open) / arm, steer"
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 18), "{lines:?}");
    }
}
