//! The library's seeded PRNG (SplitMix64), shared by the tools.

pub use lazuli::Rng;
