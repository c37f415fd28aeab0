//! The transposition table shared by all search threads, lock-free and without `unsafe`.
//!
//! # Concurrency contract
//!
//! Every thread probes and stores at any time, with no lock. Each entry is two `AtomicU64`
//! words: `data` (move, score, eval, depth, bound, generation packed in 64 bits) and
//! `check = key ^ data`. A store writes both words with `Relaxed` ordering; a probe reads both
//! with `Relaxed` ordering and accepts the entry only if `check ^ data == key`.
//! (Hyatt and Mann, "A lockless transposition-table implementation for parallel search",
//! ICGA Journal 25(1), 2002; the safe-Rust form follows tantabus `engine/src/search/cache.rs`.)
//!
//! Races that are accepted, and why they are harmless:
//! - Two threads store to the same slot at once, or a probe runs between the two word writes of
//!   a store: the reader may see `data` of one store and `check` of another. The xor test then
//!   fails (except with the probability of a 64-bit key collision) and the probe reads a miss.
//!   A torn entry can never be returned as a valid entry for this key.
//! - A probe may miss an entry another thread stored a moment ago, or see one overwritten: the
//!   table is a cache, a miss only costs search effort.
//! - The replacement decision reads an entry and then overwrites it without a compare-exchange;
//!   a concurrent store to the same slot may be lost. Again only search effort.
//! - A valid entry can still belong to another position with the same 64-bit key: the move it
//!   holds is therefore always checked for legality before it is played (see
//!   [`PackedMove::to_move`] and the search).
//!
//! A new size is a new table (the engine facade replaces its `Arc` while no search runs, and a
//! search holds its own `Arc` until it ends); clearing ([`TranspositionTable::clear`]) is only
//! done while no search runs, which the facade guarantees.
//!
//! # Layout
//!
//! Buckets of four 16-byte entries, 64 bytes, each on one cache line. A key picks its bucket
//! by the high half of `key * buckets` (Lemire's multiply-shift range reduction). The buckets
//! live in fixed-size chunks so that clearing is done by several threads in parallel, each
//! writing its own chunks.
//!
//! Every chunk reserves at least 32 MiB of address space (a smaller table uses the first part
//! of its one chunk; only the pages it uses become resident). glibc serves requests of that
//! size with `mmap` whatever its dynamic threshold, and gives them back to the system on
//! `free`. With 2 MiB chunks, once one chunk had been freed, glibc raised its threshold and
//! served the next tables from its arenas, which kept the freed memory: the C soak (4 engines,
//! 12 host threads changing `Hash` and `Threads`) held 500 MB resident for 30 MB in use.
//!
//! A chunk is allocated zeroed (`calloc`, through `bytemuck`'s safe zeroed allocation), which
//! for a mapping of its own costs no write: the system hands out zero pages as they are first
//! touched, so a new table of any size is ready at once and a small search touches only the
//! pages it uses. (Written entry by entry, a 16 MB table took 4,096 page faults before its
//! first probe: the C API fuzz target, which creates an engine per input, ran 343 inputs a
//! second.) The allocator aligns the chunk to 16 bytes, not 64 (Rust's zeroed allocation
//! with a larger alignment writes the zeroes itself), so buckets start at the chunk's first
//! 64-byte boundary; on an allocator that gave less than 16 the buckets would straddle cache
//! lines, which costs speed, never correctness.

use shakmaty::{Chess, Move, Position as _, Role, Square};

use crate::error::Error;
use crate::position::from_to;
use crate::score::Score;
use crate::sync::{AtomicU8, AtomicU64, Ordering::Relaxed};

const ENTRIES_PER_BUCKET: usize = 4;
/// Buckets per chunk: 2^19 buckets of 64 bytes, 32 MiB, the most glibc's dynamic `mmap`
/// threshold can reach (`DEFAULT_MMAP_THRESHOLD_MAX` on 64-bit), so that each chunk is its own
/// mapping. See the module's layout notes.
const CHUNK_SHIFT: u32 = 19;
const CHUNK_BUCKETS: usize = 1 << CHUNK_SHIFT;
/// Stored depth is `depth + DEPTH_OFFSET` so that quiescence entries (depth 0 and below) fit.
const DEPTH_OFFSET: i32 = 4;
const GENERATION_BITS: u32 = 6;
const GENERATION_MASK: u8 = (1 << GENERATION_BITS) - 1;

