//! The forward pass: token embeddings, three n-gram CNN branches, pooling and a small DAN head.
//!
//! For a sentence of `T` tokens (with `<s>` and `</s>`):
//! 1. `e_t`: the token's 512-value embedding row.
//! 2. `x_t = LayerNorm(e_t @ P + p)`, 768 wide: the three branches' 256-wide inputs together.
//! 3. Each branch (n-gram order 2, 3 or 5, looking 0, 1 or 2 tokens back) is two residual
//!    convolutions over its window of tokens, zero past the sentence's ends:
//!    `h = x + relu(window(x) @ W1 + b1)`, `c = h + relu(window(h) @ W2 + b2)`.
//! 4. `f_t = LayerNorm([e_t | c2_t | c3_t | c5_t])`, 1280 wide, and the sentence vector is
//!    `m = (Σ_t f_t @ C + c) / √T`: the sum is taken first, so `C` is applied once.
//! 5. The head: `y0 = relu(m @ D0)`, `y1 = relu(y0 @ D1 + m @ P1)`, `y2 = relu(y1 @ D2)`,
//!    `z = tanh(y2 @ D3 + y1 @ P3)`, returned divided by its length.

use crate::error::Error;
use crate::format::Tensor;
use crate::matrix::Matrix;
use crate::table::Table;
use crate::DIM;

/// Width of one branch.
const CNN: usize = 256;
/// Width of the features pooled over the sentence: the embedding and the three branches.
const FEATS: usize = DIM + 3 * CNN;
/// Width of the head's hidden layers.
const HIDDEN: usize = 320;
/// Tokens per pass through the token-wise layers: enough to keep the weights busy, few enough
/// that the activations stay in cache (64 measured faster than 128 or 256).
const CHUNK: usize = 64;
/// How far apart two tokens can be and still affect each other's features: two convolutions,
/// each reaching two tokens either way.
const HALO: usize = 4;

/// One n-gram branch as the file describes it.
struct BranchSpec {
    /// Tokens per window.
    order: usize,
    /// Tokens each window reaches back before its own.
    back: usize,
    /// Projection, its bias, layer-norm scale and shift, then the two convolutions and biases.
    tensors: [&'static str; 8],
}

const BRANCHES: [BranchSpec; 3] = [
    BranchSpec {
        order: 2,
        back: 0,
        tensors: [
            "proj2", "proj_b2", "ln_g2", "ln_b2", "w1_2", "b1_2", "w2_2", "b2_2",
        ],
    },
    BranchSpec {
        order: 3,
        back: 1,
        tensors: [
            "proj3", "proj_b3", "ln_g3", "ln_b3", "w1_3", "b1_3", "w2_3", "b2_3",
        ],
    },
    BranchSpec {
        order: 5,
        back: 2,
        tensors: [
            "proj5", "proj_b5", "ln_g5", "ln_b5", "w1_5", "b1_5", "w2_5", "b2_5",
        ],
    },
];

struct Branch {
    order: usize,
    back: usize,
    w1: Matrix,
    b1: Vec<f32>,
    w2: Matrix,
    b2: Vec<f32>,
}

pub(crate) struct Network {
    proj: Matrix,
    proj_b: Vec<f32>,
    ln1: (Vec<f32>, Vec<f32>),
    branches: Vec<Branch>,
    ln2: (Vec<f32>, Vec<f32>),
    pool: Matrix,
    pool_b: Vec<f32>,
    head: [Matrix; 6],
    eps: f32,
}

impl Network {
    pub fn new(tensors: Vec<Tensor<'_>>, eps: f32) -> Result<Network, Error> {
        let mut t = Tensors(tensors);
        let (mut parts, mut proj_b, mut ln_g, mut ln_b) = (vec![], vec![], vec![], vec![]);
        let mut branches = Vec::new();
        for BranchSpec {
            order,
            back,
            tensors,
        } in BRANCHES
        {
            let [proj, bias, gamma, beta, w1, b1, w2, b2] = tensors;
            parts.push(t.take(proj, DIM, CNN)?);
            proj_b.extend(t.vector(bias, CNN)?);
            ln_g.extend(t.vector(gamma, CNN)?);
            ln_b.extend(t.vector(beta, CNN)?);
            branches.push(Branch {
                order,
                back,
                w1: t.matrix(w1, order * CNN, CNN)?,
                b1: t.vector(b1, CNN)?,
                w2: t.matrix(w2, order * CNN, CNN)?,
                b2: t.vector(b2, CNN)?,
            });
        }
        // The three projections side by side, so that one product feeds all branches.
        let proj = Matrix::new(DIM, 3 * CNN, |i| {
            let (row, col) = (i / (3 * CNN), i % (3 * CNN));
            parts[col / CNN].get(row * CNN + col % CNN)
        });
        Ok(Network {
            proj,
            proj_b,
            ln1: (ln_g, ln_b),
            branches,
            ln2: (t.vector("ln_g", FEATS)?, t.vector("ln_b", FEATS)?),
            pool: t.matrix("cnn_W", FEATS, DIM)?,
            pool_b: t.vector("cnn_b", DIM)?,
            head: [
                t.matrix("d0", DIM, HIDDEN)?,
                t.matrix("d1", HIDDEN, HIDDEN)?,
                t.matrix("p1", DIM, HIDDEN)?,
                t.matrix("d2", HIDDEN, DIM)?,
                t.matrix("p3", HIDDEN, DIM)?,
                t.matrix("d3", DIM, DIM)?,
            ],
            eps,
        })
    }

