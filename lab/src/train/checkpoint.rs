//! Checkpoints: what a training run needs to go on after it stopped, written at the end of every
//! epoch (`lazuli-lab train --checkpoint FILE`) and read back by `--resume FILE`.
//!
//! A resumed run continues exactly where the saved one was: the float parameters (factoriser
//! rows unmerged) and the AdamW moments are stored as they are, the optimiser's step count is
//! the epochs done times the batches per epoch, and the order of the next epochs is made again
//! by replaying the seeded shuffles of the epochs done. (Each epoch's shuffle permutes the
//! previous epoch's order, so the order is a function of the seed, the data and the epoch;
//! storing it would cost 4 bytes a position.) So a run stopped after `k` epochs and resumed
//! to `N` gives, bit for bit, the parameters of the run that went through `N` epochs at once,
//! given the same thread count (another count splits batches differently, see the trainer's
//! notes on determinism, so it is allowed but not exact).
//!
//! A checkpoint names the run it belongs to: every setting of [`TrainConfig`] and the
//! identity of the data ([`DataId`]). A resume with other settings (the thread count aside) or
//! on other data is refused, as is a file that is truncated, damaged (its SHA-256 does not
//! match) or of another version.
//!
//! # Format
//! Little-endian throughout: `b"LZCK"`, u32 [`VERSION`]; the configuration: u64 hidden,
//! buckets, epochs, batch size, f32 lr, u8 schedule (0 cosine, 1 step), u64 the step
//! schedule's epochs (0 for cosine), f32 the cosine's final fraction or the step's gamma, f32
//! lambda, weight decay, weight clip, u64 threads, seed, f64 validation fraction, u8
//! factoriser, mirror; the data: u64 records, training positions, validation positions, the
//! records' SHA-256 (32 bytes); u64 epochs done, optimiser steps done, `n = PARAM_ROWS *
//! hidden`; f32 parameters, first moments and second moments, `n` each; and last the SHA-256
//! of all the bytes before it.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::net::PARAM_ROWS;
use super::{LrSchedule, TrainConfig};
use crate::format::PackedBoard;

/// The file's first bytes.
pub const MAGIC: &[u8; 4] = b"LZCK";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes of a SHA-256 digest.
const DIGEST_BYTES: usize = 32;
/// Hex digits of a digest shown in messages.
const SHOWN_HEX_DIGITS: usize = 12;
/// Schedule codes in the file.
const SCHEDULE_COSINE: u8 = 0;
const SCHEDULE_STEP: u8 = 1;

/// What identifies a run's data: the records (all of them, in order, through their SHA-256)
/// and how the run split them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataId {
    pub records: u64,
    pub train_positions: u64,
    pub val_positions: u64,
    pub sha256: [u8; DIGEST_BYTES],
}

impl DataId {
    /// The identity of `data`, of which a run trains on `train_positions` and holds out
    /// `val_positions`. Hashes every record (a few seconds for a hundred million).
    pub fn new(data: &[PackedBoard], train_positions: usize, val_positions: usize) -> DataId {
        DataId {
            records: data.len() as u64,
            train_positions: train_positions as u64,
            val_positions: val_positions as u64,
            sha256: Sha256::digest(data.as_flattened()).into(),
        }
    }
}

impl std::fmt::Display for DataId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex: String = self.sha256.iter().map(|b| format!("{b:02x}")).collect();
        write!(
            f,
            "{} records ({} training, {} validation positions), SHA-256 {}",
            self.records,
            self.train_positions,
            self.val_positions,
            &hex[..SHOWN_HEX_DIGITS]
        )
    }
}

/// A training run's state at the end of an epoch (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The run's settings (its thread count too, which a resume may change).
    pub config: TrainConfig,
    pub data: DataId,
    /// Epochs completed.
    pub epochs_done: usize,
    /// Optimiser steps taken: `epochs_done` times the batches per epoch.
    pub steps: u64,
    /// The float parameters in the layout of [`super::net`], factoriser rows unmerged.
    pub params: Vec<f32>,
    /// AdamW's first and second moments, in the same layout.
    pub m: Vec<f32>,
    pub v: Vec<f32>,
}

