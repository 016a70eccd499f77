//! `gate replay --events`: one line per replayed event, or one JSON object per line with
//! `--json`, filtered by verdict with `--only`, written while the replay runs. Nothing here
//! runs unless the listing was asked for, so a plain replay pays nothing for it.

use crate::cli::DecisionArg;
use gate_runtime::engine::Outcome;
use gate_runtime::event::Event;
use gate_runtime::redact::redact;
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{Spec, StateId};
use serde_json::json;
use std::io::{self, Write};

/// Characters of a target shown in the text listing (the JSON lines carry all of it).
const TARGET_CHARS: usize = 100;

/// The listing of a replay's events, written to `out` as they are evaluated.
pub struct Listing<'s, W: Write> {
    spec: &'s Spec,
    /// The specs of the machines beside it (`[machine] alongside`), in order.
    beside: Vec<&'s Spec>,
    out: W,
    json: bool,
    /// Which verdicts are listed, by [`verdict_bit`].
    only: u8,
    /// Column widths of the text listing, from the spec's names.
    tier_width: usize,
    rule_width: usize,
    state_width: usize,
    line: String,
}

fn verdict_bit(verdict: &Verdict) -> u8 {
    match verdict {
        Verdict::Allow => 1,
        Verdict::Steer { .. } => 2,
        Verdict::Ask { .. } => 4,
        Verdict::Deny { .. } => 8,
    }
}

fn decision_bit(decision: DecisionArg) -> u8 {
    match decision {
        DecisionArg::Allow => 1,
        DecisionArg::Steer => 2,
        DecisionArg::Ask => 4,
        DecisionArg::Deny => 8,
    }
}