    /// One unit-length vector per sentence of token ids.
    ///
    /// The token-wise layers run over the sentences' tokens laid end to end, [`CHUNK`] at a
    /// time, so memory stays small however long a text is. A chunk ends at a sentence boundary
    /// when one is in reach; when it cuts a sentence, the [`HALO`] tokens either side of the
    /// cut are computed again, which makes the result exactly that of one pass.
    pub fn run(&self, table: &Table, sentences: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let tokens: Vec<u32> = sentences.iter().flatten().copied().collect();
        // For each token: its sentence and the token range that sentence covers.
        let mut owner = Vec::with_capacity(tokens.len());
        for (n, s) in sentences.iter().enumerate() {
            let start = owner.len();
            owner.extend(std::iter::repeat_n((n, start, start + s.len()), s.len()));
        }

        let mut sums = vec![0.0; sentences.len() * FEATS];
        let mut a = 0;
        while a < tokens.len() {
            let mut b = tokens.len().min(a + CHUNK);
            let (_, start, end) = owner[b - 1];
            if end > b && start > a {
                b = start;
            }
            let lo = a.saturating_sub(HALO).max(owner[a].1);
            let hi = (b + HALO).min(owner[b - 1].2);
            // Windows stop at the sentence's ends and at the ends of what is computed.
            let bounds: Vec<(usize, usize)> = owner[lo..hi]
                .iter()
                .map(|&(_, start, end)| (start.max(lo) - lo, end.min(hi) - lo))
                .collect();
            let feats = self.features(table, &tokens[lo..hi], &bounds);
            for (row, &(n, ..)) in feats.chunks_exact(FEATS).skip(a - lo).zip(&owner[a..b]) {
                let sum = &mut sums[n * FEATS..(n + 1) * FEATS];
                sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
            }
            a = b;
        }

        // The sentence vectors, then the head for all sentences at once: these weights are
        // then read once per four sentences rather than once per sentence.
        let mut m = self.pool_b.repeat(sentences.len());
        for (s, m) in sentences.iter().zip(m.chunks_exact_mut(DIM)) {
            // The bias, once per token; the products are added below.
            m.iter_mut().for_each(|v| *v *= s.len() as f32);
        }
        self.pool.mul_add(&sums, &mut m);
        for (s, m) in sentences.iter().zip(m.chunks_exact_mut(DIM)) {
            let root = (s.len() as f32).sqrt();
            m.iter_mut().for_each(|v| *v /= root);
        }
        self.head(&m)
            .chunks_exact(DIM)
            .map(<[f32]>::to_vec)
            .collect()
    }

    /// The layer-normed features `[e | c2 | c3 | c5]` of `tokens`, a row each; a token's
    /// windows stay within its `bounds` (positions in `tokens`).
    fn features(&self, table: &Table, tokens: &[u32], bounds: &[(usize, usize)]) -> Vec<f32> {
        let t = tokens.len();
        let mut emb = vec![0.0; t * DIM];
        for (id, row) in tokens.iter().zip(emb.chunks_exact_mut(DIM)) {
            table.row_into(*id, row);
        }
        let mut x = self.proj_b.repeat(t);
        self.proj.mul_add(&emb, &mut x);
        layer_norm(&mut x, &self.ln1, self.eps);

        let mut feats = vec![0.0; t * FEATS];
        for (f, e) in feats.chunks_exact_mut(FEATS).zip(emb.chunks_exact(DIM)) {
            f[..DIM].copy_from_slice(e);
        }
        for (b, branch) in self.branches.iter().enumerate() {
            let lanes = DIM + b * CNN..DIM + (b + 1) * CNN;
            let input: Vec<f32> = x
                .chunks_exact(3 * CNN)
                .flat_map(|r| &r[b * CNN..(b + 1) * CNN])
                .copied()
                .collect();
            let h = branch.residual(&input, &branch.w1, &branch.b1, bounds);
            let c = branch.residual(&h, &branch.w2, &branch.b2, bounds);
            for (f, c) in feats.chunks_exact_mut(FEATS).zip(c.chunks_exact(CNN)) {
                f[lanes.clone()].copy_from_slice(c);
            }
        }
        layer_norm(&mut feats, &self.ln2, self.eps);
        feats
    }

