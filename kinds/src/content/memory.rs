//! Memory (34362): an agent's memory, NIP-44 encrypted to itself.
//!
//! The event's content is ciphertext, so [`MemoryContent`] is not a [`super::SoulContent`]: the
//! agent (which holds the key) encrypts `serde_json::to_string(&memory)` itself and hands the
//! ciphertext to [`memory_builder`]. Keeping encryption out of this crate keeps it free of keys.

use nostr::{EventBuilder, Tag};
use serde::{Deserialize, Serialize};

use crate::kind::SoulKind;

/// The plaintext of a memory event.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct MemoryContent {
    /// Recent things, newest last.
    pub short_term: Vec<String>,
    /// Things kept for good.
    pub long_term: Vec<String>,
    /// Current mood.
    pub mood: f64,
    /// Current fatigue.
    pub fatigue: f64,
}

/// A memory event, `d` = the agent's name, content = the NIP-44 ciphertext.
pub fn memory_builder(name: &str, ciphertext: String) -> EventBuilder {
    EventBuilder::new(SoulKind::Memory.kind(), ciphertext)
        .tag(Tag::identifier(name))
        .tag(Tag::alt(format!("soul memory of {name} (encrypted)")))
}
