//! Gift wraps (1059) only when addressed to the town (`blocked:`).
//!
//! A gift wrap's author is a throwaway key, so the recipient `p` tag is the only thing a relay can
//! judge. Storing wraps for outsiders would make the town relay a free mailbox for anyone.

use nostr::{Kind, PublicKey};

use super::{Admission, Check, Prefix, Reject};
use crate::roster::{standing, RosterView, Standing};

/// Recipient check for gift wraps.
#[derive(Debug)]
pub struct GiftWrapRecipientCheck {
    roster: RosterView,
}

impl GiftWrapRecipientCheck {
    /// Check against the live `roster`.
    pub fn new(roster: RosterView) -> Self {
        Self { roster }
    }
}

impl Check for GiftWrapRecipientCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        if a.event.kind != Kind::GiftWrap {
            return Ok(());
        }
        let roster = self.roster.current()?;
        let recipients: Vec<&PublicKey> = a.event.tags.public_keys().collect();
        if recipients.is_empty() {
            return Err(Reject::new(
                Prefix::Invalid,
                "a gift wrap must name its recipient in a p tag",
            ));
        }
        if let Some(outsider) = recipients
            .iter()
            .find(|p| standing(&roster, p) == Standing::Stranger)
        {
            return Err(Reject::new(
                Prefix::Blocked,
                format!(
                    "gift wraps here are only for members of town {}; {} is not one",
                    roster.town,
                    outsider.to_hex()
                ),
            ));
        }
        Ok(())
    }
}
