//! Custom soul kinds only from the town: the owner or a roster member (`blocked:`).

use nostr::nips::nip19::ToBech32;
use soul_kinds::SoulKind;

use super::{Admission, Check, Prefix, Reject};
use crate::roster::{standing, RosterView, Standing};

/// Membership check for soul's custom kinds. Standard kinds (profiles, notes, gift wraps, relay
/// lists) are open to anyone, as on any public relay; gift wraps have their own check.
#[derive(Debug)]
pub struct RosterCheck {
    roster: RosterView,
}

impl RosterCheck {
    /// Check against the live `roster`.
    pub fn new(roster: RosterView) -> Self {
        Self { roster }
    }
}

impl Check for RosterCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        let Some(kind) = SoulKind::from_kind(a.event.kind) else {
            return Ok(());
        };
        let roster = self.roster.current()?;
        if standing(&roster, &a.event.pubkey) == Standing::Stranger {
            let who = a
                .event
                .pubkey
                .to_bech32()
                .unwrap_or_else(|_| a.event.pubkey.to_hex());
            return Err(Reject::new(
                Prefix::Blocked,
                format!(
                    "kind {} ({}) is for members of town {}; {who} is not in its roster",
                    kind.number(),
                    kind.name(),
                    roster.town
                ),
            ));
        }
        Ok(())
    }
}
