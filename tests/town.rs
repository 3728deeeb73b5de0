//! The town: residents write drafts, the reviewer judges them against the NG rules, residents
//! post what was approved, the reporter fills the bulletin; all under `soul up --speed 600`.

use std::collections::HashSet;
use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_host::roles::resident::{dice, memory};
use soul_kinds::{
    parse, AuditVerdict, Draft, DraftStatus, GuardAction, News, Review, ReviewVerdict, SoulKind,
};

use crate::util::*;

const RESIDENTS: [&str; 8] = ["hana", "ivy", "kenji", "leo", "mia", "otto", "sora", "yuki"];

fn kind(k: SoulKind) -> Filter {
    Filter::new().kind(k.kind())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_town_drafts_reviews_posts_and_reports() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "600"]);
    let c = client(&up.url, None).await;
    let residents: Vec<PublicKey> = RESIDENTS
        .iter()
        .map(|n| town.keys(n).public_key())
        .collect();

    let drafts = wait_for(&c, kind(SoulKind::Draft), RESIDENTS.len()).await;
    assert_eq!(
        drafts.len(),
        RESIDENTS.len(),
        "every resident keeps one draft"
    );
    for d in drafts.iter() {
        assert!(residents.contains(&d.pubkey));
        parse::<Draft>(d).expect("drafts parse");
    }
    let reviews = wait_for(&c, kind(SoulKind::Review), RESIDENTS.len()).await;
    assert!(
        reviews.len() >= RESIDENTS.len(),
        "every draft gets a review"
    );
    let reviewer = town.keys("reviewer").public_key();
    assert!(reviews.iter().all(|r| r.pubkey == reviewer));

    let notes = wait_for(
        &c,
        Filter::new()
            .kind(Kind::TextNote)
            .authors(residents.clone()),
        4,
    )
    .await;
    assert!(
        notes.len() >= 4,
        "residents post approved drafts: {}",
        notes.len()
    );
    // What was posted is what the draft held: the draft's history records it.
    let drafts = wait_for(&c, kind(SoulKind::Draft), RESIDENTS.len()).await;
    // Notes read after the drafts, so every post a draft's history names is among them.
    let notes = wait_for(
        &c,
        Filter::new()
            .kind(Kind::TextNote)
            .authors(residents.clone()),
        4,
    )
    .await;
    let contents: HashSet<String> = notes.iter().map(|n| n.content.clone()).collect();
    let posted: Vec<String> = drafts
        .iter()
        .filter_map(|d| parse::<Draft>(d).ok())
        .flat_map(|d| {
            d.history
                .into_iter()
                .filter(|h| h.status == DraftStatus::Posted)
        })
        .map(|h| h.content)
        .collect();
    assert!(!posted.is_empty(), "drafts keep their posted history");
    assert!(
        posted.iter().all(|p| contents.contains(p)),
        "history names real notes"
    );

    // The reporter publishes feed by feed, item by item: wait for an item of each feed, not for
    // a count, which the first feed alone can reach.
    let of_each_feed = ["flower market", "pixel art", "チューリップ"];
    let titles_of = |news: &[Event]| -> Vec<String> {
        news.iter()
            .filter_map(|e| parse::<News>(e).ok())
            .map(|n| n.title)
            .collect()
    };
    let titles = wait_settled(&c, kind(SoulKind::News), PATIENCE, |news| {
        let titles = titles_of(news);
        let all = of_each_feed
            .iter()
            .all(|w| titles.iter().any(|t| t.contains(w)));
        (all && titles.len() >= 8).then_some(titles)
    })
    .await;
    // Patience ran out: the assertions below say what was there.
    let titles = match titles {
        Some(t) => t,
        None => titles_of(
            &wait_for(&c, kind(SoulKind::News), 0)
                .await
                .into_iter()
                .collect::<Vec<_>>(),
        ),
    };
    assert!(
        titles.len() >= 8,
        "the sample feeds fill the bulletin: {titles:?}"
    );
    assert!(
        titles.iter().any(|t| t.contains("flower market")),
        "RSS: {titles:?}"
    );
    assert!(
        titles.iter().any(|t| t.contains("pixel art")),
        "Atom: {titles:?}"
    );
    assert!(
        titles.iter().any(|t| t.contains("チューリップ")),
        "Japanese feed: {titles:?}"
    );
    assert!(
        !titles
            .iter()
            .any(|t| t.contains("Senator") || t.contains("容疑者")),
        "politics and incidents are filtered out: {titles:?}"
    );
    let events = wait_for(&c, kind(SoulKind::TownEvent), 3).await;
    assert!(events.len() >= 3, "town events are announced");
    for e in events.iter() {
        let t: soul_kinds::TownEvent = soul_kinds::parse(e).unwrap();
        assert!(
            t.ends.is_some_and(|end| end > t.starts),
            "each event says when it is over: {t:?}"
        );
    }

    // Memory: sealed to the resident itself; nobody else reads it.
    let memories = wait_for(&c, kind(SoulKind::Memory), 1).await;
    let m = memories.first().expect("a memory after the first post");
    let author = RESIDENTS
        .iter()
        .find(|n| town.keys(n).public_key() == m.pubkey)
        .expect("memory of a resident");
    let mine = memory::open(&town.keys(author), &m.content).expect("the resident reads its memory");
    assert!(!mine.short_term.is_empty(), "memory records the post");
    assert!(
        !m.content.contains("posted about"),
        "memory is ciphertext on the relay"
    );
    for other in [
        "owner",
        "reviewer",
        if *author == "hana" { "ivy" } else { "hana" },
    ] {
        assert!(
            memory::open_as(&town.keys(other), &m.pubkey, &m.content).is_err(),
            "{other} must not read {author}'s memory"
        );
    }

    // `soul watch` shows the town.
    let watch = Watch::start(&town, &up.url);
    let missing = watch.until(&["[draft]", "[review]", "[news]", "[note]", "[town event]"]);
    assert!(missing.is_empty(), "soul watch never showed {missing:?}");
}

