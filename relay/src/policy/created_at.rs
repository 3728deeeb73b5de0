//! Refuses events stamped too far in the future (`invalid:`).
//!
//! Old events are fine: federation and replays legitimately bring them. A future timestamp is
//! either a broken clock or an attempt to stay on top of every `since` query.

use nostr::Timestamp;

use super::{Admission, Check, Prefix, Reject};

/// Upper bound on `created_at`.
#[derive(Debug)]
pub struct CreatedAtCheck {
    max_skew_secs: u64,
}

impl CreatedAtCheck {
    /// Allow at most `max_skew_secs` ahead of this machine's clock.
    pub fn new(max_skew_secs: u64) -> Self {
        Self { max_skew_secs }
    }
}

impl Check for CreatedAtCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        let now = Timestamp::now().as_secs();
        let at = a.event.created_at.as_secs();
        if at > now + self.max_skew_secs {
            return Err(Reject::new(
                Prefix::Invalid,
                format!(
                    "created_at is {} s in the future; this relay allows at most {} s",
                    at - now,
                    self.max_skew_secs
                ),
            ));
        }
        Ok(())
    }
}
