//! Move ordering.
//!
//! The main search tries, in order (chessprogramming wiki, "Move Ordering"):
//! 1. the transposition-table move, before any move generation (a cutoff by it saves the
//!    generation);
//! 2. good captures and queen promotions (static exchange evaluation at least zero), most
//!    valuable victim first, then least valuable attacker (MVV-LVA);
//! 3. the two killer moves of this ply;
//! 4. the remaining quiet moves by history heuristic score (Schaeffer 1983, the heuristic of
//!    the paper's GENESIS engine);
//! 5. bad captures.
//!
//! shakmaty generates all legal moves at once, so stages 2 to 5 are one generation scored by
//! stage, then picked by selection (the best remaining move each time): a cutoff early in the
//! list never pays for sorting the rest.
//!
//! Quiescence uses [`MovePicker::captures`]: captures and queen promotions by MVV-LVA, or every
//! evasion when in check.

use arrayvec::ArrayVec;
use shakmaty::attacks::{self, attacks, bishop_attacks, king_attacks, rook_attacks};
use shakmaty::{
    Bitboard, Board, Chess, Color, Move, MoveList, Piece, Position as _, Rank, Role, Square,
};

/// Piece values for exchange evaluation and MVV-LVA, indexed by `Role as usize`.
pub const SEE_VALUE: [i32; 7] = [0, 100, 300, 300, 500, 900, 20_000];

fn value(role: Role) -> i32 {
    SEE_VALUE[role as usize]
}

/// History heuristic scores, indexed [side][from][to], kept within +-[`HISTORY_MAX`].
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

/// The bound of a history score.
pub const HISTORY_MAX: i32 = 16_384;

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl History {
    /// The score of a quiet move by `side`.
    pub fn get(&self, side: Color, m: Move) -> i32 {
        let (from, to) = from_to(m);
        self.table[side as usize][from as usize][to as usize]
    }

    /// Adds `bonus` (negative for a malus), with gravity toward zero so scores stay in range
    /// and old results fade.
    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        let (from, to) = from_to(m);
        let h = &mut self.table[side as usize][from as usize][to as usize];
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        *self.table = [[[0; 64]; 64]; 2];
    }
}

fn from_to(m: Move) -> (Square, Square) {
    match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { king, rook } => (king, rook),
        Move::Put { to, .. } => (to, to),
    }
}

/// True for moves that change material: captures and promotions.
pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, value);
    let promo = m.promotion().map_or(0, value);
    victim * 8 + promo - value(m.role()) / 100
}

const GOOD_TACTICAL: i32 = 2_000_000;
const KILLER: [i32; 2] = [1_000_002, 1_000_001];
const BAD_TACTICAL: i32 = -2_000_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    TtMove,
    Generate,
    Pick,
}

/// Picks after which the rest of the list is sorted once instead of searched for its best.
const SELECT_FIRST: usize = 3;

#[derive(Clone, Copy)]
struct Scored {
    score: i32,
    mv: Move,
}

/// Yields the legal moves of a position in search order. See the module documentation.
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    list: ArrayVec<Scored, 256>,
    next: usize,
    quiescence: bool,
}

impl MovePicker {
    /// All legal moves, for the main search. `tt_move` must already be checked legal.
    pub fn new(tt_move: Option<Move>, killers: [Option<Move>; 2]) -> MovePicker {
        MovePicker {
            stage: if tt_move.is_some() {
                Stage::TtMove
            } else {
                Stage::Generate
            },
            tt_move,
            killers,
            list: ArrayVec::new(),
            next: 0,
            quiescence: false,
        }
    }

    /// Captures and queen promotions (every evasion when in check), for quiescence search.
    pub fn captures(tt_move: Option<Move>) -> MovePicker {
        let mut picker = MovePicker::new(tt_move, [None; 2]);
        picker.quiescence = true;
        picker
    }

