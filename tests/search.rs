//! Search behaviour through the library facade: mates, zugzwang (the point of verified null
//! move), limits and determinism.

use std::time::{Duration, Instant};

use lazuli::{Engine, Limits, Score, ScoreKind, SearchResult};

mod common;

use common::recorder::Recorder;

fn engine(options: &[(&str, &str)]) -> Engine {
    let mut e = Engine::new().unwrap();
    for (name, value) in options {
        e.set_option(name, value).unwrap();
    }
    e
}

fn search(e: &mut Engine, fen: &str, limits: Limits) -> (SearchResult, String) {
    e.set_position(Some(fen), &[]).unwrap();
    e.go(limits, Recorder::default()).unwrap();
    let result = e.wait().unwrap().unwrap();
    let best = result
        .best
        .map_or_else(|| "(none)".to_owned(), |m| e.uci_move(m));
    (result, best)
}

/// (fen, dm, best moves in UCI form, id) of `tests/data/mates_2to5_dev.epd`, whose lines read
/// `<fen> bm <SAN>...; dm <n>; id "<id>"; pv ...;`.
fn mates(wanted: &[u32]) -> Vec<(String, u32, Vec<String>, String)> {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/mates_2to5_dev.epd",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut fields = line.split(';').map(str::trim);
        let (fen, bm) = fields.next().unwrap().split_once(" bm ").unwrap();
        let rest: Vec<&str> = fields.collect();
        let op = |name: &str| {
            rest.iter()
                .find_map(|f| f.strip_prefix(name))
                .unwrap()
                .trim_matches('"')
        };
        let dm: u32 = op("dm ").parse().unwrap();
        if !wanted.contains(&dm) {
            continue;
        }
        let pos: shakmaty::Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let moves = bm
            .split_whitespace()
            .map(|san| {
                let m = san
                    .parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(&pos)
                    .unwrap();
                m.to_uci(shakmaty::CastlingMode::Standard).to_string()
            })
            .collect();
        out.push((fen.to_owned(), dm, moves, op("id ").to_owned()));
    }
    out
}

/// The one mate-in-3 of the set whose key (Qa7, a quiet queen move far from the action) needs
/// hundreds of millions of nodes; Stockfish 15.1 also reports longer mates up to depth 53.
const HARD_MATES: &[&str] = &["matetrack.0033"];

/// Searches with `go mate N` and checks the exact mate distance and a best move of the record.
fn assert_mate_found(e: &mut Engine, (fen, dm, bm, id): &(String, u32, Vec<String>, String)) {
    e.new_game();
    let limits = Limits {
        mate: Some(*dm),
        ..Limits::default()
    };
    let (result, best) = search(e, fen, limits);
    assert_eq!(
        result.score.kind(),
        ScoreKind::Mate(*dm as i32),
        "{id} {fen}"
    );
    assert!(bm.contains(&best), "{id} {fen}: {best} not in {bm:?}");
}

#[test]
fn mates_in_two_and_three_are_found_with_the_exact_distance() {
    let cases = mates(&[2, 3]);
    assert_eq!(cases.len(), 20);
    let mut e = engine(&[]);
    for case in cases.iter().filter(|c| !HARD_MATES.contains(&c.3.as_str())) {
        assert_mate_found(&mut e, case);
    }
}

/// Mates shown within a node budget: (id, budget). One thread, 16 MB, a new game each, as
/// `lab/tools/mates.py` searches them. Each budget is about twice the nodes the current search
/// needs (docs/mates.md has the counts and how they moved), and the mates in 2 stay within
/// 100,000 nodes, where Stockfish 15.1 shows them: a search change that shows a mate later
/// fails here.
const MATES_WITHIN_NODES: &[(&str, u64)] = &[
    ("matetrack.0021", 400),
    ("matetrack.0015", 500),
    ("matetrack.0025", 800),
    ("matetrack.0011", 1_500),
    ("matetrack.0009", 2_100),
    ("matetrack.0093", 3_300),
    ("matetrack.0103", 16_400),
    ("matetrack.0213", 5_500),
    ("matetrack.0019", 5_700),
    ("matetrack.0005", 7_300),
    ("matetrack.0185", 20_000),
    ("matetrack.0195", 10_000),
    ("matetrack.0013", 21_000),
    ("matetrack.0007", 91_000),
    ("matetrack.0017", 100_000),
];

