//! Messages to someone outside the town (NIP-17): their wrap goes to their own DM relays, never
//! to the town relay, which keeps gift wraps for its members only; our copy stays on the town
//! relay as the record that the message was handled.

use nostr::{EventBuilder, EventId, PublicKey, Tag};
use nostr_sdk::{Client, RelayUrl};

use super::{split, DmClient};
use crate::{LinkError, RELAY_TIMEOUT};

impl DmClient {
    /// Sends `text` to `to` on `relays` (their kind-10050 DM relays), and our copy to the town
    /// relay; returns the first part's rumor id. `Ok` once at least one of their relays took
    /// every wrap.
    pub async fn send_outside(
        &self,
        to: PublicKey,
        text: &str,
        tags: Vec<Tag>,
        relays: &[RelayUrl],
    ) -> Result<EventId, LinkError> {
        let parts = split::parts(text);
        // A client of our own for their relays: it signs NIP-42 as us where they ask.
        let theirs = Client::new(self.keys.clone());
        theirs.automatic_authentication(true);
        let mut reached = Vec::new();
        for url in relays {
            theirs.add_relay(url.clone()).await?;
            match theirs.try_connect_relay(url.clone(), RELAY_TIMEOUT).await {
                Ok(()) => reached.push(url.clone()),
                Err(e) => {
                    tracing::info!(relay = %url, "an outsider's DM relay is unreachable: {e}")
                }
            }
        }
        if reached.is_empty() {
            theirs.shutdown().await;
            return Err(LinkError::Unreachable {
                url: relays
                    .iter()
                    .map(RelayUrl::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let mut first = None;
        for (part, body) in parts.iter().enumerate() {
            let mut t = tags.clone();
            if parts.len() > 1 {
                t.push(split::part_tag(part + 1, parts.len()));
            }
            let mut rumor = EventBuilder::private_msg_rumor(to, body.as_str())
                .tags(t)
                .build(self.me());
            first.get_or_insert(rumor.id());
            let copy = EventBuilder::gift_wrap(&self.keys, &self.me(), rumor.clone(), []).await?;
            self.send_event(&copy).await?;
            let wrap = EventBuilder::gift_wrap(&self.keys, &to, rumor, []).await?;
            let out = theirs.send_event_to(reached.clone(), &wrap).await?;
            if out.success.is_empty() {
                theirs.shutdown().await;
                return Err(LinkError::Refused {
                    id: wrap.id,
                    reason: out
                        .failed
                        .into_values()
                        .next()
                        .unwrap_or_else(|| "no answer".into()),
                });
            }
        }
        theirs.shutdown().await;
        first.ok_or(LinkError::Empty)
    }
}
