//! The clock: search limits, the deadlines they turn into, and the pondering word.
//!
//! From a clock (`wtime`/`btime`, increments, `movestogo`) the time manager derives two
//! durations, both measured from the start of the search (or from `ponderhit`):
//! - `soft`: after an iteration finishes past it (scaled by how stable the best move has been),
//!   no new iteration is started;
//! - `hard`: the search is stopped wherever it is. Every search thread, once it has completed
//!   an iteration (so that the vote has its move), looks at the clock every
//!   [`CHECK_EVERY`](crate::params::CHECK_EVERY) of its nodes, well under a millisecond at the
//!   engine's speed, so the limit holds even when there are far more threads than cores.
//!
//! `Move Overhead` is the time a move costs beyond the search. The hard limit never exceeds
//! 80% of the clock less one overhead, so the engine does not lose on time even with only its
//! own clock (`go wtime 100`) and no increment; the soft limit is a share of a budget that
//! reserves the overhead for every move still to play (as Stockfish does), so that at a fast
//! time control whose increment does not cover the overhead the clock is not spent down to the
//! latency of one move.
//!
//! [`PonderClock`] says whether a search ponders and where its limits count from.
//!
//! # Concurrency contract of [`PonderClock`]
//!
//! One `AtomicU64` holds both facts: `PONDERING` while a `go ponder` search ponders (no limits
//! apply), `FROM_GO` when the limits count from `go`, otherwise the moment `ponderhit` came,
//! in nanoseconds since the clock's epoch. It is written by the facade (`go`, `ponderhit`,
//! `stop`) and read by every search thread's clock checks (the hard limit) and by the main
//! thread (the soft limit, and whether to send its best move yet). Being one word it is never
//! seen half-updated, so `Relaxed` suffices. Only `ponderhit` and `stop` leave `PONDERING`, by
//! compare-and-swap, so a stray `ponderhit` never moves a running clock.

use std::time::{Duration, Instant};

use shakmaty::Color;

use crate::params::{
    DEFAULT_MOVES_TO_GO, HARD_OVER_SOFT, HARD_RESERVE, HARD_SHARE, MAX_MOVES_TO_GO,
    OVERHEAD_EXTRA_MOVES,
};
use crate::sync::{AtomicU64, Ordering::Relaxed};

/// What `go` asks for. `None` and `false` mean unset; with nothing set the search is infinite
/// until stopped, like `go infinite`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search exactly to this depth.
    pub depth: Option<u32>,
    /// Stop after about this many nodes (over all threads; exactly with one thread).
    pub nodes: Option<u64>,
    /// Start no new iteration once this many nodes are searched (over all threads): the search
    /// ends with a completed iteration. Self-play data generation's soft budget (`lazuli-lab datagen
    /// --soft-nodes`, as Stockfish's and viridithas's generators do), with `nodes` as the hard
    /// cap; not a UCI limit.
    pub soft_nodes: Option<u64>,
    /// Stop when a mate in at most this many moves is found.
    pub mate: Option<u32>,
    /// Search exactly this long.
    pub movetime: Option<Duration>,
    /// White's and Black's clocks and increments.
    pub wtime: Option<Duration>,
    pub btime: Option<Duration>,
    pub winc: Option<Duration>,
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until `stop`; never send the best move before.
    pub infinite: bool,
    /// Search in ponder mode: limits start to count at `ponderhit`.
    pub ponder: bool,
    /// Restrict the root to these moves (UCI notation).
    pub searchmoves: Vec<String>,
}

impl Limits {
    /// Limits that only stop at `depth`.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Limits that only stop after `nodes` nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Limits of a fixed time per move.
    pub fn movetime(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    fn clock(&self, side: Color) -> (Option<Duration>, Duration) {
        match side {
            Color::White => (self.wtime, self.winc.unwrap_or_default()),
            Color::Black => (self.btime, self.binc.unwrap_or_default()),
        }
    }
}

/// Deadlines derived from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeManager {
    /// Do not start another iteration after this (before stability scaling).
    pub soft: Option<Duration>,
    /// Stop the search at once after this.
    pub hard: Option<Duration>,
}

