//! Fuzzes the C API: the input is decoded (with `arbitrary`) into a sequence of calls on one
//! engine, with NULL pointers, non-UTF-8 strings, short buffers and NULL engines wherever
//! `include/lazuli.h` allows them. The functions and types are the library's own
//! (`lazuli::ffi`: its `extern "C"` functions and `#[repr(C)]` types, not a copy that could
//! drift; `tests/c_abi.rs` checks that the header describes the same layouts), called with raw
//! pointers as a C program calls them.
//!
//! Searches are bounded (depth 1 or 2) except `limits == NULL`, `infinite` and `ponder`, which
//! run until a `stop`: the harness sends one before any `wait` on such a search, and at the end of each
//! input. `Hash` and `Threads` are capped at 2, file options (`Hash File` too) get a path that
//! does not exist.
//!
//! Properties: every call returns one of the codes its documentation allows (never
//! `LAZULI_RESULT_INTERNAL_PANIC`); a failure leaves the position as it was and a message in
//! `lazuli_engine_last_error`; copied strings are NUL-terminated inside the buffer and
//! truncated exactly; perft agrees with the library's; every successful `go` with a best-move
//! callback calls it exactly once; the callbacks get well-formed reports.

#![no_main]

use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use lazuli::ffi::{
    LazuliBestmoveCallback, LazuliEngine, LazuliInfoCallback, LazuliLimits, LazuliOption,
    LazuliOptionType, LazuliResult, lazuli_engine_evaluate, lazuli_engine_fen, lazuli_engine_free,
    lazuli_engine_go, lazuli_engine_is_searching, lazuli_engine_last_error, lazuli_engine_new,
    lazuli_engine_new_game, lazuli_engine_perft, lazuli_engine_ponderhit, lazuli_engine_set_option,
    lazuli_engine_set_position, lazuli_engine_stop, lazuli_engine_wait, lazuli_limits_default,
    lazuli_option_count, lazuli_option_get, lazuli_version,
};
use lazuli::{OptionKind, Position, option_specs};
use libfuzzer_sys::fuzz_target;

// The result codes (`lazuli_result`) this harness expects. The functions are the library's,
// so a code is always one of `LazuliResult`'s values, and so are the enums in `lazuli_info`
// and `lazuli_option`; that the header gives them the same numbers is `tests/c_abi.rs`'s check.
const OK: LazuliResult = LazuliResult::Ok;
const NULL_ARGUMENT: LazuliResult = LazuliResult::NullArgument;
const INVALID_UTF8: LazuliResult = LazuliResult::InvalidUtf8;
const INVALID_FEN: LazuliResult = LazuliResult::InvalidFen;
const ILLEGAL_MOVE: LazuliResult = LazuliResult::IllegalMove;
const INVALID_OPTION: LazuliResult = LazuliResult::InvalidOption;
const BUSY: LazuliResult = LazuliResult::Busy;
const BUFFER_TOO_SMALL: LazuliResult = LazuliResult::BufferTooSmall;
const FILE_ERROR: LazuliResult = LazuliResult::FileError;

#[path = "c_api/input.rs"]
mod input;
use input::Op;

#[path = "c_api/callbacks.rs"]
mod callbacks;
use callbacks::{CALLBACKS, on_bestmove, on_info};

const CAP_HASH_MB: i64 = 2;
const CAP_THREADS: i64 = 2;
const CAP_PERFT: u32 = 2;
const NO_SUCH_FILE: &CStr = c"/nonexistent/lazuli-fuzz";
const MAX_OPS: usize = 48;
/// A buffer of this many bytes always holds the FEN and its NUL, as `lazuli_engine_fen`'s
/// documentation in include/lazuli.h says.
const FEN_ALWAYS_FITS: usize = 128;

/// The pointer a call writes through: NULL when the input asks for it, else the buffer's.
fn out_pointer(storage: &mut [c_char], null: bool) -> *mut c_char {
    if null {
        std::ptr::null_mut()
    } else {
        storage.as_mut_ptr()
    }
}

/// The engine that lives across executions (NULL until the first, or after a `Recreate`
/// that only freed it).
static ENGINE: AtomicPtr<LazuliEngine> = AtomicPtr::new(std::ptr::null_mut());

