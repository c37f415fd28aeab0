//! Training data in Stockfish's binpack format, through the `sfbinpack` crate: datagen writes
//! it and the trainer reads it.
//!
//! A binpack stores a game as chains: the first position packed in 32 bytes, then for every
//! following ply the move played (its index among the mover's pieces and that piece's
//! destinations, a few bits) and the score as a variable-length delta. Along an unbroken game
//! that is about 2 bytes a position (2.07 on lazuli's games, docs/nets.md), against 32 for
//! marlinformat ([`crate::format`]), so datagen writes **every** searched position of a game
//! with the move played, and the reader drops those the net does not learn from (in check, a
//! capture or promotion as the move, mate scores) as Stockfish's trainers do ([`training`]).
//!
//! Scores and results are from the side to move's view, as Stockfish writes them: the score
//! in centipawns (mates as lazuli's mate scores, beyond [`crate::train::MAX_ABS_SCORE`]), the
//! result 1 won, 0 drawn, -1 lost.
//!
//! `sfbinpack`'s reader has no error path for a malformed entry (it indexes and asserts), so
//! [`decode`] splits the file into its blocks itself, parses each under `catch_unwind` and then
//! checks every entry with shakmaty: the position must be legal and its move one of the legal
//! moves, and each chain must follow from the entry before. A damaged or truncated file is
//! refused with the block and entry where it went wrong; nothing panics out of it.

use std::fs;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;

use sfbinpack::chess::{
    color::Color as BpColor,
    coords::Square as BpSquare,
    r#move::{Move as BpMove, MoveType},
    piece::Piece as BpPiece,
    piecetype::PieceType,
    position::Position as BpPosition,
};
use sfbinpack::{CompressedTrainingDataEntryWriter, TrainingDataEntry};
use shakmaty::fen::{Epd, Fen};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use crate::format::{self, PackedBoard};

/// Extension of binpack files in a data directory.
pub const EXTENSION: &str = "binpack";
/// A block's header: the magic `BINP` and the block's size (u32, little-endian).
const BLOCK_MAGIC: &[u8; 4] = b"BINP";
const BLOCK_HEADER_BYTES: usize = 8;
/// `sfbinpack`'s own limit on a block's size.
const MAX_BLOCK_BYTES: usize = 100 << 20;

/// One searched position of a game: the position, the move played from it and the search's
/// score from the side to move's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    pub chess: Chess,
    pub played: Move,
    pub score: i16,
}

/// A game as datagen records it: its searched positions in order (each the position after the
/// move before) and its result from White's side, 0 Black won, 1 draw, 2 White won.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub plies: Vec<Ply>,
    pub wdl: u8,
}

/// One position read back: as [`Ply`], with its game's ply number and the result from the
/// side to move's view (1 won, 0 drawn, -1 lost).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub chess: Chess,
    pub played: Move,
    pub score: i16,
    pub ply: u16,
    pub result: i8,
}

impl Entry {
    /// The side to move's result as the trainer's White-relative 0/1/2.
    fn white_wdl(&self) -> u8 {
        let white = if self.chess.turn() == Color::White {
            self.result
        } else {
            -self.result
        };
        (white + 1) as u8
    }
}

/// Encodes games as one binpack file's bytes. A position's ply number is its fullmove number's
/// (binpack keeps the ply, not the fullmove number).
///
/// # Errors
///
/// A position `sfbinpack` cannot represent, or its writer's error.
pub fn encode(games: &[Game]) -> Result<Vec<u8>, String> {
    let mut writer =
        CompressedTrainingDataEntryWriter::new_in_memory().map_err(|e| e.to_string())?;
    for game in games {
        let white = i16::from(game.wdl) - 1;
        for ply in &game.plies {
            let fen = Fen::from_position(&ply.chess, EnPassantMode::Legal).to_string();
            let pos = BpPosition::from_fen(&fen).map_err(|e| format!("{fen}: {e:?}"))?;
            let stm_result = if ply.chess.turn() == Color::White {
                white
            } else {
                -white
            };
            let entry = TrainingDataEntry {
                pos,
                mv: to_binpack(&ply.played, ply.chess.turn()),
                score: ply.score,
                ply: ply_number(&ply.chess),
                result: stm_result,
            };
            writer.write_entry(&entry).map_err(|e| e.to_string())?;
        }
    }
    writer.into_bytes().map_err(|e| e.to_string())
}

