//! Extreme limits a GUI can send, over UCI: every reply is a legal move (or `bestmove (none)`
//! where there is none), sent in time, and the engine keeps working afterwards.
//!
//! The cases are a table of (name, setup lines, `go` line, what must hold). The default run
//! asserts what the engine's own logic decides, whatever the machine's load: a legal move
//! arrives, and a clock with nothing left ends the search after its first iteration, which
//! the `info` lines show. The wall-clock bounds (the best move within N ms of `go`) are the
//! `#[ignore]`d `timing_` tests, for an idle machine:
//! `cargo test --release --test extreme -- --ignored timing_`.
//!
//! The tests of this file run one at a time (`SERIAL`): one of them starts 1024 search threads
//! on a two-core machine, which would starve the clocks of any test running beside it.

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{UciProcess, field};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// 218 legal moves, the most known in a legal position (Petrovic, 1964).
const MOVES_218: &str = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1";
/// Three legal moves (the king's).
const THREE_MOVES: &str = "8/8/8/8/8/5k2/8/6K1 w - - 0 1";

/// What a case requires of its search, besides a legal best move.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// The search ends after its first iteration: no `info` line reports depth 2 or more.
    FirstIterationOnly,
    /// The best move comes within this many milliseconds of `go` (checked by the `timing_`
    /// tests only).
    Within(u64),
    /// A mate score within this many moves is reported.
    MateWithin(i64),
}

struct Case {
    name: &'static str,
    setup: &'static [&'static str],
    go: &'static str,
    expect: &'static [Expect],
}

const CASES: &[Case] = &[
    Case {
        name: "wtime 1, no increment",
        setup: &["position startpos"],
        go: "go wtime 1 btime 1",
        expect: &[Expect::FirstIterationOnly, Expect::Within(1000)],
    },
    Case {
        name: "wtime 0",
        setup: &["position startpos moves e2e4"],
        go: "go wtime 0 btime 0 winc 0 binc 0",
        expect: &[Expect::FirstIterationOnly, Expect::Within(1000)],
    },
    Case {
        name: "negative wtime (a GUI after a lag)",
        setup: &["position startpos"],
        go: "go wtime -250 btime -250",
        expect: &[Expect::FirstIterationOnly, Expect::Within(1000)],
    },
    Case {
        name: "negative wtime with an increment",
        setup: &["position startpos"],
        go: "go wtime -5000 btime 1000 winc 100 binc 100",
        expect: &[Expect::Within(1000)],
    },
    Case {
        name: "movestogo 1: all the time left for one move, never all of it",
        setup: &["position startpos"],
        go: "go wtime 2000 btime 2000 movestogo 1",
        expect: &[Expect::Within(2000)],
    },
    Case {
        name: "movetime 0",
        setup: &["position startpos"],
        go: "go movetime 0",
        expect: &[Expect::Within(1000)],
    },
    Case {
        name: "depth 0",
        setup: &["position startpos"],
        go: "go depth 0",
        expect: &[Expect::FirstIterationOnly],
    },
    Case {
        name: "nodes 1",
        setup: &["position startpos"],
        go: "go nodes 1",
        expect: &[Expect::FirstIterationOnly],
    },
    Case {
        name: "nodes 0",
        setup: &["position startpos"],
        go: "go nodes 0",
        expect: &[Expect::FirstIterationOnly],
    },
    Case {
        name: "mate 30 where there is a mate: ends by itself",
        setup: &["position fen 6k1/8/6K1/8/8/8/8/R7 w - - 0 1"],
        go: "go mate 30",
        expect: &[Expect::MateWithin(30)],
    },
    Case {
        name: "218 legal moves",
        setup: &[concat!(
            "position fen ",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"
        )],
        go: "go depth 4",
        expect: &[],
    },
    Case {
        name: "218 legal moves on a clock",
        setup: &[concat!(
            "position fen ",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"
        )],
        go: "go wtime 100 btime 100",
        expect: &[Expect::Within(100)],
    },
];

