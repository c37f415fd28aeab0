//! `lazuli-lab datagen`: self-play games that make training data for the evaluation network.
//!
//! Each game starts from the start position (or a line of `--book`) with a few random plies,
//! is played by the engine at a node budget per move (one thread, its own table and histories,
//! cleared before every game): `--nodes` exactly, or with `--soft-nodes` no new iteration after
//! that many nodes and `--nodes` as the hard cap. It is adjudicated: a win once both sides agree for
//! a few plies that one side is far ahead, a draw after a long quiet stretch late in the game.
//! Every searched position of the game is written with the search's best move (the move played,
//! but for the last position of an adjudicated game), its score and the game's result; the trainer skips those it does not learn from (in check, a capture
//! or promotion played, mate scores), which keeps the games unbroken for the format.
//!
//! Output: Stockfish's binpack ([`crate::binpack`], a few bytes a position) in chunk files
//! `seed<S>-chunk<K>.binpack` of `--chunk-games` games each. Game `g` draws its opening from a
//! generator seeded by `(seed, g)`, so chunk `K` of seed `S` is the same file on every machine
//! and with any number of threads. A chunk is written to a temporary name and renamed when
//! complete; a second run with the same flags skips the chunks already there, so an
//! interrupted run resumes where it stopped. With `--manifest`, each completed chunk appends a
//! line to the data store's manifest (lab/data/README.md): its data set, build, command, seed,
//! games, positions, bytes and SHA-256.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lazuli::{BenchConfig, Engine, Error, Limits, Position, ScoreKind, SearchResult, Silent};
use sha2::{Digest, Sha256};
use shakmaty::{Color, Position as _};

use crate::binpack::{self, Game, Ply};
use crate::cli::{available_threads, number};
use lazuli::Rng;

/// A win is adjudicated when the score has been at least this, for the same side, ...
const WIN_SCORE: i32 = 1000;
/// ... for this many consecutive plies.
const WIN_PLIES: usize = 4;
/// A draw is adjudicated from this ply on ...
const DRAW_FROM_PLY: usize = 80;
/// ... when the score has stayed within this ...
const DRAW_SCORE: i32 = 10;
/// ... for this many consecutive plies.
const DRAW_PLIES: usize = 12;
/// A game still running after this many plies is a draw.
const MAX_PLIES: usize = 400;
/// An opening whose score after a short search is beyond this is drawn again.
const MAX_OPENING_SCORE: i32 = 400;
/// Nodes of that short search.
const OPENING_CHECK_NODES: u64 = 2000;

/// What to generate; its fields are the flags of `lazuli-lab datagen`.
#[derive(clap::Parser, Clone, Debug, PartialEq, Eq)]
#[command(args_override_self = true)]
pub struct DatagenConfig {
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Games in all, rounded up to whole chunks.
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = number::<u64>(.., 1..=u64::MAX))]
    pub games: u64,
    /// Games per chunk file.
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = number::<u64>(.., 1..=u64::MAX))]
    pub chunk_games: u64,
    /// Worker threads, each playing one game at a time with its own engine (at most 1024)
    /// [default: the available parallelism].
    #[arg(long, value_name = "N", default_value_t = available_threads(), hide_default_value = true,
          value_parser = number::<usize>(.., 1..=1024))]
    pub threads: usize,
    /// The run's seed.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Nodes per move; with `--soft-nodes`, the hard cap.
    #[arg(long, value_name = "N", default_value_t = 5000,
          value_parser = number::<u64>(.., 1..=u64::MAX))]
    pub nodes: u64,
    /// No new iteration once a move's search has this many nodes (at most `--nodes`): every
    /// move's search ends with a completed iteration unless the hard cap stops it first.
    #[arg(long, value_name = "N", value_parser = number::<u64>(.., 1..=u64::MAX))]
    pub soft_nodes: Option<u64>,
    /// Random plies after the start position or book line (at most 40).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = number::<usize>(.., 0..=40))]
    pub random_plies: usize,
    /// Optional opening book (one FEN or EPD per line).
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
    /// Hash per engine, MB (1 to 65536).
    #[arg(long = "hash", value_name = "MB", default_value_t = 8,
          value_parser = number::<usize>(.., 1..=1 << 16))]
    pub hash_mb: usize,
    /// Engine options for every player (`EvalFile`, `UseNNUE`, ...), as name and value;
    /// repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = name_value)]
    pub options: Vec<(String, String)>,
    /// The data store's manifest: each completed chunk appends its line (see lab/data).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The build's commit, for the manifest (its `Bench` is measured at the start).
    #[arg(long, value_name = "COMMIT", default_value = "unknown")]
    pub commit: String,
}

