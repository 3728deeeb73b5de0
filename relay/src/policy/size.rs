//! Refuses events whose frame is larger than the configured limit (`invalid:`).

use super::{Admission, Check, Prefix, Reject};

/// The `["EVENT", …]` envelope around the event itself; the limit is on the event.
const ENVELOPE_BYTES: usize = 16;

/// Size limit on a single event.
#[derive(Debug)]
pub struct SizeCheck {
    max_event_bytes: usize,
}

impl SizeCheck {
    /// Refuse events over `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        Self { max_event_bytes }
    }
}

impl Check for SizeCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        let size = a.frame_len.saturating_sub(ENVELOPE_BYTES);
        if size > self.max_event_bytes {
            return Err(Reject::new(
                Prefix::Invalid,
                format!(
                    "event is {size} bytes, over this relay's limit of {} bytes",
                    self.max_event_bytes
                ),
            ));
        }
        Ok(())
    }
}
