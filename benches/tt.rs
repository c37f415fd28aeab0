//! Transposition table probe and store (`cargo bench --bench tt`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lazuli::Score;
use lazuli::{Bound, PackedMove, Rng, TranspositionTable};

fn keys(n: usize) -> Vec<u64> {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    (0..n).map(|_| rng.next_u64()).collect()
}

fn bench(c: &mut Criterion) {
    // 256 MB and two million random keys over it: probes mostly miss the caches, as in a real
    // search with a big table (the search hides part of that latency by touching the bucket
    // early, see `TranspositionTable::prefetch`).
    let tt = TranspositionTable::new(256).unwrap();
    let ks = keys(1 << 21);
    for &k in &ks[..1 << 20] {
        tt.store(k, PackedMove(0x123), Score(17), Score(3), 9, Bound::Exact);
    }
    let mut i = 0;
    c.bench_function("tt probe (hit)", |b| {
        b.iter(|| {
            i = (i + 1) & ((1 << 20) - 1);
            black_box(tt.probe(black_box(ks[i])))
        })
    });
    c.bench_function("tt probe (miss)", |b| {
        b.iter(|| {
            i = (i + 1) & ((1 << 20) - 1);
            black_box(tt.probe(black_box(ks[(1 << 20) + i])))
        })
    });
    c.bench_function("tt store", |b| {
        b.iter(|| {
            i = (i + 1) & ((1 << 21) - 1);
            tt.store(
                black_box(ks[i]),
                PackedMove(0x456),
                Score(-5),
                Score(1),
                7,
                Bound::Lower,
            )
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
