//! Synthetic training data for tests and throughput measurements: positions from seeded
//! random playouts, labelled with a noisy material count so that a network can learn something
//! (the loss falls) without any real games.

use shakmaty::{Chess, Color, Position};

use crate::format::{PackedBoard, encode};
use lazuli::Rng;

/// Plies played from the start position before positions are sampled.
const SKIP_PLIES: usize = 6;
/// A playout is abandoned after this many plies.
const MAX_PLIES: usize = 160;
/// Each position past [`SKIP_PLIES`] is kept with probability 1 / `SAMPLE_ONE_IN`.
const SAMPLE_ONE_IN: usize = 3;
/// Label values of pawn, knight, bishop, rook, queen, king in centipawns.
const PIECE_CP: [i32; 6] = [100, 300, 320, 500, 900, 0];
/// Bonus per rank a pawn has advanced beyond its second rank.
const PAWN_ADVANCE_CP: i32 = 8;
/// Uniform label noise in `[-NOISE_CP, NOISE_CP)`.
const NOISE_CP: f32 = 40.0;
/// Probability of labelling a position's game as drawn.
const DRAW_RATE: f32 = 0.2;

/// The label: material plus pawn advancement, White's point of view.
fn material(pos: &Chess) -> i32 {
    let mut score = 0;
    for (square, piece) in pos.board().clone() {
        let role = piece.role as usize - 1;
        let rank = square.rank() as i32;
        let mut cp = PIECE_CP[role];
        if role == 0 {
            let advance = if piece.color == Color::White {
                rank - 1
            } else {
                6 - rank
            };
            cp += PAWN_ADVANCE_CP * advance;
        }
        score += if piece.color == Color::White { cp } else { -cp };
    }
    score
}

/// `count` positions from random playouts, deterministic for a given `seed`. Scores are
/// material plus noise; results are drawn with probability [`DRAW_RATE`] and otherwise won by
/// White with probability `sigmoid(score / 400)`.
pub fn generate(count: usize, seed: u64) -> Vec<PackedBoard> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = Chess::default();
        for ply in 0..MAX_PLIES {
            if ply >= SKIP_PLIES && rng.below(SAMPLE_ONE_IN) == 0 && out.len() < count {
                let score = material(&pos) as f32 + rng.symmetric(NOISE_CP);
                let white_wins = super::net::sigmoid(score / 400.0);
                let wdl = if rng.next_f32() < DRAW_RATE {
                    1
                } else if rng.next_f32() < white_wins {
                    2
                } else {
                    0
                };
                out.push(encode(&pos, score.round() as i16, wdl));
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
    }
    out
}
