//! Limited strength: `Skill Level`, or `UCI_LimitStrength` with `UCI_Elo`, after Stockfish's
//! `Skill` (search.cpp, Stockfish 15.1) with a node budget in place of its depth. A weakened
//! search plays like a weaker player: it sees less (1,013 nodes at the bottom, a few plies and
//! their captures), and among the moves it thinks good it prefers a worse one by a random
//! margin; the stronger, the fewer the candidates and the smaller the margin.
//!
//! 1. The strength `s`, a real number: `Skill Level` (0 to 20), or with `UCI_LimitStrength`
//!    the `UCI_Elo` through [`SKILL_ELO_ANCHORS`] (the calibration). 20 is full strength:
//!    no weakening at all. Every knob below is continuous in `s` and reaches full strength's
//!    value at 20, so the scale has no jump at its top (docs/limited-strength.md).
//! 2. The search: `c = 1 + 3 (1 - s / 20)` candidates, a real number (4 at 0, 1 at 20). A
//!    search takes `ceil(c)` of them with the probability of `c`'s fraction, `c - floor(c)`,
//!    and `floor(c)` otherwise (drawn once at `go`, [`Skill::new`]), so the expected number of
//!    candidates is `c`, continuous in `s`; it searches them as its best lines
//!    ([`Skill::lines`]; only the `MultiPV` lines asked for are reported) and stops after the
//!    node budget `B(s) / c` a line over all threads once depth 1 is complete, with `B(s) =
//!    SKILL_NODES_AT_ZERO * 2^(0.45 s - 0.8 max(0, 2 - s))` (the second term makes the bottom
//!    levels weaker, see [`SKILL_BOTTOM_LEVEL`]): a line fewer does not search the others
//!    deeper (with a whole number of lines sharing one budget, each drop of a line was a step
//!    of strength that a held-out check found, docs/limited-strength.md). The draw comes before
//!    the search, not at the pick, so that a line the pick will not use is not searched: when
//!    the last line was drawn at the pick, every strength below 20 searched at least two lines,
//!    and where the clock, not the budget, ends the search (the top levels at 5 s + 0.05 s)
//!    the second line took the first's depth (docs/limited-strength.md: the top's
//!    recalibration, and why the calibration's straight line, more than this, misplaced it).
//!    The budget only ever shortens the search that the GUI's limits allow: the clock still
//!    applies, and a budget spent while pondering ends the main thread's search without
//!    sending the best move before `ponderhit`.
//! 3. The pick, after each completed iteration, among its lines ([`Skill::pick`], Stockfish's
//!    `Skill::pick_best`): `weakness = 110 - 1.5 s`, `delta = min(top - the last candidate's
//!    score, the margin)` with the margin `SKILL_MAX_DELTA_AT_ZERO * (1 - s / 20)`, and each
//!    candidate scores `score + (weakness * (top - score) + delta * (random % weakness)) /
//!    128`; the highest wins (the later line on a tie).
//! 4. The move played is the main thread's pick of its last completed iteration (the helpers'
//!    vote is skipped, as in Stockfish); it is always one of the legal root moves.
//!
//! Randomness: one [`Rng`] per search, seeded at `go` from `Skill Seed` and the position's key
//! (the same seed and position give the same pick), or from the clock when `Skill Seed` is 0
//! (a new game every time, as Stockfish's `PRNG(now())`).

use crate::params::{
    SKILL_BOTTOM_DOUBLINGS_PER_LEVEL, SKILL_BOTTOM_LEVEL, SKILL_ELO_ANCHORS, SKILL_LINES_AT_ZERO,
    SKILL_MAX_DELTA_AT_ZERO, SKILL_MAX_LEVEL, SKILL_NODE_DOUBLINGS_PER_LEVEL, SKILL_NODES_AT_ZERO,
    SKILL_PUSH_DIVISOR, SKILL_WEAKNESS_BASE, SKILL_WEAKNESS_PER_LEVEL,
};
use crate::rng::Rng;

