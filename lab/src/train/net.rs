//! The network `(768 -> H) x 2 -> 1` in floating point (training) and quantised (the file
//! lazuli loads), with the SCReLU activation `clamp(x, 0, 1)^2`.
//!
//! # Features
//! Each perspective sees every piece through one of 768 inputs. From White's perspective a
//! piece of colour `c`, role `r` (0 pawn .. 5 king) on square `s` (a1 = 0) is input
//! `(c == White ? 0 : 384) + 64 r + s`; from Black's it is `(c == Black ? 0 : 384) + 64 r +
//! (s ^ 56)`, the board seen upside down with colours swapped. Both perspectives share the
//! weights `W1` and bias `b1`, so a position and its colour-flipped mirror evaluate the same.
//!
//! # Forward pass
//! `acc_p = b1 + sum of the W1 rows of p's active inputs`, `a_p = clamp(acc_p, 0, 1)^2`, and
//! `out = a_us . w2[..H] + a_them . w2[H..] + b2` where "us" is the side to move. The evaluation
//! is `out * SCALE` centipawns for the side to move. Training minimises `(sigmoid(out) - t)^2`.
//!
//! # Output buckets
//! A net may have `B` output layers (`w2`, `b2`; `B` is 1, 2, 4 or 8) and score each position
//! with the one of its piece count ([`bucket`]), as the engine does: the hidden layer is shared
//! and each bucket's layer learns from its positions alone.
//!
//! # Parameter layout
//! All parameters live in one flat vector of [`PARAM_ROWS`] rows of `H` floats: rows
//! `0..768` are `W1` (one row per input), row [`B1_ROW`] is `b1`, rows `W2_ROW + 2b` and
//! `W2_ROW + 2b + 1` are bucket `b`'s `w2` (us, then them; room for [`MAX_BUCKETS`], the rows
//! of buckets a net lacks stay zero), row [`B2_ROW`] holds bucket `b`'s `b2` in element `b`
//! (the rest is padding that stays zero), and rows [`FACTOR_ROW`]`..`[`PARAM_ROWS`] are the
//! factoriser's 12 piece rows (zero unless the run trains with `--factoriser`, see below).
//! Gradients use the same layout, so the optimiser treats every row alike and can split rows
//! among threads.
//!
//! # Factoriser
//! With little data most of the 768 inputs are seen rarely (a king in the centre, a rook on the
//! seventh rank in a given file), so their rows stay near their random start and the search
//! finds the positions where that noise is in its favour. A factoriser (as bullet and
//! marlinflow train king buckets) gives every input a second, shared row: the row of its piece
//! (colour as seen from the perspective, and role), `FACTOR_ROW + input / 64`. Training then
//! learns `W1[input] + F[input / 64]`: what all squares of a piece have in common is learnt
//! from every position with that piece, and each square's own row only its difference. The
//! factor is an extra active input ([`Features::factorised`]), so the passes need no special
//! case; [`Network::merge_factors`] folds it into `W1` when training ends, and the file and the
//! engine never see it.
//!
//! # Sparsity
//! A position activates about 32 inputs per perspective, so the forward and backward passes
//! read and write only those ~64 rows of `W1` (plus `b1`, `w2`, `b2`). [`Gradients`] records
//! which `W1` rows it wrote in a bitmap so the reduction only reads and re-zeroes those.
//!
//! # Quantisation and the net file
//! [`Network::quantise`] rounds to nearest: `W1`, `b1` times [`QA`] and `w2` times [`QB`] as
//! i16, `b2` times `QA * QB` as i32. The file ([`QuantisedNet::to_bytes`]) is, little-endian:
//! `b"LZNN"`, u32 version (1 for one bucket, 2 for more), hidden `H`, `QA`, `QB`, `SCALE`,
//! in version 2 the buckets `B`, then i16 `W1[768 * H]` (input-major), i16 `b1[H]`, i16
//! `w2[B * 2H]` (bucket-major, side to move first), i32 `b2[B]`.
//! [`QuantisedNet::eval`] is the engine's integer inference. With `QB = 64` the rounding of
//! `w2` shifts every evaluation by a common offset (typically 10-30 cp);
//! [`QuantisedNet::calibrate_b2`] folds that offset into `b2` (the CLI does so by default).

