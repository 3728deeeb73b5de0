//! The proxy over its real Unix socket, asked as a hostile run would: every refusal must come
//! back as a 403 naming why, before any connection is made.

use std::net::IpAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

use super::*;

fn list(entries: &[&str]) -> Allowlist {
    Allowlist::try_from(entries.iter().map(|e| e.to_string()).collect::<Vec<_>>()).unwrap()
}

/// Sends `request` to the proxy and returns its whole answer.
async fn ask(egress: &Egress, request: &str) -> String {
    let mut s = UnixStream::connect(egress.socket()).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

fn connect(target: &str) -> String {
    format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n")
}

/// A real listener on loopback that must never be reached: the proxy's refusal comes first,
/// and the listener's accept queue proves nothing connected.
async fn bait() -> (tokio::net::TcpListener, u16) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

async fn never_reached(l: &tokio::net::TcpListener) {
    // The refusal was already read, so a connection, had one been made, is queued by now.
    let polled = futures_poll(l).await;
    assert!(!polled, "the proxy connected to the bait");
}

async fn futures_poll(l: &tokio::net::TcpListener) -> bool {
    tokio::select! {
        biased;
        r = l.accept() => r.is_ok(),
        () = std::future::ready(()) => false,
    }
}

#[tokio::test]
async fn loopback_is_refused_even_when_the_allowlist_names_it() {
    let (l, port) = bait().await;
    let e = Egress::start(
        list(&[
            &format!("127.0.0.1:{port}"),
            &format!("localhost:{port}"),
            &format!("[::1]:{port}"),
            &format!("2130706433:{port}"),
        ]),
        EgressLimits::default(),
    )
    .unwrap();
    for target in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("2130706433:{port}"),
    ] {
        let a = ask(&e, &connect(&target)).await;
        assert!(a.starts_with("HTTP/1.1 403"), "{target}: {a}");
        assert!(
            a.contains("loopback") && a.contains("whatever the allowlist says"),
            "{target}: {a}"
        );
    }
    let a = ask(
        &e,
        &format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n"),
    )
    .await;
    assert!(
        a.starts_with("HTTP/1.1 403") && a.contains("loopback"),
        "{a}"
    );
    never_reached(&l).await;
    assert_eq!(e.refusals().len(), 5, "{:?}", e.refusals());
}

#[tokio::test]
async fn hosts_off_the_list_metadata_and_this_machines_addresses_are_refused() {
    let mine: Vec<IpAddr> = refuse::host_addresses()
        .unwrap()
        .into_iter()
        .filter(|ip| !ip.is_loopback())
        .collect();
    let mut allowed = vec![
        "169.254.169.254:80".to_string(),
        "[::ffff:169.254.169.254]:80".into(),
    ];
    allowed.extend(mine.iter().map(|ip| {
        HostPort {
            host: Host::Ip(*ip),
            port: Some(8080),
        }
        .to_string()
    }));
    let e = Egress::start(
        Allowlist::try_from(allowed.clone()).unwrap(),
        EgressLimits::default(),
    )
    .unwrap();
    let a = ask(&e, &connect("example.com:443")).await;
    assert!(
        a.starts_with("HTTP/1.1 403") && a.contains("not on this skill's network allowlist"),
        "{a}"
    );
    let a = ask(&e, &connect("169.254.169.254:8080")).await;
    assert!(
        a.contains("not on this skill's network allowlist"),
        "port matters: {a}"
    );
    for target in &allowed[..2] {
        let a = ask(&e, &connect(target)).await;
        assert!(
            a.starts_with("HTTP/1.1 403") && a.contains("link-local"),
            "{target}: {a}"
        );
    }
    for target in &allowed[2..] {
        let a = ask(&e, &connect(target)).await;
        assert!(a.starts_with("HTTP/1.1 403"), "{target}: {a}");
        assert!(
            a.contains("address of this machine")
                || a.contains("link-local")
                || a.contains("unique local"),
            "{target}: {a}"
        );
    }
}

#[tokio::test]
async fn what_is_not_a_proxy_request_is_refused_with_a_reason() {
    let e = Egress::start(list(&["example.com"]), EgressLimits::default()).unwrap();
    let a = ask(&e, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").await;
    assert!(
        a.starts_with("HTTP/1.1 400") && a.contains("absolute http:// URL"),
        "{a}"
    );
    let a = ask(&e, "GET https://example.com/ HTTP/1.1\r\n\r\n").await;
    assert!(a.contains("CONNECT"), "{a}");
    let a = ask(&e, "GET http://user@example.com/ HTTP/1.1\r\n\r\n").await;
    assert!(
        a.starts_with("HTTP/1.1 400") && a.contains("user name"),
        "{a}"
    );
    // One byte over the cap and no end of head: all of it is read, then refused.
    let a = ask(&e, &format!("GET /{}", "a".repeat(16 * 1024 - 4))).await;
    assert!(a.starts_with("HTTP/1.1 431"), "{a}");
}

#[tokio::test]
async fn the_proxy_dies_with_its_run() {
    let e = Egress::start(list(&["example.com"]), EgressLimits::default()).unwrap();
    let socket = e.socket();
    let mut open = UnixStream::connect(&socket).await.unwrap();
    open.write_all(b"CONNECT exa").await.unwrap();
    drop(e);
    let mut rest = Vec::new();
    let n = open.read_to_end(&mut rest).await.unwrap_or(0);
    assert_eq!(n, 0, "an open connection is closed, not answered");
    assert!(!socket.exists(), "the socket is gone");
    assert!(UnixStream::connect(&socket).await.is_err());
}

/// A town whose `net` folder allows the network, for the fail-closed checks below.
fn town() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let town = tmp.path().to_path_buf();
    std::fs::create_dir_all(town.join("skills")).unwrap();
    std::fs::create_dir_all(town.join("net")).unwrap();
    std::fs::write(
        town.join(crate::POLICY_FILE),
        "allow_commands: [curl]\nfolders:\n  - {path: net, access: ReadWrite, network: Allow}\n",
    )
    .unwrap();
    (tmp, town)
}

#[tokio::test]
async fn a_networked_run_without_a_working_forwarder_does_not_run() {
    let (_tmp, town) = town();
    let sandbox = crate::Sandbox::load(&town).unwrap();
    assert!(
        sandbox.available(),
        "bubblewrap is needed: apt-get install bubblewrap"
    );
    let argv = vec!["curl".to_string(), "http://example.com/".into()];
    let hosts = list(&["example.com"]);
    let limits = crate::Limits::default();
    let err = sandbox
        .run_with(&argv, &town.join("net"), &[], limits, &hosts)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("does not name an egress forwarder") && err.contains("do not run"),
        "{err}"
    );
    // Some other program in the forwarder's place (here `true`, which answers nothing).
    let other = crate::Sandbox::load(&town)
        .unwrap()
        .with_forwarder("/bin/true".into());
    let err = other
        .run_with(&argv, &town.join("net"), &[], limits, &hosts)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("is not soul's forwarder"), "{err}");
    let gone = crate::Sandbox::load(&town)
        .unwrap()
        .with_forwarder(town.join("no-such-soul"));
    let err = gone
        .run_with(&argv, &town.join("net"), &[], limits, &hosts)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot start the forwarder"), "{err}");
}
