//! Move-ordering statistics that a thread learns while it searches and keeps between
//! searches of one game, all with gravity-style updates (a bonus for the move that caused a
//! cutoff, a malus for the moves of the same kind tried before it, each entry pulled toward
//! zero in proportion to its size so that it stays within +-[`HISTORY_MAX`]):
//!
//! - the butterfly history of quiet moves by side, origin and target (Schaeffer 1983, the
//!   heuristic of the verified null-move paper's GENESIS engine);
//! - continuation histories of quiet moves by the piece and target of the move one and two
//!   plies earlier and of this move (Stockfish's `continuationHistory`, since 2017);
//! - the capture history by moving piece, target and captured piece (Stockfish's
//!   `captureHistory`), which orders captures of equal victims;
//! - the correction histories (Stockfish since 2023, after Caissa; the exponential moving
//!   average of Ethereal and viridithas): by side to move and pawn structure, and by side to
//!   move and the placement of each side's other pieces (king included; Stockfish's
//!   `nonPawnCorrectionHistory`, 2024), how far the searches of such positions turned out from
//!   their static evaluation; their sum is added to the static evaluation of the next one.
//!
//! Each search thread owns one [`Histories`]: nothing here is shared between threads.

use shakmaty::{Board, Color, Move, Role};

use crate::params::{
    CORRECTION_GRAIN, CORRECTION_MAX, CORRECTION_SIZE, CORRECTION_WEIGHT_MAX, HISTORY_BONUS_MAX,
    HISTORY_BONUS_SCALE, HISTORY_MAX,
};
use crate::position::role_from_to;

/// A moved piece (colour and role) and its target square, `0..768`: the index of a move in the
/// continuation histories.
pub(crate) type PieceTo = u16;

/// The [`PieceTo`] of a move of `role` to `to` by `side`.
fn index(side: Color, role: Role, to: usize) -> PieceTo {
    ((side as u16 * 6 + role as u16 - 1) << 6) | to as u16
}

/// The [`PieceTo`] of `m`, played by `side`.
pub(crate) fn piece_to(side: Color, m: Move) -> PieceTo {
    let (role, _, to) = role_from_to(m);
    index(side, role, to)
}

/// Quiet moves by [`PieceTo`], after the move of a [`PieceTo`].
type Continuation = [[i16; 768]; 768];

/// The move-ordering statistics of one thread. See the module documentation.
pub(crate) struct Histories {
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    continuation: Box<Continuation>,
    /// [moving piece as in `PieceTo`][captured role]
    capture: Box<[[i16; 6]; 768]>,
    /// [side to move][slot, see [`correction_slots`]], in 1/[`CORRECTION_GRAIN`] centipawns:
    /// the pawn structure's table, then White's pieces' and Black's pieces'.
    correction: Box<[[[i16; CORRECTION_SIZE]; 2]; CORRECTION_TABLES]>,
}

/// The correction histories: the pawn structure's, and the other pieces' of each side.
const CORRECTION_TABLES: usize = 3;

/// A slot of a correction table from a hash's top bits.
fn slot(hash: u64) -> usize {
    (hash >> (64 - CORRECTION_SIZE.trailing_zeros())) as usize
}

/// A board's slot in each correction table: a multiplicative hash of each side's pawns, and of
/// White's and of Black's knights, bishops, rooks, queens and king (each role its own odd
/// multiplier, so that the same squares held by other roles land elsewhere).
fn correction_slots(board: &Board) -> [usize; CORRECTION_TABLES] {
    let pawns = board.pawns();
    let white = (pawns & board.white()).0;
    let black = (pawns & board.black()).0;
    let pawn =
        white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let pieces = |color: Color| {
        let ours = board.by_color(color);
        [
            (Role::Knight, 0xA076_1D64_78BD_642F_u64),
            (Role::Bishop, 0xE703_7ED1_A0B4_28DB),
            (Role::Rook, 0x8EBC_6AF0_9C88_C6E3),
            (Role::Queen, 0x5899_65CC_7537_4CC3),
            (Role::King, 0x1D8E_4E27_C47D_124F),
        ]
        .iter()
        .fold(0u64, |hash, &(role, k)| {
            hash ^ (board.by_role(role) & ours).0.wrapping_mul(k)
        })
    };
    [
        slot(pawn),
        slot(pieces(Color::White)),
        slot(pieces(Color::Black)),
    ]
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            continuation: vec![[0; 768]; 768]
                .into_boxed_slice()
                .try_into()
                .expect("768 rows"),
            capture: Box::new([[0; 6]; 768]),
            correction: Box::new([[[0; CORRECTION_SIZE]; 2]; CORRECTION_TABLES]),
        }
    }
}

