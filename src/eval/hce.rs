//! The hand-crafted evaluation: a tapered (middlegame/endgame) sum of terms, in centipawns from the side
//! to move.
//!
//! Terms, each computed for both colours the same way so that a position and its colour-swapped
//! mirror evaluate the same (tested):
//! 1. material and piece-square tables: PeSTO's values (Ronald Friederich, published on the
//!    chessprogramming wiki, "PeSTO's Evaluation Function"), tuned together as a set;
//! 2. pawn structure: passed pawns by rank, isolated and doubled pawns;
//! 3. mobility: squares attacked by each piece that are neither our own nor defended by an enemy
//!    pawn, counted from a typical value;
//! 4. king safety: attack units of enemy pieces on the king zone through a quadratic table
//!    (the classic "SafetyTable" scheme of the chessprogramming wiki, "King Safety"), only
//!    while the attacker still has a queen, plus a pawn shield;
//! 5. bishop pair; rooks on open and half-open files;
//! 6. a small bonus for the side to move (tempo).
//!
//! The phase counts minor pieces 1, rooks 2, queens 4 (24 in the opening), as PeSTO does.

use std::fmt::{self, Write as _};
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Position as _, Role, Square};

use crate::score::Score;

/// A middlegame and an endgame value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl Add for S {
    type Output = S;
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}
impl AddAssign for S {
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}
impl Sub for S {
    type Output = S;
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}
impl Neg for S {
    type Output = S;
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}
impl Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

const PHASE_MAX: i32 = 24;
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

const MATERIAL: [S; 6] = [
    S(82, 94),
    S(337, 281),
    S(365, 297),
    S(477, 512),
    S(1025, 936),
    S(0, 0),
];

/// PeSTO piece-square tables, from White's side, index 0 = a8 (as published).
#[rustfmt::skip]
const PST_MG: [[i32; 64]; 6] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 98, 134, 61, 95, 68, 126, 34, -11, -6, 7, 26, 31, 65, 56, 25, -20,
     -14, 13, 6, 21, 23, 12, 17, -23, -27, -2, -5, 12, 17, 6, 10, -25, -26, -4, -4, -10, 3, 3, 33, -12,
     -35, -1, -20, -23, -15, 24, 38, -22, 0, 0, 0, 0, 0, 0, 0, 0],
    [-167, -89, -34, -49, 61, -97, -15, -107, -73, -41, 72, 36, 23, 62, 7, -17, -47, 60, 37, 65, 84, 129, 73, 44,
     -9, 17, 19, 53, 37, 69, 18, 22, -13, 4, 16, 13, 28, 19, 21, -8, -23, -9, 12, 10, 19, 17, 25, -16,
     -29, -53, -12, -3, -1, 18, -14, -19, -105, -21, -58, -33, -17, -28, -19, -23],
    [-29, 4, -82, -37, -25, -42, 7, -8, -26, 16, -18, -13, 30, 59, 18, -47, -16, 37, 43, 40, 35, 50, 37, -2,
     -4, 5, 19, 50, 37, 37, 7, -2, -6, 13, 13, 26, 34, 12, 10, 4, 0, 15, 15, 15, 14, 27, 18, 10,
     4, 15, 16, 0, 7, 21, 33, 1, -33, -3, -14, -21, -13, -12, -39, -21],
    [32, 42, 32, 51, 63, 9, 31, 43, 27, 32, 58, 62, 80, 67, 26, 44, -5, 19, 26, 36, 17, 45, 61, 16,
     -24, -11, 7, 26, 24, 35, -8, -20, -36, -26, -12, -1, 9, -7, 6, -23, -45, -25, -16, -17, 3, 0, -5, -33,
     -44, -16, -20, -9, -1, 11, -6, -71, -19, -13, 1, 17, 16, 7, -37, -26],
    [-28, 0, 29, 12, 59, 44, 43, 45, -24, -39, -5, 1, -16, 57, 28, 54, -13, -17, 7, 8, 29, 56, 47, 57,
     -27, -27, -16, -16, -1, 17, -2, 1, -9, -26, -9, -10, -2, -4, 3, -3, -14, 2, -11, -2, -5, 2, 14, 5,
     -35, -8, 11, 2, 8, 15, -3, 1, -1, -18, -9, 10, -15, -25, -31, -50],
    [-65, 23, 16, -15, -56, -34, 2, 13, 29, -1, -20, -7, -8, -4, -38, -29, -9, 24, 2, -16, -20, 6, 22, -22,
     -17, -20, -12, -27, -30, -25, -14, -36, -49, -1, -27, -39, -46, -44, -33, -51, -14, -14, -22, -46, -44, -30, -15, -27,
     1, 7, -8, -64, -43, -16, 9, 8, -15, 36, 12, -54, 8, -28, 24, 14],
];

