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
//! # Parameter layout
//! All parameters live in one flat vector of [`PARAM_ROWS`] rows of `H` floats: rows
//! `0..768` are `W1` (one row per input), row [`B1_ROW`] is `b1`, rows [`W2_ROW`] and
//! `W2_ROW + 1` are `w2` (us, then them) and row [`B2_ROW`] holds `b2` in its first element
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
//! `b"LZNN"`, u32 version 1, hidden `H`, `QA`, `QB`, `SCALE`, then i16 `W1[768 * H]`
//! (input-major), i16 `b1[H]`, i16 `w2[2H]` (side to move first), i32 `b2`.
//! [`QuantisedNet::eval`] is the engine's integer inference. With `QB = 64` the rounding of
//! `w2` shifts every evaluation by a common offset (typically 10-30 cp);
//! [`QuantisedNet::calibrate_b2`] folds that offset into `b2` (the CLI does so by default).

use std::io;
use std::path::Path;

use shakmaty::Color;

use crate::tools::format::{CASTLING_ROOK, Decoded, MAX_PIECES, PackedBoard};
use crate::tools::rng::Rng;

/// Inputs per perspective: 2 colours x 6 roles x 64 squares.
pub const INPUTS: usize = 768;
/// Row of `b1` in the flat parameter layout.
pub const B1_ROW: usize = INPUTS;
/// First of the two rows of `w2` (side to move, then the other side).
pub const W2_ROW: usize = INPUTS + 1;
/// Row whose first element is `b2`.
pub const B2_ROW: usize = INPUTS + 3;
/// First of the factoriser's piece rows (see the module documentation).
pub const FACTOR_ROW: usize = INPUTS + 4;
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
/// Net file version.
pub const VERSION: u32 = 1;
/// Bytes before the weights: magic and five `u32` (version, hidden, qa, qb, scale).
pub const HEADER_BYTES: usize = 4 + 5 * 4;
/// Hidden sizes must be a multiple of this, so the output dot products run in fixed-width
/// lanes (which also keeps the summation order, and so the result, fixed).
pub const LANES: usize = 8;

/// Index of an input: `perspective_is_own` selects the 0 or 384 half, `square` is already
/// oriented for the perspective.
fn input(own: bool, role: u8, square: u8) -> u16 {
    (if own { 0 } else { 384 }) + role as u16 * 64 + square as u16
}

/// Active inputs of both perspectives, "us" being the side to move: the pieces' inputs, then
/// (after [`Features::factorised`]) their factor rows.
#[derive(Clone, Debug)]
pub struct Features {
    pub us: [u16; 2 * MAX_PIECES],
    pub them: [u16; 2 * MAX_PIECES],
    pub len: usize,
}