use shakmaty::Color;

use crate::format::{CASTLING_ROOK, Decoded, MAX_PIECES, PackedBoard};
use lazuli::Rng;

mod quantised;
pub use quantised::QuantisedNet;
#[cfg(test)]
pub use quantised::quantised_eval;

/// Inputs per perspective: 2 colours x 6 roles x 64 squares.
pub const INPUTS: usize = 768;
/// Row of `b1` in the flat parameter layout.
pub const B1_ROW: usize = INPUTS;
/// The most output buckets a net may have (the engine's largest valid count; see [`bucket`]).
pub const MAX_BUCKETS: usize = 8;
/// First of the rows of `w2`: bucket `b`'s side to move's at `W2_ROW + 2b`, the other side's
/// next.
pub const W2_ROW: usize = INPUTS + 1;
/// Row whose element `b` is bucket `b`'s `b2`.
pub const B2_ROW: usize = W2_ROW + 2 * MAX_BUCKETS;
/// First of the factoriser's piece rows (see the module documentation).
pub const FACTOR_ROW: usize = B2_ROW + 1;
/// The factoriser's rows: one per colour (as seen from the perspective) and role.
pub const FACTORS: usize = INPUTS / 64;
/// Rows of `H` floats in the flat parameter layout.
pub const PARAM_ROWS: usize = FACTOR_ROW + FACTORS;
/// Centipawns per unit of network output.
pub const SCALE: i32 = 400;
/// Quantisation factor of the accumulator (`W1`, `b1`): SCReLU's 1.0 becomes 255.
pub const QA: i32 = 255;
/// Quantisation factor of the output weights `w2`.
pub const QB: i32 = 64;
/// Net file magic.
pub const MAGIC: &[u8; 4] = b"LZNN";
/// Net file versions: one output bucket, and `B` buckets.
pub const VERSION: u32 = 1;
pub const VERSION_BUCKETS: u32 = 2;
/// Bytes before the weights of a one-bucket file: magic and five `u32` (version, hidden, qa,
/// qb, scale); a bucketed file adds one `u32` (the buckets).
pub const HEADER_BYTES: usize = 4 + 5 * 4;
/// Hidden sizes must be a multiple of this, so the output dot products run in fixed-width
/// lanes (which also keeps the summation order, and so the result, fixed).
pub const LANES: usize = 8;
// Row `B2_ROW` holds one `b2` per bucket in a row of `H >= LANES` floats.
const _: () = assert!(MAX_BUCKETS <= LANES);

/// Whether a net may have `buckets` output buckets (the engine's rule, 1, 2, 4 or 8).
pub fn valid_buckets(buckets: usize) -> bool {
    lazuli::Network::valid_buckets(buckets)
}

/// The output bucket of a position with `pieces` pieces in a net of `buckets` buckets: the
/// engine's choice, `(pieces - 2) / (32 / buckets)`.
pub fn bucket(pieces: usize, buckets: usize) -> usize {
    lazuli::Network::output_bucket(pieces, buckets)
}

/// Index of an input: `perspective_is_own` selects the 0 or 384 half, `square` is already
/// oriented for the perspective.
fn input(own: bool, role: u8, square: u8) -> u16 {
    (if own { 0 } else { 384 }) + role as u16 * 64 + square as u16
}

/// Active inputs of both perspectives, "us" being the side to move: the pieces' inputs, then
/// (after [`Features::factorised`]) their factor rows; and the output bucket the passes use
/// (0 until [`Features::bucketed`] sets it).
#[derive(Clone, Debug)]
pub struct Features {
    pub us: [u16; 2 * MAX_PIECES],
    pub them: [u16; 2 * MAX_PIECES],
    pub len: usize,
    pub pieces: usize,
    pub bucket: usize,
}

impl Features {
    pub fn new(d: &Decoded) -> Features {
        let mut f = Features {
            us: [0; 2 * MAX_PIECES],
            them: [0; 2 * MAX_PIECES],
            len: d.pieces().len(),
            pieces: d.pieces().len(),
            bucket: 0,
        };
        for (k, p) in d.pieces().iter().enumerate() {
            let white = input(p.color == Color::White, p.role, p.square);
            let black = input(p.color == Color::Black, p.role, p.square ^ 56);
            (f.us[k], f.them[k]) = match d.stm {
                Color::White => (white, black),
                Color::Black => (black, white),
            };
        }
        f
    }

