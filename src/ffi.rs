//! The C ABI: `liblazuli`, a thin client of [`Engine`] (as the UCI front end is). The header
//! `include/lazuli.h` is generated from this file by cbindgen (`tests/c_api.rs` fails when the
//! committed header differs from a fresh one).
//!
//! Rules every function here follows (after rustls-ffi):
//! - The whole body runs inside [`boundary`], which turns a panic into
//!   `LAZULI_RESULT_INTERNAL_PANIC` (the library is built with unwinding panics for that). A
//!   panic on a search thread is caught there and reported the same way. Nothing unwinds into
//!   C, and a silent panic hook keeps the library from writing to stderr.
//! - Every pointer is checked for NULL before use; every string for UTF-8.
//! - A failure leaves the engine as it was, returns a distinct code and keeps a message for
//!   `lazuli_engine_last_error`, copied into the caller's buffer (never a shared buffer).
//! - `unsafe` appears only in this module, each block with a `SAFETY:` comment.

use std::ffi::{CStr, CString, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use parking_lot::Mutex;
use shakmaty::Move;

use crate::engine::Engine;
use crate::error::Error;
use crate::score::ScoreKind;
use crate::search::{ScoreBound, SearchHandler, SearchInfo};
use crate::threads::SearchControl;
use crate::timeman::Limits;

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
    /// Default choice of a combo, NULL otherwise.
    pub default_string: *const c_char,
    /// The choices of a combo separated by spaces, NULL otherwise.
    pub vars: *const c_char,
}

/// Option descriptions with their strings, built once and kept for the life of the process.
struct OptionTable {
    options: Vec<LazuliOption>,
    _strings: Vec<CString>,
}

// SAFETY: the raw pointers point into `_strings`, which is never mutated or dropped (the
// table lives in a static), so sharing them between threads is sharing immutable data.
unsafe impl Send for OptionTable {}
// SAFETY: as above.
unsafe impl Sync for OptionTable {}

fn option_table() -> &'static OptionTable {
    static TABLE: std::sync::LazyLock<OptionTable> = std::sync::LazyLock::new(|| {
        use crate::engine::OptionKind;
        let mut strings = Vec::new();
        let mut options = Vec::new();
        let mut keep = |text: &str| -> *const c_char {
            let c = CString::new(text).expect("option strings have no NUL");
            let ptr = c.as_ptr(); // the heap buffer does not move when the CString is moved
            strings.push(c);
            ptr
        };
        for spec in crate::engine::option_specs() {
            let name = keep(spec.name);
            let (option_type, default_value, min, max, default_string, vars) = match spec.kind {
                OptionKind::Spin { default, min, max } => {
                    (LazuliOptionType::Spin, default, min, max, None, None)
                }
                OptionKind::Check { default } => (
                    LazuliOptionType::Check,
                    i64::from(default),
                    0,
                    0,
                    None,
                    None,
                ),
                OptionKind::Combo { default, vars } => (
                    LazuliOptionType::Combo,
                    0,
                    0,
                    0,
                    Some(keep(default)),
                    Some(keep(&vars.join(" "))),
                ),
                OptionKind::Button => (LazuliOptionType::Button, 0, 0, 0, None, None),
            };
            options.push(LazuliOption {
                name,
                option_type,
                default_value,
                min,
                max,
                default_string: default_string.unwrap_or(std::ptr::null()),
                vars: vars.unwrap_or(std::ptr::null()),
            });
        }
        OptionTable {
            options,
            _strings: strings,
        }
    });
    &TABLE
}

/// Number of options; describe each with `lazuli_option_get`. Any thread.
#[unsafe(no_mangle)]
pub extern "C" fn lazuli_option_count() -> usize {
    let mut n = 0;
    let _ = boundary(None, || {
        n = option_table().options.len();
        Ok(())
    });
    n
}

