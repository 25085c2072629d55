//! The exact collector: every executed instruction, and the call graph.

use std::collections::HashMap;

use fwprof_isa::Inst;

/// `prev_block` after a cache flush: the previous block's ids are gone, its
/// last instruction's address is kept in `prev_flushed_pc`.
const PREV_FLUSHED: u32 = u32::MAX - 1;
use fwprof_sim::{
    BlockId, CodeContext, CostModel, Forward, HartSwitch, Jump, JumpKind, SignalDelivery,
    SignalReturn, TrapInfo, TrapReturn,
};

use crate::call_stack::{ArcStats, CallMemo, CallStack, ContextStats, FunctionStats};
use crate::function_map::FunctionMap;
use crate::stacks::{StackMark, StackTracker};
use crate::tasks::{TaskStats, TaskTracker};
use crate::traps::{TrapCauseStats, TrapCounts};

/// Static facts of one executed instruction address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstSite {
    /// Guest address (virtual in a translated space).
    pub addr: u64,
    /// Address space it ran in: the `satp` value that selected it, 0 for
    /// physical addresses (`fwprof_sim::CodeContext::space`).
    pub space: u64,
    /// Raw encoding (low 16 bits for RVC).
    pub raw: u32,
    /// Length in bytes (2 or 4).
    pub len: u8,
    /// Executed-instruction count at this address.
    pub count: u64,
    /// Function id containing it (from the [`FunctionMap`]).
    pub function: u32,
}

/// A trap cause seen at one PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrapStats {
    /// The exception code (Privileged ISA 20211203, Table 3.6), with bit
    /// 63 set for an interrupt (the reader moves it to the top bit of XLEN).
    pub cause: u64,
    /// PC of the trapping instruction.
    pub pc: u64,
    /// How many times it trapped there.
    pub count: u64,
}

/// What [`ExactCollector::finish`] returns. Counts are executed instructions.
#[derive(Clone, Debug)]
pub struct ExactData {
    /// Every address that executed at least once, sorted by (address,
    /// space, function): one entry per address space and function that
    /// ran code there.
    pub sites: Vec<InstSite>,
    /// Per function id (index): calls and inclusive instructions.
    pub functions: Vec<FunctionStats>,
    /// Call-graph arcs, in order of first traversal.
    pub arcs: Vec<ArcStats>,
    /// Traps delivered to the guest, sorted by (pc, cause).
    pub traps: Vec<TrapStats>,
    /// Trap contexts per cause, in order of first occurrence.
    pub trap_causes: Vec<TrapCauseStats>,
    /// Self cost per context and privilege level (see
    /// [`crate::Finished::contexts_by_privilege`]).
    pub contexts_by_privilege: Vec<(u32, u8, u64, Vec<u64>)>,
    /// Total executed instructions (Σ `sites[].count`).
    pub total: u64,
    /// The function map, including `[unknown]` ranges added during the run.
    pub map: FunctionMap,
    /// Number of events the cost model tracked besides instructions
    /// ([`CostModel::EXTRA`]; 0 without a model).
    pub extra: usize,
    /// Inclusive extra events per function id, function-major
    /// (`functions.len() * extra` values).
    pub functions_extra: Vec<u64>,
    /// Inclusive extra events per arc, arc-major (`arcs.len() * extra`).
    pub arcs_extra: Vec<u64>,
    /// The calling-context tree, parents first.
    pub contexts: Vec<ContextStats>,
    /// Self extra events per context, context-major (`contexts.len() * extra`).
    pub contexts_extra: Vec<u64>,
    /// Recursion was folded to keep the tree within
    /// [`crate::MAX_CONTEXTS`] contexts.
    pub contexts_folded: bool,
    /// The harts that ran, in order of first appearance (`[0]` on a
    /// machine with one hart; see [`crate::Finished::strands`]).
    pub strands: Vec<u32>,
    /// Per context, the index in `strands` of its hart.
    pub context_strands: Vec<u32>,
    /// The tasks found ([`ExactCollector::detect_tasks`]; empty when not
    /// asked). A task's strand key is its index.
    pub tasks: Vec<TaskStats>,
    /// Stack high-water marks, in order of first use ([`StackTracker`]).
    pub stacks: Vec<StackMark>,
}

/// What the collector keeps per hart besides its call stack while
/// another hart runs.
#[derive(Clone, Copy, Debug)]
struct StrandState {
    started: bool,
    entry: u64,
    entry_sp: u64,
    cur_fn: u32,
    /// The last pc of its last block (the site of a jump into another
    /// function at its next block).
    prev_pc: u64,
    last_sp: u64,
}