/// Runs `case`; `timing`: also checks its wall-clock bounds.
fn check(e: &mut UciProcess, case: &Case, timing: bool) {
    for line in case.setup {
        e.send(line);
    }
    e.sync();
    let legal = e.legal_moves();
    let sent = Instant::now();
    e.send(case.go);
    let lines = e.search_lines();
    let elapsed = sent.elapsed();
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    assert!(
        legal.iter().any(|m| m == best),
        "{}: bestmove {best} is not legal: {lines:?}",
        case.name
    );
    assert!(
        lines.iter().all(|l| !l.starts_with("info string error")),
        "{}: {lines:?}",
        case.name
    );
    for expect in case.expect {
        match *expect {
            Expect::FirstIterationOnly => {
                let deepest = lines
                    .iter()
                    .filter(|l| l.contains(" score "))
                    .filter_map(|l| field(l, "depth")?.parse::<u32>().ok())
                    .max();
                assert_eq!(deepest, Some(1), "{}: {lines:?}", case.name);
            }
            Expect::Within(ms) => assert!(
                !timing || elapsed < Duration::from_millis(ms),
                "{}: {elapsed:?} for {}",
                case.name,
                case.go
            ),
            Expect::MateWithin(n) => {
                let mate = lines
                    .iter()
                    .rev()
                    .find(|l| l.contains(" score "))
                    .and_then(|l| field(l, "mate"))
                    .and_then(|m| m.parse::<i64>().ok());
                assert!(
                    mate.is_some_and(|m| (1..=n).contains(&m)),
                    "{}: {lines:?}",
                    case.name
                );
            }
        }
    }
}

#[test]
fn every_extreme_go_gets_a_legal_move() {
    every_extreme_go(false);
}

#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_every_extreme_go_gets_a_legal_move_in_time() {
    every_extreme_go(true);
}

