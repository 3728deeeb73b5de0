//! Town event (4372): a dated happening in the town, from the reporter.

use nostr::EventBuilder;
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_TEXT, MAX_TITLE};
use crate::kind::SoulKind;

/// Content of a town event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TownEvent {
    /// 1..=200 characters.
    pub title: String,
    /// Up to 4000 characters.
    pub description: String,
    /// When it starts, unix seconds.
    pub starts: u64,
    /// When it is over, unix seconds; residents stop talking about it then. Absent in events
    /// of an older reporter, which count as over a day after they start
    /// ([`TownEvent::over_at`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends: Option<u64>,
}

impl TownEvent {
    /// How long an event without `ends` lasts.
    pub const DEFAULT_LENGTH_SECS: u64 = 24 * 3600;

    /// When it is over, unix seconds.
    pub fn over_at(&self) -> u64 {
        self.ends
            .unwrap_or(self.starts.saturating_add(Self::DEFAULT_LENGTH_SECS))
    }
}

impl SoulContent for TownEvent {
    const KIND: SoulKind = SoulKind::TownEvent;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("title", &self.title, 1, MAX_TITLE)?;
        if self.ends.is_some_and(|e| e < self.starts) {
            return Err(FieldError::new("ends", "must not be before starts"));
        }
        check_text("description", &self.description, 0, MAX_TEXT)
    }

    fn alt(&self) -> String {
        format!("soul town event: {}", one_line(&self.title, 120))
    }
}

/// A town event.
pub fn town_event(content: &TownEvent) -> EventBuilder {
    base(content)
}
