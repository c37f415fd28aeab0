//! Static evaluation, in centipawns from the side to move: the neural network of [`nnue`]
//! (the default) or the hand-crafted evaluation of [`hce`] (option `UseNNUE false`).
//!
//! [`Evaluation`] is the choice, shared by every thread of a search; [`EvalStack`] is one
//! thread's incremental state along the current line (the network's accumulators, one per
//! ply, each made from its parent's on every move).

mod hce;
pub(crate) mod nnue;

use std::sync::Arc;

use shakmaty::{Chess, Move, Position as _};

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
            Evaluation::Nnue(net) => clamp(net.evaluate(&net.refresh(chess), chess.turn())),
        }
    }
}

/// Network outputs stay clear of mate and tablebase scores.
fn clamp(cp: i32) -> Score {
    let bound = Score::TB_WIN_BOUND.0 - 1;
    Score(cp.clamp(-bound, bound))
}

/// One thread's evaluation state along the line being searched. See the module documentation.
pub(crate) struct EvalStack {
    eval: Evaluation,
    accumulators: Vec<Accumulator>,
}

impl EvalStack {
    /// The state at `root`, with room for `plies` moves.
    pub(crate) fn new(eval: Evaluation, root: &Chess, plies: usize) -> EvalStack {
        let mut accumulators = Vec::with_capacity(plies + 1);
        if let Evaluation::Nnue(net) = &eval {
            accumulators.push(net.refresh(root));
        }
        EvalStack { eval, accumulators }
    }

    /// `m` is played in `before`.
    pub(crate) fn push(&mut self, before: &Chess, m: Move) {
        if let Evaluation::Nnue(net) = &self.eval {
            let top = self.accumulators.last().expect("the root is never popped");
            let next = top.update(net, before, m);
            self.accumulators.push(next);
        }
    }

    /// A null move: the pieces stay, only the side to move changes.
    pub(crate) fn push_null(&mut self) {
        if let Some(top) = self.accumulators.last() {
            let same = top.clone();
            self.accumulators.push(same);
        }
    }

    /// Takes back the last push.
    pub(crate) fn pop(&mut self) {
        if matches!(self.eval, Evaluation::Nnue(_)) {
            self.accumulators.pop();
        }
    }

    /// The evaluation of `chess`, the position the pushes have reached.
    pub(crate) fn evaluate(&self, chess: &Chess) -> Score {
        match &self.eval {
            Evaluation::Hce => hce::evaluate(chess),
            Evaluation::Nnue(net) => {
                let top = self.accumulators.last().expect("the root is never popped");
                let score = clamp(net.evaluate(top, chess.turn()));
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
