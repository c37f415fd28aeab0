//! lazuli: a multi-threaded chess engine.
//!
//! Lazy SMP threads search one root and share a lock-free transposition table; each thread runs
//! PVS (NegaScout) with verified null-move pruning (Tabibi and Netanyahu, ICGA Journal 2002).
//! Move generation is shakmaty's. The engine is one facade, [`Engine`], with two thin clients:
//! the UCI front end ([`Uci`], the `lazuli` binary) and the C library (`liblazuli`, whose
//! functions are documented in `include/lazuli.h`).
//!
//! ```
//! use lazuli::{Engine, Limits, Silent};
//!
//! let mut engine = Engine::new()?;
//! engine.set_threads(2)?;
//! // Scholar's mate is on the board after 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6.
//! engine.set_position(None, &["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"])?;
//! engine.go(Limits::depth(3), Silent)?; // returns at once; reports go to the handler
//! let result = engine.wait().expect("a search ran")?;
//! assert_eq!(engine.uci_move(result.best.unwrap()), "h5f7");
//! assert_eq!(result.score, lazuli::Score::mate_in(1));
//! # Ok::<(), lazuli::Error>(())
//! ```
//!
//! The modules, from the bottom up (an arrow between modules only ever points down this list):
//! `sync` (the atomics and locks the threads share, model-checked under loom), `params` (every
//! tunable constant), `rng` (a seeded PRNG), `error`, `score`, `wdl` (win, draw and loss chances
//! of a score), `position` (the board, keys, history, SEE), `tablebase` (Syzygy probes), `eval`
//! (the network and the hand-crafted evaluation), `tt` (the shared table), `report` (what a
//! search reports), `timeman` (limits, deadlines, the pondering clock), `state` (what the
//! threads share), `search` (one thread's search), `lobby` (where the helper threads wait and
//! join a search), `threads` (the Lazy SMP pool), `options`, `engine` (the facade), `bench`, and
//! the two clients `uci` and `ffi`. The research tools (thread scaling, the null-move study,
//! datagen, training) are part of the `lazuli` binary only, not of this library.

mod bench;
mod engine;
mod error;
mod eval;
// Public only so that the tests and fuzz targets that call the C functions use the library's
// own `#[repr(C)]` types and functions instead of a hand copy; not part of the Rust API (C
// programs use include/lazuli.h).
#[doc(hidden)]
#[expect(
    unsafe_code,
    reason = "the C ABI: exported functions take raw pointers from the host"
)]
pub mod ffi;
mod lobby;
mod options;
mod params;
mod position;
mod report;
mod rng;
mod score;
mod search;
mod state;
mod sync;
mod tablebase;
mod threads;
mod timeman;
mod tt;
mod uci;
mod wdl;

pub use bench::{BENCH_DEPTH, BenchConfig, BenchPosition, BenchReport, bench_positions};
pub use engine::Engine;
pub use error::Error;
pub use eval::nnue::{Accumulator, Network};
pub use eval::{Trace, evaluate};
pub use options::{AUTHOR, MAX_THREADS, NAME, OptionKind, OptionSpec, Options, option_specs};
pub use position::Position;
pub use report::{ScoreBound, SearchHandler, SearchInfo, SearchResult, Silent, nps};
pub use rng::Rng;
pub use score::{MAX_PLY, Score, ScoreKind};
pub use search::NullMoveMode;
pub use state::SearchControl;
pub use timeman::Limits;
pub use tt::{Bound, HashFileReport, PackedMove, TranspositionTable, TtHit};
pub use uci::{Flow, Output, Uci, format_info, parse_go, run_stdio};
pub use wdl::WinDrawLoss;
