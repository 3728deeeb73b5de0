//! What the page reads from the server: who is who, where the relay is, and the kind numbers.
//! Everything else the page reads from the relay itself.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use soul_kinds::{BrainName, Params, SoulKind};

use super::Dashboard;

#[derive(Serialize)]
pub(super) struct TownInfo {
    town: String,
    relay: RelayInfo,
    owner: String,
    /// Whether the owner's key is on this machine, so the server can sign for the page.
    can_write: bool,
    members: Vec<Member>,
    /// The seed's params per brain, shown until the relay holds a newer 34360.
    seed_params: BTreeMap<String, Params>,
}

/// Where the page finds the relay. For a relay on this machine (a loopback or unspecified
/// address) the page connects to the host it was served from, at `port` and `path`, so that a
/// phone on the LAN or a browser outside a container reaches it; any other relay by its `url`.
#[derive(Serialize)]
struct RelayInfo {
    url: String,
    same_host: bool,
    port: Option<u16>,
    path: String,
}

#[derive(Serialize)]
struct Member {
    name: String,
    role: String,
    pubkey: String,
}

fn relay_info(url: &str) -> RelayInfo {
    let parsed = nostr::Url::parse(url).ok();
    let same_host = parsed.as_ref().and_then(|u| u.host_str()).is_some_and(|h| {
        let bare = h.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<std::net::IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip.is_unspecified(),
            Err(_) => bare.eq_ignore_ascii_case("localhost"),
        }
    });
    RelayInfo {
        url: url.to_string(),
        same_host,
        port: parsed.as_ref().and_then(|u| u.port_or_known_default()),
        path: parsed.map_or_else(|| "/".into(), |u| u.path().to_string()),
    }
}

pub(super) async fn town_info(State(d): State<Dashboard>) -> Json<TownInfo> {
    Json(TownInfo {
        town: d.town.clone(),
        relay: relay_info(&d.relay_url),
        owner: d.roster.owner.to_hex(),
        can_write: d.owner.is_some(),
        members: d
            .roster
            .members()
            .iter()
            .map(|m| Member {
                name: m.name.clone(),
                role: m.role.to_string(),
                pubkey: m.pubkey.to_hex(),
            })
            .collect(),
        seed_params: BrainName::ALL
            .iter()
            .map(|b| (b.as_str().to_string(), b.default_params()))
            .collect(),
    })
}

#[derive(Serialize)]
pub(super) struct KindInfo {
    number: u16,
    doc: &'static str,
}

/// Every soul kind by name, plus the standard kinds the page shows, from soul-kinds' one table:
/// the page never writes a kind number itself.
pub(super) async fn kinds() -> Json<BTreeMap<&'static str, KindInfo>> {
    let mut out: BTreeMap<&'static str, KindInfo> = SoulKind::ALL
        .iter()
        .map(|k| {
            (
                k.name(),
                KindInfo {
                    number: k.number(),
                    doc: k.doc(),
                },
            )
        })
        .collect();
    for (name, number, doc) in [
        ("profile", 0, "An agent's profile (NIP-01)."),
        ("note", 1, "A post or a reply (NIP-10)."),
        ("reaction", 7, "A reaction (NIP-25)."),
        ("gift_wrap", 1059, "An encrypted message (NIP-59)."),
        ("relay_list", 10002, "Relays the agent uses (NIP-65)."),
        ("dm_relays", 10050, "Relays for direct messages (NIP-17)."),
    ] {
        out.insert(name, KindInfo { number, doc });
    }
    Json(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_on_this_machine_is_reached_at_the_pages_host() {
        let r = relay_info("ws://127.0.0.1:7447");
        assert!(r.same_host);
        assert_eq!((r.port, r.path.as_str()), (Some(7447), "/"));
        assert!(relay_info("ws://0.0.0.0:7447/nostr").same_host);
        assert!(relay_info("ws://[::1]:7447").same_host);
        assert!(relay_info("ws://localhost:7447").same_host);
        let far = relay_info("wss://relay.example.com/town");
        assert!(!far.same_host);
        assert_eq!((far.port, far.path.as_str()), (Some(443), "/town"));
    }
}