/// The settings a resumed run must share with its checkpoint, named by their flags, with
/// their values as text (`{:?}` of a float is exact, so equal text is equal bits).
fn settings(c: &TrainConfig) -> [(&'static str, String); 12] {
    [
        ("--hidden", c.hidden.to_string()),
        ("--buckets", c.buckets.to_string()),
        ("--epochs", c.epochs.to_string()),
        ("--batch", c.batch_size.to_string()),
        ("--lr", format!("{:?}", c.lr)),
        (
            "the schedule (--final-lr, --lr-drop, --lr-gamma)",
            format!("{:?}", c.schedule),
        ),
        ("--lambda", format!("{:?}", c.lambda)),
        ("--wd", format!("{:?}", c.weight_decay)),
        ("--clip", format!("{:?}", c.weight_clip)),
        ("--seed", c.seed.to_string()),
        ("--val", format!("{:?}", c.validation_fraction)),
        (
            "--factoriser, --mirror",
            format!("{}, {}", c.factoriser, c.mirror),
        ),
    ]
}

impl Checkpoint {
    /// Whether this checkpoint may be resumed by a run of `cfg` on the data `data`, which cuts
    /// its training positions into `batches` batches an epoch; the error names what differs.
    pub fn check(&self, cfg: &TrainConfig, data: &DataId, batches: usize) -> Result<(), String> {
        self.check_settings(cfg)?;
        if self.data != *data {
            return Err(format!(
                "the checkpoint belongs to a run on other data ({} there, {data} here)",
                self.data
            ));
        }
        if self.epochs_done > cfg.epochs
            || self.steps != (self.epochs_done * batches) as u64
            || self.params.len() != PARAM_ROWS * cfg.hidden
        {
            return Err(format!(
                "the checkpoint's progress ({} epochs, {} steps) does not fit its run",
                self.epochs_done, self.steps
            ));
        }
        Ok(())
    }

    /// Whether this checkpoint belongs to a run of `cfg`'s settings (the thread count aside),
    /// before the data is known; the error names the flags that differ.
    pub fn check_settings(&self, cfg: &TrainConfig) -> Result<(), String> {
        let differences: Vec<String> = settings(&self.config)
            .into_iter()
            .zip(settings(cfg))
            .filter(|(saved, now)| saved.1 != now.1)
            .map(|((name, saved), (_, now))| format!("{name}: {saved} there, {now} here"))
            .collect();
        if !differences.is_empty() {
            return Err(format!(
                "the checkpoint belongs to a run with other settings ({})",
                differences.join("; ")
            ));
        }
        Ok(())
    }

    /// The file's bytes (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let c = &self.config;
        let n = self.params.len();
        let mut out = Vec::with_capacity(256 + 12 * n);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        let u64s = |out: &mut Vec<u8>, xs: &[usize]| {
            for &x in xs {
                out.extend_from_slice(&(x as u64).to_le_bytes());
            }
        };
        u64s(&mut out, &[c.hidden, c.buckets, c.epochs, c.batch_size]);
        out.extend_from_slice(&c.lr.to_le_bytes());
        let (code, every, x) = match c.schedule {
            LrSchedule::Cosine { final_fraction } => (SCHEDULE_COSINE, 0, final_fraction),
            LrSchedule::Step {
                every_epochs,
                gamma,
            } => (SCHEDULE_STEP, every_epochs, gamma),
        };
        out.push(code);
        u64s(&mut out, &[every]);
        for x in [x, c.lambda, c.weight_decay, c.weight_clip] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        u64s(&mut out, &[c.threads]);
        out.extend_from_slice(&c.seed.to_le_bytes());
        out.extend_from_slice(&c.validation_fraction.to_le_bytes());
        out.extend_from_slice(&[c.factoriser as u8, c.mirror as u8]);
        let d = &self.data;
        for x in [d.records, d.train_positions, d.val_positions] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&d.sha256);
        u64s(&mut out, &[self.epochs_done]);
        out.extend_from_slice(&self.steps.to_le_bytes());
        u64s(&mut out, &[n]);
        for values in [&self.params, &self.m, &self.v] {
            for x in values.iter() {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let digest = Sha256::digest(&out);
        out.extend_from_slice(&digest);
        out
    }

    /// Reads a checkpoint from its bytes, refusing another format or version, a truncated or
    /// damaged file and impossible settings.
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, String> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a lazuli-lab training checkpoint".into());
        }
        let mut r = Reader {
            bytes,
            at: MAGIC.len(),
        };
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!(
                "checkpoint format version {version}; this build reads version {VERSION}"
            ));
        }
        let body_len = bytes
            .len()
            .checked_sub(DIGEST_BYTES)
            .ok_or_else(truncated)?;
        if bytes[body_len..] != Sha256::digest(&bytes[..body_len])[..] {
            return Err(
                "the checkpoint is damaged or truncated (its SHA-256 does not match)".into(),
            );
        }
        r.bytes = &bytes[..body_len];
        let (hidden, buckets, epochs, batch_size) =
            (r.usize()?, r.usize()?, r.usize()?, r.usize()?);
        let lr = r.f32()?;
        let (code, every_epochs, x) = (r.u8()?, r.usize()?, r.f32()?);
        let schedule = match code {
            SCHEDULE_COSINE => LrSchedule::Cosine { final_fraction: x },
            SCHEDULE_STEP => LrSchedule::Step {
                every_epochs,
                gamma: x,
            },
            _ => return Err(format!("unknown learning rate schedule {code}")),
        };
        let (lambda, weight_decay, weight_clip) = (r.f32()?, r.f32()?, r.f32()?);
        let (threads, seed, validation_fraction) = (r.usize()?, r.u64()?, r.f64()?);
        let (factoriser, mirror) = (r.bool()?, r.bool()?);
        let config = TrainConfig {
            hidden,
            buckets,
            epochs,
            batch_size,
            lr,
            schedule,
            lambda,
            weight_decay,
            weight_clip,
            threads,
            seed,
            validation_fraction,
            factoriser,
            mirror,
        };
        config
            .validate()
            .map_err(|e| format!("the checkpoint's settings are invalid: {e}"))?;
        let data = DataId {
            records: r.u64()?,
            train_positions: r.u64()?,
            val_positions: r.u64()?,
            sha256: r.take(DIGEST_BYTES)?.try_into().map_err(|_| truncated())?,
        };
        let (epochs_done, steps, n) = (r.usize()?, r.u64()?, r.usize()?);
        if Some(n) != PARAM_ROWS.checked_mul(hidden) {
            return Err(format!(
                "the checkpoint holds {n} parameters; {hidden} hidden neurons take {}",
                PARAM_ROWS.saturating_mul(hidden)
            ));
        }
        let (params, m, v) = (r.f32s(n)?, r.f32s(n)?, r.f32s(n)?);
        if r.at != r.bytes.len() {
            return Err(format!(
                "the checkpoint has {} bytes too many",
                r.bytes.len() - r.at
            ));
        }
        Ok(Checkpoint {
            config,
            data,
            epochs_done,
            steps,
            params,
            m,
            v,
        })
    }

    /// Reads the checkpoint file `path`; the error names it.
    pub fn read(path: &Path) -> Result<Checkpoint, String> {
        std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| Checkpoint::from_bytes(&bytes))
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Writes the checkpoint to `path` atomically: to `path.tmp` (flushed to the disk), then
    /// renamed over `path`, so that a run killed while writing leaves the previous checkpoint
    /// whole. The error names the file.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let tmp = temporary_path(path);
        let written = std::fs::File::create(&tmp).and_then(|mut file| {
            file.write_all(&self.to_bytes())?;
            file.sync_all()
        });
        written
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("writing the checkpoint {}: {e}", path.display()))
    }
}

