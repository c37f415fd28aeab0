//! lazuli's lab: what makes the evaluation network the engine ships, beside the product and
//! never linked into it. It drives the engine only through the `lazuli` library's public API.
//!
//! - [`datagen`]: self-play games at a node budget, written as Stockfish's binpack
//!   ([`binpack`]) into the data store (`lab/data`, its manifest checked by this crate's tests);
//! - [`train`]: the CPU trainer of the LZNN net format the engine reads, and `loss`, which
//!   compares nets on held-out positions;
//! - [`format`]: marlinformat, the trainer's 32-byte in-memory record (and older data files).

pub mod binpack;
pub mod cli;
pub mod datagen;
pub mod format;
pub mod train;
