//! Replay protection for commands, derived from the relay.
//!
//! A message counts once. An agent marks a message handled by replying to it: the reply's rumor
//! carries `["e", rumor]` and `["handled", wrap]`, and [`DmClient::send`](super::DmClient::send)
//! keeps a copy wrapped to the agent itself on the relay. After a restart the agent reads its
//! gift wraps back ([`Seen::from_history`]) and knows every message it handled, on any machine,
//! with only its key: no local file holds this state. Messages older than [`MAX_AGE`] are
//! ignored outright, which also bounds how far back a replay could reach.

use std::collections::HashSet;

use nostr::{EventId, PublicKey, Tag, TagKind, Timestamp};

use super::Message;

/// Commands older than this are ignored (seed 004: stale commands are replays).
pub const MAX_AGE_SECS: u64 = 600;

/// Tag on a reply naming the gift wrap it handled.
pub const HANDLED: &str = "handled";

/// Why a message is not acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// This wrap (or another wrap of the same rumor) was handled before.
    Seen,
    /// Written more than [`MAX_AGE_SECS`] ago, or more than that ahead of now.
    TooOld(u64),
}

/// Messages already handled.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    ids: HashSet<EventId>,
}

impl Seen {
    /// The handled set from an agent's stored messages: its own replies name what they handled.
    pub fn from_history(me: &PublicKey, history: &[Message]) -> Self {
        let mut seen = Self::default();
        for m in history.iter().filter(|m| m.sender == *me) {
            seen.absorb_reply(m);
        }
        seen
    }

    /// Records the handled marks of one of our own replies.
    pub fn absorb_reply(&mut self, reply: &Message) {
        if let Some(id) = reply.reply_to() {
            self.ids.insert(id);
        }
        if let Some(id) = reply.tag(HANDLED).and_then(|h| EventId::from_hex(h).ok()) {
            self.ids.insert(id);
        }
    }

    /// Whether `m` should be acted on now; marks it seen in memory if so.
    pub fn admit(&mut self, m: &Message, now: Timestamp) -> Result<(), Stale> {
        if self.ids.contains(&m.wrap_id) || self.ids.contains(&m.rumor_id) {
            return Err(Stale::Seen);
        }
        let age = now.as_secs().abs_diff(m.created_at.as_secs());
        if age > MAX_AGE_SECS {
            return Err(Stale::TooOld(age));
        }
        self.ids.insert(m.wrap_id);
        self.ids.insert(m.rumor_id);
        Ok(())
    }

    /// The tags a reply to `m` carries so that it marks `m` handled.
    pub fn reply_tags(m: &Message) -> Vec<Tag> {
        vec![
            Tag::event(m.rumor_id),
            Tag::custom(TagKind::custom(HANDLED), [m.wrap_id.to_hex()]),
        ]
    }
}

#[cfg(test)]
mod tests {
    use nostr::Keys;

    use super::*;

    fn msg(sender: PublicKey, wrap: u8, rumor: u8, at: u64, tags: Vec<Tag>) -> Message {
        Message {
            wrap_id: EventId::from_slice(&[wrap; 32]).unwrap(),
            sender,
            rumor_id: EventId::from_slice(&[rumor; 32]).unwrap(),
            text: "pause".into(),
            created_at: Timestamp::from(at),
            tags,
        }
    }

    #[test]
    fn replies_in_history_mark_commands_handled() {
        let (me, owner) = (Keys::generate().public_key(), Keys::generate().public_key());
        let now = Timestamp::from(10_000);
        let cmd = msg(owner, 1, 2, 9_990, vec![]);
        let reply = msg(me, 3, 4, 9_995, Seen::reply_tags(&cmd));
        let mut seen = Seen::from_history(&me, &[cmd.clone(), reply]);
        assert_eq!(seen.admit(&cmd, now), Err(Stale::Seen));
        // The same rumor in a new wrap is the same command.
        let rewrapped = msg(owner, 9, 2, 9_990, vec![]);
        assert_eq!(seen.admit(&rewrapped, now), Err(Stale::Seen));
        let fresh = msg(owner, 5, 6, 9_999, vec![]);
        assert_eq!(seen.admit(&fresh, now), Ok(()));
        assert_eq!(seen.admit(&fresh, now), Err(Stale::Seen), "once only");
    }

    #[test]
    fn old_and_future_commands_are_stale() {
        let owner = Keys::generate().public_key();
        let mut seen = Seen::default();
        let now = Timestamp::from(10_000);
        let old = msg(owner, 1, 1, 10_000 - MAX_AGE_SECS - 1, vec![]);
        assert_eq!(seen.admit(&old, now), Err(Stale::TooOld(MAX_AGE_SECS + 1)));
        let ahead = msg(owner, 2, 2, 10_000 + MAX_AGE_SECS + 5, vec![]);
        assert!(matches!(seen.admit(&ahead, now), Err(Stale::TooOld(_))));
        let edge = msg(owner, 3, 3, 10_000 - MAX_AGE_SECS, vec![]);
        assert_eq!(seen.admit(&edge, now), Ok(()));
    }
}
