//! soul's agent runtime and command line.
//!
//! # Layout
//! - [`cli`]: the `soul` commands, one file each; [`agent_cli`]: the `soul-agent` command.
//! - [`host`]: many agents in one process, each signing its own events; restarts and presence.
//! - [`roles`]: what each role does once up (brains, residents, reviewer, reporter, workers).
//! - [`mind`]: the `Mind` trait, the built-in and model minds, the writer, karma upkeep.
//! - [`guard`]: the guardian's ordered checks, the authorization gate, the owner's CONFIRM.
//! - [`audit`]: one verdict event and one SQLite row per guarded decision.
//! - [`link`]: the host's shared connection to the relay; [`dm`]: NIP-17 messages over it,
//!   with replay protection.
//! - [`bridge`]: federation with public relays (NIP-77 where the peer speaks it).
//! - [`dashboard`]: the web page and its small HTTP API.
//! - [`town`]: the town directory: template and loading; [`clock`] and [`schedule`]: the town
//!   clock (`--speed`) and cron schedules on it.
//!
//! **Architecture invariant:** agents never call each other. They publish signed events to the
//! relay and react to what they read there; an agent's state is a fold over those events.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent_cli;
pub mod audit;
pub mod bridge;
pub mod cli;
pub mod clock;
pub mod dashboard;
pub mod dm;
pub mod guard;
pub mod host;
pub mod link;
pub mod mind;
pub mod roles;
pub mod schedule;
pub mod town;

/// Sets up `tracing` to stderr, `RUST_LOG` or `info` by default.
pub fn init_tracing() {
    use std::io::IsTerminal;
    // nostr-sdk narrates every (re)connection at info; a person reading soul's log wants soul's.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("info,nostr_relay_pool=warn,nostr_sdk=warn")
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
}
