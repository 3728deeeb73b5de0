//! The dashboard in a real browser: headless Debian chromium driven by playwright-core
//! (`tests/browser/`, installed by `.ci/run`). Outside CI, a machine without them skips this test
//! and says so; under CI it fails, so the browser test can never silently not run there.

use std::path::Path;
use std::process::Command;

use crate::util::*;

fn browser_ready(dir: &Path) -> Result<(), String> {
    if !dir.join("node_modules/playwright-core").exists() {
        return Err(
            "tests/browser/node_modules is missing: run `npm ci --prefix tests/browser`".into(),
        );
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Err("node is not installed".into());
    }
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Err(format!("{chromium} is missing: apt-get install chromium"));
    }
    Ok(())
}

#[test]
fn a_task_submitted_in_the_browser_shows_its_debate() {
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/browser");
    // A missing browser fails the test, here and in CI: a skipped check reads as a passed one.
    if let Err(why) = browser_ready(&browser) {
        panic!("the dashboard's browser test cannot run: {why} (`bash .ci/run` installs it)");
    }
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let url = up
        .dashboard
        .clone()
        .expect("soul up prints the dashboard's URL");
    let artifacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("dashboard.png");
    let out = Command::new("node")
        .arg(browser.join("dashboard.mjs"))
        .arg(&url)
        .arg(&shot)
        .output()
        .expect("run node");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    assert!(log.contains("opinions"), "{log}");
    assert!(
        shot.exists(),
        "a screenshot is written to {}",
        shot.display()
    );
}

#[test]
fn the_task_endpoint_refuses_a_bad_task_with_the_field() {
    let town = TestTown::new();
    let up = town.up(&[]);
    let url = up.dashboard.clone().unwrap();
    let host = url.trim_start_matches("http://");
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(host).unwrap();
    let body = r#"{"title":"   "}"#;
    write!(
        s,
        "POST /api/task HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 422"), "{reply}");
    assert!(reply.contains("title"), "names the field: {reply}");
}
