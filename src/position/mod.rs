//! A chess position for search: `shakmaty::Chess` plus what shakmaty does not keep.
//!
//! - the 64-bit Zobrist key, updated incrementally on every move (shakmaty's own
//!   `update_zobrist_hash` gives up on castling, king moves and en passant, which would mean a
//!   from-scratch hash at many nodes);
//! - the history of keys back to the start of the game, for repetition detection: twofold
//!   inside the search tree, threefold against the moves played before the search started;
//! - the fifty-move rule and insufficient material as one draw test;
//! - a null move that passes the turn and clears en passant.
//!
//! Moves are made with copy-make on a stack of states: [`Position::push`] copies the current
//! `Chess` and plays the move on the copy, [`Position::pop`] drops it. That gives the search a
//! make/unmake interface without an undo routine to get wrong.
//!
//! Castling always uses shakmaty's Chess960 castling mode internally: it handles standard chess
//! identically and accepts Shredder-FEN, X-FEN and `KQkq` castling fields alike.

mod keys;
mod moves;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Position as _,
};

use crate::error::Error;
use keys::{full_key, key_after};
pub(crate) use moves::{
    Change, Checks, SEE_VALUE, from_to, is_legal, is_tactical, piece_changes, role_from_to, see_ge,
    tactical_moves,
};

/// One entry of the state stack: a position and what search needs to know about its past.
#[derive(Clone, Debug)]
struct State {
    chess: Chess,
    key: u64,
    /// Pieces giving check (cached: search asks several times per node).
    checkers: Bitboard,
    /// Plies since the last null move; repetitions cannot reach across a null move.
    since_null: u32,
}

/// A game position with its history. See the module documentation.
#[derive(Clone, Debug)]
pub struct Position {
    states: Vec<State>,
}

impl Default for Position {
    fn default() -> Self {
        Self::startpos()
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::from_chess(Chess::default())
    }

    /// Parses a FEN (castling in `KQkq`, Shredder-FEN or X-FEN form).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidFen`] when the text is not a FEN or describes an impossible position.
    pub fn from_fen(fen: &str) -> Result<Position, Error> {
        let parsed: Fen = fen
            .trim()
            .parse()
            .map_err(|e| Error::InvalidFen(format!("'{}': {e}", fen.trim())))?;
        // Castling rights without a matching rook and an impossible en passant square are
        // dropped, as GUIs and EPD files often carry them, and checks that no legal game can
        // reach (composed problems, perft suites) are accepted; anything else is an error.
        let chess: Chess = parsed
            .into_position(CastlingMode::Chess960)
            .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
            .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .map_err(|e| Error::InvalidFen(format!("'{}': {e}", fen.trim())))?;
        Ok(Position::from_chess(chess))
    }

    /// A position with no history before it.
    pub fn from_chess(chess: Chess) -> Position {
        let key = full_key(&chess);
        Position {
            states: vec![State {
                checkers: chess.checkers(),
                chess,
                key,
                since_null: 0,
            }],
        }
    }

    fn state(&self) -> &State {
        self.states.last().expect("the state stack is never empty")
    }

    /// The current position.
    pub fn chess(&self) -> &Chess {
        &self.state().chess
    }

    /// The Zobrist key of the current position (shakmaty's `Zobrist64`, pseudo-legal en passant).
    pub fn key(&self) -> u64 {
        self.state().key
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.chess().turn()
    }