struct Harness {
    engine: *mut LazuliEngine,
    /// A search that ends only at a stop may be running.
    unbounded: bool,
    /// Successful `go` calls with a best-move callback since the input began.
    expected_bestmoves: u64,
    /// An option may differ from the baseline.
    options_changed: bool,
    /// This input has freed (and maybe recreated) the engine once already.
    recreated: bool,
}

/// A value to send instead of `value` for option `name`: `Hash` and `Threads` capped, a file
/// path that does not exist for `EvalFile`, `SyzygyPath` and `Hash File` (so that `Save Hash
/// to File` never writes); `None` to send it as it is.
fn bounded_option(name: Option<&CStr>, value: Option<&CStr>) -> Option<CString> {
    let name = name?.to_str().ok()?.trim().to_ascii_lowercase();
    let value = value?.to_str().ok()?.trim();
    match name.as_str() {
        "hash" | "threads" => {
            let cap = if name == "hash" {
                CAP_HASH_MB
            } else {
                CAP_THREADS
            };
            let n = value.parse::<i64>().ok()?;
            (n > cap).then(|| CString::new(cap.to_string()).unwrap())
        }
        "evalfile" | "syzygypath" | "hash file" if !value.is_empty() && value != "<empty>" => {
            Some(NO_SUCH_FILE.to_owned())
        }
        _ => None,
    }
}

/// The string a copying call (`fen`, `last_error`) wrote into `storage`: a finding unless
/// it is NUL-terminated inside the buffer.
fn copied(storage: &[c_char], call: &str) -> CString {
    let bytes: Vec<u8> = storage.iter().map(|&c| c as u8).collect();
    CStr::from_bytes_until_nul(&bytes)
        .unwrap_or_else(|_| panic!("{call} did not NUL-terminate"))
        .to_owned()
}

/// Panics (a finding) unless `code` is one of `allowed`, with the engine's last error.
fn check(call: &str, code: LazuliResult, allowed: &[LazuliResult]) {
    if !allowed.contains(&code) {
        let engine = CALLBACKS.engine.load(Ordering::Relaxed);
        let mut buf = [0 as c_char; 512];
        // SAFETY: the harness's engine (NULL or live); `buf` is writable for its length.
        unsafe { lazuli_engine_last_error(engine, buf.as_mut_ptr(), buf.len()) };
        // SAFETY: NUL-terminated inside the buffer (zeroed, and the call NUL-terminates).
        let message = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
        panic!("{call} returned {code:?}, allowed {allowed:?}; last error: {message:?}");
    }
}

impl Harness {
    fn fen(&self) -> String {
        let mut buf = [0 as c_char; 128];
        // SAFETY: `self.engine` is NULL or live; `buf` is writable for its length.
        let n = unsafe { lazuli_engine_fen(self.engine, buf.as_mut_ptr(), buf.len()) };
        // SAFETY: lazuli_engine_fen NUL-terminates inside the buffer.
        let text = unsafe { CStr::from_ptr(buf.as_ptr()) };
        assert_eq!(n, text.to_bytes().len(), "a FEN longer than 127 bytes");
        text.to_str().expect("the FEN is UTF-8").to_owned()
    }

    fn last_error(&self) -> String {
        let mut buf = [0 as c_char; 512];
        // SAFETY: as in `fen`.
        let n = unsafe { lazuli_engine_last_error(self.engine, buf.as_mut_ptr(), buf.len()) };
        // SAFETY: as in `fen`.
        let text = unsafe { CStr::from_ptr(buf.as_ptr()) };
        assert!(n >= text.to_bytes().len());
        text.to_string_lossy().into_owned()
    }

    /// A failure on `engine` (the harness's, or NULL) must leave a message on it.
    fn check_failure(&self, engine: *mut LazuliEngine, call: &str, code: LazuliResult) {
        if code != OK && !engine.is_null() {
            assert!(
                !self.last_error().is_empty(),
                "{call} failed ({code:?}) without a message"
            );
        }
    }

    fn create(&mut self) {
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is a valid place for the pointer.
        let code = unsafe { lazuli_engine_new(&mut raw) };
        check("new", code, &[OK]);
        assert!(!raw.is_null());
        self.engine = raw;
        CALLBACKS.engine.store(raw, Ordering::Relaxed);
        // SAFETY: a live engine and two static strings.
        let code = unsafe { lazuli_engine_set_option(raw, c"Hash".as_ptr(), c"1".as_ptr()) };
        check("set_option Hash 1", code, &[OK]);
        self.options_changed = false;
    }

