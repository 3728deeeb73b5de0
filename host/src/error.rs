//! The one error type of soul-host: why an agent's role or the host stopped.

use soul_link::LinkError;

/// Why an agent's task (or the host) stopped. The host logs it and restarts the agent.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The relay could not be reached, refused an event, or the connection failed.
    #[error(transparent)]
    Link(#[from] LinkError),
    /// An event's content does not parse as its kind says (the kinds error names the event).
    #[error(transparent)]
    Content(#[from] soul_kinds::Error),
    /// An agent was started as a brain but is none of panda, gorilla and triceratops.
    #[error("agent {name} runs as a brain but is not one of the town's brains (panda, gorilla, triceratops): fix its role in town.toml")]
    NotABrain {
        /// The agent's roster name.
        name: String,
    },
    /// The reporter's HTTP client could not be built (no TLS provider).
    #[error("the reporter's HTTP client cannot start: {0}")]
    Http(#[source] reqwest::Error),
    /// A resident's memory could not be sealed to itself (NIP-44).
    #[error("{agent}'s memory was not sealed: {source}")]
    Seal {
        /// The resident.
        agent: String,
        /// Why.
        source: crate::roles::resident::memory::MemoryError,
    },
}
