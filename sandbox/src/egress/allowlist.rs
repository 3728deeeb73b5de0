//! A skill's network allowlist: `network: [host[:port], …]` in its YAML.
//!
//! An entry names one host (a DNS name or an IP literal, IPv6 in brackets) and optionally one
//! port; without a port it allows the web's two, 443 and 80. Matching is exact (no wildcards,
//! no suffixes): `example.com` does not allow `api.example.com`. What a name resolves to is
//! checked by the proxy at connect time ([`super::refuse`]), whatever this list says.

use std::fmt;
use std::net::IpAddr;

use serde::Deserialize;

/// One `host[:port]` entry, or the host and port a run asked the proxy for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPort {
    /// Lower-case DNS name without a trailing dot, or an IP literal.
    pub host: Host,
    /// The port, when given.
    pub port: Option<u16>,
}

/// A host as written: a name or an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// A DNS name (lower case, no trailing dot).
    Name(String),
    /// An IP literal.
    Ip(IpAddr),
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(n) => f.write_str(n),
            Host::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            Host::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.port {
            Some(p) => write!(f, "{}:{p}", self.host),
            None => write!(f, "{}", self.host),
        }
    }
}

impl HostPort {
    /// Parses `host`, `host:port`, `[v6]` or `[v6]:port`. Says what is wrong otherwise.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("an empty host".into());
        }
        if t.contains("://") || t.contains('/') {
            return Err(format!(
                "{text:?} is not a host: write the host and port only (`example.com` or `example.com:8443`), without a scheme or path"
            ));
        }
        if t.contains('@') {
            return Err(format!("{text:?}: a host cannot carry a user name (`@`)"));
        }
        if t.contains('*') {
            return Err(format!(
                "{text:?}: wildcards are not supported; list each host"
            ));
        }
        let (host, port) = if let Some(rest) = t.strip_prefix('[') {
            let (inside, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("{text:?}: an IPv6 address needs its closing `]`"))?;
            let ip: IpAddr = inside
                .parse()
                .map_err(|_| format!("{text:?}: {inside:?} is not an IPv6 address"))?;
            let port = match after {
                "" => None,
                p => Some(
                    p.strip_prefix(':')
                        .ok_or_else(|| format!("{text:?}: expected `:port` after the address"))?,
                ),
            };
            (Host::Ip(ip), port)
        } else if let Ok(ip) = t.parse::<IpAddr>() {
            // A bare IPv6 address (no port) or an IPv4 address.
            (Host::Ip(ip), None)
        } else {
            let (h, p) = match t.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (t, None),
            };
            let host = match h.parse::<IpAddr>() {
                Ok(ip @ IpAddr::V4(_)) => Host::Ip(ip),
                Ok(IpAddr::V6(_)) => {
                    return Err(format!(
                        "{text:?}: put an IPv6 address in brackets: `[addr]:port`"
                    ))
                }
                Err(_) => Host::Name(name(h).map_err(|e| format!("{text:?}: {e}"))?),
            };
            (host, p)
        };
        let port = match port {
            None => None,
            Some(p) => match p.parse::<u16>() {
                Ok(0) | Err(_) => {
                    return Err(format!(
                        "{text:?}: the port must be a number from 1 to 65535"
                    ))
                }
                Ok(n) => Some(n),
            },
        };
        Ok(Self { host, port })
    }
}

/// A DNS name, lower-cased, trailing dot dropped: letters, digits, `-` and `_` in labels of
/// 1–63, at most 253 in all.
fn name(h: &str) -> Result<String, String> {
    let n = h.strip_suffix('.').unwrap_or(h).to_ascii_lowercase();
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if n.is_empty() || n.len() > 253 || !n.split('.').all(label_ok) {
        return Err(format!(
            "{h:?} is not a host name (letters, digits, `-`, dots)"
        ));
    }
    Ok(n)
}

/// The hosts a run may reach. Empty: the run has no network at all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Vec<String>")]
pub struct Allowlist(Vec<HostPort>);

impl TryFrom<Vec<String>> for Allowlist {
    type Error = String;

    fn try_from(entries: Vec<String>) -> Result<Self, String> {
        entries
            .iter()
            .enumerate()
            .map(|(i, e)| HostPort::parse(e).map_err(|why| format!("network[{i}]: {why}")))
            .collect::<Result<Vec<_>, _>>()
            .map(Allowlist)
    }
}

impl Allowlist {
    /// No host: no network.
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether the run has no network.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries.
    pub fn entries(&self) -> &[HostPort] {
        &self.0
    }

    /// Whether `host` (as the run asked for it) on `port` is on the list.
    pub fn allows(&self, host: &Host, port: u16) -> bool {
        self.0.iter().any(|e| {
            e.host == *host
                && match e.port {
                    Some(p) => p == port,
                    None => port == 443 || port == 80,
                }
        })
    }
}

impl fmt::Display for Allowlist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let all: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&all.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hp(t: &str) -> HostPort {
        HostPort::parse(t).unwrap()
    }

    #[test]
    fn entries_parse_to_host_and_port() {
        assert_eq!(hp("Example.COM."), hp("example.com"));
        assert_eq!(hp("example.com:8443").port, Some(8443));
        assert_eq!(
            hp("198.18.0.2:80").host,
            Host::Ip("198.18.0.2".parse().unwrap())
        );
        assert_eq!(hp("[::1]:80").host, Host::Ip("::1".parse().unwrap()));
        assert_eq!(hp("::1").port, None);
        for bad in [
            "",
            "https://example.com",
            "example.com/x",
            "u@example.com",
            "*.example.com",
            "example.com:0",
            "example.com:99999",
            "example.com:",
            "[::1",
            "::1:80x",
            "a..b",
            "-a.com",
            "exa mple.com",
        ] {
            assert!(HostPort::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn matching_is_exact_and_a_bare_host_means_the_web_ports() {
        let list =
            Allowlist::try_from(vec!["example.com".into(), "198.18.0.2:8080".into()]).unwrap();
        let name = Host::Name("example.com".into());
        assert!(list.allows(&name, 443) && list.allows(&name, 80));
        assert!(!list.allows(&name, 22), "other ports need naming");
        assert!(
            !list.allows(&Host::Name("api.example.com".into()), 443),
            "no suffix match"
        );
        assert!(!list.allows(&Host::Name("example.com.evil".into()), 443));
        let ip = Host::Ip("198.18.0.2".parse().unwrap());
        assert!(list.allows(&ip, 8080) && !list.allows(&ip, 8081));
        let err = Allowlist::try_from(vec!["ok.com".into(), "http://x".into()]).unwrap_err();
        assert!(err.starts_with("network[1]:"), "{err}");
    }
}
