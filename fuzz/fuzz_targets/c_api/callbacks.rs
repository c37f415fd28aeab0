//! The harness's callbacks (`c_api.rs`): they check every report an engine thread gives them
//! and count the best moves; a broken property aborts, which libFuzzer records as a crash.

use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

use lazuli::ffi::{LazuliEngine, LazuliInfo, LazuliResult, lazuli_engine_stop};

/// What the callbacks see; lives for the whole process (the `userdata` of every search).
pub(crate) struct Callbacks {
    pub(crate) bestmoves: AtomicU64,
    pub(crate) stop_in_info: AtomicBool,
    pub(crate) engine: AtomicPtr<LazuliEngine>,
}

pub(crate) static CALLBACKS: Callbacks = Callbacks {
    bestmoves: AtomicU64::new(0),
    stop_in_info: AtomicBool::new(false),
    engine: AtomicPtr::new(std::ptr::null_mut()),
};

/// Reports a broken property from a callback (an engine thread, where a panic could not leave
/// an `extern "C"` function) and aborts, which libFuzzer records as a crash.
fn fail(what: &str) -> ! {
    eprintln!("c_api callback: {what}");
    std::process::abort()
}

/// # Safety
///
/// Called by the engine with `info` valid for the call, `userdata` = `&CALLBACKS`.
pub(crate) unsafe extern "C" fn on_info(userdata: *mut c_void, info: *const LazuliInfo) {
    if userdata.cast_const() != std::ptr::from_ref(&CALLBACKS).cast::<c_void>() {
        fail("info: wrong userdata");
    }
    // SAFETY: the header says `info` is valid during the call (checked for NULL first).
    let Some(info) = (unsafe { info.as_ref() }) else {
        fail("info is NULL")
    };
    if info.pv.is_null() {
        fail("info.pv is NULL");
    }
    // SAFETY: non-NULL, and the header says `pv` is a NUL-terminated string valid during the call.
    let pv = unsafe { CStr::from_ptr(info.pv) };
    if pv.to_str().is_err() {
        fail("info.pv is not UTF-8");
    }
    // `score_kind` and `bound` are `LazuliScoreKind` and `LazuliBound`: in range by their type.
    if info.multipv == 0 {
        fail("info has a field out of range");
    }
    if info.wdl_win + info.wdl_draw + info.wdl_loss != 1000 {
        fail("info: win + draw + loss is not 1000");
    }
    if CALLBACKS.stop_in_info.load(Ordering::Relaxed) {
        let engine = CALLBACKS.engine.load(Ordering::Relaxed);
        // SAFETY: the engine outlives its searches (free stops and joins them first); stop is
        // allowed from a callback.
        let code = unsafe { lazuli_engine_stop(engine) };
        if code != LazuliResult::Ok {
            fail("stop from a callback failed");
        }
    }
}

/// # Safety
///
/// Called by the engine with `bestmove` (and `ponder` if not NULL) valid for the call.
pub(crate) unsafe extern "C" fn on_bestmove(
    userdata: *mut c_void,
    bestmove: *const c_char,
    ponder: *const c_char,
) {
    if userdata.cast_const() != std::ptr::from_ref(&CALLBACKS).cast::<c_void>() {
        fail("bestmove: wrong userdata");
    }
    if bestmove.is_null() {
        fail("bestmove is NULL");
    }
    // SAFETY: non-NULL, NUL-terminated and valid during the call, as the header says.
    let best = unsafe { CStr::from_ptr(bestmove) };
    if best.to_str().is_err() || best.to_bytes().len() >= 8 {
        fail("bestmove is not a short UTF-8 string");
    }
    if !ponder.is_null() {
        // SAFETY: as above.
        let ponder = unsafe { CStr::from_ptr(ponder) };
        if ponder.to_str().is_err() {
            fail("ponder is not UTF-8");
        }
    }
    CALLBACKS.bestmoves.fetch_add(1, Ordering::SeqCst);
}
