//! Restart (4369): one step of the two-step restart protocol (DESIGN §6).

use nostr::{EventBuilder, EventId};
use serde::{Deserialize, Serialize};

use super::{base, check_text, FieldError, SoulContent, MAX_NAME, MAX_TEXT};
use crate::kind::SoulKind;
use crate::tags::{e_marked, REPLY, ROOT};

/// Where a restart stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestartStatus {
    /// Triceratops asks.
    PendingApproval,
    /// Gorilla checked the allowlist and the approved decision.
    Approved,
    /// Panda performed it.
    Completed,
    /// It did not happen.
    Failed,
}

impl RestartStatus {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            RestartStatus::PendingApproval => "pending_approval",
            RestartStatus::Approved => "approved",
            RestartStatus::Completed => "completed",
            RestartStatus::Failed => "failed",
        }
    }
}

/// Content of a restart event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RestartStep {
    /// The agent or service to restart, 1..=64 characters.
    pub service: String,
    /// This step.
    pub status: RestartStatus,
    /// Why (may be empty).
    pub reason: String,
}

impl SoulContent for RestartStep {
    const KIND: SoulKind = SoulKind::Restart;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("service", &self.service, 1, MAX_NAME)?;
        check_text("reason", &self.reason, 0, MAX_TEXT)
    }

    fn alt(&self) -> String {
        format!("soul restart of {}: {}", self.service, self.status.as_str())
    }
}

/// A restart event: `["e", task, "", "root"]`, and `["e", request, "", "reply"]` for every step
/// after the request.
pub fn restart(task: EventId, request: Option<EventId>, content: &RestartStep) -> EventBuilder {
    base(content)
        .tag(e_marked(task, ROOT))
        .tag_maybe(request.map(|id| e_marked(id, REPLY)))
}
