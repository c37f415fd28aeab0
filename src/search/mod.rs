//! The search of one thread: iterative deepening with aspiration windows over a PVS
//! (NegaScout) alpha-beta search with verified null-move pruning ([`alphabeta`]), and a
//! quiescence search ([`qsearch`]).
//!
//! [`Searcher`] holds what belongs to one thread: its position stack, search stack, principal
//! variation, node count, root moves, and a borrow of its move-ordering statistics. What the
//! threads share (the table, the stop flag, the node counters, the results) is borrowed from
//! [`SearchState`], [`ThreadSlots`] and the per-search [`Job`], which are only read here but
//! for the atomics their contracts describe. The main thread also carries a [`MainThread`]:
//! reporting, the clock, the stop decision.
//!
//! A stop (the `stop` command, a time or node limit) travels up the recursion as
//! `Err(Stopped)` through `?`; no value computed after the stop is ever used.

mod alphabeta;
pub(crate) mod history;
pub(crate) mod job;
pub(crate) mod manager;
mod movepick;
mod qsearch;
pub(crate) mod root;
pub(crate) mod skill;
mod stack;
mod steps;

use shakmaty::{Move, Position as _};

use crate::eval::EvalStack;
use crate::params::{
    ASPIRATION_DELTA, ASPIRATION_MAX_DELTA, ASPIRATION_MIN_DEPTH, CHECK_EVERY, SKIP_PHASE,
    SKIP_SIZE,
};
use crate::position::Position;
use crate::score::{MAX_PLY, Score};
use crate::state::{SearchState, ThreadResult, ThreadSlots};
use crate::tt::{Bound, PackedMove, TranspositionTable, TtHit};
use history::Histories;
pub use job::NullMoveMode;
pub(crate) use job::{Job, SearchConfig};
use manager::{Counts, MainThread};
use root::RootMove;
pub(crate) use skill::Skill;
use stack::{Frame, PvTable};

/// The best score of a node so far and the move that reached it (none while every move
/// failed low).
#[derive(Clone, Copy)]
struct Best {
    score: Score,
    mv: Option<Move>,
}

impl Best {
    fn new(score: Score) -> Best {
        Best { score, mv: None }
    }
}

/// A node's static evaluation: as the evaluation gives it (what the table stores) and with the
/// correction history's adjustment (what the search prunes with).
#[derive(Clone, Copy)]
struct StaticEval {
    raw: Score,
    corrected: Score,
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

/// One thread's search. See the module documentation.
pub(crate) struct Searcher<'a> {
    id: usize,
    job: &'a Job,
    state: &'a SearchState,
    slots: &'a ThreadSlots,
    tt: &'a TranspositionTable,
    histories: &'a mut Histories,
    /// The main thread's duties; `None` on helpers.
    main: Option<MainThread<'a>>,
    pos: Position,
    /// The evaluation's incremental state, pushed and popped with `pos`.
    eval: EvalStack,
    stack: Vec<Frame>,
    pv: PvTable,
    root_moves: Vec<RootMove>,
    root_depth: i32,
    pv_index: usize,
    completed_depth: u32,
    nodes: u64,
    /// Tablebase probes that gave a result, in this thread's search.
    tbhits: u64,
    /// The other threads' node total, read every [`CHECK_EVERY`] nodes.
    others_nodes: u64,
    seldepth: usize,
    /// Limited strength: the main thread's pick of its last completed iteration.
    skill_pick: Option<RootMove>,
    /// No null move at a ply below this: set by a verification in Stockfish's form for its
    /// own search and restored after it (this thread's alone, like the rest of `Searcher`).
    null_ban_ply: usize,
}

