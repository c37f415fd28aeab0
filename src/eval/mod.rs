//! Static evaluation: the one entry point, [`evaluate`], in centipawns from the side to move.
//!
//! Today it is the hand-crafted evaluation of [`hce`]; a second evaluator (a neural network)
//! belongs beside it, chosen here.

mod hce;

use shakmaty::Chess;

use crate::score::Score;

pub use hce::Trace;

/// The static evaluation of `chess`, from the side to move.
pub fn evaluate(chess: &Chess) -> Score {
    hce::evaluate(chess)
}

/// The static evaluation with every term, for the `eval` command.
pub fn trace(chess: &Chess) -> Trace {
    hce::trace(chess)
}