/// `NAME=VALUE` as name and value.
fn name_value(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("expected NAME=VALUE, not '{text}'"))
}

impl DatagenConfig {
    fn chunks(&self) -> u64 {
        self.games.div_ceil(self.chunk_games)
    }

    fn chunk_path(&self, chunk: u64) -> PathBuf {
        self.out.join(format!(
            "seed{}-chunk{chunk:06}.{}",
            self.seed,
            binpack::EXTENSION
        ))
    }
}

/// How one game ended, from White's side: 0 Black won, 1 draw, 2 White won.
type Wdl = u8;

/// One worker's engine and opening lines.
struct Player<'a> {
    engine: Engine,
    config: &'a DatagenConfig,
    book: &'a [String],
}

impl Player<'_> {
    /// The result of a search of `limits`.
    fn search(&mut self, limits: Limits) -> Result<SearchResult, Error> {
        self.engine.go(limits, Silent)?;
        self.engine.wait().expect("a search ran")
    }

    /// A move's search limits: `--nodes`, and `--soft-nodes` if given.
    fn move_limits(&self) -> Limits {
        Limits {
            soft_nodes: self.config.soft_nodes,
            ..Limits::nodes(self.config.nodes)
        }
    }

    /// A playable opening for game `game`: the book line or start position, then random
    /// plies, drawn again until it is neither over nor lopsided.
    fn opening(&mut self, rng: &mut Rng) -> Result<Vec<String>, Error> {
        loop {
            let fen = if self.book.is_empty() {
                None
            } else {
                Some(self.book[rng.below(self.book.len())].clone())
            };
            let mut pos = match &fen {
                Some(f) => Position::from_fen(f)?,
                None => Position::startpos(),
            };
            let mut moves = Vec::new();
            for _ in 0..self.config.random_plies {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                moves.push(Position::uci(m, true).to_string());
                pos.push(m);
            }
            if pos.legal_moves().is_empty() {
                continue;
            }
            let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
            self.engine.new_game();
            self.engine.set_position(fen.as_deref(), &texts)?;
            let score = self.search(Limits::nodes(OPENING_CHECK_NODES))?.score;
            if score.0.abs() <= MAX_OPENING_SCORE {
                let mut line = vec![fen.unwrap_or_default()];
                line.extend(moves);
                return Ok(line);
            }
        }
    }

    /// Plays game `game`: its record and what its searches cost.
    ///
    /// The engine's position is set once after the opening and then advanced a move at a
    /// time ([`Engine::play_move`]); rebuilding it from the whole move list before every
    /// search cost 0.3% of the instructions (callgrind, lab/records/history/nets.md).
    fn play(&mut self, game: u64) -> Result<(Game, Searches), Error> {
        let mut rng = Rng::new(self.config.seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let line = self.opening(&mut rng)?;
        let fen = (!line[0].is_empty()).then(|| line[0].clone());
        let opening: Vec<&str> = line[1..].iter().map(String::as_str).collect();
        self.engine.new_game();
        self.engine.set_position(fen.as_deref(), &opening)?;
        let mut searches = Searches::default();
        let mut plies: Vec<Ply> = Vec::new();
        let (mut win_run, mut draw_run) = (0usize, 0usize);
        let mut last_winner = None;
        let result: Wdl = loop {
            let pos = self.engine.position();
            let ply = pos.len() - 1; // the game's plies: the history holds every one
            let chess = pos.chess().clone();
            let in_check = pos.in_check();
            let white = chess.turn() == Color::White;
            if pos.legal_moves().is_empty() {
                break if !in_check {
                    1
                } else if white {
                    0
                } else {
                    2
                };
            }
            if pos.is_draw(0) || ply >= MAX_PLIES {
                break 1;
            }
            let SearchResult {
                best,
                score,
                nodes,
                depth,
                ..
            } = self.search(self.move_limits())?;
            searches.moves += 1;
            searches.nodes += nodes;
            searches.depths += u64::from(depth);
            let best = best.expect("a legal move exists");
            let white_score = if white { score.0 } else { -score.0 };
            // Written before adjudication: the last position of an adjudicated game keeps the
            // search's best move, not played.
            plies.push(Ply {
                chess,
                played: best,
                score: score.0.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16,
            });
            // Adjudication, from White's side.
            let winner = match score.kind() {
                ScoreKind::Mate(_) => Some(white_score > 0),
                ScoreKind::Cp(_) if white_score.abs() >= WIN_SCORE => Some(white_score > 0),
                ScoreKind::Cp(_) => None,
            };
            win_run = if winner.is_some() && winner == last_winner {
                win_run + 1
            } else {
                usize::from(winner.is_some())
            };
            last_winner = winner;
            if win_run >= WIN_PLIES {
                break if winner == Some(true) { 2 } else { 0 };
            }
            draw_run = if ply >= DRAW_FROM_PLY && white_score.abs() <= DRAW_SCORE {
                draw_run + 1
            } else {
                0
            };
            if draw_run >= DRAW_PLIES {
                break 1;
            }
            self.engine
                .play_move(&Position::uci(best, true).to_string())?;
        };
        Ok((Game { plies, wdl: result }, searches))
    }
}

