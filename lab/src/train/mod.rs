//! `lazuli-lab train`: a multi-threaded CPU trainer for the `(768 -> H) x 2 -> 1` SCReLU network
//! (see [`net`]) on marlinformat data (see [`crate::format`]).
//!
//! # Design
//! * **Data.** Records stay packed (32 bytes each) and are decoded on the fly; records that do
//!   not decode or carry a mate score (`|score| >= MAX_ABS_SCORE`) are skipped. The last
//!   `validation_fraction` of the usable records, in file order, is held out: datagen writes a
//!   game's positions together and chunks in order, so the held-out positions are whole games
//!   (the last chunks), none of which the net trains on, and the validation loss shows
//!   memorising. (A random split put positions of one game on both sides and hid it.) The
//!   rest is shuffled with the seeded PRNG and reshuffled every epoch.
//! * **Sparsity.** A position touches only the `W1` rows of its ~32 pieces per perspective, so
//!   forward and backward cost `O(pieces x H)`, not `O(768 x H)`. Each thread accumulates into
//!   its own dense gradient buffer and marks the rows it wrote in a bitmap; the reduction reads
//!   only marked rows and the owner re-zeroes only those before its next batch.
//! * **Threads.** `threads - 1` threads are spawned once per run with
//!   [`std::thread::scope`]; with the calling thread they step through every batch in two
//!   phases separated by a [`Barrier`]. Compute: thread `t` takes the `t`-th contiguous slice
//!   of the batch and accumulates its gradients. Update: thread `t` owns a fixed range of
//!   parameter rows (and their Adam moments), sums every thread's gradients for those rows and
//!   applies AdamW ([`optim`]: dense moments, untouched rows get a zero gradient), then clips
//!   `W1` and `w2` to `+-weight_clip` so that the quantised weights fit the engine's integer
//!   ranges. The parameters sit in one `RwLock` per row range and the gradients in one per
//!   thread; the phases mean the locks never wait, they only let the compiler prove the
//!   sharing safe. Measured synchronisation cost: about 0.2 ms per 16384-position batch.
//!   (A thread that panicked would leave the others waiting at the barrier; nothing in the
//!   loop is expected to panic, records having been validated up front.)
//! * **Determinism.** Every random choice comes from one seeded [`rng::Rng`] used by thread 0
//!   alone; each thread sums its slice in order, and gradients and losses are combined in
//!   thread order, so a run is bit-for-bit reproducible for a given seed, data and thread
//!   count. (Another thread count cuts the batch differently and so rounds differently.)
//! * **Checkpoints.** A run may save its state at the end of every epoch and a later run
//!   resume it from the next epoch, bit for bit as if it had not stopped ([`checkpoint`]).
//! * **Output.** The trained network is quantised ([`net::QuantisedNet`]) and written as the
//!   `LZNN` net file lazuli loads.

#[cfg(test)]
mod bucket_tests;
pub mod checkpoint;
#[cfg(test)]
mod checkpoint_tests;
mod cli;
#[cfg(test)]
mod loss_tests;
pub mod net;
pub mod optim;
pub mod synth;
#[cfg(test)]
mod tests;

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, RwLock};
use std::time::Instant;

use self::checkpoint::{Checkpoint, DataId};
pub use self::cli::{LossArgs, TrainArgs, run_cli, run_loss_cli};
use self::net::{
    Features, Gradients, Network, PARAM_ROWS, QuantisedNet, Scratch, target_from_record,
};
use self::optim::{Moments, StepScalars};
use crate::format::{self, Decoded, PackedBoard};
use lazuli::Rng;

