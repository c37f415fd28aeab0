//! The efficiently updatable neural network (NNUE): (768 -> HIDDEN) x 2 -> 1 with a
//! perspective accumulator and a squared clipped ReLU, quantised to integers (the architecture
//! of bullet's and marlinflow's first examples, and of akimbo's and Carp's first nets).
//!
//! - Input: 768 features per perspective, one per (piece colour relative to the perspective,
//!   role, square); Black's perspective sees the board mirrored rank-wise (`sq ^ 56`).
//! - Hidden layer: each perspective's accumulator is the feature bias plus the weight rows of
//!   its active features, kept in `i16` (scale `QA`), updated from the moved pieces' rows on
//!   every move ([`Accumulator::update`]) instead of recomputed.
//! - Output: `SCReLU(a) = clamp(a, 0, QA)^2` of the side to move's accumulator against the
//!   first `HIDDEN` output weights, the other side's against the next `HIDDEN` (scale `QB`),
//!   divided by `QA`, plus the output bias (scale `QA * QB`), times `SCALE / (QA * QB)`
//!   centipawns.
//!
//! The loops are plain slices of `i16`/`i32` of a compile-time length, which the compiler
//! vectorises (no `unsafe`, no intrinsics). The net file format is written by `lazuli train`
//! and described in [`Network::from_bytes`].

use shakmaty::{Chess, Color, Move, Piece, Position as _, Role, Square};

use crate::error::Error;

/// Width of the hidden layer (per perspective).
pub(crate) const HIDDEN: usize = 256;
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
/// The file's magic bytes and version.
const MAGIC: &[u8; 4] = b"LZNN";
const VERSION: u32 = 1;

/// One perspective's hidden layer.
type Half = [i16; HIDDEN];

/// The network's quantised parameters.
pub struct Network {
    /// One row of `HIDDEN` weights per input feature.
    feature_weights: Box<[Half; INPUTS]>,
    feature_bias: Half,
    /// `[0]` for the side to move's accumulator, `[1]` for the other side's.
    output_weights: [Half; 2],
    output_bias: i32,
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

    fn half(&mut self, out: &mut Half) -> Result<(), Error> {
        for w in out.iter_mut() {
            *w = i16::from_le_bytes(self.take()?);
        }
        Ok(())
    }
}

impl Network {
    /// Parses a net file: `LZNN`, then little-endian `u32` version (1), hidden width, QA, QB
    /// and SCALE (which must match this build), then `i16` feature weights (feature-major,
    /// `768 x HIDDEN`), `i16` feature bias (`HIDDEN`), `i16` output weights (`2 x HIDDEN`) and an
    /// `i32` output bias, and nothing after.
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
        let header = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let want = [VERSION, HIDDEN as u32, QA as u32, QB as u32, SCALE as u32];
        if header != want {
            return Err(bad(format!(
                "header (version, hidden, QA, QB, scale) {header:?}, this build reads {want:?}"
            )));
        }
        let mut net = Network {
            feature_weights: vec![[0; HIDDEN]; INPUTS]
                .into_boxed_slice()
                .try_into()
                .expect("INPUTS rows"),
            feature_bias: [0; HIDDEN],
            output_weights: [[0; HIDDEN]; 2],
            output_bias: 0,
        };
        for row in net.feature_weights.iter_mut() {
            r.half(row)?;
        }
        r.half(&mut net.feature_bias)?;
        let [stm, other] = &mut net.output_weights;
        r.half(stm)?;
        r.half(other)?;
        net.output_bias = i32::from_le_bytes(r.take()?);
        if !r.bytes.is_empty() {
            return Err(bad(format!("{} bytes after the end", r.bytes.len())));
        }
        // The output layer multiplies a clipped activation (at most QA) by a weight in i16.
        if net
            .output_weights
            .as_flattened()
            .iter()
            .any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(bad(format!(
                "an output weight beyond +-{MAX_OUTPUT_WEIGHT}"
            )));
        }
        Ok(net)
    }

    /// The accumulator of `chess`, computed from scratch.
    pub fn refresh(&self, chess: &Chess) -> Accumulator {
        let mut acc = Accumulator {
            halves: [self.feature_bias; 2],
        };
        let board = chess.board();
        for square in board.occupied() {
            let piece = board.piece_at(square).expect("occupied");
            for (view, half) in Color::ALL.into_iter().zip(acc.halves.iter_mut()) {
                add(half, &self.feature_weights[feature(view, piece, square)]);
            }
        }
        acc
    }

    /// The evaluation of the position of `acc` with `stm` to move, in centipawns from the side
    /// to move.
    pub fn evaluate(&self, acc: &Accumulator, stm: Color) -> i32 {
        let (us, them) = match stm {
            Color::White => (&acc.halves[0], &acc.halves[1]),
            Color::Black => (&acc.halves[1], &acc.halves[0]),
        };
        let sum =
            screlu_dot(us, &self.output_weights[0]) + screlu_dot(them, &self.output_weights[1]);
        let out = sum / i64::from(QA) + i64::from(self.output_bias);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }
}

