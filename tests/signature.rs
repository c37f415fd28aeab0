//! The bench signature (Stockfish's `tests/signature.sh`): the node count of `bench` with one
//! thread at its default depth. The 1-thread search is deterministic, so any change to the
//! search changes this number; a change that alters it on purpose updates it here and ends its
//! commit message with `Bench: N`.

use lazuli::BenchConfig;

/// `lazuli bench` (16 MB, 1 thread, depth 11): the last lines print this as "Nodes searched".
const SIGNATURE: u64 = 2_131_690;

#[test]
fn bench_signature_is_pinned() {
    let config = BenchConfig::default();
    assert_eq!((config.threads, config.depth, config.hash_mb), (1, 11, 16));
    let report = config.run(|_, _| {}).expect("the bench runs");
    assert_eq!(
        report.nodes, SIGNATURE,
        "the search changed: if on purpose, update SIGNATURE and end the commit message with \
         `Bench: {}`",
        report.nodes
    );
}
