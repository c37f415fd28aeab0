//! Lazy SMP: a persistent pool of search threads that all search the same root and share one
//! transposition table (Hyatt's "Lazy SMP" as popularised by Stockfish: no work splitting, the
//! threads help each other only through the table).
//!
//! # Concurrency contract
//!
//! - The pool's threads live as long as the pool. Between searches each blocks on its task
//!   channel; a search is one task per thread. Dropping the pool stops any search, closes the
//!   channels and joins every thread.
//! - [`SharedState`] is shared by the engine facade and all threads for the life of the pool:
//!   - `stop` is written by anyone (facade `stop`, the main thread on a limit) and read by every
//!     thread at every node, `Relaxed`: a thread may search a few more nodes after a stop.
//!   - `nodes[i]` is written only by thread `i` (a `Relaxed` store of its own count at every
//!     node, on its own cache line) and read by anyone for totals, which are therefore
//!     approximate while a search runs and exact once it has ended.
//!   - `clock` (pondering, or where the limits count from) is one word, written by the facade
//!     (`go`, `ponderhit`, `stop`) and read by the main thread's clock checks; being one word,
//!     it is never seen half-updated, so `Relaxed` suffices.
//!   - `results[i]` is written only by thread `i` (after each completed iteration) and read by
//!     the main thread for the vote after every helper has finished.
//!   - `control` (a mutex and condvar) holds the search phase: the facade moves it from idle to
//!     running, the main thread to finishing and back to idle. It is what `wait` blocks on.
//! - The main thread (id 0) alone reads the clock, checks the limits, reports `info` and
//!   chooses and reports the best move. Helpers never call the handler.
//! - A panic inside a search thread is caught at the top of that thread's task: the thread
//!   survives, the search ends, and `wait` reports [`Error::Internal`].

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam::channel::{Receiver, Sender, unbounded};
use crossbeam::sync::WaitGroup;
use crossbeam::utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use shakmaty::{Move, Position as _};

use crate::error::Error;
use crate::movepick::History;
use crate::score::Score;
use crate::search::{Job, ScoreBound, SearchHandler, SearchInfo, SearchResult, Searcher};
use crate::tt::PackedMove;

/// What one thread found, for the best-thread vote.
#[derive(Clone, Debug, Default)]
pub(crate) struct ThreadResult {
    pub best: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub pv: Vec<Move>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Running,
    Finishing,
}

struct Control {
    phase: Phase,
    result: Option<Result<SearchResult, Error>>,
}

/// `SharedState::clock` while pondering.
const PONDERING: u64 = u64::MAX;
/// `SharedState::clock` when the limits count from `go`.
const FROM_GO: u64 = 0;

/// State shared by the facade and every search thread. See the module's concurrency contract.
pub(crate) struct SharedState {
    /// Read at every node by every thread: on a cache line of its own.
    pub stop: CachePadded<AtomicBool>,
    /// Pondering and the limits' origin in one word: `PONDERING` while a `go ponder` search
    /// ponders (no limits), `FROM_GO` when the limits count from `go`, otherwise when
    /// `ponderhit` came, in nanoseconds since `epoch`. Only `ponderhit` and `stop` leave
    /// `PONDERING`, by compare-and-swap, so a stray `ponderhit` never moves a running clock.
    clock: AtomicU64,
    epoch: Instant,
    pub nodes: Vec<CachePadded<AtomicU64>>,
    pub results: Vec<Mutex<ThreadResult>>,
    panic: Mutex<Option<String>>,
    control: Mutex<Control>,
    changed: Condvar,
}

impl SharedState {
    fn new(threads: usize) -> SharedState {
        SharedState {
            stop: CachePadded::new(AtomicBool::new(false)),
            clock: AtomicU64::new(FROM_GO),
            epoch: Instant::now(),
            nodes: (0..threads)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            results: (0..threads)
                .map(|_| Mutex::new(ThreadResult::default()))
                .collect(),
            panic: Mutex::new(None),
            control: Mutex::new(Control {
                phase: Phase::Idle,
                result: None,
            }),
            changed: Condvar::new(),
        }
    }

    /// True while the search is in ponder mode (no time limits, no early best move).
    pub fn pondering(&self) -> bool {
        self.clock.load(Relaxed) == PONDERING
    }

    /// Ends pondering with the limits counted from `origin`; nothing if not pondering.
    fn leave_ponder(&self, origin: u64) {
        let _ = self
            .clock
            .compare_exchange(PONDERING, origin, Relaxed, Relaxed);
    }

    /// Time counted against the limits: since `go`, or since `ponderhit` after one.
    pub fn elapsed_for_limits(&self, job: &Job) -> Duration {
        match self.clock.load(Relaxed) {
            FROM_GO | PONDERING => job.start.elapsed(),
            at => (self.epoch + Duration::from_nanos(at)).elapsed(),
        }
    }