#[rustfmt::skip]
const PST_EG: [[i32; 64]; 6] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 178, 173, 158, 134, 147, 132, 165, 187, 94, 100, 85, 67, 56, 53, 82, 84,
     32, 24, 13, 5, -2, 4, 17, 17, 13, 9, -3, -7, -7, -8, 3, -1, 4, 7, -6, 1, 0, -5, -1, -8,
     13, 8, 8, 10, 13, 0, 2, -7, 0, 0, 0, 0, 0, 0, 0, 0],
    [-58, -38, -13, -28, -31, -27, -63, -99, -25, -8, -25, -2, -9, -25, -24, -52, -24, -20, 10, 9, -1, -9, -19, -41,
     -17, 3, 22, 22, 22, 11, 8, -18, -18, -6, 16, 25, 16, 17, 4, -18, -23, -3, -1, 15, 10, -3, -20, -22,
     -42, -20, -10, -5, -2, -20, -23, -44, -29, -51, -23, -15, -22, -18, -50, -64],
    [-14, -21, -11, -8, -7, -9, -17, -24, -8, -4, 7, -12, -3, -13, -4, -14, 2, -8, 0, -1, -2, 6, 0, 4,
     -3, 9, 12, 9, 14, 10, 3, 2, -6, 3, 13, 19, 7, 10, -3, -9, -12, -3, 8, 10, 13, 3, -7, -15,
     -14, -18, -7, -1, 4, -9, -15, -27, -23, -9, -23, -5, -9, -16, -5, -17],
    [13, 10, 18, 15, 12, 12, 8, 5, 11, 13, 13, 11, -3, 3, 8, 3, 7, 7, 7, 5, 4, -3, -5, -3,
     4, 3, 13, 1, 2, 1, -1, 2, 3, 5, 8, 4, -5, -6, -8, -11, -4, 0, -5, -1, -7, -12, -8, -16,
     -6, -6, 0, 2, -9, -9, -11, -3, -9, 2, 3, -1, -5, -13, 4, -20],
    [-9, 22, 22, 27, 27, 19, 10, 20, -17, 20, 32, 41, 58, 25, 30, 0, -20, 6, 9, 49, 47, 35, 19, 9,
     3, 22, 24, 45, 57, 40, 57, 36, -18, 28, 19, 47, 31, 34, 39, 23, -16, -27, 15, 6, 9, 17, 10, 5,
     -22, -23, -30, -16, -16, -23, -36, -32, -33, -28, -22, -43, -5, -32, -20, -41],
    [-74, -35, -18, -18, -11, 15, 4, -17, -12, 17, 14, 17, 17, 38, 23, 11, 10, 17, 23, 15, 20, 45, 44, 13,
     -8, 22, 24, 27, 26, 33, 26, 3, -18, -4, 21, 24, 27, 23, 9, -11, -19, -3, 11, 21, 23, 16, 7, -9,
     -27, -11, 4, 13, 14, 4, -5, -17, -53, -34, -21, -11, -28, -14, -24, -43],
];

/// Material plus table value of a piece, indexed [colour][role][square] (square a1 = 0).
static PSQT: [[[S; 64]; 6]; 2] = build_psqt();

const fn build_psqt() -> [[[S; 64]; 6]; 2] {
    let mut t = [[[S(0, 0); 64]; 6]; 2];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            let m = MATERIAL[role];
            // White reads the table upside down (index 0 is a8); Black reads it as a mirror.
            t[0][role][sq] = S(m.0 + PST_MG[role][sq ^ 56], m.1 + PST_EG[role][sq ^ 56]);
            t[1][role][sq] = S(m.0 + PST_MG[role][sq], m.1 + PST_EG[role][sq]);
            sq += 1;
        }
        role += 1;
    }
    t
}

