//! Live fan-out by subscription.
//!
//! The ingesting task matches each new event against the connections that have open
//! subscriptions and hands it, with the ids of the subscriptions it matched, to each matching
//! connection's own bounded queue. A connection without subscriptions is not in the registry at
//! all, so it does no work for live events and can never fall behind.
//!
//! A queue that is full is never waited on (one slow reader must not slow the publishers) and
//! nothing is dropped silently: every subscription the event matched is removed and queued to be
//! CLOSED with `error: fell behind: …; re-subscribe with since=<t>`, sent only after every event
//! already queued for it went out, so `t` (the created_at of the last event delivered to it, or
//! of the one that did not fit if older) is where the client resumes.
//!
//! **Invariant:** a gift wrap is matched only for connections authenticated as one of its `p`
//! tags, the same rule as [`crate::relay`]'s stored reads (`Session::visible`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use nostr::filter::MatchEventOptions;
use nostr::{Event, Filter, Kind, PublicKey, SubscriptionId, Timestamp};
use tokio::sync::{mpsc, Notify};

use crate::wire;

/// One live event for one connection, with the subscriptions it matched.
pub(crate) struct Delivery {
    /// Position in this connection's queue; orders CLOSED after the events queued before it.
    pub seq: u64,
    /// The event as JSON, printed once for every connection and subscription it goes to.
    pub json: Arc<str>,
    pub subs: Vec<SubscriptionId>,
}

/// A subscription closed because its connection's queue was full.
pub(crate) struct FellBehind {
    pub sub: SubscriptionId,
    /// Where the client should resume.
    pub since: Timestamp,
    /// Send the CLOSED only once the delivery with this `seq` went out (0: none was queued).
    pub after_seq: u64,
}

/// The registry of connections with open subscriptions.
#[derive(Default)]
pub(crate) struct Fanout {
    conns: RwLock<HashMap<u64, Arc<Conn>>>,
    next_id: AtomicU64,
}

struct Conn {
    state: Mutex<ConnState>,
    tx: mpsc::Sender<Delivery>,
    fell_behind: Notify,
}

#[derive(Default)]
struct ConnState {
    subs: HashMap<SubscriptionId, Sub>,
    authenticated: HashSet<PublicKey>,
    next_seq: u64,
    closed: Vec<FellBehind>,
}

struct Sub {
    filters: Vec<Filter>,
    /// created_at of the last event queued for this subscription.
    last_queued: Option<Timestamp>,
}

impl Conn {
    fn lock(&self) -> MutexGuard<'_, ConnState> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Fanout {
    /// A connection's handle; its queue holds up to `capacity` events.
    pub(crate) fn connect(self: &Arc<Self>, capacity: usize) -> (Handle, mpsc::Receiver<Delivery>) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let conn = Arc::new(Conn {
            state: Mutex::new(ConnState::default()),
            tx,
            fell_behind: Notify::new(),
        });
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let handle = Handle {
            id,
            conn,
            fanout: Arc::clone(self),
        };
        (handle, rx)
    }

    fn conns(&self) -> std::sync::RwLockReadGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.read().unwrap_or_else(|e| e.into_inner())
    }

    fn conns_mut(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `event` to every connection with a subscription it matches.
    pub(crate) fn publish(&self, event: Event) {
        // Printed when the first connection matches, so an event nobody follows costs nothing.
        let mut json: Option<Arc<str>> = None;
        let gift_wrap = event.kind == Kind::GiftWrap;
        for conn in self.conns().values() {
            let mut state = conn.lock();
            if gift_wrap
                && !event
                    .tags
                    .public_keys()
                    .any(|p| state.authenticated.contains(p))
            {
                continue;
            }
            let subs: Vec<SubscriptionId> = state
                .subs
                .iter()
                .filter(|(_, s)| {
                    s.filters
                        .iter()
                        .any(|f| f.match_event(&event, MatchEventOptions::new()))
                })
                .map(|(id, _)| id.clone())
                .collect();
            if subs.is_empty() {
                continue;
            }
            match conn.tx.try_reserve() {
                Ok(permit) => {
                    state.next_seq += 1;
                    for id in &subs {
                        if let Some(sub) = state.subs.get_mut(id) {
                            sub.last_queued = Some(event.created_at);
                        }
                    }
                    let json = json.get_or_insert_with(|| wire::event_json(&event).into());
                    permit.send(Delivery {
                        seq: state.next_seq,
                        json: Arc::clone(json),
                        subs,
                    });
                }
                Err(mpsc::error::TrySendError::Full(())) => {
                    fall_behind(&mut state, &subs, event.created_at);
                    conn.fell_behind.notify_one();
                }
                // The connection is going away; its handle's drop removes it.
                Err(mpsc::error::TrySendError::Closed(())) => {}
            }
        }
    }
}

