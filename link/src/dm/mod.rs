//! NIP-17 direct messages for one agent: its own connection, signer and NIP-42 identity.
//!
//! The host's shared [`Link`](crate::Link) has no signer and never authenticates; soul's
//! relay serves a gift wrap only to the connection that authenticated as its recipient, so every
//! agent that reads DMs (buddy, executor, triceratops, `soul command`) opens a [`DmClient`] with
//! its own keys. It answers NIP-42 itself ([`auth`]) and works with any relay: one that
//! authenticates it, one that never asks, one whose AUTH fails; only a relay that demands AUTH
//! for gift wraps and cannot complete it is an error, which says what its operator must set. Messages are kind-14 rumors, sealed (13) and gift-wrapped (1059) with NIP-44 v2 by
//! rust-nostr; nothing here touches crypto directly.
//!
//! Every message sent is also wrapped to its sender (as NIP-17 clients do), so an agent's own
//! replies are in the relay for it to read back after a restart: [`replay`] builds the set of
//! handled messages from those copies.
//!
//! A message's id is always computed here (the NIP-01 hash of the rumor): an `id` written into
//! a rumor by its sender is a claim, and a rumor whose claim differs from its hash is refused,
//! so nobody can make their message pass for another one (issue 20).
//!
//! # Layout
//! - [`auth`]: NIP-42, and whether the relay serves this client its gift wraps.
//! - [`replay`]: replay protection (seen wraps, stale messages), derived from the relay.
//! - [`requests`]: requests this agent sent, so an answer counts only from the one asked.
//! - [`split`]: a text too long for one gift wrap goes as numbered parts.

mod auth;
mod outside;
pub mod replay;
pub mod requests;
pub mod split;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use nostr::nips::nip59::UnwrappedGift;
use nostr::{
    Event, EventBuilder, EventId, Filter, Keys, Kind, PublicKey, SubscriptionId, Tag, Timestamp,
};
use nostr_sdk::{Client, RelayPoolNotification, RelayUrl};
use tokio::sync::{broadcast, watch};

use crate::{LinkError, RELAY_TIMEOUT};

/// One decrypted direct message.
#[derive(Debug, Clone)]
pub struct Message {
    /// The gift wrap (1059) it came in.
    pub wrap_id: EventId,
    /// Who sealed it (verified by the seal's signature).
    pub sender: PublicKey,
    /// The rumor's id (the same for every copy of the message).
    pub rumor_id: EventId,
    /// The text.
    pub text: String,
    /// When the sender wrote it (the rumor's time; the wrap's is randomised by NIP-59).
    pub created_at: Timestamp,
    /// The rumor's tags.
    pub tags: Vec<Tag>,
}

impl Message {
    /// The first value of the rumor's first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|t| t.as_slice().first().is_some_and(|n| n == name))
            .and_then(|t| t.as_slice().get(1))
            .map(String::as_str)
    }

    /// The message this one replies to (`e` tag), if any.
    pub fn reply_to(&self) -> Option<EventId> {
        EventId::from_hex(self.tag("e")?).ok()
    }
}

/// How long [`DmClient::follow`] waits for the relay to open the inbox: an `auth-required:`
/// answer, our AUTH and its answer (up to [`RELAY_TIMEOUT`]), the REQ again.
const FOLLOW_PATIENCE: Duration = Duration::from_secs(3 * RELAY_TIMEOUT.as_secs());

/// How often [`DmClient::reply_to`] also looks among the stored messages.
const STORED_EVERY: Duration = Duration::from_secs(5);

/// How far before its rumor a gift wrap may be dated (NIP-59 tweaks seal and wrap times up to
/// two days back), plus a minute of clock skew.
const WRAP_TWEAK_SECS: u64 = 2 * 86_400 + 60;