    /// The same as `Features::new(&decode(record)?)` for a record that decodes, straight from
    /// the bytes (the training loop's hot path: records are validated once, up front).
    pub fn from_record(record: &PackedBoard) -> Features {
        let (mut occupancy, nibbles) = packed_pieces(record);
        let stm_black = (record[24] >> 7) as u16;
        let pieces = (occupancy.count_ones() as usize).min(MAX_PIECES);
        let mut f = Features {
            us: [0; 2 * MAX_PIECES],
            them: [0; 2 * MAX_PIECES],
            len: pieces,
            pieces,
            bucket: 0,
        };
        // The side to move's view flips ranks when Black moves, the other view otherwise.
        let (us_flip, them_flip) = if stm_black == 1 { (56, 0) } else { (0, 56) };
        for k in 0..f.len {
            let square = occupancy.trailing_zeros() as u16;
            occupancy &= occupancy - 1;
            let nibble = (nibbles >> (4 * k)) as u16 & 0xF;
            let code = nibble & 7;
            let role = code - 3 * (code == CASTLING_ROOK as u16) as u16;
            let theirs = (nibble >> 3 != stm_black) as u16;
            f.us[k] = theirs * 384 + role * 64 + (square ^ us_flip);
            f.them[k] = (1 - theirs) * 384 + role * 64 + (square ^ them_flip);
        }
        f
    }

    /// The same position mirrored left to right (files a and h swapped, and so on), which has
    /// the same value when no castling right is left (see [`has_castling_rights`]). Call on
    /// features of the pieces alone, before [`Features::factorised`].
    pub fn mirrored_files(mut self) -> Features {
        for k in 0..self.len {
            self.us[k] ^= 7;
            self.them[k] ^= 7;
        }
        self
    }

    pub fn us(&self) -> &[u16] {
        &self.us[..self.len]
    }

    pub fn them(&self) -> &[u16] {
        &self.them[..self.len]
    }

    /// Sets the output bucket for a net of `buckets` buckets.
    pub fn bucketed(mut self, buckets: usize) -> Features {
        self.bucket = bucket(self.pieces, buckets);
        self
    }

    /// Adds each piece's factor row as one more active input (see the module documentation).
    /// Call once, on features of the pieces alone.
    pub fn factorised(mut self) -> Features {
        let n = self.len;
        debug_assert!(n <= MAX_PIECES);
        for k in 0..n {
            self.us[n + k] = (FACTOR_ROW + self.us[k] as usize / 64) as u16;
            self.them[n + k] = (FACTOR_ROW + self.them[k] as usize / 64) as u16;
        }
        self.len = 2 * n;
        self
    }
}

/// [`target_from_record`] for a decoded position (the reference the tests compare with).
#[cfg(test)]
pub fn target(d: &Decoded, lambda: f32) -> f32 {
    target_of(d.stm == Color::Black, d.score, d.wdl, lambda)
}

/// True when some rook of `record` still carries a castling right (nibble role 6): such a
/// position is not worth the same as its left-right mirror.
pub fn has_castling_rights(record: &PackedBoard) -> bool {
    let (occupancy, nibbles) = packed_pieces(record);
    let pieces = (occupancy.count_ones() as usize).min(MAX_PIECES);
    (0..pieces).any(|k| (nibbles >> (4 * k)) as u8 & 7 == CASTLING_ROOK)
}

/// A record's occupancy bitboard and its piece nibbles (see [`crate::format`]).
fn packed_pieces(record: &PackedBoard) -> (u64, u128) {
    (
        u64::from_le_bytes(record[0..8].try_into().expect("8 bytes")),
        u128::from_le_bytes(record[8..24].try_into().expect("16 bytes")),
    )
}

/// The training target for the side to move: `lambda * result + (1 - lambda) *
/// sigmoid(score / SCALE)`, both converted from White's point of view.
pub fn target_from_record(record: &PackedBoard, lambda: f32) -> f32 {
    let score = i16::from_le_bytes([record[28], record[29]]);
    target_of(record[24] & 0x80 != 0, score, record[30], lambda)
}

