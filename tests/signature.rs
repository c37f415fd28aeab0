//! The bench signature (Stockfish's `tests/signature.sh`): the node count of `bench` with one
//! thread at its default depth. The 1-thread search is deterministic, so any change to the
//! search changes this number; a change that alters it on purpose updates it here and ends its
//! commit message with `Bench: N`.

use lazuli::{BenchConfig, Engine};

/// `lazuli bench` (16 MB, 1 thread, depth 11): the last lines print this as "Nodes searched".
const SIGNATURE: u64 = 1_716_313;

/// The same with `NullMove paper`: the paper's rule, the default before verification was
/// limited to where it pays. Pinned so that the paper's experiment (`lazuli study nullmove`)
/// stays repeatable; only a change to the evaluation or to the search outside null move may
/// move it.
const PAPER_SIGNATURE: u64 = 2_067_407;

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

#[test]
fn paper_rule_bench_signature_is_pinned() {
    let mut engine = Engine::new().expect("an engine");
    engine
        .set_option("NullMove", "paper")
        .expect("a NullMove value");
    let report = BenchConfig::default()
        .run_on(engine, |_, _| {})
        .expect("the bench runs");
    assert_eq!(report.nodes, PAPER_SIGNATURE);
}