/// Describes option `index` (0 to `lazuli_option_count() - 1`) into `*out`.
/// `LAZULI_RESULT_INVALID_OPTION` for an index out of range. Any thread.
///
/// # Safety
///
/// `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_option_get(index: usize, out: *mut LazuliOption) -> LazuliResult {
    boundary(None, || {
        if out.is_null() {
            return Err(Failure::Null("out"));
        }
        let option = option_table().options.get(index).ok_or_else(|| {
            Failure::Engine(Error::InvalidOption(format!("no option number {index}")))
        })?;
        // SAFETY: non-NULL and writable by the caller's guarantee.
        unsafe { *out = *option };
        Ok(())
    })
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
    control: Mutex<SearchControl>,
    last_error: Mutex<String>,
}

/// A failure at the boundary: an argument problem or an engine error.
enum Failure {
    Null(&'static str),
    Utf8(&'static str),
    Buffer,
    Engine(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Engine(e)
    }
}

impl Failure {
    fn code(&self) -> LazuliResult {
        match self {
            Failure::Null(_) => LazuliResult::NullArgument,
            Failure::Utf8(_) => LazuliResult::InvalidUtf8,
            Failure::Buffer => LazuliResult::BufferTooSmall,
            Failure::Engine(e) => match e {
                Error::InvalidFen(_) => LazuliResult::InvalidFen,
                Error::IllegalMove(_) => LazuliResult::IllegalMove,
                Error::InvalidOption(_) | Error::InvalidCommand(_) => LazuliResult::InvalidOption,
                Error::Busy => LazuliResult::Busy,
                Error::OutOfMemory(_) => LazuliResult::OutOfMemory,
                Error::Internal(_) => LazuliResult::InternalPanic,
            },
        }
    }

    fn message(&self) -> String {
        match self {
            Failure::Null(arg) => format!("argument '{arg}' is NULL"),
            Failure::Utf8(arg) => format!("argument '{arg}' is not valid UTF-8"),
            Failure::Buffer => "the output buffer is too small".to_owned(),
            Failure::Engine(e) => e.to_string(),
        }
    }
}

thread_local! {
    /// Set while a thread runs library code on behalf of a C caller.
    static IN_LIBRARY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs, once, a panic hook that is silent for panics in library code (C calls and the
/// engine's own threads) and defers to the previous hook for everything else.
fn install_quiet_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = IN_LIBRARY.with(|f| f.get())
                || std::thread::current()
                    .name()
                    .is_some_and(|n| n.starts_with("lazuli-"));
            if !ours {
                previous(info);
            }
        }));
    });
}

/// Runs `body` with panics caught; records a failure's message on `engine` (if any).
fn boundary(
    engine: Option<&LazuliEngine>,
    body: impl FnOnce() -> Result<(), Failure>,
) -> LazuliResult {
    let was_inside = IN_LIBRARY.with(|f| f.replace(true));
    let outcome = catch_unwind(AssertUnwindSafe(body));
    IN_LIBRARY.with(|f| f.set(was_inside));
    let failure = match outcome {
        Ok(Ok(())) => return LazuliResult::Ok,
        Ok(Err(failure)) => failure,
        Err(payload) => {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Failure::Engine(Error::Internal(text))
        }
    };
    if let Some(engine) = engine {
        *engine.last_error.lock() = failure.message();
    }
    failure.code()
}

/// The engine behind a handle.
///
/// # Safety
///
/// `engine` is NULL or a pointer returned by `lazuli_engine_new` and not yet freed.
unsafe fn engine_ref<'a>(engine: *const LazuliEngine) -> Option<&'a LazuliEngine> {
    // SAFETY: the caller guarantees the pointer is NULL or points to a live engine created by
    // `lazuli_engine_new` (a `Box` that only `lazuli_engine_free` releases).
    unsafe { engine.as_ref() }
}

/// Runs `body` on the engine inside the panic boundary, recording a failure's message on it;
/// no engine (a NULL handle) gives `LAZULI_RESULT_NULL_ARGUMENT`.
fn with_engine(
    handle: Option<&LazuliEngine>,
    body: impl FnOnce(&LazuliEngine) -> Result<(), Failure>,
) -> LazuliResult {
    let Some(handle) = handle else {
        return LazuliResult::NullArgument;
    };
    boundary(Some(handle), || body(handle))
}

