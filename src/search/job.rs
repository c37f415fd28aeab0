//! What a search is given: the settings taken from the options, and the job every thread
//! receives at `go`.

use std::sync::Arc;
use std::time::Instant;

use shakmaty::Move;

use super::skill::Skill;
use crate::eval::Evaluation;
use crate::position::Position;
use crate::tablebase::{RootRanking, Tablebases, TbConfig};
use crate::timeman::{Limits, TimeManager};
use crate::tt::TranspositionTable;

/// Which null-move pruning the search uses (UCI option `NullMove`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NullMoveMode {
    /// Verified null-move pruning (Tabibi and Netanyahu 2002, Figure 3) where a wrong cutoff
    /// is likely or dear (deep nodes, the replies to the root moves, few pieces to move; the
    /// `NULL_VERIFY_*` constants), a cutoff elsewhere. The default.
    Verified,
    /// The paper's rule: every null-move fail-high with `verify` set is verified.
    Paper,
    /// Standard null-move pruning: cut off on every null-move fail-high.
    Standard,
    /// No null move.
    Off,
}

/// Settings fixed for one search, taken from the engine options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SearchConfig {
    /// The null-move scheme.
    pub null_move: NullMoveMode,
    /// The null-move depth reduction R (the null move is searched to `depth - R - 1`).
    pub null_r: i32,
    /// R grows with depth and with the evaluation's margin above beta.
    pub null_adaptive: bool,
    /// Late move reductions on or off (the paper's engine had none).
    pub lmr: bool,
    /// Reverse futility, futility, late-move and SEE pruning on or off (idem).
    pub pruning: bool,
    /// Number of principal variations to report.
    pub multipv: usize,
    /// Limited strength; `None` at full strength.
    pub skill: Option<Skill>,
}

/// Everything one `go` gives every thread. Immutable during the search.
pub(crate) struct Job {
    pub root: Position,
    pub root_moves: Vec<Move>,
    pub limits: Limits,
    pub config: SearchConfig,
    pub time: TimeManager,
    pub start: Instant,
    pub tt: Arc<TranspositionTable>,
    pub eval: Evaluation,
    /// The Syzygy tables, if any, and how the search probes them.
    pub tables: Option<Arc<Tablebases>>,
    pub tb_config: TbConfig,
    /// The root moves as the tables rank them, when the root is in the tables.
    pub root_tb: Option<RootRanking>,
}