#[derive(Clone, Copy, Debug)]
struct BlockMeta {
    /// Times the block started executing.
    count: u64,
    /// Index of the block's first instruction in `insts`.
    first: u32,
    len: u32,
    /// Function of the block's instructions (a block never runs from one
    /// function into another: [`Hooks::split_block`](fwprof_sim::Hooks::split_block) splits it).
    func: u32,
    /// Address space it was translated in (`satp`, 0 for physical).
    space: u64,
    /// It writes `sp` ([`StackTracker::translated`]).
    sp: bool,
    /// `func`, or [`NO_INLINE`] when `sp`: while it equals `cur_fn`,
    /// `on_block_exec` only counts the block and sets `prev_block`, which
    /// translated code then does itself ([`ExactCollector::inline_counts`]).
    tag: u32,
}

/// Per block that ends in a call: the target of the call that last ended
/// it (`u64::MAX`: none), its function, and what the call stack resolved
/// it to ([`CallMemo`]). A call ending a block nearly always goes to the
/// same place, so the next one skips the function, arc and context
/// lookups (three cache lines). Valid while
/// `ExactCollector::memo_changes` equals the function map's
/// [`FunctionMap::changes`]. Kept beside [`BlockMeta`], not in it, so that
/// the per-block counts translated code updates stay dense.
#[derive(Clone, Copy, Debug)]
struct CallSite {
    target: u64,
    callee: u32,
    memo: CallMemo,
}

impl CallSite {
    const EMPTY: CallSite = CallSite {
        target: u64::MAX,
        callee: 0,
        memo: CallMemo::EMPTY,
    };
}

/// [`BlockMeta::tag`] of a block whose execution always needs the hook
/// (`cur_fn` is a function id or `u32::MAX`, never this).
const NO_INLINE: u32 = u32::MAX - 1;

/// Exact profile collector: per-block execution counts and a shadow call stack.
///
/// Cost per executed block: one counter increment. Cost per `jal`/`jalr`:
/// a function lookup through a direct-mapped cache and a push or pop. At a
/// block-cache flush ([`Hooks::on_cache_flush`](fwprof_sim::Hooks::on_cache_flush), e.g. `fence.i`) the block
/// counts are folded into per-address counts and the per-block state is
/// dropped: the cost is the blocks translated since the previous flush, and
/// memory stays bounded by the program's code, however often it flushes.
///
/// It also follows `sp` for the stack high-water marks ([`StackTracker`]:
/// a few operations per executed block that writes `sp`, nothing for the
/// others) and, when asked ([`ExactCollector::detect_tasks`]), an
/// operating system's tasks, each with its own call stack
/// ([`TaskTracker`]).
#[derive(Debug)]
pub struct ExactCollector<M: CostModel = ()> {
    /// The cost model, which sees every hook first.
    model: M,
    map: FunctionMap,
    blocks: Vec<BlockMeta>,
    /// `(addr, raw, len)` of every translated instruction, by block.
    insts: Vec<(u64, u32, u8)>,
    /// `(block, executed) → times` for blocks left early.
    cuts: HashMap<(u32, u32), u64>,
    /// Executed instructions per address of the blocks of earlier cache
    /// generations: `(space, addr, function) → (raw, len, count)` (raw and
    /// len as first seen).
    folded: HashMap<(u64, u64, u32), (u32, u8, u64)>,
    /// Executed instructions counted in `folded`.
    folded_executed: u64,
    /// Address of the last instruction of the block that ran last before
    /// the latest flush (see [`PREV_FLUSHED`]).
    prev_flushed_pc: u64,
    stack: CallStack,
    traps: HashMap<(u64, u64), u64>,
    trap_counts: TrapCounts,
    /// The privilege the run started at is known (from the first
    /// [`Hooks::on_code_context`](fwprof_sim::Hooks::on_code_context)).
    privilege_known: bool,
    started: bool,
    entry: u64,
    entry_sp: u64,
    /// Function of the top activation (mirrors `stack.current()`).
    cur_fn: u32,
    /// Last executed block: its last instruction is the site of a jump into another function.
    prev_block: u32,
    /// Stack pointer reported by the latest jump or trap (for jump-ins;
    /// jumps inside a function are not reported, see
    /// `wants_direct_jump`).
    last_sp: u64,
    /// Address space of the blocks being translated (the latest
    /// [`CodeContext::space`]).
    translating: u64,
    /// Per block id, its call site's memo.
    sites: Vec<CallSite>,
    /// The function map's [`FunctionMap::changes`] the blocks' call memos
    /// were made under.
    memo_changes: u64,
    /// Per strand that does not run (a hart, a task), what it left.
    strands: HashMap<u32, StrandState>,
    /// Task detection, when asked for ([`ExactCollector::detect_tasks`]).
    tasks: Option<TaskTracker>,
    /// Stack high-water marks.
    stacks: StackTracker,
}