/// The game's ply of a position, from its fullmove number and side to move.
pub fn ply_number(chess: &Chess) -> u16 {
    let moves = chess.fullmoves().get().min(u32::from(u16::MAX / 2));
    (2 * (moves - 1) + u32::from(chess.turn() == Color::Black)) as u16
}

/// A shakmaty move as binpack's: castling as the king taking its rook.
fn to_binpack(m: &Move, mover: Color) -> BpMove {
    let sq = |s: Square| BpSquare::new(u32::from(s));
    match *m {
        Move::Normal {
            from,
            to,
            promotion: Some(role),
            ..
        } => {
            let color = match mover {
                Color::White => BpColor::White,
                Color::Black => BpColor::Black,
            };
            BpMove::promotion(sq(from), sq(to), BpPiece::new(piece_type(role), color))
        }
        Move::Normal { from, to, .. } => {
            BpMove::new(sq(from), sq(to), MoveType::Normal, BpPiece::none())
        }
        Move::EnPassant { from, to } => {
            BpMove::new(sq(from), sq(to), MoveType::EnPassant, BpPiece::none())
        }
        Move::Castle { king, rook } => BpMove::castle(sq(king), sq(rook)),
        Move::Put { .. } => unreachable!("no drops in chess"),
    }
}

fn piece_type(role: Role) -> PieceType {
    match role {
        Role::Pawn => PieceType::Pawn,
        Role::Knight => PieceType::Knight,
        Role::Bishop => PieceType::Bishop,
        Role::Rook => PieceType::Rook,
        Role::Queen => PieceType::Queen,
        Role::King => PieceType::King,
    }
}

/// The legal move of `chess` that binpack's move `m` names, if any.
fn from_binpack(chess: &Chess, m: BpMove) -> Option<Move> {
    let (from, to) = (m.from().index(), m.to().index());
    let promotion = (m.mtype() == MoveType::Promotion).then(|| m.promoted_piece().piece_type());
    chess.legal_moves().into_iter().find(|legal| match *legal {
        Move::Castle { king, rook } => {
            m.mtype() == MoveType::Castle && u32::from(king) == from && u32::from(rook) == to
        }
        Move::EnPassant { from: f, to: t } => {
            m.mtype() == MoveType::EnPassant && u32::from(f) == from && u32::from(t) == to
        }
        Move::Normal {
            from: f,
            to: t,
            promotion: p,
            ..
        } => {
            u32::from(f) == from
                && u32::from(t) == to
                && match (p, promotion) {
                    (None, None) => m.mtype() == MoveType::Normal,
                    (Some(role), Some(pt)) => piece_type(role) == pt,
                    _ => false,
                }
        }
        Move::Put { .. } => false,
    })
}

/// Splits a file's bytes into its blocks' payloads.
fn blocks(bytes: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let header = bytes
            .get(at..at + BLOCK_HEADER_BYTES)
            .ok_or_else(|| format!("truncated block header at byte {at}"))?;
        if &header[..4] != BLOCK_MAGIC {
            return Err(format!("no block magic (BINP) at byte {at}"));
        }
        let size = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes")) as usize;
        if size > MAX_BLOCK_BYTES {
            return Err(format!("block at byte {at} claims {size} bytes"));
        }
        let start = at + BLOCK_HEADER_BYTES;
        let payload = bytes.get(start..start + size).ok_or_else(|| {
            format!(
                "block at byte {at} is truncated: {size} bytes claimed, {} there",
                bytes.len() - start
            )
        })?;
        out.push(payload);
        at = start + size;
    }
    Ok(out)
}

/// `sfbinpack`'s parse of one block, with a panic inside it turned into an error.
fn parse_block(block: &[u8]) -> Result<Vec<TrainingDataEntry>, String> {
    quietly(|| panic::catch_unwind(AssertUnwindSafe(|| sfbinpack::parse_chunk(block))))
        .map_err(|_| "malformed entries (the parser gave up)".to_owned())
}

thread_local! {
    /// Set while this thread parses a block: a panic there is an expected refusal.
    static PARSING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with this thread's panics kept off stderr: the first call wraps the process's
/// panic hook so that it stays silent for a thread inside `quietly`.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !PARSING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    PARSING.with(|p| p.set(true));
    let out = f();
    PARSING.with(|p| p.set(false));
    out
}

