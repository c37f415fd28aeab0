//! The `lazuli-lab train` and `lazuli-lab loss` command lines: flags, progress on stderr, summary on
//! stdout.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::checkpoint::Checkpoint;
use super::net::{self, Network, QuantisedNet};
use super::{
    DEFAULT_BATCH, DEFAULT_EPOCHS, DEFAULT_FINAL_LR_FRACTION, DEFAULT_HIDDEN, DEFAULT_LAMBDA,
    DEFAULT_LR, DEFAULT_SEED, DEFAULT_VALIDATION, DEFAULT_WEIGHT_CLIP, DEFAULT_WEIGHT_DECAY,
    LrSchedule, Progress, RunOptions, TrainConfig, quantised_loss, split, synth, train_with,
    usable,
};
use crate::cli::available_threads;
use crate::format::{self, PackedBoard};

/// The progress line is refreshed at most this often (seconds).
const PROGRESS_INTERVAL_S: f64 = 0.5;
/// Positions (the last usable ones) used to compare the quantised and float evaluations.
const QUANTISATION_CHECK_POSITIONS: usize = 2000;
/// Positions (the first usable ones) whose mean rounding error `b2` absorbs.
const CALIBRATION_POSITIONS: usize = 10_000;
/// Default `--lr-gamma` for the step schedule.
const DEFAULT_LR_GAMMA: f32 = 0.1;

/// The flags of `lazuli-lab train`.
#[derive(clap::Parser, Debug)]
#[command(args_override_self = true)]
pub struct TrainArgs {
    /// The training data: exactly one of `--data` and `--synthetic`.
    #[command(flatten)]
    pub source: Source,
    /// Where to write the quantised LZNN net.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Hidden neurons per perspective (a positive multiple of 8) [default: --init's width,
    /// else 256]. Wider than --init's net widens it: its lanes are kept, the new lanes start
    /// with random input weights and zero output weights, so the wider net starts scoring
    /// every position as the narrower one did.
    #[arg(long, value_name = "N")]
    pub hidden: Option<usize>,
    /// Start from this LZNN net file instead of random weights (the file's integer weights are
    /// the start): a net trained before goes on learning from new data, or is widened.
    #[arg(long, value_name = "FILE")]
    pub init: Option<PathBuf>,
    /// Output buckets by piece count: 1, 2, 4 or 8 output layers over one hidden layer
    /// [default: --init's, else 1]. With --init from a one-bucket net, its output layer starts
    /// every bucket.
    #[arg(long, value_name = "N")]
    pub buckets: Option<usize>,
    /// Passes over the data.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_EPOCHS)]
    pub epochs: usize,
    /// Positions per optimiser step.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BATCH)]
    pub batch: usize,
    /// Initial learning rate.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_LR)]
    pub lr: f32,
    /// Weight of the game result in the target (the rest is the search score).
    #[arg(long, value_name = "X", default_value_t = DEFAULT_LAMBDA)]
    pub lambda: f32,
    /// Worker threads (1 to 256) [default: the available parallelism].
    #[arg(long, value_name = "N", default_value_t = available_threads(), hide_default_value = true)]
    pub threads: usize,
    /// The run's seed.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Share of the usable positions held out for validation, in [0, 1): the last ones in file
    /// order (the last chunks' whole games).
    #[arg(long, value_name = "X", default_value_t = DEFAULT_VALIDATION)]
    pub val: f64,
    /// AdamW decoupled weight decay (weights only, not biases).
    #[arg(long, value_name = "X", default_value_t = DEFAULT_WEIGHT_DECAY)]
    pub wd: f32,
    /// Weights are clipped to +- this after every step.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_WEIGHT_CLIP)]
    pub clip: f32,
    /// Cosine schedule (the default): final lr as a fraction of --lr.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_FINAL_LR_FRACTION)]
    pub final_lr: f32,
    /// Step schedule instead: multiply the lr by --lr-gamma every N epochs.
    #[arg(long, value_name = "N")]
    pub lr_drop: Option<usize>,
    /// The step schedule's factor.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_LR_GAMMA)]
    pub lr_gamma: f32,
    /// Keep b2 exactly rounded instead of absorbing the mean rounding error.
    #[arg(long)]
    pub no_calibrate: bool,
    /// Also train one shared row per piece (colour and role), merged into every square's row
    /// at the end: what all squares of a piece share is learnt from every position with it.
    #[arg(long)]
    pub factoriser: bool,
    /// Also train on positions without castling rights mirrored left to right (alternate
    /// epochs): their value is the same, so a small data set counts twice.
    #[arg(long)]
    pub mirror: bool,
    /// Save the run's state to FILE at the end of every epoch (through FILE.tmp, renamed), so
    /// that --resume can go on with it. An existing FILE is refused unless --resume names it.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Go on with the run saved in FILE from its next epoch, and keep saving to FILE (or to
    /// --checkpoint's file). The data and the flags must be the run's (--threads aside; with
    /// the same thread count the result is the uninterrupted run's, bit for bit).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Stop at the end of epoch N, leaving the checkpoint (and no net file) for --resume.
    #[arg(long, value_name = "N")]
    pub stop_after: Option<usize>,
}

