//! The town at scale: N residents (default 1,000) in one `soul up`, against `soul relay` in its
//! own process so that each process's memory is its own.
//!
//! Measures, from a plain client of the relay:
//! - one full town tick: from `soul up` saying it is up until every resident has been through
//!   one whole cycle (draft written → reviewed → approved draft posted as a note), with the
//!   wall time at which all drafts, all reviews and all first posts were on the relay;
//! - resident set size of the `soul up` process (VmRSS now, VmHWM peak) and of the relay.
//!
//! `cargo bench -p soul-agents --bench town -- [--residents N] [--speed S] [--hosts H]`
//!
//! With `--hosts H` the agents are split over H `soul up --relay` processes on the one relay,
//! each with its own town directory holding only its agents' keys.
//!
//! Heartbeats are set to one per town day so that the figures are the town's, not presence's.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nostr::nips::nip19::ToBech32;
use nostr_sdk::prelude::*;
use soul_keys::{keyfile, RosterEntry, TownConfig};
use soul_kinds::{tags, Role, SoulKind};

fn arg(name: &str, default: f64) -> f64 {
    let argv: Vec<String> = std::env::args().collect();
    argv.iter()
        .position(|a| a == name)
        .and_then(|i| argv.get(i + 1)?.parse().ok())
        .unwrap_or(default)
}

/// Spawns `cmd` and waits for a stdout line containing `marker`; returns the child and the
/// first ws:// word of that line.
fn start(mut cmd: Command, marker: &str) -> (Child, String) {
    // SOUL_BENCH_LOG=FILE keeps the processes' logs for a look afterwards.
    let log = match std::env::var_os("SOUL_BENCH_LOG") {
        Some(p) => Stdio::from(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .expect("log file"),
        ),
        None => Stdio::null(),
    };
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("spawn");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let marker = marker.to_string();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if line.contains(&marker) {
                let url = line
                    .split_whitespace()
                    .find(|w| w.starts_with("ws://"))
                    .map(|w| w.trim_end_matches([',', '.']).to_string())
                    .unwrap_or_default();
                let _ = tx.send(url);
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(300))
        .expect("process came up");
    (child, url)
}

