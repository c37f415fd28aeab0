//! What a search reports and to whom: the types every layer shares, from the search threads
//! up to the UCI and C front ends.

use std::time::Duration;

use shakmaty::Move;

use crate::score::Score;
use crate::wdl::WinDrawLoss;

/// How a reported score bounds the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (the search failed high).
    Lower,
    /// The true score is at most this (the search failed low).
    Upper,
}

/// One `info` report of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Nominal depth of the iteration.
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Which principal variation (1-based).
    pub multipv: u32,
    /// The score from the side to move.
    pub score: Score,
    /// Whether the score is exact or a bound.
    pub bound: ScoreBound,
    /// Win, draw and loss chances of the score (`UCI_ShowWDL`).
    pub wdl: WinDrawLoss,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Milliseconds since `go`.
    pub time_ms: u64,
    /// Permille of the hash table in use by this search.
    pub hashfull: u32,
    /// Tablebase probes that gave a result, the root's included.
    pub tbhits: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// Receives what a search reports. The UCI front end, the C library and the bench each
/// implement it. Called on an engine thread, never concurrently for one search.
pub trait SearchHandler: Send {
    /// An iteration (or an aspiration-window failure) finished.
    fn on_info(&mut self, info: &SearchInfo);
    /// The root move being searched, after the first second.
    fn on_currmove(&mut self, _depth: u32, _mv: Move, _number: u32) {}
    /// The search is over. `best` is `None` only when there is no legal move.
    fn on_bestmove(&mut self, best: Option<Move>, ponder: Option<Move>);
    /// Something went wrong inside the engine; a best move still follows.
    fn on_error(&mut self, _message: &str) {}
}

/// A handler that ignores every report, for searches whose result is read from
/// [`crate::Engine::wait`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl SearchHandler for Silent {
    fn on_info(&mut self, _: &SearchInfo) {}
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
}

/// What a finished search returns to [`crate::Engine::wait`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` in checkmate or stalemate.
    pub best: Option<Move>,
    /// The expected reply, when known.
    pub ponder: Option<Move>,
    /// Score of the best move from the side to move.
    pub score: Score,
    /// Deepest completed iteration of the thread whose move was chosen.
    pub depth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Wall time of the search.
    pub time: Duration,
    /// The principal variation of the chosen move.
    pub pv: Vec<Move>,
}

/// Nodes per second, with integer arithmetic only.
pub fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}