    /// The next move, or `None` when all have been yielded.
    pub fn next(&mut self, chess: &Chess, history: &History) -> Option<Move> {
        if self.stage == Stage::TtMove {
            self.stage = Stage::Generate;
            if let Some(m) = self.tt_move {
                if !self.quiescence || chess.is_check() || is_tactical(m) {
                    return Some(m);
                }
                self.tt_move = None; // a quiet table move is not searched in quiescence
            }
        }
        if self.stage == Stage::Generate {
            self.stage = Stage::Pick;
            self.generate(chess, history);
        }
        let rest = &mut self.list[self.next..];
        if rest.is_empty() {
            return None;
        }
        if self.next < SELECT_FIRST {
            // Selection: bring the best remaining move to the front of the rest.
            let mut best = 0;
            for (i, s) in rest.iter().enumerate().skip(1) {
                if s.score > rest[best].score {
                    best = i;
                }
            }
            rest.swap(0, best);
        } else if self.next == SELECT_FIRST {
            // Still going: this is probably an all-node, so order the rest once.
            rest.sort_unstable_by_key(|s| std::cmp::Reverse(s.score));
        }
        let m = rest.first()?.mv;
        self.next += 1;
        Some(m)
    }

    fn generate(&mut self, chess: &Chess, history: &History) {
        let in_check = chess.is_check();
        let quiescence = self.quiescence && !in_check;
        let side = chess.turn();
        let board = chess.board();
        let moves = if quiescence {
            tactical_moves(chess)
        } else {
            chess.legal_moves()
        };
        for &m in &moves {
            if Some(m) == self.tt_move {
                continue;
            }
            debug_assert!(
                !quiescence || is_tactical(m),
                "tactical_moves gives only these"
            );
            let score = if is_tactical(m) {
                if quiescence || see_ge(board, m, 0) {
                    GOOD_TACTICAL + mvv_lva(m)
                } else {
                    BAD_TACTICAL + mvv_lva(m)
                }
            } else if Some(m) == self.killers[0] {
                KILLER[0]
            } else if Some(m) == self.killers[1] {
                KILLER[1]
            } else {
                history.get(side, m)
            };
            self.list.push(Scored { score, mv: m });
        }
    }
}

/// The legal captures and queen promotions of a position that is not in check, generated
/// directly (shakmaty's `capture_moves` generates every legal move and filters): each piece's
/// attacks on enemy pieces, pinned pieces kept on their pin line, king captures onto squares
/// the enemy does not attack, pawn captures and pushes to the last rank as queen promotions,
/// and en passant through shakmaty. Tested against filtering `legal_moves`.
pub fn tactical_moves(chess: &Chess) -> MoveList {
    let mut moves = MoveList::new();
    let board = chess.board();
    let us = chess.turn();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return moves;
    };
    debug_assert!(!chess.is_check(), "evasions come from legal_moves");

    // Our pieces that alone stand between our king and an enemy slider.
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()
        | bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
        & theirs;
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let between = attacks::between(king, sniper) & occupied;
        if !between.more_than_one() {
            pinned |= between & ours;
        }
    }
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);
    let last_rank = Bitboard::from_rank(us.fold_wb(Rank::Eighth, Rank::First));

    for from in ours & !board.kings() {
        let role = board.role_at(from).expect("occupied");
        if role == Role::Pawn {
            for to in attacks::pawn_attacks(us, from) & theirs {
                if legal(from, to) {
                    let promotion = last_rank.contains(to).then_some(Role::Queen);
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion,
                    });
                }
            }
            if let Some(to) = from.offset(us.fold_wb(8, -8))
                && last_rank.contains(to)
                && !occupied.contains(to)
                && legal(from, to)
            {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture: None,
                    to,
                    promotion: Some(Role::Queen),
                });
            }
        } else {
            for to in attacks(from, Piece { color: us, role }, occupied) & theirs {
                if legal(from, to) {
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion: None,
                    });
                }
            }
        }
    }
    let without_king = occupied.without(king);
    for to in king_attacks(king) & theirs {
        if board.attacks_to(to, !us, without_king).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    if chess.maybe_ep_square().is_some() {
        moves.extend(chess.en_passant_moves());
    }
    moves
}

/// True when `m` gives check, from bitboards, without making the move: a direct check by
/// the moved (or promoted) piece from its target square, or a discovered check by a slider of
/// ours once the moved piece (and an en passant victim) has left. Castling is played out.
pub fn gives_check(chess: &Chess, m: Move) -> bool {
    let board = chess.board();
    let us = chess.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let (from, to, role) = match m {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion.unwrap_or(role)),
        Move::EnPassant { from, to } => (from, to, Role::Pawn),
        Move::Castle { .. } | Move::Put { .. } => {
            let mut after = chess.clone();
            after.play_unchecked(m);
            return after.is_check();
        }
    };
    let mut occupied = board.occupied().without(from).with(to);
    if let Move::EnPassant { from, to } = m {
        occupied = occupied.without(Square::from_coords(to.file(), from.rank()));
    }
    if attacks(to, Piece { color: us, role }, occupied).contains(king) {
        return true;
    }
    let sliders = (bishop_attacks(king, occupied) & board.bishops_and_queens())
        | (rook_attacks(king, occupied) & board.rooks_and_queens());
    (sliders & board.by_color(us)).without(from).any()
}

