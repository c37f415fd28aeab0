//! Loom models of the table's entries (the protocol in the documentation of `mod.rs`), run
//! by `.ci/loom`.

use std::sync::Arc;

use loom::thread;

use super::*;

/// A table of one bucket, so that every key shares it. `new` is not used: it allocates on
/// `std` threads and reads `/proc/meminfo`, neither of which loom models.
fn one_bucket() -> Arc<TranspositionTable> {
    Arc::new(TranspositionTable {
        chunks: vec![Chunk::new(1, Pages::System).expect("a bucket of loom's atomics")],
        buckets: 1,
        generation: AtomicU8::new(0),
    })
}

/// The arguments of one `store`, and the hit a probe must return for them.
#[derive(Clone, Copy)]
struct Stored {
    key: u64,
    mv: u16,
    score: i32,
    depth: i32,
}

impl Stored {
    fn store(self, tt: &TranspositionTable) {
        let score = Score(self.score);
        tt.store(
            self.key,
            PackedMove(self.mv),
            score,
            -score,
            self.depth,
            Bound::Exact,
        );
    }

    fn hit(self) -> TtHit {
        TtHit {
            mv: PackedMove(self.mv),
            score: Score(self.score),
            eval: Score(-self.score),
            depth: self.depth,
            bound: Bound::Exact,
        }
    }
}

/// Probes every key and checks that each hit is what one single store wrote for it.
fn check_probes(tt: &TranspositionTable, stores: &[Stored]) {
    for s in stores {
        if let Some(hit) = tt.probe(s.key) {
            let expected: Vec<TtHit> = stores
                .iter()
                .filter(|o| o.key == s.key)
                .map(|o| o.hit())
                .collect();
            assert!(
                expected.contains(&hit),
                "probe of {:#x} accepted {hit:?}, which no store wrote for that key",
                s.key
            );
        }
    }
}

/// Stores `before` (one thread, before the race), then runs `stores` on one thread each
/// into the one-bucket table while a last thread probes every key, then probes again once
/// they are done. The prober is spawned last on purpose: loom's search (DPOR) tries a
/// load earlier when it first ran after a conflicting store, which is how it finds a probe
/// between the two word writes of a store. Probes on the main thread, which loom runs
/// first, were never moved past a store whose thread had loaded the slot itself before
/// writing it (its scan): the torn window went unexplored.
fn race(before: &'static [Stored], stores: [Stored; 2]) {
    let mut model = loom::model::Builder::new();
    // Every schedule with at most two preemptions: enough for a probe between the two
    // writes of a store, and what keeps the full bucket's model to seconds.
    model.preemption_bound = Some(2);
    model.check(move || {
        let tt = one_bucket();
        for s in before {
            s.store(&tt);
        }
        let all: Vec<Stored> = before.iter().chain(&stores).copied().collect();
        let mut handles: Vec<_> = stores
            .iter()
            .map(|&s| {
                let tt = Arc::clone(&tt);
                thread::spawn(move || s.store(&tt))
            })
            .collect();
        handles.push({
            let (tt, all) = (Arc::clone(&tt), all.clone());
            thread::spawn(move || check_probes(&tt, &all))
        });
        for h in handles {
            h.join().unwrap();
        }
        check_probes(&tt, &all);
    });
}

const fn stored(key: u64, mv: u16, score: i32, depth: i32) -> Stored {
    Stored {
        key,
        mv,
        score,
        depth,
    }
}

/// No torn entry is accepted: two stores of different keys race for the same slot (the
/// bucket's first empty entry, which both pick) while a probe reads both keys. In some
/// interleavings the slot ends up with the `data` word of one store and the `check` word of
/// the other, or a probe reads one word before and one after a store. A probe must then
/// miss: it fails if the `check ^ data == key` test were weakened (say, to `data != 0`, or
/// to a separate key word written apart from the data), because a probe of one key would
/// return the other key's move and score.
#[test]
fn racing_stores_of_two_keys_never_yield_a_torn_hit() {
    race(
        &[],
        [
            stored(0x0123_4567_89ab_cdef, 0x0111, 11, 3),
            stored(0x7edc_ba98_7654_3210, 0x0222, -22, 5),
        ],
    );
}

/// Two stores of one key with different results (both exact, so each replaces the other;
/// run one after the other, the second rewrites the first's entry in place): a probe
/// returns one store's result whole. It would fail if the in-place update mixed the old
/// entry into the new one beyond the move it keeps when the new result has none.
#[test]
fn racing_stores_of_one_key_yield_one_result_whole() {
    let key = 0x0f0f_1234_5678_f0f0;
    race(
        &[],
        [stored(key, 0x0333, 33, 2), stored(key, 0x0444, -44, 4)],
    );
}

/// A full bucket: one store replaces the shallowest entry with a new key while another
/// rewrites a second entry of its own key in place, and probes read every key. A probe of
/// the replaced key sees its old result or a miss, never the new key's result (which it
/// would with a weakened check, since the slot's `data` is nonzero throughout).
#[test]
fn replacing_and_updating_in_a_full_bucket_never_yield_a_torn_hit() {
    const FULL: &[Stored] = &[
        stored(0x1111_0000_0000_0001, 0x0101, 1, 1),
        stored(0x2222_0000_0000_0002, 0x0202, 2, 6),
        stored(0x3333_0000_0000_0003, 0x0303, 3, 7),
        stored(0x4444_0000_0000_0004, 0x0404, 4, 8),
    ];
    race(
        FULL,
        [
            stored(0x5555_0000_0000_0005, 0x0505, 5, 2),
            stored(0x2222_0000_0000_0002, 0x0606, -6, 9),
        ],
    );
}
