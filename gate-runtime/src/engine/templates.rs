//! Template rendering: the variables a spec's messages show for one event ([`Vars`]) and the
//! window they describe ([`WindowBefore`]).

use crate::event::Event;
use crate::observer::{self, Classification};
use gate_spec::ir::{Spec, TemplateId, TemplatePart, TemplateVar};

/// What templates show of the window an event happened in (read before the event is folded
/// in; the segment itself is not copied: its remembered targets and scopes are not shown).
pub(super) struct WindowBefore {
    pub(super) dominant: Option<gate_spec::ir::KindId>,
    pub(super) actions: u32,
    pub(super) opened_ms: Option<i64>,
}

impl WindowBefore {
    pub(super) fn of(seg: &observer::Segment) -> WindowBefore {
        WindowBefore {
            dominant: seg.dominant_kind(),
            actions: seg.actions,
            opened_ms: seg.opened_ms,
        }
    }
}

/// Template variables for one event.
pub(super) struct Vars<'a> {
    pub(super) spec: &'a Spec,
    pub(super) event: &'a Event,
    pub(super) class: &'a Classification,
    /// The window as it was when the event arrived.
    pub(super) segment: &'a WindowBefore,
    pub(super) from: u8,
    pub(super) to: u8,
    pub(super) signals: &'a [&'a str],
    pub(super) checkpoint: Option<&'a str>,
    pub(super) role: &'a str,
    pub(super) now: i64,
}

/// Longest target shown in a message (the audit keeps its own redacted copy).
const MAX_TARGET_IN_TEXT: usize = 200;

