//! Limited strength: `Skill Level`, or `UCI_LimitStrength` with `UCI_Elo`, after Stockfish's
//! `Skill` (search.cpp, Stockfish 15.1). A weakened search plays like a weaker player: it looks
//! less far and then, among its best few lines, prefers a worse one by a random margin.
//!
//! 1. The level (0 to 19; 20 is full strength and no weakening): `Skill Level`, or with
//!    `UCI_LimitStrength` the `UCI_Elo` mapped to a fractional level by
//!    [`SKILL_ELO_ANCHORS`], which is rounded up with the probability of its fraction
//!    (Stockfish 15.1 `Search::think`, so that an Elo between two levels plays a mix of both).
//! 2. The search: at least [`SKILL_MULTIPV`] lines (only the `MultiPV` lines asked for are
//!    reported), stopped at depth `level + 1` (where Stockfish picks) and after the level's
//!    node budget, `SKILL_NODES_BASE * 2^(level / 2)`. Both only ever shorten the search that
//!    the GUI's limits allow: the clock still applies, and a node budget spent while pondering
//!    ends the main thread's search without sending the best move before `ponderhit`.
//! 3. The pick, after each completed iteration, among its lines ([`Skill::pick`], Stockfish's
//!    `Skill::pick_best`): `weakness = 120 - 2 * level`, `delta = min(top - the last line's
//!    score, a pawn)`, and each line scores `score + (weakness * (top - score) + delta *
//!    (random % weakness)) / 128`; the highest wins (the later line on a tie).
//! 4. The move played is the main thread's pick of its last completed iteration (the helpers'
//!    vote is skipped, as in Stockfish); it is always one of the legal root moves.
//!
//! Randomness: one [`Rng`] per search, seeded at `go` from `Skill Seed` and the position's key
//! (the same seed and position give the same level and pick), or from the clock when `Skill
//! Seed` is 0 (a new game every time, as Stockfish's `PRNG(now())`).

use crate::params::{
    SKILL_ELO_ANCHORS, SKILL_MAX_DELTA, SKILL_MAX_LEVEL, SKILL_MULTIPV, SKILL_NODES_BASE,
    SKILL_PUSH_DIVISOR, SKILL_WEAKNESS_BASE, SKILL_WEAKNESS_PER_LEVEL,
};
use crate::rng::Rng;

use super::root::RootMove;

/// The weakening of one search. `None` in [`SearchConfig`](super::SearchConfig) means full
/// strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Skill {
    /// The whole level, 0 to 19.
    pub level: u32,
    /// The node budget of the search, over all threads.
    pub nodes: u64,
    /// Seeds the pick's generator.
    seed: u64,
}

impl Skill {
    /// The weakening for a fractional `level` (0.0 to 20.0), `None` at full strength; `seed`
    /// fixes the rounding of the level and every pick.
    pub(crate) fn new(level: f64, seed: u64) -> Option<Skill> {
        let mut rng = Rng::new(seed);
        // 1. A fractional level is rounded up with the probability of its fraction.
        let whole = level.clamp(0.0, SKILL_MAX_LEVEL as f64).floor();
        let fraction = level - whole;
        let up = f64::from(rng.next_f32()) < fraction;
        let level = whole as u32 + u32::from(up);
        if i64::from(level) >= SKILL_MAX_LEVEL {
            return None;
        }
        Some(Skill {
            level,
            nodes: (SKILL_NODES_BASE * 2f64.powf(f64::from(level) / 2.0)) as u64,
            seed: rng.next_u64(),
        })
    }

    /// Step 2: the deepest iteration.
    pub(crate) fn depth(&self) -> u32 {
        self.level + 1
    }

    /// Step 2: the lines searched when `multipv` are asked for.
    pub(crate) fn lines(&self, multipv: usize) -> usize {
        multipv.max(SKILL_MULTIPV)
    }

    /// Step 3: the index of the chosen move among the first `lines` root moves, which a completed
    /// iteration has scored and sorted best first.
    pub(crate) fn pick(&self, root_moves: &[RootMove], lines: usize) -> usize {
        let lines = lines.clamp(1, root_moves.len());
        let mut rng = Rng::new(self.seed);
        let top = i64::from(root_moves[0].score.0);
        let delta = (top - i64::from(root_moves[lines - 1].score.0)).min(SKILL_MAX_DELTA.into());
        let weakness =
            i64::from(SKILL_WEAKNESS_BASE - SKILL_WEAKNESS_PER_LEVEL * self.level as i32);
        let mut best = (i64::MIN, 0);
        for (i, rm) in root_moves[..lines].iter().enumerate() {
            let score = i64::from(rm.score.0);
            let random = (rng.next_u64() % weakness as u64) as i64;
            let push = (weakness * (top - score) + delta * random) / i64::from(SKILL_PUSH_DIVISOR);
            if score + push >= best.0 {
                best = (score + push, i);
            }
        }
        best.1
    }
}

/// Step 1: the fractional skill level of `elo`: piecewise linear between the anchors, clamped at
/// their ends.
pub(crate) fn level_for_elo(elo: i64) -> f64 {
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
    use crate::params::{SKILL_ELO_MAX, SKILL_ELO_MIN};
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
        assert_eq!(level_for_elo(SKILL_ELO_MAX), SKILL_MAX_LEVEL as f64);
        for (elo, level) in SKILL_ELO_ANCHORS {
            assert_eq!(level_for_elo(elo), level, "anchor {elo}");
        }
        assert_eq!(level_for_elo(0), SKILL_ELO_ANCHORS[0].1);
        // Halfway between the first two anchors (whatever a calibration made them), halfway
        // between their levels, within the level of one Elo.
        let ((e0, l0), (e1, l1)) = (SKILL_ELO_ANCHORS[0], SKILL_ELO_ANCHORS[1]);
        let middle = level_for_elo((e0 + e1) / 2);
        let one_elo = (l1 - l0) / (e1 - e0) as f64;
        assert!((middle - (l0 + l1) / 2.0).abs() <= one_elo, "{middle}");
        let mut previous = (0.0, 0);
        for elo in SKILL_ELO_MIN..=SKILL_ELO_MAX {
            let level = level_for_elo(elo);
            assert!(level >= previous.0, "monotone at {elo}");
            previous.0 = level;
        }
        for level in 0..20 {
            let skill = Skill::new(f64::from(level), 9).unwrap();
            assert_eq!(skill.level, level as u32);
            assert_eq!(skill.depth(), level as u32 + 1);
            assert!(skill.nodes > previous.1, "budget grows at level {level}");
            previous.1 = skill.nodes;
        }
        // A fractional level plays both neighbours, in proportion.
        let ups = (0..1000)
            .filter(|&seed| Skill::new(7.25, seed).unwrap().level == 8)
            .count();
        assert!((150..350).contains(&ups), "{ups}");
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
}
