//! The command-line tools of the `lazuli` binary, outside the library that C programs link:
//! `bench` on the command line, the thread-scaling run and its chart, the null-move study, and
//! the network's data generator (`datagen`, writing the marlinformat of `format`) and trainer
//! (`train`).
//! They drive the engine only through the library's public API, and their dependencies
//! (plotters, indicatif, serde, ctrlc) are linked into the binary alone.

pub mod chart;
pub mod datagen;
pub mod format;
pub mod rng;
pub mod scaling;
pub mod study;
pub mod train;

use lazuli::{BenchConfig, Error, bench_positions};

/// `lazuli bench ...` on the command line: progress on stderr, summary on stdout;
/// `lazuli bench scaling ...` runs the scaling benchmark.
///
/// # Errors
///
/// Argument and engine errors.
pub fn bench_cli(args: &[&str]) -> Result<(), Error> {
    if let Some((&"scaling", rest)) = args.split_first() {
        return scaling::run_cli(rest);
    }
    let config = BenchConfig::parse(args)?;
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
    Ok(())
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
