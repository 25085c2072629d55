//! Tests of [`Cache`]: capacity knees, line-size sweeps, write traffic,
//! replacement policies, and a property test against a plain reference model.
use crate::{Cache, CacheAccess, CacheParams, CacheStats, Replacement};
use proptest::prelude::*;

const BASE: u64 = 0x8000_0000;

fn params(size: u32, ways: u32, line: u32, replacement: Replacement) -> CacheParams {
    CacheParams {
        size,
        ways,
        line,
        replacement,
        write_back: true,
        write_allocate: true,
        hit_latency: 1,
        miss_penalty: 10,
    }
}

fn delta(after: CacheStats, before: CacheStats) -> CacheStats {
    CacheStats {
        accesses: after.accesses - before.accesses,
        hits: after.hits - before.hits,
        misses: after.misses - before.misses,
        reads: after.reads - before.reads,
        writes: after.writes - before.writes,
        read_misses: after.read_misses - before.read_misses,
        write_misses: after.write_misses - before.write_misses,
        writebacks: after.writebacks - before.writebacks,
        write_throughs: after.write_throughs - before.write_throughs,
        fills: after.fills - before.fills,
    }
}

/// Reads `bytes` from `BASE` with stride `line` once to warm up, then
/// `passes` more times; returns the counts of the measured passes.
fn sweep(p: &CacheParams, bytes: u64, passes: u32) -> CacheStats {
    let mut c = Cache::new(p);
    let pass = |c: &mut Cache| {
        for off in (0..bytes).step_by(p.line as usize) {
            c.access(BASE + off, false);
        }
    };
    pass(&mut c);
    let before = c.stats();
    for _ in 0..passes {
        pass(&mut c);
    }
    delta(c.stats(), before)
}

#[test]
fn capacity_knee_is_exactly_the_cache_size() {
    let size = 4096u32;
    let line = 32u32;
    for (ways, replacement) in [
        (1, Replacement::Lru),
        (4, Replacement::Lru),
        (4, Replacement::Fifo),
    ] {
        let p = params(size, ways, line, replacement);
        let mut bytes = u64::from(size / 4);
        while bytes <= 4 * u64::from(size) {
            let s = sweep(&p, bytes, 4);
            assert_eq!(s.accesses, 4 * bytes / u64::from(line));
            if bytes <= u64::from(size) {
                assert_eq!(s.hits, s.accesses, "{ways}-way {replacement:?}, {bytes} B");
            } else {
                assert_eq!(s.hits, 0, "{ways}-way {replacement:?}, {bytes} B");
            }
            bytes *= 2;
        }
        // One line more than fits: only the set holding two lines too many
        // thrashes, with `ways + 1` misses per pass.
        let s = sweep(&p, u64::from(size + line), 4);
        assert_eq!(
            s.misses,
            4 * u64::from(ways + 1),
            "{ways}-way {replacement:?}"
        );
    }
}

#[test]
fn random_replacement_keeps_part_of_an_oversized_array() {
    let p = params(4096, 4, 32, Replacement::Random);
    assert_eq!(sweep(&p, 4096, 4).misses, 0);
    let s = sweep(&p, 8192, 8);
    assert!(s.hits > 0 && s.misses > 0, "{s:?}");
}

#[test]
fn one_miss_per_line_when_reading_words_once() {
    for line in [16u32, 32, 64] {
        let p = params(1024, 2, line, Replacement::Lru);
        let mut c = Cache::new(&p);
        let bytes = 4096u64;
        for off in (0..bytes).step_by(4) {
            c.access(BASE + off, false);
        }
        let s = c.stats();
        assert_eq!(s.misses, bytes / u64::from(line), "line {line}");
        assert_eq!(s.read_misses, s.misses);
        assert_eq!(s.fills, s.misses);
        assert_eq!(s.hits, bytes / 4 - s.misses);
        assert_eq!(s.writebacks, 0);
    }
}

/// Writes 4-byte words over `bytes` from `BASE` once.
fn write_words(c: &mut Cache, bytes: u64) -> Vec<CacheAccess> {
    (0..bytes)
        .step_by(4)
        .map(|off| c.access(BASE + off, true))
        .collect()
}

