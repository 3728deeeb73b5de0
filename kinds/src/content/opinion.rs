//! Opinion (4361): one brain's vote on a task in one round.

use nostr::{EventBuilder, EventId};
use serde::{Deserialize, Serialize};

use super::{base, check_list, check_text, check_unit, FieldError, SoulContent, MAX_TEXT};
use crate::kind::SoulKind;
use crate::role::BrainName;
use crate::tags::{e_marked, named, ROOT, ROUND};

/// A brain's vote. `Approve` and `ApproveWithModification` both count as yes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Vote {
    /// Yes, as proposed.
    Approve,
    /// Yes, with changes named in `proposed_approach`.
    ApproveWithModification,
    /// No.
    Reject,
}

impl Vote {
    /// Whether the vote counts as yes in a tally.
    pub fn is_yes(self) -> bool {
        !matches!(self, Vote::Reject)
    }

    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Vote::Approve => "approve",
            Vote::ApproveWithModification => "approve_with_modification",
            Vote::Reject => "reject",
        }
    }
}

/// Content of an opinion event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Opinion {
    /// 1..=3.
    pub round: u8,
    /// The vote.
    pub vote: Vote,
    /// The reasoning, 1..=4000 characters.
    pub opinion: String,
    /// How the brain would carry the task out (may be empty).
    pub proposed_approach: String,
    /// Up to 32 concerns.
    pub concerns: Vec<String>,
    /// How sure the brain is, 0..=1.
    pub confidence: f64,
    /// Rounds 2–3: the brains whose conditions (their `approve_with_modification`) this opinion
    /// takes up. Two yes votes agree only when each has taken up the other's conditions
    /// ([`crate::agreement`]). Absent in round 1 and in older events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepts: Vec<BrainName>,
}

impl SoulContent for Opinion {
    const KIND: SoulKind = SoulKind::Opinion;

    fn validate(&self) -> Result<(), FieldError> {
        if !(1..=3).contains(&self.round) {
            return Err(FieldError::new("round", "must be within 1..=3"));
        }
        check_text("opinion", &self.opinion, 1, MAX_TEXT)?;
        check_text("proposed_approach", &self.proposed_approach, 0, MAX_TEXT)?;
        check_list("concerns", &self.concerns)?;
        if !self.accepts.is_empty() {
            if self.round == 1 {
                return Err(FieldError::new(
                    "accepts",
                    "round 1 has no conditions to take up yet",
                ));
            }
            if self.vote == Vote::Reject {
                return Err(FieldError::new(
                    "accepts",
                    "a reject takes up no one's conditions",
                ));
            }
            let mut seen = self.accepts.clone();
            seen.sort();
            seen.dedup();
            if seen.len() != self.accepts.len() {
                return Err(FieldError::new("accepts", "names a brain twice"));
            }
        }
        check_unit("confidence", self.confidence)
    }

    fn alt(&self) -> String {
        format!(
            "soul opinion: votes {} in round {} (confidence {:.2})",
            self.vote.as_str(),
            self.round,
            self.confidence
        )
    }
}

/// An opinion event: tags `["e", task, "", "root"]` and `["round", "N"]`.
pub fn opinion(task: EventId, content: &Opinion) -> EventBuilder {
    base(content)
        .tag(e_marked(task, ROOT))
        .tag(named(ROUND, content.round.to_string()))
}
