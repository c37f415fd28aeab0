//! The state the search threads share with each other and with the engine facade.
//!
//! Two types, by lifetime:
//! - [`SearchState`] lives as long as the engine: the stop flag, the pondering clock, the
//!   search phase that `wait` blocks on, the first panic of a search. A [`SearchControl`] taken
//!   once therefore stays valid across `Threads` changes.
//! - [`ThreadSlots`] lives as long as one thread pool: one node counter and one result slot per
//!   thread.
//!
//! # Concurrency contract
//!
//! - `stop` is written by anyone (facade `stop`, the main thread on a limit, a node limit on any
//!   thread) and read by every thread at every node, `Relaxed`: a thread may search a few more
//!   nodes after a stop, and nothing it computes after seeing the flag is used.
//! - `clock` is the pondering word; its own contract is in [`crate::timeman`].
//! - `control` (a mutex and a condvar) holds the search phase: the facade moves it from idle
//!   to running, the main search thread to finishing and back to idle. `wait` blocks on it.
//!   The result of a search is written under the same lock before the phase leaves running.
//! - `panic` keeps the first panic message of a search, written by whichever thread caught
//!   it, read by the main thread once every helper has finished.
//! - `ThreadSlots::nodes[i]` is written only by thread `i` (a `Relaxed` store of its own count,
//!   on its own cache line) and read by anyone for totals, which are therefore approximate
//!   while a search runs and exact once it has ended (the end is ordered by the pool's
//!   wait group and the control lock).
//! - `ThreadSlots::results[i]` is written only by thread `i` (after each completed iteration)
//!   and read by the main thread for the vote after every helper has finished.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crossbeam::utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use shakmaty::Move;

use crate::error::Error;
use crate::report::SearchResult;
use crate::score::Score;
use crate::timeman::PonderClock;

/// Where a search is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// No search: `wait` returns at once.
    Idle,
    /// Threads are searching.
    Running,
    /// The best move is chosen and being reported.
    Finishing,
}

struct Control {
    phase: Phase,
    result: Option<Result<SearchResult, Error>>,
}

/// State shared by the facade and every search thread for the life of the engine. See the
/// module's concurrency contract.
pub(crate) struct SearchState {
    /// Read at every node by every thread: on a cache line of its own.
    pub stop: CachePadded<AtomicBool>,
    /// Pondering, and where the limits count from.
    pub clock: PonderClock,
    panic: Mutex<Option<String>>,
    control: Mutex<Control>,
    changed: Condvar,
}

impl SearchState {
    pub(crate) fn new() -> SearchState {
        SearchState {
            stop: CachePadded::new(AtomicBool::new(false)),
            clock: PonderClock::new(),
            panic: Mutex::new(None),
            control: Mutex::new(Control {
                phase: Phase::Idle,
                result: None,
            }),
            changed: Condvar::new(),
        }
    }

    /// Prepares a search: not stopped, the clock started, no panic, phase running.
    pub(crate) fn begin(&self, ponder: bool) {
        self.stop.store(false, Relaxed);
        self.clock.start(ponder);
        *self.panic.lock() = None;
        self.set_phase(Phase::Running, None);
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    pub(crate) fn request_stop(&self) {
        self.stop.store(true, Relaxed);
    }

    pub(crate) fn phase(&self) -> Phase {
        self.control.lock().phase
    }

    /// Moves to `phase`, recording `result` when there is one, and wakes every waiter.
    pub(crate) fn set_phase(&self, phase: Phase, result: Option<Result<SearchResult, Error>>) {
        let mut control = self.control.lock();
        control.phase = phase;
        if result.is_some() {
            control.result = result;
        }
        self.changed.notify_all();
    }

    /// Keeps the first panic of the running search.
    pub(crate) fn record_panic(&self, error: Error) {
        self.panic.lock().get_or_insert(error.to_string());
    }

    /// The first panic of the search, if any.
    pub(crate) fn panic(&self) -> Option<String> {
        self.panic.lock().clone()
    }
}

/// Stops, ponderhits or waits for the searches of one engine from any thread, without
/// borrowing the engine: a GUI thread can stop a search while another blocks in `wait`. A
/// handle stays valid for the life of the engine, whatever options change.
#[derive(Clone)]
pub struct SearchControl {
    state: Arc<SearchState>,
}

impl SearchControl {
    pub(crate) fn new(state: Arc<SearchState>) -> SearchControl {
        SearchControl { state }
    }

