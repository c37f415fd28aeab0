//! Win, draw and loss chances of a search score, as `UCI_ShowWDL` reports them.
//!
//! The model is Stockfish's (`uci.cpp`, `win_rate_model`): a logistic curve in the score whose
//! centre `a` and width `b` are cubic polynomials in the material on the board, so that a
//! pawn up in a rook ending means more than a pawn up with queens on. The coefficients
//! ([`WDL_AS`], [`WDL_BS`]) are fitted to lazuli's own self-play games by
//! `lab/tools/fit_wdl.py`; the data, the command and the fit are in `docs/wdl.md`.

use shakmaty::{Chess, Position as _, Role};

use crate::params::{WDL_AS, WDL_BS, WDL_MATERIAL};
use crate::score::Score;

/// Chances in permille from the side to move; the three add up to 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct WinDrawLoss {
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
}

impl WinDrawLoss {
    /// The chances of `score` with `material` on the board ([`material`]). A mate or a
    /// tablebase result is certain.
    pub fn new(score: Score, material: u32) -> WinDrawLoss {
        if score.is_decisive() {
            let won = score > Score::DRAW;
            return WinDrawLoss {
                win: if won { 1000 } else { 0 },
                draw: 0,
                loss: if won { 0 } else { 1000 },
            };
        }
        let win = win_rate(score.0, material);
        // The curve's centre is positive at every material of the fitted model, so the two
        // chances never overlap; the `min` only keeps the sum at 1000 if a fit ever did.
        let loss = win_rate(-score.0, material).min(1000 - win);
        WinDrawLoss {
            win,
            draw: 1000 - win - loss,
            loss,
        }
    }
}

/// Permille chance that the side to move wins with a score of `cp`.
fn win_rate(cp: i32, material: u32) -> u32 {
    let m = f64::from(material.clamp(WDL_MATERIAL.0, WDL_MATERIAL.1)) / 58.0;
    let poly = |c: &[f64; 4]| ((c[0] * m + c[1]) * m + c[2]) * m + c[3];
    let (a, b) = (poly(&WDL_AS), poly(&WDL_BS).max(1.0));
    let p = 1.0 / (1.0 + ((a - f64::from(cp)) / b).exp());
    (1000.0 * p).round() as u32
}

/// The material of both sides as the model counts it: pawns 1, knights and bishops 3, rooks
/// 5, queens 9.
pub(crate) fn material(chess: &Chess) -> u32 {
    let board = chess.board();
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .iter()
    .map(|&(role, value)| board.by_role(role).count() as u32 * value)
    .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_add_up_and_grow_with_the_score() {
        for material in [4, 17, 40, 78, 100] {
            let mut last = WinDrawLoss::new(Score(-3000), material);
            for cp in (-3000..=3000).step_by(25) {
                let wdl = WinDrawLoss::new(Score(cp), material);
                assert_eq!(wdl.win + wdl.draw + wdl.loss, 1000, "{cp} {material}");
                assert!(
                    wdl.win >= last.win && wdl.loss <= last.loss,
                    "{cp} {material}"
                );
                // The same score from the other side swaps win and loss.
                let other = WinDrawLoss::new(Score(-cp), material);
                assert_eq!((other.win, other.loss), (wdl.loss, wdl.win));
                last = wdl;
            }
        }
    }

    #[test]
    fn an_even_score_is_even_and_a_big_one_mostly_a_win() {
        let even = WinDrawLoss::new(Score(0), 60);
        assert!(even.draw > 0 && even.win == even.loss, "{even:?}");
        let big = WinDrawLoss::new(Score(800), 30);
        assert!(big.win > 800, "{big:?}");
    }

    #[test]
    fn proven_results_are_certain() {
        let win = WinDrawLoss {
            win: 1000,
            draw: 0,
            loss: 0,
        };
        let loss = WinDrawLoss {
            win: 0,
            draw: 0,
            loss: 1000,
        };
        for (score, expected) in [
            (Score::mate_in(3), win),
            (Score::mated_in(8), loss),
            (Score::tb_win_in(12), win),
            (Score::tb_loss_in(0), loss),
        ] {
            assert_eq!(WinDrawLoss::new(score, 40), expected, "{score:?}");
        }
    }

    #[test]
    fn material_counts_both_sides() {
        let start = Chess::default();
        assert_eq!(material(&start), 2 * (8 + 3 * 2 + 3 * 2 + 5 * 2 + 9));
    }
}
