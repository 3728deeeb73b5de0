//! `soul replay`: anyone with a task id proves the debate from any relay.

use std::time::Duration;

use nostr_relay_builder::{LocalRelay, RelayBuilder};
use nostr_sdk::prelude::*;
use soul_kinds::content::opinion;
use soul_kinds::{Opinion, SoulKind, Vote};

use crate::util::*;

#[tokio::test(flavor = "multi_thread")]
async fn replay_verifies_a_debate_and_names_a_forged_opinion_on_a_foreign_relay() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let owner = town.keys("owner");
    let task_event = owner_task(
        &owner,
        "Back up the family photos to the external disk every night",
    );
    send(&c, &task_event).await.unwrap();
    let done = Filter::new()
        .kind(SoulKind::Execution.kind())
        .event(task_event.id);
    assert_eq!(
        wait_for(&c, done, 2).await.len(),
        2,
        "the debate runs to completion"
    );

    let npub = owner.public_key().to_bech32().unwrap();
    let id = task_event.id.to_hex();
    let out = soul()
        .args(["replay", &id, "--relay", &up.url, "--owner", &npub])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("round 1"), "timeline round by round: {text}");
    assert!(
        text.contains("VERIFIED") && text.contains("approved"),
        "{text}"
    );
    assert!(
        text.contains("ANNOUNCEMENT") && text.contains("needs_owner"),
        "{text}"
    );
    // A brain whose vote arrives after gorilla decided (a loaded machine) is refused for order,
    // as it should be; nothing else in an honest debate is.
    assert!(
        text.lines()
            .filter(|l| l.starts_with("REFUSED"))
            .all(|l| l.ends_with("order: opinion after the decision")),
        "{text}"
    );

    // A second relay without soul's policies (a stand-in for any public relay) holds a copy of
    // the debate plus an opinion forged by a stranger.
    let foreign = LocalRelay::new(RelayBuilder::default());
    foreign.run().await.unwrap();
    let foreign_url = foreign.url().await.to_string();
    let f = client(&foreign_url, None).await;
    let mut copy = c
        .fetch_events(
            Filter::new()
                .kinds([SoulKind::Roster.kind()])
                .author(owner.public_key()),
            Duration::from_secs(5),
        )
        .await
        .unwrap()
        .into_iter()
        .collect::<Vec<_>>();
    copy.push(task_event.clone());
    copy.extend(
        c.fetch_events(Filter::new().event(task_event.id), Duration::from_secs(5))
            .await
            .unwrap(),
    );
    for e in &copy {
        send(&f, e).await.expect("the foreign relay takes the copy");
    }
    let forged = opinion(
        task_event.id,
        &Opinion {
            round: 1,
            vote: Vote::Reject,
            opinion: "I am panda, honestly. Reject!".into(),
            proposed_approach: "none".into(),
            concerns: vec!["forged".into()],
            confidence: 1.0,
            accepts: Vec::new(),
        },
    )
    .sign_with_keys(&Keys::generate())
    .unwrap();
    send(&f, &forged).await.expect("no policy stops it there");

    let out = soul()
        .args(["replay", &id, "--relay", &foreign_url, "--owner", &npub])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("REFUSED {}", forged.id.to_hex())),
        "names the forged event: {text}"
    );
    assert!(
        text.contains("VERIFIED") && text.contains("approved"),
        "still the true outcome: {text}"
    );
}
