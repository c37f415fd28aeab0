//! `lazuli study nullmove`: the experiment of Tabibi and Netanyahu, "Verified Null-Move
//! Pruning" (ICGA Journal 25(3), 2002), on any EPD suite.
//!
//! Every position is searched with every null-move mode (standard R = 1..4, lazuli's verified
//! R = 1..4, the paper's verified rule R = 1..4, or none), one thread, the table and histories cleared before each search, everything else
//! in the engine identical. One search per position and mode goes to the deepest requested
//! depth; each completed iteration reports its cumulative node count and best move, which with
//! one thread and a cleared table are exactly those of a separate search to that depth.
//!
//! Reported as the paper does: total nodes per mode and depth with the percentage against
//! the paper's verified R = 3 (its Tables 1, 3, 4; lazuli's verified R = 3 without it), positions solved per mode and depth (`bm` found, no
//! `am` played; Tables 2, 5), mates found for `dm` records (Table 6); plus one row per
//! position, mode and depth as CSV or JSON.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use lazuli::{
    Engine, Error, Limits, NullMoveMode, Position, SearchControl, SearchHandler, SearchInfo,
};
use shakmaty::Move;

use clap::ArgAction;

use super::{number, on_off, progress_bar, write_file};
pub use epd::{EpdRecord, parse_suite};

mod epd;
mod report;
#[cfg(test)]
mod tests;

/// A null-move setting to compare: `std2`, `verified3`, `paper3`, `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mode {
    /// Standard, verified or none.
    pub null_move: NullModeKey,
    /// The reduction R (0 for none).
    pub r: i32,
}

/// [`NullMoveMode`] with an order, for tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NullModeKey {
    /// No null move.
    Off,
    /// Standard null-move pruning.
    Standard,
    /// Verified null-move pruning as lazuli plays it (`NullMove=verified`).
    Verified,
    /// The paper's verified null-move pruning (`NullMove=paper`).
    Paper,
}

impl Mode {
    /// Parses `std1`..`std4`, `standard3`, `verified1`..`verified4`, `ver3`, `vrfd3`,
    /// `paper1`..`paper4`, `off`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidCommand`] for anything else.
    pub fn parse(text: &str) -> Result<Mode, Error> {
        let t = text.trim().to_ascii_lowercase();
        if t == "off" || t == "none" {
            return Ok(Mode {
                null_move: NullModeKey::Off,
                r: 0,
            });
        }
        let digits = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let prefix = &t[..t.len() - digits.len()];
        let r: i32 = digits
            .parse()
            .ok()
            .filter(|r| (1..=4).contains(r))
            .ok_or_else(|| bad_mode(text))?;
        let null_move = match prefix {
            "std" | "standard" => NullModeKey::Standard,
            "ver" | "vrfd" | "verified" => NullModeKey::Verified,
            "paper" => NullModeKey::Paper,
            _ => return Err(bad_mode(text)),
        };
        Ok(Mode { null_move, r })
    }

    /// The engine's mode.
    pub fn engine_mode(self) -> NullMoveMode {
        match self.null_move {
            NullModeKey::Off => NullMoveMode::Off,
            NullModeKey::Standard => NullMoveMode::Standard,
            NullModeKey::Verified => NullMoveMode::Verified,
            NullModeKey::Paper => NullMoveMode::Paper,
        }
    }

    /// The short name used in tables (`std2`, `verified3`, `paper3`, `off`).
    pub fn name(self) -> String {
        match self.null_move {
            NullModeKey::Off => "off".to_owned(),
            NullModeKey::Standard => format!("std{}", self.r),
            NullModeKey::Verified => format!("verified{}", self.r),
            NullModeKey::Paper => format!("paper{}", self.r),
        }
    }
}

fn parse_option(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .ok_or_else(|| format!("'{text}' is not NAME=VALUE"))
}

fn bad_mode(text: &str) -> Error {
    Error::InvalidCommand(format!(
        "unknown null-move mode '{text}' (std1..std4, verified1..verified4, paper1..paper4, off)"
    ))
}

