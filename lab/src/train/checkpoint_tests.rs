//! Checkpoint tests: a run stopped and resumed equals the run that never stopped, bit for bit
//! (the float parameters, the checkpoints and the net file); damaged, truncated and
//! mismatched checkpoints are refused with an error, never a panic.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::checkpoint::{self, Checkpoint, temporary_path};
use super::net::Network;
use super::tests::{data, parse, small_config};
use super::*;

/// A fresh directory for one test's files.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-ckpt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The parameters' bits.
fn bits(net: &Network) -> Vec<u32> {
    net.params.iter().map(|x| x.to_bits()).collect()
}

/// [`train_with`] saving checkpoints to `save`, resuming `resume`, stopping after `stop_after`.
fn run(
    records: &[PackedBoard],
    cfg: &TrainConfig,
    save: Option<&Path>,
    resume: Option<Checkpoint>,
    stop_after: Option<usize>,
    progress: impl FnMut(&Progress),
) -> Result<Network, String> {
    let options = RunOptions {
        start: None,
        resume,
        checkpoint: save,
        stop_after,
    };
    train_with(records, cfg, options, progress)
}

/// The key property: runs stopped after `k` epochs and resumed reach the parameters and the
/// last checkpoint of the run that never stopped, bit for bit, with the factoriser's unmerged
/// rows, the epoch-dependent mirroring and the cosine schedule's step count all carried over.
#[test]
fn resumed_runs_repeat_the_uninterrupted_run() {
    let dir = temp_dir("resume");
    let records = data(2500, 31);
    let cfg = TrainConfig {
        epochs: 4,
        factoriser: true,
        mirror: true,
        ..small_config(3)
    };
    let whole_file = dir.join("whole.ckpt");
    let mut whole_reports = Vec::new();
    let whole = run(&records, &cfg, Some(&whole_file), None, None, |p| {
        whole_reports.push(p.clone())
    })
    .unwrap();
    // Saving checkpoints changes nothing.
    assert_eq!(bits(&train(&records, &cfg, |_| {}).unwrap()), bits(&whole));
    let whole_bytes = std::fs::read(&whole_file).unwrap();
    let batches = whole_reports[0].batches;
    for k in [1, 3] {
        let file = dir.join(format!("stopped-{k}.ckpt"));
        let mut reports = Vec::new();
        run(&records, &cfg, Some(&file), None, Some(k), |p| {
            reports.push(p.clone())
        })
        .unwrap();
        assert_eq!(reports.len(), 1 + k * (batches + 1));
        assert!(!temporary_path(&file).exists());
        let saved = Checkpoint::read(&file).unwrap();
        assert_eq!((saved.epochs_done, saved.steps), (k, (k * batches) as u64));
        // Nothing left to do before the checkpoint's epoch.
        let early = run(&records, &cfg, None, Some(saved.clone()), Some(k), |_| {});
        assert!(early.unwrap_err().contains("nothing to do"));
        // Another thread count may resume, though not bit for bit.
        let one = TrainConfig {
            threads: 1,
            ..cfg.clone()
        };
        assert!(run(&records, &one, None, Some(saved.clone()), None, |_| {}).is_ok());

        let mut reports = Vec::new();
        let resumed = run(&records, &cfg, Some(&file), Some(saved), None, |p| {
            reports.push(p.clone())
        })
        .unwrap();
        assert_eq!(bits(&resumed), bits(&whole), "stopped after epoch {k}");
        assert_eq!(std::fs::read(&file).unwrap(), whole_bytes);
        // The first report is the checkpoint's validation loss, the uninterrupted run's at the
        // end of epoch k; the last ones are the same too.
        let first = &reports[0];
        assert_eq!((first.epoch, first.first_epoch, first.batch), (k, k, 0));
        let whole_at_k = &whole_reports[k * (batches + 1)];
        assert!(whole_at_k.epoch_end && whole_at_k.epoch == k);
        assert_eq!(first.val_loss, whole_at_k.val_loss);
        assert_eq!(reports.len(), 1 + (cfg.epochs - k) * (batches + 1));
        let (last, whole_last) = (reports.last().unwrap(), whole_reports.last().unwrap());
        assert_eq!(
            (last.train_loss, last.val_loss),
            (whole_last.train_loss, whole_last.val_loss)
        );
    }
    // A finished run's checkpoint resumes to the same network, training nothing.
    let done = Checkpoint::read(&whole_file).unwrap();
    let again = run(&records, &cfg, None, Some(done), None, |_| {}).unwrap();
    assert_eq!(bits(&again), bits(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The command line: a run stopped with `--stop-after` and continued with `--resume` writes
/// the net file of the run that never stopped, byte for byte; an existing checkpoint is not
/// overwritten by a new run, nor resumed with other flags.
#[test]
fn command_line_resumes_to_the_same_net_file() {
    let dir = temp_dir("cli");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (whole, whole_ckpt) = (path("whole.lznn"), path("whole.ckpt"));
    let (part, part_ckpt) = (path("part.lznn"), path("part.ckpt"));
    let common = [
        "--synthetic",
        "1500",
        "--hidden",
        "16",
        "--epochs",
        "3",
        "--batch",
        "256",
        "--threads",
        "2",
        "--mirror",
    ];
    let train = |extra: &[&str]| run_cli(&parse(&[&common[..], extra].concat()).unwrap());
    train(&["--out", &whole, "--checkpoint", &whole_ckpt]).unwrap();
    train(&[
        "--out",
        &part,
        "--checkpoint",
        &part_ckpt,
        "--stop-after",
        "1",
    ])
    .unwrap();
    assert!(!Path::new(&part).exists(), "a stopped run writes no net");
    let error = train(&["--out", &part, "--checkpoint", &part_ckpt]).unwrap_err();
    assert!(
        error.contains("exists") && error.contains("--resume"),
        "{error}"
    );
    let error = train(&["--out", &part, "--resume", &part_ckpt, "--lr", "0.002"]).unwrap_err();
    assert!(
        error.contains("--lr") && error.contains(&part_ckpt),
        "{error}"
    );
    let error = train(&["--out", &part, "--stop-after", "1"]).unwrap_err();
    assert!(error.contains("--checkpoint"), "{error}");
    // Resumed and stopped again, then resumed saving to the file it resumes.
    let args = [
        "--out",
        &part,
        "--checkpoint",
        &part_ckpt,
        "--resume",
        &part_ckpt,
    ];
    train(&[&args[..], &["--stop-after", "2"]].concat()).unwrap();
    assert_eq!(
        Checkpoint::read(Path::new(&part_ckpt)).unwrap().epochs_done,
        2
    );
    train(&["--out", &part, "--resume", &part_ckpt]).unwrap();
    assert_eq!(
        std::fs::read(&part).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    assert_eq!(
        std::fs::read(&part_ckpt).unwrap(),
        std::fs::read(&whole_ckpt).unwrap()
    );
    // A damaged checkpoint is an error naming the file.
    let bytes = std::fs::read(&part_ckpt).unwrap();
    std::fs::write(&part_ckpt, &bytes[..bytes.len() / 2]).unwrap();
    let error = train(&["--out", &part, "--resume", &part_ckpt]).unwrap_err();
    assert!(
        error.contains(&part_ckpt) && error.contains("truncated"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `body` with its SHA-256 appended: a file whose damage the checksum does not catch.
fn sealed(body: &[u8]) -> Vec<u8> {
    let mut bytes = body.to_vec();
    bytes.extend_from_slice(&Sha256::digest(body));
    bytes
}

/// Truncated, damaged, foreign and forged files are refused with an error, never a panic.
#[test]
fn damaged_checkpoints_are_refused() {
    let dir = temp_dir("damaged");
    let file = dir.join("run.ckpt");
    let cfg = TrainConfig {
        hidden: 8,
        epochs: 1,
        batch_size: 128,
        ..small_config(1)
    };
    run(&data(600, 5), &cfg, Some(&file), None, None, |_| {}).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let saved = Checkpoint::from_bytes(&bytes).unwrap();
    assert_eq!(saved.to_bytes(), bytes);
    assert_eq!((saved.config.clone(), saved.epochs_done), (cfg, 1));
    let refused = |bytes: &[u8]| Checkpoint::from_bytes(bytes).unwrap_err();
    // Truncated anywhere.
    for len in [0, 2, 4, 7, 8, 39, 40, 100, bytes.len() / 2, bytes.len() - 1] {
        let error = refused(&bytes[..len]);
        assert!(
            error.contains("truncated") || error.contains("not a"),
            "{len}: {error}"
        );
    }
    // Another file, another version.
    let mut foreign = bytes.clone();
    foreign[0] ^= 0x20;
    assert!(refused(&foreign).contains("not a lazuli-lab training checkpoint"));
    let mut newer = bytes.clone();
    newer[4..8].copy_from_slice(&(checkpoint::VERSION + 1).to_le_bytes());
    assert!(refused(&newer).contains("version 2"));
    // A flipped bit in the settings, the parameters or the checksum; a byte too many.
    for at in [20, bytes.len() / 2, bytes.len() - 1] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 4;
        assert!(refused(&damaged).contains("damaged"), "byte {at}");
    }
    let body = &bytes[..bytes.len() - 32];
    let longer = sealed(&[body, &[0]].concat());
    assert!(refused(&longer).contains("too many"));
    let shorter = sealed(&body[..body.len() - 4]);
    assert!(refused(&shorter).contains("truncated"));
    // Forged files with a good checksum: any byte of the header set to 0xFF or 0x02 gives a
    // checkpoint or an error, never a panic or a huge allocation.
    for at in 8..200 {
        for value in [0xFF, 0x02] {
            let mut forged = body.to_vec();
            forged[at] = value;
            let _ = Checkpoint::from_bytes(&sealed(&forged));
        }
    }
    // And through a file: the error names it.
    std::fs::write(&file, &bytes[..100]).unwrap();
    let error = Checkpoint::read(&file).unwrap_err();
    assert!(error.contains("run.ckpt"), "{error}");
    assert!(Checkpoint::read(&dir.join("missing.ckpt")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A checkpoint resumed with other settings or on other data is refused, naming what differs;
/// another thread count is allowed.
#[test]
fn mismatched_checkpoints_are_refused() {
    let dir = temp_dir("mismatch");
    let file = dir.join("run.ckpt");
    let records = data(1500, 8);
    let cfg = small_config(2);
    run(&records, &cfg, Some(&file), None, Some(1), |_| {}).unwrap();
    let saved = Checkpoint::read(&file).unwrap();
    let resume = |records: &[PackedBoard], cfg: &TrainConfig| {
        run(records, cfg, None, Some(saved.clone()), None, |_| {})
    };
    let changes = [
        (
            "--hidden",
            TrainConfig {
                hidden: 16,
                ..cfg.clone()
            },
        ),
        (
            "--buckets",
            TrainConfig {
                buckets: 2,
                ..cfg.clone()
            },
        ),
        (
            "--epochs",
            TrainConfig {
                epochs: 4,
                ..cfg.clone()
            },
        ),
        (
            "--batch",
            TrainConfig {
                batch_size: 128,
                ..cfg.clone()
            },
        ),
        (
            "--lr",
            TrainConfig {
                lr: 0.02,
                ..cfg.clone()
            },
        ),
        (
            "--lambda",
            TrainConfig {
                lambda: 0.5,
                ..cfg.clone()
            },
        ),
        (
            "--seed",
            TrainConfig {
                seed: 6,
                ..cfg.clone()
            },
        ),
        (
            "--val",
            TrainConfig {
                validation_fraction: 0.2,
                ..cfg.clone()
            },
        ),
        (
            "--mirror",
            TrainConfig {
                mirror: true,
                ..cfg.clone()
            },
        ),
        (
            "--factoriser",
            TrainConfig {
                factoriser: true,
                ..cfg.clone()
            },
        ),
        (
            "schedule",
            TrainConfig {
                schedule: LrSchedule::Step {
                    every_epochs: 1,
                    gamma: 0.5,
                },
                ..cfg.clone()
            },
        ),
    ];
    for (flag, changed) in changes {
        let error = resume(&records, &changed).unwrap_err();
        assert!(
            error.contains(flag) && error.contains("other settings"),
            "{error}"
        );
    }
    // One record's score changed, the counts the same; fewer records.
    let mut other = records.clone();
    other[0][28] ^= 1;
    for other in [&other[..], &records[..1400]] {
        let error = resume(other, &cfg).unwrap_err();
        assert!(error.contains("other data"), "{error}");
    }
    assert!(
        resume(
            &records,
            &TrainConfig {
                threads: 1,
                ..cfg.clone()
            }
        )
        .is_ok()
    );
    assert!(resume(&records, &cfg).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}