/// A C string argument as `&str`.
///
/// # Safety
///
/// `text` is NULL or points to a NUL-terminated string valid for the call.
unsafe fn str_arg<'a>(text: *const c_char, name: &'static str) -> Result<Option<&'a str>, Failure> {
    if text.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, and the caller guarantees a NUL-terminated string that outlives the call.
    let bytes = unsafe { CStr::from_ptr(text) };
    bytes.to_str().map(Some).map_err(|_| Failure::Utf8(name))
}

/// Copies `text` into `buf` (capacity `len`), truncated and NUL-terminated; true if it fit.
///
/// # Safety
///
/// `buf` is NULL or valid for writing `len` bytes.
unsafe fn copy_out(text: &str, buf: *mut c_char, len: usize) -> bool {
    if buf.is_null() || len == 0 {
        return text.is_empty() && !buf.is_null();
    }
    let n = text.len().min(len - 1);
    // SAFETY: the caller guarantees `buf` is valid for `len` bytes; we write `n + 1 <= len`
    // bytes, and `text` is a distinct Rust allocation, so the regions do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, n);
        *buf.add(n) = 0;
    }
    n == text.len()
}

/// Returns a `lazuli_limits` with every field unset (zero).
#[unsafe(no_mangle)]
pub extern "C" fn lazuli_limits_default() -> LazuliLimits {
    LazuliLimits::default()
}

/// The library version as a static NUL-terminated string, e.g. "0.1.0". Never NULL; the
/// caller does not free it. Any thread.
#[unsafe(no_mangle)]
pub extern "C" fn lazuli_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version has no NUL inside"),
        };
    VERSION.as_ptr()
}

/// Creates an engine (1 thread, 16 MB hash, start position) and stores it in `*out`.
/// `out` must not be NULL; on failure `*out` is set to NULL. Free the engine with
/// `lazuli_engine_free`. Any thread.
///
/// # Safety
///
/// `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_new(out: *mut *mut LazuliEngine) -> LazuliResult {
    install_quiet_panic_hook();
    boundary(None, || {
        if out.is_null() {
            return Err(Failure::Null("out"));
        }
        // SAFETY: `out` is non-NULL and the caller guarantees it is writable.
        unsafe { *out = std::ptr::null_mut() };
        let engine = Engine::new()?;
        let handle = Box::new(LazuliEngine {
            control: Mutex::new(engine.control()),
            engine: Mutex::new(engine),
            last_error: Mutex::new(String::new()),
        });
        // SAFETY: as above; ownership of the box passes to the caller until lazuli_engine_free.
        unsafe { *out = Box::into_raw(handle) };
        Ok(())
    })
}

/// Stops a running search, waits for its threads and releases the engine. NULL is allowed and
/// does nothing. Call once per engine, from a thread that is not in another call on it (not
/// from a callback); the pointer is invalid afterwards.
///
/// # Safety
///
/// `engine` is NULL or a live engine from `lazuli_engine_new`, not used concurrently.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_free(engine: *mut LazuliEngine) {
    let _ = boundary(None, || {
        if engine.is_null() {
            return Ok(());
        }
        // SAFETY: the pointer came from Box::into_raw in lazuli_engine_new and the caller
        // guarantees it is freed only once and not in use by another thread.
        let handle = unsafe { Box::from_raw(engine) };
        handle.control.lock().stop();
        drop(handle); // Engine::drop stops and joins every search thread
        Ok(())
    });
}

