//! The UCI binary driven over stdin/stdout: protocol, timing, bad input.

mod common;

use std::time::{Duration, Instant};

use common::{UciProcess, field};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn handshake_lists_every_option() {
    let mut e = UciProcess::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name lazuli")));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in [
        "option name Hash type spin default 16 min 1 max ",
        "option name Threads type spin default 1 min 1 max 1024",
        "option name MultiPV type spin default 1 min 1 max",
        "option name Clear Hash type button",
        "option name Ponder type check default false",
        "option name Move Overhead type spin default 20 min 0 max",
        "option name UCI_Chess960 type check default false",
        "option name NullMove type combo default verified var verified var paper var standard var off",
        "option name NullMoveR type spin default 3 min 1 max 4",
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
        "option name UCI_ShowWDL type check default false",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(option)),
            "missing: {option}"
        );
    }
    assert!(e.sync().is_empty());
    e.send("quit");
    assert_eq!(e.wait_exit(Duration::from_secs(5)), Some(true));
}

#[test]
fn isready_is_answered_during_infinite_search_and_bestmove_waits_for_stop() {
    isready_during_search(false);
}

/// The same with wall-clock bounds, for an idle machine: `readyok` within 500 ms during the
/// search, the best move within 50 ms of `stop`.
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_isready_and_stop_during_infinite_search() {
    isready_during_search(true);
}

fn isready_during_search(timing: bool) {
    let mut e = UciProcess::start();
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    let before_ready = e.sync();
    assert!(
        !timing || sent.elapsed() < Duration::from_millis(500),
        "readyok took {:?}",
        sent.elapsed()
    );
    assert!(
        before_ready.iter().all(|l| !l.starts_with("bestmove")),
        "{before_ready:?}"
    );
    // Nothing but info for a while more: no early bestmove under infinite.
    let quiet_until = Instant::now() + Duration::from_millis(300);
    while let Some(line) = e.next_line(quiet_until.saturating_duration_since(Instant::now())) {
        assert!(line.starts_with("info"), "{line}");
    }
    let stop = Instant::now();
    e.send("stop");
    let best = e.bestmove();
    assert!(
        !timing || stop.elapsed() < Duration::from_millis(50),
        "stop took {:?}",
        stop.elapsed()
    );
    e.send("position startpos moves e2e4");
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn ponder_then_ponderhit_and_ponder_then_stop() {
    ponder_cycle(false);
}

/// The same, and after `ponderhit` the 2 s clock is kept (the move within 1.6 s).
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_ponderhit_keeps_the_clock() {
    ponder_cycle(true);
}

fn ponder_cycle(timing: bool) {
    let mut e = UciProcess::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 2000 btime 2000");
    // While pondering, no bestmove however long it takes.
    e.assert_no_bestmove_for(Duration::from_millis(600));
    let hit = Instant::now();
    e.send("ponderhit");
    let lines = e.search_lines();
    // After ponderhit the clock (2 s, no increment) applies: well under the time left.
    assert!(
        !timing || hit.elapsed() < Duration::from_millis(1600),
        "{:?}",
        hit.elapsed()
    );
    assert!(lines.last().unwrap().contains(" ponder "), "{lines:?}");

    e.send("go ponder wtime 2000 btime 2000");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn quit_while_searching_exits_cleanly() {
    let mut e = UciProcess::start();
    e.send("setoption name Threads value 4");
    e.sync();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("quit");
    assert_eq!(e.wait_exit(common::PATIENCE), Some(true));
}

#[test]
fn end_of_input_while_searching_exits_cleanly() {
    let mut e = UciProcess::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.close_input();
    assert_eq!(e.wait_exit(common::PATIENCE), Some(true));
}

/// Tiny clocks (30 to 100 ms): a legal move comes.
#[test]
fn a_hundred_milliseconds_on_one_clock_is_enough() {
    tiny_clocks(false);
}

/// The same, and the move comes within the clock.
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_a_hundred_milliseconds_on_one_clock_is_kept() {
    tiny_clocks(true);
}

fn tiny_clocks(timing: bool) {
    for (position, clock) in [
        ("position startpos", "go wtime 100"),
        ("position startpos moves e2e4", "go btime 100"),
        (format!("position fen {KIWIPETE}").as_str(), "go wtime 100"),
        ("position startpos", "go wtime 30 winc 0"),
    ] {
        let mut e = UciProcess::start();
        e.send(position);
        e.sync();
        let sent = Instant::now();
        e.send(clock);
        let best = e.bestmove();
        let limit: u64 = clock.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(
            !timing || sent.elapsed() < Duration::from_millis(limit),
            "{clock}: {:?}",
            sent.elapsed()
        );
        assert!(e.legal_moves().contains(&best), "{best}");
    }
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = UciProcess::start();
    for (fen, score) in [
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "mate 0",
        ),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "cp 0"),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 5");
        let lines = e.search_lines();
        assert_eq!(lines.last().unwrap(), "bestmove (none)");
        assert!(
            lines.iter().any(|l| l.contains(&format!("score {score}"))),
            "{lines:?}"
        );
    }
}

