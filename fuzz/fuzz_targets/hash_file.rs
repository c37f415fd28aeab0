//! Fuzzes the hash file loader (`TranspositionTable::load_from`, what `Load Hash from File`
//! runs) with arbitrary bytes as the file, loaded into a table of one bucket kept across inputs
//! (`TranspositionTable::new(0)`: a file of one bucket loads in place, any larger one is
//! rehashed into it). The first byte picks how the rest is fed:
//! - 0: as it is;
//! - 1: after a valid header built for it (the rest, cut to whole buckets, as the entries;
//!   the generation from its first byte; the count in use and the checksum computed), so that
//!   the checks of the entries and the rehash are reached;
//! - 2: its own header with the count in use and the checksum recomputed, so that the checks
//!   of the header's other fields are reached with a checksum that fits.
//!
//! Properties: no panic; a refused file leaves the table exactly as it was (its saved bytes
//! compared); an accepted file of one bucket is the table afterwards (it saves back to the same
//! bytes); after an accepted larger file, every entry in the table is one of the file's and
//! the report's counts are the table's.

#![no_main]

use std::io::Cursor;

use lazuli::TranspositionTable;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use xxhash_rust::xxh3::Xxh3Default;

const HEADER: usize = 64;
const BUCKET: usize = 64;

static TABLE: LazyLock<TranspositionTable> =
    LazyLock::new(|| TranspositionTable::new(0).expect("a table of one bucket"));

fn saved(tt: &TranspositionTable) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    tt.save_to(&mut out).expect("saving into memory");
    out.into_inner()
}

fn words(bytes: &[u8]) -> impl Iterator<Item = (u64, u64)> + '_ {
    bytes.chunks_exact(16).map(|w| {
        (
            u64::from_le_bytes(w[..8].try_into().unwrap()),
            u64::from_le_bytes(w[8..].try_into().unwrap()),
        )
    })
}

/// Sets the count in use and the checksum of `file` (at least a header long) from its entries.
fn seal(file: &mut [u8]) {
    let used = words(&file[HEADER..]).filter(|&(_, d)| d != 0).count() as u64;
    file[32..40].copy_from_slice(&used.to_le_bytes());
    let mut hasher = Xxh3Default::new();
    hasher.update(&file[HEADER..]);
    hasher.update(&file[..40]);
    file[40..48].copy_from_slice(&hasher.digest().to_le_bytes());
}

/// A valid header for `rest`: whole buckets of it as the entries (one zero bucket if none).
fn with_header(rest: &[u8]) -> Vec<u8> {
    let buckets = (rest.len() / BUCKET).max(1);
    let mut file = vec![0u8; HEADER + buckets * BUCKET];
    let n = rest.len().min(buckets * BUCKET);
    file[HEADER..HEADER + n].copy_from_slice(&rest[..n]);
    file[0..8].copy_from_slice(b"LZHASHTT");
    file[8..12].copy_from_slice(&1u32.to_le_bytes());
    file[12..16].copy_from_slice(&64u32.to_le_bytes());
    file[16..24].copy_from_slice(&(buckets as u64).to_le_bytes());
    file[24..26].copy_from_slice(&16u16.to_le_bytes());
    file[26..28].copy_from_slice(&4u16.to_le_bytes());
    file[28..30].copy_from_slice(&1u16.to_le_bytes());
    file[30] = rest.first().map_or(0, |g| g & 63);
    seal(&mut file);
    file
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = match mode % 3 {
        0 => rest.to_vec(),
        1 => with_header(rest),
        _ => {
            let mut file = rest.to_vec();
            if file.len() >= HEADER {
                seal(&mut file);
            }
            file
        }
    };
    let tt = &*TABLE;
    let before = saved(tt);
    match tt.load_from(Cursor::new(&file)) {
        Err(e) => {
            assert!(matches!(e, lazuli::Error::File(_)), "{e:?}");
            assert!(saved(tt) == before, "a refused file changed the table: {e}");
        }
        Ok(report) => {
            let after = saved(tt);
            let in_use = words(&after[HEADER..]).filter(|&(_, d)| d != 0).count() as u64;
            assert_eq!(report.table_entries, in_use);
            assert_eq!(report.table_buckets, 1);
            assert_eq!(report.file_buckets, ((file.len() - HEADER) / BUCKET) as u64);
            if report.file_buckets == 1 {
                assert!(after == file, "a file of the table's size loads as it is");
            } else {
                let from_file: Vec<(u64, u64)> = words(&file[HEADER..]).collect();
                for (check, data) in words(&after[HEADER..]).filter(|&(_, d)| d != 0) {
                    assert!(
                        from_file.contains(&(check, data)),
                        "{check:#x} {data:#x} is not in the file"
                    );
                }
            }
        }
    }
});