    /// Sum of the node counters of all threads but `id`.
    pub fn nodes_except(&self, id: usize) -> u64 {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != id)
            .map(|(_, n)| n.load(Relaxed))
            .sum()
    }

    fn total_nodes(&self) -> u64 {
        self.nodes_except(usize::MAX)
    }

    fn set_phase(&self, phase: Phase, result: Option<Result<SearchResult, Error>>) {
        let mut control = self.control.lock();
        control.phase = phase;
        if result.is_some() {
            control.result = result;
        }
        self.changed.notify_all();
    }
}

/// Stops, ponderhits or waits for the searches of one thread pool from any thread, without
/// borrowing the engine: a GUI thread can stop a search while another blocks in `wait`.
/// A handle taken before the thread count changes refers to the old pool, whose search (if
/// any) has ended: its `wait` returns at once.
#[derive(Clone)]
pub struct SearchControl {
    shared: Arc<SharedState>,
}

impl SearchControl {
    /// Tells the search to stop (also ends pondering); returns at once.
    pub fn stop(&self) {
        self.shared.leave_ponder(FROM_GO);
        self.shared.stop.store(true, Relaxed);
    }

    /// Switches a pondering search to its time limits, counted from now; does nothing to a
    /// search that is not pondering.
    pub fn ponderhit(&self) {
        let at = self.shared.epoch.elapsed().as_nanos();
        let at = u64::try_from(at)
            .unwrap_or(u64::MAX)
            .clamp(FROM_GO + 1, PONDERING - 1);
        self.shared.leave_ponder(at);
    }

    /// Blocks until no search runs and its best move has been reported; returns the last
    /// search's result, if any.
    pub fn wait(&self) -> Option<Result<SearchResult, Error>> {
        let mut control = self.shared.control.lock();
        while control.phase != Phase::Idle {
            self.shared.changed.wait(&mut control);
        }
        control.result.clone()
    }

    /// True while a search runs or reports its best move.
    pub fn is_searching(&self) -> bool {
        self.shared.control.lock().phase != Phase::Idle
    }
}

enum Task {
    Main {
        job: Arc<Job>,
        handler: Box<dyn SearchHandler>,
        helpers_done: WaitGroup,
    },
    Helper {
        job: Arc<Job>,
        done: WaitGroup,
    },
    ClearHistory,
}

/// The persistent search threads. See the module documentation.
pub(crate) struct ThreadPool {
    shared: Arc<SharedState>,
    senders: Vec<Sender<Task>>,
    handles: Vec<JoinHandle<()>>,
}

impl ThreadPool {
    /// Starts `threads` threads (at least one).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] if the system refuses to create a thread.
    pub fn new(threads: usize) -> Result<ThreadPool, Error> {
        let threads = threads.max(1);
        let shared = Arc::new(SharedState::new(threads));
        let mut pool = ThreadPool {
            shared: Arc::clone(&shared),
            senders: Vec::with_capacity(threads),
            handles: Vec::with_capacity(threads),
        };
        for id in 0..threads {
            let (tx, rx) = unbounded();
            let shared = Arc::clone(&shared);
            let handle = std::thread::Builder::new()
                .name(format!("lazuli-search-{id}"))
                .stack_size(8 << 20)
                .spawn(move || worker_loop(id, &shared, &rx))
                .map_err(|e| Error::OutOfMemory(format!("cannot start search thread {id}: {e}")))?;
            pool.senders.push(tx);
            pool.handles.push(handle);
        }
        Ok(pool)
    }

    /// Number of threads.
    pub fn len(&self) -> usize {
        self.senders.len()
    }

    /// True while a search runs or is reporting its best move.
    pub fn is_busy(&self) -> bool {
        self.shared.control.lock().phase != Phase::Idle
    }

    /// True while a search runs and has not been told to stop (a stopped one is only
    /// finishing: its end is a matter of milliseconds).
    pub fn is_searching_unstopped(&self) -> bool {
        self.shared.control.lock().phase == Phase::Running && !self.shared.stop.load(Relaxed)
    }

    /// Starts a search on every thread and returns at once. The caller ensures the pool is
    /// idle.
    pub fn start(&self, job: Job, handler: Box<dyn SearchHandler>) {
        debug_assert!(!self.is_busy());
        let shared = &self.shared;
        shared.stop.store(false, Relaxed);
        let clock = if job.limits.ponder {
            PONDERING
        } else {
            FROM_GO
        };
        shared.clock.store(clock, Relaxed);
        *shared.panic.lock() = None;
        for (n, r) in shared.nodes.iter().zip(&shared.results) {
            n.store(0, Relaxed);
            *r.lock() = ThreadResult::default();
        }
        shared.set_phase(Phase::Running, None);
        let job = Arc::new(job);
        let helpers_done = WaitGroup::new();
        for tx in &self.senders[1..] {
            let task = Task::Helper {
                job: Arc::clone(&job),
                done: helpers_done.clone(),
            };
            tx.send(task)
                .expect("search threads live as long as the pool");
        }
        self.senders[0]
            .send(Task::Main {
                job,
                handler,
                helpers_done,
            })
            .expect("search threads live as long as the pool");
    }

    /// Tells the search to stop; returns at once.
    pub fn stop(&self) {
        self.control().stop();
    }

    /// Switches a pondering search to normal time control, counted from now.
    pub fn ponderhit(&self) {
        self.control().ponderhit();
    }

