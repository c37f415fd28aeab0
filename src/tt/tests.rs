//! Unit tests of the transposition table (the loom models of its entries are in `loom_tests.rs`).

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
    tt.clear();
    assert_eq!(tt.hashfull(), 0);
    assert!(tt.probe(key).is_none());
}

const ALL_PAGES: [Pages; 3] = [Pages::Huge, Pages::System, Pages::Base];

/// Every chunk is a mapping of its own holding exactly its buckets, each on one cache line
/// (in huge pages: from a 2 MiB boundary); together they hold the table's size and no more.
#[test]
fn chunks_hold_the_table_on_cache_lines() {
    for pages in ALL_PAGES {
        for mb in [1, 16, 32, 33, 100] {
            let tt = TranspositionTable::with_pages(mb, pages).unwrap();
            for c in &tt.chunks {
                let start = c.bucket(0).as_ptr().addr();
                let align = if pages == Pages::Huge && cfg!(target_os = "linux") {
                    memory::HUGE_PAGE
                } else {
                    64
                };
                assert_eq!(start % align, 0, "{mb} MB, {pages:?}");
                assert_eq!(c.used().as_ptr().addr(), start, "{mb} MB, {pages:?}");
                assert!(c.used().len() <= CHUNK_BUCKETS * ENTRIES_PER_BUCKET);
            }
            let used: usize = tt.chunks.iter().map(|c| c.used().len()).sum();
            assert_eq!(used, tt.buckets * ENTRIES_PER_BUCKET, "{mb} MB, {pages:?}");
            assert_eq!(used * std::mem::size_of::<Entry>(), mb << 20, "{mb} MB");
        }
    }
}

/// The entries that are not empty (both words zero).
fn nonzero(tt: &TranspositionTable) -> usize {
    tt.chunks
        .iter()
        .flat_map(Chunk::used)
        .filter(|e| e.data.load(Relaxed) != 0 || e.check.load(Relaxed) != 0)
        .count()
}

/// Writes every entry of `tt` (a different nonzero pair each) and checks they all read back.
fn fill(tt: &TranspositionTable) {
    for (i, e) in tt.chunks.iter().flat_map(Chunk::used).enumerate() {
        e.data.store(i as u64 + 1, Relaxed);
        e.check.store(!(i as u64), Relaxed);
    }
    let entries = tt.buckets * ENTRIES_PER_BUCKET;
    assert_eq!(nonzero(tt), entries, "filled");
}

#[test]
fn a_new_table_reads_empty() {
    for pages in ALL_PAGES {
        for mb in [1, 40] {
            let tt = TranspositionTable::with_pages(mb, pages).unwrap();
            assert_eq!(nonzero(&tt), 0, "{mb} MB, {pages:?}");
            assert!(tt.probe(0x1234_5678_9abc_def0).is_none());
        }
    }
}

/// Each way of emptying a table (writing on all cores with `clear`, giving the pages back
/// with `discard`, and `discard`'s fallback that writes) leaves every entry zero, in every
/// kind of pages, and the table works as new afterwards.
#[test]
fn emptying_a_full_table_zeroes_every_entry() {
    type Empty = fn(&mut TranspositionTable);
    let ways: [(&str, Empty); 3] = [
        ("clear", |tt| tt.clear()),
        ("give back", |tt| tt.empty(true)),
        ("write", |tt| tt.empty(false)),
    ];
    for pages in ALL_PAGES {
        // 40 MB: two chunks, the second partial, so the work is shared between threads.
        for mb in [1, 40] {
            for (name, empty) in ways {
                let mut tt = TranspositionTable::with_pages(mb, pages).unwrap();
                fill(&tt);
                tt.new_search();
                empty(&mut tt);
                assert_eq!(nonzero(&tt), 0, "{name}: {mb} MB, {pages:?}");
                assert_eq!(tt.generation.load(Relaxed), 0, "{name}");
                let key = 0x0fed_cba9_8765_4321;
                tt.store(key, PackedMove(0x0111), Score(5), Score(6), 7, Bound::Exact);
                assert_eq!(tt.probe(key).map(|h| h.depth), Some(7), "{name}");
            }
        }
    }
}