impl ExactCollector {
    /// A collector for a program whose functions are `map`, starting at `entry` with stack pointer `sp`.
    pub fn new(map: FunctionMap, entry: u64, sp: u64) -> ExactCollector {
        ExactCollector::with_model(map, entry, sp, ())
    }

    /// End of run: expand block counts to per-address counts and close the call stack.
    /// `executed` is the simulator's own count of executed instructions (used
    /// to close activations still open).
    pub fn finish(self, executed: u64) -> ExactData {
        self.finish_with_model(executed).0
    }
}

impl<M: CostModel> ExactCollector<M> {
    /// [`ExactCollector::new`] with a cost model whose events are also
    /// tracked inclusively.
    pub fn with_model(map: FunctionMap, entry: u64, sp: u64, model: M) -> ExactCollector<M> {
        ExactCollector {
            model,
            map,
            blocks: Vec::new(),
            insts: Vec::new(),
            cuts: HashMap::new(),
            folded: HashMap::new(),
            folded_executed: 0,
            prev_flushed_pc: 0,
            stack: CallStack::with_extra_events(M::EXTRA),
            traps: HashMap::new(),
            trap_counts: TrapCounts::default(),
            privilege_known: false,
            started: false,
            entry,
            entry_sp: sp,
            cur_fn: u32::MAX,
            prev_block: u32::MAX,
            last_sp: sp,
            translating: 0,
            sites: Vec::new(),
            memo_changes: 0,
            strands: HashMap::new(),
            tasks: None,
            stacks: StackTracker::new(),
        }
    }

    /// Tell an operating system's tasks apart (one hart, bare metal or a
    /// system: see [`TaskTracker`]); `hint`: the entry address of the
    /// kernel's context-switch function (`--task-hint`). Call before the
    /// run.
    pub fn detect_tasks(&mut self, hint: Option<u64>) {
        self.tasks = Some(TaskTracker::new(self.entry, 0, hint));
    }

    /// The running strand's own instruction count at the hart's count
    /// `now` (they differ once tasks switch).
    #[inline(always)]
    fn local(&self, now: u64) -> u64 {
        match &self.tasks {
            Some(t) => t.local(now),
            None => now,
        }
    }

    /// Hand the model's clock to the call stack (before a push or pop);
    /// `block_done` as in [`CostModel::clock`].
    #[inline]
    fn sync_clock(&mut self, block_done: bool) {
        if M::EXTRA > 0 {
            let clock = self.model.clock(block_done);
            self.stack.set_clock(clock);
        }
    }

    /// The cost model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The shadow call stack as it stands (activations entered by the
    /// instructions executed so far).
    pub fn call_stack(&self) -> &CallStack {
        &self.stack
    }

    #[inline]
    fn start(&mut self) {
        if !self.started {
            self.started = true;
            // The hart starts with translation off.
            let space = self.map.space();
            self.map.set_space(0);
            let root = self.map.lookup_or_add(self.entry);
            self.map.set_space(space);
            self.stack.enter_root(root, self.entry_sp, 0);
            self.stacks.report(self.entry_sp);
            self.cur_fn = root;
        }
    }

    /// Execution entered function `func` (from the instruction at `site`) without a call or return
    /// (a branch or fall-through into another function). As Callgrind
    /// does, this becomes a jump-call: a new activation, flagged `tail`,
    /// that ends with the current one's return. The first block after a
    /// trap is instead the handler's first activation, under the trap root.
    #[cold]
    fn jump_in(&mut self, func: u32, site: u64, now: u64) {
        self.start();
        if self.cur_fn == func {
            return;
        }
        let caller = self.cur_fn;
        // The model has charged everything before this block (blocks that
        // cross into a function mid-way use that point too).
        self.sync_clock(false);
        if self.stack.at_trap_root() {
            self.stack.enter_handler(func, self.last_sp, now);
        } else {
            self.tail_call(caller, func, site, self.last_sp, now);
        }
        self.cur_fn = func;
    }