/// Records with `|score|` at or above this are mate scores and are skipped.
pub const MAX_ABS_SCORE: i32 = 10_000;
/// Default hidden-layer size.
pub const DEFAULT_HIDDEN: usize = 256;
/// Default number of passes over the data.
pub const DEFAULT_EPOCHS: usize = 10;
/// Default positions per optimiser step.
pub const DEFAULT_BATCH: usize = 16_384;
/// Default initial learning rate.
pub const DEFAULT_LR: f32 = 0.001;
/// Default weight of the game result in the target (the rest is the search score).
pub const DEFAULT_LAMBDA: f32 = 0.3;
/// Default share of the data held out for validation.
pub const DEFAULT_VALIDATION: f64 = 0.01;
/// Default AdamW decoupled weight decay (weights only, not biases).
pub const DEFAULT_WEIGHT_DECAY: f32 = 0.01;
/// `W1` and `w2` are clipped to `+-` this after every step (`1.98 * 255` and `1.98 * 64` fit
/// the engine's integer arithmetic).
pub const DEFAULT_WEIGHT_CLIP: f32 = 1.98;
/// The cosine schedule's default final learning rate, as a fraction of the initial one.
pub const DEFAULT_FINAL_LR_FRACTION: f32 = 0.01;
/// Default seed.
pub const DEFAULT_SEED: u64 = 0x1A2u64;
/// Most threads a run may use.
pub const MAX_THREADS: usize = 256;

/// How the learning rate evolves over the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LrSchedule {
    /// Cosine decay, per step, from `lr` to `lr * final_fraction` at the last step.
    Cosine { final_fraction: f32 },
    /// Multiply by `gamma` every `every_epochs` epochs.
    Step { every_epochs: usize, gamma: f32 },
}

/// Everything a training run depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// Hidden neurons per perspective; a positive multiple of [`net::LANES`].
    pub hidden: usize,
    /// Output buckets by piece count (1, 2, 4 or 8; see [`net::bucket`]).
    pub buckets: usize,
    pub epochs: usize,
    pub batch_size: usize,
    pub lr: f32,
    pub schedule: LrSchedule,
    /// Weight of the game result in the target.
    pub lambda: f32,
    pub weight_decay: f32,
    pub weight_clip: f32,
    pub threads: usize,
    pub seed: u64,
    /// Share of the usable positions held out for validation, in `[0, 1)`.
    pub validation_fraction: f64,
    /// Train with the factoriser's piece rows (see [`net`]'s documentation), merged into `W1`
    /// at the end.
    pub factoriser: bool,
    /// Train on every position without castling rights mirrored left to right in alternate
    /// epochs (odd epochs for positions at odd indices, even ones for the rest): the same
    /// value, twice the positions for a net that data limits. Validation sees the positions
    /// as they are.
    pub mirror: bool,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            hidden: DEFAULT_HIDDEN,
            buckets: 1,
            epochs: DEFAULT_EPOCHS,
            batch_size: DEFAULT_BATCH,
            lr: DEFAULT_LR,
            schedule: LrSchedule::Cosine {
                final_fraction: DEFAULT_FINAL_LR_FRACTION,
            },
            lambda: DEFAULT_LAMBDA,
            weight_decay: DEFAULT_WEIGHT_DECAY,
            weight_clip: DEFAULT_WEIGHT_CLIP,
            threads: crate::cli::available_threads(),
            seed: DEFAULT_SEED,
            validation_fraction: DEFAULT_VALIDATION,
            factoriser: false,
            mirror: false,
        }
    }
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.hidden == 0 || !self.hidden.is_multiple_of(net::LANES) {
            return Err(format!(
                "hidden size must be a positive multiple of {}",
                net::LANES
            ));
        }
        if !net::valid_buckets(self.buckets) {
            return Err("output buckets must be 1, 2, 4 or 8".into());
        }
        if self.batch_size == 0 || !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(format!(
                "batch size must be positive, threads in 1..={MAX_THREADS}"
            ));
        }
        if !(0.0..1.0).contains(&self.validation_fraction) {
            return Err("validation fraction must be in [0, 1)".into());
        }
        let positive = |x: f32| x.is_finite() && x > 0.0;
        if !(0.0..=1.0).contains(&self.lambda) || !positive(self.lr) || !positive(self.weight_clip)
        {
            return Err("lambda must be in [0, 1], lr and weight clip positive".into());
        }
        Ok(())
    }

    /// Learning rate for optimiser step `step` (0-based) of `total` in epoch `epoch` (0-based).
    pub fn lr_at(&self, epoch: usize, step: usize, total: usize) -> f32 {
        match self.schedule {
            LrSchedule::Cosine { final_fraction } => {
                let t = step as f32 / total.saturating_sub(1).max(1) as f32;
                let cos = 0.5 * (1.0 + (std::f32::consts::PI * t).cos());
                self.lr * (final_fraction + (1.0 - final_fraction) * cos)
            }
            LrSchedule::Step {
                every_epochs,
                gamma,
            } => self.lr * gamma.powi((epoch / every_epochs.max(1)) as i32),
        }
    }
}

