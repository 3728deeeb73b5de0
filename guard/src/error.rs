//! The one error type of soul-guard.

use soul_link::LinkError;

/// Why the leash could not load its rules or record a verdict.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// A rules file cannot be read or parsed; the agent does not start (fail closed).
    #[error("{file}: {reason}")]
    Rules {
        /// The file (or "the built-in rules/NAME").
        file: String,
        /// What is wrong, naming the rule and field where there is one.
        reason: String,
    },
    /// The verdict event was not accepted by the relay.
    #[error("verdict event not published: {0}")]
    Publish(#[from] LinkError),
    /// The audit row was not written to karma.sqlite.
    #[error("audit row not written: {0}")]
    Row(#[from] soul_karma::Error),
}
