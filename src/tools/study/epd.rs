//! EPD suites: records with `bm`, `am`, `dm` and `id` operations, moves in SAN.

use lazuli::{Error, Position, ScoreKind};
use shakmaty::{Chess, Move, Position as _};

/// One EPD record: a position and what it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdRecord {
    /// 1-based line number in the suite.
    pub line: usize,
    /// The `id` operation, or `line N`.
    pub id: String,
    /// The position (four FEN fields, counters added).
    pub fen: String,
    /// `bm`: the best moves (any of them solves).
    pub bm: Vec<Move>,
    /// `am`: moves to avoid.
    pub am: Vec<Move>,
    /// `dm`: mate in this many moves.
    pub dm: Option<u32>,
}

impl EpdRecord {
    /// True when either side has nothing but king and pawns (the paper left these out).
    pub fn is_king_and_pawns(&self) -> bool {
        let pos = Position::from_fen(&self.fen).expect("parsed before");
        let board = pos.chess().board();
        let pieces = board.occupied() & !board.pawns() & !board.kings();
        shakmaty::Color::ALL
            .into_iter()
            .any(|c| (pieces & board.by_color(c)).is_empty())
    }

    /// Whether `best` (with the final score) solves the record: for `dm N` a mate in at most
    /// N found; otherwise one of the `bm` moves and none of the `am` moves. `None` when the
    /// record asks nothing.
    pub fn solved(&self, best: Option<Move>, score: ScoreKind) -> Option<bool> {
        if let Some(n) = self.dm {
            return Some(matches!(score, ScoreKind::Mate(m) if m > 0 && m as u32 <= n));
        }
        if self.bm.is_empty() && self.am.is_empty() {
            return None;
        }
        let best = best?;
        Some((self.bm.is_empty() || self.bm.contains(&best)) && !self.am.contains(&best))
    }
}

/// Parses an EPD suite (`<4 FEN fields> op args; op args; ...`), with `bm`/`am` in SAN.
///
/// # Errors
///
/// [`Error::InvalidFen`] or [`Error::IllegalMove`] naming the line.
pub fn parse_suite(text: &str) -> Result<Vec<EpdRecord>, Error> {
    let mut records = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.splitn(5, ' ').collect();
        if fields.len() < 4 {
            return Err(Error::InvalidFen(format!(
                "line {}: not an EPD record",
                i + 1
            )));
        }
        let fen = format!("{} 0 1", fields[..4].join(" "));
        let pos = Position::from_fen(&fen)
            .map_err(|e| Error::InvalidFen(format!("line {}: {e}", i + 1)))?;
        let chess: Chess = pos.chess().clone();
        let mut record = EpdRecord {
            line: i + 1,
            id: format!("line {}", i + 1),
            fen,
            bm: Vec::new(),
            am: Vec::new(),
            dm: None,
        };
        for op in epd_operations(fields.get(4).unwrap_or(&"")) {
            let op = op.trim();
            let (name, args) = op.split_once(' ').unwrap_or((op, ""));
            let sans = |args: &str| -> Result<Vec<Move>, Error> {
                args.split_whitespace()
                    .map(|san| {
                        san.parse::<shakmaty::san::San>()
                            .ok()
                            .and_then(|s| s.to_move(&chess).ok())
                            .ok_or_else(|| Error::IllegalMove(format!("line {}: '{san}'", i + 1)))
                    })
                    .collect()
            };
            match name {
                "bm" => record.bm = sans(args)?,
                "am" => record.am = sans(args)?,
                "dm" => record.dm = args.trim().parse().ok(),
                "id" => record.id = args.trim().trim_matches('"').to_owned(),
                _ => {}
            }
        }
        records.push(record);
    }
    Ok(records)
}

