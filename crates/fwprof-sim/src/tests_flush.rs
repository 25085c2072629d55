//! Tests that block-cache flushes (`fence.i`) and invalidations
//! (self-modifying code) cost the same late in a long run as early, and
//! that block ids restart correctly after each flush.

use crate::test_asm::*;
use crate::{BlockId, CacheStats, Hooks, Simulator, StopReason};
use fwprof_isa::Inst;
use std::sync::atomic::AtomicBool;

/// Counts executed instructions from block events, keeping block sizes
/// only for the current generation of ids (as a real collector does).
#[derive(Default)]
struct Gen {
    sizes: Vec<u32>,
    count: u64,
    flushes: u64,
    /// The most blocks one generation held.
    max_sizes: usize,
}

impl Hooks for Gen {
    fn on_block_translated(&mut self, id: BlockId, _pcs: &[u64], insts: &[Inst]) {
        assert_eq!(id.0 as usize, self.sizes.len(), "ids are dense from 0");
        self.sizes.push(insts.len() as u32);
        self.max_sizes = self.max_sizes.max(self.sizes.len());
    }
    fn on_cache_flush(&mut self) {
        self.sizes.clear();
        self.flushes += 1;
    }
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        self.count += u64::from(self.sizes[id.0 as usize]);
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.count -= u64::from(self.sizes[id.0 as usize] - executed);
    }
}

/// Run `words` to its final `ecall`; the simulator and its cache counters.
fn run_to_ecall(words: &[u32]) -> (Simulator<Gen>, CacheStats) {
    let mut sm = Simulator::bare(memory_with(words), true, BASE, Gen::default());
    let stop = sm.run(u64::MAX, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    assert_eq!(sm.hooks().count, sm.executed(), "hook-derived count");
    assert_eq!(sm.hooks().flushes, sm.cache_stats().flushes);
    let stats = sm.cache_stats();
    (sm, stats)
}

/// `n` iterations of `addi t2, t2, -1; fence.i; bne t2, x0, loop`.
fn fence_i_loop(n: i32) -> Vec<u32> {
    let mut w = li(7, n).to_vec();
    w.push(addi(7, 7, -1)); // loop
    w.push(FENCE_I);
    w.push(b(1, 7, 0, -8)); // bne t2, x0, loop
    w.push(ECALL);
    w
}

#[test]
fn a_fence_i_flush_does_the_same_work_at_every_iteration() {
    let (small, s) = run_to_ecall(&fence_i_loop(1_000));
    let (large, l) = run_to_ecall(&fence_i_loop(200_000));
    assert_eq!(small.executed(), 3 + 3 * 1_000);
    assert_eq!(large.executed(), 3 + 3 * 200_000);
    assert_eq!(s.flushes, 1_000);
    assert_eq!(l.flushes, 200_000);
    // Each flush discards the blocks translated since the previous one (the
    // loop's two), not every block ever translated (400,000 by the end).
    assert_eq!(l.translated, 2 * 200_000 + 1);
    assert!(l.max_blocks_per_flush <= 2, "{l:?}");
    assert_eq!(l.max_blocks_per_flush, s.max_blocks_per_flush);
    assert!(l.blocks <= 2, "{l:?}");
    assert!(large.hooks().max_sizes <= 2);
}

/// `n` iterations of a loop that stores `addi a0, a0, 1` over a `nop` in
/// its own 64-byte code line, without `fence.i`: every store kills the
/// loop's blocks, which are translated again.
fn rewriting_loop(n: i32) -> Vec<u32> {
    let patch = addi(10, 10, 1);
    let mut w = vec![auipc(5, 0)]; // 0x00: t0 = BASE
    w.extend(li(6, patch as i32)); // 0x04, 0x08: t1 = the patch
    w.extend(li(7, n)); // 0x0c, 0x10: t2 = n
    w.push(addi(7, 7, -1)); // 0x14: loop
    w.push(sw(5, 6, 0x1c)); // 0x18: sw t1, 0x1c(t0)
    w.push(NOP); // 0x1c: patched
    w.push(b(1, 7, 0, -12)); // 0x20: bne t2, x0, loop
    w.push(ECALL);
    w
}

#[test]
fn rewriting_code_without_fence_i_keeps_the_cache_bounded() {
    let (sm, s) = run_to_ecall(&rewriting_loop(100_000));
    // The patch ran in every iteration: stale blocks were never followed.
    assert_eq!(sm.hart().x(10), 100_000);
    assert_eq!(sm.executed(), 6 + 4 * 100_000);
    assert!(s.invalidated >= 100_000, "{s:?}");
    // Killed blocks are freed by compactions, so the cache never holds
    // more than a bounded number of them.
    assert!(s.flushes >= 10, "{s:?}");
    assert!(s.max_blocks_per_flush <= 2 * 4096 + 8, "{s:?}");
    assert!(sm.hooks().max_sizes <= 2 * 4096 + 8);
}

#[test]
fn a_store_into_code_before_a_block_s_final_branch_still_runs_the_branch() {
    // The store is the last instruction before the block's final branch:
    // the run resumes at the branch (it used to resume after it, at the
    // block's end, skipping the branch and running the `addi`).
    let first = auipc(5, 0);
    let mut prog = vec![first]; // 0x00: t0 = BASE
    prog.extend(li(6, first as i32)); // 0x04, 0x08: t1 = that instruction
    prog.extend([
        sw(5, 6, 0),     // 0x0c: rewrite 0x00 with itself (translated code)
        b(0, 0, 0, 8),   // 0x10: beq x0, x0, 0x18 (always taken)
        addi(10, 10, 1), // 0x14: skipped
        ECALL,           // 0x18
    ]);
    let (sm, s) = run_to_ecall(&prog);
    assert_eq!(sm.hart().x(10), 0, "the branch was skipped");
    assert_eq!(sm.executed(), 6);
    assert_eq!(s.invalidated, 1, "{s:?}");
}
