//! Refuses events whose frame is larger than the configured limit (`invalid:`). The owner's
//! roster (34364) lists every member, so it has a limit of its own; whoever signed it, the
//! owner-only check further down the chain still refuses anyone else's.

use soul_kinds::SoulKind;

use super::{Admission, Check, Prefix, Reject};

/// The `["EVENT", …]` envelope around the event itself; the limit is on the event.
const ENVELOPE_BYTES: usize = 16;

/// Size limit on a single event.
#[derive(Debug)]
pub struct SizeCheck {
    max_event_bytes: usize,
    max_roster_bytes: usize,
}

impl SizeCheck {
    /// Refuse events over `max_event_bytes`, and roster events over `max_roster_bytes`.
    pub fn new(max_event_bytes: usize, max_roster_bytes: usize) -> Self {
        Self {
            max_event_bytes,
            max_roster_bytes,
        }
    }
}

impl Check for SizeCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        let size = a.frame_len.saturating_sub(ENVELOPE_BYTES);
        let limit = if a.event.kind == SoulKind::Roster.kind() {
            self.max_roster_bytes.max(self.max_event_bytes)
        } else {
            self.max_event_bytes
        };
        if size > limit {
            return Err(Reject::new(
                Prefix::Invalid,
                format!("event is {size} bytes, over this relay's limit of {limit} bytes"),
            ));
        }
        Ok(())
    }
}
