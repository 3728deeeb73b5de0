//! Live fan-out by subscription (issue 17): a subscriber that reads too slowly is told, with a
//! CLOSED naming where to resume, and soul's own link resumes from there and misses nothing.
//!
//! No timing decides anything here: the subscriber is stalled outright (it reads nothing, or
//! its whole runtime is blocked) while a burst far larger than the socket buffers goes out, so
//! its queue (two events, set in town.toml) must overflow.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::mpsc as std_mpsc;

use futures::{SinkExt, StreamExt};
use nostr_sdk::prelude::*;
use soul_link::{live_since, Link};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::util::*;

/// Events of the burst: 300 × 60 kB is 18 MB, several times what loopback sockets buffer.
const BURST: usize = 300;
const BIG: usize = 60_000;

type Ws = WebSocketStream<TcpStream>;

/// A town whose relay queues at most `n` live events per subscribed connection.
fn town_with_live_queue(n: usize) -> TestTown {
    let town = TestTown::new();
    let mut config = town.config();
    config.relay.live_queue = n;
    config.save(&town.dir).expect("save town.toml");
    town
}

/// `BURST` big notes by `keys`, all with the same created_at so that a `since` names them all.
fn burst(keys: &Keys) -> Vec<Event> {
    let at = Timestamp::now();
    let pad = "x".repeat(BIG);
    (0..BURST)
        .map(|i| {
            EventBuilder::text_note(format!("{i} {pad}"))
                .custom_created_at(at)
                .sign_with_keys(keys)
                .unwrap()
        })
        .collect()
}

/// A raw WebSocket with a tiny receive buffer, so that not reading stalls the relay quickly.
async fn ws(url: &str) -> Ws {
    let addr: SocketAddr = url
        .trim_start_matches("ws://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let sock = TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let stream = sock.connect(addr).await.unwrap();
    tokio_tungstenite::client_async(url, stream)
        .await
        .unwrap()
        .0
}

async fn next(ws: &mut Ws) -> RelayMessage<'static> {
    loop {
        match tokio::time::timeout(PATIENCE, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                return RelayMessage::from_json(t.as_bytes()).unwrap()
            }
            Ok(Some(Ok(_))) => continue,
            other => panic!("the relay went quiet or away: {other:?}"),
        }
    }
}

async fn req(ws: &mut Ws, id: &str, filter: Filter) -> HashSet<EventId> {
    let id = SubscriptionId::new(id);
    let msg = ClientMessage::req(id.clone(), vec![filter]).as_json();
    ws.send(Message::text(msg)).await.unwrap();
    let mut got = HashSet::new();
    loop {
        match next(ws).await {
            RelayMessage::Event { event, .. } => {
                got.insert(event.id);
            }
            RelayMessage::EndOfStoredEvents(s) if *s == id => return got,
            other => panic!("unexpected before EOSE: {other:?}"),
        }
    }
}

