//! The host's connection to the relay: nostr-sdk clients shared by every agent of the host.
//!
//! Agents sign their own events locally with their own keys and publish through the shared
//! link; the relay judges each event by its signature, not by the connection. A big host
//! spreads its publishing and fetching over a few more connections ([`Link::connect_spread`]).
//! Private traffic (gift wraps) needs NIP-42 per recipient and so gets its own connection per
//! agent.
//!
//! # Layout
//! - this file: [`Link`], [`fetch`] (paged), [`LinkError`]; `resume`: re-subscribing what the
//!   relay CLOSEd for falling behind.
//! - [`dm`]: NIP-17 messages for one agent, with replay protection.
//! - [`Identity`]: who an agent is. [`clock`]: the town clock (`--speed`); [`schedule`]: cron on it.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nostr::{Event, EventBuilder, Filter, Keys};
use nostr_sdk::prelude::Events;
use nostr_sdk::{Client, ClientOptions, RelayPoolOptions, RelayUrl};
use tokio::sync::broadcast;

pub mod clock;
pub mod dm;
mod identity;
mod resume;
pub mod schedule;

pub use identity::Identity;

use nostr::SubscriptionId;
use resume::{Resumer, Subscriptions};

/// How long to wait for the relay when connecting and fetching.
pub const RELAY_TIMEOUT: Duration = Duration::from_secs(10);

/// How far back a live subscription starts (see [`live_since`]).
pub const LIVE_SLACK: Duration = Duration::from_secs(60);

/// Where a live subscription starts. Agents subscribe, then fetch history; an event signed a
/// second before the subscription but stored only after the history fetch would match
/// neither if the subscription began at "now" (a loaded host is slow enough for that), so it
/// begins a minute back. Events that come twice are the caller's to ignore (every follower
/// files by event id); a reconnect re-sends the subscription and catches up from the same
/// point.
pub fn live_since() -> nostr::Timestamp {
    nostr::Timestamp::now() - LIVE_SLACK.as_secs()
}

