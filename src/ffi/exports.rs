//! The exported functions. Each runs inside the panic boundary (`engine_call!` or
//! `boundary`), checks every pointer for NULL before use, and leaves the engine unchanged on
//! failure.

use std::ffi::{CStr, CString, c_char, c_void};

use parking_lot::Mutex;

use super::boundary::{
    Failure, boundary, copy_out, engine_call, engine_ref, install_quiet_panic_hook, str_arg,
};
use super::handler::CallbackHandler;
use super::{
    LazuliBestmoveCallback, LazuliEngine, LazuliInfoCallback, LazuliLimits, LazuliOption,
    LazuliOptionType, LazuliResult,
};
use crate::engine::Engine;
use crate::error::Error;
use crate::options::{OptionKind, option_specs};
use crate::state::SearchControl;

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
        let mut strings = Vec::new();
        let mut options = Vec::new();
        let mut keep = |text: &str| -> *const c_char {
            let c = CString::new(text).expect("option strings have no NUL");
            let ptr = c.as_ptr(); // the heap buffer does not move when the CString is moved
            strings.push(c);
            ptr
        };
        for spec in option_specs() {
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
                OptionKind::Text { default } => {
                    (LazuliOptionType::String, 0, 0, 0, Some(keep(default)), None)
                }
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
            control: engine.control(),
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
        handle.control.stop();
        drop(handle); // Engine::drop stops and joins every search thread
        Ok(())
    });
}

/// Sets an option by its UCI name (any case) to `value` as UCI writes it ("64", "true",
/// "verified"); `value` may be NULL for buttons. During a search the option is checked now and
/// applied when the search ends. The options, in the order of `lazuli_option_get` (which gives
/// each one's type, default, range and choices): "Threads", "Hash", "Clear Hash", "Hash File",
/// "Save Hash to File", "Load Hash from File", "Never Clear Hash", "MultiPV", "Ponder",
/// "Move Overhead", "UCI_Chess960", "NullMove", "NullMoveR", "NullMoveAdaptive", "LMR",
/// "Pruning", "UseNNUE", "EvalFile", "SyzygyPath", "SyzygyProbeDepth", "Syzygy50MoveRule",
/// "SyzygyProbeLimit", "UCI_ShowWDL", "UCI_LimitStrength", "UCI_Elo", "Skill Level",
/// "Skill Seed" (a build with the `tune` feature adds its search constants after these;
/// `tests/c_abi.rs` checks this list against the engine's). The two hash file buttons act at
/// once and are refused during a search (`LAZULI_RESULT_BUSY`), as
/// `lazuli_engine_save_hash` and `lazuli_engine_load_hash`.
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
    engine_call!(engine, |handle| {
        // SAFETY: forwarded caller guarantee on `name` and `value`.
        let name = unsafe { str_arg(name, "name") }?.ok_or(Failure::Null("name"))?;
        // SAFETY: as above.
        let value = unsafe { str_arg(value, "value") }?.unwrap_or("");
        Ok(handle.engine.lock().set_option(name, value)?)
    })
}

