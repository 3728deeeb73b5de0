//! Kinds with a narrower author: tasks (4360) from the owner or a brain, the roster (34364) from
//! the owner alone (`blocked:`).
//!
//! A brain may publish a task only on the owner's behalf: gorilla a DM'd task, triceratops an
//! accepted suggestion, each tagging the owner and its source
//! ([`soul_kinds::may_publish_task`], which the brains apply again before debating).

use soul_kinds::{Role, SoulKind};

use super::{Admission, Check, Prefix, Reject};
use crate::roster::{standing, RosterView, Standing};

/// Author restrictions on owner-level kinds.
#[derive(Debug)]
pub struct OwnerOnlyCheck {
    roster: RosterView,
}

impl OwnerOnlyCheck {
    /// Check against the live `roster`.
    pub fn new(roster: RosterView) -> Self {
        Self { roster }
    }
}

impl Check for OwnerOnlyCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        let kind = SoulKind::from_kind(a.event.kind);
        if !matches!(kind, Some(SoulKind::Task | SoulKind::Roster)) {
            return Ok(());
        }
        let roster = self.roster.current()?;
        match (kind, standing(&roster, &a.event.pubkey)) {
            (_, Standing::Owner) => Ok(()),
            (Some(SoulKind::Task), Standing::Member(Role::Brain)) => {
                let brains = roster.brains().ok_or_else(|| {
                    Reject::new(Prefix::Blocked, "the roster names no three brains")
                })?;
                soul_kinds::may_publish_task(a.event, &roster.owner, &brains)
                    .map_err(|why| Reject::new(Prefix::Blocked, why))
            }
            (Some(SoulKind::Task), _) => Err(Reject::new(
                Prefix::Blocked,
                "tasks (kind 4360) come only from the town's owner, or from a brain relaying the owner",
            )),
            _ => Err(Reject::new(
                Prefix::Blocked,
                "the roster (kind 34364) is published only by the town's owner",
            )),
        }
    }
}
