//! The efficiently updatable neural network (NNUE): (768 -> H) x 2 -> 1 with a
//! perspective accumulator and a squared clipped ReLU, quantised to integers (the architecture
//! of bullet's and marlinflow's first examples, and of akimbo's and Carp's first nets).
//!
//! - Input: 768 features per perspective, one per (piece colour relative to the perspective,
//!   role, square); Black's perspective sees the board mirrored rank-wise (`sq ^ 56`).
//! - Hidden layer: each perspective's accumulator is the feature bias plus the weight rows of
//!   its active features, kept in `i16` (scale `QA`), updated from the moved pieces' rows on
//!   every move ([`Accumulator::update`]) instead of recomputed.
//! - Output: `SCReLU(a) = clamp(a, 0, QA)^2` of the side to move's accumulator against the
//!   first `H` output weights, the other side's against the next `H` (scale `QB`),
//!   divided by `QA`, plus the output bias (scale `QA * QB`), times `SCALE / (QA * QB)`
//!   centipawns.
//! - Output buckets: a net may hold `B` such output layers (1, 2, 4 or 8) and use the one of
//!   the position's piece count, `(pieces - 2) / (32 / B)` (Stockfish's and bullet's
//!   material-count buckets): an ending is scored by weights of its own while the hidden layer
//!   stays shared. Choosing costs one popcount.
//!
//! - Width: `H` is read from the file, any multiple of 32 up to [`MAX_HIDDEN`] (smaller nets
//!   are what a few million positions support). Accumulators are arrays of `MAX_HIDDEN` lanes
//!   of which the first `H` are used; the rest stay zero and are never read or copied (an
//!   update writes the `H` lanes of a slot the search keeps per ply, so a 32-wide net moves
//!   64 bytes per perspective, not 512).
//!
//! The loops are plain slices of `i16`/`i32` (of the net's width, cut in chunks of 32 where
//! the compiler needs a fixed length), which the compiler vectorises (no `unsafe`, no
//! intrinsics). The three hot entry points (a refresh, a move's update, an evaluation) are
//! compiled three times by [`multiversion`], for AVX-512, for AVX2 and for the build's own
//! target (baseline x86-64 is SSE2), and the first call picks the widest the CPU has: see
//! `simd_dispatch!`. The net file format is written by `lazuli-lab train`
//! and described in [`Network::from_bytes`].

use multiversion::multiversion;
use shakmaty::{Chess, Color, Move, Piece, Position as _, Square};

use crate::error::Error;
use crate::position::{Change, piece_changes};
use crate::rng::Rng;

/// The widest hidden layer (per perspective) this build reads.
pub(crate) const MAX_HIDDEN: usize = 256;
/// Hidden widths are multiples of this (the chunk of [`screlu_dot`]).
const HIDDEN_STEP: usize = 32;
/// Input features per perspective.
const INPUTS: usize = 768;
/// Quantisation of the hidden layer.
const QA: i32 = 255;
/// Quantisation of the output weights.
const QB: i32 = 64;
/// Centipawns per unit of network output.
const SCALE: i32 = 400;
/// The largest output weight the `i16` product of [`screlu_dot`] allows (`QA * 128 < 2^15`).
const MAX_OUTPUT_WEIGHT: u16 = 128;
/// The file's magic bytes and versions: 1 (one output layer) and 2 (output buckets).
const MAGIC: &[u8; 4] = b"LZNN";
const VERSION: u32 = 1;
const VERSION_BUCKETS: u32 = 2;
/// The most output buckets a net file may hold (each a divisor of 32 pieces).
const MAX_BUCKETS: usize = 8;

/// One perspective's hidden layer.
type Half = [i16; MAX_HIDDEN];