/// Every malformed line gets an `info string error` and leaves the position alone.
#[test]
fn bad_input_is_reported_and_changes_nothing() {
    let corpus = [
        "xyzzy",
        "position",
        "position fen",
        "position fen 8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K2k w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position startpos moves e2e5",
        "position startpos moves e2e4 e2e4",
        "position startpos moves zz",
        "position startpos moves e7e5",
        "position startpos moves e2e4 e7e5 e1g1",
        "position sideways",
        "go wtime abc",
        "go depth",
        "go depth -1",
        "go nodes 1.5",
        "go foo",
        "go searchmoves",
        "go searchmoves e2e5",
        "go perft",
        "go perft x",
        "go perft 99",
        "setoption",
        "setoption name",
        "setoption value 3",
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name Hash value 99999999999999",
        "setoption name Threads value 0",
        "setoption name Threads value 2000",
        "setoption name MultiPV value -1",
        "setoption name No Such Option value 3",
        "setoption name UCI_Chess960 value maybe",
        "setoption name Ponder",
        "setoption name NullMove value sometimes",
        "setoption name NullMoveR value 9",
        "debug maybe",
        "bench x",
        "bench 16 1 0",
        "ucinewgame now please",
        "d 3",
        "isready now",
    ];
    let mut e = UciProcess::start();
    e.send("position startpos moves e2e4 c7c5 g1f3");
    let fen = e.fen();
    for line in corpus {
        e.send(line);
        let replies = e.sync();
        assert!(
            replies.iter().any(|r| r.starts_with("info string error: ")),
            "no error for '{line}': {replies:?}"
        );
        assert!(
            replies.iter().all(|r| !r.starts_with("bestmove")),
            "'{line}' searched: {replies:?}"
        );
        assert_eq!(e.fen(), fen, "'{line}' changed the position");
    }
    // Bytes that are not UTF-8.
    e.send_bytes(b"go \xff\xfe depth 3\n");
    assert!(
        e.sync()
            .iter()
            .any(|r| r.starts_with("info string error: "))
    );
    // Still a working engine with its options intact.
    e.send("go depth 4");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn ucinewgame_then_go_nodes_is_reproducible() {
    let run = |e: &mut UciProcess| -> Vec<String> {
        e.send("ucinewgame");
        e.send(&format!("position fen {KIWIPETE}"));
        e.send("go nodes 30000");
        e.search_lines()
            .into_iter()
            // Drop what measures time: `currmove` lines (sent once a search has run a second,
            // which a loaded machine reaches), and the fields below.
            .filter(|l| !l.contains(" currmove "))
            .map(|l| {
                let mut out = Vec::new();
                let mut skip = false;
                for t in l.split_whitespace() {
                    if skip {
                        skip = false;
                    } else if t == "nps" || t == "time" {
                        skip = true;
                    } else {
                        out.push(t);
                    }
                }
                out.join(" ")
            })
            .collect()
    };
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.send("go depth 8"); // leave something in the table and the histories
    e.bestmove();
    let first = run(&mut e);
    let second = run(&mut e);
    assert!(first.len() > 3, "{first:?}");
    assert_eq!(first, second);
    let nodes: u64 = field(&first[first.len() - 2], "nodes")
        .unwrap()
        .parse()
        .unwrap();
    assert!(nodes <= 30000, "{nodes}");
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.send("go depth 6 searchmoves a2a3 h2h3");
    let best = e.bestmove();
    assert!(best == "a2a3" || best == "h2h3", "{best}");
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut e = UciProcess::start();
    e.send("setoption name MultiPV value 3");
    e.send(&format!("position fen {KIWIPETE}"));
    e.send("go depth 6");
    let lines = e.search_lines();
    let last_depth: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 6 ") && !l.contains(" currmove "))
        .collect();
    let firsts: Vec<&str> = last_depth.iter().map(|l| field(l, "pv").unwrap()).collect();
    assert_eq!(last_depth.len(), 3, "{lines:?}");
    for (i, l) in last_depth.iter().enumerate() {
        assert_eq!(field(l, "multipv").unwrap(), (i + 1).to_string());
    }
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    // Scores come best first.
    let cp = |l: &str| -> i32 { field(l, "cp").map_or(0, |v| v.parse().unwrap()) };
    assert!(cp(last_depth[0]) >= cp(last_depth[1]) && cp(last_depth[1]) >= cp(last_depth[2]));
}

#[test]
fn info_lines_carry_every_field_as_integers() {
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.send("go depth 7");
    let lines = e.search_lines();
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth") && !l.contains(" currmove "))
        .collect();
    assert!(infos.len() >= 7);
    for l in infos {
        for key in [
            "depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "time",
        ] {
            let v = field(l, key).unwrap_or_else(|| panic!("no {key} in {l}"));
            assert!(v.parse::<u64>().is_ok(), "{key} {v} in {l}");
        }
        let score = field(l, "score").unwrap();
        assert!(score == "cp" || score == "mate", "{l}");
        assert!(field(l, score).unwrap().parse::<i32>().is_ok());
        assert!(field(l, "pv").is_some());
    }
}

/// `UCI_ShowWDL`: off by default (no `wdl` field); on, every info line carries three
/// permille chances after the score that add up to 1000, the winning side's growing with the
/// score, and a mate is certain.
#[test]
fn show_wdl_adds_win_draw_loss_to_info_lines() {
    let wdl_of = |line: &str| -> Option<[u32; 3]> {
        let mut it = line.split_whitespace().skip_while(|t| *t != "wdl").skip(1);
        let mut next = || it.next().map(|t| t.parse::<u32>().unwrap());
        Some([next()?, next()?, next()?])
    };
    let mut e = UciProcess::start();
    e.send("position startpos");
    e.send("go depth 4");
    assert!(e.search_lines().iter().all(|l| wdl_of(l).is_none()));
    e.send("setoption name UCI_ShowWDL value true");
    // (FEN, the side to move's expected chances: balanced, far ahead, far behind, mates.)
    for (fen, check) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            (|w: [u32; 3]| w[1] > w[0] && w[1] > w[2]) as fn([u32; 3]) -> bool,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1",
            |w| w[2] > 900,
        ),
        (
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            |w| w[0] > 900,
        ),
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", |w| w == [1000, 0, 0]),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 6");
        let lines = e.search_lines();
        let infos: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
        for l in &infos {
            let w = wdl_of(l).unwrap_or_else(|| panic!("no wdl in {l}"));
            assert_eq!(w.iter().sum::<u32>(), 1000, "{l}");
            // Right after the score (and its bound), before the node count.
            assert!(
                l.contains(&format!(" wdl {} {} {} nodes ", w[0], w[1], w[2])),
                "{l}"
            );
        }
        let last = wdl_of(infos.last().unwrap()).unwrap();
        assert!(check(last), "{fen}: {last:?}");
    }
}

