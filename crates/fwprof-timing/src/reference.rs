//! The reference timing model: the rules of `docs/core-format.md` applied
//! one instruction at a time, as plainly as possible. The fast model
//! ([`crate::TimingModel`]) must give exactly the same costs; tests run both
//! on the same programs and compare every event at every address.

use crate::cache::{Cache, CacheAccess};
use crate::config::CoreConfig;
use crate::events::{ev, Costs, NUM_EVENTS};
use crate::facts::{
    branch_kind, int_regs, is_register_shift, is_word_shift, quotient, static_target, wait_states,
};
use crate::params::{MemoryRegion, PredictorKind};
use crate::predictor::{BranchKind, Predictor};
use fwprof_isa::{Inst, InstClass, Op};
use fwprof_sim::{BlockId, Hooks};

/// Static facts of one translated instruction.
#[derive(Clone, Copy, Debug)]
struct Site {
    pc: u64,
    class: InstClass,
    op: Op,
    /// Integer destination written (0 = none).
    rd: u8,
    /// Integer sources read (0 = none).
    rs1: u8,
    rs2: u8,
    /// Immediate shift amount (immediate shifts only).
    shamt: u8,
    /// Branch/jump kind for the predictor (last instruction only).
    branch: Option<BranchKind>,
    /// The target of a conditional branch or `jal` (0 otherwise).
    target: u64,
}

#[derive(Clone, Copy, Debug)]
struct BlockMeta {
    first: u32,
    len: u32,
}

const NO_BLOCK: u32 = u32::MAX;

/// The timing collector. Build with [`ReferenceModel::new`], run the simulator
/// with it (alone or in a tuple), then read [`ReferenceModel::finish`].
#[derive(Debug)]
pub struct ReferenceModel {
    core: CoreConfig,
    rv64: bool,
    icache: Option<Cache>,
    dcache: Option<Cache>,
    predictor: Predictor,
    sites: Vec<Site>,
    blocks: Vec<BlockMeta>,
    /// Costs per translated instruction (index into `sites`).
    costs: Vec<Costs>,
    /// `(pc, costs)` of the executed sites of earlier cache generations.
    folded: Vec<(u64, Costs)>,
    totals: Costs,
    /// The executing block, how many of its instructions are charged, and
    /// how many executed (its length unless cut).
    cur: u32,
    charged: u32,
    ran: u32,
    /// Dynamic facts of the executing block, in program order.
    mem: Vec<(u32, u64, u8, bool)>,
    mem_next: usize,
    operands: Vec<(u32, u64, u64)>,
    operands_next: usize,
    branch: Option<(bool, u64)>,
    /// Integer register written by the previous instruction, and whether it
    /// was a load (0 = none).
    prev_rd: u8,
    prev_load: bool,
}

impl ReferenceModel {
    /// A model of `core` for an RV64 (`rv64`) or RV32 hart.
    pub fn new(core: CoreConfig, rv64: bool) -> ReferenceModel {
        ReferenceModel {
            icache: core.icache.as_ref().map(Cache::new),
            dcache: core.dcache.as_ref().map(Cache::new),
            predictor: Predictor::new(&core.predictor),
            core,
            rv64,
            sites: Vec::new(),
            blocks: Vec::new(),
            costs: Vec::new(),
            folded: Vec::new(),
            totals: [0; NUM_EVENTS],
            cur: NO_BLOCK,
            charged: 0,
            ran: 0,
            mem: Vec::new(),
            mem_next: 0,
            operands: Vec::new(),
            operands_next: 0,
            branch: None,
            prev_rd: 0,
            prev_load: false,
        }
    }