/// The network's quantised parameters.
pub struct Network {
    /// Width of the hidden layer: the lanes of each [`Half`] in use.
    hidden: usize,
    /// One row of weights per input feature (the first `hidden` lanes).
    feature_weights: Box<[Half; INPUTS]>,
    feature_bias: Half,
    /// Output layers (buckets), 1, 2, 4 or 8 of them: see [`Network::bucket`].
    buckets: usize,
    /// Per bucket (the first `buckets` in use), `[0]` for the side to move's accumulator,
    /// `[1]` for the other side's. Fixed-size, so indexing needs no bounds check: a `Vec`
    /// cost 0.45% of the bench's instructions with one bucket.
    output_weights: Box<[[Half; 2]; MAX_BUCKETS]>,
    /// Per bucket.
    output_bias: [i32; MAX_BUCKETS],
}

/// Both perspectives' accumulators: `[White's view, Black's view]`.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Accumulator {
    halves: [Half; 2],
}

/// The feature of `piece` on `square` seen from `perspective`.
fn feature(perspective: Color, piece: Piece, square: Square) -> usize {
    let (relative, sq) = match perspective {
        Color::White => (piece.color, square as usize),
        Color::Black => (!piece.color, square as usize ^ 56),
    };
    let colour = usize::from(relative == Color::Black);
    colour * 384 + (piece.role as usize - 1) * 64 + sq
}

/// Reads little-endian numbers from a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<N>()
            .ok_or_else(|| Error::InvalidOption("the net file is truncated".into()))?;
        self.bytes = rest;
        Ok(*head)
    }

    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.take()?))
    }

    fn half(&mut self, out: &mut [i16]) -> Result<(), Error> {
        for w in out.iter_mut() {
            *w = i16::from_le_bytes(self.take()?);
        }
        Ok(())
    }
}

impl Network {
    /// The net file built into lazuli, which searches use unless `EvalFile` names another:
    /// net s1316w3-h256m, 768 -> 256 x 2 -> 1 with 8 output buckets (`docs/nets.md`). Its file
    /// is named by the first 12 hex digits of its SHA-256, [`Network::BUILT_IN_NAME`].
    pub const BUILT_IN: &'static [u8] = include_bytes!("nn-5ee19165f168.lznn");

    /// The built-in net's file name (a test checks it against the file's SHA-256).
    pub const BUILT_IN_NAME: &'static str = "nn-5ee19165f168.lznn";