/// Where [`Checkpoint::write`] writes before renaming: `path` with `.tmp` appended.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// The error of a file that ends too early.
fn truncated() -> String {
    "the checkpoint is truncated".into()
}

/// Reads little-endian values in order from `bytes`, failing at its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).ok_or_else(truncated)?;
        let taken = self.bytes.get(self.at..end).ok_or_else(truncated)?;
        self.at = end;
        Ok(taken)
    }

    /// The next `N` bytes as an array.
    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        self.take(N)?.try_into().map_err(|_| truncated())
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    fn bool(&mut self) -> Result<bool, String> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            x => Err(format!("the checkpoint has {x} for a yes or no")),
        }
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, String> {
        self.array().map(u64::from_le_bytes)
    }

    /// A u64 that must fit a `usize`.
    fn usize(&mut self) -> Result<usize, String> {
        let x = self.u64()?;
        usize::try_from(x).map_err(|_| format!("the checkpoint's {x} is out of range"))
    }

    fn f32(&mut self) -> Result<f32, String> {
        self.array().map(f32::from_le_bytes)
    }

    fn f64(&mut self) -> Result<f64, String> {
        self.array().map(f64::from_le_bytes)
    }

    /// `n` f32 values.
    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, String> {
        let bytes = self.take(n.checked_mul(4).ok_or_else(truncated)?)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}
