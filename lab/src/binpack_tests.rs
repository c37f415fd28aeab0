//! Binpack: games → bytes → entries give back the same positions, moves, scores and results;
//! damaged and truncated files are refused, never a panic.

use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::*;
use lazuli::Rng;

/// A game of random legal moves from `fen`, with scores that drift as a search's do, and a
/// result; it ends at `plies` plies or when the game is over.
fn random_game(fen: &str, seed: u64, plies: usize) -> Game {
    let mut rng = Rng::new(seed);
    let mut chess: Chess = Fen::from_ascii(fen.as_bytes())
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut out = Vec::new();
    let mut score: i32 = 20;
    for _ in 0..plies {
        let legal = chess.legal_moves();
        if legal.is_empty() {
            break;
        }
        // Captures and promotions first, half the time, so that games have plenty of them.
        let tactical: Vec<&Move> = legal
            .iter()
            .filter(|m| m.is_capture() || m.is_promotion() || m.is_castle())
            .collect();
        let played = if !tactical.is_empty() && rng.below(2) == 0 {
            *tactical[rng.below(tactical.len())]
        } else {
            legal[rng.below(legal.len())]
        };
        score = -(score + rng.below(41) as i32 - 20);
        let kept = if rng.below(50) == 0 {
            30_000 - rng.below(100) as i32 // now and then a mate score
        } else {
            score
        };
        out.push(Ply {
            chess: chess.clone(),
            played,
            score: kept as i16,
        });
        chess.play_unchecked(played);
    }
    Game {
        plies: out,
        wdl: rng.below(3) as u8,
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// Promotions and both castlings at hand, an en passant capture possible.
const SHARP: &str = "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 30";

fn games(seed: u64) -> Vec<Game> {
    (0..6)
        .map(|g| {
            let fen = if g % 2 == 0 { START } else { SHARP };
            random_game(fen, seed * 31 + g, 60 + 20 * g as usize)
        })
        .collect()
}

fn fen_of(chess: &Chess) -> String {
    Fen::from_position(chess, EnPassantMode::Legal).to_string()
}

#[test]
fn games_round_trip_through_the_bytes() {
    for seed in 0..8 {
        let games = games(seed);
        let bytes = encode(&games).unwrap();
        let entries = decode(&bytes).unwrap();
        let mut at = 0;
        for game in &games {
            for ply in &game.plies {
                let e = &entries[at];
                assert_eq!(
                    fen_of(&e.chess),
                    fen_of(&ply.chess),
                    "seed {seed}, entry {at}"
                );
                assert_eq!(e.played, ply.played);
                assert_eq!(e.score, ply.score);
                assert_eq!(e.ply, ply_number(&ply.chess));
                let white = i8::try_from(game.wdl).unwrap() - 1;
                let stm = if ply.chess.turn() == Color::White {
                    white
                } else {
                    -white
                };
                assert_eq!(e.result, stm);
                at += 1;
            }
        }
        assert_eq!(at, entries.len());
        assert_eq!(count(&bytes).unwrap(), entries.len());
    }
}

/// Along unbroken games with a search's small score changes the format costs a few bytes a
/// position (random moves and mate scores make these games dearer than datagen's).
#[test]
fn unbroken_games_cost_a_few_bytes_a_position() {
    let games: Vec<Game> = (0..20).map(|g| random_game(START, 1000 + g, 150)).collect();
    let positions: usize = games.iter().map(|g| g.plies.len()).sum();
    let bytes = encode(&games).unwrap();
    let per_position = bytes.len() as f64 / positions as f64;
    assert!(per_position < 5.0, "{per_position:.2} bytes a position");
}

/// The trainer's view: in check, captures, promotions and mate scores dropped, the rest
/// packed with White's score and result.
#[test]
fn training_skips_what_the_net_does_not_learn_from() {
    let games = games(3);
    let entries = decode(&encode(&games).unwrap()).unwrap();
    let mut kept = 0;
    for e in &entries {
        let record = training(e, 10_000);
        let skip = e.chess.is_check()
            || e.played.is_capture()
            || e.played.is_promotion()
            || i32::from(e.score).abs() >= 10_000;
        assert_eq!(record.is_none(), skip);
        if let Some(r) = record {
            kept += 1;
            let d = format::decode(&r).unwrap();
            let white = if e.chess.turn() == Color::White {
                e.score
            } else {
                -e.score
            };
            assert_eq!(d.score, white);
            assert_eq!(d.stm, e.chess.turn());
        }
    }
    assert!(
        kept > 0 && kept < entries.len(),
        "{kept} of {}",
        entries.len()
    );
}

/// The EPD export gives back the trainer's positions, in order, with their scores and
/// numbered ids.
#[test]
fn training_epd_gives_back_the_trainers_positions() {
    let games = games(4);
    let bytes = encode(&games).unwrap();
    let dir = std::env::temp_dir().join(format!("lazuli-epd-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("g.binpack");
    fs::write(&path, &bytes).unwrap();
    let lines = read_training_epd(&path, 10_000).unwrap();
    let kept: Vec<Entry> = decode(&bytes)
        .unwrap()
        .into_iter()
        .filter(|e| learns_from(e, 10_000))
        .collect();
    assert!(!kept.is_empty());
    assert_eq!(lines.len(), kept.len());
    for (n, (line, e)) in lines.iter().zip(&kept).enumerate() {
        let (position, ops) = line.split_once(" ce ").unwrap();
        let back: Chess = Fen::from_ascii(format!("{position} 0 1").as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(
            Epd::from_position(&back, EnPassantMode::Legal),
            Epd::from_position(&e.chess, EnPassantMode::Legal)
        );
        assert_eq!(ops, format!("{}; id \"g.binpack:{n}\";", e.score));
    }
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(read_training_epd(&path, 10_000).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn truncated_files_are_refused() {
    let bytes = encode(&games(5)).unwrap();
    for cut in [1, 4, 7, 9, 40, bytes.len() / 2, bytes.len() - 1] {
        let e = decode(&bytes[..cut]).unwrap_err();
        assert!(e.contains("truncated") || e.contains("block"), "{cut}: {e}");
    }
    let mut tail = bytes.clone();
    tail.extend_from_slice(b"BIN");
    assert!(decode(&tail).unwrap_err().contains("truncated"));
    assert!(decode(b"PNIB\0\0\0\0").unwrap_err().contains("magic"));
    assert!(decode(&[]).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any damage to a file's bytes gives an error or checked entries (legal positions and
    /// moves), never a panic.
    #[test]
    fn damaged_files_never_panic(
        seed in 0u64..4,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = encode(&games(seed)).unwrap();
        for (at, mask) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
        }
        if let Ok(entries) = decode(&bytes) {
            for e in &entries {
                prop_assert!(e.chess.legal_moves().contains(&e.played));
            }
        }
        let len = cut.index(bytes.len());
        let _ = decode(&bytes[..len]);
    }
}

/// A block of garbage behind a valid header: an empty board is refused by the check of the
/// position, and the bytes that make `sfbinpack` panic by the parse's `catch_unwind`.
#[test]
fn garbage_blocks_are_refused() {
    let block = |fill: u8| {
        let mut bytes = b"BINP".to_vec();
        bytes.extend_from_slice(&40u32.to_le_bytes());
        bytes.extend(std::iter::repeat_n(fill, 40));
        decode(&bytes).unwrap_err()
    };
    assert!(block(0x00).contains("missing king"), "{}", block(0x00));
    for fill in [0xFF, 0x55, 0xAA] {
        assert!(
            block(fill).contains("the parser gave up"),
            "{}",
            block(fill)
        );
    }
}