/// Removes `subs` from live matching and queues their CLOSED.
fn fall_behind(state: &mut ConnState, subs: &[SubscriptionId], missed_at: Timestamp) {
    let after_seq = state.next_seq;
    for id in subs {
        if let Some(sub) = state.subs.remove(id) {
            let since = sub.last_queued.map_or(missed_at, |t| t.min(missed_at));
            tracing::warn!(sub = %id, %since, "live queue full: closing the subscription");
            state.closed.push(FellBehind {
                sub: id.clone(),
                since,
                after_seq,
            });
        }
    }
}

/// One connection's place in the registry; leaving it (drop) removes the connection.
pub(crate) struct Handle {
    id: u64,
    conn: Arc<Conn>,
    fanout: Arc<Fanout>,
}

impl Handle {
    /// Opens (or replaces) a live subscription. Called before the stored events are read, so an
    /// event stored meanwhile is delivered live rather than missed.
    pub(crate) fn open(&self, id: SubscriptionId, filters: Vec<Filter>) {
        let was_empty = {
            let mut state = self.conn.lock();
            let was_empty = state.subs.is_empty();
            state.closed.retain(|c| c.sub != id);
            state.subs.insert(
                id,
                Sub {
                    filters,
                    last_queued: None,
                },
            );
            was_empty
        };
        if was_empty {
            self.fanout
                .conns_mut()
                .insert(self.id, Arc::clone(&self.conn));
        }
    }

    /// Closes a live subscription; a connection left with none leaves the registry.
    pub(crate) fn close(&self, id: &SubscriptionId) {
        let now_empty = {
            let mut state = self.conn.lock();
            state.subs.remove(id);
            state.subs.is_empty()
        };
        if now_empty {
            self.leave_if_idle();
        }
    }

    /// Whether `id` is open for live events.
    pub(crate) fn is_open(&self, id: &SubscriptionId) -> bool {
        self.conn.lock().subs.contains_key(id)
    }

    /// Those of `ids` still open (a CLOSE may have come after an event was queued for them),
    /// under one lock.
    pub(crate) fn still_open<'a>(&self, ids: &'a [SubscriptionId]) -> Vec<&'a SubscriptionId> {
        let state = self.conn.lock();
        ids.iter()
            .filter(|id| state.subs.contains_key(*id))
            .collect()
    }

    /// Number of open live subscriptions.
    pub(crate) fn len(&self) -> usize {
        self.conn.lock().subs.len()
    }

    /// Gift wraps `p`-tagging `pubkey` now match this connection (NIP-42).
    pub(crate) fn authenticate(&self, pubkey: PublicKey) {
        self.conn.lock().authenticated.insert(pubkey);
    }

    /// Waits until some subscription fell behind.
    pub(crate) async fn fell_behind(&self) {
        self.conn.fell_behind.notified().await
    }

    /// Subscriptions closed for falling behind whose queued events have all been delivered
    /// (`delivered` is the last `seq` sent), and whether others wait for later deliveries.
    pub(crate) fn take_fell_behind(&self, delivered: u64) -> (Vec<FellBehind>, bool) {
        let mut state = self.conn.lock();
        let (ready, later) = std::mem::take(&mut state.closed)
            .into_iter()
            .partition(|c| c.after_seq <= delivered);
        state.closed = later;
        let more = !state.closed.is_empty();
        let now_empty = state.subs.is_empty();
        drop(state);
        if now_empty {
            self.leave_if_idle();
        }
        (ready, more)
    }

    fn leave_if_idle(&self) {
        let mut conns = self.fanout.conns_mut();
        // Re-checked under the registry lock: a REQ may have come in between.
        if self.conn.lock().subs.is_empty() {
            conns.remove(&self.id);
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.fanout.conns_mut().remove(&self.id);
    }
}
