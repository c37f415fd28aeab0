//! Static evaluation, in centipawns from the side to move: the neural network of [`nnue`]
//! (the default) or the hand-crafted evaluation of [`hce`] (option `UseNNUE false`).
//!
//! [`Evaluation`] is the choice, shared by every thread of a search; [`EvalStack`] is one
//! thread's incremental state along the current line (the network's accumulators, one per
//! ply, each made from its parent's and the move when first needed).

mod hce;
pub(crate) mod nnue;

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, Position as _};

use crate::params::NET_OUTPUT_PERCENT;
use crate::score::Score;

pub use hce::Trace;
use nnue::{Accumulator, Network};

/// Which evaluation a search uses.
#[derive(Clone)]
pub(crate) enum Evaluation {
    /// The hand-crafted evaluation.
    Hce,
    /// The network.
    Nnue(Arc<Network>),
}

impl Evaluation {
    /// The evaluation of `chess` from scratch.
    pub(crate) fn evaluate(&self, chess: &Chess) -> Score {
        match self {
            Evaluation::Hce => hce::evaluate(chess),
            Evaluation::Nnue(net) => scaled(net.evaluate(&net.refresh(chess), chess)),
        }
    }
}

/// A network output as the search sees it: times [`NET_OUTPUT_PERCENT`], clear of mate and
/// tablebase scores.
fn scaled(cp: i32) -> Score {
    let bound = Score::TB_WIN_BOUND.0 - 1;
    // Ordinary builds read the constant 100, and this test folds the multiply and divide
    // away (`cp * 100 / 100` alone does not fold: in release builds it may wrap).
    let percent = NET_OUTPUT_PERCENT.get();
    let cp = if percent == 100 {
        cp
    } else {
        cp * percent / 100
    };
    Score(cp.clamp(-bound, bound))
}

/// One thread's evaluation state along the line being searched. See the module documentation.
///
/// The accumulators are brought up to date lazily (Stockfish's `computed` flags; Ethereal,
/// viridithas): a push records only the move, and [`EvalStack::evaluate`] applies the moves
/// of the slots not yet up to date, from the last one that is. A node that never evaluates
/// (a table cutoff, a table hit whose stored evaluation serves, a draw by rule) and whose
/// subtree does not either costs no update.
pub(crate) struct EvalStack {
    eval: Evaluation,
    /// One slot per ply from the root (allocated once, grown only past the planned plies);
    /// `accumulators[top]` is the current position's once brought up to date.
    accumulators: Vec<Accumulator>,
    /// Per slot after the root's, the move that led to its position and its mover (`None`: a
    /// null move).
    moves: Vec<Option<(Color, Move)>>,
    top: usize,
    /// The slots up to this one (along the current line) are up to date; the root's always is.
    fresh: usize,
}

impl EvalStack {
    /// The state at `root`, with room for `plies` moves.
    pub(crate) fn new(eval: Evaluation, root: &Chess, plies: usize) -> EvalStack {
        let (accumulators, moves) = match &eval {
            Evaluation::Nnue(net) => {
                let mut slots = vec![Accumulator::empty(); plies + 1];
                slots[0] = net.refresh(root);
                (slots, vec![None; plies + 1])
            }
            Evaluation::Hce => (Vec::new(), Vec::new()),
        };
        EvalStack {
            eval,
            accumulators,
            moves,
            top: 0,
            fresh: 0,
        }
    }

    /// `m` is played in `before`.
    pub(crate) fn push(&mut self, before: &Chess, m: Move) {
        self.push_move(Some((before.turn(), m)));
    }

    /// A null move: the pieces stay, only the side to move changes.
    pub(crate) fn push_null(&mut self) {
        self.push_move(None);
    }

    fn push_move(&mut self, m: Option<(Color, Move)>) {
        if matches!(self.eval, Evaluation::Nnue(_)) {
            self.top += 1;
            if self.top == self.accumulators.len() {
                self.accumulators.push(Accumulator::empty());
                self.moves.push(None);
            }
            self.moves[self.top] = m;
        }
    }

    /// Takes back the last push.
    pub(crate) fn pop(&mut self) {
        if matches!(self.eval, Evaluation::Nnue(_)) {
            self.top -= 1;
            self.fresh = self.fresh.min(self.top);
        }
    }

    /// The evaluation of `chess`, the position the pushes have reached.
    pub(crate) fn evaluate(&mut self, chess: &Chess) -> Score {
        match &self.eval {
            Evaluation::Hce => hce::evaluate(chess),
            Evaluation::Nnue(net) => {
                for ply in self.fresh + 1..=self.top {
                    let (done, rest) = self.accumulators.split_at_mut(ply);
                    let (parent, slot) = (&done[ply - 1], &mut rest[0]);
                    match self.moves[ply] {
                        Some((us, m)) => parent.apply(net, us, m, slot),
                        None => slot.copy_from(net, parent),
                    }
                }
                self.fresh = self.top;
                let score = scaled(net.evaluate(&self.accumulators[self.top], chess));
                debug_assert_eq!(
                    score,
                    self.eval.evaluate(chess),
                    "incremental against refresh"
                );
                score
            }
        }
    }
}

/// The hand-crafted evaluation of `chess` from the side to move (the `eval` command's terms are
/// in [`trace`]).
pub fn evaluate(chess: &Chess) -> Score {
    hce::evaluate(chess)
}

/// The hand-crafted evaluation with every term, for the `eval` command.
pub fn trace(chess: &Chess) -> Trace {
    hce::trace(chess)
}
