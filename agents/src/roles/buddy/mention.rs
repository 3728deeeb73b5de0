//! Mentions: a kind-1 note that tags the buddy (`p`) gets a kind-1 reply in its thread (NIP-10),
//! through the same persona and guard as DMs. A paused buddy (state read from the relay) stays
//! silent.

use std::sync::Arc;

use nostr::{Event, EventBuilder, Filter, Kind, Tag, Timestamp};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::tags::{e_marked, REPLY, ROOT};

use super::Buddy;
use crate::host::Identity;
use crate::link::{Link, LinkError};
use crate::roles::worker::state;

/// Answers mentions of `me` until the task is aborted.
pub async fn run(
    me: Identity,
    link: Link,
    buddy: Arc<Buddy>,
    owner: nostr::PublicKey,
) -> Result<(), LinkError> {
    let my = me.keys.public_key();
    let mut notifications = link.client().notifications();
    let mut published = link.published();
    link.client()
        .subscribe(
            Filter::new()
                .kind(Kind::TextNote)
                .pubkey(my)
                .since(Timestamp::now()),
            None,
        )
        .await
        .map_err(|e| LinkError::Sdk(e.to_string()))?;
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
        {
            continue;
        }
        let current = state::load(&link, &me.keys, &me.name).await?;
        if current.as_ref().is_some_and(|c| c.paused()) {
            tracing::info!(buddy = %me.name, note = %event.id, "paused: not answering a mention");
            continue;
        }
        let text = buddy.answer(&event.content, event.pubkey == owner);
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
