//! The timing model as a collector: an in-order core described by a
//! [`CoreConfig`], fed by the simulator's hooks, charging every executed
//! instruction its cycles and events.
//!
//! Per instruction, in program order (the rules are those of
//! `docs/core-format.md`, "How the numbers combine"):
//! * **fetch:** one instruction-cache access at its pc; cycles beyond one
//!   are `stall_icache` (hit latency, miss penalty) and `stall_wait_state`
//!   (wait states of memory reached: fills, or every fetch without a cache);
//! * **issue:** the class cost from [`crate::ClassLatencies`] (shifts by the
//!   shift amount, divisions optionally by the quotient's size); cycles of
//!   multiply/divide beyond one ALU operation are also counted as
//!   `stall_muldiv` (they are part of the class cost, not added twice);
//! * **register hazards** on the integer registers: reading the destination
//!   of the load right before costs `load_use` cycles; without forwarding,
//!   reading the destination of any instruction right before costs
//!   `no_forward_stall` (the larger applies; both are `stall_load_use`).
//!   F/D register dependences are not modelled;
//! * **data access:** loads, stores, F/D loads/stores and atomics access the
//!   data cache (`stall_dcache`) or, uncached, memory with the region's wait
//!   states (`stall_wait_state`), like fetches;
//! * **control** (a block's final branch or jump): without a predictor a
//!   taken branch costs `branch_taken`; with one, a correct prediction costs
//!   `branch_not_taken` (or `branch_taken`/`jal`/`jalr` when predicted taken
//!   without a BTB hit) and a misprediction `branch_not_taken +
//!   mispredict_penalty`. Cycles above `branch_not_taken` of a conditional
//!   branch, and the penalty of a mispredicted jump, are `stall_branch`.
//!
//! `cycles` is the issue cost plus all stalls. Instructions that trap are
//! charged like any other (they executed).
//!
//! [`translate`] holds what is computed once per translated block,
//! [`execute`] what runs per executed block.

mod execute;
mod translate;

use execute::control_row;
use translate::control_class;

use crate::cache::{Cache, CacheAccess};
use crate::config::CoreConfig;
pub use crate::events::{ev, Costs, EVENTS, NUM_EVENTS};
use crate::facts::{branch_kind, static_target};
use crate::predictor::{BranchKind, Predictor, Slots};
use fwprof_isa::{Inst, InstClass, Op};
use fwprof_sim::{BlockId, CostModel, Hooks};

/// Static facts of one translated instruction.
#[derive(Clone, Copy, Debug)]
struct Site {
    pc: u64,
    /// Address space it was translated in (`CodeContext::space`).
    space: u64,
    class: InstClass,
    op: Op,
    /// Integer destination written (0 = none), and whether it is a load's.
    rd: u8,
    load: bool,
    /// Integer sources read (0 = none).
    rs1: u8,
    rs2: u8,
    /// Branch/jump kind for the predictor (last instruction only).
    branch: Option<BranchKind>,
    /// Immediate shift amount (immediate shifts only).
    shamt: u8,
    /// The fetch goes through the instruction cache (there is one and the
    /// address is not in an uncached region).
    cached_fetch: bool,
    /// First instruction of its block in a new cache line (fetches of the
    /// rest of a line hit without changing the cache's state).
    new_line: bool,
    /// A plain load or store (integer or F/D) whose data-cache access is
    /// counted as a static cost: the data cache is in the front
    /// ([`TimingModel::front`]), which reports only what costs more.
    static_access: bool,
}

/// What the model keeps per translated block: everything a whole execution
/// needs, in one record, the fields read on every execution first.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct BlockMeta {
    /// Index of the first instruction in `sites`, and the length.
    first: u32,
    len: u32,
    /// Range in `lines` of the block's fetches that begin a new line.
    lines_start: u32,
    lines_len: u32,
    /// The instruction-cache epoch at which every line the block fetches
    /// was the most recent of its set ([`NEVER`] if not known to be).
    icache_epoch: u64,
    /// Executions that ran to the end.
    count: u64,
    /// Address of the last instruction.
    last_pc: u64,
    /// The target of a final conditional branch or `jal` (0 otherwise).
    target: u64,
    /// The last instruction's branch or jump kind, if it is one, and its
    /// class: 0 conditional branch, 1 `jal`, 2 `jalr` (the row group of
    /// `TimingModel::control_costs`).
    control: Option<BranchKind>,
    control_class: u8,
    /// Integer sources of the first instruction, destination of the last
    /// and whether the last is a load (for hazards across blocks).
    first_rs1: u8,
    first_rs2: u8,
    last_rd: u8,
    last_load: bool,
    /// Sum of the static costs of the block's instructions, in 32-bit
    /// lanes when every lane is below [`NARROW_LIMIT`] (`narrow`); else
    /// zero and the sum is in `TimingModel::wide_sums`.
    sum: NarrowCosts,
    narrow: bool,
}