/// (VmRSS, VmHWM) of `pid` in MiB.
fn rss(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Makes a town with `n` residents: the template's eight, plus copies of their profiles under
/// new names with new keys.
fn make_town(soul: &Path, dir: &Path, n: usize) -> Vec<PublicKey> {
    let ok = Command::new(soul)
        .arg("init")
        .arg(dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(ok.success(), "soul init");
    let mut config = TownConfig::load(dir).unwrap();
    let templates: Vec<String> = config
        .roster
        .iter()
        .filter(|r| r.role == Role::Resident)
        .map(|r| r.name.clone())
        .collect();
    let have = templates.len();
    for i in 0..n.saturating_sub(have) {
        let from = &templates[i % have];
        let name = format!("{from}{i:04}");
        let text =
            std::fs::read_to_string(dir.join("residents").join(format!("{from}.yaml"))).unwrap();
        let text = text.replacen(&format!("name: {from}"), &format!("name: {name}"), 1);
        std::fs::write(dir.join("residents").join(format!("{name}.yaml")), text).unwrap();
        let keys = keyfile::generate();
        keyfile::write_nsec(&dir.join("keys").join(format!("{name}.nsec")), &keys).unwrap();
        config.roster.push(RosterEntry {
            name,
            role: Role::Resident,
            pubkey: keys.public_key().to_bech32().unwrap(),
        });
    }
    config.relay.listen = "127.0.0.1:0".parse().unwrap();
    config.dashboard.listen = "127.0.0.1:0".parse().unwrap();
    config.schedule.heartbeat_secs = 86_400;
    config.save(dir).unwrap();
    let roster = config.roster().unwrap();
    roster
        .members()
        .iter()
        .filter(|m| m.role == Role::Resident)
        .map(|m| m.pubkey)
        .collect()
}

/// The town directories of `hosts` `soul up --relay` processes: with one host the town itself;
/// with more, copies of it that differ only in which keys they hold (the first host runs the
/// owner, the brains, reviewer, reporter and workers; the residents are dealt round). A host
/// runs the agents whose keys it has, as on separate machines.
fn split_hosts(town: &Path, hosts: usize) -> Vec<std::path::PathBuf> {
    if hosts == 1 {
        return vec![town.to_path_buf()];
    }
    let config = TownConfig::load(town).unwrap();
    let parent = town.parent().unwrap();
    (0..hosts)
        .map(|h| {
            let dir = parent.join(format!("host{h}"));
            let ok = Command::new("cp")
                .arg("-a")
                .arg(town)
                .arg(&dir)
                .status()
                .unwrap();
            assert!(ok.success(), "copy of the town for host {h}");
            let mut resident = 0;
            for entry in &config.roster {
                let keep = if entry.role == Role::Resident {
                    resident += 1;
                    (resident - 1) % hosts == h
                } else {
                    h == 0
                };
                if !keep {
                    std::fs::remove_file(dir.join("keys").join(format!("{}.nsec", entry.name)))
                        .unwrap();
                }
            }
            if h != 0 {
                std::fs::remove_file(dir.join("keys").join("owner.nsec")).unwrap();
            }
            dir
        })
        .collect()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let n = arg("--residents", 1000.0) as usize;
    let speed = arg("--speed", 600.0);
    let hosts = (arg("--hosts", 1.0) as usize).max(1);
    let soul = Path::new(env!("CARGO_BIN_EXE_soul"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("town");
    let residents = make_town(soul, &dir, n);
    println!(
        "town with {} residents at --speed {speed} in {hosts} soul up process(es)",
        residents.len()
    );

    let mut relay_cmd = Command::new(soul);
    relay_cmd.args(["relay", "--unlimited", "--town"]).arg(&dir);
    let (mut relay, url) = start(relay_cmd, "relay of town");
    // Count from a live subscription opened before `soul up` starts (polling big fetches
    // would load the relay the town shares).
    let client = Client::default();
    client.add_relay(&url).await.unwrap();
    client.connect().await;
    let mut notifications = client.notifications();
    // Every event, so that the tick's traffic can be told by kind.
    client
        .subscribe(Filter::new().since(Timestamp::now()), None)
        .await
        .unwrap();
    let mut traffic: std::collections::BTreeMap<u16, usize> = Default::default();
    // Draft versions reviewed, and reviews of a version already reviewed (which must not be).
    let mut reviewed_versions: std::collections::HashSet<EventId> = Default::default();
    let mut reviewed_twice = 0usize;
    let host_dirs = split_hosts(&dir, hosts);
    let t0 = Instant::now();
    let mut ups: Vec<Child> = Vec::new();
    for host_dir in &host_dirs {
        let mut up_cmd = Command::new(soul);
        up_cmd
            .args([
                "up",
                "--relay",
                &url,
                "--speed",
                &speed.to_string(),
                "--town",
            ])
            .arg(host_dir)
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()),
            );
        ups.push(start(up_cmd, "is up: relay ").0);
    }
    let ready = t0.elapsed();

    let mut marks: [Option<Duration>; 3] = [None; 3];
    let names = [
        "all drafts written",
        "all drafts reviewed",
        "all residents posted",
    ];
    let wanted: std::collections::HashSet<PublicKey> = residents.iter().copied().collect();
    // Distinct residents per kind: drafts by author, reviews by the resident they name (`p`),
    // notes by author.
    let mut seen: [std::collections::HashSet<PublicKey>; 3] = Default::default();
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut peaks = vec![0.0f64; ups.len()];
    let mut sampled = Instant::now();
    while marks.iter().any(Option::is_none) && Instant::now() < deadline {
        let Ok(Ok(RelayPoolNotification::Event { event, .. })) =
            tokio::time::timeout(Duration::from_secs(1), notifications.recv()).await
        else {
            continue;
        };
        *traffic.entry(event.kind.as_u16()).or_default() += 1;
        if event.kind == SoulKind::Review.kind() {
            for r in tags::e_refs(&event) {
                if !reviewed_versions.insert(r.id) {
                    reviewed_twice += 1;
                }
            }
        }
        let (i, who): (usize, Vec<PublicKey>) = match SoulKind::from_kind(event.kind) {
            Some(SoulKind::Draft) => (0, vec![event.pubkey]),
            Some(SoulKind::Review) => (1, event.tags.public_keys().copied().collect()),
            _ if event.kind != Kind::TextNote => continue,
            // A post from an approved draft is a note with no `e` tag; replies (which the
            // guardian judges without a review) do not finish a resident's cycle.
            _ if tags::e_refs(&event).next().is_none() => (2, vec![event.pubkey]),
            _ => continue,
        };
        seen[i].extend(who.into_iter().filter(|p| wanted.contains(p)));
        if marks[i].is_none() && seen[i].len() >= wanted.len() {
            marks[i] = Some(t0.elapsed());
            println!("{:>22}: {:>7.2} s", names[i], t0.elapsed().as_secs_f64());
        }
        if sampled.elapsed() > Duration::from_millis(250) {
            for (peak, up) in peaks.iter_mut().zip(&ups) {
                *peak = peak.max(rss(up.id()).0);
            }
            sampled = Instant::now();
        }
    }
    let total: usize = traffic.values().sum();
    let by_kind: Vec<String> = traffic.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    println!(
        "events during the tick: {total} (by kind {})",
        by_kind.join(", ")
    );
    println!(
        "draft versions reviewed: {}, reviewed more than once: {reviewed_twice}",
        reviewed_versions.len()
    );
    let (relay_now, relay_hwm) = rss(relay.id());
    println!("{:>22}: {:>7.2} s", "soul up ready", ready.as_secs_f64());
    match marks[2] {
        Some(t) => println!(
            "one full town tick ({n} residents): {:.2} s",
            t.as_secs_f64()
        ),
        None => println!("one full town tick did not finish within 600 s: {marks:?}"),
    }
    for (i, (up, peak)) in ups.iter().zip(&peaks).enumerate() {
        let (now, hwm) = rss(up.id());
        println!(
            "soul up {i} RSS: {now:.1} MiB now, {hwm:.1} MiB peak (sampled max {peak:.1} MiB)"
        );
    }
    println!("soul relay RSS: {relay_now:.1} MiB now, {relay_hwm:.1} MiB peak");
    for mut up in ups {
        let _ = up.kill();
        let _ = up.wait();
    }
    let _ = relay.kill();
    let _ = relay.wait();
}
