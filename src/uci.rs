//! The UCI front end: parses commands, drives the [`Engine`] facade, prints replies.
//!
//! Everything of the 2006 UCI specification, plus Stockfish's `bench`, `go perft`, `d` and
//! `eval`. Input is read on the calling thread while the search runs on the engine's threads,
//! so `isready` and `stop` are answered at once during a search. Malformed input never
//! changes state: it gets an `info string error: ...` line and the engine carries on.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use shakmaty::{Move, Position as _, Square};

use crate::bench::{BenchConfig, bench_positions};
use crate::engine::Engine;
use crate::error::Error;
use crate::options::{AUTHOR, NAME, OptionKind, option_specs};
use crate::position::Position;
use crate::report::{ScoreBound, SearchHandler, SearchInfo};
use crate::timeman::Limits;
use crate::wdl::WinDrawLoss;

/// Where UCI output goes: shared by the input thread and the search's reporting thread, one
/// whole line at a time.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Output to the process's standard output.
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// Output to any writer (tests capture it in memory).
    pub fn new(writer: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(writer)))
    }

    /// Writes one line and flushes it.
    pub fn line(&self, text: &str) {
        let mut w = self.0.lock();
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }

    fn error(&self, e: &Error) {
        self.line(&format!("info string error: {e}"));
    }
}

/// Reports a search in UCI form.
struct UciHandler {
    out: Output,
    chess960: bool,
    show_wdl: bool,
}

impl UciHandler {
    fn mv(&self, m: Move) -> String {
        Position::uci(m, self.chess960).to_string()
    }
}

impl SearchHandler for UciHandler {
    fn on_info(&mut self, info: &SearchInfo) {
        self.out
            .line(&format_info(info, self.chess960, self.show_wdl));
    }

    fn on_currmove(&mut self, depth: u32, mv: Move, number: u32) {
        self.out.line(&format!(
            "info depth {depth} currmove {} currmovenumber {number}",
            self.mv(mv)
        ));
    }

    fn on_bestmove(&mut self, best: Option<Move>, ponder: Option<Move>) {
        let line = match (best, ponder) {
            (None, _) => "bestmove (none)".to_owned(),
            (Some(b), None) => format!("bestmove {}", self.mv(b)),
            (Some(b), Some(p)) => format!("bestmove {} ponder {}", self.mv(b), self.mv(p)),
        };
        self.out.line(&line);
    }

    fn on_error(&mut self, message: &str) {
        self.out.line(&format!("info string error: {message}"));
    }
}

/// One `info` line, integers only; with `wdl W D L` after the score when `show_wdl` is set
/// (`UCI_ShowWDL`).
pub fn format_info(info: &SearchInfo, chess960: bool, show_wdl: bool) -> String {
    let bound = match info.bound {
        ScoreBound::Exact => "",
        ScoreBound::Lower => " lowerbound",
        ScoreBound::Upper => " upperbound",
    };
    let wdl = if show_wdl {
        let WinDrawLoss { win, draw, loss } = info.wdl;
        format!(" wdl {win} {draw} {loss}")
    } else {
        String::new()
    };
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {}{bound}{wdl} nodes {} nps {} hashfull {} tbhits {} time {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.score,
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time_ms
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for &m in &info.pv {
            line.push(' ');
            line.push_str(&Position::uci(m, chess960).to_string());
        }
    }
    line
}

/// What the loop should do after a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` (or end of input): leave the loop.
    Quit,
}

/// The UCI protocol state around one engine.
pub struct Uci {
    engine: Engine,
    out: Output,
    debug: bool,
}

impl Uci {
    /// A UCI front end writing to `out`.
    ///
    /// # Errors
    ///
    /// As [`Engine::new`].
    pub fn new(out: Output) -> Result<Uci, Error> {
        Ok(Uci {
            engine: Engine::new()?,
            out,
            debug: false,
        })
    }

