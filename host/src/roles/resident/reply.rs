//! Replies: a resident answers notes that mention it or reply to it (NIP-10 threads), and now
//! and then takes up another resident's post, so the timeline holds conversations.
//!
//! Each mention is considered once. Whether to answer is a seeded draw against the resident's
//! affinity for the author (a stable per-pair base, warmer for the owner and for people it has
//! talked with before); a resident goes at most `reply_depth_limit` replies deep in a thread
//! and never answers itself, so two residents cannot talk each other into a loop. What it says
//! comes from the `Mind` with the thread: what was said, by whom, and the earlier turns.

use std::collections::VecDeque;

use crate::HostError;
use nostr::{Event, EventBuilder, EventId, PublicKey, Tag};
use rand::Rng;
use soul_kinds::tags;
use soul_mind::conversation::THREAD_TURNS;
use soul_mind::ReplyAsk;

use super::dice;
use super::hub::{Board, Hub};
use super::Setup;
use soul_link::Identity;
use soul_link::Link;

/// At full affinity, the chance that a resident takes up another resident's post when it wakes.
pub const ADDRESS_CHANCE: f64 = 0.25;
/// How many of the newest notes a resident looks through for a post to take up.
const ADDRESS_WINDOW: usize = 30;

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

/// A note to answer, with what the mind needs to answer it.
struct Turn {
    note: Event,
    root: EventId,
    depth: usize,
    name: String,
    thread: Vec<(String, String)>,
    affinity: f64,
    seed: u64,
}

/// Answers the unanswered mentions of `me` on the board, or takes up another resident's post.
pub async fn answer(me: &Identity, link: &Link, hub: &Hub, setup: &Setup) -> Result<(), HostError> {
    let pk = me.keys.public_key();
    // Decide under the lock, think and publish after it.
    let todo: Vec<Turn> = {
        let mut b = hub.board.lock().unwrap_or_else(|e| e.into_inner());
        let mut todo = mentioned(&mut b, hub, setup, pk);
        if todo.is_empty() {
            todo.extend(address(&mut b, hub, setup, pk));
        }
        todo
    };
    for turn in todo {
        let accept = |t: &str| setup.rules.check(t).is_empty();
        let ask = ReplyAsk {
            agent: &me.name,
            profile: &setup.profile,
            to: &turn.name,
            said: &turn.note.content,
            thread: &turn.thread,
            depth: turn.depth,
            affinity: turn.affinity,
            seed: turn.seed,
            accept: &accept,
        };
        let thought = setup.minds.of(&me.name).reply(&ask).await;
        let Some(text) = thought.value else {
            continue;
        };
        // A reply is a post: the guardian judges it as it judges every post (a resident's
        // endings or a model could carry what the NG words do not catch).
        let why = format!("answering note {} in its thread", turn.note.id);
        let context = format!("reply to {}", turn.note.id);
        if let Some(reason) =
            super::post::guard_text(me, link, setup, turn.note.id, &text, why, context).await?
        {
            tracing::info!(agent = %me.name, to = %turn.note.id, "the guardian stopped a reply: {reason}");
            continue;
        }
        let mut builder = EventBuilder::text_note(text)
            .tag(tags::e_marked(turn.root, tags::ROOT))
            .tag(Tag::public_key(turn.note.pubkey));
        if turn.root != turn.note.id {
            builder = builder.tag(tags::e_marked(turn.note.id, tags::REPLY));
        }
        let reply = link.publish(&me.keys, builder).await?;
        tracing::info!(agent = %me.name, to = %turn.note.id, mind = %thought.mind, depth = turn.depth, "replied");
        hub.file(reply);
    }
    Ok(())
}

/// The mentions of `pk` it will answer (affinity draws, depth limit), each marked answered.
fn mentioned(b: &mut Board, hub: &Hub, setup: &Setup, pk: PublicKey) -> Vec<Turn> {
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
        let seed = seed_of(&note.id);
        let mut rng = dice::dice(&pk, seed);
        let liking = affinity(&pk, &note.pubkey, &setup.owner, talks);
        if rng.random::<f64>() >= liking {
            continue;
        }
        todo.push(Turn::new(b, hub, setup, note, (root, depth, liking, seed)));
    }
    todo
}

/// Now and then, another resident's recent top-level post that `pk` takes up (by affinity).
fn address(b: &mut Board, hub: &Hub, setup: &Setup, pk: PublicKey) -> Option<Turn> {
    let note = b
        .recent
        .iter()
        .rev()
        .take(ADDRESS_WINDOW)
        .find(|n| {
            n.pubkey != pk
                && hub.names.contains_key(&n.pubkey)
                && tags::e_refs(n).next().is_none()
                && !b.answered.contains(&(pk, n.id))
        })?
        .clone();
    let talks = b.exchanges.get(&(pk, note.pubkey)).copied().unwrap_or(0);
    let liking = affinity(&pk, &note.pubkey, &setup.owner, talks);
    // A different stream of the same dice than a mention's draw about the same note.
    let seed = seed_of(&note.id) ^ 0x5eed_add7;
    let mut rng = dice::dice(&pk, seed);
    // Considered once, taken up or not.
    b.answered.insert((pk, note.id));
    if rng.random::<f64>() >= ADDRESS_CHANCE * liking {
        return None;
    }
    let root = note.id;
    Some(Turn::new(b, hub, setup, note, (root, 0, liking, seed)))
}

impl Turn {
    fn new(
        b: &Board,
        hub: &Hub,
        setup: &Setup,
        note: Event,
        at: (EventId, usize, f64, u64),
    ) -> Self {
        let name =
            hub.names
                .get(&note.pubkey)
                .cloned()
                .unwrap_or_else(|| match setup.profile.language {
                    soul_mind::profile::Language::Ja => "みなさん".into(),
                    soul_mind::profile::Language::En => "friend".into(),
                });
        let thread = thread(&b.recent, &note, hub);
        let (root, depth, affinity, seed) = at;
        Turn {
            note,
            root,
            depth,
            name,
            thread,
            affinity,
            seed,
        }
    }
}

/// The earlier turns of `note`'s thread the board still holds, oldest first: each note's
/// parent (its `reply` ref, else its `root`), up to [`THREAD_TURNS`].
fn thread(recent: &VecDeque<Event>, note: &Event, hub: &Hub) -> Vec<(String, String)> {
    let mut turns = Vec::new();
    let mut at = note;
    while turns.len() < THREAD_TURNS {
        let refs: Vec<tags::ERef> = tags::e_refs(at).collect();
        let Some(parent) = refs
            .iter()
            .find(|r| r.marker == Some(tags::REPLY))
            .or_else(|| refs.iter().find(|r| r.marker == Some(tags::ROOT)))
            .and_then(|r| recent.iter().find(|e| e.id == r.id))
        else {
            break;
        };
        let who = hub
            .names
            .get(&parent.pubkey)
            .cloned()
            .unwrap_or_else(|| "someone".into());
        turns.push((who, parent.content.clone()));
        at = parent;
    }
    turns.reverse();
    turns
}

fn seed_of(id: &EventId) -> u64 {
    u64::from_be_bytes(id.as_bytes()[..8].try_into().unwrap_or([0; 8]))
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
