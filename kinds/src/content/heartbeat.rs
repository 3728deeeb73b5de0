//! Heartbeat (14360, replaceable): an agent says it is alive and how busy it is.

use nostr::EventBuilder;
use serde::{Deserialize, Serialize};

use super::{base, check_text, FieldError, SoulContent, MAX_NAME};
use crate::kind::SoulKind;

/// Content of a heartbeat event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Heartbeat {
    /// A short state such as "idle" or "debating", 1..=64 characters.
    pub status: String,
    /// Unix seconds of the agent's last loop tick.
    pub last_tick: u64,
    /// Load, a finite number >= 0 (1.0 = fully busy; more = backlog).
    pub load: f64,
}

impl SoulContent for Heartbeat {
    const KIND: SoulKind = SoulKind::Heartbeat;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("status", &self.status, 1, MAX_NAME)?;
        if !(self.load.is_finite() && self.load >= 0.0) {
            return Err(FieldError::new("load", "must be a finite number >= 0"));
        }
        Ok(())
    }

    fn alt(&self) -> String {
        format!("soul heartbeat: {} (load {:.2})", self.status, self.load)
    }
}

/// A heartbeat event (replaceable: relays keep the latest per agent).
pub fn heartbeat(content: &Heartbeat) -> EventBuilder {
    base(content)
}
