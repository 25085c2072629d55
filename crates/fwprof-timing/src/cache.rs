//! Set-associative cache model ([`Cache`]): tags, dirty bits, replacement
//! and write policies, and traffic counters.
use crate::params::{CacheParams, Replacement};

/// What one [`Cache::access`] did. `hit` and `fill` are never both set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheAccess {
    /// The line was present.
    pub hit: bool,
    /// A line was brought in from memory (a miss that allocated).
    pub fill: bool,
    /// A dirty line was evicted to make room and written to memory
    /// (write-back caches only).
    pub writeback: bool,
    /// This store was sent to memory: every store of a write-through cache,
    /// and a store miss of a no-write-allocate cache.
    pub write_through: bool,
}

/// Counts since [`Cache::new`], in accesses or lines (one line =
/// [`CacheParams::line`] bytes of memory traffic).
///
/// Invariants: `hits + misses == accesses`, `reads + writes == accesses`,
/// `read_misses + write_misses == misses`, `fills <= misses`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Accesses (loads and stores).
    pub accesses: u64,
    /// Accesses that found their line.
    pub hits: u64,
    /// Accesses that did not find their line.
    pub misses: u64,
    /// Load (or instruction fetch) accesses.
    pub reads: u64,
    /// Store accesses.
    pub writes: u64,
    /// Loads that missed.
    pub read_misses: u64,
    /// Stores that missed.
    pub write_misses: u64,
    /// Dirty lines written to memory, on eviction or by [`Cache::flush`].
    pub writebacks: u64,
    /// Stores sent to memory (see [`CacheAccess::write_through`]).
    pub write_throughs: u64,
    /// Lines brought in from memory.
    pub fills: u64,
}

impl CacheStats {
    /// `misses / accesses`, or 0.0 before the first access.
    pub fn miss_rate(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.misses as f64 / self.accesses as f64
        }
    }
}

/// Tag of an empty way. A valid tag is `line_number << 1 | dirty` with
/// `line_number < 2^62` (lines are at least 4 bytes), so this value never
/// matches one.
const INVALID: u64 = u64::MAX;
/// The dirty bit inside a tag.
const DIRTY: u64 = 1;
/// Seed of the Random replacement generator (any non-zero constant; fixed so
/// that runs repeat).
const RANDOM_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// One set-associative cache level (an instruction or data cache) with its
/// counters, modelled as tags and dirty bits only: no data is stored, the
/// simulator's memory stays the single source of values.
///
/// Geometry: `sets = size / line / ways`; an address selects line
/// `addr >> log2(line)` and set `line % sets`. Each set keeps its ways in
/// one slice of a flat tag array, ordered by the replacement policy:
///
/// - [`Replacement::Lru`]: most recently used first; a hit moves the line to
///   the front, the victim is the last way.
/// - [`Replacement::Fifo`]: most recently *inserted* first; hits do not
///   reorder, the victim is the last (oldest) way.
/// - [`Replacement::Random`]: an empty way if there is one, otherwise a way
///   chosen by a xorshift64 generator with a fixed seed, so two caches with
///   the same parameters fed the same accesses behave identically.
///
/// Writes: a write-back cache keeps a dirty bit per line and writes the line
/// to memory when it is evicted ([`CacheAccess::writeback`]) or flushed; a
/// write-through cache never holds dirty lines and sends every store to
/// memory ([`CacheAccess::write_through`]). A store miss either allocates
/// the line (write-allocate: filled like a load miss, then written) or goes
/// around the cache (no-write-allocate: nothing is filled, the store is sent
/// to memory).
///
/// Cost: [`Cache::access`] does no allocation or hashing: a shift, a mask
/// and a linear scan of one set's `ways` tags, plus a rotation of at most
/// `ways` tags on an LRU hit or on a fill.
#[derive(Clone, Debug)]
pub struct Cache {
    params: CacheParams,
    /// `sets * ways` tags; set `s` is `tags[s * ways..(s + 1) * ways]`,
    /// ordered by the policy (victim last); empty ways are always at the end.
    tags: Vec<u64>,
    ways: usize,
    sets: u32,
    line_shift: u32,
    set_mask: u64,
    /// Xorshift64 state for [`Replacement::Random`].
    rng: u64,
    stats: CacheStats,
}