/// The bound of a stored score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    /// Nothing stored (an empty entry).
    None = 0,
    /// The true score is at most the stored one (failed low).
    Upper = 1,
    /// The true score is at least the stored one (failed high).
    Lower = 2,
    /// The stored score is exact.
    Exact = 3,
}

impl Bound {
    fn from_bits(bits: u64) -> Bound {
        match bits & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// A move in 16 bits: from (6), to (6), promotion role (3). Castling is stored as king to rook
/// square. Zero means no move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(pub u16);

impl PackedMove {
    /// No move.
    pub const NONE: PackedMove = PackedMove(0);

    /// Packs a move of standard chess (drops are not stored).
    pub fn new(m: Move) -> PackedMove {
        let Some((from, to)) = from_to(m) else {
            return PackedMove::NONE;
        };
        let promotion = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from as u16 | (to as u16) << 6 | promotion << 12)
    }

    /// True for [`PackedMove::NONE`].
    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    /// Rebuilds the move in `chess` and returns it only if it is legal there. A stored move may
    /// come from another position with the same key or a torn write, so this check is what
    /// keeps `play_unchecked` from ever seeing an illegal move.
    pub fn to_move(self, chess: &Chess) -> Option<Move> {
        if self.is_none() {
            return None;
        }
        let from = Square::new(u32::from(self.0 & 63));
        let to = Square::new(u32::from((self.0 >> 6) & 63));
        let promotion = match self.0 >> 12 {
            0 => None,
            r => Some(Role::try_from(r as u8).ok()?),
        };
        let board = chess.board();
        let role = board.role_at(from)?;
        let candidate = if role == Role::King && chess.us().contains(to) {
            Move::Castle {
                king: from,
                rook: to,
            }
        } else if role == Role::Pawn && from.file() != to.file() && !board.occupied().contains(to) {
            Move::EnPassant { from, to }
        } else {
            Move::Normal {
                role,
                from,
                capture: board.role_at(to),
                to,
                promotion,
            }
        };
        chess.is_legal(candidate).then_some(candidate)
    }
}

/// What a probe returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    /// The best or refutation move, not yet checked for legality.
    pub mv: PackedMove,
    /// The score, relative to the storing node (convert with [`Score::from_tt`]).
    pub score: Score,
    /// The static evaluation of the position.
    pub eval: Score,
    /// The remaining depth the score was searched to.
    pub depth: i32,
    /// How the score bounds the true value.
    pub bound: Bound,
}

#[derive(Default)]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// Four entries on one 64-byte cache line (see [`Chunk`]).
type Bucket = [Entry; ENTRIES_PER_BUCKET];

// Loom's atomics are larger than a machine word: the layout holds for the real build only.
#[cfg(not(loom))]
const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// A chunk of buckets: zeroed entries, bucket 0 at the first 64-byte boundary (see the
/// layout notes).
struct Chunk {
    /// At least [`CHUNK_BUCKETS`] buckets' worth (plus the alignment's slack) whatever the
    /// chunk's length, so that the chunk is a mapping of its own.
    entries: Box<[Entry]>,
    /// Index in `entries` of bucket 0's first entry.
    first: usize,
    /// Buckets in use.
    len: usize,
}

impl Chunk {
    /// `None` when the memory cannot be had.
    fn new(len: usize) -> Option<Chunk> {
        let room = len.max(CHUNK_BUCKETS) * ENTRIES_PER_BUCKET + ENTRIES_PER_BUCKET - 1;
        let entries = zeroed_entries(room)?;
        let misalignment = entries.as_ptr() as usize % 64;
        let first = (64 - misalignment) % 64 / std::mem::size_of::<Entry>();
        Some(Chunk {
            entries,
            first,
            len,
        })
    }

    fn bucket(&self, index: usize) -> &Bucket {
        let start = self.first + index * ENTRIES_PER_BUCKET;
        self.entries[start..start + ENTRIES_PER_BUCKET]
            .try_into()
            .expect("a bucket is four entries")
    }

    /// The entries of the buckets in use, in order.
    fn used(&self) -> &[Entry] {
        &self.entries[self.first..self.first + self.len * ENTRIES_PER_BUCKET]
    }
}

/// `len` zeroed entries, or `None` when the memory cannot be had.
#[cfg(not(loom))]
fn zeroed_entries(len: usize) -> Option<Box<[Entry]>> {
    bytemuck::allocation::try_zeroed_slice_box(len).ok()
}

