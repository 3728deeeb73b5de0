//! Live fan-out bench (issue 17): publish into soul's relay while many live subscriptions wait,
//! and measure how many of the deliveries owed arrive and how late.
//!
//! Every subscription matches every published event (kind 1 by the publisher), so a run owes
//! `events × connections × subs` deliveries. After the burst a marker event is published: a
//! connection is done when the marker reached each of its subscriptions or each was CLOSED
//! (soul reports a subscription that fell behind that way); a connection that got neither in
//! `--grace` seconds after the publisher finished is counted with whatever it had (the
//! broadcast relay before issue 17 could drop the marker too, told only by a NOTICE).
//!
//! `cargo bench -p soul-relay --bench fanout -- [--connections C] [--subs S] [--events N]
//!  [--rate R (events/s, 0 = full speed)] [--runs K] [--grace SECS]`
//!
//! The relay runs in a child process of its own (its peak RSS and CPU seconds are its own);
//! latency is from the moment the publisher wrote the EVENT to the moment a subscriber read it,
//! both clocks being this process's. The relay's CPU microseconds per delivery (user + system,
//! from `/proc/<pid>/stat`, over the publishing and draining) hold on a shared machine where
//! latency does not.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use nostr::{ClientMessage, EventBuilder, Filter, JsonUtil, Keys, Kind, SubscriptionId};
use soul_kinds::{Role, Roster, RosterMember};
use soul_relay::{Relay, RelayConfig, RosterView};
use tokio_tungstenite::tungstenite::Message;

struct Args {
    connections: usize,
    subs: usize,
    events: usize,
    rate: u64,
    runs: usize,
    grace: u64,
}

fn args() -> Args {
    let mut a = Args {
        connections: 100,
        subs: 10,
        events: 1_000,
        rate: 200,
        runs: 3,
        grace: 30,
    };
    let argv: Vec<String> = std::env::args().collect();
    for w in argv.windows(2) {
        let v = w[1].parse().ok();
        match (w[0].as_str(), v) {
            ("--connections", Some(v)) => a.connections = v as usize,
            ("--subs", Some(v)) => a.subs = v as usize,
            ("--events", Some(v)) => a.events = v as usize,
            ("--rate", Some(v)) => a.rate = v,
            ("--runs", Some(v)) => a.runs = v as usize,
            ("--grace", Some(v)) => a.grace = v,
            _ => {}
        }
    }
    a
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(url: &str) -> Ws {
    tokio_tungstenite::connect_async_with_config(url, None, true)
        .await
        .unwrap()
        .0
}

/// What one subscribed connection saw.
#[derive(Default)]
struct Seen {
    delivered: usize,
    latencies_us: Vec<u32>,
    closed: usize,
    notices: usize,
}

/// Reads `"content":"t=<ns>"` without parsing the whole message: the bench client must cost far
/// less than the relay it measures.
fn sent_at_ns(frame: &str) -> Option<u64> {
    let (_, tail) = frame.split_once("\"content\":\"t=")?;
    tail.split('"').next()?.parse().ok()
}

async fn subscriber(
    url: String,
    subs: usize,
    author: Filter,
    base: Instant,
    ready: tokio::sync::mpsc::Sender<()>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Seen {
    let mut ws = connect(&url).await;
    for s in 0..subs {
        let req = ClientMessage::req(SubscriptionId::new(format!("s{s}")), vec![author.clone()]);
        ws.send(Message::text(req.as_json())).await.unwrap();
    }
    let mut eose = 0;
    while eose < subs {
        if let Some(Ok(Message::Text(t))) = ws.next().await {
            eose += t.starts_with("[\"EOSE\"") as usize;
        }
    }
    ready.send(()).await.unwrap();
    let mut seen = Seen::default();
    let mut finished = 0;
    let mut stop = stop;
    while finished < subs {
        let frame = tokio::select! {
            f = ws.next() => f,
            _ = stop.wait_for(|s| *s) => break,
        };
        let Some(Ok(Message::Text(t))) = frame else {
            break;
        };
        if t.starts_with("[\"EVENT\"") {
            if t.contains("\"content\":\"end\"") {
                finished += 1;
            } else if let Some(ns) = sent_at_ns(&t) {
                let now = base.elapsed().as_nanos() as u64;
                seen.delivered += 1;
                seen.latencies_us
                    .push((now.saturating_sub(ns) / 1_000).min(u32::MAX as u64) as u32);
            }
        } else if t.starts_with("[\"CLOSED\"") {
            seen.closed += 1;
            finished += 1;
        } else if t.starts_with("[\"NOTICE\"") {
            seen.notices += 1;
        }
    }
    seen
}

/// Publishes `n` events at `rate`/s (0: as fast as OKs allow, 500 in flight) and then the marker.
async fn publish(url: &str, keys: &Keys, n: usize, rate: u64, base: Instant) -> usize {
    let ws = connect(url).await;
    let (mut tx, mut rx) = ws.split();
    let acks = tokio::spawn(async move {
        let mut ok = 0;
        while ok < n + 1 {
            match rx.next().await {
                Some(Ok(Message::Text(t))) if t.starts_with("[\"OK\"") => ok += 1,
                Some(Ok(_)) => {}
                _ => break,
            }
        }
        ok
    });
    let start = tokio::time::Instant::now();
    for i in 0..n {
        if let Some(at) = (i as u64 * 1_000_000).checked_div(rate) {
            tokio::time::sleep_until(start + Duration::from_micros(at)).await;
        }
        let t = base.elapsed().as_nanos() as u64;
        let e = EventBuilder::text_note(format!("t={t}"))
            .sign_with_keys(keys)
            .unwrap();
        tx.send(Message::text(ClientMessage::event(e).as_json()))
            .await
            .unwrap();
    }
    let end = EventBuilder::text_note("end").sign_with_keys(keys).unwrap();
    tx.send(Message::text(ClientMessage::event(end).as_json()))
        .await
        .unwrap();
    acks.await.unwrap()
}

struct Child {
    process: std::process::Child,
    url: String,
}

impl Child {
    fn spawn(dir: &std::path::Path) -> Self {
        use std::io::BufRead;
        let mut process = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--serve")
            .arg(dir)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(process.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Self {
            process,
            url: line.trim().to_string(),
        }
    }

    /// User + system CPU seconds the relay has used so far (`/proc/<pid>/stat` fields 14 and
    /// 15, in clock ticks of 1/100 s on Linux).
    fn cpu_secs(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.process.id())).unwrap();
        let f: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
            .split_whitespace()
            .collect();
        (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
    }

    fn peak_rss_mib(&self) -> f64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.process.id()))
            .ok()
            .and_then(|s| {
                let l = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                l.split_whitespace().nth(1)?.parse::<f64>().ok()
            })
            .map_or(0.0, |kb| kb / 1024.0)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// The child side: soul's relay, rate limits off, default live queue.
async fn serve(dir: &std::path::Path) {
    let owner = Keys::generate();
    let roster = Roster::new(
        "bench",
        owner.public_key(),
        vec![RosterMember {
            pubkey: Keys::generate().public_key(),
            name: "x".into(),
            role: Role::Brain,
        }],
    );
    let mut config = RelayConfig::new(dir);
    config.rate = None;
    let relay = Relay::open(config, RosterView::new(roster)).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    println!("ws://{addr}");
    soul_relay::serve(relay, listener, std::future::pending())
        .await
        .unwrap();
}

fn pct(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize] as f64 / 1_000.0
}

