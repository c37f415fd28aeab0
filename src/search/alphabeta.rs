//! The alpha-beta search: PVS (NegaScout) with verified null-move pruning, as a numbered
//! outline. Each step names its source; "batch N" names the match that kept it, in
//! `docs/strength.md` (batch 1: +43 Elo, batch 3: +84 Elo, batch 4: +30 Elo, each over the
//! build before it at 5 s + 0.05 s).

use shakmaty::{Move, MoveList, Position as _};

use super::history::{self, PieceTo, piece_to};
use super::movepick::{MovePicker, Ordering};
use super::steps::{Node, NullMove, Singularity};
use super::{Best, NodeType, NonPv, Outcome, Pv, Searcher};
use crate::params::{
    CHECK_EXTENSION_PLY_FACTOR, FUTILITY_BASE, FUTILITY_MARGIN, FUTILITY_MAX_DEPTH, IIR_MIN_DEPTH,
    LMP_BASE, LMP_MAX_DEPTH, LMR_MIN_DEPTH, RFP_MARGIN, RFP_MAX_DEPTH, SEE_PRUNE_MAX_DEPTH,
    SEE_QUIET_MARGIN, SEE_TACTICAL_MARGIN,
};
use crate::position::{Checks, is_tactical, see_ge};
use crate::score::{MAX_PLY, Score};
use crate::tt::Bound;

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
        if !N::ROOT
            && excluded.is_none()
            && let Some(value) = self.probe_tablebase(key, ply, depth, alpha, beta)
        {
            return Ok(value);
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
        let node = Node {
            ply,
            side: self.pos.turn(),
            cut_node,
            improving,
            static_eval,
            eval,
            tt_hit,
            tt_score,
            tt_move,
            tt_capture: tt_move.is_some_and(is_tactical),
        };

        // Step 8. Reverse futility pruning (static null move; chessprogramming wiki, "Reverse
        // Futility Pruning"): far above beta near the horizon, assume a cutoff. Kept shallow
        // (RFP_MAX_DEPTH): deeper, it cuts off nodes where the side to move has a quiet mate,
        // which then comes later than Stockfish shows it (docs/mates.md has the counts).
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
        // with `verify` set if it then fails low, which reveals a zugzwang). `NullMove=paper`
        // verifies wherever `verify` is set; the default only where a wrong cutoff is likely
        // or dear: deep nodes, the replies to the root moves near the horizon (few, and there
        // the null-move search, a quiescence search, misses a quiet threat that refutes the
        // root move), and a side with few pieces, where zugzwangs are, far enough from the
        // horizon that so common a case costs little (`verifies_null_move`; docs/design.md).
        // From `NULL_VERIFY_SHALLOW_MIN_DEPTH` plies on the verification is Stockfish's: the
        // node searched at the null-move search's depth with null moves banned below it.
        // null_ok(): not at a PV node (a fail-high there is re-searched without the null-move
        // cutoffs that would hide a mate), not in check, not right after a null move, beta not
        // a mate score (a side being mated would pass and "escape" at the reduced depth), and
        // the static evaluation at least beta (below it a null move would rarely fail high),
        // and a piece besides king and pawns to move (Stockfish, Ethereal: with only king and
        // pawns a pass is often better than any move, and the null move hid mates there;
        // docs/mates.md).
        let mut null_fail_high = false;
        if !N::PV && excluded.is_none() && !in_check {
            match self.null_move(&node, beta, depth, verify)? {
                NullMove::Cutoff(value) => return Ok(value),
                NullMove::Shallower => {
                    depth -= 1;
                    verify = false;
                    null_fail_high = true;
                }
                NullMove::Search => {}
            }
        }

        // Step 9b. ProbCut (Buro 1995; Stockfish's form): a capture that wins enough by SEE and
        // still beats `beta + PROBCUT_MARGIN` in quiescence and then in a search
        // `PROBCUT_REDUCTION` plies shallower makes a cutoff here very likely; take it
        // (batch 3). Skipped when the table already says a search that deep stays below.
        if !N::PV
            && config.pruning
            && excluded.is_none()
            && !in_check
            && let Some(value) = self.probcut(&node, key, beta, depth, verify)?
        {
            return Ok(value);
        }

        // Steps 10 to 15: the move loop, entered again once on a zugzwang (Step 16).
        let side = node.side;
        let original_alpha = alpha;
        // Extensions (Step 12) stop at twice the root depth, so that no line grows without end.
        let may_extend = ply < CHECK_EXTENSION_PLY_FACTOR * self.root_depth as usize;
        // Which moves give check, computed once for the node (-4.3% of the bench's instructions).
        let checks = Checks::new(self.pos.chess());
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
                // No enemy king (never in a legal game): no check, as `gives_check` says too.
                let gives_check = checks
                    .as_ref()
                    .is_some_and(|checks| checks.gives_check(self.pos.chess(), m));

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
                if !N::ROOT && Some(m) == tt_move && excluded.is_none() && may_extend {
                    match self.singularity(&node, m, beta, depth, verify)? {
                        Singularity::Singular => extension = 1,
                        Singularity::MultiCut(score) => return Ok(score),
                        Singularity::NotAlone => extension = -1,
                        Singularity::Unknown => {}
                    }
                }
                if N::ROOT
                    && let Some(main) = &mut self.main
                {
                    // Numbered among all root moves, as Stockfish does (`moveCount + pvIdx`).
                    let number = root_index;
                    main.report_currmove(self.job, self.root_depth as u32, m, number);
                }
                self.stack[ply].piece_to = Some(piece_to(side, m));
                self.make(m);
                self.tt.prefetch(self.pos.key());
                debug_assert_eq!(gives_check, self.pos.in_check());

                let new_depth = depth - 1 + extension;

                // Step 13. PVS with late move reductions: the first move with the full window,
                // the others with a zero window (reduced when late), re-searched when they
                // beat alpha. The reduction of a quiet move is larger at expected cut nodes
                // and when the table move is a capture (batch 3; Stockfish); captures and
                // promotions are reduced by their capture history alone (batch 6; Ethereal).
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
                    let reduction = if config.lmr
                        && depth >= LMR_MIN_DEPTH.get()
                        && !in_check
                        && !gives_check
                    {
                        let r = if quiet {
                            self.late_move_reduction::<N>(&node, m, depth, move_count, previous)
                        } else {
                            self.noisy_reduction(&node, m)
                        };
                        r.clamp(0, new_depth - 1)
                    } else {
                        0
                    };
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

        // Step 17. Store the result; at the root only line 1's (MultiPV: the root's entry
        // keeps the best line's move and score; Stockfish `!(rootNode && pvIdx)`).
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
        if !(N::ROOT && self.pv_index > 0) {
            self.tt_store(key, ply, best, static_eval, depth, bound);
        }

        // Step 18. The correction histories learn how far this search landed from the
        // static evaluation, when the result is not a capture's (whose gain the evaluation of
        // the structure should not learn), not a proven result, and its bound says on which
        // side of the evaluation the truth lies (batch 3; the tables of each side's pieces:
        // batch 6).
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