/// Loom's atomics cannot be allocated zeroed; the loom models build tables of one bucket.
#[cfg(loom)]
fn zeroed_entries(len: usize) -> Option<Box<[Entry]>> {
    Some((0..len).map(|_| Entry::default()).collect())
}

fn pack(
    mv: PackedMove,
    score: Score,
    eval: Score,
    depth: i32,
    bound: Bound,
    generation: u8,
) -> u64 {
    let depth = (depth + DEPTH_OFFSET).clamp(1, 255) as u64;
    u64::from(mv.0)
        | u64::from(score.0 as i16 as u16) << 16
        | u64::from(eval.0 as i16 as u16) << 32
        | depth << 48
        | (bound as u64) << 56
        | u64::from(generation & GENERATION_MASK) << 58
}

fn unpack(data: u64) -> TtHit {
    TtHit {
        mv: PackedMove(data as u16),
        score: Score(i32::from((data >> 16) as u16 as i16)),
        eval: Score(i32::from((data >> 32) as u16 as i16)),
        depth: ((data >> 48) & 0xff) as i32 - DEPTH_OFFSET,
        bound: Bound::from_bits(data >> 56),
    }
}

fn generation_of(data: u64) -> u8 {
    (data >> 58) as u8 & GENERATION_MASK
}

fn stored_depth(data: u64) -> i32 {
    ((data >> 48) & 0xff) as i32
}

