//! Lazy SMP: a persistent pool of search threads that all search the same root and share one
//! transposition table (Hyatt's "Lazy SMP" as popularised by Stockfish: no work splitting, the
//! threads help each other only through the table).
//!
//! # Concurrency contract
//!
//! - The pool's threads live as long as the pool. Between searches the main thread (id 0)
//!   blocks on its task channel and the helpers in the [`Lobby`] (its own contract is in
//!   [`crate::lobby`], model-checked there).
//!   Dropping the pool stops any search, shuts the lobby, closes the channel and joins every
//!   thread. The engine replaces the pool (a `Threads` change) only while no search runs.
//! - A search starts with one task sent to the main thread and one broadcast to the helpers:
//!   the job is put in the lobby (which opens it) and every helper is woken. A helper joins the
//!   open search at most once, counting itself in `active` under the lobby's lock, and counts
//!   itself out when it has finished and dropped its share of the job. The main thread, once
//!   its own search is over, sets the stop flag, closes the lobby (no helper joins after that),
//!   reports the best move, and only then waits until `active` is zero and makes the engine
//!   idle. So `go` costs the caller O(1) wake-ups whatever `Threads` is, and the end of a
//!   search waits only for helpers that joined it: with far more threads than cores
//!   (`Threads 1024` on two), a helper that the scheduler has not run yet simply never joins, instead of holding up `go`, `stop` and the best move for seconds
//!   as one channel send and one wait-group share per helper did.
//! - The pool shares the engine's [`SearchState`] (stop flag, pondering clock, phase) and owns
//!   the [`ThreadSlots`] of its threads; their contracts are in [`crate::state`].
//! - The main thread (id 0) alone applies the soft time limit, reports `info`, waits for the
//!   helpers and chooses and reports the best move. Helpers never call the handler. Every
//!   thread watches the hard limit (the stop flag's contract is in [`crate::state`]).
//! - A panic inside a search thread is caught at the top of that thread's task: the thread
//!   survives, the search ends, and `wait` reports [`Error::Internal`].

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam::channel::{Receiver, Sender, unbounded};
use shakmaty::{Move, Position as _};

use crate::error::Error;
use crate::lobby::{Errand, Lobby};
use crate::params::VOTE_OFFSET;
use crate::report::{ScoreBound, SearchHandler, SearchInfo, SearchResult};
use crate::score::Score;
use crate::search::history::Histories;
use crate::search::manager::MainThread;
use crate::search::{Job, Searcher};
use crate::state::{Phase, SearchState, ThreadResult, ThreadSlots};
use crate::tt::PackedMove;
use crate::wdl::{WinDrawLoss, material};

/// The main thread's tasks.
enum Task {
    Search {
        job: Arc<Job>,
        handler: Box<dyn SearchHandler>,
    },
    ClearHistory,
}

/// What every worker of a pool borrows.
struct Shared {
    state: Arc<SearchState>,
    slots: ThreadSlots,
    lobby: Lobby<Job>,
}

/// The persistent search threads. See the module documentation.
pub(crate) struct ThreadPool {
    shared: Arc<Shared>,
    main: Option<Sender<Task>>,
    handles: Vec<JoinHandle<()>>,
}