impl Accumulator {
    /// The accumulator after `m` is played in `before` (whose accumulator is `self`), from the
    /// weight rows of the pieces that left and reached squares.
    pub fn update(&self, net: &Network, before: &Chess, m: Move) -> Accumulator {
        let us = before.turn();
        let mut removed: [Option<(Piece, Square)>; 2] = [None; 2];
        let mut added: [Option<(Piece, Square)>; 2] = [None; 2];
        let piece = |color, role| Piece { color, role };
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                removed[0] = Some((piece(us, role), from));
                added[0] = Some((piece(us, promotion.unwrap_or(role)), to));
                removed[1] = capture.map(|c| (piece(!us, c), to));
            }
            Move::EnPassant { from, to } => {
                removed[0] = Some((piece(us, Role::Pawn), from));
                added[0] = Some((piece(us, Role::Pawn), to));
                let victim = Square::from_coords(to.file(), from.rank());
                removed[1] = Some((piece(!us, Role::Pawn), victim));
            }
            Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_king_side(king < rook);
                let rank = king.rank();
                removed = [
                    Some((piece(us, Role::King), king)),
                    Some((piece(us, Role::Rook), rook)),
                ];
                added = [
                    Some((
                        piece(us, Role::King),
                        Square::from_coords(side.king_to_file(), rank),
                    )),
                    Some((
                        piece(us, Role::Rook),
                        Square::from_coords(side.rook_to_file(), rank),
                    )),
                ];
            }
            Move::Put { .. } => unreachable!("no drops in standard chess"),
        }
        let mut next = self.clone();
        for (view, half) in Color::ALL.into_iter().zip(next.halves.iter_mut()) {
            for &(p, sq) in removed.iter().flatten() {
                sub(half, &net.feature_weights[feature(view, p, sq)]);
            }
            for &(p, sq) in added.iter().flatten() {
                add(half, &net.feature_weights[feature(view, p, sq)]);
            }
        }
        next
    }
}

fn add(half: &mut Half, row: &Half) {
    for (h, w) in half.iter_mut().zip(row) {
        *h = h.wrapping_add(*w);
    }
}

fn sub(half: &mut Half, row: &Half) {
    for (h, w) in half.iter_mut().zip(row) {
        *h = h.wrapping_sub(*w);
    }
}

/// `sum(clamp(a, 0, QA)^2 * w)`, computed as `clamp(a) * (clamp(a) * w)` so that the inner
/// product fits `i16` (`QA * |w| <= 255 * 127`) and pairs of products sum in `i32` (the
/// multiply-add the compiler finds), with the total in `i64`.
fn screlu_dot(acc: &Half, weights: &Half) -> i64 {
    let mut total = 0i64;
    for (a, w) in acc.chunks_exact(32).zip(weights.chunks_exact(32)) {
        let mut part = 0i32;
        for (&a, &w) in a.iter().zip(w) {
            let c = i32::from(a.clamp(0, QA as i16));
            part += c * i32::from((c as i16).wrapping_mul(w));
        }
        total += i64::from(part);
    }
    total
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::position::Position;

    /// A net file with small pseudo-random weights (xorshift from `seed`).
    pub(crate) fn random_net_bytes(seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = |bound: i16| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % (2 * bound as u64 + 1)) as i16 - bound
        };
        let mut bytes = MAGIC.to_vec();
        for v in [VERSION, HIDDEN as u32, QA as u32, QB as u32, SCALE as u32] {
            bytes.extend(v.to_le_bytes());
        }
        for _ in 0..INPUTS * HIDDEN {
            bytes.extend(next(40).to_le_bytes());
        }
        for _ in 0..HIDDEN {
            bytes.extend(next(60).to_le_bytes());
        }
        for _ in 0..2 * HIDDEN {
            bytes.extend(next(127).to_le_bytes());
        }
        bytes.extend(1234i32.to_le_bytes());
        bytes
    }

    #[test]
    fn incremental_updates_equal_a_refresh_along_random_games() {
        let net = Network::from_bytes(&random_net_bytes(7)).unwrap();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ] {
            for _game in 0..20 {
                let mut pos = Position::from_fen(fen).unwrap();
                let mut acc = net.refresh(pos.chess());
                for _ply in 0..80 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let m = moves[(x % moves.len() as u64) as usize];
                    acc = acc.update(&net, pos.chess(), m);
                    pos.push(m);
                    let fresh = net.refresh(pos.chess());
                    assert!(acc.halves == fresh.halves, "{} after {m:?}", pos.fen());
                    checked += 1;
                }
            }
        }
        assert!(checked > 4000, "{checked}");
    }

    #[test]
    fn a_position_and_its_colour_mirror_evaluate_the_same() {
        let net = Network::from_bytes(&random_net_bytes(11)).unwrap();
        let mut distinct = std::collections::HashSet::new();
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq - 1 4",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mirror = pos.mirrored();
            let score = net.evaluate(&net.refresh(pos.chess()), pos.turn());
            let mirrored = net.evaluate(&net.refresh(mirror.chess()), mirror.turn());
            assert_eq!(score, mirrored, "{fen}");
            distinct.insert(score);
        }
        assert!(
            distinct.len() > 2,
            "the random net says something: {distinct:?}"
        );
    }

    #[test]
    fn bad_net_files_are_refused() {
        let good = random_net_bytes(3);
        assert!(Network::from_bytes(&good).is_ok());
        let mut wrong_width = good.clone();
        wrong_width[8..12].copy_from_slice(&(HIDDEN as u32 * 2).to_le_bytes());
        let mut big_output = good.clone();
        let at = good.len() - 4 - 2;
        big_output[at..at + 2].copy_from_slice(&1000i16.to_le_bytes());
        for (what, bytes) in [
            ("empty", Vec::new()),
            ("magic", b"NNUE".iter().chain(&good[4..]).copied().collect()),
            ("width", wrong_width),
            ("truncated", good[..good.len() - 1].to_vec()),
            ("trailing", good.iter().chain(&[0u8]).copied().collect()),
            ("output weight", big_output),
        ] {
            assert!(Network::from_bytes(&bytes).is_err(), "{what}");
        }
    }
}