#[test]
fn write_back_write_allocate_traffic() {
    let p = params(1024, 2, 32, Replacement::Lru);
    let mut c = Cache::new(&p);
    let out = write_words(&mut c, 2048);
    let s = c.stats();
    assert_eq!(s.writes, 512);
    assert_eq!(s.write_misses, 64);
    assert_eq!(s.fills, 64);
    // The second kilobyte evicts the whole first one, all of it dirty.
    assert_eq!(s.writebacks, 32);
    assert_eq!(s.write_throughs, 0);
    assert!(!out[..256].iter().any(|a| a.writeback));
    assert!(out[256].fill && out[256].writeback && !out[256].write_through);
    assert_eq!(c.flush(), 32);
    assert_eq!(c.stats().writebacks, 64);
    assert_eq!(c.flush(), 0);
    assert!(!c.contains(BASE + 1024));
}

#[test]
fn write_through_sends_every_store_and_never_writes_back() {
    let mut p = params(1024, 2, 32, Replacement::Lru);
    p.write_back = false;
    let mut c = Cache::new(&p);
    let out = write_words(&mut c, 2048);
    let s = c.stats();
    assert_eq!(s.write_throughs, 512);
    assert!(out.iter().all(|a| a.write_through && !a.writeback));
    assert_eq!(s.fills, 64);
    assert_eq!(s.writebacks, 0);
    assert_eq!(c.flush(), 0);
}

#[test]
fn no_write_allocate_store_misses_do_not_fill() {
    let mut p = params(1024, 2, 32, Replacement::Lru);
    p.write_back = false;
    p.write_allocate = false;
    let mut c = Cache::new(&p);
    let out = write_words(&mut c, 2048);
    let s = c.stats();
    assert_eq!((s.misses, s.hits, s.fills), (512, 0, 0));
    assert_eq!(s.write_throughs, 512);
    assert!(out.iter().all(|a| !a.hit && !a.fill && a.write_through));
    assert!(!c.contains(BASE));
    assert!(!c.access(BASE, false).hit);
}

#[test]
fn write_back_no_write_allocate_dirties_lines_it_holds() {
    let mut p = params(64, 2, 32, Replacement::Lru); // one set, two ways
    p.write_allocate = false;
    let mut c = Cache::new(&p);
    assert!(c.access(0, false).fill);
    let st = c.access(4, true);
    assert!(st.hit && !st.write_through);
    // A store miss goes around the cache.
    let around = c.access(0x100, true);
    assert!(!around.hit && !around.fill && around.write_through);
    assert!(!c.contains(0x100));
    // Two other lines evict the dirty one: exactly one writeback.
    assert!(!c.access(0x200, false).writeback);
    assert!(c.access(0x300, false).writeback);
    assert_eq!(c.stats().writebacks, 1);
}

#[test]
fn latency_per_outcome() {
    let mut p = params(1024, 2, 32, Replacement::Lru);
    p.hit_latency = 2;
    p.miss_penalty = 20;
    let mut c = Cache::new(&p);
    let miss = c.access(BASE, false);
    assert_eq!(c.latency(&miss), 22);
    let hit = c.access(BASE + 8, false);
    assert_eq!(c.latency(&hit), 2);
    p.write_allocate = false;
    let mut c = Cache::new(&p);
    let around = c.access(BASE, true);
    assert_eq!(c.latency(&around), 2);
}

#[test]
fn fifo_and_lru_differ_on_a_b_a_c_a() {
    // One set of two 32-byte ways; A, B, C are three lines of it.
    let (a, b, cc) = (0u64, 32, 64);
    let hits = |replacement| {
        let mut c = Cache::new(&params(64, 2, 32, replacement));
        assert_eq!(c.sets(), 1);
        [a, b, a, cc, a].map(|x| c.access(x, false).hit)
    };
    // LRU: A was used after B, so C evicts B.
    assert_eq!(hits(Replacement::Lru), [false, false, true, false, true]);
    // FIFO: A was inserted first, the hit does not refresh it: C evicts A.
    assert_eq!(hits(Replacement::Fifo), [false, false, true, false, false]);
}

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

#[test]
fn random_replacement_repeats_across_caches() {
    let p = params(1024, 4, 32, Replacement::Random);
    let (mut c1, mut c2) = (Cache::new(&p), Cache::new(&p));
    let mut lru = Cache::new(&params(1024, 4, 32, Replacement::Lru));
    let mut x = 12345u64;
    for _ in 0..20_000 {
        let r = xorshift(&mut x);
        let addr = r % 4096;
        let write = r >> 63 == 1;
        assert_eq!(c1.access(addr, write), c2.access(addr, write));
        lru.access(addr, write);
    }
    assert_eq!(c1.stats(), c2.stats());
    assert_ne!(c1.stats(), lru.stats(), "Random should not behave like LRU");
}

