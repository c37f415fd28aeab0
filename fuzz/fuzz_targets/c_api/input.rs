//! The fuzzer's input: the calls of the C API harness (`c_api.rs`) and their arguments, as
//! `arbitrary` decodes them from libFuzzer's bytes.

use std::ffi::CString;

use arbitrary::Arbitrary;

/// A string argument.
#[derive(Arbitrary, Debug)]
pub(crate) enum Text {
    Null,
    /// One of [`KNOWN`], so that the fuzzer reaches the valid paths quickly.
    Known(u8),
    /// Any bytes (cut at the first NUL): often not UTF-8.
    Bytes(Vec<u8>),
}

pub(crate) const KNOWN: &[&str] = &[
    "",
    "Hash",
    "Threads",
    "MultiPV",
    "Clear Hash",
    "Ponder",
    "UCI_Chess960",
    "NullMove",
    "UseNNUE",
    "EvalFile",
    "SyzygyPath",
    "Skill Level",
    "UCI_LimitStrength",
    "true",
    "false",
    "2",
    "0",
    "-1",
    "verified",
    "<empty>",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/8/8/8/8/8/8/K1k5 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "e2e4",
    "e2e4 e7e5 g1f3",
    "e1g1",
    "e1h1",
    "a7a8q",
    "e2e5",
];

impl Text {
    pub(crate) fn to_c(&self) -> Option<CString> {
        match self {
            Text::Null => None,
            Text::Known(i) => Some(CString::new(KNOWN[*i as usize % KNOWN.len()]).unwrap()),
            Text::Bytes(bytes) => {
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                Some(CString::new(&bytes[..end]).unwrap())
            }
        }
    }
}

/// An output buffer: NULL, or this many bytes.
#[derive(Arbitrary, Debug)]
pub(crate) struct Buf {
    pub(crate) null: bool,
    pub(crate) len: u8,
}

#[derive(Arbitrary, Debug)]
pub(crate) struct Limits {
    pub(crate) deep: bool,
    pub(crate) nodes: u16,
    pub(crate) movetime_ms: u8,
    pub(crate) wtime_ms: u16,
    pub(crate) btime_ms: u16,
    pub(crate) winc_ms: u8,
    pub(crate) binc_ms: u8,
    pub(crate) movestogo: u8,
    pub(crate) mate: u8,
    pub(crate) infinite: bool,
    pub(crate) ponder: bool,
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Op {
    /// `lazuli_engine_free`, then `lazuli_engine_new` (or only the free).
    Recreate {
        only_free: bool,
    },
    NewNullOut,
    SetOption {
        name: Text,
        value: Text,
        null_engine: bool,
    },
    NewGame {
        null_engine: bool,
    },
    SetPosition {
        fen: Text,
        moves: Text,
        null_engine: bool,
    },
    Go {
        limits: Option<Limits>,
        info: bool,
        bestmove: bool,
        stop_in_callback: bool,
        null_engine: bool,
    },
    Stop {
        null_engine: bool,
    },
    Wait {
        buf: Buf,
    },
    Ponderhit {
        null_engine: bool,
    },
    IsSearching {
        null_engine: bool,
    },
    Perft {
        depth: u8,
        null_out: bool,
        null_engine: bool,
    },
    Evaluate {
        null_out: bool,
        null_engine: bool,
    },
    Fen {
        buf: Buf,
        null_engine: bool,
    },
    LastError {
        buf: Buf,
        null_engine: bool,
    },
    OptionGet {
        index: u8,
        null_out: bool,
    },
    Statics,
}
