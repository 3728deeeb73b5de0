//! Review (4365): the reviewer's verdict on one version of a resident's draft.

use nostr::nips::nip01::Coordinate;
use nostr::{EventBuilder, EventId, PublicKey, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_list, check_text, one_line, FieldError, SoulContent, MAX_TEXT};
use crate::kind::SoulKind;

/// The reviewer's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewVerdict {
    /// The draft may be posted.
    Approved,
    /// The draft breaks an NG rule; `reason` says how.
    Rejected,
}

/// Content of a review event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Review {
    /// The verdict.
    pub verdict: ReviewVerdict,
    /// Why; required when rejected, because the resident rewrites from it.
    pub reason: String,
    /// Ids of the NG rules that apply (from `rules/ng_rules.yaml`).
    pub rules: Vec<String>,
}

impl SoulContent for Review {
    const KIND: SoulKind = SoulKind::Review;

    fn validate(&self) -> Result<(), FieldError> {
        let min = match self.verdict {
            ReviewVerdict::Rejected => 1,
            ReviewVerdict::Approved => 0,
        };
        check_text("reason", &self.reason, min, MAX_TEXT)?;
        check_list("rules", &self.rules)
    }

    fn alt(&self) -> String {
        match self.verdict {
            ReviewVerdict::Approved => "soul review: draft approved".to_owned(),
            ReviewVerdict::Rejected => {
                format!(
                    "soul review: draft rejected: {}",
                    one_line(&self.reason, 100)
                )
            }
        }
    }
}

/// A review event: `a` the draft's address, `e` the exact version reviewed, `p` the resident.
pub fn review(
    draft_addr: &Coordinate,
    draft_version: EventId,
    resident: PublicKey,
    content: &Review,
) -> EventBuilder {
    base(content)
        .tag(Tag::coordinate(draft_addr.clone(), None))
        .tag(Tag::event(draft_version))
        .tag(Tag::public_key(resident))
}
