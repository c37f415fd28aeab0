//! `lazuli datagen`: self-play games that make training data for the evaluation network.
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
//! Output: Stockfish's binpack ([`super::binpack`], a few bytes a position) in chunk files
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

use super::binpack::{self, Game, Ply};
use super::rng::Rng;
use super::{available_threads, number};

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

/// What to generate; its fields are the flags of `lazuli datagen`.
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
    /// search cost 0.3% of the instructions (callgrind, docs/nets.md).
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
        let sha: String = Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
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
            "\r{positions} positions, {games} games, {:.0} positions/s ({:.0} a thread), chunks \
             {done}+{skipped} skipped of {chunks}, about {:.0} s left   ",
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
    let hex = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok((hex, positions, total))
}

/// `lazuli datagen ...`: progress on stderr, a summary on stdout.
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
mod tests {
    use super::*;

    fn config(dir: &Path, threads: usize) -> DatagenConfig {
        DatagenConfig {
            out: dir.to_path_buf(),
            games: 4,
            chunk_games: 2,
            threads,
            seed: 7,
            nodes: 300,
            soft_nodes: None,
            random_plies: 8,
            book: None,
            hash_mb: 1,
            options: vec![("Move Overhead".into(), "0".into())],
            manifest: None,
            commit: "unknown".into(),
        }
    }

