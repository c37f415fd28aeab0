//! The engine facade: the one type that the UCI front end, the C library and the bench drive.
//!
//! [`Engine::go`] starts a search on the thread pool and returns at once; results leave
//! through the [`SearchHandler`] given to it, and [`Engine::wait`] blocks until the search
//! has ended and its handler has seen the best move. Options, new games and position changes
//! are always accepted: while a search runs, options and `new_game` are validated at once and
//! applied when it ends (a failure then is kept for [`Engine::take_deferred_errors`]), and a
//! new position is simply used by the next search.

use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use shakmaty::{Move, Position as _};

use crate::error::Error;
use crate::eval::{self, Trace};
use crate::movepick::{History, MovePicker};
use crate::position::Position;
use crate::score::Score;
use crate::search::{Job, NullMoveMode, SearchConfig, SearchHandler, SearchResult};
use crate::threads::{SearchControl, ThreadPool};
use crate::timeman::{Limits, TimeManager};
use crate::tt::TranspositionTable;

/// The engine's name and author, as `uci` reports them.
pub const NAME: &str = concat!("lazuli ", env!("CARGO_PKG_VERSION"));
/// The authors.
pub const AUTHOR: &str = "the lazuli developers";

/// The most threads `Threads` accepts.
pub const MAX_THREADS: i64 = 1024;

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
}

/// One engine option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name, as UCI shows it (matched without regard to case).
    pub name: &'static str,
    /// Type, default and range.
    pub kind: OptionKind,
}

const NULL_MOVE_VARS: &[&str] = &["verified", "standard", "off"];

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
    vec![
        spec(
            "Threads",
            Spin {
                default: 1,
                min: 1,
                max: MAX_THREADS,
            },
        ),
        spec(
            "Hash",
            Spin {
                default: 16,
                min: 1,
                max: max_hash_mb(),
            },
        ),
        spec("Clear Hash", Button),
        spec(
            "MultiPV",
            Spin {
                default: 1,
                min: 1,
                max: 256,
            },
        ),
        spec("Ponder", Check { default: false }),
        spec(
            "Move Overhead",
            Spin {
                default: 10,
                min: 0,
                max: 5000,
            },
        ),
        spec("UCI_Chess960", Check { default: false }),
        spec(
            "NullMove",
            Combo {
                default: "verified",
                vars: NULL_MOVE_VARS,
            },
        ),
        spec(
            "NullMoveR",
            Spin {
                default: 3,
                min: 1,
                max: 4,
            },
        ),
        spec("LMR", Check { default: true }),
        spec("Pruning", Check { default: true }),
    ]
}

/// A validated option value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Int(i64),
    Bool(bool),
    Text(&'static str),
    Press,
}

/// The current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Search threads.
    pub threads: usize,
    /// Hash table size in MB.
    pub hash_mb: usize,
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
    /// The null-move depth reduction R.
    pub null_r: i32,
    /// Late move reductions.
    pub lmr: bool,
    /// Futility, reverse futility, late move and SEE pruning.
    pub pruning: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            hash_mb: 16,
            multipv: 1,
            ponder: false,
            move_overhead: Duration::from_millis(10),
            chess960: false,
            null_move: NullMoveMode::Verified,
            null_r: 3,
            lmr: true,
            pruning: true,
        }
    }
}

