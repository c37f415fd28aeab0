//! lazuli: a multi-threaded chess engine.
//!
//! Lazy SMP threads search one root and share a lock-free transposition table; each thread runs
//! PVS (NegaScout) with verified null-move pruning (Tabibi and Netanyahu, ICGA Journal 2002).
//! Move generation is shakmaty's. The engine is one facade, [`Engine`], with two thin clients:
//! the UCI binary (`lazuli`) and the C library (`liblazuli`).
//!
//! ```
//! use lazuli::{Engine, Limits, SearchHandler, SearchInfo};
//! use shakmaty::Move;
//!
//! struct Quiet;
//! impl SearchHandler for Quiet {
//!     fn on_info(&mut self, _: &SearchInfo) {}
//!     fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
//! }
//!
//! let mut engine = Engine::new()?;
//! // Scholar's mate is on the board after 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6.
//! engine.set_position(None, &["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"])?;
//! engine.go(Limits::depth(3), Quiet)?; // returns at once
//! let result = engine.wait().expect("a search ran")?;
//! assert_eq!(engine.uci_move(result.best.unwrap()), "h5f7");
//! # Ok::<(), lazuli::Error>(())
//! ```

pub mod bench;
pub mod engine;
pub mod error;
pub mod eval;
pub mod ffi;
pub mod movepick;
pub mod position;
pub mod score;
pub mod search;
pub mod study;
mod threads;
pub mod timeman;
pub mod tt;
pub mod uci;

pub use engine::{Engine, OptionKind, OptionSpec, Options, option_specs};
pub use error::Error;
pub use position::Position;
pub use score::{Score, ScoreKind};
pub use search::{NullMoveMode, ScoreBound, SearchConfig, SearchHandler, SearchInfo, SearchResult};
pub use threads::SearchControl;
pub use timeman::Limits;