/// Decodes a binpack file's bytes into checked entries.
///
/// # Errors
///
/// A damaged or truncated file: where, and what was wrong.
pub fn decode(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (b, block) in blocks(bytes)?.into_iter().enumerate() {
        let raw = parse_block(block).map_err(|e| format!("block {b}: {e}"))?;
        for (k, e) in raw.iter().enumerate() {
            let entry = checked(e).map_err(|msg| format!("block {b}, entry {k}: {msg}"))?;
            out.push(entry);
        }
    }
    Ok(out)
}

/// An entry made a shakmaty position and move, checked: a legal position, a legal move and a
/// result in -1..=1. (Within a chain each position is the one before after its move by
/// construction: the reader replays the moves.)
fn checked(e: &TrainingDataEntry) -> Result<Entry, String> {
    let fen = quietly(|| panic::catch_unwind(AssertUnwindSafe(|| e.pos.fen())))
        .map_err(|_| "unprintable position".to_owned())?
        .map_err(|err| format!("unprintable position: {err:?}"))?;
    let chess: Chess = Fen::from_ascii(fen.as_bytes())
        .map_err(|err| format!("{fen}: {err}"))?
        .into_position(CastlingMode::Standard)
        .map_err(|err| format!("{fen}: {err}"))?;
    let played = from_binpack(&chess, e.mv)
        .ok_or_else(|| format!("{fen}: move {} is not legal", e.mv.as_uci()))?;
    if !(-1..=1).contains(&e.result) {
        return Err(format!("result {}", e.result));
    }
    Ok(Entry {
        chess,
        played,
        score: e.score,
        ply: e.ply,
        result: e.result as i8,
    })
}

/// The trainer's record of an entry, or `None` for one it does not learn from: in check, a
/// capture or a promotion as the move played, or a score beyond `max_score` (mates).
pub fn training(entry: &Entry, max_score: i32) -> Option<PackedBoard> {
    if !learns_from(entry, max_score) {
        return None;
    }
    let white_score = if entry.chess.turn() == Color::White {
        entry.score
    } else {
        -entry.score
    };
    Some(format::encode(&entry.chess, white_score, entry.white_wdl()))
}

/// Whether the trainer learns from an entry: not in check, a quiet move played, a score
/// within `max_score`.
pub fn learns_from(entry: &Entry, max_score: i32) -> bool {
    let quiet = !entry.played.is_capture() && !entry.played.is_promotion();
    quiet && !entry.chess.is_check() && i32::from(entry.score).abs() < max_score
}

/// Reads and checks every entry of a binpack file ([`decode`]); errors name the file.
fn read_entries(path: &Path) -> io::Result<Vec<Entry>> {
    let bytes = fs::read(path)?;
    decode(&bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })
}

/// The positions of a binpack file the trainer learns from (see [`training`]), as EPD lines
/// `<position> ce <score>; id "<file name>:<n>";` with the side to move's score and `n` the
/// position's index among them, for tools that read EPD (lab/tools/phase_suite.py).
///
/// # Errors
///
/// An unreadable, damaged or truncated file.
pub fn read_training_epd(path: &Path, max_score: i32) -> io::Result<Vec<String>> {
    let entries = read_entries(path)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(entries
        .iter()
        .filter(|e| learns_from(e, max_score))
        .enumerate()
        .map(|(n, e)| {
            let epd = Epd::from_position(&e.chess, EnPassantMode::Legal);
            format!("{epd} ce {}; id \"{name}:{n}\";", e.score)
        })
        .collect())
}

/// Reads a binpack file as the trainer's records (see [`training`]).
///
/// # Errors
///
/// An unreadable, damaged or truncated file.
pub fn read_training(path: &Path, max_score: i32) -> io::Result<Vec<PackedBoard>> {
    let entries = read_entries(path)?;
    Ok(entries
        .iter()
        .filter_map(|e| training(e, max_score))
        .collect())
}

/// Positions in a binpack file without checking them: for the data manifest's count.
///
/// # Errors
///
/// A file whose blocks do not parse.
pub fn count(bytes: &[u8]) -> Result<usize, String> {
    let mut n = 0;
    for (b, block) in blocks(bytes)?.into_iter().enumerate() {
        n += parse_block(block)
            .map_err(|e| format!("block {b}: {e}"))?
            .len();
    }
    Ok(n)
}

#[cfg(test)]
#[path = "binpack_tests.rs"]
mod tests;