impl<'a> Searcher<'a> {
    pub(crate) fn new(
        id: usize,
        job: &'a Job,
        state: &'a SearchState,
        slots: &'a ThreadSlots,
        histories: &'a mut Histories,
        main: Option<MainThread<'a>>,
    ) -> Searcher<'a> {
        let mut pos = job.root.clone();
        pos.reserve(MAX_PLY + 8);
        let eval = EvalStack::new(job.eval.clone(), pos.chess(), MAX_PLY + 8);
        Searcher {
            id,
            job,
            state,
            slots,
            tt: &job.tt,
            histories,
            main,
            pos,
            eval,
            stack: stack::new_stack(),
            pv: PvTable::new(),
            root_moves: job
                .root_moves
                .iter()
                .map(|&m| RootMove::new(m, job.root_tb.as_ref().and_then(|tb| tb.score(m))))
                .collect(),
            root_depth: 0,
            pv_index: 0,
            completed_depth: 0,
            nodes: 0,
            tbhits: 0,
            others_nodes: 0,
            seldepth: 0,
            skill_pick: None,
            null_ban_ply: 0,
        }
    }

    /// Iterative deepening (chessprogramming wiki, "Iterative Deepening"), with aspiration
    /// windows. Returns this thread's result for the best-thread vote.
    pub(crate) fn iterate(&mut self) -> ThreadResult {
        let skill = self.job.config.skill;
        // Only the main thread stops at the depth limit; helpers search on until it stops them
        // (as in Stockfish), so no core idles while the main thread finishes its last depth.
        let mut max_depth = MAX_PLY as u32 - 1;
        if self.main.is_some()
            && let Some(d) = self.job.limits.depth
        {
            max_depth = d.clamp(1, max_depth);
        }
        // The lines reported, and those searched (more at limited strength, for its pick).
        let moves = self.root_moves.len().max(1);
        let shown = self.job.config.multipv.clamp(1, moves);
        let multipv = skill.map_or(shown, |s| s.lines(shown)).min(moves);

        for depth in 1..=max_depth {
            if self.skips(depth) {
                continue;
            }
            self.root_depth = depth as i32;
            for rm in &mut self.root_moves {
                rm.previous = rm.score;
                rm.score = -Score::INFINITE;
            }
            // MultiPV (Stockfish `iterative_deepening`, the `pvIdx` loop; docs/multipv.md):
            // 1. Line k searches the root moves from index k on (the moves of lines 1..k
            //    are excluded, alphabeta.rs Step 10), its own previous result first, inside
            //    an aspiration window around that move's previous score.
            // 2. The lines after the first cost only their own search: they leave the root's
            //    table entry to line 1 (alphabeta.rs Step 17), report no aspiration bounds
            //    (`aspiration`), and the time manager never sees them (3).
            // 3. The time manager follows line 1 alone: its best move, taken right after line
            //    1's search (Stockfish counts `bestMoveChanges` only at `pvIdx == 0`), and with
            //    several lines its decision is made there too: once line 1 of a depth is done
            //    past the soft limit, lines 2..k of that depth are not started (they cannot
            //    change the move played; their previous depth is shown). Not at limited
            //    strength, whose pick needs every line. A mate within `go mate` found by a
            //    later line still ends the search after the iteration.
            // 4. After the last line the searched lines are sorted by score and reported
            //    together (Stockfish, Ethereal `report_multipv_lines`).
            let mut stopped = false;
            let mut line_one = None;
            let mut ends_after_line_one = false;
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                if self.aspiration(depth as i32).is_err() {
                    stopped = true;
                }
                root::sort(&mut self.root_moves, pv_index);
                if stopped {
                    break;
                }
                if pv_index == 0 {
                    line_one = self.root_moves.first().map(|rm| rm.mv);
                    let nodes = self.total_nodes();
                    if multipv > 1
                        && skill.is_none()
                        && let Some(main) = &mut self.main
                    {
                        ends_after_line_one = main.iteration_ends_search(
                            self.job,
                            self.state,
                            &self.root_moves,
                            line_one,
                            nodes,
                        );
                        if ends_after_line_one {
                            break;
                        }
                    }
                }
            }
            root::sort(&mut self.root_moves, 0);
            let counts = self.counts();
            if let Some(main) = &mut self.main {
                main.report_iteration(self.job, depth, &self.root_moves, shown, counts);
            }
            if stopped {
                break;
            }
            self.completed_depth = depth;
            if let Some(skill) = skill
                && self.main.is_some()
            {
                let pick = skill.pick(&self.root_moves, multipv);
                self.skill_pick = Some(self.root_moves[pick].clone());
            }
            self.publish();
            if ends_after_line_one {
                break;
            }
            if let Some(main) = &mut self.main {
                let ends = if multipv == 1 || skill.is_some() {
                    main.iteration_ends_search(
                        self.job,
                        self.state,
                        &self.root_moves,
                        line_one,
                        counts.nodes,
                    )
                } else {
                    // A later line may have found the mate `go mate` asks for.
                    manager::mate_within_limit(self.job, &self.root_moves)
                };
                if ends {
                    break;
                }
            }
        }
        self.publish();
        self.thread_result()
    }

    /// Lazy SMP: helpers skip some depths so that the threads spread out.
    fn skips(&self, depth: u32) -> bool {
        if self.main.is_some() {
            return false;
        }
        let i = (self.id - 1) % SKIP_SIZE.len();
        let ply = self.pos.len() as u32;
        ((depth + ply + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 == 1
    }

    /// One iteration of the current PV line inside an aspiration window.
    fn aspiration(&mut self, depth: i32) -> Result<(), Stopped> {
        let previous = self.root_moves[self.pv_index].previous;
        let mut delta = ASPIRATION_DELTA.get();
        let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH
            && !previous.is_decisive()
            && previous > -Score::INFINITE
        {
            (
                (previous - delta).max(-Score::INFINITE),
                (previous + delta).min(Score::INFINITE),
            )
        } else {
            (-Score::INFINITE, Score::INFINITE)
        };
        loop {
            let score = self.search::<Root>(alpha, beta, depth, 0, true, false)?;
            root::sort(&mut self.root_moves, self.pv_index);
            if score <= alpha {
                // Fail low: widen downward, pull beta toward the middle.
                beta = Score((alpha.0 + beta.0) / 2);
                alpha = (score - delta).max(-Score::INFINITE);
            } else if score >= beta {
                beta = (score + delta).min(Score::INFINITE);
            } else {
                return Ok(());
            }
            // Bounds are reported at MultiPV 1 only (Stockfish `multiPV == 1`, Ethereal
            // `report`): with several lines a GUI would show a bound in place of a line.
            let counts = self.counts();
            if let Some(main) = &mut self.main
                && self.job.config.multipv == 1
            {
                let rm = &self.root_moves[self.pv_index];
                main.report_bound(self.job, depth as u32, rm, self.pv_index, counts);
            }
            delta += delta / 2;
            if delta > ASPIRATION_MAX_DELTA {
                alpha = -Score::INFINITE;
                beta = Score::INFINITE;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Moves: the position and the evaluation's state move together.
    // ---------------------------------------------------------------------------------------

    /// Plays a legal move.
    fn make(&mut self, m: Move) {
        self.eval.push(self.pos.chess(), m);
        self.pos.push(m);
    }

    /// Passes the turn; false (and nothing changed) when in check.
    fn make_null(&mut self) -> bool {
        let made = self.pos.push_null();
        if made {
            self.eval.push_null();
        }
        made
    }

    /// Takes back the last move or null move.
    fn unmake(&mut self) {
        self.pos.pop();
        self.eval.pop();
    }

    // ---------------------------------------------------------------------------------------
    // Node accounting and limits.
    // ---------------------------------------------------------------------------------------

    /// Counts a node, publishes the count, and checks the limits that apply to this thread.
    #[inline]
    fn tick(&mut self) -> Result<(), Stopped> {
        self.nodes += 1;
        self.slots.set_nodes(self.id, self.nodes);
        let halt = (self.main.is_some()
            || self.job.limits.nodes.is_some()
            || self.job.time.hard.is_some())
            && self.check_limits();
        if halt || self.state.is_stopped() {
            Err(Stopped)
        } else {
            Ok(())
        }
    }

    /// Limit checks. The clock: every thread that has completed an iteration (and so has a result
    /// to vote with), every [`CHECK_EVERY`] of its own nodes, so that the hard limit holds however
    /// rarely the scheduler runs the main thread (`Threads 1024` on two cores: the main thread then
    /// gets a slice every second or so, and a clock watched by it alone let a 200 ms search run
    /// 2.7 s). A node limit: every thread, against its own count at every node plus the others'
    /// counts read every [`CHECK_EVERY`] nodes, so the total overshoots by at most about that many
    /// nodes per thread whatever the scheduler does (exact with one thread), and like the clock
    /// never before this thread has completed an iteration (`go nodes 1` plays a move searched to
    /// depth 1, with its score).
    ///
    /// Limited strength's node budget, counted the same way: true when it is spent, which ends the
    /// main thread's search alone (not a stop: a pondering search still waits for `ponderhit` or
    /// `stop`, and the pool stops the helpers when the main thread returns).
    fn check_limits(&mut self) -> bool {
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            if self.main.is_some() || self.job.limits.nodes.is_some() {
                self.others_nodes = self.slots.nodes_except(self.id);
            }
            if self.completed_depth >= 1 && manager::past_hard_limit(self.job, self.state) {
                self.state.request_stop();
            }
        }
        if let Some(limit) = self.job.limits.nodes
            && self.completed_depth >= 1
            && self.nodes + self.others_nodes >= limit
        {
            self.state.request_stop();
        }
        self.main.is_some()
            && self.completed_depth >= 1
            && self
                .job
                .config
                .skill
                .is_some_and(|s| self.nodes + self.others_nodes >= s.nodes)
    }

    /// Nodes of every thread: this one's exact count plus the others' published ones.
    fn total_nodes(&self) -> u64 {
        self.nodes + self.slots.nodes_except(self.id)
    }

    /// Nodes and tablebase hits of every thread (the root's probes included), for a report.
    fn counts(&self) -> Counts {
        let root = self.job.root_tb.as_ref().map_or(0, |tb| tb.probes);
        Counts {
            nodes: self.total_nodes(),
            tbhits: root + self.slots.total_tbhits(),
        }
    }

    // ---------------------------------------------------------------------------------------
    // The transposition table, as both searches use it.
    // ---------------------------------------------------------------------------------------

    /// The score of a table entry if its bound settles the window `alpha..beta` here.
    fn tt_cutoff(hit: &TtHit, ply: usize, alpha: Score, beta: Score) -> Option<Score> {
        let score = hit.score.from_tt(ply);
        let usable = match hit.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
            Bound::None => false,
        };
        usable.then_some(score)
    }

    /// The static evaluation, none in check: `raw`, the table's copy when it has one, else
    /// computed, and `corrected` by the pawn correction history (see [`history`]).
    fn static_eval(&mut self, in_check: bool, tt_hit: Option<TtHit>) -> Option<StaticEval> {
        if in_check {
            return None;
        }
        let raw = match tt_hit {
            Some(hit) if hit.bound != Bound::None => hit.eval,
            _ => self.eval.evaluate(self.pos.chess()),
        };
        let chess = self.pos.chess();
        let correction = self.histories.correction(chess.turn(), chess.board());
        let bound = Score::TB_WIN_BOUND.0 - 1;
        let corrected = Score((raw.0 + correction).clamp(-bound, bound));
        Some(StaticEval { raw, corrected })
    }

    /// Stores a node's result (`best.score` relative to the root, `ply` plies down).
    fn tt_store(
        &self,
        key: u64,
        ply: usize,
        best: Best,
        eval: Option<StaticEval>,
        depth: i32,
        bound: Bound,
    ) {
        let stored_move = best.mv.map_or(PackedMove::NONE, PackedMove::new);
        self.tt.store(
            key,
            stored_move,
            best.score.to_tt(ply),
            eval.map_or(Score::DRAW, |e| e.raw),
            depth,
            bound,
        );
    }

    /// A searched move's score against the best so far and the window: a better score becomes
    /// the best; one above alpha also gives the best move, the principal variation at PV nodes
    /// and a new alpha. Returns true on a cutoff (`score >= beta`, alpha left as it was).
    fn improve<N: NodeType>(
        &mut self,
        ply: usize,
        m: Move,
        score: Score,
        best: &mut Best,
        alpha: &mut Score,
        beta: Score,
    ) -> bool {
        if score > best.score {
            best.score = score;
            if score > *alpha {
                best.mv = Some(m);
                if N::PV {
                    self.pv.update(ply, m);
                }
                if score >= beta {
                    return true;
                }
                *alpha = score;
            }
        }
        false
    }

    // ---------------------------------------------------------------------------------------
    // Results.
    // ---------------------------------------------------------------------------------------

    /// Makes this thread's current best known to the others (for the vote).
    fn publish(&self) {
        self.slots.publish(self.id, self.thread_result());
    }

    fn thread_result(&self) -> ThreadResult {
        let best = self.skill_pick.as_ref().or(self.root_moves.first());
        ThreadResult {
            best: best.map(|rm| rm.mv),
            score: best.map_or(Score::DRAW, RootMove::best_known_score),
            depth: self.completed_depth,
            pv: best.map(|rm| rm.pv.clone()).unwrap_or_default(),
        }
    }
}
