//! Worker state (34363): a worker's run state and params, addressable by its name.

use std::collections::BTreeMap;

use nostr::{EventBuilder, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, FieldError, SoulContent, MAX_ITEMS, MAX_NAME};
use crate::kind::SoulKind;

/// Whether a worker is working.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerRun {
    /// Working.
    Running,
    /// Paused by a command.
    Paused,
}

/// Content of a worker state event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct WorkerState {
    /// Running or paused.
    pub state: WorkerRun,
    /// Named numeric params set by `adjust_params`; at most 32, names 1..=64 characters.
    pub params: BTreeMap<String, f64>,
}

impl SoulContent for WorkerState {
    const KIND: SoulKind = SoulKind::WorkerState;

    fn validate(&self) -> Result<(), FieldError> {
        if self.params.len() > MAX_ITEMS {
            return Err(FieldError::new(
                "params",
                format!("must have at most {MAX_ITEMS} entries"),
            ));
        }
        for (name, value) in &self.params {
            check_text("params", name, 1, MAX_NAME)?;
            if !value.is_finite() {
                return Err(FieldError::new("params", format!("{name} must be finite")));
            }
        }
        Ok(())
    }

    fn alt(&self) -> String {
        let state = match self.state {
            WorkerRun::Running => "running",
            WorkerRun::Paused => "paused",
        };
        format!("soul worker: {state}")
    }
}

/// A worker state event, `d` = the worker's name.
pub fn worker_state(name: &str, content: &WorkerState) -> EventBuilder {
    base(content).tag(Tag::identifier(name))
}
