//! The engine facade: the one type that the UCI front end, the C library and the tools drive.
//!
//! [`Engine::go`] starts a search on the thread pool and returns at once; results leave
//! through the [`SearchHandler`] given to it, and [`Engine::wait`] blocks until the search
//! has ended and its handler has seen the best move. Options, new games and position changes
//! are always accepted: while a search runs, options and `new_game` are validated at once and
//! applied by the facade itself as soon as the search has ended (at the next call that finds
//! it idle; a failure then is kept for [`Engine::take_deferred_errors`]), and a new position is
//! simply used by the next search. Saving and loading the table (`Save Hash to File`, `Load
//! Hash from File`) are the exception: refused with [`Error::Busy`] during a search, since the
//! table is still changing and a deferred failure would come too late to tell.

use std::sync::Arc;
use std::time::Instant;

use shakmaty::Move;

use crate::error::Error;
use crate::eval::nnue::Network;
use crate::eval::{self, Evaluation, Trace};
use crate::options::{Options, Setting};
use crate::position::Position;
use crate::report::{SearchHandler, SearchResult};
use crate::score::Score;
use crate::search::root::ordered_moves;
use crate::search::{Job, SearchConfig, Skill};
use crate::state::{Phase, SearchControl, SearchState};
use crate::tablebase::{Tablebases, TbConfig};
use crate::threads::ThreadPool;
use crate::timeman::{Limits, TimeManager};
use crate::tt::{HashFileReport, TranspositionTable};

enum Pending {
    Setting(Setting),
    Loaded(Loaded),
    NewGame,
}

/// An option whose value is read from files, loaded (and so checked) when it is set, with the
/// option's text.
enum Loaded {
    /// `EvalFile` (the built-in network for an empty path).
    Net(Arc<Network>, String),
    /// `SyzygyPath` (`None`: no tables).
    Tables(Option<Arc<Tablebases>>, String),
}

/// The network of `EvalFile` `path`: the built-in one for an empty path.
fn load_net(path: &str) -> Result<Arc<Network>, Error> {
    let read;
    let bytes = if path.is_empty() {
        Network::BUILT_IN
    } else {
        read = std::fs::read(path)
            .map_err(|e| Error::InvalidOption(format!("EvalFile: cannot read '{path}': {e}")))?;
        &read
    };
    let net = Network::from_bytes(bytes)
        .map_err(|e| Error::InvalidOption(format!("EvalFile '{path}': {e}")))?;
    Ok(Arc::new(net))
}

/// The engine. See the module documentation.
pub struct Engine {
    options: Options,
    position: Position,
    tt: Arc<TranspositionTable>,
    state: Arc<SearchState>,
    pool: ThreadPool,
    /// The network of `EvalFile` (the built-in one by default).
    net: Arc<Network>,
    /// The Syzygy tables of `SyzygyPath`, if any.
    tables: Option<Arc<Tablebases>>,
    pending: Vec<Pending>,
    deferred_errors: Vec<Error>,
    /// What the last successful save or load of the table did.
    hash_file: Option<HashFileReport>,
}

impl Engine {
    /// An engine with default options (1 thread, 16 MB hash) at the start position.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the table or the thread cannot be created.
    pub fn new() -> Result<Engine, Error> {
        let options = Options::default();
        let net = load_net(&options.eval_file)?;
        Engine::with(options, net, None)
    }

