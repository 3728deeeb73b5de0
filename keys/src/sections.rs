//! The sections of `town.toml`, each with its defaults.
//!
//! Every section is `#[serde(default)]`, so an older `town.toml` that lacks a key or a whole
//! section still loads, and `deny_unknown_fields`, so a misspelt key is an error, not ignored.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde::{Deserialize, Serialize};
use soul_kinds::Role;

/// `[town]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TownSection {
    /// The town's name (the roster event's `d` tag).
    pub name: String,
    /// The owner's public key, npub or hex; see [`crate::TownConfig::owner`].
    pub owner: String,
    /// What the town is for (seed 000's Mission): every model prompt carries it, under the
    /// constitution, so each judgement is weighed against it.
    pub mission: String,
}

/// The mission of seed 000, without the owner's name: the owner and family's wellbeing, and
/// their assets' growth.
pub const DEFAULT_MISSION: &str = "The wellbeing and happiness of the owner and the owner's \
     family, and the growth of their assets. Every judgement and action is weighed against this.";

impl Default for TownSection {
    fn default() -> Self {
        Self {
            name: "soul-town".into(),
            owner: String::new(),
            mission: DEFAULT_MISSION.into(),
        }
    }
}

/// `[relay]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RelaySection {
    /// Address the bundled relay binds.
    pub listen: SocketAddr,
    /// URL the agents connect to (ws:// or wss://).
    pub url: String,
    /// Public relays to bridge with.
    pub federation: Vec<String>,
    /// Largest event accepted, in bytes of JSON.
    pub max_event_bytes: usize,
    /// How far in the future `created_at` may be, in seconds.
    pub future_skew_secs: u64,
    /// Live events queued per subscribed connection before its subscriptions are CLOSED as
    /// fallen behind (the client re-subscribes from the `since` the CLOSED names).
    pub live_queue: usize,
    /// `[relay.rate]`: rate limits.
    pub rate: RateSection,
}

impl Default for RelaySection {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 7447)),
            url: "ws://127.0.0.1:7447".into(),
            federation: Vec::new(),
            max_event_bytes: 65536,
            future_skew_secs: 900,
            live_queue: 16_384,
            rate: RateSection::default(),
        }
    }
}

/// `[relay.rate]`: events per minute and bursts; sized for a busy town, not one client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateSection {
    /// Sustained events per minute per pubkey.
    pub per_pubkey_per_minute: u32,
    /// Burst per pubkey.
    pub per_pubkey_burst: u32,
    /// Sustained events per minute per IP address.
    pub per_ip_per_minute: u32,
    /// Burst per IP address.
    pub per_ip_burst: u32,
}

impl Default for RateSection {
    fn default() -> Self {
        Self {
            per_pubkey_per_minute: 1200,
            per_pubkey_burst: 300,
            per_ip_per_minute: 30000,
            per_ip_burst: 5000,
        }
    }
}

/// `[llm]`: an OpenAI-compatible (`…/v1`) or Ollama base URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmSection {
    /// Base URL of the model server.
    pub url: String,
    /// Model name.
    pub model: String,
    /// Tokens the town may spend per day before falling back to the built-in mind.
    pub daily_token_budget: u64,
    /// Sampling temperature for posts, replies and the buddy's conversation (0–2).
    pub writing_temperature: f64,
    /// Sampling temperature for opinions, proposals, reviews, evaluations and lessons (0–2).
    pub judging_temperature: f64,
    /// `[llm.agents.NAME]`: one agent's own server or model (seed 000 gives each brain its
    /// own); what an entry leaves out comes from `[llm]`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub agents: BTreeMap<String, AgentModel>,
}

/// `[llm.agents.NAME]`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentModel {
    /// This agent's model server, if not `[llm] url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// This agent's model, if not `[llm] model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Default for LlmSection {
    fn default() -> Self {
        Self {
            url: "http://127.0.0.1:11434".into(),
            model: "llama3.2".into(),
            daily_token_budget: 200_000,
            writing_temperature: 0.8,
            judging_temperature: 0.0,
            agents: BTreeMap::new(),
        }
    }
}

/// `[schedule]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScheduleSection {
    /// Evaluation cron expression (sec min hour dom mon dow).
    pub evaluation: String,
    /// Seconds between heartbeats.
    pub heartbeat_secs: u64,
}

impl Default for ScheduleSection {
    fn default() -> Self {
        Self {
            evaluation: "0 0 */6 * * *".into(),
            heartbeat_secs: 30,
        }
    }
}

/// `[dashboard]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DashboardSection {
    /// Address the dashboard binds.
    pub listen: SocketAddr,
    /// More names the dashboard answers to (`Host`), besides its bind address, `localhost`,
    /// `127.0.0.1` and `[::1]`: a LAN name or address (`"mybox.lan"`, `"192.168.1.5"`), or a
    /// `"name:port"` when a proxy or a container maps another port onto it. Any other `Host` is
    /// refused, so a web page on a name that merely resolves here (DNS rebinding) cannot use it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

impl Default for DashboardSection {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 3000)),
            hosts: Vec::new(),
        }
    }
}

/// One `[[roster]]` entry as written in `town.toml`; [`crate::TownConfig::roster`] checks it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RosterEntry {
    /// The agent's name (also its key file's name).
    pub name: String,
    /// The agent's role.
    pub role: Role,
    /// The agent's public key, npub or hex.
    pub pubkey: String,
}