    /// Blocks until no search runs; returns the result of the last search, if any.
    pub fn wait(&self) -> Option<Result<SearchResult, Error>> {
        self.control().wait()
    }

    /// A handle on this pool's searches that needs no borrow of the pool.
    pub fn control(&self) -> SearchControl {
        SearchControl {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Clears every thread's history (new game). The pool must be idle.
    pub fn clear_history(&self) {
        for tx in &self.senders {
            tx.send(Task::ClearHistory)
                .expect("search threads live as long as the pool");
        }
    }

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.shared.total_nodes()
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.stop();
        self.senders.clear(); // closing the channels ends each worker loop
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

fn worker_loop(id: usize, shared: &SharedState, tasks: &Receiver<Task>) {
    let mut history = History::default();
    while let Ok(task) = tasks.recv() {
        match task {
            Task::ClearHistory => history.clear(),
            Task::Helper { job, done } => {
                let run = catch_unwind(AssertUnwindSafe(|| {
                    Searcher::new(id, &job, shared, &mut history, None).iterate();
                }));
                if let Err(payload) = run {
                    record_panic(shared, id, payload.as_ref());
                    history = History::default();
                }
                drop(job); // before `done`: the table must not outlive the search
                drop(done);
            }
            Task::Main {
                job,
                mut handler,
                helpers_done,
            } => {
                run_main(shared, job, &mut history, handler.as_mut(), helpers_done);
            }
        }
    }
}

/// The main thread's task: search, wait for `stop` or `ponderhit` when required, stop the
/// helpers, vote, report the best move.
fn run_main(
    shared: &SharedState,
    job: Arc<Job>,
    history: &mut History,
    handler: &mut dyn SearchHandler,
    helpers_done: WaitGroup,
) {
    let searched = catch_unwind(AssertUnwindSafe(|| {
        if job.root_moves.is_empty() {
            report_no_moves(&job, handler);
        } else {
            Searcher::new(0, &job, shared, history, Some(&mut *handler)).iterate();
        }
        // Under `infinite` or `ponder` the best move is never sent before `stop`/`ponderhit`.
        while !shared.stop.load(Relaxed) && (job.limits.infinite || shared.pondering()) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }));
    if let Err(payload) = searched {
        record_panic(shared, 0, payload.as_ref());
        *history = History::default();
    }
    shared.stop.store(true, Relaxed);
    helpers_done.wait();

    let results: Vec<ThreadResult> = shared.results.iter().map(|r| r.lock().clone()).collect();
    let chosen = best_thread(&results);
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
        nodes: shared.total_nodes(),
        time: job.start.elapsed(),
        pv,
    };
    let outcome = match shared.panic.lock().clone() {
        Some(message) => Err(Error::Internal(message)),
        None => Ok(result),
    };
    shared.set_phase(Phase::Finishing, Some(outcome.clone()));
    let reported = catch_unwind(AssertUnwindSafe(|| {
        if let Err(e) = &outcome {
            handler.on_error(&e.to_string());
        }
        handler.on_bestmove(best, ponder);
    }));
    if reported.is_err() {
        shared.set_phase(
            Phase::Finishing,
            Some(Err(Error::Internal("the result handler panicked".into()))),
        );
    }
    drop(job); // the table may be resized as soon as the engine is idle
    shared.set_phase(Phase::Idle, None);
}

fn record_panic(shared: &SharedState, id: usize, payload: &(dyn std::any::Any + Send)) {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    shared
        .panic
        .lock()
        .get_or_insert(format!("search thread {id} panicked: {text}"));
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
        nodes: 0,
        nps: 0,
        time_ms: job.start.elapsed().as_millis() as u64,
        hashfull: 0,
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
        let weight = i64::from(r.score.0 - min_score + 14) * i64::from(r.depth);
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
    fn ponderhit_ends_pondering_once_and_never_moves_a_running_clock() {
        // (pondering at the start, calls, pondering after, clock back at `FROM_GO` after)
        let cases: [(bool, &[&str], bool, bool); 5] = [
            (true, &[], true, false),
            (true, &["ponderhit"], false, false),
            (true, &["stop"], false, true),
            (false, &["ponderhit"], false, true),
            (true, &["ponderhit", "ponderhit"], false, false),
        ];
        for (ponder, calls, pondering, from_go) in cases {
            let control = SearchControl {
                shared: Arc::new(SharedState::new(1)),
            };
            let shared = &control.shared;
            shared
                .clock
                .store(if ponder { PONDERING } else { FROM_GO }, Relaxed);
            let mut first_hit = None;
            for call in calls {
                match *call {
                    "ponderhit" => control.ponderhit(),
                    _ => control.stop(),
                }
                first_hit.get_or_insert(shared.clock.load(Relaxed));
            }
            let clock = shared.clock.load(Relaxed);
            assert_eq!(shared.pondering(), pondering, "{ponder} {calls:?}");
            assert_eq!(clock == FROM_GO, from_go, "{ponder} {calls:?}");
            // A second ponderhit leaves the first one's time as it was.
            assert_eq!(first_hit.unwrap_or(clock), clock, "{ponder} {calls:?}");
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
