//! Execution (4364): progress of carrying out an announced decision.

use nostr::{EventBuilder, EventId};
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_TEXT};
use crate::kind::SoulKind;
use crate::tags::{e_marked, REPLY, ROOT};

/// Where an execution stands: executing, then completed, failed, or needs_owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecStatus {
    /// Work has started.
    Executing,
    /// Done; final.
    Completed,
    /// Gave up; final.
    Failed,
    /// Nothing the town has can carry the decision out: the result names what the owner would
    /// have to add (a skill, a permission) or do. Final (DESIGN §12).
    NeedsOwner,
}

impl ExecStatus {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ExecStatus::Executing => "executing",
            ExecStatus::Completed => "completed",
            ExecStatus::Failed => "failed",
            ExecStatus::NeedsOwner => "needs_owner",
        }
    }
}

/// Content of an execution event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Execution {
    /// Where it stands.
    pub status: ExecStatus,
    /// What happened so far (may be empty while executing).
    pub result: String,
}

impl SoulContent for Execution {
    const KIND: SoulKind = SoulKind::Execution;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("result", &self.result, 0, MAX_TEXT)
    }

    fn alt(&self) -> String {
        if self.result.is_empty() {
            format!("soul execution: {}", self.status.as_str())
        } else {
            let result = one_line(&self.result, 100);
            format!("soul execution: {}: {result}", self.status.as_str())
        }
    }
}

/// An execution event: `["e", task, "", "root"]`, `["e", decision, "", "reply"]`.
pub fn execution(task: EventId, decision: EventId, content: &Execution) -> EventBuilder {
    base(content)
        .tag(e_marked(task, ROOT))
        .tag(e_marked(decision, REPLY))
}