/// Static exchange evaluation: does playing `m` and the best sequence of recaptures on its
/// target square win at least `threshold` centipawns for the mover? (The swap algorithm,
/// chessprogramming wiki "SEE - The Swap Algorithm", in the threshold form of Stockfish's
/// `see_ge`.) Pins are ignored.
pub fn see_ge(board: &Board, m: Move, threshold: i32) -> bool {
    let (from, to) = match m {
        Move::Castle { .. } | Move::Put { .. } => return 0 >= threshold,
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
    };
    let mut swap = m.capture().map_or(0, value) - threshold;
    if let Some(p) = m.promotion() {
        swap += value(p) - value(Role::Pawn);
    }
    if swap < 0 {
        return false;
    }
    let moved = m.promotion().unwrap_or(m.role());
    swap = value(moved) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = board.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
    if let Move::EnPassant { from, to } = m {
        occupied ^= Bitboard::from_square(Square::from_coords(to.file(), from.rank()));
    }
    let mover = board.color_at(from).expect("a piece on the from square");
    let mut side = mover;
    let mut attackers = attackers_to(board, to, occupied);
    let bishops = board.bishops() | board.queens();
    let rooks = board.rooks() | board.queens();
    let mut result = true;

    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        result = !result;
        let Some((role, sq)) = least_valuable(board, ours) else {
            break;
        };
        if role == Role::King {
            // The king may only recapture if the other side has no attacker left.
            return if (attackers & board.by_color(!side)).any() {
                !result
            } else {
                result
            };
        }
        swap = value(role) - swap;
        if swap < i32::from(result) {
            break;
        }
        occupied ^= Bitboard::from_square(sq);
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & bishops;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & rooks;
        }
    }
    result
}

fn attackers_to(board: &Board, sq: Square, occupied: Bitboard) -> Bitboard {
    board.attacks_to(sq, Color::White, occupied) | board.attacks_to(sq, Color::Black, occupied)
}

