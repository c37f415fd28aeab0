//! Syzygy tablebases through UCI and the Rust API, with the 3- and 4-piece tables of
//! `tests/data/syzygy`. The expected results come from python-chess probing the same files
//! (`tests/data/syzygy-oracle.csv`, made by `lab/tools/syzygy_oracle.py`) or from
//! `shakmaty-syzygy` probing them independently of the engine.

mod common;

use std::sync::{Arc, Mutex};

use common::{UciProcess, field, last_field};
use lazuli::{Engine, Limits, SearchHandler, SearchInfo};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};
use shakmaty_syzygy::{Tablebase, Wdl};

fn tables_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy").to_owned()
}

/// An engine process with the tables loaded.
fn engine_with_tables() -> UciProcess {
    let mut uci = UciProcess::start();
    uci.send(&format!("setoption name SyzygyPath value {}", tables_dir()));
    let lines = uci.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Syzygy: 70 table files, up to 4 pieces")),
        "{lines:?}"
    );
    uci
}

struct OracleRow {
    fen: String,
    wdl: i32,
    kept: Vec<String>,
}

fn oracle() -> Vec<OracleRow> {
    include_str!("data/syzygy-oracle.csv")
        .lines()
        .skip(1)
        .map(|row| {
            let f: Vec<&str> = row.split(',').collect();
            OracleRow {
                fen: f[0].to_owned(),
                wdl: f[1].parse().unwrap(),
                kept: f[3].split(' ').map(str::to_owned).collect(),
            }
        })
        .collect()
}

fn chess(fen: &str) -> Chess {
    let fen: Fen = fen.parse().unwrap();
    fen.into_position(CastlingMode::Standard).unwrap()
}

/// The score of the last `info` line before `bestmove`: `("cp" | "mate", value)`.
fn last_score(lines: &[String]) -> (String, i32) {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth") && !l.contains(" currmove "))
        .expect("an info line");
    let mut it = info
        .split_whitespace()
        .skip_while(|t| *t != "score")
        .skip(1);
    let kind = it.next().unwrap().to_owned();
    (kind, it.next().unwrap().parse().unwrap())
}

/// The `tbhits` of the last `info` line that has them.
fn last_tbhits(lines: &[String]) -> u64 {
    last_field(lines, "tbhits").unwrap().parse().unwrap()
}

#[test]
fn bad_folders_are_errors_and_the_engine_keeps_its_tables() {
    let mut uci = UciProcess::start();
    for value in [
        "/no/such/folder",
        &format!("{}:/no/such/folder", tables_dir()),
    ] {
        uci.send(&format!("setoption name SyzygyPath value {value}"));
        let lines = uci.sync();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error") && l.contains("/no/such/folder")),
            "{lines:?}"
        );
    }
    // Without tables: no probe.
    uci.send("position fen 8/8/8/4k3/8/8/8/KR6 w - - 0 1");
    uci.send("go depth 3");
    let lines = uci.search_lines();
    assert!(
        lines
            .iter()
            .all(|l| field(l, "tbhits").is_none_or(|t| t == "0"))
    );

    // Tables loaded, then a bad folder: refused, the tables stay.
    uci.send(&format!("setoption name SyzygyPath value {}", tables_dir()));
    uci.send("setoption name SyzygyPath value /no/such/folder");
    let lines = uci.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("info string error")),
        "{lines:?}"
    );
    uci.send("go depth 3");
    let lines = uci.search_lines();
    let hits = last_tbhits(&lines);
    assert!(hits > 0, "{lines:?}");
    // `<empty>` (Stockfish's default text) and an empty value unload them.
    for value in ["<empty>", ""] {
        uci.send(&format!("setoption name SyzygyPath value {value}"));
        let lines = uci.sync();
        assert!(
            lines.iter().any(|l| l.contains("Syzygy: 0 table files")),
            "{lines:?}"
        );
    }
}