fn target_of(stm_black: bool, score_white: i16, wdl: u8, lambda: f32) -> f32 {
    let (score, result) = if stm_black {
        (-(score_white as f32), (2 - wdl.min(2)) as f32 / 2.0)
    } else {
        (score_white as f32, wdl.min(2) as f32 / 2.0)
    };
    lambda * result + (1.0 - lambda) * sigmoid(score / SCALE as f32)
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// `sum screlu(acc[i]) * w[i]` in [`LANES`] fixed partial sums.
fn screlu_dot(acc: &[f32], w: &[f32]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    for (a, w) in acc.chunks_exact(LANES).zip(w.chunks_exact(LANES)) {
        for k in 0..LANES {
            lanes[k] += screlu(a[k]) * w[k];
        }
    }
    lanes.iter().sum()
}

/// Per-thread buffers for one position's accumulators and their gradients.
#[derive(Clone, Debug)]
pub struct Scratch {
    us: Vec<f32>,
    them: Vec<f32>,
    d_us: Vec<f32>,
    d_them: Vec<f32>,
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            us: vec![0.0; hidden],
            them: vec![0.0; hidden],
            d_us: vec![0.0; hidden],
            d_them: vec![0.0; hidden],
        }
    }
}

/// Dense gradients in the parameter layout plus a bitmap of the `W1` rows written since the
/// last [`Gradients::zero`] (rows at or past [`INPUTS`] always count as written), and the
/// loss summed over the positions processed.
#[derive(Clone, Debug)]
pub struct Gradients {
    pub values: Vec<f32>,
    pub touched: TouchedRows,
    pub loss: f64,
}

impl Gradients {
    pub fn new(hidden: usize) -> Gradients {
        Gradients {
            values: vec![0.0; PARAM_ROWS * hidden],
            touched: TouchedRows::default(),
            loss: 0.0,
        }
    }

    /// Zeroes the rows written since the last call, and the loss.
    pub fn zero(&mut self) {
        let h = self.values.len() / PARAM_ROWS;
        for (row, values) in self.values.chunks_exact_mut(h).enumerate() {
            if self.touched.get(row) {
                values.fill(0.0);
            }
        }
        self.touched.clear();
        self.loss = 0.0;
    }
}

/// Bitmap over the 768 `W1` rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct TouchedRows([u64; INPUTS / 64]);

impl TouchedRows {
    /// Marks a `W1` row; rows past `W1` (factor rows included) always count as written.
    pub fn set(&mut self, row: usize) {
        if row < INPUTS {
            self.0[row / 64] |= 1 << (row % 64);
        }
    }

    /// Whether `row` may hold a nonzero gradient.
    pub fn get(&self, row: usize) -> bool {
        row >= INPUTS || self.0[row / 64] >> (row % 64) & 1 != 0
    }

    pub fn clear(&mut self) {
        self.0 = [0; INPUTS / 64];
    }
}

/// `acc = b1 + sum of the rows of inputs`.
fn accumulate(rows: &[&[f32]], inputs: &[u16], acc: &mut [f32]) {
    acc.copy_from_slice(rows[B1_ROW]);
    for &i in inputs {
        for (a, w) in acc.iter_mut().zip(rows[i as usize]) {
            *a += w;
        }
    }
}

/// Raw output (`eval / SCALE`) for the side to move of the network whose parameter row `r` is
/// `rows[r]`, through the output layer of `f.bucket`; leaves the accumulators in `s`. The
/// training threads hold the parameters in per-thread row ranges, so the passes take a table
/// of rows rather than one flat slice.
pub fn forward(rows: &[&[f32]], f: &Features, s: &mut Scratch) -> f32 {
    accumulate(rows, f.us(), &mut s.us);
    accumulate(rows, f.them(), &mut s.them);
    let w2 = W2_ROW + 2 * f.bucket;
    screlu_dot(&s.us, rows[w2]) + screlu_dot(&s.them, rows[w2 + 1]) + rows[B2_ROW][f.bucket]
}

