//! Mentions: a kind-1 note that tags the buddy (`p`) gets a kind-1 reply in its thread (NIP-10),
//! through the same persona and guard as DMs. A paused buddy (state read from the relay) stays
//! silent. Each mention is answered once: the buddy's own replies on the relay say which it
//! answered, so a restart neither answers twice nor misses a mention that came as it started.

use crate::HostError;
use std::collections::HashSet;
use std::sync::Arc;

use nostr::{Event, EventBuilder, EventId, Filter, Kind, Tag};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::tags::{e_marked, e_refs, REPLY, ROOT};

use super::Buddy;
use crate::roles::worker::state;
use soul_link::Identity;
use soul_link::{live_since, Link};

/// The note `reply` answers: its `reply`-marked `e` tag, else its `root` (a reply to the top of
/// a thread carries only the root, as [`run`] writes them).
fn answered_note(reply: &Event) -> Option<EventId> {
    let refs: Vec<_> = e_refs(reply).collect();
    refs.iter()
        .find(|r| r.marker == Some(REPLY))
        .or_else(|| refs.iter().find(|r| r.marker == Some(ROOT)))
        .map(|r| r.id)
}

/// Answers mentions of `me` until the task is aborted.
pub async fn run(
    me: Identity,
    link: Link,
    buddy: Arc<Buddy>,
    owner: nostr::PublicKey,
    mind: soul_mind::SharedMind,
) -> Result<(), HostError> {
    let my = me.keys.public_key();
    let mut notifications = link.client().notifications();
    let mut published = link.published();
    let since = live_since();
    link.subscribe(Filter::new().kind(Kind::TextNote).pubkey(my).since(since))
        .await?;
    // What this buddy already answered in the window the subscription re-reads.
    let mut answered: HashSet<EventId> = link
        .fetch(Filter::new().kind(Kind::TextNote).author(my).since(since))
        .await?
        .iter()
        .filter_map(answered_note)
        .collect();
    loop {
        let event: Event = tokio::select! {
            n = notifications.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) => *event,
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return Ok(()),
            },
            p = published.recv() => match p {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return Ok(()),
            },
        };
        if event.kind != Kind::TextNote
            || event.pubkey == my
            || !event.tags.public_keys().any(|p| *p == my)
            || !answered.insert(event.id)
        {
            continue;
        }
        let current = state::load(&link, &me.keys, &me.name).await?;
        if current.as_ref().is_some_and(|c| c.paused()) {
            tracing::info!(buddy = %me.name, note = %event.id, "paused: not answering a mention");
            continue;
        }
        let text = buddy
            .answer(&*mind, &me.name, &event.content, event.pubkey == owner)
            .await;
        let root = soul_kinds::tags::e_refs(&event)
            .find(|r| r.marker == Some(ROOT))
            .map_or(event.id, |r| r.id);
        let mut reply = EventBuilder::text_note(text).tag(e_marked(root, ROOT));
        if root != event.id {
            reply = reply.tag(e_marked(event.id, REPLY));
        }
        let reply = reply.tag(Tag::public_key(event.pubkey));
        match link.publish(&me.keys, reply).await {
            Ok(e) => {
                tracing::info!(buddy = %me.name, note = %event.id, reply = %e.id, "answered a mention")
            }
            Err(e) => {
                tracing::warn!(buddy = %me.name, note = %event.id, "mention reply failed: {e}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::Keys;

    #[test]
    fn a_reply_names_the_note_it_answered() {
        let keys = Keys::generate();
        let (root, note) = (EventId::all_zeros(), EventId::from_slice(&[1; 32]).unwrap());
        let deep = EventBuilder::text_note("hi")
            .tag(e_marked(root, ROOT))
            .tag(e_marked(note, REPLY))
            .sign_with_keys(&keys)
            .unwrap();
        assert_eq!(answered_note(&deep), Some(note));
        let top = EventBuilder::text_note("hi")
            .tag(e_marked(root, ROOT))
            .sign_with_keys(&keys)
            .unwrap();
        assert_eq!(answered_note(&top), Some(root));
        let none = EventBuilder::text_note("hi").sign_with_keys(&keys).unwrap();
        assert_eq!(answered_note(&none), None);
    }
}
