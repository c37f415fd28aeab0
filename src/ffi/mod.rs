//! The C ABI: `liblazuli`, a thin client of [`Engine`] (as the UCI front end is). The header
//! `include/lazuli.h` is generated from this module by cbindgen (`tests/c_api.rs` fails when the
//! committed header differs from a fresh one).
//!
//! Rules every function here follows (after rustls-ffi):
//! - The whole body runs inside the panic boundary (`boundary::boundary`, through the
//!   `engine_call!` prologue for functions on an engine), which turns a panic into
//!   `LAZULI_RESULT_INTERNAL_PANIC` (the library is built with unwinding panics for that). A
//!   panic on a search thread is caught there and reported the same way. Nothing unwinds into
//!   C, and a silent panic hook keeps the library from writing to stderr.
//! - Every pointer is checked for NULL before use; every string for UTF-8.
//! - A failure leaves the engine as it was, returns a distinct code and keeps a message for
//!   `lazuli_engine_last_error`, copied into the caller's buffer (never a shared buffer).
//! - `unsafe` appears only in this module (the crate denies it everywhere else), each block
//!   with a `SAFETY:` comment.
//!
//! Files: `mod.rs` the types of the header, `exports.rs` the functions, `boundary.rs` the panic
//! boundary and argument checks, `handler.rs` the callbacks.

mod boundary;
mod exports;
mod handler;

// The library exports this module (hidden from its docs) for the tests and fuzz targets that
// call the C functions, so that they use these very types and functions rather than a copy;
// it is not part of the Rust API.
pub use exports::*;

use std::ffi::{c_char, c_void};

use parking_lot::Mutex;

use crate::engine::Engine;
use crate::state::SearchControl;

/// Major version of the library (`lazuli_version()` gives the whole version string).
pub const LAZULI_VERSION_MAJOR: u32 = 0;
/// Minor version of the library.
pub const LAZULI_VERSION_MINOR: u32 = 1;
/// Patch version of the library.
pub const LAZULI_VERSION_PATCH: u32 = 0;

/// What every fallible function returns. On any value but `LAZULI_RESULT_OK` the engine is
/// unchanged and `lazuli_engine_last_error` describes the failure (when an engine was given).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazuliResult {
    /// Success.
    Ok = 0,
    /// A pointer argument that must not be NULL was NULL.
    NullArgument = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// The FEN did not parse or describes an impossible position.
    InvalidFen = 3,
    /// A move did not parse or is not legal in its position.
    IllegalMove = 4,
    /// Unknown option name, or a value of the wrong type or out of range.
    InvalidOption = 5,
    /// A search is running and was not told to stop.
    Busy = 6,
    /// Memory (hash table) or a thread could not be allocated; the old state is kept.
    OutOfMemory = 7,
    /// A panic inside the engine was caught; free the engine and create a new one.
    InternalPanic = 8,
    /// The output buffer was too small; what fits was copied, NUL-terminated.
    BufferTooSmall = 9,
    /// A hash file could not be read or written, or is not one this library reads (damaged,
    /// truncated, of another format); the table is kept as it was.
    FileError = 10,
}

/// How `lazuli_info.score` is to be read.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazuliScoreKind {
    /// Centipawns from the side to move.
    Cp = 0,
    /// Mate in this many moves; negative when the side to move is mated.
    Mate = 1,
}

/// Whether `lazuli_info.score` is exact or a bound.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazuliBound {
    /// The score is exact.
    Exact = 0,
    /// The true score is at least this (the search failed high).
    Lower = 1,
    /// The true score is at most this (the search failed low).
    Upper = 2,
}

