//! Property tests (proptest): random and mutated input never panics, and input that is refused
//! changes nothing.
//!
//! - UCI lines, in process through [`Uci::command`]: random sequences drawn from the
//!   protocol's words with random and broken arguments, and arbitrary text. After every line
//!   answered with an `info string error`, the position is what it was before.
//! - FEN strings, valid ones mutated character by character and arbitrary text: a FEN that is
//!   accepted gives a position whose FEN is read back the same and whose legal moves are its
//!   perft(1); `position ... moves` lists with random, illegal and garbled moves: refused
//!   lists keep the old position, accepted ones equal the moves played one by one.
//! - Option values: random names (real, near-miss, arbitrary) and values (in range, out of
//!   range, malformed): a refused value leaves every option as it was.
//!
//! The C API's random call sequences from several host threads: `tests/c_properties.rs`.
//! Each test runs a fixed number of cases from proptest's deterministic default seed per
//! source file (`PROPTEST_CASES=100000 cargo test --release --test properties` for a long
//! run).

use std::io::Write;
use std::sync::{Arc, Mutex};

use lazuli::{Engine, Output, Position, Uci};
use proptest::prelude::*;

/// UCI output captured in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn take(&self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut *self.0.lock().unwrap())).into_owned()
    }
}

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkb1r/pp1p1ppp/5n2/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 4",
    "4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
];

const MOVES: &[&str] = &[
    "e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "e1g1", "e1h1", "a7a8q", "b7b8n", "g2g1r", "e5d6",
    "0000", "e2e5", "zz", "e2", "e2e4e6", "a1a1", "h7h8k", "",
];

/// A word of the protocol, an argument, or noise.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "uci",
            "isready",
            "ucinewgame",
            "position",
            "startpos",
            "fen",
            "moves",
            "go",
            "stop",
            "ponderhit",
            "setoption",
            "name",
            "value",
            "debug",
            "on",
            "off",
            "d",
            "eval",
            "register",
            "depth",
            "nodes",
            "movetime",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "mate",
            "searchmoves",
            "ponder",
            "infinite",
            "perft",
            "Hash",
            "Threads",
            "MultiPV",
            "Clear",
            "UCI_Chess960",
            "NullMove",
            "Skill",
            "Level",
            "true",
            "false",
            "verified",
            "<empty>",
        ])
        .prop_map(str::to_owned),
        prop::sample::select(FENS.to_vec()).prop_map(str::to_owned),
        prop::sample::select(MOVES.to_vec()).prop_map(str::to_owned),
        (-3i64..40).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[a-h1-8qrbnkpPK/ -]{0,12}",
        "\\PC{0,8}",
    ]
}

/// A line that keeps every search short: searches beyond a few plies or nodes, `bench`,
/// `quit` and heavy options are bounded here, since the engine is driven for thousands of
/// lines (the limits themselves have their own tests in `tests/extreme.rs`).
fn bounded(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.first() {
        Some(&"go") if words.get(1) == Some(&"perft") => "go perft 2".to_owned(),
        Some(&"go") => format!("{line} depth 2 nodes 2000"),
        Some(&"bench") | Some(&"quit") => String::new(),
        Some(&"setoption") if line.contains("Hash") || line.contains("Threads") => {
            // At most 8 MB and 2 threads: keep the value only when small.
            let small = words
                .last()
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| (1..=8).contains(&v));
            if small {
                line.to_owned()
            } else {
                line.replace("Hash", "Hash value 2")
                    .replace("Threads", "Threads value 1")
            }
        }
        _ => line.to_owned(),
    }
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(token(), 0..8).prop_map(|t| t.join(" ")),
        1 => "\\PC{0,40}",
    ]
}

fn new_uci() -> (Uci, Captured) {
    let captured = Captured::default();
    let uci = Uci::new(Output::new(Box::new(captured.clone()))).expect("an engine starts");
    (uci, captured)
}

