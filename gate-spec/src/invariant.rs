//! Invariants a spec declares about its own behaviour (`[[invariant]]`), as carried in the
//! IR: which events an invariant speaks of (`When`) and what it claims of them (`Claim`).
//! `parse/invariant.rs` reads and checks them; gate-runtime's `verify` decides them by
//! exhaustive exploration.

use serde::{Deserialize, Serialize};

use crate::ir::{KindId, Phase, RoleId, SignalId, Span, StateId, Text, TierId};

/// A verdict without its text, ordered by strength: what a hook answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Allow,
    Steer,
    Ask,
    Deny,
}

impl Answer {
    pub const ALL: [Answer; 4] = [Answer::Allow, Answer::Steer, Answer::Ask, Answer::Deny];

    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Allow => "allow",
            Answer::Steer => "steer",
            Answer::Ask => "ask",
            Answer::Deny => "deny",
        }
    }

    pub fn parse(text: &str) -> Option<Answer> {
        Answer::ALL.into_iter().find(|a| a.as_str() == text)
    }

    /// Whether the action is withheld (ask or deny).
    pub fn withholds(self) -> bool {
        matches!(self, Answer::Ask | Answer::Deny)
    }
}

/// One declared invariant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Invariant {
    pub name: Text,
    pub span: Span,
    /// The events (or, for a reachability claim, the states) it speaks of.
    pub when: When,
    pub claim: Claim,
}

/// Which events an invariant speaks of: every present condition must hold (an empty list
/// or `None` admits everything).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct When {
    /// The state the event arrives in.
    pub states: Vec<StateId>,
    /// The event arrives in a window state (`true`) or outside one (`false`).
    pub window: Option<bool>,
    /// The event's phase; empty means `pre_tool` for an answer claim (the actions a hook
    /// answers).
    pub phases: Vec<Phase>,
    /// The action's tier within `lo..=hi` (tool events only).
    pub tier: Option<(TierId, TierId)>,
    /// The action's kind (tool events only).
    pub kinds: Vec<KindId>,
    /// The identity's role (`None` in the list means "no role").
    pub roles: Vec<Option<RoleId>>,
    /// The event turns one of these signals on.
    pub signals: Vec<SignalId>,
    /// The event is (`true`) or is not (`false`) the identity's first.
    pub first: Option<bool>,
    /// The event does (`true`) or does not (`false`) spend the user's approval of this exact
    /// action (a grant consumed: the `approved` trigger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// The state's own timer (`timeout_secs`) does (`true`) or does not (`false`) run out on
    /// the event (the `timeout` trigger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<bool>,
    /// The open window does (`true`) or does not (`false`) reach its backstop on the event
    /// (the `backstop` trigger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backstop: Option<bool>,
}

/// What an invariant claims.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// The hook's answer to every such event is none of these.
    Never(Vec<Answer>),
    /// The hook's answer to every such event is one of these.
    Always(Vec<Answer>),
    /// From every reachable state the `when` admits, one of these states can be reached.
    Reach(Vec<StateId>),
}