fn spread(xs: &mut [f64]) -> String {
    xs.sort_by(|a, b| a.total_cmp(b));
    format!(
        "{:.1} / {:.1} / {:.1}",
        xs[0],
        xs[xs.len() / 2],
        xs[xs.len() - 1]
    )
}

fn spread2(xs: &mut [f64]) -> String {
    xs.sort_by(|a, b| a.total_cmp(b));
    format!(
        "{:.2} / {:.2} / {:.2}",
        xs[0],
        xs[xs.len() / 2],
        xs[xs.len() - 1]
    )
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if let Some(i) = argv.iter().position(|a| a == "--serve") {
        serve(std::path::Path::new(&argv[i + 1])).await;
        return;
    }
    let a = args();
    let expected = a.events * a.connections * a.subs;
    println!(
        "fanout bench: {} connections x {} subs, {} events at {} /s (0 = full speed), {} runs",
        a.connections, a.subs, a.events, a.rate, a.runs
    );
    let (mut p50s, mut p99s, mut rss, mut cpu) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in 0..a.runs {
        let dir = tempfile::tempdir().unwrap();
        let relay = Child::spawn(dir.path());
        let keys = Keys::generate();
        let author = Filter::new().kind(Kind::TextNote).author(keys.public_key());
        let base = Instant::now();
        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(a.connections);
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let subs: Vec<_> = (0..a.connections)
            .map(|_| {
                tokio::spawn(subscriber(
                    relay.url.clone(),
                    a.subs,
                    author.clone(),
                    base,
                    ready_tx.clone(),
                    stop_rx.clone(),
                ))
            })
            .collect();
        for _ in 0..a.connections {
            ready_rx.recv().await.unwrap();
        }
        let cpu_before = relay.cpu_secs();
        let acked = publish(&relay.url, &keys, a.events, a.rate, base).await;
        // Bench-only grace: a connection that never saw the marker is cut off and counted.
        let grace = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(a.grace)).await;
            let _ = stop_tx.send(true);
        });
        let mut lat = Vec::with_capacity(expected);
        let (mut delivered, mut closed, mut notices) = (0, 0, 0);
        for s in subs {
            let seen = s.await.unwrap();
            delivered += seen.delivered;
            closed += seen.closed;
            notices += seen.notices;
            lat.extend(seen.latencies_us);
        }
        grace.abort();
        let us_per_delivery = (relay.cpu_secs() - cpu_before) * 1e6 / delivered.max(1) as f64;
        lat.sort_unstable();
        let (p50, p99) = (pct(&lat, 0.5), pct(&lat, 0.99));
        let mib = relay.peak_rss_mib();
        println!(
            "run {run}: acked {acked}/{}  delivered {delivered}/{expected} ({:.1} %)  CLOSED {closed}  NOTICE {notices}  latency p50 {p50:.1} ms  p99 {p99:.1} ms  relay peak RSS {mib:.0} MiB  relay CPU {us_per_delivery:.2} us/delivery",
            a.events + 1,
            100.0 * delivered as f64 / expected as f64,
        );
        p50s.push(p50);
        p99s.push(p99);
        rss.push(mib);
        cpu.push(us_per_delivery);
    }
    println!(
        "min / median / max over {} runs: p50 {} ms   p99 {} ms   peak RSS {} MiB   relay CPU {} us/delivery",
        a.runs,
        spread(&mut p50s),
        spread(&mut p99s),
        spread(&mut rss),
        spread2(&mut cpu)
    );
}
