//! Unit tests of the transposition table (the loom model of its entries is in `mod.rs`).

use super::*;
use crate::position::Position;
use crate::rng::Rng;

#[test]
fn store_then_probe_returns_what_was_stored() {
    let tt = TranspositionTable::new(1).unwrap();
    let key = 0x1234_5678_9abc_def0;
    assert!(tt.probe(key).is_none());
    tt.store(
        key,
        PackedMove(0x0ccc),
        Score(-321),
        Score(45),
        7,
        Bound::Lower,
    );
    let hit = tt.probe(key).unwrap();
    assert_eq!(
        hit,
        TtHit {
            mv: PackedMove(0x0ccc),
            score: Score(-321),
            eval: Score(45),
            depth: 7,
            bound: Bound::Lower
        }
    );
    assert!(tt.probe(key ^ 1).is_none());
}

#[test]
fn extreme_values_survive_packing() {
    let tt = TranspositionTable::new(1).unwrap();
    for (i, (score, depth)) in [
        (Score::mate_in(3), 0),
        (Score::mated_in(100), -3),
        (Score(0), 120),
    ]
    .into_iter()
    .enumerate()
    {
        let key = 0xdead_beef_0000 + i as u64;
        tt.store(key, PackedMove::NONE, score, -score, depth, Bound::Exact);
        let hit = tt.probe(key).unwrap();
        assert_eq!((hit.score, hit.eval, hit.depth), (score, -score, depth));
    }
}

#[test]
fn packed_moves_round_trip_and_illegal_ones_are_refused() {
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        for m in pos.legal_moves() {
            assert_eq!(PackedMove::new(m).to_move(pos.chess()), Some(m), "{fen}");
        }
        // Every 16-bit pattern either decodes to a legal move or is refused.
        let legal = pos.legal_moves();
        for bits in 0..=u16::MAX {
            if let Some(m) = PackedMove(bits).to_move(pos.chess()) {
                assert!(legal.contains(&m));
            }
        }
    }
}

#[test]
fn replacement_prefers_shallow_and_old_entries() {
    let tt = TranspositionTable::new(1).unwrap();
    // Keys that share a bucket: the bucket index is the high bits of key * buckets.
    let keys: Vec<u64> = (0..5).map(|i| 0x4000_0000_0000_0000 + i).collect();
    for (i, &k) in keys[..4].iter().enumerate() {
        tt.store(
            k,
            PackedMove::NONE,
            Score(0),
            Score(0),
            10 + i as i32,
            Bound::Exact,
        );
    }
    tt.store(
        keys[4],
        PackedMove::NONE,
        Score(0),
        Score(0),
        5,
        Bound::Exact,
    );
    assert!(
        tt.probe(keys[0]).is_none(),
        "the shallowest entry is replaced"
    );
    assert!(tt.probe(keys[4]).is_some());
    // After a few searches the old deep entries are worth less than a new shallow one.
    for _ in 0..3 {
        tt.new_search();
    }
    tt.store(
        keys[0],
        PackedMove::NONE,
        Score(0),
        Score(0),
        1,
        Bound::Exact,
    );
    assert!(tt.probe(keys[0]).is_some());
    assert!(tt.probe(keys[4]).is_some() as u8 + tt.probe(keys[1]).is_some() as u8 == 1);
}

#[test]
fn clear_and_hashfull() {
    let tt = TranspositionTable::new(2).unwrap();
    assert_eq!(tt.hashfull(), 0);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut key = 0;
    for _ in 0..200_000 {
        key = rng.next_u64();
        tt.store(key, PackedMove::NONE, Score(1), Score(1), 3, Bound::Exact);
    }
    assert!(tt.hashfull() > 900, "{}", tt.hashfull());
    tt.clear(2);
    assert_eq!(tt.hashfull(), 0);
    assert!(tt.probe(key).is_none());
}

/// Every chunk reserves a full chunk's size whatever the table's, so that glibc maps each
/// one on its own and unmaps it on `free` (see the layout notes); the buckets in use are
/// the table's and no more, each on one cache line, inside the chunk.
#[test]
fn every_chunk_is_a_mapping_of_its_own() {
    for mb in [1, 16, 32, 33, 100] {
        let tt = TranspositionTable::new(mb).unwrap();
        for c in &tt.chunks {
            assert!(
                c.entries.len() >= CHUNK_BUCKETS * ENTRIES_PER_BUCKET,
                "{mb} MB"
            );
            assert!(c.first < ENTRIES_PER_BUCKET, "{mb} MB");
            assert_eq!(c.bucket(0).as_ptr() as usize % 64, 0, "{mb} MB");
            assert_eq!(c.used().len(), c.len * ENTRIES_PER_BUCKET, "{mb} MB");
            assert!(c.first + c.used().len() <= c.entries.len(), "{mb} MB");
        }
        let used: usize = tt.chunks.iter().map(|c| c.len).sum();
        assert_eq!(used, tt.buckets, "{mb} MB");
        assert_eq!(used * std::mem::size_of::<Bucket>(), mb << 20, "{mb} MB");
    }
}

#[test]
fn impossible_size_is_an_error_not_an_abort() {
    assert!(matches!(
        TranspositionTable::new(usize::MAX >> 21),
        Err(Error::OutOfMemory(_))
    ));
}