    /// End of run: charge what is pending and return the costs per
    /// instruction address (sorted by address; addresses translated several
    /// times are merged) and the totals.
    pub fn finish(mut self) -> (Vec<(u64, Costs)>, Costs) {
        self.charge_block();
        self.fold_sites();
        let mut per = self.folded;
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

    /// Move the costs of the executed sites to `folded`.
    fn fold_sites(&mut self) {
        let executed = self
            .sites
            .iter()
            .zip(&self.costs)
            .filter(|(_, c)| c[ev::INSTRUCTIONS] > 0)
            .map(|(s, c)| (s.pc, *c));
        self.folded.extend(executed);
        self.sites.clear();
        self.costs.clear();
    }

    /// Charge the executing block's instructions up to (not including)
    /// number `upto`.
    fn charge_upto(&mut self, upto: u32) {
        if self.cur == NO_BLOCK {
            return;
        }
        let upto = upto.min(self.ran);
        while self.charged < upto {
            let k = self.charged;
            self.charge_one(k);
            self.charged += 1;
        }
    }

    /// Charge the rest of the executing block and forget it.
    fn charge_block(&mut self) {
        self.charge_upto(u32::MAX);
        self.cur = NO_BLOCK;
        self.mem.clear();
        self.mem_next = 0;
        self.operands.clear();
        self.operands_next = 0;
        self.branch = None;
    }

    /// One memory access (`docs/core-format.md`, "How the numbers
    /// combine"): it takes `t` cycles in the memory system and adds `t - 1`
    /// to the instruction — `hit_latency` on a hit, plus `miss_penalty`
    /// (`stall_ev`) and the region's wait states (`stall_wait_state`) on a
    /// fill; `1 + wait_states` without a cache or in an uncached region.
    /// Stores sent to memory (write-through, no-write-allocate misses) and
    /// dirty lines written back pay the wait states of the accessed address's
    /// region (the evicted line's own region is not tracked).
    #[allow(clippy::too_many_arguments)]
    fn memory_access(
        cache: Option<&mut Cache>,
        regions: &[MemoryRegion],
        addr: u64,
        write: bool,
        c: &mut Costs,
        access_ev: usize,
        miss_ev: usize,
        stall_ev: usize,
    ) {
        let (wait, uncached) = wait_states(regions, addr);
        let wait = u64::from(wait);
        match cache {
            Some(cache) if !uncached => {
                let a: CacheAccess = cache.access(addr, write);
                c[access_ev] += 1;
                let hit_latency = u64::from(cache.params().hit_latency);
                c[stall_ev] += hit_latency.saturating_sub(1);
                if !a.hit {
                    c[miss_ev] += 1;
                }
                if a.fill {
                    c[stall_ev] += u64::from(cache.params().miss_penalty);
                }
                let to_memory =
                    u64::from(a.fill) + u64::from(a.write_through) + u64::from(a.writeback);
                c[ev::STALL_WAIT_STATE] += wait * to_memory;
            }
            _ => c[ev::STALL_WAIT_STATE] += wait,
        }
    }

    fn charge_one(&mut self, k: u32) {
        let meta = self.blocks[self.cur as usize];
        let idx = (meta.first + k) as usize;
        let s = self.sites[idx];
        let operands = self.take_operands(k);
        let lat = &self.core.pipeline.latency;
        let pipe = &self.core.pipeline;
        let mut c: Costs = [0; NUM_EVENTS];
        c[ev::INSTRUCTIONS] = 1;

        // Fetch.
        Self::memory_access(
            self.icache.as_mut(),
            &self.core.regions,
            s.pc,
            false,
            &mut c,
            ev::ICACHE_ACCESSES,
            ev::ICACHE_MISSES,
            ev::STALL_ICACHE,
        );

        // Register hazards with the previous instruction.
        if self.prev_rd != 0 && (s.rs1 == self.prev_rd || s.rs2 == self.prev_rd) {
            let load = if self.prev_load { pipe.load_use } else { 0 };
            let raw = if pipe.forwarding {
                0
            } else {
                pipe.no_forward_stall
            };
            c[ev::STALL_LOAD_USE] += u64::from(load.max(raw));
        }

        // Issue cost.
        let xmask = if self.rv64 { 63 } else { 31 };
        let issue = match s.class {
            InstClass::Alu => lat.alu,
            InstClass::Shift => {
                let amount = if is_register_shift(s.op) {
                    operands.map_or(0, |(_, b)| {
                        let m = if is_word_shift(s.op) { 31 } else { xmask };
                        (b & m) as u32
                    })
                } else {
                    u32::from(s.shamt)
                };
                lat.shift_cycles(amount)
            }
            InstClass::Branch => lat.branch_not_taken,
            InstClass::Jal => lat.jal,
            InstClass::Jalr => lat.jalr,
            InstClass::Load => lat.load,
            InstClass::Store => lat.store,
            InstClass::Mul => lat.mul,
            InstClass::MulH => lat.mulh,
            InstClass::Div => {
                lat.div_cycles(operands.map_or(0, |(a, b)| quotient(s.op, a, b, self.rv64)))
            }
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
        if matches!(s.class, InstClass::Mul | InstClass::MulH | InstClass::Div) {
            c[ev::STALL_MULDIV] += u64::from(issue.saturating_sub(lat.alu));
        }

        // Data accesses reported for this instruction.
        while let Some(&(i, addr, _size, write)) = self.mem.get(self.mem_next) {
            if i != k {
                break;
            }
            self.mem_next += 1;
            c[if write { ev::STORES } else { ev::LOADS }] += 1;
            Self::memory_access(
                self.dcache.as_mut(),
                &self.core.regions,
                addr,
                write,
                &mut c,
                ev::DCACHE_ACCESSES,
                ev::DCACHE_MISSES,
                ev::STALL_DCACHE,
            );
        }

        // Control transfer (the block's last instruction): its cost
        // replaces the class cost.
        let mut issue = issue;
        if let (Some(kind), Some((taken, target))) = (s.branch, self.branch) {
            if k + 1 == meta.len {
                let conditional = kind == BranchKind::Conditional;
                if conditional {
                    c[ev::BRANCHES] += 1;
                }
                // A conditional branch's own target, also when not taken
                // (the hooks give the next pc).
                let target = if conditional { s.target } else { target };
                let out = self.predictor.resolve(s.pc, kind, taken, target);
                let (cost, stall) = if self.core.predictor.kind == PredictorKind::None {
                    if conditional && taken {
                        (
                            lat.branch_taken,
                            lat.branch_taken.saturating_sub(lat.branch_not_taken),
                        )
                    } else {
                        (issue, 0)
                    }
                } else if out.mispredicted {
                    c[ev::BRANCH_MISPREDICTS] += 1;
                    (
                        lat.branch_not_taken + pipe.mispredict_penalty,
                        pipe.mispredict_penalty,
                    )
                } else if !taken || out.btb_hit {
                    (lat.branch_not_taken, 0)
                } else if conditional {
                    (
                        lat.branch_taken,
                        lat.branch_taken.saturating_sub(lat.branch_not_taken),
                    )
                } else {
                    (issue, 0)
                };
                issue = cost - stall;
                c[ev::STALL_BRANCH] += u64::from(stall);
            }
        }

        c[ev::CYCLES] = u64::from(issue)
            + c[ev::STALL_LOAD_USE]
            + c[ev::STALL_BRANCH]
            + c[ev::STALL_ICACHE]
            + c[ev::STALL_DCACHE]
            + c[ev::STALL_WAIT_STATE];
        // stall_muldiv is part of the issue cost, not added twice.

        let is_load = matches!(s.class, InstClass::Load | InstClass::Atomic);
        self.prev_rd = s.rd;
        self.prev_load = is_load;
        for (t, (a, b)) in self
            .totals
            .iter_mut()
            .zip(self.costs[idx].iter_mut().zip(c))
        {
            *a += b;
            *t += b;
        }
    }

    fn take_operands(&mut self, k: u32) -> Option<(u64, u64)> {
        let &(i, a, b) = self.operands.get(self.operands_next)?;
        if i != k {
            return None;
        }
        self.operands_next += 1;
        Some((a, b))
    }
}

impl Hooks for ReferenceModel {
    const WANTS_MEMORY: bool = true;
    const WANTS_BRANCHES: bool = true;
    const WANTS_OPERANDS: bool = true;
    const MODELS_CYCLES: bool = true;

    /// Charges the executing block, keeps the costs of this generation's
    /// sites by address and forgets its blocks.
    fn on_cache_flush(&mut self) {
        self.charge_block();
        self.fold_sites();
        self.blocks.clear();
    }

    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let idx = id.0 as usize;
        if self.blocks.len() <= idx {
            self.blocks.resize(idx + 1, BlockMeta { first: 0, len: 0 });
        }
        self.blocks[idx] = BlockMeta {
            first: self.sites.len() as u32,
            len: insts.len() as u32,
        };
        let last = insts.len().saturating_sub(1);
        for (k, (&pc, i)) in pcs.iter().zip(insts).enumerate() {
            let (rs1, rs2, rd) = int_regs(i);
            self.sites.push(Site {
                pc,
                class: i.op.class(),
                op: i.op,
                rd,
                rs1,
                rs2,
                shamt: if i.op.class() == InstClass::Shift {
                    (i.imm & 63) as u8
                } else {
                    0
                },
                branch: if k == last { branch_kind(i) } else { None },
                target: static_target(pc, i, self.rv64).unwrap_or(0),
            });
            self.costs.push([0; NUM_EVENTS]);
        }
    }

    #[inline]
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        self.charge_block();
        self.cur = id.0;
        self.charged = 0;
        self.ran = self.blocks.get(id.0 as usize).map_or(0, |b| b.len);
    }

    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        if id.0 == self.cur {
            self.ran = executed;
        }
    }

    #[inline]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        self.mem.push((index, addr, size, write));
    }

    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        self.operands.push((index, a, b));
    }

    #[inline]
    fn on_branch(&mut self, _id: BlockId, taken: bool, target: u64) {
        self.branch = Some((taken, target));
    }

    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        if id.0 == self.cur {
            self.charge_upto(index);
        }
        self.totals[ev::CYCLES]
    }
}
