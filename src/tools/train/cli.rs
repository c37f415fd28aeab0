//! The `lazuli train` command line: flags, progress on stderr, summary on stdout.

use std::path::Path;
use std::time::Instant;

use super::net::{self, Network, QuantisedNet};
use super::{DEFAULT_FINAL_LR_FRACTION, LrSchedule, Progress, TrainConfig, synth, train, usable};
use crate::tools::format::{self, PackedBoard};

/// The progress line is refreshed at most this often (seconds).
const PROGRESS_INTERVAL_S: f64 = 0.5;
/// Positions (the last usable ones) used to compare the quantised and float evaluations.
const QUANTISATION_CHECK_POSITIONS: usize = 2000;
/// Positions (the first usable ones) whose mean rounding error `b2` absorbs.
const CALIBRATION_POSITIONS: usize = 10_000;
/// Default `--lr-gamma` for the step schedule.
const DEFAULT_LR_GAMMA: f32 = 0.1;

const USAGE: &str = "usage: lazuli train (--data PATH | --synthetic N) --out FILE [--hidden N] \
[--epochs N] [--batch N] [--lr X] [--lambda X] [--threads N] [--seed N] [--val X] [--wd X] \
[--clip X] [--final-lr X] [--lr-drop EPOCHS --lr-gamma X] [--no-calibrate]
  --data PATH     a marlinformat file, or a directory whose *.bin files are read in name order
  --synthetic N   train on N generated positions instead (for testing and timing)
  --out FILE      where to write the quantised LZNN net
  --final-lr X    cosine schedule (the default): final lr as a fraction of --lr
  --lr-drop N     step schedule instead: multiply the lr by --lr-gamma every N epochs
  --no-calibrate  keep b2 exactly rounded instead of absorbing the mean rounding error";

/// `lazuli train ARGS`: parses the flags in [`USAGE`], trains with progress on stderr, writes
/// the net file and prints a summary on stdout.
pub fn run_cli(args: &[&str]) -> Result<(), String> {
    let mut cfg = TrainConfig::default();
    let (mut data_path, mut synthetic, mut out) = (None, None, None);
    let (mut lr_drop, mut lr_gamma, mut final_lr) =
        (None, DEFAULT_LR_GAMMA, DEFAULT_FINAL_LR_FRACTION);
    let mut calibrate = true;
    let mut it = args.iter();
    while let Some(&flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}");
            return Ok(());
        }
        if flag == "--no-calibrate" {
            calibrate = false;
            continue;
        }
        let value = *it
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        fn parse<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
            v.parse().map_err(|_| format!("bad value for {flag}: {v}"))
        }
        match flag {
            "--data" => data_path = Some(value),
            "--synthetic" => synthetic = Some(parse::<usize>(flag, value)?),
            "--out" => out = Some(value),
            "--hidden" => cfg.hidden = parse(flag, value)?,
            "--epochs" => cfg.epochs = parse(flag, value)?,
            "--batch" => cfg.batch_size = parse(flag, value)?,
            "--lr" => cfg.lr = parse(flag, value)?,
            "--lambda" => cfg.lambda = parse(flag, value)?,
            "--threads" => cfg.threads = parse(flag, value)?,
            "--seed" => cfg.seed = parse(flag, value)?,
            "--val" => cfg.validation_fraction = parse(flag, value)?,
            "--wd" => cfg.weight_decay = parse(flag, value)?,
            "--clip" => cfg.weight_clip = parse(flag, value)?,
            "--final-lr" => final_lr = parse(flag, value)?,
            "--lr-drop" => lr_drop = Some(parse::<usize>(flag, value)?),
            "--lr-gamma" => lr_gamma = parse(flag, value)?,
            _ => return Err(format!("unknown flag {flag}\n{USAGE}")),
        }
    }
    cfg.schedule = match lr_drop {
        Some(every_epochs) => LrSchedule::Step {
            every_epochs,
            gamma: lr_gamma,
        },
        None => LrSchedule::Cosine {
            final_fraction: final_lr,
        },
    };
    cfg.validate()?;
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let data = match (data_path, synthetic) {
        (Some(path), None) => {
            format::read_path(Path::new(path)).map_err(|e| format!("reading {path}: {e}"))?
        }
        (None, Some(n)) => synth::generate(n, cfg.seed),
        _ => {
            return Err(format!(
                "give exactly one of --data and --synthetic\n{USAGE}"
            ));
        }
    };
    eprintln!(
        "training {} -> {}x2 -> 1 on {} records, {} threads",
        net::INPUTS,
        cfg.hidden,
        data.len(),
        cfg.threads
    );
    let started = Instant::now();
    let mut last_print = Instant::now();
    let mut last = None;
    let net = train(&data, &cfg, |p| {
        print_progress(p, &mut last_print);
        last = Some(p.clone());
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let mut quantised = net.quantise();
    let shift = if calibrate {
        let sample: Vec<_> = data
            .iter()
            .filter_map(usable)
            .take(CALIBRATION_POSITIONS)
            .collect();
        quantised.calibrate_b2(&net, &sample)
    } else {
        0
    };
    quantised
        .write(Path::new(out))
        .map_err(|e| format!("writing {out}: {e}"))?;
    // Read the file back: what the engine will load must be what was trained.
    let bytes = std::fs::read(out).map_err(|e| format!("reading back {out}: {e}"))?;
    let size = bytes.len();
    if QuantisedNet::from_bytes(&bytes)? != quantised {
        return Err(format!("{out} does not read back as the network written"));
    }
    let last = last.expect("train reports at least once");
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.6}"));
    println!("epochs: {} ({seconds:.1} s)", cfg.epochs);
    println!(
        "positions: {} training, {} validation, {} skipped",
        last.train_positions, last.val_positions, last.skipped
    );
    println!("final train loss: {}", fmt(last.train_loss));
    println!("final validation loss: {}", fmt(last.val_loss));
    let (mean, max, n) = quantisation_error(&net, &quantised, &data);
    let shift_cp = shift as f64 * net::SCALE as f64 / (net::QA * net::QB) as f64;
    println!(
        "quantised vs float over {n} positions: mean |diff| {mean:.2} cp, max {max:.1} cp \
         (b2 calibrated by {shift_cp:+.1} cp)"
    );
    println!("wrote {out} ({size} bytes)");
    Ok(())
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
    if p.epoch == 0 {
        eprintln!(
            "{} training, {} validation, {} skipped; initial validation loss {}",
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
