//! Tests of the hash file: round trips into tables of the same and other sizes, and every kind
//! of bad file refused with the table left as it was.

use std::io::Cursor;

use super::*;
use crate::rng::Rng;
use crate::tt::{Bound, PackedMove};

/// A 1 MB table with `n` results of random keys stored (two searches, so two generations).
fn filled(mb: usize, n: usize, seed: u64) -> (TranspositionTable, Vec<u64>) {
    let tt = TranspositionTable::new(mb).unwrap();
    let mut rng = Rng::new(seed);
    let mut keys = Vec::new();
    for i in 0..n {
        if i == n / 2 {
            tt.new_search();
        }
        let key = rng.next_u64();
        let depth = rng.below(30) as i32 - 3;
        let score = Score(rng.below(4000) as i32 - 2000);
        let mv = PackedMove(rng.below(1 << 12) as u16);
        tt.store(key, mv, score, -score, depth, Bound::Exact);
        keys.push(key);
    }
    (tt, keys)
}

fn words(tt: &TranspositionTable) -> Vec<(u64, u64)> {
    tt.entries()
        .map(|e| (e.check.load(Relaxed), e.data.load(Relaxed)))
        .collect()
}

fn saved(tt: &TranspositionTable) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    tt.save_to(&mut out).unwrap();
    out.into_inner()
}

/// Recomputes the checksum of `file` after a test changed it, so that what follows the
/// checksum test is reached.
fn reseal(file: &mut [u8]) {
    let mut hasher = Xxh3Default::new();
    hasher.update(&file[HEADER_BYTES..]);
    hasher.update(&file[..CHECKED_HEADER]);
    file[40..48].copy_from_slice(&hasher.digest().to_le_bytes());
}

/// Loads `file` into `tt`, expecting a refusal that mentions `reason`, and checks that the
/// table's entries and generation are as they were.
fn refused(tt: &TranspositionTable, file: &[u8], reason: &str) {
    let before = (words(tt), tt.generation.load(Relaxed));
    match tt.load_from(Cursor::new(file)) {
        Err(Error::File(m)) => {
            assert!(m.contains(reason), "{m:?} does not say {reason:?}");
            assert!(m.ends_with("the table is unchanged"), "{m}");
        }
        other => panic!("expected a refusal for {reason:?}, got {other:?}"),
    }
    assert!(
        (words(tt), tt.generation.load(Relaxed)) == before,
        "{reason}: the table changed"
    );
}

#[test]
fn a_table_saved_and_loaded_into_its_size_is_the_same_table() {
    let (tt, _) = filled(1, 30_000, 1);
    let file = saved(&tt);
    assert_eq!(file.len(), HEADER_BYTES + tt.buckets * 64);
    let (other, _) = filled(1, 5_000, 2);
    let report = other.load_from(Cursor::new(&file)).unwrap();
    assert!(words(&other) == words(&tt));
    assert_eq!(other.generation.load(Relaxed), tt.generation.load(Relaxed));
    let used = words(&tt).iter().filter(|(_, d)| *d != 0).count() as u64;
    assert_eq!(
        (
            report.file_entries,
            report.table_entries,
            report.file_buckets
        ),
        (used, used, tt.buckets as u64)
    );
    // The same bytes again from the loaded table.
    assert!(saved(&other) == file);
}

/// Into a larger table every entry is found by its key with its result; into a smaller one,
/// whatever is found is the original result, and the deepest entries are kept.
#[test]
fn a_file_of_another_size_is_rehashed_by_key() {
    let (tt, keys) = filled(2, 60_000, 3);
    let file = saved(&tt);
    for mb in [1, 4] {
        let (other, _) = filled(mb, 1_000, 4);
        let report = other.load_from(Cursor::new(&file)).unwrap();
        assert_eq!(report.table_buckets, other.buckets as u64);
        assert_eq!(other.generation.load(Relaxed), tt.generation.load(Relaxed));
        let (mut found, mut lost) = (0u64, 0);
        for &key in &keys {
            match (tt.probe(key), other.probe(key)) {
                (Some(a), Some(b)) => {
                    assert_eq!(a, b, "{key:#x} into {mb} MB");
                    found += 1;
                }
                (Some(_), None) => lost += 1,
                (None, Some(b)) => panic!("{key:#x} into {mb} MB: {b:?} from nowhere"),
                (None, None) => {}
            }
        }
        let in_use = words(&other).iter().filter(|(_, d)| *d != 0).count() as u64;
        assert_eq!(found, in_use, "{mb} MB: every entry is one of the file's");
        assert_eq!(report.table_entries, in_use);
        if mb > 2 {
            assert_eq!(lost, 0, "into a larger table nothing is lost");
        } else {
            assert!(
                lost > 0 && found > report.file_entries / 3,
                "{found} {lost}"
            );
        }
    }
}

#[test]
fn damaged_files_are_refused_and_the_table_is_kept() {
    let (tt, _) = filled(1, 20_000, 5);
    let file = saved(&tt);
    let (target, _) = filled(1, 3_000, 6);
    // A flipped byte in each part of the file, and what the refusal says.
    for (offset, reason) in [
        (0, "not a lazuli hash file"),
        (7, "not a lazuli hash file"),
        (8, "format version"),
        (12, "layout"),
        (16, "truncated"),
        (23, "wrong length"),
        (24, "layout"),
        (26, "layout"),
        (28, "layout"),
        (30, "checksum"),
        (31, "reserved"),
        (32, "checksum"),
        (40, "checksum"),
        (47, "checksum"),
        (50, "reserved"),
        (HEADER_BYTES, "checksum"),
        (HEADER_BYTES + 9, "checksum"),
        (file.len() / 2, "checksum"),
        (file.len() - 1, "checksum"),
    ] {
        let mut bad = file.clone();
        bad[offset] ^= 0x10;
        refused(&target, &bad, reason);
    }
}