impl ThreadPool {
    /// Starts `threads` threads (at least one) sharing the engine's `state`.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] if the system refuses to create a thread.
    pub(crate) fn new(threads: usize, state: Arc<SearchState>) -> Result<ThreadPool, Error> {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            state,
            slots: ThreadSlots::new(threads),
            lobby: Lobby::new(),
        });
        let (tx, rx) = unbounded();
        // Dropped on an early return: its `Drop` shuts down the threads already started.
        let mut pool = ThreadPool {
            shared: Arc::clone(&shared),
            main: Some(tx),
            handles: Vec::with_capacity(threads),
        };
        let mut main_tasks = Some(rx);
        for id in 0..threads {
            let shared = Arc::clone(&shared);
            let tasks = main_tasks.take();
            let handle = std::thread::Builder::new()
                .name(format!("lazuli-search-{id}"))
                .stack_size(8 << 20)
                .spawn(move || match tasks {
                    Some(tasks) => main_loop(&shared, &tasks),
                    None => helper_loop(id, &shared),
                })
                .map_err(|e| Error::OutOfMemory(format!("cannot start search thread {id}: {e}")))?;
            pool.handles.push(handle);
        }
        Ok(pool)
    }

    /// Number of threads.
    pub(crate) fn len(&self) -> usize {
        self.handles.len()
    }

    fn send_main(&self, task: Task) {
        self.main
            .as_ref()
            .expect("the main thread's channel lives as long as the pool")
            .send(task)
            .expect("search threads live as long as the pool");
    }

    /// Starts a search on every thread and returns at once. The caller ensures no search
    /// runs.
    pub(crate) fn start(&self, job: Job, handler: Box<dyn SearchHandler>) {
        let state = &self.shared.state;
        debug_assert_eq!(state.phase(), Phase::Idle);
        self.shared.slots.reset();
        state.begin(job.limits.ponder);
        let job = Arc::new(job);
        // Helpers have nothing to search at a mate or stalemate (the main thread reports it).
        if self.len() > 1 && !job.root_moves.is_empty() {
            self.shared.lobby.open(Arc::clone(&job));
        }
        self.send_main(Task::Search { job, handler });
    }

    /// Clears every thread's history (new game). No search may run.
    pub(crate) fn clear_history(&self) {
        self.send_main(Task::ClearHistory);
        self.shared.lobby.new_game();
    }

    /// Nodes searched so far by all threads.
    pub(crate) fn nodes(&self) -> u64 {
        self.shared.slots.total_nodes()
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.shared.state.request_stop();
        self.main = None; // closing the channel ends the main thread's loop
        self.shared.lobby.shut();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

fn main_loop(shared: &Shared, tasks: &Receiver<Task>) {
    let mut history = Histories::default();
    while let Ok(task) = tasks.recv() {
        match task {
            Task::ClearHistory => history.clear(),
            Task::Search { job, mut handler } => {
                run_main(shared, job, &mut history, handler.as_mut());
            }
        }
    }
}

fn helper_loop(id: usize, shared: &Shared) {
    let mut history = Histories::default();
    let mut seen = Default::default();
    loop {
        match shared.lobby.next_errand(&mut seen) {
            Errand::Exit => return,
            Errand::ClearHistory => history.clear(),
            Errand::Search(job) => {
                let run = catch_unwind(AssertUnwindSafe(|| {
                    Searcher::new(id, &job, &shared.state, &shared.slots, &mut history, None)
                        .iterate();
                }));
                if let Err(payload) = run {
                    record_panic(&shared.state, id, payload.as_ref());
                    history = Histories::default();
                }
                drop(job); // before leaving: the table must not outlive the search
                shared.lobby.leave();
            }
        }
    }
}

/// The main thread's task: search, wait for `stop` or `ponderhit` when required, stop the
/// helpers, vote, report the best move.
fn run_main(
    shared: &Shared,
    job: Arc<Job>,
    history: &mut Histories,
    handler: &mut dyn SearchHandler,
) {
    let state = &shared.state;
    let searched = catch_unwind(AssertUnwindSafe(|| {
        if job.root_moves.is_empty() {
            report_no_moves(&job, handler);
        } else {
            let main = MainThread::new(&mut *handler);
            Searcher::new(0, &job, state, &shared.slots, history, Some(main)).iterate();
        }
        // Under `infinite` or `ponder` the best move is never sent before `stop`/`ponderhit`.
        while !state.is_stopped() && (job.limits.infinite || state.clock.pondering()) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }));
    if let Err(payload) = searched {
        record_panic(state, 0, payload.as_ref());
        *history = Histories::default();
    }
    state.request_stop();
    // No helper joins from here on. The best move is chosen and reported before waiting for
    // the helpers that joined to see the stop flag and leave: with more search threads than
    // cores a stopped helper may wait milliseconds for the scheduler, which the clock of the
    // side to move should not pay (4 threads pondering beside another engine's 4 on 2 cores:
    // `ponderhit` to `bestmove` took a median 8-9 ms when the helpers' exit was waited for,
    // 0.3-0.4 ms since).
    shared.lobby.close();

    let results = shared.slots.results();
    // At limited strength the main thread's pick is played, and with several lines the main
    // thread's line 1, the line the GUI was shown (Stockfish votes only at MultiPV 1 without
    // Skill Level).
    let chosen = if job.config.skill.is_some() || job.config.multipv > 1 {
        results.first().filter(|r| r.best.is_some())
    } else {
        best_thread(&results)
    };
    let best = chosen
        .and_then(|r| r.best)
        .or_else(|| job.root_moves.first().copied());
    let pv = chosen.map(|r| r.pv.clone()).unwrap_or_default();
    let ponder = best.and_then(|b| ponder_move(&job, b, &pv));
    let result = SearchResult {
        best,
        ponder,
        score: chosen.map_or(Score::DRAW, |r| r.score),
        depth: chosen.map_or(0, |r| r.depth),
        nodes: shared.slots.total_nodes(),
        time: job.start.elapsed(),
        pv,
    };
    let outcome = match state.panic() {
        Some(message) => Err(Error::Internal(message)),
        None => Ok(result),
    };
    state.set_phase(Phase::Finishing, None);
    let reported = catch_unwind(AssertUnwindSafe(|| {
        if let Err(e) = &outcome {
            handler.on_error(&e.to_string());
        }
        handler.on_bestmove(best, ponder);
    }));
    // The search is over once every helper has left; `wait` then returns its result with
    // the exact node count.
    shared.lobby.wait_empty();
    let outcome = match (reported, outcome) {
        (Err(_), _) => Err(Error::Internal("the result handler panicked".into())),
        (Ok(()), Err(e)) => Err(e),
        // A helper may have panicked after the best move was chosen.
        (Ok(()), Ok(result)) => match state.panic() {
            Some(message) => Err(Error::Internal(message)),
            None => Ok(SearchResult {
                nodes: shared.slots.total_nodes(),
                ..result
            }),
        },
    };
    drop(job); // the table may be resized as soon as the engine is idle
    state.set_phase(Phase::Idle, Some(outcome));
}

fn record_panic(state: &SearchState, id: usize, payload: &(dyn std::any::Any + Send)) {
    let context = format!("search thread {id} panicked: ");
    state.record_panic(Error::from_panic(&context, payload));
}

/// Checkmate or stalemate at the root: report the score, no search.
fn report_no_moves(job: &Job, handler: &mut dyn SearchHandler) {
    let score = if job.root.in_check() {
        Score::mated_in(0)
    } else {
        Score::DRAW
    };
    handler.on_info(&SearchInfo {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        score,
        bound: ScoreBound::Exact,
        wdl: WinDrawLoss::new(score, material(job.root.chess())),
        nodes: 0,
        nps: 0,
        time_ms: job.start.elapsed().as_millis() as u64,
        hashfull: 0,
        tbhits: 0,
        pv: Vec::new(),
    });
}

/// Chooses the thread whose move is played: a vote weighted by score and completed depth,
/// decisive scores first (Stockfish `Thread::get_best_thread`). Threads that completed no
/// iteration do not vote.
pub(crate) fn best_thread(results: &[ThreadResult]) -> Option<&ThreadResult> {
    let voters: Vec<&ThreadResult> = results
        .iter()
        .filter(|r| r.depth > 0 && r.best.is_some())
        .collect();
    let min_score = voters.iter().map(|r| r.score.0).min()?;
    let mut votes: HashMap<Move, i64> = HashMap::new();
    for r in &voters {
        let weight = i64::from(r.score.0 - min_score + VOTE_OFFSET) * i64::from(r.depth);
        *votes
            .entry(r.best.expect("voters have a move"))
            .or_default() += weight;
    }
    let vote = |r: &ThreadResult| votes[&r.best.expect("voters have a move")];
    let mut best = voters[0];
    for &r in &voters[1..] {
        if best.score.is_mate() {
            // Decisive: the shortest mate, or the longest resistance when being mated.
            if r.score > best.score {
                best = r;
            }
        } else if (r.score.is_mate() && r.score > Score::DRAW)
            || (!r.score.is_mate() && vote(r) > vote(best))
        {
            best = r;
        }
    }
    Some(best)
}

/// The expected reply: the second move of the principal variation, or the table's move in
/// the position after the best move (checked for legality).
fn ponder_move(job: &Job, best: Move, pv: &[Move]) -> Option<Move> {
    if pv.first() == Some(&best)
        && let Some(&reply) = pv.get(1)
    {
        return Some(reply);
    }
    let mut pos = job.root.clone();
    pos.push(best);
    job.tt
        .probe(pos.key())
        .map(|hit| hit.mv)
        .filter(|mv| *mv != PackedMove::NONE)
        .and_then(|mv| mv.to_move(pos.chess()))
        .filter(|m| pos.chess().is_legal(*m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    fn mv(from: Square, to: Square) -> Move {
        Move::Normal {
            role: Role::Knight,
            from,
            capture: None,
            to,
            promotion: None,
        }
    }

    fn result(m: Move, score: i32, depth: u32) -> ThreadResult {
        ThreadResult {
            best: Some(m),
            score: Score(score),
            depth,
            pv: vec![m],
        }
    }

    #[test]
    fn vote_weighs_score_and_depth_and_prefers_mates() {
        let a = mv(Square::G1, Square::F3);
        let b = mv(Square::B1, Square::C3);
        // Two threads agree on b at a lower score; together they outvote one thread on a.
        let results = [result(a, 30, 10), result(b, 25, 10), result(b, 25, 10)];
        assert_eq!(best_thread(&results).unwrap().best, Some(b));
        // A deeper thread outweighs.
        let results = [result(a, 30, 20), result(b, 25, 8)];
        assert_eq!(best_thread(&results).unwrap().best, Some(a));
        // A found mate wins over any vote; the shortest mate over a longer one.
        let results = [
            result(a, 30, 20),
            result(b, Score::mate_in(7).0, 5),
            result(a, 30, 20),
        ];
        assert_eq!(best_thread(&results).unwrap().best, Some(b));
        let results = [
            result(a, Score::mate_in(9).0, 20),
            result(b, Score::mate_in(5).0, 5),
        ];
        assert_eq!(best_thread(&results).unwrap().best, Some(b));
        // Threads that completed nothing do not vote.
        let results = [result(a, 30, 3), result(b, 900, 0)];
        assert_eq!(best_thread(&results).unwrap().best, Some(a));
        assert!(best_thread(&[]).is_none());
    }
}