    /// A jump from `caller` into `callee`: a tail call, except out of the
    /// boot code ([`FunctionMap::set_boot_code`]) at the bottom of the
    /// stack, which hands control over: `callee` becomes the root
    /// activation, spontaneous as the program's entry function always was
    /// (the reset ROM is not its caller, as no unwinder would show it).
    fn tail_call(&mut self, caller: u32, callee: u32, site: u64, sp: u64, now: u64) {
        if self.stack.depth() == 1 && self.map.boot_code() == Some(caller) {
            self.stack.hand_over(callee, sp, now);
        } else {
            self.stack.tail_call(caller, callee, site, sp, now);
        }
    }

    /// Address of the last instruction of block `b` (the site of a jump out of it).
    fn last_pc(&self, b: u32) -> u64 {
        if b == PREV_FLUSHED {
            return self.prev_flushed_pc;
        }
        match self.blocks.get(b as usize) {
            Some(m) if m.len > 0 => self.insts[(m.first + m.len - 1) as usize].0,
            _ => 0,
        }
    }

    /// Block `id`, starting at executed-instruction count `now`, begins in
    /// another function than the current one.
    #[cold]
    fn block_enters_other_function(&mut self, id: u32, now: u64) {
        let meta = self.blocks[id as usize];
        let site = self.last_pc(self.prev_block);
        // The activation starts at the block's first instruction.
        let now = self.local(now);
        self.jump_in(meta.func, site, now);
    }

    /// Executed instructions so far, as this collector has counted them
    /// (block lengths, less the instructions of blocks left early). Costs a
    /// pass over the blocks translated since the last cache flush.
    pub fn executed(&self) -> u64 {
        self.folded_executed + self.blocks_executed()
    }

    /// Executed instructions of the blocks of the current cache generation.
    fn blocks_executed(&self) -> u64 {
        let whole: u64 = self.blocks.iter().map(|m| m.count * u64::from(m.len)).sum();
        let cut: u64 = self
            .cuts
            .iter()
            .map(|(&(b, ran), &times)| u64::from(self.blocks[b as usize].len - ran) * times)
            .sum();
        whole - cut
    }

    /// Add the current generation's block counts to the per-address counts
    /// in `folded` and forget the blocks (their ids are dead). Costs the
    /// blocks and cuts of this generation.
    fn fold_blocks(&mut self) {
        self.folded_executed += self.blocks_executed();
        for meta in &self.blocks {
            let n = meta.count;
            if n == 0 {
                continue;
            }
            let first = meta.first as usize;
            for &(addr, raw, len) in &self.insts[first..first + meta.len as usize] {
                let key = (meta.space, addr, meta.func);
                self.folded.entry(key).or_insert((raw, len, 0)).2 += n;
            }
        }
        // Iterating or clearing a map costs its capacity, even when empty.
        if !self.cuts.is_empty() {
            for (&(b, executed_in_block), &times) in &self.cuts {
                let meta = self.blocks[b as usize];
                let first = meta.first as usize;
                for &(addr, _, _) in
                    &self.insts[first + executed_in_block as usize..first + meta.len as usize]
                {
                    if let Some(e) = self.folded.get_mut(&(meta.space, addr, meta.func)) {
                        e.2 -= times;
                    }
                }
            }
            self.cuts = HashMap::new();
        }
        self.blocks.clear();
        self.insts.clear();
    }

    /// End of run: expand block counts to per-address counts and close the
    /// call stack (see [`ExactCollector::finish`]); also returns the cost
    /// model, for its own per-address costs.
    pub fn finish_with_model(mut self, executed: u64) -> (ExactData, M) {
        self.start();
        self.sync_clock(true);
        self.fold_blocks();
        let per_addr = std::mem::take(&mut self.folded);
        let mut sites: Vec<InstSite> = per_addr
            .into_iter()
            .filter(|(_, v)| v.2 > 0)
            .map(|((space, addr, function), (raw, len, count))| InstSite {
                addr,
                space,
                raw,
                len,
                count,
                function,
            })
            .collect();
        sites.sort_by_key(|s| (s.addr, s.space, s.function));
        let total = sites.iter().map(|s| s.count).sum();
        let local = self.local(executed);
        let tasks = self.tasks.take().map_or(Vec::new(), |t| t.finish(executed));
        let stacks = std::mem::take(&mut self.stacks).finish();
        let mut stack = self.stack;
        stack.reserve_functions(self.map.len());
        let done = stack.finish_with_extra(local);
        let mut traps: Vec<TrapStats> = self
            .traps
            .into_iter()
            .map(|((pc, cause), count)| TrapStats { cause, pc, count })
            .collect();
        traps.sort_by_key(|t| (t.pc, t.cause));
        let data = ExactData {
            trap_causes: self.trap_counts.causes().to_vec(),
            contexts_by_privilege: done.contexts_by_privilege,
            sites,
            functions: done.functions,
            arcs: done.arcs,
            traps,
            total,
            map: self.map,
            extra: M::EXTRA,
            functions_extra: done.functions_extra,
            arcs_extra: done.arcs_extra,
            contexts: done.contexts,
            contexts_extra: done.contexts_extra,
            contexts_folded: done.contexts_folded,
            strands: done.strands,
            context_strands: done.context_strands,
            tasks,
            stacks,
        };
        (data, self.model)
    }
}

