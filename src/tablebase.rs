//! Syzygy endgame tablebases, probed with `shakmaty-syzygy` (a pure-Rust prober without
//! `unsafe` in the path lazuli uses: tables are read with positional reads, not memory maps).
//!
//! Two uses, as Stockfish makes them (`src/syzygy/tbprobe.cpp`):
//! - At the root ([`Tablebases::rank_root`]): every root move is ranked by the DTZ of the
//!   position after it (by WDL alone when a DTZ table is missing), the 50-move counter
//!   included; the search then considers only the best-ranked moves, so it keeps the tablebase
//!   result and, since a win's rank falls as the counter grows, makes progress.
//! - In the search ([`Tablebases::probe_wdl`]): after a capture or a pawn move, with few enough
//!   pieces, the WDL value ends the node.
//!
//! # Concurrency contract
//!
//! A [`Tablebases`] is loaded once (by the engine facade, from the `SyzygyPath` option) and
//! then only read, by every search thread at once: `shakmaty_syzygy::Tablebase` opens each
//! table lazily behind a `OnceCell` and reads it with positional reads, so probes need no lock
//! of lazuli's. Each engine owns its own tables (behind an `Arc`): two engines in one process
//! may use different folders (Stockfish's tables are a process-wide global).

use std::path::Path;

use shakmaty::{Chess, Move, Position as _};
use shakmaty_syzygy::{Dtz, MaybeRounded, Tablebase, Wdl};

use crate::error::Error;
use crate::position::Position;
use crate::score::Score;

/// The separator of several folders in `SyzygyPath`, as Stockfish has it.
#[cfg(windows)]
pub const PATH_SEPARATOR: char = ';';
/// The separator of several folders in `SyzygyPath`, as Stockfish has it.
#[cfg(not(windows))]
pub const PATH_SEPARATOR: char = ':';

/// Stockfish's `MAX_DTZ`: the rank of a win the 50-move rule cannot spoil.
const MAX_DTZ: i32 = 1 << 18;

/// The tables of one engine. See the module documentation.
pub(crate) struct Tablebases {
    tables: Tablebase<Chess>,
    files: usize,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("files", &self.files)
            .field("max_pieces", &self.max_pieces())
            .finish()
    }
}

/// How the search uses the tables, from the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TbConfig {
    /// Probe in the search only with at most this many pieces (0: never).
    pub cardinality: usize,
    /// ... and, at exactly `cardinality` pieces, only this many plies from the horizon or more.
    pub probe_depth: i32,
    /// Cursed wins and blessed losses are draws (the 50-move rule counts).
    pub rule50: bool,
}

impl TbConfig {
    /// No probes.
    pub(crate) const OFF: TbConfig = TbConfig {
        cardinality: 0,
        probe_depth: 1,
        rule50: true,
    };
}

/// One root move as the tables see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RankedMove {
    pub mv: Move,
    /// Higher is better; equal ranks are equally good (every win the 50-move rule cannot
    /// spoil ranks the same).
    pub rank: i32,
    /// The score to report for it.
    pub score: Score,
}

/// The root moves ranked by the tables, and what the probe used.
#[derive(Clone, Debug)]
pub(crate) struct RootRanking {
    pub moves: Vec<RankedMove>,
    /// The ranks come from DTZ tables (else from WDL alone).
    pub dtz: bool,
    /// Table probes made.
    pub probes: u64,
}

impl RootRanking {
    /// The score to report for root move `mv`, if it was ranked.
    pub(crate) fn score(&self, mv: Move) -> Option<Score> {
        self.moves.iter().find(|r| r.mv == mv).map(|r| r.score)
    }

    /// Keeps the moves of `root_moves` of the best rank, in their order (Stockfish searches
    /// only the moves of the first rank).
    pub(crate) fn keep_best(&self, root_moves: &mut Vec<Move>) {
        let rank = |m: &Move| self.moves.iter().find(|r| r.mv == *m).map(|r| r.rank);
        let best = root_moves.iter().filter_map(rank).max();
        root_moves.retain(|m| rank(m) == best);
    }
}

