//! `bench`: a fixed set of positions searched to a fixed depth. With one thread the node total
//! is the engine's search signature (it changes only when the search changes, and commit
//! messages that change it carry `Bench: N`); the nodes per second are its speed figure.
//!
//! `bench [hash] [threads] [depth]`, as Stockfish's `bench <hash> <threads> <depth>`.

use std::time::{Duration, Instant};

use shakmaty::Move;

use crate::engine::Engine;
use crate::error::Error;
use crate::search::{SearchHandler, SearchInfo, nps};
use crate::timeman::Limits;
use crate::uci::Output;

/// The bench positions: Stockfish's bench set (middlegames, endgames, a mate, a stalemate).
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/6p1/P6p/r1N5/5p2/7P/1b3PP1/4R1K1 w - - 0 1",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "6k1/4pp1p/3p2p1/P1pPb3/R7/1r2P1PP/3B1P2/6K1 w - - 0 1",
    "5rk1/q6p/2p3bR/1pPp1rP1/1P1Pp3/P3B1Q1/1K3P2/R7 w - - 93 90",
    "4rrk1/1p1nq3/p7/2p1P1pp/3P2bp/3Q1Bn1/PPPB4/1K2R1NR w - - 40 21",
    "r3k2r/3nnpbp/q2pp1p1/p7/Pp1PPPP1/4BNN1/1P5P/R2Q1RK1 w kq - 0 16",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "8/8/8/5N2/8/p7/8/2NK3k w - - 0 1",
    "8/3k4/8/8/8/4B3/4KB2/2B5 w - - 0 1",
    "8/8/1P6/5pr1/8/4R3/7k/2K5 w - - 0 1",
    "8/2p4P/8/kr6/6R1/8/8/1K6 w - - 0 1",
    "8/8/3P3k/8/1p6/8/1P6/1K3n2 b - - 0 1",
    "8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124",
    "6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1",
    "r2r1n2/pp2bk2/2p1p2p/3q4/3PN1QP/2P3R1/P4PP1/5RK1 w - - 0 1",
];

/// The default bench depth.
pub const DEFAULT_DEPTH: u32 = 11;

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchConfig {
    /// Hash table size in MB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Fixed depth per position.
    pub depth: u32,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            hash_mb: 16,
            threads: 1,
            depth: DEFAULT_DEPTH,
        }
    }
}

impl BenchConfig {
    /// Parses `[hash] [threads] [depth]`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidCommand`] for anything that is not a positive number in range.
    pub fn parse(args: &[&str]) -> Result<BenchConfig, Error> {
        let mut config = BenchConfig::default();
        let usage = || Error::InvalidCommand("usage: bench [hash MB] [threads] [depth]".into());
        if args.len() > 3 {
            return Err(usage());
        }
        let num = |s: &str, max: usize| s.parse::<usize>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(usage);
        if let Some(s) = args.first() {
            config.hash_mb = num(s, 1 << 20)?;
        }
        if let Some(s) = args.get(1) {
            config.threads = num(s, 1024)?;
        }
        if let Some(s) = args.get(2) {
            config.depth = num(s, 64)? as u32;
        }
        Ok(config)
    }
}

/// The result of one bench position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionResult {
    /// The position.
    pub fen: &'static str,
    /// Best move found (UCI), or `(none)`.
    pub best: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time.
    pub time: Duration,
}

/// The result of a bench run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Per position, in order.
    pub positions: Vec<PositionResult>,
    /// Total nodes.
    pub nodes: u64,
    /// Total wall time of the searches.
    pub time: Duration,
}

impl BenchReport {
    /// Nodes per second over the whole run.
    pub fn nps(&self) -> u64 {
        nps(self.nodes, self.time)
    }
}

struct Silent;

impl SearchHandler for Silent {
    fn on_info(&mut self, _: &SearchInfo) {}
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
}

/// Runs the bench on a fresh engine, calling `progress` after each position.
///
/// # Errors
///
/// Engine creation or option errors (for example a hash size that cannot be allocated).
pub fn run(config: &BenchConfig, mut progress: impl FnMut(usize, &PositionResult)) -> Result<BenchReport, Error> {
    let mut engine = Engine::new()?;
    engine.set_option("Threads", &config.threads.to_string())?;
    engine.set_option("Hash", &config.hash_mb.to_string())?;
    engine.new_game();
    let mut report = BenchReport {
        positions: Vec::new(),
        nodes: 0,
        time: Duration::ZERO,
    };
    for (i, &fen) in POSITIONS.iter().enumerate() {
        engine.set_position(Some(fen), &[])?;
        let start = Instant::now();
        engine.go(Limits::depth(config.depth), Silent)?;
        let result = engine.wait().expect("a search just ran")?;
        let time = start.elapsed();
        let r = PositionResult {
            fen,
            best: result.best.map_or_else(|| "(none)".to_owned(), |m| engine.uci_move(m)),
            nodes: result.nodes,
            time,
        };
        report.nodes += r.nodes;
        report.time += r.time;
        progress(i, &r);
        report.positions.push(r);
    }
    Ok(report)
}

/// The closing lines, as Stockfish prints them.
pub fn summary(report: &BenchReport) -> String {
    format!(
        "===========================\nTotal time (ms) : {}\nNodes searched  : {}\nNodes/second    : {}",
        report.time.as_millis(),
        report.nodes,
        report.nps()
    )
}

/// `bench` as a UCI command: progress and summary on the UCI output.
///
/// # Errors
///
/// As [`run`].
pub fn run_uci(config: &BenchConfig, out: &Output) -> Result<(), Error> {
    let n = POSITIONS.len();
    let report = run(config, |i, r| {
        out.line(&format!(
            "info string bench position {}/{n} bestmove {} nodes {} time {}",
            i + 1,
            r.best,
            r.nodes,
            r.time.as_millis()
        ));
    })?;
    for line in summary(&report).lines() {
        out.line(line);
    }
    Ok(())
}

/// `lazuli bench ...` on the command line: progress on stderr, summary on stdout.
///
/// # Errors
///
/// As [`BenchConfig::parse`] and [`run`].
pub fn run_cli(args: &[&str]) -> Result<(), Error> {
    let config = BenchConfig::parse(args)?;
    let n = POSITIONS.len();
    let report = run(&config, |i, r| {
        eprintln!("Position {:>2}/{n}: {:<7} {:>10} nodes {:>6} ms  {}", i + 1, r.best, r.nodes, r.time.as_millis(), r.fen);
    })?;
    println!("{}", summary(&report));
    Ok(())
}
