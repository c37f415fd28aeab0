//! Limited strength over UCI: `Skill Level`, `UCI_LimitStrength`, `UCI_Elo` and `Skill Seed`
//! (src/search/skill.rs, docs/limited-strength.md). The calibration's anchors are read from
//! src/params.rs, where `lab/tools/calibrate.py --write-params` writes them, so that a new
//! calibration needs no edit here.

mod common;

use std::time::{Duration, Instant};

use common::{UciProcess, last_field};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// `SKILL_ELO_ANCHORS` as src/params.rs declares them: (UCI_Elo, strength), the last one full
/// strength (20).
fn skill_anchors() -> Vec<(i64, f64)> {
    let params = concat!(env!("CARGO_MANIFEST_DIR"), "/src/params.rs");
    let text = std::fs::read_to_string(params).expect("src/params.rs");
    let declared = &text[text.find("const SKILL_ELO_ANCHORS").expect("declared")..];
    let body = &declared[declared.find("= [").unwrap() + 3..declared.find("];").unwrap()];
    let anchors: Vec<(i64, f64)> = body
        .split("),")
        .map(|row| row.trim().trim_start_matches('('))
        .filter(|row| !row.is_empty())
        .map(|row| {
            let (elo, level) = row.split_once(',').expect("(elo, level)");
            let level = level.trim().replace("SKILL_MAX_LEVEL as f64", "20");
            (elo.trim().parse().unwrap(), level.parse().unwrap())
        })
        .collect();
    assert!(anchors.len() >= 2, "{anchors:?}");
    assert_eq!(
        anchors.last().unwrap().1,
        20.0,
        "the last anchor is full strength"
    );
    anchors
}

/// Middlegame and endgame positions for the limited-strength tests: each has several
/// reasonable moves, so that a weak pick can differ from the best one.
const SKILL_POSITIONS: [&str; 8] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    KIWIPETE,
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "2r2rk1/pp1bqppp/2n1pn2/3p4/3P4/2PBPN2/P1Q2PPP/R4RK1 b - - 5 14",
    "8/5pk1/6p1/3R4/5P2/6PK/1r6/8 w - - 0 40",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47",
];

/// The best move of `go` from `fen` after the options `(name, value)`, checked to be legal.
fn legal_bestmove(e: &mut UciProcess, options: &[(&str, &str)], fen: &str, go: &str) -> String {
    for (name, value) in options {
        e.send(&format!("setoption name {name} value {value}"));
    }
    e.send("ucinewgame");
    e.send(&format!("position fen {fen}"));
    e.send(go);
    let best = e.bestmove();
    assert!(e.legal_moves().contains(&best), "{best} in {fen}");
    best
}

#[test]
fn limited_strength_options_are_validated_and_listed() {
    // UCI_Elo runs from 1320 to full strength as calibrated: the last anchor.
    let top = skill_anchors().last().unwrap().0;
    let mut e = UciProcess::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    for option in [
        "option name UCI_LimitStrength type check default false".to_owned(),
        format!("option name UCI_Elo type spin default {top} min 1320 max {top}"),
        "option name Skill Level type spin default 20 min 0 max 20".to_owned(),
        "option name Skill Seed type spin default 0 min 0 max 4294967295".to_owned(),
    ] {
        assert!(lines.contains(&option), "{option}: {lines:#?}");
    }
    for (name, value) in [
        ("UCI_Elo", "1319".to_owned()),
        ("UCI_Elo", (top + 1).to_string()),
        ("Skill Level", "-1".to_owned()),
        ("Skill Level", "21".to_owned()),
        ("Skill Level", "ten".to_owned()),
        ("UCI_LimitStrength", "yes".to_owned()),
        ("Skill Seed", "-1".to_owned()),
    ] {
        e.send(&format!("setoption name {name} value {value}"));
        let reply = e.sync();
        assert!(
            reply.len() == 1 && reply[0].starts_with("info string error"),
            "{name}={value}: {reply:?}"
        );
    }
}

