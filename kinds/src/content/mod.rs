//! Typed content for every soul kind: one file per kind, each with its builder.
//!
//! Reading goes through one generic [`parse`]: kind, size, JSON shape, then the type's own
//! [`SoulContent::validate`]. Unknown JSON fields are ignored so that newer agents can add fields
//! without breaking older ones; missing or ill-typed fields are errors (only fields documented with
//! a default may be left out).
//!
//! Builders return an unsigned [`nostr::EventBuilder`] with the `alt` tag (NIP-31) already added;
//! the caller signs. Builders do not validate, like rust-nostr's own: call
//! [`SoulContent::validate`] first when a value comes from somewhere untrusted (a model's output),
//! or the receiving side's [`parse`] will refuse the event.

use nostr::{Event, EventBuilder, Tag};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::Error;
use crate::kind::SoulKind;

mod announcement;
mod decision;
mod draft;
mod evaluation;
mod execution;
mod heartbeat;
mod lesson;
mod memory;
mod news;
mod opinion;
mod params;
mod restart;
mod review;
mod roster;
mod suggestion;
mod task;
mod town_event;
mod verdict;
mod worker_state;

pub use announcement::{announcement, Announcement};
pub use decision::{decision, Decision, Outcome, Tally};
pub use draft::{draft, Draft, DraftHistory, DraftStatus, MAX_DRAFT_HISTORY};
pub use evaluation::{evaluation, Evaluation, Scores};
pub use execution::{execution, ExecStatus, Execution};
pub use heartbeat::{heartbeat, Heartbeat};
pub use lesson::{lesson, Lesson};
pub use memory::{memory_builder, MemoryContent};
pub use news::{news, News};
pub use opinion::{opinion, Opinion, Vote};
pub use params::{owner_params, params, Params};
pub use restart::{restart, RestartStatus, RestartStep};
pub use review::{review, Review, ReviewVerdict};
pub use roster::{roster, RosterContent};
pub use suggestion::{suggestion, Suggestion};
pub use task::{
    confirming, confirming_for, confirms, may_publish_task, says_confirm, task, task_origin,
    Priority, Relayed, Task, TaskOrigin, CONFIRMS,
};
pub use town_event::{town_event, TownEvent};
pub use verdict::{verdict, AuditVerdict, GuardAction};
pub use worker_state::{worker_state, WorkerRun, WorkerState};

/// Largest content [`parse`] accepts, in bytes. Bigger events are refused before any JSON work.
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;

/// Largest roster content (34364), in bytes: the owner's roster lists every member (about 110
/// bytes each), so a town of tens of thousands needs more than any other event.
pub const MAX_ROSTER_BYTES: usize = 4 * 1024 * 1024 - 64 * 1024;

/// The content limit for events of `kind`.
pub fn content_limit(kind: SoulKind) -> usize {
    match kind {
        SoulKind::Roster => MAX_ROSTER_BYTES,
        _ => MAX_CONTENT_BYTES,
    }
}

/// Longest title, in characters.
pub(crate) const MAX_TITLE: usize = 200;
/// Longest free text (description, opinion, result), in characters.
pub(crate) const MAX_TEXT: usize = 4000;
/// Longest short name (task type, topic, service, cycle), in characters.
pub(crate) const MAX_NAME: usize = 64;
/// Most entries in a list (concerns, reasons, rules, topics).
pub(crate) const MAX_ITEMS: usize = 32;
/// Longest list entry, in characters.
pub(crate) const MAX_ITEM: usize = 500;

/// A typed content of one soul kind.
pub trait SoulContent: Serialize + DeserializeOwned {
    /// The kind this content belongs to.
    const KIND: SoulKind;
    /// Field-level validation after JSON parsing (ranges, lengths, non-empty).
    fn validate(&self) -> Result<(), FieldError>;
    /// One-line human summary for the `alt` tag (NIP-31).
    fn alt(&self) -> String;
}

