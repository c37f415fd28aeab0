//! The one error type of the engine facade. Each variant maps to one C result code.

use std::fmt;

/// What went wrong, with a message fit to show a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A FEN that does not parse or describes an impossible position.
    InvalidFen(String),
    /// A move that does not parse or is not legal in the position.
    IllegalMove(String),
    /// An unknown option name or a value out of range or of the wrong type.
    InvalidOption(String),
    /// A search is running and the request needs the engine idle.
    Busy,
    /// A requested allocation (the hash table) failed; the old state is kept.
    OutOfMemory(String),
    /// A command or argument that is not understood.
    InvalidCommand(String),
    /// A hash file that cannot be read or written, or is not one this build reads (damaged,
    /// truncated, foreign); the table is kept as it was.
    File(String),
    /// A panic inside the engine, caught before it could unwind further.
    Internal(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidFen(m) => write!(f, "invalid FEN {m}"),
            Error::IllegalMove(m) => write!(f, "illegal move: {m}"),
            Error::InvalidOption(m) => write!(f, "invalid option: {m}"),
            Error::Busy => f.write_str("a search is running"),
            Error::OutOfMemory(m) => write!(f, "out of memory: {m}"),
            Error::InvalidCommand(m) => write!(f, "{m}"),
            Error::File(m) => write!(f, "hash file: {m}"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// The error for a caught panic: its message when it carried text (`panic!("...")` gives a
    /// `&str` or a `String`), "unknown panic" otherwise, after `context`.
    pub(crate) fn from_panic(context: &str, payload: &(dyn std::any::Any + Send)) -> Error {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Error::Internal(format!("{context}{text}"))
    }
}
