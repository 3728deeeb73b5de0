//! Evaluation (4366): one brain's scores for another in an evaluation cycle.

use nostr::{EventBuilder, PublicKey, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, check_unit, FieldError, Params, SoulContent, MAX_NAME, MAX_TEXT};
use crate::kind::SoulKind;
use crate::tags::{named, CYCLE};

/// Scores, each within 0..=1.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    /// How good the target's votes turned out.
    pub decision_quality: f64,
    /// How well it worked with the others.
    pub collaboration: f64,
    /// How well its executions went.
    pub effectiveness: f64,
    /// Whether its params suit its role.
    pub parameter_balance: f64,
}

/// Content of an evaluation event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Which cycle this belongs to (the same string for the three brains' evaluations).
    pub cycle: String,
    /// The scores.
    pub scores: Scores,
    /// Whether the evaluator thinks the target should retune.
    pub needs_retuning: bool,
    /// The params the evaluator proposes, if any.
    pub proposed_params: Option<Params>,
    /// Why (may be empty).
    pub reason: String,
}

impl SoulContent for Evaluation {
    const KIND: SoulKind = SoulKind::Evaluation;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("cycle", &self.cycle, 1, MAX_NAME)?;
        check_unit("scores.decision_quality", self.scores.decision_quality)?;
        check_unit("scores.collaboration", self.scores.collaboration)?;
        check_unit("scores.effectiveness", self.scores.effectiveness)?;
        check_unit("scores.parameter_balance", self.scores.parameter_balance)?;
        if let Some(p) = &self.proposed_params {
            // `field` must be 'static, so the nested name goes into the reason.
            p.validate().map_err(|e| {
                FieldError::new("proposed_params", format!("{}: {}", e.field, e.reason))
            })?;
        }
        check_text("reason", &self.reason, 0, MAX_TEXT)
    }

    fn alt(&self) -> String {
        let retune = if self.needs_retuning {
            ", needs retuning"
        } else {
            ""
        };
        format!(
            "soul evaluation for cycle {}: decision quality {:.2}{retune}",
            self.cycle, self.scores.decision_quality
        )
    }
}

/// An evaluation event: `p` the evaluated brain, `["cycle", cycle]`.
pub fn evaluation(target: PublicKey, content: &Evaluation) -> EventBuilder {
    base(content)
        .tag(Tag::public_key(target))
        .tag(named(CYCLE, content.cycle.clone()))
}