fn least_valuable(board: &Board, attackers: Bitboard) -> Option<(Role, Square)> {
    Role::ALL.into_iter().find_map(|role| {
        (attackers & board.by_role(role))
            .first()
            .map(|sq| (role, sq))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    #[test]
    fn static_exchange_evaluation() {
        // (fen, move, threshold, expected)
        let cases = [
            // Pawn takes a defended knight: wins a knight for a pawn.
            ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 200, true),
            // Queen takes a pawn defended by a pawn: loses the queen.
            ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", 0, false),
            // Rook takes an undefended rook.
            ("4k3/8/8/3r4/8/8/3R4/4K3 w - - 0 1", "d2d5", 500, true),
            // Knight takes a pawn defended once, with a second attacker behind: even.
            ("4k3/8/4p3/3p4/8/4N3/8/3RK3 w - - 0 1", "e3d5", 0, false),
            // X-ray: rook takes, the rook behind it backs it up against the queen's recapture.
            ("3qk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100, true),
            // A quiet move onto an attacked square is a loss.
            ("4k3/8/8/3p4/8/8/8/N3K3 w - - 0 1", "a1b3", 0, true),
            ("4k3/8/2p5/8/8/8/8/N3K3 w - - 0 1", "a1b3", 0, true),
            ("4k3/8/8/8/2p5/8/8/N3K3 w - - 0 1", "a1b3", 0, false),
        ];
        for (fen, uci, threshold, expected) in cases {
            let pos = Position::from_fen(fen).unwrap();
            let m = pos.parse_uci(uci).unwrap();
            assert_eq!(
                see_ge(pos.chess().board(), m, threshold),
                expected,
                "{fen} {uci} {threshold}"
            );
        }
    }

    #[test]
    fn tactical_moves_are_the_legal_captures_and_queen_promotions() {
        // Under-promotions, also with capture, stay out of quiescence.
        let mut checked = 0;
        let roots = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/2k5/3pP3/8/8/1K4B1 b - e3 0 1",
            "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1",
            "1n2k3/P6P/8/8/8/8/p6p/1N2K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
        ];
        for fen in roots {
            let mut stack = vec![Position::from_fen(fen).unwrap()];
            for _ in 0..3 {
                let mut next = Vec::new();
                for p in &stack {
                    if !p.in_check() {
                        let mut want: Vec<Move> = p
                            .legal_moves()
                            .into_iter()
                            .filter(|m| matches!(m.promotion(), None | Some(Role::Queen)))
                            .filter(|m| m.is_capture() || m.promotion().is_some())
                            .collect();
                        let mut got: Vec<Move> = tactical_moves(p.chess()).into_iter().collect();
                        let key = |m: &Move| format!("{m:?}");
                        want.sort_by_key(key);
                        got.sort_by_key(key);
                        assert_eq!(got, want, "{}", p.fen());
                        checked += 1;
                    }
                    for m in p.legal_moves() {
                        let mut child = p.clone();
                        child.push(m);
                        next.push(child);
                    }
                }
                stack = next;
            }
        }
        assert!(checked > 4_000, "{checked}");
    }

    #[test]
    fn gives_check_agrees_with_making_the_move() {
        let mut checks = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/8/8/2k5/3pP3/8/8/1K4B1 b - e3 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3r2k1/4P3/8/8/8/8/8/R3K3 w Q - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mut stack = vec![pos];
            // Three plies deep from each position.
            for _ in 0..3 {
                let mut next = Vec::new();
                for p in &stack {
                    for m in p.legal_moves() {
                        let mut child = p.clone();
                        child.push(m);
                        assert_eq!(
                            gives_check(p.chess(), m),
                            child.in_check(),
                            "{} {m:?}",
                            p.fen()
                        );
                        checks += usize::from(child.in_check());
                        next.push(child);
                    }
                }
                stack = next;
            }
        }
        assert!(checks > 2_000, "{checks}");
    }

    #[test]
    fn picker_yields_every_legal_move_once_in_stage_order() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let chess = pos.chess();
        let tt = pos.parse_uci("a2a3").unwrap();
        let killer = pos.parse_uci("g2g3").unwrap();
        let mut history = History::default();
        history.update(Color::White, pos.parse_uci("a1b1").unwrap(), 5000);
        let mut picker = MovePicker::new(Some(tt), [Some(killer), None]);
        let mut seen = Vec::new();
        while let Some(m) = picker.next(chess, &history) {
            seen.push(m);
        }
        let mut legal: Vec<_> = chess.legal_moves().into_iter().collect();
        assert_eq!(seen.len(), legal.len());
        legal.retain(|m| !seen.contains(m));
        assert!(legal.is_empty());
        assert_eq!(seen[0], tt);
        // Good captures come next, then the killer, then the history move, and losing
        // captures after every quiet move.
        let board = chess.board();
        let killer_at = seen.iter().position(|&m| m == killer).unwrap();
        assert!(killer_at > 1);
        assert!(
            seen[1..killer_at]
                .iter()
                .all(|&m| is_tactical(m) && see_ge(board, m, 0))
        );
        assert_eq!(seen[killer_at + 1], pos.parse_uci("a1b1").unwrap());
        let first_bad = seen
            .iter()
            .position(|&m| is_tactical(m) && !see_ge(board, m, 0))
            .unwrap();
        assert!(
            seen[first_bad..]
                .iter()
                .all(|&m| is_tactical(m) && !see_ge(board, m, 0))
        );
        assert!(
            seen[killer_at + 1..first_bad]
                .iter()
                .all(|&m| !is_tactical(m))
        );
    }

    #[test]
    fn quiescence_picker_yields_captures_or_all_evasions() {
        let quiet = Position::from_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1").unwrap();
        let mut picker = MovePicker::captures(None);
        let history = History::default();
        let mut n = 0;
        while let Some(m) = picker.next(quiet.chess(), &history) {
            assert!(m.is_capture());
            n += 1;
        }
        assert_eq!(n, 1);
        let check = Position::from_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").unwrap();
        let mut picker = MovePicker::captures(None);
        let mut n = 0;
        while picker.next(check.chess(), &history).is_some() {
            n += 1;
        }
        assert_eq!(n, check.legal_moves().len());
    }
}