#[test]
fn currmove_after_the_first_second() {
    let mut e = UciProcess::start();
    e.send(&format!("position fen {KIWIPETE}"));
    // An infinite search, so that a loaded machine (where one root move of an iteration can
    // take longer than a fixed movetime leaves after the first second) still shows one.
    e.send("go infinite");
    let lines = e.until_within(Duration::from_secs(60), |l| l.contains(" currmove "));
    e.send("stop");
    e.search_lines();
    let l = lines.last().unwrap();
    assert!(
        field(l, "currmovenumber").unwrap().parse::<u32>().unwrap() >= 1,
        "{l}"
    );
    assert!(field(l, "depth").is_some(), "{l}");
}

#[test]
fn perft_through_the_binary() {
    let mut e = UciProcess::start();
    for (fen, depth, nodes) in [
        ("startpos".to_owned(), 4, 197_281),
        (format!("fen {KIWIPETE}"), 3, 97_862),
        (
            "fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".to_owned(),
            3,
            12_189,
        ),
    ] {
        e.send(&format!("position {fen}"));
        e.send(&format!("go perft {depth}"));
        let lines = e.until_prefix("Nodes searched");
        assert_eq!(lines.last().unwrap(), &format!("Nodes searched: {nodes}"));
    }
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let mut e = UciProcess::start();
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {fen}"));
    let standard = e.legal_moves();
    assert!(standard.contains(&"e1g1".to_owned()) && standard.contains(&"e1c1".to_owned()));
    e.send("setoption name UCI_Chess960 value true");
    e.send(&format!("position fen {fen}"));
    let chess960 = e.legal_moves();
    assert!(chess960.contains(&"e1h1".to_owned()) && chess960.contains(&"e1a1".to_owned()));
    // Both forms are accepted on input, in either mode.
    for m in ["e1g1", "e1h1"] {
        e.send(&format!("position fen {fen} moves {m}"));
        assert_eq!(e.fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    }
    // A Chess960 start with Shredder-FEN castling rights.
    e.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    e.send("go depth 5");
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best));
}