/// The largest power of two `<= x`, for `x >= 1`.
fn floor_pow2(x: u32) -> u32 {
    1 << (31 - x.max(1).leading_zeros())
}

impl Cache {
    /// An empty cache (every line invalid) with `params`.
    ///
    /// `params` are expected to be validated (powers of two, as
    /// [`CacheParams`] documents); this never panics regardless. A
    /// degenerate geometry is clamped: the line to a power of two of at
    /// least 4 bytes, ways to at least 1, sets to a power of two of at least
    /// 1 (so a cache smaller than one set of lines still holds `ways` lines).
    /// [`Cache::sets`], [`Cache::ways`] and [`Cache::line`] report the
    /// geometry actually modelled.
    pub fn new(params: &CacheParams) -> Cache {
        let line = floor_pow2(params.line.max(4));
        let ways = params.ways.max(1);
        let sets = floor_pow2(params.size / line / ways);
        Cache {
            params: params.clone(),
            tags: vec![INVALID; sets as usize * ways as usize],
            ways: ways as usize,
            sets,
            line_shift: line.trailing_zeros(),
            set_mask: u64::from(sets - 1),
            rng: RANDOM_SEED,
            stats: CacheStats::default(),
        }
    }

    /// The parameters this cache was built from (before any clamping).
    pub fn params(&self) -> &CacheParams {
        &self.params
    }

    /// Sets modelled (a power of two, >= 1).
    pub fn sets(&self) -> u32 {
        self.sets
    }

    /// Ways per set modelled (>= 1).
    pub fn ways(&self) -> u32 {
        self.ways as u32
    }

    /// Line size modelled, in bytes (a power of two, >= 4).
    pub fn line(&self) -> u32 {
        1 << self.line_shift
    }

    /// Counts since creation.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// The shape translated code checks in line (see
    /// [`fwprof_sim::InlineDcache`]: this cache's tag layout is the one it
    /// describes) and the tag array, valid while the cache lives (it never
    /// reallocates). Accesses settled in line are not counted in
    /// [`Cache::stats`].
    pub fn inline(&mut self) -> (fwprof_sim::InlineDcache, *mut u64) {
        let shape = fwprof_sim::InlineDcache {
            line_shift: self.line_shift,
            set_mask: self.set_mask,
            ways: self.ways as u64,
            write_back: self.params.write_back,
        };
        (shape, self.tags.as_mut_ptr())
    }

    /// Whether the line holding byte `addr` is present, without counting an
    /// access or changing the replacement order.
    pub fn contains(&self, addr: u64) -> bool {
        let line = addr >> self.line_shift;
        let base = (line & self.set_mask) as usize * self.ways;
        let key = line << 1;
        self.tags[base..base + self.ways]
            .iter()
            .any(|&t| t & !DIRTY == key)
    }

    /// Whether the line holding byte `addr` is the most recent of its set
    /// (the first way in the policy's order), where a read of it is a hit
    /// that changes nothing. Counts nothing.
    #[inline]
    pub fn is_mru(&self, addr: u64) -> bool {
        let line = addr >> self.line_shift;
        let base = (line & self.set_mask) as usize * self.ways;
        self.tags[base] & !DIRTY == line << 1
    }

    /// One load (`write == false`) or store of the byte at `addr` (a byte
    /// address); the caller splits an access that crosses a line boundary
    /// into one call per line. Updates the tags, the replacement order and
    /// the counters, and returns what happened (see the
    /// [`Cache`] docs for the write policies).
    #[inline(always)]
    pub fn access(&mut self, addr: u64, write: bool) -> CacheAccess {
        let line = addr >> self.line_shift;
        let base = (line & self.set_mask) as usize * self.ways;
        let key = line << 1;
        // The common cases first: the most recent line of its set is hit by
        // a read, which changes nothing (for every replacement policy), or
        // by a store to a write-back cache, which only marks it dirty.
        let front = self.tags[base];
        if front & !DIRTY == key && (!write || self.params.write_back) {
            let stats = &mut self.stats;
            stats.accesses += 1;
            stats.hits += 1;
            if write {
                stats.writes += 1;
                self.tags[base] = front | DIRTY;
            } else {
                stats.reads += 1;
            }
            return CacheAccess {
                hit: true,
                fill: false,
                writeback: false,
                write_through: false,
            };
        }
        self.access_slow(base, key, write)
    }

