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

use crate::cache::{Cache, CacheAccess};
use crate::config::CoreConfig;
pub use crate::events::{ev, Costs, EVENTS, NUM_EVENTS};
use crate::facts::{branch_kind, int_regs, is_register_shift, quotient, wait_states};
use crate::params::PredictorKind;
use crate::predictor::{BranchKind, Predictor};
use fwprof_isa::{Inst, InstClass, Op};
use fwprof_sim::{BlockId, CostModel, Hooks};

/// Static facts of one translated instruction.
#[derive(Clone, Copy, Debug)]
struct Site {
    pc: u64,
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
    /// Sum of the static costs of the block's instructions.
    sum: Costs,
}

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
    /// Data-cache hit cycles beyond one.
    dcache_hit_stall: u64,
    /// Costs of a final branch or jump by outcome ([`Self::control_table`]).
    control_costs: [(u64, u64, u64); 24],
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
    /// Costs per address of the blocks of earlier cache generations
    /// (folded at each [`Hooks::on_cache_flush`]).
    folded: std::collections::HashMap<u64, Costs>,
    totals: Costs,
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
        TimingModel {
            icache: core.icache.as_ref().map(Cache::new),
            dcache: core.dcache.as_ref().map(Cache::new),
            no_regions: core.regions.is_empty(),
            dcache_hit_stall: core
                .dcache
                .as_ref()
                .map_or(0, |d| u64::from(d.hit_latency.saturating_sub(1))),
            predictor: Predictor::new(&core.predictor),
            control_costs: TimingModel::control_table(&core),
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
            totals: [0; NUM_EVENTS],
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
    pub fn totals(&self) -> &Costs {
        &self.totals
    }

    /// End of run: charge what is pending and return the costs per
    /// instruction address (sorted by address; addresses translated several
    /// times are merged) and the totals.
    pub fn finish(mut self) -> (Vec<(u64, Costs)>, Costs) {
        self.finish_block();
        let mut per = self.site_costs();
        per.extend(self.folded.drain());
        per.sort_by_key(|&(pc, _)| pc);
        let mut merged: Vec<(u64, Costs)> = Vec::with_capacity(per.len());
        for (pc, c) in per {
            match merged.last_mut() {
                Some((p, acc)) if *p == pc => {
                    for (a, b) in acc.iter_mut().zip(c) {
                        *a += b;
                    }
                }
                _ => merged.push((pc, c)),
            }
        }
        (merged, self.totals)
    }

    /// The costs of every site of the current cache generation that ran or
    /// was charged anything, as `(pc, costs)` in site order.
    fn site_costs(&self) -> Vec<(u64, Costs)> {
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
        let mut per: Vec<(u64, Costs)> = Vec::new();
        for (i, s) in self.sites.iter().enumerate() {
            if runs[i] == 0 && self.dynamic[i] == [0; NUM_EVENTS] {
                continue;
            }
            let mut c = self.dynamic[i];
            for (a, st) in c.iter_mut().zip(self.stat[i]) {
                *a += st * runs[i];
            }
            per.push((s.pc, c));
        }
        per
    }

    /// The block cache was flushed: charge the executing block, add the
    /// costs of this generation's sites to `folded` by address, and forget
    /// the blocks and sites (their ids are dead). Costs the blocks of this
    /// generation.
    fn fold_blocks(&mut self) {
        self.finish_block();
        for (pc, c) in self.site_costs() {
            let acc = self.folded.entry(pc).or_insert([0; NUM_EVENTS]);
            for (a, b) in acc.iter_mut().zip(c) {
                *a += b;
            }
        }
        self.sites.clear();
        self.stat.clear();
        self.dynamic.clear();
        self.blocks.clear();
        self.lines.clear();
        if !self.cuts.is_empty() {
            self.cuts = std::collections::HashMap::new();
        }
    }

    /// Add `v` of event `e` to site `idx` (dynamic part) and the totals.
    #[inline(always)]
    fn add(&mut self, idx: usize, e: usize, v: u64) {
        self.dynamic[idx][e] += v;
        self.totals[e] += v;
    }

    /// Charge the executing block's instructions up to (not including)
    /// number `upto` (and at most what ran): their static costs, their
    /// fetches and the first instruction's hazard.
    fn charge_upto(&mut self, upto: u32) {
        if self.cur == NO_BLOCK {
            return;
        }
        let upto = upto.min(self.ran);
        if upto <= self.charged {
            return;
        }
        let meta = self.blocks[self.cur as usize];
        if self.charged == 0 && upto == meta.len {
            self.charge_whole(self.cur as usize);
        } else {
            self.charge_part(meta, upto);
        }
        self.charged = upto;
        self.whole = false;
    }

    /// Charge instructions `charged..upto` of the executing block one by
    /// one (a block cut short, or a cycle CSR read inside it).
    #[cold]
    #[inline(never)]
    fn charge_part(&mut self, meta: BlockMeta, upto: u32) {
        for k in self.charged..upto {
            let idx = (meta.first + k) as usize;
            for (t, v) in self.totals.iter_mut().zip(self.stat[idx]) {
                *t += v;
            }
            let s = self.sites[idx];
            if s.cached_fetch && s.new_line {
                self.fetch_line(s.pc, idx);
            }
            if k == 0 {
                self.first_hazard(idx);
            }
            self.prev_rd = s.rd;
            self.prev_load = s.load;
        }
    }

    /// Charge the rest of the executing block, count the execution, and
    /// forget it.
    #[inline]
    fn finish_block(&mut self) {
        if self.cur == NO_BLOCK {
            return;
        }
        let id = self.cur as usize;
        if self.whole {
            self.charge_whole(id);
            self.blocks[id].count += 1;
        } else {
            self.finish_part(id);
        }
        self.cur = NO_BLOCK;
    }

    /// [`Self::finish_block`] for a block partly charged or cut short.
    #[cold]
    #[inline(never)]
    fn finish_part(&mut self, id: usize) {
        self.charge_upto(u32::MAX);
        if self.ran >= self.blocks[id].len {
            self.blocks[id].count += 1;
        } else {
            *self.cuts.entry((id as u32, self.ran)).or_insert(0) += 1;
        }
    }

    /// Charge a whole execution of block `id`: its static sum, its fetches
    /// (skipped when they cannot change anything) and its first
    /// instruction's hazard.
    #[inline(always)]
    fn charge_whole(&mut self, id: usize) {
        let meta = &self.blocks[id];
        // A dense add of 16 counters vectorises (from a local copy: the
        // compiler cannot tell that `totals` and the block list are apart).
        let sum = meta.sum;
        for (t, v) in self.totals.iter_mut().zip(sum) {
            *t += v;
        }
        let (rs1, rs2, last_rd, last_load) =
            (meta.first_rs1, meta.first_rs2, meta.last_rd, meta.last_load);
        if meta.lines_len > 0 && meta.icache_epoch != self.icache_epoch {
            self.fetch_block(id);
        }
        if self.prev_rd != 0 && (rs1 == self.prev_rd || rs2 == self.prev_rd) {
            self.first_hazard(self.blocks[id].first as usize);
        }
        self.prev_rd = last_rd;
        self.prev_load = last_load;
    }

    /// The fetches of block `id` that begin a new line, in order; then
    /// record whether they all left their line the most recent of its set.
    #[inline(never)]
    fn fetch_block(&mut self, id: usize) {
        let meta = self.blocks[id];
        let range = meta.lines_start as usize..(meta.lines_start + meta.lines_len) as usize;
        for i in range.clone() {
            let (pc, idx) = self.lines[i];
            self.fetch_line(pc, idx as usize);
        }
        let icache = self
            .icache
            .as_ref()
            .expect("cached fetches imply an icache");
        let all_mru = self.lines[range].iter().all(|&(pc, _)| icache.is_mru(pc));
        self.blocks[id].icache_epoch = if all_mru { self.icache_epoch } else { NEVER };
    }

    /// An instruction-cache access at `pc` for site `idx`, which begins a
    /// new line.
    #[inline]
    fn fetch_line(&mut self, pc: u64, idx: usize) {
        if let Some(cache) = self.icache.as_mut() {
            if !cache.is_mru(pc) {
                self.icache_epoch += 1;
            }
            let a = cache.access(pc, false);
            if a.hit {
                return;
            }
            let stall = u64::from(cache.params().miss_penalty);
            self.charge_cache(idx, pc, a, ev::ICACHE_MISSES, ev::STALL_ICACHE, stall);
        }
    }

    /// Charge site `idx` for cache access `a` at `addr`: a miss counts in
    /// `miss_ev`, `stall` cycles in `stall_ev`, and each line filled, store
    /// written through or dirty line written back pays the wait states of
    /// `addr`'s region.
    #[inline(never)]
    fn charge_cache(
        &mut self,
        idx: usize,
        addr: u64,
        a: CacheAccess,
        miss_ev: usize,
        stall_ev: usize,
        stall: u64,
    ) {
        if !a.hit {
            self.add(idx, miss_ev, 1);
        }
        let to_memory = u64::from(a.fill) + u64::from(a.write_through) + u64::from(a.writeback);
        let waited = if to_memory > 0 {
            u64::from(wait_states(&self.core.regions, addr).0) * to_memory
        } else {
            0
        };
        if stall > 0 {
            self.add(idx, stall_ev, stall);
        }
        if waited > 0 {
            self.add(idx, ev::STALL_WAIT_STATE, waited);
        }
        if stall + waited > 0 {
            self.add(idx, ev::CYCLES, stall + waited);
        }
    }

    /// A hazard of the block's first instruction (site `idx`) with the
    /// previous block's last.
    #[inline(never)]
    fn first_hazard(&mut self, idx: usize) {
        let s = self.sites[idx];
        if self.prev_rd != 0 && (s.rs1 == self.prev_rd || s.rs2 == self.prev_rd) {
            let pipe = &self.core.pipeline;
            let load = if self.prev_load { pipe.load_use } else { 0 };
            let raw = if pipe.forwarding {
                0
            } else {
                pipe.no_forward_stall
            };
            let stall = u64::from(load.max(raw));
            if stall > 0 {
                self.add(idx, ev::STALL_LOAD_USE, stall);
                self.add(idx, ev::CYCLES, stall);
            }
        }
    }

    /// Operand-dependent issue cost of site `idx`.
    fn operand_cost(&mut self, idx: usize, a: u64, b: u64) {
        let s = self.sites[idx];
        let lat = &self.core.pipeline.latency;
        if is_register_shift(s.op) {
            let m = if matches!(s.op, Op::Sllw | Op::Srlw | Op::Sraw) || !self.rv64 {
                31
            } else {
                63
            };
            let extra = lat.shift_cycles((b & m) as u32) - lat.shift_cycles(0);
            if extra > 0 {
                self.add(idx, ev::CYCLES, u64::from(extra));
            }
        } else if s.class == InstClass::Div && lat.div_variable {
            let c = lat.div_cycles(quotient(s.op, a, b, self.rv64));
            let muldiv = c.saturating_sub(lat.alu);
            self.add(idx, ev::CYCLES, u64::from(c));
            if muldiv > 0 {
                self.add(idx, ev::STALL_MULDIV, u64::from(muldiv));
            }
        }
    }

    /// A data access by site `idx`.
    #[inline(always)]
    fn data_access(&mut self, idx: usize, addr: u64, write: bool) {
        self.add(idx, if write { ev::STORES } else { ev::LOADS }, 1);
        if self.no_regions {
            if let Some(cache) = self.dcache.as_mut() {
                let a = cache.access(addr, write);
                self.add(idx, ev::DCACHE_ACCESSES, 1);
                if a.hit && !a.write_through && self.dcache_hit_stall == 0 {
                    return;
                }
                return self.data_cache_cost(idx, addr, a);
            }
        }
        self.data_access_regions(idx, addr, write);
    }

    /// The costs of data-cache access `a` at `addr` by site `idx` beyond a
    /// one-cycle hit.
    #[inline(never)]
    fn data_cache_cost(&mut self, idx: usize, addr: u64, a: CacheAccess) {
        let miss = if a.fill {
            self.dcache
                .as_ref()
                .map_or(0, |c| u64::from(c.params().miss_penalty))
        } else {
            0
        };
        let stall = self.dcache_hit_stall + miss;
        self.charge_cache(idx, addr, a, ev::DCACHE_MISSES, ev::STALL_DCACHE, stall);
    }

    /// [`Self::data_access`] on a core with memory regions (which may be
    /// uncached or have wait states), or without a data cache.
    #[inline(never)]
    fn data_access_regions(&mut self, idx: usize, addr: u64, write: bool) {
        let (wait, uncached) = wait_states(&self.core.regions, addr);
        match self.dcache.as_mut().filter(|_| !uncached) {
            Some(cache) => {
                let a = cache.access(addr, write);
                self.add(idx, ev::DCACHE_ACCESSES, 1);
                self.data_cache_cost(idx, addr, a);
            }
            None if wait > 0 => {
                self.add(idx, ev::STALL_WAIT_STATE, u64::from(wait));
                self.add(idx, ev::CYCLES, u64::from(wait));
            }
            None => {}
        }
    }

    /// The final branch or jump of block `id` resolved: `taken` to
    /// `target`. The cost comes from a table indexed by the outcome, so
    /// the host does not branch on it.
    #[inline(always)]
    fn control(&mut self, id: usize, taken: bool, target: u64) {
        let meta = &self.blocks[id];
        let Some(kind) = meta.control else { return };
        let row = control_row(
            &mut self.predictor,
            meta.last_pc,
            kind,
            meta.control_class,
            taken,
            target,
        );
        self.charge_control(id, row);
    }

    /// Charge the final branch or jump of block `id` the costs of row
    /// `row` of [`Self::control_table`].
    #[inline(always)]
    fn charge_control(&mut self, id: usize, row: usize) {
        let meta = &self.blocks[id];
        let idx = (meta.first + meta.len - 1) as usize;
        let (cost, stall, mispredict) = self.control_costs[row % 24];
        let site = &mut self.dynamic[idx];
        site[ev::CYCLES] += cost;
        site[ev::STALL_BRANCH] += stall;
        site[ev::BRANCH_MISPREDICTS] += mispredict;
        self.totals[ev::CYCLES] += cost;
        self.totals[ev::STALL_BRANCH] += stall;
        self.totals[ev::BRANCH_MISPREDICTS] += mispredict;
    }

    /// A [`BranchFront`] for this model: its predictor, to run on the
    /// simulator's thread in front of a [`fwprof_sim::Pipelined`] model.
    /// Give it before the run starts (a fresh predictor).
    pub fn branch_front(&self) -> BranchFront {
        BranchFront {
            predictor: Predictor::new(&self.core.predictor),
            blocks: Vec::new(),
        }
    }

    /// `(cycles, stall_branch, branch_mispredicts)` of a block's final
    /// branch or jump, indexed by `class << 3 | mispredicted << 2 | taken
    /// << 1 | btb_hit` where class is 0 for a conditional branch, 1 for
    /// `jal`, 2 for `jalr`.
    fn control_table(core: &CoreConfig) -> [(u64, u64, u64); 24] {
        let lat = &core.pipeline.latency;
        let pipe = &core.pipeline;
        let mut t = [(0, 0, 0); 24];
        for (row, entry) in t.iter_mut().enumerate() {
            let (class, mispredicted, taken, btb_hit) =
                (row >> 3, row & 4 != 0, row & 2 != 0, row & 1 != 0);
            let conditional = class == 0;
            let class_cost = match class {
                1 => lat.jal,
                2 => lat.jalr,
                _ => lat.branch_not_taken,
            };
            let taken_stall = lat.branch_taken.saturating_sub(lat.branch_not_taken);
            let (cost, stall, mispredict) = if core.predictor.kind == PredictorKind::None {
                if conditional && taken {
                    (lat.branch_taken, taken_stall, false)
                } else {
                    (class_cost, 0, false)
                }
            } else if mispredicted {
                (
                    lat.branch_not_taken + pipe.mispredict_penalty,
                    pipe.mispredict_penalty,
                    true,
                )
            } else if !taken || btb_hit {
                (lat.branch_not_taken, 0, false)
            } else if conditional {
                (lat.branch_taken, taken_stall, false)
            } else {
                (class_cost, 0, false)
            };
            *entry = (u64::from(cost), u64::from(stall), u64::from(mispredict));
        }
        t
    }

    /// Static costs of one execution of `s`, the `k`-th instruction of its
    /// block, whose predecessor in the block (if any) is `prev`.
    fn static_costs(&self, s: &Site, last: bool, prev: Option<&Site>) -> Costs {
        let lat = &self.core.pipeline.latency;
        let pipe = &self.core.pipeline;
        let mut c: Costs = [0; NUM_EVENTS];
        c[ev::INSTRUCTIONS] = 1;
        // Fetch latency, or wait states of an uncached fetch.
        if s.cached_fetch {
            c[ev::ICACHE_ACCESSES] = 1;
            c[ev::STALL_ICACHE] =
                u64::from(self.core.icache.as_ref().map_or(1, |i| i.hit_latency)).saturating_sub(1);
        } else {
            c[ev::STALL_WAIT_STATE] = u64::from(wait_states(&self.core.regions, s.pc).0);
        }
        if let Some(p) = prev {
            if p.rd != 0 && (s.rs1 == p.rd || s.rs2 == p.rd) {
                let load = if p.load { pipe.load_use } else { 0 };
                let raw = if pipe.forwarding {
                    0
                } else {
                    pipe.no_forward_stall
                };
                c[ev::STALL_LOAD_USE] = u64::from(load.max(raw));
            }
        }
        let control = last && s.branch.is_some();
        let issue = match s.class {
            _ if control => 0,
            InstClass::Alu => lat.alu,
            InstClass::Shift => lat.shift_cycles(if is_register_shift(s.op) {
                0
            } else {
                u32::from(s.shamt)
            }),
            InstClass::Branch => lat.branch_not_taken,
            InstClass::Jal => lat.jal,
            InstClass::Jalr => lat.jalr,
            InstClass::Load => lat.load,
            InstClass::Store => lat.store,
            InstClass::Mul => lat.mul,
            InstClass::MulH => lat.mulh,
            InstClass::Div if lat.div_variable => 0,
            InstClass::Div => lat.div,
            InstClass::Csr => lat.csr,
            InstClass::Fence => lat.fence,
            InstClass::System | InstClass::Illegal => lat.system,
            InstClass::Atomic => lat.atomic,
            InstClass::FpLoad => lat.fp_load,
            InstClass::FpStore => lat.fp_store,
            InstClass::FpAdd | InstClass::FpMove | InstClass::FpCmp => lat.fp_simple,
            InstClass::FpMul | InstClass::FpFma => lat.fp_mul,
            InstClass::FpDiv => lat.fp_div,
            InstClass::FpSqrt => lat.fp_sqrt,
            InstClass::FpCvt => lat.fp_convert,
        };
        if matches!(s.class, InstClass::Mul | InstClass::MulH)
            || (s.class == InstClass::Div && !lat.div_variable)
        {
            c[ev::STALL_MULDIV] = u64::from(issue.saturating_sub(lat.alu));
        }
        if s.class == InstClass::Branch {
            c[ev::BRANCHES] = 1;
        }
        c[ev::CYCLES] = u64::from(issue)
            + c[ev::STALL_LOAD_USE]
            + c[ev::STALL_ICACHE]
            + c[ev::STALL_WAIT_STATE];
        c
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
        let idx = id.0 as usize;
        let first = self.sites.len();
        let last = insts.len().saturating_sub(1);
        let line_shift = self
            .core
            .icache
            .as_ref()
            .map_or(0, |c| c.line.max(1).trailing_zeros());
        for (k, (&pc, i)) in pcs.iter().zip(insts).enumerate() {
            let (rs1, rs2, rd) = int_regs(i);
            let uncached = wait_states(&self.core.regions, pc).1;
            let new_line = k == 0 || (pc >> line_shift) != (pcs[k - 1] >> line_shift);
            self.sites.push(Site {
                pc,
                class: i.op.class(),
                op: i.op,
                rd,
                load: matches!(i.op.class(), InstClass::Load | InstClass::Atomic),
                rs1,
                rs2,
                branch: if k == last { branch_kind(i) } else { None },
                shamt: if i.op.class() == InstClass::Shift && !is_register_shift(i.op) {
                    (i.imm & 63) as u8
                } else {
                    0
                },
                cached_fetch: self.core.icache.is_some() && !uncached,
                new_line,
            });
        }
        let mut sum: Costs = [0; NUM_EVENTS];
        for k in 0..insts.len() {
            let s = self.sites[first + k];
            let prev = if k > 0 {
                Some(self.sites[first + k - 1])
            } else {
                None
            };
            let c = self.static_costs(&s, k == last, prev.as_ref());
            for (a, b) in sum.iter_mut().zip(c) {
                *a += b;
            }
            self.stat.push(c);
            self.dynamic.push([0; NUM_EVENTS]);
        }
        let lines_start = self.lines.len() as u32;
        for (k, s) in self.sites[first..].iter().enumerate() {
            if s.cached_fetch && s.new_line {
                self.lines.push((s.pc, (first + k) as u32));
            }
        }
        let lines_len = self.lines.len() as u32 - lines_start;
        let (head, tail) = if insts.is_empty() {
            (None, None)
        } else {
            (self.sites.get(first), self.sites.last())
        };
        let meta = BlockMeta {
            sum,
            count: 0,
            icache_epoch: NEVER,
            first: first as u32,
            len: insts.len() as u32,
            lines_start,
            lines_len,
            last_pc: tail.map_or(0, |s| s.pc),
            control: tail.and_then(|s| s.branch),
            control_class: tail.map_or(0, |s| control_class(s.class)),
            first_rs1: head.map_or(0, |s| s.rs1),
            first_rs2: head.map_or(0, |s| s.rs2),
            last_rd: tail.map_or(0, |s| s.rd),
            last_load: tail.is_some_and(|s| s.load),
        };
        if self.blocks.len() <= idx {
            let empty = BlockMeta {
                sum: [0; NUM_EVENTS],
                len: 0,
                lines_len: 0,
                ..meta
            };
            self.blocks.resize(idx + 1, empty);
        }
        self.blocks[idx] = meta;
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

    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        if id.0 == self.cur {
            self.charge_upto(index);
        }
        self.totals[ev::CYCLES]
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
        &self.totals[1..]
    }
}