/// The cost model sees every hook first ([`Forward`]).
impl<M: CostModel> Forward for ExactCollector<M> {
    type Inner = M;
    #[inline(always)]
    fn inner(&mut self) -> &mut M {
        &mut self.model
    }

    const WANTS_JUMPS: bool = true;

    /// A block entered while its function is the current one and that does
    /// not move `sp` is only counted (see `on_block_exec`).
    #[inline]
    fn inline_counts(&mut self) -> Option<fwprof_sim::InlineCounts> {
        Some(fwprof_sim::InlineCounts {
            base: self.blocks.as_mut_ptr().cast::<u8>(),
            stride: std::mem::size_of::<BlockMeta>(),
            count: std::mem::offset_of!(BlockMeta, count),
            tag: std::mem::offset_of!(BlockMeta, tag),
            current: &self.cur_fn,
            last: &mut self.prev_block,
        })
    }

    /// Blocks end where execution would run from one function into
    /// another, so every block belongs to one function and entering another
    /// is always seen at a block's start.
    fn split_block(&mut self, pcs: &[u64], insts: &[Inst]) -> usize {
        self.map.set_space(self.translating);
        if self.map.undecided() || self.map.identifying() {
            let raws: Vec<(u64, u32, u8)> = pcs
                .iter()
                .zip(insts)
                .map(|(&pc, i)| (pc, i.raw, i.len))
                .collect();
            self.map.observe(&raws);
            // The block's function exists before it is compared.
            if let Some(&pc) = pcs.first() {
                self.map.lookup_or_add(pc);
            }
            self.map.identify(&raws);
        }
        let func = pcs.first().map(|&pc| self.map.lookup_or_add(pc));
        pcs.iter()
            .position(|&pc| Some(self.map.lookup_or_add(pc)) != func)
            .unwrap_or(pcs.len())
    }

    /// Only a jump that may leave the function: one to a function's entry
    /// (a tail call), into another function, or to code no function covers
    /// yet. A jump inside a function changes nothing in the call stack,
    /// and the stack marks take `sp` from the next report (see
    /// `StackTracker::jump`). While the symbol sources are undecided for
    /// the space, every jump is reported.
    fn wants_direct_jump(&mut self, pc: u64, target: u64) -> bool {
        self.map.set_space(self.translating);
        if self.map.undecided() || self.map.is_entry(target) {
            return true;
        }
        let here = self.map.lookup(pc);
        here.is_none() || self.map.lookup(target) != here
    }