/// What to run; its fields are the flags of `lazuli study nullmove`.
#[derive(clap::Parser, Clone, Debug, PartialEq, Eq)]
#[command(args_override_self = true)]
pub struct StudyConfig {
    /// The EPD suite.
    #[arg(long, value_name = "FILE")]
    pub suite: PathBuf,
    /// Fixed depths to report (1 to 64; run in ascending order, each once).
    #[arg(long, value_name = "8,9,10", default_value = "8,9,10", value_delimiter = ',',
          num_args = 1, action = ArgAction::Set, value_parser = number::<u32>(1..=64, 1..=64))]
    pub depths: Vec<u32>,
    /// Null-move modes to compare: stdR (standard, R = 1..4), verifiedR (lazuli's verified),
    /// paperR (the paper's verified rule), off.
    #[arg(long, value_name = "std2,std3,paper3,verified3",
          default_value = "std2,std3,paper3,verified3",
          value_delimiter = ',', num_args = 1, action = ArgAction::Set, value_parser = Mode::parse)]
    pub modes: Vec<Mode>,
    /// Drop positions where either side has only king and pawns.
    #[arg(long)]
    pub skip_kp: bool,
    /// Late move reductions on (lazuli's default) or off (as in the paper's engine).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off(),
          action = ArgAction::Set)]
    pub lmr: bool,
    /// Adaptive null-move R (lazuli's default); off reproduces the paper's fixed R.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = on_off(),
          action = ArgAction::Set)]
    pub adaptive: bool,
    /// Futility-type pruning on or off.
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off(),
          action = ArgAction::Set)]
    pub pruning: bool,
    /// Any other engine option, NAME=VALUE, set on every engine before the modes' own (a tune
    /// build's search constants too); repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    pub options: Vec<(String, String)>,
    /// Hash MB per engine.
    #[arg(long = "hash", value_name = "MB", default_value_t = 64,
          value_parser = number::<usize>(1.., 1..=usize::MAX as u64))]
    pub hash_mb: usize,
    /// Positions searched at once (each with one thread; at most 256).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = number::<usize>(1.., 1..=256))]
    pub jobs: usize,
    /// Only the first N positions (after filtering).
    #[arg(long, value_name = "N", value_parser = number::<usize>(1.., 1..=usize::MAX as u64))]
    pub limit: Option<usize>,
    /// Per-position rows as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Per-position rows as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// The summary tables as Markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
}

impl StudyConfig {
    /// The depths to report, ascending, each once.
    pub fn depths(&self) -> Vec<u32> {
        let mut depths = self.depths.clone();
        depths.sort_unstable();
        depths.dedup();
        depths
    }
}

/// The studies of `lazuli study`.
#[derive(clap::Subcommand, Debug)]
pub enum StudyCommand {
    /// The verified null-move experiment on an EPD suite: nodes and solved positions per
    /// null-move mode and depth
    Nullmove(StudyConfig),
}

/// One position searched with one mode, reported at one depth.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    /// Index of the position among those studied.
    pub position: usize,
    /// Its EPD id.
    pub id: String,
    /// The null-move mode.
    pub mode: String,
    /// The depth.
    pub depth: u32,
    /// Nodes of a search to this depth.
    pub nodes: u64,
    /// Milliseconds of a search to this depth.
    pub time_ms: u64,
    /// Best move (UCI).
    pub best: String,
    /// Score as UCI reports it (`cp 31`, `mate 4`).
    pub score: String,
    /// Whether the position counts as solved (empty when the record asks nothing).
    pub solved: Option<bool>,
}

/// The result of a study.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudyReport {
    /// One row per position, mode and depth, sorted.
    pub rows: Vec<Row>,
    /// The modes, in the configured order.
    pub modes: Vec<Mode>,
    /// The depths.
    pub depths: Vec<u32>,
    /// Positions in the suite.
    pub suite_positions: usize,
    /// Positions dropped by the king-and-pawns filter.
    pub skipped_kp: usize,
    /// Positions studied (all modes done).
    pub studied: usize,
    /// True when stopped before the end (Ctrl-C).
    pub interrupted: bool,
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<SearchInfo>>>);

impl SearchHandler for Recorder {
    fn on_info(&mut self, info: &SearchInfo) {
        if info.multipv == 1 {
            self.0.lock().expect("not poisoned").push(info.clone());
        }
    }
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
}

/// Stops a running study from another thread (the Ctrl-C handler).
#[derive(Clone, Default)]
pub struct StudyStop {
    stopped: Arc<AtomicBool>,
    controls: Arc<Mutex<Vec<SearchControl>>>,
}

impl StudyStop {
    /// Stops every running search; the study writes what it has and returns.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        for c in self.controls.lock().expect("not poisoned").iter() {
            c.stop();
        }
    }

    fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// Searches one record with every mode; `None` if stopped meanwhile.
fn study_position(
    engine: &mut Engine,
    config: &StudyConfig,
    index: usize,
    record: &EpdRecord,
    stop: &StudyStop,
) -> Result<Option<Vec<Row>>, Error> {
    let depths = config.depths();
    let max_depth = *depths.last().expect("at least one depth");
    let mut rows = Vec::new();
    for &mode in &config.modes {
        if stop.is_stopped() {
            return Ok(None);
        }
        let name = mode.name();
        engine.set_option(
            "NullMove",
            &format!("{:?}", mode.engine_mode()).to_ascii_lowercase(),
        )?;
        if mode.r > 0 {
            engine.set_option("NullMoveR", &mode.r.to_string())?;
        }
        engine.new_game();
        engine.set_position(Some(&record.fen), &[])?;
        let recorder = Recorder::default();
        engine.go(Limits::depth(max_depth), recorder.clone())?;
        engine.wait();
        if stop.is_stopped() {
            return Ok(None);
        }
        let infos = recorder.0.lock().expect("not poisoned");
        for &depth in &depths {
            let Some(info) = infos.iter().rev().find(|i| i.depth == depth) else {
                continue;
            };
            let best = info.pv.first().copied();
            rows.push(Row {
                position: index,
                id: record.id.clone(),
                mode: name.clone(),
                depth,
                nodes: info.nodes,
                time_ms: info.time_ms,
                best: best.map_or_else(|| "(none)".to_owned(), |m| engine.uci_move(m)),
                score: info.score.to_string(),
                solved: record.solved(best, info.score.kind()),
            });
        }
    }
    Ok(Some(rows))
}

