//! Stack high-water marks: the lowest value `sp` (x2) took on each stack,
//! per owner — a task (strand: the main program, a hart, a Linux thread, an
//! RTOS task) or a trap or signal context that moved to a stack of its own
//! (`docs/concurrency.md`, "Stack high-water marks").
//!
//! The simulator reports `sp` exactly at every jump the exact collector
//! asks for (all but direct jumps inside a function), trap, trap return and
//! signal; the collector follows it through the blocks that ran, and takes
//! a jump's report only when it needs one (after a set): each block's writes to `sp` are found when it is translated
//! ([`sp_ops`]): `addi sp, sp, imm` (and `c.addi16sp`, `c.addi sp`) moves it
//! by a known amount, any other write (`mv sp, t0`, `ld sp, 8(sp)`,
//! `csrrw sp, mscratch, sp`, `addi sp, s0, -N`) sets it to a value known
//! only at the next report. A *segment* runs from one report or set to the
//! next; its lowest and highest points are its start plus its lowest and
//! highest running offsets, so the marks are exact however many
//! instructions lie between two reports.
//!
//! Which stack a segment is on is decided when it closes: a trap or signal
//! context uses the stack it interrupted (its frame is pushed there) until
//! it sets `sp` — then it is on a stack of its own, named by its context
//! (`[interrupt: machine timer]`); otherwise the running strand's at the
//! privilege it runs at (start-up code that drops to a lower privilege
//! usually gives that code a stack of its own). So a
//! task's mark includes the trap frames pushed on its stack, and a
//! kernel's interrupt stack is measured per trap cause.

use std::collections::HashMap;

use fwprof_isa::{Inst, Op};

/// How one instruction changes `sp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpOp {
    /// `addi sp, sp, imm`: moves it by `imm` bytes.
    Add(i32),
    /// Any other write: a value known only at the next report.
    Set,
}

/// The instructions of a block that write `sp`: `(index in the block, what
/// it does)`, in order.
pub fn sp_ops(insts: &[Inst]) -> Vec<(u32, SpOp)> {
    insts
        .iter()
        .enumerate()
        .filter(|(_, i)| i.rd == 2 && i.writes_x())
        .map(|(k, i)| {
            let op = if i.op == Op::Addi && i.rs1 == 2 {
                SpOp::Add(i.imm)
            } else {
                SpOp::Set
            };
            (k as u32, op)
        })
        .collect()
}

/// Whose stack a mark is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackOwner {
    /// A strand of execution: its key ([`crate::CallStack::switch_strand`];
    /// 0 is the main program, or hart 0), and the privilege it ran at
    /// (0 U, 1 S, 3 M) outside trap contexts: start-up code that enters a
    /// lower privilege (an `mret` with no trap open) usually runs there on
    /// another stack.
    Strand(u32, u8),
    /// A trap or signal context that set `sp` (its synthetic root
    /// function id, [`crate::FunctionMap::context_root`]).
    Context(u32),
}

/// The deepest point of one stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackMark {
    /// Whose stack.
    pub owner: StackOwner,
    /// Highest `sp` seen on it (the stack's top, where its owner began).
    pub top: u64,
    /// Lowest `sp` seen on it.
    pub lowest: u64,
}

impl StackMark {
    /// The high-water mark in bytes: `top - lowest`.
    pub fn bytes(&self) -> u64 {
        self.top.saturating_sub(self.lowest)
    }
}

/// The segment of `sp` values being followed (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    /// `sp` where it began; `None` after a set, until the next report.
    base: Option<u64>,
    /// Running offset from `base` (bytes).
    off: i64,
    /// Lowest running offset (≤ 0).
    min_off: i64,
    /// Highest running offset (≥ 0).
    max_off: i64,
}

