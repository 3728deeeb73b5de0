//! Test harness: a fresh town per test, `soul` processes that are killed on drop, and clients.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_keys::{keyfile, Fixed, TownConfig};
use tempfile::TempDir;

/// How long a test waits for a process or an event before failing.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The `soul` binary under test.
pub fn soul() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_soul"));
    cmd.env("RUST_LOG", "info,nostr_relay_pool=warn,nostr_sdk=warn")
        .env_remove("SOUL_TOWN");
    cmd
}

/// The `soul-agent` binary under test.
pub fn soul_agent() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_soul-agent"));
    cmd.env("RUST_LOG", "info,nostr_relay_pool=warn,nostr_sdk=warn")
        .env_remove("SOUL_TOWN");
    cmd
}

/// A town in a temporary directory whose relay listens on 127.0.0.1, port chosen by the OS.
pub struct TestTown {
    _tmp: TempDir,
    pub dir: PathBuf,
}

impl TestTown {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("town");
        let out = soul()
            .arg("init")
            .arg(&dir)
            .output()
            .expect("run soul init");
        assert!(
            out.status.success(),
            "soul init failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut config = TownConfig::load(&dir).expect("town.toml");
        config.relay.listen = "127.0.0.1:0".parse().unwrap();
        config.dashboard.listen = "127.0.0.1:0".parse().unwrap();
        config.schedule.heartbeat_secs = 2;
        config.save(&dir).expect("save town.toml");
        Self { _tmp: tmp, dir }
    }

    pub fn config(&self) -> TownConfig {
        TownConfig::load(&self.dir).expect("town.toml")
    }

    pub fn keys(&self, name: &str) -> Keys {
        let path = keyfile::find_key(&self.dir.join("keys"), name).expect("key file");
        keyfile::load(&path, &Fixed(String::new())).expect("load key")
    }

    pub fn key_path(&self, name: &str) -> PathBuf {
        keyfile::find_key(&self.dir.join("keys"), name).expect("key file")
    }

    /// Starts `soul up` and waits for its "is up" line.
    pub fn up(&self, extra: &[&str]) -> Running {
        let mut cmd = soul();
        cmd.arg("up").arg("--town").arg(&self.dir).args(extra);
        Running::start(cmd, "is up: relay ")
    }

    /// Starts `soul relay` alone.
    pub fn relay(&self, extra: &[&str]) -> Running {
        let mut cmd = soul();
        cmd.arg("relay").arg("--town").arg(&self.dir).args(extra);
        Running::start(cmd, "relay of town")
    }
}

/// A running `soul` process, killed (SIGKILL) when dropped.
pub struct Running {
    pub child: Child,
    pub url: String,
    /// The dashboard's http:// URL when the marker line names one.
    pub dashboard: Option<String>,
    pub stderr: mpsc::Receiver<String>,
}

impl Running {
    /// Spawns `cmd` and reads stdout until a line containing `marker` and a ws:// URL.
    pub fn start(mut cmd: Command, marker: &str) -> Self {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn soul");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (err_tx, err_rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = err_tx.send(line);
            }
        });
        let (tx, rx) = mpsc::channel();
        let marker = marker.to_string();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if !sent && line.contains(&marker) {
                    let word = |prefix: &str| {
                        line.split_whitespace()
                            .find(|w| w.starts_with(prefix))
                            .map(|w| w.trim_end_matches([',', '.']).to_string())
                    };
                    if let Some(url) = word("ws://") {
                        let _ = tx.send((url, word("http://")));
                        sent = true;
                    }
                }
            }
        });
        match rx.recv_timeout(PATIENCE) {
            Ok((url, dashboard)) => Self {
                child,
                url,
                dashboard,
                stderr: err_rx,
            },
            Err(_) => {
                let _ = child.kill();
                let log: Vec<String> = err_rx.try_iter().collect();
                panic!("soul did not come up; its log:\n{}", log.join("\n"));
            }
        }
    }

    /// SIGKILL, no goodbye.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM and wait for a clean exit.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let (tx, rx) = mpsc::channel();
        let mut child = std::mem::replace(&mut self.child, Command::new("true").spawn().unwrap());
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        rx.recv_timeout(PATIENCE)
            .expect("soul did not stop on SIGTERM")
            .expect("wait")
    }
}

