//! The table in a file (Houdini's `Hash File`): saved as it is, loaded into a table of the same
//! size in place or into one of another size by rehashing every entry by its key. The format
//! is documented in `docs/persistent-hash.md`; in short, all little-endian:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `LZHASHTT` |
//! | 8 | 4 | format version ([`FORMAT_VERSION`]) |
//! | 12 | 4 | header bytes (64) |
//! | 16 | 8 | buckets |
//! | 24 | 2 | entry bytes (16) |
//! | 26 | 2 | entries per bucket (4) |
//! | 28 | 2 | packing version of the data word ([`PACKING_VERSION`]) |
//! | 30 | 1 | the table's generation |
//! | 31 | 1 | zero |
//! | 32 | 8 | entries in use |
//! | 40 | 8 | checksum: XXH3-64 of the entry bytes followed by header bytes 0 to 39 |
//! | 48 | 16 | zero |
//! | 64 | 64 per bucket | each entry's `check` word, then its `data` word |
//!
//! Saving streams the entries through a buffer of [`BLOCK_BYTES`] (never a copy of the table),
//! computing the checksum on the way, into `PATH.part`; the header goes in last (a seek back)
//! and the file is renamed to `PATH` once complete, so a failed save never leaves a partial
//! file under the name. Loading reads the file twice: a first pass checks the header, the
//! length, the checksum and every entry (one `store` could have written, in the bucket its key
//! picks) without touching the table, so a refused file leaves it exactly as it was; the
//! second pass writes the entries. Should the file change between the passes (the second
//! pass's checksum or an entry then differs), the table is cleared and the load refused.
//!
//! Only while no search runs (the engine facade refuses a save or load during a search), as
//! for [`TranspositionTable::clear`].

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use xxhash_rust::xxh3::Xxh3Default;

use super::{
    Bucket, ENTRIES_PER_BUCKET, Entry, GENERATION_MASK, TranspositionTable, bucket_index,
    stored_depth, unpack, worth,
};
use crate::error::Error;
use crate::score::{MAX_PLY, Score};
use crate::sync::Ordering::Relaxed;

/// The file's first eight bytes.
const MAGIC: [u8; 8] = *b"LZHASHTT";
/// The version of the format this build writes and reads.
const FORMAT_VERSION: u32 = 1;
/// The version of the data word's packing (`pack` in `mod.rs`): move 16 bits, score 16, eval
/// 16, depth + 4 in 8, bound 2, generation 6. Changing the packing changes this number, so
/// that an older file is refused rather than misread.
const PACKING_VERSION: u16 = 1;
/// The header's length.
const HEADER_BYTES: usize = 64;
/// Bytes of one entry in the file (and in memory).
const ENTRY_BYTES: usize = 16;
const BUCKET_BYTES: usize = ENTRY_BYTES * ENTRIES_PER_BUCKET;
/// The header bytes the checksum covers (all before the checksum itself).
const CHECKED_HEADER: usize = 40;
/// How much of the table passes through memory at once when saving or loading: 16,384
/// buckets.
const BLOCK_BYTES: usize = 1 << 20;
/// The largest magnitude of a stored score: a root score of `Score::INFINITE` stored
/// `MAX_PLY` plies down.
const MAX_STORED_SCORE: i32 = Score::INFINITE.0 + MAX_PLY as i32;

/// What a save or a load did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashFileReport {
    /// True for a load, false for a save.
    pub loaded: bool,
    /// The file's path (empty for a load or save through a reader or writer).
    pub path: String,
    /// Buckets of the table in the file.
    pub file_buckets: u64,
    /// Entries in use in the file.
    pub file_entries: u64,
    /// Buckets of the engine's table.
    pub table_buckets: u64,
    /// Entries in use in the engine's table afterwards: after a load into a smaller table,
    /// fewer than the file's (where keys met in a full bucket, the deeper entries stay).
    pub table_entries: u64,
}

impl fmt::Display for HashFileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (verb, preposition) = if self.loaded {
            ("loaded", "from")
        } else {
            ("saved", "to")
        };
        write!(
            f,
            "hash {verb} {preposition} '{}': {} entries, {} buckets",
            self.path, self.file_entries, self.file_buckets
        )?;
        if self.loaded && self.file_buckets != self.table_buckets {
            write!(
                f,
                " (rehashed into {} buckets, {} entries kept)",
                self.table_buckets, self.table_entries
            )?;
        }
        Ok(())
    }
}

/// A file's header, read or to be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    buckets: u64,
    generation: u8,
    entries: u64,
    checksum: u64,
}

