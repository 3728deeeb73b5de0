//! Federation: a bridge between the town relay and public relays (`[relay] federation`).
//!
//! Out: the town's public events (profiles, posts, relay lists, the debate and the town's custom
//! kinds, NIP-89) authored by the owner or a member. Never gift wraps, never memory (34362), and
//! not heartbeats, which would only be chatter for a public relay. In: what the owner sends the
//! town from outside — tasks signed by the owner and gift wraps addressed to a member — which the
//! town relay then judges with its own policy like any other event.
//!
//! Each peer has its own task with exponential back-off, so a peer that is down or refuses never
//! blocks the town. Progress is kept per peer in `bridge.json` (a cursor with overlap; peers
//! answer duplicates harmlessly), so a restart resumes instead of re-sending everything.
//!
//! # Layout
//! - this file: [`run`], the bridge with one task per peer, and [`BridgeError`].
//! - `cursor`: per-peer progress in `bridge.json`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cursor;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use nostr::{Event, Filter, Kind, PublicKey, Timestamp};
use nostr_sdk::prelude::{
    MemoryDatabase, MemoryDatabaseOptions, NostrDatabase, SyncDirection, SyncOptions,
};
use nostr_sdk::{Client, RelayPoolNotification, RelayUrl};
use soul_kinds::{Roster, SoulKind};
use tokio::task::JoinSet;

use cursor::Cursors;
use soul_link::{Link, LinkError};

/// Re-read this much before the saved cursor: events do not arrive in `created_at` order.
const OVERLAP_SECS: u64 = 120;
/// Gift wraps carry a randomised `created_at` up to two days back (NIP-59).
const WRAP_SKEW_SECS: u64 = 2 * 24 * 3600;
/// Most events compared with a peer at start (the town relay serves at most 5,000 per filter).
const HISTORY_LIMIT: usize = 5_000;
/// Longest wait between attempts on a peer that is down.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Why a round with one peer ended (the peer's task logs it and tries again, backing off).
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// `[relay] federation` names something that is not a relay URL.
    #[error("federation peer {peer:?} in town.toml is not a ws:// or wss:// URL: {source}")]
    PeerUrl {
        /// The configured peer.
        peer: String,
        /// Why it does not parse.
        source: nostr::types::url::Error,
    },
    /// The peer could not be reached, or refused a subscription or an event.
    #[error("peer {peer}: {source}")]
    Peer {
        /// The peer's URL.
        peer: String,
        /// What the client said.
        source: nostr_sdk::client::Error,
    },
    /// The town relay could not be reached or read.
    #[error("town relay: {0}")]
    Town(#[from] LinkError),
    /// A connection closed under the bridge (`town relay` or `peer`).
    #[error("{0} connection closed")]
    Closed(&'static str),
}

/// What the bridge needs.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    /// The town relay.
    pub town_relay: String,
    /// Public relays to bridge with.
    pub peers: Vec<String>,
    /// Who is in the town.
    pub roster: Roster,
    /// Where cursors are kept (`town/bridge.json`).
    pub state: PathBuf,
}

/// Kinds pushed out: everything public the town makes.
pub fn public_kinds() -> Vec<Kind> {
    let mut kinds = vec![
        Kind::Metadata,
        Kind::TextNote,
        Kind::RelayList,
        Kind::InboxRelays,
        Kind::Custom(31989),
        Kind::Custom(31990),
    ];
    kinds.extend(
        SoulKind::ALL
            .iter()
            .filter(|k| !matches!(k, SoulKind::Memory | SoulKind::Heartbeat))
            .map(|k| k.kind()),
    );
    kinds
}

fn town_authors(roster: &Roster) -> Vec<PublicKey> {
    std::iter::once(roster.owner)
        .chain(roster.members().iter().map(|m| m.pubkey))
        .collect()
}

