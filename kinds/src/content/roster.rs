//! Roster content (34364): the member list the owner signs. [`crate::Roster`] is the read side.

use std::collections::BTreeSet;

use nostr::{EventBuilder, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, FieldError, SoulContent, MAX_NAME};
use crate::kind::SoulKind;
use crate::roster::RosterMember;

/// Most members a roster may list: a town of tens of thousands across hosts (the content limit,
/// [`super::MAX_ROSTER_BYTES`], holds about 35,000), low enough to bound a fold.
const MAX_MEMBERS: usize = 30_000;

/// Content of a roster event: `{"members":[{"pubkey":hex,"name":..,"role":..}]}`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RosterContent {
    /// Every agent of the town (not the owner, who is the event's author).
    pub members: Vec<RosterMember>,
}

impl SoulContent for RosterContent {
    const KIND: SoulKind = SoulKind::Roster;

    /// Names are 1..=64 characters without whitespace, control characters or `/`, because they
    /// become key file names and `d` tags; names and pubkeys are unique so that both lookups
    /// ([`crate::Roster::member`], [`crate::Roster::by_name`]) have one answer.
    fn validate(&self) -> Result<(), FieldError> {
        if self.members.len() > MAX_MEMBERS {
            return Err(FieldError::new(
                "members",
                format!("must have at most {MAX_MEMBERS} entries"),
            ));
        }
        let (mut names, mut keys) = (BTreeSet::new(), BTreeSet::new());
        for m in &self.members {
            check_text("name", &m.name, 1, MAX_NAME)?;
            if m.name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '/')
            {
                return Err(FieldError::new(
                    "name",
                    format!(
                        "{:?} must not contain whitespace, control characters or '/'",
                        m.name
                    ),
                ));
            }
            if !names.insert(m.name.as_str()) {
                return Err(FieldError::new(
                    "name",
                    format!("{:?} is listed twice", m.name),
                ));
            }
            if !keys.insert(m.pubkey) {
                return Err(FieldError::new(
                    "pubkey",
                    format!("{} is listed twice", m.pubkey),
                ));
            }
        }
        Ok(())
    }

    fn alt(&self) -> String {
        format!("soul roster: {} members", self.members.len())
    }
}

/// A roster event, `d` = the town's name; the owner signs it.
pub fn roster(town: &str, content: &RosterContent) -> EventBuilder {
    base(content).tag(Tag::identifier(town))
}