impl Header {
    fn to_bytes(self) -> [u8; HEADER_BYTES] {
        let mut b = [0u8; HEADER_BYTES];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&(HEADER_BYTES as u32).to_le_bytes());
        b[16..24].copy_from_slice(&self.buckets.to_le_bytes());
        b[24..26].copy_from_slice(&(ENTRY_BYTES as u16).to_le_bytes());
        b[26..28].copy_from_slice(&(ENTRIES_PER_BUCKET as u16).to_le_bytes());
        b[28..30].copy_from_slice(&PACKING_VERSION.to_le_bytes());
        b[30] = self.generation;
        b[32..40].copy_from_slice(&self.entries.to_le_bytes());
        b[40..48].copy_from_slice(&self.checksum.to_le_bytes());
        b
    }

    /// Checks everything but the checksum; `Err` says why the header is refused.
    fn parse(b: &[u8; HEADER_BYTES]) -> Result<Header, String> {
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if b[0..8] != MAGIC {
            return Err("not a lazuli hash file (its first bytes are not LZHASHTT)".into());
        }
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(format!(
                "hash file format version {version}; this lazuli reads version {FORMAT_VERSION}"
            ));
        }
        let layout = (u32_at(12), u16_at(24), u16_at(26), u16_at(28));
        let ours = (
            HEADER_BYTES as u32,
            ENTRY_BYTES as u16,
            ENTRIES_PER_BUCKET as u16,
            PACKING_VERSION,
        );
        if layout != ours {
            return Err(format!(
                "a layout this lazuli does not read (header bytes, entry bytes, entries per \
                 bucket, packing: {layout:?}; expected {ours:?})"
            ));
        }
        let header = Header {
            buckets: u64_at(16),
            generation: b[30],
            entries: u64_at(32),
            checksum: u64_at(40),
        };
        if header.buckets == 0 {
            return Err("a table of no buckets".into());
        }
        if header.generation > GENERATION_MASK || b[31] != 0 || b[48..].iter().any(|&x| x != 0) {
            return Err("a header with values out of range (generation or reserved bytes)".into());
        }
        Ok(header)
    }

    /// The file's length in bytes, if it fits a `u64`.
    fn file_bytes(self) -> Option<u64> {
        self.buckets
            .checked_mul(BUCKET_BYTES as u64)?
            .checked_add(HEADER_BYTES as u64)
    }
}

/// Why an entry could not have been written by `store`, if it could not.
fn entry_fault(check: u64, data: u64) -> Option<&'static str> {
    if data == 0 {
        return (check != 0).then_some("an empty entry with a check word");
    }
    let hit = unpack(data);
    if hit.bound == super::Bound::None {
        Some("an entry without a bound")
    } else if stored_depth(data) == 0 {
        Some("an entry of depth 0 stored")
    } else if hit.score.0.abs() > MAX_STORED_SCORE {
        Some("an entry with a score out of range")
    } else {
        None
    }
}

/// Reads exactly `buf.len()` bytes, naming a short file as truncated.
fn read_block(input: &mut impl Read, buf: &mut [u8]) -> Result<(), String> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => "truncated while it was read".to_owned(),
        _ => format!("unreadable: {e}"),
    })
}

/// What a pass over a file's entries found.
struct Scanned {
    checksum: u64,
    /// Entries in use.
    entries: u64,
    /// The first entry `store` could not have written, and why.
    fault: Option<String>,
}

/// Reads the entries of a file, block by block after its header, and gives each to `each` as
/// (check, data). Only a read error or a short file stops it: a faulty entry is noted and
/// reported after the checksum (a damaged file is then named damaged by its checksum).
fn scan(
    input: &mut impl Read,
    header: Header,
    mut each: impl FnMut(u64, u64),
) -> Result<Scanned, String> {
    let mut hasher = Xxh3Default::new();
    let total = header.buckets * BUCKET_BYTES as u64;
    let mut buf = vec![0u8; total.min(BLOCK_BYTES as u64) as usize];
    let mut done = 0u64;
    let mut entries = 0u64;
    let mut index = 0u64;
    let mut first_fault = None;
    while done < total {
        let n = (total - done).min(BLOCK_BYTES as u64) as usize;
        let block = &mut buf[..n];
        read_block(input, block)?;
        hasher.update(block);
        for word in block.chunks_exact(ENTRY_BYTES) {
            let check = u64::from_le_bytes(word[..8].try_into().expect("8 bytes"));
            let data = u64::from_le_bytes(word[8..].try_into().expect("8 bytes"));
            let bucket = index / ENTRIES_PER_BUCKET as u64;
            let fault = entry_fault(check, data).map(str::to_owned).or_else(|| {
                (data != 0 && bucket_index(check ^ data, header.buckets) != bucket)
                    .then(|| format!("in bucket {bucket}, but its key belongs elsewhere"))
            });
            if first_fault.is_none()
                && let Some(fault) = fault
            {
                first_fault = Some(format!("damaged: entry {index} is {fault}"));
            }
            entries += u64::from(data != 0);
            each(check, data);
            index += 1;
        }
        done += n as u64;
    }
    hasher.update(&header.to_bytes()[..CHECKED_HEADER]);
    Ok(Scanned {
        checksum: hasher.digest(),
        entries,
        fault: first_fault,
    })
}