    fn free(&mut self) {
        // SAFETY: NULL or the live engine, used by no other thread; not used afterwards.
        unsafe { lazuli_engine_free(self.engine) };
        self.engine = std::ptr::null_mut();
        CALLBACKS
            .engine
            .store(std::ptr::null_mut(), Ordering::Relaxed);
        self.unbounded = false;
    }

    /// Ends any search and checks that each successful `go` called its best-move callback once.
    fn finish_search(&mut self) {
        if self.engine.is_null() {
            return;
        }
        if self.unbounded {
            // SAFETY: a live engine.
            check("stop", unsafe { lazuli_engine_stop(self.engine) }, &[OK]);
            self.unbounded = false;
        }
        // SAFETY: a live engine; NULL buffer to only wait.
        let code = unsafe { lazuli_engine_wait(self.engine, std::ptr::null_mut(), 0) };
        check("wait", code, &[OK]);
        assert_eq!(
            CALLBACKS.bestmoves.load(Ordering::SeqCst),
            self.expected_bestmoves,
            "best-move callbacks after the searches ended"
        );
        // SAFETY: a live engine.
        assert!(!unsafe { lazuli_engine_is_searching(self.engine) });
    }

    /// The state every input starts from: a live engine, idle, the start position, an empty
    /// table and the default options with a 1 MB table.
    fn reset(&mut self) {
        CALLBACKS.stop_in_info.store(false, Ordering::Relaxed);
        CALLBACKS.bestmoves.store(0, Ordering::SeqCst);
        self.expected_bestmoves = 0;
        if self.engine.is_null() {
            self.create();
        }
        // The previous input ended its searches; this only makes sure.
        self.finish_search();
        if self.options_changed {
            for spec in option_specs() {
                let value = match spec.kind {
                    _ if spec.name == "Hash" => "1".to_owned(),
                    OptionKind::Spin { default, .. } => default.to_string(),
                    OptionKind::Check { default } => default.to_string(),
                    OptionKind::Combo { default, .. } => default.to_owned(),
                    OptionKind::Button => continue,
                    OptionKind::Text { default } => default.to_owned(),
                };
                let name = CString::new(spec.name).unwrap();
                let value = CString::new(value).unwrap();
                // SAFETY: a live engine, two NUL-terminated strings.
                let code =
                    unsafe { lazuli_engine_set_option(self.engine, name.as_ptr(), value.as_ptr()) };
                check("set_option to the default", code, &[OK]);
            }
            self.options_changed = false;
        }
        // SAFETY: a live engine; NULL for the start position and no moves.
        let code =
            unsafe { lazuli_engine_set_position(self.engine, std::ptr::null(), std::ptr::null()) };
        check("set_position startpos", code, &[OK]);
        // SAFETY: a live engine.
        check(
            "new_game",
            unsafe { lazuli_engine_new_game(self.engine) },
            &[OK],
        );
    }

    fn target(&self, null_engine: bool) -> *mut LazuliEngine {
        if null_engine {
            std::ptr::null_mut()
        } else {
            self.engine
        }
    }