    /// An engine at the start position with `options`, its own table and threads of the sizes
    /// they give, and the network and tables already loaded for them.
    fn with(
        options: Options,
        net: Arc<Network>,
        tables: Option<Arc<Tablebases>>,
    ) -> Result<Engine, Error> {
        let state = Arc::new(SearchState::new());
        Ok(Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)?),
            pool: ThreadPool::new(options.threads, Arc::clone(&state))?,
            state,
            net,
            tables,
            options,
            position: Position::startpos(),
            pending: Vec::new(),
            deferred_errors: Vec::new(),
            hash_file: None,
        })
    }

    /// A new engine with this one's options, network and tables, but its own table and
    /// threads (of the default sizes) and the start position: what the UCI `bench` runs on, so that it measures
    /// what `setoption` chose (as Stockfish's `bench` does), and leaves this engine's table,
    /// history and position as they were. Settings still pending behind a running search are
    /// not included.
    ///
    /// # Errors
    ///
    /// As [`Engine::new`].
    pub fn sibling(&self) -> Result<Engine, Error> {
        let defaults = Options::default();
        let options = Options {
            threads: defaults.threads,
            hash_mb: defaults.hash_mb,
            ..self.options.clone()
        };
        Engine::with(options, Arc::clone(&self.net), self.tables.clone())
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
        self.state.phase() != Phase::Idle
    }

    /// True while a search runs and has not been told to stop (a stopped one is only
    /// finishing: its end is a matter of milliseconds).
    fn is_searching_unstopped(&self) -> bool {
        self.state.phase() == Phase::Running && !self.state.is_stopped()
    }

    /// Makes sure no search runs: waits for one that has been stopped or has reached its
    /// limits (it ends within milliseconds), and applies deferred options.
    ///
    /// # Errors
    ///
    /// [`Error::Busy`] if a search runs and has not been told to stop.
    pub fn idle(&mut self) -> Result<(), Error> {
        if self.is_searching_unstopped() {
            return Err(Error::Busy);
        }
        self.control().wait();
        self.sync();
        Ok(())
    }

    /// Applies what was deferred during a search, if none runs now. Every method that takes
    /// `&mut self` calls it first, so a front end never has to.
    fn sync(&mut self) {
        if self.pending.is_empty() || self.is_searching() {
            return;
        }
        for pending in std::mem::take(&mut self.pending) {
            let applied = match pending {
                Pending::Setting(setting) => self.apply(setting),
                Pending::Loaded(loaded) => {
                    self.install(loaded);
                    Ok(())
                }
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
    /// old table and threads are kept); for `Save Hash to File` and `Load Hash from File`,
    /// the errors of [`Engine::save_hash`] and [`Engine::load_hash`] (these two are refused
    /// during a search, not deferred). Nothing changes on error.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), Error> {
        self.sync();
        // A network or tables are loaded (and so checked) at once, and used from the next
        // search.
        let loaded = match Setting::parse(name, value)? {
            setting @ (Setting::SaveHash | Setting::LoadHash) => {
                // The path once any `Hash File` deferred behind a stopped search is applied.
                self.idle()?;
                let path = self.options.hash_file.clone();
                return if setting == Setting::SaveHash {
                    self.save_hash(&path).map(drop)
                } else {
                    self.load_hash(&path).map(drop)
                };
            }
            Setting::EvalFile(path) => Loaded::Net(load_net(&path)?, path),
            Setting::SyzygyPath(path) => {
                Loaded::Tables(Tablebases::load(&path)?.map(Arc::new), path)
            }
            setting => return self.change(setting),
        };
        if self.is_searching() {
            self.pending.push(Pending::Loaded(loaded));
        } else {
            self.install(loaded);
        }
        Ok(())
    }

    fn install(&mut self, loaded: Loaded) {
        match loaded {
            Loaded::Net(net, path) => {
                self.net = net;
                self.options.eval_file = path;
            }
            Loaded::Tables(tables, path) => {
                self.tables = tables;
                self.options.syzygy_path = path;
            }
        }
    }

    /// The Syzygy tables found by the last `SyzygyPath` (pending or in use): the number of
    /// table files and the most pieces they cover; `(0, 0)` without tables.
    pub fn tablebases(&self) -> (usize, usize) {
        let pending = self.pending.iter().rev().find_map(|p| match p {
            Pending::Loaded(Loaded::Tables(t, _)) => Some(t),
            _ => None,
        });
        pending
            .unwrap_or(&self.tables)
            .as_ref()
            .map_or((0, 0), |t| (t.files(), t.max_pieces()))
    }

    /// How the next search uses the tables.
    fn tb_config(&self) -> TbConfig {
        let o = &self.options;
        match &self.tables {
            Some(t) => TbConfig {
                cardinality: t.max_pieces().min(o.syzygy_probe_limit),
                probe_depth: o.syzygy_probe_depth,
                rule50: o.syzygy_50_move_rule,
            },
            None => TbConfig::OFF,
        }
    }

    /// The evaluation the next search uses: the network when `UseNNUE` is on, else the
    /// hand-crafted evaluation.
    fn evaluation(&self) -> Evaluation {
        if self.options.use_nnue {
            Evaluation::Nnue(Arc::clone(&self.net))
        } else {
            Evaluation::Hce
        }
    }

    /// Sets `Threads`: the number of search threads (1 to [`crate::MAX_THREADS`]).
    ///
    /// # Errors
    ///
    /// As [`Engine::set_option`].
    pub fn set_threads(&mut self, threads: usize) -> Result<(), Error> {
        self.set_option("Threads", &threads.to_string())
    }

    /// Sets `Hash`: the table size in MB.
    ///
    /// # Errors
    ///
    /// As [`Engine::set_option`].
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), Error> {
        self.set_option("Hash", &mb.to_string())
    }

    /// Applies `setting` now, or after the running search.
    fn change(&mut self, setting: Setting) -> Result<(), Error> {
        self.sync();
        if self.is_searching() {
            self.pending.push(Pending::Setting(setting));
            return Ok(());
        }
        self.apply(setting)
    }

    fn apply(&mut self, setting: Setting) -> Result<(), Error> {
        if self.options.apply(&setting) {
            return Ok(());
        }
        match setting {
            Setting::Threads(n) => {
                if n != self.pool.len() {
                    // Start the new threads before letting the old ones go, so that a failure
                    // keeps the engine as it was.
                    self.pool = ThreadPool::new(n, Arc::clone(&self.state))?;
                }
                self.options.threads = n;
            }
            Setting::Hash(mb) => {
                // Free the old table first so that both never need to fit at once; if the new
                // one fails, allocate the old size again.
                let old_mb = self.options.hash_mb;
                self.tt = Arc::new(TranspositionTable::new(1)?);
                match TranspositionTable::new(mb) {
                    Ok(tt) => {
                        self.tt = Arc::new(tt);
                        self.options.hash_mb = mb;
                    }
                    Err(e) => {
                        self.tt = Arc::new(TranspositionTable::new(old_mb)?);
                        return Err(e);
                    }
                }
            }
            Setting::ClearHash => self.clear_table(),
            // EvalFile and SyzygyPath never come here: set_option loads them.
            other => unreachable!("{other:?} is a plain value"),
        }
        Ok(())
    }

    /// Saves the table to the file `path` (the hash file format of `docs/persistent-hash.md`),
    /// streaming it: a table of any size needs no more memory than a small buffer. The file
    /// is written as `PATH.part` and renamed when complete. A search that has been stopped is
    /// waited for.
    ///
    /// # Errors
    ///
    /// [`Error::Busy`] while a search runs (not deferred: the table is still changing);
    /// [`Error::File`] for an empty path or one that cannot be written (an existing file is
    /// left as it was). The engine is unchanged either way.
    pub fn save_hash(&mut self, path: &str) -> Result<HashFileReport, Error> {
        self.idle()?;
        let report = self.tt.save_file(hash_path(path)?)?;
        self.hash_file = Some(report.clone());
        Ok(report)
    }

    /// Loads the hash file `path` into the table: in place when it was saved from a table of
    /// the current `Hash`, else rehashed (each entry stored by its key; into a smaller table,
    /// the deeper entries stay). The table then holds the file's entries only. The whole file
    /// is checked before the table is touched. A search that has been stopped is waited for.
    ///
    /// # Errors
    ///
    /// [`Error::Busy`] while a search runs; [`Error::File`] for an empty path, a file that
    /// cannot be read, a damaged, truncated or foreign file (with the reason). The table and
    /// the rest of the engine are then as they were.
    pub fn load_hash(&mut self, path: &str) -> Result<HashFileReport, Error> {
        self.idle()?;
        let report = self.tt.load_file(hash_path(path)?)?;
        self.hash_file = Some(report.clone());
        Ok(report)
    }

    /// What the last successful [`Engine::save_hash`] or [`Engine::load_hash`] (or the
    /// buttons `Save Hash to File` and `Load Hash from File`) did.
    pub fn hash_file_report(&self) -> Option<&HashFileReport> {
        self.hash_file.as_ref()
    }

    /// Starts a new game: clears the table (unless `Never Clear Hash` is set) and every
    /// thread's history (after the running search, if one runs).
    pub fn new_game(&mut self) {
        self.sync();
        if self.is_searching() {
            self.pending.push(Pending::NewGame);
        } else {
            self.clear();
        }
    }

    fn clear(&mut self) {
        if !self.options.never_clear_hash {
            self.clear_table();
        }
        self.pool.clear_history();
    }

    /// Empties the table (no search runs), on all cores ([`TranspositionTable::discard`]
    /// writes zeroes unless `LAZULI_TT_CLEAR=discard` asks it to give the pages back, which
    /// needs the only handle: the searches drop theirs before the engine is idle).
    fn clear_table(&mut self) {
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.discard(),
            None => self.tt.clear(),
        }
    }

    /// How many bytes of the hash table the kernel backs with huge pages now
    /// ([`TranspositionTable::huge_page_bytes`]); `None` where that cannot be read.
    pub fn hash_huge_page_bytes(&self) -> Option<u64> {
        self.tt.huge_page_bytes()
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

    /// Plays one move in UCI notation on the current position, as if it had been appended to
    /// the moves of [`Engine::set_position`] (the game's history, and so repetitions, kept).
    /// A self-play loop calls this instead of setting the whole game again before every
    /// move. On error the position stays.
    ///
    /// # Errors
    ///
    /// [`Error::IllegalMove`] when the text is not a legal move here.
    pub fn play_move(&mut self, text: &str) -> Result<(), Error> {
        self.sync();
        self.position.play_uci(text).map(|_| ())
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
        let mut root_moves = ordered_moves(pos, &self.tt, &restrict);
        let mut tb_config = self.tb_config();
        let ranking = self
            .tables
            .as_ref()
            .and_then(|t| t.rank_root(pos, &root_moves, tb_config.cardinality, tb_config.rule50));
        if let Some(ranking) = &ranking {
            ranking.keep_best(&mut root_moves);
            // Stockfish: with DTZ at the root the filtered moves keep the result, and the
            // search needs no probes; with WDL alone, it probes only to convert a win.
            let winning = ranking
                .moves
                .iter()
                .any(|m| m.score.is_decisive() && m.score > Score::DRAW);
            if ranking.dtz || !winning {
                tb_config.cardinality = 0;
            }
        }
        self.tt.new_search();
        let o = &self.options;
        let job = Job {
            root: pos.clone(),
            root_moves,
            time: TimeManager::new(&limits, pos.turn(), o.move_overhead),
            config: SearchConfig {
                null_move: o.null_move,
                null_r: o.null_r,
                null_adaptive: o.null_adaptive,
                lmr: o.lmr,
                pruning: o.pruning,
                multipv: o.multipv,
                skill: Skill::new(o.strength(), skill_seed(o.skill_seed, pos.key())),
            },
            limits,
            start,
            tt: Arc::clone(&self.tt),
            eval: self.evaluation(),
            tables: self.tables.clone(),
            tb_config,
            root_tb: ranking,
        };
        self.pool.start(job, handler);
        Ok(())
    }

    /// Tells a running search to stop; returns at once. Harmless when none runs.
    pub fn stop(&self) {
        self.control().stop();
    }

    /// The opponent played the expected move: a `go ponder` search continues under its time
    /// limits, counted from now.
    pub fn ponderhit(&self) {
        self.control().ponderhit();
    }

    /// Blocks until the running search (if any) has ended and reported its best move, then
    /// applies deferred options. Returns the last search's result (`None` before the first).
    pub fn wait(&mut self) -> Option<Result<SearchResult, Error>> {
        let result = self.control().wait();
        self.sync();
        result
    }

    /// A handle to stop, ponderhit or wait for searches from any thread without borrowing
    /// the engine. It stays valid for the life of the engine, whatever options change.
    pub fn control(&self) -> SearchControl {
        SearchControl::new(Arc::clone(&self.state))
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

    /// The static evaluation of the current position, from the side to move, by the network
    /// or the hand-crafted evaluation as `UseNNUE` says.
    pub fn evaluate(&self) -> Score {
        self.evaluation().evaluate(self.position.chess())
    }

    /// True when searches evaluate with the network.
    pub fn uses_nnue(&self) -> bool {
        matches!(self.evaluation(), Evaluation::Nnue(_))
    }

    /// The hidden width and the output buckets of the network searches evaluate with, if they
    /// use one.
    pub fn net_shape(&self) -> Option<(usize, usize)> {
        match self.evaluation() {
            Evaluation::Nnue(net) => Some((net.hidden(), net.buckets())),
            Evaluation::Hce => None,
        }
    }

    /// The hand-crafted evaluation with every term.
    pub fn eval_trace(&self) -> Trace {
        eval::trace(self.position.chess())
    }

    /// The move in UCI notation under the current `UCI_Chess960` setting.
    pub fn uci_move(&self, m: Move) -> String {
        Position::uci(m, self.options.chess960).to_string()
    }
}

/// The path of a hash file to save or load: refused when empty.
fn hash_path(path: &str) -> Result<&std::path::Path, Error> {
    if path.is_empty() {
        return Err(Error::File(
            "no file named: set the option Hash File to a path first".into(),
        ));
    }
    Ok(std::path::Path::new(path))
}

/// The seed of limited strength's choices: `Skill Seed` mixed with the position's key, or the
/// clock when it is 0.
fn skill_seed(option: u64, key: u64) -> u64 {
    if option == 0 {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map_or(key, |d| d.as_nanos() as u64)
    } else {
        option.rotate_left(32) ^ key
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let control = self.control();
        control.stop();
        control.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::NullMoveMode;

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
            ("UCI_Elo", "1000"),
            ("UCI_Elo", "3000"),
            ("Skill Level", "21"),
            ("Skill Seed", "-3"),
            ("UCI_LimitStrength", "on"),
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
