//! `lazuli bench scaling`: the bench at several thread counts, alternating them within each
//! round so that a busy machine slows all counts alike; speedups are medians of per-round
//! ratios; plus the time from `stop` to the best move.

use std::sync::Arc;
use std::time::{Duration, Instant};

use lazuli::{
    BENCH_DEPTH, BenchConfig, Engine, Error, Limits, SearchHandler, SearchInfo, bench_positions,
    nps,
};
use parking_lot::Mutex;
use shakmaty::Move;

use clap::ArgAction;
use clap::builder::TypedValueParser;

use super::{chart, number, progress_bar, write_file};

/// What `bench scaling` runs: the bench at each thread count, `rounds` times, thread counts
/// alternating within each round so that a busy machine slows all counts alike. Its fields are
/// the flags of `lazuli bench scaling`.
#[derive(clap::Parser, Clone, Debug, PartialEq, Eq)]
#[command(args_override_self = true)]
pub struct ScalingConfig {
    /// Thread counts, the first being the reference (normally 1) [default: 1, 2, 4, ... up to
    /// the logical cores].
    #[arg(long, value_name = "1,2,4", value_delimiter = ',', num_args = 1, action = ArgAction::Set,
          default_values_t = ScalingConfig::doubling(num_cpus::get()), hide_default_value = true,
          value_parser = number::<usize>(1..=1024, 1..=1024))]
    pub threads: Vec<usize>,
    /// Thread counts 1, 2, 4, ... up to N, and N itself, instead of `--threads`.
    #[arg(long, value_name = "N", conflicts_with = "threads",
          value_parser = number::<usize>(1..=1 << 20, 1..=1024))]
    pub max: Option<usize>,
    /// Fixed depth per position.
    #[arg(long, value_name = "D", default_value_t = BENCH_DEPTH,
          value_parser = number::<u32>(1..=1 << 20, 1..=64))]
    pub depth: u32,
    /// Hash table size in MB.
    #[arg(long = "hash", value_name = "MB", default_value_t = 16, value_parser = positive())]
    pub hash_mb: usize,
    /// Repetitions; figures are medians over rounds.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = positive())]
    pub rounds: usize,
    /// `go infinite` / `stop` trials per thread count for the stop latency.
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = positive())]
    pub stop_trials: usize,
    /// Write the rows as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
    /// Write the rows as CSV here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<std::path::PathBuf>,
    /// Draw the speedups as an SVG chart here.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
}

/// The numbers `bench scaling` takes besides thread counts and depth: 1 to 2^20.
fn positive() -> impl TypedValueParser<Value = usize> {
    number(1..=1 << 20, 1..=1 << 20)
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

    /// The thread counts to run: doubling up to `max` when given, else `threads`.
    pub fn thread_counts(&self) -> Vec<usize> {
        self.max
            .map_or_else(|| self.threads.clone(), Self::doubling)
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
struct StopClock(Arc<Mutex<Option<Instant>>>);

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
    engine.set_threads(threads)?;
    engine.set_hash_mb(hash_mb)?;
    let mut out = Vec::with_capacity(trials);
    for i in 0..trials {
        engine.set_position(Some(bench_positions()[i % bench_positions().len()]), &[])?;
        let arrived = Arc::new(Mutex::new(None));
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
    let thread_counts = config.thread_counts();
    let n = thread_counts.len();
    let mut nodes = vec![Vec::new(); n];
    let mut times = vec![Vec::new(); n];
    let mut agree = vec![0usize; n];
    for _ in 0..config.rounds {
        let mut reference: Option<Vec<String>> = None;
        for (i, &threads) in thread_counts.iter().enumerate() {
            let bench = BenchConfig {
                hash_mb: config.hash_mb,
                threads,
                depth: config.depth,
            };
            let report = bench.run(|_, _| progress())?;
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
    for (i, &threads) in thread_counts.iter().enumerate() {
        let stops = stop_latencies(threads, config.hash_mb, config.stop_trials)?;
        rows.push(ScalingRow {
            threads,
            nodes: median(nodes[i].clone()),
            nps: median(round_nps[i].clone()),
            nps_speedup: ratio(&round_nps[i], &round_nps[0]),
            time_to_depth_ms: median(round_ms[i].clone()),
            ttd_speedup: ratio(&round_ms[0], &round_ms[i]),
            best_move_agreement: agree[i] as f64 / (config.rounds * bench_positions().len()) as f64,
            stop_median_us: median(stops.clone()),
            stop_max_us: stops.iter().copied().max().unwrap_or(0),
        });
    }
    Ok(ScalingReport {
        machine: Machine::current(),
        depth: config.depth,
        hash_mb: config.hash_mb,
        rounds: config.rounds,
        positions: bench_positions().len(),
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
/// As [`scaling`], and file write errors.
pub fn run_cli(config: ScalingConfig) -> Result<(), Error> {
    let total = (config.rounds * config.thread_counts().len() * bench_positions().len()) as u64;
    let bar = progress_bar(total);
    let report = scaling(&config, || bar.inc(1))?;
    bar.finish_and_clear();
    print!("{}", report.table());
    if let Some(path) = &config.json {
        let json = serde_json::to_string_pretty(&report).expect("plain data serialises");
        write_file(path, &json)?;
    }
    if let Some(path) = &config.csv {
        write_file(path, &report.csv())?;
    }
    if let Some(path) = &config.svg {
        write_file(path, &chart::svg(&report)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// The arguments after `lazuli bench scaling`, parsed.
    fn parse(args: &[&str]) -> Result<ScalingConfig, clap::Error> {
        ScalingConfig::try_parse_from(std::iter::once("scaling").chain(args.iter().copied()))
    }

    #[test]
    fn flags() {
        assert_eq!(ScalingConfig::doubling(6), [1, 2, 4, 6]);
        assert_eq!(ScalingConfig::doubling(4), [1, 2, 4]);
        let c = parse(&[]).unwrap();
        assert_eq!(c.thread_counts(), ScalingConfig::doubling(num_cpus::get()));
        assert_eq!(
            (c.depth, c.hash_mb, c.rounds, c.stop_trials),
            (BENCH_DEPTH, 16, 3, 10)
        );
        assert_eq!(
            parse(&["--max", "6"]).unwrap().thread_counts(),
            [1, 2, 4, 6]
        );
        let c = parse(&["--threads", "1,3", "--threads", "2,1", "--depth", "99"]).unwrap();
        assert_eq!((c.thread_counts(), c.depth), (vec![2, 1], 64));
        let c = parse(&["--max", "5000"]).unwrap();
        assert_eq!(c.thread_counts().last(), Some(&1024));
        for bad in [
            &["--threads", "0"][..],
            &["--threads", ""],
            &["--rounds", "0"],
            &["--max", "2", "--threads", "1,2"],
            &["--json"],
            &["3"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
