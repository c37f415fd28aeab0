//! Move-ordering statistics that a thread learns while it searches and keeps between
//! searches of one game: the history heuristic (Schaeffer 1983, the heuristic of the verified
//! null-move paper's GENESIS engine), a butterfly table of quiet moves by side, origin and
//! target, with gravity-style updates (a bonus for the move that caused a cutoff, a malus for
//! the quiet moves tried before it).
//!
//! Each search thread owns one [`History`]: nothing here is shared between threads.

use shakmaty::{Color, Move, Square};

use crate::params::{HISTORY_BONUS_MAX, HISTORY_BONUS_SCALE, HISTORY_MAX};

/// History heuristic scores, indexed [side][from][to], kept within +-[`HISTORY_MAX`].
pub(crate) struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl History {
    /// The score of a quiet move by `side`.
    pub(crate) fn get(&self, side: Color, m: Move) -> i32 {
        let (from, to) = from_to(m);
        self.table[side as usize][from as usize][to as usize]
    }

    /// Adds `bonus` (negative for a malus), with gravity toward zero so scores stay in range
    /// and old results fade.
    pub(crate) fn update(&mut self, side: Color, m: Move, bonus: i32) {
        let (from, to) = from_to(m);
        let h = &mut self.table[side as usize][from as usize][to as usize];
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }

    /// After quiet move `best` caused a cutoff at `depth`: a bonus for it and the same malus
    /// for each quiet move tried before it.
    pub(crate) fn reward_quiet(&mut self, side: Color, best: Move, depth: i32, tried: &[Move]) {
        let bonus = (HISTORY_BONUS_SCALE * depth * depth).min(HISTORY_BONUS_MAX);
        self.update(side, best, bonus);
        for &q in tried {
            self.update(side, q, -bonus);
        }
    }

    /// Forgets everything (new game).
    pub(crate) fn clear(&mut self) {
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
