//! Draft (34361): a resident's current draft post, addressable by the resident's name.

use nostr::{EventBuilder, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_TEXT};
use crate::kind::SoulKind;

/// Most history entries a draft keeps (seed 001).
pub const MAX_DRAFT_HISTORY: usize = 20;

/// Where a draft stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DraftStatus {
    /// Waiting for the reviewer.
    Pending,
    /// Approved; to be posted when due.
    Approved,
    /// Rejected; to be rewritten.
    Rejected,
    /// Published as a kind-1 note.
    Posted,
}

impl DraftStatus {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            DraftStatus::Pending => "pending",
            DraftStatus::Approved => "approved",
            DraftStatus::Rejected => "rejected",
            DraftStatus::Posted => "posted",
        }
    }
}

/// One earlier state of the draft.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct DraftHistory {
    /// The text at the time.
    pub content: String,
    /// Its status at the time.
    pub status: DraftStatus,
    /// When, unix seconds.
    pub at: u64,
}

/// Content of a draft event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Draft {
    /// The text to post, 1..=4000 characters.
    pub content: String,
    /// Where it stands.
    pub status: DraftStatus,
    /// When this draft was written, unix seconds.
    pub created_at: u64,
    /// When it was posted; required once `posted`.
    pub posted_at: Option<u64>,
    /// The kind-1 note's id (64 hex digits); required once `posted`.
    pub note_id: Option<String>,
    /// Earlier states, newest last, at most [`MAX_DRAFT_HISTORY`].
    pub history: Vec<DraftHistory>,
}

impl SoulContent for Draft {
    const KIND: SoulKind = SoulKind::Draft;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("content", &self.content, 1, MAX_TEXT)?;
        if let Some(id) = &self.note_id {
            if id.len() != 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(FieldError::new("note_id", "must be 64 hex digits"));
            }
        }
        if self.status == DraftStatus::Posted {
            if self.note_id.is_none() {
                return Err(FieldError::new("note_id", "is required once posted"));
            }
            if self.posted_at.is_none() {
                return Err(FieldError::new("posted_at", "is required once posted"));
            }
        }
        if self.history.len() > MAX_DRAFT_HISTORY {
            return Err(FieldError::new(
                "history",
                format!("must have at most {MAX_DRAFT_HISTORY} entries"),
            ));
        }
        for h in &self.history {
            check_text("history", &h.content, 0, MAX_TEXT)?;
        }
        Ok(())
    }

    fn alt(&self) -> String {
        format!(
            "soul draft ({}): {}",
            self.status.as_str(),
            one_line(&self.content, 100)
        )
    }
}

/// A draft event, `d` = the resident's name.
pub fn draft(name: &str, content: &Draft) -> EventBuilder {
    base(content).tag(Tag::identifier(name))
}