/// Runs the study. `progress` is told each finished position. `stop` ends it early.
///
/// # Errors
///
/// Reading or parsing the suite, engine creation.
pub fn run(
    config: &StudyConfig,
    progress: impl Fn() + Sync,
    stop: &StudyStop,
) -> Result<StudyReport, Error> {
    let text = std::fs::read_to_string(&config.suite).map_err(|e| {
        Error::InvalidCommand(format!("cannot read {}: {e}", config.suite.display()))
    })?;
    let all = parse_suite(&text)?;
    let suite_positions = all.len();
    let has_moves = |r: &EpdRecord| {
        let pos = Position::from_fen(&r.fen).expect("parsed");
        !pos.legal_moves().is_empty()
    };
    let mut records: Vec<EpdRecord> = all.into_iter().filter(has_moves).collect();
    let before = records.len();
    if config.skip_kp {
        records.retain(|r| !r.is_king_and_pawns());
    }
    let skipped_kp = before - records.len();
    if let Some(limit) = config.limit {
        records.truncate(limit);
    }

    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<usize, Vec<Row>>> = Mutex::new(BTreeMap::new());
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..config.jobs.min(records.len().max(1)) {
            s.spawn(|| {
                let work = || -> Result<(), Error> {
                    let mut engine = Engine::new()?;
                    engine.set_threads(1)?;
                    engine.set_hash_mb(config.hash_mb)?;
                    engine.set_option("LMR", if config.lmr { "true" } else { "false" })?;
                    engine.set_option("NullMoveAdaptive", &config.adaptive.to_string())?;
                    engine.set_option("Pruning", if config.pruning { "true" } else { "false" })?;
                    for (name, value) in &config.options {
                        engine.set_option(name, value)?;
                    }
                    stop.controls
                        .lock()
                        .expect("not poisoned")
                        .push(engine.control());
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= records.len() || stop.is_stopped() {
                            return Ok(());
                        }
                        match study_position(&mut engine, config, i, &records[i], stop)? {
                            Some(rows) => {
                                results.lock().expect("not poisoned").insert(i, rows);
                                progress();
                            }
                            None => return Ok(()),
                        }
                    }
                };
                if let Err(e) = work() {
                    first_error.lock().expect("not poisoned").get_or_insert(e);
                    stop.stop();
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let results = results.into_inner().expect("not poisoned");
    let studied = results.len();
    let mut rows: Vec<Row> = results.into_values().flatten().collect();
    rows.sort_by_key(|r| {
        let m = config
            .modes
            .iter()
            .position(|m| m.name() == r.mode)
            .unwrap_or(0);
        (r.position, m, r.depth)
    });
    Ok(StudyReport {
        rows,
        modes: config.modes.clone(),
        depths: config.depths(),
        suite_positions,
        skipped_kp,
        studied,
        interrupted: stop.is_stopped(),
    })
}

/// `lazuli study nullmove ...`: progress on stderr, tables on stdout, files as asked. Ctrl-C
/// stops the running searches and still writes the rows done.
///
/// # Errors
///
/// Suite and file errors.
pub fn run_cli(config: &StudyConfig) -> Result<(), Error> {
    let stop = StudyStop::default();
    let handler_stop = stop.clone();
    let _ = ctrlc::set_handler(move || handler_stop.stop());
    let text = std::fs::read_to_string(&config.suite).map_err(|e| {
        Error::InvalidCommand(format!("cannot read {}: {e}", config.suite.display()))
    })?;
    let total = parse_suite(&text)?
        .len()
        .min(config.limit.unwrap_or(usize::MAX));
    let bar = progress_bar(total as u64);
    let report = run(config, || bar.inc(1), &stop)?;
    bar.finish_and_clear();
    if report.interrupted {
        eprintln!("interrupted: writing the {} positions done", report.studied);
    }
    let markdown = report.markdown();
    print!("{markdown}");
    if let Some(p) = &config.csv {
        write_file(p, &report.csv())?;
    }
    if let Some(p) = &config.json {
        write_file(
            p,
            &serde_json::to_string_pretty(&report.rows).expect("plain data"),
        )?;
    }
    if let Some(p) = &config.markdown {
        write_file(p, &markdown)?;
    }
    Ok(())
}