use super::root::RootMove;

/// The weakening of one search. `None` in [`SearchConfig`](super::SearchConfig) means full
/// strength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Skill {
    /// The strength, in `[0, 20)`.
    pub strength: f64,
    /// The candidates of this search (step 2): `ceil(c)` or `floor(c)`, drawn at `go`.
    candidates: usize,
    /// The node budget of the search, over all threads.
    pub nodes: u64,
    /// Seeds the pick's generator.
    seed: u64,
}

impl Skill {
    /// The weakening at `strength` (clamped to 0..20), `None` at full strength; `seed` fixes
    /// every pick.
    pub(crate) fn new(strength: f64, seed: u64) -> Option<Skill> {
        let strength = strength.clamp(0.0, SKILL_MAX_LEVEL as f64);
        if strength >= SKILL_MAX_LEVEL as f64 {
            return None;
        }
        let doublings = SKILL_NODE_DOUBLINGS_PER_LEVEL * strength
            - SKILL_BOTTOM_DOUBLINGS_PER_LEVEL * (SKILL_BOTTOM_LEVEL - strength).max(0.0);
        let c = candidates(strength);
        let per_line = SKILL_NODES_AT_ZERO * doublings.exp2() / c;
        // Step 2's draw: the last of the ceil(c) candidates with the probability of c's
        // fraction (c > 1 below full strength, so floor(c) >= 1 when it stays out).
        let mut rng = Rng::new(seed);
        let whole = c.ceil() as usize;
        let candidates = if rng.next_f64() < c - (whole - 1) as f64 {
            whole
        } else {
            whole - 1
        };
        Some(Skill {
            strength,
            candidates,
            nodes: (per_line * candidates as f64) as u64,
            seed: rng.next_u64(),
        })
    }

    /// Step 2: the lines searched when `multipv` are asked for: the pick's candidates.
    pub(crate) fn lines(&self, multipv: usize) -> usize {
        multipv.max(self.candidates)
    }

    /// Step 3: the weakness and the cap of `delta`, in centipawns.
    fn weakness_and_margin(&self) -> (i64, i64) {
        let weakness = SKILL_WEAKNESS_BASE - SKILL_WEAKNESS_PER_LEVEL * self.strength;
        let margin = SKILL_MAX_DELTA_AT_ZERO * remaining(self.strength);
        (weakness.round().max(1.0) as i64, margin.round() as i64)
    }

    /// Step 3: the index of the chosen move among the first `lines` root moves, which a completed
    /// iteration has scored and sorted best first.
    pub(crate) fn pick(&self, root_moves: &[RootMove], lines: usize) -> usize {
        let mut rng = Rng::new(self.seed);
        // All the lines take part: the candidates drawn at `go` (when MultiPV asks for more
        // lines, all of them, as in Stockfish).
        let lines = lines.clamp(1, root_moves.len());
        let (weakness, margin) = self.weakness_and_margin();
        let top = i64::from(root_moves[0].score.0);
        let delta = (top - i64::from(root_moves[lines - 1].score.0)).min(margin);
        let mut best = (i64::MIN, 0);
        for (i, rm) in root_moves[..lines].iter().enumerate() {
            let score = i64::from(rm.score.0);
            let random = (rng.next_u64() % weakness as u64) as i64;
            let push = (weakness * (top - score) + delta * random) / SKILL_PUSH_DIVISOR;
            if score + push >= best.0 {
                best = (score + push, i);
            }
        }
        best.1
    }
}

/// What is left of the weakening at `strength`: 1 at 0, 0 at full strength.
fn remaining(strength: f64) -> f64 {
    1.0 - strength / SKILL_MAX_LEVEL as f64
}

/// Step 2: the candidates at `strength`, a real number: `1 + 3 (1 - s / 20)`.
fn candidates(strength: f64) -> f64 {
    1.0 + (SKILL_LINES_AT_ZERO - 1.0) * remaining(strength)
}