    /// Parses a net file: `LZNN`, then little-endian `u32` version (1 or 2), hidden width `H`
    /// (a multiple of 32 up to [`MAX_HIDDEN`]), QA, QB and SCALE (which must match this
    /// build), in version 2 the number of output buckets `B` (1, 2, 4 or 8; version 1 has
    /// one), then `i16` feature weights (feature-major, `768 x H`), `i16` feature bias (`H`),
    /// `i16` output weights (`B x 2 x H`, bucket-major, side to move first) and `B` `i32`
    /// output biases, and nothing after.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOption`] naming what does not fit.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, Error> {
        let bad = |what: String| Error::InvalidOption(format!("not a lazuli net file: {what}"));
        let mut r = Reader { bytes };
        if &r.take::<4>()? != MAGIC {
            return Err(bad("wrong magic bytes".into()));
        }
        let [version, hidden, qa, qb, scale] = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let want = [QA as u32, QB as u32, SCALE as u32];
        if ![VERSION, VERSION_BUCKETS].contains(&version) || [qa, qb, scale] != want {
            return Err(bad(format!(
                "header (version, QA, QB, scale) {:?}, this build reads versions \
                 {VERSION} and {VERSION_BUCKETS} with {want:?}",
                [version, qa, qb, scale]
            )));
        }
        let buckets = if version == VERSION {
            1
        } else {
            r.u32()? as usize
        };
        if !Network::valid_buckets(buckets) {
            return Err(bad(format!(
                "{buckets} output buckets, this build reads 1, 2, 4 or {MAX_BUCKETS}"
            )));
        }
        let hidden = hidden as usize;
        if hidden == 0 || hidden > MAX_HIDDEN || !hidden.is_multiple_of(HIDDEN_STEP) {
            return Err(bad(format!(
                "hidden width {hidden}, this build reads multiples of {HIDDEN_STEP} up to {MAX_HIDDEN}"
            )));
        }
        let mut net = Network {
            hidden,
            feature_weights: vec![[0; MAX_HIDDEN]; INPUTS]
                .into_boxed_slice()
                .try_into()
                .expect("INPUTS rows"),
            feature_bias: [0; MAX_HIDDEN],
            buckets,
            output_weights: Box::new([[[0; MAX_HIDDEN]; 2]; MAX_BUCKETS]),
            output_bias: [0; MAX_BUCKETS],
        };
        for row in net.feature_weights.iter_mut() {
            r.half(&mut row[..hidden])?;
        }
        r.half(&mut net.feature_bias[..hidden])?;
        for [stm, other] in &mut net.output_weights[..buckets] {
            r.half(&mut stm[..hidden])?;
            r.half(&mut other[..hidden])?;
        }
        for bias in &mut net.output_bias[..buckets] {
            *bias = i32::from_le_bytes(r.take()?);
        }
        if !r.bytes.is_empty() {
            return Err(bad(format!("{} bytes after the end", r.bytes.len())));
        }
        // The output layer multiplies a clipped activation (at most QA) by a weight in i16.
        if net
            .output_weights
            .iter()
            .flatten()
            .flatten()
            .any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(bad(format!(
                "an output weight beyond +-{MAX_OUTPUT_WEIGHT}"
            )));
        }
        Ok(net)
    }

    /// A net file of width `hidden` (a multiple of 32 up to [`MAX_HIDDEN`]) and `buckets`
    /// output buckets (1: version 1, else version 2) with small pseudo-random weights ([`Rng`]
    /// from `seed`), for tests and benchmarks.
    #[doc(hidden)]
    pub fn random_bytes(hidden: usize, buckets: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng::new(seed);
        let mut next = |bound: i16| rng.below(2 * bound as usize + 1) as i16 - bound;
        let mut bytes = MAGIC.to_vec();
        let version = if buckets == 1 {
            VERSION
        } else {
            VERSION_BUCKETS
        };
        for v in [version, hidden as u32, QA as u32, QB as u32, SCALE as u32] {
            bytes.extend(v.to_le_bytes());
        }
        if buckets != 1 {
            bytes.extend((buckets as u32).to_le_bytes());
        }
        for _ in 0..INPUTS * hidden {
            bytes.extend(next(40).to_le_bytes());
        }
        for _ in 0..hidden {
            bytes.extend(next(60).to_le_bytes());
        }
        for _ in 0..2 * hidden * buckets {
            bytes.extend(next(127).to_le_bytes());
        }
        for b in 0..buckets as i32 {
            bytes.extend((1234 - 300 * b).to_le_bytes());
        }
        bytes
    }

    /// Width of the hidden layer.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of output buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Whether a net may have `buckets` output buckets: 1, 2, 4 or 8 (divisors of 32 pieces).
    pub fn valid_buckets(buckets: usize) -> bool {
        matches!(buckets, 1 | 2 | 4 | 8)
    }

    /// The output bucket of a position with `pieces` pieces (kings included) in a net of
    /// `buckets` buckets (see [`Network::valid_buckets`]): `(pieces - 2) / (32 / buckets)`, so
    /// with 8 buckets 2-5 pieces use bucket 0 and 30-32 bucket 7. The trainer uses it too.
    pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
        // 32 / B is a power of two: a shift, where a division by a runtime value would cost.
        let shift = 5 - buckets.trailing_zeros();
        (pieces.saturating_sub(2) >> shift).min(buckets - 1)
    }

    /// The output bucket of a position with `pieces` pieces in this net.
    pub fn bucket(&self, pieces: usize) -> usize {
        Network::output_bucket(pieces, self.buckets)
    }

    /// The lanes of `half` this net uses.
    fn lanes<'a>(&self, half: &'a mut Half) -> &'a mut [i16] {
        &mut half[..self.hidden]
    }

    /// The accumulator of `chess`, computed from scratch.
    pub fn refresh(&self, chess: &Chess) -> Accumulator {
        dispatched::refresh(self, chess)
    }

    /// The evaluation of `chess`, whose accumulator is `acc`, in centipawns from the side to
    /// move.
    pub fn evaluate(&self, acc: &Accumulator, chess: &Chess) -> i32 {
        dispatched::evaluate(self, acc, chess)
    }
}