impl Tablebases {
    /// The tables in the folders of `paths` (separated by [`PATH_SEPARATOR`]); `None` for an
    /// empty value or `<empty>`, as Stockfish reads it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOption`] naming a folder that does not exist or cannot be read, or a
    /// table file that cannot be used.
    pub(crate) fn load(paths: &str) -> Result<Option<Tablebases>, Error> {
        let paths = paths.trim();
        if paths.is_empty() || paths == "<empty>" {
            return Ok(None);
        }
        let mut tables = Tablebase::new();
        let mut files = 0;
        for folder in paths.split(PATH_SEPARATOR).filter(|p| !p.is_empty()) {
            if !Path::new(folder).is_dir() {
                return Err(Error::InvalidOption(format!(
                    "SyzygyPath: '{folder}' is not a folder"
                )));
            }
            files += tables.add_directory(folder).map_err(|e| {
                Error::InvalidOption(format!("SyzygyPath: cannot read '{folder}': {e}"))
            })?;
        }
        Ok(Some(Tablebases { tables, files }))
    }

    /// Table files found.
    pub(crate) fn files(&self) -> usize {
        self.files
    }

    /// The most pieces of any table found.
    pub(crate) fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// True when `chess` may be probed: few enough pieces for the tables and `limit`, and no
    /// castling rights (the tables have none).
    fn fits(&self, chess: &Chess, limit: usize) -> bool {
        let pieces = chess.board().occupied().count();
        pieces <= self.max_pieces().min(limit) && chess.castles().is_empty()
    }

    /// The WDL value of `chess`, reached by a capture or pawn move, from the side to move:
    /// `None` when a table is missing or the position does not fit.
    pub(crate) fn probe_wdl(&self, chess: &Chess) -> Option<Wdl> {
        if !chess.castles().is_empty() {
            return None;
        }
        self.tables.probe_wdl_after_zeroing(chess).ok()
    }

    /// Ranks the root moves `moves` of `pos` (Stockfish's `root_probe`, then `root_probe_wdl`
    /// when a DTZ table is missing). `None` when the root does not fit `limit` or the tables,
    /// or a table is missing.
    pub(crate) fn rank_root(
        &self,
        pos: &Position,
        moves: &[Move],
        limit: usize,
        rule50: bool,
    ) -> Option<RootRanking> {
        let chess = pos.chess();
        if moves.is_empty() || !self.fits(chess, limit) {
            return None;
        }
        self.rank_by_dtz(chess, moves, rule50)
            .or_else(|| self.rank_by_wdl(chess, moves, rule50))
    }

    fn rank_by_dtz(&self, chess: &Chess, moves: &[Move], rule50: bool) -> Option<RootRanking> {
        let halfmoves = chess.halfmoves() as i32;
        let bound = if rule50 { MAX_DTZ - 100 } else { 1 };
        Self::rank_each(chess, moves, true, |after| {
            // The distance to a zeroing move, counted from the root, from the root's side.
            let dtz = if after.is_checkmate() {
                1
            } else if after.is_stalemate() {
                0
            } else if after.halfmoves() == 0 {
                let wdl = -self.tables.probe_wdl_after_zeroing(after).ok()?;
                Dtz::before_zeroing(wdl).0
            } else {
                let dtz = -self
                    .tables
                    .probe_dtz(after)
                    .ok()
                    .map(MaybeRounded::ignore_rounding)?
                    .0;
                dtz + dtz.signum()
            };
            // Wins rank by their distance, the shortest first (Stockfish's `rankDTZ`, which
            // it uses only to extend the PV; Ethereal plays the DTZ-best move outright). With
            // all the certain wins ranked equally, as Stockfish's play does, the search chose
            // among them by the net's scores and made progress only when the 50-move counter
            // forced it: at 4,000 nodes a move 1 of 30 random KQvKR starts (2 with the 64-wide
            // net) was not mated in 150 plies, and the rest took 92 plies on average against
            // 22 now (docs/tablebases.md). The price: the shortest mate is not always
            // among the moves searched (a capture that zeroes the counter outranks a mate in 2).
            let rank = if dtz > 0 {
                if dtz + halfmoves <= 99 {
                    MAX_DTZ - dtz
                } else {
                    MAX_DTZ - (dtz + halfmoves)
                }
            } else if dtz < 0 {
                if -dtz * 2 + halfmoves < 100 {
                    -MAX_DTZ
                } else {
                    -MAX_DTZ + (-dtz + halfmoves)
                }
            } else {
                0
            };
            Some((rank, rank_score(rank, bound)))
        })
    }