    /// The head over rows of pooled sentence vectors `m`: one unit vector per row.
    fn head(&self, m: &[f32]) -> Vec<f32> {
        let [d0, d1, p1, d2, p3, d3] = &self.head;
        let rows = m.len() / DIM;
        let mut y0 = vec![0.0; rows * HIDDEN];
        d0.mul_add(m, &mut y0);
        relu(&mut y0);
        let mut y1 = vec![0.0; rows * HIDDEN];
        d1.mul_add(&y0, &mut y1);
        p1.mul_add(m, &mut y1);
        relu(&mut y1);
        let mut y2 = vec![0.0; rows * DIM];
        d2.mul_add(&y1, &mut y2);
        relu(&mut y2);
        let mut z = vec![0.0; rows * DIM];
        d3.mul_add(&y2, &mut z);
        p3.mul_add(&y1, &mut z);
        for z in z.chunks_exact_mut(DIM) {
            z.iter_mut().for_each(|v| *v = v.tanh());
            let norm = z.iter().map(|v| v * v).sum::<f32>().max(self.eps).sqrt();
            z.iter_mut().for_each(|v| *v /= norm);
        }
        z
    }
}

impl Branch {
    /// `input + relu(window(input) @ w + b)`, each token's window cut at its sentence's ends.
    fn residual(
        &self,
        input: &[f32],
        w: &Matrix,
        b: &[f32],
        bounds: &[(usize, usize)],
    ) -> Vec<f32> {
        let width = self.order * CNN;
        let mut windows = vec![0.0; bounds.len() * width];
        for (t, (window, &(start, end))) in windows.chunks_exact_mut(width).zip(bounds).enumerate()
        {
            for (k, slot) in window.chunks_exact_mut(CNN).enumerate() {
                let Some(src) = (t + k).checked_sub(self.back) else {
                    continue;
                };
                if (start..end).contains(&src) {
                    slot.copy_from_slice(&input[src * CNN..(src + 1) * CNN]);
                }
            }
        }
        let mut out = b.repeat(bounds.len());
        w.mul_add(&windows, &mut out);
        for (o, i) in out.iter_mut().zip(input) {
            *o = o.max(0.0) + i;
        }
        out
    }
}

/// The file's tensors, taken out by name and shape.
struct Tensors<'a>(Vec<Tensor<'a>>);

impl<'a> Tensors<'a> {
    fn take(&mut self, name: &'static str, rows: usize, cols: usize) -> Result<Tensor<'a>, Error> {
        let at = self.0.iter().position(|t| t.name == name);
        let t = self.0.swap_remove(at.ok_or(Error::MissingTensor { name })?);
        if (t.rows, t.cols) != (rows, cols) {
            let (expected, found) = ((rows, cols), (t.rows, t.cols));
            return Err(Error::TensorShape {
                name,
                expected,
                found,
            });
        }
        Ok(t)
    }

    fn vector(&mut self, name: &'static str, len: usize) -> Result<Vec<f32>, Error> {
        Ok(self.take(name, 1, len)?.to_vec())
    }

    fn matrix(&mut self, name: &'static str, rows: usize, cols: usize) -> Result<Matrix, Error> {
        let t = self.take(name, rows, cols)?;
        Ok(Matrix::new(rows, cols, |i| t.get(i)))
    }
}

fn relu(v: &mut [f32]) {
    v.iter_mut().for_each(|x| *x = x.max(0.0));
}

/// Normalises each row of `rows` (rows as wide as `gamma`) to zero mean and unit variance,
/// then scales by `gamma` and shifts by `beta`.
fn layer_norm(rows: &mut [f32], (gamma, beta): &(Vec<f32>, Vec<f32>), eps: f32) {
    let width = gamma.len();
    for row in rows.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() / width as f32;
        row.iter_mut().for_each(|v| *v -= mean);
        let var = row.iter().map(|v| v * v).sum::<f32>() / width as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = *v * inv * g + b;
        }
    }
}