impl Vars<'_> {
    /// Appends the text of `template`.
    pub(super) fn render_into(&self, out: &mut String, template: TemplateId, grant: Option<&str>) {
        let parts = &self.spec.templates[template as usize].parts;
        // Room for the literal text and a typical value per variable up front, so that the
        // text is not moved as it grows (the capacity changes nothing else).
        let room = parts
            .iter()
            .map(|part| match part {
                TemplatePart::Text(t) => t.len(),
                TemplatePart::Var(_) => 24,
            })
            .sum();
        if out.capacity() == 0 {
            *out = String::with_capacity(room);
        } else {
            out.reserve(room);
        }
        for part in parts {
            match part {
                TemplatePart::Text(t) => out.push_str(t),
                TemplatePart::Var(v) => self.write_value(out, *v, grant),
            }
        }
    }

    /// Appends the text of `var` to `out` (what [`value`](Self::value) returns).
    fn write_value(&self, out: &mut String, var: TemplateVar, grant: Option<&str>) {
        use std::fmt::Write as _;
        let spec = self.spec;
        let seg = self.segment;
        match var {
            TemplateVar::Signal => {
                if self.signals.is_empty() {
                    out.push_str("none");
                } else {
                    for (i, s) in self.signals.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(s);
                    }
                }
            }
            TemplateVar::Checkpoint => out.push_str(self.checkpoint.unwrap_or("none")),
            TemplateVar::Tier => out.push_str(spec.tier_name(self.class.tier)),
            TemplateVar::Kind => out.push_str(&spec.kinds[self.class.kind as usize].name),
            TemplateVar::WindowKind => match seg.dominant {
                Some(k) => out.push_str(&spec.kinds[k as usize].name),
                None => out.push_str("none"),
            },
            TemplateVar::WindowActions => {
                let _ = write!(out, "{}", seg.actions);
            }
            TemplateVar::WindowSecs => {
                let secs = seg
                    .opened_ms
                    .map_or(0, |t| (self.now.saturating_sub(t)).max(0) / 1000);
                let _ = write!(out, "{secs}");
            }
            TemplateVar::Reason => {
                if self.class.reason.is_empty() {
                    out.push_str("policy");
                } else {
                    out.push_str(&self.class.reason);
                }
            }
            TemplateVar::Rule => match self.class.rule {
                Some(r) => out.push_str(&spec.rules[r as usize].name),
                None => out.push_str("none"),
            },
            TemplateVar::Tool => out.push_str(self.event.tool.as_deref().unwrap_or("none")),
            TemplateVar::Target => {
                let t = self.event.target.as_deref().unwrap_or("");
                let t = crate::redact::redact(t);
                match t.char_indices().nth(MAX_TARGET_IN_TEXT) {
                    Some((cut, _)) => {
                        out.push_str(&t[..cut]);
                        out.push('…');
                    }
                    None => out.push_str(&t),
                }
            }
            TemplateVar::State => out.push_str(spec.state_name(self.to)),
            TemplateVar::From => out.push_str(spec.state_name(self.from)),
            TemplateVar::Role => out.push_str(self.role),
            TemplateVar::GrantId => out.push_str(grant.unwrap_or("none")),
            TemplateVar::Approve => match grant {
                Some(id) => {
                    out.push_str("gate approve ");
                    out.push_str(id);
                }
                None => out.push_str("gate approve <id>"),
            },
        }
    }

    /// The text of one template variable, as first written (one `String` per variable):
    /// the reference [`write_value`](Self::write_value) is tested against.
    #[cfg(test)]
    fn value(&self, var: TemplateVar, grant: Option<&str>) -> String {
        let spec = self.spec;
        let seg = self.segment;
        match var {
            TemplateVar::Signal => {
                if self.signals.is_empty() {
                    "none".to_string()
                } else {
                    self.signals.join(", ")
                }
            }
            TemplateVar::Checkpoint => self.checkpoint.unwrap_or("none").to_string(),
            TemplateVar::Tier => spec.tier_name(self.class.tier).to_string(),
            TemplateVar::Kind => spec.kinds[self.class.kind as usize].name.to_string(),
            TemplateVar::WindowKind => seg.dominant.map_or_else(
                || "none".to_string(),
                |k| spec.kinds[k as usize].name.to_string(),
            ),
            TemplateVar::WindowActions => seg.actions.to_string(),
            TemplateVar::WindowSecs => seg
                .opened_ms
                .map_or(0, |t| (self.now.saturating_sub(t)).max(0) / 1000)
                .to_string(),
            TemplateVar::Reason => {
                if self.class.reason.is_empty() {
                    "policy".to_string()
                } else {
                    self.class.reason.clone()
                }
            }
            TemplateVar::Rule => self.class.rule.map_or_else(
                || "none".to_string(),
                |r| spec.rules[r as usize].name.to_string(),
            ),
            TemplateVar::Tool => self
                .event
                .tool
                .clone()
                .unwrap_or_else(|| "none".to_string()),
            TemplateVar::Target => {
                let t = self.event.target.as_deref().unwrap_or("");
                let t = crate::redact::redact(t);
                if t.chars().count() > MAX_TARGET_IN_TEXT {
                    format!(
                        "{}…",
                        t.chars().take(MAX_TARGET_IN_TEXT).collect::<String>()
                    )
                } else {
                    t.into_owned()
                }
            }
            TemplateVar::State => spec.state_name(self.to).to_string(),
            TemplateVar::From => spec.state_name(self.from).to_string(),
            TemplateVar::Role => self.role.to_string(),
            TemplateVar::GrantId => grant.unwrap_or("none").to_string(),
            TemplateVar::Approve => match grant {
                Some(id) => format!("gate approve {id}"),
                None => "gate approve <id>".to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every template variable writes the text it was first rendered as, over varied
    /// events, classifications, windows, signals and grants.
    #[test]
    fn written_values_are_the_first_rendered_ones() {
        let compiled = gate_specs::ALL
            .iter()
            .find(|s| s.name == "default")
            .expect("the default spec is compiled in");
        let spec = compiled.ir();
        let long: String = "é✓x".repeat(120);
        let targets = [None, Some(""), Some("ls -la"), Some(long.as_str())];
        for (i, target) in targets.into_iter().enumerate() {
            let event = Event {
                tool: (i % 2 == 0).then(|| "Bash".to_string()),
                target: target.map(str::to_string),
                ..Event::default()
            };
            let class = Classification {
                tier: (i % spec.tiers.len()) as u8,
                kind: (i % spec.kinds.len()) as u8,
                rule: (i % 2 == 1).then_some(0),
                reason: if i % 2 == 1 {
                    "why".to_string()
                } else {
                    String::new()
                },
                ..Classification::default()
            };
            let segment = WindowBefore {
                dominant: (i % 3 != 0).then_some((i % spec.kinds.len()) as u8),
                actions: i as u32 * 7,
                opened_ms: (i % 2 == 0).then_some(1_000),
            };
            let signals: Vec<&str> = spec.signals.iter().take(i).map(|s| &*s.name).collect();
            let vars = Vars {
                spec,
                event: &event,
                class: &class,
                segment: &segment,
                from: 0,
                to: (i % spec.states.len()) as u8,
                signals: &signals,
                checkpoint: (i == 2).then_some("tests"),
                role: "none",
                now: 1_000 + i as i64 * 61_000,
            };
            for grant in [None, Some("g-1")] {
                for var in TemplateVar::ALL {
                    let mut out = String::from("x");
                    vars.write_value(&mut out, var, grant);
                    assert_eq!(out, format!("x{}", vars.value(var, grant)), "{var:?}");
                }
            }
        }
    }
}
