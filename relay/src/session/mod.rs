//! One WebSocket connection: NIP-01 messages in, replies and live events out.
//!
//! EVENTs are admitted concurrently (up to `max_in_flight` per connection) so that the store's
//! writer can commit many in one transaction; each `OK` is sent only once its event is durable,
//! and in the order the EVENTs arrived. Malformed frames get a `NOTICE` and the connection stays
//! up. Gift wraps pass [`Session::visible`] before any of them leaves, stored or live.

mod auth;
mod negentropy;
mod req;

use std::borrow::Cow;
use std::collections::HashSet;
use std::net::SocketAddr;

use axum::extract::ws::{Message, WebSocket};
use futures::stream::FuturesOrdered;
use futures::{FutureExt, SinkExt, StreamExt};
use nostr::{ClientMessage, Event, JsonUtil, Kind, PublicKey, RelayMessage};
use tokio::sync::watch;

use crate::fanout::{Delivery, FellBehind, Handle};
use crate::relay::Relay;
use crate::wire;

/// Live events written to a connection at once, at most (bounds one write's memory and lets
/// the connection's other work, its own EVENTs and REQs, take turns).
const LIVE_BATCH: usize = 64;

/// Per-connection state.
pub(crate) struct Session {
    relay: Relay,
    peer: SocketAddr,
    /// This connection's open subscriptions, in the relay's live registry.
    live: Handle,
    negentropy: negentropy::Reconciliations,
    challenge: String,
    /// NIP-42: a connection may authenticate as several pubkeys (an agent host does).
    authenticated: HashSet<PublicKey>,
}

/// Runs a connection until the peer leaves or the relay shuts down.
pub(crate) async fn run(
    socket: WebSocket,
    relay: Relay,
    peer: SocketAddr,
    mut shutdown: watch::Receiver<bool>,
) {
    let (mut tx, mut rx) = socket.split();
    let (live, mut queue) = relay.live().connect(relay.config().live_queue);
    let mut session = Session {
        challenge: auth::new_challenge(),
        relay,
        peer,
        live,
        negentropy: Default::default(),
        authenticated: HashSet::new(),
    };
    let max_in_flight = session.relay.config().max_in_flight;
    let mut in_flight = FuturesOrdered::new();
    // The last live delivery sent, and whether a fell-behind CLOSED waits for a later one.
    let mut delivered = 0u64;
    let mut behind_pending = false;
    // No AUTH on connect: the challenge is sent when a REQ needs it (NIP-42's auth-required
    // flow), so clients without keys are never asked to authenticate for public reads.
    tracing::debug!(%peer, "connection open");
    loop {
        let out: Vec<String> = tokio::select! {
            Some(reply) = in_flight.next(), if !in_flight.is_empty() => {
                // One commit answers many EVENTs at once: every OK already due goes out in the
                // same write, not one syscall each. (Polled again with this task's waker at the
                // top of the loop before it can sleep.)
                let mut out = vec![reply];
                while let Some(Some(reply)) = in_flight.next().now_or_never() {
                    out.push(reply);
                }
                out
            }
            msg = rx.next(), if in_flight.len() < max_in_flight => match msg {
                Some(Ok(Message::Text(text))) => {
                    let parsed = match read_event(text.as_str()) {
                        Some(event) => Ok(ClientMessage::Event(Cow::Owned(event))),
                        None => ClientMessage::from_json(text.as_bytes()),
                    };
                    match parsed {
                        Ok(ClientMessage::Event(event)) => {
                            let event = event.into_owned();
                            let relay = session.relay.clone();
                            let ip = peer.ip();
                            let frame_len = text.len();
                            in_flight.push_back(async move {
                                wire::message(&relay.ingest(event, frame_len, ip).await)
                            });
                            Vec::new()
                        }
                        Ok(msg) => session.handle(msg).await,
                        Err(e) => vec![unparsable(text.as_str(), &e.to_string())],
                    }
                }
                Some(Ok(Message::Binary(_))) => vec![RelayMessage::notice(
                    "invalid: binary frames are not Nostr messages; send JSON text",
                ).as_json()],
                Some(Ok(Message::Close(_))) | None => break,
                Some(Ok(_)) => Vec::new(),
                Some(Err(e)) => {
                    tracing::debug!(%peer, "websocket error: {e}");
                    break;
                }
            },
            Some(delivery) = queue.recv() => {
                // Whatever else is already queued goes out in the same write: a subscriber
                // that is behind catches up with one syscall for many events, not one each.
                let mut out = Vec::new();
                let mut next = Some(delivery);
                let mut taken = 0;
                while let Some(delivery) = next {
                    delivered = delivery.seq;
                    out.extend(session.deliver_live(&delivery));
                    taken += 1;
                    next = (taken < LIVE_BATCH).then(|| queue.try_recv().ok()).flatten();
                }
                if behind_pending {
                    let (closed, more) = session.live.take_fell_behind(delivered);
                    behind_pending = more;
                    out.extend(closed.iter().map(fell_behind));
                }
                out
            }
            () = session.live.fell_behind() => {
                let (closed, more) = session.live.take_fell_behind(delivered);
                behind_pending = more;
                closed.iter().map(fell_behind).collect()
            }
            _ = shutdown.changed() => break,
        };
        if send_all(&mut tx, out).await.is_err() {
            break;
        }
    }
    tracing::debug!(%peer, "connection closed");
}