/// A field that breaks a rule; [`parse`] turns it into [`Error::Field`] with the event id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field \"{field}\": {reason}")]
pub struct FieldError {
    /// The JSON name of the field.
    pub field: &'static str,
    /// Which rule it breaks.
    pub reason: String,
}

impl FieldError {
    /// A field error.
    pub fn new(field: &'static str, reason: impl Into<String>) -> Self {
        Self {
            field,
            reason: reason.into(),
        }
    }
}

/// Read an event's content as `T`: checks kind, size ([`content_limit`]), JSON, then
/// [`SoulContent::validate`]. Every error names the event id, and the field where there is one.
pub fn parse<T: SoulContent>(event: &Event) -> Result<T, Error> {
    if event.kind != T::KIND.kind() {
        return Err(Error::WrongKind {
            event: event.id,
            expected: T::KIND,
            found: event.kind,
        });
    }
    let limit = content_limit(T::KIND);
    if event.content.len() > limit {
        return Err(Error::TooLarge {
            event: event.id,
            size: event.content.len(),
            limit,
        });
    }
    let value: T = serde_json::from_str(&event.content).map_err(|source| Error::Json {
        event: event.id,
        source,
    })?;
    value.validate().map_err(|e| Error::Field {
        event: event.id,
        field: e.field,
        reason: e.reason,
    })?;
    Ok(value)
}

/// `TryFrom<&Event>` for every content type, so `Task::try_from(&event)` reads like std.
macro_rules! impl_try_from {
    ($($ty:ty),* $(,)?) => {$(
        impl TryFrom<&Event> for $ty {
            type Error = Error;
            fn try_from(event: &Event) -> Result<Self, Error> {
                parse(event)
            }
        }
    )*};
}

impl_try_from!(
    Task,
    Opinion,
    Decision,
    Announcement,
    Execution,
    Review,
    Evaluation,
    Lesson,
    Suggestion,
    RestartStep,
    AuditVerdict,
    News,
    TownEvent,
    Heartbeat,
    Params,
    Draft,
    WorkerState,
    RosterContent,
);

/// The start of every builder: kind, JSON content and the `alt` tag.
pub(crate) fn base<T: SoulContent>(content: &T) -> EventBuilder {
    // Serialising these plain structs (strings, numbers, vectors, string-keyed maps) cannot fail;
    // a non-finite float becomes `null` and is then refused by the reader's `parse`.
    let json = serde_json::to_string(content).unwrap_or_default();
    EventBuilder::new(T::KIND.kind(), json).tag(Tag::alt(content.alt()))
}

/// `text` cut to one line of at most `max` characters, for `alt` tags.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `value` has between `min` and `max` characters.
pub(crate) fn check_text(
    field: &'static str,
    value: &str,
    min: usize,
    max: usize,
) -> Result<(), FieldError> {
    let n = value.chars().count();
    if n < min {
        let reason = if min == 1 {
            "must not be empty".to_owned()
        } else {
            format!("must have at least {min} characters")
        };
        return Err(FieldError::new(field, reason));
    }
    if n > max {
        return Err(FieldError::new(
            field,
            format!("must have at most {max} characters, has {n}"),
        ));
    }
    Ok(())
}

/// `value` is a finite number within 0..=1.
pub(crate) fn check_unit(field: &'static str, value: f64) -> Result<(), FieldError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(FieldError::new(field, "must be within 0..=1"))
    }
}

/// At most [`MAX_ITEMS`] non-empty entries of at most [`MAX_ITEM`] characters.
pub(crate) fn check_list(field: &'static str, items: &[String]) -> Result<(), FieldError> {
    if items.len() > MAX_ITEMS {
        return Err(FieldError::new(
            field,
            format!("must have at most {MAX_ITEMS} entries, has {}", items.len()),
        ));
    }
    for (i, item) in items.iter().enumerate() {
        check_text(field, item, 1, MAX_ITEM)
            .map_err(|e| FieldError::new(field, format!("entry {i} {}", e.reason)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
