//! Suggestion (4368): a worker proposes something; it may become a low-priority task.

use nostr::EventBuilder;
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_TEXT, MAX_TITLE};
use crate::kind::SoulKind;

/// Content of a suggestion event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// 1..=200 characters, like a task title.
    pub title: String,
    /// Up to 4000 characters.
    pub description: String,
}

impl SoulContent for Suggestion {
    const KIND: SoulKind = SoulKind::Suggestion;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("title", &self.title, 1, MAX_TITLE)?;
        check_text("description", &self.description, 0, MAX_TEXT)
    }

    fn alt(&self) -> String {
        format!("soul suggestion: {}", one_line(&self.title, 120))
    }
}

/// A suggestion event.
pub fn suggestion(content: &Suggestion) -> EventBuilder {
    base(content)
}
