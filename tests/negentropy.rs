//! NIP-77 on soul's relay, spoken to by rust-nostr's own negentropy client (`Client::sync`): the
//! set difference comes out exactly, both ways, and a reconciliation reveals no more than a REQ
//! would (a gift wrap only to its authenticated recipient).

use std::collections::HashSet;
use std::time::Duration;

use nostr_sdk::prelude::*;

use crate::util::*;

/// A client whose local store holds `events`, as a peer or a phone app syncing with the relay.
async fn peer(url: &str, keys: Option<&Keys>, events: &[Event]) -> Client {
    let store = MemoryDatabase::with_opts(MemoryDatabaseOptions {
        events: true,
        max_events: None,
    });
    for e in events {
        store.save_event(e).await.unwrap();
    }
    let builder = Client::builder().database(store);
    let client = match keys {
        Some(k) => builder.signer(k.clone()).build(),
        None => builder.build(),
    };
    client.add_relay(url).await.unwrap();
    client
        .try_connect_relay(url, Duration::from_secs(10))
        .await
        .expect("connect to the relay");
    client
}

fn notes(author: &Keys, n: usize, what: &str) -> Vec<Event> {
    (0..n)
        .map(|i| {
            EventBuilder::text_note(format!("{what} {i}"))
                .sign_with_keys(author)
                .unwrap()
        })
        .collect()
}

fn ids(events: &[Event]) -> HashSet<EventId> {
    events.iter().map(|e| e.id).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn negentropy_finds_exactly_what_each_side_lacks() {
    let town = TestTown::new();
    let relay = town.relay(&["--unlimited"]);
    let author = Keys::generate();
    let shared = notes(&author, 80, "both sides have");
    let relay_only = notes(&author, 20, "only the relay has");
    let peer_only = notes(&author, 25, "only the peer has");
    let publisher = client(&relay.url, None).await;
    for e in shared.iter().chain(&relay_only) {
        send(&publisher, e).await.unwrap();
    }

    let local: Vec<Event> = shared.iter().chain(&peer_only).cloned().collect();
    let syncing = peer(&relay.url, None, &local).await;
    let filter = Filter::new()
        .kind(Kind::TextNote)
        .author(author.public_key());
    let out = syncing
        .sync(
            filter.clone(),
            &SyncOptions::default().direction(SyncDirection::Both),
        )
        .await
        .expect("soul's relay speaks NIP-77")
        .val;
    assert_eq!(out.remote, ids(&relay_only), "what only the relay had");
    assert_eq!(out.local, ids(&peer_only), "what only the peer had");
    assert_eq!(out.received, ids(&relay_only), "pulled down");
    assert_eq!(out.sent, ids(&peer_only), "pushed up");

    // Afterwards both sides hold the union, and a second round finds nothing to do.
    let all = publisher
        .fetch_events(filter.clone(), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(all.len(), 125, "the relay stored what the peer pushed");
    let again = syncing
        .sync(
            filter,
            &SyncOptions::default().direction(SyncDirection::Both),
        )
        .await
        .unwrap()
        .val;
    assert!(
        again.local.is_empty() && again.remote.is_empty(),
        "{again:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn negentropy_shows_a_gift_wrap_only_to_its_authenticated_recipient() {
    let town = TestTown::new();
    let relay = town.relay(&["--unlimited"]);
    let buddy = town.keys("buddy");
    let stranger = Keys::generate();
    let wrap = EventBuilder::private_msg(&stranger, buddy.public_key(), "a secret", [])
        .await
        .unwrap();
    send(&client(&relay.url, None).await, &wrap).await.unwrap();
    let filter = Filter::new().kind(Kind::GiftWrap);
    let down = SyncOptions::default()
        .direction(SyncDirection::Down)
        .dry_run();

    // Anyone else, authenticated or not, reconciles against a set without it.
    for keys in [None, Some(&stranger)] {
        let other = peer(&relay.url, keys, &[]).await;
        let out = other.sync(filter.clone(), &down).await.unwrap().val;
        assert!(
            !out.remote.contains(&wrap.id),
            "negentropy leaked a gift wrap's id to {:?}",
            keys.map(|k| k.public_key())
        );
    }

    // The recipient, once authenticated (a REQ for its wraps completes NIP-42 first), sees it.
    // Its client keeps no events, so the REQ does not put the wrap in its own set.
    let recipient = Client::builder()
        .signer(buddy.clone())
        .database(MemoryDatabase::new())
        .build();
    recipient.add_relay(&relay.url).await.unwrap();
    recipient
        .try_connect_relay(&relay.url, Duration::from_secs(10))
        .await
        .unwrap();
    let got = wait_for(&recipient, filter.clone().pubkey(buddy.public_key()), 1).await;
    assert_eq!(got.len(), 1, "the recipient reads its gift wrap");
    let out = recipient.sync(filter, &down).await.unwrap().val;
    assert!(out.remote.contains(&wrap.id), "{out:?}");
}