impl Features {
    pub fn new(d: &Decoded) -> Features {
        let mut f = Features {
            us: [0; 2 * MAX_PIECES],
            them: [0; 2 * MAX_PIECES],
            len: d.pieces().len(),
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
        let mut f = Features {
            us: [0; 2 * MAX_PIECES],
            them: [0; 2 * MAX_PIECES],
            len: (occupancy.count_ones() as usize).min(MAX_PIECES),
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

/// A record's occupancy bitboard and its piece nibbles (see [`crate::tools::format`]).
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
/// `rows[r]`; leaves the accumulators in `s`. The training threads hold the parameters in
/// per-thread row ranges, so the passes take a table of rows rather than one flat slice.
pub fn forward(rows: &[&[f32]], f: &Features, s: &mut Scratch) -> f32 {
    accumulate(rows, f.us(), &mut s.us);
    accumulate(rows, f.them(), &mut s.them);
    screlu_dot(&s.us, rows[W2_ROW]) + screlu_dot(&s.them, rows[W2_ROW + 1]) + rows[B2_ROW][0]
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
    for (acc, d, w2) in [
        (&s.us, &mut s.d_us, rows[W2_ROW]),
        (&s.them, &mut s.d_them, rows[W2_ROW + 1]),
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
    let (gw2, gb2) = tail.split_at_mut(2 * h);
    let (gw2_us, gw2_them) = gw2.split_at_mut(h);
    for (gw, acc) in [(gw2_us, &s.us), (gw2_them, &s.them)] {
        for (gw, &a) in gw.iter_mut().zip(acc.iter()) {
            *gw += g * screlu(a);
        }
    }
    gb2[0] += g;
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
    /// Flat parameters, see the module documentation for the layout.
    pub params: Vec<f32>,
}

impl Network {
    /// Kaiming-uniform style initialisation: `W1 ~ U(+-1/sqrt(768))`, `w2 ~ U(+-1/sqrt(2H))`,
    /// biases zero.
    pub fn new_random(hidden: usize, rng: &mut Rng) -> Network {
        assert!(hidden > 0 && hidden.is_multiple_of(LANES));
        let mut params = vec![0.0; PARAM_ROWS * hidden];
        let w1_bound = 1.0 / (INPUTS as f32).sqrt();
        for p in &mut params[..INPUTS * hidden] {
            *p = rng.symmetric(w1_bound);
        }
        let w2_bound = 1.0 / ((2 * hidden) as f32).sqrt();
        for p in &mut params[W2_ROW * hidden..B2_ROW * hidden] {
            *p = rng.symmetric(w2_bound);
        }
        Network { hidden, params }
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

    pub fn b2(&self) -> f32 {
        self.params[B2_ROW * self.hidden]
    }

    /// Raw output for the side to move.
    pub fn forward(&self, f: &Features) -> f32 {
        forward(&self.rows(), f, &mut Scratch::new(self.hidden))
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
        let h = self.hidden;
        QuantisedNet {
            hidden: h,
            w1: self.params[..INPUTS * h]
                .iter()
                .map(|&x| q16(x, QA))
                .collect(),
            b1: self.row(B1_ROW).iter().map(|&x| q16(x, QA)).collect(),
            w2: self.params[W2_ROW * h..B2_ROW * h]
                .iter()
                .map(|&x| q16(x, QB))
                .collect(),
            b2: (self.b2() * (QA * QB) as f32).round() as i32,
        }
    }
}

/// The integer network exactly as stored in the net file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    pub hidden: usize,
    /// `768 x H`, input-major.
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    /// `2H`: side to move first.
    pub w2: Vec<i16>,
    pub b2: i32,
}

impl QuantisedNet {
    /// Size of the net file for `hidden` neurons.
    pub fn file_size(hidden: usize) -> usize {
        HEADER_BYTES + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4
    }

    /// The net file: magic, version, hidden, qa, qb, scale (u32 each), then `W1`, `b1`, `w2`
    /// as i16 and `b2` as i32, all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_size(self.hidden));
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            self.hidden as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        out
    }

    /// Parses a net file, checking the header against this module's constants.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantisedNet, String> {
        if bytes.len() < HEADER_BYTES || &bytes[..4] != MAGIC {
            return Err("not a LZNN net file".into());
        }
        let word = |k: usize| u32::from_le_bytes(bytes[4 + 4 * k..8 + 4 * k].try_into().unwrap());
        let hidden = word(1) as usize;
        let expected = [VERSION, word(1), QA as u32, QB as u32, SCALE as u32];
        if (0..5).any(|k| word(k) != expected[k]) || hidden == 0 {
            return Err(format!(
                "unsupported net header {:?}",
                (0..5).map(word).collect::<Vec<_>>()
            ));
        }
        if bytes.len() != Self::file_size(hidden) {
            return Err(format!(
                "net file has {} bytes, expected {}",
                bytes.len(),
                Self::file_size(hidden)
            ));
        }
        let mut i16s = bytes[HEADER_BYTES..bytes.len() - 4]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| i16s.by_ref().take(n).collect::<Vec<i16>>();
        let (w1, b1, w2) = (take(INPUTS * hidden), take(hidden), take(2 * hidden));
        let b2 = i32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
        Ok(QuantisedNet {
            hidden,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// Writes the net file and returns its size in bytes.
    pub fn write(&self, path: &Path) -> io::Result<usize> {
        let bytes = self.to_bytes();
        std::fs::write(path, &bytes)?;
        Ok(bytes.len())
    }

    fn accumulate(&self, inputs: &[u16]) -> Vec<i32> {
        let h = self.hidden;
        let mut acc: Vec<i32> = self.b1.iter().map(|&b| b as i32).collect();
        for &i in inputs {
            let row = &self.w1[i as usize * h..(i as usize + 1) * h];
            for (a, &w) in acc.iter_mut().zip(row) {
                *a += w as i32;
            }
        }
        acc
    }

    /// Integer evaluation in centipawns for the side to move, as the engine computes it:
    /// `sum = sum clamp(acc, 0, QA)^2 * w2` (i64), `out = sum / QA + b2`,
    /// `cp = out * SCALE / (QA * QB)`, divisions truncating.
    pub fn eval(&self, d: &Decoded) -> i32 {
        (self.raw_out(d) * SCALE as i64 / (QA * QB) as i64) as i32
    }

    /// The output before scaling to centipawns, in units of `1 / (QA * QB)`.
    fn raw_out(&self, d: &Decoded) -> i64 {
        let f = Features::new(d);
        let (w2_us, w2_them) = self.w2.split_at(self.hidden);
        let mut sum = 0i64;
        for (acc, w2) in [
            (self.accumulate(f.us()), w2_us),
            (self.accumulate(f.them()), w2_them),
        ] {
            for (&a, &w) in acc.iter().zip(w2) {
                let c = a.clamp(0, QA) as i64;
                sum += c * c * w as i64;
            }
        }
        sum / QA as i64 + self.b2 as i64
    }

    /// Shifts `b2` by the mean difference between `net`'s float output and this integer
    /// output over `sample`, and returns the shift (in `1 / (QA * QB)` units).
    ///
    /// Why: the activations are never negative, so the rounding errors of the `2H` output
    /// weights (up to `1 / (2 QB)` each) add up to a common offset rather than cancelling;
    /// with `QB = 64` and trained `|w2|` around 0.1 it is typically 10-30 cp on every position.
    /// Moving `b2` removes that offset and leaves the position-dependent part (a few cp).
    pub fn calibrate_b2(&mut self, net: &Network, sample: &[Decoded]) -> i32 {
        if sample.is_empty() {
            return 0;
        }
        let unit = (QA * QB) as f64;
        let total: f64 = sample
            .iter()
            .map(|d| net.forward(&Features::new(d)) as f64 * unit - self.raw_out(d) as f64)
            .sum();
        let shift = (total / sample.len() as f64).round() as i32;
        self.b2 = self.b2.saturating_add(shift);
        shift
    }

    /// The float network these integers stand for: the start of a run that goes on from a net
    /// file (`lazuli train --init`), and the tests of the integer arithmetic.
    pub fn dequantise(&self) -> Network {
        let h = self.hidden;
        let mut params = vec![0.0; PARAM_ROWS * h];
        let deq = |v: &[i16], q: i32, out: &mut [f32]| {
            for (o, &x) in out.iter_mut().zip(v) {
                *o = x as f32 / q as f32;
            }
        };
        deq(&self.w1, QA, &mut params[..INPUTS * h]);
        deq(&self.b1, QA, &mut params[B1_ROW * h..W2_ROW * h]);
        deq(&self.w2, QB, &mut params[W2_ROW * h..B2_ROW * h]);
        params[B2_ROW * h] = self.b2 as f32 / (QA * QB) as f32;
        Network { hidden: h, params }
    }
}

/// Integer evaluation (centipawns, side to move) of `pos` by the net file `net_bytes`.
/// Panics if `net_bytes` is not a valid net file; parse once with
/// [`QuantisedNet::from_bytes`] to evaluate many positions or handle the error.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the one-call form of the engine's evaluation, for tools and tests"
    )
)]
pub fn quantised_eval(net_bytes: &[u8], pos: &Decoded) -> i32 {
    QuantisedNet::from_bytes(net_bytes)
        .unwrap_or_else(|e| panic!("{e}"))
        .eval(pos)
}
