//! Relay benchmark: ingest throughput, the relay's CPU seconds per 50k events, REQ→EOSE latency,
//! queries per second and peak RSS of soul's relay (whole policy chain, rate limits off as with
//! `soul relay --unlimited`), optionally beside a bare nostr-relay-builder relay of the same
//! release (`--bare`), both on LMDB, both on 127.0.0.1, each in a child process of its own.
//!
//! `cargo bench -p soul-relay --bench relay -- [--events N] [--connections C] [--window W]
//!  [--store N] [--reqs R] [--query-conns Q] [--runs K] [--bare]`
//!
//! CPU seconds (user + system, from `/proc/<pid>/stat`) are the relay process's own, so they hold
//! on a machine shared with other work where events/s does not.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use nostr::{
    ClientMessage, Event, EventBuilder, Filter, JsonUtil, Keys, Kind, RelayMessage, SubscriptionId,
};
use nostr_lmdb::NostrLMDB;
use nostr_relay_builder::builder::RateLimit;
use nostr_relay_builder::{LocalRelay, RelayBuilder};
use soul_kinds::{Role, Roster, RosterMember};
use soul_relay::{Relay, RelayConfig, RosterView};
use tokio_tungstenite::tungstenite::Message;

struct Args {
    events: usize,
    connections: usize,
    window: usize,
    store: usize,
    reqs: usize,
    query_conns: usize,
    runs: usize,
    bare: bool,
}

fn args() -> Args {
    let mut a = Args {
        events: 20_000,
        connections: 4,
        window: 500,
        store: 100_000,
        reqs: 2_000,
        query_conns: 8,
        runs: 3,
        bare: false,
    };
    let argv: Vec<String> = std::env::args().collect();
    let mut i = 1;
    while i < argv.len() {
        let v = argv.get(i + 1).and_then(|s| s.parse().ok());
        match (argv[i].as_str(), v) {
            ("--events", Some(v)) => a.events = v,
            ("--connections", Some(v)) => a.connections = v,
            ("--window", Some(v)) => a.window = v,
            ("--store", Some(v)) => a.store = v,
            ("--reqs", Some(v)) => a.reqs = v,
            ("--query-conns", Some(v)) => a.query_conns = v,
            ("--runs", Some(v)) => a.runs = v,
            ("--bare", _) => a.bare = true,
            _ => {}
        }
        i += 1;
    }
    a
}

#[derive(Clone, Copy, Debug)]
enum Which {
    Soul,
    Bare,
}

