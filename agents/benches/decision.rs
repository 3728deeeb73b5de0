//! Task → decision latency, offline: the bundled relay and the three brains (built-in mind) in
//! one process, the owner publishing tasks one after another; the time from the relay's OK for
//! the task to the decision event arriving.
//!
//! `cargo bench -p soul-agents --bench decision -- [--tasks N]`

use std::sync::Arc;
use std::time::{Duration, Instant};

use nostr::{Filter, Keys, Timestamp};
use nostr_sdk::RelayPoolNotification;
use soul_host::{self as host, HostOptions};
use soul_kinds::content::task;
use soul_kinds::{tags, Priority, Role, Roster, RosterMember, SoulKind, Task};
use soul_link::clock::Clock;
use soul_link::Identity;
use soul_link::Link;
use soul_mind::brain::Lexicon;
use soul_relay::{Relay, RelayConfig, RosterView};

const TITLES: &[&str] = &[
    "Back up the family photos to the external disk every night",
    "Wire all our savings to an unknown account today",
    "Try the new experimental database in production this week to speed things up",
    "Learn a new language together on weekends",
    "毎晩、家族の写真を外付けディスクにバックアップする",
    "Delete the old backups to free some space",
];

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let tasks: usize = argv
        .iter()
        .position(|a| a == "--tasks")
        .and_then(|i| argv.get(i + 1)?.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let owner = Keys::generate();
    let brains: Vec<Identity> = ["panda", "gorilla", "triceratops"]
        .iter()
        .map(|n| Identity {
            name: n.to_string(),
            role: Role::Brain,
            keys: Keys::generate(),
        })
        .collect();
    let roster = Roster::new(
        "bench",
        owner.public_key(),
        brains
            .iter()
            .map(|b| RosterMember {
                pubkey: b.keys.public_key(),
                name: b.name.clone(),
                role: Role::Brain,
            })
            .collect(),
    );
    let relay = Relay::open(
        RelayConfig::new(dir.path().join("relay")),
        RosterView::new(roster.clone()),
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(soul_relay::serve(relay, listener, std::future::pending()));
    let options = HostOptions {
        roster,
        lexicon: Arc::new(Lexicon::builtin()),
        restart_allowlist: Arc::new(Vec::new()),
        evaluation: None,
        town_dir: dir.path().to_path_buf(),
        relay_url: url.clone(),
        clock: Clock::default(),
        heartbeat_every: Duration::from_secs(30),
        minds: soul_host::minds::Minds::load(dir.path(), None).unwrap(),
    };
    tokio::spawn(host::run(brains, options, std::future::pending()));

    let link = Link::connect(&url).await.unwrap();
    let mut notes = link.client().notifications();
    link.client()
        .subscribe(
            Filter::new()
                .kind(SoulKind::Decision.kind())
                .since(Timestamp::now()),
            None,
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut latencies = Vec::with_capacity(tasks);
    for i in 0..tasks {
        let t = Task {
            title: format!("{} #{i}", TITLES[i % TITLES.len()]),
            description: String::new(),
            priority: Priority::Medium,
            task_type: "task".into(),
        };
        let start = Instant::now();
        let event = link.publish(&owner, task(&t, None)).await.unwrap();
        loop {
            match tokio::time::timeout(Duration::from_secs(30), notes.recv()).await {
                Ok(Ok(RelayPoolNotification::Event { event: d, .. }))
                    if tags::task_ref(&d) == Some(event.id) =>
                {
                    break
                }
                Ok(_) => continue,
                Err(_) => panic!("no decision for task {i} within 30 s"),
            }
        }
        if std::env::var_os("SOUL_BENCH_VERBOSE").is_some()
            && start.elapsed() > Duration::from_millis(300)
        {
            eprintln!(
                "slow: task {i} ({}) took {:?}",
                TITLES[i % TITLES.len()],
                start.elapsed()
            );
        }
        latencies.push(start.elapsed());
    }
    latencies.sort();
    let pct =
        |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    println!(
        "task -> decision over {tasks} tasks (relay + 3 brains, built-in mind, one process): p50 {:.1} ms  p99 {:.1} ms  max {:.1} ms",
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
}
