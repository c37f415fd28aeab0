//! The command-line tools of the `lazuli` binary, outside the library that C programs link:
//! `bench` on the command line, the thread-scaling run and its chart, and the null-move study.
//! They drive the engine only through the library's public API, and their dependencies
//! (clap, plotters, indicatif, serde, ctrlc) are linked into the binary alone.

pub mod chart;
pub mod scaling;
pub mod study;

use std::ops::{RangeBounds, RangeInclusive};

use clap::builder::TypedValueParser;
use lazuli::{BenchConfig, Error, bench_positions};

/// `lazuli bench [HASH] [THREADS] [DEPTH]`, or `lazuli bench scaling ...`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    /// Runs the scaling benchmark instead.
    #[command(subcommand)]
    pub scaling: Option<BenchCommand>,
    /// Hash table size in MB (1 to 1048576)
    #[arg(default_value_t = BenchConfig::default().hash_mb.to_string())]
    pub hash: String,
    /// Search threads (1 to 1024)
    #[arg(default_value_t = BenchConfig::default().threads.to_string())]
    pub threads: String,
    /// Fixed depth per position (1 to 64)
    #[arg(default_value_t = BenchConfig::default().depth.to_string())]
    pub depth: String,
}

/// What `lazuli bench` runs besides the bench itself.
#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// The bench at several thread counts: speedups, same best move, stop latency
    Scaling(scaling::ScalingConfig),
}

/// `lazuli bench ...` on the command line: progress on stderr, summary on stdout;
/// `lazuli bench scaling ...` runs the scaling benchmark. The positional numbers are checked by
/// [`BenchConfig::parse`], as those of the UCI `bench` command are.
///
/// # Errors
///
/// Argument and engine errors.
pub fn bench_cli(args: BenchArgs) -> Result<(), Error> {
    if let Some(BenchCommand::Scaling(scaling)) = args.scaling {
        return scaling::run_cli(scaling);
    }
    let config = BenchConfig::parse(&[&args.hash, &args.threads, &args.depth])?;
    let n = bench_positions().len();
    let report = config.run(|i, r| {
        eprintln!(
            "Position {:>2}/{n}: {:<7} {:>10} nodes {:>6} ms  {}",
            i + 1,
            r.best,
            r.nodes,
            r.time.as_millis(),
            r.fen
        );
    })?;
    println!("{}", report.summary());
    if let Some(bytes) = report.huge_page_bytes {
        eprintln!(
            "Hash in huge pages: {} of {} MB (AnonHugePages of the table's mappings)",
            bytes >> 20,
            config.hash_mb
        );
    }
    Ok(())
}

/// A clap value parser for a whole number: values outside `valid` are errors, valid ones are
/// then clamped to `clamp` (the tools' flags have always clamped, e.g. `--jobs 1000` runs 256).
pub fn number<T>(
    valid: impl RangeBounds<u64>,
    clamp: RangeInclusive<u64>,
) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    let (low, high) = clamp.into_inner();
    clap::value_parser!(u64).range(valid).map(move |n| {
        T::try_from(n.clamp(low, high))
            .unwrap_or_else(|_| panic!("the clamp's upper bound {high} fits the type"))
    })
}

/// A clap value parser for `on` (true) and `off` (false).
pub fn on_off() -> impl TypedValueParser<Value = bool> {
    clap::builder::PossibleValuesParser::new(["on", "off"]).map(|v| v == "on")
}

/// A progress bar on stderr: `{bar} {pos}/{len} positions, elapsed, estimate`.
pub fn progress_bar(len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} positions, {elapsed} elapsed, about {eta} left",
        )
        .expect("a valid template"),
    );
    bar
}

/// Writes `text` to `path`, as a command error when it cannot.
///
/// # Errors
///
/// [`Error::InvalidCommand`] naming the file.
pub fn write_file(path: &std::path::Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text)
        .map_err(|e| Error::InvalidCommand(format!("cannot write {}: {e}", path.display())))
}
