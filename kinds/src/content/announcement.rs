//! Announcement (4363): triceratops makes an approved decision public.

use nostr::{EventBuilder, EventId};
use serde::{Deserialize, Serialize};

use super::{base, check_list, check_text, one_line, FieldError, SoulContent, MAX_TEXT};
use crate::kind::SoulKind;
use crate::tags::{e_marked, REPLY, ROOT};

/// Content of an announcement event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Announcement {
    /// What will be done, 1..=4000 characters.
    pub summary: String,
    /// Why, up to 32 entries.
    pub reasons: Vec<String>,
}

impl SoulContent for Announcement {
    const KIND: SoulKind = SoulKind::Announcement;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("summary", &self.summary, 1, MAX_TEXT)?;
        check_list("reasons", &self.reasons)
    }

    fn alt(&self) -> String {
        format!("soul announcement: {}", one_line(&self.summary, 120))
    }
}

/// An announcement event: `["e", task, "", "root"]`, `["e", decision, "", "reply"]`.
pub fn announcement(task: EventId, decision: EventId, content: &Announcement) -> EventBuilder {
    base(content)
        .tag(e_marked(task, ROOT))
        .tag(e_marked(decision, REPLY))
}