/// Forward and backward pass for one position: adds `weight * dloss/dparam` to `grads`
/// (touching only the rows of the active inputs among `W1`'s) and returns the unweighted loss
/// `(sigmoid(out) - target)^2`.
pub fn backward(
    rows: &[&[f32]],
    f: &Features,
    target: f32,
    weight: f32,
    s: &mut Scratch,
    grads: &mut Gradients,
) -> f32 {
    let h = rows[0].len();
    let p = sigmoid(forward(rows, f, s));
    let g = 2.0 * (p - target) * p * (1.0 - p) * weight;
    let b = f.bucket;
    for (acc, d, w2) in [
        (&s.us, &mut s.d_us, rows[W2_ROW + 2 * b]),
        (&s.them, &mut s.d_them, rows[W2_ROW + 2 * b + 1]),
    ] {
        for ((d, &a), &w) in d.iter_mut().zip(acc.iter()).zip(w2) {
            // SCReLU' = 2a inside (0, 1), else 0. Masking the bits rather than branching
            // lets the loop vectorise.
            let inside = (a > 0.0) & (a < 1.0);
            let mask = 0u32.wrapping_sub(inside as u32);
            *d = f32::from_bits((2.0 * a * g * w).to_bits() & mask);
        }
    }
    let (_, tail) = grads.values.split_at_mut(B1_ROW * h);
    let (gb1, tail) = tail.split_at_mut(h);
    let (gw2, gb2) = tail.split_at_mut(2 * MAX_BUCKETS * h);
    let (gw2_us, gw2_them) = gw2[2 * b * h..(2 * b + 2) * h].split_at_mut(h);
    for (gw, acc) in [(gw2_us, &s.us), (gw2_them, &s.them)] {
        for (gw, &a) in gw.iter_mut().zip(acc.iter()) {
            *gw += g * screlu(a);
        }
    }
    gb2[b] += g;
    for ((gb, &du), &dt) in gb1.iter_mut().zip(&s.d_us).zip(&s.d_them) {
        *gb += du + dt;
    }
    for (inputs, d) in [(f.us(), &s.d_us), (f.them(), &s.d_them)] {
        for &i in inputs {
            let i = i as usize;
            grads.touched.set(i);
            for (gw, &d) in grads.values[i * h..(i + 1) * h].iter_mut().zip(d) {
                *gw += d;
            }
        }
    }
    (p - target) * (p - target)
}

/// The floating-point network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// `H`, a positive multiple of [`LANES`].
    pub hidden: usize,
    /// Output buckets, see [`valid_buckets`].
    pub buckets: usize,
    /// Flat parameters, see the module documentation for the layout.
    pub params: Vec<f32>,
}

impl Network {
    /// Kaiming-uniform style initialisation: `W1 ~ U(+-1/sqrt(768))`, every bucket's
    /// `w2 ~ U(+-1/sqrt(2H))`, biases zero. (One bucket draws what nets drew before buckets.)
    pub fn new_random(hidden: usize, buckets: usize, rng: &mut Rng) -> Network {
        assert!(hidden > 0 && hidden.is_multiple_of(LANES) && valid_buckets(buckets));
        let mut params = vec![0.0; PARAM_ROWS * hidden];
        let w1_bound = 1.0 / (INPUTS as f32).sqrt();
        for p in &mut params[..INPUTS * hidden] {
            *p = rng.symmetric(w1_bound);
        }
        let w2_bound = 1.0 / ((2 * hidden) as f32).sqrt();
        for p in &mut params[W2_ROW * hidden..(W2_ROW + 2 * buckets) * hidden] {
            *p = rng.symmetric(w2_bound);
        }
        Network {
            hidden,
            buckets,
            params,
        }
    }

    /// The same network with `buckets` output buckets: a one-bucket net's output layer is
    /// copied into every bucket (the start of a bucketed run from an earlier net, which then
    /// scores every position as before). Other changes of the bucket count are refused.
    pub fn with_buckets(mut self, buckets: usize) -> Result<Network, String> {
        if buckets == self.buckets {
            return Ok(self);
        }
        if self.buckets != 1 || !valid_buckets(buckets) {
            return Err(format!(
                "a net of {} output buckets cannot become one of {buckets}",
                self.buckets
            ));
        }
        let h = self.hidden;
        let (head, tail) = self.params.split_at_mut((W2_ROW + 2) * h);
        for layer in tail[..2 * (buckets - 1) * h].chunks_exact_mut(2 * h) {
            layer.copy_from_slice(&head[W2_ROW * h..]);
        }
        let b2 = &mut self.params[B2_ROW * h..B2_ROW * h + buckets];
        let first = b2[0];
        b2.fill(first);
        self.buckets = buckets;
        Ok(self)
    }

