//! Per-ply state of one thread's search: the search stack and the principal variation table.

use shakmaty::Move;

use super::history::PieceTo;
use crate::score::{MAX_PLY, Score};

/// Plies of room beyond [`MAX_PLY`] (quiescence and the frames two plies ahead).
const SLACK: usize = 8;

/// One ply of the search stack.
#[derive(Clone, Copy, Default)]
pub(crate) struct Frame {
    /// The static evaluation (none in check).
    pub eval: Option<Score>,
    /// Quiet moves that caused a cutoff at this ply, newest first.
    pub killers: [Option<Move>; 2],
    /// The move that led here was a null move.
    pub after_null: bool,
    /// The move being searched from this ply (none for a null move), for the continuation
    /// histories of the plies below.
    pub piece_to: Option<PieceTo>,
    /// The move a singular-extension search of this node leaves out.
    pub excluded: Option<Move>,
}

impl Frame {
    /// Remembers `m`, a quiet move that caused a cutoff here.
    pub(crate) fn add_killer(&mut self, m: Move) {
        if self.killers[0] != Some(m) {
            self.killers[1] = self.killers[0];
            self.killers[0] = Some(m);
        }
    }
}

/// A stack of frames, one per ply, with room for every ply the search can reach.
pub(crate) fn new_stack() -> Vec<Frame> {
    vec![Frame::default(); MAX_PLY + SLACK]
}

/// The triangular principal-variation table: line `ply` is the best line found from that ply.
pub(crate) struct PvTable {
    lines: Vec<Vec<Move>>,
}

impl PvTable {
    pub(crate) fn new() -> PvTable {
        PvTable {
            lines: (0..MAX_PLY + SLACK)
                .map(|_| Vec::with_capacity(MAX_PLY))
                .collect(),
        }
    }

    /// Forgets the line of `ply` (a node is entered).
    pub(crate) fn clear(&mut self, ply: usize) {
        self.lines[ply].clear();
    }

    /// `m` is the best move at `ply`: its line is `m` followed by the line of `ply + 1`.
    pub(crate) fn update(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.lines.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// The best line found from `ply`.
    pub(crate) fn line(&self, ply: usize) -> &[Move] {
        &self.lines[ply]
    }
}
