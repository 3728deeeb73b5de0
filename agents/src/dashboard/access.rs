//! Who may use the dashboard: the names it answers to (against DNS rebinding), and the secret
//! that writing needs (so that the dashboard is not the owner's key for every process and web
//! page on the machine).
//!
//! - Every request, reads included, must name one of the dashboard's own hosts in `Host`. A page
//!   on `evil.example` whose name is re-pointed at 127.0.0.1 sends `Host: evil.example:PORT`; the
//!   browser thinks it is talking to evil.example, so the same-origin policy would let that page
//!   read and post. Only the `Host` check tells the two apart.
//! - A state-changing request needs the secret that `soul up` prints (`Authorization: Bearer …`,
//!   compared in constant time) and, when it carries an `Origin` (browsers always send one on a
//!   POST), that origin must be the dashboard itself. A request without `Origin` comes from a
//!   program, not a page, and the secret alone decides for it.

use std::net::SocketAddr;

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use rand::TryRngCore;
use subtle::ConstantTimeEq;

/// A fresh random secret, made by each `soul up` and kept only in memory and in the address it
/// prints: nothing on disk to steal, and a restart revokes every page that held the old one.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// 32 bytes from the operating system's generator, as 64 hex characters.
    pub fn generate() -> Result<Self, rand::rand_core::OsError> {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.try_fill_bytes(&mut bytes)?;
        Ok(Self(hex(&bytes)))
    }

    /// The secret as the page carries it (`#token=…`).
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// Whether `given` is the secret, in time that does not depend on where they differ.
    fn matches(&self, given: &str) -> bool {
        self.0.as_bytes().ct_eq(given.as_bytes()).into()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `host[:port]`, lower case, as written in a `Host` header or in `[dashboard] hosts`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim().to_ascii_lowercase();
        if text.is_empty() || text.contains(['/', '@', ' ', '\\', '?', '#']) {
            return None;
        }
        // An IPv6 literal keeps its brackets, as browsers write it in Host and Origin.
        let (host, port) = if let Some(end) = text.find(']') {
            let (host, rest) = text.split_at(end + 1);
            if !host.starts_with('[') {
                return None;
            }
            match rest.strip_prefix(':') {
                Some(port) => (host.to_string(), Some(port.parse().ok()?)),
                None if rest.is_empty() => (host.to_string(), None),
                None => return None,
            }
        } else {
            match text.rsplit_once(':') {
                Some((host, port)) => (host.to_string(), Some(port.parse().ok()?)),
                None => (text.clone(), None),
            }
        };
        if host.is_empty() || host.contains(':') && !host.starts_with('[') {
            return None;
        }
        Some(Self { host, port })
    }
}

/// The names (with ports) the dashboard answers to.
#[derive(Debug, Clone)]
pub struct Hosts {
    allowed: Vec<Authority>,
}

impl Hosts {
    /// Its bind address, the loopback names, and `extra` (from `[dashboard] hosts`), each at the
    /// port it listens on unless the entry names its own port. A malformed entry is an error
    /// naming it.
    pub fn new(bound: SocketAddr, extra: &[String]) -> Result<Self, String> {
        let port = bound.port();
        let mut names = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "[::1]".to_string(),
        ];
        if !bound.ip().is_unspecified() {
            names.push(match bound {
                SocketAddr::V4(a) => a.ip().to_string(),
                SocketAddr::V6(a) => format!("[{}]", a.ip()),
            });
        }
        let mut allowed: Vec<Authority> = names
            .into_iter()
            .map(|host| Authority {
                host,
                port: Some(port),
            })
            .collect();
        for entry in extra {
            let mut a = Authority::parse(entry).ok_or_else(|| {
                format!("[dashboard] hosts entry {entry:?} is not a host name or host:port")
            })?;
            a.port = a.port.or(Some(port));
            allowed.push(a);
        }
        Ok(Self { allowed })
    }

    /// Whether a `Host` header value names the dashboard. A missing port is HTTP's 80.
    fn admits(&self, host: &str) -> bool {
        let Some(mut a) = Authority::parse(host) else {
            return false;
        };
        a.port = a.port.or(Some(80));
        self.allowed.contains(&a)
    }
}

/// A refusal: a status and a sentence for the one who asked.
#[derive(Debug)]
pub struct Refusal {
    /// 401, 403 or 421.
    pub status: StatusCode,
    /// What was wrong and what to do.
    pub why: String,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.status, self.why).into_response()
    }
}

fn refuse(status: StatusCode, why: String) -> Refusal {
    tracing::info!(
        status = status.as_u16(),
        "dashboard refused a request: {why}"
    );
    Refusal { status, why }
}

/// The `Host` check every request passes first.
pub fn check_host(hosts: &Hosts, headers: &HeaderMap) -> Result<(), Refusal> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match host {
        Some(h) if hosts.admits(h) => Ok(()),
        Some(h) => Err(refuse(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this dashboard does not answer to the name {h:?}; open it at the address \
                 `soul up` printed, or add the name to [dashboard] hosts in town.toml"
            ),
        )),
        None => Err(refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "the request names no Host; open the dashboard at the address `soul up` printed".into(),
        )),
    }
}