    /// This network widened to `random`'s width, which it must not exceed: every row keeps
    /// its lanes, the new lanes take `random`'s input weights (`W1`, drawn as a fresh net's)
    /// and zero everywhere else, so the output weights of the new neurons start at zero and
    /// the wider net scores every position exactly as this one (net2net-style widening: the
    /// wider net starts as strong as the narrower and its new neurons learn from there).
    pub fn widened(self, random: &Network) -> Result<Network, String> {
        let (from, to) = (self.hidden, random.hidden);
        if from == to {
            return Ok(self);
        }
        if from > to || self.buckets != random.buckets {
            return Err(format!(
                "a {from}-wide net cannot become {to} wide (only wider, same buckets)"
            ));
        }
        let mut params = vec![0.0; PARAM_ROWS * to];
        for (row, (new, old)) in params
            .chunks_exact_mut(to)
            .zip(self.params.chunks_exact(from))
            .enumerate()
        {
            new[..from].copy_from_slice(old);
            if row < INPUTS {
                new[from..].copy_from_slice(&random.row(row)[from..]);
            }
        }
        Ok(Network {
            hidden: to,
            buckets: self.buckets,
            params,
        })
    }

    /// Folds the factoriser's rows into `W1` (`W1[i] += F[i / 64]`) and zeroes them: the same
    /// function of the pieces' inputs, as a plain network.
    pub fn merge_factors(&mut self) {
        let h = self.hidden;
        let (w1, rest) = self.params.split_at_mut(INPUTS * h);
        let factors = &mut rest[(FACTOR_ROW - INPUTS) * h..];
        for (i, row) in w1.chunks_exact_mut(h).enumerate() {
            let factor = &factors[(i / 64) * h..(i / 64 + 1) * h];
            for (w, f) in row.iter_mut().zip(factor) {
                *w += f;
            }
        }
        factors.fill(0.0);
    }

    pub fn row(&self, row: usize) -> &[f32] {
        &self.params[row * self.hidden..(row + 1) * self.hidden]
    }

    /// The row table the passes take.
    pub fn rows(&self) -> Vec<&[f32]> {
        self.params.chunks_exact(self.hidden).collect()
    }

    /// Bucket `b`'s `b2`.
    pub fn b2(&self, b: usize) -> f32 {
        self.params[B2_ROW * self.hidden + b]
    }

    /// Raw output for the side to move (through the bucket of `f`'s piece count).
    pub fn forward(&self, f: &Features) -> f32 {
        let f = f.clone().bucketed(self.buckets);
        forward(&self.rows(), &f, &mut Scratch::new(self.hidden))
    }

    /// Evaluation in centipawns for the side to move.
    pub fn eval_cp(&self, d: &Decoded) -> f32 {
        self.forward(&Features::new(d)) * SCALE as f32
    }

    /// Rounds the parameters to the integer network (`W1`, `b1` by [`QA`], `w2` by [`QB`],
    /// `b2` by `QA * QB`), to nearest; values out of range saturate. See also
    /// [`QuantisedNet::calibrate_b2`].
    pub fn quantise(&self) -> QuantisedNet {
        let q16 = |x: f32, q: i32| (x * q as f32).round() as i16;
        let (h, buckets) = (self.hidden, self.buckets);
        QuantisedNet {
            hidden: h,
            buckets,
            w1: self.params[..INPUTS * h]
                .iter()
                .map(|&x| q16(x, QA))
                .collect(),
            b1: self.row(B1_ROW).iter().map(|&x| q16(x, QA)).collect(),
            w2: self.params[W2_ROW * h..(W2_ROW + 2 * buckets) * h]
                .iter()
                .map(|&x| q16(x, QB))
                .collect(),
            b2: (0..buckets)
                .map(|b| (self.b2(b) * (QA * QB) as f32).round() as i32)
                .collect(),
        }
    }
}
