//! The search of one thread: iterative deepening with aspiration windows over a PVS
//! (NegaScout) alpha-beta search with verified null-move pruning, and a quiescence search.
//!
//! [`Searcher`] holds what belongs to one thread (its position stack, killers, principal
//! variation, node count, and a borrow of its history table); everything the threads share
//! (table, stop flag, node counters, results) lives in [`crate::threads::SharedState`] and the
//! per-search [`Job`], which this module only reads.
//!
//! A stop (the `stop` command, a time or node limit) travels up the recursion as
//! `Err(Stopped)` through `?`; no value computed after the stop is ever used.

use std::sync::Arc;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use shakmaty::{Move, MoveList, Position as _};

use crate::eval::evaluate;
use crate::movepick::{History, MovePicker, gives_check, is_tactical, see_ge};
use crate::position::Position;
use crate::score::{MAX_PLY, Score};
use crate::threads::{SharedState, ThreadResult};
use crate::timeman::{CHECK_EVERY, Limits, TimeManager};
use crate::tt::{Bound, PackedMove, TranspositionTable};

/// Which null-move pruning the search uses (UCI option `NullMove`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NullMoveMode {
    /// Verified null-move pruning (Tabibi and Netanyahu 2002, Figure 3).
    Verified,
    /// Standard null-move pruning: cut off on every null-move fail-high.
    Standard,
    /// No null move.
    Off,
}

/// Settings fixed for one search, taken from the engine options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// The null-move scheme.
    pub null_move: NullMoveMode,
    /// The null-move depth reduction R (the null move is searched to `depth - R - 1`).
    pub null_r: i32,
    /// Late move reductions on or off (the paper's engine had none).
    pub lmr: bool,
    /// Reverse futility, futility, late-move and SEE pruning on or off (idem).
    pub pruning: bool,
    /// Number of principal variations to report.
    pub multipv: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            null_move: NullMoveMode::Verified,
            null_r: 3,
            lmr: true,
            pruning: true,
            multipv: 1,
        }
    }
}

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
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Milliseconds since `go`.
    pub time_ms: u64,
    /// Permille of the hash table in use by this search.
    pub hashfull: u32,
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

/// Everything one `go` gives every thread. Immutable during the search.
pub(crate) struct Job {
    pub root: Position,
    pub root_moves: Vec<Move>,
    pub limits: Limits,
    pub config: SearchConfig,
    pub time: TimeManager,
    pub start: Instant,
    pub tt: Arc<TranspositionTable>,
}

/// The search was stopped; unwinds the recursion.
#[derive(Debug)]
pub(crate) struct Stopped;

type Outcome = Result<Score, Stopped>;

/// Node kinds as types (after viridithas `src/search.rs`): PV checks are constants.
trait NodeType {
    const PV: bool;
    const ROOT: bool;
}
struct Root;
struct Pv;
struct NonPv;
impl NodeType for Root {
    const PV: bool = true;
    const ROOT: bool = true;
}
impl NodeType for Pv {
    const PV: bool = true;
    const ROOT: bool = false;
}
impl NodeType for NonPv {
    const PV: bool = false;
    const ROOT: bool = false;
}

/// A root move with the scores of the current and the previous iteration.
#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: Score,
    previous: Score,
    bound: ScoreBound,
    seldepth: usize,
    pv: Vec<Move>,
}

/// Per-ply search stack entry.
#[derive(Clone, Copy, Default)]
struct Frame {
    eval: Option<Score>,
    killers: [Option<Move>; 2],
    /// The move that led here was a null move.
    after_null: bool,
}

/// Late move reduction table, `0.75 + ln(depth) ln(moves) / 2.25` (Ethereal's formula).
static LMR: LazyLock<[[i32; 64]; 64]> = LazyLock::new(|| {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
        }
    }
    t
});

/// Lazy SMP depth skipping for helper threads (Stockfish 10 `SkipSize`/`SkipPhase`): helper
/// `i` skips some iterations so the threads spread over neighbouring depths.
const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// One thread's search. See the module documentation.
pub(crate) struct Searcher<'a> {
    id: usize,
    job: &'a Job,
    shared: &'a SharedState,
    tt: &'a TranspositionTable,
    history: &'a mut History,
    counter: &'a AtomicU64,
    handler: Option<&'a mut dyn SearchHandler>,
    pos: Position,
    stack: Vec<Frame>,
    pv: Vec<Vec<Move>>,
    root_moves: Vec<RootMove>,
    root_depth: i32,
    pv_index: usize,
    completed_depth: u32,
    nodes: u64,
    others_nodes: u64,
    seldepth: usize,
}

