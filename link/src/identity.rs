//! Who an agent is, below the roles and minds that act as it and the host that runs it.

use nostr::Keys;
use soul_kinds::Role;

/// Who an agent is: its name and role in the roster and its keys.
#[derive(Debug, Clone)]
pub struct Identity {
    /// Roster name (`panda`, `hana`, …).
    pub name: String,
    /// Roster role.
    pub role: Role,
    /// The agent's keys; it signs everything it publishes with them.
    pub keys: Keys,
}
