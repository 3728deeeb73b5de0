//! Limited-memory BFGS (Nocedal & Wright, *Numerical Optimization*, algorithm 7.4) with a
//! backtracking Armijo line search: what the learned readings' logistic regressions are fitted
//! with. Full-batch gradient descent stopped long before the optimum on these ill-conditioned
//! problems (hundreds of thousands of sparse n-gram weights under a weak L2 penalty), and the
//! early stop cost the readings a third of their precision. Written here rather than taken
//! from a crate because it is thirty lines on plain slices and must be deterministic: the same
//! data gives the same shipped weights, bit for bit.

use std::collections::VecDeque;

/// Past steps remembered to shape the next one.
const MEMORY: usize = 10;
/// Sufficient decrease for the line search (Armijo's constant).
const ARMIJO: f64 = 1e-4;
/// Stop when the largest partial derivative is this small.
const GRADIENT_TOLERANCE: f64 = 1e-6;
/// Stop when an iteration lowers the objective by less than this share of it.
const OBJECTIVE_TOLERANCE: f64 = 1e-10;

/// The `x` that minimises `objective` (which returns f(x) and writes ∇f(x) into its second
/// argument) from `x`, within `max_iterations`.
pub(crate) fn minimize(
    mut x: Vec<f64>,
    objective: impl Fn(&[f64], &mut [f64]) -> f64,
    max_iterations: usize,
) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut fx = objective(&x, &mut g);
    // (s, y, 1 / sᵀy) of the last steps, oldest first.
    let mut memory: VecDeque<(Vec<f64>, Vec<f64>, f64)> = VecDeque::with_capacity(MEMORY);
    let (mut x_new, mut g_new) = (vec![0.0; n], vec![0.0; n]);
    for _ in 0..max_iterations {
        if g.iter().all(|v| v.abs() < GRADIENT_TOLERANCE) {
            break;
        }
        let mut d = direction(&g, &memory);
        let mut slope = dot(&d, &g);
        if slope >= 0.0 {
            // The curvature pairs no longer describe the function here: start over downhill.
            memory.clear();
            d = g.iter().map(|v| -v).collect();
            slope = dot(&d, &g);
        }
        // The first step knows nothing of the scale: keep it to a unit length.
        let mut step = if memory.is_empty() {
            1.0 / dot(&d, &d).sqrt().max(1.0)
        } else {
            1.0
        };
        let f_new = loop {
            x_new
                .iter_mut()
                .zip(&x)
                .zip(&d)
                .for_each(|((xn, xi), di)| *xn = xi + step * di);
            let f_new = objective(&x_new, &mut g_new);
            if f_new <= fx + ARMIJO * step * slope {
                break Some(f_new);
            }
            step *= 0.5;
            if step < 1e-12 {
                break None;
            }
        };
        let Some(f_new) = f_new else {
            break;
        };
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 {
            if memory.len() == MEMORY {
                memory.pop_front();
            }
            memory.push_back((s, y, 1.0 / sy));
        }
        let gain = fx - f_new;
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        fx = f_new;
        if gain <= OBJECTIVE_TOLERANCE * fx.abs().max(1.0) {
            break;
        }
    }
    x
}

/// −H·g by the two-loop recursion over the remembered steps.
fn direction(g: &[f64], memory: &VecDeque<(Vec<f64>, Vec<f64>, f64)>) -> Vec<f64> {
    let mut q = g.to_vec();
    let mut alphas = Vec::with_capacity(memory.len());
    for (s, y, rho) in memory.iter().rev() {
        let a = rho * dot(s, &q);
        q.iter_mut().zip(y).for_each(|(qi, yi)| *qi -= a * yi);
        alphas.push(a);
    }
    if let Some((s, y, _)) = memory.back() {
        let gamma = dot(s, y) / dot(y, y);
        q.iter_mut().for_each(|qi| *qi *= gamma);
    }
    for ((s, y, rho), a) in memory.iter().zip(alphas.into_iter().rev()) {
        let b = rho * dot(y, &q);
        q.iter_mut().zip(s).for_each(|(qi, si)| *qi += (a - b) * si);
    }
    q.iter_mut().for_each(|qi| *qi = -*qi);
    q
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_an_ill_conditioned_quadratic() {
        // f(x) = Σ kᵢ (xᵢ − i)², curvatures from 1 to 10⁴.
        let k: Vec<f64> = (0..20)
            .map(|i| 10f64.powf(f64::from(i) / 19.0 * 4.0))
            .collect();
        let f = |x: &[f64], g: &mut [f64]| {
            let mut v = 0.0;
            for (i, xi) in x.iter().enumerate() {
                let d = xi - i as f64;
                v += k[i] * d * d;
                g[i] = 2.0 * k[i] * d;
            }
            v
        };
        let x = minimize(vec![0.0; 20], f, 500);
        for (i, xi) in x.iter().enumerate() {
            assert!((xi - i as f64).abs() < 1e-4, "x[{i}] = {xi}");
        }
    }
}
