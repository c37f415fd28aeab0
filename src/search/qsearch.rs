//! Quiescence search (chessprogramming wiki, "Quiescence Search"): stand pat on the static
//! evaluation, then captures and queen promotions in MVV-LVA order, skipping those that lose
//! material by SEE; every evasion when in check.

use shakmaty::{Move, Position as _};

use super::movepick::{MovePicker, Ordering};
use super::{Best, NodeType, Outcome, Searcher};
use crate::position::see_ge;
use crate::score::{MAX_PLY, Score};
use crate::tt::Bound;

impl Searcher<'_> {
    pub(super) fn qsearch<N: NodeType>(
        &mut self,
        mut alpha: Score,
        beta: Score,
        ply: usize,
    ) -> Outcome {
        // Step 1. Count the node; stop when told to.
        self.tick()?;
        self.pv.clear(ply);
        if N::PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        // Step 2. Draws, ply limit.
        if self.pos.is_draw(ply) {
            return Ok(Score::DRAW);
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 1 {
            return Ok(if in_check {
                Score::DRAW
            } else {
                self.eval.evaluate(self.pos.chess())
            });
        }

        // Step 3. Table lookup (any depth will do).
        let key = self.pos.key();
        let tt_hit = self.tt.probe(key);
        if !N::PV
            && let Some(hit) = tt_hit
            && let Some(score) = Self::tt_cutoff(&hit, ply, alpha, beta)
        {
            return Ok(score);
        }
        let tt_move = tt_hit.and_then(|h| h.mv.to_move(self.pos.chess()));

        // Step 4. Stand pat.
        let eval = self.static_eval(in_check, tt_hit);
        let mut best = Best::new(-Score::INFINITE);
        if let Some(eval) = eval.map(|e| e.corrected) {
            if eval >= beta {
                return Ok(eval);
            }
            alpha = alpha.max(eval);
            best.score = eval;
        }

        // Step 5. Captures (or evasions), with SEE pruning of losing captures.
        let mut picker = MovePicker::captures(tt_move);
        let mut move_count = 0;
        while let Some(m) = self.next_capture(&mut picker) {
            move_count += 1;
            if !in_check && !see_ge(self.pos.chess().board(), m, 0) {
                continue;
            }
            self.make(m);
            self.tt.prefetch(self.pos.key());
            let score = -self
                .qsearch::<N>(-beta, -alpha, ply + 1)
                .inspect_err(|_| self.unmake())?;
            self.unmake();
            if self.improve::<N>(ply, m, score, &mut best, &mut alpha, beta) {
                break;
            }
        }

        // Step 6. Checkmate: in check with no evasion.
        if in_check && move_count == 0 {
            return Ok(Score::mated_in(ply));
        }

        // Step 7. Store (depth 0).
        let bound = if best.score >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        self.tt_store(key, ply, best, eval, 0, bound);
        Ok(best.score)
    }

    /// The next move of a capture picker (quiescence, ProbCut): captures are ordered without
    /// the continuation histories.
    pub(super) fn next_capture(&self, picker: &mut MovePicker) -> Option<Move> {
        let ordering = Ordering {
            histories: self.histories,
            previous: [None; 2],
        };
        picker.next(self.pos.chess(), &ordering)
    }
}