/// Costs in 32-bit lanes: a block's static sum, added to 32-bit totals
/// that are folded into the 64-bit ones before they can overflow. Half the
/// width of [`Costs`], so a block's execution adds half as many vector
/// words (the add of the static sum is the timing model's main work per
/// block) and its record is two cache lines instead of three.
type NarrowCosts = [u32; NUM_EVENTS];
/// Every lane of a narrow block sum is below this ...
const NARROW_LIMIT: u64 = 1 << 20;
/// ... so that this many additions fit a 32-bit lane (2^20 × 2^11 = 2^31).
const NARROW_FOLD: u32 = 1 << 11;

const NO_BLOCK: u32 = u32::MAX;
/// An epoch the instruction cache never reaches.
const NEVER: u64 = u64::MAX;

/// The timing collector. Build with [`TimingModel::new`], run the simulator
/// with it (alone, in a tuple, or inside an
/// `fwprof_collect::ExactCollector`), then read [`TimingModel::finish`].
///
/// Cost: the static part of each instruction's costs (class cycles, in-block
/// hazards, fetch latency, counts) is added once per block execution as a
/// precomputed sum. What depends on the run is charged as it happens: data
/// accesses in [`Hooks::on_mem`], operand-dependent latency in
/// [`Hooks::on_operands`], the final branch in [`Hooks::on_branch`]; the
/// fetches when the block is charged. The caches and the predictor are
/// separate, so charging each in its own program order gives the same
/// result as charging one instruction at a time (`reference.rs`), which the
/// tests check.
///
/// Instruction fetches are skipped when they cannot change anything: every
/// instruction-cache access that changes the cache's state (a miss, or a
/// hit on a line that is not the most recent of its set) advances an
/// epoch; a block whose lines were all the most recent of their sets at the
/// current epoch still finds them there, and a read of such a line is a
/// hit that changes nothing and costs nothing beyond the static fetch cost.
#[derive(Debug)]
pub struct TimingModel {
    core: CoreConfig,
    rv64: bool,
    icache: Option<Cache>,
    dcache: Option<Cache>,
    /// The core has no memory regions (no wait states, everything cached).
    no_regions: bool,
    /// The data cache runs in the [`TimingFront`] on the simulator's
    /// thread ([`TimingModel::front`]): accesses come as
    /// [`Hooks::on_mem_front`] verdicts, and plain loads' and stores'
    /// accesses are static costs.
    front_dcache: bool,
    /// Static access costs taken back from sites whose access faulted
    /// ([`Hooks::on_access_fault`]): times per site, and their sum.
    faulted: std::collections::HashMap<u32, u64>,
    faulted_totals: Costs,
    /// Data-cache hit cycles beyond one.
    dcache_hit_stall: u64,
    /// Costs of a final branch or jump by outcome beyond the base cost of
    /// its class ([`Self::control_split`]), and the base, a static cost.
    control_costs: [(u64, u64, u64); 32],
    control_base: [u64; 3],
    predictor: Predictor,
    sites: Vec<Site>,
    /// Static costs of one execution of each site.
    stat: Vec<Costs>,
    /// Costs that depend on the run, accumulated per site.
    dynamic: Vec<Costs>,
    blocks: Vec<BlockMeta>,
    /// `(pc, site)` of the fetches that begin a new instruction-cache line
    /// (cached fetches only), block after block.
    lines: Vec<(u64, u32)>,
    /// Advanced by every instruction-cache access that changes its state.
    icache_epoch: u64,
    /// `(block, instructions run) → times` for blocks left early.
    cuts: std::collections::HashMap<(u32, u32), u64>,
    /// Costs per `(space, address)` of the blocks of earlier cache
    /// generations (folded at each [`Hooks::on_cache_flush`]).
    folded: std::collections::HashMap<(u64, u64), Costs>,
    /// Address space of the blocks being translated.
    translating: u64,
    /// Totals of the static costs (added a block's sum at a time, as
    /// vectors) and, apart, of the dynamic costs (added one event at a
    /// time): the totals are their sum. Kept apart so that a vector load of
    /// the static totals never waits on a narrower store to the same words
    /// (on x86 such a load cannot take the stored value from the store
    /// buffer and stalls until the store is written; the stall showed in
    /// profiles of `bench/corelike.c`).
    static_totals: Costs,
    dynamic_totals: Costs,
    /// Narrow block sums added since the last fold into `static_totals`,
    /// and how many more can be added before the next fold.
    narrow_totals: NarrowCosts,
    until_fold: u32,
    /// The static sums of the blocks whose sum is not narrow (by block
    /// id; empty until there is one).
    wide_sums: Vec<Costs>,
    /// Where [`CostModel::clock`] puts the totals it returns.
    clock_out: Costs,
    /// The executing block, the index of its first site, how many of its
    /// instructions are charged, and how many executed (its length unless
    /// cut).
    cur: u32,
    cur_first: u32,
    charged: u32,
    ran: u32,
    /// Nothing of the executing block is charged yet and it was not cut:
    /// its end charges it whole.
    whole: bool,
    /// Integer register written by the previous instruction, and whether it
    /// was a load (0 = none).
    prev_rd: u8,
    prev_load: bool,
}