/// The searches of a game: the moves searched (the opening's random plies not counted), and
/// their nodes and completed depths summed.
#[derive(Default)]
struct Searches {
    moves: u64,
    nodes: u64,
    depths: u64,
}

/// Totals of a run, for the progress line and the summary.
#[derive(Default)]
struct Tally {
    games: AtomicU64,
    /// Moves the engine searched in those games (the opening's random plies not counted).
    searched: AtomicU64,
    /// Nodes of those searches, and their completed depths summed.
    nodes: AtomicU64,
    depths: AtomicU64,
    positions: AtomicU64,
    chunks_done: AtomicU64,
    chunks_skipped: AtomicU64,
}

impl Tally {
    /// Counts a game's searches.
    fn add(&self, searches: &Searches) {
        self.searched.fetch_add(searches.moves, Ordering::Relaxed);
        self.nodes.fetch_add(searches.nodes, Ordering::Relaxed);
        self.depths.fetch_add(searches.depths, Ordering::Relaxed);
    }

    /// Nodes and completed depth a searched move.
    fn per_move(&self) -> (f64, f64) {
        let moves = self.searched.load(Ordering::Relaxed).max(1) as f64;
        let mean = |sum: &AtomicU64| sum.load(Ordering::Relaxed) as f64 / moves;
        (mean(&self.nodes), mean(&self.depths))
    }

    /// Positions written a second, and the same a worker thread, after `secs` seconds.
    fn rates(&self, config: &DatagenConfig, secs: f64) -> (f64, f64) {
        let rate = self.positions.load(Ordering::Relaxed) as f64 / secs.max(1e-3);
        (rate, rate / workers(config) as f64)
    }
}

/// Worker threads of a run: one per chunk at most.
fn workers(config: &DatagenConfig) -> usize {
    config.threads.min(config.chunks() as usize)
}

/// Runs the generator. `progress` is called from the workers after each chunk.
///
/// # Errors
///
/// Directory, book and engine errors.
fn generate(config: &DatagenConfig) -> Result<Tally, Error> {
    let manifest = match &config.manifest {
        Some(path) => Some(Manifest::open(path, config)?),
        None => None,
    };
    if config.soft_nodes.is_some_and(|soft| soft > config.nodes) {
        return Err(Error::InvalidCommand(format!(
            "--soft-nodes must not exceed --nodes ({})",
            config.nodes
        )));
    }
    std::fs::create_dir_all(&config.out).map_err(|e| {
        Error::InvalidCommand(format!("cannot create {}: {e}", config.out.display()))
    })?;
    let book: Vec<String> = match &config.book {
        None => Vec::new(),
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidCommand(format!("cannot read {}: {e}", path.display())))?
            .lines()
            .map(|l| l.split(';').next().unwrap_or("").trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect(),
    };
    let tally = Tally::default();
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let first_error = parking_lot::Mutex::new(None);
    // Workers still running: the progress line ends when they all have, also after an error
    // (a refused option, a chunk that cannot be written); it waited for every chunk before, so
    // a failed worker left the run hanging.
    let running = AtomicUsize::new(workers(config));
    std::thread::scope(|s| {
        for _ in 0..workers(config) {
            s.spawn(|| {
                if let Err(e) = worker(config, &book, &next, &tally, manifest.as_ref()) {
                    first_error.lock().get_or_insert(e);
                }
                running.fetch_sub(1, Ordering::SeqCst);
            });
        }
        s.spawn(|| report_progress(config, &tally, &running, start));
    });
    match first_error.into_inner() {
        Some(e) => Err(e),
        None => Ok(tally),
    }
}