/// Sets an option by its UCI name ("Hash", "Threads", "MultiPV", "Clear Hash", "Ponder",
/// "Move Overhead", "UCI_Chess960", "NullMove", "NullMoveR", "LMR", "Pruning"; any case) to
/// `value` as UCI writes it ("64", "true", "verified"). `value` may be NULL for buttons.
/// During a search the option is checked now and applied when the search ends.
///
/// # Safety
///
/// `engine` is a live engine; `name` and `value` are NULL or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_set_option(
    engine: *mut LazuliEngine,
    name: *const c_char,
    value: *const c_char,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        // SAFETY: forwarded caller guarantee on `name` and `value`.
        let name = unsafe { str_arg(name, "name") }?.ok_or(Failure::Null("name"))?;
        // SAFETY: as above.
        let value = unsafe { str_arg(value, "value") }?.unwrap_or("");
        let mut engine = handle.engine.lock();
        let result = engine.set_option(name, value);
        *handle.control.lock() = engine.control();
        Ok(result?)
    })
}

/// Starts a new game: clears the hash table and the move-ordering history (after the
/// running search, if one runs).
///
/// # Safety
///
/// `engine` is NULL or a live engine.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_new_game(engine: *mut LazuliEngine) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        handle.engine.lock().new_game();
        Ok(())
    })
}

/// Sets the position: `fen` (NULL for the start position) and then `moves`, NULL or
/// space-separated UCI moves ("e2e4 e7e5", castling as "e1g1" or "e1h1"). On error the
/// previous position stays. Allowed during a search (the next search uses it).
///
/// # Safety
///
/// `engine` is a live engine; `fen` and `moves` are NULL or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_set_position(
    engine: *mut LazuliEngine,
    fen: *const c_char,
    moves: *const c_char,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        // SAFETY: forwarded caller guarantee on `fen` and `moves`.
        let fen = unsafe { str_arg(fen, "fen") }?;
        // SAFETY: as above.
        let moves = unsafe { str_arg(moves, "moves") }?.unwrap_or("");
        let moves: Vec<&str> = moves.split_whitespace().collect();
        Ok(handle.engine.lock().set_position(fen, &moves)?)
    })
}

/// Calls the C callbacks for one search.
struct CallbackHandler {
    info: LazuliInfoCallback,
    bestmove: LazuliBestmoveCallback,
    userdata: UserData,
    chess960: bool,
}

/// The caller's `userdata`, handed to the callbacks on an engine thread.
struct UserData(*mut c_void);

// SAFETY: `lazuli_engine_go` documents that `userdata` is passed to the callbacks on an engine
// thread; the C caller agreed to that by calling it. The engine never dereferences it.
unsafe impl Send for UserData {}

impl CallbackHandler {
    fn uci(&self, m: Move) -> CString {
        let text = crate::position::Position::uci(m, self.chess960).to_string();
        CString::new(text).expect("UCI moves have no NUL")
    }
}

impl SearchHandler for CallbackHandler {
    fn on_info(&mut self, info: &SearchInfo) {
        let Some(callback) = self.info else { return };
        let pv: Vec<String> = info
            .pv
            .iter()
            .map(|&m| crate::position::Position::uci(m, self.chess960).to_string())
            .collect();
        let pv = CString::new(pv.join(" ")).expect("UCI moves have no NUL");
        let (score_kind, score) = match info.score.kind() {
            ScoreKind::Cp(cp) => (LazuliScoreKind::Cp, cp),
            ScoreKind::Mate(m) => (LazuliScoreKind::Mate, m),
        };
        let c_info = LazuliInfo {
            depth: info.depth,
            seldepth: info.seldepth,
            multipv: info.multipv,
            score_kind,
            score,
            bound: match info.bound {
                ScoreBound::Exact => LazuliBound::Exact,
                ScoreBound::Lower => LazuliBound::Lower,
                ScoreBound::Upper => LazuliBound::Upper,
            },
            nodes: info.nodes,
            nps: info.nps,
            time_ms: info.time_ms,
            hashfull: info.hashfull,
            pv: pv.as_ptr(),
        };
        // SAFETY: `callback` is the function pointer the caller passed to lazuli_engine_go;
        // `c_info` and the `pv` string it points to live until after the call returns.
        unsafe { callback(self.userdata.0, &c_info) };
    }

