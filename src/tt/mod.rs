//! The transposition table shared by all search threads, lock-free; its memory is in [`memory`].
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
//! search holds its own `Arc` until it ends); emptying it ([`TranspositionTable::clear`],
//! [`TranspositionTable::discard`]) is only done while no search runs, which the facade
//! guarantees.
//!
//! # Layout and memory
//!
//! Buckets of four 16-byte entries, 64 bytes, each on one cache line. A key picks its bucket
//! by the high half of `key * buckets` (Lemire's multiply-shift range reduction). The buckets
//! live in chunks of up to 32 MiB, each an anonymous mapping of its own ([`memory`], the one
//! module with `unsafe` besides the C boundary), so that the work on a large table (emptying
//! it, giving it back) is spread over all cores, one chunk at a time.
//!
//! - **Zero pages, no writes.** A mapping comes zeroed from the system, which hands out zero
//!   pages as they are first touched: a new table of any size is ready at once and a small
//!   search touches only the pages it uses. (Written entry by entry, a 16 MB table took 4,096
//!   page faults before its first probe: the C API fuzz target, which creates an engine per
//!   input, ran 343 inputs a second.)
//! - **Huge pages.** A table of at least [`pages::HUGE_PAGES_MIN_MB`] is mapped on 2 MiB
//!   boundaries and advised `MADV_HUGEPAGE` (Linux; the kernel gives transparent huge pages to
//!   such a mapping where its mode is `madvise` or `always`), so that one TLB entry covers
//!   2 MiB of it instead of 4 KiB; where the advice is refused the table silently uses base
//!   pages. A smaller table keeps the system's choice, since each huge page costs a 2 MiB
//!   zeroing when first touched. `LAZULI_HUGE_PAGES` switches this for measurement, and
//!   [`TranspositionTable::huge_page_bytes`] reports what the kernel did ([`pages`]).
//! - **Emptying.** [`TranspositionTable::clear`] (`ucinewgame`, `Clear Hash`) writes zeroes on
//!   all cores, skipping entries already zero, so pages never touched are only read and stay
//!   the shared zero page. [`TranspositionTable::discard`] with `LAZULI_TT_CLEAR=discard`
//!   gives the pages back instead (`MADV_DONTNEED`, which zeroes a private mapping): `readyok`
//!   comes at once, but the next search pays for the zeroing page fault by page fault, on its
//!   own thread, 2 MiB at a time with huge pages; at 16 GB it ran at 2% of its speed for its
//!   first second, so writing on all cores is the default (docs/measurements.md).
//! - **Freeing.** Dropping a table discards and unmaps its chunks on all cores, so the memory
//!   goes back to the system at once, and a new `Hash` does not wait for a 16 GB table to be
//!   unmapped page by page on one thread.
//! - **Out of memory.** A size beyond `MemAvailable`, or one the system refuses as a whole
//!   (overcommit limits act per request, so the whole size is asked for once before the
//!   chunks), is [`Error::OutOfMemory`], with nothing left allocated.

use shakmaty::{Chess, Move, Position as _, Role, Square};

use crate::error::Error;
use crate::position::{from_to, is_legal};
use crate::score::Score;
use crate::sync::{AtomicU8, AtomicU64, Ordering::Relaxed};
use memory::{Pages, Zeroed};
use pages::Policy;

#[cfg_attr(
    not(loom),
    expect(
        unsafe_code,
        reason = "the view of the mapped memory as entries, and dropping its pages"
    )
)]
mod memory;
mod pages;

const ENTRIES_PER_BUCKET: usize = 4;
/// Buckets per chunk: 2^19 buckets of 64 bytes, 32 MiB (16 huge pages), so that a 16 GB
/// table is 512 mappings, enough to keep every core busy when it is emptied or freed. See the
/// module's layout notes.
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
        is_legal(chess, candidate).then_some(candidate)
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

/// A chunk of buckets in a mapping of its own (see the layout notes). Bucket 0 is at the
/// mapping's start, page-aligned (2 MiB-aligned in huge pages), so each bucket is one cache
/// line.
struct Chunk {
    /// Exactly the chunk's buckets' entries.
    entries: Zeroed<Entry>,
}

impl Chunk {
    /// `len` empty buckets; `None` when the memory cannot be had.
    fn new(len: usize, pages: Pages) -> Option<Chunk> {
        let entries = Zeroed::new(len * ENTRIES_PER_BUCKET, pages)?;
        Some(Chunk { entries })
    }

    fn bucket(&self, index: usize) -> &Bucket {
        let start = index * ENTRIES_PER_BUCKET;
        self.entries.as_slice()[start..start + ENTRIES_PER_BUCKET]
            .try_into()
            .expect("a bucket is four entries")
    }

    /// The entries of the buckets, in order.
    fn used(&self) -> &[Entry] {
        self.entries.as_slice()
    }

    /// Zeroes every entry that is not zero yet (pages never touched are only read).
    fn zero(&self) {
        for e in self.used() {
            if e.data.load(Relaxed) != 0 || e.check.load(Relaxed) != 0 {
                e.check.store(0, Relaxed);
                e.data.store(0, Relaxed);
            }
        }
    }
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

/// What keeping the entry `data` is worth when a bucket needs a slot, `generation` being the
/// current one: its stored depth, eight plies less per generation of age; an empty entry is
/// worth least.
#[inline]
fn worth(data: u64, generation: u8) -> i32 {
    if data == 0 {
        return i32::MIN;
    }
    let age = i32::from(generation.wrapping_sub(generation_of(data)) & GENERATION_MASK);
    stored_depth(data) - 8 * age
}

/// The bucket of `key` among `buckets`: the high half of `key * buckets` (the layout notes).
#[inline]
fn bucket_index(key: u64, buckets: u64) -> u64 {
    ((u128::from(key) * u128::from(buckets)) >> 64) as u64
}

/// The shared transposition table. See the module documentation for its concurrency contract.
pub struct TranspositionTable {
    chunks: Vec<Chunk>,
    buckets: usize,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of `mb` MiB (at least one bucket), every entry empty: zero pages from the
    /// system, not written, in huge pages from [`pages::HUGE_PAGES_MIN_MB`] on (see the layout
    /// notes).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the memory cannot be reserved; nothing is left allocated.
    pub fn new(mb: usize) -> Result<TranspositionTable, Error> {
        TranspositionTable::with_pages(mb, Policy::get().pages(mb))
    }

