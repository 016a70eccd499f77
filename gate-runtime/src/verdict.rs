//! The verdict gate reaches for one event, before a runtime adapter renders it.

use serde::{Deserialize, Serialize};

/// What gate answers. Adapters turn this into each runtime's own JSON (or silence).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// No opinion: the runtime's own permission flow continues (no output at all).
    Allow,
    /// Let the action run and inject this guidance for the model.
    Steer { text: String },
    /// Withhold until the user approves this exact action. `grant_id` is what
    /// `gate approve <id>` takes; `approve` is the full command to show.
    Ask { reason: String, grant_id: String },
    /// Withhold, with a reason the model can act on.
    Deny { reason: String },
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Steer { .. } => "steer",
            Verdict::Ask { .. } => "ask",
            Verdict::Deny { .. } => "deny",
        }
    }
    pub fn blocks(&self) -> bool {
        matches!(self, Verdict::Ask { .. } | Verdict::Deny { .. })
    }
}

/// The verdict plus what the adapter needs to render it for this event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub verdict: Verdict,
    /// Context carried over from an earlier event whose answer could not carry it
    /// (Gemini BeforeTool); the adapter adds it to this answer.
    pub carried: Option<String>,
}

impl Decision {
    pub fn allow() -> Decision {
        Decision {
            verdict: Verdict::Allow,
            carried: None,
        }
    }
}
