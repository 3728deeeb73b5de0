//! The relay's live view of the town roster: who the owner is and which pubkeys are members.
//!
//! It starts from `town.toml` and follows the owner's roster events (34364): when the owner
//! publishes a new roster, the relay's policy uses it from the next event on.

use std::sync::{Arc, RwLock};

use nostr::{Event, PublicKey};
use soul_kinds::{Role, Roster, SoulKind};

use crate::policy::{Prefix, Reject};

/// Shared, swappable roster. Cloning shares the same view.
#[derive(Debug, Clone)]
pub struct RosterView(Arc<RwLock<Arc<Roster>>>);

impl RosterView {
    /// A view starting from `roster`.
    pub fn new(roster: Roster) -> Self {
        Self(Arc::new(RwLock::new(Arc::new(roster))))
    }

    /// The current roster. Fails closed: a poisoned lock refuses instead of guessing.
    pub fn current(&self) -> Result<Arc<Roster>, Reject> {
        self.0
            .read()
            .map(|r| Arc::clone(&r))
            .map_err(|_| Reject::new(Prefix::Error, "roster unavailable; try again"))
    }

    /// Adopt `event` if it is a roster event from the owner for this town; returns whether it did.
    pub fn follow(&self, event: &Event) -> bool {
        if event.kind != SoulKind::Roster.kind() {
            return false;
        }
        let Ok(current) = self.current() else {
            return false;
        };
        if event.pubkey != current.owner {
            return false;
        }
        match Roster::from_event(event) {
            Ok(next) if next.town == current.town => {
                if let Ok(mut slot) = self.0.write() {
                    tracing::info!(
                        members = next.members().len(),
                        "relay follows the owner's new roster"
                    );
                    *slot = Arc::new(next);
                    return true;
                }
                false
            }
            Ok(_) => false,
            Err(e) => {
                tracing::warn!("ignoring the owner's roster event: {e}");
                false
            }
        }
    }
}

/// What the roster says about one pubkey.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// The town's owner.
    Owner,
    /// A member with this role.
    Member(Role),
    /// Not in the town.
    Stranger,
}

/// Looks up `pubkey` in `roster`.
pub fn standing(roster: &Roster, pubkey: &PublicKey) -> Standing {
    if roster.owner == *pubkey {
        Standing::Owner
    } else if let Some(m) = roster.member(pubkey) {
        Standing::Member(m.role)
    } else {
        Standing::Stranger
    }
}
