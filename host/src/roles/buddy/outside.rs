//! Answering someone outside the town: where their DMs go (their kind-10050 DM relays, NIP-17),
//! chosen so that a stranger cannot point the buddy at the host's own network.

use std::net::IpAddr;
use std::str::FromStr;

use nostr::{Filter, Kind, PublicKey};
use nostr_sdk::RelayUrl;
use soul_link::dm::replay::Seen;
use soul_link::dm::{DmClient, Message};
use soul_link::Link;

/// Most of a stranger's relays the buddy writes to.
pub const MAX_RELAYS: usize = 3;

/// `who`'s DM relays from their newest kind-10050 on the town relay, keeping only those the
/// buddy may reach: ws(s):// only; no private, link-local or unspecified address; loopback only
/// when the town relay is itself on loopback (a town on one machine).
pub async fn dm_relays(link: &Link, who: PublicKey) -> Vec<RelayUrl> {
    let filter = Filter::new().kind(Kind::InboxRelays).author(who).limit(1);
    let newest = match link.fetch(filter).await {
        Ok(events) => events.into_iter().max_by_key(|e| e.created_at),
        Err(e) => {
            tracing::warn!(%who, "cannot read their DM relays: {e}");
            return Vec::new();
        }
    };
    let Some(list) = newest else {
        return Vec::new();
    };
    let town_is_local = is_loopback(link.url());
    let mut out = Vec::new();
    // Owned first: the list's iterator is not Send, and the loop awaits.
    let listed: Vec<RelayUrl> = nostr::nips::nip17::extract_relay_list(&list)
        .cloned()
        .collect();
    for url in &listed {
        if out.len() == MAX_RELAYS {
            break;
        }
        if reachable(url, town_is_local) && resolves_public(url, town_is_local).await {
            out.push(url.clone());
        }
    }
    out
}

/// Sends `text`, the answer to `m` from someone outside the town, to their DM relays (our copy
/// to the town relay); says in the log when they named none the buddy may reach.
pub async fn answer(link: &Link, dm: &DmClient, m: &Message, text: &str) {
    let relays = dm_relays(link, m.sender).await;
    if relays.is_empty() {
        tracing::warn!(to = %m.sender, "reply not delivered: the sender is not in the town and names no DM relay (kind 10050) the buddy may reach");
        return;
    }
    match dm
        .send_outside(m.sender, text, Seen::reply_tags(m), &relays)
        .await
    {
        Ok(id) => {
            tracing::info!(to = %m.sender, rumor = %id, relays = relays.len(), "answered someone outside the town on their DM relays")
        }
        Err(e) => {
            tracing::warn!(to = %m.sender, "reply to someone outside the town not delivered: {e}")
        }
    }
}

/// Whether the buddy may write to `url` for a stranger, as far as the URL alone tells: ws(s)
/// only, and an address literal must be public (see [`public_ip`]). A name is checked by
/// [`resolves_public`] before the buddy connects.
pub fn reachable(url: &RelayUrl, loopback_ok: bool) -> bool {
    if !(url.as_str().starts_with("ws://") || url.as_str().starts_with("wss://")) {
        return false;
    }
    let Some(host) = host_of(url) else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") {
        return loopback_ok;
    }
    match IpAddr::from_str(&host) {
        Ok(ip) => public_ip(ip, loopback_ok),
        Err(_) => true,
    }
}

/// Whether `ip` is an address the buddy may reach for a stranger: not private, shared (CGNAT),
/// link-local, multicast, unspecified or "this network"; loopback only when `loopback_ok`. An
/// IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
pub fn public_ip(ip: IpAddr, loopback_ok: bool) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    if ip.is_loopback() {
        return loopback_ok;
    }
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || a == 0
                || (a == 100 && (64..128).contains(&b)))
        }
        IpAddr::V6(v6) => {
            !(v6.is_unspecified()
                || v6.is_multicast()
                || (v6.segments()[0] & 0xfe00) == 0xfc00 // unique local
                || (v6.segments()[0] & 0xffc0) == 0xfe80) // link-local
        }
    }
}

/// Whether every address `url`'s host resolves to is public (an address literal is checked as
/// it is): a name of the stranger's choosing may point anywhere, 127.0.0.1 included.
pub async fn resolves_public(url: &RelayUrl, loopback_ok: bool) -> bool {
    let Some(host) = host_of(url) else {
        return false;
    };
    if let Ok(ip) = IpAddr::from_str(&host) {
        return public_ip(ip, loopback_ok);
    }
    let port = if url.as_str().starts_with("wss://") {
        443
    } else {
        80
    };
    match tokio::net::lookup_host(format!("{host}:{port}")).await {
        Ok(addrs) => {
            let addrs: Vec<_> = addrs.collect();
            !addrs.is_empty() && addrs.iter().all(|a| public_ip(a.ip(), loopback_ok))
        }
        Err(e) => {
            tracing::debug!(relay = %url, "an outsider's DM relay does not resolve: {e}");
            false
        }
    }
}

/// `url`'s host, an IPv6 address without its brackets.
fn host_of(url: &RelayUrl) -> Option<String> {
    let h = url.host()?.to_string();
    Some(h.trim_start_matches('[').trim_end_matches(']').to_owned())
}

fn is_loopback(url: &RelayUrl) -> bool {
    host_of(url).is_some_and(|h| {
        h.eq_ignore_ascii_case("localhost") || IpAddr::from_str(&h).is_ok_and(|ip| ip.is_loopback())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> RelayUrl {
        RelayUrl::parse(s).unwrap()
    }

    #[test]
    fn a_stranger_cannot_point_the_buddy_at_the_host_s_network() {
        for bad in [
            "ws://10.0.0.5:7777",
            "ws://192.168.1.1",
            "ws://169.254.169.254",
            "ws://0.0.0.0:80",
            "ws://[fd00::1]",
            "ws://[fe80::1]",
        ] {
            assert!(!reachable(&url(bad), true), "{bad}");
        }
        // Red team: the same private targets in other spellings.
        for bad in [
            "ws://[::ffff:192.168.0.1]",
            "ws://[::ffff:127.0.0.1]",
            "ws://3232235521",
            "ws://100.64.0.1",
            "ws://0.1.2.3",
            "ws://224.0.0.1",
        ] {
            assert!(!reachable(&url(bad), false), "{bad}");
        }
        assert!(!reachable(&url("ws://127.0.0.1:7777"), false));
        assert!(!reachable(&url("ws://localhost:7777"), false));
        assert!(reachable(&url("ws://127.0.0.1:7777"), true));
        assert!(reachable(&url("wss://relay.example.org"), false));
        assert!(reachable(&url("wss://203.0.113.9"), false));
    }

    /// Red team: a name is judged by what it resolves to ("localhost" through the resolver,
    /// not only by its spelling).
    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused() {
        let local = RelayUrl::parse("ws://localhost:7777").unwrap();
        assert!(!resolves_public(&local, false).await);
        assert!(resolves_public(&local, true).await);
        assert!(!resolves_public(&url("ws://[::ffff:10.0.0.1]"), false).await);
    }
}