fn every_extreme_go(timing: bool) {
    let _serial = serial();
    let mut e = UciProcess::start();
    for case in CASES {
        check(&mut e, case, timing);
    }
    // The engine still searches normally afterwards.
    e.send("position startpos moves e2e4 e7e5");
    e.send("go depth 6");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn go_mate_without_a_mate_searches_until_stop() {
    let _serial = serial();
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.send("go mate 30");
    e.assert_no_bestmove_for(Duration::from_millis(300));
    e.send("stop");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn multipv_beyond_the_legal_moves_shows_each_move_once() {
    let _serial = serial();
    let mut e = UciProcess::start();
    for (fen, moves) in [(THREE_MOVES, 3), (MOVES_218, 218)] {
        e.send("setoption name MultiPV value 256");
        e.send(&format!("position fen {fen}"));
        assert_eq!(e.legal_moves().len(), moves);
        e.send("go depth 2");
        let lines = e.search_lines();
        let at_depth_2: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains(" multipv ") && field(l, "depth") == Some("2"))
            .collect();
        let mut shown: Vec<u32> = at_depth_2
            .iter()
            .map(|l| field(l, "multipv").unwrap().parse().unwrap())
            .collect();
        shown.sort_unstable();
        assert_eq!(shown, (1..=moves as u32).collect::<Vec<_>>(), "{fen}");
        let mut firsts: Vec<&str> = at_depth_2.iter().map(|l| field(l, "pv").unwrap()).collect();
        firsts.sort_unstable();
        firsts.dedup();
        assert_eq!(firsts.len(), moves, "{fen}: each root move once");
    }
}

/// 1024 threads on however few cores: the option takes effect, a timed search keeps its time,
/// `stop` is answered, and going back to one thread is quick, each within `start_bound`
/// (setting the option) or `bound` (the rest) when these are given.
fn a_thousand_threads(bounds: Option<(Duration, Duration)>) {
    let (start_bound, bound) = bounds.unwrap_or((Duration::MAX, Duration::MAX));
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.sync();
    let sent = Instant::now();
    e.send("setoption name Threads value 1024");
    e.sync();
    assert!(sent.elapsed() < start_bound, "start: {:?}", sent.elapsed());
    for _ in 0..2 {
        let sent = Instant::now();
        e.send("go movetime 200");
        let best = e.bestmove();
        assert!(sent.elapsed() < bound, "movetime 200: {:?}", sent.elapsed());
        assert!(e.legal_moves().contains(&best));
    }
    for go in ["go infinite", "go depth 30", "go wtime 60000 btime 60000"] {
        e.send(go);
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        e.send("stop");
        let best = e.bestmove();
        assert!(sent.elapsed() < bound, "{go}, stop: {:?}", sent.elapsed());
        assert!(e.legal_moves().contains(&best));
    }
    let sent = Instant::now();
    e.send("setoption name Threads value 1");
    e.sync();
    assert!(sent.elapsed() < bound, "back to 1: {:?}", sent.elapsed());
}

/// In the default run: every search ends with a legal move, however long the machine takes.
#[test]
fn a_thousand_threads_start_and_stop() {
    let _serial = serial();
    a_thousand_threads(None);
}

/// Within a second each, for an idle machine (measured there: 0.2-0.55 s to set the option,
/// 0.2-0.3 s for the rest; the old pool took 2.5-2.7 s for a 200 ms search and up to 4.4 s to
/// stop): `cargo test --release --test extreme -- --ignored timing_`.
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_a_thousand_threads_start_and_stop_within_a_second() {
    let _serial = serial();
    a_thousand_threads(Some((Duration::from_secs(1), Duration::from_secs(1))));
}

/// `Hash` at the machine's limit (its total memory, more than is ever available) and one
/// above: each refused with an error, the old table kept and searching.
#[test]
fn hash_at_and_beyond_the_machine_is_refused_and_the_table_kept() {
    let _serial = serial();
    let mut e = UciProcess::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    let max: u64 = lines
        .iter()
        .find(|l| l.starts_with("option name Hash "))
        .and_then(|l| field(l, "max"))
        .and_then(|m| m.parse().ok())
        .expect("Hash has a maximum");
    for value in [max, max + 1, u64::MAX] {
        e.send(&format!("setoption name Hash value {value}"));
        let replies = e.sync();
        assert!(
            replies.iter().any(|r| r.starts_with("info string error")),
            "Hash {value}: {replies:?}"
        );
        e.send("position startpos");
        e.send("go depth 5");
        let best = e.bestmove();
        assert!(e.legal_moves().contains(&best), "after Hash {value}");
    }
}

/// A game of thousands of plies (the knights shuffling, 5000 plies without a capture or a pawn
/// move): set up, and searched on a clock. (The draw is the GUI's to claim; the engine plays
/// on, and a pawn move resets the count.) With `timing`, the move comes within the clock.
fn thousands_of_plies_of_history(timing: bool) {
    let _serial = serial();
    let mut e = UciProcess::start();
    let shuffle = "g1f3 g8f6 f3g1 f6g8 ";
    let moves = shuffle.repeat(1250); // 5000 plies
    e.send(&format!("position startpos moves {moves}"));
    let replies = e.sync();
    assert!(replies.is_empty(), "{replies:?}");
    let fen = e.fen();
    assert!(
        fen.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5000 2501"),
        "{fen}"
    );
    let sent = Instant::now();
    e.send("go wtime 200 btime 200");
    let lines = e.search_lines();
    assert!(
        !timing || sent.elapsed() < Duration::from_millis(200),
        "{:?}",
        sent.elapsed()
    );
    let best = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_owned();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn thousands_of_plies_of_history_searched() {
    thousands_of_plies_of_history(false);
}

#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_thousands_of_plies_of_history_searched_within_the_clock() {
    thousands_of_plies_of_history(true);
}

/// Every option set while `go ponder` runs: none crashes or ends the search; the search still
/// ends on `ponderhit` or `stop` with a legal move, and the options hold afterwards.
#[test]
fn every_setoption_during_ponder() {
    let _serial = serial();
    let mut e = UciProcess::start();
    e.send("uci");
    let options: Vec<String> = e
        .until(|l| l == "uciok")
        .into_iter()
        .filter(|l| l.starts_with("option name "))
        .collect();
    assert!(options.len() >= 20, "{options:?}");
    e.send("setoption name Ponder value true");
    for (i, option) in options.iter().enumerate() {
        let name = option
            .trim_start_matches("option name ")
            .split(" type ")
            .next()
            .unwrap();
        let kind = field(option, "type").unwrap();
        // Each option to a value other than its default where the type has one (the last of
        // a combo, the other check, the spin's minimum), so that something really changes.
        let value = match kind {
            "button" => None,
            "check" => Some(if field(option, "default") == Some("true") {
                "false".to_owned()
            } else {
                "true".to_owned()
            }),
            "spin" => Some(field(option, "min").unwrap().to_owned()),
            "combo" => Some(option.rsplit(" var ").next().unwrap().to_owned()),
            "string" => Some("<empty>".to_owned()),
            other => panic!("unknown option type {other}"),
        };
        e.send("position startpos moves e2e4");
        e.sync();
        e.send("go ponder wtime 1000 btime 1000");
        std::thread::sleep(Duration::from_millis(20));
        match &value {
            Some(v) => e.send(&format!("setoption name {name} value {v}")),
            None => e.send(&format!("setoption name {name}")),
        }
        e.assert_no_bestmove_for(Duration::from_millis(30));
        // Half the searches end by ponderhit (then the clock counts), half by stop.
        e.send(if i % 2 == 0 { "ponderhit" } else { "stop" });
        let best = e.bestmove();
        assert!(e.legal_moves().contains(&best), "{name}: {best}");
        let replies = e.sync();
        assert!(
            replies.iter().all(|r| !r.starts_with("info string error")),
            "{name} = {value:?}: {replies:?}"
        );
        // Back to the default for the next option (Threads and Hash at their minimum stay
        // cheap; limited strength off so that the searches keep their speed).
        e.send("setoption name UCI_LimitStrength value false");
        e.send("setoption name Skill Level value 20");
        e.send("setoption name Threads value 1");
    }
    e.send("go depth 5");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}