#[test]
fn degenerate_geometry_is_clamped_not_panicking() {
    let mut c = Cache::new(&params(0, 0, 0, Replacement::Lru));
    assert_eq!((c.sets(), c.ways(), c.line()), (1, 1, 4));
    assert!(c.access(u64::MAX, true).fill);
    assert!(c.access(u64::MAX - 3, false).hit);
    let c = Cache::new(&params(1000, 3, 48, Replacement::Random));
    assert_eq!((c.sets(), c.ways(), c.line()), (8, 3, 32));
    assert_eq!(c.params().line, 48);
}

/// A plain model of an LRU or FIFO cache: per set, lines most recent (or
/// most recently inserted) first.
struct Model {
    p: CacheParams,
    sets: Vec<Vec<(u64, bool)>>,
}

impl Model {
    fn access(&mut self, addr: u64, write: bool) -> CacheAccess {
        let line = addr / u64::from(self.p.line);
        let n = self.sets.len() as u64;
        let ways = self.p.ways as usize;
        let (wb, wa) = (self.p.write_back, self.p.write_allocate);
        let set = &mut self.sets[(line % n) as usize];
        let mut out = CacheAccess::default();
        if let Some(i) = set.iter().position(|&(l, _)| l == line) {
            out.hit = true;
            if write && wb {
                set[i].1 = true;
            }
            out.write_through = write && !wb;
            if self.p.replacement == Replacement::Lru {
                let e = set.remove(i);
                set.insert(0, e);
            }
        } else if write && !wa {
            out.write_through = true;
        } else {
            out.fill = true;
            if set.len() == ways {
                out.writeback = set.pop().unwrap().1;
            }
            set.insert(0, (line, write && wb));
            out.write_through = write && !wb;
        }
        out
    }
}

fn geometry() -> impl Strategy<Value = CacheParams> {
    (
        2u32..=6,
        0u32..=3,
        1u32..=4,
        prop_oneof![
            Just(Replacement::Lru),
            Just(Replacement::Fifo),
            Just(Replacement::Random)
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(line_log, sets_log, ways, replacement, write_back, write_allocate)| {
                let line = 1 << line_log;
                CacheParams {
                    size: (line * ways) << sets_log,
                    ways,
                    line,
                    replacement,
                    write_back,
                    write_allocate,
                    hit_latency: 1,
                    miss_penalty: 5,
                }
            },
        )
}

proptest! {
    #[test]
    fn matches_model_and_keeps_invariants(
        p in geometry(),
        trace in prop::collection::vec((0u64..4096, any::<bool>()), 0..400),
    ) {
        let mut c = Cache::new(&p);
        let sets = (p.size / p.line / p.ways) as u64;
        let mut model = Model { p: p.clone(), sets: vec![Vec::new(); sets as usize] };
        for &(addr, write) in &trace {
            let got = c.access(addr, write);
            if p.replacement != Replacement::Random {
                prop_assert_eq!(got, model.access(addr, write));
            }
        }
        let s = c.stats();
        prop_assert_eq!(s.accesses, trace.len() as u64);
        prop_assert_eq!(s.hits + s.misses, s.accesses);
        prop_assert_eq!(s.reads + s.writes, s.accesses);
        prop_assert_eq!(s.read_misses + s.write_misses, s.misses);
        prop_assert!(s.fills <= s.misses);
        // No set holds more than `ways` lines.
        let line = u64::from(p.line);
        for set in 0..sets {
            let held = (0..4096 / line)
                .filter(|l| l % sets == set && c.contains(l * line))
                .count();
            prop_assert!(held <= p.ways as usize);
        }
        // LRU: `ways` distinct lines of one set, touched after any history,
        // are all still there.
        if p.replacement == Replacement::Lru {
            let lines: Vec<u64> = (0..u64::from(p.ways)).map(|k| (3 + k * sets) * line).collect();
            for &a in &lines {
                c.access(a, false);
            }
            for &a in &lines {
                prop_assert!(c.access(a, false).hit);
            }
        }
    }
}