    /// The flags: defaults, clamped values, the last of a repeated flag, repeated `--option`s.
    #[test]
    fn flags() {
        use clap::Parser;
        let parse = |args: &[&str]| {
            DatagenConfig::try_parse_from(std::iter::once("datagen").chain(args.iter().copied()))
        };
        let c = parse(&["--out", "d"]).unwrap();
        assert_eq!(
            (c.games, c.chunk_games, c.seed, c.nodes),
            (1000, 100, 1, 5000)
        );
        assert_eq!(
            (c.random_plies, c.hash_mb, c.book, c.options, c.soft_nodes),
            (8, 8, None, vec![], None)
        );
        let c = parse(&["--out", "d", "--soft-nodes", "0", "--nodes", "900"]).unwrap();
        assert_eq!((c.soft_nodes, c.nodes), (Some(1), 900));
        let c = parse(&[
            "--out",
            "d",
            "--games",
            "5",
            "--games",
            "0",
            "--threads",
            "5000",
            "--random-plies",
            "99",
            "--hash",
            "0",
            "--option",
            "Hash=1",
            "--option",
            "UseNNUE=false",
        ])
        .unwrap();
        assert_eq!(
            (c.games, c.threads, c.random_plies, c.hash_mb),
            (1, 1024, 40, 1)
        );
        let options = [("Hash", "1"), ("UseNNUE", "false")].map(|(n, v)| (n.into(), v.into()));
        assert_eq!(c.options, options);
        for bad in [
            &[][..],
            &["--out", "d", "--option", "Hash"],
            &["--out", "d", "--games", "-1"],
            &["--out", "d", "--soft-nodes", "x"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn chunks_are_deterministic_resumable_and_well_formed() {
        let base = std::env::temp_dir().join(format!("lazuli-datagen-{}", std::process::id()));
        let (one, two) = (base.join("one"), base.join("two"));
        let _ = std::fs::remove_dir_all(&base);
        let tally = generate(&config(&one, 1)).unwrap();
        generate(&config(&two, 2)).unwrap();
        // Every searched move is written, once.
        let searched = tally.searched.load(Ordering::SeqCst);
        let written = tally.positions.load(Ordering::SeqCst);
        assert!(
            0 < written && written == searched,
            "{written} of {searched}"
        );
        let a = fingerprint(&config(&one, 1)).unwrap();
        assert_eq!(
            a,
            fingerprint(&config(&two, 2)).unwrap(),
            "threads change nothing"
        );
        assert!(a.1 > 20, "{} positions", a.1);
        assert!(a.2 < 6 * a.1, "{} bytes for {} positions", a.2, a.1);
        // A removed chunk is made again, the same; the other is skipped.
        std::fs::remove_file(config(&one, 1).chunk_path(1)).unwrap();
        let again = generate(&config(&one, 1)).unwrap();
        assert_eq!(again.chunks_skipped.load(Ordering::SeqCst), 1);
        assert_eq!(fingerprint(&config(&one, 1)).unwrap(), a);
        // Every game's positions follow each other, each with its legal move played, and the
        // trainer keeps some of them, not all.
        let (mut entries, mut kept) = (0, 0);
        for chunk in 0..2 {
            let bytes = std::fs::read(config(&one, 1).chunk_path(chunk)).unwrap();
            let decoded = binpack::decode(&bytes).unwrap();
            for pair in decoded.windows(2) {
                if pair[1].ply == pair[0].ply + 1 {
                    let mut after = pair[0].chess.clone();
                    after.play_unchecked(pair[0].played);
                    assert_eq!(after, pair[1].chess);
                }
            }
            entries += decoded.len();
            kept += decoded
                .iter()
                .filter(|e| binpack::training(e, 10_000).is_some())
                .count();
        }
        assert_eq!(entries as u64, a.1);
        assert!(0 < kept && kept < entries, "{kept} of {entries}");
        let _ = std::fs::remove_dir_all(&base);
    }

    /// A soft budget: the searches end on completed iterations, so they search more nodes a
    /// move than the soft budget and fewer than the hard cap, and the data are as deterministic.
    /// A soft budget above the hard cap is refused.
    #[test]
    fn soft_nodes_end_on_completed_iterations_under_the_cap() {
        let base = std::env::temp_dir().join(format!("lazuli-datagen-soft-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let soft = |dir: &str, threads| DatagenConfig {
            soft_nodes: Some(200),
            nodes: 2000,
            ..config(&base.join(dir), threads)
        };
        let tally = generate(&soft("one", 1)).unwrap();
        let per_move = tally.per_move().0;
        assert!(
            200.0 < per_move && per_move <= 2000.0,
            "{per_move} nodes a move"
        );
        generate(&soft("two", 2)).unwrap();
        assert_eq!(
            fingerprint(&soft("one", 1)).unwrap(),
            fingerprint(&soft("two", 2)).unwrap()
        );
        let bad = DatagenConfig {
            soft_nodes: Some(301),
            ..config(&base.join("bad"), 1)
        };
        assert!(
            matches!(generate(&bad), Err(Error::InvalidCommand(m)) if m.contains("--soft-nodes"))
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// The manifest: its header once, then a line a completed chunk whose figures are the
    /// file's (bytes, SHA-256, positions) and the build's `Bench`.
    #[test]
    fn manifest_lines_describe_their_chunks() {
        let base = std::env::temp_dir().join(format!("lazuli-datagen-mf-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let path = base.join("manifest.tsv");
        std::fs::create_dir_all(&base).unwrap();
        let run = DatagenConfig {
            manifest: Some(path.clone()),
            commit: "abc1234".into(),
            ..config(&base.join("set1"), 2)
        };
        generate(&run).unwrap();
        generate(&run).unwrap(); // every chunk skipped: no new line
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(MANIFEST_COLUMNS));
        let mut rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
        rows.sort_by_key(|r| r[1]);
        assert_eq!(rows.len(), 2);
        let bench = BenchConfig::default()
            .run_on(player_engine(&run).unwrap(), |_, _| {})
            .unwrap()
            .nodes;
        for (chunk, row) in rows.iter().enumerate() {
            let bytes = std::fs::read(run.chunk_path(chunk as u64)).unwrap();
            let sha: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let positions = binpack::count(&bytes).unwrap().to_string();
            let expected = [
                "set1",
                &format!("seed7-chunk{chunk:06}.binpack"),
                "abc1234",
                &bench.to_string(),
                "7",
                "2",
                &positions,
                &bytes.len().to_string(),
                &sha,
            ];
            assert_eq!(row[..9], expected);
        }
        let _ = std::fs::remove_dir_all(&base);
    }

    /// A refused option ends the run before any chunk (each worker fails as it sets up its
    /// engine); a worker that fails mid-run (its chunk cannot be written) ends it with the
    /// error. Both hung before (the progress line waited for every chunk), so each run is
    /// given a minute on another thread.
    #[test]
    fn errors_end_the_run() {
        let base = std::env::temp_dir().join(format!("lazuli-datagen-err-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let within_a_minute = |config: DatagenConfig| {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || tx.send(generate(&config).err()));
            rx.recv_timeout(Duration::from_secs(60))
                .expect("the run ends")
                .expect("with an error")
        };
        let mut refused = config(&base.join("refused"), 2);
        refused.options.push((
            "EvalFile".into(),
            base.join("missing.lznn").display().to_string(),
        ));
        let e = within_a_minute(refused);
        assert!(e.to_string().contains("missing.lznn"), "{e}");
        assert!(
            std::fs::read_dir(base.join("refused"))
                .unwrap()
                .next()
                .is_none()
        );
        // The temporary name of chunk 0 taken by a directory: its write fails.
        let blocked = config(&base.join("blocked"), 1);
        std::fs::create_dir_all(blocked.chunk_path(0).with_extension("tmp")).unwrap();
        let e = within_a_minute(blocked);
        assert!(e.to_string().contains("chunk0"), "{e}");
        let _ = std::fs::remove_dir_all(&base);
    }
}