/// The shared transposition table. See the module documentation for its concurrency contract.
pub struct TranspositionTable {
    chunks: Vec<Chunk>,
    buckets: usize,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of `mb` MiB (at least one bucket), every entry empty. The memory comes zeroed
    /// from the system and is not written (see the layout notes).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the memory cannot be reserved; nothing is left allocated.
    pub fn new(mb: usize) -> Result<TranspositionTable, Error> {
        let buckets = (mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        // Linux overcommits: a reservation far beyond free memory succeeds and the process is
        // killed later when the pages are touched. Refuse what the system says is not there.
        if let Some(available) = available_mb()
            && mb > available
        {
            return Err(Error::OutOfMemory(format!(
                "a {mb} MB hash table does not fit in the {available} MB of memory available"
            )));
        }
        // Ask for the whole size at once first: one request the system can refuse cleanly
        // (overcommit limits act per request), instead of succeeding chunk by chunk and
        // failing later when the pages are touched. At least a chunk's size, so that it too is
        // a mapping of its own and freeing it leaves glibc's threshold alone.
        let mut probe: Vec<Bucket> = Vec::new();
        probe
            .try_reserve_exact(buckets.max(CHUNK_BUCKETS))
            .map_err(|_| Error::OutOfMemory(format!("cannot allocate a {mb} MB hash table")))?;
        drop(probe);

        let chunk_count = buckets.div_ceil(CHUNK_BUCKETS);
        let chunks: Option<Vec<Chunk>> = (0..chunk_count)
            .map(|i| Chunk::new(CHUNK_BUCKETS.min(buckets - i * CHUNK_BUCKETS)))
            .collect();
        let chunks = chunks
            .ok_or_else(|| Error::OutOfMemory(format!("cannot allocate a {mb} MB hash table")))?;
        Ok(TranspositionTable {
            chunks,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Zeroes every entry, with `threads` threads each clearing its own chunks.
    /// Only call while no search runs (entries written meanwhile would survive).
    pub fn clear(&self, threads: usize) {
        parallel_map(&self.chunks, threads, |chunk| {
            for e in chunk.used() {
                e.check.store(0, Relaxed);
                e.data.store(0, Relaxed);
            }
        });
        self.generation.store(0, Relaxed);
    }

    /// Starts a new search: entries from earlier searches age and are replaced first.
    pub fn new_search(&self) {
        let g = self.generation.load(Relaxed);
        self.generation.store((g + 1) & GENERATION_MASK, Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((u128::from(key) * self.buckets as u128) >> 64) as usize;
        self.chunks[index >> CHUNK_SHIFT].bucket(index & (CHUNK_BUCKETS - 1))
    }

    /// Starts fetching the bucket of `key` into the cache: a plain load whose value is not
    /// waited for (`_mm_prefetch` would need `unsafe`, which this crate keeps out of the
    /// table), so the miss overlaps with the work done before the probe.
    pub fn prefetch(&self, key: u64) {
        std::hint::black_box(self.bucket(key)[0].data.load(Relaxed));
    }

    /// Looks `key` up. `None` when absent or when the entry was torn by a concurrent store.
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        for e in self.bucket(key) {
            let data = e.data.load(Relaxed);
            let check = e.check.load(Relaxed);
            if check ^ data == key && data != 0 {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores a search result for `key`. `score` must already be node-relative
    /// ([`Score::to_tt`]). An existing entry for the key is updated; otherwise the entry with
    /// the least depth, counting older generations as shallower, is replaced.
    pub fn store(
        &self,
        key: u64,
        mv: PackedMove,
        score: Score,
        eval: Score,
        depth: i32,
        bound: Bound,
    ) {
        let generation = self.generation.load(Relaxed);
        let bucket = self.bucket(key);
        let mut target = &bucket[0];
        let mut target_worth = i32::MAX;
        for e in bucket {
            let data = e.data.load(Relaxed);
            let check = e.check.load(Relaxed);
            if check ^ data == key && data != 0 {
                // Same position: keep a deeper result from this search unless the new one is
                // exact, and keep the old move when the new result has none.
                let old = unpack(data);
                if bound != Bound::Exact
                    && generation_of(data) == generation
                    && old.depth > depth + 3
                {
                    return;
                }
                let mv = if mv.is_none() { old.mv } else { mv };
                let new = pack(mv, score, eval, depth, bound, generation);
                e.data.store(new, Relaxed);
                e.check.store(key ^ new, Relaxed);
                return;
            }
            let age = i32::from(generation.wrapping_sub(generation_of(data)) & GENERATION_MASK);
            let worth = if data == 0 {
                i32::MIN
            } else {
                stored_depth(data) - 8 * age
            };
            if worth < target_worth {
                target_worth = worth;
                target = e;
            }
        }
        let new = pack(mv, score, eval, depth, bound, generation);
        target.data.store(new, Relaxed);
        target.check.store(key ^ new, Relaxed);
    }

    /// Permille of the first 1000 entries that hold a result of the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Relaxed);
        let mut used = 0u32;
        let mut seen = 0;
        for e in self.chunks.iter().flat_map(Chunk::used).take(1000) {
            seen += 1;
            let data = e.data.load(Relaxed);
            if data != 0 && generation_of(data) == generation {
                used += 1;
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

// The hook of the hash file (file.rs, which also uses `buckets`, `generation`, `bucket`, `clear`
// and the packing helpers): every entry in table order, bucket 0's four entries first.
impl TranspositionTable {
    fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.chunks.iter().flat_map(Chunk::used)
    }
}

/// Memory the system can give without swapping (Linux `MemAvailable`), in MB.
fn available_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Runs `f` over `items` on up to `threads` scoped threads, each taking a contiguous share,
/// and returns the results in order.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(&f).collect();
    }
    let share = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(share)
            .map(|part| s.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("table worker panicked"))
            .collect()
    })
}

mod file;
pub use file::HashFileReport;

#[cfg(test)]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests {
    use std::sync::Arc;

    use loom::thread;

    use super::*;

    /// A table of one bucket, so that every key shares it. `new` is not used: it allocates on
    /// `std` threads and reads `/proc/meminfo`, neither of which loom models.
    fn one_bucket() -> Arc<TranspositionTable> {
        Arc::new(TranspositionTable {
            chunks: vec![Chunk {
                entries: (0..ENTRIES_PER_BUCKET).map(|_| Entry::default()).collect(),
                first: 0,
                len: 1,
            }],
            buckets: 1,
            generation: AtomicU8::new(0),
        })
    }

    /// The arguments of one `store`, and the hit a probe must return for them.
    #[derive(Clone, Copy)]
    struct Stored {
        key: u64,
        mv: u16,
        score: i32,
        depth: i32,
    }

    impl Stored {
        fn store(self, tt: &TranspositionTable) {
            let score = Score(self.score);
            tt.store(
                self.key,
                PackedMove(self.mv),
                score,
                -score,
                self.depth,
                Bound::Exact,
            );
        }

        fn hit(self) -> TtHit {
            TtHit {
                mv: PackedMove(self.mv),
                score: Score(self.score),
                eval: Score(-self.score),
                depth: self.depth,
                bound: Bound::Exact,
            }
        }
    }

    /// Probes every key and checks that each hit is what one single store wrote for it.
    fn check_probes(tt: &TranspositionTable, stores: &[Stored]) {
        for s in stores {
            if let Some(hit) = tt.probe(s.key) {
                let expected: Vec<TtHit> = stores
                    .iter()
                    .filter(|o| o.key == s.key)
                    .map(|o| o.hit())
                    .collect();
                assert!(
                    expected.contains(&hit),
                    "probe of {:#x} accepted {hit:?}, which no store wrote for that key",
                    s.key
                );
            }
        }
    }

    /// Stores `before` (one thread, before the race), then runs `stores` on one thread each
    /// into the one-bucket table while a last thread probes every key, then probes again once
    /// they are done. The prober is spawned last on purpose: loom's search (DPOR) tries a
    /// load earlier when it first ran after a conflicting store, which is how it finds a probe
    /// between the two word writes of a store. Probes on the main thread, which loom runs
    /// first, were never moved past a store whose thread had loaded the slot itself before
    /// writing it (its scan): the torn window went unexplored.
    fn race(before: &'static [Stored], stores: [Stored; 2]) {
        let mut model = loom::model::Builder::new();
        // Every schedule with at most two preemptions: enough for a probe between the two
        // writes of a store, and what keeps the full bucket's model to seconds.
        model.preemption_bound = Some(2);
        model.check(move || {
            let tt = one_bucket();
            for s in before {
                s.store(&tt);
            }
            let all: Vec<Stored> = before.iter().chain(&stores).copied().collect();
            let mut handles: Vec<_> = stores
                .iter()
                .map(|&s| {
                    let tt = Arc::clone(&tt);
                    thread::spawn(move || s.store(&tt))
                })
                .collect();
            handles.push({
                let (tt, all) = (Arc::clone(&tt), all.clone());
                thread::spawn(move || check_probes(&tt, &all))
            });
            for h in handles {
                h.join().unwrap();
            }
            check_probes(&tt, &all);
        });
    }

    const fn stored(key: u64, mv: u16, score: i32, depth: i32) -> Stored {
        Stored {
            key,
            mv,
            score,
            depth,
        }
    }

    /// No torn entry is accepted: two stores of different keys race for the same slot (the
    /// bucket's first empty entry, which both pick) while a probe reads both keys. In some
    /// interleavings the slot ends up with the `data` word of one store and the `check` word of
    /// the other, or a probe reads one word before and one after a store. A probe must then
    /// miss: it fails if the `check ^ data == key` test were weakened (say, to `data != 0`, or
    /// to a separate key word written apart from the data), because a probe of one key would
    /// return the other key's move and score.
    #[test]
    fn racing_stores_of_two_keys_never_yield_a_torn_hit() {
        race(
            &[],
            [
                stored(0x0123_4567_89ab_cdef, 0x0111, 11, 3),
                stored(0x7edc_ba98_7654_3210, 0x0222, -22, 5),
            ],
        );
    }

    /// Two stores of one key with different results (both exact, so each replaces the other;
    /// run one after the other, the second rewrites the first's entry in place): a probe
    /// returns one store's result whole. It would fail if the in-place update mixed the old
    /// entry into the new one beyond the move it keeps when the new result has none.
    #[test]
    fn racing_stores_of_one_key_yield_one_result_whole() {
        let key = 0x0f0f_1234_5678_f0f0;
        race(
            &[],
            [stored(key, 0x0333, 33, 2), stored(key, 0x0444, -44, 4)],
        );
    }

    /// A full bucket: one store replaces the shallowest entry with a new key while another
    /// rewrites a second entry of its own key in place, and probes read every key. A probe of
    /// the replaced key sees its old result or a miss, never the new key's result (which it
    /// would with a weakened check, since the slot's `data` is nonzero throughout).
    #[test]
    fn replacing_and_updating_in_a_full_bucket_never_yield_a_torn_hit() {
        const FULL: &[Stored] = &[
            stored(0x1111_0000_0000_0001, 0x0101, 1, 1),
            stored(0x2222_0000_0000_0002, 0x0202, 2, 6),
            stored(0x3333_0000_0000_0003, 0x0303, 3, 7),
            stored(0x4444_0000_0000_0004, 0x0404, 4, 8),
        ];
        race(
            FULL,
            [
                stored(0x5555_0000_0000_0005, 0x0505, 5, 2),
                stored(0x2222_0000_0000_0002, 0x0606, -6, 9),
            ],
        );
    }
}
