//! Search scores: centipawns from the side to move, with mate scores encoded by distance.
//!
//! A mate found `n` plies from the root scores `MATE - n`; being mated in `n` plies scores
//! `-(MATE - n)`. Scores stored in the transposition table are made relative to the node that
//! stores them ([`Score::to_tt`]) and relative to the root again when read
//! ([`Score::from_tt`]), so that a mate found through a transposition keeps its true distance.

use std::fmt;
use std::ops::{Add, Neg, Sub};

/// The deepest ply the search ever reaches (search stack size, PV length).
pub const MAX_PLY: usize = 128;

/// A score in centipawns from the side to move, or an encoded mate distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Score(pub i32);

impl Score {
    /// The score of a mate delivered at the root (never reached: a mate is at least one ply away).
    pub const MATE: Score = Score(32_000);
    /// Greater than every real score; the initial window bound.
    pub const INFINITE: Score = Score(32_001);
    /// The score of a drawn position.
    pub const DRAW: Score = Score(0);
    /// Scores at or beyond this magnitude are mates within [`MAX_PLY`].
    pub const MATE_BOUND: Score = Score(32_000 - MAX_PLY as i32);
    /// The score of a tablebase win at the root (Stockfish's `VALUE_TB`): below every mate,
    /// above every evaluation. A win proven by the tables `ply` plies down scores
    /// `TB_WIN - ply`, so that the shorter way into a won ending is preferred.
    pub const TB_WIN: Score = Score(Self::MATE_BOUND.0 - 1);
    /// Scores at or beyond this magnitude are tablebase wins (or mates): decisive results.
    pub const TB_WIN_BOUND: Score = Score(Self::TB_WIN.0 - MAX_PLY as i32);
    /// What UCI shows for a tablebase win at the root, in centipawns (as Stockfish does: a
    /// proven win that is not a mate distance), less one per ply to it.
    const TB_WIN_CP: i32 = 20_000;

    /// The score of delivering mate `ply` plies from the root.
    pub const fn mate_in(ply: usize) -> Score {
        Score(Self::MATE.0 - ply as i32)
    }

    /// The score of being mated `ply` plies from the root.
    pub const fn mated_in(ply: usize) -> Score {
        Score(-Self::MATE.0 + ply as i32)
    }

    /// True for a proven mate score, for either side.
    pub const fn is_mate(self) -> bool {
        self.0.abs() >= Self::MATE_BOUND.0
    }

    /// The score of a tablebase win `ply` plies from the root.
    pub const fn tb_win_in(ply: usize) -> Score {
        Score(Self::TB_WIN.0 - ply as i32)
    }

    /// The score of a tablebase loss `ply` plies from the root.
    pub const fn tb_loss_in(ply: usize) -> Score {
        Score(-Self::TB_WIN.0 + ply as i32)
    }

    /// True for a proven result: a mate or a tablebase win, for either side.
    pub const fn is_decisive(self) -> bool {
        self.0.abs() >= Self::TB_WIN_BOUND.0
    }

    /// Converts a root-relative score to one relative to a node `ply` plies deep, for storing.
    pub const fn to_tt(self, ply: usize) -> Score {
        if self.0 >= Self::TB_WIN_BOUND.0 {
            Score(self.0 + ply as i32)
        } else if self.0 <= -Self::TB_WIN_BOUND.0 {
            Score(self.0 - ply as i32)
        } else {
            self
        }
    }

    /// Converts a node-relative score read from the table back to a root-relative one.
    pub const fn from_tt(self, ply: usize) -> Score {
        if self.0 >= Self::TB_WIN_BOUND.0 {
            Score(self.0 - ply as i32)
        } else if self.0 <= -Self::TB_WIN_BOUND.0 {
            Score(self.0 + ply as i32)
        } else {
            self
        }
    }

    /// The score as UCI reports it: centipawns, or mate in moves (negative when mated). A
    /// tablebase win `n` plies away shows as `TB_WIN_CP - n` centipawns.
    pub const fn kind(self) -> ScoreKind {
        if self.0 >= Self::MATE_BOUND.0 {
            ScoreKind::Mate((Self::MATE.0 - self.0 + 1) / 2)
        } else if self.0 <= -Self::MATE_BOUND.0 {
            ScoreKind::Mate(-(Self::MATE.0 + self.0) / 2)
        } else if self.0 >= Self::TB_WIN_BOUND.0 {
            ScoreKind::Cp(Self::TB_WIN_CP - (Self::TB_WIN.0 - self.0))
        } else if self.0 <= -Self::TB_WIN_BOUND.0 {
            ScoreKind::Cp(-Self::TB_WIN_CP + (Self::TB_WIN.0 + self.0))
        } else {
            ScoreKind::Cp(self.0)
        }
    }
}

/// A score the way UCI and the C API report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    /// Centipawns from the side to move.
    Cp(i32),
    /// Mate in this many moves; negative when the side to move is mated.
    Mate(i32),
}

impl fmt::Display for Score {
    /// Formats as the UCI `score` field value: `cp 23` or `mate -3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            ScoreKind::Cp(cp) => write!(f, "cp {cp}"),
            ScoreKind::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl Add<i32> for Score {
    type Output = Score;
    fn add(self, rhs: i32) -> Score {
        Score(self.0 + rhs)
    }
}

impl Sub<i32> for Score {
    type Output = Score;
    fn sub(self, rhs: i32) -> Score {
        Score(self.0 - rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_report_moves_not_plies() {
        let cases = [
            (Score::mate_in(1), ScoreKind::Mate(1)),
            (Score::mate_in(3), ScoreKind::Mate(2)),
            (Score::mate_in(5), ScoreKind::Mate(3)),
            (Score::mated_in(0), ScoreKind::Mate(0)),
            (Score::mated_in(2), ScoreKind::Mate(-1)),
            (Score::mated_in(4), ScoreKind::Mate(-2)),
            (Score(57), ScoreKind::Cp(57)),
            (Score(-312), ScoreKind::Cp(-312)),
            (Score::tb_win_in(0), ScoreKind::Cp(20_000)),
            (Score::tb_win_in(7), ScoreKind::Cp(19_993)),
            (Score::tb_loss_in(4), ScoreKind::Cp(-19_996)),
        ];
        for (score, kind) in cases {
            assert_eq!(score.kind(), kind, "{score:?}");
        }
    }

    #[test]
    fn table_adjustment_round_trips_and_moves_mates_by_ply() {
        for ply in [0, 1, 7, 40] {
            for s in [
                Score(0),
                Score(123),
                Score::mate_in(9),
                Score::mated_in(12),
                Score::tb_win_in(3),
                Score::tb_loss_in(20),
            ] {
                assert_eq!(s.to_tt(ply).from_tt(ply), s);
            }
        }
        // A mate in 3 plies seen from ply 5 is a mate in 8 from the root's view of the table
        // entry's node: stored as distance from the node, it reads back 2 plies shorter at ply 3.
        let stored = Score::mate_in(8).to_tt(5);
        assert_eq!(stored, Score::mate_in(3));
        assert_eq!(stored.from_tt(3), Score::mate_in(6));
        // Tablebase wins move with the ply too, and stay below every mate.
        assert_eq!(Score::tb_win_in(8).to_tt(5), Score::tb_win_in(3));
        assert!(Score::tb_win_in(0) < Score::mate_in(MAX_PLY));
        assert!(Score::tb_win_in(MAX_PLY).is_decisive() && !Score::tb_win_in(0).is_mate());
    }
}