/// Pipelines `events` on a connection with no subscription and checks every answer: each is
/// `OK true`, and nothing else comes (such a connection has no live traffic to fall behind on).
async fn publish_all(url: &str, events: &[Event]) {
    let mut ws = ws(url).await;
    let frames: Vec<String> = events
        .iter()
        .map(|e| ClientMessage::event(e.clone()).as_json())
        .collect();
    let (mut tx, mut rx) = ws.split();
    let writer = tokio::spawn(async move {
        for f in frames {
            tx.send(Message::text(f)).await.unwrap();
        }
        tx
    });
    let mut acked = 0;
    while acked < events.len() {
        let Ok(Some(Ok(Message::Text(t)))) = tokio::time::timeout(PATIENCE, rx.next()).await else {
            panic!("publisher: the relay went quiet after {acked} OKs");
        };
        match RelayMessage::from_json(t.as_bytes()).unwrap() {
            RelayMessage::Ok {
                status, message, ..
            } => {
                assert!(status, "refused: {message}");
                acked += 1;
            }
            other => panic!("a connection without subscriptions got {other:?}"),
        }
    }
    ws = writer.await.unwrap().reunite(rx).unwrap();
    let _ = ws.close(None).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_subscriber_is_closed_with_where_to_resume_and_misses_nothing() {
    let town = town_with_live_queue(2);
    let relay = town.relay(&["--unlimited"]);
    let author = Keys::generate();
    let events = burst(&author);
    let all: HashSet<EventId> = events.iter().map(|e| e.id).collect();
    let mine = Filter::new()
        .kind(Kind::TextNote)
        .author(author.public_key());

    let mut sub = ws(&relay.url).await;
    assert!(req(&mut sub, "s", mine.clone()).await.is_empty());
    // The subscriber reads nothing while the whole burst is acknowledged.
    publish_all(&relay.url, &events).await;

    let mut live = HashSet::new();
    let reason = loop {
        match next(&mut sub).await {
            RelayMessage::Event {
                subscription_id,
                event,
            } if subscription_id.as_str() == "s" => {
                live.insert(event.id);
            }
            RelayMessage::Closed {
                subscription_id,
                message,
            } if subscription_id.as_str() == "s" => break message.into_owned(),
            other => panic!("unexpected: {other:?}"),
        }
    };
    assert!(reason.starts_with("error: fell behind:"), "{reason}");
    assert!(
        live.len() < BURST,
        "a stalled reader cannot have had them all"
    );
    let since: u64 = reason
        .rsplit_once("since=")
        .and_then(|(_, t)| t.parse().ok())
        .unwrap_or_else(|| panic!("no since= in {reason:?}"));

    let resumed = req(&mut sub, "s", mine.clone().since(Timestamp::from(since))).await;
    let seen: HashSet<EventId> = live.union(&resumed).copied().collect();
    assert_eq!(
        seen.len(),
        all.len(),
        "events lost between live and resumed"
    );
    assert_eq!(seen, all);

    // The re-opened subscription is live again: a marker arrives on it.
    let marker = EventBuilder::text_note("marker")
        .sign_with_keys(&author)
        .unwrap();
    publish_all(&relay.url, std::slice::from_ref(&marker)).await;
    match next(&mut sub).await {
        RelayMessage::Event { event, .. } => assert_eq!(event.id, marker.id),
        other => panic!("expected the marker, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_link_that_falls_behind_resumes_and_sees_every_event() {
    let town = town_with_live_queue(2);
    let relay = town.relay(&["--unlimited"]);
    let author = Keys::generate();
    let events = burst(&author);
    let all: HashSet<EventId> = events.iter().map(|e| e.id).collect();

    // The follower runs on its own single-threaded runtime, which the test blocks outright
    // during the burst: its link then reads nothing, as a host too busy to keep up would.
    let (ready_tx, ready_rx) = std_mpsc::channel::<()>();
    let (go_tx, go_rx) = std_mpsc::channel::<()>();
    let url = relay.url.clone();
    let want = all.clone();
    let pk = author.public_key();
    let follower = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let link = Link::connect(&url).await.unwrap();
            let mut notes = link.client().notifications();
            let filter = Filter::new()
                .kind(Kind::TextNote)
                .author(pk)
                .since(live_since());
            let id = link.subscribe(filter).await.unwrap();
            loop {
                if let Ok(RelayPoolNotification::Message {
                    message: RelayMessage::EndOfStoredEvents(s),
                    ..
                }) = notes.recv().await
                {
                    if *s == id {
                        break;
                    }
                }
            }
            ready_tx.send(()).unwrap();
            go_rx.recv().unwrap(); // blocks this runtime: nothing is read meanwhile
            let mut seen = HashSet::new();
            let mut told = false;
            while seen != want {
                let n = tokio::time::timeout(PATIENCE, notes.recv())
                    .await
                    .unwrap_or_else(|_| panic!("follower saw {} of {}", seen.len(), want.len()))
                    .unwrap();
                match n {
                    RelayPoolNotification::Event { event, .. } => {
                        seen.insert(event.id);
                    }
                    RelayPoolNotification::Message {
                        message: RelayMessage::Closed { message, .. },
                        ..
                    } => {
                        assert!(message.starts_with("error: fell behind:"), "{message}");
                        told = true;
                    }
                    _ => {}
                }
            }
            link.close().await;
            told
        })
    });
    tokio::task::spawn_blocking(move || ready_rx.recv().unwrap())
        .await
        .unwrap();
    publish_all(&relay.url, &events).await;
    go_tx.send(()).unwrap();
    let told = tokio::task::spawn_blocking(move || follower.join().unwrap())
        .await
        .unwrap();
    assert!(
        told,
        "the relay closed the lagging subscription (the path under test ran)"
    );
}