impl Accumulator {
    /// An accumulator of zero lanes: a slot for [`Accumulator::update`] to write into.
    pub fn empty() -> Accumulator {
        Accumulator {
            halves: [[0; MAX_HIDDEN]; 2],
        }
    }

    /// Writes into `next` the accumulator after `m` is played in `before` (whose accumulator is
    /// `self`): `self`'s lanes of `net`'s width, minus the weight rows of the pieces that left
    /// squares, plus those of the pieces that reached squares, in one pass over the lanes
    /// ([`fused`]: each lane is read once and written once, where a copy and then one pass
    /// per row read and wrote it up to five times). Lanes past the width are left as they are
    /// (zero in every slot that only ever held `net`'s accumulators).
    pub fn update(&self, net: &Network, before: &Chess, m: Move, next: &mut Accumulator) {
        self.apply(net, before.turn(), m, next);
    }

    /// [`Accumulator::update`] for a move `m` played by `us`.
    pub(crate) fn apply(&self, net: &Network, us: Color, m: Move, next: &mut Accumulator) {
        dispatched::apply(net, self, us, m, next);
    }

    /// Copies `net`'s lanes of `from` into `self` (a null move: same pieces).
    pub fn copy_from(&mut self, net: &Network, from: &Accumulator) {
        for (half, parent) in self.halves.iter_mut().zip(&from.halves) {
            net.lanes(half).copy_from_slice(&parent[..net.hidden]);
        }
    }
}

/// Wraps each function of the block in `#[multiversion]`: compiled once for x86-64-v4
/// (AVX-512; multiversion also asks for Ice Lake's AVX-512 extensions, so that CPUs that
/// slow their clock under AVX-512, Skylake-X and Cascade Lake, take AVX2), once for
/// x86-64-v3 (AVX2, FMA, BMI, POPCNT) and once as the build's default (SSE2 for a plain
/// release build); on other architectures only the last. The functions are the whole of a
/// refresh, an update or an evaluation, with their loops ([`add`], [`fused`],
/// [`screlu_dot`]) `#[inline(always)]` inside them and so compiled for each target: one
/// dispatch per call, an atomic load and an indirect call (the first call detects the CPU's
/// features and stores its choice), not one per loop.
///
/// A build that already has AVX2 (`make native`, `-C target-cpu=...`) dispatches statically,
/// at compile time, to the widest target it was built for: no detection and no indirect call.
///
/// The workspace denies `unsafe_code`. multiversion's expansion holds `unsafe` blocks (the
/// calls of a clone whose `#[target_feature]`s it has detected, through the stored function
/// pointer), but neither rustc's `unsafe_code` nor clippy's `undocumented_unsafe_blocks`
/// reports code an external (proc) macro generates, so no `#[allow]` is needed: the
/// functions written here are safe code, and the lint still covers them.
macro_rules! simd_dispatch {
    ($($item:item)*) => {$(
        #[cfg_attr(
            not(target_feature = "avx2"),
            multiversion(targets(
                "x86_64+avx512f+avx512bw+avx512vl+avx512dq+avx512cd+avx2+avx+fma+bmi1+bmi2+lzcnt+popcnt",
                "x86_64+avx2+avx+fma+bmi1+bmi2+lzcnt+popcnt",
            ))
        )]
        #[cfg_attr(
            target_feature = "avx2",
            multiversion(
                targets(
                    "x86_64+avx512f+avx512bw+avx512vl+avx512dq+avx512cd+avx2+avx+fma+bmi1+bmi2+lzcnt+popcnt",
                    "x86_64+avx2+avx+fma+bmi1+bmi2+lzcnt+popcnt",
                ),
                dispatcher = "static"
            )
        )]
        $item
    )*};
}