enum Pending {
    Option(&'static str, Value),
    NewGame,
}

/// The engine. See the module documentation.
pub struct Engine {
    options: Options,
    position: Position,
    tt: Arc<TranspositionTable>,
    pool: ThreadPool,
    pending: Vec<Pending>,
    deferred_errors: Vec<Error>,
}

impl Engine {
    /// An engine with default options (1 thread, 16 MB hash) at the start position.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the table or the thread cannot be created.
    pub fn new() -> Result<Engine, Error> {
        let options = Options::default();
        Ok(Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb, options.threads)?),
            pool: ThreadPool::new(options.threads)?,
            options,
            position: Position::startpos(),
            pending: Vec::new(),
            deferred_errors: Vec::new(),
        })
    }

    /// The current option values.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The position the next search starts from.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// True while a search runs (including the moment its best move is being reported).
    pub fn is_searching(&self) -> bool {
        self.pool.is_busy()
    }

    /// Makes sure no search runs: waits for one that has been stopped or has reached its
    /// limits (it ends within milliseconds), and applies deferred options.
    ///
    /// # Errors
    ///
    /// [`Error::Busy`] if a search runs and has not been told to stop.
    pub fn idle(&mut self) -> Result<(), Error> {
        if self.pool.is_searching_unstopped() {
            return Err(Error::Busy);
        }
        self.pool.wait();
        self.sync();
        Ok(())
    }

    /// Applies what was deferred during a search, if none runs now. Every other method that
    /// needs an idle engine calls it; front ends call it before each command.
    pub fn sync(&mut self) {
        if self.pending.is_empty() || self.pool.is_busy() {
            return;
        }
        for pending in std::mem::take(&mut self.pending) {
            let applied = match pending {
                Pending::Option(name, value) => self.apply_option(name, value),
                Pending::NewGame => {
                    self.clear();
                    Ok(())
                }
            };
            if let Err(e) = applied {
                self.deferred_errors.push(e);
            }
        }
    }

    /// Errors of options applied after a search ended (for example a `Hash` that could not be
    /// allocated), oldest first; the list is emptied.
    pub fn take_deferred_errors(&mut self) -> Vec<Error> {
        self.sync();
        std::mem::take(&mut self.deferred_errors)
    }

    /// Sets an option by its UCI name (any case). `value` is ignored for buttons.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOption`] for an unknown name or a value of the wrong type or out of
    /// range; [`Error::OutOfMemory`] when a new `Hash` or `Threads` cannot be allocated (the
    /// old table and threads are kept). Nothing changes on error.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), Error> {
        self.sync();
        let specs = option_specs();
        let spec = specs
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| Error::InvalidOption(format!("unknown option '{}'", name.trim())))?;
        let value = parse_value(spec, value.trim())?;
        if self.pool.is_busy() {
            self.pending.push(Pending::Option(spec.name, value));
            return Ok(());
        }
        self.apply_option(spec.name, value)
    }

    fn apply_option(&mut self, name: &'static str, value: Value) -> Result<(), Error> {
        let o = &mut self.options;
        match (name, value) {
            ("Threads", Value::Int(n)) => {
                let n = n as usize;
                if n != self.pool.len() {
                    // Start the new threads before letting the old ones go, so that a failure
                    // keeps the engine as it was.
                    let pool = ThreadPool::new(n)?;
                    self.pool = pool;
                }
                self.options.threads = n;
            }
            ("Hash", Value::Int(mb)) => {
                let mb = mb as usize;
                // Free the old table first so that both never need to fit at once; if the new
                // one fails, allocate the old size again.
                let threads = o.threads;
                let old_mb = o.hash_mb;
                self.tt = Arc::new(TranspositionTable::new(1, 1)?);
                match TranspositionTable::new(mb, threads) {
                    Ok(tt) => {
                        self.tt = Arc::new(tt);
                        self.options.hash_mb = mb;
                    }
                    Err(e) => {
                        self.tt = Arc::new(TranspositionTable::new(old_mb, threads)?);
                        return Err(e);
                    }
                }
            }
            ("Clear Hash", Value::Press) => self.tt.clear(o.threads),
            ("MultiPV", Value::Int(n)) => o.multipv = n as usize,
            ("Ponder", Value::Bool(b)) => o.ponder = b,
            ("Move Overhead", Value::Int(ms)) => o.move_overhead = Duration::from_millis(ms as u64),
            ("UCI_Chess960", Value::Bool(b)) => o.chess960 = b,
            ("NullMove", Value::Text(mode)) => {
                o.null_move = match mode {
                    "verified" => NullMoveMode::Verified,
                    "standard" => NullMoveMode::Standard,
                    _ => NullMoveMode::Off,
                }
            }
            ("NullMoveR", Value::Int(r)) => o.null_r = r as i32,
            ("LMR", Value::Bool(b)) => o.lmr = b,
            ("Pruning", Value::Bool(b)) => o.pruning = b,
            (name, value) => unreachable!("option {name} validated as {value:?}"),
        }
        Ok(())
    }

    /// Starts a new game: clears the table and every thread's history (after the running
    /// search, if one runs).
    pub fn new_game(&mut self) {
        self.sync();
        if self.pool.is_busy() {
            self.pending.push(Pending::NewGame);
        } else {
            self.clear();
        }
    }

    fn clear(&mut self) {
        self.tt.clear(self.options.threads);
        self.pool.clear_history();
    }

    /// Sets the position: a FEN (`None` for the start position) and moves in UCI notation
    /// played from it. On error the previous position stays.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidFen`] or [`Error::IllegalMove`] (naming the move and its number).
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), Error> {
        self.sync();
        let mut pos = match fen {
            None => Position::startpos(),
            Some(fen) => Position::from_fen(fen)?,
        };
        for (i, text) in moves.iter().enumerate() {
            pos.play_uci(text).map_err(|e| match e {
                Error::IllegalMove(m) => Error::IllegalMove(format!("move {} {m}", i + 1)),
                other => other,
            })?;
        }
        self.position = pos;
        Ok(())
    }

    /// Starts a search of the current position and returns at once; `handler` receives the
    /// reports and the best move on an engine thread. If a search is already stopping, waits
    /// for it to end first.
    ///
    /// # Errors
    ///
    /// [`Error::Busy`] if a search runs and has not been told to stop;
    /// [`Error::IllegalMove`] for a `searchmoves` entry that is not legal.
    pub fn go(
        &mut self,
        limits: Limits,
        handler: impl SearchHandler + 'static,
    ) -> Result<(), Error> {
        self.go_boxed(limits, Box::new(handler))
    }

    /// [`Engine::go`] with a boxed handler.
    ///
    /// # Errors
    ///
    /// As [`Engine::go`].
    pub fn go_boxed(
        &mut self,
        limits: Limits,
        handler: Box<dyn SearchHandler>,
    ) -> Result<(), Error> {
        let start = Instant::now();
        self.idle()?;

        let pos = &self.position;
        let mut restrict = Vec::new();
        for text in &limits.searchmoves {
            restrict.push(pos.parse_uci(text)?);
        }
        let root_moves = self.ordered_root_moves(&restrict);
        self.tt.new_search();
        let o = &self.options;
        let job = Job {
            root: pos.clone(),
            root_moves,
            time: TimeManager::new(&limits, pos.turn(), o.move_overhead),
            config: SearchConfig {
                null_move: o.null_move,
                null_r: o.null_r,
                lmr: o.lmr,
                pruning: o.pruning,
                multipv: o.multipv,
            },
            limits,
            start,
            tt: Arc::clone(&self.tt),
        };
        self.pool.start(job, handler);
        Ok(())
    }

    /// The legal root moves (restricted to `only` when it is not empty), table move first and
    /// then in move-picker order.
    fn ordered_root_moves(&self, only: &[Move]) -> Vec<Move> {
        static NO_HISTORY: LazyLock<History> = LazyLock::new(History::default);
        let chess = self.position.chess();
        let tt_move = self
            .tt
            .probe(self.position.key())
            .and_then(|h| h.mv.to_move(chess));
        let mut picker = MovePicker::new(tt_move, [None; 2]);
        let mut moves = Vec::new();
        while let Some(m) = picker.next(chess, &NO_HISTORY) {
            if only.is_empty() || only.contains(&m) {
                moves.push(m);
            }
        }
        moves
    }

    /// Tells a running search to stop; returns at once. Harmless when none runs.
    pub fn stop(&self) {
        self.pool.stop();
    }

    /// The opponent played the expected move: a `go ponder` search continues under its time
    /// limits, counted from now.
    pub fn ponderhit(&self) {
        self.pool.ponderhit();
    }

    /// Blocks until the running search (if any) has ended and reported its best move, then
    /// applies deferred options. Returns the last search's result (`None` before the first).
    pub fn wait(&mut self) -> Option<Result<SearchResult, Error>> {
        let result = self.pool.wait();
        self.sync();
        result
    }

    /// A handle to stop, ponderhit or wait for searches from any thread without borrowing
    /// the engine. Take a new one after changing `Threads`.
    pub fn control(&self) -> SearchControl {
        self.pool.control()
    }

    /// Nodes searched so far by the running or last search.
    pub fn nodes(&self) -> u64 {
        self.pool.nodes()
    }

    /// Permille of the table filled by the current search.
    pub fn hashfull(&self) -> u32 {
        self.tt.hashfull()
    }

    /// Perft of the current position.
    pub fn perft(&self, depth: u32) -> u64 {
        self.position.perft(depth)
    }

    /// The static evaluation of the current position, from the side to move.
    pub fn evaluate(&self) -> Score {
        eval::evaluate(self.position.chess())
    }

    /// The static evaluation with every term.
    pub fn eval_trace(&self) -> Trace {
        eval::trace(self.position.chess())
    }

    /// The move in UCI notation under the current `UCI_Chess960` setting.
    pub fn uci_move(&self, m: Move) -> String {
        Position::uci(m, self.options.chess960).to_string()
    }

    /// True when the side to move has a legal move.
    pub fn has_legal_moves(&self) -> bool {
        !self.position.chess().legal_moves().is_empty()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.pool.stop();
        self.pool.wait();
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
            .map(|v| Value::Text(v))
            .ok_or_else(|| bad("not one of the choices:")),
        OptionKind::Button => Ok(Value::Press),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values_are_validated() {
        let mut e = Engine::new().unwrap();
        for (name, value) in [
            ("Hash", "x"),
            ("Hash", "0"),
            ("Hash", "-5"),
            ("Threads", "0"),
            ("Threads", "1025"),
            ("MultiPV", "1.5"),
            ("Ponder", "yes"),
            ("NullMove", "sometimes"),
            ("NullMoveR", "5"),
            ("No Such Option", "1"),
        ] {
            assert!(
                matches!(e.set_option(name, value), Err(Error::InvalidOption(_))),
                "{name}={value}"
            );
        }
        assert_eq!(e.options(), &Options::default());
        e.set_option("nullmove", "Standard").unwrap();
        e.set_option("MULTIPV", "3").unwrap();
        e.set_option("clear hash", "").unwrap();
        assert_eq!(e.options().null_move, NullMoveMode::Standard);
        assert_eq!(e.options().multipv, 3);
    }

    #[test]
    fn a_rejected_position_keeps_the_old_one() {
        let mut e = Engine::new().unwrap();
        e.set_position(None, &["e2e4", "e7e5"]).unwrap();
        let before = e.position().fen();
        assert!(matches!(
            e.set_position(None, &["e2e4", "e2e4"]),
            Err(Error::IllegalMove(_))
        ));
        assert!(matches!(
            e.set_position(Some("8/8/8 w - - 0 1"), &[]),
            Err(Error::InvalidFen(_))
        ));
        assert_eq!(e.position().fen(), before);
    }
}