/// An RSS feed served over HTTP on 127.0.0.1, standing for a news site's feed.
async fn feed_server() -> (String, tokio::task::JoinHandle<()>) {
    const RSS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Hill Street Weekly</title><link>http://127.0.0.1/</link>
<description>served by the test</description>
<item><title>Community garden opens twenty new plots</title><link>http://127.0.0.1/plots</link>
<description>&lt;p&gt;Sign-ups open on &lt;b&gt;Saturday&lt;/b&gt; at the gate.&lt;/p&gt;</description>
<category>gardening</category></item>
</channel></rss>"#;
    let app = axum::Router::new().route(
        "/feed.xml",
        axum::routing::get(|| async { ([("content-type", "application/rss+xml")], RSS) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/feed.xml", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (url, task)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reporter_reads_a_feed_over_http_and_skips_dead_and_broken_ones() {
    let (live, _server) = feed_server().await;
    let town = TestTown::new();
    let bulletin = town.dir.join("bulletin");
    std::fs::write(bulletin.join("broken.xml"), "<rss><channel><item>cut off").unwrap();
    let sources = std::fs::read_to_string(bulletin.join("sources.yaml")).unwrap();
    let feeds = format!(
        "feeds:\n  - url: http://127.0.0.1:1/feed.xml\n  - file: broken.xml\n  - url: {live}\n"
    );
    let start = sources.find("feeds:").unwrap();
    let end = sources.find("manual:").unwrap();
    let sources = format!("{}{feeds}\n{}", &sources[..start], &sources[end..]);
    std::fs::write(bulletin.join("sources.yaml"), sources).unwrap();

    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let item = loop {
        let news = c
            .fetch_events(kind(SoulKind::News), Duration::from_secs(5))
            .await
            .unwrap();
        if let Some(n) = news
            .iter()
            .filter_map(|e| parse::<News>(e).ok())
            .find(|n| n.source == "Hill Street Weekly")
        {
            break n;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the http feed's item never reached the bulletin"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(item.title, "Community garden opens twenty new plots");
    assert_eq!(item.summary, "Sign-ups open on Saturday at the gate.");
    assert_eq!(item.link.as_deref(), Some("http://127.0.0.1/plots"));
    let log = up.stderr.try_iter().collect::<Vec<_>>().join("\n");
    for dead in ["http://127.0.0.1:1/feed.xml", "broken.xml"] {
        assert!(
            log.lines()
                .any(|l| l.contains("feed skipped") && l.contains(dead)),
            "{dead} is logged and skipped: {log}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_politician_is_rejected_with_the_rule_and_the_rewrite_avoids_it() {
    let town = TestTown::new();
    let leo = town.dir.join("residents").join("leo.yaml");
    let profile = std::fs::read_to_string(&leo).unwrap();
    let profile = profile
        .lines()
        .map(|l| match l.split(':').next() {
            Some("interests") => "interests: [the president's speeches]".to_string(),
            Some("positive_prompts") => "positive_prompts: []".to_string(),
            Some("endings") => "endings: [\", just as the president says.\"]".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&leo, profile).unwrap();
    let up = town.up(&["--speed", "600"]);
    let c = client(&up.url, None).await;
    let leo = town.keys("leo").public_key();

    let rejected = wait_until(&c, kind(SoulKind::Review).pubkey(leo), |e| {
        parse::<Review>(e).is_ok_and(|r| r.verdict == ReviewVerdict::Rejected)
    })
    .await
    .expect("leo's draft about the president is rejected");
    let review = parse::<Review>(&rejected).unwrap();
    assert!(review.rules.contains(&"NG2".to_string()), "{review:?}");
    assert!(review.reason.contains("president"), "{review:?}");

    let first = e_ids(&rejected);
    // Karma: the rejection leaves a lesson about the rejected draft.
    let lesson = wait_until(&c, kind(SoulKind::Karma).author(leo), |e| {
        e_ids(e).iter().any(|id| first.contains(id))
    })
    .await;
    assert!(lesson.is_some(), "leo learns from the rejection");
    let rewrite = wait_until(&c, kind(SoulKind::Draft).author(leo), |e| {
        !first.contains(&e.id)
    })
    .await
    .expect("leo writes anew");
    let d = parse::<Draft>(&rewrite).unwrap();
    let before = d
        .history
        .iter()
        .rev()
        .find(|h| h.status == DraftStatus::Rejected)
        .expect("the rejected version is in the history");
    assert!(before.content.contains("president"), "{before:?}");
    assert!(
        !d.content.to_lowercase().contains("president"),
        "rewrite still names it: {}",
        d.content
    );
    let approved = wait_until(
        &c,
        kind(SoulKind::Review).pubkey(leo).event(rewrite.id),
        |e| parse::<Review>(e).is_ok_and(|r| r.verdict == ReviewVerdict::Approved),
    )
    .await;
    assert!(
        approved.is_some() || d.status == DraftStatus::Posted,
        "the rewrite passes review"
    );
}

/// What the reviewer does not check, the guardian still does before a post goes out: a draft
/// that would leak a password is approved by review, then stopped at posting with a verdict.
#[tokio::test(flavor = "multi_thread")]
async fn the_guardian_stops_a_post_the_reviewer_let_through() {
    let town = TestTown::new();
    let otto = town.dir.join("residents").join("otto.yaml");
    let profile = std::fs::read_to_string(&otto).unwrap();
    let profile = profile
        .lines()
        .map(|l| match l.split(':').next() {
            Some("positive_prompts") => "positive_prompts: []".to_string(),
            Some("endings") => "endings: [\", and my password is hunter2.\"]".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&otto, profile).unwrap();
    let up = town.up(&["--speed", "600"]);
    let c = client(&up.url, None).await;
    let otto = town.keys("otto").public_key();

    // Otto's replies carry the same ending and are blocked too: the post's verdict is the one
    // naming a draft version the reviewer approved.
    let reviews_and_verdicts =
        Filter::new().kinds([SoulKind::Review.kind(), SoulKind::Verdict.kind()]);
    let blocked = wait_settled(&c, reviews_and_verdicts, PATIENCE, |events| {
        let approved: HashSet<EventId> = events
            .iter()
            .filter(|e| e.tags.public_keys().any(|p| *p == otto))
            .filter(|e| parse::<Review>(e).is_ok_and(|r| r.verdict == ReviewVerdict::Approved))
            .flat_map(e_ids)
            .collect();
        events
            .iter()
            .filter(|e| e.pubkey == otto)
            .find(|e| {
                parse::<AuditVerdict>(e).is_ok_and(|v| v.action == GuardAction::Block)
                    && e_ids(e).iter().any(|id| approved.contains(id))
            })
            .cloned()
    })
    .await
    .expect("the guardian blocks otto's post");
    let v = parse::<AuditVerdict>(&blocked).unwrap();
    assert_eq!(v.check, "security", "{v:?}");
    // The public verdict says why, never what: the value stays in the local audit row.
    assert!(!v.reason.contains("hunter2"), "{v:?}");
    // The draft it was about had passed review.
    let draft = e_ids(&blocked);
    let approved = c
        .fetch_events(
            kind(SoulKind::Review).event(*draft.first().unwrap()),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(
        approved
            .iter()
            .any(|e| parse::<Review>(e).is_ok_and(|r| r.verdict == ReviewVerdict::Approved)),
        "the reviewer approved it"
    );
    let notes = c
        .fetch_events(
            Filter::new().kind(Kind::TextNote).author(otto),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(
        notes.iter().all(|n| !n.content.contains("hunter2")),
        "nothing with the password was posted"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn residents_answer_the_owner_within_the_depth_limit() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "600"]);
    let owner = town.keys("owner");
    let c = client(&up.url, Some(&owner)).await;
    let hana = town.keys("hana").public_key();
    // Wait until the residents are up (their first drafts are on the relay).
    wait_for(&c, kind(SoulKind::Draft).author(hana), 1).await;
    let first = EventBuilder::text_note("hana, how is the garden?")
        .tag(Tag::public_key(hana))
        .sign_with_keys(&owner)
        .unwrap();
    send(&c, &first).await.unwrap();
    // The owner keeps answering every reply: hana stops at the depth limit (3).
    let mut answered = HashSet::new();
    let mut replies = Vec::new();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while tokio::time::Instant::now() < deadline {
        let got = c
            .fetch_events(
                Filter::new()
                    .kind(Kind::TextNote)
                    .author(hana)
                    .event(first.id),
                Duration::from_secs(5),
            )
            .await
            .unwrap();
        for r in got.iter() {
            if answered.insert(r.id) {
                replies.push(r.clone());
                let again = EventBuilder::text_note("tell me more!")
                    .tag(soul_kinds::tags::e_marked(first.id, "root"))
                    .tag(soul_kinds::tags::e_marked(r.id, "reply"))
                    .tag(Tag::public_key(hana))
                    .sign_with_keys(&owner)
                    .unwrap();
                send(&c, &again).await.unwrap();
            }
        }
        if replies.len() >= 3 {
            // An ordering barrier, not a sleep: the owner's answer to hana's third reply is
            // already on the relay; a fresh mention sent after it is filed after it, so once
            // hana has answered the fresh one it has also weighed (and must have declined) the
            // thread's fourth turn.
            let barrier = EventBuilder::text_note("hana, one more thing: good night!")
                .tag(Tag::public_key(hana))
                .sign_with_keys(&owner)
                .unwrap();
            send(&c, &barrier).await.unwrap();
            let answered = wait_for(
                &c,
                Filter::new()
                    .kind(Kind::TextNote)
                    .author(hana)
                    .event(barrier.id),
                1,
            )
            .await;
            assert_eq!(answered.len(), 1, "hana answers the owner's fresh mention");
            let got = c
                .fetch_events(
                    Filter::new()
                        .kind(Kind::TextNote)
                        .author(hana)
                        .event(first.id),
                    Duration::from_secs(5),
                )
                .await
                .unwrap();
            assert_eq!(got.len(), 3, "hana stops at the depth limit");
            return;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    panic!("hana answered only {} times", replies.len());
}

#[test]
fn ten_thousand_seeded_draws_fall_within_two_percent_of_70_20_10() {
    let mut counts = [0usize; 3];
    let mut jitters = Vec::new();
    for r in 0..100 {
        let key = Keys::generate().public_key();
        for step in 0..100u64 {
            let mut rng = dice::dice(&key, 1_700_000_000 + step * 37 + r);
            match dice::pick(&mut rng) {
                dice::Pick::Continue => counts[0] += 1,
                dice::Pick::News => counts[1] += 1,
                dice::Pick::Event => counts[2] += 1,
            }
            jitters.push(dice::jitter(&mut rng));
        }
    }
    let share = |n: usize| n as f64 / 10_000.0;
    assert!((share(counts[0]) - 0.70).abs() <= 0.02, "{counts:?}");
    assert!((share(counts[1]) - 0.20).abs() <= 0.02, "{counts:?}");
    assert!((share(counts[2]) - 0.10).abs() <= 0.02, "{counts:?}");
    assert!(jitters.iter().all(|j| (0.7..=1.3).contains(j)));
    let mean = jitters.iter().sum::<f64>() / jitters.len() as f64;
    assert!((mean - 1.0).abs() < 0.02, "jitter is centred: {mean}");
}

#[test]
fn a_broken_profile_stops_soul_up_naming_file_and_field() {
    let town = TestTown::new();
    let mia = town.dir.join("residents").join("mia.yaml");
    let text = std::fs::read_to_string(&mia)
        .unwrap()
        .replace("language: en", "language: fr");
    std::fs::write(&mia, text).unwrap();
    let out = soul()
        .arg("up")
        .arg("--town")
        .arg(&town.dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mia.yaml") && err.contains("`language`"),
        "{err}"
    );
}

/// The `e` ids of an event.
fn e_ids(e: &Event) -> Vec<EventId> {
    soul_kinds::tags::e_refs(e).map(|r| r.id).collect()
}

/// Waits until an event matching `filter` passes `ok`.
async fn wait_until(c: &Client, filter: Filter, ok: impl Fn(&Event) -> bool) -> Option<Event> {
    wait_settled(c, filter, PATIENCE, |events| {
        events.iter().find(|e| ok(e)).cloned()
    })
    .await
}

/// Residents talk to each other (issue 15): without anyone starting it, one resident takes up
/// another's post, and the reply names the post it answers and its author (NIP-10).
#[tokio::test(flavor = "multi_thread")]
async fn residents_take_up_each_others_posts() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "600"]);
    let c = client(&up.url, None).await;
    let residents: Vec<PublicKey> = RESIDENTS
        .iter()
        .map(|n| town.keys(n).public_key())
        .collect();
    let notes = Filter::new()
        .kind(Kind::TextNote)
        .authors(residents.clone());
    let conversation = wait_settled(&c, notes, PATIENCE * 2, |notes| {
        let by_id: std::collections::HashMap<EventId, &Event> =
            notes.iter().map(|n| (n.id, n)).collect();
        notes
            .iter()
            .find(|n| {
                soul_kinds::tags::e_refs(n).any(|r| {
                    by_id.get(&r.id).is_some_and(|root| {
                        root.pubkey != n.pubkey
                            && residents.contains(&root.pubkey)
                            && n.tags.public_keys().any(|p| *p == root.pubkey)
                    })
                })
            })
            .cloned()
    })
    .await;
    assert!(conversation.is_some(), "no resident took up another's post");
    up.kill9();
}
