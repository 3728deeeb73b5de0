//! The embedding table: one packed row of 512 codes per piece, unpacked when a token needs it.

use std::borrow::Cow;

use crate::format::Row;
use crate::DIM;

/// Rows as stored in the file: each keeps only the bits its own range of codes needs, so the
/// table stays at about half a byte per value and is never expanded to floats as a whole.
pub(crate) struct Table {
    pub codes: Cow<'static, [u8]>,
    pub rows: Vec<Row>,
}

impl Table {
    /// Writes row `id` into `out` (`DIM` floats).
    pub fn row_into(&self, id: u32, out: &mut [f32]) {
        let row = self.rows[id as usize];
        let bits = u32::from(row.bits);
        let start = row.start as usize;
        let packed = &self.codes[start..start + DIM / 8 * bits as usize];
        let mask = (1u32 << bits) - 1;
        let (mut acc, mut held) = (0u32, 0u32);
        let mut next = packed.iter();
        for value in &mut out[..DIM] {
            if held < bits {
                acc |= u32::from(*next.next().unwrap_or(&0)) << held;
                held += 8;
            }
            let code = u32::from(row.base) + (acc & mask);
            acc >>= bits;
            held -= bits;
            *value = code as f32 * row.scale + row.lo;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpacks_codes_least_significant_bit_first() {
        // Codes 0..8 cycling, 3 bits each: 512 * 3 / 8 = 192 bytes.
        let mut packed = vec![0u8; 192];
        for j in 0..DIM {
            let (bit, code) = (j * 3, (j % 8) as u32);
            for b in 0..3 {
                if code >> b & 1 == 1 {
                    packed[(bit + b) / 8] |= 1 << ((bit + b) % 8);
                }
            }
        }
        let row = Row {
            start: 0,
            scale: 0.5,
            lo: -1.0,
            base: 2,
            bits: 3,
        };
        let table = Table {
            codes: Cow::Owned(packed),
            rows: vec![row],
        };
        let mut out = vec![0.0; DIM];
        table.row_into(0, &mut out);
        for (j, v) in out.iter().enumerate() {
            assert_eq!(*v, (2 + j % 8) as f32 * 0.5 - 1.0, "value {j}");
        }

        let flat = Table {
            codes: Cow::Owned(vec![]),
            rows: vec![Row { bits: 0, ..row }],
        };
        flat.row_into(0, &mut out);
        assert!(out.iter().all(|&v| v == 0.0));
    }
}
