//! The crate's one error type.
//!
//! Every variant that comes from reading an event carries that event's id, so a log line is enough
//! to find the offending event on a relay. Event ids are printed in full (64 hex digits) rather than
//! abbreviated: a full id can be pasted straight into a relay filter or `nak`.

use nostr::{EventId, Kind};

use crate::kind::SoulKind;

/// Everything that can go wrong while reading soul events.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The event is not of the kind the caller asked for.
    #[error("event {event}: expected kind {expected}, found kind {found}")]
    WrongKind {
        /// The event read.
        event: EventId,
        /// The kind the caller expected.
        expected: SoulKind,
        /// The kind the event has.
        found: Kind,
    },
    /// The content is over its kind's limit ([`crate::content_limit`]).
    #[error("event {event}: content is {size} bytes, over the limit of {limit}")]
    TooLarge {
        /// The event read.
        event: EventId,
        /// Size of its content in bytes.
        size: usize,
        /// The limit for its kind.
        limit: usize,
    },
    /// The content is not JSON of the expected shape (syntax, a missing or ill-typed field).
    #[error("event {event}: content is not valid JSON for its kind: {source}")]
    Json {
        /// The event read.
        event: EventId,
        /// What serde_json said; it names missing fields and the position of ill-typed ones.
        #[source]
        source: serde_json::Error,
    },
    /// The JSON parsed but a field breaks a rule (range, length, emptiness).
    #[error("event {event}: field \"{field}\": {reason}")]
    Field {
        /// The event read.
        event: EventId,
        /// The JSON name of the field.
        field: &'static str,
        /// Which rule it breaks.
        reason: String,
    },
    /// A tag the kind requires is absent or malformed.
    #[error("event {event}: missing tag \"{tag}\"")]
    MissingTag {
        /// The event read.
        event: EventId,
        /// The tag name.
        tag: &'static str,
    },
    /// A name (role, brain) that is not one of the known ones.
    #[error("unknown {what} \"{value}\"")]
    Unknown {
        /// What was being named: "role", "brain".
        what: &'static str,
        /// The text that did not match.
        value: String,
    },
}
