//! soul's face: the `soul` and `soul-agent` command lines and the dashboard.
//!
//! # Layout
//! - [`cli`]: the `soul` commands, one file each; [`agent_cli`]: the `soul-agent` command.
//! - [`dashboard`]: the web page and its small HTTP API.
//!
//! What they drive lives below: soul-host (the host, the roles, the town directory), soul-mind,
//! soul-guard (the leash), soul-link (the relay connection, DMs, the town clock), soul-bridge
//! (federation), soul-proposal (what a mind proposes), and the base crates.
//!
//! **Architecture invariant:** agents never call each other. They publish signed events to the
//! relay and react to what they read there; an agent's state is a fold over those events.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent_cli;
pub mod cli;
pub mod dashboard;

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
