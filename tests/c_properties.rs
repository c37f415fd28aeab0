//! Random sequences of C API calls with random arguments, from several host threads at once on
//! one engine, each result checked against what `include/lazuli.h` promises: a documented
//! code for every call, `OK` where the header says the call cannot fail, a best move that is
//! legal in the position searched, and an engine that still searches afterwards.
//!
//! The functions and types are the library's own (`lazuli::ffi`: its `extern "C"` functions and
//! `#[repr(C)]` types, not a copy that could drift; `tests/c_abi.rs` checks that the header
//! describes the same layouts), called with raw pointers as a C host calls them. proptest draws
//! the sequences from its deterministic seed; `PROPTEST_CASES` sets how many (default 24: each
//! case starts an engine and up to three host threads).

#![expect(unsafe_code, reason = "calls the C ABI through its symbols")]

use std::ffi::{CStr, CString, c_char};
use std::ptr;
use std::sync::Barrier;

use lazuli::ffi::{
    LazuliEngine, LazuliLimits, LazuliResult, lazuli_engine_evaluate, lazuli_engine_fen,
    lazuli_engine_free, lazuli_engine_go, lazuli_engine_is_searching, lazuli_engine_last_error,
    lazuli_engine_load_hash, lazuli_engine_new, lazuli_engine_new_game, lazuli_engine_perft,
    lazuli_engine_ponderhit, lazuli_engine_save_hash, lazuli_engine_set_option,
    lazuli_engine_set_position, lazuli_engine_stop, lazuli_engine_wait,
};
use proptest::prelude::*;

/// One call and its arguments. Strings are raw bytes (not always UTF-8, never with NUL);
/// `None` is a NULL pointer.
#[derive(Clone, Debug)]
enum Call {
    SetOption(Option<Vec<u8>>, Option<Vec<u8>>),
    NewGame,
    SetPosition(Option<Vec<u8>>, Option<Vec<u8>>),
    Go(Option<LazuliLimits>),
    Stop,
    Wait(usize),
    Ponderhit,
    IsSearching,
    Perft(u32),
    Evaluate,
    Fen(usize),
    LastError(usize),
    /// Save (true) or load the table: `path` 0 NULL (the empty `Hash File`), 1 this process's
    /// scratch file, 2 a folder that does not exist.
    HashFile(bool, u8),
}

/// The scratch hash file of this test process.
fn scratch_hash_file() -> CString {
    let path = std::env::temp_dir().join(format!("lazuli-c-properties-{}.lzh", std::process::id()));
    CString::new(path.to_str().unwrap()).unwrap()
}

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "not a fen",
];

fn bytes(choices: &'static [&'static str]) -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        6 => prop::sample::select(choices).prop_map(|s| Some(s.as_bytes().to_vec())),
        1 => Just(None),
        1 => prop::collection::vec(1u8..=255, 0..12).prop_map(Some),
    ]
}

fn limits() -> impl Strategy<Value = Option<LazuliLimits>> {
    let bounded = (
        0u32..4,
        1u64..3000,
        0u64..40,
        0u64..300,
        0u32..3,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(depth, nodes, movetime_ms, wtime_ms, mate, infinite, ponder)| LazuliLimits {
                depth,
                nodes,
                movetime_ms,
                wtime_ms,
                btime_ms: wtime_ms,
                mate,
                // `run` stops an infinite search right after starting it, so that a `wait` of
                // another host thread cannot block for ever.
                infinite: infinite && movetime_ms > 0,
                // A ponder search gets `ponderhit` right after it starts (see `run`); its node
                // limit then ends it.
                ponder,
                ..LazuliLimits::default()
            },
        );
    prop_oneof![9 => bounded.prop_map(Some), 1 => Just(None)]
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        1 => (
            bytes(&["Hash", "Threads", "MultiPV", "Clear Hash", "Ponder", "NullMove", "nonsense"]),
            bytes(&["1", "2", "3", "true", "standard", "0", "-1", "99999999999", ""]),
        )
            .prop_map(|(n, v)| Call::SetOption(n, v)),
        1 => Just(Call::NewGame),
        1 => (bytes(FENS), bytes(&["e2e4", "e2e4 e7e5", "e1g1", "zz", "e2e5", ""]))
            .prop_map(|(f, m)| Call::SetPosition(f, m)),
        3 => limits().prop_map(Call::Go),
        2 => Just(Call::Stop),
        2 => prop_oneof![Just(0usize), Just(3), Just(8)].prop_map(Call::Wait),
        1 => Just(Call::Ponderhit),
        1 => Just(Call::IsSearching),
        1 => (0u32..4).prop_map(Call::Perft),
        1 => Just(Call::Evaluate),
        1 => prop_oneof![Just(0usize), Just(5), Just(128)].prop_map(Call::Fen),
        1 => prop_oneof![Just(0usize), Just(5), Just(256)].prop_map(Call::LastError),
        1 => (any::<bool>(), 0u8..3).prop_map(|(save, path)| Call::HashFile(save, path)),
    ]
}

