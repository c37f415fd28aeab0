//! Search and evaluation speed (`cargo bench --bench search`). The engine's own figure is
//! `lazuli bench` (nodes per second over the bench positions); these time the parts: the
//! evaluation searches use, the built-in network's, from each position's accumulator (which
//! a search keeps up to date move by move; `cargo bench --bench nnue` times the updates); the
//! hand-crafted evaluation, which searches use with `UseNNUE false`; and a whole search.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lazuli::{Engine, Limits, Network, Position, Silent};

fn bench(c: &mut Criterion) {
    let positions: Vec<Position> = lazuli::bench_positions()
        .iter()
        .map(|f| Position::from_fen(f).unwrap())
        .collect();
    let net = Network::from_bytes(Network::BUILT_IN).unwrap();
    let accumulators: Vec<_> = positions
        .iter()
        .map(|p| (net.refresh(p.chess()), p.chess()))
        .collect();
    c.bench_function("net evaluate (bench positions, from accumulators)", |b| {
        b.iter(|| {
            accumulators
                .iter()
                .map(|(acc, chess)| net.evaluate(black_box(acc), chess))
                .sum::<i32>()
        })
    });
    c.bench_function("hce evaluate (bench positions, UseNNUE false)", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| lazuli::evaluate(black_box(p.chess())).0)
                .sum::<i32>()
        })
    });
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    let mut engine = Engine::new().unwrap();
    group.bench_function("kiwipete depth 10, 1 thread", |b| {
        b.iter(|| {
            engine.new_game();
            engine
                .set_position(Some(lazuli::bench_positions()[1]), &[])
                .unwrap();
            engine.go(Limits::depth(10), Silent).unwrap();
            engine.wait().unwrap().unwrap().nodes
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