/// The dispatched entry points: [`plain`]'s functions, compiled for each target of
/// `simd_dispatch!`.
mod dispatched {
    use super::*;

    simd_dispatch! {
        pub(super) fn refresh(net: &Network, chess: &Chess) -> Accumulator {
            plain::refresh(net, chess)
        }

        pub(super) fn apply(
            net: &Network,
            parent: &Accumulator,
            us: Color,
            m: Move,
            next: &mut Accumulator,
        ) {
            plain::apply(net, parent, us, m, next);
        }

        pub(super) fn evaluate(net: &Network, acc: &Accumulator, chess: &Chess) -> i32 {
            plain::evaluate(net, acc, chess)
        }
    }
}

/// The bodies of the entry points, `#[inline(always)]`: compiled for the target of the
/// function they are inlined into ([`dispatched`]'s clones; called directly, the build's
/// default, which the tests compare with the dispatched ones).
mod plain {
    use super::*;

    /// [`Network::refresh`].
    #[inline(always)]
    pub(super) fn refresh(net: &Network, chess: &Chess) -> Accumulator {
        let mut acc = Accumulator {
            halves: [net.feature_bias; 2],
        };
        let board = chess.board();
        for square in board.occupied() {
            let piece = board.piece_at(square).expect("occupied");
            for (view, half) in Color::ALL.into_iter().zip(acc.halves.iter_mut()) {
                add(
                    net.lanes(half),
                    &net.feature_weights[feature(view, piece, square)],
                );
            }
        }
        acc
    }

