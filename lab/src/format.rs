//! Marlinformat: the 32-byte packed training position read by `lazuli-lab train`.
//!
//! Every record is exactly [`RECORD_BYTES`] = 32 bytes, all integers little-endian:
//!
//! | offset | type     | meaning                                                                |
//! |-------:|----------|------------------------------------------------------------------------|
//! | 0      | `u64`    | occupancy: bit `i` set when square `i` is occupied (a1 = 0, b1 = 1, .., h8 = 63) |
//! | 8      | `[u8;16]`| one 4-bit nibble per occupied square, by increasing square index; nibble `k` is `(pieces[k / 2] >> (4 * (k % 2))) & 0xF` |
//! | 24     | `u8`     | bit 7: black to move; bits 0..=6: en passant square, 64 = none         |
//! | 25     | `u8`     | halfmove clock                                                         |
//! | 26     | `u16`    | fullmove number                                                        |
//! | 28     | `i16`    | score in centipawns from **White's** point of view                    |
//! | 30     | `u8`     | game result: 0 = Black won, 1 = draw, 2 = White won                    |
//! | 31     | `u8`     | unused                                                                 |
//!
//! A piece nibble holds the role in its low three bits (0 pawn, 1 knight, 2 bishop, 3 rook,
//! 4 queen, 5 king, 6 a rook that still carries a castling right) and the colour in bit 3 (set
//! for Black). Role 6 is read back as a plain rook: the network does not see castling rights.
//! Role 7 is invalid, as is more than 32 occupied squares or a result above 2.
//!
//! A data set is a file of concatenated records, or a directory whose `*.bin` files (and
//! `*.binpack` files, [`crate::binpack`]) are read in name order ([`read_dir`]).

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Color, EnPassantMode, Position};

use crate::binpack;
use crate::train::MAX_ABS_SCORE;

/// Size of one packed position in bytes.
pub const RECORD_BYTES: usize = 32;
/// Most pieces a record can describe (the nibble array has 32 slots).
pub const MAX_PIECES: usize = 32;
/// The en passant field's value for "no en passant square".
pub const NO_EP: u8 = 64;
/// Nibble role code of a rook that keeps its castling right.
pub const CASTLING_ROOK: u8 = 6;
/// Nibble bit marking a black piece.
pub const BLACK_BIT: u8 = 8;
/// Extension of data files in a data directory.
pub const DATA_EXTENSION: &str = "bin";

/// One packed position, exactly as stored on disk.
pub type PackedBoard = [u8; RECORD_BYTES];

/// One piece of a decoded position. `role` is 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen,
/// 5 king; `square` is 0 (a1) ..= 63 (h8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub color: Color,
    pub role: u8,
    pub square: u8,
}

/// A record unpacked: pieces by increasing square, plus the game-state fields.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// Side to move.
    pub stm: Color,
    pieces: [Piece; MAX_PIECES],
    len: usize,
    /// En passant square, if any.
    pub ep_square: Option<u8>,
    pub halfmove: u8,
    pub fullmove: u16,
    /// Score in centipawns from White's point of view.
    pub score: i16,
    /// 0 = Black won, 1 = draw, 2 = White won.
    pub wdl: u8,
}

impl Decoded {
    /// The pieces, by increasing square.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces[..self.len]
    }
}

/// Unpacks a record, rejecting impossible contents (too many pieces, role 7, bad result or
/// en passant field).
pub fn decode(record: &PackedBoard) -> Result<Decoded, String> {
    let mut occupancy = u64::from_le_bytes(record[0..8].try_into().expect("8 bytes"));
    let count = occupancy.count_ones() as usize;
    if count > MAX_PIECES {
        return Err(format!("{count} occupied squares"));
    }
    let empty = Piece {
        color: Color::White,
        role: 0,
        square: 0,
    };
    let mut pieces = [empty; MAX_PIECES];
    for (k, slot) in pieces.iter_mut().enumerate().take(count) {
        let nibble = (record[8 + k / 2] >> (4 * (k % 2))) & 0xF;
        let code = nibble & 7;
        if code > CASTLING_ROOK {
            return Err(format!("piece code {nibble}"));
        }
        *slot = Piece {
            color: if nibble & BLACK_BIT != 0 {
                Color::Black
            } else {
                Color::White
            },
            role: if code == CASTLING_ROOK { 3 } else { code },
            square: occupancy.trailing_zeros() as u8,
        };
        occupancy &= occupancy - 1;
    }
    let stm_ep = record[24];
    let ep = stm_ep & 0x7F;
    if ep > NO_EP {
        return Err(format!("en passant field {ep}"));
    }
    let wdl = record[30];
    if wdl > 2 {
        return Err(format!("result {wdl}"));
    }
    Ok(Decoded {
        stm: if stm_ep & 0x80 != 0 {
            Color::Black
        } else {
            Color::White
        },
        pieces,
        len: count,
        ep_square: (ep != NO_EP).then_some(ep),
        halfmove: record[25],
        fullmove: u16::from_le_bytes([record[26], record[27]]),
        score: i16::from_le_bytes([record[28], record[29]]),
        wdl,
    })
}