    /// Folds the block counts into per-address counts (see the type's docs).
    fn on_cache_flush(&mut self) {
        self.stacks.flushed();
        if self.prev_block != u32::MAX {
            self.prev_flushed_pc = self.last_pc(self.prev_block);
            self.prev_block = PREV_FLUSHED;
        }
        self.fold_blocks();
    }

    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let idx = id.0 as usize;
        if self.blocks.len() <= idx {
            self.blocks.resize(
                idx + 1,
                BlockMeta {
                    count: 0,
                    first: 0,
                    len: 0,
                    func: u32::MAX,
                    space: 0,
                    sp: false,
                    tag: NO_INLINE,
                },
            );
        }
        self.map.set_space(self.translating);
        let func = pcs.first().map_or(0, |&pc| self.map.lookup_or_add(pc));
        debug_assert!(pcs.iter().all(|&pc| self.map.lookup_or_add(pc) == func));
        let sp = self.stacks.translated(id.0, insts);
        self.blocks[idx] = BlockMeta {
            count: 0,
            first: self.insts.len() as u32,
            len: insts.len() as u32,
            func,
            space: self.translating,
            sp,
            tag: if sp { NO_INLINE } else { func },
        };
        if self.sites.len() <= idx {
            self.sites.resize(idx + 1, CallSite::EMPTY);
        }
        self.sites[idx] = CallSite::EMPTY;
        self.insts
            .extend(pcs.iter().zip(insts).map(|(&pc, i)| (pc, i.raw, i.len)));
    }

    #[inline(always)]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        // The model charged the previous block first ([`Forward`]), so a
        // jump-in below starts at this block's first instruction in its
        // events too.
        let i = id.0 as usize;
        // Ids are dense and were announced by on_block_translated.
        if let Some(meta) = self.blocks.get_mut(i) {
            meta.count += 1;
            if meta.sp {
                self.stacks.block(id.0);
            }
            if meta.func != self.cur_fn {
                self.block_enters_other_function(id.0, executed);
            }
        }
        self.prev_block = id.0;
    }

    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.stacks.cut(id.0, executed);
        *self.cuts.entry((id.0, executed)).or_insert(0) += 1;
    }

    #[inline]
    fn on_jump(&mut self, j: &Jump) {
        let (pc, target, sp) = (j.pc, j.target, j.sp);
        // The jump's target is in the space of the block that jumps.
        let space = match self.blocks.get(j.block.0 as usize) {
            Some(m) => {
                self.map.set_space(m.space);
                m.space
            }
            None => self.translating,
        };
        self.start();
        self.sync_clock(true);
        self.last_sp = sp;
        let instret = self.local(j.instret);
        match j.kind {
            JumpKind::Call => {
                self.call(j, instret);
                if let Some(t) = &mut self.tasks {
                    t.call(target, sp, space, j.ret);
                }
                self.stacks.jump(sp);
            }
            JumpKind::Return => {
                let hint = match &mut self.tasks {
                    Some(t) => t.ret(target, sp, space, j.instret),
                    None => None,
                };
                match hint {
                    None => {
                        self.stack.ret(target, sp, instret);
                        self.stacks.jump(sp);
                    }
                    Some((sw, ret, call_sp)) => {
                        // The switch function's activation ends in the task
                        // that called it; the other task takes up where it
                        // called it (or, new, starts in `target`'s function).
                        self.stack.ret(ret, call_sp, sw.from_now);
                        let privilege = self.stack.privilege();
                        self.switch_strands(
                            sw.from,
                            sw.to,
                            sw.from_now,
                            sw.to_now,
                            privilege,
                            target,
                            sp,
                            space,
                        );
                        // The switch function's `sp` load ran on the
                        // stopping task; the `sp` it loaded is the other's.
                        self.stacks.report(sp);
                    }
                }
            }
            JumpKind::CallReturn => {
                // Pop then push (coroutine swap, Table 2.1).
                self.stack.ret(target, sp, instret);
                let caller = self.block_function(j);
                let callee = self.map.lookup_or_add(target);
                self.stack.call(caller, callee, pc, j.ret, sp, instret);
                self.stacks.jump(sp);
            }
            JumpKind::Jump | JumpKind::LinkOther => {
                self.stacks.jump(sp);
                // A jump to a function's entry is a tail call — also to the
                // jumping function's own entry (tail recursion: the entry is
                // where a new activation begins, as `_mcount` in a `-pg`
                // prologue sees it). Jumps elsewhere stay inside the activation.
                if self.map.is_entry(target) {
                    let caller = self.block_function(j);
                    let callee = self.map.lookup_or_add(target);
                    self.tail_call(caller, callee, pc, sp, instret);
                }
            }
        }
        self.cur_fn = self.stack.current().unwrap_or(u32::MAX);
    }

    /// Another hart runs: its call stack and where it was are taken up
    /// again (the first time, it starts at its reset address as the
    /// first hart did).
    fn on_hart_switch(&mut self, sw: &HartSwitch) {
        self.start();
        self.sync_clock(true);
        self.switch_strands(
            sw.from,
            sw.to,
            sw.from_executed,
            sw.to_executed,
            sw.privilege.bits() as u8,
            sw.pc,
            sw.sp,
            sw.space,
        );
        self.stacks.set_privilege(sw.privilege.bits() as u8);
        self.stacks.report(sw.sp);
    }

    /// The first context announced is the privilege the run starts at;
    /// later changes are told by the trap hooks, when they happen.
    fn on_code_context(&mut self, ctx: CodeContext) {
        self.translating = ctx.space;
        if !self.privilege_known {
            self.privilege_known = true;
            self.stack.set_privilege(ctx.privilege.bits() as u8, 0);
            self.stacks.set_privilege(ctx.privilege.bits() as u8);
        }
    }

    /// A trap pushes a trap context (see [`CallStack::enter_trap`]); the
    /// handler's first block then enters its first activation.
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        self.start();
        self.sync_clock(true);
        let flag = if trap.interrupt { 1 << 63 } else { 0 };
        *self.traps.entry((trap.pc, trap.cause | flag)).or_insert(0) += 1;
        let root = self.map.trap_root(trap.cause, trap.interrupt);
        self.trap_counts.count(&trap, root);
        let space = self.space_now();
        if let Some(t) = &mut self.tasks {
            t.trap(sp, space, trap.interrupt);
        }
        self.stacks.enter(root, sp, false);
        let instret = self.local(instret);
        self.stack.set_privilege(trap.to.bits() as u8, instret);
        self.stack.enter_trap(root, trap.pc, sp, instret);
        self.cur_fn = root;
        self.last_sp = sp;
    }

    /// A Linux signal handler opens a context like a trap's, under the
    /// signal's root (`[signal: SIGSEGV]`); its first block enters its
    /// first activation.
    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.start();
        self.sync_clock(true);
        let root = self.map.signal_root(signal.signo);
        let stack = crate::SignalStack {
            sp: signal.sp,
            alt: signal.alt_stack,
        };
        let on_alt = signal
            .alt_stack
            .is_some_and(|(lo, hi)| (lo..hi).contains(&signal.frame));
        let now = self.local(signal.instret);
        self.stack.enter_signal(root, signal.pc, stack, now);
        self.stacks.sync_level(self.stack.trap_level() - 1);
        self.stacks.enter(root, signal.sp, on_alt);
        self.stacks.report(signal.frame);
        self.cur_fn = root;
        self.last_sp = signal.frame;
    }

    /// `rt_sigreturn` closes the innermost context and resumes the
    /// interrupted activations (resynchronised by `sp` if the handler
    /// changed the pc the frame resumes at to another function).
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        self.start();
        self.sync_clock(true);
        let (instret, sp) = (self.local(ret.instret), ret.sp);
        self.stacks.before_leave();
        if self.stack.trap_return(instret).is_some() {
            let func = self.map.lookup_or_add(ret.target);
            if self.stack.current() != Some(func) {
                self.stack.resync(sp, instret);
            }
        } else {
            self.stack.resync(sp, instret);
        }
        self.stacks.sync_level(self.stack.trap_level());
        self.stacks.report(sp);
        self.cur_fn = self.stack.current().unwrap_or(u32::MAX);
    }

    /// An `mret`/`sret` closes the innermost trap context and resumes the
    /// interrupted activations. With task detection, a return on another
    /// stack or address space switches to the task parked there (or a new
    /// one, whose root is entered): see [`TaskTracker`]. If it returns
    /// elsewhere than into the resumed task's function (a handler that
    /// changed `mepc` to another function; a kernel's task switch without
    /// task detection), the stack resynchronises by `sp`
    /// ([`CallStack::resync`]) and the next block enters its function as a
    /// jump-call. With no trap context open (start-up code entering a lower
    /// privilege), it is a return as before (matched, else resynchronised
    /// by `sp`), or, into another address space, a hand-over to a new task
    /// ([`TaskTracker::hand_over`]).
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        let (target, sp) = (ret.target, ret.sp);
        self.start();
        self.sync_clock(true);
        self.stacks.before_leave();
        let instret = self.local(ret.instret);
        match self.stack.trap_return(instret) {
            Some(_) => {
                self.stacks.leave();
                let switch = match &mut self.tasks {
                    Some(t) => t.trap_return(target, sp, ret.space, ret.instret),
                    None => None,
                };
                if let Some(sw) = switch {
                    self.switch_strands(
                        sw.from,
                        sw.to,
                        sw.from_now,
                        sw.to_now,
                        ret.to.bits() as u8,
                        target,
                        sp,
                        ret.space,
                    );
                }
                let instret = self.local(ret.instret);
                self.map.set_space(ret.space);
                let func = self.map.lookup_or_add(target);
                if self.stack.current() != Some(func) {
                    self.stack.resync(sp, instret);
                }
            }
            None => {
                let from_space = self.space_now();
                let switch = match &mut self.tasks {
                    Some(t) => t.hand_over(target, sp, ret.space, from_space, ret.instret),
                    None => None,
                };
                match switch {
                    Some(sw) => self.switch_strands(
                        sw.from,
                        sw.to,
                        sw.from_now,
                        sw.to_now,
                        ret.to.bits() as u8,
                        target,
                        sp,
                        ret.space,
                    ),
                    None => self.stack.ret(target, sp, instret),
                }
            }
        }
        self.stacks.set_privilege(ret.to.bits() as u8);
        self.stacks.report(sp);
        let instret = self.local(ret.instret);
        self.stack.set_privilege(ret.to.bits() as u8, instret);
        self.cur_fn = self.stack.current().unwrap_or(u32::MAX);
    }
}