#[test]
fn truncated_and_overlong_files_are_refused() {
    let (tt, _) = filled(1, 10_000, 7);
    let file = saved(&tt);
    let (target, _) = filled(1, 3_000, 8);
    for len in [0, 1, 63] {
        refused(&target, &file[..len], "shorter than");
    }
    for len in [64, 65, 64 + 64, file.len() / 2, file.len() - 1] {
        refused(&target, &file[..len], "truncated");
    }
    let mut long = file.clone();
    long.push(0);
    refused(&target, &long, "wrong length");
}

#[test]
fn foreign_files_are_refused() {
    let (target, _) = filled(1, 3_000, 9);
    let mut rng = Rng::new(10);
    let noise: Vec<u8> = (0..100_000).map(|_| rng.next_u64() as u8).collect();
    refused(&target, &noise, "not a lazuli hash file");
    let (tt, _) = filled(1, 1_000, 11);
    let file = saved(&tt);
    // Another version or packing, even with a checksum that fits.
    for (offset, value, reason) in [
        (8, 2u8, "format version 2"),
        (28, 2, "layout"),
        (24, 32, "layout"),
    ] {
        let mut other = file.clone();
        other[offset] = value;
        reseal(&mut other);
        refused(&target, &other, reason);
    }
    let mut no_buckets = file[..HEADER_BYTES].to_vec();
    no_buckets[16..24].fill(0);
    refused(&target, &no_buckets, "no buckets");
}

/// Files whose checksum fits but whose entries `store` could not have written.
#[test]
fn impossible_entries_are_refused_even_with_a_fitting_checksum() {
    let (tt, _) = filled(1, 2_000, 12);
    let file = saved(&tt);
    let (target, _) = filled(1, 3_000, 13);
    let used = (0..tt.buckets * 4)
        .find(|&i| {
            let at = HEADER_BYTES + i * 16;
            file[at + 8..at + 16] != [0; 8]
        })
        .unwrap();
    let at = HEADER_BYTES + used * 16;
    let data = u64::from_le_bytes(file[at + 8..at + 16].try_into().unwrap());
    let key = u64::from_le_bytes(file[at..at + 8].try_into().unwrap()) ^ data;
    let with = |check: u64, data: u64| {
        let mut f = file.clone();
        f[at..at + 8].copy_from_slice(&check.to_le_bytes());
        f[at + 8..at + 16].copy_from_slice(&data.to_le_bytes());
        reseal(&mut f);
        f
    };
    let no_bound = data & !(3 << 56);
    let no_depth = data & !(0xff << 48);
    let wild_score = (data & !(0xffff << 16)) | u64::from(i16::MAX as u16) << 16;
    for (check, data, reason) in [
        (key ^ no_bound, no_bound, "without a bound"),
        (key ^ no_depth, no_depth, "depth 0"),
        (key ^ wild_score, wild_score, "score out of range"),
        (0x55, 0, "empty entry with a check word"),
        // The key of another bucket.
        (!key ^ data, data, "belongs elsewhere"),
    ] {
        refused(&target, &with(check, data), reason);
    }
    // The count of entries in use is checked against the header's.
    let mut f = file.clone();
    f[32] ^= 1;
    reseal(&mut f);
    refused(&target, &f, "entries in use");
}

/// A reader whose bytes change after the first pass (the file rewritten during a load): the
/// second pass notices, and the table is cleared rather than left half loaded.
#[test]
fn a_file_that_changes_between_the_passes_clears_the_table() {
    struct Changing {
        first: Cursor<Vec<u8>>,
        second: Vec<u8>,
        switched: bool,
    }
    impl Read for Changing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.first.read(buf)
        }
    }
    impl Seek for Changing {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            if to == SeekFrom::Start(HEADER_BYTES as u64) && !self.switched {
                self.switched = true;
                self.first.get_mut().clone_from(&self.second);
            }
            self.first.seek(to)
        }
    }
    let (tt, _) = filled(1, 5_000, 14);
    let file = saved(&tt);
    let mut second = file.clone();
    second[file.len() - 3] ^= 1;
    let (target, _) = filled(1, 3_000, 15);
    let input = Changing {
        first: Cursor::new(file),
        second,
        switched: false,
    };
    match target.load_from(input) {
        Err(Error::File(m)) => assert!(m.contains("the table was cleared"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(words(&target).iter().all(|&w| w == (0, 0)));
}

#[test]
fn save_file_and_load_file_name_the_file_and_leave_no_part() {
    let dir = std::env::temp_dir().join(format!("lazuli-tt-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("table.lzh");
    let (tt, _) = filled(1, 5_000, 16);
    let report = tt.save_file(&path).unwrap();
    assert!(
        report.to_string().starts_with("hash saved to '"),
        "{report}"
    );
    assert!(!dir.join("table.lzh.part").exists());
    let other = TranspositionTable::new(1).unwrap();
    let report = other.load_file(&path).unwrap();
    assert!(words(&other) == words(&tt));
    assert!(report.to_string().contains("loaded from"), "{report}");
    let missing = dir.join("missing");
    match other.load_file(&missing) {
        Err(Error::File(m)) => assert!(m.contains("cannot read"), "{m}"),
        r => panic!("{r:?}"),
    }
    match tt.save_file(&dir.join("no/such/dir")) {
        Err(Error::File(m)) => assert!(m.contains("cannot save"), "{m}"),
        r => panic!("{r:?}"),
    }
    assert!(!dir.join("no/such/dir.part").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
