//! The long steps of the alpha-beta search ([`super::alphabeta`]) as methods: the tablebase
//! probe (Step 5b), null-move pruning (Step 9), ProbCut (Step 9b), the singular extension (Step
//! 12b) and the late move reduction (Step 13). Their sources and measured gains stay in the
//! outline of `search()`. Each is `#[inline(always)]`, as the code was inline before: with a
//! plain `#[inline]` LLVM kept three out of line and the bench ran 0.9% more instructions.

use shakmaty::{Color, Move, Position as _};

use super::history::{PieceTo, piece_to};
use super::movepick::MovePicker;
use super::{Best, NodeType, NonPv, Searcher, StaticEval, Stopped};
use crate::params::{
    LMR_BASE, LMR_CUT_NODE, LMR_DIVISOR, LMR_HISTORY_DIVISOR, LMR_NOISY_BASE,
    LMR_NOISY_HISTORY_DIVISOR, LMR_TT_CAPTURE, NULL_DEPTH_DIVISOR, NULL_EVAL_DIVISOR,
    NULL_EVAL_MAX, NULL_NEEDS_PIECE, NULL_VERIFY_MAX_PIECES, NULL_VERIFY_MAX_PLY,
    NULL_VERIFY_MIN_DEPTH, NULL_VERIFY_PIECES_MIN_DEPTH, NULL_VERIFY_PLY_MAX_DEPTH,
    NULL_VERIFY_SHALLOW_MIN_DEPTH, PROBCUT_MARGIN, PROBCUT_MIN_DEPTH, PROBCUT_REDUCTION,
    SINGULAR_MARGIN, SINGULAR_MIN_DEPTH, SINGULAR_TT_DEPTH, TB_STORE_DEPTH_BONUS,
};
use crate::position::{is_tactical, see_ge};
use crate::score::{MAX_PLY, Score};
use crate::search::NullMoveMode;
use crate::tablebase::{ignoring_rule50, wdl_score};
use crate::tt::{Bound, TtHit};

/// What the steps written as methods (Steps 9, 9b, 12b, 13) read of their node, fixed once
/// its static evaluation is known (Step 7b).
#[derive(Clone, Copy)]
pub(super) struct Node {
    pub(super) ply: usize,
    /// The side to move.
    pub(super) side: Color,
    /// Whether the node is expected to fail high (as [`Searcher::search`] takes it).
    pub(super) cut_node: bool,
    /// Step 7: the corrected static evaluation is better than two plies earlier.
    pub(super) improving: bool,
    /// Step 7: the static evaluation, none in check.
    pub(super) static_eval: Option<StaticEval>,
    /// Step 7b: the corrected static evaluation, or the table's sharper score.
    pub(super) eval: Option<Score>,
    /// Step 5: the table's entry, its score relative to this node, and its move if legal.
    pub(super) tt_hit: Option<TtHit>,
    pub(super) tt_score: Option<Score>,
    pub(super) tt_move: Option<Move>,
    /// The table move is a capture or a promotion.
    pub(super) tt_capture: bool,
}

/// Step 12b's verdict on the table move.
pub(super) enum Singularity {
    /// No other move reaches the bar: extend it one ply.
    Singular,
    /// Even the bar is at least beta: several moves beat beta, so the node cuts off with it.
    MultiCut(Score),
    /// The table's score alone is at least beta: the move is not alone, one ply less.
    NotAlone,
    /// None of these: the extension stays as it was.
    Unknown,
}

/// Step 9's verdict.
pub(super) enum NullMove {
    /// No null move, or it failed low, or its fail-high was verified at the null-move
    /// search's depth and failed low there: search the node as usual.
    Search,
    /// The null move failed high and needs no verification, or passed one: cut off.
    Cutoff(Score),
    /// The null move failed high and the node verifies it the paper's way: search it one
    /// ply shallower, with `verify` cleared below.
    Shallower,
}

/// The late move reduction of the `moves`-th move at `depth` (both from 1, capped at 63):
/// `LMR_BASE + ln(depth) ln(moves) / LMR_DIVISOR`, the constants in hundredths.
fn lmr_formula(depth: usize, moves: usize) -> i32 {
    let base = f64::from(LMR_BASE.get()) / 100.0;
    let divisor = f64::from(LMR_DIVISOR.get()) / 100.0;
    (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
}

/// [`lmr_formula`] as a table, built once (a tune build computes it at each use instead, so
/// that `setoption` acts on it).
#[cfg(not(feature = "tune"))]
fn lmr_reduction(depth: usize, moves: usize) -> i32 {
    use std::sync::LazyLock;
    static LMR: LazyLock<[[i32; 64]; 64]> = LazyLock::new(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = lmr_formula(d, m);
            }
        }
        t
    });
    LMR[depth.min(63)][moves.min(63)]
}