fn c_string(bytes: &Option<Vec<u8>>) -> Option<CString> {
    bytes
        .as_ref()
        .map(|b| CString::new(b.clone()).expect("no NUL drawn"))
}

fn ptr_of(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(ptr::null(), |s| s.as_ptr())
}

/// A raw engine pointer shared by the host threads; the header allows calls from any thread.
#[derive(Clone, Copy)]
struct Shared(*mut LazuliEngine);
// SAFETY: the C API serialises calls on one engine internally (header: "Calls on one engine may
// come from any thread"); the pointer is freed only after every host thread has been joined.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// Runs one call and checks its result against the header.
fn run(engine: *mut LazuliEngine, call: &Call) -> Result<(), String> {
    use LazuliResult as R;
    let check = |name: &str, got: LazuliResult, allowed: &[LazuliResult]| {
        if allowed.contains(&got) {
            Ok(())
        } else {
            Err(format!("{name}: {got:?} not in {allowed:?} for {call:?}"))
        }
    };
    match call {
        Call::SetOption(name, value) => {
            let (n, v) = (c_string(name), c_string(value));
            // SAFETY: a live engine; both strings NULL or NUL-terminated.
            let r = unsafe { lazuli_engine_set_option(engine, ptr_of(&n), ptr_of(&v)) };
            let allowed: &[LazuliResult] = if name.is_none() {
                &[R::NullArgument]
            } else {
                &[
                    R::Ok,
                    R::NullArgument,
                    R::InvalidUtf8,
                    R::InvalidOption,
                    R::OutOfMemory,
                ]
            };
            check("set_option", r, allowed)
        }
        Call::NewGame => {
            // SAFETY: a live engine.
            let r = unsafe { lazuli_engine_new_game(engine) };
            check("new_game", r, &[R::Ok])
        }
        Call::SetPosition(fen, moves) => {
            let (f, m) = (c_string(fen), c_string(moves));
            // SAFETY: a live engine; both strings NULL or NUL-terminated.
            let r = unsafe { lazuli_engine_set_position(engine, ptr_of(&f), ptr_of(&m)) };
            check(
                "set_position",
                r,
                &[R::Ok, R::InvalidUtf8, R::InvalidFen, R::IllegalMove],
            )
        }
        Call::Go(limits) => {
            let l = limits
                .as_ref()
                .map_or(ptr::null(), |l| l as *const LazuliLimits);
            // SAFETY: a live engine; `l` NULL or a valid struct for the call; no callbacks and
            // so no userdata to keep alive.
            let r = unsafe { lazuli_engine_go(engine, l, None, None, ptr::null_mut()) };
            if limits.is_some_and(|l| l.ponder && !l.infinite) {
                // SAFETY: a live engine.
                unsafe { lazuli_engine_ponderhit(engine) };
            } else if limits.is_none() || limits.is_some_and(|l| l.infinite) {
                // No limit or infinite: stopped right away so the sequence can go on.
                // SAFETY: a live engine.
                unsafe { lazuli_engine_stop(engine) };
            }
            check("go", r, &[R::Ok, R::Busy])
        }
        Call::Stop => {
            // SAFETY: a live engine.
            check("stop", unsafe { lazuli_engine_stop(engine) }, &[R::Ok])
        }
        Call::Wait(len) => {
            let mut buf = vec![0 as c_char; *len];
            let p = out_pointer(&mut buf);
            // SAFETY: a live engine; `p` NULL or writable for `len` bytes.
            let r = unsafe { lazuli_engine_wait(engine, p, *len) };
            if *len >= 8 && r == R::Ok {
                // SAFETY: on success the buffer holds a NUL-terminated string.
                let text = unsafe { CStr::from_ptr(buf.as_ptr()) };
                let text = text.to_str().map_err(|e| e.to_string())?;
                let ok = text.is_empty()
                    || text == "(none)"
                    || (4..=5).contains(&text.len())
                        && text.bytes().all(|b| b.is_ascii_alphanumeric());
                if !ok {
                    return Err(format!("wait gave {text:?}"));
                }
            }
            check("wait", r, &[R::Ok, R::BufferTooSmall, R::InternalPanic])
        }
        Call::Ponderhit => {
            // SAFETY: a live engine.
            check(
                "ponderhit",
                unsafe { lazuli_engine_ponderhit(engine) },
                &[R::Ok],
            )
        }
        Call::IsSearching => {
            // SAFETY: a live engine.
            unsafe { lazuli_engine_is_searching(engine) };
            Ok(())
        }
        Call::Perft(depth) => {
            let mut n = 0u64;
            // SAFETY: a live engine; `n` writable.
            let r = unsafe { lazuli_engine_perft(engine, *depth, &mut n) };
            check("perft", r, &[R::Ok, R::Busy])
        }
        Call::Evaluate => {
            let mut cp = 0i32;
            // SAFETY: a live engine; `cp` writable.
            let r = unsafe { lazuli_engine_evaluate(engine, &mut cp) };
            check("evaluate", r, &[R::Ok, R::Busy])
        }
        Call::Fen(len) => {
            let mut buf = vec![0 as c_char; *len];
            let p = out_pointer(&mut buf);
            // SAFETY: a live engine; `p` NULL or writable for `len` bytes.
            let needed = unsafe { lazuli_engine_fen(engine, p, *len) };
            if needed == 0 || needed >= 128 {
                return Err(format!("fen needs {needed} bytes"));
            }
            Ok(())
        }
        Call::LastError(len) => {
            let mut buf = vec![0 as c_char; *len];
            let p = out_pointer(&mut buf);
            // SAFETY: a live engine; `p` NULL or writable for `len` bytes.
            unsafe { lazuli_engine_last_error(engine, p, *len) };
            Ok(())
        }
        Call::HashFile(save, path) => {
            let path = match path {
                0 => None,
                1 => Some(scratch_hash_file()),
                _ => Some(c"/nonexistent-lazuli/table.lzh".to_owned()),
            };
            // SAFETY: a live engine; the path NULL or NUL-terminated.
            let r = unsafe {
                if *save {
                    lazuli_engine_save_hash(engine, ptr_of(&path))
                } else {
                    lazuli_engine_load_hash(engine, ptr_of(&path))
                }
            };
            // A missing, empty or unwritable path, a file of a table of another size, a search.
            let allowed = [R::Ok, R::Busy, R::FileError];
            check(if *save { "save_hash" } else { "load_hash" }, r, &allowed)
        }
    }
}