/// A progress report: after every batch, at the end of every epoch (`epoch_end`, with the
/// validation loss) and once before training (`batch == 0`, the validation loss of the start).
#[derive(Clone, Debug)]
pub struct Progress {
    /// 1-based; for the report before training, the epochs done before (0, or a resumed
    /// checkpoint's).
    pub epoch: usize,
    pub epochs: usize,
    /// Epochs done before this run started: 0, or those of the checkpoint it resumed.
    pub first_epoch: usize,
    /// Batches done in this epoch.
    pub batch: usize,
    pub batches: usize,
    pub epoch_end: bool,
    /// Training positions per second this epoch, optimiser included.
    pub positions_per_second: f64,
    /// Mean loss over this epoch's batches so far.
    pub train_loss: Option<f64>,
    /// Mean validation loss, at epoch ends (and epoch 0) when there is a validation set.
    pub val_loss: Option<f64>,
    pub lr: f32,
    pub train_positions: usize,
    pub val_positions: usize,
    /// Records skipped as undecodable or mate scores.
    pub skipped: usize,
}

/// Decodes a record if it takes part in training (it decodes and is no mate score).
pub fn usable(record: &PackedBoard) -> Option<Decoded> {
    format::decode(record)
        .ok()
        .filter(|d| (d.score as i32).abs() < MAX_ABS_SCORE)
}

/// The indices of `data`'s usable records, split as a training run splits them: the last
/// `held_out` share of them (rounded) in file order, whole games of the last chunks, are held
/// out (see the module's notes). Returns the training indices in file order, the held-out
/// indices and the number of records skipped.
pub fn split(data: &[PackedBoard], held_out: f64) -> (Vec<u32>, Vec<u32>, usize) {
    let mut indices: Vec<u32> = (0..data.len() as u32)
        .filter(|&i| usable(&data[i as usize]).is_some())
        .collect();
    let skipped = data.len() - indices.len();
    let val_len = (indices.len() as f64 * held_out).round() as usize;
    let val = indices.split_off(indices.len() - val_len.min(indices.len()));
    (indices, val, skipped)
}

/// The mean loss of the integer net `net`, evaluating as the engine does, over the records
/// `indices` of `data`: `(sigmoid(cp / SCALE) - target)^2` with the training target of
/// `lambda`. The loss a training run reports is the float net's on the same records; this one
/// compares any net files on the same positions, whatever data each was trained on. `None`
/// when no index names a usable record.
pub fn quantised_loss(
    net: &QuantisedNet,
    data: &[PackedBoard],
    indices: &[u32],
    lambda: f32,
) -> Option<f64> {
    let (mut sum, mut n) = (0.0f64, 0usize);
    for &i in indices {
        let record = &data[i as usize];
        if let Some(d) = usable(record) {
            let p = net::sigmoid(net.eval(&d) as f32 / net::SCALE as f32);
            let target = target_from_record(record, lambda);
            sum += ((p - target) * (p - target)) as f64;
            n += 1;
        }
    }
    (n > 0).then(|| sum / n as f64)
}

