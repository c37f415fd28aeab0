//! The alpha-beta search: PVS (NegaScout) with verified null-move pruning, as a numbered
//! outline. Each step names its source; "batch N" names the match that kept it, in
//! `docs/strength.md` (batch 1: +43 Elo, batch 3: +84 Elo, batch 4: +30 Elo, each over the
//! build before it at 5 s + 0.05 s).

use shakmaty::{Move, MoveList, Position as _};

use super::history::{self, PieceTo, piece_to};
use super::movepick::{MovePicker, Ordering};
use super::{Best, NodeType, NonPv, Outcome, Pv, Searcher};
use crate::params::{
    CHECK_EXTENSION_PLY_FACTOR, FUTILITY_BASE, FUTILITY_MARGIN, FUTILITY_MAX_DEPTH, IIR_MIN_DEPTH,
    LMP_BASE, LMP_MAX_DEPTH, LMR_BASE, LMR_CUT_NODE, LMR_DIVISOR, LMR_HISTORY_DIVISOR,
    LMR_MIN_DEPTH, LMR_TT_CAPTURE, NULL_DEPTH_DIVISOR, NULL_EVAL_DIVISOR, NULL_EVAL_MAX,
    PROBCUT_MARGIN, PROBCUT_MIN_DEPTH, PROBCUT_REDUCTION, RFP_MARGIN, RFP_MAX_DEPTH,
    SEE_PRUNE_MAX_DEPTH, SEE_QUIET_MARGIN, SEE_TACTICAL_MARGIN, SINGULAR_MARGIN,
    SINGULAR_MIN_DEPTH, SINGULAR_TT_DEPTH, TB_STORE_DEPTH_BONUS,
};
use crate::position::{gives_check, is_tactical, see_ge};
use crate::score::{MAX_PLY, Score};
use crate::search::NullMoveMode;
use crate::tablebase::{ignoring_rule50, wdl_score};
use crate::tt::Bound;

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
    /// PVS (NegaScout; Campbell and Marsland 1983, Reinefeld 1983) at a node `depth` plies
    /// from the horizon, `ply` plies from the root, with the verification flag of verified
    /// null-move pruning (true at the root) and whether the node is expected to fail high
    /// (`cut_node`: Knuth and Moore's CUT nodes, as Stockfish tracks them; false at PV nodes).
    pub(super) fn search<N: NodeType>(
        &mut self,
        mut alpha: Score,
        mut beta: Score,
        mut depth: i32,
        ply: usize,
        mut verify: bool,
        cut_node: bool,
    ) -> Outcome {
        // Step 1. The horizon: resolve captures in quiescence search.
        if depth <= 0 {
            return self.qsearch::<N>(alpha, beta, ply);
        }

        // Step 2. Count the node; stop when told to.
        self.tick()?;
        self.pv.clear(ply);
        if N::PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        let in_check = self.pos.in_check();

        if !N::ROOT {
            // Step 3. Draws by rule, and the ply limit.
            if self.pos.is_draw(ply) {
                return Ok(Score::DRAW);
            }
            if ply >= MAX_PLY - 1 {
                return Ok(if in_check {
                    Score::DRAW
                } else {
                    self.eval.evaluate(self.pos.chess())
                });
            }
            // Step 4. Mate-distance pruning: no score here can beat a shorter mate already
            // found (chessprogramming wiki, "Mate Distance Pruning").
            alpha = alpha.max(Score::mated_in(ply));
            beta = beta.min(Score::mate_in(ply + 1));
            if alpha >= beta {
                return Ok(alpha);
            }
        }

        // Step 5. Transposition table lookup. The stored move is checked for legality. A
        // singular-extension search of this node (Step 12b: `excluded` set) neither cuts off
        // on the entry, which is the node's own, nor prunes before the move loop, nor stores.
        let key = self.pos.key();
        let excluded = self.stack[ply].excluded;
        let tt_hit = self.tt.probe(key);
        let tt_score = tt_hit.map(|h| h.score.from_tt(ply));
        let tt_move = if N::ROOT || excluded.is_some() {
            None
        } else {
            tt_hit.and_then(|h| h.mv.to_move(self.pos.chess()))
        };
        if !N::PV
            && excluded.is_none()
            && let Some(hit) = tt_hit
            && hit.depth >= depth
            && let Some(score) = Self::tt_cutoff(&hit, ply, alpha, beta)
        {
            return Ok(score);
        }

        // Step 5b. Tablebase probe (Stockfish `search`, "Tablebases probe"): after a capture
        // or a pawn move, with few enough pieces, the tables' WDL value ends the node when its
        // bound settles the window; it is stored in the table with that bound.
        let tb = self.job.tb_config;
        if !N::ROOT
            && excluded.is_none()
            && tb.cardinality > 0
            && let Some(tables) = &self.job.tables
            && self.pos.chess().halfmoves() == 0
        {
            let pieces = self.pos.chess().board().occupied().count();
            if (pieces < tb.cardinality || (pieces == tb.cardinality && depth >= tb.probe_depth))
                && let Some(wdl) = tables.probe_wdl(self.pos.chess())
            {
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
                    return Ok(value);
                }
            }
        }

        // Step 6. Internal iterative reduction (Ed Schroeder; Stockfish since 2021): without a
        // table move the node's ordering is poor, so search it a ply shallower.
        if !N::ROOT && excluded.is_none() && tt_move.is_none() && depth >= IIR_MIN_DEPTH.get() {
            depth -= 1;
        }

        // Step 7. Static evaluation (none in check), corrected by the pawn correction history
        // (batch 3). `improving`: better than two plies earlier.
        let static_eval = self.static_eval(in_check, tt_hit);
        let corrected = static_eval.map(|e| e.corrected);
        self.stack[ply].eval = corrected;
        let improving = match (
            corrected,
            ply.checked_sub(2).and_then(|p| self.stack[p].eval),
        ) {
            (Some(now), Some(before)) => now > before,
            _ => false,
        };
        self.stack[ply + 2].killers = [None; 2];
        let config = self.job.config;

        // Step 7b. The table's score as a sharper estimate (Stockfish): a bound that lies beyond
        // the static evaluation in its own direction replaces it for the pruning decisions
        // below (batch 3).
        let eval = match (corrected, tt_hit, tt_score) {
            (Some(e), Some(hit), Some(score)) => {
                let sharper = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => score > e,
                    Bound::Upper => score < e,
                    Bound::None => false,
                };
                Some(if sharper && !score.is_decisive() {
                    score
                } else {
                    e
                })
            }
            (e, _, _) => e,
        };

        // Step 8. Reverse futility pruning (static null move; chessprogramming wiki, "Reverse
        // Futility Pruning"): far above beta near the horizon, assume a cutoff.
        if !N::PV
            && config.pruning
            && excluded.is_none()
            && let Some(eval) = eval
            && depth <= RFP_MAX_DEPTH.get()
            && !beta.is_decisive()
            && eval - RFP_MARGIN.get() * (depth - i32::from(improving)) >= beta
        {
            return Ok(eval);
        }

        // Step 9. Null-move pruning: standard (pass the turn, cut off if the reduced search
        // still fails high) or verified (Tabibi and Netanyahu, ICGA Journal 2002, Figure 3:
        // with `verify` set a fail-high does not cut off; the node is searched one ply
        // shallower with `verify` cleared for the subtree, and searched again at full depth
        // with `verify` set if it then fails low, which reveals a zugzwang).
        // null_ok(): not at a PV node (a fail-high there is re-searched without the null-move
        // cutoffs that would hide a mate), not in check, not right after a null move, beta not
        // a mate score (a side being mated would pass and "escape" at the reduced depth), and
        // the static evaluation at least beta (below it a null move would rarely fail high).
        let mut null_fail_high = false;
        let null_mode = config.null_move;
        if !N::PV
            && null_mode != NullMoveMode::Off
            && excluded.is_none()
            && !in_check
            && !self.stack[ply].after_null
            && !beta.is_decisive()
            && eval.is_some_and(|e| e >= beta)
            && (null_mode == NullMoveMode::Standard || !verify || depth > 1)
            && self.make_null()
        {
            self.stack[ply + 1].after_null = true;
            self.stack[ply].piece_to = None;
            let child_verify = null_mode == NullMoveMode::Verified && verify;
            let mut r = config.null_r;
            if config.null_adaptive {
                let margin = eval.map_or(0, |e| (e.0 - beta.0) / NULL_EVAL_DIVISOR.get());
                r += depth / NULL_DEPTH_DIVISOR.get() + margin.min(NULL_EVAL_MAX.get());
            }
            let result = self.search::<NonPv>(
                -beta,
                -beta + 1,
                depth - r - 1,
                ply + 1,
                child_verify,
                false,
            );
            self.stack[ply + 1].after_null = false;
            self.unmake();
            let value = -result?;
            if value >= beta {
                // A mate or tablebase score from a search where one side passed is not proven.
                let value = if value.is_decisive() { beta } else { value };
                if null_mode == NullMoveMode::Verified && verify {
                    depth -= 1;
                    verify = false;
                    null_fail_high = true;
                } else {
                    return Ok(value);
                }
            }
        }

        // Step 9b. ProbCut (Buro 1995; Stockfish's form): a capture that wins enough by SEE and
        // still beats `beta + PROBCUT_MARGIN` in quiescence and then in a search
        // `PROBCUT_REDUCTION` plies shallower makes a cutoff here very likely; take it
        // (batch 3). Skipped when the table already says a search that deep stays below.
        let side = self.pos.turn();
        let probcut_beta = beta + PROBCUT_MARGIN.get();
        let probcut_depth = depth - PROBCUT_REDUCTION.get();
        if !N::PV
            && config.pruning
            && excluded.is_none()
            && !in_check
            && depth >= PROBCUT_MIN_DEPTH.get()
            && !beta.is_decisive()
            && let Some(e) = eval
            && !tt_hit.zip(tt_score).is_some_and(|(h, score)| {
                h.bound != Bound::None && h.depth > probcut_depth && score < probcut_beta
            })
        {
            let mut picker = MovePicker::captures(tt_move.filter(|&m| is_tactical(m)));
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
                            !cut_node,
                        )
                        .inspect_err(|_| self.unmake())?;
                }
                self.unmake();
                if value >= probcut_beta {
                    let best = Best {
                        score: value,
                        mv: Some(m),
                    };
                    self.tt_store(key, ply, best, static_eval, probcut_depth + 1, Bound::Lower);
                    return Ok(value);
                }
            }
        }

        // Steps 10 to 15: the move loop, entered again once on a zugzwang (Step 16).
        let original_alpha = alpha;
        let tt_capture = tt_move.is_some_and(is_tactical);
        // Extensions (Step 12) stop at twice the root depth, so that no line grows without end.
        let may_extend = ply < CHECK_EXTENSION_PLY_FACTOR * self.root_depth as usize;
        let best = loop {
            let mut best = Best::new(-Score::INFINITE);
            let mut move_count = 0usize;
            let mut quiets_tried = MoveList::new();
            let mut captures_tried = MoveList::new();
            let previous = self.previous_moves(ply);
            let mut picker = MovePicker::new(tt_move, self.stack[ply].killers);
            let mut root_index = self.pv_index;
            alpha = original_alpha;

            loop {
                // Step 10. Next move: the root's list in order, or the move picker.
                let m = if N::ROOT {
                    let Some(rm) = self.root_moves.get(root_index) else {
                        break;
                    };
                    root_index += 1;
                    rm.mv
                } else {
                    let ordering = Ordering {
                        histories: self.histories,
                        previous,
                    };
                    match picker.next(self.pos.chess(), &ordering) {
                        Some(m) if Some(m) == excluded => continue,
                        Some(m) => m,
                        None => break,
                    }
                };
                move_count += 1;
                let quiet = !is_tactical(m);
                let gives_check = gives_check(self.pos.chess(), m);

                // Step 11. Pruning at shallow depth, once a move has kept us from being mated,
                // never of a checking move: late move pruning of quiet moves, futility pruning
                // of quiet moves (chessprogramming wiki, "Futility Pruning"), and SEE pruning of
                // moves that lose material.
                if !N::ROOT
                    && config.pruning
                    && best.score > -Score::MATE_BOUND
                    && move_count > 1
                    && !gives_check
                {
                    if quiet && !in_check {
                        if depth <= LMP_MAX_DEPTH.get()
                            && move_count
                                > LMP_BASE.get() as usize
                                    + (depth * depth) as usize * (1 + usize::from(improving))
                        {
                            continue;
                        }
                        if let Some(eval) = eval
                            && depth <= FUTILITY_MAX_DEPTH.get()
                            && eval + FUTILITY_BASE.get() + FUTILITY_MARGIN.get() * depth <= alpha
                        {
                            continue;
                        }
                    }
                    let margin = if quiet {
                        SEE_QUIET_MARGIN.get()
                    } else {
                        SEE_TACTICAL_MARGIN.get()
                    };
                    if depth <= SEE_PRUNE_MAX_DEPTH.get()
                        && !see_ge(self.pos.chess().board(), m, -margin * depth)
                    {
                        continue;
                    }
                }

                // Step 12. Check extension: a checking move is searched one ply deeper.
                let mut extension = i32::from(gives_check && may_extend);

                // Step 12b. Singular extension (Anantharaman, Campbell and Hsu 1988, in
                // Stockfish's form; batch 4): when the table move's score is a trusted lower
                // bound, search the node without it, shallower, against a bar just below that
                // score. If nothing else reaches the bar, the move is singular: one ply more. If
                // even the bar is above beta, several moves beat beta: cut off (multi-cut). If
                // the table's score alone is above beta, the move is not alone: one ply less.
                if !N::ROOT
                    && Some(m) == tt_move
                    && excluded.is_none()
                    && may_extend
                    && depth >= SINGULAR_MIN_DEPTH.get()
                    && let Some(hit) = tt_hit
                    && let Some(tt_score) = tt_score
                    && matches!(hit.bound, Bound::Lower | Bound::Exact)
                    && hit.depth >= depth - SINGULAR_TT_DEPTH.get()
                    && !tt_score.is_decisive()
                {
                    let singular_beta = tt_score - SINGULAR_MARGIN.get() * depth;
                    let singular_depth = (depth - 1) / 2;
                    self.stack[ply].excluded = Some(m);
                    let value = self.search::<NonPv>(
                        singular_beta - 1,
                        singular_beta,
                        singular_depth,
                        ply,
                        verify,
                        cut_node,
                    );
                    self.stack[ply].excluded = None;
                    let value = value?;
                    if value < singular_beta {
                        extension = 1;
                    } else if singular_beta >= beta {
                        return Ok(singular_beta);
                    } else if tt_score >= beta {
                        extension = -1;
                    }
                }
                if N::ROOT
                    && let Some(main) = &mut self.main
                {
                    let number = root_index - self.pv_index;
                    main.report_currmove(self.job, self.root_depth as u32, m, number);
                }
                self.stack[ply].piece_to = Some(piece_to(side, m));
                self.make(m);
                self.tt.prefetch(self.pos.key());
                debug_assert_eq!(gives_check, self.pos.in_check());

                let new_depth = depth - 1 + extension;

                // Step 13. PVS with late move reductions: the first move with the full window,
                // the others with a zero window (reduced when late and quiet), re-searched
                // when they beat alpha.
                // The first move keeps the node's kind: a PV child of a PV node, a zero-window
                // child (expected to fail the other way) of any other (batch 3: before it, the
                // first child of every node was searched as a PV node).
                let score = if move_count == 1 {
                    let child = if N::PV {
                        self.search::<Pv>(-beta, -alpha, new_depth, ply + 1, verify, false)
                    } else {
                        self.search::<NonPv>(-beta, -alpha, new_depth, ply + 1, verify, !cut_node)
                    };
                    -child.inspect_err(|_| self.unmake())?
                } else {
                    let mut reduction = 0;
                    if config.lmr
                        && depth >= LMR_MIN_DEPTH.get()
                        && quiet
                        && !in_check
                        && !gives_check
                    {
                        reduction = lmr_reduction(depth as usize, move_count);
                        reduction -= i32::from(N::PV);
                        reduction += i32::from(!improving);
                        if self.stack[ply].killers.contains(&Some(m)) {
                            reduction -= 1;
                        }
                        reduction -=
                            self.histories.quiet(side, m, previous) / LMR_HISTORY_DIVISOR.get();
                        // Batch 3: more at expected cut nodes, and when the table move is a
                        // capture (a quiet move rarely beats it; Stockfish).
                        reduction += i32::from(cut_node) * LMR_CUT_NODE.get();
                        reduction += i32::from(tt_capture) * LMR_TT_CAPTURE.get();
                        reduction = reduction.clamp(0, new_depth - 1);
                    }
                    // A reduced child is searched as an expected cut node (Stockfish); an
                    // unreduced one as the opposite of this node.
                    let mut s = -self
                        .search::<NonPv>(
                            -alpha - 1,
                            -alpha,
                            new_depth - reduction,
                            ply + 1,
                            verify,
                            reduction > 0 || !cut_node,
                        )
                        .inspect_err(|_| self.unmake())?;
                    if s > alpha && reduction > 0 {
                        s = -self
                            .search::<NonPv>(
                                -alpha - 1,
                                -alpha,
                                new_depth,
                                ply + 1,
                                verify,
                                !cut_node,
                            )
                            .inspect_err(|_| self.unmake())?;
                    }
                    if N::PV && s > alpha && s < beta {
                        s = -self
                            .search::<Pv>(-beta, -alpha, new_depth, ply + 1, verify, false)
                            .inspect_err(|_| self.unmake())?;
                    }
                    s
                };
                self.unmake();

                if N::ROOT {
                    let seldepth = self.seldepth;
                    if let Some(rm) = self.root_moves.iter_mut().find(|rm| rm.mv == m) {
                        let line = self.pv.line(1);
                        rm.record(score, move_count == 1, alpha, beta, seldepth, line);
                    }
                }

                // Step 14. Best move, principal variation, cutoff; the move-ordering statistics
                // learn from the cutoff.
                if self.improve::<N>(ply, m, score, &mut best, &mut alpha, beta) {
                    self.reward_cutoff(ply, m, depth, &quiets_tried, &captures_tried);
                    break;
                }
                if quiet {
                    quiets_tried.push(m);
                } else {
                    captures_tried.push(m);
                }
            }

            // Step 15. No legal move: checkmate or stalemate. (A singular-extension search
            // that found no other move fails low.)
            if move_count == 0 {
                return Ok(if excluded.is_some() {
                    alpha
                } else if in_check {
                    Score::mated_in(ply)
                } else {
                    Score::DRAW
                });
            }
            if best.score == -Score::INFINITE {
                best.score = alpha; // every move was pruned
            }

            // Step 16. Zugzwang detection of verified null-move pruning: the null move failed
            // high but no real move reaches beta, so passing was better than moving. Restore
            // the depth, set `verify` and search the node again.
            if null_fail_high && best.score < beta {
                depth += 1;
                null_fail_high = false;
                verify = true;
                continue;
            }
            break best;
        };

        // Step 17. Store the result.
        let bound = if best.score >= beta {
            Bound::Lower
        } else if N::PV && best.mv.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_some() {
            return Ok(best.score);
        }
        self.tt_store(key, ply, best, static_eval, depth, bound);

        // Step 18. The pawn correction history learns how far this search landed from the
        // static evaluation, when the result is not a capture's (whose gain the evaluation of
        // the structure should not learn), not a proven result, and its bound says on which
        // side of the evaluation the truth lies (batch 3).
        if let Some(se) = static_eval
            && !best.mv.is_some_and(is_tactical)
            && !best.score.is_decisive()
            && !(bound == Bound::Lower && best.score <= se.corrected)
            && !(bound == Bound::Upper && best.score >= se.corrected)
        {
            let board = self.pos.chess().board();
            self.histories
                .update_correction(side, board, depth, best.score.0, se.raw.0);
        }
        Ok(best.score)
    }

    /// The moves one and two plies earlier, for the continuation histories.
    fn previous_moves(&self, ply: usize) -> [Option<PieceTo>; 2] {
        let at = |back: usize| ply.checked_sub(back).and_then(|p| self.stack[p].piece_to);
        [at(1), at(2)]
    }

    /// After move `m` caused a cutoff at `depth`: a quiet `m` becomes a killer and gets a
    /// history bonus, the quiet moves tried before it a malus; a capture `m` gets a capture
    /// history bonus; the captures tried before it a malus either way.
    fn reward_cutoff(
        &mut self,
        ply: usize,
        m: Move,
        depth: i32,
        quiets_tried: &[Move],
        captures_tried: &[Move],
    ) {
        let side = self.pos.turn();
        let bonus = history::bonus(depth);
        if is_tactical(m) {
            self.histories.update_capture(side, m, bonus);
        } else {
            self.stack[ply].add_killer(m);
            let previous = self.previous_moves(ply);
            self.histories.update_quiet(side, m, previous, bonus);
            for &q in quiets_tried {
                self.histories.update_quiet(side, q, previous, -bonus);
            }
        }
        for &c in captures_tried {
            self.histories.update_capture(side, c, -bonus);
        }
    }
}