/// The row group of a block's last instruction in
/// [`TimingModel::control_table`]: 1 `jal`, 2 `jalr`, 0 anything else.
fn control_class(class: InstClass) -> u8 {
    match class {
        InstClass::Jal => 1,
        InstClass::Jalr => 2,
        _ => 0,
    }
}

/// Resolve a block's final transfer on `predictor` and return its row in
/// [`TimingModel::control_table`].
#[inline(always)]
fn control_row(
    predictor: &mut Predictor,
    pc: u64,
    kind: BranchKind,
    class: u8,
    taken: bool,
    target: u64,
) -> usize {
    let out = predictor.resolve(pc, kind, taken, target);
    (usize::from(class) << 3)
        | (usize::from(out.mispredicted) << 2)
        | (usize::from(taken) << 1)
        | usize::from(out.btb_hit)
}

/// The branch predictor of a [`TimingModel`], run on the simulator's
/// thread when the model runs behind a [`fwprof_sim::Pipelined`] (see
/// [`TimingModel::branch_front`]): the predictor then works beside the
/// simulator instead of beside the rest of the model, which balances the
/// two threads. It sees the same branches in the same order, so the
/// verdicts (the word passed to [`Hooks::on_branch_front`]: a row of the
/// model's branch cost table) are the ones the model would reach itself.
#[derive(Debug)]
pub struct BranchFront {
    predictor: Predictor,
    /// Per block id: the last instruction's address, transfer kind and
    /// row group.
    blocks: Vec<(u64, Option<BranchKind>, u8)>,
}

impl fwprof_sim::Front for BranchFront {
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let idx = id.0 as usize;
        if self.blocks.len() <= idx {
            self.blocks.resize(idx + 1, (0, None, 0));
        }
        if let (Some(&pc), Some(last)) = (pcs.last(), insts.last()) {
            self.blocks[idx] = (pc, branch_kind(last), control_class(last.op.class()));
        }
    }

    fn on_cache_flush(&mut self) {
        self.blocks.clear();
    }

    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) -> u64 {
        match self.blocks.get(id.0 as usize) {
            Some(&(pc, Some(kind), class)) => {
                control_row(&mut self.predictor, pc, kind, class, taken, target) as u64
            }
            _ => 0,
        }
    }
}