/// Search limits. Zero (false) means unset; with nothing set the search runs until
/// `lazuli_engine_stop`. Get one with every field unset from `lazuli_limits_default()`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazuliLimits {
    /// Search exactly to this depth.
    pub depth: u32,
    /// Stop after about this many nodes (over all threads).
    pub nodes: u64,
    /// Search this many milliseconds.
    pub movetime_ms: u64,
    /// White's clock in milliseconds.
    pub wtime_ms: u64,
    /// Black's clock in milliseconds.
    pub btime_ms: u64,
    /// White's increment per move in milliseconds.
    pub winc_ms: u64,
    /// Black's increment per move in milliseconds.
    pub binc_ms: u64,
    /// Moves until the next time control.
    pub movestogo: u32,
    /// Stop when a mate in at most this many moves is found.
    pub mate: u32,
    /// Search until `lazuli_engine_stop`, never reporting the best move before.
    pub infinite: bool,
    /// Ponder: search with no limit until `lazuli_engine_ponderhit` (the expected move came:
    /// the limits above then count from that moment) or `lazuli_engine_stop`; the best move is
    /// never reported before either.
    pub ponder: bool,
}

/// One progress report of a search, passed to the info callback.
#[repr(C)]
#[derive(Debug)]
pub struct LazuliInfo {
    /// Depth of the iteration.
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Which principal variation (1-based; see the MultiPV option).
    pub multipv: u32,
    /// Centipawns or mate distance.
    pub score_kind: LazuliScoreKind,
    /// The score, read as `score_kind` says, from the side to move.
    pub score: i32,
    /// Exact, or a bound.
    pub bound: LazuliBound,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// Permille of the hash table in use.
    pub hashfull: u32,
    /// Endgame tablebase probes that gave a result (see the `SyzygyPath` option).
    pub tbhits: u64,
    /// Chance in permille, from the side to move, that the game is won with this score (a
    /// model fitted to lazuli's games; 1000 for a mate or tablebase win). Always filled,
    /// whatever `UCI_ShowWDL` says; `wdl_win + wdl_draw + wdl_loss` is 1000.
    pub wdl_win: u32,
    /// Chance in permille, from the side to move, that the game is drawn with this score (0
    /// for a mate or tablebase win or loss). Always filled, like `wdl_win`.
    pub wdl_draw: u32,
    /// Chance in permille, from the side to move, that the game is lost with this score (1000
    /// when the side to move is mated or loses by the tablebases). Always filled, like
    /// `wdl_win`.
    pub wdl_loss: u32,
    /// The principal variation, space-separated UCI moves. Valid only during the callback.
    pub pv: *const c_char,
}

/// Receives a `lazuli_info` during a search. Runs on an engine thread, never concurrently
/// with another callback of the same search. `info` and its `pv` are valid only during the
/// call. The callback must return normally (no longjmp, no C++ exception) and must not call
/// any lazuli function on the same engine except `lazuli_engine_stop` and
/// `lazuli_engine_ponderhit`.
pub type LazuliInfoCallback =
    Option<unsafe extern "C" fn(userdata: *mut c_void, info: *const LazuliInfo)>;

/// Receives the result of a search: `bestmove` in UCI notation, `"(none)"` in checkmate or
/// stalemate; `ponder` is the expected reply or NULL. Both strings are valid only during the
/// call. Same thread rules as `lazuli_info_callback`. After it returns, the engine makes no
/// further call with this `userdata`.
pub type LazuliBestmoveCallback = Option<
    unsafe extern "C" fn(userdata: *mut c_void, bestmove: *const c_char, ponder: *const c_char),
>;

/// The type of an option, as in UCI.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazuliOptionType {
    /// An integer from `min` to `max`.
    Spin = 0,
    /// A boolean, set with "true" or "false".
    Check = 1,
    /// One of the space-separated `vars`.
    Combo = 2,
    /// An action without a value.
    Button = 3,
    /// Any text (a file path), set as it is.
    String = 4,
}

