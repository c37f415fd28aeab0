//! Zobrist keys: shakmaty's `Zobrist64` values, computed from scratch once and then updated
//! incrementally on every move (shakmaty's own `update_zobrist_hash` gives up on castling, king
//! moves and en passant, which would mean a from-scratch hash at many nodes).

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, File, Move, Position as _, Square};

use super::moves::piece_changes;

/// The Zobrist key of a position computed from scratch.
pub(crate) fn full_key(chess: &Chess) -> u64 {
    chess
        .zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal)
        .0
}

/// Bits of the castling rights that `Zobrist64` hashes, one per colour and side.
fn castling_bits(chess: &Chess) -> u8 {
    let castles = chess.castles();
    let mut bits = 0;
    for (i, (color, side)) in CASTLING.iter().enumerate() {
        if castles.has(*color, *side) {
            bits |= 1 << i;
        }
    }
    bits
}

const CASTLING: [(Color, CastlingSide); 4] = [
    (Color::White, CastlingSide::KingSide),
    (Color::White, CastlingSide::QueenSide),
    (Color::Black, CastlingSide::KingSide),
    (Color::Black, CastlingSide::QueenSide),
];

fn ep_key(file: Option<File>) -> u64 {
    file.map_or(0, |f| Zobrist64::zobrist_for_en_passant_file(f).0)
}

/// The key of `after`, the position reached by playing `m` in `before`, whose key is `key`.
pub(crate) fn key_after(before: &Chess, key: u64, m: Move, after: &Chess) -> u64 {
    let us = before.turn();
    let mut key = key ^ Zobrist64::zobrist_for_white_turn().0;
    piece_changes(us, m, |_, piece, sq| {
        key ^= Zobrist64::zobrist_for_piece(sq, piece).0;
    });
    let changed = castling_bits(before) ^ castling_bits(after);
    if changed != 0 {
        for (i, (color, side)) in CASTLING.iter().enumerate() {
            if changed & (1 << i) != 0 {
                key ^= Zobrist64::zobrist_for_castling_right(*color, *side).0;
            }
        }
    }
    key ^ ep_key(before.pseudo_legal_ep_square().map(Square::file))
        ^ ep_key(after.pseudo_legal_ep_square().map(Square::file))
}
