//! Replies: a resident answers notes that mention it or reply to it (NIP-10 threads).
//!
//! Each mention is considered once. Whether to answer is a seeded draw against the resident's
//! affinity for the author (a stable per-pair base, warmer for the owner and for people it has
//! talked with before); a resident goes at most `reply_depth_limit` replies deep in a thread
//! and never answers itself, so two residents cannot talk each other into a loop.

use crate::HostError;
use nostr::{Event, EventBuilder, EventId, PublicKey, Tag};
use rand::Rng;
use soul_kinds::tags;

use super::dice;
use super::hub::Hub;
use super::Setup;
use soul_link::Identity;
use soul_link::Link;
use soul_mind::writer;

/// How much `me` likes answering `author`: 0.35..=0.95 for the town, 1 for the owner.
pub fn affinity(me: &PublicKey, author: &PublicKey, owner: &PublicKey, exchanges: usize) -> f64 {
    if author == owner {
        // The owner brought the resident to life and may be checking on it: it always answers
        // them (the depth limit still ends the thread).
        return 1.0;
    }
    let pair = author.to_bytes();
    let base = 0.35 + 0.5 * f64::from(pair[0] ^ me.to_bytes()[0]) / 255.0;
    (base + 0.05 * exchanges as f64).min(0.95)
}

/// Answers the unanswered mentions of `me` on the board.
pub async fn answer(me: &Identity, link: &Link, hub: &Hub, setup: &Setup) -> Result<(), HostError> {
    let pk = me.keys.public_key();
    // Decide under the lock, publish after it.
    let todo: Vec<(Event, EventId, usize, String)> = {
        let mut b = hub.board.lock().unwrap_or_else(|e| e.into_inner());
        let mentions = b.mentions.remove(&pk).unwrap_or_default();
        let mut todo = Vec::new();
        for note in mentions {
            if note.pubkey == pk || !b.answered.insert((pk, note.id)) {
                continue;
            }
            let root = tags::e_refs(&note)
                .find(|r| r.marker == Some(tags::ROOT))
                .map_or(note.id, |r| r.id);
            let depth = b.depth.get(&(pk, root)).copied().unwrap_or(0);
            if depth >= setup.common.reply_depth_limit {
                continue;
            }
            let talks = b.exchanges.get(&(pk, note.pubkey)).copied().unwrap_or(0);
            let step = u64::from_be_bytes(note.id.as_bytes()[..8].try_into().unwrap_or([0; 8]));
            let mut rng = dice::dice(&pk, step);
            if rng.random::<f64>() >= affinity(&pk, &note.pubkey, &setup.owner, talks) {
                continue;
            }
            let name = hub.names.get(&note.pubkey).cloned().unwrap_or_else(|| {
                match setup.profile.language {
                    soul_mind::profile::Language::Ja => "みなさん".into(),
                    soul_mind::profile::Language::En => "friend".into(),
                }
            });
            let text = writer::reply(&setup.profile, &name, depth, &mut rng);
            todo.push((note, root, depth, text));
        }
        todo
    };
    for (note, root, _depth, text) in todo {
        if !setup.rules.check(&text).is_empty() {
            continue;
        }
        let mut builder = EventBuilder::text_note(text)
            .tag(tags::e_marked(root, tags::ROOT))
            .tag(Tag::public_key(note.pubkey));
        if root != note.id {
            builder = builder.tag(tags::e_marked(note.id, tags::REPLY));
        }
        let reply = link.publish(&me.keys, builder).await?;
        tracing::info!(agent = %me.name, to = %note.id, "replied");
        hub.file(reply);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::Keys;

    #[test]
    fn the_owner_is_always_answered_the_town_mostly() {
        let (me, owner) = (Keys::generate().public_key(), Keys::generate().public_key());
        assert_eq!(affinity(&me, &owner, &owner, 0), 1.0);
        for _ in 0..50 {
            let someone = Keys::generate().public_key();
            let a = affinity(&me, &someone, &owner, 0);
            assert!((0.35..=0.85).contains(&a), "{a}");
            assert!(affinity(&me, &someone, &owner, 100) <= 0.95);
        }
    }
}