    fn rank_by_wdl(&self, chess: &Chess, moves: &[Move], rule50: bool) -> Option<RootRanking> {
        Self::rank_each(chess, moves, false, |after| {
            let wdl = if after.is_checkmate() {
                Wdl::Win
            } else {
                -self.tables.probe_wdl_after_zeroing(after).ok()?
            };
            let wdl = if rule50 { wdl } else { ignoring_rule50(wdl) };
            Some((i32::from(wdl), wdl_score(wdl, 0)))
        })
    }

    /// Ranks each of `moves` by `rank` of the position after it (its rank and score); `None`
    /// when any probe fails.
    fn rank_each(
        chess: &Chess,
        moves: &[Move],
        dtz: bool,
        rank: impl Fn(&Chess) -> Option<(i32, Score)>,
    ) -> Option<RootRanking> {
        let mut ranked = Vec::with_capacity(moves.len());
        for &mv in moves {
            let mut after = chess.clone();
            after.play_unchecked(mv);
            let (rank, score) = rank(&after)?;
            ranked.push(RankedMove { mv, rank, score });
        }
        Some(RootRanking {
            moves: ranked,
            dtz,
            probes: moves.len() as u64,
        })
    }
}

/// The root score of a DTZ rank (Stockfish's `tbScore`): a win or loss the 50-move rule cannot
/// spoil is a tablebase result; a cursed win or blessed loss a small edge (growing to half a
/// pawn as a real win comes near); else a draw.
fn rank_score(rank: i32, bound: i32) -> Score {
    const PAWN: i32 = 100;
    if rank >= bound {
        Score::tb_win_in(0)
    } else if rank > 0 {
        Score((rank - (MAX_DTZ - 200)).max(3) * PAWN / 200)
    } else if rank == 0 {
        Score::DRAW
    } else if rank > -bound {
        Score((rank + (MAX_DTZ - 200)).min(-3) * PAWN / 200)
    } else {
        Score::tb_loss_in(0)
    }
}

/// The score of a WDL value `ply` plies from the root, the 50-move rule counting (a cursed win
/// scores just above a draw, a blessed loss just below).
pub(crate) fn wdl_score(wdl: Wdl, ply: usize) -> Score {
    match wdl {
        Wdl::Win => Score::tb_win_in(ply),
        Wdl::Loss => Score::tb_loss_in(ply),
        Wdl::CursedWin => Score(2),
        Wdl::BlessedLoss => Score(-2),
        Wdl::Draw => Score::DRAW,
    }
}

