//! The strings of an evaluation's verdicts and notes: the room of an outcome being written
//! over, kept for the new outcome's texts ([`Texts`]), and the text a verdict carries.

use super::{Detail, Outcome};
use crate::verdict::Verdict;

/// Strings of an outcome being written over
/// ([`Engine::evaluate_into`](super::Engine::evaluate_into)), kept so that the new outcome's
/// verdict texts, note texts and grant ids are written into their room rather than allocated.
/// Only what the new outcome holds is read from them: each is cleared when taken.
#[derive(Default)]
pub(super) struct Texts(Vec<String>);

impl Texts {
    /// Most strings kept, and the most room a kept string may have (bounds the memory held).
    const MAX: usize = 32;
    const MAX_ROOM: usize = 64 * 1024;

    pub(super) fn keep(&mut self, s: String) {
        if self.0.len() < Self::MAX && s.capacity() > 0 && s.capacity() <= Self::MAX_ROOM {
            self.0.push(s);
        }
    }

    /// The strings of `v`.
    fn keep_verdict(&mut self, v: Verdict) {
        match v {
            Verdict::Allow => {}
            Verdict::Steer { text } => self.keep(text),
            Verdict::Ask { reason, grant_id } => {
                self.keep(reason);
                self.keep(grant_id);
            }
            Verdict::Deny { reason } => self.keep(reason),
        }
    }

    /// The strings of `out`, which is left without texts (allow, no notes, no grant).
    pub(super) fn keep_outcome(&mut self, out: &mut Outcome) {
        self.keep_verdict(std::mem::replace(&mut out.decision.verdict, Verdict::Allow));
        self.keep_verdict(std::mem::replace(&mut out.proposed, Verdict::Allow));
        if let Some(s) = out.decision.carried.take() {
            self.keep(s);
        }
        if let Some(s) = out.grant_id.take() {
            self.keep(s);
        }
        for note in out.notes.drain(..) {
            match note.detail {
                Detail::Text(s) | Detail::Reason(s) => self.keep(s),
                Detail::Ask { reason, grant } => {
                    self.keep(reason);
                    self.keep(grant);
                }
                _ => {}
            }
        }
    }

    /// An empty string (with room, when one was kept).
    pub(super) fn take(&mut self) -> String {
        match self.0.pop() {
            Some(mut s) => {
                s.clear();
                s
            }
            None => String::new(),
        }
    }

    /// `text.to_string()`, in a kept string's room.
    pub(super) fn copy(&mut self, text: &str) -> String {
        match self.0.pop() {
            Some(mut s) => {
                s.clear();
                s.push_str(text);
                s
            }
            None => text.to_string(),
        }
    }

    /// `v.clone()`, in kept strings' room.
    pub(super) fn copy_verdict(&mut self, v: &Verdict) -> Verdict {
        match v {
            Verdict::Allow => Verdict::Allow,
            Verdict::Steer { text } => Verdict::Steer {
                text: self.copy(text),
            },
            Verdict::Ask { reason, grant_id } => Verdict::Ask {
                reason: self.copy(reason),
                grant_id: self.copy(grant_id),
            },
            Verdict::Deny { reason } => Verdict::Deny {
                reason: self.copy(reason),
            },
        }
    }
}

/// The text a verdict carries (empty for an allow).
pub(super) fn verdict_text(v: &Verdict) -> &str {
    match v {
        Verdict::Allow => "",
        Verdict::Steer { text } => text,
        Verdict::Ask { reason, .. } | Verdict::Deny { reason } => reason,
    }
}