impl Session {
    /// Handles every client message except EVENT (which is pipelined by [`run`]).
    async fn handle(&mut self, msg: ClientMessage<'_>) -> Vec<String> {
        match msg {
            ClientMessage::Event(_) => Vec::new(),
            ClientMessage::Req {
                subscription_id,
                filters,
            } => {
                let filters = filters.into_iter().map(Cow::into_owned).collect();
                self.req(subscription_id.into_owned(), filters).await
            }
            ClientMessage::Count {
                subscription_id,
                filter,
            } => {
                self.count(subscription_id.into_owned(), filter.into_owned())
                    .await
            }
            ClientMessage::Close(id) => {
                self.live.close(&id);
                Vec::new()
            }
            ClientMessage::Auth(event) => vec![self.authenticate(&event)],
            ClientMessage::NegOpen {
                subscription_id,
                filter,
                initial_message,
                ..
            } => {
                let reply = self
                    .negentropy_open(
                        subscription_id.into_owned(),
                        filter.into_owned(),
                        &initial_message,
                    )
                    .await;
                vec![reply]
            }
            ClientMessage::NegMsg {
                subscription_id,
                message,
            } => vec![self
                .negentropy
                .message(subscription_id.into_owned(), &message)],
            ClientMessage::NegClose { subscription_id } => {
                self.negentropy.close(&subscription_id);
                Vec::new()
            }
        }
    }

    /// Whether this connection may see `event`: gift wraps only reach an authenticated recipient.
    pub(crate) fn visible(&self, event: &Event) -> bool {
        event.kind != Kind::GiftWrap
            || event
                .tags
                .public_keys()
                .any(|p| self.authenticated.contains(p))
    }

    /// One live event, to the subscriptions the fan-out matched it with that are still open (a
    /// CLOSE may have come after it was queued). Visibility was checked when it was matched.
    fn deliver_live(&self, delivery: &Delivery) -> Vec<String> {
        self.live
            .still_open(&delivery.subs)
            .into_iter()
            .map(|id| wire::event_with(id, &delivery.json))
            .collect()
    }
}

/// The CLOSED for a subscription whose queue overflowed. The prefix is NIP-01's `error:`; the
/// `fell behind:` after it and `since=<unix seconds>` at the end are what a client acts on.
fn fell_behind(closed: &FellBehind) -> String {
    req::closed(
        &closed.sub,
        &format!(
            "error: fell behind: live events came faster than this connection read them; \
             re-subscribe with since={}",
            closed.since.as_secs()
        ),
    )
}

/// `["EVENT",{…}]` read straight into an event. nostr's `ClientMessage::from_json` parses a
/// frame into a `Value` tree and then clones the event's subtree to parse it a second time, and
/// EVENTs are most of what a busy relay reads. Anything else (other messages, an EVENT with an
/// escaped tag or a malformed event) goes the general way, which also words the error.
fn read_event(text: &str) -> Option<Event> {
    match serde_json::from_str::<(&str, Event)>(text) {
        Ok(("EVENT", event)) => Some(event),
        _ => None,
    }
}

/// The reply to a frame that is not a valid client message. An EVENT whose id can still be read
/// gets `OK false invalid:` so the sender learns which event failed; anything else a `NOTICE`.
fn unparsable(text: &str, error: &str) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(text).ok();
    let id = value.as_ref().and_then(|v| {
        let arr = v.as_array()?;
        (arr.first()?.as_str()? == "EVENT").then(|| {
            arr.get(1)?
                .get("id")?
                .as_str()?
                .parse::<nostr::EventId>()
                .ok()
        })?
    });
    match id {
        Some(id) => RelayMessage::ok(id, false, format!("invalid: malformed event: {error}")),
        None => RelayMessage::notice(format!("invalid: could not parse message: {error}")),
    }
    .as_json()
}

type WsTx = futures::stream::SplitSink<WebSocket, Message>;

/// Queues every message and flushes once, so a REQ's thousand events cost one write, not a thousand.
async fn send_all(tx: &mut WsTx, out: Vec<String>) -> Result<(), axum::Error> {
    if out.is_empty() {
        return Ok(());
    }
    for json in out {
        tx.feed(Message::Text(json.into())).await?;
    }
    tx.flush().await
}
