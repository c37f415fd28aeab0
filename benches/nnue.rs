//! The network's costs (`cargo bench --bench nnue`): one evaluation from an accumulator, one
//! accumulator update for a quiet move and for a capture, one refresh from scratch, at the
//! widths of the built-in net (`Network::BUILT_IN`, 64) and 256 (random weights in 8 output
//! buckets, `Network::random_bytes`), beside one hand-crafted evaluation of the same position.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazuli::{Accumulator, Network, Position};
use shakmaty::{Chess, Move, Position as _};

/// A middlegame position and one quiet move and one capture in it.
fn position() -> (Chess, Move, Move) {
    let pos =
        Position::from_fen("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8")
            .expect("a legal FEN");
    let chess = pos.chess().clone();
    let moves = chess.legal_moves();
    let quiet = *moves
        .iter()
        .find(|m| !m.is_capture() && m.role() == shakmaty::Role::Knight)
        .expect("a knight move");
    let capture = *moves.iter().find(|m| m.is_capture()).expect("a capture");
    (chess, quiet, capture)
}

fn bench(c: &mut Criterion) {
    let (chess, quiet, capture) = position();
    let nets = [
        Network::from_bytes(Network::BUILT_IN).unwrap(),
        Network::from_bytes(&Network::random_bytes(256, 8, 7)).unwrap(),
    ];
    let mut group = c.benchmark_group("nnue");
    for net in &nets {
        let width = net.hidden();
        let acc = net.refresh(&chess);
        group.bench_with_input(BenchmarkId::new("evaluate", width), &acc, |b, acc| {
            b.iter(|| black_box(net.evaluate(black_box(acc), &chess)))
        });
        for (name, m) in [("update quiet", &quiet), ("update capture", &capture)] {
            group.bench_with_input(BenchmarkId::new(name, width), &acc, |b, acc| {
                let mut next = Accumulator::empty();
                b.iter(|| {
                    black_box(acc).update(net, &chess, *m, &mut next);
                    black_box(&next);
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("refresh", width), &chess, |b, chess| {
            b.iter(|| black_box(net.refresh(black_box(chess))))
        });
    }
    group.finish();
    c.bench_function("hce evaluate", |b| {
        b.iter(|| black_box(lazuli::evaluate(black_box(&chess))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
