//! soul's identities on disk: key files (`nsec1…` or NIP-49 `ncryptsec1…`, mode 0600) and the
//! town directory with its `town.toml`.
//!
//! # Layout
//! - [`keyfile`]: generate, write, load and encrypt key files; find an agent's key by name.
//! - [`passphrase`]: where an encrypted key's passphrase comes from (`SOUL_PASSPHRASE`, a prompt).
//! - [`town`]: the town directory's paths and `town.toml` ([`TownConfig`]), roster included.
//! - [`sections`]: the sections of `town.toml` and their defaults.
//! - [`error`]: the crate's one [`Error`]; every message names the file and what to do next.
//!
//! No async and no network: this crate only reads and writes files.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod keyfile;
pub mod passphrase;
pub mod sections;
pub mod town;

pub use error::Error;
pub use keyfile::{encrypt_in_place, find_key, generate, load, write_ncryptsec, write_nsec, LOG_N};
pub use passphrase::{EnvOrPrompt, Fixed, PassphraseSource, PASSPHRASE_ENV};
pub use sections::{
    AgentModel, DashboardSection, LlmSection, RateSection, RelaySection, RosterEntry,
    ScheduleSection, TownSection, DEFAULT_MISSION,
};
pub use town::{TownConfig, TownDir, TOWN_TOML};
