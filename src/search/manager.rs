//! The main thread's duties (Stockfish's `SearchManager`): it alone reports to the handler
//! and decides after each iteration whether the search is over. Helpers have no
//! [`MainThread`]; the hard time limit ([`past_hard_limit`]) is watched by every thread.

use shakmaty::Move;

use super::job::Job;
use super::root::RootMove;
use crate::params::{REPORT_BOUNDS_AFTER, REPORT_CURRMOVE_AFTER, STABILITY_SCALE};
use crate::report::{ScoreBound, SearchHandler, SearchInfo, nps};
use crate::score::{Score, ScoreKind};
use crate::state::SearchState;
use crate::wdl::{WinDrawLoss, material};

/// The clock check, made by every thread every few hundred nodes: past the hard limit, never
/// while pondering. (Each thread checks only once it has completed an iteration, so the vote
/// always has a move.)
pub(crate) fn past_hard_limit(job: &Job, state: &SearchState) -> bool {
    !state.clock.pondering() && job.time.out_of_time(state.clock.elapsed(job.start))
}

/// True when the best root move mates within the `go mate` limit.
pub(crate) fn mate_within_limit(job: &Job, root_moves: &[RootMove]) -> bool {
    job.limits.mate.is_some_and(|mate| {
        matches!(root_moves[0].score.kind(), ScoreKind::Mate(m) if m > 0 && m as u32 <= mate)
    })
}

/// Nodes and tablebase hits of every thread, for a report.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counts {
    pub nodes: u64,
    pub tbhits: u64,
}

/// What only the main search thread owns. See the module documentation.
pub(crate) struct MainThread<'a> {
    handler: &'a mut dyn SearchHandler,
    /// The best move of the last completed iteration.
    last_best: Option<Move>,
    /// Completed iterations in a row with the same best move.
    stable_iterations: usize,
}

impl<'a> MainThread<'a> {
    pub(crate) fn new(handler: &'a mut dyn SearchHandler) -> MainThread<'a> {
        MainThread {
            handler,
            last_best: None,
            stable_iterations: 0,
        }
    }

    /// After a completed iteration, with `nodes` searched by every thread: is the search over?
    /// A mate within the `go mate` limit ends it, and so does a spent soft node budget
    /// (`Limits::soft_nodes`; like `nodes` it does not wait for `ponderhit`); while pondering
    /// nothing else does; a single legal move ends a timed search at once; otherwise the soft
    /// time limit, scaled by how many iterations the best move has held.
    ///
    /// `line_one` is the best move as line 1's search left it: the stability follows line 1
    /// alone, whatever the later MultiPV lines do (Stockfish counts `bestMoveChanges` only at
    /// `pvIdx == 0`). At MultiPV 1 it is `root_moves[0]`.
    pub(crate) fn iteration_ends_search(
        &mut self,
        job: &Job,
        state: &SearchState,
        root_moves: &[RootMove],
        line_one: Option<Move>,
        nodes: u64,
    ) -> bool {
        let best = &root_moves[0];
        let line_one = line_one.unwrap_or(best.mv);
        self.stable_iterations = if Some(line_one) == self.last_best {
            self.stable_iterations + 1
        } else {
            0
        };
        self.last_best = Some(line_one);

        if mate_within_limit(job, root_moves) || job.limits.soft_nodes.is_some_and(|s| nodes >= s) {
            return true;
        }
        if state.clock.pondering() {
            return false;
        }
        if root_moves.len() == 1 && job.time.soft.is_some() {
            return true;
        }
        let scale = STABILITY_SCALE[self.stable_iterations.min(STABILITY_SCALE.len() - 1)];
        job.time
            .should_stop_iterating(state.clock.elapsed(job.start), scale)
    }

    /// One `info` line per principal variation, after an iteration (complete or stopped). A
    /// line not searched in a stopped iteration shows the previous iteration's result.
    pub(crate) fn report_iteration(
        &mut self,
        job: &Job,
        depth: u32,
        root_moves: &[RootMove],
        multipv: usize,
        counts: Counts,
    ) {
        let Counts { nodes, tbhits } = counts;
        let elapsed = job.start.elapsed();
        let hashfull = job.tt.hashfull();
        let material = material(job.root.chess());
        for (i, rm) in root_moves.iter().take(multipv).enumerate() {
            let updated = rm.score > -Score::INFINITE;
            if depth == 1 && !updated && i > 0 {
                continue;
            }
            if !updated && rm.previous == -Score::INFINITE {
                continue;
            }
            let score = rm.shown(if updated { rm.score } else { rm.previous });
            self.handler.on_info(&SearchInfo {
                depth: if updated {
                    depth
                } else {
                    depth.saturating_sub(1).max(1)
                },
                seldepth: rm.seldepth as u32,
                multipv: i as u32 + 1,
                score,
                bound: if updated { rm.bound } else { ScoreBound::Exact },
                wdl: WinDrawLoss::new(score, material),
                nodes,
                nps: nps(nodes, elapsed),
                time_ms: elapsed.as_millis() as u64,
                hashfull,
                tbhits,
                pv: rm.pv.clone(),
            });
        }
    }

    /// After an aspiration failure, the bound, once the search has run a while.
    pub(crate) fn report_bound(
        &mut self,
        job: &Job,
        depth: u32,
        rm: &RootMove,
        pv_index: usize,
        counts: Counts,
    ) {
        let Counts { nodes, tbhits } = counts;
        let elapsed = job.start.elapsed();
        if elapsed < REPORT_BOUNDS_AFTER {
            return;
        }
        let score = rm.shown(rm.score);
        self.handler.on_info(&SearchInfo {
            depth,
            seldepth: rm.seldepth as u32,
            multipv: pv_index as u32 + 1,
            score,
            bound: rm.bound,
            wdl: WinDrawLoss::new(score, material(job.root.chess())),
            nodes,
            nps: nps(nodes, elapsed),
            time_ms: elapsed.as_millis() as u64,
            hashfull: job.tt.hashfull(),
            tbhits,
            pv: rm.pv.clone(),
        });
    }

    /// The root move about to be searched, once the search has run a while.
    pub(crate) fn report_currmove(&mut self, job: &Job, depth: u32, m: Move, number: usize) {
        if job.start.elapsed() >= REPORT_CURRMOVE_AFTER {
            self.handler.on_currmove(depth, m, number as u32);
        }
    }
}