/// Thread `t`'s contiguous share of `items` when `threads` threads split them.
fn share(items: &[u32], t: usize, threads: usize) -> &[u32] {
    let per = items.len().div_ceil(threads);
    let start = (t * per).min(items.len());
    &items[start..(start + per).min(items.len())]
}

/// State every training thread sees. The locks never block in practice: the phases separated
/// by `barrier` give each lock a single writer or only readers at any time, and the locks
/// let the compiler check that.
struct Shared<'a> {
    data: &'a [PackedBoard],
    cfg: &'a TrainConfig,
    /// Parameter rows `bounds[t]..bounds[t + 1]`, written by thread `t` in the update phase
    /// and read by all in the other phases.
    params: Vec<RwLock<Vec<f32>>>,
    bounds: Vec<usize>,
    /// Thread `t`'s gradients and loss, written by `t` in the compute phases.
    grads: Vec<RwLock<Gradients>>,
    /// Thread `t`'s Adam moments (of its rows), written by `t` in the update phases and read
    /// by thread 0 for checkpoints.
    moments: Vec<RwLock<Moments>>,
    /// Training indices, reshuffled by thread 0 between epochs.
    order: RwLock<Vec<u32>>,
    val: &'a [u32],
    /// The epochs (0-based) this run goes through.
    epochs: Range<usize>,
    barrier: Barrier,
    /// Set by thread 0 when the run must end early (a checkpoint it could not write); read by
    /// all after the barrier at the start of the next epoch.
    stop: AtomicBool,
}

/// What only thread 0 (the caller's thread) holds: the PRNG, the progress callback, the report
/// it fills in and where checkpoints go, with the data's identity they record.
struct Coordinator<'p> {
    rng: Rng,
    progress: &'p mut dyn FnMut(&Progress),
    report: Progress,
    checkpoint: Option<(&'p Path, DataId)>,
}