    /// [`Network::evaluate`].
    #[inline(always)]
    pub(super) fn evaluate(net: &Network, acc: &Accumulator, chess: &Chess) -> i32 {
        let (us, them) = match chess.turn() {
            Color::White => (&acc.halves[0], &acc.halves[1]),
            Color::Black => (&acc.halves[1], &acc.halves[0]),
        };
        // One bucket: no popcount (a dozen instructions without the CPU's own).
        let bucket = match net.buckets {
            1 => 0,
            _ => net.bucket(chess.board().occupied().count()),
        };
        let bucket = bucket % MAX_BUCKETS;
        let [w_us, w_them] = &net.output_weights[bucket];
        let h = net.hidden;
        let sum = screlu_dot(&us[..h], &w_us[..h]) + screlu_dot(&them[..h], &w_them[..h]);
        let out = sum / i64::from(QA) + i64::from(net.output_bias[bucket]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// [`Accumulator::apply`]: `next` is `parent` after `m`, played by `us`.
    #[inline(always)]
    pub(super) fn apply(
        net: &Network,
        parent: &Accumulator,
        us: Color,
        m: Move,
        next: &mut Accumulator,
    ) {
        // A move takes one or two pieces off and puts one or two on (`piece_changes`); each
        // change as its feature in both views.
        let (mut off, mut on) = ([[0; 2]; 2], [[0; 2]; 2]);
        let (mut offs, mut ons) = (0, 0);
        piece_changes(us, m, |change, p, sq| {
            let features = Color::ALL.map(|view| feature(view, p, sq));
            let (list, count) = match change {
                Change::Off => (&mut off, &mut offs),
                Change::On => (&mut on, &mut ons),
            };
            debug_assert!(*count < 2, "a move changes at most two squares each way");
            if let Some(slot) = list.get_mut(*count) {
                *slot = features;
                *count += 1;
            }
        });
        debug_assert!(
            matches!((offs, ons), (1, 1) | (2, 1) | (2, 2)),
            "a move, a capture or en passant, or castling"
        );
        let rows = &net.feature_weights;
        let h = net.hidden;
        for (view, (half, parent)) in next.halves.iter_mut().zip(&parent.halves).enumerate() {
            let (out, from) = (&mut half[..h], &parent[..h]);
            let [off0, off1] = off.map(|f| &rows[f[view]]);
            let [on0, on1] = on.map(|f| &rows[f[view]]);
            // The three shapes of `piece_changes`: a move, a capture (or en passant), castling.
            match (offs, ons) {
                (1, 1) => fused(out, from, [off0], [on0]),
                (2, 1) => fused(out, from, [off0, off1], [on0]),
                _ => fused(out, from, [off0, off1], [on0, on1]),
            }
        }
    }
}

/// `half += row` over `half`'s lanes (the net's width).
#[inline(always)]
fn add(half: &mut [i16], row: &Half) {
    for (h, w) in half.iter_mut().zip(row) {
        *h = h.wrapping_add(*w);
    }
}

/// `out = from - subs + adds` over `from`'s lanes (the net's width, a multiple of
/// [`HIDDEN_STEP`]), chunk by chunk: each chunk of 32 lanes is loaded once, has every row
/// subtracted and added in registers, and is stored once. The row counts are constants, so
/// each of the three shapes a move has (1 off and 1 on, 2 and 1, 2 and 2) is its own loop.
#[inline(always)]
fn fused<const S: usize, const A: usize>(
    out: &mut [i16],
    from: &[i16],
    subs: [&Half; S],
    adds: [&Half; A],
) {
    let (out, _) = out.as_chunks_mut::<HIDDEN_STEP>();
    let (from, _) = from.as_chunks::<HIDDEN_STEP>();
    let subs = subs.map(|row| row.as_chunks::<HIDDEN_STEP>().0);
    let adds = adds.map(|row| row.as_chunks::<HIDDEN_STEP>().0);
    for (c, (out, from)) in out.iter_mut().zip(from).enumerate() {
        let mut lanes = *from;
        for row in subs {
            for (l, w) in lanes.iter_mut().zip(&row[c]) {
                *l = l.wrapping_sub(*w);
            }
        }
        for row in adds {
            for (l, w) in lanes.iter_mut().zip(&row[c]) {
                *l = l.wrapping_add(*w);
            }
        }
        *out = lanes;
    }
}

/// `sum(clamp(a, 0, QA)^2 * w)`, computed as `clamp(a) * (clamp(a) * w)` so that the inner
/// product fits `i16` (`QA * |w| <= 255 * 127`) and pairs of products sum in `i32` (the
/// multiply-add the compiler finds), with the total in `i64`. Both slices are the net's width,
/// a multiple of [`HIDDEN_STEP`].
#[inline(always)]
fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
    let mut total = 0i64;
    for (a, w) in acc
        .chunks_exact(HIDDEN_STEP)
        .zip(weights.chunks_exact(HIDDEN_STEP))
    {
        // The clamped activations and their products with the weights as i16 lanes first,
        // then their dot product: the compiler finds the multiply-add of eight lanes
        // (`pmaddwd`) in that loop, where one loop computing both used four lanes at a time.
        let mut c = [0i16; HIDDEN_STEP];
        let mut p = [0i16; HIDDEN_STEP];
        for (((c, p), &a), &w) in c.iter_mut().zip(&mut p).zip(a).zip(w) {
            *c = a.clamp(0, QA as i16);
            *p = c.wrapping_mul(w);
        }
        let mut part = 0i32;
        for (&c, &p) in c.iter().zip(&p) {
            part += i32::from(c) * i32::from(p);
        }
        total += i64::from(part);
    }
    total
}

#[cfg(test)]
#[path = "nnue_tests.rs"]
pub(crate) mod tests;
