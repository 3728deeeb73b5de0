//! The egress proxy of one run: HTTP/1.1 on a Unix socket, `CONNECT host:port` for https and
//! absolute-form `http://` requests, each checked against the skill's allowlist and the
//! refused address ranges. A name is resolved once and the connection goes to the address
//! that was checked, so a DNS answer that changes between check and connect changes nothing.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinSet;

use super::allowlist::{Allowlist, Host, HostPort};
use super::refuse;

/// Bounds of one run's egress.
#[derive(Debug, Clone, Copy)]
pub struct EgressLimits {
    /// Time to receive a request head, and to resolve and connect.
    pub connect: Duration,
    /// Bytes carried in both directions over all of a run's connections.
    pub bytes: u64,
}

impl Default for EgressLimits {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            // Room for fetch's 50 MiB download plus headers and TLS.
            bytes: 64 * 1024 * 1024,
        }
    }
}

/// Largest request head the proxy reads.
const MAX_HEAD: usize = 16 * 1024;
/// Refusals kept for the run's report; more are logged only.
const MAX_KEPT: usize = 32;

/// What one run's proxy shares between its connections.
#[derive(Debug)]
pub(crate) struct Shared {
    pub allow: Allowlist,
    pub limits: EgressLimits,
    pub used: AtomicU64,
    pub refusals: Mutex<Vec<String>>,
}

impl Shared {
    fn note(&self, why: &str) {
        tracing::warn!(refusal = why, "egress refused");
        if let Ok(mut r) = self.refusals.lock() {
            if r.len() < MAX_KEPT {
                r.push(why.to_string());
            }
        }
    }
}

/// Accepts until the task is aborted; dropping the set aborts every open connection.
pub(crate) async fn serve(listener: UnixListener, shared: Arc<Shared>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    conns.spawn(handle(stream, shared.clone()));
                }
                Err(e) => {
                    tracing::warn!("egress proxy: accept failed: {e}");
                    return;
                }
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

/// A request the proxy answers itself.
struct Answer {
    status: &'static str,
    why: String,
}

fn answer(status: &'static str, why: impl Into<String>) -> Answer {
    Answer {
        status,
        why: why.into(),
    }
}

async fn handle(mut client: UnixStream, shared: Arc<Shared>) {
    match open(&mut client, &shared).await {
        Ok(Some((upstream, leftover))) => {
            pipe(client, upstream, leftover, &shared).await;
        }
        Ok(None) => {}
        Err(a) => {
            if a.status.starts_with("403") {
                shared.note(&a.why);
            } else {
                tracing::info!(status = a.status, "egress proxy: {}", a.why);
            }
            let body = format!("soul egress proxy: {}\n", a.why);
            let head = format!(
                "HTTP/1.1 {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                a.status,
                body.len()
            );
            let _ = client.write_all(head.as_bytes()).await;
            let _ = client.write_all(body.as_bytes()).await;
            let _ = client.shutdown().await;
        }
    }
}

/// Reads the request, checks it and connects. `Ok(None)`: the client went away before asking.
async fn open(
    client: &mut UnixStream,
    shared: &Shared,
) -> Result<Option<(TcpStream, Vec<u8>)>, Answer> {
    let limit = shared.limits.connect;
    let Some((buf, head_len)) = tokio::time::timeout(limit, read_head(client))
        .await
        .map_err(|_| {
            answer(
                "408 Request Timeout",
                "no request head within the time limit",
            )
        })??
    else {
        return Ok(None);
    };
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    req.parse(&buf[..head_len])
        .map_err(|e| answer("400 Bad Request", format!("unreadable request head: {e}")))?;
    let method = req.method.unwrap_or_default().to_string();
    let target = req.path.unwrap_or_default().to_string();
    let leftover = buf[head_len..].to_vec();
    if method.eq_ignore_ascii_case("CONNECT") {
        let hp = HostPort::parse(&target)
            .map_err(|e| answer("400 Bad Request", format!("CONNECT {target}: {e}")))?;
        let port = hp
            .port
            .ok_or_else(|| answer("400 Bad Request", format!("CONNECT {target}: no port")))?;
        let upstream = connect(&hp.host, port, shared).await?;
        client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
            .map_err(|e| answer("500 Internal Server Error", e.to_string()))?;
        return Ok(Some((upstream, leftover)));
    }
    let lower = target.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return Err(answer(
            "400 Bad Request",
            format!("{target}: send https through CONNECT (set https_proxy)"),
        ));
    }
    let Some(rest) = lower.strip_prefix("http://").map(|_| &target[7..]) else {
        return Err(answer(
            "400 Bad Request",
            format!("{method} {target}: this is soul's egress proxy; ask for an absolute http:// URL or CONNECT host:port"),
        ));
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let path = match path {
        "" => "/".to_string(),
        p if p.starts_with('/') => p.split('#').next().unwrap_or("/").to_string(),
        p => format!("/{p}"),
    };
    let hp = HostPort::parse(authority)
        .map_err(|e| answer("400 Bad Request", format!("{target}: {e}")))?;
    let port = hp.port.unwrap_or(80);
    let mut upstream = connect(&hp.host, port, shared).await?;
    // Origin-form towards the server, Host from the URL (never the client's), one request per
    // connection, and nothing meant for the proxy passed on.
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", hp);
    for h in req.headers.iter() {
        let n = h.name.to_ascii_lowercase();
        if n == "host" || n.starts_with("proxy-") || n == "connection" || n == "keep-alive" {
            continue;
        }
        out.push_str(h.name);
        out.push_str(": ");
        out.push_str(&String::from_utf8_lossy(h.value));
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    upstream
        .write_all(out.as_bytes())
        .await
        .map_err(|e| answer("502 Bad Gateway", format!("{hp}: {e}")))?;
    Ok(Some((upstream, leftover)))
}

/// The request head and its length; `None` when the client closed before sending anything.
async fn read_head(client: &mut UnixStream) -> Result<Option<(Vec<u8>, usize)>, Answer> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = client
            .read(&mut chunk)
            .await
            .map_err(|e| answer("400 Bad Request", e.to_string()))?;
        if n == 0 {
            return if buf.is_empty() {
                Ok(None)
            } else {
                Err(answer("400 Bad Request", "the request head was cut short"))
            };
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(Some((buf, i + 4)));
        }
        if buf.len() > MAX_HEAD {
            return Err(answer(
                "431 Request Header Fields Too Large",
                "the request head is over 16 KiB",
            ));
        }
    }
}