/// `soul watch` on a relay, its stdout read line by line; killed on drop.
pub struct Watch {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Watch {
    pub fn start(town: &TestTown, url: &str) -> Self {
        let mut child = soul()
            .args(["watch", "--relay", url, "--town"])
            .arg(&town.dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("soul watch");
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Self { child, lines }
    }

    /// Reads lines until each needle has appeared in one (or PATIENCE runs out); returns the
    /// needles never seen.
    pub fn until<'a>(&self, needles: &[&'a str]) -> Vec<&'a str> {
        let mut want: Vec<&str> = needles.to_vec();
        let deadline = std::time::Instant::now() + PATIENCE;
        while !want.is_empty() && std::time::Instant::now() < deadline {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_secs(1)) {
                want.retain(|w| !line.contains(w));
            }
        }
        want
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A failing test shows what the town said: its warnings and errors, and its last lines
        // (those a wait_log did not already read).
        if std::thread::panicking() {
            let log: Vec<String> = self.stderr.try_iter().collect();
            let notable: Vec<&String> = log
                .iter()
                .filter(|l| l.contains("WARN") || l.contains("ERROR"))
                .collect();
            let tail = &log[log.len().saturating_sub(40)..];
            eprintln!(
                "--- soul's warnings and errors ({}):\n{}\n--- soul's last lines:\n{}",
                notable.len(),
                notable
                    .iter()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                tail.join("\n")
            );
        }
    }
}

/// A nostr-sdk client on `url`, signing with `keys` if given (and then answering NIP-42).
pub async fn client(url: &str, keys: Option<&Keys>) -> Client {
    let client = match keys {
        Some(k) => Client::new(k.clone()),
        None => Client::default(),
    };
    client.add_relay(url).await.unwrap();
    client
        .try_connect_relay(url, Duration::from_secs(10))
        .await
        .expect("connect to relay");
    client
}

/// Sends `event` and returns the relay's answer: `Ok(())` for `OK true`, `Err(message)` otherwise.
pub async fn send(client: &Client, event: &Event) -> Result<(), String> {
    let out = client.send_event(event).await.map_err(|e| e.to_string())?;
    if out.success.is_empty() {
        Err(out.failed.into_values().next().unwrap_or_default())
    } else {
        Ok(())
    }
}

/// Fetches events until `want` of them match or PATIENCE runs out (the relay is live; events
/// from agents arrive over time).
pub async fn wait_for(client: &Client, filter: Filter, want: usize) -> Events {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let events = client
            .fetch_events(filter.clone(), Duration::from_secs(5))
            .await
            .unwrap();
        if events.len() >= want || tokio::time::Instant::now() > deadline {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Follows `filter` on `client`'s relay (its stored events, then live ones as they arrive) until
/// `settled` finds what the test waits for among every event seen so far; `None` when `patience`
/// runs out first. No polling: each new event is what wakes it.
pub async fn wait_settled<T>(
    client: &Client,
    filter: Filter,
    patience: Duration,
    mut settled: impl FnMut(&[Event]) -> Option<T>,
) -> Option<T> {
    let deadline = tokio::time::Instant::now() + patience;
    let mut notes = client.notifications();
    let sub = client.subscribe(filter.clone(), None).await.unwrap().val;
    let mut seen: Vec<Event> = Vec::new();
    let found = loop {
        if let Some(t) = settled(&seen) {
            break Some(t);
        }
        match tokio::time::timeout_at(deadline, notes.recv()).await {
            Err(_) => break None,
            Ok(Ok(RelayPoolNotification::Event {
                subscription_id,
                event,
                ..
            })) if subscription_id == sub => {
                if !seen.iter().any(|e| e.id == event.id) {
                    seen.push(*event);
                }
            }
            // Notifications were dropped: read what is stored instead (it holds them).
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {
                let stored = client
                    .fetch_events(filter.clone(), Duration::from_secs(5))
                    .await
                    .unwrap();
                for e in stored {
                    if !seen.iter().any(|s| s.id == e.id) {
                        seen.push(e);
                    }
                }
            }
            Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => break None,
            Ok(Ok(_)) => {}
        }
    };
    client.unsubscribe(&sub).await;
    found
}

pub fn town_path(t: &TestTown) -> &Path {
    &t.dir
}

/// `soul status --json` against `url`, parsed; panics with its stderr if it fails.
pub fn status_json(town: &TestTown, url: &str) -> serde_json::Value {
    let out = soul()
        .args(["status", "--json", "--relay", url, "--town"])
        .arg(&town.dir)
        .output()
        .expect("run soul status");
    assert!(
        out.status.success(),
        "soul status: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("soul status --json prints JSON")
}

/// A medium-priority task titled `title`, with no description.
pub fn task_content(title: &str) -> soul_kinds::Task {
    soul_kinds::Task {
        title: title.into(),
        description: String::new(),
        priority: soul_kinds::Priority::Medium,
        task_type: "task".into(),
    }
}

/// A medium-priority task titled `title`, signed by `owner` (not yet sent).
pub fn owner_task(owner: &Keys, title: &str) -> Event {
    soul_kinds::content::task(&task_content(title), None)
        .sign_with_keys(owner)
        .unwrap()
}