/// The WDL of a probe with the 50-move rule off: cursed wins are wins, blessed losses losses.
pub(crate) fn ignoring_rule50(wdl: Wdl) -> Wdl {
    match wdl {
        Wdl::CursedWin => Wdl::Win,
        Wdl::BlessedLoss => Wdl::Loss,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn tables() -> Tablebases {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
        Tablebases::load(dir).unwrap().expect("tables")
    }

    fn chess(fen: &str) -> Chess {
        let fen: Fen = fen.parse().unwrap();
        fen.into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn loading_names_the_bad_folder_and_accepts_empty() {
        assert!(Tablebases::load("").unwrap().is_none());
        assert!(Tablebases::load("<empty>").unwrap().is_none());
        let err = Tablebases::load("/no/such/folder").unwrap_err().to_string();
        assert!(err.contains("/no/such/folder"), "{err}");
        let tb = tables();
        assert_eq!(tb.max_pieces(), 4);
        assert!(tb.files() >= 70, "{}", tb.files());
    }

    #[test]
    fn wdl_probes_from_the_side_to_move() {
        let tb = tables();
        for (fen, wdl) in [
            // Values checked with python-chess (`chess.syzygy.probe_wdl`).
            ("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", Wdl::Win),
            ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", Wdl::Loss),
            ("8/8/8/4k3/8/8/8/KN6 w - - 0 1", Wdl::Draw),
            ("8/8/8/8/8/4k3/4P3/4K3 w - - 0 1", Wdl::Draw),
            ("8/8/8/8/8/4k3/4P3/4K3 b - - 0 1", Wdl::Draw),
            ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", Wdl::Win),
            ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", Wdl::Loss),
        ] {
            assert_eq!(tb.probe_wdl(&chess(fen)), Some(wdl), "{fen}");
        }
        // Five pieces: more than the tables hold, so never probed.
        assert!(!tb.fits(&chess("8/8/8/4k3/8/8/1p6/KQR5 w - - 0 1"), 7));
        assert!(tb.fits(&chess("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"), 7));
        assert!(!tb.fits(&chess("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"), 2));
    }

    /// Every row of the python-chess oracle (`lab/tools/syzygy_oracle.py`: four random positions of
    /// every 3- and 4-piece table): the WDL and DTZ of the position, and exactly the root
    /// moves of the best rank kept.
    #[test]
    fn root_ranking_agrees_with_python_chess_on_every_table() {
        let tb = tables();
        let csv = include_str!("../tests/data/syzygy-oracle.csv");
        let mut materials = std::collections::BTreeSet::new();
        for row in csv.lines().skip(1) {
            let fields: Vec<&str> = row.split(',').collect();
            let [fen, wdl, dtz, kept] = fields[..] else {
                panic!("bad oracle row {row}");
            };
            let pos = Position::from_fen(fen).unwrap();
            let chess = pos.chess();
            // The material, as the sorted piece letters of the FEN ("BBKk" for KBBvK).
            let mut letters: Vec<char> = fen.split(' ').next().unwrap().chars().collect();
            letters.retain(char::is_ascii_alphabetic);
            letters.sort_unstable();
            materials.insert(letters);
            let expected_wdl: i32 = wdl.parse().unwrap();
            assert_eq!(
                tb.probe_wdl(chess).map(i32::from),
                Some(expected_wdl),
                "{fen}"
            );
            let probed = tb.tables.probe_dtz(chess).unwrap().ignore_rounding().0;
            assert_eq!(probed, dtz.parse::<i32>().unwrap(), "{fen}");

            let moves: Vec<Move> = chess.legal_moves().into_iter().collect();
            let ranking = tb.rank_root(&pos, &moves, 7, true).expect("in the tables");
            assert!(ranking.dtz, "{fen}");
            let mut kept_moves = moves.clone();
            ranking.keep_best(&mut kept_moves);
            let mut got: Vec<String> = kept_moves
                .iter()
                .map(|&m| Position::uci(m, false).to_string())
                .collect();
            got.sort();
            let expected: Vec<&str> = kept.split(' ').collect();
            assert_eq!(got, expected, "{fen}");
            // The reported score says what the tables say.
            let best = ranking.moves.iter().map(|r| r.score).max().unwrap();
            match expected_wdl {
                2 => assert!(best.is_decisive() && best > Score::DRAW, "{fen}"),
                -2 => assert!(best.is_decisive() && best < Score::DRAW, "{fen}"),
                _ => assert_eq!(best, Score::DRAW, "{fen}"),
            }
        }
        // Every table at least once (35 files of each kind in tests/data/syzygy).
        assert_eq!(materials.len(), 35);
    }

    /// The 50-move rule: a win that needs more than the moves left before the rule is a
    /// draw-like edge with `Syzygy50MoveRule` (scored as Stockfish does, below half a pawn),
    /// and a tablebase win without it.
    #[test]
    fn the_fifty_move_rule_turns_a_slow_win_into_an_edge() {
        let tb = tables();
        // KBNvK, white mates in about 30 moves: the zeroing move is too far at 60 half-moves.
        for (halfmoves, rule50, decisive) in [(0, true, true), (60, true, false), (60, false, true)]
        {
            let fen = format!("6K1/8/1k6/8/1B6/8/N7/8 w - - {halfmoves} 1");
            let pos = Position::from_fen(&fen).unwrap();
            let moves: Vec<Move> = pos.chess().legal_moves().into_iter().collect();
            let ranking = tb.rank_root(&pos, &moves, 7, rule50).unwrap();
            let best = ranking.moves.iter().map(|r| r.score).max().unwrap();
            assert_eq!(
                best.is_decisive(),
                decisive,
                "{fen} rule50 {rule50}: {best:?}"
            );
            assert!(best > Score::DRAW, "{fen}: {best:?}");
        }
    }

    #[test]
    fn rank_scores_order_results() {
        let bound = MAX_DTZ - 100;
        let scores: Vec<Score> = [MAX_DTZ, MAX_DTZ - 150, 0, -MAX_DTZ + 150, -MAX_DTZ]
            .iter()
            .map(|&r| rank_score(r, bound))
            .collect();
        assert!(scores.windows(2).all(|w| w[0] > w[1]), "{scores:?}");
        assert!(scores[0].is_decisive() && scores[4].is_decisive());
        assert!(!scores[1].is_decisive() && scores[1] > Score::DRAW);
    }
}
