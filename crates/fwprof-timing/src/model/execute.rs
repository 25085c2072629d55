//! The execution-time part of the timing model: charging each executed
//! block's instructions their static costs, and the dynamic costs of
//! fetches, hazards, operands, data accesses and the final branch as the
//! simulator reports them.

use super::{ev, BlockMeta, TimingModel, NARROW_FOLD, NEVER, NO_BLOCK, NUM_EVENTS};
use crate::cache::CacheAccess;
use crate::facts::{is_register_shift, is_word_shift, quotient, wait_states};
use crate::predictor::{BranchKind, Outcome};
use fwprof_isa::InstClass;

impl TimingModel {
    /// Add `v` of event `e` to site `idx` (dynamic part) and the totals.
    #[inline(always)]
    pub(super) fn add(&mut self, idx: usize, e: usize, v: u64) {
        self.dynamic[idx][e] += v;
        self.dynamic_totals[e] += v;
    }

    /// Charge the executing block's instructions up to (not including)
    /// number `upto` (and at most what ran): their static costs, their
    /// fetches and the first instruction's hazard.
    pub(super) fn charge_upto(&mut self, upto: u32) {
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
    pub(super) fn charge_part(&mut self, meta: BlockMeta, upto: u32) {
        for k in self.charged..upto {
            let idx = (meta.first + k) as usize;
            for (t, v) in self.static_totals.iter_mut().zip(self.stat[idx]) {
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
    pub(super) fn finish_block(&mut self) {
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
    pub(super) fn finish_part(&mut self, id: usize) {
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
    pub(super) fn charge_whole(&mut self, id: usize) {
        let meta = &self.blocks[id];
        if meta.narrow {
            // A dense add of 16 lanes vectorises (from a local copy: the
            // compiler cannot tell that the totals and the block list are
            // apart).
            let sum = meta.sum;
            for (t, v) in self.narrow_totals.iter_mut().zip(sum) {
                *t += v;
            }
            self.until_fold -= 1;
            if self.until_fold == 0 {
                self.fold_narrow();
            }
        } else {
            self.add_wide_sum(id);
        }
        let meta = &self.blocks[id];
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

    /// Add the 32-bit totals to the 64-bit ones and clear them.
    #[cold]
    #[inline(never)]
    pub(super) fn fold_narrow(&mut self) {
        for (t, n) in self.static_totals.iter_mut().zip(self.narrow_totals) {
            *t += u64::from(n);
        }
        self.narrow_totals = [0; NUM_EVENTS];
        self.until_fold = NARROW_FOLD;
    }

    /// Add the static sum of block `id`, which is not narrow.
    #[cold]
    #[inline(never)]
    pub(super) fn add_wide_sum(&mut self, id: usize) {
        for (t, v) in self.static_totals.iter_mut().zip(self.wide_sums[id]) {
            *t += v;
        }
    }

    /// The fetches of block `id` that begin a new line, in order; then
    /// record whether they all left their line the most recent of its set.
    #[inline(never)]
    pub(super) fn fetch_block(&mut self, id: usize) {
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
    pub(super) fn fetch_line(&mut self, pc: u64, idx: usize) {
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
    pub(super) fn charge_cache(
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
    pub(super) fn first_hazard(&mut self, idx: usize) {
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
    pub(super) fn operand_cost(&mut self, idx: usize, a: u64, b: u64) {
        let s = self.sites[idx];
        let lat = &self.core.pipeline.latency;
        if is_register_shift(s.op) {
            let m = if is_word_shift(s.op) || !self.rv64 {
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
    pub(super) fn data_access(&mut self, idx: usize, addr: u64, write: bool) {
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

    /// A data access by site `idx` as the [`super::TimingFront`]'s data
    /// cache judged it (`word`, a [`super::mem_word`]). A plain load's or
    /// store's access is a static cost (`Site::static_access`): only what
    /// a miss costs beyond a hit is charged here. The core has no memory
    /// regions (the front has the cache only then): nothing waits.
    #[inline]
    pub(super) fn access_verdict(&mut self, idx: usize, word: u64) {
        let (a, write) = super::from_mem_word(word);
        if self.sites[idx].static_access {
            let stall = if a.fill {
                self.dcache_miss_penalty()
            } else {
                0
            };
            self.charge_cache(idx, 0, a, ev::DCACHE_MISSES, ev::STALL_DCACHE, stall);
            return;
        }
        self.add(idx, if write { ev::STORES } else { ev::LOADS }, 1);
        self.add(idx, ev::DCACHE_ACCESSES, 1);
        if a.hit && !a.write_through && self.dcache_hit_stall == 0 {
            return;
        }
        self.data_cache_cost(idx, 0, a);
    }

    /// The data-cache miss penalty in cycles (0 without a data cache).
    fn dcache_miss_penalty(&self) -> u64 {
        self.core
            .dcache
            .as_ref()
            .map_or(0, |c| u64::from(c.miss_penalty))
    }

    /// The costs of data-cache access `a` at `addr` by site `idx` beyond a
    /// one-cycle hit.
    #[inline(never)]
    pub(super) fn data_cache_cost(&mut self, idx: usize, addr: u64, a: CacheAccess) {
        let miss = if a.fill {
            self.dcache_miss_penalty()
        } else {
            0
        };
        let stall = self.dcache_hit_stall + miss;
        self.charge_cache(idx, addr, a, ev::DCACHE_MISSES, ev::STALL_DCACHE, stall);
    }

    /// [`Self::data_access`] on a core with memory regions (which may be
    /// uncached or have wait states), or without a data cache.
    #[inline(never)]
    pub(super) fn data_access_regions(&mut self, idx: usize, addr: u64, write: bool) {
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
    pub(super) fn control(&mut self, id: usize, taken: bool, target: u64) {
        let meta = &self.blocks[id];
        let Some(kind) = meta.control else { return };
        // A conditional branch's own target, also when not taken (the
        // hooks give the next pc).
        let target = if kind == BranchKind::Conditional {
            meta.target
        } else {
            target
        };
        let out = self.predictor.resolve(meta.last_pc, kind, taken, target);
        let row = control_row(out, meta.control_class, taken);
        self.charge_control(id, row);
    }

    /// Charge the final branch or jump of block `id` the costs of row
    /// `row` of [`Self::control_table`] beyond its class's base (a static
    /// cost): nothing for most outcomes.
    #[inline(always)]
    pub(super) fn charge_control(&mut self, id: usize, row: usize) {
        let (cost, stall, mispredict) = self.control_costs[row & 31];
        if cost | stall | mispredict == 0 {
            return;
        }
        let meta = &self.blocks[id];
        let idx = (meta.first + meta.len - 1) as usize;
        let site = &mut self.dynamic[idx];
        site[ev::CYCLES] += cost;
        site[ev::STALL_BRANCH] += stall;
        site[ev::BRANCH_MISPREDICTS] += mispredict;
        self.dynamic_totals[ev::CYCLES] += cost;
        self.dynamic_totals[ev::STALL_BRANCH] += stall;
        self.dynamic_totals[ev::BRANCH_MISPREDICTS] += mispredict;
    }
}

/// The row in [`TimingModel::control_table`] of a block's final transfer
/// of row group `class`, `taken`, predicted as `out` says.
#[inline(always)]
pub(super) fn control_row(out: Outcome, class: u8, taken: bool) -> usize {
    fwprof_sim::branch_row(class, out.mispredicted, taken, out.btb_hit)
}
