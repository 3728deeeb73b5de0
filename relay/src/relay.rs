//! The relay's shared core: store, policy chain, roster view and the live-event fan-out.

use std::net::IpAddr;
use std::sync::Arc;

use crate::config::RelayConfig;
use crate::error::Error;
use crate::fanout::Fanout;
use crate::policy::{Admission, PolicyChain};
use crate::roster::RosterView;
use nostr::{Event, EventId, RelayMessage};
use nostr_database::{NostrDatabase, RejectedReason, SaveEventStatus};
use nostr_lmdb::NostrLMDB;

/// A running relay's shared state. Cheap to clone.
#[derive(Clone)]
pub struct Relay(Arc<Inner>);

struct Inner {
    config: RelayConfig,
    store: Arc<dyn NostrDatabase>,
    chain: PolicyChain,
    roster: RosterView,
    live: Arc<Fanout>,
}

impl Relay {
    /// Opens (or creates) the LMDB store in `config.store_dir` and builds the policy chain.
    pub fn open(config: RelayConfig, roster: RosterView) -> Result<Self, Error> {
        std::fs::create_dir_all(&config.store_dir).map_err(|source| Error::Store {
            path: config.store_dir.clone(),
            source: Box::new(source),
        })?;
        let store = NostrLMDB::open(&config.store_dir).map_err(|source| Error::Store {
            path: config.store_dir.clone(),
            source: Box::new(source),
        })?;
        if config.rate.is_none() {
            tracing::warn!(
                "RATE LIMITS ARE OFF: this relay accepts events as fast as they come (--unlimited, for benchmarks only)"
            );
        }
        let chain = PolicyChain::town(
            config.max_event_bytes,
            config.max_roster_bytes,
            config.future_skew_secs,
            config.rate,
            roster.clone(),
        );
        Ok(Self::with_store(config, Arc::new(store), chain, roster))
    }

    /// A relay over any store and chain (tests, other backends).
    pub fn with_store(
        config: RelayConfig,
        store: Arc<dyn NostrDatabase>,
        chain: PolicyChain,
        roster: RosterView,
    ) -> Self {
        let live = Arc::new(Fanout::default());
        Self(Arc::new(Inner {
            config,
            store,
            chain,
            roster,
            live,
        }))
    }

    /// Settings in force.
    pub fn config(&self) -> &RelayConfig {
        &self.0.config
    }

    /// The event store.
    pub fn store(&self) -> &Arc<dyn NostrDatabase> {
        &self.0.store
    }

    /// The live roster view the policy uses.
    pub fn roster(&self) -> &RosterView {
        &self.0.roster
    }

    pub(crate) fn live(&self) -> &Arc<Fanout> {
        &self.0.live
    }

    /// Admits, stores and fans out one event; returns the `OK` to send back. `OK true` is only
    /// returned once the store has committed the event, so an acknowledged event survives a kill.
    pub async fn ingest(
        &self,
        event: Event,
        frame_len: usize,
        ip: IpAddr,
    ) -> RelayMessage<'static> {
        let id = event.id;
        let admission = Admission {
            event: &event,
            frame_len,
            ip,
        };
        if let Err(reject) = self.0.chain.admit(&admission) {
            tracing::debug!(%id, %ip, "refused: {reject}");
            return RelayMessage::ok(id, false, reject.to_string());
        }
        if event.kind.is_ephemeral() {
            self.publish_live(event);
            return RelayMessage::ok(id, true, "");
        }
        match self.0.store.save_event(&event).await {
            Ok(SaveEventStatus::Success) => {
                self.0.roster.follow(&event);
                self.publish_live(event);
                RelayMessage::ok(id, true, "")
            }
            Ok(SaveEventStatus::Rejected(reason)) => saved_reply(id, reason),
            Err(e) => {
                tracing::error!(%id, "store failed to save: {e}");
                RelayMessage::ok(id, false, "error: the event store failed; try again")
            }
        }
    }

    fn publish_live(&self, event: Event) {
        self.0.live.publish(event);
    }
}

fn saved_reply(id: EventId, reason: RejectedReason) -> RelayMessage<'static> {
    let (ok, msg) = match reason {
        RejectedReason::Duplicate => (true, "duplicate: already have this event"),
        RejectedReason::Replaced => (true, "duplicate: a newer version of this event is stored"),
        RejectedReason::Deleted => (false, "blocked: this event was deleted by its author"),
        RejectedReason::Expired => (false, "invalid: this event has expired (NIP-40)"),
        RejectedReason::InvalidDelete => (
            false,
            "blocked: a deletion may only name its author's events",
        ),
        RejectedReason::Ephemeral => (true, ""),
        RejectedReason::Other => (false, "error: the event store refused this event"),
    };
    RelayMessage::ok(id, ok, msg)
}
