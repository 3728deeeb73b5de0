//! soul's bundled Nostr relay: the town's shared place.
//!
//! It stores events in LMDB under the town directory, admits each EVENT through one ordered
//! policy chain that fails closed, serves gift wraps only to their NIP-42-authenticated
//! recipient, answers NIP-11 on the same port, and reconciles with peers over NIP-77.
//!
//! # Layout
//! - [`policy`]: the write-policy chain, one file per check.
//! - [`roster`]: the live view of who is in the town.
//! - [`relay`]: the shared core (store, chain, live fan-out) and ingestion.
//! - `fanout`: live events to the connections whose subscriptions match, each through its own
//!   bounded queue; a full queue CLOSEs the subscriptions it would have fed.
//! - `session`: one WebSocket connection's NIP-01/42/77 handling.
//! - [`server`]: the HTTP front (upgrade, NIP-11) and graceful shutdown.
//! - `wire`: NIP-01 frames printed directly, a live event once for all its subscribers.
//! - [`config`], [`nip11`], [`error`].
//!
//! **Architecture invariant:** this is the only crate that names the store backend
//! (`nostr-lmdb`); every other crate talks to the relay over WebSocket like any client.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod error;
mod fanout;
pub mod nip11;
pub mod policy;
pub mod relay;
pub mod roster;
pub mod server;
mod session;
mod wire;

pub use config::{RelayConfig, RelayInfo};
pub use error::Error;
pub use policy::{Prefix, RateLimits, Reject};
pub use relay::Relay;
pub use roster::RosterView;
pub use server::{bind, serve};