    fn on_bestmove(&mut self, best: Option<Move>, ponder: Option<Move>) {
        let Some(callback) = self.bestmove else {
            return;
        };
        let best = best.map_or_else(|| CString::new("(none)").expect("no NUL"), |m| self.uci(m));
        let ponder = ponder.map(|m| self.uci(m));
        let ponder_ptr = ponder.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        // SAFETY: `callback` is the caller's function pointer; both strings (or NULL for
        // ponder) live until after the call returns.
        unsafe { callback(self.userdata.0, best.as_ptr(), ponder_ptr) };
    }
}

/// Starts a search of the current position and returns at once. `limits` may be NULL (no
/// limit: search until `lazuli_engine_stop`). Either callback may be NULL. The callbacks run
/// on an engine thread and receive `userdata`, which must stay valid until the best-move
/// callback has returned (or `lazuli_engine_wait` has returned). Returns
/// `LAZULI_RESULT_BUSY` if a search runs (one that was told to stop is waited for).
///
/// # Safety
///
/// `engine` is a live engine; `limits` is NULL or points to a `lazuli_limits`; the callbacks
/// are NULL or functions of the signatures given, safe to call from another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_go(
    engine: *mut LazuliEngine,
    limits: *const LazuliLimits,
    info_callback: LazuliInfoCallback,
    bestmove_callback: LazuliBestmoveCallback,
    userdata: *mut c_void,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        // SAFETY: the caller guarantees `limits` is NULL or a valid lazuli_limits.
        let c = unsafe { limits.as_ref() }.copied().unwrap_or_default();
        let ms = |v: u64| (v > 0).then(|| std::time::Duration::from_millis(v));
        let limits = Limits {
            depth: (c.depth > 0).then_some(c.depth),
            nodes: (c.nodes > 0).then_some(c.nodes),
            mate: (c.mate > 0).then_some(c.mate),
            movetime: ms(c.movetime_ms),
            wtime: ms(c.wtime_ms),
            btime: ms(c.btime_ms),
            winc: ms(c.winc_ms),
            binc: ms(c.binc_ms),
            movestogo: (c.movestogo > 0).then_some(c.movestogo),
            infinite: c.infinite,
            ponder: false,
            searchmoves: Vec::new(),
        };
        let mut engine = handle.engine.lock();
        let handler = CallbackHandler {
            info: info_callback,
            bestmove: bestmove_callback,
            userdata: UserData(userdata),
            chess960: engine.options().chess960,
        };
        engine.go(limits, handler)?;
        *handle.control.lock() = engine.control();
        Ok(())
    })
}

/// Tells a running search to stop and returns at once; harmless when none runs. May be
/// called from any thread, also from inside a callback.
///
/// # Safety
///
/// `engine` is NULL or a live engine.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_stop(engine: *mut LazuliEngine) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        handle.control.lock().stop();
        Ok(())
    })
}

/// Blocks until the search has ended and its best-move callback has returned, then copies the
/// best move (UCI, or "(none)") NUL-terminated into `bestmove` (8 bytes always suffice).
/// Returns at once when no search runs, copying the last search's move ("" before the first
/// search). `bestmove` may be NULL to only wait. Does not hold the engine's lock while
/// waiting. Must not be called from a callback.
///
/// # Safety
///
/// `engine` is a live engine; `bestmove` is NULL or writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_wait(
    engine: *mut LazuliEngine,
    bestmove: *mut c_char,
    len: usize,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        let control = handle.control.lock().clone();
        let result = control.wait();
        let mut engine = handle.engine.lock();
        engine.sync();
        let text = match result {
            None => String::new(),
            Some(Ok(r)) => r
                .best
                .map_or_else(|| "(none)".to_owned(), |m| engine.uci_move(m)),
            Some(Err(e)) => return Err(Failure::Engine(e)),
        };
        drop(engine);
        if bestmove.is_null() {
            return Ok(());
        }
        // SAFETY: forwarded caller guarantee on `bestmove` and `len`.
        if unsafe { copy_out(&text, bestmove, len) } {
            Ok(())
        } else {
            Err(Failure::Buffer)
        }
    })
}