    /// The engine (for tests).
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Reads commands until `quit` or end of input; stops and waits for a running search
    /// before returning.
    pub fn run(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else {
                self.out.line("info string error: input is not valid UTF-8");
                continue;
            };
            if self.command(&line) == Flow::Quit {
                break;
            }
        }
        self.engine.stop();
        self.engine.wait();
    }

    /// Executes one command line.
    pub fn command(&mut self, line: &str) -> Flow {
        let result = self.dispatch(line);
        for e in self.engine.take_deferred_errors() {
            self.out.error(&e);
        }
        match result {
            Ok(flow) => flow,
            Err(e) => {
                self.out.error(&e);
                Flow::Continue
            }
        }
    }

    fn dispatch(&mut self, line: &str) -> Result<Flow, Error> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = tokens.split_first() else {
            return Ok(Flow::Continue);
        };
        let extra = || {
            Error::InvalidCommand(format!(
                "'{command}' takes no arguments, got '{}'",
                args.join(" ")
            ))
        };
        if !args.is_empty() {
            match command {
                // What a GUI may be waiting on is done anyway; the extra words are reported.
                "uci" | "isready" | "stop" | "ponderhit" | "quit" => self.out.error(&extra()),
                // What changes state or only displays is refused.
                "ucinewgame" | "d" | "eval" => return Err(extra()),
                _ => {}
            }
        }
        match command {
            "uci" => self.uci(),
            "debug" => match args {
                ["on"] => self.debug = true,
                ["off"] => self.debug = false,
                _ => return Err(Error::InvalidCommand("usage: debug on|off".into())),
            },
            "isready" => self.out.line("readyok"),
            "setoption" => self.setoption(args)?,
            "register" => {}
            "ucinewgame" => self.engine.new_game(),
            "position" => self.position(args)?,
            "go" => self.go(args)?,
            "stop" => self.engine.stop(),
            "ponderhit" => self.engine.ponderhit(),
            "quit" => return Ok(Flow::Quit),
            "bench" => self.bench(args)?,
            "d" => self.display(),
            "eval" => self.eval(),
            #[cfg(feature = "tune")]
            "tune" => self.tune(),
            _ => {
                return Err(Error::InvalidCommand(format!(
                    "unknown command '{}'",
                    line.trim()
                )));
            }
        }
        Ok(Flow::Continue)
    }

    fn ensure_idle(&mut self) -> Result<(), Error> {
        self.engine.idle()
    }

    /// `bench [hash] [threads] [depth]`: progress and summary as UCI lines. It runs with the
    /// options `setoption` gave (`EvalFile`, `UseNNUE`, `NullMove`, ...; `Hash` and `Threads`
    /// from its arguments) on an engine of its own, so the session's table and position stay.
    fn bench(&mut self, args: &[&str]) -> Result<(), Error> {
        self.ensure_idle()?;
        let config = BenchConfig::parse(args)?;
        let n = bench_positions().len();
        let report = config.run_on(self.engine.sibling()?, |i, r| {
            self.out.line(&format!(
                "info string bench position {}/{n} bestmove {} nodes {} time {}",
                i + 1,
                r.best,
                r.nodes,
                r.time.as_millis()
            ));
        })?;
        for line in report.summary().lines() {
            self.out.line(line);
        }
        Ok(())
    }

    fn uci(&mut self) {
        self.out.line(&format!("id name {NAME}"));
        self.out.line(&format!("id author {AUTHOR}"));
        self.out.line("");
        for spec in option_specs() {
            let line = match spec.kind {
                OptionKind::Spin { default, min, max } => {
                    format!(
                        "option name {} type spin default {default} min {min} max {max}",
                        spec.name
                    )
                }
                OptionKind::Check { default } => {
                    format!("option name {} type check default {default}", spec.name)
                }
                OptionKind::Combo { default, vars } => {
                    let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                    format!(
                        "option name {} type combo default {default}{vars}",
                        spec.name
                    )
                }
                OptionKind::Button => format!("option name {} type button", spec.name),
                OptionKind::Text { default } => {
                    let default = if default.is_empty() {
                        "<empty>"
                    } else {
                        default
                    };
                    format!("option name {} type string default {default}", spec.name)
                }
            };
            self.out.line(&line);
        }
        self.out.line("uciok");
    }

    /// `setoption name <id> [value <x>]`; names and values may contain spaces.
    fn setoption(&mut self, args: &[&str]) -> Result<(), Error> {
        let usage = || Error::InvalidCommand("usage: setoption name <id> [value <x>]".into());
        let ["name", rest @ ..] = args else {
            return Err(usage());
        };
        let split = rest.iter().position(|&t| t == "value");
        let (name, value) = match split {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        if name.is_empty() {
            return Err(usage());
        }
        let was_searching = self.engine.is_searching();
        self.engine.set_option(&name, &value)?;
        if name.trim().eq_ignore_ascii_case("SyzygyPath") {
            let (files, pieces) = self.engine.tablebases();
            self.out.line(&format!(
                "info string Syzygy: {files} table files, up to {pieces} pieces"
            ));
        }
        let button = |b: &str| name.trim().eq_ignore_ascii_case(b);
        if (button("Save Hash to File") || button("Load Hash from File"))
            && let Some(report) = self.engine.hash_file_report()
        {
            self.out.line(&format!("info string {report}"));
        }
        if was_searching && self.debug {
            self.out.line(&format!(
                "info string option '{name}' will apply after the search"
            ));
        }
        Ok(())
    }

    /// `position [startpos | fen <fen>] [moves <m1> ... <mi>]`.
    fn position(&mut self, args: &[&str]) -> Result<(), Error> {
        let moves_at = args.iter().position(|&t| t == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        match setup {
            ["startpos"] => self.engine.set_position(None, moves),
            ["fen", fen @ ..] if !fen.is_empty() => {
                self.engine.set_position(Some(&fen.join(" ")), moves)
            }
            _ => Err(Error::InvalidCommand(
                "usage: position [startpos | fen <fen>] [moves <move>...]".into(),
            )),
        }
    }

    fn go(&mut self, args: &[&str]) -> Result<(), Error> {
        if let ["perft", depth] = args {
            let depth: u32 = depth.parse().ok().filter(|d| *d <= 16).ok_or_else(|| {
                Error::InvalidCommand(format!(
                    "perft depth '{depth}' is not a number from 0 to 16"
                ))
            })?;
            return self.perft(depth);
        }
        let limits = parse_go(args)?;
        // Options set while the last search was finishing are applied first, so that the
        // handler formats this search with them (UCI_Chess960, UCI_ShowWDL).
        self.ensure_idle()?;
        let handler = UciHandler {
            out: self.out.clone(),
            chess960: self.engine.options().chess960,
            show_wdl: self.engine.options().show_wdl,
        };
        self.engine.go(limits, handler)
    }

    fn perft(&mut self, depth: u32) -> Result<(), Error> {
        self.ensure_idle()?;
        let start = std::time::Instant::now();
        let divide = self.engine.position().perft_divide(depth);
        let mut total = 0;
        for (m, n) in divide {
            total += n;
            self.out.line(&format!("{}: {n}", self.engine.uci_move(m)));
        }
        if depth == 0 {
            total = 1;
        }
        let elapsed = start.elapsed();
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
        if self.debug {
            self.out.line(&format!(
                "info string perft {total} nodes in {} ms",
                elapsed.as_millis()
            ));
        }
        Ok(())
    }

    /// `eval`: the hand-crafted terms, then the evaluation searches use (the network's when
    /// `UseNNUE` is on and a network is loaded).
    fn eval(&self) {
        for line in self.engine.eval_trace().to_string().lines() {
            self.out.line(line);
        }
        if let Some((width, buckets)) = self.engine.net_shape() {
            let buckets = match buckets {
                1 => String::new(),
                b => format!(", {b} output buckets"),
            };
            self.out.line(&format!(
                "NNUE evaluation: {} (side to move; net 768 -> {width} x 2 -> 1{buckets})",
                self.engine.evaluate().0
            ));
        }
    }

    /// Tune builds: every tunable in OpenBench's SPSA input format, `name, int, value, min,
    /// max, c_end, r_end` (c_end a twentieth of the range, at least 1; r_end 0.002, OpenBench's
    /// usual), as `lab/tools/spsa.py` reads it too.
    #[cfg(feature = "tune")]
    fn tune(&self) {
        for t in crate::params::TUNABLES {
            let c_end = ((t.max - t.min) / 20).max(1);
            self.out.line(&format!(
                "{}, int, {}, {}, {}, {c_end}, 0.002",
                t.name,
                t.get(),
                t.min,
                t.max
            ));
        }
    }

    fn display(&self) {
        let pos = self.engine.position();
        let board = pos.chess().board();
        let mut text = String::new();
        for rank in (0..8).rev() {
            text.push_str("\n +---+---+---+---+---+---+---+---+\n");
            for file in 0..8 {
                let sq = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                let c = board.piece_at(sq).map_or(' ', |p| p.char());
                text.push_str(&format!(" | {c}"));
            }
            text.push_str(&format!(" | {}", rank + 1));
        }
        text.push_str("\n +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n");
        let checkers: Vec<String> = pos
            .chess()
            .checkers()
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        text.push_str(&format!(
            "\nFen: {}\nKey: {:016X}\nCheckers: {}",
            pos.fen(),
            pos.key(),
            checkers.join(" ")
        ));
        for line in text.lines() {
            self.out.line(line);
        }
    }
}

/// Parses the arguments of `go` (everything but `perft`).
///
/// # Errors
///
/// [`Error::InvalidCommand`] for an unknown keyword, a missing or malformed number.
pub fn parse_go(args: &[&str]) -> Result<Limits, Error> {
    let mut limits = Limits::default();
    let mut i = 0;
    let number = |i: usize, key: &str| -> Result<u64, Error> {
        let text = args
            .get(i + 1)
            .ok_or_else(|| Error::InvalidCommand(format!("go {key} needs a number")))?;
        // Clocks can be negative when a GUI is late; that means no time left.
        if key.ends_with("time") && text.starts_with('-') && text[1..].parse::<u64>().is_ok() {
            return Ok(0);
        }
        text.parse().map_err(|_| {
            Error::InvalidCommand(format!("go {key}: '{text}' is not a non-negative integer"))
        })
    };
    let ms = |n: u64| Some(Duration::from_millis(n));
    while i < args.len() {
        let key = args[i];
        match key {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while let Some(&m) = args.get(i + 1) {
                    if KEYWORDS.contains(&m) {
                        break;
                    }
                    limits.searchmoves.push(m.to_owned());
                    i += 1;
                }
                if limits.searchmoves.is_empty() {
                    return Err(Error::InvalidCommand(
                        "go searchmoves needs at least one move".into(),
                    ));
                }
                i += 1;
                continue;
            }
            "wtime" => limits.wtime = ms(number(i, key)?),
            "btime" => limits.btime = ms(number(i, key)?),
            "winc" => limits.winc = ms(number(i, key)?),
            "binc" => limits.binc = ms(number(i, key)?),
            "movestogo" => {
                limits.movestogo = Some(u32::try_from(number(i, key)?).unwrap_or(u32::MAX))
            }
            "depth" => limits.depth = Some(u32::try_from(number(i, key)?).unwrap_or(u32::MAX)),
            "nodes" => limits.nodes = Some(number(i, key)?),
            "mate" => limits.mate = Some(u32::try_from(number(i, key)?).unwrap_or(u32::MAX)),
            "movetime" => limits.movetime = ms(number(i, key)?),
            _ => {
                return Err(Error::InvalidCommand(format!(
                    "go: unknown argument '{key}'"
                )));
            }
        }
        i += if matches!(key, "infinite" | "ponder") {
            1
        } else {
            2
        };
    }
    Ok(limits)
}

const KEYWORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

/// Runs the UCI loop on standard input and output (the binary's default mode).
pub fn run_stdio() -> Result<(), Error> {
    let mut uci = Uci::new(Output::stdout())?;
    uci.run(std::io::stdin().lock());
    Ok(())
}
