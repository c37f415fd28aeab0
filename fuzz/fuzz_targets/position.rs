//! Fuzzes position setup: the input's first line is a FEN, the words of the rest are UCI
//! moves to play from it.
//!
//! Properties:
//! - `Position::from_fen` never panics; a position it accepts has a FEN that parses back to
//!   the same FEN, every legal move survives the UCI round trip (Chess960 notation, and
//!   standard notation where it is not ambiguous) and `push`/`pop`, perft(1) is the number of legal moves and perft(2) the sum of
//!   the legal replies, the evaluation and its trace do not panic, and the mirrored position
//!   evaluates the same for its side to move;
//! - `Engine::set_position` agrees with playing the moves by hand: on success the engine's
//!   position is that one, on error the engine keeps its previous position.

#![no_main]

use std::sync::Mutex;

use lazuli::{Engine, Position, evaluate};
use libfuzzer_sys::fuzz_target;

static ENGINE: Mutex<Option<Engine>> = Mutex::new(None);

const MAX_MOVES: usize = 256;

/// A castling move that standard chess also has: the king on the e file, the rook in a corner.
fn is_standard_castle(m: shakmaty::Move) -> bool {
    match m {
        shakmaty::Move::Castle { king, rook } => {
            king.file() == shakmaty::File::E
                && matches!(rook.file(), shakmaty::File::A | shakmaty::File::H)
        }
        _ => false,
    }
}

/// The checks on a position that was accepted.
fn check(pos: &Position) {
    let fen = pos.fen();
    let again = Position::from_fen(&fen)
        .unwrap_or_else(|e| panic!("the FEN {fen:?} of an accepted position does not parse: {e}"));
    assert_eq!(again.fen(), fen, "the FEN does not round-trip");

    let moves = pos.legal_moves();
    let mut copy = pos.clone();
    let mut replies = 0u64;
    for &m in &moves {
        assert!(pos.is_legal(m), "{m:?} is generated but not legal in {fen}");
        for chess960 in [false, true] {
            if !chess960 && m.is_castle() && !is_standard_castle(m) {
                // Standard notation (king to the c or g file) is ambiguous in Chess960.
                continue;
            }
            let text = Position::uci(m, chess960).to_string();
            let parsed = pos
                .parse_uci(&text)
                .unwrap_or_else(|e| panic!("{text} (from {m:?}) does not parse in {fen}: {e}"));
            assert_eq!(parsed, m, "{text} parses to another move in {fen}");
        }
        let key = copy.key();
        copy.push(m);
        assert_eq!(copy.len(), pos.len() + 1);
        replies += copy.legal_moves().len() as u64;
        copy.pop();
        assert_eq!(copy.key(), key, "pop does not restore the key in {fen}");
    }
    assert_eq!(pos.perft(1), moves.len() as u64, "perft(1) in {fen}");
    assert_eq!(pos.perft(2), replies, "perft(2) in {fen}");

    let score = evaluate(pos.chess());
    let mirrored = pos.mirrored();
    assert_eq!(
        evaluate(mirrored.chess()),
        score,
        "the mirror of {fen} ({}) evaluates differently",
        mirrored.fen()
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (fen, rest) = text.split_once('\n').unwrap_or((text, ""));
    let moves: Vec<&str> = rest.split_whitespace().take(MAX_MOVES).collect();

    // What the engine should end up with, worked out by hand.
    let expected = Position::from_fen(fen).ok().and_then(|mut pos| {
        check(&pos);
        for m in &moves {
            pos.play_uci(m).ok()?;
            check(&pos);
        }
        Some(pos)
    });

    let mut guard = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    let engine = guard.get_or_insert_with(|| {
        let mut engine = Engine::new().expect("an engine");
        engine.set_hash_mb(1).expect("a 1 MB table");
        engine
    });
    // Start from a known position that differs from most inputs.
    engine
        .set_position(None, &["e2e4"])
        .expect("1. e4 is legal");
    let before = engine.position().fen();
    match (engine.set_position(Some(fen), &moves), expected) {
        (Ok(()), Some(pos)) => {
            assert_eq!(engine.position().fen(), pos.fen());
            assert_eq!(engine.position().key(), pos.key());
            assert_eq!(engine.perft(1), pos.legal_moves().len() as u64);
            let _ = engine.evaluate();
            let _ = engine.eval_trace().to_string();
        }
        (Err(_), None) => assert_eq!(
            engine.position().fen(),
            before,
            "a refused position changed the engine's"
        ),
        (got, expected) => panic!(
            "set_position gave {got:?}, playing by hand {:?}",
            expected.map(|p| p.fen())
        ),
    }
});