impl TimeManager {
    /// Deadlines for `side` to move under `limits`, keeping `overhead` in reserve.
    pub fn new(limits: &Limits, side: Color, overhead: Duration) -> TimeManager {
        if let Some(movetime) = limits.movetime {
            let t = movetime
                .saturating_sub(overhead)
                .max(Duration::from_millis(1));
            // `movetime` asks for exactly this long: no soft limit, so no iteration ends it early.
            return TimeManager {
                soft: None,
                hard: Some(t),
            };
        }
        let (Some(time), inc) = limits.clock(side) else {
            return TimeManager {
                soft: None,
                hard: None,
            };
        };
        let available = time.saturating_sub(overhead);
        let moves_to_go = limits
            .movestogo
            .unwrap_or(DEFAULT_MOVES_TO_GO)
            .clamp(1, MAX_MOVES_TO_GO);
        let hard =
            (available * HARD_SHARE.0 / HARD_SHARE.1).min(available.saturating_sub(HARD_RESERVE));
        // Stockfish's budget (`timeLeft` in its timeman.cpp): the clock plus the increments of
        // the moves after this one, less `overhead` for each move still to play and a few more
        // (the GUI's and the system's latency is paid on every move, not once). When the
        // increment does not cover the overhead the budget shrinks towards zero and the engine
        // moves at once, instead of spending the increment and losing the latency on every move.
        let budget = (time + inc * (moves_to_go - 1))
            .saturating_sub(overhead * (moves_to_go + OVERHEAD_EXTRA_MOVES));
        let soft = (budget / moves_to_go).min(hard);
        let hard = hard.min(soft * HARD_OVER_SOFT);
        TimeManager {
            soft: Some(soft),
            hard: Some(hard),
        }
    }

    /// True once `elapsed` passes the hard deadline.
    pub fn out_of_time(&self, elapsed: Duration) -> bool {
        self.hard.is_some_and(|h| elapsed >= h)
    }

    /// True when no new iteration should start. `scale` is about 1; below when the best move
    /// has been stable, above when it keeps changing.
    pub fn should_stop_iterating(&self, elapsed: Duration, scale: f64) -> bool {
        self.soft
            .is_some_and(|s| elapsed.as_secs_f64() >= s.as_secs_f64() * scale)
    }
}

/// `PonderClock` value while pondering.
const PONDERING: u64 = u64::MAX;
/// `PonderClock` value when the limits count from `go`.
const FROM_GO: u64 = 0;

/// Pondering and the limits' origin in one word. See the module's concurrency contract.
pub(crate) struct PonderClock {
    word: AtomicU64,
    epoch: Instant,
}

impl PonderClock {
    pub(crate) fn new() -> PonderClock {
        PonderClock {
            word: AtomicU64::new(FROM_GO),
            epoch: Instant::now(),
        }
    }

    /// A search starts: pondering, or with its limits counting from `go`.
    pub(crate) fn start(&self, ponder: bool) {
        self.word
            .store(if ponder { PONDERING } else { FROM_GO }, Relaxed);
    }

    /// True while the search is in ponder mode (no time limits, no early best move).
    pub(crate) fn pondering(&self) -> bool {
        self.word.load(Relaxed) == PONDERING
    }

    /// `stop`: ends pondering with the limits counted from `go`.
    pub(crate) fn stop(&self) {
        self.leave_ponder(FROM_GO);
    }

    /// `ponderhit`: ends pondering with the limits counted from now; nothing if not pondering.
    pub(crate) fn ponderhit(&self) {
        let at = self.epoch.elapsed().as_nanos();
        let at = u64::try_from(at)
            .unwrap_or(u64::MAX)
            .clamp(FROM_GO + 1, PONDERING - 1);
        self.leave_ponder(at);
    }