/// Where the positions come from.
#[derive(clap::Args, Debug)]
#[group(required = true, multiple = false)]
pub struct Source {
    /// A data file (binpack or marlinformat), or a directory whose *.binpack and *.bin files
    /// are read in name order.
    #[arg(long, value_name = "PATH")]
    pub data: Option<PathBuf>,
    /// Train on N generated positions instead (for testing and timing).
    #[arg(long, value_name = "N")]
    pub synthetic: Option<usize>,
}

impl TrainArgs {
    /// The training run the flags ask for.
    pub fn config(&self) -> TrainConfig {
        TrainConfig {
            hidden: self.hidden.unwrap_or(DEFAULT_HIDDEN),
            buckets: self.buckets.unwrap_or(1),
            epochs: self.epochs,
            batch_size: self.batch,
            lr: self.lr,
            schedule: match self.lr_drop {
                Some(every_epochs) => LrSchedule::Step {
                    every_epochs,
                    gamma: self.lr_gamma,
                },
                None => LrSchedule::Cosine {
                    final_fraction: self.final_lr,
                },
            },
            lambda: self.lambda,
            weight_decay: self.wd,
            weight_clip: self.clip,
            threads: self.threads,
            seed: self.seed,
            validation_fraction: self.val,
            factoriser: self.factoriser,
            mirror: self.mirror,
        }
    }
}