// Step 2: pawn structure, by rank relative to the pawn's owner.
const PASSED: [S; 8] = [
    S(0, 0),
    S(2, 8),
    S(4, 12),
    S(8, 20),
    S(20, 38),
    S(40, 70),
    S(60, 110),
    S(0, 0),
];
const ISOLATED: S = S(-10, -14);
const DOUBLED: S = S(-8, -22);

// Step 3: mobility per square beyond a typical count.
const MOBILITY: [(S, i32); 4] = [(S(4, 4), 4), (S(5, 5), 6), (S(2, 4), 7), (S(1, 2), 13)];

// Step 4: king safety.
const ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];
#[rustfmt::skip]
const SAFETY: [i32; 100] = [
    0, 0, 1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 26, 30, 35, 39, 44, 50, 56, 62,
    68, 75, 82, 85, 89, 97, 105, 113, 122, 131, 140, 150, 169, 180, 191, 202, 213, 225, 237, 248,
    260, 272, 283, 295, 307, 319, 330, 342, 354, 366, 377, 389, 401, 412, 424, 436, 448, 459, 471, 483,
    494, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500,
    500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500,
];
const SHIELD_PAWN: S = S(12, 0);

// Step 5: pieces.
const BISHOP_PAIR: S = S(30, 50);
const ROOK_OPEN_FILE: S = S(25, 10);
const ROOK_HALF_OPEN_FILE: S = S(12, 6);

// Step 6.
const TEMPO: i32 = 12;

/// The evaluation terms, one row per term, for White and Black.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Per term, per colour (White, Black).
    pub terms: [[S; 2]; TERMS],
    /// Game phase, 0 (bare kings) to 24 (all pieces).
    pub phase: i32,
    /// The final score, from the side to move.
    pub score: Score,
}

const TERMS: usize = 5;
const TERM_NAMES: [&str; TERMS] = ["Material+PST", "Pawns", "Mobility", "King safety", "Pieces"];

/// Evaluates `chess` in centipawns from the side to move.
pub fn evaluate(chess: &Chess) -> Score {
    trace(chess).score
}

