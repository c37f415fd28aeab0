//! The shared table under many threads: every hit must be exactly what was stored for that key.
//!
//! Each key's data is a function of the key, so a torn entry (the data word of one store with
//! the check word of another) or an entry of another key would show up as a mismatch. The keys
//! are few enough that threads constantly collide on the same slots.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use lazuli::Score;
use lazuli::{Bound, PackedMove, Rng, TranspositionTable, TtHit};

/// The data every thread stores under `key` (nonzero move, so stores never merge moves).
fn data_for(key: u64) -> (PackedMove, Score, Score, i32, Bound) {
    let h = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let bound = [Bound::Upper, Bound::Lower, Bound::Exact][(h % 3) as usize];
    (
        PackedMove(((h >> 8) as u16) | 1),
        Score(((h >> 24) % 60_000) as i32 - 30_000),
        Score(((h >> 40) % 4_000) as i32 - 2_000),
        ((h >> 56) % 60) as i32,
        bound,
    )
}

/// Runs `threads` threads doing `rounds` random stores and probes over `keys` distinct keys,
/// checking every hit; returns the number of hits.
fn hammer(
    tt: &Arc<TranspositionTable>,
    threads: usize,
    rounds: usize,
    keys: impl Fn(u64) -> u64 + Send + Sync + Copy + 'static,
) -> u64 {
    let hits = Arc::new(AtomicU64::new(0));
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (tt, hits, barrier) = (Arc::clone(tt), Arc::clone(&hits), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let mut rng = Rng::new(0x1234_5678_9abc_def1 ^ t as u64);
                let mut local_hits = 0;
                barrier.wait();
                for _ in 0..rounds {
                    let key = keys(rng.next_u64());
                    if rng.next_u64().is_multiple_of(2) {
                        let (mv, score, eval, depth, bound) = data_for(key);
                        tt.store(key, mv, score, eval, depth, bound);
                    } else if let Some(hit) = tt.probe(key) {
                        let (mv, score, eval, depth, bound) = data_for(key);
                        assert_eq!(
                            hit,
                            TtHit {
                                mv,
                                score,
                                eval,
                                depth,
                                bound
                            },
                            "key {key:#x}"
                        );
                        local_hits += 1;
                    }
                }
                hits.fetch_add(local_hits, Ordering::Relaxed);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no thread saw a wrong entry");
    }
    hits.load(Ordering::Relaxed)
}

/// Keys that all fall into the first bucket of a table (the bucket index is the high bits of
/// `key * buckets`), so every thread writes the same four slots all the time.
fn one_bucket(r: u64) -> u64 {
    (r % 8) * 16 + 1
}

#[test]
fn threads_fighting_over_one_bucket_never_read_a_torn_entry() {
    let tt = Arc::new(TranspositionTable::new(1).unwrap());
    let hits = hammer(&tt, 8, 3_000_000, one_bucket);
    assert!(hits > 1_000_000, "{hits}");
}

#[test]
fn many_threads_on_one_table_never_read_a_wrong_entry() {
    let threads = 16; // far more than the cores of a CI machine
    let rounds = 1_000_000;
    // 1 MB: 16384 buckets, and 100 000 distinct keys: constant replacement and collisions.
    let tt = Arc::new(TranspositionTable::new(1).unwrap());
    let hits = hammer(&tt, threads, rounds, |r| {
        (r % 100_000).wrapping_mul(0xc4ce_b9fe_1a85_ec53) | 1
    });
    // The test only means something if the threads really found each other's entries.
    assert!(hits > (threads * rounds / 20) as u64, "{hits}");
}