/// Allowlist, then resolution, then the refused ranges, then a connection to a checked address.
async fn connect(host: &Host, port: u16, shared: &Shared) -> Result<TcpStream, Answer> {
    let asked = HostPort {
        host: host.clone(),
        port: Some(port),
    };
    if !shared.allow.allows(host, port) {
        return Err(answer(
            "403 Forbidden",
            format!(
                "{asked} is not on this skill's network allowlist ({}); add it to the skill's `network:` if the run needs it",
                shared.allow
            ),
        ));
    }
    let limit = shared.limits.connect;
    let addrs: Vec<SocketAddr> = match host {
        Host::Ip(ip) => vec![SocketAddr::new(*ip, port)],
        Host::Name(name) => {
            tokio::time::timeout(limit, tokio::net::lookup_host((name.as_str(), port)))
                .await
                .map_err(|_| {
                    answer(
                        "504 Gateway Timeout",
                        format!("{asked}: no DNS answer in time"),
                    )
                })?
                .map_err(|e| answer("502 Bad Gateway", format!("{asked}: cannot resolve: {e}")))?
                .collect()
        }
    };
    let mine: Vec<IpAddr> = match tokio::task::spawn_blocking(refuse::host_addresses).await {
        Ok(Ok(a)) => a,
        // Without the list of this machine's addresses nothing can be proven safe.
        _ => {
            return Err(answer(
                "403 Forbidden",
                format!("{asked}: cannot list this machine's addresses to check against"),
            ))
        }
    };
    // Every address must pass: a name that also points inside is refused as a whole.
    for a in &addrs {
        if let Some(why) = refuse::refused(a.ip(), &mine) {
            let how = match host {
                Host::Ip(_) => String::new(),
                Host::Name(_) => format!(" resolves to {}", a.ip()),
            };
            return Err(answer(
                "403 Forbidden",
                format!("{asked}{how}: {why}; runs never reach it, whatever the allowlist says"),
            ));
        }
    }
    let mut last = format!("{asked}: no address");
    for a in addrs {
        match tokio::time::timeout(limit, TcpStream::connect(a)).await {
            Ok(Ok(s)) => {
                tracing::info!(to = %asked, addr = %a, "egress connected");
                return Ok(s);
            }
            Ok(Err(e)) => last = format!("{asked} ({a}): {e}"),
            Err(_) => last = format!("{asked} ({a}): no answer within {limit:?}"),
        }
    }
    Err(answer("502 Bad Gateway", last))
}

/// Carries bytes both ways until both sides close or the run's byte budget is spent.
async fn pipe(client: UnixStream, upstream: TcpStream, leftover: Vec<u8>, shared: &Shared) {
    let (cr, cw) = client.into_split();
    let (ur, mut uw) = upstream.into_split();
    if !leftover.is_empty()
        && (!spend(shared, leftover.len()) || uw.write_all(&leftover).await.is_err())
    {
        return;
    }
    let up = copy(cr, uw, shared);
    let down = copy(ur, cw, shared);
    tokio::join!(up, down);
}

async fn copy(mut r: impl AsyncRead + Unpin, mut w: impl AsyncWrite + Unpin, shared: &Shared) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if !spend(shared, n) || w.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = w.shutdown().await;
}

/// Counts `n` bytes against the run's budget; false once it is spent.
fn spend(shared: &Shared, n: usize) -> bool {
    let before = shared.used.fetch_add(n as u64, Ordering::Relaxed);
    let cap = shared.limits.bytes;
    if before + n as u64 > cap {
        if before <= cap {
            shared.note(&format!(
                "the run's egress byte cap ({} MiB) is spent; its connections are closed",
                cap / (1024 * 1024)
            ));
        }
        return false;
    }
    true
}