    fn leave_ponder(&self, origin: u64) {
        let _ = self
            .word
            .compare_exchange(PONDERING, origin, Relaxed, Relaxed);
    }

    /// Time counted against the limits of a search started at `start`: since `go`, or since
    /// `ponderhit` after one.
    pub(crate) fn elapsed(&self, start: Instant) -> Duration {
        match self.word.load(Relaxed) {
            FROM_GO | PONDERING => start.elapsed(),
            at => (self.epoch + Duration::from_nanos(at)).elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn deadlines_stay_inside_the_clock() {
        let overhead = Duration::from_millis(10);
        // (wtime, winc, movestogo)
        for (time, inc, mtg) in [
            (100, 0, None),
            (1, 0, None),
            (10, 0, None),
            (50, 100, None),
            (10_000, 100, None),
            (60_000, 0, Some(1)),
            (60_000, 0, Some(40)),
            (300_000, 3_000, None),
        ] {
            let limits = Limits {
                wtime: ms(time),
                winc: ms(inc),
                movestogo: mtg,
                ..Limits::default()
            };
            let tm = TimeManager::new(&limits, Color::White, overhead);
            let (soft, hard) = (tm.soft.unwrap(), tm.hard.unwrap());
            assert!(soft <= hard, "{time} {inc} {mtg:?}");
            let budget = Duration::from_millis(time).saturating_sub(overhead);
            assert!(hard <= budget * 4 / 5, "{time} {inc} {mtg:?}: {hard:?}");
        }
    }

    /// A game of 300 moves in which every move searches for the soft limit and then pays a
    /// latency as large as the overhead or the increment, whichever is smaller (4 threads
    /// beside another engine's 4 on 2 cores cost 10-20 ms): the clock keeps a reserve of
    /// several overheads instead of drifting down to one move's latency. The budget before
    /// the per-move overhead spent 0.75 of the increment on every move: at 1 s + 0.01 s the
    /// clock fell to 25 ms.
    #[test]
    fn a_long_game_keeps_a_reserve_when_each_move_costs_the_overhead() {
        let overhead = Duration::from_millis(crate::params::MOVE_OVERHEAD_MS);
        for (base, inc) in [(1_000, 10), (3_000, 30), (10_000, 100), (1_000, 20)] {
            let inc = Duration::from_millis(inc);
            let latency = inc.min(overhead);
            let mut clock = Duration::from_millis(base);
            let mut lowest = clock;
            for _ in 0..300 {
                let limits = Limits {
                    wtime: Some(clock),
                    winc: Some(inc),
                    ..Limits::default()
                };
                let tm = TimeManager::new(&limits, Color::White, overhead);
                let spent = tm.soft.unwrap() + latency;
                assert!(spent <= clock, "{base}+{inc:?}: lost on time at {clock:?}");
                clock = clock - spent + inc;
                lowest = lowest.min(clock);
            }
            assert!(
                lowest >= overhead * 3,
                "{base}+{inc:?}: the clock fell to {lowest:?}"
            );
        }
    }

    #[test]
    fn only_our_clock_counts() {
        let limits = Limits {
            btime: ms(100),
            ..Limits::default()
        };
        // White to move without a white clock: no deadline from Black's clock.
        assert_eq!(
            TimeManager::new(&limits, Color::White, Duration::ZERO).hard,
            None
        );
        assert!(
            TimeManager::new(&limits, Color::Black, Duration::ZERO)
                .hard
                .unwrap()
                <= Duration::from_millis(80)
        );
    }

    #[test]
    fn movestogo_and_movetime() {
        let base = Limits {
            wtime: ms(60_000),
            ..Limits::default()
        };
        let last_move = Limits {
            movestogo: Some(1),
            ..base.clone()
        };
        let z = Duration::ZERO;
        assert!(
            TimeManager::new(&last_move, Color::White, z).soft
                > TimeManager::new(&base, Color::White, z).soft
        );
        let mt = TimeManager::new(
            &Limits::movetime(500),
            Color::White,
            Duration::from_millis(10),
        );
        assert_eq!((mt.soft, mt.hard), (None, ms(490)));
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
            let clock = PonderClock::new();
            clock.start(ponder);
            let mut first_hit = None;
            for call in calls {
                match *call {
                    "ponderhit" => clock.ponderhit(),
                    _ => clock.stop(),
                }
                first_hit.get_or_insert(clock.word.load(Relaxed));
            }
            let word = clock.word.load(Relaxed);
            assert_eq!(clock.pondering(), pondering, "{ponder} {calls:?}");
            assert_eq!(word == FROM_GO, from_go, "{ponder} {calls:?}");
            // A second ponderhit leaves the first one's time as it was.
            assert_eq!(first_hit.unwrap_or(word), word, "{ponder} {calls:?}");
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use std::sync::Arc;

    use loom::thread;

    use super::*;

    /// Runs `calls` (`true` for `ponderhit`, `false` for `stop`) on one thread each against a
    /// clock started with `ponder`; each caller reads the word once its call has returned,
    /// and a last thread, like the search's clock checks, reads it twice meanwhile (spawned
    /// last so that loom moves its loads in between the callers' writes). Then checks the
    /// word's history and end state.
    fn race(ponder: bool, calls: &'static [bool]) {
        loom::model(move || {
            let clock = Arc::new(PonderClock::new());
            clock.start(ponder);
            let callers: Vec<_> = calls
                .iter()
                .map(|&hit| {
                    let clock = Arc::clone(&clock);
                    thread::spawn(move || {
                        if hit {
                            clock.ponderhit();
                        } else {
                            clock.stop();
                        }
                        clock.word.load(Relaxed)
                    })
                })
                .collect();
            let reader = {
                let clock = Arc::clone(&clock);
                thread::spawn(move || [clock.word.load(Relaxed), clock.word.load(Relaxed)])
            };
            let mut seen: Vec<u64> = callers.into_iter().map(|h| h.join().unwrap()).collect();
            let [first, second] = reader.join().unwrap();
            let last = clock.word.load(Relaxed);
            if !ponder {
                // A clock that was not pondering is never moved, by any call.
                assert!(
                    [first, second, last]
                        .iter()
                        .chain(&seen)
                        .all(|&w| w == FROM_GO),
                    "a running clock moved: {first} {second} {seen:?} {last}"
                );
                return;
            }
            // Pondering has ended for each caller once its call returns ...
            assert!(!seen.contains(&PONDERING), "pondering survived a call");
            assert!(!clock.pondering());
            // ... exactly once: the word leaves `PONDERING` for one value and keeps it, so a
            // later ponderhit or stop never moves a running clock.
            seen.extend([first, second].iter().filter(|&&w| w != PONDERING));
            assert!(
                seen.iter().all(|&w| w == last),
                "a running clock moved: {seen:?}, then {last}"
            );
            // The value is the one of a call that ran: `FROM_GO` only from a stop, a
            // timestamp only from a ponderhit.
            if last == FROM_GO {
                assert!(calls.contains(&false));
            } else {
                assert!(calls.contains(&true));
            }
        });
    }

    /// A `ponderhit` and a `stop` race to end pondering: the word ends in `FROM_GO` or the
    /// ponderhit's time, and never changes once it left `PONDERING`. It would fail if `leave_ponder` stored without the compare-and-swap, or
    /// checked the word with a load before a separate store (both calls would then write).
    #[test]
    fn racing_ponderhit_and_stop_end_pondering_exactly_once() {
        race(true, &[true, false]);
    }

    /// Two ponderhits race: the first one's time stays, the second changes nothing.
    #[test]
    fn racing_ponderhits_end_pondering_exactly_once() {
        race(true, &[true, true]);
    }

    /// A ponderhit and a stop on a clock that is not pondering leave it counting from `go`.
    #[test]
    fn stray_ponderhits_never_move_a_running_clock() {
        race(false, &[true, false]);
    }
}