/// Packs a position with its White-relative score and result (0 Black won, 1 draw, 2 White
/// won). Rooks standing on a square of `chess.castles().castling_rights()` get code 6. The
/// halfmove clock saturates at 255 and the fullmove number at 65535.
pub fn encode(chess: &Chess, score_white_cp: i16, wdl: u8) -> PackedBoard {
    let mut out = [0u8; RECORD_BYTES];
    let board = chess.board();
    let occupied = board.occupied();
    out[0..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
    let castling = chess.castles().castling_rights();
    for (k, square) in occupied.into_iter().enumerate() {
        let piece = board.piece_at(square).expect("occupied square");
        let mut code = piece.role as u8 - 1;
        if code == 3 && castling.contains(square) {
            code = CASTLING_ROOK;
        }
        if piece.color == Color::Black {
            code |= BLACK_BIT;
        }
        out[8 + k / 2] |= code << (4 * (k % 2));
    }
    let ep = chess
        .ep_square(EnPassantMode::Legal)
        .map_or(NO_EP, |sq| sq as u8);
    let black = if chess.turn() == Color::Black {
        0x80
    } else {
        0
    };
    out[24] = black | ep;
    out[25] = chess.halfmoves().min(255) as u8;
    out[26..28].copy_from_slice(&(chess.fullmoves().get().min(65535) as u16).to_le_bytes());
    out[28..30].copy_from_slice(&score_white_cp.to_le_bytes());
    out[30] = wdl;
    out
}

/// Reads one data file: a whole number of records.
pub fn read_file(path: &Path) -> io::Result<Vec<PackedBoard>> {
    let mut file = fs::File::open(path)?;
    let len = file.metadata()?.len() as usize;
    if !len.is_multiple_of(RECORD_BYTES) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: size {len} is not a multiple of {RECORD_BYTES}",
                path.display()
            ),
        ));
    }
    let mut records = Vec::with_capacity(len / RECORD_BYTES);
    read_records(&mut file, &mut records)?;
    Ok(records)
}

/// Reads every data file of a directory (`*.bin`, `*.binpack`), in file-name order, into one
/// list.
pub fn read_dir(dir: &Path) -> io::Result<Vec<PackedBoard>> {
    let mut records = Vec::new();
    for path in data_files(dir)? {
        records.append(&mut read_any(&path)?);
    }
    Ok(records)
}

/// The data files of a directory (`*.bin`, `*.binpack`), sorted by name.
pub fn data_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let data = |e: &std::ffi::OsStr| e == DATA_EXTENSION || e == binpack::EXTENSION;
        if path.is_file() && path.extension().is_some_and(data) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads a file or, for a directory, every data file in it.
pub fn read_path(path: &Path) -> io::Result<Vec<PackedBoard>> {
    if path.is_dir() {
        read_dir(path)
    } else {
        read_any(path)
    }
}

/// One data file: a binpack's positions the trainer learns from, or marlinformat records.
fn read_any(path: &Path) -> io::Result<Vec<PackedBoard>> {
    if path.extension().is_some_and(|e| e == binpack::EXTENSION) {
        binpack::read_training(path, MAX_ABS_SCORE)
    } else {
        read_file(path)
    }
}

/// Writes records to a file (used by tests and tools that make data sets).
pub fn write_file(path: &Path, records: &[PackedBoard]) -> io::Result<()> {
    fs::write(path, records.as_flattened())
}

/// The flags of `lazuli-lab unpack`.
#[derive(clap::Parser, Debug)]
pub struct UnpackArgs {
    /// A data file or directory, as `train --data` reads it.
    #[arg(long, value_name = "PATH")]
    pub data: PathBuf,
    /// The file to write: marlinformat records, or EPD with `--epd`.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Write EPD lines (`<position> ce <score>; id "<file>:<n>";`, the side to move's score)
    /// instead of marlinformat records; binpack data only.
    #[arg(long)]
    pub epd: bool,
}

/// `lazuli-lab unpack`: the positions the trainer learns from, as marlinformat records for
/// tools that read that format (lab/tools/fit_wdl.py), or as EPD (lab/tools/phase_suite.py).
///
/// # Errors
///
/// Unreadable or damaged data, marlinformat data with `--epd`, an unwritable output file.
pub fn unpack_cli(args: &UnpackArgs) -> Result<(), String> {
    if args.epd {
        return unpack_epd(&args.data, &args.out);
    }
    let records =
        read_path(&args.data).map_err(|e| format!("reading {}: {e}", args.data.display()))?;
    write_file(&args.out, &records).map_err(|e| format!("{}: {e}", args.out.display()))?;
    println!("{} positions to {}", records.len(), args.out.display());
    Ok(())
}

/// `unpack --epd`: every binpack file of `data` (a file or a directory, in name order) as EPD.
fn unpack_epd(data: &Path, out: &Path) -> Result<(), String> {
    let files = if data.is_dir() {
        data_files(data).map_err(|e| format!("{}: {e}", data.display()))?
    } else {
        vec![data.to_path_buf()]
    };
    let mut lines = Vec::new();
    for file in &files {
        if file.extension().is_none_or(|e| e != binpack::EXTENSION) {
            return Err(format!(
                "{}: --epd reads binpack files only (*.{})",
                file.display(),
                binpack::EXTENSION
            ));
        }
        lines.append(
            &mut binpack::read_training_epd(file, MAX_ABS_SCORE)
                .map_err(|e| format!("reading {}: {e}", file.display()))?,
        );
    }
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("{} positions to {}", lines.len(), out.display());
    Ok(())
}