/// Describes one option, for a settings dialog. All strings are static: valid for the life
/// of the process, never freed by the caller.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LazuliOption {
    /// The name to pass to `lazuli_engine_set_option`.
    pub name: *const c_char,
    /// How the value is given.
    pub option_type: LazuliOptionType,
    /// Default of a spin; 1 or 0 for a check; 0 otherwise.
    pub default_value: i64,
    /// Smallest value of a spin (0 otherwise).
    pub min: i64,
    /// Largest value of a spin (0 otherwise).
    pub max: i64,
    /// Default choice of a combo, or default text of a string option ("" for none); NULL
    /// otherwise.
    pub default_string: *const c_char,
    /// The choices of a combo separated by spaces, NULL otherwise.
    pub vars: *const c_char,
}

/// An engine: its own hash table, threads and position. Create with `lazuli_engine_new`,
/// release with `lazuli_engine_free`. Several engines in one process are independent.
///
/// Threads: calls on one engine may come from any thread; they are serialised by a lock
/// inside the engine. `lazuli_engine_stop` and `lazuli_engine_ponderhit` never wait for that
/// lock's holder to finish a search, and `lazuli_engine_wait` blocks without holding it, so a
/// GUI thread can stop a search that another thread waits for.
pub struct LazuliEngine {
    engine: Mutex<Engine>,
    /// Taken once: valid for the life of the engine, used without the engine's lock.
    control: SearchControl,
    last_error: Mutex<String>,
}

#[cfg(test)]
mod tests {
    use super::boundary::{boundary, engine_ref};
    use super::exports::{
        lazuli_engine_fen, lazuli_engine_free, lazuli_engine_new, lazuli_engine_set_position,
        lazuli_version,
    };
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn version_macros_match_the_package() {
        assert_eq!(
            LAZULI_VERSION_MAJOR.to_string(),
            env!("CARGO_PKG_VERSION_MAJOR")
        );
        assert_eq!(
            LAZULI_VERSION_MINOR.to_string(),
            env!("CARGO_PKG_VERSION_MINOR")
        );
        assert_eq!(
            LAZULI_VERSION_PATCH.to_string(),
            env!("CARGO_PKG_VERSION_PATCH")
        );
        // SAFETY: lazuli_version returns a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(lazuli_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn a_panic_becomes_an_error_code_and_a_message() {
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is a valid place for the pointer.
        assert_eq!(unsafe { lazuli_engine_new(&mut raw) }, LazuliResult::Ok);
        // SAFETY: `raw` is the live engine just created.
        let handle = unsafe { engine_ref(raw) }.unwrap();
        let code = boundary(Some(handle), || panic!("deliberate"));
        assert_eq!(code, LazuliResult::InternalPanic);
        assert!(handle.last_error.lock().contains("deliberate"));
        // SAFETY: created above, freed once.
        unsafe { lazuli_engine_free(raw) };
    }

    /// The longest FEN the engine accepts (both counters at their 32-bit maximum, found by a
    /// manual probe beside the fuzz target `c_api`) fits the 128 bytes the header promises.
    #[test]
    fn the_longest_fen_fits_the_promised_buffer() {
        let fen = c"r1b1k1n1/p1p1p1p1/1p1p1p1p/q1r1n1b1/Q1R1N1B1/P1P1P1P1/1P1P1P1P/R1B1K1N1 b Qq - 4294967295 4294967295";
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is a valid place for the pointer.
        assert_eq!(unsafe { lazuli_engine_new(&mut raw) }, LazuliResult::Ok);
        // SAFETY: a live engine; the strings are NUL-terminated; `buf` is writable for its
        // length; freed once.
        unsafe {
            assert_eq!(
                lazuli_engine_set_position(raw, fen.as_ptr(), std::ptr::null()),
                LazuliResult::Ok
            );
            let mut buf = [0 as std::ffi::c_char; 128];
            let len = lazuli_engine_fen(raw, buf.as_mut_ptr(), buf.len());
            assert_eq!(len, fen.to_bytes().len());
            assert!(len < 128);
            assert_eq!(CStr::from_ptr(buf.as_ptr()), fen);
            lazuli_engine_free(raw);
        }
    }
}
