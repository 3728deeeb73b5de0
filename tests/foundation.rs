//! The foundation: `soul init/up/relay/status`, the relay's policy chain, privacy and durability.

use std::collections::HashSet;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use nostr_sdk::prelude::*;
use soul_kinds::content::{opinion, task, Opinion, Priority, Task, Vote};
use soul_kinds::SoulKind;
use tokio_tungstenite::tungstenite::Message;

use crate::util::*;

fn a_task(title: &str) -> EventBuilder {
    task(
        &Task {
            title: title.into(),
            description: "from a test".into(),
            priority: Priority::Medium,
            task_type: "task".into(),
        },
        None,
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn up_publishes_every_agents_profile_relay_lists_and_heartbeat() {
    let town = TestTown::new();
    let up = town.up(&[]);
    let roster = town.config().roster().unwrap();
    let members: Vec<PublicKey> = roster.members().iter().map(|m| m.pubkey).collect();
    let c = client(&up.url, None).await;

    let profiles = wait_for(
        &c,
        Filter::new().kind(Kind::Metadata).authors(members.clone()),
        members.len(),
    )
    .await;
    assert_eq!(
        profiles.len(),
        members.len(),
        "one kind-0 profile per agent"
    );
    for p in profiles.iter() {
        p.verify().expect("profile signature verifies");
        let meta: serde_json::Value = serde_json::from_str(&p.content).unwrap();
        assert_eq!(
            meta["bot"],
            serde_json::Value::Bool(true),
            "profile says bot: true"
        );
        let name = meta["name"].as_str().unwrap();
        assert_eq!(roster.member(&p.pubkey).unwrap().name, name);
    }
    for kind in [
        Kind::RelayList,
        Kind::InboxRelays,
        SoulKind::Heartbeat.kind(),
    ] {
        let lists = wait_for(
            &c,
            Filter::new().kind(kind).authors(members.clone()),
            members.len(),
        )
        .await;
        assert_eq!(
            lists.len(),
            members.len(),
            "every agent publishes kind {kind}"
        );
    }
    let inbox = c
        .fetch_events(
            Filter::new()
                .kind(Kind::InboxRelays)
                .author(members[0])
                .limit(1),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    let relay_tag = inbox
        .first()
        .unwrap()
        .tags
        .iter()
        .find(|t| t.kind() == TagKind::Relay)
        .unwrap();
    assert_eq!(
        relay_tag.content().unwrap().trim_end_matches('/'),
        up.url.trim_end_matches('/')
    );

    // NIP-89: the owner says where soul's kinds can be viewed.
    let handler = wait_for(
        &c,
        Filter::new().kind(Kind::Custom(31990)).author(roster.owner),
        1,
    )
    .await;
    let handler = handler.first().expect("a 31990 handler-information event");
    let ks: Vec<&str> = handler
        .tags
        .iter()
        .filter(|t| t.kind() == TagKind::custom("k"))
        .filter_map(|t| t.content())
        .collect();
    assert!(ks.contains(&"4361") && ks.contains(&"4360"), "{ks:?}");
    let recs = wait_for(
        &c,
        Filter::new().kind(Kind::Custom(31989)).author(roster.owner),
        19,
    )
    .await;
    assert_eq!(
        recs.len(),
        SoulKind::ALL.len(),
        "one recommendation per soul kind"
    );

    // status --json has the contract's shape and sees every agent alive.
    let status = status_json(&town, &up.url);
    assert_eq!(status["owner"], roster.owner.to_hex());
    assert_eq!(status["agents"].as_array().unwrap().len(), members.len());
    for a in status["agents"].as_array().unwrap() {
        assert!(a["last_seen"].as_u64().is_some(), "{a} has a heartbeat");
        assert!(
            ["brain", "resident", "reviewer", "reporter", "buddy", "executor"]
                .contains(&a["role"].as_str().unwrap())
        );
    }
    assert_eq!(status["town"], town.config().town.name);
    assert_eq!(status["relay"], up.url);
    let tasks = status["tasks"].as_object().expect("tasks is an object");
    for s in ["discussing", "completed", "failed", "rejected"] {
        assert_eq!(tasks[s], 0, "{s} is counted, zero included: {tasks:?}");
    }

    // SIGTERM stops cleanly.
    assert!(up.terminate().success(), "soul up exits 0 on SIGTERM");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_policy_rejection_carries_its_prefix() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let stranger = Keys::generate();
    let panda = town.keys("panda");
    let hana = town.keys("hana");
    let owner = town.keys("owner");
    let task_id = EventId::all_zeros();

    let op = Opinion {
        round: 1,
        vote: Vote::Approve,
        opinion: "fine by me".into(),
        proposed_approach: "go".into(),
        concerns: vec![],
        confidence: 0.8,
        accepts: Vec::new(),
    };
    let forged = opinion(task_id, &op).sign_with_keys(&stranger).unwrap();
    let err = send(&c, &forged).await.unwrap_err();
    assert!(err.starts_with("blocked:"), "stranger's opinion: {err}");
    send(&c, &opinion(task_id, &op).sign_with_keys(&panda).unwrap())
        .await
        .expect("a brain's opinion is accepted");

    let err = send(&c, &a_task("not yours").sign_with_keys(&hana).unwrap())
        .await
        .unwrap_err();
    assert!(err.starts_with("blocked:"), "a resident's task: {err}");
    send(&c, &a_task("the owner's").sign_with_keys(&owner).unwrap())
        .await
        .expect("the owner's task is accepted");

    let mut tampered = EventBuilder::text_note("original")
        .sign_with_keys(&owner)
        .unwrap();
    tampered.content = "tampered".into();
    let err = send(&c, &tampered).await.unwrap_err();
    assert!(err.starts_with("invalid:"), "tampered event: {err}");

    let huge = EventBuilder::text_note("x".repeat(2 * 1024 * 1024))
        .sign_with_keys(&owner)
        .unwrap();
    let err = send(&c, &huge).await.unwrap_err();
    assert!(err.starts_with("invalid:"), "2 MiB event: {err}");

    let ahead = EventBuilder::text_note("from the future")
        .custom_created_at(Timestamp::now() + 3600)
        .sign_with_keys(&owner)
        .unwrap();
    let err = send(&c, &ahead).await.unwrap_err();
    assert!(err.starts_with("invalid:"), "an hour ahead: {err}");

    let rumor =
        EventBuilder::private_msg_rumor(stranger.public_key(), "hi").build(owner.public_key());
    let wrap = EventBuilder::gift_wrap(&owner, &stranger.public_key(), rumor, [])
        .await
        .unwrap();
    let err = send(&c, &wrap).await.unwrap_err();
    assert!(
        err.starts_with("blocked:"),
        "gift wrap to a stranger: {err}"
    );

    // NIP-11 on the same port.
    let http = relay.url.replace("ws://", "http://");
    let body = http_get(&http, "application/nostr+json").await;
    let doc: serde_json::Value =
        serde_json::from_str(body.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(doc["pubkey"], owner.public_key().to_hex());
    assert!(doc["supported_nips"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(42)));
}

/// A bare HTTP/1.1 GET over TCP, so the test needs no HTTP client crate.
async fn http_get(base: &str, accept: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = base.trim_start_matches("http://").trim_end_matches('/');
    let mut s = tokio::net::TcpStream::connect(host).await.unwrap();
    let req =
        format!("GET / HTTP/1.1\r\nHost: {host}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn raw(url: &str) -> Ws {
    tokio_tungstenite::connect_async(url)
        .await
        .expect("websocket")
        .0
}

/// Next text frame as JSON, skipping the AUTH challenge the relay sends on connect.
async fn next_json(ws: &mut Ws) -> serde_json::Value {
    loop {
        let msg = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .expect("relay answered")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            let v: serde_json::Value = serde_json::from_str(&t).unwrap();
            if v[0] != "AUTH" {
                return v;
            }
        }
    }
}

/// Frames of one REQ up to EOSE or CLOSED.
async fn req(ws: &mut Ws, id: &str, filter: serde_json::Value) -> Vec<serde_json::Value> {
    ws.send(Message::text(
        serde_json::json!(["REQ", id, filter]).to_string(),
    ))
    .await
    .unwrap();
    let mut out = Vec::new();
    loop {
        let v = next_json(ws).await;
        let end = v[0] == "EOSE" || v[0] == "CLOSED";
        out.push(v);
        if end {
            return out;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn relay_keeps_serving_after_garbage_frames() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let mut ws = raw(&relay.url).await;
    for garbage in [
        "not json",
        "[\"EVENT\", {\"id\": 5}]",
        "{}",
        "[\"NOPE\"]",
        "[\"REQ\"]",
    ] {
        ws.send(Message::text(garbage)).await.unwrap();
        let v = next_json(&mut ws).await;
        assert!(
            v[0] == "NOTICE" || v[0] == "OK",
            "garbage {garbage:?} gets a NOTICE, got {v}"
        );
        assert!(v.to_string().contains("invalid:"), "{v}");
    }
    ws.send(Message::binary(vec![0u8, 159, 146, 150]))
        .await
        .unwrap();
    assert_eq!(next_json(&mut ws).await[0], "NOTICE");
    // Same connection still answers a REQ.
    let frames = req(
        &mut ws,
        "after-garbage",
        serde_json::json!({"kinds": [1], "limit": 1}),
    )
    .await;
    assert_eq!(frames.last().unwrap()[0], "EOSE");
}

#[tokio::test(flavor = "multi_thread")]
async fn gift_wraps_reach_only_their_authenticated_recipient() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let owner = town.keys("owner");
    let buddy = town.keys("buddy");
    let reviewer = town.keys("reviewer");
    let c = client(&relay.url, None).await;
    let rumor = EventBuilder::private_msg_rumor(buddy.public_key(), "pause please")
        .build(owner.public_key());
    let wrap = EventBuilder::gift_wrap(&owner, &buddy.public_key(), rumor, [])
        .await
        .unwrap();
    send(&c, &wrap).await.expect("wrap to a member is stored");

    // Without auth: asking for kind 1059 is refused with auth-required; a kind-less filter gets none.
    let mut ws = raw(&relay.url).await;
    let frames = req(&mut ws, "dm", serde_json::json!({"kinds": [1059]})).await;
    let closed = frames.last().unwrap();
    assert_eq!(closed[0], "CLOSED");
    assert!(
        closed[2].as_str().unwrap().starts_with("auth-required:"),
        "{closed}"
    );
    let frames = req(&mut ws, "all", serde_json::json!({"limit": 500})).await;
    assert!(
        frames
            .iter()
            .all(|f| f[0] != "EVENT" || f[2]["kind"] != 1059),
        "no gift wrap without auth"
    );
    let frames = req(
        &mut ws,
        "byid",
        serde_json::json!({"ids": [wrap.id.to_hex()]}),
    )
    .await;
    assert!(frames.iter().all(|f| f[0] != "EVENT"), "not even by id");

    // Authenticated as someone else: nothing. As the recipient: the wrap.
    let other = client(&relay.url, Some(&reviewer)).await;
    let got = other
        .fetch_events(
            Filter::new()
                .kind(Kind::GiftWrap)
                .pubkey(buddy.public_key()),
            Duration::from_secs(10),
        )
        .await
        .unwrap_or_default();
    assert!(got.is_empty(), "the reviewer must not see the buddy's wrap");
    let me = client(&relay.url, Some(&buddy)).await;
    let got = me
        .fetch_events(
            Filter::new()
                .kind(Kind::GiftWrap)
                .pubkey(buddy.public_key()),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    assert_eq!(
        got.first().map(|e| e.id),
        Some(wrap.id),
        "the recipient gets its wrap after NIP-42"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn acknowledged_events_survive_kill_9_of_soul_up() {
    let town = TestTown::new();
    // Three authors: the owner's own bucket is partly spent by the roster and NIP-89 events the
    // relay publishes at start, and this test is about durability, not the rate limit.
    let authors = [Keys::generate(), Keys::generate(), Keys::generate()];
    let relay = town.up(&[]);
    let c = client(&relay.url, None).await;
    let mut acked = HashSet::new();
    for i in 0..300 {
        let e = EventBuilder::text_note(format!("note {i}"))
            .sign_with_keys(&authors[i % 3])
            .unwrap();
        send(&c, &e).await.expect("accepted");
        acked.insert(e.id);
    }
    c.shutdown().await;
    relay.kill9();

    let relay = town.up(&[]);
    let c = client(&relay.url, None).await;
    let stored = c
        .fetch_events(
            Filter::new()
                .kind(Kind::TextNote)
                .authors(authors.iter().map(|k| k.public_key()))
                .limit(1000),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    let stored: HashSet<EventId> = stored.iter().map(|e| e.id).collect();
    let missing = acked.difference(&stored).count();
    assert_eq!(
        missing, 0,
        "{missing} of 300 acknowledged events lost after kill -9"
    );
}

/// A town's history outgrows what a relay returns for one REQ (soul's relay: 500 without a
/// limit); `soul status` still counts every task.
#[tokio::test(flavor = "multi_thread")]
async fn status_counts_every_task_past_the_relays_page_size() {
    let town = TestTown::new();
    let relay = town.relay(&["--unlimited"]);
    let c = client(&relay.url, None).await;
    let owner = town.keys("owner");
    let now = Timestamp::now().as_secs();
    const TASKS: u64 = 650;
    for i in 0..TASKS {
        // A town's tasks arrive over days, not in one second.
        let e = a_task(&format!("errand {i}"))
            .custom_created_at(Timestamp::from(now - i * 60))
            .sign_with_keys(&owner)
            .unwrap();
        send(&c, &e).await.expect("owner's task accepted");
    }
    let status = status_json(&town, &relay.url);
    assert_eq!(status["tasks"]["discussing"], TASKS, "{}", status["tasks"]);
}

#[test]
fn a_key_file_readable_by_others_is_refused_by_name() {
    let town = TestTown::new();
    let path = town.key_path("panda");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = soul()
        .args(["up", "--town"])
        .arg(&town.dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&path.display().to_string()),
        "names the file: {err}"
    );
    assert!(err.contains("chmod 600"), "says what to do: {err}");
}

#[test]
fn init_refuses_an_existing_town() {
    let town = TestTown::new();
    let before = std::fs::read_to_string(town.dir.join("town.toml")).unwrap();
    let out = soul().arg("init").arg(&town.dir).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(
        before,
        std::fs::read_to_string(town.dir.join("town.toml")).unwrap(),
        "nothing overwritten"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn soul_agent_takes_its_role_from_the_owner_signed_roster() {
    let town = TestTown::new();
    soul_agent_runs_panda_from_the_relay_roster(&town).await;
}

/// A town of a thousand members across hosts: the owner's roster event is far over the 64 KiB
/// other events may take and lists more than the 256 members it once could, yet an agent on
/// another machine still reads its role from it. (The extra members' keys live on other hosts,
/// so this `soul up` runs none of them.)
#[tokio::test(flavor = "multi_thread")]
async fn soul_agent_reads_the_roster_of_a_town_of_a_thousand() {
    let town = TestTown::new();
    let mut config = town.config();
    for i in 0..1_000 {
        config.roster.push(soul_keys::RosterEntry {
            name: format!("elsewhere{i:04}"),
            role: soul_kinds::Role::Resident,
            pubkey: Keys::generate().public_key().to_bech32().unwrap(),
        });
    }
    config.save(&town.dir).unwrap();
    soul_agent_runs_panda_from_the_relay_roster(&town).await;
}

/// Moves panda's key out of the town, runs the town, and waits for panda's heartbeat from a
/// `soul-agent` that knows only the relay and the owner's npub.
async fn soul_agent_runs_panda_from_the_relay_roster(town: &TestTown) {
    // Run the town without the panda key; panda joins from "another machine".
    let panda_key = town.key_path("panda");
    let elsewhere = town.dir.parent().unwrap().join("panda.nsec");
    std::fs::rename(&panda_key, &elsewhere).unwrap();
    let up = town.up(&[]);
    let owner = town.config().owner().unwrap();
    let mut agent = soul_agent()
        .args(["--key"])
        .arg(&elsewhere)
        .args([
            "--relay",
            &up.url,
            "--owner",
            &owner.to_bech32().unwrap(),
            "--town",
            "/nonexistent",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let c = client(&up.url, None).await;
    let panda = town
        .config()
        .roster()
        .unwrap()
        .by_name("panda")
        .unwrap()
        .pubkey;
    let beats = wait_for(
        &c,
        Filter::new().kind(SoulKind::Heartbeat.kind()).author(panda),
        1,
    )
    .await;
    let _ = agent.kill();
    let _ = agent.wait();
    assert_eq!(beats.len(), 1, "panda, run by soul-agent, is alive");
}
