//! What every agent publishes about itself: a kind-0 profile, its relay lists (NIP-65 10002,
//! NIP-17 10050) and heartbeats (14360).

use crate::HostError;
use nostr::{EventBuilder, Kind, Metadata, RelayUrl, Tag, Timestamp};
use soul_kinds::{content, Heartbeat, Role};

use super::Identity;
use soul_link::Link;
use std::time::Duration;

/// The kind-0 profile: name, what the role does, and `bot: true` (NIP-24).
pub fn profile(agent: &Identity) -> EventBuilder {
    let metadata = Metadata::new()
        .name(&agent.name)
        .display_name(&agent.name)
        .about(about(agent.role))
        .custom_field("bot", true);
    EventBuilder::metadata(&metadata)
}

fn about(role: Role) -> &'static str {
    match role {
        Role::Brain => {
            "A brain of this soul town: debates the owner's tasks and decides by 2 of 3."
        }
        Role::Resident => {
            "A resident of this soul town: writes posts that a reviewer approves first."
        }
        Role::Reviewer => {
            "The reviewer of this soul town: approves or rejects drafts against the NG rules."
        }
        Role::Reporter => {
            "The reporter of this soul town: fills the bulletin board with news and events."
        }
        Role::Buddy => {
            "The owner's buddy in this soul town: answers DMs and mentions in the owner's persona."
        }
        Role::Executor => {
            "The executor of this soul town: runs allowlisted commands in a sandbox on command."
        }
    }
}

/// NIP-65 (10002) and NIP-17 (10050) lists naming the town relay, so that clients know where
/// to read this agent and where to send it DMs.
pub fn relay_lists(relay: &RelayUrl) -> [EventBuilder; 2] {
    [
        EventBuilder::relay_list([(relay.clone(), None)]),
        EventBuilder::new(Kind::InboxRelays, "")
            .tag(Tag::custom(nostr::TagKind::Relay, [relay.to_string()])),
    ]
}

/// A heartbeat with `status`, the current time and this machine's load average.
pub fn heartbeat(status: &str) -> EventBuilder {
    content::heartbeat(&Heartbeat {
        status: status.to_string(),
        last_tick: Timestamp::now().as_secs(),
        load: load_average(),
    })
}

/// One-minute load average; 0 where the platform does not say.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// Announces the agent, then beats until the task is aborted.
pub(super) async fn live(
    agent: Identity,
    link: Link,
    heartbeat_every: Duration,
) -> Result<(), HostError> {
    link.publish(&agent.keys, profile(&agent)).await?;
    for list in relay_lists(link.url()) {
        link.publish(&agent.keys, list).await?;
    }
    tracing::info!(agent = %agent.name, role = %agent.role, "agent is up");
    loop {
        if let Err(e) = link.publish(&agent.keys, heartbeat("running")).await {
            tracing::warn!(agent = %agent.name, "heartbeat not published: {e}");
        }
        // Liveness is a wall-clock fact (clients show "seen 20 s ago"), so beats follow real
        // time even when the town's clock runs fast: at --speed 6000 a town-time beat would be
        // 200 events a second per agent.
        tokio::time::sleep(heartbeat_every).await;
    }
}