proptest! {
    #![proptest_config(config())]

    /// Any sequence of lines: no panic; a line answered with an error leaves the position.
    #[test]
    fn uci_lines_never_panic_and_errors_change_nothing(lines in prop::collection::vec(line(), 1..12)) {
        let (mut uci, out) = new_uci();
        for line in &lines {
            let line = bounded(line);
            let before = uci.engine().position().fen();
            out.take();
            uci.command(&line);
            // Let a search end before the next line (its bound is small), so that the
            // position cannot be read while `go` still owns it.
            uci.engine().wait();
            let replies = out.take();
            if replies.lines().any(|l| l.starts_with("info string error")) {
                prop_assert_eq!(
                    uci.engine().position().fen(),
                    before,
                    "line {:?} was refused but changed the position: {}",
                    line,
                    replies
                );
            }
        }
        // Still answering.
        uci.command("isready");
        prop_assert!(out.take().contains("readyok"));
    }

    /// Arbitrary text as a FEN: refused or a consistent position.
    #[test]
    fn arbitrary_fen_is_refused_or_consistent(text in "\\PC{0,90}") {
        check_fen(&text)?;
    }

    /// Valid FENs with characters replaced, inserted or deleted.
    #[test]
    fn mutated_fen_is_refused_or_consistent(
        base in prop::sample::select(FENS.to_vec()),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[ -~]"), 1..4),
    ) {
        let mut text: Vec<char> = base.chars().collect();
        for (at, kind, with) in edits {
            let c = with.chars().next().unwrap_or('x');
            let i = at.index(text.len() + 1);
            match kind {
                0 if i < text.len() => text[i] = c,
                1 => text.insert(i, c),
                _ if i < text.len() => { text.remove(i); }
                _ => {}
            }
        }
        check_fen(&text.into_iter().collect::<String>())?;
    }

    /// `position fen ... moves ...` with random moves: a refused list keeps the old position;
    /// an accepted one is the moves played one by one. The same list through
    /// [`Engine::play_move`], a move at a time, gives the same position (its key, history and
    /// draw by repetition included) up to the first refused move, which changes nothing.
    #[test]
    fn move_lists_are_all_or_nothing(
        fen in prop::sample::select(FENS.to_vec()),
        picks in prop::collection::vec((any::<prop::sample::Index>(), 0u8..6), 0..24),
    ) {
        let mut engine = Engine::new().expect("an engine");
        engine.set_position(None, &["e2e4"]).unwrap();
        let before = engine.position().fen();
        // Mostly legal moves of the position reached so far, sometimes junk.
        let mut pos = Position::from_fen(fen).unwrap();
        let mut moves: Vec<String> = Vec::new();
        let mut all_legal = true;
        for (pick, kind) in picks {
            let legal = pos.legal_moves();
            let text = if kind == 0 || legal.is_empty() {
                MOVES[pick.index(MOVES.len())].to_owned()
            } else {
                Position::uci(legal[pick.index(legal.len())], false).to_string()
            };
            match pos.play_uci(&text) {
                Ok(_) => {}
                Err(_) => all_legal = false,
            }
            moves.push(text);
            if !all_legal {
                break;
            }
        }
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        let result = engine.set_position(Some(fen), &refs);
        if all_legal {
            prop_assert!(result.is_ok(), "{:?} refused: {:?}", moves, result);
            prop_assert_eq!(engine.position().fen(), pos.fen());
        } else {
            prop_assert!(result.is_err(), "{:?} accepted", moves);
            prop_assert_eq!(engine.position().fen(), before);
        }
        let mut stepwise = Engine::new().expect("an engine");
        stepwise.set_position(Some(fen), &[]).unwrap();
        for (i, text) in refs.iter().enumerate() {
            let at = stepwise.position().clone();
            if stepwise.play_move(text).is_err() {
                prop_assert!(!all_legal && i + 1 == refs.len(), "{} refused at {}", text, i);
                prop_assert_eq!(stepwise.position().key(), at.key());
                prop_assert_eq!(stepwise.position().len(), at.len());
            }
        }
        if all_legal {
            let (a, b) = (engine.position(), stepwise.position());
            prop_assert_eq!((a.fen(), a.key(), a.len()), (b.fen(), b.key(), b.len()));
            prop_assert_eq!(a.is_draw(0), b.is_draw(0));
        }
    }

    /// Random option names and values: a refused value changes no option.
    #[test]
    fn refused_options_change_nothing(
        name in prop_oneof![
            prop::sample::select(lazuli::option_specs().iter().map(|s| s.name).collect::<Vec<_>>())
                .prop_map(str::to_owned),
            prop::sample::select(lazuli::option_specs().iter().map(|s| s.name).collect::<Vec<_>>())
                .prop_map(|n| n.to_uppercase()),
            "[A-Za-z_ ]{0,12}",
        ],
        value in prop_oneof![
            (-5i64..300).prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            prop::sample::select(vec!["true", "false", "verified", "standard", "off", "<empty>", "", " ", "1e3", "0x10", "nan"])
                .prop_map(str::to_owned),
            "\\PC{0,10}",
        ],
    ) {
        // Values that would allocate or start much are kept small; their own tests cover more.
        let heavy = ["hash", "threads", "evalfile", "syzygypath"];
        let lower = name.trim().to_lowercase();
        if heavy.contains(&lower.as_str()) && value.parse::<i64>().map_or(true, |v| v > 8) {
            return Ok(());
        }
        let mut engine = Engine::new().expect("an engine");
        let before = engine.options().clone();
        if engine.set_option(&name, &value).is_err() {
            prop_assert_eq!(engine.options(), &before, "{} = {:?}", name, value);
        }
        engine.set_position(None, &[]).unwrap();
    }
}

/// 64 cases per property, or `PROPTEST_CASES`.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig::with_cases(cases)
}

fn check_fen(text: &str) -> Result<(), TestCaseError> {
    let Ok(pos) = Position::from_fen(text) else {
        return Ok(());
    };
    let fen = pos.fen();
    let again = Position::from_fen(&fen);
    prop_assert!(again.is_ok(), "{text:?} read as {fen:?}, which is refused");
    prop_assert_eq!(again.unwrap().fen(), fen.clone());
    prop_assert_eq!(pos.perft(1), pos.legal_moves().len() as u64, "{}", fen);
    prop_assert_eq!(pos.mirrored().mirrored().fen(), fen);
    Ok(())
}

/// [`Engine::play_move`] keeps the game's history: the start position reached a third time by
/// moves played one at a time is a draw by repetition, as with the whole list at once.
#[test]
fn moves_played_one_at_a_time_keep_the_history() {
    let dance = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let (mut whole, mut stepwise) = (Engine::new().unwrap(), Engine::new().unwrap());
    whole.set_position(None, &[dance, dance].concat()).unwrap();
    for m in [dance, dance].concat() {
        assert!(!stepwise.position().is_draw(0), "before {m}");
        stepwise.play_move(m).unwrap();
    }
    assert!(whole.position().is_draw(0) && stepwise.position().is_draw(0));
    assert_eq!(whole.position().key(), stepwise.position().key());
}