    /// [`TranspositionTable::new`] in the pages given.
    fn with_pages(mb: usize, pages: Pages) -> Result<TranspositionTable, Error> {
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
        let out_of_memory = || Error::OutOfMemory(format!("cannot allocate a {mb} MB hash table"));
        // Ask for the whole size at once first: one request the system can refuse cleanly
        // (overcommit limits act per request), instead of succeeding chunk by chunk and
        // failing later when the pages are touched.
        let chunk_count = buckets.div_ceil(CHUNK_BUCKETS);
        if chunk_count > 1 {
            drop(Zeroed::<Bucket>::new(buckets, Pages::System).ok_or_else(out_of_memory)?);
        }
        let chunks: Option<Vec<Chunk>> = (0..chunk_count)
            .map(|i| Chunk::new(CHUNK_BUCKETS.min(buckets - i * CHUNK_BUCKETS), pages))
            .collect();
        Ok(TranspositionTable {
            chunks: chunks.ok_or_else(out_of_memory)?,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Zeroes every entry, on all cores (each its own chunks), writing only the entries not
    /// yet zero, so that pages never touched stay the system's zero page. Only call while no
    /// search runs (entries written meanwhile would survive).
    pub fn clear(&self) {
        on_all_cores(self.chunks.iter().collect(), Chunk::zero);
        self.generation.store(0, Relaxed);
    }

    /// Empties the table as [`TranspositionTable::clear`] does, faster: its pages go back to
    /// the system (on Linux; on all cores), which costs the unmapping of the pages in use
    /// rather than writing them, and the next search finds zero pages as it touches them.
    /// Only with `LAZULI_TT_CLEAR=discard`; otherwise, and where the system cannot take them
    /// back, it writes as `clear` does (see the module's notes for why writing is the default).
    pub fn discard(&mut self) {
        self.empty(Policy::get().discard());
    }

    /// Gives the pages back (`give_back`, where the system can) or writes zeroes.
    fn empty(&mut self, give_back: bool) {
        on_all_cores(self.chunks.iter_mut().collect(), |chunk| {
            if !(give_back && chunk.entries.discard()) {
                chunk.zero();
            }
        });
        self.generation.store(0, Relaxed);
    }

    /// How many bytes of the table the kernel backs with huge pages now (`AnonHugePages` of
    /// its mappings in `/proc/self/smaps`); `None` where that cannot be read (not Linux).
    pub fn huge_page_bytes(&self) -> Option<u64> {
        let ranges: Vec<_> = self
            .chunks
            .iter()
            .map(|c| {
                let entries = c.used();
                let start = entries.as_ptr().addr();
                start..start + std::mem::size_of_val(entries)
            })
            .collect();
        pages::huge_page_bytes(&ranges)
    }

    /// Starts a new search: entries from earlier searches age and are replaced first.
    pub fn new_search(&self) {
        let g = self.generation.load(Relaxed);
        self.generation.store((g + 1) & GENERATION_MASK, Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let index = bucket_index(key, self.buckets as u64) as usize;
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
            let worth = worth(data, generation);
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

impl Drop for TranspositionTable {
    /// Gives a table of several chunks back on all cores: their pages are dropped in parallel
    /// (`MADV_DONTNEED` takes the address space's lock for reading; unmapping takes it for
    /// writing), then each empty mapping is unmapped.
    fn drop(&mut self) {
        if self.chunks.len() > 1 {
            on_all_cores(std::mem::take(&mut self.chunks), |mut chunk| {
                chunk.entries.discard();
            });
        }
    }
}

/// Runs `f` on every item, spread over the machine's cores: scoped threads, each taking a
/// contiguous share; the calling thread does all of it when there is one item, one core, or
/// a thread cannot be started (no panic: this runs in `Drop`).
fn on_all_cores<I: Send>(items: Vec<I>, f: impl Fn(I) + Sync) {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let threads = cores.min(items.len());
    if threads <= 1 {
        items.into_iter().for_each(f);
        return;
    }
    let share = items.len().div_ceil(threads);
    let mut items = items.into_iter();
    // Each share is handed over through a lock so that a share whose thread failed to start
    // is still at hand for the calling thread. Not shared state: each lock is taken once,
    // by one thread.
    let shares: Vec<std::sync::Mutex<Vec<I>>> = (0..threads)
        .map(|_| std::sync::Mutex::new(items.by_ref().take(share).collect()))
        .collect();
    let run = |share: &std::sync::Mutex<Vec<I>>| {
        let items = std::mem::take(&mut *share.lock().unwrap_or_else(|e| e.into_inner()));
        items.into_iter().for_each(&f);
    };
    std::thread::scope(|scope| {
        for share in &shares[1..] {
            let started = std::thread::Builder::new()
                .name("lazuli-tt".into())
                .spawn_scoped(scope, || run(share));
            if started.is_err() {
                run(share);
            }
        }
        run(&shares[0]);
    });
}

mod file;
pub use file::HashFileReport;

#[cfg(test)]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests;
