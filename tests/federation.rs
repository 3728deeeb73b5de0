//! Federation: the town and a second relay standing for a public relay.

use std::time::Duration;

use nostr_relay_builder::builder::RateLimit;
use nostr_relay_builder::{LocalRelay, RelayBuilder};
use nostr_sdk::prelude::*;
use soul_kinds::SoulKind;

use crate::util::*;
use crate::workers::phone::Phone;

/// A federation peer that is down: nothing listens on port 1 of 127.0.0.1.
const DEAD_PEER: &str = "ws://127.0.0.1:1";

/// A relay without soul's policies, on 127.0.0.1, standing for a public relay.
async fn public_relay() -> (LocalRelay, String) {
    let relay = LocalRelay::new(RelayBuilder::default().rate_limit(RateLimit {
        max_reqs: 500,
        notes_per_minute: u32::MAX,
    }));
    relay.run().await.unwrap();
    let url = relay.url().await.to_string();
    (relay, url)
}

/// Reads `up`'s log into `seen` until, for every needle, one line holds all of its parts (or
/// PATIENCE runs out); returns the needles never seen.
async fn wait_for_lines(up: &Running, seen: &mut Vec<String>, needles: &[&[&str]]) -> Vec<String> {
    let deadline = std::time::Instant::now() + PATIENCE;
    let missing = |seen: &[String]| -> Vec<String> {
        needles
            .iter()
            .filter(|parts| !seen.iter().any(|l| parts.iter().all(|p| l.contains(p))))
            .map(|parts| parts.join(" … "))
            .collect()
    };
    while !missing(seen).is_empty() && std::time::Instant::now() < deadline {
        seen.extend(up.stderr.try_iter());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    missing(seen)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bridge_pushes_public_events_pulls_owner_tasks_and_keeps_secrets_home() {
    let (_public, public_url) = public_relay().await;
    let town = TestTown::new();
    let mut config = town.config();
    // A dead peer first: it must not hold up the live one.
    config.relay.federation = vec![DEAD_PEER.to_owned(), public_url.clone()];
    config.save(&town.dir).unwrap();
    let roster = config.roster().unwrap();
    let members: Vec<PublicKey> = roster.members().iter().map(|m| m.pubkey).collect();

    let up = town.up(&["--speed", "60"]);
    let home = client(&up.url, None).await;
    let public = client(&public_url, None).await;

    // Out: every agent's profile reaches the public relay.
    let profiles = wait_for(
        &public,
        Filter::new().kind(Kind::Metadata).authors(members.clone()),
        members.len(),
    )
    .await;
    assert_eq!(profiles.len(), members.len());

    // A gift wrap inside the town stays home.
    let owner = town.keys("owner");
    let buddy = town.keys("buddy").public_key();
    let rumor = EventBuilder::private_msg_rumor(buddy, "a secret").build(owner.public_key());
    let wrap = EventBuilder::gift_wrap(&owner, &buddy, rumor, [])
        .await
        .unwrap();
    send(&home, &wrap).await.unwrap();

    // In: a task the owner publishes only on the public relay is pulled in and debated at home.
    let outside = owner_task(
        &owner,
        "Back up the family photos to the external disk every night",
    );
    send(&public, &outside).await.unwrap();
    let decided = wait_for(
        &home,
        Filter::new()
            .kind(SoulKind::Decision.kind())
            .event(outside.id),
        1,
    )
    .await;
    assert_eq!(decided.len(), 1, "the pulled task was debated in the town");
    // …and the debate flows back out.
    let out = wait_for(
        &public,
        Filter::new()
            .kind(SoulKind::Decision.kind())
            .event(outside.id),
        1,
    )
    .await;
    assert_eq!(out.len(), 1, "the decision reached the public relay");

    let leaked = public
        .fetch_events(
            Filter::new().kinds([
                Kind::GiftWrap,
                SoulKind::Memory.kind(),
                SoulKind::Heartbeat.kind(),
            ]),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(
        leaked.is_empty(),
        "gift wraps, memory and heartbeats never leave: {leaked:?}"
    );

    // In (after the leak check: this wrap is the phone's own, on the public relay): the
    // owner's phone, which knows only the public relay, DMs the buddy; the
    // bridge pulls the gift wrap home and the buddy's answer waits for the owner at home.
    let phone = Phone::new(&public_url, &owner).await;
    let (_, asked) = phone.send(buddy, "hello from the phone").await;
    let home_phone = Phone::new(&up.url, &owner).await;
    let answer = home_phone.reply(buddy, asked).await;
    assert!(
        !answer.trim().is_empty(),
        "the buddy answered the pulled DM"
    );

    // A restart resumes: negentropy finds what the peer has; the old debate is not sent again.
    // The first run caught up with the live peer, and the dead peer was retried with a growing
    // back-off all along: wait for the log lines that prove both, never for a clock.
    let mut first_run = Vec::new();
    let missing = wait_for_lines(
        &up,
        &mut first_run,
        &[
            &["caught up"],
            &[DEAD_PEER, "retrying in 1 s"],
            &[DEAD_PEER, "retrying in 2 s"],
        ],
    )
    .await;
    assert!(
        missing.is_empty(),
        "never logged {missing:?}: {first_run:?}"
    );
    assert!(up.terminate().success());
    let up = town.up(&["--speed", "60"]);
    let home = client(&up.url, None).await;
    wait_for(
        &home,
        Filter::new().kind(SoulKind::Heartbeat.kind()),
        members.len(),
    )
    .await;
    let mut second_run = Vec::new();
    let missing = wait_for_lines(&up, &mut second_run, &[&["caught up by negentropy"]]).await;
    assert!(
        missing.is_empty(),
        "the bridge never caught up after a restart: {second_run:?}"
    );
    let line = second_run
        .iter()
        .find(|l| l.contains("caught up by negentropy"))
        .expect("seen above");
    let number = |key: &str| -> usize {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{key}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{key} in {line}"))
    };
    let (sent, had) = (number("sent"), number("already_there"));
    assert!(
        had > sent,
        "after a restart most events are already on the peer: {line}"
    );
    let debate = home
        .fetch_events(
            Filter::new().kinds([SoulKind::Opinion.kind(), SoulKind::Decision.kind()]),
            Duration::from_secs(5),
        )
        .await
        .unwrap()
        .len();
    assert!(
        had >= debate,
        "the earlier debate ({debate} events) is not sent again: {line}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_run_unchanged_on_a_relay_nobody_here_wrote() {
    // rust-nostr's own relay implementation, with none of soul's code in front of it.
    let (_other, other_url) = public_relay().await;
    let town = TestTown::new();
    let up = town.up(&["--speed", "60", "--relay", &other_url]);
    assert_eq!(
        up.url.trim_end_matches('/'),
        other_url.trim_end_matches('/')
    );
    let c = client(&other_url, None).await;
    let owner = town.keys("owner");
    let e = owner_task(
        &owner,
        "Back up the family photos to the external disk every night",
    );
    send(&c, &e).await.unwrap();
    let execs = wait_for(
        &c,
        Filter::new().kind(SoulKind::Execution.kind()).event(e.id),
        2,
    )
    .await;
    let statuses: Vec<String> = execs
        .iter()
        .filter_map(|x| soul_kinds::parse::<soul_kinds::Execution>(x).ok())
        .map(|x| x.status.as_str().to_string())
        .collect();
    assert!(
        statuses.contains(&"needs_owner".to_string()),
        "debated to its end there (no skill backs up photos: the owner is told): {statuses:?}"
    );
}