/// The opponent played the expected move during a ponder search: the search continues under
/// its limits, counted from now. Any thread, like `lazuli_engine_stop`.
///
/// # Safety
///
/// `engine` is NULL or a live engine.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_ponderhit(engine: *mut LazuliEngine) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        handle.control.lock().ponderhit();
        Ok(())
    })
}

/// True while a search runs (or reports its best move). False for NULL. Any thread.
///
/// # Safety
///
/// `engine` is NULL or a live engine.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_is_searching(engine: *const LazuliEngine) -> bool {
    // SAFETY: forwarded caller guarantee on `engine`.
    let Some(handle) = (unsafe { engine_ref(engine) }) else {
        return false;
    };
    let mut searching = false;
    let _ = boundary(Some(handle), || {
        searching = handle.control.lock().is_searching();
        Ok(())
    });
    searching
}

/// Counts the leaf nodes `depth` plies below the current position into `*out`.
///
/// # Safety
///
/// `engine` is a live engine; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_perft(
    engine: *mut LazuliEngine,
    depth: u32,
    out: *mut u64,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        if out.is_null() {
            return Err(Failure::Null("out"));
        }
        let nodes = handle.engine.lock().perft(depth);
        // SAFETY: non-NULL and writable by the caller's guarantee.
        unsafe { *out = nodes };
        Ok(())
    })
}

/// The static evaluation of the current position in centipawns from the side to move.
///
/// # Safety
///
/// `engine` is a live engine; `out_cp` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_evaluate(
    engine: *mut LazuliEngine,
    out_cp: *mut i32,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine`.
    let handle = unsafe { engine_ref(engine) };
    with_engine(handle, |handle| {
        if out_cp.is_null() {
            return Err(Failure::Null("out_cp"));
        }
        let cp = handle.engine.lock().evaluate().0;
        // SAFETY: non-NULL and writable by the caller's guarantee.
        unsafe { *out_cp = cp };
        Ok(())
    })
}

/// Copies the FEN of the current position into `buf` (NUL-terminated, truncated to `len`)
/// and returns the FEN's full length (without the NUL); 0 for a NULL engine. 100 bytes always
/// suffice.
///
/// # Safety
///
/// `engine` is NULL or a live engine; `buf` is NULL or writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_fen(
    engine: *const LazuliEngine,
    buf: *mut c_char,
    len: usize,
) -> usize {
    // SAFETY: forwarded caller guarantee on `engine`.
    let Some(handle) = (unsafe { engine_ref(engine) }) else {
        return 0;
    };
    let mut full = 0;
    let _ = boundary(Some(handle), || {
        let fen = handle.engine.lock().position().fen();
        full = fen.len();
        // SAFETY: forwarded caller guarantee on `buf` and `len`.
        unsafe { copy_out(&fen, buf, len) };
        Ok(())
    });
    full
}

/// Copies the message of this engine's last failure into `buf` (NUL-terminated, truncated to
/// `len`; `buf` may be NULL to ask for the length) and returns the message's full length
/// without the NUL ("" and 0 when nothing failed yet; 0 for a NULL engine). The message is
/// this engine's own, never a shared buffer.
///
/// # Safety
///
/// `engine` is NULL or a live engine; `buf` is NULL or writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_last_error(
    engine: *const LazuliEngine,
    buf: *mut c_char,
    len: usize,
) -> usize {
    // SAFETY: forwarded caller guarantee on `engine`.
    let Some(handle) = (unsafe { engine_ref(engine) }) else {
        return 0;
    };
    let message = handle.last_error.lock().clone();
    // SAFETY: forwarded caller guarantee on `buf` and `len`.
    unsafe { copy_out(&message, buf, len) };
    message.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
