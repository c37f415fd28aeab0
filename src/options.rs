//! The engine's options: the table that `uci` lists and the C API describes, the current
//! values, and the parsing of a name and a text value into a typed [`Setting`].
//!
//! To add an option: a row in [`option_specs`], a variant in [`Setting`] with its parse arm in
//! [`Setting::parse`], a field in [`Options`] (or an action in the engine facade), and a line
//! in the README's options table.

use std::sync::LazyLock;
use std::time::Duration;

use crate::error::Error;
use crate::params::{MOVE_OVERHEAD_MS, SKILL_ELO_MAX, SKILL_ELO_MIN, SKILL_MAX_LEVEL};
use crate::search::NullMoveMode;
use crate::search::skill::strength_for_elo;

/// The engine's name and version, as `uci` reports them.
pub const NAME: &str = concat!("lazuli ", env!("CARGO_PKG_VERSION"));
/// The authors.
pub const AUTHOR: &str = "the lazuli developers";

/// The most threads `Threads` accepts.
pub const MAX_THREADS: usize = 1024;

/// The largest `Skill Seed`.
const MAX_SKILL_SEED: i64 = u32::MAX as i64;

/// The type and range of an option, as the UCI `option` line describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Spin { default: i64, min: i64, max: i64 },
    /// `true` or `false`.
    Check { default: bool },
    /// One of `vars`.
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    /// An action without a value.
    Button,
    /// Any text (UCI `type string`); an empty default prints as `<empty>`.
    Text { default: &'static str },
}

/// One engine option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name, as UCI shows it (matched without regard to case).
    pub name: &'static str,
    /// Type, default and range.
    pub kind: OptionKind,
}

const NULL_MOVE_VARS: &[&str] = &["verified", "paper", "standard", "off"];

/// The machine's memory in MB, the upper end of `Hash` (Linux `/proc/meminfo`; elsewhere
/// Stockfish's 64-bit maximum).
fn max_hash_mb() -> i64 {
    static MAX: LazyLock<i64> = LazyLock::new(|| {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|info| {
                let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kb: i64 = line.split_whitespace().nth(1)?.parse().ok()?;
                Some(kb / 1024)
            })
            .unwrap_or(33_554_432)
    });
    *MAX
}

/// All options in the order `uci` lists them.
pub fn option_specs() -> Vec<OptionSpec> {
    use OptionKind::*;
    let spec = |name, kind| OptionSpec { name, kind };
    let spin = |default, min, max| Spin { default, min, max };
    #[cfg_attr(
        not(feature = "tune"),
        expect(unused_mut, reason = "tune builds add the tunables")
    )]
    let mut specs = vec![
        spec("Threads", spin(1, 1, MAX_THREADS as i64)),
        spec("Hash", spin(16, 1, max_hash_mb())),
        spec("Clear Hash", Button),
        spec("Hash File", Text { default: "" }),
        spec("Save Hash to File", Button),
        spec("Load Hash from File", Button),
        spec("Never Clear Hash", Check { default: false }),
        spec("MultiPV", spin(1, 1, 256)),
        spec("Ponder", Check { default: false }),
        spec("Move Overhead", spin(MOVE_OVERHEAD_MS as i64, 0, 5000)),
        spec("UCI_Chess960", Check { default: false }),
        spec(
            "NullMove",
            Combo {
                default: "verified",
                vars: NULL_MOVE_VARS,
            },
        ),
        spec("NullMoveR", spin(3, 1, 4)),
        spec("NullMoveAdaptive", Check { default: true }),
        spec("LMR", Check { default: true }),
        spec("Pruning", Check { default: true }),
        spec("UseNNUE", Check { default: true }),
        spec("EvalFile", Text { default: "" }),
        spec("SyzygyPath", Text { default: "" }),
        spec("SyzygyProbeDepth", spin(1, 1, 100)),
        spec("Syzygy50MoveRule", Check { default: true }),
        spec("SyzygyProbeLimit", spin(7, 0, 7)),
        spec("UCI_ShowWDL", Check { default: false }),
        spec("UCI_LimitStrength", Check { default: false }),
        spec("UCI_Elo", spin(SKILL_ELO_MAX, SKILL_ELO_MIN, SKILL_ELO_MAX)),
        spec("Skill Level", spin(SKILL_MAX_LEVEL, 0, SKILL_MAX_LEVEL)),
        spec("Skill Seed", spin(0, 0, MAX_SKILL_SEED)),
    ];
    #[cfg(feature = "tune")]
    specs.extend(crate::params::TUNABLES.iter().map(|t| {
        spec(
            t.name,
            spin(i64::from(t.default), i64::from(t.min), i64::from(t.max)),
        )
    }));
    specs
}