/// Appends every record of `reader` to `records`, in 1 MiB reads.
fn read_records(reader: &mut impl Read, records: &mut Vec<PackedBoard>) -> io::Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    let mut filled = 0;
    loop {
        let n = reader.read(&mut buf[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
        let whole = filled / RECORD_BYTES * RECORD_BYTES;
        for chunk in buf[..whole].chunks_exact(RECORD_BYTES) {
            records.push(chunk.try_into().expect("32 bytes"));
        }
        buf.copy_within(whole..filled, 0);
        filled -= whole;
    }
    if filled != 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "truncated record",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Square};

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// Encodes, decodes and compares against the shakmaty position field by field.
    fn round_trip(pos: &Chess, score: i16, wdl: u8) {
        let record = encode(pos, score, wdl);
        let d = decode(&record).unwrap();
        assert_eq!(d.stm, pos.turn());
        assert_eq!(d.score, score);
        assert_eq!(d.wdl, wdl);
        assert_eq!(d.halfmove as u32, pos.halfmoves());
        assert_eq!(d.fullmove as u32, pos.fullmoves().get());
        assert_eq!(
            d.ep_square,
            pos.ep_square(EnPassantMode::Legal).map(|s| s as u8)
        );
        let expected: Vec<Piece> = pos
            .board()
            .clone()
            .into_iter()
            .map(|(sq, p)| Piece {
                color: p.color,
                role: p.role as u8 - 1,
                square: sq as u8,
            })
            .collect();
        assert_eq!(d.pieces(), &expected[..]);
    }

    #[test]
    fn round_trip_fixed_positions() {
        for (fen, score, wdl) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                17,
                1,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                -250,
                0,
            ),
            ("8/8/4k3/8/2K5/8/8/7R b - - 99 180", -9999, 2),
            ("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 20", i16::MIN, 1),
        ] {
            round_trip(&chess(fen), score, wdl);
        }
    }

    #[test]
    fn round_trip_random_playouts() {
        let mut rng = lazuli::Rng::new(7);
        for game in 0..40 {
            let mut pos = Chess::default();
            for ply in 0..120 {
                let score = rng.below(20001) as i16 - 10000;
                round_trip(&pos, score, ((game + ply) % 3) as u8);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[rng.below(moves.len())]);
            }
        }
    }

    #[test]
    fn castling_rooks_and_layout() {
        let record = encode(&chess("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1"), -3, 2);
        // a1 rook lost its right, h1 kept it; a8 kept it, h8 lost it.
        let occ = u64::from_le_bytes(record[0..8].try_into().unwrap());
        let want = [
            Square::A1,
            Square::E1,
            Square::H1,
            Square::A8,
            Square::E8,
            Square::H8,
        ];
        assert_eq!(occ, want.iter().fold(0, |b, &s| b | 1u64 << s as u32));
        assert_eq!(record[8], 3 | 5 << 4); // rook a1, king e1
        assert_eq!(record[9], 6 | (6 | 8) << 4); // castling rook h1, black castling rook a8
        assert_eq!(record[10], (5 | 8) | (3 | 8) << 4); // black king e8, black rook h8
        assert_eq!(record[24], NO_EP);
        assert_eq!(i16::from_le_bytes([record[28], record[29]]), -3);
        let d = decode(&record).unwrap();
        assert!(d.pieces().iter().all(|p| p.role != CASTLING_ROOK));
    }

    #[test]
    fn rejects_bad_records() {
        let good = encode(&Chess::default(), 0, 1);
        assert!(decode(&good).is_ok());
        let mut bad = good;
        bad[8] |= 7; // role 7
        assert!(decode(&bad).is_err());
        let mut bad = good;
        bad[30] = 3;
        assert!(decode(&bad).is_err());
        let mut bad = good;
        bad[24] = 65;
        assert!(decode(&bad).is_err());
        let mut bad = good;
        bad[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode(&bad).is_err());
    }

    #[test]
    fn files_and_directories() {
        let dir = std::env::temp_dir().join(format!("lazuli-format-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let a = encode(&Chess::default(), 1, 0);
        let b = encode(&Chess::default(), 2, 1);
        let c = encode(&Chess::default(), 3, 2);
        write_file(&dir.join("b.bin"), &[c]).unwrap();
        write_file(&dir.join("a.bin"), &[a, b]).unwrap();
        fs::write(dir.join("notes.txt"), b"ignored").unwrap();
        assert_eq!(read_dir(&dir).unwrap(), vec![a, b, c]);
        assert_eq!(read_path(&dir.join("a.bin")).unwrap(), vec![a, b]);
        fs::write(dir.join("c.bin"), [0u8; 33]).unwrap();
        assert!(read_dir(&dir).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
