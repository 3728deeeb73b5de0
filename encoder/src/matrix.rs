//! Dense weights and the one kernel the network needs: `out += x @ W` over rows of `x`.
//!
//! Plain safe Rust that the compiler vectorises: `W` is stored in panels of [`PANEL`]
//! columns (all of a panel's rows contiguous, read front to back), and [`BLOCK`] rows of `x`
//! go through each panel together with their sums held in registers, so each weight is loaded
//! once per four tokens instead of once per token.

/// Columns per panel: one 32-byte run of a weight row.
const PANEL: usize = 8;
/// Rows of `x` multiplied together.
const BLOCK: usize = 4;

/// A `rows` x `cols` weight matrix (`y = x @ W`), stored in column panels.
pub(crate) struct Matrix {
    rows: usize,
    cols: usize,
    panels: Vec<f32>,
}

impl Matrix {
    /// From `value(i)`, the `i`th value in row-major order. `cols` must be a multiple of
    /// [`PANEL`] (every layer's is).
    pub fn new(rows: usize, cols: usize, value: impl Fn(usize) -> f32) -> Matrix {
        assert!(
            cols % PANEL == 0,
            "matrix width {cols} is not a multiple of {PANEL}"
        );
        let mut panels = Vec::with_capacity(rows * cols);
        for p in (0..cols).step_by(PANEL) {
            for k in 0..rows {
                panels.extend((p..p + PANEL).map(|c| value(k * cols + c)));
            }
        }
        Matrix { rows, cols, panels }
    }

    /// Adds `x @ W` to `out`, row by row: `x` holds rows of `self.rows` values, `out` the
    /// same number of rows of `self.cols`.
    pub fn mul_add(&self, x: &[f32], out: &mut [f32]) {
        let (k, n) = (self.rows, self.cols);
        debug_assert_eq!(x.len() / k, out.len() / n);
        let mut scratch = vec![0.0; BLOCK * k];
        let mut xs = x.chunks_exact(BLOCK * k);
        let mut outs = out.chunks_exact_mut(BLOCK * n);
        for (x, out) in (&mut xs).zip(&mut outs) {
            self.block::<BLOCK>(x, out, &mut scratch);
        }
        let (x, out) = (xs.remainder(), outs.into_remainder());
        match x.len() / k {
            3 => self.block::<3>(x, out, &mut scratch),
            2 => self.block::<2>(x, out, &mut scratch),
            1 => self.block::<1>(x, out, &mut scratch),
            _ => {}
        }
    }

    /// `R` rows at once. `scratch` receives them interleaved (input `i` of every row side by
    /// side) so that the inner loop walks the rows and the panel in step.
    fn block<const R: usize>(&self, x: &[f32], out: &mut [f32], scratch: &mut [f32]) {
        let k = self.rows;
        let xt = &mut scratch[..R * k];
        for (r, row) in x.chunks_exact(k).enumerate() {
            for (i, &v) in row.iter().enumerate() {
                xt[i * R + r] = v;
            }
        }
        for (p, panel) in self.panels.chunks_exact(k * PANEL).enumerate() {
            let mut acc = [[0.0f32; PANEL]; R];
            for (xs, w) in xt.chunks_exact(R).zip(panel.chunks_exact(PANEL)) {
                // Fixed-size arrays indexed over constant ranges: the compiler unrolls these
                // loops and keeps `acc` in registers. Zipping iterators instead measured 8x
                // slower. (`chunks_exact` yields whole chunks: the `else` never runs.)
                let (Ok(xs), Ok(w)) = (<&[f32; R]>::try_from(xs), <&[f32; PANEL]>::try_from(w))
                else {
                    continue;
                };
                #[allow(clippy::needless_range_loop)]
                for r in 0..R {
                    for c in 0..PANEL {
                        acc[r][c] += xs[r] * w[c];
                    }
                }
            }
            for (sums, row) in acc.iter().zip(out.chunks_exact_mut(self.cols)) {
                for (o, s) in row[p * PANEL..(p + 1) * PANEL].iter_mut().zip(sums) {
                    *o += s;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_naive_product_for_every_block_size() {
        let (k, n) = (5, 16);
        let w: Vec<f32> = (0..k * n).map(|v| (v % 7) as f32 - 3.0).collect();
        let m = Matrix::new(k, n, |i| w[i]);
        for rows in 1..=9 {
            let x: Vec<f32> = (0..rows * k).map(|v| (v % 5) as f32 * 0.5).collect();
            let mut out = vec![1.0; rows * n];
            m.mul_add(&x, &mut out);
            for r in 0..rows {
                for c in 0..n {
                    let want: f32 = 1.0 + (0..k).map(|i| x[r * k + i] * w[i * n + c]).sum::<f32>();
                    assert_eq!(out[r * n + c], want, "row {r} col {c} of {rows}");
                }
            }
        }
    }
}