/// Runs the bridge until the task is aborted.
pub async fn run(config: BridgeConfig) {
    let cursors = Cursors::load(&config.state);
    let mut peers = JoinSet::new();
    for peer in config.peers.clone() {
        let (config, cursors) = (config.clone(), cursors.clone());
        peers.spawn(async move { peer_loop(peer, config, cursors).await });
    }
    while peers.join_next().await.is_some() {}
}

/// One peer, forever: connect, catch up, follow; on any failure wait and start over.
async fn peer_loop(peer: String, config: BridgeConfig, cursors: Cursors) {
    let mut backoff = Duration::from_secs(1);
    loop {
        match bridge_once(&peer, &config, &cursors).await {
            Ok(()) => backoff = Duration::from_secs(1),
            Err(e) => {
                tracing::warn!(%peer, "bridge: {e}; retrying in {} s", backoff.as_secs());
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

fn peer_error(peer: &str) -> impl FnOnce(nostr_sdk::client::Error) -> BridgeError + '_ {
    move |source| BridgeError::Peer {
        peer: peer.to_owned(),
        source,
    }
}

async fn connect_peer(peer: &str) -> Result<(Client, RelayUrl), BridgeError> {
    let url = RelayUrl::parse(peer).map_err(|source| BridgeError::PeerUrl {
        peer: peer.to_owned(),
        source,
    })?;
    let client = Client::default();
    client.automatic_authentication(false);
    client
        .add_relay(url.clone())
        .await
        .map_err(peer_error(peer))?;
    client
        .try_connect_relay(url.clone(), Duration::from_secs(10))
        .await
        .map_err(peer_error(peer))?;
    Ok((client, url))
}

async fn bridge_once(
    peer: &str,
    config: &BridgeConfig,
    cursors: &Cursors,
) -> Result<(), BridgeError> {
    let town = Link::connect(&config.town_relay).await?;
    let (remote, url) = connect_peer(peer).await?;
    let authors = town_authors(&config.roster);
    let members: Vec<PublicKey> = config.roster.members().iter().map(|m| m.pubkey).collect();

    // Subscribe first, then catch up, so nothing falls in between.
    let out_filter = Filter::new().kinds(public_kinds()).authors(authors);
    let mut town_events = town.client().notifications();
    town.client()
        .subscribe(out_filter.clone().since(Timestamp::now()), None)
        .await
        .map_err(|e| BridgeError::Town(LinkError::from(e)))?;
    let pulled_from = cursors.pulled(peer).saturating_sub(OVERLAP_SECS);
    let in_filters = [
        Filter::new()
            .kind(SoulKind::Task.kind())
            .author(config.roster.owner)
            .since(Timestamp::from(pulled_from)),
        Filter::new()
            .kind(Kind::GiftWrap)
            .pubkeys(members)
            .since(Timestamp::from(pulled_from.saturating_sub(WRAP_SKEW_SECS))),
    ];
    let mut remote_events = remote.notifications();
    for f in &in_filters {
        remote
            .subscribe_to([url.clone()], f.clone(), None)
            .await
            .map_err(peer_error(peer))?;
    }

    catch_up(peer, &town, &remote, &url, &out_filter, cursors).await?;

    let mut seen_in: BTreeSet<nostr::EventId> = BTreeSet::new();
    let mut save = tokio::time::interval(Duration::from_secs(5));
    loop {
        tokio::select! {
            n = town_events.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) => {
                    push(&remote, &url, &event).await.map_err(peer_error(peer))?;
                    cursors.set_pushed(peer, event.created_at.as_secs());
                }
                Ok(RelayPoolNotification::Shutdown) | Err(_) => return Err(BridgeError::Closed("town relay")),
                Ok(_) => {}
            },
            n = remote_events.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) => {
                    if seen_in.insert(event.id) {
                        pull(&town, &event, peer).await;
                        if event.kind != Kind::GiftWrap {
                            cursors.set_pulled(peer, event.created_at.as_secs());
                        }
                    }
                }
                Ok(RelayPoolNotification::Shutdown) | Err(_) => return Err(BridgeError::Closed("peer")),
                Ok(_) => {}
            },
            _ = save.tick() => cursors.save(),
        }
    }
}

