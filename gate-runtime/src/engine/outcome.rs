//! What one evaluation returns: the [`Outcome`], the window that closed on the event, and
//! the audit [`Note`]s with their [`Detail`], kept as ids until the audit writes their JSON.

use crate::observer::Classification;
use crate::verdict::{Decision, Verdict};
use gate_spec::ir::{Effect, Mode, SignalId, Spec, StateId, Text};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a window closed (for calibration: only real boundaries give uncontaminated lengths);
/// the store keeps it with the window by its [`ClosedBy::as_str`] name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedBy {
    /// A signal edge (other than a budget signal's): the work changed.
    Boundary,
    /// The backstop, or a budget-family signal (the backstop in signal form).
    Backstop,
    /// The session ended, or a new session started.
    SessionEnd,
    /// The turn ended (`event:stop`) or a subagent stopped (`event:subagent_stop`).
    Stop,
    /// Evidence re-armed the window (`checkpoint:`).
    Checkpoint,
    /// The user's approval (`approved`).
    Approval,
    /// Any other trigger (a prompt, a compaction, an action's tier, any action).
    Other,
}

impl ClosedBy {
    /// Every value, in declaration order.
    pub const ALL: [ClosedBy; 7] = [
        ClosedBy::Boundary,
        ClosedBy::Backstop,
        ClosedBy::SessionEnd,
        ClosedBy::Stop,
        ClosedBy::Checkpoint,
        ClosedBy::Approval,
        ClosedBy::Other,
    ];

    /// The name the store keeps (the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            ClosedBy::Boundary => "boundary",
            ClosedBy::Backstop => "backstop",
            ClosedBy::SessionEnd => "session_end",
            ClosedBy::Stop => "stop",
            ClosedBy::Checkpoint => "checkpoint",
            ClosedBy::Approval => "approval",
            ClosedBy::Other => "other",
        }
    }

    /// The value whose [`as_str`](Self::as_str) name is `s`.
    pub fn parse(s: &str) -> Option<ClosedBy> {
        ClosedBy::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// A window that closed on this event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedWindow {
    pub kind: String,
    pub actions: u32,
    pub secs: u64,
    pub closed_by: ClosedBy,
}

/// One audit note (the driver adds the common columns).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// `event`, `signal`, `transition`, `boundary`, `arm`, `close`, `skip`, `steer`, `ask`,
    /// `deny`, `grant`, `disabled`, `observe` …
    pub kind: &'static str,
    pub detail: Detail,
}

impl Note {
    /// The note's detail as the audit stores it (names read from `spec`, the spec the note
    /// was made under).
    pub fn detail_json(&self, spec: &Spec) -> Value {
        self.detail.json(spec)
    }
}

/// What a note says, kept as ids into the spec and owned text until the audit needs its
/// JSON ([`Detail::json`]): most evaluations store nothing (replay, explain), and the JSON
/// object of a note cost more than the rest of its evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Detail {
    /// `{"signal": name, "edge": "on" | "off"}`.
    Edge { signal: SignalId, on: bool },
    /// `{"checkpoint": name}`.
    Checkpoint(gate_spec::ir::CheckpointId),
    /// `{"signal": name}`: a transition fired on the signal.
    Boundary(SignalId),
    /// `{"window_actions": n}`.
    Expiry { window_actions: u32 },
    /// `{"index", "from", "trigger", "to"}` of the transition.
    Transition(u16),
    /// `{"label": label}` of the transition's `effect`-th effect (a `record`).
    Record { transition: u16, effect: u16 },
    /// `{"state": name}`.
    Arm(gate_spec::ir::StateId),
    /// `{"consumed": true}`.
    Consumed,
    /// `{"text": text}`.
    Text(String),
    /// `{"reason": reason}`.
    Reason(String),
    /// `{"reason": reason, "grant": grant}`.
    Ask { reason: String, grant: String },
    /// Any other detail, as built.
    Json(Value),
}