#[test]
fn mates_are_shown_within_small_node_budgets() {
    let cases = mates(&[2, 3, 4, 5]);
    let mut e = engine(&[("Threads", "1"), ("Hash", "16")]);
    for &(id, budget) in MATES_WITHIN_NODES {
        let (fen, dm, bm, _) = cases
            .iter()
            .find(|c| c.3 == id)
            .unwrap_or_else(|| panic!("{id} not in the suite"));
        e.new_game();
        let (result, best) = search(&mut e, fen, Limits::nodes(budget));
        assert_eq!(
            result.score.kind(),
            ScoreKind::Mate(*dm as i32),
            "{id} {fen}: no mate in {dm} within {budget} nodes"
        );
        assert!(bm.contains(&best), "{id} {fen}: {best} not in {bm:?}");
    }
}

#[test]
#[ignore = "minutes: a deep quiet key move"]
fn hard_mate_in_three() {
    let mut e = engine(&[]);
    let cases = mates(&[3]);
    let hard: Vec<_> = cases
        .iter()
        .filter(|c| HARD_MATES.contains(&c.3.as_str()))
        .collect();
    assert_eq!(hard.len(), HARD_MATES.len());
    for case in hard {
        assert_mate_found(&mut e, case);
    }
}

/// Zugzwangs of `tests/data/zugzwang_cpw.epd` and `zugzwang_zpts.epd` where standard null-move
/// pruning (fixed R = 3) picks a wrong move at a fixed depth and the default (`verified`, fixed
/// R = 3) picks the EPD's best move: (id, fen, depth, standard's move, the paper's rule's move,
/// the default's move).
///
/// The depths follow the search and the evaluation, so the table is probed again with
/// `lab/tools/zugzwang_depths.py` (docs/testing.md) when either changes. ZPTS.12 (Ba4): probed
/// at depths 6-14 with `Bench: 1664306` and at 8, 10 and 12 with `Bench: 1723647`: both
/// verified modes at every depth, standard at none (Bd7). ZPTS.22 (Qd3) holds the default's
/// Stockfish-form verification (nodes 12 or more plies from the horizon): probed at 8-20 with
/// `Bench: 1723647`, the default finds Qd3 from depth 19, standard and the paper's rule play
/// Qd7 up to 20, and with that verification switched off (a tune build) the default plays Qd7
/// up to 21 too. zugzwang.001 (Rf1) is left out: the paper's rule finds it from depth 11,
/// standard from 12, the default only from 15 (at 1 s a position all three find it). ZPTS.28
/// (Rc4) separates them only at some depths, too unsteady for a test.
/// lab/records/history/strength.md keeps the earlier depths.
const ZUGZWANG: &[(&str, &str, u32, &str, &str, &str)] = &[
    (
        "ZPTS.12",
        "4B3/8/p7/k2N4/7p/K6p/PP5P/2q5 w - - 0 1",
        8,
        "e8d7",
        "e8a4",
        "e8a4",
    ),
    (
        "ZPTS.22",
        "8/p7/1p6/p7/kq1Q4/8/K7/8 w - - 0 1",
        19,
        "d4d7",
        "d4d7",
        "d4d3",
    ),
];