#[cfg(feature = "tune")]
fn lmr_reduction(depth: usize, moves: usize) -> i32 {
    lmr_formula(depth.clamp(1, 63), moves.clamp(1, 63))
}

impl Searcher<'_> {
    /// Step 5b: the tables' WDL value of the position after a capture or a pawn move, with few
    /// enough pieces, when its bound settles the window (stored in the table with that bound).
    #[inline(always)]
    pub(super) fn probe_tablebase(
        &mut self,
        key: u64,
        ply: usize,
        depth: i32,
        alpha: Score,
        beta: Score,
    ) -> Option<Score> {
        let tb = self.job.tb_config;
        if tb.cardinality == 0 || self.pos.chess().halfmoves() != 0 {
            return None;
        }
        let tables = self.job.tables.as_ref()?;
        let pieces = self.pos.chess().board().occupied().count();
        if pieces > tb.cardinality || (pieces == tb.cardinality && depth < tb.probe_depth) {
            return None;
        }
        let wdl = tables.probe_wdl(self.pos.chess())?;
        self.tbhits += 1;
        self.slots.set_tbhits(self.id, self.tbhits);
        let wdl = if tb.rule50 { wdl } else { ignoring_rule50(wdl) };
        let value = wdl_score(wdl, ply);
        let bound = if value.is_decisive() && value > Score::DRAW {
            Bound::Lower
        } else if value.is_decisive() {
            Bound::Upper
        } else {
            Bound::Exact
        };
        if bound == Bound::Exact
            || (bound == Bound::Lower && value >= beta)
            || (bound == Bound::Upper && value <= alpha)
        {
            let depth = (depth + TB_STORE_DEPTH_BONUS).min(MAX_PLY as i32 - 1);
            self.tt_store(key, ply, Best::new(value), None, depth, bound);
            return Some(value);
        }
        None
    }

    /// Step 9: whether a null-move fail-high here is verified (the node searched on one ply
    /// shallower, Figure 3) rather than cut off, `pieces` being the side to move's pieces
    /// besides king and pawns. `Paper`: wherever `verify` is set. `Verified`: with `verify`
    /// set, at least `NULL_VERIFY_MIN_DEPTH` plies from the horizon, at most
    /// `NULL_VERIFY_MAX_PLY` plies from the root and `NULL_VERIFY_PLY_MAX_DEPTH` from the
    /// horizon, or with at most `NULL_VERIFY_MAX_PIECES` pieces at least
    /// `NULL_VERIFY_PIECES_MIN_DEPTH` plies from the horizon.
    #[inline(always)]
    fn verifies_null_move(&self, verify: bool, depth: i32, ply: usize, pieces: usize) -> bool {
        match self.job.config.null_move {
            NullMoveMode::Paper => verify,
            NullMoveMode::Verified => {
                verify
                    && (depth >= NULL_VERIFY_MIN_DEPTH.get()
                        || (ply <= NULL_VERIFY_MAX_PLY.get() as usize
                            && depth <= NULL_VERIFY_PLY_MAX_DEPTH.get())
                        || (pieces <= NULL_VERIFY_MAX_PIECES.get() as usize
                            && depth >= NULL_VERIFY_PIECES_MIN_DEPTH.get()))
            }
            NullMoveMode::Standard | NullMoveMode::Off => false,
        }
    }

    /// Step 9: passes the turn when the mode, the node and the evaluation allow it
    /// (`null_ok()`) and searches the reply reduced, with a zero window at beta. A fail-high
    /// gives the score, a mate or tablebase score lowered to beta (one side passed, so it is
    /// not proven); where it is verified ([`Self::verifies_null_move`]), the default from
    /// `NULL_VERIFY_SHALLOW_MIN_DEPTH` plies on searches the node at the null-move search's
    /// depth with null moves banned (Stockfish's form), and elsewhere (and `NullMove=paper`
    /// everywhere) asks the caller to search it one ply shallower (the paper's).
    #[inline(always)]
    pub(super) fn null_move(
        &mut self,
        node: &Node,
        beta: Score,
        depth: i32,
        verify: bool,
    ) -> Result<NullMove, Stopped> {
        let config = self.job.config;
        let mode = config.null_move;
        let ply = node.ply;
        if mode == NullMoveMode::Off
            || self.stack[ply].after_null
            || ply < self.null_ban_ply
            || beta.is_decisive()
            || node.eval.is_none_or(|e| e < beta)
        {
            return Ok(NullMove::Search);
        }
        let pieces = pieces_to_move(self.pos.chess());
        let verifies = self.verifies_null_move(verify, depth, ply, pieces);
        let null_ok = (!verifies || depth > 1) && (NULL_NEEDS_PIECE.get() == 0 || pieces > 0);
        if !null_ok || !self.make_null() {
            return Ok(NullMove::Search);
        }
        self.stack[ply + 1].after_null = true;
        self.stack[ply].piece_to = None;
        let child_verify = verify && matches!(mode, NullMoveMode::Verified | NullMoveMode::Paper);
        let mut r = config.null_r;
        if config.null_adaptive {
            let margin = node
                .eval
                .map_or(0, |e| (e.0 - beta.0) / NULL_EVAL_DIVISOR.get());
            r += depth / NULL_DEPTH_DIVISOR.get() + margin.min(NULL_EVAL_MAX.get());
        }
        let null_depth = depth - r - 1;
        let result =
            self.search::<NonPv>(-beta, -beta + 1, null_depth, ply + 1, child_verify, false);
        self.stack[ply + 1].after_null = false;
        self.unmake();
        let value = -result?;
        if value < beta {
            return Ok(NullMove::Search);
        }
        let bounded = if value.is_decisive() { beta } else { value };
        if !verifies {
            return Ok(NullMove::Cutoff(bounded));
        }
        if mode == NullMoveMode::Paper || depth < NULL_VERIFY_SHALLOW_MIN_DEPTH.get() {
            return Ok(NullMove::Shallower);
        }
        // Stockfish's verification: this node again, at the null-move search's depth, with
        // `verify` cleared and no null move for either side through 3/4 of its plies.
        let verify_depth = null_depth.max(1);
        let outer_ban = self.null_ban_ply;
        self.null_ban_ply = ply + (3 * verify_depth as usize / 4).max(1);
        let result = self.search::<NonPv>(beta - 1, beta, verify_depth, ply, false, false);
        self.null_ban_ply = outer_ban;
        Ok(if result? >= beta {
            NullMove::Cutoff(bounded)
        } else {
            NullMove::Search
        })
    }

    /// Step 9b: tries the captures that win at least `beta + PROBCUT_MARGIN` minus the
    /// evaluation by SEE, in quiescence and then `PROBCUT_REDUCTION` plies shallower against
    /// that raised beta; the first that holds is stored as a lower bound and its score
    /// returned. Skipped at shallow depth, near mate scores, and when the table already says a
    /// search that deep stays below.
    #[inline(always)]
    pub(super) fn probcut(
        &mut self,
        node: &Node,
        key: u64,
        beta: Score,
        depth: i32,
        verify: bool,
    ) -> Result<Option<Score>, Stopped> {
        let ply = node.ply;
        let probcut_beta = beta + PROBCUT_MARGIN.get();
        let probcut_depth = depth - PROBCUT_REDUCTION.get();
        if depth < PROBCUT_MIN_DEPTH.get() || beta.is_decisive() {
            return Ok(None);
        }
        let Some(e) = node.eval else {
            return Ok(None);
        };
        if node.tt_hit.zip(node.tt_score).is_some_and(|(h, score)| {
            h.bound != Bound::None && h.depth > probcut_depth && score < probcut_beta
        }) {
            return Ok(None);
        }
        let side = node.side;
        let mut picker = MovePicker::captures(node.tt_move.filter(|&m| is_tactical(m)));
        while let Some(m) = self.next_capture(&mut picker) {
            if !see_ge(self.pos.chess().board(), m, probcut_beta.0 - e.0) {
                continue;
            }
            self.stack[ply].piece_to = Some(piece_to(side, m));
            self.make(m);
            let mut value = -self
                .qsearch::<NonPv>(-probcut_beta, -probcut_beta + 1, ply + 1)
                .inspect_err(|_| self.unmake())?;
            if value >= probcut_beta {
                value = -self
                    .search::<NonPv>(
                        -probcut_beta,
                        -probcut_beta + 1,
                        probcut_depth,
                        ply + 1,
                        verify,
                        !node.cut_node,
                    )
                    .inspect_err(|_| self.unmake())?;
            }
            self.unmake();
            if value >= probcut_beta {
                let best = Best {
                    score: value,
                    mv: Some(m),
                };
                self.tt_store(
                    key,
                    ply,
                    best,
                    node.static_eval,
                    probcut_depth + 1,
                    Bound::Lower,
                );
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Step 12b: when the table move `m`'s score is a lower bound from deep enough and not a
    /// mate, searches the node without `m`, at half the depth, against a bar
    /// `SINGULAR_MARGIN * depth` below that score, and judges `m` by the result.
    #[inline(always)]
    pub(super) fn singularity(
        &mut self,
        node: &Node,
        m: Move,
        beta: Score,
        depth: i32,
        verify: bool,
    ) -> Result<Singularity, Stopped> {
        let ply = node.ply;
        let (Some(hit), Some(tt_score)) = (node.tt_hit, node.tt_score) else {
            return Ok(Singularity::Unknown);
        };
        if depth < SINGULAR_MIN_DEPTH.get()
            || !matches!(hit.bound, Bound::Lower | Bound::Exact)
            || hit.depth < depth - SINGULAR_TT_DEPTH.get()
            || tt_score.is_decisive()
        {
            return Ok(Singularity::Unknown);
        }
        let singular_beta = tt_score - SINGULAR_MARGIN.get() * depth;
        let singular_depth = (depth - 1) / 2;
        self.stack[ply].excluded = Some(m);
        let value = self.search::<NonPv>(
            singular_beta - 1,
            singular_beta,
            singular_depth,
            ply,
            verify,
            node.cut_node,
        );
        self.stack[ply].excluded = None;
        Ok(if value? < singular_beta {
            Singularity::Singular
        } else if singular_beta >= beta {
            Singularity::MultiCut(singular_beta)
        } else if tt_score >= beta {
            Singularity::NotAlone
        } else {
            Singularity::Unknown
        })
    }

    /// Step 13: the late move reduction of the quiet move `m`, the `move_count`-th, before
    /// clamping: the table's ([`lmr_reduction`]), one less at PV nodes, one more when not
    /// improving, one less for a killer, less by the move's history; more at expected cut
    /// nodes and when the table move is a capture (a quiet move rarely beats it; Stockfish;
    /// these two: batch 3).
    #[inline(always)]
    pub(super) fn late_move_reduction<N: NodeType>(
        &self,
        node: &Node,
        m: Move,
        depth: i32,
        move_count: usize,
        previous: [Option<PieceTo>; 2],
    ) -> i32 {
        let mut reduction = lmr_reduction(depth as usize, move_count);
        reduction -= i32::from(N::PV);
        reduction += i32::from(!node.improving);
        if self.stack[node.ply].killers.contains(&Some(m)) {
            reduction -= 1;
        }
        reduction -= self.histories.quiet(node.side, m, previous) / LMR_HISTORY_DIVISOR.get();
        reduction += i32::from(node.cut_node) * LMR_CUT_NODE.get();
        reduction += i32::from(node.tt_capture) * LMR_TT_CAPTURE.get();
        reduction
    }

    /// Step 13: the late move reduction of the capture or promotion `m` (not the first move),
    /// before clamping: [`LMR_NOISY_BASE`], less by its capture history (Ethereal's noisy late
    /// move reductions; batch 6).
    #[inline(always)]
    pub(super) fn noisy_reduction(&self, node: &Node, m: Move) -> i32 {
        LMR_NOISY_BASE.get()
            - self.histories.capture(node.side, m) / LMR_NOISY_HISTORY_DIVISOR.get()
    }
}

/// The side to move's pieces besides king and pawns: step 9's guard with [`NULL_NEEDS_PIECE`]
/// (at least one) and its verification's [`NULL_VERIFY_MAX_PIECES`].
fn pieces_to_move(pos: &shakmaty::Chess) -> usize {
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    (ours & !(board.pawns() | board.kings())).count()
}

#[cfg(test)]
mod tests {
    use super::pieces_to_move;
    use crate::position::Position;

    /// (FEN, whether the side to move may make a null move under the guard).
    const CASES: &[(&str, bool)] = &[
        // King and pawns to move, whatever the other side has: no null move.
        ("8/5k2/8/3p4/3P4/8/5K2/8 w - - 0 1", false),
        ("8/5k2/8/3p4/3P4/8/5K2/q7 w - - 0 1", false),
        ("4k3/8/8/8/8/8/q7/4K3 w - - 0 1", false),
        // One minor or major piece is enough, the opponent's material does not matter.
        ("8/5k2/8/3p4/3P4/8/5K2/6N1 w - - 0 1", true),
        ("8/5k2/8/3p4/3P4/8/5K2/q7 b - - 0 1", true),
        ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", true),
        // The start position, either side.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            true,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            true,
        ),
    ];

    #[test]
    fn null_move_guard_needs_a_piece_besides_king_and_pawns() {
        for &(fen, expected) in CASES {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(pieces_to_move(pos.chess()) > 0, expected, "{fen}");
        }
    }

    /// The count behind `NULL_VERIFY_MAX_PIECES`: the side to move's knights, bishops, rooks
    /// and queens, never its king or pawns or the opponent's pieces.
    #[test]
    fn pieces_to_move_counts_the_side_to_moves_pieces_besides_king_and_pawns() {
        for (fen, expected) in [
            ("8/5k2/8/3p4/3P4/8/5K2/q7 w - - 0 1", 0),
            ("8/8/p1p5/1p5p/1P5p/8/PPP2K1p/4R1rk w - - 0 1", 1),
            ("1r4RK/2n5/7k/8/8/8/8/8 b - - 0 1", 2),
            ("2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 b - - 0 1", 4),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                7,
            ),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(pieces_to_move(pos.chess()), expected, "{fen}");
        }
    }
}