impl Detail {
    /// The JSON the audit stores: exactly what `json!` built when notes carried it
    /// (`tests::detail_json_is_what_json_built`).
    pub fn json(&self, spec: &Spec) -> Value {
        match self {
            Detail::Edge { signal, on } => object([
                (
                    "signal",
                    Value::from(spec.signals[*signal as usize].name.as_ref()),
                ),
                ("edge", Value::from(if *on { "on" } else { "off" })),
            ]),
            Detail::Checkpoint(c) => object([(
                "checkpoint",
                Value::from(spec.checkpoints[*c as usize].name.as_ref()),
            )]),
            Detail::Boundary(s) => object([(
                "signal",
                Value::from(spec.signals[*s as usize].name.as_ref()),
            )]),
            Detail::Expiry { window_actions } => {
                object([("window_actions", Value::from(*window_actions))])
            }
            Detail::Transition(t) => {
                let tr = &spec.transitions[*t as usize];
                object([
                    ("index", Value::from(*t)),
                    ("from", Value::from(spec.state_name(tr.from))),
                    ("trigger", Value::from(spec.trigger_text(tr.trigger))),
                    ("to", Value::from(spec.state_name(tr.to))),
                ])
            }
            Detail::Record { transition, effect } => {
                match &spec.transitions[*transition as usize].effects[*effect as usize] {
                    Effect::Record { label } => object([("label", Value::from(label.as_ref()))]),
                    _ => Value::Null,
                }
            }
            Detail::Arm(s) => object([("state", Value::from(spec.state_name(*s)))]),
            Detail::Consumed => object([("consumed", Value::from(true))]),
            Detail::Text(text) => object([("text", Value::from(text.as_str()))]),
            Detail::Reason(reason) => object([("reason", Value::from(reason.as_str()))]),
            Detail::Ask { reason, grant } => object([
                ("reason", Value::from(reason.as_str())),
                ("grant", Value::from(grant.as_str())),
            ]),
            Detail::Json(v) => v.clone(),
        }
    }

    /// Appends the stored text of [`Detail::json`]: what
    /// [`redact_json_to_string`](crate::redact::redact_json_to_string) writes for it, without
    /// building the value (`tests::detail_text_is_the_redacted_json`).
    pub fn write_json(&self, spec: &Spec, out: &mut String) {
        use crate::redact::{push_object, push_redacted_json, Field};
        match self {
            Detail::Edge { signal, on } => push_object(
                out,
                &mut [
                    ("signal", Field::Name(&spec.signals[*signal as usize].name)),
                    ("edge", Field::Name(if *on { "on" } else { "off" })),
                ],
            ),
            Detail::Checkpoint(c) => push_object(
                out,
                &mut [(
                    "checkpoint",
                    Field::Name(&spec.checkpoints[*c as usize].name),
                )],
            ),
            Detail::Boundary(s) => push_object(
                out,
                &mut [("signal", Field::Name(&spec.signals[*s as usize].name))],
            ),
            Detail::Expiry { window_actions } => push_object(
                out,
                &mut [("window_actions", Field::Uint(u64::from(*window_actions)))],
            ),
            Detail::Transition(t) => {
                let tr = &spec.transitions[*t as usize];
                let trigger = spec.trigger_text(tr.trigger);
                push_object(
                    out,
                    &mut [
                        ("index", Field::Uint(u64::from(*t))),
                        ("from", Field::Name(spec.state_name(tr.from))),
                        ("trigger", Field::Name(&trigger)),
                        ("to", Field::Name(spec.state_name(tr.to))),
                    ],
                )
            }
            Detail::Record { transition, effect } => {
                match &spec.transitions[*transition as usize].effects[*effect as usize] {
                    Effect::Record { label } => {
                        push_object(out, &mut [("label", Field::Name(label))])
                    }
                    _ => out.push_str("null"),
                }
            }
            Detail::Arm(s) => push_object(out, &mut [("state", Field::Name(spec.state_name(*s)))]),
            Detail::Consumed => push_object(out, &mut [("consumed", Field::Bool(true))]),
            Detail::Text(text) => push_object(out, &mut [("text", Field::Text(text))]),
            Detail::Reason(reason) => push_object(out, &mut [("reason", Field::Text(reason))]),
            Detail::Ask { reason, grant } => push_object(
                out,
                &mut [
                    ("reason", Field::Text(reason)),
                    ("grant", Field::Text(grant)),
                ],
            ),
            Detail::Json(v) => push_redacted_json(out, v),
        }
    }
}