    /// Tells the search to stop (also ends pondering); returns at once.
    pub fn stop(&self) {
        self.state.clock.stop();
        self.state.request_stop();
    }

    /// Switches a pondering search to its time limits, counted from now; does nothing to a
    /// search that is not pondering.
    pub fn ponderhit(&self) {
        self.state.clock.ponderhit();
    }

    /// Blocks until no search runs and its best move has been reported; returns the last
    /// search's result, if any.
    pub fn wait(&self) -> Option<Result<SearchResult, Error>> {
        let mut control = self.state.control.lock();
        while control.phase != Phase::Idle {
            self.state.changed.wait(&mut control);
        }
        control.result.clone()
    }

    /// True while a search runs or reports its best move.
    pub fn is_searching(&self) -> bool {
        self.state.phase() != Phase::Idle
    }
}

/// What one thread found, for the best-thread vote.
#[derive(Clone, Debug, Default)]
pub(crate) struct ThreadResult {
    pub best: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub pv: Vec<Move>,
}

/// One node counter, one tablebase-hit counter and one result per thread of a pool. See the
/// module's contract (`tbhits` follows the same rules as `nodes`).
pub(crate) struct ThreadSlots {
    nodes: Vec<CachePadded<AtomicU64>>,
    tbhits: Vec<CachePadded<AtomicU64>>,
    results: Vec<Mutex<ThreadResult>>,
}

impl ThreadSlots {
    pub(crate) fn new(threads: usize) -> ThreadSlots {
        ThreadSlots {
            nodes: (0..threads)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            tbhits: (0..threads)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            results: (0..threads)
                .map(|_| Mutex::new(ThreadResult::default()))
                .collect(),
        }
    }

    /// Zero counts and empty results, before a search.
    pub(crate) fn reset(&self) {
        for ((n, t), r) in self.nodes.iter().zip(&self.tbhits).zip(&self.results) {
            n.store(0, Relaxed);
            t.store(0, Relaxed);
            *r.lock() = ThreadResult::default();
        }
    }

    /// Thread `id` publishes its node count.
    pub(crate) fn set_nodes(&self, id: usize, nodes: u64) {
        self.nodes[id].store(nodes, Relaxed);
    }

    /// Thread `id` publishes its tablebase hits.
    pub(crate) fn set_tbhits(&self, id: usize, hits: u64) {
        self.tbhits[id].store(hits, Relaxed);
    }

    /// Sum of every thread's tablebase hits.
    pub(crate) fn total_tbhits(&self) -> u64 {
        self.tbhits.iter().map(|n| n.load(Relaxed)).sum()
    }

    /// Sum of the node counters of all threads but `id`.
    pub(crate) fn nodes_except(&self, id: usize) -> u64 {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != id)
            .map(|(_, n)| n.load(Relaxed))
            .sum()
    }

    /// Sum of all node counters.
    pub(crate) fn total_nodes(&self) -> u64 {
        self.nodes_except(usize::MAX)
    }

    /// Thread `id` publishes its current best.
    pub(crate) fn publish(&self, id: usize, result: ThreadResult) {
        *self.results[id].lock() = result;
    }

    /// Every thread's last published result.
    pub(crate) fn results(&self) -> Vec<ThreadResult> {
        self.results.iter().map(|r| r.lock().clone()).collect()
    }
}