/// The operations of an EPD record: split at `;` outside double-quoted strings (a comment such
/// as `c1 "did not confirm; bm from the PV"` is one operation).
fn epd_operations(text: &str) -> Vec<&str> {
    let mut ops = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                ops.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    ops.push(&text[start..]);
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epd_records_and_solving() {
        let suite = "r1b1k2r/pp3ppp/2n1pn2/q7/1bPP4/2N2N2/P2BQPPP/R3KB1R b KQkq - bm Bxc3 Qa3; am O-O; id \"t.1\";\n\
                     8/8/8/4k3/8/8/4P3/4K3 w - - bm Kd2; id \"kp\";\n\
                     2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - bm Qa5; dm 2; id \"m2\";\n";
        let records = parse_suite(suite).unwrap();
        assert_eq!(records.len(), 3);
        let r = &records[0];
        assert_eq!((r.id.as_str(), r.bm.len(), r.am.len()), ("t.1", 2, 1));
        assert_eq!(r.solved(Some(r.bm[1]), ScoreKind::Cp(0)), Some(true));
        assert_eq!(r.solved(Some(r.am[0]), ScoreKind::Cp(0)), Some(false));
        assert!(!r.is_king_and_pawns());
        assert!(records[1].is_king_and_pawns());
        let m2 = &records[2];
        assert_eq!(m2.dm, Some(2));
        assert_eq!(m2.solved(None, ScoreKind::Mate(2)), Some(true));
        assert_eq!(m2.solved(None, ScoreKind::Mate(3)), Some(false));
        assert_eq!(m2.solved(None, ScoreKind::Cp(900)), Some(false));
        // A `;` inside a quoted comment does not start an operation.
        let commented = parse_suite(
            "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - bm Qa5; dm 2; c1 \"unconfirmed; bm from the PV\"; id \"c\";",
        )
        .unwrap();
        assert_eq!((commented[0].id.as_str(), commented[0].bm.len()), ("c", 1));
        assert!(parse_suite("8/8/8 w - - bm Kd2;").is_err());
        assert!(parse_suite("4k3/8/8/8/8/8/4P3/4K3 w - - bm Ke8;").is_err());
    }

    /// Records of the real suites with characters replaced, inserted or deleted, and
    /// arbitrary text: the parser never panics, and every record it accepts has a FEN that
    /// parses and `bm`/`am` moves legal in it (the fuzz target `epd` runs the same property
    /// coverage-guided).
    mod properties {
        use super::*;
        use proptest::prelude::*;

        const RECORDS: &[&str] = &[
            "r1b1k2r/pp3ppp/2n1pn2/q7/1bPP4/2N2N2/P2BQPPP/R3KB1R b KQkq - bm Bxc3 Qa3; am O-O; id \"t.1\";",
            "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - bm Qa5; dm 2; c1 \"a; b\"; id \"m2\";",
            "8/8/8/4k3/8/8/4P3/4K3 w - - bm Kd2; id \"kp\";",
        ];

        fn check(text: &str) -> Result<(), TestCaseError> {
            if let Ok(records) = parse_suite(text) {
                for r in records {
                    let pos = Position::from_fen(&r.fen);
                    prop_assert!(pos.is_ok(), "{:?}", r.fen);
                    let pos = pos.unwrap();
                    for m in r.bm.iter().chain(&r.am) {
                        prop_assert!(pos.chess().is_legal(*m), "{:?} in {}", m, r.fen);
                    }
                    r.is_king_and_pawns();
                }
            }
            Ok(())
        }

        proptest! {
            #[test]
            fn mutated_records(
                base in prop::sample::select(RECORDS.to_vec()),
                edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[ -~]"), 1..5),
            ) {
                let mut text: Vec<char> = base.chars().collect();
                for (at, kind, with) in edits {
                    let c = with.chars().next().unwrap_or('x');
                    let i = at.index(text.len() + 1);
                    match kind {
                        0 if i < text.len() => text[i] = c,
                        1 => text.insert(i, c),
                        _ if i < text.len() => {
                            text.remove(i);
                        }
                        _ => {}
                    }
                }
                check(&text.into_iter().collect::<String>())?;
            }

            #[test]
            fn arbitrary_text(text in "\\PC{0,120}") {
                check(&text)?;
            }
        }
    }
}