/// Runs a relay in this process (the child side of [`spawn`]) and prints its URL.
async fn start(which: Which, dir: &std::path::Path) -> (String, Box<dyn std::any::Any + Send>) {
    match which {
        Which::Soul => {
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
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            tokio::spawn(soul_relay::serve(relay, listener, async move {
                let _ = rx.await;
            }));
            (format!("ws://{addr}"), Box::new(tx))
        }
        Which::Bare => {
            let db = NostrLMDB::open(dir).unwrap();
            let builder = RelayBuilder::default().database(db).rate_limit(RateLimit {
                max_reqs: 500,
                notes_per_minute: u32::MAX,
            });
            let relay = LocalRelay::new(builder);
            relay.run().await.unwrap();
            (relay.url().await.to_string(), Box::new(relay))
        }
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Nagle off on the client too, or every small REQ waits for the relay's delayed ACK (~40 ms).
async fn connect(url: &str) -> Ws {
    tokio_tungstenite::connect_async_with_config(url, None, true)
        .await
        .unwrap()
        .0
}

/// Sends `events` with at most `window` unanswered; returns how many got `OK true`.
async fn ingest_one(
    url: String,
    events: Arc<Vec<String>>,
    range: std::ops::Range<usize>,
    window: usize,
) -> usize {
    let ws = connect(&url).await;
    let (mut tx, mut rx) = ws.split();
    let total = range.len();
    let (credit_tx, mut credit_rx) = tokio::sync::mpsc::channel::<()>(window);
    for _ in 0..window {
        credit_tx.send(()).await.unwrap();
    }
    let sender = tokio::spawn(async move {
        for i in range {
            if credit_rx.recv().await.is_none() {
                break;
            }
            tx.send(Message::text(events[i].clone())).await.unwrap();
        }
        tx
    });
    let mut answered = 0;
    let mut ok = 0;
    while answered < total {
        let Some(Ok(Message::Text(t))) = rx.next().await else {
            break;
        };
        if let Ok(RelayMessage::Ok { status, .. }) = RelayMessage::from_json(t.as_bytes()) {
            answered += 1;
            ok += status as usize;
            let _ = credit_tx.try_send(());
        }
    }
    let _ = sender.await;
    ok
}

async fn ingest(
    url: &str,
    events: Arc<Vec<String>>,
    connections: usize,
    window: usize,
) -> (f64, usize) {
    let per = events.len() / connections;
    let start = Instant::now();
    let tasks: Vec<_> = (0..connections)
        .map(|c| {
            tokio::spawn(ingest_one(
                url.to_string(),
                events.clone(),
                c * per..(c + 1) * per,
                window,
            ))
        })
        .collect();
    let mut ok = 0;
    for t in tasks {
        ok += t.await.unwrap();
    }
    (ok as f64 / start.elapsed().as_secs_f64(), ok)
}

/// REQ→EOSE latency of `reqs` sequential REQs (limit 100, by author) on one connection.
async fn req_latency(url: &str, authors: &[Keys], reqs: usize) -> Vec<Duration> {
    let mut ws = connect(url).await;
    let mut out = Vec::with_capacity(reqs);
    for i in 0..reqs {
        let id = SubscriptionId::new(format!("q{i}"));
        let filter = Filter::new()
            .kind(Kind::TextNote)
            .author(authors[i % authors.len()].public_key())
            .limit(100);
        let msg = ClientMessage::req(id.clone(), vec![filter]).as_json();
        let start = Instant::now();
        ws.send(Message::text(msg)).await.unwrap();
        loop {
            let Some(Ok(Message::Text(t))) = ws.next().await else {
                panic!("connection lost")
            };
            if t.starts_with("[\"EOSE\"") {
                break;
            }
        }
        out.push(start.elapsed());
        ws.send(Message::text(ClientMessage::close(id).as_json()))
            .await
            .unwrap();
    }
    out
}

/// Queries per second with `conns` connections each sending the next REQ as soon as the last
/// one's EOSE arrived, `reqs` in all.
async fn query_rate(url: &str, authors: &[Keys], reqs: usize, conns: usize) -> f64 {
    let per = reqs / conns;
    let start = Instant::now();
    let tasks: Vec<_> = (0..conns)
        .map(|c| {
            let url = url.to_string();
            let authors: Vec<Keys> = authors.iter().skip(c).step_by(conns).cloned().collect();
            tokio::spawn(async move { req_latency(&url, &authors, per).await.len() })
        })
        .collect();
    let mut done = 0;
    for t in tasks {
        done += t.await.unwrap();
    }
    done as f64 / start.elapsed().as_secs_f64()
}

fn sign_events(n: usize, authors: &[Keys], tag: &str) -> Vec<Event> {
    (0..n)
        .map(|i| {
            EventBuilder::text_note(format!("{tag} bench note {i}"))
                .sign_with_keys(&authors[i % authors.len()])
                .unwrap()
        })
        .collect()
}

fn as_frames(events: &[Event]) -> Arc<Vec<String>> {
    Arc::new(
        events
            .iter()
            .map(|e| ClientMessage::event(e.clone()).as_json())
            .collect(),
    )
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// `min / median / max` with `decimals` places.
fn summary(xs: &mut [f64], decimals: usize) -> String {
    xs.sort_by(|a, b| a.total_cmp(b));
    let d = decimals;
    format!(
        "min {:.d$} / median {:.d$} / max {:.d$}",
        xs[0],
        xs[xs.len() / 2],
        xs[xs.len() - 1]
    )
}

/// A relay in a child process of its own, so its peak RSS is its own and the client's CPU work
/// is not in its runtime.
struct Child {
    process: std::process::Child,
    url: String,
}

impl Child {
    fn spawn(which: Which, dir: &std::path::Path) -> Self {
        use std::io::BufRead;
        let mut process = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--serve", &format!("{which:?}")])
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

    /// Peak resident set size in MiB (VmHWM).
    fn peak_rss_mib(&self) -> f64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.process.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .map(str::to_string)
            })
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    }
}

impl Child {
    /// Resident memory now, in MiB: anonymous (heap, buffers) and file-backed (the LMDB map).
    fn rss_split_mib(&self) -> (f64, f64) {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.process.id())).unwrap();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
                .map_or(0.0, |kb| kb / 1024.0)
        };
        (field("RssAnon:"), field("RssFile:"))
    }

    /// User + system CPU seconds the relay process has used so far.
    fn cpu_secs(&self) -> f64 {
        stat_cpu_secs(&format!("/proc/{}/stat", self.process.id())).unwrap()
    }

    /// CPU seconds so far of the relay's threads that are not tokio workers: nostr-lmdb's
    /// writer thread (the main thread only waits). The workers' share is the rest: WebSocket,
    /// JSON, the policy chain with its signature checks, queries, OKs.
    fn writer_cpu_secs(&self) -> f64 {
        let dir = format!("/proc/{}/task", self.process.id());
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|t| {
                let path = t.ok()?.path();
                let comm = std::fs::read_to_string(path.join("comm")).ok()?;
                (!comm.starts_with("tokio")).then(|| stat_cpu_secs(path.join("stat").to_str()?))?
            })
            .sum()
    }
}