/// Step 1: the strength of `elo`: piecewise linear between the anchors, clamped at their ends.
pub(crate) fn strength_for_elo(elo: i64) -> f64 {
    let anchors = &SKILL_ELO_ANCHORS;
    let (first, last) = (anchors[0], anchors[anchors.len() - 1]);
    if elo <= first.0 {
        return first.1;
    }
    if elo >= last.0 {
        return last.1;
    }
    let i = anchors
        .iter()
        .position(|a| a.0 >= elo)
        .expect("elo is inside");
    let ((e0, l0), (e1, l1)) = (anchors[i - 1], anchors[i]);
    l0 + (l1 - l0) * (elo - e0) as f64 / (e1 - e0) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{
        SKILL_ELO_MAX, SKILL_ELO_MIN, SKILL_LINES_AT_ZERO, SKILL_MAX_DELTA_AT_ZERO,
        SKILL_NODE_DOUBLINGS_PER_LEVEL, SKILL_NODES_AT_ZERO,
    };
    use crate::score::Score;
    use shakmaty::{Move, Role, Square};

    fn root_moves(scores: &[i32]) -> Vec<RootMove> {
        let squares = [Square::A3, Square::B3, Square::C3, Square::D3, Square::E3];
        scores
            .iter()
            .zip(squares)
            .map(|(&s, to)| {
                let mv = Move::Normal {
                    role: Role::Pawn,
                    from: Square::from_coords(to.file(), shakmaty::Rank::Second),
                    capture: None,
                    to,
                    promotion: None,
                };
                let mut rm = RootMove::new(mv, None);
                rm.score = Score(s);
                rm
            })
            .collect()
    }

    #[test]
    fn levels_budgets_and_elo() {
        assert_eq!(Skill::new(20.0, 1), None);
        assert_eq!(strength_for_elo(SKILL_ELO_MAX), SKILL_MAX_LEVEL as f64);
        for (elo, level) in SKILL_ELO_ANCHORS {
            assert_eq!(strength_for_elo(elo), level, "anchor {elo}");
        }
        assert_eq!(strength_for_elo(0), SKILL_ELO_ANCHORS[0].1);
        // Halfway between the first two anchors (whatever a calibration made them), halfway
        // between their levels, within the level of one Elo.
        let ((e0, l0), (e1, l1)) = (SKILL_ELO_ANCHORS[0], SKILL_ELO_ANCHORS[1]);
        let middle = strength_for_elo((e0 + e1) / 2);
        let one_elo = (l1 - l0) / (e1 - e0) as f64;
        assert!((middle - (l0 + l1) / 2.0).abs() <= one_elo, "{middle}");
        let mut previous = 0.0;
        for elo in SKILL_ELO_MIN..=SKILL_ELO_MAX {
            let level = strength_for_elo(elo);
            assert!(level >= previous, "monotone at {elo}");
            previous = level;
        }
        // Every knob moves one way with the strength and meets full strength at 20: the
        // budget grows, the candidates and the margin shrink to one line and nothing.
        let mut last: Option<Skill> = None;
        for tenth in 0..200 {
            let skill = Skill::new(f64::from(tenth) / 10.0, 9).unwrap();
            if let Some(last) = last {
                let per_line = |k: &Skill| k.nodes as f64 / k.lines(1) as f64;
                assert!(
                    per_line(&skill) > per_line(&last),
                    "the budget of a line grows at {}",
                    skill.strength
                );
                assert!(skill.lines(1) <= last.lines(1));
                let ((w, m), (lw, lm)) = (skill.weakness_and_margin(), last.weakness_and_margin());
                assert!(w <= lw && m <= lm, "at {}", skill.strength);
            }
            last = Some(skill);
        }
        let (bottom, top) = (Skill::new(0.0, 9).unwrap(), last.unwrap());
        // The bottom levels' extra halving: 1.6 doublings fewer at 0, none from 2 up.
        assert_eq!(bottom.nodes, 1013);
        assert!(bottom.nodes < SKILL_NODES_AT_ZERO as u64);
        let per_line = SKILL_NODES_AT_ZERO * (SKILL_NODE_DOUBLINGS_PER_LEVEL * 2.0).exp2()
            / candidates(SKILL_BOTTOM_LEVEL);
        for seed in 0..20 {
            let at_two = Skill::new(SKILL_BOTTOM_LEVEL, seed).unwrap();
            assert_eq!(at_two.nodes, (per_line * at_two.lines(1) as f64) as u64);
            assert!([3, 4].contains(&at_two.lines(1)), "c = 3.7 at level 2");
        }
        assert_eq!(bottom.lines(1), SKILL_LINES_AT_ZERO as usize);
        // Just below full strength (c = 1.015) a second line is searched only when it takes
        // part in the pick (seed 9 does not draw it), and the margin is nearly nothing.
        assert!((candidates(top.strength) - 1.015).abs() < 1e-9);
        assert_eq!(top.lines(1), 1);
        assert!(top.weakness_and_margin().1 <= 1 + SKILL_MAX_DELTA_AT_ZERO as i64 / 100);
        assert_eq!(bottom.lines(8), 8, "MultiPV asked for is searched");
        assert_eq!(top.lines(3), 3, "MultiPV asked for is searched");
    }

    #[test]
    fn the_pick_is_a_candidate_reproducible_and_weaker_at_low_levels() {
        let moves = root_moves(&[50, 30, 10, -200, -400]);
        let picks = |level: f64| -> Vec<usize> {
            (0..200)
                .map(|seed| {
                    let skill = Skill::new(level, seed).unwrap();
                    let pick = skill.pick(&moves, 4);
                    assert_eq!(pick, skill.pick(&moves, 4), "reproducible");
                    pick
                })
                .collect()
        };
        let weak = picks(0.0);
        let strong = picks(19.0);
        assert!(weak.iter().chain(&strong).all(|&i| i < 4), "only the lines");
        let misses = |p: &[usize]| p.iter().filter(|&&i| i != 0).count();
        assert!(misses(&weak) > misses(&strong), "level 0 errs more often");
        assert!(misses(&weak) > 0);
        // A move a piece worse is never chosen at level 19.
        assert!(!strong.contains(&3));
        // One line: the only move.
        assert_eq!(Skill::new(0.0, 3).unwrap().pick(&moves[..1], 4), 0);
    }

    #[test]
    fn the_last_line_is_searched_with_the_fraction_of_the_candidates() {
        // Over many seeds the search takes ceil(c) lines with the probability of c's fraction
        // and floor(c) otherwise, so the mean is c; with equal scores the pick is the last
        // line searched (ties go to the later line), so every line searched takes part.
        let moves = root_moves(&[0, 0, 0, 0, 0]);
        for (strength, whole, share) in [
            (0.0, 4, 1.0),
            (10.0 / 3.0, 4, 0.5),
            (20.0 / 3.0, 3, 1.0),
            (12.0, 3, 0.2),
            (17.0, 2, 0.45),
            (19.0, 2, 0.15),
            (19.9, 2, 0.015),
        ] {
            let n = 4000u32;
            let mut drawn = 0;
            let mut mean = 0.0;
            for seed in 0..u64::from(n) {
                let skill = Skill::new(strength, seed).unwrap();
                let lines = skill.lines(1);
                assert!(
                    lines == whole || lines == whole - 1,
                    "at {strength}: {lines}"
                );
                assert_eq!(skill.pick(&moves, lines), lines - 1, "at {strength}");
                drawn += usize::from(lines == whole);
                mean += lines as f64 / f64::from(n);
            }
            let observed = drawn as f64 / f64::from(n);
            assert!(
                (observed - share).abs() < 0.03,
                "at {strength}: {observed} for {share}"
            );
            assert!(
                (mean - candidates(strength)).abs() < 0.03,
                "at {strength}: {mean}"
            );
        }
    }
}