/// The gravity update of one entry.
fn update(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let value = i32::from(*entry);
    *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
}

/// The bonus for a cutoff at `depth`.
pub(crate) fn bonus(depth: i32) -> i32 {
    (HISTORY_BONUS_SCALE.get() * depth * depth).min(HISTORY_BONUS_MAX.get())
}

impl Histories {
    /// The ordering score of a quiet move by `side`: butterfly plus the continuation entries
    /// after each of `previous` (the moves one and two plies earlier, if any).
    pub(crate) fn quiet(&self, side: Color, m: Move, previous: [Option<PieceTo>; 2]) -> i32 {
        let (role, from, to) = role_from_to(m);
        let pt = usize::from(index(side, role, to));
        let continuation: i32 = previous
            .iter()
            .flatten()
            .map(|&p| i32::from(self.continuation[usize::from(p)][pt]))
            .sum();
        i32::from(self.butterfly[side as usize][from][to]) + continuation
    }

    /// The capture history of a capture (or promotion) by `side`.
    pub(crate) fn capture(&self, side: Color, m: Move) -> i32 {
        let captured = m.capture().map_or(0, |r| r as usize - 1);
        i32::from(self.capture[usize::from(piece_to(side, m))][captured])
    }

    /// Adds `bonus` (negative for a malus) to a quiet move's butterfly and continuation
    /// entries.
    pub(crate) fn update_quiet(
        &mut self,
        side: Color,
        m: Move,
        previous: [Option<PieceTo>; 2],
        bonus: i32,
    ) {
        let (role, from, to) = role_from_to(m);
        update(&mut self.butterfly[side as usize][from][to], bonus);
        let pt = usize::from(index(side, role, to));
        for p in previous.into_iter().flatten() {
            update(&mut self.continuation[usize::from(p)][pt], bonus);
        }
    }

    /// Adds `bonus` (negative for a malus) to a capture's entry.
    pub(crate) fn update_capture(&mut self, side: Color, m: Move, bonus: i32) {
        let captured = m.capture().map_or(0, |r| r as usize - 1);
        update(
            &mut self.capture[usize::from(piece_to(side, m))][captured],
            bonus,
        );
    }

    /// The correction at `slots` (a board's [`correction_slots`]) with `side` to move, in
    /// 1/[`CORRECTION_GRAIN`] centipawns: the sum of the tables' entries.
    fn correction_grains(&self, side: Color, slots: &[usize; CORRECTION_TABLES]) -> i32 {
        (0..CORRECTION_TABLES)
            .map(|t| i32::from(self.correction[t][side as usize][slots[t]]))
            .sum()
    }

    /// The correction of a static evaluation of `board` with `side` to move, in centipawns.
    pub(crate) fn correction(&self, side: Color, board: &Board) -> i32 {
        self.correction_grains(side, &correction_slots(board)) / CORRECTION_GRAIN
    }

    /// A search of `depth` found `score` where the static evaluation (uncorrected) was `raw`:
    /// each table's slot moves by `min(depth + 1, CORRECTION_WEIGHT_MAX)` 256ths of what the
    /// corrected evaluation missed by, the more the deeper the search. With one table this is
    /// the moving average of Ethereal and viridithas; with several, each learns what the
    /// others left (Stockfish gives every table the same bonus too).
    pub(crate) fn update_correction(
        &mut self,
        side: Color,
        board: &Board,
        depth: i32,
        score: i32,
        raw: i32,
    ) {
        let slots = correction_slots(board);
        let weight = (depth + 1).min(CORRECTION_WEIGHT_MAX);
        let missed = (score - raw) * CORRECTION_GRAIN - self.correction_grains(side, &slots);
        let step = missed * weight / 256;
        for (t, &slot) in slots.iter().enumerate() {
            let entry = &mut self.correction[t][side as usize][slot];
            *entry = (i32::from(*entry) + step).clamp(-CORRECTION_MAX, CORRECTION_MAX) as i16;
        }
    }