    /// True when the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.state().checkers.any()
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        self.chess().legal_moves()
    }

    /// Tests a move that did not come from [`Position::legal_moves`] (table moves, killers).
    pub fn is_legal(&self, m: Move) -> bool {
        self.chess().is_legal(m)
    }

    /// Number of positions on the stack (game history plus search path).
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Never true: there is always a current position.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Reserves room for `additional` more pushes, so the search never reallocates.
    pub fn reserve(&mut self, additional: usize) {
        self.states.reserve(additional);
    }

    /// Plays a legal move. The caller guarantees legality: the move came from
    /// [`Position::legal_moves`] or passed [`Position::is_legal`].
    pub fn push(&mut self, m: Move) {
        let parent = self.state();
        debug_assert!(parent.chess.is_legal(m), "illegal move {m:?}");
        let mut chess = parent.chess.clone();
        chess.play_unchecked(m);
        let key = key_after(&parent.chess, parent.key, m, &chess);
        debug_assert_eq!(key, full_key(&chess), "incremental key after {m:?}");
        let since_null = parent.since_null + 1;
        self.states.push(State {
            checkers: chess.checkers(),
            chess,
            key,
            since_null,
        });
    }

    /// Passes the turn: the side to move changes and en passant is cleared. Returns false (and
    /// changes nothing) when that is impossible, which is when the side to move is in check.
    ///
    /// shakmaty's `swap_turn` revalidates the whole position; the cost is measured in
    /// docs/measurements.md (a small share of a null-move node, whose subtree dominates).
    pub fn push_null(&mut self) -> bool {
        let parent = self.state();
        let Ok(chess) = parent.chess.clone().swap_turn() else {
            return false;
        };
        let mut key = parent.key ^ Zobrist64::zobrist_for_white_turn().0;
        if let Some(ep) = parent.chess.pseudo_legal_ep_square() {
            key ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
        }
        debug_assert_eq!(key, full_key(&chess));
        // The side that passed was not in check, so the other side cannot be either.
        debug_assert!(!chess.is_check());
        self.states.push(State {
            checkers: Bitboard::EMPTY,
            chess,
            key,
            since_null: 0,
        });
        true
    }

    /// Takes back the last [`push`](Position::push) or [`push_null`](Position::push_null).
    pub fn pop(&mut self) {
        debug_assert!(self.states.len() > 1, "pop past the first position");
        self.states.pop();
    }

    /// Parses a UCI move (`e2e4`, `e7e8q`, castling as `e1g1` or king-takes-rook `e1h1`) and
    /// checks that it is legal here.
    ///
    /// # Errors
    ///
    /// [`Error::IllegalMove`] when the text is not a move or the move is not legal.
    pub fn parse_uci(&self, text: &str) -> Result<Move, Error> {
        let uci: UciMove = text
            .parse()
            .map_err(|_| Error::IllegalMove(format!("'{text}' is not a UCI move")))?;
        uci.to_move(self.chess())
            .map_err(|_| Error::IllegalMove(format!("'{text}' is not legal in {}", self.fen())))
    }

    /// Parses and plays a UCI move, leaving the position unchanged on error.
    ///
    /// # Errors
    ///
    /// As [`Position::parse_uci`].
    pub fn play_uci(&mut self, text: &str) -> Result<Move, Error> {
        let m = self.parse_uci(text)?;
        self.push(m);
        Ok(m)
    }

    /// True when the current position is drawn by rule, seen from a search `ply` plies below the
    /// root: a repetition of a position inside the search (twofold) or a threefold repetition
    /// counting the game history, the fifty-move rule (unless the side to move is mated), or
    /// insufficient material on both sides.
    pub fn is_draw(&self, ply: usize) -> bool {
        self.is_repetition(ply) || self.is_fifty_move_draw() || self.is_insufficient_material()
    }

    /// The repetition part of [`Position::is_draw`].
    pub fn is_repetition(&self, ply: usize) -> bool {
        let current = self.state();
        let reach = current.chess.halfmoves().min(current.since_null) as usize;
        let last = self.states.len() - 1;
        let mut earlier = 0;
        // Only positions with the same side to move can repeat: step back two plies at a time,
        // starting four plies back (two plies back the opponent has just moved away and back).
        let mut back = 4;
        while back <= reach && back <= last {
            if self.states[last - back].key == current.key {
                if back <= ply {
                    return true; // the first occurrence is inside the search tree
                }
                earlier += 1;
                if earlier == 2 {
                    return true; // threefold with the game history
                }
            }
            back += 2;
        }
        false
    }

    /// The fifty-move rule: a hundred plies without a capture or pawn move, unless mated.
    pub fn is_fifty_move_draw(&self) -> bool {
        let chess = self.chess();
        chess.halfmoves() >= 100 && !chess.is_checkmate()
    }

    /// Neither side can possibly mate.
    pub fn is_insufficient_material(&self) -> bool {
        self.chess().is_insufficient_material()
    }

    /// The FEN of the current position (X-FEN castling, legal en passant square only).
    pub fn fen(&self) -> String {
        Fen::from_position(self.chess(), EnPassantMode::Legal).to_string()
    }

    /// The move in UCI notation; castling as king-takes-rook when `chess960` is set.
    pub fn uci(m: Move, chess960: bool) -> UciMove {
        m.to_uci(if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        })
    }

    /// Number of leaf nodes `depth` plies down (perft). The root moves are made with
    /// [`Position::push`]; the subtrees are counted by `shakmaty::perft`, which counts the
    /// last ply in bulk from the legal move list.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1; // the position itself, as `go perft 0` and every perft table count it
        }
        self.perft_divide(depth).iter().map(|(_, n)| n).sum()
    }

    /// Perft split by root move, as `go perft` prints it.
    pub fn perft_divide(&self, depth: u32) -> Vec<(Move, u64)> {
        if depth == 0 {
            return Vec::new();
        }
        let mut pos = self.clone();
        pos.legal_moves()
            .into_iter()
            .map(|m| {
                pos.push(m);
                let n = shakmaty::perft(pos.chess(), depth - 1);
                pos.pop();
                (m, n)
            })
            .collect()
    }

    /// The position with colours swapped and the board mirrored (a1 <-> a8): the same
    /// position for the other side. Evaluation symmetry tests use it.
    pub fn mirrored(&self) -> Position {
        let setup = self.chess().to_setup(EnPassantMode::Legal).into_mirrored();
        // `from_fen` accepts positions with an impossible check (as Stockfish does), so their
        // mirrors are accepted the same way (the fuzz target `position` found the panic this
        // `expect` had without it).
        let chess: Chess = setup
            .position(CastlingMode::Chess960)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .expect("the mirror of an accepted position is accepted");
        Position::from_chess(chess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks every line `depth` plies deep and checks the incremental key against a
    /// from-scratch hash at every node, and that pop restores the parent.
    fn walk(pos: &mut Position, depth: u32) -> u64 {
        assert_eq!(pos.key(), full_key(pos.chess()), "{}", pos.fen());
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        for m in pos.legal_moves() {
            let before = pos.key();
            pos.push(m);
            n += walk(pos, depth - 1);
            pos.pop();
            assert_eq!(pos.key(), before);
        }
        if !pos.in_check() && pos.push_null() {
            assert_eq!(
                pos.key(),
                full_key(pos.chess()),
                "null move in {}",
                pos.fen()
            );
            pos.pop();
        }
        n
    }

    /// `perft(0)` is 1 (the position itself), as `go perft 0` prints; and a position accepted
    /// with an impossible check mirrors without a panic (the fuzz target `position` found it).
    #[test]
    fn perft_zero_and_mirror_of_an_impossible_check() {
        assert_eq!(Position::startpos().perft(0), 1);
        let odd = Position::from_fen("7k/8/8/1K5r/qr6/8/8/8 w - - 0 1").unwrap();
        assert_eq!(odd.mirrored().mirrored().fen(), odd.fen());
        assert_eq!(odd.mirrored().perft(1), odd.perft(1));
    }

    #[test]
    fn incremental_keys_match_full_hash() {
        // Castling both ways, en passant, promotions with capture, Chess960 castling.
        let cases = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                3,
                97862,
            ),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                3,
                9467,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                3,
                12189,
            ),
        ];
        for (fen, depth, nodes) in cases {
            let mut pos = Position::from_fen(fen).unwrap();
            assert_eq!(walk(&mut pos, depth), nodes, "{fen}");
        }
    }

    #[test]
    fn null_move_flips_turn_clears_en_passant_and_refuses_in_check() {
        let mut pos =
            Position::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
                .unwrap();
        assert!(pos.chess().pseudo_legal_ep_square().is_some());
        assert!(pos.push_null());
        assert_eq!(pos.turn(), Color::White);
        assert_eq!(pos.chess().maybe_ep_square(), None);
        assert_eq!(pos.key(), full_key(pos.chess()));
        pos.pop();
        assert_eq!(pos.turn(), Color::Black);

        let mut check = Position::from_fen("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1").unwrap();
        assert!(!check.push_null());
        assert_eq!(check.len(), 1);
    }

    #[test]
    fn repetition_twofold_in_tree_threefold_in_history() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut pos = Position::startpos();
        for m in shuffle {
            pos.play_uci(m).unwrap();
        }
        // The start position has now occurred twice, both times before the root (ply 0).
        assert!(
            !pos.is_repetition(0),
            "twofold in the game history is not a draw"
        );
        // Seen from inside a search that started at the first occurrence, it is.
        assert!(pos.is_repetition(4));
        for m in shuffle {
            pos.play_uci(m).unwrap();
        }
        assert!(pos.is_repetition(0), "threefold with the game history");
        // A pawn move resets the fifty-move counter, after which nothing earlier can repeat.
        pos.play_uci("e2e4").unwrap();
        assert!(!pos.is_repetition(9));
    }

    #[test]
    fn repetition_does_not_reach_across_a_null_move() {
        let mut pos = Position::startpos();
        for m in ["g1f3", "g8f6", "f3g1"] {
            pos.play_uci(m).unwrap();
        }
        assert!(pos.push_null());
        pos.play_uci("g1f3").unwrap();
        pos.play_uci("f6g8").unwrap();
        assert!(!pos.is_repetition(6));
    }

    #[test]
    fn fifty_moves_and_material_draws() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/3R4/4K3 w - - 100 80").unwrap();
        assert!(pos.is_draw(0));
        let mated = Position::from_fen("4R1k1/5ppp/8/8/8/8/8/6K1 b - - 100 80").unwrap();
        assert!(!mated.is_fifty_move_draw(), "mate takes precedence");
        for (fen, drawn) in [
            ("4k3/8/8/8/8/8/8/3NK3 w - - 0 1", true),
            ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", true),
            ("4k3/8/8/8/8/8/8/2BBK3 w - - 0 1", false),
            ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false),
        ] {
            assert_eq!(Position::from_fen(fen).unwrap().is_draw(0), drawn, "{fen}");
        }
    }

    #[test]
    fn uci_moves_in_both_castling_forms() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        for text in ["e1g1", "e1h1"] {
            let pos = Position::from_fen(fen).unwrap();
            let m = pos.parse_uci(text).unwrap();
            assert!(m.is_castle());
            assert_eq!(Position::uci(m, false).to_string(), "e1g1");
            assert_eq!(Position::uci(m, true).to_string(), "e1h1");
        }
        let pos = Position::from_fen(fen).unwrap();
        for bad in ["e1e3", "zz", "e2e4", "", "a1a9", "e1g1q"] {
            assert!(
                matches!(pos.parse_uci(bad), Err(Error::IllegalMove(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn bad_fens_are_errors() {
        for bad in [
            "",
            "not a fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2k w - - 0 1",
            "4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        ] {
            assert!(Position::from_fen(bad).is_err(), "{bad}");
        }
    }
}
