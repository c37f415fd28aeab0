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
//! - `stop` is written by anyone (facade `stop`, any thread past the hard time limit or a node
//!   limit, the main thread when its own search ends) and read by every thread at every node,
//!   `Relaxed`: a thread may search a few more nodes after a stop, and nothing it computes
//!   after seeing the flag is used.
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

use crossbeam::utils::CachePadded;
use shakmaty::Move;

use crate::error::Error;
use crate::report::SearchResult;
use crate::score::Score;
use crate::sync::{AtomicBool, AtomicU64, Condvar, Mutex, Ordering::Relaxed};
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
        // The bare message: the search's result wraps it in `Error::Internal` once.
        let message = match error {
            Error::Internal(message) => message,
            other => other.to_string(),
        };
        self.panic.lock().get_or_insert(message);
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

#[cfg(all(test, loom))]
mod loom_tests {
    use std::time::Duration;

    use loom::thread;

    use super::*;

    fn result(nodes: u64) -> Result<SearchResult, Error> {
        Ok(SearchResult {
            best: None,
            ponder: None,
            score: Score(0),
            depth: 1,
            nodes,
            time: Duration::ZERO,
            pv: Vec::new(),
        })
    }

    /// The main search thread's part of `threads::run_main` for a `go ponder` search, with
    /// the search itself left out: wait for `stop` or `ponderhit` (yielding where the real
    /// one sleeps), stop the helpers (finishing), report the best move, wait for the helpers
    /// (their node count is final), go idle with the result.
    fn run_main(state: &SearchState, slots: &ThreadSlots, reported: &AtomicBool) {
        while !state.is_stopped() && state.clock.pondering() {
            thread::yield_now();
        }
        state.request_stop();
        state.set_phase(Phase::Finishing, None);
        reported.store(true, Relaxed); // the handler's `bestmove`
        slots.set_nodes(0, 7); // the helpers have left: the final count
        state.set_phase(Phase::Idle, Some(result(slots.total_nodes())));
    }

    /// One pondering search from `begin` to idle, ended by `end` (a `stop` or a `ponderhit`)
    /// from another thread while a third waits (after an earlier search left its result).
    /// Checks that the search thread sees the stop or the ponderhit (else it spins forever
    /// and loom gives up), that `wait` neither blocks forever (a lost wakeup is reported by
    /// loom as a deadlock) nor returns before the best move is reported and the phase is
    /// idle, and that it returns this search's result, not the earlier one, with the exact
    /// node count. Fails, for instance, if `wait` tested the phase with `if` instead of
    /// `while` or waited only while running (it would return while finishing), or if
    /// `set_phase` skipped `notify_all` (deadlock).
    fn search_ended_by(end: fn(&SearchControl)) {
        loom::model(move || {
            let state = Arc::new(SearchState::new());
            let slots = Arc::new(ThreadSlots::new(1));
            let reported = Arc::new(AtomicBool::new(false));
            state.set_phase(Phase::Idle, Some(result(1))); // the earlier search
            slots.reset();
            state.begin(true); // the facade's `go ponder`
            let control = SearchControl::new(Arc::clone(&state));

            let main = {
                let (state, slots, reported) = (
                    Arc::clone(&state),
                    Arc::clone(&slots),
                    Arc::clone(&reported),
                );
                thread::spawn(move || run_main(&state, &slots, &reported))
            };
            let gui = {
                let control = control.clone();
                thread::spawn(move || end(&control))
            };

            let outcome = control.wait().expect("a search ran").expect("no error");
            assert_eq!(outcome.nodes, 7, "wait returned an earlier result");
            assert!(!control.is_searching(), "wait returned before idle");
            assert!(
                reported.load(Relaxed),
                "wait returned before the best move was reported"
            );
            assert_eq!(
                slots.total_nodes(),
                7,
                "the node count is not exact after wait"
            );
            for h in [main, gui] {
                h.join().unwrap();
            }
            assert!(state.is_stopped() && !state.clock.pondering());
        });
    }

    /// See [`search_ended_by`]: `stop` ends the pondering search.
    #[test]
    fn wait_after_stop_returns_this_searchs_result_once_reported() {
        search_ended_by(SearchControl::stop);
    }

    /// See [`search_ended_by`]: `ponderhit` ends the pondering (the search then stops itself).
    #[test]
    fn wait_after_ponderhit_returns_this_searchs_result_once_reported() {
        search_ended_by(SearchControl::ponderhit);
    }

    /// A helper thread's counters and result, read by the main thread once the helper is
    /// done (joined here; the pool's wait group in the engine): the totals are exact and the
    /// result is the one published, whatever the interleaving. While the helper runs, a total
    /// is one of the values it stored.
    #[test]
    fn thread_slots_are_exact_once_a_helper_is_done() {
        loom::model(|| {
            let slots = Arc::new(ThreadSlots::new(2));
            let helper = {
                let slots = Arc::clone(&slots);
                thread::spawn(move || {
                    slots.set_nodes(1, 5);
                    slots.set_tbhits(1, 2);
                    slots.publish(
                        1,
                        ThreadResult {
                            depth: 3,
                            ..ThreadResult::default()
                        },
                    );
                })
            };
            slots.set_nodes(0, 4);
            assert!([0, 5].contains(&slots.nodes_except(0)));
            helper.join().unwrap();
            assert_eq!(slots.total_nodes(), 9);
            assert_eq!(slots.nodes_except(1), 4);
            assert_eq!(slots.total_tbhits(), 2);
            assert_eq!(slots.results()[1].depth, 3);
        });
    }
}