fn worker(
    config: &DatagenConfig,
    book: &[String],
    next: &AtomicUsize,
    tally: &Tally,
    manifest: Option<&Manifest>,
) -> Result<(), Error> {
    let mut player = Player {
        engine: player_engine(config)?,
        config,
        book,
    };
    loop {
        let chunk = next.fetch_add(1, Ordering::SeqCst) as u64;
        if chunk >= config.chunks() {
            return Ok(());
        }
        let path = config.chunk_path(chunk);
        if path.exists() {
            tally.chunks_skipped.fetch_add(1, Ordering::SeqCst);
            continue;
        }
        let first = chunk * config.chunk_games;
        let last = (first + config.chunk_games).min(config.games);
        let mut games = Vec::new();
        for game in first..last {
            let (record, searches) = player.play(game)?;
            tally.games.fetch_add(1, Ordering::Relaxed);
            tally.add(&searches);
            tally
                .positions
                .fetch_add(record.plies.len() as u64, Ordering::Relaxed);
            games.push(record);
        }
        let bytes = binpack::encode(&games)
            .map_err(|e| Error::InvalidCommand(format!("{}: {e}", path.display())))?;
        write_chunk(&path, &bytes)?;
        if let Some(manifest) = manifest {
            let positions = games.iter().map(|g| g.plies.len()).sum();
            manifest.add(&path, last - first, positions, &bytes)?;
        }
        tally.chunks_done.fetch_add(1, Ordering::SeqCst);
    }
}

/// An engine with the run's hash size and options.
fn player_engine(config: &DatagenConfig) -> Result<Engine, Error> {
    let mut engine = Engine::new()?;
    engine.set_hash_mb(config.hash_mb)?;
    for (name, value) in &config.options {
        engine.set_option(name, value)?;
    }
    Ok(engine)
}

/// Writes a chunk under a temporary name, then renames it: a chunk file is always complete.
fn write_chunk(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let tmp = path.with_extension("tmp");
    let fail = |e: std::io::Error| Error::InvalidCommand(format!("{}: {e}", path.display()));
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

/// The data store's manifest, appended to by the workers: a tab-separated line a chunk, in
/// the columns of [`MANIFEST_COLUMNS`].
struct Manifest {
    file: parking_lot::Mutex<std::fs::File>,
    /// The columns every line of this run shares.
    set: String,
    /// Commit, `Bench` and seed, tab-separated.
    build: String,
    command: String,
}

/// The manifest's header line.
pub const MANIFEST_COLUMNS: &str =
    "set\tfile\tcommit\tbench\tseed\tgames\tpositions\tbytes\tsha256\tcommand";

impl Manifest {
    /// Opens (or starts, with its header) the manifest, and measures the build's `Bench` with
    /// the run's options.
    fn open(path: &Path, config: &DatagenConfig) -> Result<Manifest, Error> {
        let fail = |e: std::io::Error| Error::InvalidCommand(format!("{}: {e}", path.display()));
        let bench = BenchConfig::default()
            .run_on(player_engine(config)?, |_, _| {})?
            .nodes;
        let fresh = !path.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(fail)?;
        if fresh {
            writeln!(file, "{MANIFEST_COLUMNS}").map_err(fail)?;
        }
        let set = config
            .out
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let command = std::env::args()
            .skip(1)
            .filter(|a| !a.contains('\t'))
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Manifest {
            file: parking_lot::Mutex::new(file),
            set,
            build: format!("{}\t{bench}\t{}", config.commit, config.seed),
            command,
        })
    }

    /// Appends a completed chunk's line.
    fn add(&self, path: &Path, games: u64, positions: usize, bytes: &[u8]) -> Result<(), Error> {
        let sha = format!("{:x}", Sha256::digest(bytes));
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let (set, build, command, size) = (&self.set, &self.build, &self.command, bytes.len());
        let mut file = self.file.lock();
        writeln!(
            file,
            "{set}\t{name}\t{build}\t{games}\t{positions}\t{size}\t{sha}\t{command}"
        )
        .and_then(|()| file.flush())
        .map_err(|e| Error::InvalidCommand(format!("manifest: {e}")))
    }
}

