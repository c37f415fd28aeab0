//! A UCI engine process driven over stdin/stdout, for the integration tests.

#![allow(
    dead_code,
    reason = "each test crate uses its own part of this module: an expect would fail in some"
)]

pub mod c;
pub mod recorder;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any expected reply may take before a test fails (generous: CI machines are slow
/// and shared; the tests that measure latency use their own, tight bounds).
pub const PATIENCE: Duration = Duration::from_secs(60);

pub struct UciProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far.
    pub log: Vec<String>,
}

impl UciProcess {
    pub fn start() -> UciProcess {
        Self::start_with_args(&[])
    }

    pub fn start_with_args(args: &[&str]) -> UciProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lazuli"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the lazuli binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        UciProcess {
            child,
            stdin: Some(stdin),
            lines: rx,
            log: Vec::new(),
        }
    }

    pub fn send(&mut self, command: &str) {
        self.send_bytes(format!("{command}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes).expect("engine stdin open");
        stdin.flush().unwrap();
    }

    /// Closes the engine's standard input (end of file).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.log.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first one for which `done` holds; panics after `timeout`.
    pub fn until_within(&mut self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = self.next_line(left) else {
                panic!("no expected line within {timeout:?}; got {lines:#?}");
            };
            let stop = done(&line);
            lines.push(line);
            if stop {
                return lines;
            }
        }
    }

    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.until_within(PATIENCE, done)
    }

    pub fn until_prefix(&mut self, prefix: &str) -> Vec<String> {
        self.until(|l| l.starts_with(prefix))
    }

    /// Sends `isready` and returns everything before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Waits for `bestmove` and returns all lines up to it.
    pub fn search_lines(&mut self) -> Vec<String> {
        self.until_prefix("bestmove")
    }

    /// The best move of the next `bestmove` line.
    pub fn bestmove(&mut self) -> String {
        let lines = self.search_lines();
        lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_owned()
    }

    /// The FEN of the current position, from the `d` command.
    pub fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.until_prefix("Checkers:");
        let fen = lines
            .iter()
            .find(|l| l.starts_with("Fen: "))
            .expect("d prints the FEN");
        fen.trim_start_matches("Fen: ").to_owned()
    }

    /// The legal moves of the current position, from `go perft 1`.
    pub fn legal_moves(&mut self) -> Vec<String> {
        self.send("go perft 1");
        let lines = self.until_prefix("Nodes searched");
        lines
            .iter()
            .filter_map(|l| l.split_once(": ").map(|(m, _)| m.to_owned()))
            .filter(|m| m.len() >= 4 && !m.contains(' '))
            .collect()
    }

    /// Reads lines for `wait` and panics on a `bestmove` among them (a ponder or infinite
    /// search must not end by itself).
    pub fn assert_no_bestmove_for(&mut self, wait: Duration) {
        let until = Instant::now() + wait;
        while let Some(line) = self.next_line(until.saturating_duration_since(Instant::now())) {
            assert!(!line.starts_with("bestmove"), "bestmove too early: {line}");
        }
    }

    /// Waits up to `timeout` for the process to exit; returns its success.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<bool> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status.success());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        None
    }
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value after `key` in an `info` line.
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut it = line.split_whitespace();
    while let Some(t) = it.next() {
        if t == key {
            return it.next();
        }
    }
    None
}

/// The value after `key` in the last line that has it: not simply the line before `bestmove`,
/// which is a `currmove` line (no node count, no score) when a search runs past a second, as a
/// debug build on a busy machine may.
pub fn last_field<'a>(lines: &'a [String], key: &str) -> Option<&'a str> {
    lines.iter().rev().find_map(|l| field(l, key))
}