impl<'s, W: Write> Listing<'s, W> {
    /// A listing of `spec`'s events (with the machines `beside` it): every verdict when
    /// `only` is empty, else those named.
    pub fn new(
        spec: &'s Spec,
        beside: Vec<&'s Spec>,
        json: bool,
        only: &[DecisionArg],
        out: W,
    ) -> Listing<'s, W> {
        let widest = |names: &mut dyn Iterator<Item = usize>, floor: usize| {
            names.max().unwrap_or(0).max(floor)
        };
        let state_name = widest(&mut spec.states.iter().map(|s| s.name.chars().count()), 1);
        Listing {
            spec,
            beside,
            out,
            json,
            only: if only.is_empty() {
                0xf
            } else {
                only.iter().fold(0, |bits, d| bits | decision_bit(*d))
            },
            tier_width: widest(&mut spec.tiers.iter().map(|t| t.name.chars().count()), 4),
            rule_width: widest(&mut spec.rules.iter().map(|r| r.name.chars().count()), 4).min(24),
            state_width: 2 * state_name + 3,
            line: String::new(),
        }
    }

    /// The header of the text listing (nothing in JSON).
    pub fn header(&mut self) -> io::Result<()> {
        if self.json {
            return Ok(());
        }
        let header = format!(
            "{:>6}  {:<24}  {:<7}  {:<tw$}  {:<rw$}  {:<sw$}  event\n",
            "line",
            "time",
            "verdict",
            "tier",
            "rule",
            "state",
            tw = self.tier_width,
            rw = self.rule_width,
            sw = self.state_width,
        );
        self.out.write_all(header.as_bytes())
    }

    /// One evaluated event, read from line `line` of the file, whose scope's machine went
    /// from `states.0` to `states.1`; an event whose verdict is not listed is skipped.
    pub fn event(
        &mut self,
        line: u64,
        event: &Event,
        outcome: &Outcome,
        states: (StateId, StateId),
    ) -> io::Result<()> {
        if verdict_bit(&outcome.decision.verdict) & self.only == 0 {
            return Ok(());
        }
        self.line.clear();
        if self.json {
            self.json_line(line, event, outcome, states);
        } else {
            self.text_line(line, event, outcome, states);
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    /// The summary's JSON line, after the events (JSON only).
    pub fn summary(&mut self, report: &serde_json::Value) -> io::Result<()> {
        let mut line = serde_json::to_string(report).map_err(io::Error::other)?;
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Ends the text listing with a blank line, before the summary.
    pub fn summary_gap(mut self) -> io::Result<()> {
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    fn text_line(&mut self, line: u64, event: &Event, o: &Outcome, states: (StateId, StateId)) {
        use std::fmt::Write as _;
        let spec = self.spec;
        let class = &o.classification;
        let (tier, rule) = match &event.tool {
            Some(_) => (
                spec.tier_name(class.tier),
                class.rule.map_or("-", |r| &*spec.rules[r as usize].name),
            ),
            None => ("-", "-"),
        };
        let state = if states.0 == states.1 {
            spec.state_name(states.0).to_string()
        } else {
            format!(
                "{} → {}",
                spec.state_name(states.0),
                spec.state_name(states.1)
            )
        };
        let _ = write!(
            self.line,
            "{line:>6}  {:<24}  {:<7}  {tier:<tw$}  {rule:<rw$}  {state:<sw$}  ",
            crate::time::rfc3339(o.now_ms),
            o.decision.verdict.name(),
            tw = self.tier_width,
            rw = self.rule_width,
            sw = self.state_width,
        );
        match &event.tool {
            Some(tool) => {
                let _ = write!(self.line, "{tool}");
                if let Some(target) = event.target.as_deref().filter(|t| !t.is_empty()) {
                    self.line.push_str(": ");
                    push_shortened(&mut self.line, &redact(target));
                }
            }
            None => self.line.push_str(&event.hook_event),
        }
        // Which machine answered, when machines run beside the spec's own.
        if !o.alongside.is_empty() {
            self.line.push_str("  by ");
            for (i, name) in answered_by(spec, o).enumerate() {
                if i > 0 {
                    self.line.push_str(", ");
                }
                self.line.push_str(name);
            }
        }
        if !o.rising.is_empty() || !o.falling.is_empty() {
            self.line.push_str("  signals");
            for s in &o.rising {
                let _ = write!(self.line, " +{}", spec.signals[*s as usize].name);
            }
            for s in &o.falling {
                let _ = write!(self.line, " -{}", spec.signals[*s as usize].name);
            }
        }
        let mut first = true;
        for note in &o.notes {
            // Edges and transitions have their own columns.
            if matches!(note.kind, "signal" | "transition") {
                continue;
            }
            self.line.push_str(if first { "  notes " } else { ", " });
            first = false;
            self.line.push_str(note.kind);
            if let Some(name) = note_name(spec, note) {
                self.line.push(' ');
                self.line.push_str(&name);
            }
        }
    }

    fn json_line(&mut self, line: u64, event: &Event, o: &Outcome, states: (StateId, StateId)) {
        let spec = self.spec;
        let class = &o.classification;
        let reason = match &o.decision.verdict {
            Verdict::Allow => None,
            Verdict::Steer { text } => Some(text.as_str()),
            Verdict::Ask { reason, .. } | Verdict::Deny { reason } => Some(reason.as_str()),
        };
        let value = json!({
            "type": "event",
            "line": line,
            "time": crate::time::rfc3339(o.now_ms),
            "ts_ms": o.now_ms,
            "session": event.session_id,
            "hook_event": event.hook_event,
            "tool": event.tool,
            "target": event.target.as_deref().map(redact),
            "verdict": o.decision.verdict.name(),
            "proposed": o.proposed.name(),
            "mode": o.mode,
            "reason": reason.map(redact),
            "tier": event.tool.as_ref().map(|_| spec.tier_name(class.tier)),
            "rule": event.tool.as_ref().and(class.rule).map(|r| &*spec.rules[r as usize].name),
            "rules": class.matched.iter().map(|r| &*spec.rules[*r as usize].name).collect::<Vec<_>>(),
            "state": {
                "from": spec.state_name(states.0),
                "to": spec.state_name(states.1),
            },
            "transitions": o.fired.iter().map(|t| {
                let tr = &spec.transitions[*t as usize];
                json!({
                    "from": spec.state_name(tr.from),
                    "trigger": spec.trigger_text(tr.trigger),
                    "to": spec.state_name(tr.to),
                })
            }).collect::<Vec<_>>(),
            "signals": {
                "on": o.rising.iter().map(|s| &*spec.signals[*s as usize].name).collect::<Vec<_>>(),
                "off": o.falling.iter().map(|s| &*spec.signals[*s as usize].name).collect::<Vec<_>>(),
            },
            "notes": o.notes.iter().map(|n| json!({
                "kind": n.kind,
                "detail": n.detail_json(spec),
            })).collect::<Vec<_>>(),
            "answered_by": answered_by(spec, o).collect::<Vec<_>>(),
            "beside": o.alongside.iter().zip(&self.beside).map(|(a, m)| json!({
                "spec": a.spec,
                "verdict": a.outcome.decision.verdict.name(),
                "state": m.state_name(a.state),
            })).collect::<Vec<_>>(),
        });
        self.line.push_str(&value.to_string());
    }
}

/// The names of the machines whose own answer is the event's answer: the spec's own, the
/// machines beside it (`[machine] alongside`), or several of them.
fn answered_by<'a>(spec: &'a Spec, o: &'a Outcome) -> impl Iterator<Item = &'a str> + 'a {
    gate_runtime::driver::answering(o).map(move |i| match i {
        0 => &*spec.name,
        i => &*o.alongside[i - 1].spec,
    })
}

/// The name a note is about, for the text listing: the signal, checkpoint, state or record
/// label it names (texts and reasons are in the JSON lines).
fn note_name(spec: &Spec, note: &gate_runtime::engine::Note) -> Option<String> {
    use gate_runtime::engine::Detail;
    match &note.detail {
        Detail::Boundary(s) | Detail::Edge { signal: s, .. } => {
            Some(spec.signals[*s as usize].name.to_string())
        }
        Detail::Checkpoint(c) => Some(spec.checkpoints[*c as usize].name.to_string()),
        Detail::Arm(s) => Some(spec.state_name(*s).to_string()),
        Detail::Expiry { window_actions } => Some(format!("after {window_actions} action(s)")),
        Detail::Record { .. } => note
            .detail
            .json(spec)
            .get("label")
            .and_then(|l| l.as_str())
            .map(str::to_string),
        _ => None,
    }
}

/// `text` on one line (control characters as spaces), cut at [`TARGET_CHARS`] with `…`.
fn push_shortened(out: &mut String, text: &str) {
    for (i, c) in text.chars().enumerate() {
        if i == TARGET_CHARS {
            out.push('…');
            return;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_one_line_and_cut() {
        let mut out = String::new();
        push_shortened(&mut out, "echo a\nrm -rf /\tx");
        assert_eq!(out, "echo a rm -rf / x");
        let mut out = String::new();
        push_shortened(&mut out, &"é".repeat(TARGET_CHARS + 5));
        assert_eq!(out.chars().count(), TARGET_CHARS + 1);
        assert!(out.ends_with('…'));
    }

    #[test]
    fn only_names_the_verdicts_it_selects() {
        let verdicts = [
            (DecisionArg::Allow, Verdict::Allow),
            (
                DecisionArg::Steer,
                Verdict::Steer {
                    text: String::new(),
                },
            ),
            (
                DecisionArg::Ask,
                Verdict::Ask {
                    reason: String::new(),
                    grant_id: String::new(),
                },
            ),
            (
                DecisionArg::Deny,
                Verdict::Deny {
                    reason: String::new(),
                },
            ),
        ];
        for (arg, verdict) in &verdicts {
            assert_eq!(arg.as_str(), verdict.name());
            for (other, _) in &verdicts {
                let same = decision_bit(*other) & verdict_bit(verdict) != 0;
                assert_eq!(same, other == arg, "{other:?} selects {}", verdict.name());
            }
        }
    }
}