impl TimingModel {
    /// A model of `core` for an RV64 (`rv64`) or RV32 hart.
    pub fn new(core: CoreConfig, rv64: bool) -> TimingModel {
        let (control_base, control_costs) = TimingModel::control_split(&core);
        TimingModel {
            icache: core.icache.as_ref().map(Cache::new),
            dcache: core.dcache.as_ref().map(Cache::new),
            no_regions: core.regions.is_empty(),
            front_dcache: false,
            faulted: std::collections::HashMap::new(),
            faulted_totals: [0; NUM_EVENTS],
            dcache_hit_stall: core
                .dcache
                .as_ref()
                .map_or(0, |d| u64::from(d.hit_latency.saturating_sub(1))),
            predictor: Predictor::new(&core.predictor),
            control_costs,
            control_base,
            core,
            rv64,
            sites: Vec::new(),
            stat: Vec::new(),
            dynamic: Vec::new(),
            blocks: Vec::new(),
            lines: Vec::new(),
            icache_epoch: 0,
            cuts: std::collections::HashMap::new(),
            folded: std::collections::HashMap::new(),
            translating: 0,
            static_totals: [0; NUM_EVENTS],
            dynamic_totals: [0; NUM_EVENTS],
            narrow_totals: [0; NUM_EVENTS],
            until_fold: NARROW_FOLD,
            wide_sums: Vec::new(),
            clock_out: [0; NUM_EVENTS],
            cur: NO_BLOCK,
            cur_first: 0,
            charged: 0,
            ran: 0,
            whole: false,
            prev_rd: 0,
            prev_load: false,
        }
    }

    /// The core being modelled.
    pub fn core(&self) -> &CoreConfig {
        &self.core
    }

    /// Totals so far over every event of [`EVENTS`] (instructions of the
    /// executing block are charged up to the last reported point).
    pub fn totals(&self) -> Costs {
        let mut t = self.static_totals;
        for (((a, d), n), f) in t
            .iter_mut()
            .zip(self.dynamic_totals)
            .zip(self.narrow_totals)
            .zip(self.faulted_totals)
        {
            *a = *a + d + u64::from(n) - f;
        }
        t
    }

    /// End of run: charge what is pending and return the costs per
    /// instruction address (sorted by address; addresses translated several
    /// times, or in several address spaces, are merged) and the totals.
    pub fn finish(self) -> (Vec<(u64, Costs)>, Costs) {
        let (per, totals) = self.finish_by_space();
        (
            merge_sorted(per.into_iter().map(|(pc, _, c)| (pc, c))),
            totals,
        )
    }

    /// [`TimingModel::finish`], keeping address spaces apart: costs per
    /// `(address, space)` (the `satp` value that selected the space, 0 for
    /// physical addresses, as `fwprof_sim::CodeContext::space`), sorted by
    /// address, then space, as `(address, space, costs)`.
    pub fn finish_by_space(mut self) -> (Vec<(u64, u64, Costs)>, Costs) {
        self.finish_block();
        let mut per = self.site_costs();
        per.extend(self.folded.drain());
        per.sort_by_key(|&((space, pc), _)| (pc, space));
        let merged = merge_sorted(per.into_iter());
        let out = merged
            .into_iter()
            .map(|((space, pc), c)| (pc, space, c))
            .collect();
        (out, self.totals())
    }