/// The current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Search threads.
    pub threads: usize,
    /// Hash table size in MB.
    pub hash_mb: usize,
    /// The file `Save Hash to File` writes and `Load Hash from File` reads (empty: none).
    pub hash_file: String,
    /// `ucinewgame` keeps the table (`Clear Hash` still clears it).
    pub never_clear_hash: bool,
    /// Principal variations reported.
    pub multipv: usize,
    /// The GUI may send `go ponder`.
    pub ponder: bool,
    /// Time kept in reserve for communication, per move.
    pub move_overhead: Duration,
    /// Castling moves as king-takes-rook.
    pub chess960: bool,
    /// Null-move pruning scheme and reduction.
    pub null_move: NullMoveMode,
    /// The null-move depth reduction R (the base R when adaptive).
    pub null_r: i32,
    /// R grows with depth and with the evaluation's margin above beta.
    pub null_adaptive: bool,
    /// Late move reductions.
    pub lmr: bool,
    /// Futility, reverse futility, late move and SEE pruning.
    pub pruning: bool,
    /// Evaluate with the network (else the hand-crafted evaluation).
    pub use_nnue: bool,
    /// The network file loaded by `EvalFile`; empty for the network built into lazuli.
    pub eval_file: String,
    /// The folders of the Syzygy tables, as given (empty: none).
    pub syzygy_path: String,
    /// Probe the tables in the search only this many plies from the horizon or more (at the
    /// largest piece count the tables and the limit allow).
    pub syzygy_probe_depth: i32,
    /// Cursed wins and blessed losses count as draws.
    pub syzygy_50_move_rule: bool,
    /// Probe only with at most this many pieces.
    pub syzygy_probe_limit: usize,
    /// `info` lines carry `wdl W D L`.
    pub show_wdl: bool,
    /// Play at the strength of `elo` (overrides `skill_level`).
    pub limit_strength: bool,
    /// The strength asked for by `UCI_LimitStrength`.
    pub elo: i64,
    /// 0 (weakest) to 20 (full strength).
    pub skill_level: i64,
    /// Seeds limited strength's choices with the position's key; 0: from the clock.
    pub skill_seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            hash_mb: 16,
            hash_file: String::new(),
            never_clear_hash: false,
            multipv: 1,
            ponder: false,
            move_overhead: Duration::from_millis(MOVE_OVERHEAD_MS),
            chess960: false,
            null_move: NullMoveMode::Verified,
            null_r: 3,
            null_adaptive: true,
            lmr: true,
            pruning: true,
            use_nnue: true,
            eval_file: String::new(),
            syzygy_path: String::new(),
            syzygy_probe_depth: 1,
            syzygy_50_move_rule: true,
            syzygy_probe_limit: 7,
            show_wdl: false,
            limit_strength: false,
            elo: SKILL_ELO_MAX,
            skill_level: SKILL_MAX_LEVEL,
            skill_seed: 0,
        }
    }
}

/// One validated option change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    Threads(usize),
    Hash(usize),
    ClearHash,
    HashFile(String),
    SaveHash,
    LoadHash,
    NeverClearHash(bool),
    MultiPv(usize),
    Ponder(bool),
    MoveOverhead(Duration),
    Chess960(bool),
    NullMove(NullMoveMode),
    NullMoveR(i32),
    NullMoveAdaptive(bool),
    Lmr(bool),
    Pruning(bool),
    UseNnue(bool),
    /// A path, or empty for the built-in network; loaded by the engine.
    EvalFile(String),
    /// Folders, or empty for none; loaded by the engine.
    SyzygyPath(String),
    SyzygyProbeDepth(i32),
    Syzygy50MoveRule(bool),
    SyzygyProbeLimit(usize),
    ShowWdl(bool),
    LimitStrength(bool),
    Elo(i64),
    SkillLevel(i64),
    SkillSeed(u64),
    /// A search constant of a tune build, by its name in `params::TUNABLES`.
    #[cfg(feature = "tune")]
    Tunable(&'static str, i32),
}

