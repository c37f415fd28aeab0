//! `bench`: a fixed set of positions searched to a fixed depth. With one thread the node total
//! is the engine's search signature (it changes only when the search changes, and commit
//! messages that change it carry `Bench: N`); the nodes per second are its speed figure.
//!
//! `bench [hash] [threads] [depth]`, as Stockfish's `bench <hash> <threads> <depth>`.
//! `bench scaling ...` runs it at several thread counts and reports the speedups (below).

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use shakmaty::Move;

use crate::engine::Engine;
use crate::error::Error;
use crate::search::{SearchHandler, SearchInfo, nps};
use crate::timeman::Limits;
use crate::uci::Output;

/// The bench positions (`benches/positions.epd`, one FEN per line): Stockfish's bench set of
/// middlegames and endgames, with a mate and a stalemate. The C library's benchmark reads the
/// same file.
pub static POSITIONS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    include_str!("../benches/positions.epd")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
});

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
pub fn run(
    config: &BenchConfig,
    mut progress: impl FnMut(usize, &PositionResult),
) -> Result<BenchReport, Error> {
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
    if let Some((&"scaling", rest)) = args.split_first() {
        return run_scaling_cli(rest);
    }
    let config = BenchConfig::parse(args)?;
    let n = POSITIONS.len();
    let report = run(&config, |i, r| {
        eprintln!(
            "Position {:>2}/{n}: {:<7} {:>10} nodes {:>6} ms  {}",
            i + 1,
            r.best,
            r.nodes,
            r.time.as_millis(),
            r.fen
        );
    })?;
    println!("{}", summary(&report));
    Ok(())
}

// -------------------------------------------------------------------------------------------
// Thread scaling: `lazuli bench scaling`.
// -------------------------------------------------------------------------------------------

/// What `bench scaling` runs: the bench at each thread count, `rounds` times, thread counts
/// alternating within each round so that a busy machine slows all counts alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalingConfig {
    /// Thread counts, the first being the reference (normally 1).
    pub threads: Vec<usize>,
    /// Fixed depth per position.
    pub depth: u32,
    /// Hash table size in MB.
    pub hash_mb: usize,
    /// Repetitions; figures are medians over rounds.
    pub rounds: usize,
    /// `go infinite` / `stop` trials per thread count for the stop latency.
    pub stop_trials: usize,
    /// Write the rows as JSON here.
    pub json: Option<std::path::PathBuf>,
    /// Write the rows as CSV here.
    pub csv: Option<std::path::PathBuf>,
    /// Draw the speedups as an SVG chart here.
    pub svg: Option<std::path::PathBuf>,
}

impl ScalingConfig {
    /// 1, 2, 4, ... up to `max` (and `max` itself).
    pub fn doubling(max: usize) -> Vec<usize> {
        let mut v = Vec::new();
        let mut t = 1;
        while t < max {
            v.push(t);
            t *= 2;
        }
        v.push(max.max(1));
        v
    }

    /// Parses `[--max N | --threads 1,2,4] [--depth D] [--hash MB] [--rounds R]
    /// [--stop-trials K] [--json FILE] [--csv FILE] [--svg FILE]`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidCommand`] with the usage for anything else.
    pub fn parse(args: &[&str]) -> Result<ScalingConfig, Error> {
        let usage = || {
            Error::InvalidCommand(
                "usage: bench scaling [--max N | --threads 1,2,4] [--depth D] [--hash MB] [--rounds R] \
                 [--stop-trials K] [--json FILE] [--csv FILE] [--svg FILE]"
                    .into(),
            )
        };
        let mut c = ScalingConfig {
            threads: Self::doubling(num_cpus::get()),
            depth: DEFAULT_DEPTH,
            hash_mb: 16,
            rounds: 3,
            stop_trials: 10,
            json: None,
            csv: None,
            svg: None,
        };
        let num = |s: Option<&&str>| {
            s.and_then(|s| s.parse::<usize>().ok())
                .filter(|n| (1..=1 << 20).contains(n))
                .ok_or_else(usage)
        };
        let mut i = 0;
        while i < args.len() {
            let value = args.get(i + 1);
            match args[i] {
                "--max" => c.threads = Self::doubling(num(value)?.min(1024)),
                "--threads" => {
                    let list: Option<Vec<usize>> = value
                        .ok_or_else(usage)?
                        .split(',')
                        .map(|t| t.parse().ok().filter(|n| (1..=1024).contains(n)))
                        .collect();
                    c.threads = list.filter(|l| !l.is_empty()).ok_or_else(usage)?;
                }
                "--depth" => c.depth = num(value)?.min(64) as u32,
                "--hash" => c.hash_mb = num(value)?,
                "--rounds" => c.rounds = num(value)?,
                "--stop-trials" => c.stop_trials = num(value)?,
                "--json" => c.json = Some(value.ok_or_else(usage)?.into()),
                "--csv" => c.csv = Some(value.ok_or_else(usage)?.into()),
                "--svg" => c.svg = Some(value.ok_or_else(usage)?.into()),
                _ => return Err(usage()),
            }
            i += 2;
        }
        Ok(c)
    }
}