/// `lazuli-lab train ...`: trains with progress on stderr, writes the net file and prints a
/// summary on stdout.
///
/// # Errors
///
/// A configuration the trainer refuses, unreadable data, an unwritable net file.
pub fn run_cli(args: &TrainArgs) -> Result<(), String> {
    let start = match &args.init {
        Some(path) => Some(read_net(path)?.dequantise()),
        None => None,
    };
    let mut cfg = args.config();
    if let Some(net) = &start {
        cfg.hidden = args.hidden.unwrap_or(net.hidden);
        cfg.buckets = args.buckets.unwrap_or(net.buckets);
    }
    cfg.validate()?;
    let (resume, save) = checkpoint_files(args, &cfg)?;
    if let Some(saved) = &resume
        && saved.config.threads != cfg.threads
    {
        eprintln!(
            "note: the checkpoint's run had {} threads, this one {}: the result will differ \
             slightly from the uninterrupted run's",
            saved.config.threads, cfg.threads
        );
    }
    let data = match (&args.source.data, args.source.synthetic) {
        (Some(path), _) => {
            format::read_path(path).map_err(|e| format!("reading {}: {e}", path.display()))?
        }
        (None, Some(n)) => synth::generate(n, cfg.seed),
        (None, None) => unreachable!("clap requires --data or --synthetic"),
    };
    eprintln!(
        "training {} -> {}x2 -> 1 ({} output buckets) on {} records, {} threads",
        net::INPUTS,
        cfg.hidden,
        cfg.buckets,
        data.len(),
        cfg.threads
    );
    let started = Instant::now();
    let mut last_print = Instant::now();
    let mut last = None;
    let options = RunOptions {
        start,
        resume,
        checkpoint: save,
        stop_after: args.stop_after,
    };
    let net = train_with(&data, &cfg, options, |p| {
        print_progress(p, &mut last_print);
        last = Some(p.clone());
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let last = last.expect("train reports at least once");
    if let (Some(stop), Some(save)) = (args.stop_after, save)
        && stop < cfg.epochs
    {
        println!(
            "stopped after epoch {stop} of {} ({seconds:.1} s); the same command with \
             --resume {} goes on",
            cfg.epochs,
            save.display()
        );
        return Ok(());
    }
    let mut quantised = net.quantise();
    let shifts = if args.no_calibrate {
        vec![0]
    } else {
        let sample: Vec<_> = data
            .iter()
            .filter_map(usable)
            .take(CALIBRATION_POSITIONS)
            .collect();
        quantised.calibrate_b2(&net, &sample)
    };
    let out = args.out.display();
    quantised
        .write(&args.out)
        .map_err(|e| format!("writing {out}: {e}"))?;
    // Read the file back: what the engine will load must be what was trained.
    let bytes = std::fs::read(&args.out).map_err(|e| format!("reading back {out}: {e}"))?;
    let size = bytes.len();
    if QuantisedNet::from_bytes(&bytes)? != quantised {
        return Err(format!("{out} does not read back as the network written"));
    }
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.6}"));
    if last.first_epoch > 0 {
        println!(
            "epochs: {} ({} resumed, {seconds:.1} s)",
            cfg.epochs, last.first_epoch
        );
    } else {
        println!("epochs: {} ({seconds:.1} s)", cfg.epochs);
    }
    println!(
        "positions: {} training, {} validation, {} skipped",
        last.train_positions, last.val_positions, last.skipped
    );
    println!("final train loss: {}", fmt(last.train_loss));
    println!("final validation loss: {}", fmt(last.val_loss));
    let (mean, max, n) = quantisation_error(&net, &quantised, &data);
    let shifts_cp: Vec<String> = shifts
        .iter()
        .map(|&s| {
            format!(
                "{:+.1}",
                s as f64 * net::SCALE as f64 / (net::QA * net::QB) as f64
            )
        })
        .collect();
    println!(
        "quantised vs float over {n} positions: mean |diff| {mean:.2} cp, max {max:.1} cp \
         (b2 calibrated by {} cp)",
        shifts_cp.join(" ")
    );
    println!("wrote {out} ({size} bytes)");
    Ok(())
}

/// The flags of `lazuli-lab loss`.
#[derive(clap::Parser, Debug)]
#[command(args_override_self = true)]
pub struct LossArgs {
    /// A data file (binpack or marlinformat), or a directory whose *.binpack and *.bin files
    /// are read in name order.
    #[arg(long, value_name = "PATH")]
    pub data: PathBuf,
    /// Share of the usable positions scored, in (0, 1]: the last ones in file order, the
    /// positions `lazuli-lab train --val X` holds out from the same data (1: all of them).
    #[arg(long, value_name = "X", default_value_t = DEFAULT_VALIDATION)]
    pub val: f64,
    /// Weight of the game result in the target, as in training.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_LAMBDA)]
    pub lambda: f32,
    /// The LZNN net files to score.
    #[arg(value_name = "NET", required = true)]
    pub nets: Vec<PathBuf>,
}

/// `lazuli-lab loss ...`: each net's loss on the same held-out positions, one line each on stdout.
///
/// # Errors
///
/// A share outside (0, 1], unreadable data or net files, no usable position held out.
pub fn run_loss_cli(args: &LossArgs) -> Result<(), String> {
    if !(args.val > 0.0 && args.val <= 1.0) {
        return Err(format!("--val {} is outside (0, 1]", args.val));
    }
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(format!("--lambda {} is outside [0, 1]", args.lambda));
    }
    let path = &args.data;
    let data = format::read_path(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let (_, held_out, skipped) = split(&data, args.val);
    if held_out.is_empty() {
        return Err(format!("no usable position held out of {}", path.display()));
    }
    let nets = args
        .nets
        .iter()
        .map(|p| read_net(p))
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "{} positions held out (the last {} of {} usable, {} skipped), lambda {}",
        held_out.len(),
        args.val,
        data.len() - skipped,
        skipped,
        args.lambda
    );
    for (net, path) in nets.iter().zip(&args.nets) {
        let loss = quantised_loss(net, &data, &held_out, args.lambda)
            .expect("held-out indices are usable records");
        println!(
            "{loss:.6}  {} (hidden {}, output buckets {})",
            path.display(),
            net.hidden,
            net.buckets
        );
    }
    Ok(())
}

