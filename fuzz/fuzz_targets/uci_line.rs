//! Fuzzes the UCI front end: arbitrary bytes, split into lines, fed to `Uci::command` on one
//! engine that lives across executions (a new engine per input would spend most of the time
//! starting its thread and allocating its table).
//!
//! Lines are rewritten so that every execution stays short: `go` is bounded to depth 1 (an
//! `infinite` or `ponder` search keeps running until a later `stop`/`ponderhit` line, or the
//! stop at the end of the input), `go perft` to depth 2, `Hash` and `Threads` to 2, file
//! options (`EvalFile`, `SyzygyPath`, `Hash File`: `Save Hash to File` never writes) to a path
//! that does not exist; `bench` and `quit` are dropped.
//!
//! Properties: no panic (on any thread: libFuzzer's panic hook aborts), and a line answered
//! with `info string error` changes neither the position nor the options; a position that was
//! accepted has a FEN that parses back to itself.

#![no_main]

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

use lazuli::{OptionKind, Options, Output, Position, Uci, option_specs, parse_go};
use libfuzzer_sys::fuzz_target;

/// The captured output of the front end (and of its search threads).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.lock().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Harness {
    uci: Uci,
    out: Captured,
    /// The options every input starts from (the defaults with a 1 MB table).
    baseline: Options,
}

impl Harness {
    fn new() -> Harness {
        let out = Captured::default();
        let mut uci = Uci::new(Output::new(Box::new(out.clone()))).expect("an engine");
        uci.command("setoption name Hash value 1");
        let baseline = uci.engine().options().clone();
        Harness { uci, out, baseline }
    }

    /// Back to the start position, an empty table and the baseline options.
    fn reset(&mut self) {
        let engine = self.uci.engine();
        engine.stop();
        engine.wait();
        let _ = engine.take_deferred_errors();
        if *engine.options() != self.baseline {
            // Each option back to its default (the table only if its size changed: a new table
            // is the slow part).
            for spec in option_specs() {
                let value = match spec.kind {
                    _ if spec.name == "Hash" => {
                        if engine.options().hash_mb == self.baseline.hash_mb {
                            continue;
                        }
                        self.baseline.hash_mb.to_string()
                    }
                    OptionKind::Spin { default, .. } => default.to_string(),
                    OptionKind::Check { default } => default.to_string(),
                    OptionKind::Combo { default, .. } => default.to_owned(),
                    OptionKind::Button => continue,
                    OptionKind::Text { default } => default.to_owned(),
                };
                engine
                    .set_option(spec.name, &value)
                    .unwrap_or_else(|e| panic!("{} back to {value:?}: {e}", spec.name));
            }
            assert_eq!(
                *engine.options(),
                self.baseline,
                "the options after a reset"
            );
        }
        engine.new_game();
        engine.set_position(None, &[]).expect("the start position");
        self.out.lock().clear();
    }
}

static HARNESS: Mutex<Option<Harness>> = Mutex::new(None);

const MAX_LINES: usize = 64;
const CAP_HASH_MB: i64 = 2;
const CAP_THREADS: i64 = 2;
const CAP_PERFT: u32 = 2;
const NO_SUCH_FILE: &str = "/nonexistent/lazuli-fuzz";

/// The line to send instead of `line`, or `None` to skip it.
fn bounded(line: &str) -> Option<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&command, args)) = tokens.split_first() else {
        return Some(line.to_owned());
    };
    match command {
        "quit" | "bench" => None,
        "go" => {
            if let ["perft", depth] = args {
                return Some(match depth.parse::<u32>() {
                    Ok(d) if d > CAP_PERFT => format!("go perft {CAP_PERFT}"),
                    _ => line.to_owned(),
                });
            }
            match parse_go(args) {
                // Bounded already: keep it as it is.
                Ok(limits) if limits.depth.is_some_and(|d| d <= 1) => Some(line.to_owned()),
                Ok(_) => Some(format!("{line} depth 1")),
                // Refused anyway: keep the error path.
                Err(_) => Some(line.to_owned()),
            }
        }
        "setoption" => {
            let Some(value_at) = args.iter().position(|&t| t == "value") else {
                return Some(line.to_owned());
            };
            let name = args.get(1..value_at).unwrap_or_default().join(" ");
            let value = args[value_at + 1..].join(" ");
            let name_lc = name.trim().to_ascii_lowercase();
            let cap = match name_lc.as_str() {
                "hash" => CAP_HASH_MB,
                "threads" => CAP_THREADS,
                "evalfile" | "syzygypath" | "hash file"
                    if !value.is_empty() && value != "<empty>" =>
                {
                    return Some(format!("setoption name {name} value {NO_SUCH_FILE}"));
                }
                _ => return Some(line.to_owned()),
            };
            match value.trim().parse::<i64>() {
                Ok(n) if n > cap => Some(format!("setoption name {name} value {cap}")),
                _ => Some(line.to_owned()),
            }
        }
        _ => Some(line.to_owned()),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let harness = guard.get_or_insert_with(Harness::new);
    harness.reset();

    for raw in data.split(|&b| b == b'\n').take(MAX_LINES) {
        let line = String::from_utf8_lossy(raw);
        let Some(line) = bounded(&line) else {
            continue;
        };
        let engine = harness.uci.engine();
        // Apply what a finished search deferred, so that only this line can change the options.
        let idle = !engine.is_searching();
        if idle {
            let _ = engine.take_deferred_errors();
        }
        let idle = idle && !engine.is_searching();
        let fen_before = engine.position().fen();
        let options_before = engine.options().clone();
        let out_start = harness.out.lock().len();

        harness.uci.command(&line);

        let text = String::from_utf8_lossy(&harness.out.lock()[out_start..]).into_owned();
        // An error names the line's words, so only the start of a line tells what it is.
        let errors: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("info string error: "))
            .collect();
        assert!(
            !errors
                .iter()
                .any(|l| l.starts_with("info string error: internal error")),
            "line {line:?} gave an internal error:\n{text}"
        );
        let engine = harness.uci.engine();
        let fen_after = engine.position().fen();
        let first = line.split_whitespace().next().unwrap_or("");
        // `uci`, `isready`, `stop`, `ponderhit` with extra words are refused but still done.
        let done_anyway = matches!(first, "uci" | "isready" | "stop" | "ponderhit");
        if !errors.is_empty() && !done_anyway {
            assert_eq!(
                fen_before, fen_after,
                "the refused line {line:?} changed the position"
            );
            if idle && !engine.is_searching() {
                assert_eq!(
                    &options_before,
                    engine.options(),
                    "the refused line {line:?} changed the options"
                );
            }
        }
        if first == "position" && fen_after != fen_before {
            let again = Position::from_fen(&fen_after)
                .unwrap_or_else(|e| panic!("the FEN {fen_after:?} does not parse back: {e}"));
            assert_eq!(again.fen(), fen_after, "the FEN does not round-trip");
        }
    }

    let engine = harness.uci.engine();
    engine.stop();
    if let Some(Err(e)) = engine.wait() {
        panic!("the search failed: {e}");
    }
});
