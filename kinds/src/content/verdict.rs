//! Verdict (4370): the audit record of a guardian verdict (seed 003).

use nostr::{EventBuilder, EventId, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_NAME, MAX_TEXT};
use crate::kind::SoulKind;

/// What the guardian decided about a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardAction {
    /// Go ahead.
    Allow,
    /// Go ahead only after confirmation.
    Confirm,
    /// Do not.
    Block,
    /// Go ahead with the proposal changed.
    Modify,
}

impl GuardAction {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardAction::Allow => "allow",
            GuardAction::Confirm => "confirm",
            GuardAction::Block => "block",
            GuardAction::Modify => "modify",
        }
    }
}

/// Content of a verdict event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct AuditVerdict {
    /// What was proposed, 1..=4000 characters.
    pub proposal: String,
    /// The guardian's action.
    pub action: GuardAction,
    /// Why (may be empty).
    pub reason: String,
    /// Which check decided, 1..=64 characters.
    pub check: String,
}

impl SoulContent for AuditVerdict {
    const KIND: SoulKind = SoulKind::Verdict;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("proposal", &self.proposal, 1, MAX_TEXT)?;
        check_text("reason", &self.reason, 0, MAX_TEXT)?;
        check_text("check", &self.check, 1, MAX_NAME)
    }

    fn alt(&self) -> String {
        format!(
            "soul audit: {} by {}: {}",
            self.action.as_str(),
            self.check,
            one_line(&self.proposal, 100)
        )
    }
}

/// A verdict event; `e` the event judged.
pub fn verdict(subject: EventId, content: &AuditVerdict) -> EventBuilder {
    base(content).tag(Tag::event(subject))
}