impl<M: CostModel> ExactCollector<M> {
    /// The strand `to` (a hart, a task) runs instead of `from`, at their
    /// own instruction counts `from_now` and `to_now`: its call stack and
    /// where it was are taken up again; the first time, it starts at `pc`
    /// with `sp` in address space `space`, at `privilege`.
    #[allow(clippy::too_many_arguments)]
    fn switch_strands(
        &mut self,
        from: u32,
        to: u32,
        from_now: u64,
        to_now: u64,
        privilege: u8,
        pc: u64,
        sp: u64,
        space: u64,
    ) {
        let out = StrandState {
            started: self.started,
            entry: self.entry,
            entry_sp: self.entry_sp,
            cur_fn: self.cur_fn,
            prev_pc: self.last_pc(self.prev_block),
            last_sp: self.last_sp,
        };
        self.strands.insert(from, out);
        let next = self.strands.remove(&to).unwrap_or(StrandState {
            started: false,
            entry: pc,
            entry_sp: sp,
            cur_fn: u32::MAX,
            prev_pc: 0,
            last_sp: sp,
        });
        self.stack.switch_strand(to, from_now, to_now, privilege);
        self.stacks.switch_strand(to);
        self.started = next.started;
        self.entry = next.entry;
        self.entry_sp = next.entry_sp;
        self.cur_fn = next.cur_fn;
        self.prev_block = PREV_FLUSHED;
        self.prev_flushed_pc = next.prev_pc;
        self.last_sp = next.last_sp;
        if !self.started {
            // Its first block is in the address space it starts in.
            let keep = self.map.space();
            self.map.set_space(space);
            let root = self.map.lookup_or_add(self.entry);
            self.map.set_space(keep);
            self.started = true;
            self.stack.enter_root(root, self.entry_sp, to_now);
            self.cur_fn = root;
        }
    }

