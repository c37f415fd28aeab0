//! The null-move study's counting.

use std::io::Write;
use std::sync::{Arc, Mutex};

use clap::Parser;
use lazuli::{Engine, Limits, SearchHandler, SearchInfo};
use shakmaty::Move;

use super::{Mode, Row, StudyConfig, StudyStop, run};

/// A small suite: a mate in 1, a mate in 2 with `dm`, a zugzwang, a rook ending, and two
/// positions where one side (the last) or both sides have only king and pawns.
const SUITE: &str = "\
r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id \"scholar\";
2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - bm Qa5; dm 2; id \"mate2\";
8/8/1p1r1k2/p1pPN1p1/P3KnP1/1P6/8/3R4 b - - bm Nxd5; id \"zz5\";
8/8/p1p5/1p5p/1P5p/8/PPP2K1p/4R1rk w - - bm Rf1; id \"zz1\";
7k/5K2/5P1p/3p4/6P1/3p4/8/8 w - - bm g5; id \"zz3-kp\";
4k3/4p3/8/8/8/8/8/R3K3 w - - bm Ra8+; id \"rook-vs-kp\";
";

fn suite_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(SUITE.as_bytes())
        .unwrap();
    path
}

fn config(name: &str, args: &[&str]) -> StudyConfig {
    let suite = suite_file(name);
    let mut all = vec!["--suite", suite.to_str().unwrap()];
    all.extend_from_slice(args);
    parse(&all).unwrap()
}

/// The arguments after `lazuli study nullmove`, parsed.
fn parse(args: &[&str]) -> Result<StudyConfig, clap::Error> {
    StudyConfig::try_parse_from(std::iter::once("nullmove").chain(args.iter().copied()))
}

#[derive(Clone, Default)]
struct Nodes(Arc<Mutex<u64>>);
impl SearchHandler for Nodes {
    fn on_info(&mut self, i: &SearchInfo) {
        *self.0.lock().unwrap() = i.nodes;
    }
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
}

#[test]
fn counts_add_up_and_match_separate_searches() {
    let c = config(
        "s1.epd",
        &[
            "--depths",
            "4,6",
            "--modes",
            "std2,verified3",
            "--jobs",
            "2",
        ],
    );
    let report = run(&c, || {}, &StudyStop::default()).unwrap();
    assert_eq!(
        (report.suite_positions, report.studied, report.skipped_kp),
        (6, 6, 0)
    );
    assert_eq!(report.rows.len(), 6 * 2 * 2);
    // Totals are the sums of the per-position rows.
    let v3 = Mode::parse("verified3").unwrap();
    let sum: u64 = report
        .rows
        .iter()
        .filter(|r| r.mode == "verified3" && r.depth == 6)
        .map(|r| r.nodes)
        .sum();
    assert_eq!(report.total_nodes(v3, 6), sum);
    assert!(
        report
            .markdown()
            .contains(&format!("{}", report.total_nodes(v3, 4) % 1000))
    );
    // A row at depth 4 read from the depth-6 search has the node count of a search to depth 4.
    for row in report.rows.iter().filter(|r| r.depth == 4) {
        let fen = SUITE
            .lines()
            .nth(row.position)
            .unwrap()
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        let mut e = Engine::new().unwrap();
        let mode = Mode::parse(&row.mode).unwrap();
        e.set_option("Hash", "64").unwrap();
        e.set_option(
            "NullMove",
            &format!("{:?}", mode.engine_mode()).to_lowercase(),
        )
        .unwrap();
        e.set_option("NullMoveR", &mode.r.to_string()).unwrap();
        e.set_position(Some(&fen), &[]).unwrap();
        let nodes = Nodes::default();
        e.go(Limits::depth(4), nodes.clone()).unwrap();
        e.wait();
        assert_eq!(
            *nodes.0.lock().unwrap(),
            row.nodes,
            "{} {}",
            row.id,
            row.mode
        );
    }
    // The same rows (but for the timings) however many positions run at once.
    let serial = run(
        &config("s2.epd", &["--depths", "4,6", "--modes", "std2,verified3"]),
        || {},
        &StudyStop::default(),
    )
    .unwrap();
    let untimed = |rows: &[Row]| -> Vec<Row> {
        rows.iter()
            .cloned()
            .map(|mut r| {
                r.time_ms = 0;
                r
            })
            .collect()
    };
    assert_eq!(untimed(&serial.rows), untimed(&report.rows));
}

