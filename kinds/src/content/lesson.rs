//! Lesson (kind 4367, "karma"): something an agent learnt.

use nostr::{EventBuilder, EventId, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_NAME, MAX_TEXT};
use crate::kind::SoulKind;

/// Content of a karma event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Lesson {
    /// The lesson, 1..=4000 characters.
    pub lesson: String,
    /// 0..=100; weight 0 is never retrieved (DESIGN §8).
    pub weight: u8,
    /// What it is about, 1..=64 characters.
    pub topic: String,
}

impl SoulContent for Lesson {
    const KIND: SoulKind = SoulKind::Karma;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("lesson", &self.lesson, 1, MAX_TEXT)?;
        if self.weight > 100 {
            return Err(FieldError::new("weight", "must be within 0..=100"));
        }
        check_text("topic", &self.topic, 1, MAX_NAME)
    }

    fn alt(&self) -> String {
        format!(
            "soul lesson on {}: {}",
            self.topic,
            one_line(&self.lesson, 100)
        )
    }
}

/// A karma event; `e` the event the lesson was drawn from, if any.
pub fn lesson(source: Option<EventId>, content: &Lesson) -> EventBuilder {
    base(content).tag_maybe(source.map(Tag::event))
}