impl TranspositionTable {
    /// Writes the table to `out` in the hash file format, streaming it through a small buffer;
    /// returns the header's counts. Only while no search runs.
    ///
    /// # Errors
    ///
    /// The writer's.
    pub fn save_to(&self, mut out: impl Write + Seek) -> io::Result<HashFileReport> {
        let start = out.stream_position()?;
        out.write_all(&[0; HEADER_BYTES])?;
        let mut hasher = Xxh3Default::new();
        let mut buf = Vec::with_capacity(BLOCK_BYTES.min(self.buckets * BUCKET_BYTES));
        let mut entries = 0u64;
        for e in self.entries() {
            let check = e.check.load(Relaxed);
            let data = e.data.load(Relaxed);
            entries += u64::from(data != 0);
            buf.extend_from_slice(&check.to_le_bytes());
            buf.extend_from_slice(&data.to_le_bytes());
            if buf.len() == BLOCK_BYTES {
                hasher.update(&buf);
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        hasher.update(&buf);
        out.write_all(&buf)?;
        let mut header = Header {
            buckets: self.buckets as u64,
            generation: self.generation.load(Relaxed),
            entries,
            checksum: 0,
        };
        hasher.update(&header.to_bytes()[..CHECKED_HEADER]);
        header.checksum = hasher.digest();
        out.seek(SeekFrom::Start(start))?;
        out.write_all(&header.to_bytes())?;
        out.flush()?;
        Ok(HashFileReport {
            loaded: false,
            path: String::new(),
            file_buckets: header.buckets,
            file_entries: entries,
            table_buckets: header.buckets,
            table_entries: entries,
        })
    }

    /// Saves the table to the file `path` (through `PATH.part`, renamed when complete).
    ///
    /// # Errors
    ///
    /// [`Error::File`] when the file cannot be written; an existing file `path` is then left
    /// as it was.
    pub fn save_file(&self, path: &Path) -> Result<HashFileReport, Error> {
        let shown = path.display();
        let mut part = path.as_os_str().to_owned();
        part.push(".part");
        let part = Path::new(&part);
        let written = || -> io::Result<HashFileReport> {
            let file = File::create(part)?;
            let mut out = BufWriter::with_capacity(BLOCK_BYTES, file);
            let report = self.save_to(&mut out)?;
            let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.sync_all()?;
            std::fs::rename(part, path)?;
            Ok(report)
        };
        match written() {
            Ok(report) => Ok(HashFileReport {
                path: shown.to_string(),
                ..report
            }),
            Err(e) => {
                let _ = std::fs::remove_file(part);
                Err(Error::File(format!(
                    "cannot save the hash to '{shown}': {e}"
                )))
            }
        }
    }

    /// Loads a hash file from `input`: into this table in place when the file is of its size,
    /// else rehashed (the table cleared, then each entry stored by its key; in a full bucket
    /// the shallowest entry, counting older generations as shallower, gives way). The whole
    /// file is checked before the table is touched. Only while no search runs.
    ///
    /// # Errors
    ///
    /// [`Error::File`] naming what is wrong: not a hash file, another format version or
    /// layout, a damaged header or entry, a checksum that differs, a truncated file or one
    /// with bytes after its entries, a read error. The table is then as it was (unless the
    /// input changed between the two passes, see the module documentation).
    pub fn load_from(&self, mut input: impl Read + Seek) -> Result<HashFileReport, Error> {
        let refuse = |why: String| Error::File(format!("{why}; the table is unchanged"));
        let unreadable = |e: io::Error| refuse(format!("unreadable: {e}"));
        let start = input.stream_position().map_err(unreadable)?;
        let len = input
            .seek(SeekFrom::End(0))
            .map_err(unreadable)?
            .saturating_sub(start);
        input.seek(SeekFrom::Start(start)).map_err(unreadable)?;
        let mut head = [0u8; HEADER_BYTES];
        if len < HEADER_BYTES as u64 {
            return Err(refuse(format!(
                "{len} bytes, shorter than the {HEADER_BYTES}-byte header of a hash file"
            )));
        }
        read_block(&mut input, &mut head).map_err(refuse)?;
        let header = Header::parse(&head).map_err(refuse)?;
        let expected = header.file_bytes();
        if expected != Some(len) {
            let what = if expected.is_some_and(|e| len < e) {
                "truncated"
            } else {
                "of the wrong length"
            };
            return Err(refuse(format!(
                "{what}: {len} bytes where its header says {} buckets",
                header.buckets
            )));
        }
        // First pass: check everything, write nothing.
        let first = scan(&mut input, header, |_, _| {}).map_err(refuse)?;
        let (checksum, entries) = (first.checksum, first.entries);
        if checksum != header.checksum {
            return Err(refuse(format!(
                "damaged: the checksum of its contents is {checksum:#018x}, its header says \
                 {:#018x}",
                header.checksum
            )));
        }
        if let Some(fault) = first.fault {
            return Err(refuse(fault));
        }
        if entries != header.entries {
            return Err(refuse(format!(
                "damaged: {entries} entries in use, its header says {}",
                header.entries
            )));
        }

        // Second pass: write.
        let second = |why: String| {
            self.clear();
            Error::File(format!(
                "changed while it was loaded ({why}); the table was cleared"
            ))
        };
        input
            .seek(SeekFrom::Start(start + HEADER_BYTES as u64))
            .map_err(|e| second(format!("unreadable: {e}")))?;
        let same_size = header.buckets == self.buckets as u64;
        let mut table_entries = 0u64;
        let scanned = if same_size {
            let mut slots = self.entries();
            scan(&mut input, header, |check, data| {
                let e = slots.next().expect("a table of the file's size");
                e.check.store(check, Relaxed);
                e.data.store(data, Relaxed);
            })
        } else {
            self.clear();
            scan(&mut input, header, |check, data| {
                if data != 0 && self.insert(check ^ data, data, header.generation) {
                    table_entries += 1;
                }
            })
        };
        match scanned {
            Ok(again) if again.checksum == header.checksum && again.fault.is_none() => {}
            Ok(_) => return Err(second("its checksum differs".into())),
            Err(why) => return Err(second(why)),
        }
        if same_size {
            table_entries = entries;
        }
        self.generation.store(header.generation, Relaxed);
        Ok(HashFileReport {
            loaded: true,
            path: String::new(),
            file_buckets: header.buckets,
            file_entries: entries,
            table_buckets: self.buckets as u64,
            table_entries,
        })
    }

    /// Loads the hash file `path`, as [`TranspositionTable::load_from`].
    ///
    /// # Errors
    ///
    /// As [`TranspositionTable::load_from`], and [`Error::File`] for a file that cannot be
    /// opened; the messages name the file.
    pub fn load_file(&self, path: &Path) -> Result<HashFileReport, Error> {
        let shown = path.display();
        let file = File::open(path).map_err(|e| {
            Error::File(format!(
                "cannot read '{shown}': {e}; the table is unchanged"
            ))
        })?;
        match self.load_from(io::BufReader::with_capacity(BLOCK_BYTES, file)) {
            Ok(report) => Ok(HashFileReport {
                path: shown.to_string(),
                ..report
            }),
            Err(Error::File(why)) => Err(Error::File(format!("'{shown}' is {why}"))),
            Err(other) => Err(other),
        }
    }

    /// Puts the entry `data` of `key` into its bucket while loading a file of another size:
    /// over an entry of the same key only if deeper, else into an empty slot, else over the
    /// least worth one (worth as `store` counts it, `generation` being the file's) if that is
    /// worth less than the new one. True if it filled an empty slot.
    fn insert(&self, key: u64, data: u64, generation: u8) -> bool {
        let bucket: &Bucket = self.bucket(key);
        let mut target: &Entry = &bucket[0];
        let mut target_worth = i32::MAX;
        for e in bucket {
            let old = e.data.load(Relaxed);
            if old != 0 && e.check.load(Relaxed) ^ old == key {
                if stored_depth(data) > stored_depth(old) {
                    e.data.store(data, Relaxed);
                    e.check.store(key ^ data, Relaxed);
                }
                return false;
            }
            let worth = worth(old, generation);
            if worth < target_worth {
                target_worth = worth;
                target = e;
            }
        }
        let filled = target_worth == i32::MIN;
        if !filled && target_worth >= worth(data, generation) {
            return false;
        }
        target.data.store(data, Relaxed);
        target.check.store(key ^ data, Relaxed);
        filled
    }
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
