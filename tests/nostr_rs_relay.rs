//! Any relay: the whole town runs unchanged on nostr-rs-relay, a relay nobody here wrote
//! (installed and cached by `.ci/run` with `cargo install nostr-rs-relay`). Outside CI, a machine without it
//! skips this test and says so; under CI it fails, so it can never silently not run there.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use nostr_sdk::prelude::*;

use soul_kinds::SoulKind;

use crate::util::*;

/// `SOUL_NOSTR_RS_RELAY` (set by `.ci/run`), else where `.ci/run` caches it.
fn binary() -> Option<PathBuf> {
    let cached = || {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
        Some(cache.join("soul/nostr-rs-relay-0.8.12/bin/nostr-rs-relay"))
    };
    std::env::var_os("SOUL_NOSTR_RS_RELAY")
        .map(PathBuf::from)
        .or_else(cached)
        .filter(|p| p.exists())
}

/// The port a process listens on, read from /proc (it was told port 0 and logs "0").
fn listening_port(pid: u32) -> Option<u16> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let s = l.to_string_lossy().into_owned();
            s.strip_prefix("socket:[")?
                .strip_suffix(']')
                .map(str::to_string)
        })
        .collect();
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (local, state, inode) = (f.get(1)?, f.get(3)?, f.get(9)?);
        (*state == "0A" && inodes.iter().any(|i| i == inode))
            .then(|| u16::from_str_radix(local.split(':').nth(1)?, 16).ok())?
    })
}

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_is_debated_to_its_end_on_nostr_rs_relay() {
    // A missing relay fails the test, here and in CI: a skipped check reads as a passed one.
    let bin = binary().expect(
        "nostr-rs-relay 0.8.12 is not installed: run `bash .ci/run` once (it builds it into \
         ~/.cache/soul) or point SOUL_NOSTR_RS_RELAY at a nostr-rs-relay binary",
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[database]\ndata_directory = {:?}\n[network]\naddress = \"127.0.0.1\"\nport = 0\n[limits]\nmessages_per_sec = 10000\n",
            dir.path().display().to_string()
        ),
    )
    .unwrap();
    let relay = Kill(
        Command::new(bin)
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + PATIENCE;
    let port = loop {
        if let Some(p) = listening_port(relay.0.id()) {
            break p;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nostr-rs-relay did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let url = format!("ws://127.0.0.1:{port}");

    let town = TestTown::new();
    let _up = town.up(&["--speed", "60", "--relay", &url]);
    let c = client(&url, None).await;
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
    let done = execs
        .iter()
        .filter_map(|x| soul_kinds::parse::<soul_kinds::Execution>(x).ok())
        .any(|x| x.status == soul_kinds::ExecStatus::NeedsOwner);
    assert!(
        done,
        "the debate ran to its end on nostr-rs-relay (no skill backs up photos: needs_owner)"
    );
}