impl Shared<'_> {
    /// Read guards on every row range of the parameters (row tables borrow from them).
    fn read_params(&self) -> Vec<std::sync::RwLockReadGuard<'_, Vec<f32>>> {
        self.params.iter().map(|c| c.read().unwrap()).collect()
    }

    /// Sum of the threads' `loss` fields, in thread order.
    fn loss_sum(&self) -> f64 {
        self.grads.iter().map(|g| g.read().unwrap().loss).sum()
    }

    /// The active inputs of `record`, mirrored left to right when `mirror`, with the factor
    /// rows when the run has them, and the record's output bucket.
    fn features(&self, record: &PackedBoard, mirror: bool) -> Features {
        let mut features = Features::from_record(record).bucketed(self.cfg.buckets);
        if mirror {
            features = features.mirrored_files();
        }
        if self.cfg.factoriser {
            features.factorised()
        } else {
            features
        }
    }

    /// Every thread: the mean validation loss lands in the threads' `loss` fields.
    fn validation_phase(&self, t: usize, scratch: &mut Scratch) {
        let guards = self.read_params();
        let rows: Vec<&[f32]> = guards
            .iter()
            .flat_map(|g| g.chunks_exact(self.cfg.hidden))
            .collect();
        let mut loss = 0.0f64;
        for &i in share(self.val, t, self.cfg.threads) {
            let record = &self.data[i as usize];
            let p = net::sigmoid(net::forward(&rows, &self.features(record, false), scratch));
            let target = target_from_record(record, self.cfg.lambda);
            loss += ((p - target) * (p - target)) as f64;
        }
        self.grads[t].write().unwrap().loss = loss;
    }

    /// Every thread: gradients of its share of `batch` into its own buffer. The share's
    /// records are first gathered into `records`: a tight copy loop keeps many cache misses in
    /// flight, where reading each record just before its position would wait for one at a time.
    fn compute_phase(
        &self,
        t: usize,
        (batch, epoch): (std::ops::Range<usize>, usize),
        scratch: &mut Scratch,
        records: &mut Vec<(PackedBoard, bool)>,
    ) {
        let guards = self.read_params();
        let rows: Vec<&[f32]> = guards
            .iter()
            .flat_map(|g| g.chunks_exact(self.cfg.hidden))
            .collect();
        let weight = 1.0 / batch.len() as f32;
        {
            let order = self.order.read().unwrap();
            records.clear();
            let mine = share(&order[batch], t, self.cfg.threads);
            records.extend(mine.iter().map(|&i| {
                let record = self.data[i as usize];
                let mirror = self.cfg.mirror
                    && (i as usize + epoch) % 2 == 1
                    && !net::has_castling_rights(&record);
                (record, mirror)
            }));
        }
        let mut grads = self.grads[t].write().unwrap();
        grads.zero();
        let mut loss = 0.0f64;
        for (record, mirror) in records.iter() {
            let target = target_from_record(record, self.cfg.lambda);
            let features = self.features(record, *mirror);
            loss += net::backward(&rows, &features, target, weight, scratch, &mut grads) as f64;
        }
        grads.loss = loss;
    }

    /// Every thread: reduce and AdamW-update its own rows.
    fn update_phase(&self, t: usize, s: StepScalars, scratch: &mut [f32]) {
        let guards: Vec<_> = self.grads.iter().map(|g| g.read().unwrap()).collect();
        let grads: Vec<&Gradients> = guards.iter().map(|g| &**g).collect();
        let mut params = self.params[t].write().unwrap();
        let mut moments = self.moments[t].write().unwrap();
        moments.update_rows(self.bounds[t], &mut params, &grads, s, scratch);
    }

    /// The run's state after `epochs_done` epochs of `batches` batches, for a checkpoint.
    /// Thread 0 alone, between phases.
    fn checkpoint(&self, epochs_done: usize, batches: usize, data: &DataId) -> Checkpoint {
        let flat = |part: fn(&Moments) -> &[f32]| -> Vec<f32> {
            self.moments
                .iter()
                .flat_map(|m| part(&m.read().unwrap()).to_vec())
                .collect()
        };
        Checkpoint {
            config: self.cfg.clone(),
            data: data.clone(),
            epochs_done,
            steps: (epochs_done * batches) as u64,
            params: self.read_params().iter().flat_map(|g| g.to_vec()).collect(),
            m: flat(Moments::m),
            v: flat(Moments::v),
        }
    }

    /// The whole run as seen by thread `t`; thread 0 also coordinates. All threads pass the
    /// same barriers in the same order. Thread 0 returns the error of a checkpoint it could
    /// not write, after which every thread stops at the start of the next epoch.
    fn run(&self, t: usize, mut coord: Option<Coordinator>) -> Result<(), String> {
        let cfg = self.cfg;
        let h = cfg.hidden;
        let mut scratch = Scratch::new(h);
        let mut row_scratch = vec![0.0f32; h];
        let mut records = Vec::with_capacity(cfg.batch_size.div_ceil(cfg.threads));
        let mut failure = None;
        let train_len = self.order.read().unwrap().len();
        let batches = train_len.div_ceil(cfg.batch_size);
        let total_steps = batches * cfg.epochs;
        let val_loss = |shared: &Self| {
            (!shared.val.is_empty()).then(|| shared.loss_sum() / shared.val.len() as f64)
        };
        self.validation_phase(t, &mut scratch);
        self.barrier.wait();
        if let Some(c) = &mut coord {
            c.report.val_loss = val_loss(self);
            (c.progress)(&c.report);
        }
        for epoch in self.epochs.clone() {
            if let Some(c) = &mut coord
                && failure.is_none()
            {
                c.rng.shuffle(&mut self.order.write().unwrap());
            }
            self.barrier.wait();
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let start = Instant::now();
            let (mut loss_sum, mut seen) = (0.0f64, 0usize);
            for b in 0..batches {
                let step = epoch * batches + b;
                let lr = cfg.lr_at(epoch, step, total_steps);
                let range = b * cfg.batch_size..((b + 1) * cfg.batch_size).min(train_len);
                let len = range.len();
                self.compute_phase(t, (range, epoch), &mut scratch, &mut records);
                self.barrier.wait();
                let s = StepScalars::new(step as i32 + 1, lr, cfg.weight_decay, cfg.weight_clip);
                self.update_phase(t, s, &mut row_scratch);
                if coord.is_some() {
                    loss_sum += self.loss_sum();
                    seen += len;
                }
                self.barrier.wait();
                if let Some(c) = &mut coord {
                    c.report = Progress {
                        epoch: epoch + 1,
                        batch: b + 1,
                        epoch_end: false,
                        positions_per_second: seen as f64 / start.elapsed().as_secs_f64().max(1e-9),
                        train_loss: Some(loss_sum / seen as f64),
                        val_loss: None,
                        lr,
                        ..c.report
                    };
                    (c.progress)(&c.report);
                }
            }
            self.validation_phase(t, &mut scratch);
            self.barrier.wait();
            if let Some(c) = &mut coord {
                c.report.epoch_end = true;
                c.report.val_loss = val_loss(self);
                (c.progress)(&c.report);
                if let Some((path, data)) = &c.checkpoint
                    && let Err(e) = self.checkpoint(epoch + 1, batches, data).write(path)
                {
                    self.stop.store(true, Ordering::Relaxed);
                    failure = Some(e);
                }
            }
        }
        failure.map_or(Ok(()), Err)
    }
}

