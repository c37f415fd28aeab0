//! AdamW with the gradient reduction fused in, applied by each training thread to its own
//! range of parameter rows.
//!
//! Weights (`W1`, `w2` and the factoriser's rows) are decayed and clipped, biases not.
//!
//! Each training thread leaves its gradients in its own [`Gradients`] buffer. In the update
//! phase thread `t` owns rows `bounds[t]..bounds[t + 1]` of the flat parameter vector (and the
//! Adam moments of those rows): for each row it sums the workers' buffers **in worker order**,
//! skipping `W1` rows a worker's bitmap says it never wrote, and applies AdamW to the row.
//! Every element's arithmetic is the same whichever thread does it, so the result depends only
//! on the gradients, never on the split: runs are reproducible. (Each worker re-zeroes the rows
//! it wrote at the start of its next batch, see [`Gradients::zero`].)
//!
//! The Adam moments are dense: every `W1` row is updated each step, a row that saw no
//! position getting a zero gradient (standard Adam semantics, so momentum keeps moving it).
//! That costs one pass over `768 x H` floats per step, shared among the threads and small
//! beside the batch itself, and avoids the bookkeeping of lazy updates.

use super::net::{B2_ROW, FACTOR_ROW, Gradients, INPUTS, PARAM_ROWS, W2_ROW};

/// Adam's first-moment decay.
pub const BETA1: f32 = 0.9;
/// Adam's second-moment decay.
pub const BETA2: f32 = 0.999;
/// Adam's denominator epsilon.
pub const EPSILON: f32 = 1e-8;

/// Whether a row holds weights (`W1`, `w2`: decayed and clipped) rather than biases.
fn is_weight_row(row: usize) -> bool {
    debug_assert!(row < PARAM_ROWS);
    row < INPUTS || (W2_ROW..B2_ROW).contains(&row) || row >= FACTOR_ROW
}

/// Row ranges for `parts` threads: `bounds[t]..bounds[t + 1]`, as equal as possible.
pub fn row_bounds(parts: usize) -> Vec<usize> {
    (0..=parts).map(|t| PARAM_ROWS * t / parts).collect()
}

/// The scalars of one AdamW step, shared by all rows.
#[derive(Clone, Copy, Debug)]
pub struct StepScalars {
    lr: f32,
    step_size: f32,
    inv_sqrt_bc2: f32,
    weight_decay: f32,
    clip: f32,
}

impl StepScalars {
    /// Step `step` (1-based) at learning rate `lr`, decoupled weight decay `weight_decay` on
    /// weights, and weights clipped to `[-clip, clip]` afterwards.
    pub fn new(step: i32, lr: f32, weight_decay: f32, clip: f32) -> StepScalars {
        StepScalars {
            lr,
            step_size: lr / (1.0 - BETA1.powi(step)),
            inv_sqrt_bc2: 1.0 / (1.0 - BETA2.powi(step)).sqrt(),
            weight_decay,
            clip,
        }
    }
}

/// Adam moments for one range of rows.
#[derive(Clone, Debug)]
pub struct Moments {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Moments {
    pub fn new(len: usize) -> Moments {
        Moments {
            m: vec![0.0; len],
            v: vec![0.0; len],
        }
    }

    /// Moments saved before (a checkpoint's): first `m`, second `v`, of the same length.
    pub fn from_parts(m: Vec<f32>, v: Vec<f32>) -> Moments {
        assert_eq!(m.len(), v.len(), "first and second moments of one range");
        Moments { m, v }
    }

    /// The first moments.
    pub fn m(&self) -> &[f32] {
        &self.m
    }

    /// The second moments.
    pub fn v(&self) -> &[f32] {
        &self.v
    }

    /// Reduces the workers' gradients for rows `first_row..` (as many as `params` holds) and
    /// applies one AdamW step to them. `grads` are in worker order; `scratch` holds `hidden`
    /// floats.
    pub fn update_rows(
        &mut self,
        first_row: usize,
        params: &mut [f32],
        grads: &[&Gradients],
        s: StepScalars,
        scratch: &mut [f32],
    ) {
        let hidden = scratch.len();
        let g = scratch;
        let rows = params
            .chunks_exact_mut(hidden)
            .zip(self.m.chunks_exact_mut(hidden))
            .zip(self.v.chunks_exact_mut(hidden));
        for (k, ((p, m), v)) in rows.enumerate() {
            let row = first_row + k;
            g.fill(0.0);
            for worker in grads {
                if worker.touched.get(row) {
                    let src = &worker.values[row * hidden..(row + 1) * hidden];
                    for (g, &b) in g.iter_mut().zip(src) {
                        *g += b;
                    }
                }
            }
            let weight = is_weight_row(row);
            let keep = if weight {
                1.0 - s.lr * s.weight_decay
            } else {
                1.0
            };
            let clip = if weight { s.clip } else { f32::INFINITY };
            for (((p, m), v), &g) in p.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()).zip(&*g) {
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                let update = s.step_size * *m / ((*v).sqrt() * s.inv_sqrt_bc2 + EPSILON);
                *p = (*p * keep - update).clamp(-clip, clip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::net::B1_ROW;

    /// The reduction and update do not depend on how many threads share the rows, and match a
    /// scalar AdamW step.
    #[test]
    fn step_is_split_independent_and_correct() {
        let h = 8;
        let n = PARAM_ROWS * h;
        let init = |i: usize| (i % 13) as f32 * 0.1 - 0.6;
        let mut a = Gradients::new(h);
        let mut b = Gradients::new(h);
        a.values[5 * h + 1] = 0.5;
        a.touched.set(5);
        b.values[5 * h + 1] = 0.25;
        b.touched.set(5);
        b.values[9 * h] = 7.0; // never marked touched: ignored
        b.values[B1_ROW * h + 2] = -1.0;
        let s = StepScalars::new(1, 0.1, 0.01, 1.98);
        let mut results = Vec::new();
        for parts in [1, 3, 7] {
            let mut params: Vec<f32> = (0..n).map(init).collect();
            let bounds = row_bounds(parts);
            for w in bounds.windows(2) {
                let mut moments = Moments::new((w[1] - w[0]) * h);
                let range = &mut params[w[0] * h..w[1] * h];
                moments.update_rows(w[0], range, &[&a, &b], s, &mut [0.0; 8]);
            }
            results.push(params);
        }
        assert_eq!(results[0], results[1]);
        assert_eq!(results[0], results[2]);
        let p = &results[0];
        // A first Adam step moves by about lr * sign(g), plus decay for weights.
        let i = 5 * h + 1;
        assert!((p[i] - (init(i) * (1.0 - 0.001) - 0.1)).abs() < 1e-5);
        let i = B1_ROW * h + 2;
        assert!((p[i] - (init(i) + 0.1)).abs() < 1e-5);
        let i = 9 * h;
        assert_eq!(p[i], init(i) * (1.0 - 0.001));
        // Zeroing clears what was written and the bitmap.
        b.zero();
        assert!(b.values.iter().all(|&x| x == 0.0 || x == 7.0) && !b.touched.get(5));
    }
}
