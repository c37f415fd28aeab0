//! The boundary every export crosses: NULL and UTF-8 checks, the panic boundary, error codes
//! and messages, copying strings out to the caller's buffers.

use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use super::{LazuliEngine, LazuliResult};
use crate::error::Error;

/// The prologue of every export on an engine (after rustls-ffi's `ffi_panic_boundary!`): the
/// handle is checked for NULL (`LAZULI_RESULT_NULL_ARGUMENT`), then the body runs inside the
/// panic boundary, a failure's message recorded on the engine.
macro_rules! engine_call {
    ($engine:expr, |$handle:ident| $body:expr) => {{
        // SAFETY: every export's contract says its `engine` argument is NULL or a live engine
        // from `lazuli_engine_new`, not yet freed.
        let handle = unsafe { $crate::ffi::boundary::engine_ref($engine) };
        $crate::ffi::boundary::with_engine(handle, |$handle| $body)
    }};
}
pub(super) use engine_call;

/// A failure at the boundary: an argument problem or an engine error.
pub(super) enum Failure {
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
                Error::File(_) => LazuliResult::FileError,
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
pub(super) fn install_quiet_panic_hook() {
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
pub(super) fn boundary(
    engine: Option<&LazuliEngine>,
    body: impl FnOnce() -> Result<(), Failure>,
) -> LazuliResult {
    let was_inside = IN_LIBRARY.with(|f| f.replace(true));
    let outcome = catch_unwind(AssertUnwindSafe(body));
    IN_LIBRARY.with(|f| f.set(was_inside));
    let failure = match outcome {
        Ok(Ok(())) => return LazuliResult::Ok,
        Ok(Err(failure)) => failure,
        Err(payload) => Failure::Engine(Error::from_panic("", payload.as_ref())),
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
pub(super) unsafe fn engine_ref<'a>(engine: *const LazuliEngine) -> Option<&'a LazuliEngine> {
    // SAFETY: the caller guarantees the pointer is NULL or points to a live engine created by
    // `lazuli_engine_new` (a `Box` that only `lazuli_engine_free` releases).
    unsafe { engine.as_ref() }
}

/// Runs `body` on the engine inside the panic boundary, recording a failure's message on it;
/// no engine (a NULL handle) gives `LAZULI_RESULT_NULL_ARGUMENT`.
pub(super) fn with_engine(
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
pub(super) unsafe fn str_arg<'a>(
    text: *const c_char,
    name: &'static str,
) -> Result<Option<&'a str>, Failure> {
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
pub(super) unsafe fn copy_out(text: &str, buf: *mut c_char, len: usize) -> bool {
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
