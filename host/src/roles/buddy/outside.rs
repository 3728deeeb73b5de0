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
    nostr::nips::nip17::extract_relay_list(&list)
        .filter(|url| reachable(url, town_is_local))
        .take(MAX_RELAYS)
        .cloned()
        .collect()
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

/// Whether the buddy may write to `url` for a stranger.
pub fn reachable(url: &RelayUrl, loopback_ok: bool) -> bool {
    if !(url.as_str().starts_with("ws://") || url.as_str().starts_with("wss://")) {
        return false;
    }
    let Some(host) = url.host().map(|h| h.to_string()) else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return loopback_ok;
    }
    match IpAddr::from_str(host) {
        Ok(ip) if ip.is_loopback() => loopback_ok,
        Ok(IpAddr::V4(v4)) => {
            !(v4.is_private() || v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast())
        }
        Ok(IpAddr::V6(v6)) => {
            !(v6.is_unspecified()
                || (v6.segments()[0] & 0xfe00) == 0xfc00 // unique local
                || (v6.segments()[0] & 0xffc0) == 0xfe80) // link-local
        }
        Err(_) => true,
    }
}

fn is_loopback(url: &RelayUrl) -> bool {
    url.host().is_some_and(|h| {
        let h = h.to_string();
        let h = h.trim_start_matches('[').trim_end_matches(']');
        h.eq_ignore_ascii_case("localhost") || IpAddr::from_str(h).is_ok_and(|ip| ip.is_loopback())
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
        assert!(!reachable(&url("ws://127.0.0.1:7777"), false));
        assert!(!reachable(&url("ws://localhost:7777"), false));
        assert!(reachable(&url("ws://127.0.0.1:7777"), true));
        assert!(reachable(&url("wss://relay.example.org"), false));
        assert!(reachable(&url("wss://203.0.113.9"), false));
    }
}
