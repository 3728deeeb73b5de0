//! A set of embeddings kept small and searched by cosine: each unit vector stored as [`DIM`]
//! signed bytes under one shared scale, so a cosine is an integer dot product that vectorises.
//! The built-in mind keeps its labelled tasks this way (`soul_mind::brain::precedent`).
//!
//! It lives here, beside the encoder, because it is the same kind of work: pure arithmetic on
//! embeddings, built with optimisation in every profile (a debug build searching 25,000 rows
//! per task would slow every test that reads a task).

use crate::error::Error;
use crate::DIM;

/// Embeddings quantised to signed bytes, searched for the nearest to a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// [`DIM`] bytes per embedding: its numbers times `scale`, rounded.
    rows: Vec<i8>,
    /// What every number was multiplied by before rounding.
    scale: f32,
}

impl Index {
    /// An index of `embeddings`, each [`DIM`] numbers (unit vectors, as the encoder makes them).
    ///
    /// # Panics
    ///
    /// If an embedding is not [`DIM`] numbers long.
    pub fn new(embeddings: &[Vec<f32>]) -> Index {
        assert!(
            embeddings.iter().all(|e| e.len() == DIM),
            "every embedding has {DIM} numbers"
        );
        let largest = embeddings
            .iter()
            .flatten()
            .fold(0f32, |m, x| m.max(x.abs()))
            .max(f32::MIN_POSITIVE);
        let scale = 127.0 / largest;
        let rows = embeddings.iter().flat_map(|e| quantise(e, scale)).collect();
        Index { rows, scale }
    }

    /// How many embeddings it holds.
    pub fn len(&self) -> usize {
        self.rows.len() / DIM
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The `k` embeddings nearest to `query` ([`DIM`] numbers), nearest first, each as (its
    /// cosine with the query, its place in the index); ties go to the earlier place, so the
    /// same query always finds the same neighbours.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<(f32, usize)> {
        let query = quantise(query, self.scale);
        let mut scored: Vec<(i32, usize)> = self
            .rows
            .chunks_exact(DIM)
            .enumerate()
            .map(|(i, row)| (dot(row, &query), i))
            .collect();
        let order = |a: &(i32, usize), b: &(i32, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        let k = k.min(scored.len());
        if k == 0 {
            return Vec::new();
        }
        if k < scored.len() {
            scored.select_nth_unstable_by(k - 1, order);
            scored.truncate(k);
        }
        scored.sort_unstable_by(order);
        let unit = self.scale * self.scale;
        scored
            .into_iter()
            .map(|(d, i)| (d as f32 / unit, i))
            .collect()
    }

    /// Bytes: the scale (little-endian), then every row.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.rows.len());
        out.extend_from_slice(&self.scale.to_le_bytes());
        out.extend(self.rows.iter().map(|&v| v.to_le_bytes()[0]));
        out
    }

    /// Reads [`Index::to_bytes`]'s form; `bytes` must hold exactly it.
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, Error> {
        let Some((scale, rows)) = bytes.split_first_chunk::<4>() else {
            return Err(Error::Truncated {
                section: "index",
                offset: 0,
            });
        };
        let scale = f32::from_le_bytes(*scale);
        if !(scale.is_finite() && scale > 0.0) {
            return Err(Error::Invalid {
                section: "index",
                offset: 0,
                reason: "the scale is not a positive number",
            });
        }
        if rows.len() % DIM != 0 {
            return Err(Error::Truncated {
                section: "index",
                offset: 4 + rows.len() / DIM * DIM,
            });
        }
        Ok(Index {
            rows: rows.iter().map(|&b| i8::from_le_bytes([b])).collect(),
            scale,
        })
    }
}

/// `embedding` times `scale`, rounded into signed bytes.
fn quantise(embedding: &[f32], scale: f32) -> Vec<i8> {
    embedding
        .iter()
        .map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

/// The integer dot product of two rows, in sixteen lanes so that it vectorises.
fn dot(a: &[i8], b: &[i8]) -> i32 {
    let mut lanes = [0i32; 16];
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for k in 0..16 {
            lanes[k] += i32::from(x[k]) * i32::from(y[k]);
        }
    }
    lanes.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit vector along axis `axis`, tilted by `tilt` towards the next one.
    fn unit(axis: usize, tilt: f32) -> Vec<f32> {
        let mut v = vec![0f32; DIM];
        v[axis] = 1.0;
        v[(axis + 1) % DIM] = tilt;
        let n = (1.0 + tilt * tilt).sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn finds_the_nearest_by_cosine_nearest_first() {
        let index = Index::new(&[unit(0, 0.5), unit(9, 0.0), unit(0, 0.1), unit(0, 0.0)]);
        let found = index.nearest(&unit(0, 0.0), 3);
        let places: Vec<usize> = found.iter().map(|&(_, i)| i).collect();
        assert_eq!(places, [3, 2, 0]);
        assert!((found[0].0 - 1.0).abs() < 0.02, "{found:?}");
        let expected = 1.0 / 1.25f32.sqrt();
        assert!((found[2].0 - expected).abs() < 0.02, "{found:?}");
        assert_eq!(index.nearest(&unit(0, 0.0), 10).len(), 4);
        assert!(index.nearest(&unit(0, 0.0), 0).is_empty());
    }

    #[test]
    fn ties_go_to_the_earlier_place() {
        let index = Index::new(&[unit(5, 0.0), unit(5, 0.0), unit(5, 0.0)]);
        let places: Vec<usize> = index
            .nearest(&unit(5, 0.0), 2)
            .iter()
            .map(|p| p.1)
            .collect();
        assert_eq!(places, [0, 1]);
    }

    #[test]
    fn bytes_round_trip_and_bad_bytes_are_named() {
        let index = Index::new(&[unit(1, 0.3), unit(2, -0.3)]);
        let bytes = index.to_bytes();
        assert_eq!(bytes.len(), 4 + 2 * DIM);
        assert_eq!(Index::from_bytes(&bytes).unwrap(), index);
        let short = Index::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(short.to_string().contains("index section"), "{short}");
        let mut zero = bytes.clone();
        zero[..4].copy_from_slice(&0f32.to_le_bytes());
        assert!(Index::from_bytes(&zero).is_err());
        assert!(Index::from_bytes(&[1, 2]).is_err());
    }
}