    /// The costs of every site of the current cache generation that ran or
    /// was charged anything, as `((space, pc), costs)` in site order.
    fn site_costs(&self) -> Vec<((u64, u64), Costs)> {
        // Executions per site: whole runs of its block, plus cut runs that
        // got past it.
        let mut runs: Vec<u64> = vec![0; self.sites.len()];
        for b in &self.blocks {
            for k in 0..b.len {
                runs[(b.first + k) as usize] = b.count;
            }
        }
        if !self.cuts.is_empty() {
            for (&(block, ran), &times) in &self.cuts {
                let b = self.blocks[block as usize];
                for k in 0..ran.min(b.len) {
                    runs[(b.first + k) as usize] += times;
                }
            }
        }
        let mut per: Vec<((u64, u64), Costs)> = Vec::new();
        for (i, s) in self.sites.iter().enumerate() {
            if runs[i] == 0 && self.dynamic[i] == [0; NUM_EVENTS] {
                continue;
            }
            let mut c = self.dynamic[i];
            for (a, st) in c.iter_mut().zip(self.stat[i]) {
                *a += st * runs[i];
            }
            if let Some(&times) = self.faulted.get(&(i as u32)) {
                for (a, f) in c.iter_mut().zip(self.access_costs(s)) {
                    *a -= f * times;
                }
            }
            per.push(((s.space, s.pc), c));
        }
        per
    }

    /// The block cache was flushed: charge the executing block, add the
    /// costs of this generation's sites to `folded` by address, and forget
    /// the blocks and sites (their ids are dead). Costs the blocks of this
    /// generation.
    fn fold_blocks(&mut self) {
        self.finish_block();
        for (key, c) in self.site_costs() {
            let acc = self.folded.entry(key).or_insert([0; NUM_EVENTS]);
            for (a, b) in acc.iter_mut().zip(c) {
                *a += b;
            }
        }
        self.sites.clear();
        self.stat.clear();
        self.dynamic.clear();
        self.blocks.clear();
        self.wide_sums.clear();
        self.lines.clear();
        if !self.cuts.is_empty() {
            self.cuts = std::collections::HashMap::new();
        }
        if !self.faulted.is_empty() {
            self.faulted = std::collections::HashMap::new();
        }
    }

    /// A [`TimingFront`] for this model: its predictor and, on a core with
    /// a data cache and no memory regions, its data cache, to run on the
    /// simulator's thread in front of a [`fwprof_sim::Pipelined`] model.
    /// Call it before the run starts (a fresh predictor and cache); the
    /// model must then run behind a `Pipelined` with this front, which
    /// gives it the data accesses as [`Hooks::on_mem_front`] verdicts
    /// (a plain load's or store's access becomes a static cost).
    pub fn front(&mut self) -> TimingFront {
        // Rows that cost nothing beyond their class's base cost need no
        // delivery: `charge_control` would do nothing with them.
        let delivered = self
            .control_costs
            .iter()
            .enumerate()
            .filter(|(_, &(cost, stall, mispredict))| cost | stall | mispredict != 0)
            .fold(0u32, |m, (row, _)| m | 1 << row);
        // The front's cache is the model's data cache; with memory
        // regions (wait states, uncached ranges) it stays here.
        let dcache = self
            .core
            .dcache
            .as_ref()
            .filter(|_| self.no_regions)
            .map(Cache::new);
        self.front_dcache = dcache.is_some();
        TimingFront {
            predictor: Predictor::new(&self.core.predictor),
            blocks: Vec::new(),
            rv64: self.rv64,
            delivered,
            dcache,
        }
    }
}

impl Hooks for TimingModel {
    const WANTS_MEMORY: bool = true;
    const WANTS_BRANCHES: bool = true;
    const WANTS_OPERANDS: bool = true;
    const MODELS_CYCLES: bool = true;