/// The buffer's pointer, or NULL for an empty buffer (the header allows NULL with length 0).
fn out_pointer(buf: &mut [c_char]) -> *mut c_char {
    if buf.is_empty() {
        ptr::null_mut()
    } else {
        buf.as_mut_ptr()
    }
}

/// The engine's last error message.
fn last_error(engine: *mut LazuliEngine) -> String {
    let mut buf = vec![0 as c_char; 512];
    // SAFETY: a live engine; `buf` writable for its length.
    unsafe { lazuli_engine_last_error(engine, buf.as_mut_ptr(), buf.len()) };
    // SAFETY: the function NUL-terminates what it writes into a non-empty buffer.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// 24 cases, or `PROPTEST_CASES`.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(config())]

    /// Up to three host threads, each with its own random sequence, on one engine; then one
    /// host stops, waits, checks the engine still plays a legal move, and frees it.
    #[test]
    fn random_call_sequences_from_several_threads(
        sequences in prop::collection::vec(prop::collection::vec(call(), 1..16), 1..4),
    ) {
        let mut raw: *mut LazuliEngine = ptr::null_mut();
        // SAFETY: `raw` is writable.
        prop_assert_eq!(unsafe { lazuli_engine_new(&mut raw) }, LazuliResult::Ok);
        let shared = Shared(raw);
        let start = Barrier::new(sequences.len());
        let outcomes: Vec<Result<(), String>> = std::thread::scope(|s| {
            let handles: Vec<_> = sequences
                .iter()
                .map(|calls| {
                    let start = &start;
                    s.spawn(move || {
                        let engine = shared;
                        start.wait();
                        calls.iter().try_for_each(|c| run(engine.0, c))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a host thread")).collect()
        });
        for outcome in outcomes {
            prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
        }
        // Whatever happened, the engine is usable: stop, wait, a bounded search from a known
        // position gives a legal move.
        let engine = shared.0;
        let start_fen = CString::new(FENS[0]).unwrap();
        // SAFETY: a live engine, no other caller now; strings NUL-terminated; `best` writable
        // for its length.
        unsafe {
            prop_assert_eq!(lazuli_engine_stop(engine), LazuliResult::Ok);
            let waited = lazuli_engine_wait(engine, ptr::null_mut(), 0);
            prop_assert_eq!(waited, LazuliResult::Ok, "{}", last_error(engine));
            prop_assert_eq!(
                lazuli_engine_set_option(engine, c"Threads".as_ptr(), c"1".as_ptr()),
                LazuliResult::Ok
            );
            prop_assert_eq!(
                lazuli_engine_set_position(engine, start_fen.as_ptr(), c"e2e4".as_ptr()),
                LazuliResult::Ok
            );
            let limits = LazuliLimits { depth: 3, ..LazuliLimits::default() };
            prop_assert_eq!(
                lazuli_engine_go(engine, &limits, None, None, ptr::null_mut()),
                LazuliResult::Ok
            );
            let mut best = [0 as c_char; 8];
            prop_assert_eq!(lazuli_engine_wait(engine, best.as_mut_ptr(), 8), LazuliResult::Ok);
            let best = CStr::from_ptr(best.as_ptr()).to_str().unwrap().to_owned();
            let pos = lazuli::Position::from_fen(FENS[0]).unwrap();
            let mut pos = pos;
            pos.play_uci("e2e4").unwrap();
            prop_assert!(pos.parse_uci(&best).is_ok(), "bestmove {} after e2e4", best);
            lazuli_engine_free(engine);
        }
        let _ = std::fs::remove_file(scratch_hash_file().to_str().unwrap());
    }
}