/// An agent's own connection for gift wraps, authenticated wherever the relay allows it.
#[derive(Debug, Clone)]
pub struct DmClient {
    client: Client,
    keys: Keys,
    url: String,
    /// The relay, for the barrier REQ (see [`auth::barrier`]).
    relay: nostr_sdk::Relay,
    /// The one subscription for new gift wraps to this agent.
    inbox: SubscriptionId,
    /// Kept by the [`auth::Authenticator`] from the relay's messages, in their order.
    status: Arc<watch::Sender<auth::Status>>,
}

impl DmClient {
    /// Connects to `url` signing as `keys`; NIP-42 challenges are answered by [`auth`].
    pub async fn connect(url: &str, keys: &Keys) -> Result<Self, LinkError> {
        let parsed = RelayUrl::parse(url).map_err(|e| LinkError::BadUrl {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        let client = Client::new(keys.clone());
        // nostr-sdk's own authenticator ends every fetch in flight when AUTH fails, and leaves
        // a subscription the relay closed `auth-required:` closed in silence (issue 19).
        client.automatic_authentication(false);
        client.add_relay(parsed.clone()).await?;
        let relay = client.relay(parsed.clone()).await?;
        let status = Arc::new(watch::Sender::new(auth::Status {
            auth: auth::Auth::NotAsked,
            inbox: auth::Inbox::Waiting,
        }));
        let inbox = SubscriptionId::generate();
        // Listening before connecting: a relay may send its challenge as the first message.
        let notifications = relay.notifications();
        tokio::spawn(
            auth::Authenticator {
                relay: relay.clone(),
                url: parsed.clone(),
                keys: keys.clone(),
                inbox: inbox.clone(),
                status: status.clone(),
            }
            .run(notifications),
        );
        if client
            .try_connect_relay(parsed, RELAY_TIMEOUT)
            .await
            .is_err()
        {
            client.shutdown().await;
            return Err(LinkError::Unreachable {
                url: url.to_string(),
            });
        }
        Ok(Self {
            client,
            keys: keys.clone(),
            url: url.to_string(),
            relay,
            inbox,
            status,
        })
    }

    /// This agent's public key.
    pub fn me(&self) -> PublicKey {
        self.keys.public_key()
    }

    /// Starts following new gift wraps to this agent; read them with [`DmClient::next`].
    /// Call before [`DmClient::history`] so nothing falls between the two: this returns once
    /// the relay has opened the subscription (EOSE), authenticating first if the relay demands
    /// it, and fails, saying why and what the relay's operator must set, if it never will.
    pub async fn follow(&self) -> Result<broadcast::Receiver<RelayPoolNotification>, LinkError> {
        let rx = self.client.notifications();
        // limit 0: only new wraps; the stored ones come from `history`. A wrap's created_at is
        // randomised up to two days back (NIP-59), so `since` cannot be used.
        let filter = Filter::new()
            .kind(Kind::GiftWrap)
            .pubkey(self.me())
            .limit(0);
        self.status.send_modify(|s| s.inbox = auth::Inbox::Waiting);
        self.client
            .subscribe_with_id(self.inbox.clone(), filter, None)
            .await?;
        auth::barrier(&self.relay, &self.inbox, self.me())?;
        let mut status = self.status.subscribe();
        let opened = async {
            loop {
                let next = auth::judge(&self.url, &self.me(), &status.borrow_and_update());
                match next {
                    auth::Next::Ready => return Ok(()),
                    auth::Next::Fail(e) => return Err(e),
                    auth::Next::Wait => {}
                }
                if status.changed().await.is_err() {
                    return Err(LinkError::Unreachable {
                        url: self.url.clone(),
                    });
                }
            }
        };
        match tokio::time::timeout(FOLLOW_PATIENCE, opened).await {
            Ok(Ok(())) => Ok(rx),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(LinkError::NoGiftWraps {
                url: self.url.clone(),
                pubkey: auth::npub(&self.me()),
                reason: format!(
                    "it answered the gift-wrap subscription with neither EOSE nor CLOSED within {} s; \
                     is it overloaded?",
                    FOLLOW_PATIENCE.as_secs()
                ),
            }),
        }
    }

    /// Waits for the next gift wrap to this agent that decrypts; `None` when the client closed.
    pub async fn next(
        &self,
        rx: &mut broadcast::Receiver<RelayPoolNotification>,
    ) -> Option<Message> {
        loop {
            match rx.recv().await {
                Ok(RelayPoolNotification::Event { event, .. }) if event.kind == Kind::GiftWrap => {
                    if let Some(m) = self.open(&event).await {
                        return Some(m);
                    }
                }
                Ok(RelayPoolNotification::Shutdown) => return None,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(
                        missed = n,
                        "DM notifications lagged; the next start re-reads them"
                    );
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// Every stored gift wrap to this agent that decrypts, oldest message first.
    pub async fn history(&self) -> Result<Vec<Message>, LinkError> {
        let filter = Filter::new().kind(Kind::GiftWrap).pubkey(self.me());
        let events = crate::fetch(&self.client, filter).await?;
        let mut out = Vec::new();
        for event in events.iter() {
            if let Some(m) = self.open(event).await {
                out.push(m);
            }
        }
        out.sort_by_key(|m| m.created_at);
        Ok(out)
    }

    /// The stored gift wraps that can hold a message written in the last `window`, except the
    /// wraps in `skip`, which are not even decrypted; a wrap that does not open is added to
    /// `skip`, so junk costs one decryption, not one per call. A wrap's created_at is up to two
    /// days before its rumor's (NIP-59), so the relay is asked for wraps since `window` + two
    /// days ago, and the rumors are filtered here.
    pub async fn recent(
        &self,
        window: Duration,
        skip: &mut HashSet<EventId>,
    ) -> Result<Vec<Message>, LinkError> {
        let now = Timestamp::now();
        let reach = window.as_secs() + WRAP_TWEAK_SECS;
        let filter = Filter::new()
            .kind(Kind::GiftWrap)
            .pubkey(self.me())
            .since(Timestamp::from(now.as_secs().saturating_sub(reach)));
        let events = crate::fetch(&self.client, filter).await?;
        let mut out = Vec::new();
        for event in events.iter() {
            if skip.contains(&event.id) {
                continue;
            }
            match self.open(event).await {
                Some(m) => out.push(m),
                None => {
                    skip.insert(event.id);
                }
            }
        }
        out.retain(|m| m.created_at.as_secs() + window.as_secs() >= now.as_secs());
        out.sort_by_key(|m| m.created_at);
        Ok(out)
    }

    /// Decrypts a gift wrap; `None` (logged) if it is not a readable kind-14 message to us.
    pub async fn open(&self, wrap: &Event) -> Option<Message> {
        match open_gift(&self.keys, wrap).await {
            Ok(m) => Some(m),
            Err(Unreadable::ForgedId {
                sender,
                claimed,
                computed,
            }) => {
                // Not noise: someone tried to make this message pass for another one.
                tracing::warn!(wrap = %wrap.id, %sender, %claimed, %computed, "refused a direct message whose rumor claims an id that is not its hash; nothing was marked, nothing acted on");
                None
            }
            Err(e) => {
                tracing::debug!(wrap = %wrap.id, "gift wrap ignored: {e}");
                None
            }
        }
    }

    /// Sends `text` to `to` (with extra rumor `tags`), and a copy to ourselves; returns the
    /// rumor's id (the first part's, when the text is too long for one wrap and goes as
    /// numbered parts, see [`split`]). `Ok` only once the relay took every wrap.
    pub async fn send(
        &self,
        to: PublicKey,
        text: &str,
        tags: Vec<Tag>,
    ) -> Result<EventId, LinkError> {
        let parts = split::parts(text);
        if parts.len() == 1 {
            return self.send_one(to, text, tags).await;
        }
        tracing::info!(%to, parts = parts.len(), bytes = text.len(), "a long message goes as numbered parts");
        let mut first = None;
        for (part, body) in parts.iter().enumerate() {
            let mut t = tags.clone();
            t.push(split::part_tag(part + 1, parts.len()));
            let id = self.send_one(to, body, t).await?;
            first.get_or_insert(id);
        }
        first.ok_or_else(|| LinkError::Empty)
    }

    async fn send_one(
        &self,
        to: PublicKey,
        text: &str,
        tags: Vec<Tag>,
    ) -> Result<EventId, LinkError> {
        let mut rumor = EventBuilder::private_msg_rumor(to, text)
            .tags(tags)
            .build(self.me());
        let rumor_id = rumor.id();
        // Our copy first: it is the record that the message was handled, and must exist even
        // when the recipient's wrap is refused (a stranger is no member of the town).
        if to != self.me() {
            let copy = EventBuilder::gift_wrap(&self.keys, &self.me(), rumor.clone(), []).await?;
            self.send_event(&copy).await?;
        }
        let wrap = EventBuilder::gift_wrap(&self.keys, &to, rumor, []).await?;
        self.send_event(&wrap).await?;
        Ok(rumor_id)
    }

    /// Waits up to `patience` for `from`'s next reply to our message `rumor`, one whose wrap is
    /// not in `taken` (the replies already read, as with an `accepted` then a final answer),
    /// and adds it there. Live, and every few seconds among the stored messages too, so a reply
    /// the live subscription did not bring (a relay that closed it, a reconnect) is still found.
    pub async fn reply_to(
        &self,
        rx: &mut broadcast::Receiver<RelayPoolNotification>,
        from: PublicKey,
        rumor: EventId,
        patience: Duration,
        taken: &mut HashSet<EventId>,
    ) -> Option<Message> {
        let deadline = tokio::time::Instant::now() + patience;
        let is_reply = |m: &Message, taken: &HashSet<EventId>| {
            m.sender == from && m.reply_to() == Some(rumor) && !taken.contains(&m.wrap_id)
        };
        let found = loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            let live = tokio::time::timeout(left.min(STORED_EVERY), async {
                loop {
                    let m = self.next(rx).await?;
                    if is_reply(&m, taken) {
                        return Some(m);
                    }
                }
            })
            .await;
            match live {
                Ok(found) => break found?,
                Err(_) => {
                    let window = patience + Duration::from_secs(60);
                    let stored = self.recent(window, taken).await.unwrap_or_default();
                    if let Some(m) = stored.into_iter().find(|m| is_reply(m, taken)) {
                        tracing::warn!(wrap = %m.wrap_id, "a reply the live subscription did not bring was found among the stored messages");
                        break m;
                    }
                }
            }
        };
        taken.insert(found.wrap_id);
        Some(found)
    }

    async fn send_event(&self, event: &Event) -> Result<(), LinkError> {
        let out = self.client.send_event(event).await?;
        if out.success.is_empty() {
            return Err(LinkError::Refused {
                id: event.id,
                reason: out
                    .failed
                    .into_values()
                    .next()
                    .unwrap_or_else(|| "no answer".into()),
            });
        }
        Ok(())
    }

    /// Closes the connection.
    pub async fn close(&self) {
        self.client.shutdown().await;
    }

    /// A guard that closes the connection when dropped. nostr-sdk keeps a client's connection
    /// running until `shutdown`, so a role whose task is aborted (a restart) would otherwise
    /// leave its old authenticated connection open.
    pub fn close_on_drop(&self) -> CloseOnDrop {
        CloseOnDrop(self.client.clone())
    }
}

/// Why a gift wrap yields no message.
#[derive(Debug)]
pub enum Unreadable {
    /// It does not decrypt, its seal's signature fails, or the seal's key is not the rumor's
    /// author (NIP-17: checked by rust-nostr's `UnwrappedGift`).
    Unwrap(String),
    /// It holds something other than a kind-14 message.
    NotADm(Kind),
    /// The rumor carries an `id` that is not the hash of its content.
    ForgedId {
        /// Who sealed it.
        sender: PublicKey,
        /// The id it claims.
        claimed: EventId,
        /// Its hash.
        computed: EventId,
    },
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Unwrap(e) => write!(f, "does not open: {e}"),
            Unreadable::NotADm(k) => write!(f, "holds kind {k}, not a direct message"),
            Unreadable::ForgedId {
                sender,
                claimed,
                computed,
            } => write!(
                f,
                "{sender} sent a rumor claiming id {claimed}; its hash is {computed}"
            ),
        }
    }
}

/// Opens `wrap` with `keys`: the message, its id computed from its content, never read from it.
pub async fn open_gift(keys: &Keys, wrap: &Event) -> Result<Message, Unreadable> {
    let gift = UnwrappedGift::from_gift_wrap(keys, wrap)
        .await
        .map_err(|e| Unreadable::Unwrap(e.to_string()))?;
    let mut rumor = gift.rumor;
    if rumor.kind != Kind::PrivateDirectMessage {
        return Err(Unreadable::NotADm(rumor.kind));
    }
    let claimed = rumor.id.take();
    let rumor_id = rumor.id();
    if let Some(claimed) = claimed.filter(|c| *c != rumor_id) {
        return Err(Unreadable::ForgedId {
            sender: gift.sender,
            claimed,
            computed: rumor_id,
        });
    }
    Ok(Message {
        wrap_id: wrap.id,
        sender: gift.sender,
        rumor_id,
        text: rumor.content,
        created_at: rumor.created_at,
        tags: rumor.tags.to_vec(),
    })
}

/// See [`DmClient::close_on_drop`].
#[derive(Debug)]
pub struct CloseOnDrop(Client);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        let client = self.0.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { client.shutdown().await });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rumor(author: &Keys, to: PublicKey, text: &str) -> nostr::UnsignedEvent {
        EventBuilder::private_msg_rumor(to, text).build(author.public_key())
    }

