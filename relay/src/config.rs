//! Relay settings with defaults for a busy town.

use std::path::PathBuf;

use nostr::PublicKey;

use crate::policy::RateLimits;

/// Everything the relay needs to know besides the roster.
#[derive(Debug, Clone)]
pub struct RelayConfig {
    /// Directory of the LMDB event store (`town/relay/`).
    pub store_dir: PathBuf,
    /// Largest event accepted, in bytes of JSON.
    pub max_event_bytes: usize,
    /// Largest roster event (34364, the owner's list of every member), in bytes of JSON.
    pub max_roster_bytes: usize,
    /// Largest WebSocket message read; larger than `max_event_bytes` so that an oversize event
    /// still gets a precise `OK false invalid:` instead of a dropped connection.
    pub max_message_bytes: usize,
    /// How far ahead of this clock `created_at` may be.
    pub future_skew_secs: u64,
    /// Rate limits; `None` turns them off (benchmarks only).
    pub rate: Option<RateLimits>,
    /// Open subscriptions per connection.
    pub max_subscriptions: usize,
    /// Filters per REQ.
    pub max_filters: usize,
    /// Upper bound applied to a filter's `limit`.
    pub max_limit: usize,
    /// `limit` used when a filter has none.
    pub default_limit: usize,
    /// EVENTs of one connection handled concurrently (so that writes batch).
    pub max_in_flight: usize,
    /// Live events queued per connection with subscriptions; when full, the subscriptions an
    /// event matched are CLOSED with `error: fell behind` (a client re-subscribes from `since`).
    pub live_queue: usize,
    /// NIP-11 fields.
    pub info: RelayInfo,
}

/// Fields of the NIP-11 information document.
#[derive(Debug, Clone, Default)]
pub struct RelayInfo {
    /// Relay name (the town's name).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// The operator: the town's owner.
    pub pubkey: Option<PublicKey>,
}

/// Room beside an event's content for its other fields and tags, and beside an event for the
/// frame around it.
const ENVELOPE_ROOM: usize = 64 * 1024;

impl RelayConfig {
    /// Defaults with the store in `store_dir`.
    pub fn new(store_dir: impl Into<PathBuf>) -> Self {
        Self {
            store_dir: store_dir.into(),
            max_event_bytes: 64 * 1024,
            // The largest roster content soul reads, its tags and signature.
            max_roster_bytes: soul_kinds::MAX_ROSTER_BYTES + ENVELOPE_ROOM,
            max_message_bytes: soul_kinds::MAX_ROSTER_BYTES + 2 * ENVELOPE_ROOM,
            future_skew_secs: 15 * 60,
            rate: Some(RateLimits::default()),
            max_subscriptions: 200,
            max_filters: 20,
            max_limit: 5_000,
            default_limit: 500,
            max_in_flight: 512,
            live_queue: 16_384,
            info: RelayInfo::default(),
        }
    }
}
