//! Params (34360): a brain's personality, addressable by the brain's name.

use nostr::{EventBuilder, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_unit, FieldError, SoulContent};
use crate::kind::SoulKind;

/// The five personality parameters of seed 000, each within 0..=1.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Willingness to accept risk.
    pub risk_tolerance: f64,
    /// Weight given to new approaches.
    pub innovation_weight: f64,
    /// Weight given to safety.
    pub safety_weight: f64,
    /// How deeply to examine a task.
    pub thoroughness: f64,
    /// Readiness to move towards the others' view in later rounds.
    pub consensus_flexibility: f64,
}

impl SoulContent for Params {
    const KIND: SoulKind = SoulKind::Params;

    fn validate(&self) -> Result<(), FieldError> {
        check_unit("risk_tolerance", self.risk_tolerance)?;
        check_unit("innovation_weight", self.innovation_weight)?;
        check_unit("safety_weight", self.safety_weight)?;
        check_unit("thoroughness", self.thoroughness)?;
        check_unit("consensus_flexibility", self.consensus_flexibility)
    }

    fn alt(&self) -> String {
        format!(
            "soul params: risk {:.2}, innovation {:.2}, safety {:.2}, thoroughness {:.2}, \
             flexibility {:.2}",
            self.risk_tolerance,
            self.innovation_weight,
            self.safety_weight,
            self.thoroughness,
            self.consensus_flexibility
        )
    }
}

/// A params event, `d` = the brain's name.
pub fn params(name: &str, content: &Params) -> EventBuilder {
    base(content).tag(Tag::identifier(name))
}

/// The owner's params for a brain (DESIGN §12, "Owner's hand"): `d` = the brain's name, `p` =
/// the brain, so that the brain (and any client) can tell whom they are for.
pub fn owner_params(brain: &str, brain_key: nostr::PublicKey, content: &Params) -> EventBuilder {
    params(brain, content).tag(Tag::public_key(brain_key))
}