/// How a run starts, and what it leaves for a later one: the options of [`train_with`].
#[derive(Debug, Default)]
pub struct RunOptions<'a> {
    /// Start from this net rather than random weights (see [`train_from`]).
    pub start: Option<Network>,
    /// Go on with this checkpoint's run from its next epoch; it must belong to the same
    /// settings (the thread count aside) and data. Its parameters replace `start`'s.
    pub resume: Option<Checkpoint>,
    /// Write a checkpoint here at the end of every epoch (atomically, see
    /// [`Checkpoint::write`]).
    pub checkpoint: Option<&'a Path>,
    /// Stop at the end of this epoch (1-based) rather than the last, to resume later.
    pub stop_after: Option<usize>,
}

/// [`train_from`] random weights (the tests' form).
#[cfg(test)]
pub fn train(
    data: &[PackedBoard],
    cfg: &TrainConfig,
    progress: impl FnMut(&Progress),
) -> Result<Network, String> {
    train_from(data, cfg, None, progress)
}

/// Trains a network on `data`, from `start` when given (a net trained before, say, to go on
/// learning from new data; its width must be `cfg.hidden`) or else from random weights, and
/// returns it; `progress` sees every report (see [`Progress`]) on the calling thread. Fails on
/// an invalid configuration or when no usable training position remains. `progress` must not
/// panic: the other threads would wait for the calling thread at the next barrier forever.
///
/// `cfg.threads - 1` threads are spawned once for the whole run; with the calling thread they
/// go through each batch in two phases separated by a [`Barrier`]: every thread computes the
/// gradients of its slice of the batch into its own buffer, then every thread reduces the
/// buffers for its own range of parameter rows and applies AdamW there ([`optim`]).
///
/// The seed's stream is the same with and without a start: the random weights are drawn and
/// then replaced, so only the start differs.
pub fn train_from(
    data: &[PackedBoard],
    cfg: &TrainConfig,
    start: Option<Network>,
    progress: impl FnMut(&Progress),
) -> Result<Network, String> {
    let options = RunOptions {
        start,
        ..RunOptions::default()
    };
    train_with(data, cfg, options, progress)
}