    /// Charges the executing block and folds the costs per site into
    /// costs per address (see [`TimingModel::finish`]).
    fn on_cache_flush(&mut self) {
        self.fold_blocks();
    }

    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        self.translate(id, pcs, insts);
    }

    fn on_code_context(&mut self, ctx: fwprof_sim::CodeContext) {
        self.translating = ctx.space;
    }

    #[inline]
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        self.finish_block();
        let b = self.blocks.get(id.0 as usize);
        self.cur = id.0;
        self.cur_first = b.map_or(0, |b| b.first);
        self.charged = 0;
        self.ran = b.map_or(0, |b| b.len);
        self.whole = self.ran > 0;
    }

    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        if id.0 == self.cur {
            self.ran = executed;
            self.whole = false;
        }
    }

    #[inline(always)]
    fn on_mem(&mut self, index: u32, addr: u64, _size: u8, write: bool) {
        let idx = (self.cur_first + index) as usize;
        self.data_access(idx, addr, write);
    }

    #[inline]
    fn on_mem_front(&mut self, index: u32, word: u64) {
        let idx = (self.cur_first + index) as usize;
        if idx < self.sites.len() {
            self.access_verdict(idx, word);
        }
    }

    fn on_access_fault(&mut self, id: BlockId, index: u32) {
        let Some(b) = self.blocks.get(id.0 as usize) else {
            return;
        };
        let idx = b.first + index;
        if index < b.len && self.sites[idx as usize].static_access {
            *self.faulted.entry(idx).or_insert(0) += 1;
            let c = self.access_costs(&self.sites[idx as usize]);
            for (t, v) in self.faulted_totals.iter_mut().zip(c) {
                *t += v;
            }
        }
    }

    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        let idx = (self.cur_first + index) as usize;
        self.operand_cost(idx, a, b);
    }

    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        if (id.0 as usize) < self.blocks.len() {
            self.control(id.0 as usize, taken, target);
        }
    }

    #[inline]
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        let id = id.0 as usize;
        if id < self.blocks.len() && self.blocks[id].control.is_some() {
            self.charge_control(id, word as usize);
        }
    }

    fn model_events(&mut self, id: BlockId, index: u32, out: &mut [u64; fwprof_sim::MODEL_EVENTS]) {
        if id.0 == self.cur {
            self.charge_upto(index);
        }
        *out = self.totals();
    }

    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        if id.0 == self.cur {
            self.charge_upto(index);
        }
        self.static_totals[ev::CYCLES]
            + self.dynamic_totals[ev::CYCLES]
            + u64::from(self.narrow_totals[ev::CYCLES])
            - self.faulted_totals[ev::CYCLES]
    }
}

/// Inside an `fwprof_collect::ExactCollector`, the model's events after
/// `instructions` (`EVENTS[1..]`) are kept inclusively per function and arc.
impl CostModel for TimingModel {
    const EXTRA: usize = NUM_EVENTS - 1;

    fn clock(&mut self, block_done: bool) -> &[u64] {
        if block_done {
            self.charge_upto(u32::MAX);
        }
        self.clock_out = self.totals();
        &self.clock_out[1..]
    }
}

/// The branch predictor and the data cache of a [`TimingModel`], run on
/// the simulator's thread when the model runs behind a
/// [`fwprof_sim::Pipelined`] (see [`TimingModel::front`]): they then work
/// beside the simulator instead of beside the rest of the model, which
/// balances the two threads. They see the same branches and accesses in
/// the same order, so the verdicts are the ones the model would reach
/// itself:
///
/// * a branch's (the word passed to [`Hooks::on_branch_front`]) is a row
///   of the model's branch cost table; one that costs nothing beyond its
///   class's base cost (most correct predictions) is not delivered;
/// * a data access's (the word passed to [`Hooks::on_mem_front`]) is what
///   the cache did: [`fwprof_sim::MEM_WORD_COSTLY`] (bit 0) on a miss,
///   then the [`CacheAccess`] flags and the store flag; for a plain load
///   or store (whose access the model counts as a static cost) it is
///   delivered only when the access missed.
///
/// Translated code runs the same predictor in line
/// ([`fwprof_sim::Front::inline_predictor`]), and settles data accesses to
/// the most recent line of their set in line
/// ([`fwprof_sim::Front::inline_dcache`]); the cache's own statistics
/// ([`Cache::stats`]) therefore miss those and are not used.
#[derive(Debug)]
pub struct TimingFront {
    predictor: Predictor,
    /// Per block id: the last instruction's address, transfer kind, row
    /// group and fixed target (conditional branches and `jal`, else 0).
    blocks: Vec<FrontBlock>,
    rv64: bool,
    /// Bit `r`: row `r` of the model's branch cost table costs something
    /// beyond the base (it is delivered).
    delivered: u32,
    /// The model's data cache, on a core without memory regions.
    dcache: Option<Cache>,
}

