//! Lazy SMP: many threads, stops, option changes during searches.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::UciProcess;
use lazuli::{Engine, Limits, Rng, Silent};

const POSITIONS: &[&str] = &[
    "startpos",
    "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "fen 4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "fen 8/8/1p1r1k2/p1pPN1p1/P3KnP1/1P6/8/3R4 b - - 0 1",
];

/// 200 searches with 4 threads on a small machine: half stopped by `stop` at a random moment,
/// half on a 200 ms clock. Every search ends with a legal best move.
#[test]
fn two_hundred_go_stop_cycles_with_four_threads() {
    go_stop_cycles(false);
}

/// The same with wall-clock bounds, for an idle machine: the best move follows `stop` within
/// 50 ms and comes within the 200 ms clock. (Under a full `cargo test` on 2 cores, 4 search
/// threads beside the other tests, the scheduler set a stop tail above 50 ms once: why these
/// bounds are not in the default run.)
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_two_hundred_go_stop_cycles_with_four_threads() {
    go_stop_cycles(true);
}

fn go_stop_cycles(timing: bool) {
    let mut e = UciProcess::start();
    e.send("setoption name Threads value 4");
    let mut legal: HashMap<&str, Vec<String>> = HashMap::new();
    for p in POSITIONS {
        e.send(&format!("position {p}"));
        legal.insert(p, e.legal_moves());
    }
    let mut rng = Rng::new(0x5eed);
    let mut worst_stop = Duration::ZERO;
    for cycle in 0..200 {
        let p = POSITIONS[cycle % POSITIONS.len()];
        e.send(&format!("position {p}"));
        let best = if cycle % 2 == 0 {
            e.send("go infinite");
            std::thread::sleep(Duration::from_millis(rng.below(25) as u64));
            let stop = Instant::now();
            e.send("stop");
            let best = e.bestmove();
            worst_stop = worst_stop.max(stop.elapsed());
            best
        } else {
            let go = Instant::now();
            e.send("go wtime 200 btime 200");
            let best = e.bestmove();
            assert!(
                !timing || go.elapsed() < Duration::from_millis(200),
                "cycle {cycle}: {:?}",
                go.elapsed()
            );
            best
        };
        assert!(legal[p].contains(&best), "cycle {cycle}: {best} in {p}");
    }
    assert!(
        !timing || worst_stop < Duration::from_millis(50),
        "slowest stop {worst_stop:?}"
    );
}

#[test]
fn threads_and_hash_set_during_a_search_apply_after_it() {
    let mut e = Engine::new().unwrap();
    e.go(
        Limits {
            infinite: true,
            ..Limits::default()
        },
        Silent,
    )
    .unwrap();
    e.set_option("Threads", "3").unwrap();
    e.set_option("Hash", "64").unwrap();
    e.set_option("Threads", "0").unwrap_err(); // still validated at once
    assert_eq!(
        (e.options().threads, e.options().hash_mb),
        (1, 16),
        "applied during the search"
    );
    std::thread::sleep(Duration::from_millis(50));
    e.stop();
    assert!(e.wait().unwrap().unwrap().best.is_some());
    assert_eq!((e.options().threads, e.options().hash_mb), (3, 64));
    // And the engine searches with them.
    e.go(Limits::depth(6), Silent).unwrap();
    assert!(e.wait().unwrap().unwrap().best.is_some());
}

#[test]
fn options_during_a_uci_search_keep_the_engine_working() {
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 32");
    e.send("ucinewgame");
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    e.send("stop");
    e.bestmove();
    e.send("position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
    e.send("go depth 10");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn node_limit_counts_every_thread() {
    let mut e = Engine::new().unwrap();
    e.set_option("Threads", "4").unwrap();
    e.go(Limits::nodes(200_000), Silent).unwrap();
    let r = e.wait().unwrap().unwrap();
    // All threads count toward the limit; each reads the others' counts every 512 of its own
    // nodes, so the total may overshoot by about that much per thread.
    assert!(
        r.nodes >= 200_000 && r.nodes < 200_000 + 4 * 2048,
        "{}",
        r.nodes
    );
}

#[test]
fn many_threads_oversubscribed_still_play_legal_moves() {
    let mut e = UciProcess::start();
    e.send("setoption name Threads value 16");
    for p in POSITIONS {
        e.send(&format!("position {p}"));
        let legal = e.legal_moves();
        e.send("go movetime 150");
        let best = e.bestmove();
        assert!(legal.contains(&best), "{best} in {p}");
    }
}

/// Checkmate and stalemate at the root with helpers: `bestmove (none)` and the score, no
/// error. (Found by the C API property test: helpers searched the empty root and panicked,
/// and the search ended with an internal error.)
#[test]
fn no_legal_move_with_helpers_is_not_an_error() {
    let mut e = UciProcess::start();
    e.send("setoption name Threads value 3");
    for (fen, score) in [
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "score cp 0"),
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "score mate 0",
        ),
    ] {
        e.send(&format!("position fen {fen}"));
        for go in ["go depth 3", "go movetime 50", "go infinite"] {
            e.send(go);
            if go == "go infinite" {
                e.send("stop");
            }
            let lines = e.search_lines();
            assert_eq!(lines.last().unwrap(), "bestmove (none)", "{fen} {go}");
            assert!(lines.iter().any(|l| l.contains(score)), "{lines:?}");
            assert!(
                lines.iter().all(|l| !l.contains("error")),
                "{fen} {go}: {lines:?}"
            );
        }
    }
}
