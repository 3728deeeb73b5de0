//! The residents' seeded random source (seed 001: 70/20/10 and ±30 %).
//!
//! Each draw comes from a ChaCha stream keyed by the resident's public key and a step number
//! that the relay already holds (the previous draft's `created_at`, the time of the last post),
//! so a resident that restarts, or moves machines, draws what it would have drawn.

use nostr::PublicKey;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which source a new post draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pick {
    /// 70 %: carry on from the last post.
    Continue,
    /// 20 %: a news item from the bulletin.
    News,
    /// 10 %: a town event.
    Event,
}

/// A resident's random stream for one step.
pub fn dice(resident: &PublicKey, step: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::from_seed(resident.to_bytes());
    rng.set_stream(step);
    rng
}

/// The 70/20/10 draw.
pub fn pick(rng: &mut impl Rng) -> Pick {
    match rng.random_range(0..100u32) {
        0..70 => Pick::Continue,
        70..90 => Pick::News,
        _ => Pick::Event,
    }
}

/// A factor within 0.7..=1.3 for the next post time (±30 %).
pub fn jitter(rng: &mut impl Rng) -> f64 {
    rng.random_range(0.7..=1.3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_and_step_same_draws() {
        let k = nostr::Keys::generate().public_key();
        let a: Vec<Pick> = (0..50).map(|s| pick(&mut dice(&k, s))).collect();
        let b: Vec<Pick> = (0..50).map(|s| pick(&mut dice(&k, s))).collect();
        assert_eq!(a, b);
        let j = jitter(&mut dice(&k, 1));
        assert!((0.7..=1.3).contains(&j));
    }
}
