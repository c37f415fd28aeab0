//! `go perft` (lazuli's `Position::perft`) against `shakmaty::perft` on the same positions
//! (`cargo bench --bench perft`). The counts are asserted while timing.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lazuli::Position;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

const CASES: &[(&str, &str, u32, u64)] = &[
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        5,
        4_865_609,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
    ),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for &(name, fen, depth, nodes) in CASES {
        let pos = Position::from_fen(fen).unwrap();
        let chess: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        group.bench_function(format!("lazuli {name} {depth}"), |b| {
            b.iter(|| assert_eq!(black_box(&pos).perft(depth), nodes))
        });
        group.bench_function(format!("shakmaty {name} {depth}"), |b| {
            b.iter(|| assert_eq!(shakmaty::perft(black_box(&chess), depth), nodes))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