/// A value checked against its option's type and range.
enum Value {
    Int(i64),
    Bool(bool),
    Choice(&'static str),
    Text(String),
    Press,
}

impl Setting {
    /// Parses an option by its UCI name (any case) and a text value (ignored for buttons).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOption`] for an unknown name or a value of the wrong type or out of
    /// range.
    pub(crate) fn parse(name: &str, value: &str) -> Result<Setting, Error> {
        let specs = option_specs();
        let spec = specs
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| Error::InvalidOption(format!("unknown option '{}'", name.trim())))?;
        let setting = match (spec.name, parse_value(spec, value.trim())?) {
            ("Threads", Value::Int(n)) => Setting::Threads(n as usize),
            ("Hash", Value::Int(mb)) => Setting::Hash(mb as usize),
            ("Clear Hash", Value::Press) => Setting::ClearHash,
            ("Hash File", Value::Text(path)) => Setting::HashFile(path),
            ("Save Hash to File", Value::Press) => Setting::SaveHash,
            ("Load Hash from File", Value::Press) => Setting::LoadHash,
            ("Never Clear Hash", Value::Bool(b)) => Setting::NeverClearHash(b),
            ("MultiPV", Value::Int(n)) => Setting::MultiPv(n as usize),
            ("Ponder", Value::Bool(b)) => Setting::Ponder(b),
            ("Move Overhead", Value::Int(ms)) => {
                Setting::MoveOverhead(Duration::from_millis(ms as u64))
            }
            ("UCI_Chess960", Value::Bool(b)) => Setting::Chess960(b),
            ("NullMove", Value::Choice(mode)) => Setting::NullMove(match mode {
                "verified" => NullMoveMode::Verified,
                "paper" => NullMoveMode::Paper,
                "standard" => NullMoveMode::Standard,
                _ => NullMoveMode::Off,
            }),
            ("NullMoveR", Value::Int(r)) => Setting::NullMoveR(r as i32),
            ("NullMoveAdaptive", Value::Bool(b)) => Setting::NullMoveAdaptive(b),
            ("LMR", Value::Bool(b)) => Setting::Lmr(b),
            ("Pruning", Value::Bool(b)) => Setting::Pruning(b),
            ("UseNNUE", Value::Bool(b)) => Setting::UseNnue(b),
            ("EvalFile", Value::Text(path)) => Setting::EvalFile(path),
            ("SyzygyPath", Value::Text(path)) => Setting::SyzygyPath(path),
            ("SyzygyProbeDepth", Value::Int(d)) => Setting::SyzygyProbeDepth(d as i32),
            ("Syzygy50MoveRule", Value::Bool(b)) => Setting::Syzygy50MoveRule(b),
            ("SyzygyProbeLimit", Value::Int(n)) => Setting::SyzygyProbeLimit(n as usize),
            ("UCI_ShowWDL", Value::Bool(b)) => Setting::ShowWdl(b),
            ("UCI_LimitStrength", Value::Bool(b)) => Setting::LimitStrength(b),
            ("UCI_Elo", Value::Int(elo)) => Setting::Elo(elo),
            ("Skill Level", Value::Int(level)) => Setting::SkillLevel(level),
            ("Skill Seed", Value::Int(seed)) => Setting::SkillSeed(seed as u64),
            #[cfg(feature = "tune")]
            (name, Value::Int(v)) if crate::params::TUNABLES.iter().any(|t| t.name == name) => {
                Setting::Tunable(name, v as i32)
            }
            (name, _) => unreachable!("option {name} has a parse arm"),
        };
        Ok(setting)
    }
}