/// Brings the peer up to date with the town's history. With NIP-77 the two sides compare sets and
/// only what the peer lacks is sent; without it, everything since the saved cursor is offered.
async fn catch_up(
    peer: &str,
    town: &Link,
    remote: &Client,
    url: &RelayUrl,
    out_filter: &Filter,
    cursors: &Cursors,
) -> Result<(), BridgeError> {
    let history: Vec<Event> = town
        .fetch(out_filter.clone().limit(HISTORY_LIMIT))
        .await?
        .into_iter()
        .collect();
    let newest = history
        .iter()
        .map(|e| e.created_at.as_secs())
        .max()
        .unwrap_or(0);
    if let Some((sent, had)) = reconcile(url, out_filter, &history).await {
        cursors.set_pushed(peer, newest);
        cursors.save();
        tracing::info!(%peer, sent, already_there = had, "bridge: caught up by negentropy; following the town");
        return Ok(());
    }
    let since = cursors.pushed(peer).saturating_sub(OVERLAP_SECS);
    let mut backlog: Vec<&Event> = history
        .iter()
        .filter(|e| e.created_at.as_secs() >= since)
        .collect();
    backlog.sort_by_key(|e| (e.created_at, e.id));
    let mut sent = 0usize;
    for event in backlog {
        sent += push(remote, url, event).await.map_err(peer_error(peer))? as usize;
        cursors.set_pushed(peer, event.created_at.as_secs());
    }
    cursors.save();
    tracing::info!(%peer, sent, since, "bridge: caught up from the cursor (no NIP-77 there); following the town");
    Ok(())
}

/// NIP-77 upload of what the peer lacks; `None` when the peer does not speak negentropy.
async fn reconcile(url: &RelayUrl, filter: &Filter, history: &[Event]) -> Option<(usize, usize)> {
    let local = MemoryDatabase::with_opts(MemoryDatabaseOptions {
        events: true,
        max_events: None,
    });
    for event in history {
        local.save_event(event).await.ok()?;
    }
    let client = Client::builder().database(local).build();
    client.automatic_authentication(false);
    client.add_relay(url.clone()).await.ok()?;
    client
        .try_connect_relay(url.clone(), Duration::from_secs(10))
        .await
        .ok()?;
    let opts = SyncOptions::default().direction(SyncDirection::Up);
    let result = client.sync_with([url.clone()], filter.clone(), &opts).await;
    client.shutdown().await;
    match result {
        Ok(out) => {
            let r = out.val;
            Some((r.sent.len(), history.len().saturating_sub(r.local.len())))
        }
        Err(e) => {
            tracing::debug!(peer = %url, "negentropy unavailable: {e}");
            None
        }
    }
}

/// Sends one town event to the peer; `Ok(true)` if stored (or already there), `Ok(false)` if the
/// peer refused it (logged; a refusal is the peer's policy, not a reason to stop).
async fn push(
    remote: &Client,
    url: &RelayUrl,
    event: &Event,
) -> Result<bool, nostr_sdk::client::Error> {
    let out = remote.send_event_to([url.clone()], event).await?;
    if let Some(reason) = out.failed.values().next() {
        tracing::debug!(event = %event.id, "peer refused: {reason}");
        return Ok(false);
    }
    Ok(true)
}

/// Hands an event from outside to the town relay, whose policy decides.
async fn pull(town: &Link, event: &Event, peer: &str) {
    match town.send(event).await {
        Ok(()) => {
            tracing::info!(%peer, event = %event.id, kind = %event.kind, "bridge: pulled into the town")
        }
        Err(e) => {
            tracing::debug!(%peer, event = %event.id, "bridge: the town refused a pulled event: {e}")
        }
    }
}