/// How one block moves `sp`: its ops in `StackTracker::ops`, and when it
/// has no set, the lowest and highest offsets its adds reach and where
/// they leave `sp` (bytes, from the block's first instruction).
#[derive(Clone, Copy, Debug, Default)]
struct BlockSp {
    first: u32,
    n: u32,
    set: bool,
    dip: i32,
    peak: i32,
    net: i32,
}

/// What a strand that does not run left behind.
#[derive(Clone, Debug, Default)]
struct ParkedStrand {
    seg: Segment,
    open: Vec<(u32, bool)>,
    privilege: u8,
}

const NO_BLOCK: u32 = u32::MAX;

/// Follows `sp` through blocks and reports and keeps the marks (see the
/// module docs). Cost: nothing per block that does not write `sp`; a few
/// comparisons per report.
#[derive(Clone, Debug)]
pub struct StackTracker {
    /// `sp` ops of every block translated since the last cache flush.
    ops: Vec<(u32, SpOp)>,
    /// Per block id, how it moves `sp`.
    blocks: Vec<BlockSp>,
    /// A block with `sp` ops that started and whose ops are not applied yet.
    pending: u32,
    /// The pending block sets `sp`.
    pending_set: bool,
    seg: Segment,
    /// The open trap and signal contexts of the running strand, outermost
    /// first: root function id, and whether it set `sp` (is on a stack of
    /// its own).
    open: Vec<(u32, bool)>,
    strand: u32,
    /// The privilege the running strand runs at outside trap contexts.
    privilege: u8,
    parked: HashMap<u32, ParkedStrand>,
    marks: Vec<StackMark>,
    /// Index in `marks` of the owner segments close to now, if created.
    cur: Option<usize>,
}

impl Default for StackTracker {
    fn default() -> Self {
        StackTracker::new()
    }
}

impl StackTracker {
    /// A tracker for a run whose first strand has key 0 (report its
    /// first `sp` next).
    pub fn new() -> StackTracker {
        StackTracker {
            ops: Vec::new(),
            blocks: Vec::new(),
            pending: NO_BLOCK,
            pending_set: false,
            seg: Segment::default(),
            open: Vec::new(),
            strand: 0,
            privilege: 3,
            parked: HashMap::new(),
            marks: Vec::new(),
            cur: None,
        }
    }

