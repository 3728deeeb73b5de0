//! The family's precedents: every labelled task's sentence embedding and whether it was
//! refused, kept so that a new task can be read by the tasks nearest to it in meaning. Trained
//! (collected) by `train_judge` and stored in `mind/data/judge.bin` after the reading of meaning.
//!
//! Why, beside [`super::meaning`]: that network draws one smooth boundary through the embedding
//! space, and a near miss ("Turn the firewall back on", "Change the wifi password and tell only
//! me") sits close to the harm it shares its words with. The nearest precedents keep the fine
//! grain: when the 25 tasks closest in meaning were mostly ordinary, so probably is this one.
//! Out of fold on whole writers' sets (2026-11-28, 24,665 tasks, a Python experiment before
//! this was written), blending this vote into the reading at the same 1.5 % of harms passed
//! refused about 16 % fewer ordinary tasks; the weight and neighbourhood below are its choice,
//! and quantising to 8 bits changed nothing.
//!
//! The embeddings are kept as `soul_encoder::index::Index` keeps them: 512 signed bytes a task,
//! searched by cosine.

use soul_encoder::index::Index;

/// How many of the nearest precedents vote (10 to 100 tried; 25 to 50 read alike).
pub const NEIGHBOURS: usize = 25;
/// How sharply a nearer precedent outweighs a farther one: each votes with weight
/// `exp(cosine / TEMPERATURE)`, so 0.05 more cosine counts e times more.
pub const TEMPERATURE: f64 = 0.05;
/// The vote's share of the reading's log-odds, added to them (0.1 to 0.8 tried).
pub const PRECEDENT_WEIGHT: f64 = 0.5;
/// The vote is held within [FLOOR, 1 - FLOOR] before it becomes log-odds: 25 ordinary
/// neighbours say "probably ordinary", not "certainly".
const FLOOR: f64 = 0.02;

/// Labelled tasks' embeddings and whether each was refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Precedents {
    /// The tasks' embeddings.
    index: Index,
    /// Whether each task was refused, in the index's order.
    refused: Vec<bool>,
}

impl Precedents {
    /// The precedents of `embeddings` (the encoder's unit vectors) labelled `refused`.
    pub fn new(embeddings: &[Vec<f32>], refused: &[bool]) -> Precedents {
        assert_eq!(embeddings.len(), refused.len(), "one label per embedding");
        Precedents {
            index: Index::new(embeddings),
            refused: refused.to_vec(),
        }
    }

    /// How many precedents there are.
    pub fn len(&self) -> usize {
        self.refused.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.refused.is_empty()
    }

    /// The weighted share of refused tasks among the [`NEIGHBOURS`] nearest to `embedding`;
    /// an even 0.5 when there are no precedents.
    pub fn share(&self, embedding: &[f32]) -> f64 {
        let (mut refused, mut all) = (0.0, 0.0);
        for (cosine, i) in self.index.nearest(embedding, NEIGHBOURS) {
            let w = (f64::from(cosine) / TEMPERATURE).exp();
            all += w;
            if self.refused[i] {
                refused += w;
            }
        }
        if all == 0.0 {
            0.5
        } else {
            refused / all
        }
    }

    /// [`Precedents::share`] as log-odds, held off certainty by [`FLOOR`].
    pub fn logit(&self, embedding: &[f32]) -> f64 {
        let s = self.share(embedding).clamp(FLOOR, 1.0 - FLOOR);
        (s / (1.0 - s)).ln()
    }

    /// Bytes: the count (little-endian), the labels (one byte each), then the index.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = (self.refused.len() as u32).to_le_bytes().to_vec();
        out.extend(self.refused.iter().map(|&r| u8::from(r)));
        out.extend(self.index.to_bytes());
        out
    }

    /// Reads [`Precedents::to_bytes`]'s form; `bytes` must hold exactly it.
    pub fn from_bytes(bytes: &[u8]) -> Result<Precedents, String> {
        let (n, rest) = bytes
            .split_first_chunk::<4>()
            .ok_or("precedents: truncated before the count")?;
        let n = u32::from_le_bytes(*n) as usize;
        let (labels, index) = rest
            .split_at_checked(n)
            .ok_or_else(|| format!("precedents: {n} tasks, but only {} bytes", rest.len()))?;
        let index = Index::from_bytes(index).map_err(|e| format!("precedents: {e}"))?;
        if index.len() != n {
            return Err(format!(
                "precedents: {n} labels but {} embeddings",
                index.len()
            ));
        }
        Ok(Precedents {
            index,
            refused: labels.iter().map(|&b| b != 0).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::meaning::INPUT;

    /// A unit vector pointing mostly along axis `axis`, tilted by `tilt` along the next one.
    fn unit(axis: usize, tilt: f32) -> Vec<f32> {
        let mut v = vec![0f32; INPUT];
        v[axis] = 1.0;
        v[(axis + 1) % INPUT] = tilt;
        let n = (1.0 + tilt * tilt).sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn the_nearest_precedents_vote() {
        // Thirty refused tasks along axis 0, thirty ordinary ones along axis 7.
        let mut e = Vec::new();
        let mut labels = Vec::new();
        for k in 0..30 {
            e.push(unit(0, k as f32 * 0.01));
            labels.push(true);
            e.push(unit(7, k as f32 * 0.01));
            labels.push(false);
        }
        let p = Precedents::new(&e, &labels);
        assert!(p.share(&unit(0, 0.05)) > 0.9);
        assert!(p.share(&unit(7, 0.05)) < 0.1);
        assert!(p.logit(&unit(0, 0.05)) > 0.0 && p.logit(&unit(7, 0.05)) < 0.0);
        // Held off certainty.
        assert!(p.logit(&unit(0, 0.0)) <= (0.98f64 / 0.02).ln() + 1e-9);
    }

    #[test]
    fn a_nearer_precedent_outweighs_farther_ones() {
        // One refused task right on the query; the rest of the neighbourhood ordinary and
        // farther off: the near one carries the vote.
        let mut e = vec![unit(3, 0.0)];
        let mut labels = vec![true];
        for k in 0..40 {
            e.push(unit(3, 0.6 + k as f32 * 0.01));
            labels.push(false);
        }
        let p = Precedents::new(&e, &labels);
        assert!(p.share(&unit(3, 0.0)) > 0.5, "{}", p.share(&unit(3, 0.0)));
        assert!(p.share(&unit(3, 0.8)) < 0.5);
    }

    #[test]
    fn bytes_round_trip_and_bad_bytes_are_named() {
        let e: Vec<Vec<f32>> = (0..5).map(|k| unit(k * 3, 0.2)).collect();
        let p = Precedents::new(&e, &[true, false, true, false, false]);
        let bytes = p.to_bytes();
        assert_eq!(Precedents::from_bytes(&bytes), Ok(p));
        let err = Precedents::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(err.contains("index section"), "{err}");
        let err = Precedents::from_bytes(&bytes[..10]).unwrap_err();
        assert!(err.contains("precedents"), "{err}");
        assert!(Precedents::from_bytes(&[1, 0]).is_err());
    }

    #[test]
    fn no_precedents_say_nothing() {
        let p = Precedents::new(&[], &[]);
        assert_eq!(p.logit(&unit(0, 0.0)), 0.0);
    }
}