/// What a [`TimingFront`] keeps of a block's final transfer.
#[derive(Clone, Copy, Debug, Default)]
struct FrontBlock {
    pc: u64,
    kind: Option<BranchKind>,
    class: u8,
    target: u64,
    slots: Slots,
}

impl fwprof_sim::Front for TimingFront {
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let idx = id.0 as usize;
        if self.blocks.len() <= idx {
            self.blocks.resize(idx + 1, FrontBlock::default());
        }
        if let (Some(&pc), Some(last)) = (pcs.last(), insts.last()) {
            self.blocks[idx] = FrontBlock {
                pc,
                kind: branch_kind(last),
                class: control_class(last.op.class()),
                target: static_target(pc, last, self.rv64).unwrap_or(0),
                slots: self.predictor.slots(pc),
            };
        }
    }

    fn on_cache_flush(&mut self) {
        self.blocks.clear();
    }

    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) -> Option<u64> {
        let row = self.row(id, taken, target)?;
        (self.delivered >> row & 1 != 0).then_some(row)
    }

    fn inline_predictor(
        &mut self,
    ) -> Option<(fwprof_sim::InlinePredictor, fwprof_sim::PredictorTables)> {
        Some(self.predictor.inline(self.delivered))
    }

    fn inline_dcache(&mut self) -> Option<(fwprof_sim::InlineDcache, *mut u64)> {
        self.dcache.as_mut().map(Cache::inline)
    }

    #[inline]
    fn on_mem(&mut self, addr: u64, _size: u8, write: bool) -> u64 {
        match self.dcache.as_mut() {
            Some(cache) => mem_word(cache.access(addr, write), write),
            None => fwprof_sim::MEM_WORD_COSTLY,
        }
    }
}

impl TimingFront {
    /// Resolve block `id`'s final transfer on the predictor: its row in
    /// the model's branch cost table (`None` for a block without one). The
    /// target is `given`, except for a conditional branch (its own target,
    /// also when not taken).
    #[inline(always)]
    fn row(&mut self, id: BlockId, taken: bool, given: u64) -> Option<u64> {
        let Some(&FrontBlock {
            pc,
            kind: Some(kind),
            class,
            target: fixed,
            slots,
        }) = self.blocks.get(id.0 as usize)
        else {
            return None;
        };
        let target = if kind == BranchKind::Conditional {
            fixed
        } else {
            given
        };
        // The predictor's statistics are not read: not counted.
        let out = self
            .predictor
            .resolve_at::<false>(pc, slots, kind, taken, target);
        Some(control_row(out, class, taken) as u64)
    }
}

/// The verdict word of a data access that did `a` (a store if `write`),
/// as a [`TimingFront`] gives it: [`fwprof_sim::MEM_WORD_COSTLY`] (bit 0)
/// on a miss, then `hit`, `fill`, `writeback`, `write_through` and
/// `write` in bits 1 to 5.
pub(crate) fn mem_word(a: CacheAccess, write: bool) -> u64 {
    let costly = if a.hit {
        0
    } else {
        fwprof_sim::MEM_WORD_COSTLY
    };
    costly
        | u64::from(a.hit) << 1
        | u64::from(a.fill) << 2
        | u64::from(a.writeback) << 3
        | u64::from(a.write_through) << 4
        | u64::from(write) << 5
}

/// The cache access and store flag a [`mem_word`] describes.
pub(crate) fn from_mem_word(word: u64) -> (CacheAccess, bool) {
    let bit = |k: u32| word >> k & 1 != 0;
    let a = CacheAccess {
        hit: bit(1),
        fill: bit(2),
        writeback: bit(3),
        write_through: bit(4),
    };
    (a, bit(5))
}

/// Add up the costs of equal keys in a sequence sorted by key.
fn merge_sorted<K: PartialEq>(sorted: impl Iterator<Item = (K, Costs)>) -> Vec<(K, Costs)> {
    let mut merged: Vec<(K, Costs)> = Vec::new();
    for (k, c) in sorted {
        match merged.last_mut() {
            Some((p, acc)) if *p == k => {
                for (a, b) in acc.iter_mut().zip(c) {
                    *a += b;
                }
            }
            _ => merged.push((k, c)),
        }
    }
    merged
}