    /// Block `id` was translated from `insts`; returns whether it writes `sp`.
    pub fn translated(&mut self, id: u32, insts: &[Inst]) -> bool {
        let ops = sp_ops(insts);
        let i = id as usize;
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, BlockSp::default());
        }
        let mut b = BlockSp {
            first: self.ops.len() as u32,
            n: ops.len() as u32,
            ..BlockSp::default()
        };
        for &(_, op) in &ops {
            match op {
                SpOp::Add(d) => {
                    b.net = b.net.saturating_add(d);
                    b.dip = b.dip.min(b.net);
                    b.peak = b.peak.max(b.net);
                }
                SpOp::Set => b.set = true,
            }
        }
        self.blocks[i] = b;
        self.ops.extend(ops.iter().copied());
        !ops.is_empty()
    }

    /// Every block is forgotten (a cache flush; ids restart).
    pub fn flushed(&mut self) {
        self.settle();
        self.ops.clear();
        self.blocks.clear();
    }

    /// Block `id`, which writes `sp`, starts.
    #[inline]
    pub fn block(&mut self, id: u32) {
        self.settle();
        self.pending = id;
        self.pending_set = self.blocks.get(id as usize).is_some_and(|b| b.set);
    }

    /// A jump left `sp` at `sp`: only needed (and only taken as a report)
    /// when a set made the segment's start unknown — in between, the adds
    /// say where `sp` is.
    #[inline]
    pub fn jump(&mut self, sp: u64) {
        if self.pending_set || self.seg.base.is_none() {
            self.report(sp);
        }
    }

    /// Block `id` was left after its first `executed` instructions.
    pub fn cut(&mut self, id: u32, executed: u32) {
        if self.pending == id {
            self.pending = NO_BLOCK;
            self.pending_set = false;
            self.apply(id, executed);
        }
    }

    /// Apply the ops of the block that started last.
    #[inline]
    fn settle(&mut self) {
        if self.pending != NO_BLOCK {
            let id = std::mem::replace(&mut self.pending, NO_BLOCK);
            self.pending_set = false;
            self.apply(id, u32::MAX);
        }
    }

    /// Apply the ops of block `id` at indices below `upto`.
    fn apply(&mut self, id: u32, upto: u32) {
        let Some(&b) = self.blocks.get(id as usize) else {
            return;
        };
        if !b.set && upto == u32::MAX {
            let s = &mut self.seg;
            s.min_off = s.min_off.min(s.off + i64::from(b.dip));
            s.max_off = s.max_off.max(s.off + i64::from(b.peak));
            s.off += i64::from(b.net);
            return;
        }
        for k in b.first..b.first + b.n {
            let (at, op) = self.ops[k as usize];
            if at >= upto {
                break;
            }
            match op {
                SpOp::Add(d) => {
                    self.seg.off += i64::from(d);
                    self.seg.min_off = self.seg.min_off.min(self.seg.off);
                    self.seg.max_off = self.seg.max_off.max(self.seg.off);
                }
                SpOp::Set => {
                    self.close_open_segment();
                    // The innermost context that sets `sp` is on a stack of
                    // its own from now on.
                    if let Some(last) = self.open.last_mut() {
                        if !last.1 {
                            last.1 = true;
                            self.cur = None;
                        }
                    }
                    self.seg = Segment::default();
                }
            }
        }
    }

    /// `sp` is exactly `sp` now: close the segment.
    #[inline]
    pub fn report(&mut self, sp: u64) {
        self.settle();
        let s = self.seg;
        if s.off == 0 && s.min_off == 0 && s.max_off == 0 && s.base == Some(sp) {
            return;
        }
        let base = sp.wrapping_sub(s.off as u64);
        self.mark(
            base.wrapping_add(s.max_off as u64),
            base.wrapping_add(s.min_off as u64),
        );
        self.seg = Segment {
            base: Some(sp),
            ..Segment::default()
        };
    }

    /// The stack of the current owner went from `top` down to `low`.
    fn mark(&mut self, top: u64, low: u64) {
        // `sp` = 0: no stack set up yet (a hart out of reset).
        if top == 0 || low > top {
            return;
        }
        let i = match self.cur {
            Some(i) => i,
            None => {
                let owner = self.owner();
                let i = match self.marks.iter().position(|m| m.owner == owner) {
                    Some(i) => i,
                    None => {
                        self.marks.push(StackMark {
                            owner,
                            top,
                            lowest: low,
                        });
                        self.marks.len() - 1
                    }
                };
                self.cur = Some(i);
                i
            }
        };
        let m = &mut self.marks[i];
        m.top = m.top.max(top);
        m.lowest = m.lowest.min(low);
    }

    /// Whose stack `sp` is on now.
    fn owner(&self) -> StackOwner {
        match self.open.iter().rev().find(|c| c.1) {
            Some(&(root, _)) => StackOwner::Context(root),
            None => StackOwner::Strand(self.strand, self.privilege),
        }
    }

    /// A trap or signal context with root `root` opens with `sp` = `sp`
    /// (report it first); `own_stack`: it runs on a stack of its own from
    /// the start (a signal on its alternate stack).
    pub fn enter(&mut self, root: u32, sp: u64, own_stack: bool) {
        self.report(sp);
        self.open.push((root, own_stack));
        if own_stack {
            self.cur = None;
        }
    }

    /// Apply what ran before a trap return or signal return (while the
    /// context is still open).
    pub fn before_leave(&mut self) {
        self.settle();
    }

    /// The innermost context closes (report the `sp` it returns with
    /// next, once the strand it returns to is set).
    pub fn leave(&mut self) {
        if self.open.pop().is_some() {
            self.cur = None;
        }
    }

    /// The running strand runs at `privilege` (0 U, 1 S, 3 M) from now on
    /// (report its `sp` next): after a trap return, or at the start.
    pub fn set_privilege(&mut self, privilege: u8) {
        if privilege != self.privilege {
            self.settle();
            self.privilege = privilege;
            self.cur = None;
        }
    }

    /// The running strand has `level` trap and signal contexts open (a
    /// non-local exit left some without a return).
    pub fn sync_level(&mut self, level: u32) {
        if self.open.len() > level as usize {
            self.settle();
            self.open.truncate(level as usize);
            self.cur = None;
        }
    }

    /// The running strand becomes `key` (a hart's, a thread's or a task's;
    /// report the `sp` it resumes with next); a new one starts at the
    /// privilege of the one that stops (set it next if not).
    pub fn switch_strand(&mut self, key: u32) {
        self.settle();
        if key == self.strand {
            return;
        }
        let out = ParkedStrand {
            seg: self.seg,
            open: std::mem::take(&mut self.open),
            privilege: self.privilege,
        };
        self.parked.insert(self.strand, out);
        let back = self.parked.remove(&key).unwrap_or(ParkedStrand {
            privilege: self.privilege,
            ..ParkedStrand::default()
        });
        self.seg = back.seg;
        self.open = back.open;
        self.privilege = back.privilege;
        self.strand = key;
        self.cur = None;
    }

    /// End of run: the marks, in order of first use.
    pub fn finish(mut self) -> Vec<StackMark> {
        self.settle();
        self.close_open_segment();
        let mut keys: Vec<u32> = self.parked.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            self.switch_strand(k);
            self.close_open_segment();
        }
        self.marks
    }

    /// Close the running strand's segment where it stands (end of run).
    fn close_open_segment(&mut self) {
        if let Some(base) = self.seg.base {
            let low = base.wrapping_add(self.seg.min_off as u64);
            let high = base.wrapping_add(self.seg.max_off as u64);
            self.mark(high, low);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addi_sp(imm: i32) -> Inst {
        Inst {
            op: Op::Addi,
            rd: 2,
            rs1: 2,
            rs2: 0,
            rs3: 0,
            rm: 0,
            len: 4,
            imm,
            raw: 0,
        }
    }

    fn mv_sp() -> Inst {
        Inst {
            rs1: 5,
            imm: 0,
            ..addi_sp(0)
        }
    }

    fn nop() -> Inst {
        Inst {
            rd: 0,
            rs1: 0,
            ..addi_sp(0)
        }
    }

    #[test]
    fn ops_are_adds_and_sets() {
        let ops = sp_ops(&[nop(), addi_sp(-32), mv_sp(), addi_sp(16)]);
        assert_eq!(
            ops,
            vec![(1, SpOp::Add(-32)), (2, SpOp::Set), (3, SpOp::Add(16))]
        );
    }

    #[test]
    fn a_leaf_frame_between_two_reports_is_measured() {
        let mut t = StackTracker::new();
        t.translated(0, &[addi_sp(-48), nop(), addi_sp(48)]);
        t.report(0x1000);
        t.block(0);
        t.report(0x1000);
        assert_eq!(
            t.finish(),
            vec![StackMark {
                owner: StackOwner::Strand(0, 3),
                top: 0x1000,
                lowest: 0x1000 - 48
            }]
        );
    }

    /// A segment that starts deep in a call chain (a trap return) and
    /// returns above its start: the top is the highest point; jumps in
    /// between are not needed as reports.
    #[test]
    fn the_top_is_the_highest_point_of_a_segment() {
        let mut t = StackTracker::new();
        t.translated(0, &[addi_sp(32)]);
        t.translated(1, &[addi_sp(-64), nop()]);
        t.report(0x1000);
        t.block(0);
        t.jump(0x1020);
        t.block(1);
        t.jump(0x1020 - 64);
        let marks = t.finish();
        assert_eq!((marks[0].top, marks[0].lowest), (0x1020, 0x1020 - 64));
    }

    #[test]
    fn a_cut_block_applies_only_what_ran() {
        let mut t = StackTracker::new();
        t.translated(0, &[nop(), addi_sp(-64)]);
        t.report(0x1000);
        t.block(0);
        t.cut(0, 1);
        t.report(0x1000);
        assert_eq!(t.finish()[0].lowest, 0x1000);
    }

    /// An RTOS's trap entry: a frame pushed on the task's stack, then the
    /// kernel's stack set; the return restores the task's `sp`.
    #[test]
    fn a_trap_frame_is_the_tasks_and_the_kernel_stack_the_contexts() {
        let mut t = StackTracker::new();
        t.translated(0, &[addi_sp(-256), mv_sp()]);
        t.translated(1, &[addi_sp(-32)]);
        t.translated(2, &[mv_sp()]);
        t.report(0x8000); // the task runs
        t.enter(7, 0x7f00, false); // a trap at sp 0x7f00
        t.block(0); // push the frame, move to the kernel stack
        t.report(0x9000); // `call irq_dispatch`: sp = kernel stack top
        t.block(1);
        t.report(0x9000 - 32);
        t.block(2); // restore the task's sp
        t.before_leave();
        t.leave();
        t.report(0x7f00); // mret
        let marks = t.finish();
        assert_eq!(
            marks,
            vec![
                StackMark {
                    owner: StackOwner::Strand(0, 3),
                    top: 0x8000,
                    lowest: 0x7f00 - 256
                },
                StackMark {
                    owner: StackOwner::Context(7),
                    top: 0x9000,
                    lowest: 0x9000 - 32
                },
            ]
        );
        assert_eq!(marks[0].bytes(), 0x100 + 256);
    }

    #[test]
    fn no_stack_before_sp_is_set() {
        let mut t = StackTracker::new();
        t.translated(0, &[mv_sp()]);
        t.report(0);
        t.block(0);
        t.report(0x4000);
        let marks = t.finish();
        assert_eq!(marks.len(), 1);
        assert_eq!(marks[0].top, 0x4000);
        assert_eq!(marks[0].lowest, 0x4000);
    }

    /// M-mode start-up code on one stack drops to U-mode code on another
    /// (an `mret` with no trap open): two stacks.
    #[test]
    fn a_lower_privilege_is_another_stack() {
        let mut t = StackTracker::new();
        t.translated(0, &[mv_sp()]);
        t.translated(1, &[addi_sp(-16)]);
        t.report(0x8800_0000);
        t.block(1);
        t.block(0);
        t.set_privilege(0);
        t.report(0x80_0000);
        t.block(1);
        t.report(0x80_0000 - 16);
        let marks = t.finish();
        assert_eq!(marks.len(), 2, "{marks:?}");
        assert_eq!(marks[0].owner, StackOwner::Strand(0, 3));
        assert_eq!((marks[0].top, marks[0].bytes()), (0x8800_0000, 16));
        assert_eq!(marks[1].owner, StackOwner::Strand(0, 0));
        assert_eq!((marks[1].top, marks[1].bytes()), (0x80_0000, 16));
    }

    #[test]
    fn strands_keep_their_own_segments() {
        let mut t = StackTracker::new();
        t.translated(0, &[addi_sp(-16)]);
        t.report(0x1000);
        t.block(0);
        t.switch_strand(3);
        t.report(0x2000);
        t.block(0);
        t.block(0);
        t.switch_strand(0);
        t.report(0x1000 - 16);
        let marks = t.finish();
        let of = |o| marks.iter().find(|m| m.owner == o).unwrap().bytes();
        assert_eq!(of(StackOwner::Strand(0, 3)), 16);
        assert_eq!(of(StackOwner::Strand(3, 3)), 32);
    }
}
