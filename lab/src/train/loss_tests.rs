//! Tests of the tools around training: `lazuli-lab loss` (nets scored on the held-out games) and
//! `lazuli-lab train --init` (a run that goes on from a net file).

use super::net::{Network, QuantisedNet};
use super::tests::{data, parse, small_config};
use super::*;
use crate::format::{self, Decoded};
use lazuli::Rng;

/// The arguments after `lazuli-lab loss`, parsed.
fn parse_loss(args: &[&str]) -> Result<LossArgs, clap::Error> {
    use clap::Parser;
    LossArgs::try_parse_from(std::iter::once("loss").chain(args.iter().copied()))
}

/// `lazuli-lab loss` scores the positions a training run holds out: the split is the trainer's, the
/// quantised net's loss there is the trainer's final validation loss up to rounding, a trained
/// net scores well below an untrained one, and bad input is an error, not a panic.
#[test]
fn held_out_loss() {
    let records = data(4000, 21);
    let cfg = TrainConfig {
        epochs: 6,
        ..small_config(2)
    };
    let mut last = None;
    let trained = train(&records, &cfg, |p| last = Some(p.clone())).unwrap();
    let last = last.unwrap();
    let (training, held, skipped) = split(&records, cfg.validation_fraction);
    assert_eq!(
        (training.len(), held.len(), skipped),
        (last.train_positions, last.val_positions, last.skipped)
    );
    assert!(held.iter().all(|&i| i > *training.last().unwrap()));

    let mut quantised = trained.quantise();
    let sample: Vec<Decoded> = records.iter().filter_map(usable).take(1000).collect();
    quantised.calibrate_b2(&trained, &sample);
    let loss = quantised_loss(&quantised, &records, &held, cfg.lambda).unwrap();
    let float = last.val_loss.unwrap();
    assert!(
        (loss - float).abs() < 0.02 * float,
        "{loss} against {float}"
    );
    let untrained = Network::new_random(cfg.hidden, 1, &mut Rng::new(9)).quantise();
    let before = quantised_loss(&untrained, &records, &held, cfg.lambda).unwrap();
    assert!(loss < 0.8 * before, "{before} -> {loss}");
    assert_eq!(quantised_loss(&quantised, &records, &[], cfg.lambda), None);

    // The command line: data and net files in, errors for what it cannot score.
    let dir = std::env::temp_dir().join(format!("lazuli-loss-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    format::write_file(&dir.join("data.bin"), &records).unwrap();
    let (a, b) = (dir.join("a.lznn"), dir.join("b.lznn"));
    quantised.write(&a).unwrap();
    untrained.write(&b).unwrap();
    let (d, a, b) = (
        dir.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    );
    run_loss_cli(&parse_loss(&["--data", d, "--val", "0.1", a, b]).unwrap()).unwrap();
    run_loss_cli(&parse_loss(&["--data", d, "--val", "1", a]).unwrap()).unwrap();
    let missing = dir.join("missing.lznn");
    for bad in [
        &["--data", d, "--val", "0", a][..],
        &["--data", d, "--val", "1.5", a],
        &["--data", d, "--lambda", "2", a],
        &["--data", d, missing.to_str().unwrap()],
        &["--data", d, dir.join("data.bin").to_str().unwrap()],
        &["--data", missing.to_str().unwrap(), a],
    ] {
        assert!(run_loss_cli(&parse_loss(bad).unwrap()).is_err(), "{bad:?}");
    }
    assert!(parse_loss(&["--data", d]).is_err(), "no net file");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--init`: a run that starts from a trained net's file starts where that net is (its first
/// validation loss is the file's held-out loss, far below a random start's) and goes on
/// learning; `--hidden` wider than the start widens it, narrower is refused.
#[test]
fn training_goes_on_from_a_net_file() {
    let records = data(4000, 23);
    let cfg = TrainConfig {
        epochs: 8,
        ..small_config(2)
    };
    let first = train(&records, &cfg, |_| {}).unwrap().quantise();
    let (_, held, _) = split(&records, cfg.validation_fraction);
    let file_loss = quantised_loss(&first, &records, &held, cfg.lambda).unwrap();
    let mut reports = Vec::new();
    let more = TrainConfig { seed: 8, ..cfg };
    train_from(&records, &more, Some(first.dequantise()), |p| {
        reports.push((p.epoch, p.val_loss))
    })
    .unwrap();
    let start_loss = reports[0].1.unwrap();
    assert!(
        (start_loss - file_loss).abs() < 0.02 * file_loss,
        "{start_loss} against {file_loss}"
    );
    let mut random_start = None;
    train(&records, &more, |p| {
        random_start = random_start.or(p.val_loss)
    })
    .unwrap();
    let random_start = random_start.unwrap();
    assert!(
        start_loss < 0.7 * random_start,
        "{random_start} {start_loss}"
    );
    let end_loss = reports.last().unwrap().1.unwrap();
    assert!(end_loss < start_loss, "{start_loss} -> {end_loss}");
    let narrower = TrainConfig { hidden: 16, ..more };
    assert!(train_from(&records, &narrower, Some(first.dequantise()), |_| {}).is_err());

    let dir = std::env::temp_dir().join(format!("lazuli-train-init-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (start, out) = (dir.join("start.lznn"), dir.join("out.lznn"));
    first.write(&start).unwrap();
    let (start, out) = (start.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "--synthetic",
        "1000",
        "--out",
        out,
        "--init",
        start,
        "--epochs",
        "1",
        "--threads",
        "1",
    ];
    run_cli(&parse(&args).unwrap()).unwrap();
    let written = QuantisedNet::from_bytes(&std::fs::read(out).unwrap()).unwrap();
    assert_eq!(written.hidden, first.hidden);
    let width = (2 * first.hidden).to_string();
    let wider = &[&args[..], &["--hidden", &width]].concat();
    run_cli(&parse(wider).unwrap()).unwrap();
    let written = QuantisedNet::from_bytes(&std::fs::read(out).unwrap()).unwrap();
    assert_eq!(written.hidden, 2 * first.hidden);
    let narrower = &[&args[..], &["--hidden", "8"]].concat();
    assert!(run_cli(&parse(narrower).unwrap()).is_err());
    let missing = dir.join("missing.lznn");
    let bad = [
        "--synthetic",
        "100",
        "--out",
        out,
        "--init",
        missing.to_str().unwrap(),
    ];
    assert!(run_cli(&parse(&bad).unwrap()).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