    /// Forgets everything (new game).
    pub(crate) fn clear(&mut self) {
        *self = Histories::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use shakmaty::{Position as _, Square};

    #[test]
    fn piece_to_indexes_every_move_of_a_position_in_range_and_apart() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let mut seen = std::collections::HashSet::new();
        for m in pos.legal_moves() {
            let pt = piece_to(Color::White, m);
            assert!(pt < 768);
            // Two moves share an index only when the same piece kind reaches the same square.
            seen.insert((pt, m.role(), m.to()));
        }
        let distinct: std::collections::HashSet<_> = seen.iter().map(|s| s.0).collect();
        assert_eq!(distinct.len(), seen.len());
        assert_ne!(
            piece_to(Color::White, pos.parse_uci("e1g1").unwrap()),
            piece_to(Color::Black, pos.parse_uci("e1g1").unwrap())
        );
    }

    #[test]
    fn gravity_keeps_entries_bounded_and_updates_reach_the_tables() {
        let pos = Position::startpos();
        let m = pos.parse_uci("g1f3").unwrap();
        let prev = [Some(piece_to(Color::Black, m)), None];
        let mut h = Histories::default();
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, prev, bonus(20));
        }
        let entry = |h: &Histories| {
            i32::from(h.butterfly[Color::White as usize][Square::G1 as usize][Square::F3 as usize])
        };
        let butterfly = entry(&h);
        assert!(butterfly > 0 && butterfly <= HISTORY_MAX);
        assert_eq!(h.quiet(Color::White, m, prev), 2 * butterfly);
        assert_eq!(h.quiet(Color::White, m, [None, None]), butterfly);
        h.update_quiet(Color::White, m, prev, -HISTORY_MAX);
        assert!(entry(&h) < butterfly);
        h.clear();
        assert_eq!(h.quiet(Color::White, m, prev), 0);
    }

    #[test]
    fn correction_moves_toward_the_searched_difference_and_stays_bounded() {
        let pos = Position::startpos();
        let other = Position::from_fen("4k3/pppppppp/8/8/8/8/PPPP1PPP/4K3 w - - 0 1").unwrap();
        let board = pos.chess().board();
        let mut h = Histories::default();
        assert_eq!(h.correction(Color::White, board), 0);
        h.update_correction(Color::White, board, 15, 20, 0);
        let once = h.correction(Color::White, board);
        assert!(once > 0 && once < 20, "{once}");
        for _ in 0..500 {
            h.update_correction(Color::White, board, 20, 20, 0);
        }
        // Converges to the difference, the other side and another pawn structure untouched.
        assert!((19..=20).contains(&h.correction(Color::White, board)));
        assert_eq!(h.correction(Color::Black, board), 0);
        assert_eq!(h.correction(Color::White, other.chess().board()), 0);
        for _ in 0..500 {
            h.update_correction(Color::White, board, 20, -5000, 0);
        }
        assert_eq!(
            h.correction(Color::White, board),
            -(CORRECTION_TABLES as i32) * CORRECTION_MAX / CORRECTION_GRAIN
        );
    }

    /// (FEN, tables shared with the start position: pawns, White's pieces, Black's pieces).
    const SHARED: &[(&str, [bool; 3])] = &[
        // Black's queen gone: the pawns and White's pieces are the start position's.
        (
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            [true, true, false],
        ),
        // White's knight on f3: only Black's pieces are the same.
        (
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
            [true, false, true],
        ),
        // A pawn on e4: the pieces of both sides are the same.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            [false, true, true],
        ),
        // Rook and knight of each side swapped: the same squares, other roles.
        (
            "nrbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/NRBQKBNR w Kk - 0 1",
            [true, false, false],
        ),
    ];

    #[test]
    fn each_table_is_shared_by_the_positions_with_its_pieces() {
        let start = Position::startpos();
        let mut h = Histories::default();
        for _ in 0..500 {
            h.update_correction(Color::White, start.chess().board(), 20, 30, 0);
        }
        let learned = correction_slots(start.chess().board());
        let sum = h.correction_grains(Color::White, &learned);
        assert!((29..=30).contains(&(sum / CORRECTION_GRAIN)), "{sum}");
        for &(fen, shared) in SHARED {
            let pos = Position::from_fen(fen).unwrap();
            let slots = correction_slots(pos.chess().board());
            for t in 0..CORRECTION_TABLES {
                assert_eq!(slots[t] == learned[t], shared[t], "{fen}, table {t}");
                let entry = h.correction[t][Color::White as usize][slots[t]];
                assert_eq!(entry != 0, shared[t], "{fen}, table {t}");
            }
        }
    }
}