/// The checkpoint `--resume` names, read and checked against the run's settings `cfg` (before
/// the data is read), and the file the run saves its checkpoints to (`--checkpoint`'s, else
/// `--resume`'s). Refuses to overwrite a checkpoint the run does not resume, and
/// `--stop-after` without a file to save to.
fn checkpoint_files<'a>(
    args: &'a TrainArgs,
    cfg: &TrainConfig,
) -> Result<(Option<Checkpoint>, Option<&'a Path>), String> {
    let save = args.checkpoint.as_deref().or(args.resume.as_deref());
    if let Some(path) = &args.checkpoint
        && path.exists()
        && !args.resume.as_deref().is_some_and(|r| same_file(path, r))
    {
        return Err(format!(
            "{} exists: add --resume {} to go on with its run, or remove it to start again",
            path.display(),
            path.display()
        ));
    }
    if args.stop_after.is_some() && save.is_none() {
        return Err("--stop-after needs --checkpoint (or --resume) to save the run to".into());
    }
    let resume = match &args.resume {
        Some(path) => {
            let saved = Checkpoint::read(path)?;
            saved
                .check_settings(cfg)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Some(saved)
        }
        None => None,
    };
    Ok((resume, save))
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// A net file, or the error naming it.
fn read_net(path: &Path) -> Result<QuantisedNet, String> {
    std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| QuantisedNet::from_bytes(&bytes))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Mean and largest `|float cp - integer cp|` over the last usable records of `data`.
fn quantisation_error(net: &Network, q: &QuantisedNet, data: &[PackedBoard]) -> (f64, f64, usize) {
    let (mut sum, mut max, mut n) = (0.0f64, 0.0f64, 0usize);
    for d in data
        .iter()
        .rev()
        .filter_map(usable)
        .take(QUANTISATION_CHECK_POSITIONS)
    {
        let diff = (net.eval_cp(&d) as f64 - q.eval(&d) as f64).abs();
        (sum, max, n) = (sum + diff, max.max(diff), n + 1);
    }
    (sum / n.max(1) as f64, max, n)
}

fn print_progress(p: &Progress, last_print: &mut Instant) {
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.6}"));
    if p.batch == 0 {
        let start = match p.first_epoch {
            0 => "initial".to_string(),
            done => format!("resumed after epoch {done}:"),
        };
        eprintln!(
            "{} training, {} validation, {} skipped; {start} validation loss {}",
            p.train_positions,
            p.val_positions,
            p.skipped,
            fmt(p.val_loss)
        );
    } else if p.epoch_end {
        eprintln!(
            "\repoch {}/{} | train loss {} | validation loss {} | {:.0} pos/s | lr {:.2e}   ",
            p.epoch,
            p.epochs,
            fmt(p.train_loss),
            fmt(p.val_loss),
            p.positions_per_second,
            p.lr
        );
    } else if last_print.elapsed().as_secs_f64() >= PROGRESS_INTERVAL_S {
        *last_print = Instant::now();
        eprint!(
            "\repoch {}/{} batch {}/{} | train loss {} | {:.0} pos/s | lr {:.2e}   ",
            p.epoch,
            p.epochs,
            p.batch,
            p.batches,
            fmt(p.train_loss),
            p.positions_per_second,
            p.lr
        );
    }
}
