//! MultiPV through the library facade: at MultiPV k the last iteration reports k distinct legal
//! root moves, numbered 1..k, best score first, all at the final depth, and the move played is
//! line 1's first move (the main thread's line, never a vote). One thread and depth or node
//! limits, so every run is the same.

use lazuli::{Engine, Limits, ScoreBound, ScoreKind, SearchInfo, SearchResult};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, Position as _};

mod common;

use common::recorder::Recorder;

/// The first `n` positions of the Bratko-Kopec suite (tests/data/bk.epd).
fn positions(n: usize) -> Vec<String> {
    include_str!("data/bk.epd")
        .lines()
        .take(n)
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" ") + " 0 1")
        .collect()
}

fn search(
    fen: &str,
    multipv: usize,
    threads: usize,
    limits: Limits,
) -> (SearchResult, Vec<SearchInfo>) {
    let mut e = Engine::new().unwrap();
    e.set_option("Threads", &threads.to_string()).unwrap();
    e.set_option("MultiPV", &multipv.to_string()).unwrap();
    e.set_position(Some(fen), &[]).unwrap();
    let recorder = Recorder::default();
    e.go(limits, recorder.clone()).unwrap();
    let result = e.wait().unwrap().unwrap();
    let infos = recorder.0.lock().unwrap().clone();
    (result, infos)
}

/// The report of the last iteration: its `k` lines, checked as the module says.
fn check_last_iteration(fen: &str, k: usize, result: &SearchResult, infos: &[SearchInfo]) {
    let chess: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let legal = chess.legal_moves();
    let k = k.min(legal.len());
    assert!(infos.len() >= k, "{fen}: {infos:?}");
    let last = &infos[infos.len() - k..];
    let depth = last[0].depth;
    for (i, info) in last.iter().enumerate() {
        assert_eq!(info.multipv as usize, i + 1, "{fen}: {last:?}");
        assert_eq!(
            info.depth,
            depth,
            "{fen}: line {} not at the final depth",
            i + 1
        );
        assert_eq!(info.bound, ScoreBound::Exact, "{fen}: line {}", i + 1);
        assert!(legal.contains(&info.pv[0]), "{fen}: {} illegal", info.pv[0]);
        for (j, earlier) in last[..i].iter().enumerate() {
            assert_ne!(
                earlier.pv[0],
                info.pv[0],
                "{fen}: lines {} and {} repeat",
                j + 1,
                i + 1
            );
        }
        if i > 0 {
            assert!(
                last[i - 1].score >= info.score,
                "{fen}: line {} above line {i}",
                i + 1
            );
        }
    }
    assert_eq!(
        result.best,
        Some(last[0].pv[0]),
        "{fen}: bestmove is not line 1's move"
    );
    assert_eq!(result.depth, depth, "{fen}");
}

#[test]
fn multipv_lines_are_distinct_legal_and_ordered_at_the_final_depth() {
    for fen in positions(6) {
        for k in [2, 3, 5] {
            let (result, infos) = search(&fen, k, 1, Limits::depth(7));
            check_last_iteration(&fen, k, &result, &infos);
            assert_eq!(infos.last().unwrap().depth, 7, "{fen} MultiPV {k}");
        }
    }
}

/// More lines than legal moves: one line per legal move (the white king here has two, a2 and b1).
#[test]
fn multipv_beyond_the_legal_moves_reports_each_move_once_in_order() {
    let fen = "8/8/8/8/8/2k5/8/K7 w - - 0 1";
    let (result, infos) = search(fen, 5, 1, Limits::depth(5));
    check_last_iteration(fen, 5, &result, &infos);
}

/// With a node limit and one thread the search, and so what MultiPV reports, is the same every
/// time; with two threads the move played is still line 1's (no vote at MultiPV > 1).
#[test]
fn multipv_is_deterministic_under_a_node_limit_and_plays_line_one_with_threads() {
    for fen in positions(3) {
        let (a, infos_a) = search(&fen, 3, 1, Limits::nodes(60_000));
        let (b, infos_b) = search(&fen, 3, 1, Limits::nodes(60_000));
        assert_eq!(a.best, b.best, "{fen}");
        assert_eq!(a.nodes, b.nodes, "{fen}");
        let shown = |infos: &[SearchInfo]| -> Vec<(u32, u32, Vec<Move>)> {
            infos
                .iter()
                .map(|i| (i.depth, i.multipv, i.pv.clone()))
                .collect()
        };
        assert_eq!(shown(&infos_a), shown(&infos_b), "{fen}");

        let (result, infos) = search(&fen, 3, 2, Limits::depth(7));
        let line_one = infos.iter().rev().find(|i| i.multipv == 1).unwrap();
        assert_eq!(result.best, Some(line_one.pv[0]), "{fen}: two threads");
    }
}

/// The search's end is decided right after line 1 (the time manager follows line 1): `go mate
/// 2` at MultiPV 3 ends as soon as line 1 shows the mate, so the later lines are not searched
/// at that depth. The search then costs fewer nodes than the whole iteration (`go depth D` at
/// MultiPV 3, D the mate's depth; one thread, so both repeat the same search up to line 1's
/// end), and line 3 shows the depth before (line 2 may show a move that line 1's search scored
/// on its way). When the decision waited for the whole iteration, all three lines were searched
/// at the mate's depth first. The positions are mates in 2 of tests/data/mates_2to5_dev.epd
/// where line 1 is the first to show the mate: in others (0005, 0007, 0013 with the current
/// search) a later line finds it first, and the search ends after that iteration.
#[test]
fn multipv_search_ends_after_line_one() {
    for fen in [
        "8/p4P1K/rb1N2Bp/p3P3/N3R1P1/1P1k1P2/1Pbrnp2/2R2Q2 w - - 0 1", // matetrack.0017
        "rn2N3/8/4R2b/B3R3/3kP1N1/K2n4/8/1q6 w - - 0 1",               // matetrack.0021
    ] {
        let limits = Limits {
            mate: Some(2),
            ..Limits::default()
        };
        let (result, infos) = search(fen, 3, 1, limits);
        let last = &infos[infos.len() - 3..];
        assert_eq!(last[0].multipv, 1, "{fen}");
        assert_eq!(last[0].score.kind(), ScoreKind::Mate(2), "{fen}: {last:?}");
        assert_eq!(result.best, Some(last[0].pv[0]), "{fen}");
        assert_eq!(last[2].depth + 1, last[0].depth, "{fen}: {last:?}");
        let (whole, _) = search(fen, 3, 1, Limits::depth(last[0].depth));
        assert!(
            result.nodes < whole.nodes,
            "{fen}: go mate 2 searched {} nodes, the whole iteration at depth {} {}",
            result.nodes,
            last[0].depth,
            whole.nodes
        );
    }
}