/// The secret and `Origin` checks a state-changing request passes after [`check_host`].
pub fn check_write(secret: &Secret, headers: &HeaderMap) -> Result<(), Refusal> {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "));
    match given {
        None => {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                "writing needs the dashboard's secret: open the address `soul up` printed \
                 (…/#token=…)"
                    .into(),
            ))
        }
        Some(token) if !secret.matches(token.trim()) => {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                "the dashboard's secret is wrong (soul up makes a new one each start): open \
                 the address it printed last"
                    .into(),
            ))
        }
        Some(_) => {}
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let own = origin
        .to_str()
        .ok()
        .and_then(|o| {
            o.strip_prefix("http://")
                .or_else(|| o.strip_prefix("https://"))
        })
        .and_then(Authority::parse)
        .zip(host.and_then(Authority::parse))
        .is_some_and(|(o, h)| o == h);
    if own {
        Ok(())
    } else {
        Err(refuse(
            StatusCode::FORBIDDEN,
            format!(
                "a page from {} may not write to this dashboard; only the dashboard's own page may",
                origin.to_str().unwrap_or("an unreadable origin")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts() -> Hosts {
        Hosts::new(
            "127.0.0.1:3000".parse().unwrap(),
            &["mybox.lan".into(), "proxy.example:8443".into()],
        )
        .unwrap()
    }

    #[test]
    fn only_the_dashboards_own_names_are_admitted() {
        let h = hosts();
        for ok in [
            "127.0.0.1:3000",
            "localhost:3000",
            "LOCALHOST:3000",
            "[::1]:3000",
            "mybox.lan:3000",
            "proxy.example:8443",
        ] {
            assert!(h.admits(ok), "{ok}");
        }
        for bad in [
            "evil.example:3000",
            "localhost:3001",
            "localhost",
            "localhost.:3000",
            "127.0.0.1.nip.io:3000",
            "proxy.example:3000",
            "mybox.lan:8443",
            "user@localhost:3000",
            "localhost:3000/x",
            "[::1]x:3000",
            "",
            "::1:3000",
        ] {
            assert!(!h.admits(bad), "{bad}");
        }
    }

    #[test]
    fn a_dashboard_on_all_interfaces_answers_only_to_named_hosts() {
        let h = Hosts::new("0.0.0.0:3000".parse().unwrap(), &[]).unwrap();
        assert!(h.admits("localhost:3000"));
        assert!(!h.admits("0.0.0.0:3000"));
        assert!(!h.admits("192.168.1.5:3000"));
        assert!(Hosts::new("0.0.0.0:3000".parse().unwrap(), &["a b".into()]).is_err());
    }

    #[test]
    fn a_request_without_host_is_refused() {
        let refused = check_host(&hosts(), &HeaderMap::new()).unwrap_err();
        assert_eq!(refused.status, StatusCode::MISDIRECTED_REQUEST);
        assert!(refused.why.contains("no Host"), "{}", refused.why);
        let evil = check_host(&hosts(), &headers(&[("host", "evil.example:3000")])).unwrap_err();
        assert!(evil.why.contains("evil.example"), "{}", evil.why);
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, v.parse().unwrap());
        }
        map
    }

    #[test]
    fn writing_needs_the_secret_and_the_dashboards_own_origin() {
        let s = Secret::generate().unwrap();
        let bearer = format!("Bearer {}", s.reveal());
        let host = ("host", "127.0.0.1:3000");
        assert!(check_write(&s, &headers(&[host])).is_err());
        assert!(check_write(&s, &headers(&[host, ("authorization", "Bearer nope")])).is_err());
        let ok = headers(&[host, ("authorization", &bearer)]);
        assert!(check_write(&s, &ok).is_ok(), "a program without Origin");
        let page = headers(&[
            host,
            ("authorization", &bearer),
            ("origin", "http://127.0.0.1:3000"),
        ]);
        assert!(check_write(&s, &page).is_ok());
        for foreign in [
            "http://evil.example:3000",
            "http://localhost:3000",
            "null",
            "http://127.0.0.1:3001",
        ] {
            let h = headers(&[host, ("authorization", &bearer), ("origin", foreign)]);
            let refused = check_write(&s, &h).unwrap_err();
            assert_eq!(refused.status, StatusCode::FORBIDDEN, "{foreign}");
        }
    }

    #[test]
    fn secrets_are_fresh_and_long() {
        let a = Secret::generate().unwrap();
        let b = Secret::generate().unwrap();
        assert_eq!(a.reveal().len(), 64);
        assert_ne!(a.reveal(), b.reveal());
        assert!(a.matches(a.reveal()));
        assert!(!a.matches(&a.reveal()[..63]));
        assert!(!a.matches(""));
    }
}
