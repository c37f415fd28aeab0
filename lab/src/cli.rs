//! What the lab's command-line flags share.

use std::ops::{RangeBounds, RangeInclusive};

use clap::builder::TypedValueParser;

/// A clap value parser for a whole number: values outside `valid` are errors, valid ones are
/// then clamped to `clamp` (`--threads 5000` runs 1024).
pub fn number<T>(
    valid: impl RangeBounds<u64>,
    clamp: RangeInclusive<u64>,
) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    let (low, high) = clamp.into_inner();
    clap::value_parser!(u64).range(valid).map(move |n| {
        T::try_from(n.clamp(low, high))
            .unwrap_or_else(|_| panic!("the clamp's upper bound {high} fits the type"))
    })
}

/// The threads a tool uses by default: the machine's available parallelism.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