/// Every oracle position where the tables allow only some moves: exactly those moves are
/// searched (MultiPV shows no other) and one of them is played; the score is the tables'.
#[test]
fn root_moves_are_filtered_and_scored_by_the_tables() {
    let mut uci = engine_with_tables();
    uci.send("setoption name MultiPV value 256");
    let mut checked = 0;
    for row in oracle() {
        uci.send(&format!("position fen {}", row.fen));
        let legal = uci.legal_moves();
        uci.send("go depth 3");
        let lines = uci.search_lines();
        let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        assert!(row.kept.iter().any(|m| m == best), "{}: {best}", row.fen);
        let shown: std::collections::BTreeSet<&str> = lines
            .iter()
            .filter(|l| field(l, "depth") == Some("3"))
            .filter_map(|l| field(l, "pv"))
            .collect();
        assert_eq!(shown.len(), row.kept.len(), "{}: {shown:?}", row.fen);
        let score = last_score(&lines[..lines.len() - 1]);
        match (row.wdl, score.0.as_str()) {
            (2, "cp") => assert!(score.1 >= 19_000, "{}: {score:?}", row.fen),
            (-2, "cp") => assert!(score.1 <= -19_000, "{}: {score:?}", row.fen),
            (2, "mate") => assert!(score.1 > 0),
            (-2, "mate") => assert!(score.1 < 0),
            (_, kind) => assert_eq!((kind, score.1), ("cp", 0), "{}", row.fen),
        }
        if row.kept.len() < legal.len() {
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} positions with moves filtered out");
}

/// Self-play with the tables from won positions ends in mate within 100 plies (the winner
/// plays a DTZ-best move, so each phase takes at most its DTZ: under 100 plies for every
/// start here); from drawn positions the tables' result holds at every ply. Until wins were
/// ranked by distance this allowed 150 plies, and KQvKR, played after the two games before it
/// in the same process, was not mated in 150 with the 64-wide net s8910b8-h64m.
#[test]
fn wins_are_converted_and_draws_held() {
    let tb = {
        let mut tb = Tablebase::<Chess>::new();
        tb.add_directory(tables_dir()).unwrap();
        tb
    };
    let mut uci = engine_with_tables();
    let starts = [
        // KBNvK, the longest 4-piece win (about 32 moves), and KRvK and KQvKR.
        "6K1/8/1k6/8/1B6/8/N7/8 w - - 0 1",
        "7K/8/8/8/4k3/8/5R2/8 w - - 0 1",
        "8/8/2k5/1r6/8/8/8/K2Q4 w - - 0 1",
        // KRvKP: only Kd2 wins.
        "8/8/8/8/8/1k6/1p6/3K1R2 w - - 0 1",
        // Draws that one move in four or eight holds (KBPvK, KQvKP, KRvKP).
        "8/8/8/1B3k2/K3P3/8/8/8 b - - 0 1",
        "8/8/K7/8/8/1k1Q4/2p5/8 b - - 0 1",
        "8/1R6/8/8/3K4/3p4/5k2/8 b - - 0 1",
    ];
    for start in starts {
        let mut pos = chess(start);
        let wdl = tb.probe_wdl_after_zeroing(&pos).unwrap();
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..100 {
            if pos.is_game_over() || pos.halfmoves() >= 100 {
                break;
            }
            uci.send(&format!("position fen {start} moves {}", moves.join(" ")));
            uci.send("go nodes 4000");
            let best = uci.bestmove();
            let mv = best
                .parse::<UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap_or_else(|_| panic!("{start}: illegal {best}"));
            pos.play_unchecked(mv);
            moves.push(best);
            // The result, from the starting side, never changes.
            let sign = if moves.len().is_multiple_of(2) { 1 } else { -1 };
            let now = if pos.is_checkmate() {
                Wdl::Loss
            } else if pos.board().occupied().count() <= 2 || pos.is_stalemate() {
                Wdl::Draw
            } else {
                tb.probe_wdl(&pos).unwrap().after_zeroing()
            };
            let now = if sign == 1 { now } else { -now };
            assert_eq!(now, wdl, "{start} moves {}", moves.join(" "));
        }
        if wdl == Wdl::Win {
            assert!(
                pos.is_checkmate(),
                "{start}: not mated after {}",
                moves.join(" ")
            );
        } else {
            assert!(!pos.is_checkmate(), "{start}: {}", moves.join(" "));
        }
    }
}

#[test]
fn the_fifty_move_rule_option_decides_a_slow_win() {
    let mut uci = engine_with_tables();
    // KBNvK, a win in about 32 moves, with 60 half-moves already played.
    uci.send("position fen 6K1/8/1k6/8/1B6/8/N7/8 w - - 60 1");
    for (rule50, win) in [("true", false), ("false", true)] {
        uci.send(&format!("setoption name Syzygy50MoveRule value {rule50}"));
        uci.send("go depth 4");
        let lines = uci.search_lines();
        let (kind, value) = last_score(&lines[..lines.len() - 1]);
        assert_eq!(kind, "cp");
        if win {
            assert!(value >= 19_000, "{value}");
        } else {
            assert!((1..=100).contains(&value), "{value}");
        }
    }
}

/// In the search: a 5-piece position whose captures reach the tables counts hits; with
/// `SyzygyProbeLimit 0` nothing is probed.
#[test]
fn probes_below_the_root_follow_the_limit() {
    let mut uci = engine_with_tables();
    uci.send("position fen 8/8/4k3/3r4/8/3Q4/8/3RK3 w - - 0 1");
    for (limit, probed) in [(7, true), (0, false)] {
        uci.send(&format!("setoption name SyzygyProbeLimit value {limit}"));
        uci.send("go depth 6");
        let lines = uci.search_lines();
        let hits = last_tbhits(&lines);
        assert_eq!(hits > 0, probed, "limit {limit}: {hits}");
    }
}

/// Collects `info` reports.
#[derive(Clone, Default)]
struct Infos(Arc<Mutex<Vec<SearchInfo>>>);

impl SearchHandler for Infos {
    fn on_info(&mut self, info: &SearchInfo) {
        self.0.lock().unwrap().push(info.clone());
    }
    fn on_bestmove(&mut self, _: Option<shakmaty::Move>, _: Option<shakmaty::Move>) {}
}

/// Two engines in one process, one with tables and one without, searching at the same time:
/// each keeps its own (Stockfish's tables are one global).
#[test]
fn tables_belong_to_one_engine() {
    let fen = "8/8/8/4k3/8/8/8/KR6 w - - 0 1";
    let mut with = Engine::new().unwrap();
    with.set_option("SyzygyPath", &tables_dir()).unwrap();
    let mut without = Engine::new().unwrap();
    let (a, b) = (Infos::default(), Infos::default());
    for (engine, infos) in [(&mut with, &a), (&mut without, &b)] {
        engine.set_position(Some(fen), &[]).unwrap();
        engine.go(Limits::depth(5), infos.clone()).unwrap();
    }
    with.wait().unwrap().unwrap();
    without.wait().unwrap().unwrap();
    let last = |i: &Infos| i.0.lock().unwrap().last().cloned().unwrap();
    assert!(last(&a).tbhits > 0 && last(&a).score.is_decisive());
    assert_eq!(last(&b).tbhits, 0);
    assert!(!last(&b).score.is_decisive());
    assert_eq!(with.tablebases(), (70, 4));
    assert_eq!(without.tablebases(), (0, 0));
}
