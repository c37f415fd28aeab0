//! Search and evaluation speed (`cargo bench --bench search`). The engine's own figure is
//! `lazuli bench` (nodes per second over the bench positions); these time the parts.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lazuli::{Engine, Limits, Position, SearchHandler, SearchInfo};
use shakmaty::Move;

struct Silent;
impl SearchHandler for Silent {
    fn on_info(&mut self, _: &SearchInfo) {}
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
}

fn bench(c: &mut Criterion) {
    let positions: Vec<Position> = lazuli::bench_positions()
        .iter()
        .map(|f| Position::from_fen(f).unwrap())
        .collect();
    c.bench_function("evaluate (bench positions)", |b| {
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