impl Options {
    /// Applies a setting that only changes a value (not `Threads`, `Hash` or the buttons,
    /// which the engine applies itself); true if it did.
    pub(crate) fn apply(&mut self, setting: &Setting) -> bool {
        match setting {
            Setting::HashFile(path) => self.hash_file.clone_from(path),
            Setting::NeverClearHash(b) => self.never_clear_hash = *b,
            Setting::MultiPv(n) => self.multipv = *n,
            Setting::Ponder(b) => self.ponder = *b,
            Setting::MoveOverhead(d) => self.move_overhead = *d,
            Setting::Chess960(b) => self.chess960 = *b,
            Setting::NullMove(mode) => self.null_move = *mode,
            Setting::NullMoveR(r) => self.null_r = *r,
            Setting::NullMoveAdaptive(b) => self.null_adaptive = *b,
            Setting::Lmr(b) => self.lmr = *b,
            Setting::Pruning(b) => self.pruning = *b,
            Setting::UseNnue(b) => self.use_nnue = *b,
            Setting::SyzygyProbeDepth(d) => self.syzygy_probe_depth = *d,
            Setting::Syzygy50MoveRule(b) => self.syzygy_50_move_rule = *b,
            Setting::SyzygyProbeLimit(n) => self.syzygy_probe_limit = *n,
            Setting::ShowWdl(b) => self.show_wdl = *b,
            Setting::LimitStrength(b) => self.limit_strength = *b,
            Setting::Elo(elo) => self.elo = *elo,
            Setting::SkillLevel(level) => self.skill_level = *level,
            Setting::SkillSeed(seed) => self.skill_seed = *seed,
            #[cfg(feature = "tune")]
            Setting::Tunable(name, value) => {
                if let Some(t) = crate::params::TUNABLES.iter().find(|t| t.name == *name) {
                    t.set(*value);
                }
            }
            Setting::Threads(_)
            | Setting::Hash(_)
            | Setting::ClearHash
            | Setting::SaveHash
            | Setting::LoadHash
            | Setting::EvalFile(_)
            | Setting::SyzygyPath(_) => {
                return false;
            }
        }
        true
    }

    /// The strength to play at (search/skill.rs), 0 to 20: `UCI_Elo`'s with
    /// `UCI_LimitStrength`, else `Skill Level`; 20 is full strength.
    pub fn strength(&self) -> f64 {
        if self.limit_strength {
            strength_for_elo(self.elo)
        } else {
            self.skill_level as f64
        }
    }
}

fn parse_value(spec: &OptionSpec, text: &str) -> Result<Value, Error> {
    let bad = |what: &str| {
        Error::InvalidOption(format!(
            "{} value '{text}' for option '{}'",
            what, spec.name
        ))
    };
    match &spec.kind {
        OptionKind::Spin { min, max, .. } => {
            let n: i64 = text.parse().map_err(|_| bad("not an integer:"))?;
            if n < *min || n > *max {
                return Err(Error::InvalidOption(format!(
                    "value {n} for option '{}' is outside {min}..{max}",
                    spec.name
                )));
            }
            Ok(Value::Int(n))
        }
        OptionKind::Check { .. } => match text.to_ascii_lowercase().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("not true or false:")),
        },
        OptionKind::Combo { vars, .. } => vars
            .iter()
            .find(|v| v.eq_ignore_ascii_case(text))
            .map(|v| Value::Choice(v))
            .ok_or_else(|| bad("not one of the choices:")),
        OptionKind::Button => Ok(Value::Press),
        OptionKind::Text { .. } if text == "<empty>" => Ok(Value::Text(String::new())),
        OptionKind::Text { .. } => Ok(Value::Text(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_option_parses_its_default() {
        for spec in option_specs() {
            let value = match spec.kind {
                OptionKind::Spin { default, .. } => default.to_string(),
                OptionKind::Check { default } => default.to_string(),
                OptionKind::Combo { default, .. } => default.to_owned(),
                OptionKind::Button => String::new(),
                OptionKind::Text { default } => default.to_owned(),
            };
            let setting = Setting::parse(spec.name, &value).unwrap();
            let mut options = Options::default();
            let plain = options.apply(&setting);
            // A value option at its default leaves the defaults as they were.
            assert!(!plain || options == Options::default(), "{}", spec.name);
        }
    }
}