/// A progress line on stderr every few seconds until every chunk is done or skipped, or no
/// worker is `running`.
fn report_progress(config: &DatagenConfig, tally: &Tally, running: &AtomicUsize, start: Instant) {
    let chunks = config.chunks();
    let mut last_print = Instant::now();
    loop {
        let finished = tally.chunks_done.load(Ordering::SeqCst)
            + tally.chunks_skipped.load(Ordering::SeqCst)
            >= chunks
            || running.load(Ordering::SeqCst) == 0;
        if !finished && last_print.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        last_print = Instant::now();
        let done = tally.chunks_done.load(Ordering::SeqCst);
        let skipped = tally.chunks_skipped.load(Ordering::SeqCst);
        let games = tally.games.load(Ordering::Relaxed);
        let positions = tally.positions.load(Ordering::Relaxed);
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        let to_play = (chunks - skipped) * config.chunk_games;
        let left = if games > 0 {
            (to_play.saturating_sub(games)) as f64 * secs / games as f64
        } else {
            f64::NAN
        };
        let (rate, per_thread) = tally.rates(config, secs);
        eprint!(
            "\r{positions} positions, {games} games, {:.0} positions/s ({:.0} a thread), chunks: \
             {done} written, {skipped} skipped, of {chunks}; about {:.0} s left   ",
            rate, per_thread, left
        );
        if finished {
            eprintln!();
            return;
        }
    }
}

/// The SHA-256 of every chunk of the run concatenated in chunk order (the data set's
/// fingerprint, `cat DIR/*.binpack | sha256sum`), its positions and bytes.
fn fingerprint(config: &DatagenConfig) -> Result<(String, u64, u64), Error> {
    let mut hash = Sha256::new();
    let (mut positions, mut total) = (0, 0);
    for chunk in 0..config.chunks() {
        let path = config.chunk_path(chunk);
        let fail = |e: String| Error::InvalidCommand(format!("{}: {e}", path.display()));
        let bytes = std::fs::read(&path).map_err(|e| fail(e.to_string()))?;
        positions += binpack::count(&bytes).map_err(fail)? as u64;
        total += bytes.len() as u64;
        hash.update(&bytes);
    }
    let hex = format!("{:x}", hash.finalize());
    Ok((hex, positions, total))
}

/// `lazuli-lab datagen ...`: progress on stderr, a summary on stdout.
///
/// # Errors
///
/// As the generator.
pub fn run_cli(config: &DatagenConfig) -> Result<(), Error> {
    let start = Instant::now();
    let tally = generate(config)?;
    let (hash, records, bytes) = fingerprint(config)?;
    let secs = start.elapsed().as_secs_f64();
    let positions = tally.positions.load(Ordering::Relaxed);
    let (nodes_a_move, depth_a_move) = tally.per_move();
    println!(
        "datagen seed {} games {} ({} chunks of {}, {} written now, {} already there) nodes {}{}: \
         {records} positions in {} ({bytes} bytes, {:.2} a position), SHA-256 {hash}, {secs:.0} s; \
         written now: {positions} positions ({:.0} nodes, depth {:.2} a move), {:.0} positions/s \
         a thread",
        config.seed,
        config.games,
        config.chunks(),
        config.chunk_games,
        tally.chunks_done.load(Ordering::SeqCst),
        tally.chunks_skipped.load(Ordering::SeqCst),
        config.nodes,
        config
            .soft_nodes
            .map_or_else(String::new, |soft| format!(" (soft {soft})")),
        config.out.display(),
        bytes as f64 / records.max(1) as f64,
        nodes_a_move,
        depth_a_move,
        tally.rates(config, secs).1,
    );
    Ok(())
}

#[cfg(test)]
#[path = "datagen_tests.rs"]
mod tests;
