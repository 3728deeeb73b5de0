//! Replay protection for commands, derived from the relay.
//!
//! A message counts once. An agent marks a message handled by replying to it: the reply's rumor
//! carries `["e", rumor]` and `["handled", wrap]`, and [`DmClient::send`](super::DmClient::send)
//! keeps a copy wrapped to the agent itself on the relay. After a restart the agent reads its
//! gift wraps back ([`Seen::from_history`]) and knows every message it handled, on any machine,
//! with only its key: no local file holds this state. Messages older than [`MAX_AGE`] are
//! ignored outright, which also bounds how far back a replay could reach.
//!
//! Only what was authorised is marked: a role first [`Seen::check`]s a message, decides whether
//! its sender may ask it anything, and [`Seen::mark`]s it only then; a refusal's reply carries
//! `["refused", wrap]` instead of `handled`. Ids are the computed ones ([`super::open_gift`]),
//! so a stranger cannot mark the owner's next message as handled by naming its id.

use std::collections::HashSet;

use nostr::{EventId, PublicKey, Tag, TagKind, Timestamp};

use super::Message;

/// Commands older than this are ignored (seed 004: stale commands are replays).
pub const MAX_AGE_SECS: u64 = 600;

/// Tag on a reply naming the gift wrap it handled.
pub const HANDLED: &str = "handled";
/// Tag on a reply naming the gift wrap it refused (which marks nothing).
pub const REFUSED: &str = "refused";

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

    /// Records the handled marks of one of our own replies: only a reply that says `handled`
    /// marks the message it answers (a refusal, or a question, marks nothing).
    pub fn absorb_reply(&mut self, reply: &Message) {
        let Some(wrap) = reply.tag(HANDLED).and_then(|h| EventId::from_hex(h).ok()) else {
            return;
        };
        self.ids.insert(wrap);
        if let Some(id) = reply.reply_to() {
            self.ids.insert(id);
        }
    }

    /// Whether `m` may be considered now (not handled before, not stale); marks nothing.
    pub fn check(&self, m: &Message, now: Timestamp) -> Result<(), Stale> {
        if self.ids.contains(&m.wrap_id) || self.ids.contains(&m.rumor_id) {
            return Err(Stale::Seen);
        }
        let age = now.as_secs().abs_diff(m.created_at.as_secs());
        if age > MAX_AGE_SECS {
            return Err(Stale::TooOld(age));
        }
        Ok(())
    }

    /// Marks `m` handled in memory; call once its sender was found entitled to it.
    pub fn mark(&mut self, m: &Message) {
        self.ids.insert(m.wrap_id);
        self.ids.insert(m.rumor_id);
    }

    /// [`Seen::check`], then [`Seen::mark`]: for a caller that has already authorised `m`.
    pub fn admit(&mut self, m: &Message, now: Timestamp) -> Result<(), Stale> {
        self.check(m, now)?;
        self.mark(m);
        Ok(())
    }

    /// The tags a reply to `m` carries so that it marks `m` handled.
    pub fn reply_tags(m: &Message) -> Vec<Tag> {
        vec![
            Tag::event(m.rumor_id),
            Tag::custom(TagKind::custom(HANDLED), [m.wrap_id.to_hex()]),
        ]
    }

    /// The tags of a reply that refuses `m`: it answers `m` but marks nothing.
    pub fn refusal_tags(m: &Message) -> Vec<Tag> {
        vec![
            Tag::event(m.rumor_id),
            Tag::custom(TagKind::custom(REFUSED), [m.wrap_id.to_hex()]),
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
    fn a_refusal_and_a_check_mark_nothing() {
        let (me, stranger) = (Keys::generate().public_key(), Keys::generate().public_key());
        let now = Timestamp::from(10_000);
        let hostile = msg(stranger, 1, 2, 9_990, vec![]);
        let refusal = msg(me, 3, 4, 9_995, Seen::refusal_tags(&hostile));
        let mut seen = Seen::from_history(&me, &[hostile.clone(), refusal.clone()]);
        assert_eq!(seen.check(&hostile, now), Ok(()), "a refusal marks nothing");
        seen.absorb_reply(&refusal);
        assert_eq!(seen.check(&hostile, now), Ok(()), "nor when read live");
        assert_eq!(seen.check(&hostile, now), Ok(()), "checking does not mark");
        seen.mark(&hostile);
        assert_eq!(seen.check(&hostile, now), Err(Stale::Seen));
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
