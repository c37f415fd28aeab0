//! Fuzzes the EPD suite parser of `lazuli study nullmove` (`src/tools/study/epd.rs`, part of
//! the binary's own module tree, not of the library: the file is self-contained, so it is
//! compiled into this target as it is).
//!
//! Properties: `parse_suite` never panics; the records it returns are in line order, one per
//! line at most, each with a FEN that parses, `bm`/`am` moves legal in it, and the
//! record's methods (`is_king_and_pawns`, `solved`) do not panic.

#![no_main]

use lazuli::{Position, ScoreKind};
use libfuzzer_sys::fuzz_target;
use shakmaty::Position as _;

#[path = "../../src/tools/study/epd.rs"]
mod epd;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(records) = epd::parse_suite(text) else {
        return;
    };
    let lines = text.lines().count();
    let mut last_line = 0;
    for record in &records {
        assert!(
            record.line > last_line && record.line <= lines,
            "{record:?}"
        );
        last_line = record.line;
        let pos = Position::from_fen(&record.fen)
            .unwrap_or_else(|e| panic!("record {record:?} has a FEN that does not parse: {e}"));
        for m in record.bm.iter().chain(&record.am) {
            assert!(
                pos.chess().is_legal(*m),
                "{m:?} is not legal in {}",
                record.fen
            );
        }
        let _ = record.is_king_and_pawns();
        for score in [ScoreKind::Cp(0), ScoreKind::Mate(1), ScoreKind::Mate(-1)] {
            let _ = record.solved(None, score);
            for m in record.bm.iter().chain(&record.am) {
                let _ = record.solved(Some(*m), score);
            }
        }
    }
});