/// Saves the hash table to the file `path` (NULL: the path of the option "Hash File"), in the
/// format of the repository's `docs/persistent-hash.md`, streamed through a small buffer; the
/// file is written as `PATH.part` and renamed when complete. `LAZULI_RESULT_BUSY` during a
/// search (refused, not deferred); `LAZULI_RESULT_FILE_ERROR` for an empty path or a file that
/// cannot be written (an existing file is left as it was).
///
/// # Safety
///
/// `engine` is NULL or a live engine; `path` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_save_hash(
    engine: *mut LazuliEngine,
    path: *const c_char,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine` and `path`.
    unsafe { hash_file_call(engine, path, Engine::save_hash) }
}

/// Loads the hash file `path` (NULL: the path of the option "Hash File") into the table: in
/// place when it was saved from a table of the current "Hash", else rehashed into it (each
/// entry stored by its key). The whole file is checked first: `LAZULI_RESULT_FILE_ERROR` for
/// an empty path, a missing, unreadable, damaged, truncated or foreign file, with the table
/// left as it was; `LAZULI_RESULT_BUSY` during a search.
///
/// # Safety
///
/// `engine` is NULL or a live engine; `path` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_load_hash(
    engine: *mut LazuliEngine,
    path: *const c_char,
) -> LazuliResult {
    // SAFETY: forwarded caller guarantee on `engine` and `path`.
    unsafe { hash_file_call(engine, path, Engine::load_hash) }
}

/// `action` with `path`, or the `Hash File` option's path for NULL.
///
/// # Safety
///
/// `engine` is NULL or a live engine; `path` is NULL or a NUL-terminated string.
unsafe fn hash_file_call<R>(
    engine: *mut LazuliEngine,
    path: *const c_char,
    action: fn(&mut Engine, &str) -> Result<R, Error>,
) -> LazuliResult {
    engine_call!(engine, |handle| {
        // SAFETY: forwarded caller guarantee on `path`.
        let path = unsafe { str_arg(path, "path") }?;
        let mut engine = handle.engine.lock();
        let path = path.map_or_else(|| engine.options().hash_file.clone(), str::to_owned);
        action(&mut engine, &path)?;
        Ok(())
    })
}

/// Starts a new game: clears the hash table (unless the option "Never Clear Hash" is set) and
/// the move-ordering history (after the running search, if one runs).
///
/// # Safety
///
/// `engine` is NULL or a live engine.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazuli_engine_new_game(engine: *mut LazuliEngine) -> LazuliResult {
    engine_call!(engine, |handle| {
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
    engine_call!(engine, |handle| {
        // SAFETY: forwarded caller guarantee on `fen` and `moves`.
        let fen = unsafe { str_arg(fen, "fen") }?;
        // SAFETY: as above.
        let moves = unsafe { str_arg(moves, "moves") }?.unwrap_or("");
        let moves: Vec<&str> = moves.split_whitespace().collect();
        Ok(handle.engine.lock().set_position(fen, &moves)?)
    })
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
    engine_call!(engine, |handle| {
        // SAFETY: the caller guarantees `limits` is NULL or a valid lazuli_limits.
        let limits = unsafe { limits.as_ref() }.copied().unwrap_or_default();
        let mut engine = handle.engine.lock();
        let chess960 = engine.options().chess960;
        let handler = CallbackHandler::new(info_callback, bestmove_callback, userdata, chess960);
        Ok(engine.go(limits.into(), handler)?)
    })
}

/// `action` on the engine's search control, which never waits for the engine's lock.
///
/// # Safety
///
/// `engine` is NULL or a live engine.
unsafe fn control_call(engine: *mut LazuliEngine, action: fn(&SearchControl)) -> LazuliResult {
    engine_call!(engine, |handle| {
        action(&handle.control);
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
    unsafe { control_call(engine, SearchControl::stop) }
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
    engine_call!(engine, |handle| {
        let result = handle.control.wait();
        let engine = handle.engine.lock();
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
    unsafe { control_call(engine, SearchControl::ponderhit) }
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
        searching = handle.control.is_searching();
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
    engine_call!(engine, |handle| {
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
    engine_call!(engine, |handle| {
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
/// and returns the FEN's full length (without the NUL); 0 for a NULL engine. 128 bytes always
/// suffice (a FEN is at most 103 characters, with both counters at their 32-bit maximum).
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
    // SAFETY: forwarded caller guarantee on `engine`, `buf` and `len`.
    unsafe {
        copy_text(engine, buf, len, |handle| {
            handle.engine.lock().position().fen()
        })
    }
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
    // SAFETY: forwarded caller guarantee on `engine`, `buf` and `len`.
    unsafe { copy_text(engine, buf, len, |handle| handle.last_error.lock().clone()) }
}

/// Copies the text `text_of` gives for the engine into `buf` (NUL-terminated, truncated to
/// `len`) inside the panic boundary; returns the text's full length, 0 for a NULL engine.
///
/// # Safety
///
/// `engine` is NULL or a live engine; `buf` is NULL or writable for `len` bytes.
unsafe fn copy_text(
    engine: *const LazuliEngine,
    buf: *mut c_char,
    len: usize,
    text_of: impl FnOnce(&LazuliEngine) -> String,
) -> usize {
    // SAFETY: forwarded caller guarantee on `engine`.
    let Some(handle) = (unsafe { engine_ref(engine) }) else {
        return 0;
    };
    let mut full = 0;
    let _ = boundary(Some(handle), || {
        let text = text_of(handle);
        full = text.len();
        // SAFETY: forwarded caller guarantee on `buf` and `len`.
        unsafe { copy_out(&text, buf, len) };
        Ok(())
    });
    full
}
