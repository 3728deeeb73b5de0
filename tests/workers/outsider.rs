//! The buddy answers someone outside the town on their own DM relays (NIP-17 kind 10050), never
//! through the town relay, and never on relays that point into the host's own network. A
//! nostr-relay-builder relay on 127.0.0.1 stands in for the outsider's public DM relay.

use nostr_relay_builder::{LocalRelay, RelayBuilder};
use nostr_sdk::prelude::*;

use super::phone::{wait_log, Phone};
use crate::util::*;

fn dm_relays(keys: &Keys, relays: &[&str]) -> Event {
    EventBuilder::new(Kind::InboxRelays, "")
        .tags(relays.iter().map(|r| Tag::custom(TagKind::Relay, [*r])))
        .sign_with_keys(keys)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_buddy_answers_an_outsider_on_their_dm_relays_only() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let buddy = town.keys("buddy").public_key();
    let public = LocalRelay::new(RelayBuilder::default());
    public.run().await.unwrap();
    let public_url = public.url().await.to_string();

    // Someone outside the town: their DM relay list is on the town relay (any client may
    // publish one there), their message reaches the buddy through it.
    let outsider = Keys::generate();
    let at_town = Phone::new(&up.url, &outsider).await;
    send(&at_town.client, &dm_relays(&outsider, &[&public_url]))
        .await
        .expect("the town relay takes anyone's 10050");
    let (_, asked) = at_town.send(buddy, "Hello, who are you?").await;

    let at_home = Phone::new(&public_url, &outsider).await;
    let answer = at_home.reply(buddy, asked).await;
    assert!(answer.contains("Hello, who are you?"), "{answer}");
    assert!(
        at_town.inbox().await.is_empty(),
        "no wrap to a non-member is stored on the town relay"
    );

    // A stranger whose DM relays point into the host's network gets no connection from the
    // buddy: it says so in the log instead.
    let prober = Keys::generate();
    let p = Phone::new(&up.url, &prober).await;
    send(
        &p.client,
        &dm_relays(&prober, &["ws://192.168.0.1:7777", "ws://169.254.169.254"]),
    )
    .await
    .unwrap();
    p.send(buddy, "hi").await;
    let line = wait_log(&up, &["names no DM relay", &prober.public_key().to_hex()]);
    assert!(line.contains("reply not delivered"), "{line}");
    up.kill9();
}