#[test]
fn skill_level_zero_is_reproducible_with_a_seed_legal_and_weaker() {
    let mut e = UciProcess::start();
    let weak = [("Skill Level", "0"), ("Skill Seed", "12345")];
    let full = [("Skill Level", "20")];
    let mut differ = 0;
    for fen in SKILL_POSITIONS {
        let first = legal_bestmove(&mut e, &weak, fen, "go depth 8");
        let second = legal_bestmove(&mut e, &weak, fen, "go depth 8");
        assert_eq!(first, second, "the same seed, the same move in {fen}");
        if legal_bestmove(&mut e, &full, fen, "go depth 8") != first {
            differ += 1;
        }
    }
    assert!(
        differ >= 2,
        "level 0 played the best move in {differ} of 8 only"
    );
}

#[test]
fn uci_elo_at_the_top_is_full_strength_and_at_an_anchor_is_its_level() {
    // The documented behaviour: the highest UCI_Elo is strength 20, no weakening at all, so the
    // search is the full-strength one, node for node; a UCI_Elo that is a calibration anchor
    // of a whole level plays as that Skill Level, move for move with the same seed.
    let anchors = skill_anchors();
    let mut e = UciProcess::start();
    let nodes_and_move = |e: &mut UciProcess, options: &[(&str, &str)]| {
        for (name, value) in options {
            e.send(&format!("setoption name {name} value {value}"));
        }
        e.send("ucinewgame");
        e.send(&format!("position fen {KIWIPETE}"));
        e.send("go depth 7");
        let lines = e.search_lines();
        let nodes = last_field(&lines, "nodes").unwrap().to_owned();
        (nodes, lines.last().unwrap().clone())
    };
    let off = nodes_and_move(&mut e, &[]);
    let top = anchors.last().unwrap().0.to_string();
    let top = nodes_and_move(&mut e, &[("UCI_LimitStrength", "true"), ("UCI_Elo", &top)]);
    assert_eq!(off, top);
    let whole: Vec<_> = anchors[..anchors.len() - 1]
        .iter()
        .filter(|(elo, level)| level.fract() == 0.0 && *elo >= 1320)
        .collect();
    assert!(!whole.is_empty(), "no anchor of a whole level: {anchors:?}");
    for (elo, level) in whole {
        let (elo, level) = (elo.to_string(), level.to_string());
        let by_elo = [
            ("Skill Seed", "77"),
            ("UCI_LimitStrength", "true"),
            ("UCI_Elo", elo.as_str()),
        ];
        let by_level = [
            ("UCI_LimitStrength", "false"),
            ("Skill Level", level.as_str()),
        ];
        for fen in SKILL_POSITIONS {
            let a = legal_bestmove(&mut e, &by_elo, fen, "go depth 5");
            let b = legal_bestmove(&mut e, &by_level, fen, "go depth 5");
            assert_eq!(a, b, "UCI_Elo {elo} and Skill Level {level} in {fen}");
        }
    }
}

#[test]
fn limited_strength_moves_and_waits_for_ponderhit() {
    limited_strength_clock(false);
}

/// The same, and the clock is kept: the move within 900 ms of a 1 s clock, within 500 ms of
/// `ponderhit`.
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_limited_strength_keeps_the_clock() {
    limited_strength_clock(true);
}

fn limited_strength_clock(timing: bool) {
    let mut e = UciProcess::start();
    e.send("setoption name Skill Level value 12");
    e.send("setoption name Ponder value true");
    e.send(&format!("position fen {KIWIPETE}"));
    let go = Instant::now();
    e.send("go wtime 1000 btime 1000");
    let best = e.bestmove();
    assert!(
        !timing || go.elapsed() < Duration::from_millis(900),
        "{:?}",
        go.elapsed()
    );
    assert!(e.legal_moves().contains(&best));

    // The node budget is spent at once at level 0, yet no bestmove before ponderhit.
    e.send("setoption name Skill Level value 0");
    e.send("go ponder wtime 1000 btime 1000");
    e.assert_no_bestmove_for(Duration::from_millis(300));
    let hit = Instant::now();
    e.send("ponderhit");
    let best = e.bestmove();
    assert!(
        !timing || hit.elapsed() < Duration::from_millis(500),
        "{:?}",
        hit.elapsed()
    );
    assert!(e.legal_moves().contains(&best));
}
