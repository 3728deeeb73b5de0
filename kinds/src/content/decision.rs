//! Decision (4362): the outcome of a task's debate.

use nostr::{EventBuilder, EventId};
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_TEXT};
use crate::kind::SoulKind;
use crate::tags::{e_marked, MENTION, ROOT};

/// What was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Go ahead: triceratops announces and executes.
    Approved,
    /// Stop here; final.
    Rejected,
}

impl Outcome {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Approved => "approved",
            Outcome::Rejected => "rejected",
        }
    }
}

/// Votes counted in a round: yes = approve + approve_with_modification.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tally {
    /// Yes votes.
    pub yes: u8,
    /// Reject votes.
    pub reject: u8,
}

/// Content of a decision event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Decision {
    /// What was decided.
    pub outcome: Outcome,
    /// The round whose opinions were counted, 1..=3.
    pub round: u8,
    /// The count of the opinions the event's `e` tags name; yes + reject <= 3.
    pub tally: Tally,
    /// Triceratops decided after round 3 without a 2/3 majority.
    pub mediated: bool,
    /// Why, in a few sentences (may be empty).
    pub summary: String,
}

impl SoulContent for Decision {
    const KIND: SoulKind = SoulKind::Decision;

    fn validate(&self) -> Result<(), FieldError> {
        if !(1..=3).contains(&self.round) {
            return Err(FieldError::new("round", "must be within 1..=3"));
        }
        if u16::from(self.tally.yes) + u16::from(self.tally.reject) > 3 {
            return Err(FieldError::new("tally", "counts more than 3 votes"));
        }
        check_text("summary", &self.summary, 0, MAX_TEXT)
    }

    fn alt(&self) -> String {
        let how = if self.mediated { ", mediated" } else { "" };
        let summary = if self.summary.is_empty() {
            String::new()
        } else {
            format!(": {}", one_line(&self.summary, 100))
        };
        format!(
            "soul decision: {} in round {} ({} yes, {} reject{how}){summary}",
            self.outcome.as_str(),
            self.round,
            self.tally.yes,
            self.tally.reject
        )
    }
}

/// A decision event: `["e", task, "", "root"]`, then `["e", opinion, "", "mention"]` for each
/// counted opinion.
pub fn decision(task: EventId, content: &Decision, opinions: &[EventId]) -> EventBuilder {
    base(content)
        .tag(e_marked(task, ROOT))
        .tags(opinions.iter().map(|id| e_marked(*id, MENTION)))
}
