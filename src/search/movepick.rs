//! Move ordering.
//!
//! The main search tries, in order (chessprogramming wiki, "Move Ordering"):
//! 1. the transposition-table move, before any move generation (a cutoff by it saves the
//!    generation);
//! 2. good captures and queen promotions (static exchange evaluation at least zero), most
//!    valuable victim first, then by capture history;
//! 3. the two killer moves of this ply;
//! 4. the remaining quiet moves by butterfly plus continuation history (see
//!    [`super::history`]);
//! 5. bad captures.
//!
//! shakmaty generates all legal moves at once, so stages 2 to 5 are one generation scored by
//! stage, then picked by selection (the best remaining move each time): a cutoff early in the
//! list never pays for sorting the rest.
//!
//! Quiescence uses [`MovePicker::captures`]: captures and queen promotions in the same order,
//! or every evasion when in check.

use arrayvec::ArrayVec;
use shakmaty::{Chess, Move, Position as _};

use crate::params::CAPTURE_HISTORY_DIVISOR;
use crate::position::{SEE_VALUE, is_tactical, see_ge, tactical_moves};
use crate::search::history::{Histories, PieceTo};

fn value(role: shakmaty::Role) -> i32 {
    SEE_VALUE[role as usize]
}

/// What orders the moves besides the position: the thread's statistics and the moves one and
/// two plies earlier (for the continuation histories).
pub(crate) struct Ordering<'a> {
    pub histories: &'a Histories,
    pub previous: [Option<PieceTo>; 2],
}

/// Captures and promotions: the victim (and promotion) value first, then capture history.
fn tactical_score(m: Move, side: shakmaty::Color, histories: &Histories) -> i32 {
    let victim = m.capture().map_or(0, value);
    let promo = m.promotion().map_or(0, value);
    (victim + promo) * 8 + histories.capture(side, m) / CAPTURE_HISTORY_DIVISOR.get()
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
pub(crate) struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    list: ArrayVec<Scored, 256>,
    next: usize,
    quiescence: bool,
}

impl MovePicker {
    /// All legal moves, for the main search. `tt_move` must already be checked legal.
    pub(crate) fn new(tt_move: Option<Move>, killers: [Option<Move>; 2]) -> MovePicker {
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
    pub(crate) fn captures(tt_move: Option<Move>) -> MovePicker {
        let mut picker = MovePicker::new(tt_move, [None; 2]);
        picker.quiescence = true;
        picker
    }

    /// The next move, or `None` when all have been yielded.
    pub(crate) fn next(&mut self, chess: &Chess, ordering: &Ordering) -> Option<Move> {
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
            self.generate(chess, ordering);
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

    fn generate(&mut self, chess: &Chess, ordering: &Ordering) {
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
                let score = tactical_score(m, side, ordering.histories);
                if quiescence || see_ge(board, m, 0) {
                    GOOD_TACTICAL + score
                } else {
                    BAD_TACTICAL + score
                }
            } else if Some(m) == self.killers[0] {
                KILLER[0]
            } else if Some(m) == self.killers[1] {
                KILLER[1]
            } else {
                ordering.histories.quiet(side, m, ordering.previous)
            };
            self.list.push(Scored { score, mv: m });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use shakmaty::Color;

    #[test]
    fn picker_yields_every_legal_move_once_in_stage_order() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let chess = pos.chess();
        let tt = pos.parse_uci("a2a3").unwrap();
        let killer = pos.parse_uci("g2g3").unwrap();
        let mut histories = Histories::default();
        histories.update_quiet(
            Color::White,
            pos.parse_uci("a1b1").unwrap(),
            [None; 2],
            5000,
        );
        let ordering = Ordering {
            histories: &histories,
            previous: [None; 2],
        };
        let mut picker = MovePicker::new(Some(tt), [Some(killer), None]);
        let mut seen = Vec::new();
        while let Some(m) = picker.next(chess, &ordering) {
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
        let histories = Histories::default();
        let ordering = Ordering {
            histories: &histories,
            previous: [None; 2],
        };
        let mut n = 0;
        while let Some(m) = picker.next(quiet.chess(), &ordering) {
            assert!(m.is_capture());
            n += 1;
        }
        assert_eq!(n, 1);
        let check = Position::from_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").unwrap();
        let mut picker = MovePicker::captures(None);
        let mut n = 0;
        while picker.next(check.chess(), &ordering).is_some() {
            n += 1;
        }
        assert_eq!(n, check.legal_moves().len());
    }
}
