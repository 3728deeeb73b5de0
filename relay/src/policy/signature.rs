//! Refuses events whose id is not the hash of their fields or whose signature fails (`invalid:`).

use super::{Admission, Check, Prefix, Reject};

/// NIP-01 id and Schnorr signature verification.
#[derive(Debug)]
pub struct SignatureCheck;

impl Check for SignatureCheck {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        if !a.event.verify_id() {
            return Err(Reject::new(
                Prefix::Invalid,
                "event id does not match the hash of the event's fields",
            ));
        }
        if !a.event.verify_signature() {
            return Err(Reject::new(
                Prefix::Invalid,
                "signature does not verify against the event's pubkey",
            ));
        }
        Ok(())
    }
}