#[test]
fn known_best_moves_and_mates_count_as_solved() {
    // Depth 10: deep enough for the quiet Qa5 of "mate2" (the hand-crafted evaluation found it
    // from depth 6, the 32-wide nets from 11 or 12), short of Rf1 of "zz1" (the 64-wide net
    // s8910b8-h64m finds it from depth 11; the 32-wide nets needed far more).
    let c = config("s3.epd", &["--depths", "10", "--modes", "verified3"]);
    let report = run(&c, || {}, &StudyStop::default()).unwrap();
    let solved = |id: &str| report.rows.iter().find(|r| r.id == id).unwrap().solved;
    assert_eq!(solved("scholar"), Some(true));
    assert_eq!(solved("mate2"), Some(true));
    assert_eq!(
        report.rows.iter().find(|r| r.id == "mate2").unwrap().score,
        "mate 2"
    );
    assert_eq!(solved("zz1"), Some(false));
    let (n, of) = report.solved(Mode::parse("verified3").unwrap(), 10);
    assert_eq!(of, 6);
    assert_eq!(
        n,
        report
            .rows
            .iter()
            .filter(|r| r.solved == Some(true))
            .count()
    );
}

#[test]
fn the_king_and_pawns_filter_drops_exactly_those_positions() {
    let c = config("s4.epd", &["--depths", "2", "--modes", "std3", "--skip-kp"]);
    let report = run(&c, || {}, &StudyStop::default()).unwrap();
    assert_eq!(report.skipped_kp, 2);
    let ids: Vec<&str> = report.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["scholar", "mate2", "zz5", "zz1"]);
}

#[test]
fn a_stopped_study_keeps_whole_positions_only() {
    let c = config(
        "s5.epd",
        &["--depths", "9", "--modes", "std2,std3,verified3"],
    );
    let stop = StudyStop::default();
    let stopper = stop.clone();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let report = run(
        &c,
        || {
            if done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1 {
                stopper.stop();
            }
        },
        &stop,
    )
    .unwrap();
    assert!(report.interrupted);
    assert_eq!(report.studied, 2);
    // Every studied position has all three modes; nothing of the interrupted one.
    assert_eq!(report.rows.len(), 2 * 3);
}

#[test]
fn bad_study_arguments_are_errors() {
    for args in [
        &["--depths", "8"][..],
        &["--suite", "x.epd", "--modes", "std9"],
        &["--suite", "x.epd", "--depths", "0"],
        &["--suite", "x.epd", "--lmr", "maybe"],
        &["--suite", "x.epd", "--frobnicate"],
    ] {
        assert!(parse(args).is_err(), "{args:?}");
    }
    let missing = parse(&["--suite", "/nonexistent/suite.epd"]).unwrap();
    assert!(run(&missing, || {}, &StudyStop::default()).is_err());
}

#[test]
fn defaults() {
    let c = parse(&["--suite", "x.epd"]).unwrap();
    assert_eq!(c.depths(), [8, 9, 10]);
    let modes: Vec<String> = c.modes.iter().map(|m| m.name()).collect();
    assert_eq!(modes, ["std2", "std3", "paper3", "verified3"]);
    assert!(c.options.is_empty());
    assert!(c.lmr && c.pruning && !c.adaptive && !c.skip_kp);
    assert_eq!((c.hash_mb, c.jobs, c.limit), (64, 1, None));
    // The last of a repeated flag counts; depths run ascending, each once; jobs are clamped.
    let c = parse(&[
        "--suite", "x.epd", "--depths", "4", "--depths", "9,7,9", "--jobs", "999",
    ]);
    let c = c.unwrap();
    assert_eq!((c.depths(), c.jobs), (vec![7, 9], 256));
}

#[test]
fn modes_parse() {
    assert_eq!(Mode::parse("std2").unwrap().name(), "std2");
    assert_eq!(Mode::parse("Verified3").unwrap().name(), "verified3");
    assert_eq!(Mode::parse("vrfd3").unwrap().name(), "verified3");
    assert_eq!(Mode::parse("off").unwrap().name(), "off");
    assert_eq!(Mode::parse("Paper3").unwrap().name(), "paper3");
    assert_ne!(Mode::parse("paper3"), Mode::parse("verified3"));
    for bad in ["std0", "std5", "verified", "paper", "paper9", "x3", ""] {
        assert!(Mode::parse(bad).is_err(), "{bad}");
    }
}