/// Evaluates `chess` and returns every term (for the `eval` command and tests).
pub fn trace(chess: &Chess) -> Trace {
    let board = chess.board();
    let mut t = Trace::default();
    let occupied = board.occupied();

    let mut phase = 0;
    for role in Role::ALL {
        phase += PHASE_WEIGHT[role as usize - 1] * board.by_role(role).count() as i32;
    }
    t.phase = phase.min(PHASE_MAX);

    for color in Color::ALL {
        let c = color as usize ^ 1; // shakmaty: Black = 0, White = 1; we index White = 0
        let us = board.by_color(color);
        let them = board.by_color(!color);
        let our_pawns = board.pawns() & us;
        let their_pawns = board.pawns() & them;
        let their_pawn_attacks = pawn_attack_span(their_pawns, !color);
        let their_king = board.king_of(!color).expect("a king of each colour");
        let their_zone = king_attacks(their_king).with(their_king);

        // 1. Material and piece-square tables.
        let mut psqt = S(0, 0);
        for role in Role::ALL {
            for sq in board.by_role(role) & us {
                psqt += PSQT[c][role as usize - 1][sq as usize];
            }
        }
        t.terms[0][c] = psqt;

        // 2. Pawn structure.
        let mut pawns = S(0, 0);
        for sq in our_pawns {
            if (PASSED_MASK[c][sq as usize] & their_pawns).is_empty() {
                pawns += PASSED[relative_rank(sq, color)];
            }
            if (ADJACENT_FILES[sq.file() as usize] & our_pawns).is_empty() {
                pawns += ISOLATED;
            }
        }
        for file in 0..8 {
            let n = (our_pawns.0 & FILE_A << file).count_ones() as i32;
            if n > 1 {
                pawns += DOUBLED * (n - 1);
            }
        }
        t.terms[1][c] = pawns;

        // 3. Mobility and the attacks that feed 4.
        let mut mobility = S(0, 0);
        let mut units = 0;
        let mut attackers = 0;
        let area = !us & !their_pawn_attacks;
        for (i, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .enumerate()
        {
            for sq in board.by_role(role) & us {
                let attacks = piece_attacks(role, sq, occupied);
                let (weight, typical) = MOBILITY[i];
                mobility += weight * ((attacks & area).count() as i32 - typical);
                let on_zone = (attacks & their_zone).count() as i32;
                if on_zone > 0 {
                    attackers += 1;
                    units += ATTACK_UNITS[role as usize - 1] * on_zone;
                }
            }
        }
        t.terms[2][c] = mobility;

        // 4. King safety: our attack on their king counts for us; our shield for us.
        let mut safety = S(0, 0);
        if attackers >= 2 && (board.queens() & us).any() {
            safety += S(SAFETY[units.min(99) as usize], 0);
        }
        let our_king = board.king_of(color).expect("a king of each colour");
        safety += SHIELD_PAWN
            * (SHIELD_MASK[c][our_king as usize] & our_pawns)
                .count()
                .min(3) as i32;
        t.terms[3][c] = safety;

        // 5. Bishop pair, rooks on open files.
        let mut pieces = S(0, 0);
        if (board.bishops() & us).more_than_one() {
            pieces += BISHOP_PAIR;
        }
        for sq in board.rooks() & us {
            let file = Bitboard::from_file(sq.file());
            if (file & board.pawns()).is_empty() {
                pieces += ROOK_OPEN_FILE;
            } else if (file & our_pawns).is_empty() {
                pieces += ROOK_HALF_OPEN_FILE;
            }
        }
        t.terms[4][c] = pieces;
    }

    let mut total = S(0, 0);
    for term in &t.terms {
        total += term[0] - term[1];
    }
    let white = (total.0 * t.phase + total.1 * (PHASE_MAX - t.phase)) / PHASE_MAX;
    let stm = if chess.turn() == Color::White {
        white
    } else {
        -white
    };
    t.score = Score(stm + TEMPO);
    t
}

fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        _ => bishop_attacks(sq, occupied) | rook_attacks(sq, occupied),
    }
}