    /// [`Cache::access`] past its fast path, for the set starting at
    /// `base` in `tags` and the tag `key` (`line << 1`).
    #[inline(never)]
    fn access_slow(&mut self, base: usize, key: u64, write: bool) -> CacheAccess {
        let set = &mut self.tags[base..base + self.ways];
        let stats = &mut self.stats;
        stats.accesses += 1;
        if write {
            stats.writes += 1;
        } else {
            stats.reads += 1;
        }

        if let Some(way) = set.iter().position(|&t| t & !DIRTY == key) {
            stats.hits += 1;
            let mut write_through = false;
            if write {
                if self.params.write_back {
                    set[way] |= DIRTY;
                } else {
                    write_through = true;
                    stats.write_throughs += 1;
                }
            }
            if way != 0 && self.params.replacement == Replacement::Lru {
                set[..=way].rotate_right(1);
            }
            return CacheAccess {
                hit: true,
                fill: false,
                writeback: false,
                write_through,
            };
        }

        stats.misses += 1;
        if write {
            stats.write_misses += 1;
            if !self.params.write_allocate {
                stats.write_throughs += 1;
                return CacheAccess {
                    hit: false,
                    fill: false,
                    writeback: false,
                    write_through: true,
                };
            }
        } else {
            stats.read_misses += 1;
        }

        let last = set.len() - 1;
        let victim = if self.params.replacement == Replacement::Random && set[last] != INVALID {
            let mut x = self.rng;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.rng = x;
            (x % set.len() as u64) as usize
        } else {
            last
        };
        let old = set[victim];
        let writeback = old != INVALID && old & DIRTY != 0;
        if writeback {
            stats.writebacks += 1;
        }
        stats.fills += 1;
        let write_through = write && !self.params.write_back;
        if write_through {
            stats.write_throughs += 1;
        }
        // The new line goes first: the most recent for LRU and FIFO; for
        // Random the order only keeps empty ways at the end.
        set[..=victim].rotate_right(1);
        set[0] = if write && self.params.write_back {
            key | DIRTY
        } else {
            key
        };
        CacheAccess {
            hit: false,
            fill: true,
            writeback,
            write_through,
        }
    }

    /// Cycles the access `a` (returned by [`Cache::access`] of this cache)
    /// takes: [`CacheParams::hit_latency`] on a hit, plus
    /// [`CacheParams::miss_penalty`] when a line was filled.
    ///
    /// Assumptions, kept simple on purpose: stores sent to memory (write-
    /// through, or a no-write-allocate store miss) and dirty-line
    /// writebacks go through a store buffer that never fills, so they cost
    /// nothing beyond `hit_latency`; a no-write-allocate store miss
    /// therefore costs `hit_latency`. Memory wait states are added by the
    /// caller from the region the line comes from.
    #[inline]
    pub fn latency(&self, a: &CacheAccess) -> u32 {
        if a.fill {
            self.params
                .hit_latency
                .saturating_add(self.params.miss_penalty)
        } else {
            self.params.hit_latency
        }
    }

    /// Invalidates every line (e.g. for `fence.i` on an instruction cache,
    /// or at the end of a run to account for the remaining dirty data).
    /// Each dirty line counts as one writeback in [`CacheStats::writebacks`];
    /// returns how many lines were written back by this call. The other
    /// counters and the Random generator are kept.
    pub fn flush(&mut self) -> u64 {
        let mut written = 0;
        for t in &mut self.tags {
            if *t != INVALID && *t & DIRTY != 0 {
                written += 1;
            }
            *t = INVALID;
        }
        self.stats.writebacks += written;
        written
    }
}
