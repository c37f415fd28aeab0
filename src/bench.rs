//! `bench`: a fixed set of positions searched to a fixed depth. With one thread the node total
//! is the engine's search signature (it changes only when the search changes, and commit
//! messages that change it carry `Bench: N`); the nodes per second are its speed figure.
//!
//! `bench [hash] [threads] [depth]`, as Stockfish's `bench <hash> <threads> <depth>`. The
//! thread-scaling run built on it is a tool of the `lazuli` binary, not of the library.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use crate::engine::Engine;
use crate::error::Error;
use crate::report::{Silent, nps};
use crate::timeman::Limits;

/// The bench positions (`benches/positions.epd`, one FEN per line): Stockfish's bench set of
/// middlegames and endgames, with a mate and a stalemate. The C library's benchmark reads the
/// same file.
pub fn bench_positions() -> &'static [&'static str] {
    static POSITIONS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        include_str!("../benches/positions.epd")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect()
    });
    &POSITIONS
}

/// The default bench depth.
pub const BENCH_DEPTH: u32 = 11;

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
            depth: BENCH_DEPTH,
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
        let num = |s: &str, max: usize| {
            s.parse::<usize>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(usage)
        };
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

    /// Runs the bench on a fresh engine with default options (the search signature), calling
    /// `progress` after each position.
    ///
    /// # Errors
    ///
    /// Engine creation or option errors (for example a hash size that cannot be allocated).
    pub fn run(&self, progress: impl FnMut(usize, &BenchPosition)) -> Result<BenchReport, Error> {
        self.run_on(Engine::new()?, progress)
    }

    /// Runs the bench on `engine` (its options, network and tables; `Hash` and `Threads` are
    /// this configuration's), calling `progress` after each position. The UCI `bench` passes
    /// [`Engine::sibling`] of its own engine.
    ///
    /// # Errors
    ///
    /// As [`BenchConfig::run`].
    pub fn run_on(
        &self,
        mut engine: Engine,
        mut progress: impl FnMut(usize, &BenchPosition),
    ) -> Result<BenchReport, Error> {
        engine.set_threads(self.threads)?;
        engine.set_hash_mb(self.hash_mb)?;
        engine.new_game();
        let mut report = BenchReport {
            positions: Vec::new(),
            nodes: 0,
            time: Duration::ZERO,
            huge_page_bytes: None,
        };
        for (i, &fen) in bench_positions().iter().enumerate() {
            engine.set_position(Some(fen), &[])?;
            let start = Instant::now();
            engine.go(Limits::depth(self.depth), Silent)?;
            let result = engine.wait().expect("a search just ran")?;
            let time = start.elapsed();
            let r = BenchPosition {
                fen,
                best: result
                    .best
                    .map_or_else(|| "(none)".to_owned(), |m| engine.uci_move(m)),
                nodes: result.nodes,
                time,
            };
            report.nodes += r.nodes;
            report.time += r.time;
            progress(i, &r);
            report.positions.push(r);
        }
        report.huge_page_bytes = engine.hash_huge_page_bytes();
        Ok(report)
    }
}

/// The result of one bench position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchPosition {
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
    pub positions: Vec<BenchPosition>,
    /// Total nodes.
    pub nodes: u64,
    /// Total wall time of the searches.
    pub time: Duration,
    /// How much of the hash table the kernel backed with huge pages at the end of the run
    /// (`AnonHugePages` of its mappings); `None` where that cannot be read (not Linux).
    pub huge_page_bytes: Option<u64>,
}

impl BenchReport {
    /// Nodes per second over the whole run.
    pub fn nps(&self) -> u64 {
        nps(self.nodes, self.time)
    }

    /// The closing lines, as Stockfish prints them.
    pub fn summary(&self) -> String {
        format!(
            "===========================\nTotal time (ms) : {}\nNodes searched  : {}\nNodes/second    : {}",
            self.time.as_millis(),
            self.nodes,
            self.nps()
        )
    }
}