/// The result of one evaluation.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub decision: Decision,
    /// The verdict before the mode cap (what gate mode would have done).
    pub proposed: Verdict,
    pub mode: Mode,
    pub classification: Classification,
    pub fired: Vec<u16>,
    pub rising: Vec<SignalId>,
    pub falling: Vec<SignalId>,
    pub armed: bool,
    pub closed: Option<ClosedWindow>,
    pub notes: Vec<Note>,
    /// The grant id minted for an ask, if any.
    pub grant_id: Option<String>,
    /// The time the event was evaluated at (the caller's clock, never behind the scope's).
    pub now_ms: i64,
    /// What each machine beside this one (`[machine] alongside`) made of the same event, in
    /// the order the spec lists them; when there is any, `decision` is the combination of
    /// every machine's answer (`driver::alongside`), and the rest of this outcome is this
    /// spec's own machine's.
    pub alongside: Vec<Alongside>,
    /// How strict the spec's own machine's answer was before the machines beside it were
    /// combined with it (`driver::alongside::strictness`); set only when there are any.
    pub own_strictness: u8,
}

/// One machine beside a spec's own: its outcome of an event and where it went.
#[derive(Clone, Debug)]
pub struct Alongside {
    /// The spec whose machine this is.
    pub spec: Text,
    /// Its machine state after the event.
    pub state: StateId,
    /// Its own outcome (its `decision` is its own answer, before the combination).
    pub outcome: Outcome,
}

impl Outcome {
    /// An outcome with nothing in it, for
    /// [`Engine::evaluate_into`](super::Engine::evaluate_into) to fill.
    pub fn empty() -> Outcome {
        Outcome {
            decision: Decision::allow(),
            proposed: Verdict::Allow,
            mode: Mode::Observe,
            classification: Classification::default(),
            fired: Vec::new(),
            rising: Vec::new(),
            falling: Vec::new(),
            armed: false,
            closed: None,
            notes: Vec::new(),
            grant_id: None,
            now_ms: 0,
            alongside: Vec::new(),
            own_strictness: 0,
        }
    }
}

