//! The root of the search: its moves, their ordering before the first iteration, their scores
//! across iterations.

use shakmaty::Move;

use crate::position::Position;
use crate::report::ScoreBound;
use crate::score::Score;
use crate::search::history::Histories;
use crate::search::movepick::{MovePicker, Ordering};
use crate::tt::TranspositionTable;

/// A root move with the scores of the current and the previous iteration.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    pub mv: Move,
    /// This iteration's score; -infinity until searched, or when it failed low.
    pub score: Score,
    /// The previous iteration's score.
    pub previous: Score,
    pub bound: ScoreBound,
    pub seldepth: usize,
    pub pv: Vec<Move>,
    /// The tablebase score of the move, when the root is in the tables.
    pub tb_score: Option<Score>,
}

impl RootMove {
    pub(crate) fn new(mv: Move, tb_score: Option<Score>) -> RootMove {
        RootMove {
            mv,
            score: -Score::INFINITE,
            previous: -Score::INFINITE,
            bound: ScoreBound::Exact,
            seldepth: 0,
            pv: vec![mv],
            tb_score,
        }
    }

    /// The score to show for a search score `score` of this move: the tablebase's when the
    /// root is in the tables, unless the search found a mate (Stockfish's `tbScore`).
    pub(crate) fn shown(&self, score: Score) -> Score {
        match self.tb_score {
            Some(tb) if !score.is_mate() => tb,
            _ => score,
        }
    }

    /// Records the result of searching this move: its score when it is the first move or beat
    /// alpha, otherwise -infinity (it failed low and its true score is unknown).
    pub(crate) fn record(
        &mut self,
        score: Score,
        first: bool,
        alpha: Score,
        beta: Score,
        seldepth: usize,
        line: &[Move],
    ) {
        if first || score > alpha {
            self.score = score;
            self.seldepth = seldepth;
            self.bound = if score >= beta {
                ScoreBound::Lower
            } else if score <= alpha {
                ScoreBound::Upper
            } else {
                ScoreBound::Exact
            };
            self.pv.clear();
            self.pv.push(self.mv);
            self.pv.extend_from_slice(line);
        } else {
            self.score = -Score::INFINITE;
        }
    }

    /// The score to report or vote with: this iteration's, or the previous one if this
    /// iteration has not scored the move.
    pub(crate) fn best_known_score(&self) -> Score {
        if self.score > -Score::INFINITE {
            self.score
        } else {
            self.previous
        }
    }
}

/// Sorts `moves[from..]` by this iteration's score, then the previous iteration's.
pub(crate) fn sort(moves: &mut [RootMove], from: usize) {
    moves[from..].sort_by_key(|rm| std::cmp::Reverse((rm.score, rm.previous)));
}

/// The legal root moves of `pos` (restricted to `only` when it is not empty), the table move
/// first and then in move-picker order without history.
pub(crate) fn ordered_moves(pos: &Position, tt: &TranspositionTable, only: &[Move]) -> Vec<Move> {
    let no_history = Histories::default();
    let ordering = Ordering {
        histories: &no_history,
        previous: [None; 2],
    };
    let chess = pos.chess();
    let tt_move = tt.probe(pos.key()).and_then(|h| h.mv.to_move(chess));
    let mut picker = MovePicker::new(tt_move, [None; 2]);
    let mut moves = Vec::new();
    while let Some(m) = picker.next(chess, &ordering) {
        if only.is_empty() || only.contains(&m) {
            moves.push(m);
        }
    }
    moves
}