    fn run(&mut self, op: &Op) {
        match op {
            // One new engine per input at most: each allocates a 16 MB table, the slowest
            // call by far.
            Op::Recreate { .. } if self.recreated => {}
            Op::Recreate { only_free } => {
                self.recreated = true;
                self.finish_search();
                self.free();
                if !only_free {
                    self.create();
                }
            }
            Op::NewNullOut => {
                // SAFETY: NULL is allowed and must be refused.
                let code = unsafe { lazuli_engine_new(std::ptr::null_mut()) };
                check("new(NULL)", code, &[NULL_ARGUMENT]);
            }
            Op::SetOption {
                name,
                value,
                null_engine,
            } => {
                let engine = self.target(*null_engine);
                let name = name.to_c();
                let value = value.to_c();
                let value = bounded_option(name.as_deref(), value.as_deref()).or(value);
                let fen_before = self.fen();
                let ptr = |t: &Option<CString>| t.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
                // SAFETY: NULL or the live engine; NULL or NUL-terminated strings that outlive
                // the call.
                let code = unsafe { lazuli_engine_set_option(engine, ptr(&name), ptr(&value)) };
                let allowed: &[LazuliResult] = if engine.is_null() || name.is_none() {
                    &[NULL_ARGUMENT]
                } else {
                    // The hash file buttons: a file refused, or a search running.
                    &[OK, INVALID_UTF8, INVALID_OPTION, FILE_ERROR, BUSY]
                };
                check("set_option", code, allowed);
                self.check_failure(engine, "set_option", code);
                if code == OK {
                    self.options_changed = true;
                }
                assert_eq!(self.fen(), fen_before, "set_option changed the position");
            }
            Op::NewGame { null_engine } => {
                let engine = self.target(*null_engine);
                // SAFETY: NULL or the live engine.
                let code = unsafe { lazuli_engine_new_game(engine) };
                check(
                    "new_game",
                    code,
                    &[if engine.is_null() { NULL_ARGUMENT } else { OK }],
                );
            }
            Op::SetPosition {
                fen,
                moves,
                null_engine,
            } => {
                let engine = self.target(*null_engine);
                let fen = fen.to_c();
                let moves = moves.to_c();
                let before = self.fen();
                let ptr = |t: &Option<CString>| t.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
                // SAFETY: NULL or the live engine; NULL or NUL-terminated strings.
                let code = unsafe { lazuli_engine_set_position(engine, ptr(&fen), ptr(&moves)) };
                let allowed: &[LazuliResult] = if engine.is_null() {
                    &[NULL_ARGUMENT]
                } else {
                    &[OK, INVALID_UTF8, INVALID_FEN, ILLEGAL_MOVE]
                };
                check("set_position", code, allowed);
                self.check_failure(engine, "set_position", code);
                let after = self.fen();
                if code == OK {
                    let pos = Position::from_fen(&after).unwrap_or_else(|e| {
                        panic!("the engine's FEN {after:?} does not parse: {e}")
                    });
                    assert_eq!(pos.fen(), after);
                } else if !engine.is_null() {
                    assert_eq!(after, before, "a refused position changed the engine's");
                }
            }
            Op::Go {
                limits,
                info,
                bestmove,
                stop_in_callback,
                null_engine,
            } => {
                let engine = self.target(*null_engine);
                let limits = limits.as_ref().map(|l| LazuliLimits {
                    depth: if l.deep { 2 } else { 1 },
                    nodes: u64::from(l.nodes),
                    movetime_ms: u64::from(l.movetime_ms),
                    wtime_ms: u64::from(l.wtime_ms),
                    btime_ms: u64::from(l.btime_ms),
                    winc_ms: u64::from(l.winc_ms),
                    binc_ms: u64::from(l.binc_ms),
                    movestogo: u32::from(l.movestogo),
                    mate: u32::from(l.mate),
                    infinite: l.infinite,
                    ponder: l.ponder,
                });
                let limits_ptr = limits.as_ref().map_or(std::ptr::null(), std::ptr::from_ref);
                CALLBACKS
                    .stop_in_info
                    .store(*stop_in_callback, Ordering::Relaxed);
                let info_cb: LazuliInfoCallback = if *info { Some(on_info) } else { None };
                let best_cb: LazuliBestmoveCallback =
                    if *bestmove { Some(on_bestmove) } else { None };
                let userdata = std::ptr::from_ref(&CALLBACKS).cast_mut().cast::<c_void>();
                // SAFETY: NULL or the live engine; `limits_ptr` NULL or valid for the call;
                // the callbacks have the header's signatures and are thread-safe; `userdata`
                // is a static, valid for ever.
                let code =
                    unsafe { lazuli_engine_go(engine, limits_ptr, info_cb, best_cb, userdata) };
                let allowed: &[LazuliResult] = if engine.is_null() {
                    &[NULL_ARGUMENT]
                } else {
                    &[OK, BUSY]
                };
                check("go", code, allowed);
                self.check_failure(engine, "go", code);
                if code == OK {
                    if *bestmove {
                        self.expected_bestmoves += 1;
                    }
                    if limits.is_none_or(|l| l.infinite || l.ponder) {
                        self.unbounded = true;
                    }
                }
            }
            Op::Stop { null_engine } => {
                let engine = self.target(*null_engine);
                // SAFETY: NULL or the live engine.
                let code = unsafe { lazuli_engine_stop(engine) };
                check(
                    "stop",
                    code,
                    &[if engine.is_null() { NULL_ARGUMENT } else { OK }],
                );
                if !engine.is_null() {
                    self.unbounded = false;
                }
            }
            Op::Wait { buf } => {
                if self.engine.is_null() {
                    // SAFETY: NULL must be refused.
                    let code = unsafe {
                        lazuli_engine_wait(std::ptr::null_mut(), std::ptr::null_mut(), 0)
                    };
                    check("wait(NULL)", code, &[NULL_ARGUMENT]);
                    return;
                }
                if self.unbounded {
                    // SAFETY: the live engine.
                    check("stop", unsafe { lazuli_engine_stop(self.engine) }, &[OK]);
                    self.unbounded = false;
                }
                let mut storage = vec![0x55 as c_char; usize::from(buf.len)];
                let ptr = out_pointer(&mut storage, buf.null);
                // SAFETY: the live engine; `ptr` NULL or writable for `len` bytes.
                let code = unsafe { lazuli_engine_wait(self.engine, ptr, storage.len()) };
                let allowed: &[LazuliResult] = if buf.null {
                    &[OK]
                } else {
                    &[OK, BUFFER_TOO_SMALL]
                };
                check("wait", code, allowed);
                self.check_failure(self.engine, "wait", code);
                if !buf.null && !storage.is_empty() {
                    assert!(
                        storage.contains(&0),
                        "wait did not NUL-terminate its buffer"
                    );
                }
                if code == BUFFER_TOO_SMALL && storage.len() >= 8 {
                    panic!("wait: 8 bytes should always suffice");
                }
                assert_eq!(
                    CALLBACKS.bestmoves.load(Ordering::SeqCst),
                    self.expected_bestmoves,
                    "best-move callbacks after wait"
                );
            }
            Op::Ponderhit { null_engine } => {
                let engine = self.target(*null_engine);
                // SAFETY: NULL or the live engine.
                let code = unsafe { lazuli_engine_ponderhit(engine) };
                check(
                    "ponderhit",
                    code,
                    &[if engine.is_null() { NULL_ARGUMENT } else { OK }],
                );
            }
            Op::IsSearching { null_engine } => {
                let engine = self.target(*null_engine);
                // SAFETY: NULL or the live engine.
                let searching = unsafe { lazuli_engine_is_searching(engine) };
                assert!(!(engine.is_null() && searching));
            }
            Op::Perft {
                depth,
                null_out,
                null_engine,
            } => {
                let engine = self.target(*null_engine);
                let depth = u32::from(*depth) % (CAP_PERFT + 1);
                let mut nodes = u64::MAX;
                let out = if *null_out {
                    std::ptr::null_mut()
                } else {
                    &raw mut nodes
                };
                // SAFETY: NULL or the live engine; `out` NULL or writable.
                let code = unsafe { lazuli_engine_perft(engine, depth, out) };
                check(
                    "perft",
                    code,
                    &[if engine.is_null() || *null_out {
                        NULL_ARGUMENT
                    } else {
                        OK
                    }],
                );
                self.check_failure(engine, "perft", code);
                if code == OK {
                    let pos = Position::from_fen(&self.fen()).expect("the engine's FEN parses");
                    assert_eq!(nodes, pos.perft(depth), "perft {depth} of {}", self.fen());
                }
            }
            Op::Evaluate {
                null_out,
                null_engine,
            } => {
                let engine = self.target(*null_engine);
                let mut cp = 0i32;
                let out = if *null_out {
                    std::ptr::null_mut()
                } else {
                    &raw mut cp
                };
                // SAFETY: NULL or the live engine; `out` NULL or writable.
                let code = unsafe { lazuli_engine_evaluate(engine, out) };
                check(
                    "evaluate",
                    code,
                    &[if engine.is_null() || *null_out {
                        NULL_ARGUMENT
                    } else {
                        OK
                    }],
                );
            }
            Op::Fen { buf, null_engine } => {
                let engine = self.target(*null_engine);
                let mut storage = vec![0x55 as c_char; usize::from(buf.len)];
                let ptr = out_pointer(&mut storage, buf.null);
                // SAFETY: NULL or the live engine; `ptr` NULL or writable for `len` bytes.
                let n = unsafe { lazuli_engine_fen(engine, ptr, storage.len()) };
                if engine.is_null() {
                    assert_eq!(n, 0);
                    return;
                }
                assert!(
                    (1..FEN_ALWAYS_FITS).contains(&n),
                    "a FEN of {n} bytes: {FEN_ALWAYS_FITS} bytes should always suffice"
                );
                if !buf.null && !storage.is_empty() {
                    let full = self.fen();
                    let got = copied(&storage, "fen");
                    let keep = full.len().min(storage.len() - 1);
                    assert_eq!(
                        got.to_bytes(),
                        &full.as_bytes()[..keep],
                        "fen truncated wrongly"
                    );
                }
            }
            Op::LastError { buf, null_engine } => {
                let engine = self.target(*null_engine);
                let mut storage = vec![0x55 as c_char; usize::from(buf.len)];
                let ptr = out_pointer(&mut storage, buf.null);
                // SAFETY: NULL or the live engine; `ptr` NULL or writable for `len` bytes.
                let n = unsafe { lazuli_engine_last_error(engine, ptr, storage.len()) };
                if engine.is_null() {
                    assert_eq!(n, 0);
                    return;
                }
                if !buf.null && !storage.is_empty() {
                    let got = copied(&storage, "last_error");
                    assert_eq!(got.to_bytes().len(), n.min(storage.len() - 1));
                }
            }
            Op::OptionGet { index, null_out } => {
                let index = usize::from(*index);
                let mut out = LazuliOption {
                    name: std::ptr::null(),
                    option_type: LazuliOptionType::Button,
                    default_value: 0,
                    min: 0,
                    max: 0,
                    default_string: std::ptr::null(),
                    vars: std::ptr::null(),
                };
                let ptr = if *null_out {
                    std::ptr::null_mut()
                } else {
                    &raw mut out
                };
                // SAFETY: `ptr` NULL or writable.
                let code = unsafe { lazuli_option_get(index, ptr) };
                let specs = option_specs();
                let expected = if *null_out {
                    NULL_ARGUMENT
                } else if index < specs.len() {
                    OK
                } else {
                    INVALID_OPTION
                };
                check("option_get", code, &[expected]);
                if code == OK {
                    assert!(!out.name.is_null());
                    let option_type = match specs[index].kind {
                        OptionKind::Spin { .. } => LazuliOptionType::Spin,
                        OptionKind::Check { .. } => LazuliOptionType::Check,
                        OptionKind::Combo { .. } => LazuliOptionType::Combo,
                        OptionKind::Button => LazuliOptionType::Button,
                        OptionKind::Text { .. } => LazuliOptionType::String,
                    };
                    assert_eq!(out.option_type, option_type, "option {index}'s type");
                    // SAFETY: a static NUL-terminated string, as the header says.
                    let name = unsafe { CStr::from_ptr(out.name) };
                    assert_eq!(name.to_str(), Ok(specs[index].name));
                    assert!(out.min <= out.max);
                }
            }
            Op::Statics => {
                let count = lazuli_option_count();
                assert_eq!(count, option_specs().len());
                // SAFETY: lazuli_version returns a static NUL-terminated string.
                let version = unsafe { CStr::from_ptr(lazuli_version()) };
                assert!(version.to_str().is_ok_and(|v| !v.is_empty()));
                let limits = lazuli_limits_default();
                assert!(limits.depth == 0 && limits.nodes == 0 && !limits.infinite);
            }
        }
    }
}

/// Whether the engine in [`ENGINE`] may have options other than the baseline.
static OPTIONS_CHANGED: AtomicBool = AtomicBool::new(false);

fuzz_target!(|ops: Vec<Op>| {
    let mut harness = Harness {
        engine: ENGINE.load(Ordering::Relaxed),
        unbounded: false,
        expected_bestmoves: 0,
        options_changed: OPTIONS_CHANGED.load(Ordering::Relaxed),
        recreated: false,
    };
    harness.reset();
    for op in ops.iter().take(MAX_OPS) {
        harness.run(op);
    }
    harness.finish_search();
    ENGINE.store(harness.engine, Ordering::Relaxed);
    OPTIONS_CHANGED.store(harness.options_changed, Ordering::Relaxed);
});