impl<'a> Searcher<'a> {
    pub(crate) fn new(
        id: usize,
        job: &'a Job,
        shared: &'a SharedState,
        history: &'a mut History,
        handler: Option<&'a mut dyn SearchHandler>,
    ) -> Searcher<'a> {
        let mut pos = job.root.clone();
        pos.reserve(MAX_PLY + 8);
        let root_moves = job
            .root_moves
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -Score::INFINITE,
                previous: -Score::INFINITE,
                bound: ScoreBound::Exact,
                seldepth: 0,
                pv: vec![mv],
            })
            .collect();
        Searcher {
            id,
            job,
            shared,
            tt: &job.tt,
            history,
            counter: &shared.nodes[id],
            handler,
            pos,
            stack: vec![Frame::default(); MAX_PLY + 8],
            pv: (0..MAX_PLY + 8)
                .map(|_| Vec::with_capacity(MAX_PLY))
                .collect(),
            root_moves,
            root_depth: 0,
            pv_index: 0,
            completed_depth: 0,
            nodes: 0,
            others_nodes: 0,
            seldepth: 0,
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Iterative deepening (chessprogramming wiki, "Iterative Deepening"), with aspiration
    /// windows from depth 4 on. Returns this thread's result for the best-thread vote.
    pub(crate) fn iterate(&mut self) -> ThreadResult {
        // Only the main thread stops at the depth limit; helpers search on until it stops them
        // (as in Stockfish), so no core idles while the main thread finishes its last depth.
        let max_depth = match self.job.limits.depth {
            Some(d) if self.is_main() => d.clamp(1, MAX_PLY as u32 - 1),
            _ => MAX_PLY as u32 - 1,
        };
        let multipv = self
            .job
            .config
            .multipv
            .clamp(1, self.root_moves.len().max(1));
        let mut last_best: Option<Move> = None;
        let mut stable_iterations = 0usize;

        for depth in 1..=max_depth {
            // Helpers skip some depths so the threads spread out (Lazy SMP).
            if !self.is_main() {
                let i = (self.id - 1) % 20;
                let ply = self.pos.len() as u32;
                if ((depth + ply + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 == 1 {
                    continue;
                }
            }
            self.root_depth = depth as i32;
            for rm in &mut self.root_moves {
                rm.previous = rm.score;
                rm.score = -Score::INFINITE;
            }
            let mut stopped = false;
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                if self.aspiration(depth as i32).is_err() {
                    stopped = true;
                }
                self.sort_root_moves(pv_index);
                if stopped {
                    break;
                }
            }
            self.sort_root_moves(0);
            if self.is_main() {
                self.report(depth, multipv);
            }
            if stopped {
                break;
            }
            self.completed_depth = depth;
            self.publish();

            // Time management after a completed iteration (main thread only).
            if self.is_main() {
                let best = self.root_moves[0].mv;
                stable_iterations = if Some(best) == last_best {
                    stable_iterations + 1
                } else {
                    0
                };
                last_best = Some(best);
                if self.iteration_ends_search(stable_iterations) {
                    break;
                }
            }
        }
        self.publish();
        self.thread_result()
    }

    /// Decides, after iteration `depth`, whether to stop. Main thread only.
    fn iteration_ends_search(&self, stable_iterations: usize) -> bool {
        let limits = &self.job.limits;
        let best = &self.root_moves[0];
        if let Some(mate) = limits.mate
            && let crate::score::ScoreKind::Mate(m) = best.score.kind()
            && m > 0
            && m as u32 <= mate
        {
            return true;
        }
        if self.shared.pondering() {
            return false;
        }
        // A single legal move needs no thought when the clock is running.
        if self.root_moves.len() == 1 && self.job.time.soft.is_some() {
            return true;
        }
        const SCALE: [f64; 6] = [2.0, 1.4, 1.1, 0.9, 0.8, 0.7];
        let scale = SCALE[stable_iterations.min(5)];
        self.job
            .time
            .should_stop_iterating(self.shared.elapsed_for_limits(self.job), scale)
    }

    /// One iteration of the current PV line inside an aspiration window.
    fn aspiration(&mut self, depth: i32) -> Result<(), Stopped> {
        let previous = self.root_moves[self.pv_index].previous;
        let mut delta = 20;
        let (mut alpha, mut beta) =
            if depth >= 4 && !previous.is_mate() && previous > -Score::INFINITE {
                (
                    (previous - delta).max(-Score::INFINITE),
                    (previous + delta).min(Score::INFINITE),
                )
            } else {
                (-Score::INFINITE, Score::INFINITE)
            };
        loop {
            let score = self.search::<Root>(alpha, beta, depth, 0, true)?;
            self.sort_root_moves(self.pv_index);
            if score <= alpha {
                // Fail low: widen downward, pull beta toward the middle.
                beta = Score((alpha.0 + beta.0) / 2);
                alpha = (score - delta).max(-Score::INFINITE);
                self.report_bound();
            } else if score >= beta {
                beta = (score + delta).min(Score::INFINITE);
                self.report_bound();
            } else {
                return Ok(());
            }
            delta += delta / 2;
            if delta > 1000 {
                alpha = -Score::INFINITE;
                beta = Score::INFINITE;
            }
        }
    }

    fn sort_root_moves(&mut self, from: usize) {
        self.root_moves[from..].sort_by_key(|rm| std::cmp::Reverse((rm.score, rm.previous)));
    }

    // ---------------------------------------------------------------------------------------
    // The alpha-beta search.
    // ---------------------------------------------------------------------------------------

    /// PVS (NegaScout; Campbell and Marsland 1983, Reinefeld 1983) at a node `depth` plies
    /// from the horizon, `ply` plies from the root, with the verification flag of verified
    /// null-move pruning (true at the root).
    fn search<N: NodeType>(
        &mut self,
        mut alpha: Score,
        mut beta: Score,
        depth: i32,
        ply: usize,
        verify: bool,
    ) -> Outcome {
        // Step 1. The horizon: resolve captures in quiescence search.
        if depth <= 0 {
            return self.qsearch::<N>(alpha, beta, ply);
        }

        // Step 2. Count the node; stop when told to.
        self.tick()?;
        self.pv[ply].clear();
        if N::PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        let in_check = self.pos.in_check();

        if !N::ROOT {
            // Step 3. Draws by rule, and the ply limit.
            if self.pos.is_draw(ply) {
                return Ok(Score::DRAW);
            }
            if ply >= MAX_PLY - 1 {
                return Ok(if in_check {
                    Score::DRAW
                } else {
                    evaluate(self.pos.chess())
                });
            }
            // Step 4. Mate-distance pruning: no score here can beat a shorter mate already
            // found (chessprogramming wiki, "Mate Distance Pruning").
            alpha = alpha.max(Score::mated_in(ply));
            beta = beta.min(Score::mate_in(ply + 1));
            if alpha >= beta {
                return Ok(alpha);
            }
        }

        // Step 5. Transposition table lookup. The stored move is checked for legality.
        let key = self.pos.key();
        let tt_hit = self.tt.probe(key);
        let tt_move = if N::ROOT {
            None
        } else {
            tt_hit.and_then(|h| h.mv.to_move(self.pos.chess()))
        };
        if !N::PV
            && let Some(hit) = tt_hit
            && hit.depth >= depth
        {
            let score = hit.score.from_tt(ply);
            let usable = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
                Bound::None => false,
            };
            if usable {
                return Ok(score);
            }
        }

        // Step 6. Static evaluation (none in check).
        let eval = if in_check {
            None
        } else {
            Some(match tt_hit {
                Some(hit) if hit.bound != Bound::None => hit.eval,
                _ => evaluate(self.pos.chess()),
            })
        };
        self.stack[ply].eval = eval;
        let improving = match (eval, ply.checked_sub(2).and_then(|p| self.stack[p].eval)) {
            (Some(now), Some(before)) => now > before,
            _ => false,
        };
        self.stack[ply + 2].killers = [None; 2];
        let config = self.job.config;

        // Step 7. Reverse futility pruning (static null move; chessprogramming wiki, "Reverse
        // Futility Pruning"): far above beta near the horizon, assume a cutoff.
        if !N::PV
            && config.pruning
            && let Some(eval) = eval
            && depth <= 7
            && !beta.is_mate()
            && eval - 80 * (depth - i32::from(improving)) >= beta
        {
            return Ok(eval);
        }

        // Step 8. Null-move pruning: standard (pass the turn, cut off if the reduced search
        // still fails high) or verified (Tabibi and Netanyahu, ICGA Journal 2002, Figure 3:
        // with `verify` set a fail-high does not cut off; the node is searched one ply
        // shallower with `verify` cleared for the subtree, and searched again at full depth
        // with `verify` set if it then fails low, which reveals a zugzwang).
        // null_ok(): not at a PV node (a fail-high there is re-searched without the null-move
        // cutoffs that would hide a mate), not in check, not right after a null move, beta not
        // a mate score (a side being mated would pass and "escape" at the reduced depth), and
        // the static evaluation at least beta (below it a null move would rarely fail high).
        let mut depth = depth;
        let mut verify = verify;
        let mut null_fail_high = false;
        let null_mode = config.null_move;
        if !N::PV
            && null_mode != NullMoveMode::Off
            && !in_check
            && !self.stack[ply].after_null
            && !beta.is_mate()
            && eval.is_some_and(|e| e >= beta)
            && (null_mode == NullMoveMode::Standard || !verify || depth > 1)
            && self.pos.push_null()
        {
            self.stack[ply + 1].after_null = true;
            let child_verify = null_mode == NullMoveMode::Verified && verify;
            let result = self.search::<NonPv>(
                -beta,
                -beta + 1,
                depth - config.null_r - 1,
                ply + 1,
                child_verify,
            );
            self.stack[ply + 1].after_null = false;
            self.pos.pop();
            let value = -result?;
            if value >= beta {
                // A mate score from a search where one side passed is not proven.
                let value = if value.is_mate() { beta } else { value };
                if null_mode == NullMoveMode::Verified && verify {
                    depth -= 1;
                    verify = false;
                    null_fail_high = true;
                } else {
                    return Ok(value);
                }
            }
        }

        // Steps 9 to 14: the move loop, entered again once on a zugzwang (Step 15).
        let original_alpha = alpha;
        let side = self.pos.turn();
        let (best, best_move) = loop {
            let mut best = -Score::INFINITE;
            let mut best_move: Option<Move> = None;
            let mut move_count = 0usize;
            let mut quiets_tried = MoveList::new();
            let mut picker = MovePicker::new(tt_move, self.stack[ply].killers);
            let mut root_index = self.pv_index;
            alpha = original_alpha;

            loop {
                // Step 9. Next move: the root's list in order, or the move picker.
                let m = if N::ROOT {
                    let Some(rm) = self.root_moves.get(root_index) else {
                        break;
                    };
                    root_index += 1;
                    rm.mv
                } else {
                    match picker.next(self.pos.chess(), self.history) {
                        Some(m) => m,
                        None => break,
                    }
                };
                move_count += 1;
                let quiet = !is_tactical(m);
                let gives_check = gives_check(self.pos.chess(), m);

                // Step 10. Pruning at shallow depth, once a move has kept us from being mated,
                // never of a checking move: late move pruning of quiet moves, futility pruning
                // of quiet moves (chessprogramming wiki, "Futility Pruning"), and SEE pruning of
                // moves that lose material.
                if !N::ROOT
                    && config.pruning
                    && best > -Score::MATE_BOUND
                    && move_count > 1
                    && !gives_check
                {
                    if quiet && !in_check {
                        if depth <= 4
                            && move_count
                                > 3 + (depth * depth) as usize * (1 + usize::from(improving))
                        {
                            continue;
                        }
                        if let Some(eval) = eval
                            && depth <= 6
                            && eval + 100 + 80 * depth <= alpha
                        {
                            continue;
                        }
                    }
                    if depth <= 5
                        && !see_ge(
                            self.pos.chess().board(),
                            m,
                            if quiet { -60 * depth } else { -100 * depth },
                        )
                    {
                        continue;
                    }
                }

                if N::ROOT && self.is_main() {
                    self.report_currmove(m, root_index - self.pv_index);
                }
                self.pos.push(m);
                self.tt.prefetch(self.pos.key());
                debug_assert_eq!(gives_check, self.pos.in_check());

                // Step 11. Check extension: a checking move is searched one ply deeper.
                let extension = i32::from(gives_check && ply < 2 * self.root_depth as usize);
                let new_depth = depth - 1 + extension;

                // Step 12. PVS with late move reductions: the first move with the full window,
                // the others with a zero window (reduced when late and quiet), re-searched
                // when they beat alpha.
                let score = if move_count == 1 {
                    -self
                        .search::<Pv>(-beta, -alpha, new_depth, ply + 1, verify)
                        .inspect_err(|_| self.pos.pop())?
                } else {
                    let mut reduction = 0;
                    if config.lmr && depth >= 3 && quiet && !in_check && !gives_check {
                        reduction = LMR[depth.min(63) as usize][move_count.min(63)];
                        reduction -= i32::from(N::PV);
                        reduction += i32::from(!improving);
                        if self.stack[ply].killers.contains(&Some(m)) {
                            reduction -= 1;
                        }
                        reduction -= self.history.get(side, m) / 8192;
                        reduction = reduction.clamp(0, new_depth - 1);
                    }
                    let mut s = -self
                        .search::<NonPv>(-alpha - 1, -alpha, new_depth - reduction, ply + 1, verify)
                        .inspect_err(|_| self.pos.pop())?;
                    if s > alpha && reduction > 0 {
                        s = -self
                            .search::<NonPv>(-alpha - 1, -alpha, new_depth, ply + 1, verify)
                            .inspect_err(|_| self.pos.pop())?;
                    }
                    if N::PV && s > alpha && s < beta {
                        s = -self
                            .search::<Pv>(-beta, -alpha, new_depth, ply + 1, verify)
                            .inspect_err(|_| self.pos.pop())?;
                    }
                    s
                };
                self.pos.pop();

                if N::ROOT {
                    self.update_root_move(m, score, move_count, alpha, beta);
                }

                // Step 13. Best move, principal variation, cutoff.
                if score > best {
                    best = score;
                    if score > alpha {
                        best_move = Some(m);
                        if N::PV {
                            self.update_pv(ply, m);
                        }
                        if score >= beta {
                            if quiet {
                                self.reward_quiet(ply, m, depth, &quiets_tried);
                            }
                            break;
                        }
                        alpha = score;
                    }
                }
                if quiet {
                    quiets_tried.push(m);
                }
            }

            // Step 14. No legal move: checkmate or stalemate.
            if move_count == 0 {
                return Ok(if in_check {
                    Score::mated_in(ply)
                } else {
                    Score::DRAW
                });
            }
            if best == -Score::INFINITE {
                best = alpha; // every move was pruned
            }

            // Step 15. Zugzwang detection of verified null-move pruning: the null move failed
            // high but no real move reaches beta, so passing was better than moving. Restore
            // the depth, set `verify` and search the node again.
            if null_fail_high && best < beta {
                depth += 1;
                null_fail_high = false;
                verify = true;
                continue;
            }
            break (best, best_move);
        };

        // Step 16. Store the result.
        let bound = if best >= beta {
            Bound::Lower
        } else if N::PV && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_move = best_move.map_or(PackedMove::NONE, PackedMove::new);
        self.tt.store(
            key,
            stored_move,
            best.to_tt(ply),
            eval.unwrap_or(Score::DRAW),
            depth,
            bound,
        );
        Ok(best)
    }

    /// Quiescence search (chessprogramming wiki, "Quiescence Search"): stand pat on the static
    /// evaluation, then captures and queen promotions in MVV-LVA order, skipping those that
    /// lose material by SEE; every evasion when in check.
    fn qsearch<N: NodeType>(&mut self, mut alpha: Score, beta: Score, ply: usize) -> Outcome {
        // Step 1. Count the node; stop when told to.
        self.tick()?;
        self.pv[ply].clear();
        if N::PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        // Step 2. Draws, ply limit.
        if self.pos.is_draw(ply) {
            return Ok(Score::DRAW);
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 1 {
            return Ok(if in_check {
                Score::DRAW
            } else {
                evaluate(self.pos.chess())
            });
        }

        // Step 3. Table lookup.
        let key = self.pos.key();
        let tt_hit = self.tt.probe(key);
        if !N::PV
            && let Some(hit) = tt_hit
        {
            let score = hit.score.from_tt(ply);
            let usable = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
                Bound::None => false,
            };
            if usable {
                return Ok(score);
            }
        }
        let tt_move = tt_hit.and_then(|h| h.mv.to_move(self.pos.chess()));

        // Step 4. Stand pat.
        let eval = if in_check {
            None
        } else {
            Some(match tt_hit {
                Some(hit) if hit.bound != Bound::None => hit.eval,
                _ => evaluate(self.pos.chess()),
            })
        };
        let mut best = -Score::INFINITE;
        if let Some(eval) = eval {
            if eval >= beta {
                return Ok(eval);
            }
            alpha = alpha.max(eval);
            best = eval;
        }

        // Step 5. Captures (or evasions), with SEE pruning of losing captures.
        let mut picker = MovePicker::captures(tt_move);
        let mut best_move = None;
        let mut move_count = 0;
        while let Some(m) = picker.next(self.pos.chess(), self.history) {
            move_count += 1;
            if !in_check && !see_ge(self.pos.chess().board(), m, 0) {
                continue;
            }
            self.pos.push(m);
            self.tt.prefetch(self.pos.key());
            let score = -self
                .qsearch::<N>(-beta, -alpha, ply + 1)
                .inspect_err(|_| self.pos.pop())?;
            self.pos.pop();
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if N::PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }

        // Step 6. Checkmate: in check with no evasion.
        if in_check && move_count == 0 {
            return Ok(Score::mated_in(ply));
        }

        // Step 7. Store (depth 0).
        let bound = if best >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        let stored_move = best_move.map_or(PackedMove::NONE, PackedMove::new);
        self.tt.store(
            key,
            stored_move,
            best.to_tt(ply),
            eval.unwrap_or(Score::DRAW),
            0,
            bound,
        );
        Ok(best)
    }

    // ---------------------------------------------------------------------------------------
    // Helpers of the search.
    // ---------------------------------------------------------------------------------------

    /// Counts a node, publishes the count, and on the main thread checks the limits.
    #[inline]
    fn tick(&mut self) -> Result<(), Stopped> {
        self.nodes += 1;
        self.counter.store(self.nodes, Relaxed);
        if self.is_main() || self.job.limits.nodes.is_some() {
            self.check_limits();
        }
        if self.shared.stop.load(Relaxed) {
            Err(Stopped)
        } else {
            Ok(())
        }
    }

    /// Limit checks. The clock: the main thread, every [`CHECK_EVERY`] nodes, never before
    /// depth 1 is done. A node limit: every thread, against its own count at every node plus
    /// the others' counts read every [`CHECK_EVERY`] nodes, so the total overshoots by at most
    /// about that many nodes per thread whatever the scheduler does (exact with one thread).
    fn check_limits(&mut self) {
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.others_nodes = self.shared.nodes_except(self.id);
            if self.is_main()
                && self.completed_depth >= 1
                && !self.shared.pondering()
                && self
                    .job
                    .time
                    .out_of_time(self.shared.elapsed_for_limits(self.job))
            {
                self.shared.stop.store(true, Relaxed);
            }
        }
        if let Some(limit) = self.job.limits.nodes
            && self.nodes + self.others_nodes >= limit
        {
            self.shared.stop.store(true, Relaxed);
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// Killer and history updates after a quiet move caused a cutoff: a bonus for it, a malus
    /// for the quiet moves tried before it.
    fn reward_quiet(&mut self, ply: usize, m: Move, depth: i32, tried: &[Move]) {
        let killers = &mut self.stack[ply].killers;
        if killers[0] != Some(m) {
            killers[1] = killers[0];
            killers[0] = Some(m);
        }
        let side = self.pos.turn();
        let bonus = (16 * depth * depth).min(1600);
        self.history.update(side, m, bonus);
        for &q in tried {
            self.history.update(side, q, -bonus);
        }
    }

    /// Records the result of a root move: its score when it is the first move or beat alpha,
    /// otherwise -infinity (it failed low and its true score is unknown).
    fn update_root_move(
        &mut self,
        m: Move,
        score: Score,
        move_count: usize,
        alpha: Score,
        beta: Score,
    ) {
        let line = self.pv[1].clone();
        let seldepth = self.seldepth;
        let Some(rm) = self.root_moves.iter_mut().find(|rm| rm.mv == m) else {
            return;
        };
        if move_count == 1 || score > alpha {
            rm.score = score;
            rm.seldepth = seldepth;
            rm.bound = if score >= beta {
                ScoreBound::Lower
            } else if score <= alpha {
                ScoreBound::Upper
            } else {
                ScoreBound::Exact
            };
            rm.pv.clear();
            rm.pv.push(m);
            rm.pv.extend_from_slice(&line);
        } else {
            rm.score = -Score::INFINITE;
        }
    }

    /// Makes this thread's current best known to the others (for the vote).
    fn publish(&self) {
        *self.shared.results[self.id].lock() = self.thread_result();
    }

    fn thread_result(&self) -> ThreadResult {
        let best = &self.root_moves.first();
        ThreadResult {
            best: best.map(|rm| rm.mv),
            score: best.map_or(Score::DRAW, |rm| {
                if rm.score > -Score::INFINITE {
                    rm.score
                } else {
                    rm.previous
                }
            }),
            depth: self.completed_depth,
            pv: best.map(|rm| rm.pv.clone()).unwrap_or_default(),
        }
    }

    // ---------------------------------------------------------------------------------------
    // Reports (main thread only).
    // ---------------------------------------------------------------------------------------

    fn total_nodes(&self) -> u64 {
        self.nodes + self.shared.nodes_except(0)
    }

    /// One `info` line per principal variation, after an iteration (complete or stopped). A
    /// line not searched in a stopped iteration shows the previous iteration's result.
    fn report(&mut self, depth: u32, multipv: usize) {
        if self.handler.is_none() {
            return;
        }
        let elapsed = self.job.start.elapsed();
        let nodes = self.total_nodes();
        let hashfull = self.tt.hashfull();
        let mut infos = Vec::new();
        for (i, rm) in self.root_moves.iter().take(multipv).enumerate() {
            let updated = rm.score > -Score::INFINITE;
            if depth == 1 && !updated && i > 0 {
                continue;
            }
            if !updated && rm.previous == -Score::INFINITE {
                continue;
            }
            infos.push(SearchInfo {
                depth: if updated {
                    depth
                } else {
                    depth.saturating_sub(1).max(1)
                },
                seldepth: rm.seldepth as u32,
                multipv: i as u32 + 1,
                score: if updated { rm.score } else { rm.previous },
                bound: if updated { rm.bound } else { ScoreBound::Exact },
                nodes,
                nps: nps(nodes, elapsed),
                time_ms: elapsed.as_millis() as u64,
                hashfull,
                pv: rm.pv.clone(),
            });
        }
        if let Some(handler) = self.handler.as_deref_mut() {
            for info in &infos {
                handler.on_info(info);
            }
        }
    }

    /// After an aspiration failure, report the bound if the search has run a while.
    fn report_bound(&mut self) {
        let elapsed = self.job.start.elapsed();
        if !self.is_main() || elapsed < Duration::from_secs(3) {
            return;
        }
        let rm = &self.root_moves[self.pv_index];
        let nodes = self.total_nodes();
        let info = SearchInfo {
            depth: self.root_depth as u32,
            seldepth: rm.seldepth as u32,
            multipv: self.pv_index as u32 + 1,
            score: rm.score,
            bound: rm.bound,
            nodes,
            nps: nps(nodes, elapsed),
            time_ms: elapsed.as_millis() as u64,
            hashfull: self.tt.hashfull(),
            pv: rm.pv.clone(),
        };
        if let Some(handler) = self.handler.as_deref_mut() {
            handler.on_info(&info);
        }
    }

    fn report_currmove(&mut self, m: Move, number: usize) {
        if self.job.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let depth = self.root_depth as u32;
        if let Some(handler) = self.handler.as_deref_mut() {
            handler.on_currmove(depth, m, number as u32);
        }
    }
}

/// Nodes per second, with integer arithmetic only.
pub(crate) fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}
