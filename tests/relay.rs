//! The relay under load: nothing acknowledged is lost, even at full speed.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use nostr_sdk::prelude::*;
use tokio_tungstenite::tungstenite::Message;

use crate::util::*;

/// Pipelines `events` over one connection (up to 500 unanswered) and collects the ids the relay
/// answered `OK true`, until the events run out or the connection drops.
async fn blast(url: String, events: Vec<Event>, progress: Arc<AtomicUsize>) -> HashSet<EventId> {
    let (ws, _) = tokio_tungstenite::connect_async_with_config(&url, None, true)
        .await
        .unwrap();
    let (mut tx, mut rx) = ws.split();
    let (credit_tx, mut credit_rx) = tokio::sync::mpsc::channel::<()>(500);
    for _ in 0..500 {
        credit_tx.send(()).await.unwrap();
    }
    let total = events.len();
    tokio::spawn(async move {
        for e in events {
            if credit_rx.recv().await.is_none() {
                return;
            }
            if tx
                .send(Message::text(ClientMessage::event(e).as_json()))
                .await
                .is_err()
            {
                return;
            }
        }
    });
    let mut acked = HashSet::new();
    let mut answered = 0;
    while answered < total {
        let Ok(Some(Ok(Message::Text(t)))) = tokio::time::timeout(PATIENCE, rx.next()).await else {
            break;
        };
        if let Ok(RelayMessage::Ok {
            event_id, status, ..
        }) = RelayMessage::from_json(t.as_bytes())
        {
            answered += 1;
            if status {
                acked.insert(event_id);
                progress.fetch_add(1, Ordering::Relaxed);
            }
            let _ = credit_tx.try_send(());
        }
    }
    acked
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_during_full_speed_ingest_loses_no_acknowledged_event() {
    let town = TestTown::new();
    let relay = town.relay(&["--unlimited"]);
    let authors: Vec<Keys> = (0..8).map(|_| Keys::generate()).collect();
    let batches: Vec<Vec<Event>> = (0..4)
        .map(|c| {
            (0..5_000)
                .map(|i| {
                    EventBuilder::text_note(format!("load {c}/{i}"))
                        .sign_with_keys(&authors[i % 8])
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let url = relay.url.clone();
    let progress = Arc::new(AtomicUsize::new(0));
    let senders: Vec<_> = batches
        .into_iter()
        .map(|b| tokio::spawn(blast(url.clone(), b, Arc::clone(&progress))))
        .collect();
    // Let the ingest get going, then pull the plug mid-stream.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while progress.load(Ordering::Relaxed) < 2_000 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    relay.kill9();
    let mut acked = HashSet::new();
    for s in senders {
        acked.extend(s.await.unwrap());
    }
    assert!(
        acked.len() >= 2_000,
        "the ingest was under way ({} acked)",
        acked.len()
    );
    assert!(acked.len() < 20_000, "the kill landed mid-stream");

    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let mut stored = HashSet::new();
    for a in &authors {
        let events = c
            .fetch_events(
                Filter::new()
                    .kind(Kind::TextNote)
                    .author(a.public_key())
                    .limit(20_000),
                Duration::from_secs(20),
            )
            .await
            .unwrap();
        stored.extend(events.iter().map(|e| e.id));
    }
    let lost: Vec<_> = acked.difference(&stored).collect();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged events lost",
        lost.len(),
        acked.len()
    );
}
