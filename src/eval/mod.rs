//! Static evaluation, in centipawns from the side to move: the neural network of [`nnue`]
//! (the default) or the hand-crafted evaluation of [`hce`] (option `UseNNUE false`).
//!
//! [`Evaluation`] is the choice, shared by every thread of a search; [`EvalStack`] is one
//! thread's incremental state along the current line (the network's accumulators, one per
//! ply, each made from its parent's on every move).

mod hce;
pub(crate) mod nnue;

use std::sync::Arc;

use shakmaty::{Chess, Move};

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
pub(crate) struct EvalStack {
    eval: Evaluation,
    /// One slot per ply from the root (allocated once, grown only past the planned plies);
    /// `accumulators[top]` is the current position's.
    accumulators: Vec<Accumulator>,
    top: usize,
}

impl EvalStack {
    /// The state at `root`, with room for `plies` moves.
    pub(crate) fn new(eval: Evaluation, root: &Chess, plies: usize) -> EvalStack {
        let accumulators = match &eval {
            Evaluation::Nnue(net) => {
                let mut slots = vec![Accumulator::empty(); plies + 1];
                slots[0] = net.refresh(root);
                slots
            }
            Evaluation::Hce => Vec::new(),
        };
        EvalStack {
            eval,
            accumulators,
            top: 0,
        }
    }

    /// `m` is played in `before`.
    pub(crate) fn push(&mut self, before: &Chess, m: Move) {
        if let Evaluation::Nnue(net) = &self.eval {
            let (current, next) = current_and_next(&mut self.accumulators, self.top);
            current.update(net, before, m, next);
            self.top += 1;
        }
    }

    /// A null move: the pieces stay, only the side to move changes.
    pub(crate) fn push_null(&mut self) {
        if let Evaluation::Nnue(net) = &self.eval {
            let (current, next) = current_and_next(&mut self.accumulators, self.top);
            next.copy_from(net, current);
            self.top += 1;
        }
    }

    /// Takes back the last push.
    pub(crate) fn pop(&mut self) {
        if matches!(self.eval, Evaluation::Nnue(_)) {
            self.top -= 1;
        }
    }

    /// The evaluation of `chess`, the position the pushes have reached.
    pub(crate) fn evaluate(&self, chess: &Chess) -> Score {
        match &self.eval {
            Evaluation::Hce => hce::evaluate(chess),
            Evaluation::Nnue(net) => {
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

/// The accumulator of ply `top` and the next ply's slot (the slots grow if a line outruns the
/// plies planned).
fn current_and_next(slots: &mut Vec<Accumulator>, top: usize) -> (&Accumulator, &mut Accumulator) {
    if top + 1 == slots.len() {
        slots.push(Accumulator::empty());
    }
    let (done, rest) = slots.split_at_mut(top + 1);
    (&done[top], &mut rest[0])
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
