//! Refuses events whose id is not the hash of their fields or whose signature fails (`invalid:`).

use std::cell::RefCell;
use std::collections::HashMap;

use nostr::secp256k1::{Message, XOnlyPublicKey};
use nostr::{Event, SECP256K1};

use super::{Admission, Check, Prefix, Reject};

/// Parsed keys kept per thread, at most. A town's authors are few and post again and again; a
/// key that is not cached costs what it always did, so a flood of new keys only empties the
/// cache (about 100 bytes an entry).
const KEYS_PER_THREAD: usize = 4_096;

thread_local! {
    /// An x-only key parsed from its 32 bytes (a square root on the curve, about 3 µs: a tenth
    /// of a Schnorr check), per author, on this worker thread.
    static KEYS: RefCell<HashMap<[u8; 32], XOnlyPublicKey>> = RefCell::new(HashMap::new());
}

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
        if !verify_signature(a.event) {
            return Err(Reject::new(
                Prefix::Invalid,
                "signature does not verify against the event's pubkey",
            ));
        }
        Ok(())
    }
}

/// `Event::verify_signature`, with the author's key parsed once per thread instead of once per
/// event: the same BIP-340 check over the same key, message (the id) and signature.
fn verify_signature(event: &Event) -> bool {
    let bytes: [u8; 32] = event.pubkey.to_bytes();
    let key = KEYS.with_borrow_mut(|keys| {
        if let Some(key) = keys.get(&bytes) {
            return Some(*key);
        }
        let key = XOnlyPublicKey::from_slice(&bytes).ok()?;
        if keys.len() >= KEYS_PER_THREAD {
            keys.clear();
        }
        keys.insert(bytes, key);
        Some(key)
    });
    let Some(key) = key else {
        return false;
    };
    let message = Message::from_digest(event.id.to_bytes());
    SECP256K1.verify_schnorr(&event.sig, &message, &key).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::{EventBuilder, Keys};

    /// Same answer as nostr's own check, for good events, a signature from another event and a
    /// key that is not on the curve, whether the key is cached yet or not.
    #[test]
    fn agrees_with_nostr() {
        let (a, b) = (Keys::generate(), Keys::generate());
        let good = EventBuilder::text_note("one").sign_with_keys(&a).unwrap();
        let other = EventBuilder::text_note("two").sign_with_keys(&a).unwrap();
        let mut swapped = good.clone();
        swapped.sig = other.sig;
        let mut wrong_key = good.clone();
        wrong_key.pubkey = b.public_key();
        let mut off_curve = good.clone();
        // x = 5 is not the x-coordinate of a point on secp256k1.
        let mut x = [0u8; 32];
        x[31] = 5;
        off_curve.pubkey = nostr::PublicKey::from_slice(&x).unwrap();
        for _ in 0..2 {
            for e in [&good, &other, &swapped, &wrong_key, &off_curve] {
                assert_eq!(verify_signature(e), e.verify_signature());
            }
        }
        assert!(verify_signature(&good));
        assert!(!verify_signature(&swapped));
        assert!(!verify_signature(&wrong_key));
        assert!(!verify_signature(&off_curve));
    }
}