/// [`train_from`] with checkpoints: the run may resume a checkpoint (`options.resume`), save
/// one at the end of every epoch (`options.checkpoint`) and stop early
/// (`options.stop_after`). Returns the network as it is after the last epoch run. Fails as
/// [`train_from`] does, and also on a checkpoint of other settings or data, or one it cannot
/// write (the run then stops at the end of that epoch; the previous checkpoint stays whole).
///
/// A resumed run replays the shuffles of the epochs done (see [`checkpoint`]), and when it
/// resumes or saves it hashes the data once, so that a checkpoint names its data.
pub fn train_with(
    data: &[PackedBoard],
    cfg: &TrainConfig,
    options: RunOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<Network, String> {
    let RunOptions {
        start,
        resume,
        checkpoint,
        stop_after,
    } = options;
    cfg.validate()?;
    if data.len() > u32::MAX as usize {
        return Err(format!("at most {} positions", u32::MAX));
    }
    let mut rng = Rng::new(cfg.seed);
    let mut net = Network::new_random(cfg.hidden, cfg.buckets, &mut rng);
    if let Some(start) = start {
        net = start.with_buckets(cfg.buckets)?.widened(&net)?;
    }
    let (mut indices, val, skipped) = split(data, cfg.validation_fraction);
    rng.shuffle(&mut indices);
    if indices.is_empty() {
        return Err("no usable training positions".into());
    }
    let h = cfg.hidden;
    let batches = indices.len().div_ceil(cfg.batch_size);
    let data_id = (checkpoint.is_some() || resume.is_some())
        .then(|| DataId::new(data, indices.len(), val.len()));
    let (mut m, mut v) = (vec![0.0; PARAM_ROWS * h], vec![0.0; PARAM_ROWS * h]);
    let mut first_epoch = 0;
    if let (Some(saved), Some(id)) = (resume, &data_id) {
        saved.check(cfg, id, batches)?;
        for _ in 0..saved.epochs_done {
            rng.shuffle(&mut indices);
        }
        first_epoch = saved.epochs_done;
        (net.params, m, v) = (saved.params, saved.m, saved.v);
    }
    let last_epoch = stop_after.map_or(cfg.epochs, |e| e.min(cfg.epochs));
    if last_epoch <= first_epoch && first_epoch < cfg.epochs {
        return Err(format!(
            "stopping after epoch {last_epoch} leaves nothing to do ({first_epoch} epochs are done)"
        ));
    }
    let bounds = optim::row_bounds(cfg.threads);
    let range = |w: &[usize], values: &[f32]| values[w[0] * h..w[1] * h].to_vec();
    let shared = Shared {
        data,
        cfg,
        params: bounds
            .windows(2)
            .map(|w| RwLock::new(range(w, &net.params)))
            .collect(),
        moments: bounds
            .windows(2)
            .map(|w| RwLock::new(Moments::from_parts(range(w, &m), range(w, &v))))
            .collect(),
        bounds,
        grads: (0..cfg.threads)
            .map(|_| RwLock::new(Gradients::new(h)))
            .collect(),
        order: RwLock::new(indices),
        val: &val,
        epochs: first_epoch..last_epoch.max(first_epoch),
        barrier: Barrier::new(cfg.threads),
        stop: AtomicBool::new(false),
    };
    let train_positions = shared.order.read().unwrap().len();
    let coordinator = Coordinator {
        rng,
        progress: &mut progress,
        report: Progress {
            epoch: first_epoch,
            epochs: cfg.epochs,
            first_epoch,
            batch: 0,
            batches,
            epoch_end: true,
            positions_per_second: 0.0,
            train_loss: None,
            val_loss: None,
            lr: cfg.lr_at(0, 0, 1),
            train_positions,
            val_positions: val.len(),
            skipped,
        },
        checkpoint: checkpoint.zip(data_id),
    };
    std::thread::scope(|scope| {
        for t in 1..cfg.threads {
            let shared = &shared;
            scope.spawn(move || shared.run(t, None));
        }
        shared.run(0, Some(coordinator))
    })?;
    let params: Vec<f32> = shared
        .params
        .into_iter()
        .flat_map(|c| c.into_inner().unwrap())
        .collect();
    debug_assert_eq!(params.len(), PARAM_ROWS * h);
    let mut net = Network {
        hidden: h,
        buckets: cfg.buckets,
        params,
    };
    if cfg.factoriser {
        net.merge_factors();
    }
    Ok(net)
}