/// User + system CPU seconds from a `/proc/…/stat` file (a process's or one thread's).
fn stat_cpu_secs(path: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(path).ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / clock_ticks_per_sec())
}

/// This bench process's own CPU seconds so far (the load generator's side).
fn own_cpu_secs() -> f64 {
    stat_cpu_secs("/proc/self/stat").unwrap()
}

/// `getconf CLK_TCK`; 100 on every Linux this runs on, asked rather than assumed.
fn clock_ticks_per_sec() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
        .unwrap_or(100.0)
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if let Some(i) = argv.iter().position(|a| a == "--serve") {
        let which = if argv[i + 1] == "Soul" {
            Which::Soul
        } else {
            Which::Bare
        };
        let (url, _guard) = start(which, std::path::Path::new(&argv[i + 2])).await;
        println!("{url}");
        std::future::pending::<()>().await;
    }
    let a = args();
    let authors: Vec<Keys> = (0..50).map(|_| Keys::generate()).collect();
    let relays: &[Which] = if a.bare {
        &[Which::Bare, Which::Soul]
    } else {
        &[Which::Soul]
    };
    let mut results = Vec::new();
    for &which in relays {
        let (mut rates, mut cpu, mut split) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..a.runs {
            let events = sign_events(a.events, &authors, &format!("{which:?}-{run}"));
            let dir = tempfile::tempdir().unwrap();
            let relay = Child::spawn(which, dir.path());
            let frames = as_frames(&events);
            let (cpu_before, writer_before) = (relay.cpu_secs(), relay.writer_cpu_secs());
            let client_before = own_cpu_secs();
            let (rate, ok) = ingest(&relay.url, frames, a.connections, a.window).await;
            let cpu_per_50k = (relay.cpu_secs() - cpu_before) * 50_000.0 / ok as f64;
            let us = |secs: f64| secs * 1e6 / ok as f64;
            let writer_us = us(relay.writer_cpu_secs() - writer_before);
            let client_us = us(own_cpu_secs() - client_before);
            assert_eq!(
                ok,
                a.events - a.events % a.connections,
                "{which:?}: every event acknowledged"
            );
            let relay_us = cpu_per_50k * 20.0;
            eprintln!(
                "{which:?} run {run}: {rate:.0} events/s, relay CPU {cpu_per_50k:.2} s per 50k events \
                 ({relay_us:.1} µs/event: workers {:.1}, store writer {writer_us:.1}; \
                 this client {client_us:.1} µs/event)",
                relay_us - writer_us
            );
            rates.push(rate);
            cpu.push(cpu_per_50k);
            split.push((relay_us - writer_us, writer_us, client_us));
        }
        // Query latency and rate on a store of `a.store` events.
        let dir = tempfile::tempdir().unwrap();
        let relay = Child::spawn(which, dir.path());
        let store = sign_events(a.store, &authors, &format!("{which:?}-store"));
        ingest(&relay.url, as_frames(&store), a.connections, a.window).await;
        let mut lat = req_latency(&relay.url, &authors, a.reqs).await;
        lat.sort();
        let (mut qps, mut qcpu, mut qclient) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..a.runs {
            let (cpu_before, client_before) = (relay.cpu_secs(), own_cpu_secs());
            let rate = query_rate(&relay.url, &authors, a.reqs, a.query_conns).await;
            qcpu.push((relay.cpu_secs() - cpu_before) * 1e6 / a.reqs as f64);
            qclient.push((own_cpu_secs() - client_before) * 1e6 / a.reqs as f64);
            qps.push(rate);
        }
        let rss = relay.peak_rss_mib();
        let (anon, file) = relay.rss_split_mib();
        eprintln!("{which:?} store relay at the end: {anon:.0} MiB anonymous, {file:.0} MiB file-backed (LMDB map)");
        results.push(Row {
            which,
            rates,
            cpu,
            p50: percentile(&lat, 0.5),
            p99: percentile(&lat, 0.99),
            qps,
            qcpu,
            rss,
            workers_us: split.iter().map(|s| s.0).collect(),
            writer_us: split.iter().map(|s| s.1).collect(),
            client_us: split.iter().map(|s| s.2).collect(),
            qclient,
        });
    }
    println!(
        "relay bench: {} events x {} runs, {} connections, window {}; REQ (kind 1, one author, limit 100) on a {}-event store: {} one at a time, then {} over {} connections x {} runs",
        a.events, a.runs, a.connections, a.window, a.store, a.reqs, a.reqs, a.query_conns, a.runs
    );
    for r in &mut results {
        println!("{:?}:", r.which);
        println!("  ingest events/s          {}", summary(&mut r.rates, 0));
        println!("  relay CPU s / 50k events {}", summary(&mut r.cpu, 2));
        println!(
            "    workers µs / event     {}",
            summary(&mut r.workers_us, 1)
        );
        println!(
            "    writer µs / event      {}",
            summary(&mut r.writer_us, 1)
        );
        println!(
            "  client CPU µs / event    {}",
            summary(&mut r.client_us, 1)
        );
        println!(
            "  REQ->EOSE one at a time  p50 {:.2} ms  p99 {:.2} ms",
            r.p50.as_secs_f64() * 1e3,
            r.p99.as_secs_f64() * 1e3
        );
        println!("  queries/s                {}", summary(&mut r.qps, 0));
        println!("  relay CPU us / query     {}", summary(&mut r.qcpu, 0));
        println!("  client CPU us / query    {}", summary(&mut r.qclient, 0));
        println!("  relay peak RSS           {:.0} MiB", r.rss);
    }
    if results.len() == 2 {
        let med = |r: &Vec<f64>| r[r.len() / 2];
        println!(
            "soul/bare ingest (median): {:.2}x",
            med(&results[1].rates) / med(&results[0].rates)
        );
    }
}

struct Row {
    which: Which,
    rates: Vec<f64>,
    cpu: Vec<f64>,
    p50: Duration,
    p99: Duration,
    qps: Vec<f64>,
    qcpu: Vec<f64>,
    rss: f64,
    workers_us: Vec<f64>,
    writer_us: Vec<f64>,
    client_us: Vec<f64>,
    qclient: Vec<f64>,
}