#[test]
fn bench_prints_nodes_and_nps_last_and_is_repeatable() {
    let run = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lazuli"))
            .args(["bench", "16", "1", "6"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (a, b) = (run(), run());
    let nodes = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("Nodes searched"))
            .unwrap()
            .to_owned()
    };
    let lines: Vec<&str> = a.lines().collect();
    assert!(lines[lines.len() - 2].starts_with("Nodes searched  : "));
    assert!(lines[lines.len() - 1].starts_with("Nodes/second    : "));
    assert_eq!(nodes(&a), nodes(&b));

    // The same signature from the UCI command; with the options `setoption` gave (each row:
    // an option and its value, and whether the bench then searches the default tree), and
    // back to the signature when the option is reset.
    let mut e = UciProcess::start();
    let signature = |e: &mut UciProcess| {
        e.send("bench 16 1 6");
        let lines = e.until_prefix("Nodes/second");
        lines[lines.len() - 2].clone()
    };
    assert_eq!(signature(&mut e), nodes(&a));
    for (option, value, same_tree) in [
        ("UseNNUE", "false", false),
        ("UseNNUE", "true", true),
        ("NullMove", "standard", false),
        ("NullMove", "verified", true),
        ("Hash", "1", true),
        ("Threads", "2", true),
    ] {
        e.send(&format!("setoption name {option} value {value}"));
        assert_eq!(
            signature(&mut e) == nodes(&a),
            same_tree,
            "{option} = {value}"
        );
    }
    assert!(e.sync().iter().all(|l| !l.contains("error")));
}

#[test]
fn d_and_eval() {
    let mut e = UciProcess::start();
    e.send("position startpos moves e2e4");
    e.send("d");
    let lines = e.until_prefix("Checkers");
    assert!(lines.iter().any(|l| l.starts_with("Key: ")));
    assert!(lines.iter().any(|l| l.contains("| P |")));
    e.send("eval");
    let lines = e.until_prefix("Final evaluation");
    assert!(lines.iter().any(|l| l.contains("Mobility")));
}