/// The machine a scaling run was measured on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Machine {
    /// CPU model name (Linux `/proc/cpuinfo`), or "unknown".
    pub model: String,
    /// Logical cores.
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
}

impl Machine {
    /// This machine.
    pub fn current() -> Machine {
        let model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, m)| m.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        Machine {
            model,
            logical_cores: num_cpus::get(),
            physical_cores: num_cpus::get_physical(),
        }
    }
}

/// One thread count's figures (medians over the rounds).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ScalingRow {
    /// Search threads.
    pub threads: usize,
    /// Total nodes over the bench positions.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// NPS divided by the reference's NPS in the same round (median over rounds).
    pub nps_speedup: f64,
    /// Total wall time to reach the bench depth on every position, in ms.
    pub time_to_depth_ms: u64,
    /// The reference's time to depth divided by this one in the same round (median over
    /// rounds; above 1: reaches the depth sooner).
    pub ttd_speedup: f64,
    /// Share of positions whose best move equals the reference's in the same round.
    pub best_move_agreement: f64,
    /// Median time from `stop` to the best move, in microseconds.
    pub stop_median_us: u64,
    /// Longest time from `stop` to the best move, in microseconds.
    pub stop_max_us: u64,
}

/// A whole scaling run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ScalingReport {
    /// Where it ran.
    pub machine: Machine,
    /// Bench depth.
    pub depth: u32,
    /// Hash MB.
    pub hash_mb: usize,
    /// Rounds per thread count.
    pub rounds: usize,
    /// Bench positions per round.
    pub positions: usize,
    /// One row per thread count, in the configured order.
    pub rows: Vec<ScalingRow>,
}

fn median<T: Copy + Ord>(mut v: Vec<T>) -> T {
    v.sort_unstable();
    v[v.len() / 2]
}

/// Records when the best move arrives.
struct StopClock(std::sync::Arc<parking_lot::Mutex<Option<Instant>>>);

impl SearchHandler for StopClock {
    fn on_info(&mut self, _: &SearchInfo) {}
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {
        *self.0.lock() = Some(Instant::now());
    }
}

/// Time from `stop` to the best move during `go infinite`, `trials` times, in microseconds.
///
/// # Errors
///
/// Engine creation or option errors.
pub fn stop_latencies(threads: usize, hash_mb: usize, trials: usize) -> Result<Vec<u64>, Error> {
    let mut engine = Engine::new()?;
    engine.set_option("Threads", &threads.to_string())?;
    engine.set_option("Hash", &hash_mb.to_string())?;
    let mut out = Vec::with_capacity(trials);
    for i in 0..trials {
        engine.set_position(Some(POSITIONS[i % POSITIONS.len()]), &[])?;
        let arrived = std::sync::Arc::new(parking_lot::Mutex::new(None));
        engine.go(
            Limits {
                infinite: true,
                ..Limits::default()
            },
            StopClock(arrived.clone()),
        )?;
        std::thread::sleep(Duration::from_millis(100));
        let stop = Instant::now();
        engine.stop();
        engine.wait();
        let at = arrived.lock().expect("the best move was reported");
        out.push(at.duration_since(stop).as_micros() as u64);
    }
    Ok(out)
}