/// A full table is freed and a new one made, as `setoption name Hash` does (the system may
/// hand the same addresses out again): the new one, of the same size or another, is empty.
#[test]
fn a_table_made_after_a_full_one_is_freed_is_empty() {
    for pages in ALL_PAGES {
        for (old_mb, new_mb) in [(40, 40), (40, 65), (65, 2)] {
            let old = TranspositionTable::with_pages(old_mb, pages).unwrap();
            fill(&old);
            drop(old);
            let new = TranspositionTable::with_pages(new_mb, pages).unwrap();
            assert_eq!(nonzero(&new), 0, "{old_mb} then {new_mb} MB, {pages:?}");
        }
    }
}

/// The off switch: a table in base pages is never backed by huge pages, even where the
/// kernel's mode is `always` (`MADV_NOHUGEPAGE`), and works as any other.
#[test]
fn base_pages_have_no_huge_pages() {
    let tt = TranspositionTable::with_pages(64, Pages::Base).unwrap();
    fill(&tt);
    let huge = tt.huge_page_bytes();
    assert!(matches!(huge, None | Some(0)), "{huge:?}");
    assert_eq!(cfg!(target_os = "linux"), huge.is_some());
}

/// Not in the default run: whether huge pages are given depends on the kernel (its mode in
/// `/sys/kernel/mm/transparent_hugepage/enabled`, and free 2 MiB pages). Where its mode is
/// `madvise` or `always`, a filled 64 MB table in huge pages shows them in `AnonHugePages`.
#[test]
#[ignore = "depends on the kernel's transparent huge pages"]
fn huge_pages_show_in_smaps_where_the_kernel_offers_them() {
    let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .expect("a kernel with transparent huge pages");
    assert!(
        !mode.contains("[never]"),
        "transparent huge pages are off: {mode}"
    );
    let tt = TranspositionTable::with_pages(64, Pages::Huge).unwrap();
    fill(&tt);
    let huge = tt.huge_page_bytes().unwrap();
    eprintln!("{} of 64 MB in huge pages", huge >> 20);
    assert!(huge > 0);
}

#[test]
fn the_switches_choose_the_pages_and_the_emptying() {
    let min = pages::HUGE_PAGES_MIN_MB;
    let by_size = Policy::parse(None, None);
    assert_eq!(by_size.pages(min), Pages::Huge);
    assert_eq!(by_size.pages(min - 1), Pages::System);
    assert_eq!(by_size.pages(1), Pages::System);
    assert!(!by_size.discard(), "writing is the default");
    for off in ["0", "off"] {
        let p = Policy::parse(Some(off), None);
        assert_eq!((p.pages(1), p.pages(1 << 14)), (Pages::Base, Pages::Base));
    }
    for on in ["1", "on", " 1\n"] {
        let p = Policy::parse(Some(on), None);
        assert_eq!((p.pages(1), p.pages(1 << 14)), (Pages::Huge, Pages::Huge));
    }
    assert_eq!(Policy::parse(Some("maybe"), None), by_size);
    assert!(!Policy::parse(None, Some("write")).discard());
    assert!(Policy::parse(None, Some("discard")).discard());
}

#[test]
fn smaps_huge_pages_are_summed_over_the_mappings_that_overlap() {
    let smaps = "\
00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/lazuli
Size:                328 kB
AnonHugePages:      2048 kB
7f0000000000-7f0004000000 rw-p 00000000 00:00 0
Size:              65536 kB
AnonHugePages:     63488 kB
THPeligible:    1
7f0004000000-7f0006000000 rw-p 00000000 00:00 0
AnonHugePages:      4096 kB
7f0008000000-7f0008200000 rw-p 00000000 00:00 0
AnonHugePages:      2048 kB
VmFlags: rd wr mr mw me ac hg
";
    let ranges = [
        0x7f00_0100_0000..0x7f00_0500_0000,
        0x7f00_0820_0000..0x7f00_0830_0000,
    ];
    assert_eq!(
        pages::huge_page_bytes_in(smaps, &ranges),
        (63488 + 4096) * 1024
    );
    assert_eq!(pages::huge_page_bytes_in(smaps, &[]), 0);
}

#[test]
fn on_all_cores_runs_every_item_once() {
    for n in [0, 1, 2, 3, 17, 100] {
        let runs: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        on_all_cores(runs.iter().collect(), |r| {
            r.fetch_add(1, Relaxed);
        });
        assert!(runs.iter().all(|r| r.load(Relaxed) == 1), "{n} items");
    }
}

#[test]
fn impossible_size_is_an_error_not_an_abort() {
    assert!(matches!(
        TranspositionTable::new(usize::MAX >> 21),
        Err(Error::OutOfMemory(_))
    ));
}