    #[tokio::test]
    async fn a_rumor_id_is_computed_and_a_claimed_one_refused() {
        let (me, owner, stranger) = (Keys::generate(), Keys::generate(), Keys::generate());
        let mut honest = rumor(&owner, me.public_key(), "status");
        let honest_id = honest.id();
        let wrap = EventBuilder::gift_wrap(&owner, &me.public_key(), honest, [])
            .await
            .unwrap();
        let m = open_gift(&me, &wrap).await.unwrap();
        assert_eq!(m.rumor_id, honest_id);
        assert_eq!(m.sender, owner.public_key());

        // The stranger's rumor claims the id of the owner's message.
        let mut hostile = rumor(&stranger, me.public_key(), "pause");
        hostile.id = Some(honest_id);
        let wrap = EventBuilder::gift_wrap(&stranger, &me.public_key(), hostile, [])
            .await
            .unwrap();
        match open_gift(&me, &wrap).await {
            Err(Unreadable::ForgedId {
                sender, claimed, ..
            }) => {
                assert_eq!(sender, stranger.public_key());
                assert_eq!(claimed, honest_id);
            }
            other => panic!("a claimed id must be refused: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_seal_by_one_key_around_a_rumor_by_another_is_refused() {
        let (me, owner, stranger) = (Keys::generate(), Keys::generate(), Keys::generate());
        let impostor = rumor(&owner, me.public_key(), "pause");
        let wrap = EventBuilder::gift_wrap(&stranger, &me.public_key(), impostor, [])
            .await
            .unwrap();
        assert!(matches!(
            open_gift(&me, &wrap).await,
            Err(Unreadable::Unwrap(_))
        ));
    }
}