/// Runs the scaling benchmark. `progress` is told each finished bench position.
///
/// # Errors
///
/// Engine creation or option errors.
pub fn scaling(config: &ScalingConfig, mut progress: impl FnMut()) -> Result<ScalingReport, Error> {
    let n = config.threads.len();
    let mut nodes = vec![Vec::new(); n];
    let mut times = vec![Vec::new(); n];
    let mut agree = vec![0usize; n];
    for _ in 0..config.rounds {
        let mut reference: Option<Vec<String>> = None;
        for (i, &threads) in config.threads.iter().enumerate() {
            let bench = BenchConfig {
                hash_mb: config.hash_mb,
                threads,
                depth: config.depth,
            };
            let report = run(&bench, |_, _| progress())?;
            let moves: Vec<String> = report.positions.iter().map(|p| p.best.clone()).collect();
            let reference = reference.get_or_insert_with(|| moves.clone());
            agree[i] += moves
                .iter()
                .zip(reference.iter())
                .filter(|(a, b)| a == b)
                .count();
            nodes[i].push(report.nodes);
            times[i].push(report.time);
        }
    }
    // Speedups are medians of per-round ratios: within a round the thread counts run back to
    // back, so slow drift of a shared machine cancels out of each ratio.
    let round_nps: Vec<Vec<u64>> = (0..n)
        .map(|i| {
            nodes[i]
                .iter()
                .zip(&times[i])
                .map(|(&n, &t)| nps(n, t))
                .collect()
        })
        .collect();
    let ratio = |num: &[u64], den: &[u64]| -> f64 {
        let mut r: Vec<f64> = num
            .iter()
            .zip(den)
            .map(|(&a, &b)| a as f64 / b.max(1) as f64)
            .collect();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    let round_ms: Vec<Vec<u64>> = times
        .iter()
        .map(|t| t.iter().map(|t| t.as_millis() as u64).collect())
        .collect();
    let mut rows = Vec::with_capacity(n);
    for (i, &threads) in config.threads.iter().enumerate() {
        let stops = stop_latencies(threads, config.hash_mb, config.stop_trials)?;
        rows.push(ScalingRow {
            threads,
            nodes: median(nodes[i].clone()),
            nps: median(round_nps[i].clone()),
            nps_speedup: ratio(&round_nps[i], &round_nps[0]),
            time_to_depth_ms: median(round_ms[i].clone()),
            ttd_speedup: ratio(&round_ms[0], &round_ms[i]),
            best_move_agreement: agree[i] as f64 / (config.rounds * POSITIONS.len()) as f64,
            stop_median_us: median(stops.clone()),
            stop_max_us: stops.iter().copied().max().unwrap_or(0),
        });
    }
    Ok(ScalingReport {
        machine: Machine::current(),
        depth: config.depth,
        hash_mb: config.hash_mb,
        rounds: config.rounds,
        positions: POSITIONS.len(),
        rows,
    })
}

impl ScalingReport {
    /// The aligned table printed by `bench scaling`.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{} ({} logical / {} physical cores), bench depth {}, hash {} MB, {} rounds of {} positions\n\
             (medians over rounds; speedups are medians of the per-round ratios to the first row)\n\n",
            self.machine.model,
            self.machine.logical_cores,
            self.machine.physical_cores,
            self.depth,
            self.hash_mb,
            self.rounds,
            self.positions
        );
        s.push_str("threads       nodes        nps  nps speedup  time to depth  ttd speedup  same best move  stop median  stop max\n");
        for r in &self.rows {
            s.push_str(&format!(
                "{:>7} {:>11} {:>10} {:>12.2} {:>11} ms {:>12.2} {:>14.0}% {:>9.2} ms {:>6.2} ms\n",
                r.threads,
                r.nodes,
                r.nps,
                r.nps_speedup,
                r.time_to_depth_ms,
                r.ttd_speedup,
                r.best_move_agreement * 100.0,
                r.stop_median_us as f64 / 1000.0,
                r.stop_max_us as f64 / 1000.0
            ));
        }
        s
    }

    /// The speedups against thread count as an SVG chart: NPS and time to depth, the ideal
    /// (linear) line, labelled axes, the machine in the title.
    ///
    /// # Errors
    ///
    /// [`Error::Internal`] if plotting fails (it only draws into a string).
    pub fn svg(&self) -> Result<String, Error> {
        use plotters::prelude::*;
        let fail = |e: &dyn std::fmt::Display| Error::Internal(format!("chart: {e}"));
        let max_threads = self.rows.iter().map(|r| r.threads).max().unwrap_or(1) as f64;
        let top = self
            .rows
            .iter()
            .flat_map(|r| [r.nps_speedup, r.ttd_speedup])
            .fold(max_threads, f64::max)
            * 1.1;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (800, 560)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| fail(&e))?;
            let title = format!(
                "lazuli thread scaling: {} ({} cores), bench depth {}",
                self.machine.model, self.machine.logical_cores, self.depth
            );
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 20))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(60)
                .build_cartesian_2d(0.8f64..max_threads * 1.05 + 0.2, 0f64..top)
                .map_err(|e| fail(&e))?;
            // One tick per whole thread count, labelled only where a count was measured.
            let measured: Vec<usize> = self.rows.iter().map(|r| r.threads).collect();
            chart
                .configure_mesh()
                .x_desc("threads")
                .y_desc("speedup over 1 thread")
                .x_labels(max_threads as usize + 1)
                .x_label_formatter(&|x| {
                    let n = x.round();
                    if (x - n).abs() < 1e-6 && measured.contains(&(n as usize)) {
                        format!("{n:.0}")
                    } else {
                        String::new()
                    }
                })
                .y_label_formatter(&|y| format!("{y:.1}"))
                .draw()
                .map_err(|e| fail(&e))?;
            let ideal = [(1.0, 1.0), (max_threads, max_threads)];
            chart
                .draw_series(LineSeries::new(ideal, BLACK.stroke_width(1)))
                .map_err(|e| fail(&e))?
                .label("ideal (linear)")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
            type Curve = (&'static str, RGBColor, fn(&ScalingRow) -> f64);
            let series: [Curve; 2] = [
                ("nodes per second", BLUE, |r| r.nps_speedup),
                ("time to depth", RED, |r| r.ttd_speedup),
            ];
            for (name, color, value) in series {
                let points: Vec<(f64, f64)> = self
                    .rows
                    .iter()
                    .map(|r| (r.threads as f64, value(r)))
                    .collect();
                chart
                    .draw_series(LineSeries::new(points.clone(), color.stroke_width(3)))
                    .map_err(|e| fail(&e))?
                    .label(name)
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], color.stroke_width(3))
                    });
                chart
                    .draw_series(
                        points
                            .into_iter()
                            .map(|p| Circle::new(p, 5, color.filled())),
                    )
                    .map_err(|e| fail(&e))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .draw()
                .map_err(|e| fail(&e))?;
            root.present().map_err(|e| fail(&e))?;
        }
        Ok(svg)
    }

    /// The rows as CSV with a header line.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "threads,nodes,nps,nps_speedup,time_to_depth_ms,ttd_speedup,best_move_agreement,stop_median_us,stop_max_us\n",
        );
        for r in &self.rows {
            s.push_str(&format!(
                "{},{},{},{:.4},{},{:.4},{:.4},{},{}\n",
                r.threads,
                r.nodes,
                r.nps,
                r.nps_speedup,
                r.time_to_depth_ms,
                r.ttd_speedup,
                r.best_move_agreement,
                r.stop_median_us,
                r.stop_max_us
            ));
        }
        s
    }
}

/// `lazuli bench scaling ...`: table on stdout, files as asked, a progress bar on stderr.
///
/// # Errors
///
/// As [`ScalingConfig::parse`] and [`scaling`], and file write errors.
pub fn run_scaling_cli(args: &[&str]) -> Result<(), Error> {
    let config = ScalingConfig::parse(args)?;
    let total = (config.rounds * config.threads.len() * POSITIONS.len()) as u64;
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} positions, {elapsed} elapsed, about {eta} left",
        )
        .expect("a valid template"),
    );
    let report = scaling(&config, || bar.inc(1))?;
    bar.finish_and_clear();
    print!("{}", report.table());
    let write = |path: &std::path::Path, text: String| {
        std::fs::write(path, text)
            .map_err(|e| Error::InvalidCommand(format!("cannot write {}: {e}", path.display())))
    };
    if let Some(path) = &config.json {
        write(
            path,
            serde_json::to_string_pretty(&report).expect("plain data serialises"),
        )?;
    }
    if let Some(path) = &config.csv {
        write(path, report.csv())?;
    }
    if let Some(path) = &config.svg {
        write(path, report.svg()?)?;
    }
    Ok(())
}
