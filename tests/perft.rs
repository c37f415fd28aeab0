//! Perft: move generation and move making checked against published node counts.
//!
//! Data-driven from `tests/data/*.epd` (`<FEN> ;D1 n ;D2 n ...`, see `tests/data/SOURCES.md`).
//! The default run takes every count up to `QUICK_LIMIT` nodes; the `#[ignore]`d tests take
//! every count: `cargo test --release --test perft -- --ignored`.

use lazuli::Position;

const QUICK_LIMIT: u64 = 3_000_000;

struct Case {
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn load(file: &str) -> Vec<Case> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_owned();
            let counts = parts
                .map(|p| {
                    let (d, n) = p.trim().split_once(' ').unwrap();
                    (
                        d.trim_start_matches('D').parse().unwrap(),
                        n.trim().parse().unwrap(),
                    )
                })
                .collect();
            Case { fen, counts }
        })
        .collect()
}

/// Checks every case of `file` whose count is at most `limit`; returns how many were checked.
fn check(file: &str, limit: u64, every: usize) -> usize {
    let mut checked = 0;
    for case in load(file).iter().step_by(every) {
        let pos = Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        for &(depth, expected) in &case.counts {
            if expected > limit {
                continue;
            }
            assert_eq!(
                pos.perft(depth),
                expected,
                "{file}: {} depth {depth}",
                case.fen
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn perft_suite_quick() {
    assert!(check("perftsuite.epd", QUICK_LIMIT, 1) > 400);
}

#[test]
fn perft_cpw_quick() {
    assert!(check("perft_cpw.epd", QUICK_LIMIT, 1) > 25);
}

#[test]
fn perft_chess960_quick() {
    // Every 8th of the 960 start setups (played a few moves, Shredder-FEN castling).
    assert!(check("fischer960.epd", QUICK_LIMIT, 8) > 400);
}

#[test]
#[ignore = "deep: minutes in release mode"]
fn perft_suite_full() {
    check("perftsuite.epd", u64::MAX, 1);
}

#[test]
#[ignore = "deep: minutes in release mode"]
fn perft_cpw_full() {
    check("perft_cpw.epd", u64::MAX, 1);
}

#[test]
#[ignore = "deep: tens of minutes in release mode"]
fn perft_chess960_full() {
    check("fischer960.epd", u64::MAX, 1);
}