    /// The address space of the code running now (that of the last
    /// block, or of the blocks being translated).
    fn space_now(&self) -> u64 {
        match self.blocks.get(self.prev_block as usize) {
            Some(m) => m.space,
            None => self.translating,
        }
    }

    /// Push the activation of call `j` at `instret` (the strand's count).
    /// The calling block's memo answers when the call goes where it went
    /// last time.
    #[inline(always)]
    fn call(&mut self, j: &Jump, instret: u64) {
        let changes = self.map.changes();
        if changes != self.memo_changes {
            self.forget_call_memos(changes);
        }
        let i = j.block.0 as usize;
        let (Some(b), Some(site)) = (self.blocks.get(i), self.sites.get_mut(i)) else {
            let caller = self.block_function(j);
            let callee = self.map.lookup_or_add(j.target);
            self.stack.call(caller, callee, j.pc, j.ret, j.sp, instret);
            return;
        };
        if site.target != j.target {
            *site = CallSite {
                target: j.target,
                callee: self.map.lookup_or_add(j.target),
                memo: CallMemo::EMPTY,
            };
        }
        let (caller, callee) = (b.func, site.callee);
        self.stack
            .call_memo(caller, callee, j.pc, j.ret, j.sp, instret, &mut site.memo);
    }

    /// The function map may answer differently now: drop every block's
    /// call memo.
    #[cold]
    #[inline(never)]
    fn forget_call_memos(&mut self, changes: u64) {
        self.sites.fill(CallSite::EMPTY);
        self.memo_changes = changes;
    }

    /// The function of the block that ends with jump `j` (the function of
    /// every instruction in it, recorded when it was translated).
    #[inline]
    fn block_function(&mut self, j: &Jump) -> u32 {
        match self.blocks.get(j.block.0 as usize) {
            Some(m) => m.func,
            None => self.map.lookup_or_add(j.pc),
        }
    }
}