#[test]
fn verified_null_move_solves_zugzwangs_that_standard_null_move_misses() {
    for &(id, fen, depth, standard, paper, verified) in ZUGZWANG {
        for (mode, expected) in [
            ("standard", standard),
            ("paper", paper),
            ("verified", verified),
        ] {
            let mut e = engine(&[
                ("NullMove", mode),
                ("NullMoveR", "3"),
                ("NullMoveAdaptive", "false"),
            ]);
            let (_, best) = search(&mut e, fen, Limits::depth(depth));
            assert_eq!(best, expected, "{id} depth {depth} NullMove={mode}");
        }
    }
}

#[test]
fn fixed_depth_search_is_deterministic_with_one_thread() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let run = || {
        let mut e = engine(&[]);
        let (r, best) = search(&mut e, fen, Limits::depth(9));
        (r.nodes, best, r.score)
    };
    assert_eq!(run(), run());
}

#[test]
fn node_limit_is_exact_with_one_thread() {
    let mut e = engine(&[]);
    let (r, _) = search(
        &mut e,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        Limits::nodes(12_345),
    );
    assert_eq!(r.nodes, 12_345);
}

/// `Limits::soft_nodes`: the search ends with the first iteration completed past the soft
/// budget (so it is a search to that depth, node for node), and the hard cap still holds.
#[test]
fn soft_node_limit_ends_on_a_completed_iteration() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let soft_budget = 20_000;
    let mut e = engine(&[]);
    let mut run = |limits| {
        e.new_game();
        search(&mut e, fen, limits).0
    };
    let soft = run(Limits {
        soft_nodes: Some(soft_budget),
        ..Limits::default()
    });
    assert!(soft.nodes >= soft_budget, "{} nodes", soft.nodes);
    let to_depth = run(Limits::depth(soft.depth));
    assert_eq!((to_depth.nodes, to_depth.best), (soft.nodes, soft.best));
    assert!(run(Limits::depth(soft.depth - 1)).nodes < soft_budget);
    let capped = run(Limits {
        soft_nodes: Some(soft_budget),
        ..Limits::nodes(soft.nodes - 1)
    });
    assert_eq!(capped.nodes, soft.nodes - 1);
}

/// A 300 ms search uses its time (at least 250 ms: it never ends early, which a busy machine
/// cannot hide) and gives a move.
#[test]
fn movetime_is_used() {
    movetime_search(false);
}

/// The same, and the result arrives within 400 ms of `go`.
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_movetime_is_kept() {
    movetime_search(true);
}

fn movetime_search(timing: bool) {
    let mut e = engine(&[]);
    let start = Instant::now();
    let (r, _) = search(
        &mut e,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        Limits::movetime(300),
    );
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(250), "{took:?}");
    assert!(!timing || took < Duration::from_millis(400), "{took:?}");
    assert!(r.best.is_some());
    assert!(!timing || r.depth >= 3, "depth {}", r.depth);
}

#[test]
fn draws_by_rule_score_zero() {
    let mut e = engine(&[]);
    // Fifty-move rule about to apply, and a bare-kings-and-knight position.
    for fen in [
        "8/8/4k3/8/8/3NK3/8/8 w - - 0 1",
        "7k/8/8/8/8/8/1R6/K7 b - - 99 120",
    ] {
        let (r, _) = search(&mut e, fen, Limits::depth(8));
        assert_eq!(r.score, Score::DRAW, "{fen}");
    }
}

#[test]
fn info_reports_progress_to_the_handler() {
    let mut e = engine(&[]);
    e.set_position(None, &[]).unwrap();
    let rec = Recorder::default();
    e.go(Limits::depth(6), rec.clone()).unwrap();
    e.wait().unwrap().unwrap();
    let infos = rec.0.lock().unwrap();
    let depths: Vec<u32> = infos.iter().map(|i| i.depth).collect();
    assert_eq!(depths, vec![1, 2, 3, 4, 5, 6]);
    assert!(infos.windows(2).all(|w| w[0].nodes <= w[1].nodes));
    assert!(
        infos
            .iter()
            .all(|i| !i.pv.is_empty() && i.seldepth >= i.depth)
    );
}