/// A JSON object of `fields`, in order: what `json!` builds, with the map sized up front and
/// values moved in rather than serialised from references.
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut map = serde_json::Map::with_capacity(N);
    for (k, v) in fields {
        map.insert(k.to_string(), v);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The stored name of every cause is its serde name, and reads back as itself.
    #[test]
    fn closed_by_is_stored_by_its_serde_name() {
        for c in ClosedBy::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), json!(c.as_str()));
            assert_eq!(ClosedBy::parse(c.as_str()), Some(c));
        }
        assert_eq!(ClosedBy::parse("Boundary"), None);
    }

    #[test]
    fn object_is_what_json_builds() {
        let (t, from, trigger, to) = (7u16, "idle", "signal:drift".to_string(), "armed");
        let built = object([
            ("index", Value::from(t)),
            ("from", Value::from(from)),
            ("trigger", Value::from(trigger.clone())),
            ("to", Value::from(to)),
        ]);
        let want = json!({"index": t, "from": from, "trigger": trigger, "to": to});
        assert_eq!(built, want);
        assert_eq!(built.to_string(), want.to_string());
        assert_eq!(object([]), json!({}));
    }

    proptest::proptest! {
        /// Details carrying text (reasons and steer texts built from targets, grant ids,
        /// payload-derived JSON) are stored as the redaction of their JSON.
        #[test]
        fn detail_text_is_the_redacted_json(
            text in "[ -~]{0,40}( ghp_[A-Za-z0-9]{20}| --password=[a-z]{6}| https://u:p@h| AKIA[A-Z0-9]{16}|\"\\\\\n\t\u{1}é)?[ -~]{0,12}",
            grant in "[a-z0-9-]{0,12}|sk-[a-z0-9]{20}",
            n in proptest::prelude::any::<u32>(),
        ) {
            let spec = gate_specs::ALL[0].ir();
            let details = [
                Detail::Text(text.clone()),
                Detail::Reason(text.clone()),
                Detail::Ask { reason: text.clone(), grant: grant.clone() },
                Detail::Expiry { window_actions: n },
                Detail::Consumed,
                Detail::Json(json!({"why": text, "old_hash": grant, "n": n, "token": "x"})),
            ];
            for d in details {
                let mut out = String::new();
                d.write_json(spec, &mut out);
                let want = crate::redact::redact_json_to_string(&d.json(spec)).unwrap();
                proptest::prop_assert_eq!(out, want);
            }
        }
    }

    /// Each typed detail renders to the bytes the `json!` it replaced built, for every
    /// signal, checkpoint, transition, record effect and state of every shipped spec.
    #[test]
    fn detail_json_is_what_json_built() {
        let same = |spec: &Spec, d: Detail, want: Value| {
            let got = d.json(spec);
            assert_eq!(got.to_string(), want.to_string(), "{d:?}");
            let mut text = String::new();
            d.write_json(spec, &mut text);
            let stored = crate::redact::redact_json_to_string(&want).unwrap();
            assert_eq!(text, stored, "{d:?}");
        };
        for compiled in gate_specs::ALL {
            let spec = compiled.ir();
            for (i, s) in spec.signals.iter().enumerate() {
                let id = i as SignalId;
                for (on, edge) in [(true, "on"), (false, "off")] {
                    let want = json!({"signal": s.name, "edge": edge});
                    same(spec, Detail::Edge { signal: id, on }, want);
                }
                same(spec, Detail::Boundary(id), json!({"signal": s.name}));
            }
            for (i, c) in spec.checkpoints.iter().enumerate() {
                let want = json!({"checkpoint": c.name});
                same(spec, Detail::Checkpoint(i as u8), want);
            }
            for (t, tr) in spec.transitions.iter().enumerate() {
                let want = json!({
                    "index": t as u16,
                    "from": spec.state_name(tr.from),
                    "trigger": spec.trigger_text(tr.trigger),
                    "to": spec.state_name(tr.to),
                });
                same(spec, Detail::Transition(t as u16), want);
                for (e, effect) in tr.effects.iter().enumerate() {
                    if let Effect::Record { label } = effect {
                        let d = Detail::Record {
                            transition: t as u16,
                            effect: e as u16,
                        };
                        same(spec, d, json!({"label": label}));
                    }
                }
            }
            for s in 0..spec.states.len() {
                let want = json!({"state": spec.state_name(s as u8)});
                same(spec, Detail::Arm(s as u8), want);
            }
            for n in [0u32, 7, u32::MAX] {
                let want = json!({"window_actions": n});
                same(spec, Detail::Expiry { window_actions: n }, want);
            }
            same(spec, Detail::Consumed, json!({"consumed": true}));
            let text = "a \"quoted\" text\nüber".to_string();
            same(spec, Detail::Text(text.clone()), json!({"text": text}));
            same(spec, Detail::Reason(text.clone()), json!({"reason": text}));
            let d = Detail::Ask {
                reason: text.clone(),
                grant: "g-1".into(),
            };
            same(spec, d, json!({"reason": text, "grant": "g-1"}));
            let v = json!({"why": "x", "n": 1});
            same(spec, Detail::Json(v.clone()), v);
        }
    }
}