/// The one error type of soul-link: talking to the relay, and reading a schedule.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The relay URL does not parse.
    #[error("relay address {url:?} is not a ws:// or wss:// URL: {reason}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// Why it does not parse.
        reason: String,
    },
    /// Could not connect in time.
    #[error("cannot reach the relay at {url}: is `soul up` (or `soul relay`) running there?")]
    Unreachable {
        /// The relay.
        url: String,
    },
    /// The relay refused an event.
    #[error("the relay refused event {id}: {reason}")]
    Refused {
        /// The event.
        id: nostr::EventId,
        /// The relay's OK message.
        reason: String,
    },
    /// The relay client failed: the connection dropped, a subscription or fetch timed out.
    #[error("relay client: {0}")]
    Client(#[from] nostr_sdk::client::Error),
    /// The relay connection refused a message (closed, or not connected).
    #[error("relay connection: {0}")]
    Relay(#[from] nostr_sdk::pool::relay::Error),
    /// An event could not be built or signed (a gift wrap's encryption included).
    #[error("cannot build or sign the event: {0}")]
    Sign(#[from] nostr::event::builder::Error),
    /// A schedule (`[brains] evaluation` in town.toml) is not a cron expression.
    #[error("schedule {expr:?} is not a cron expression (sec min hour day-of-month month day-of-week): {source}")]
    Schedule {
        /// The expression.
        expr: String,
        /// What the cron parser said.
        source: cron::error::Error,
    },
    /// A message with no text was to be sent.
    #[error("an empty message has nothing to send")]
    Empty,
    /// The relay will not serve this key its gift wraps (NIP-17 cannot work there).
    #[error("the relay at {url} will not serve gift wraps to {pubkey}: {reason}")]
    NoGiftWraps {
        /// The relay.
        url: String,
        /// The key whose gift wraps it withholds (npub).
        pubkey: String,
        /// What the relay said, and what its operator must change.
        reason: String,
    },
}

impl LinkError {
    /// The relay refused an event with NIP-01's `rate-limited:`: the sender must slow down
    /// (in real time, whatever its clock's speed) before it tries again.
    pub fn is_rate_limited(&self) -> bool {
        matches!(self, Self::Refused { reason, .. } if reason.starts_with("rate-limited:"))
    }
}

/// A shared connection to one relay.
#[derive(Clone, Debug)]
pub struct Link {
    /// Holds the live subscriptions; publishes and fetches too unless `spread` has clients.
    client: Client,
    /// Connections that publish and fetch, each agent's events always through the same one (so
    /// the relay receives one agent's events in the order it sent them). nostr-sdk waits for
    /// an OK or an EOSE by reading every message the connection receives: through one shared
    /// connection, a thousand residents' publishes in flight copied every live event a
    /// thousand times, fell behind that reading and failed with "premature exit", and their
    /// fetches ran into the relay's limit of open subscriptions per connection.
    spread: Arc<[Client]>,
    /// The next spread connection a fetch goes through.
    turn: Arc<AtomicUsize>,
    url: RelayUrl,
    /// Events this link published. nostr-sdk does not hand a client's own events back to its
    /// subscriptions, so agents sharing the link learn of each other's events here.
    published: broadcast::Sender<Event>,
    /// Live subscriptions opened with [`Link::subscribe`], for the resumer.
    subs: Subscriptions,
    /// Re-subscribes what the relay CLOSEd for falling behind; stops with the last clone.
    _resumer: Arc<Resumer>,
}

impl Link {
    /// Connects to `url` with one connection, waiting up to [`RELAY_TIMEOUT`].
    pub async fn connect(url: &str) -> Result<Self, LinkError> {
        Self::connect_spread(url, 0).await
    }

    /// Connects to `url` with one connection for live subscriptions and `spread` more that
    /// publish and fetch (none: the one connection does everything). A host of many agents
    /// wants about one per hundred agents.
    pub async fn connect_spread(url: &str, spread: usize) -> Result<Self, LinkError> {
        let parsed = RelayUrl::parse(url).map_err(|e| LinkError::BadUrl {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        // One record of the events seen for all the link's connections, as nostr-sdk keeps per
        // client: an event published or fetched through any of them is then not handed to the
        // followers again when the relay delivers it live (that echo doubled what every role
        // of a big host read, until their queues overflowed).
        let seen: Arc<dyn nostr_sdk::prelude::NostrDatabase> =
            Arc::new(nostr_sdk::prelude::MemoryDatabase::new());
        let client = connect_client(&parsed, &seen, FOLLOWER_QUEUE).await?;
        let mut others = Vec::with_capacity(spread);
        for _ in 0..spread {
            others.push(connect_client(&parsed, &seen, SENDER_QUEUE).await?);
        }
        let (published, _) = broadcast::channel(4096);
        let subs = Subscriptions::default();
        let resumer = Arc::new(resume::start(client.clone(), subs.clone()));
        Ok(Self {
            client,
            spread: others.into(),
            turn: Arc::default(),
            url: parsed,
            published,
            subs,
            _resumer: resumer,
        })
    }

    /// The relay's URL.
    pub fn url(&self) -> &RelayUrl {
        &self.url
    }

    /// The underlying client, for subscriptions.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Opens a live subscription whose events arrive on `client().notifications()`. If the
    /// relay CLOSEs it because this connection fell behind, the link subscribes again from the
    /// point the relay names, so a follower that files events by id misses none.
    pub async fn subscribe(&self, filter: Filter) -> Result<SubscriptionId, LinkError> {
        let id = SubscriptionId::generate();
        self.subs.remember(id.clone(), filter.clone());
        self.client
            .subscribe_with_id(id.clone(), filter, None)
            .await?;
        Ok(id)
    }

    /// Signs `builder` with `keys` and publishes it; `Ok` only once the relay said `OK true`.
    pub async fn publish(&self, keys: &Keys, builder: EventBuilder) -> Result<Event, LinkError> {
        let event = builder.sign_with_keys(keys)?;
        self.send(&event).await?;
        Ok(event)
    }

    /// Publishes an already-signed event; `Ok` only once the relay said `OK true`.
    pub async fn send(&self, event: &Event) -> Result<(), LinkError> {
        let out = self.sender_of(&event.pubkey).send_event(event).await?;
        if out.success.is_empty() {
            let reason = out
                .failed
                .into_values()
                .next()
                .unwrap_or_else(|| "no answer".to_string());
            return Err(LinkError::Refused {
                id: event.id,
                reason,
            });
        }
        let _ = self.published.send(event.clone());
        Ok(())
    }

    /// Events published through this link by any agent of the host, once the relay took them.
    pub fn published(&self) -> broadcast::Receiver<Event> {
        self.published.subscribe()
    }

    /// Stored events matching `filter`: see [`fetch`].
    pub async fn fetch(&self, filter: Filter) -> Result<Events, LinkError> {
        let client = match self.spread.len() {
            0 => &self.client,
            n => &self.spread[self.turn.fetch_add(1, Ordering::Relaxed) % n],
        };
        fetch(client, filter).await
    }

    /// The connection `author`'s events go out through.
    fn sender_of(&self, author: &nostr::PublicKey) -> &Client {
        match self.spread.len() {
            0 => &self.client,
            n => {
                let b = author.to_bytes();
                &self.spread[usize::from(u16::from_le_bytes([b[0], b[1]])) % n]
            }
        }
    }

    /// Closes the connections.
    pub async fn close(&self) {
        for client in self.spread.iter() {
            client.shutdown().await;
        }
        self.client.shutdown().await;
    }
}

/// Live events the followers of a link may be behind by before they must re-read the relay.
/// nostr-sdk's default (4,096) is a second of a town of thousands starting up; a follower
/// that overflows it re-reads everything, which puts it further behind. About 100 bytes a
/// slot, allocated once per link.
const FOLLOWER_QUEUE: usize = 65_536;
/// The publishing and fetching connections' queue: nobody follows it, so the default.
const SENDER_QUEUE: usize = 4096;

/// A client connected to `url` sharing the record `seen`, with room for `queue` notifications,
/// waiting up to [`RELAY_TIMEOUT`].
async fn connect_client(
    url: &RelayUrl,
    seen: &Arc<dyn nostr_sdk::prelude::NostrDatabase>,
    queue: usize,
) -> Result<Client, LinkError> {
    let client = Client::builder()
        .database(Arc::clone(seen))
        .opts(ClientOptions::new().pool(RelayPoolOptions::new().notification_channel_size(queue)))
        .build();
    // The shared link has no signer: it publishes events the agents signed themselves.
    client.automatic_authentication(false);
    client.add_relay(url.clone()).await?;
    client
        .try_connect_relay(url.clone(), RELAY_TIMEOUT)
        .await
        .map_err(|_| LinkError::Unreachable {
            url: url.to_string(),
        })?;
    Ok(client)
}

/// Stored events matching `filter` on `client`'s relay: the newest `limit` when the filter has
/// one, else all of them.
///
/// Relays cap what one REQ returns (soul's relay and strfry at 500 when the filter names no
/// limit), so "all" is read page by page, newest first: each page asks `until` the oldest event
/// seen so far (inclusive, so events sharing that second are not skipped), until a page brings
/// nothing new. Without this a town past a few hundred debate events would silently fold old
/// tasks with half their history.
pub async fn fetch(client: &Client, filter: Filter) -> Result<Events, LinkError> {
    let page = |f: Filter| async move {
        client
            .fetch_events(f, RELAY_TIMEOUT)
            .await
            .map_err(LinkError::from)
    };
    let mut all = page(filter.clone()).await?;
    if filter.limit.is_some() {
        return Ok(all);
    }
    while let Some(oldest) = all.last().map(|e| e.created_at) {
        let before = all.len();
        all.extend(page(filter.clone().until(oldest)).await?);
        if all.len() == before {
            break;
        }
    }
    Ok(all)
}