fn relative_rank(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// The files next to each file.
static ADJACENT_FILES: [Bitboard; 8] = {
    let mut t = [Bitboard(0); 8];
    let mut f = 0;
    while f < 8 {
        let mut b = 0;
        if f > 0 {
            b |= FILE_A << (f - 1);
        }
        if f < 7 {
            b |= FILE_A << (f + 1);
        }
        t[f] = Bitboard(b);
        f += 1;
    }
    t
};

/// Per colour (White = 0) and square: the squares ahead of a pawn there on its own and the
/// adjacent files (no enemy pawn there means passed), and a king's pawn shield (the three
/// files around it, one and two ranks ahead).
static PASSED_MASK: [[Bitboard; 64]; 2] = masks(false);
static SHIELD_MASK: [[Bitboard; 64]; 2] = masks(true);

const fn masks(shield: bool) -> [[Bitboard; 64]; 2] {
    let mut t = [[Bitboard(0); 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = (sq % 8, sq / 8);
        let files = ADJACENT_FILES[file].0 | FILE_A << file;
        let mut white_ahead = 0u64;
        let mut black_ahead = 0u64;
        let mut r = 0;
        while r < 8 {
            let row = 0xffu64 << (8 * r);
            let (w, b) = if shield {
                (r > rank && r <= rank + 2, r < rank && r + 2 >= rank)
            } else {
                (r > rank, r < rank)
            };
            if w {
                white_ahead |= row;
            }
            if b {
                black_ahead |= row;
            }
            r += 1;
        }
        t[0][sq] = Bitboard(files & white_ahead);
        t[1][sq] = Bitboard(files & black_ahead);
        sq += 1;
    }
    t
}

/// Squares attacked by the pawns of `color`.
fn pawn_attack_span(pawns: Bitboard, color: Color) -> Bitboard {
    let not_a = !FILE_A;
    let not_h = !(FILE_A << 7);
    let p = pawns.0;
    Bitboard(match color {
        Color::White => ((p & not_a) << 7) | ((p & not_h) << 9),
        Color::Black => ((p & not_a) >> 9) | ((p & not_h) >> 7),
    })
}

impl fmt::Display for Trace {
    /// The `eval` command's table: each term for White and Black, middlegame and endgame.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let _ = writeln!(out, "     Term     |    White    |    Black    |    Total");
        let _ = writeln!(
            out,
            "              |   MG    EG  |   MG    EG  |   MG    EG"
        );
        let _ = writeln!(
            out,
            "--------------+-------------+-------------+------------"
        );
        let mut total = S(0, 0);
        for (name, [w, b]) in TERM_NAMES.iter().zip(self.terms) {
            let d = w - b;
            total += d;
            let _ = writeln!(
                out,
                "{name:>13} | {:5} {:5} | {:5} {:5} | {:5} {:5}",
                w.0, w.1, b.0, b.1, d.0, d.1
            );
        }
        let _ = writeln!(
            out,
            "--------------+-------------+-------------+------------"
        );
        let _ = writeln!(
            out,
            "{:>13} |             |             | {:5} {:5}",
            "Total", total.0, total.1
        );
        let _ = writeln!(out, "\nPhase {}/24, tempo {TEMPO}", self.phase);
        let _ = write!(out, "Final evaluation: {} (side to move)", self.score.0);
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    const POSITIONS: [&str; 8] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "2q1r1k1/1ppb4/r2p1Pp1/p4n1p/2P1n3/5NPP/PP3Q1K/2BRRB2 w - - 0 1",
        "8/8/p1p5/1p5p/1P5p/8/PPP2K1p/4R1rk w - - 0 1",
        "7k/5K2/5P1p/3p4/6P1/3p4/8/8 w - - 0 1",
        "8/6B1/p5p1/Pp4kp/1P5r/5P1Q/4q1PK/8 b - - 0 32",
    ];

    #[test]
    fn colour_flipped_positions_score_the_same() {
        for fen in POSITIONS {
            let pos = Position::from_fen(fen).unwrap();
            let flipped = pos.mirrored();
            assert_ne!(pos.fen(), flipped.fen());
            assert_eq!(
                evaluate(pos.chess()),
                evaluate(flipped.chess()),
                "{fen} vs {}",
                flipped.fen()
            );
        }
    }

    #[test]
    fn the_start_position_is_level_and_material_counts() {
        let start = Position::startpos();
        assert_eq!(evaluate(start.chess()), Score(TEMPO));
        // A queen up is far better than a pawn up, for whichever side has it.
        let queen_up =
            Position::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        let pawn_up =
            Position::from_fen("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        assert!(evaluate(queen_up.chess()).0 > 700);
        assert!((40..200).contains(&evaluate(pawn_up.chess()).0));
        let black_to_move =
            Position::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert!(evaluate(black_to_move.chess()).0 < -700);
    }

    #[test]
    fn terms_see_what_they_name() {
        let w = |fen: &str, term: usize| {
            let t = trace(Position::from_fen(fen).unwrap().chess());
            t.terms[term][0] - t.terms[term][1]
        };
        // A passed pawn on the sixth against a blocked one.
        assert!(
            w("4k3/8/P7/8/8/8/8/4K3 w - - 0 1", 1).1 > w("4k3/p7/P7/8/8/8/8/4K3 w - - 0 1", 1).1
        );
        // Doubled, isolated pawns are worse than two connected ones.
        assert!(
            w("4k3/8/8/8/8/2P5/2P5/4K3 w - - 0 1", 1).1
                < w("4k3/8/8/8/8/8/2PP4/4K3 w - - 0 1", 1).1
        );
        // A centralised knight is more mobile than a cornered one.
        assert!(
            w("4k3/8/8/3N4/8/8/8/4K3 w - - 0 1", 2).0 > w("4k3/8/8/8/8/8/8/N3K3 w - - 0 1", 2).0
        );
        // The bishop pair.
        assert_eq!(w("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", 4), BISHOP_PAIR);
        // Pieces bearing down on the king with a queen present, against the same pieces away.
        let attack = "6k1/5ppp/8/6N1/8/3B4/6Q1/6K1 w - - 0 1";
        let away = "6k1/5ppp/8/8/8/8/8/N1BQ2K1 w - - 0 1";
        assert!(w(attack, 3).0 > w(away, 3).0);
    }
}
