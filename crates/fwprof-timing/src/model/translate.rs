//! The translation-time part of the timing model: what is known of a
//! block when it is decoded (each instruction's static costs, the fetch
//! lines, the final branch's kind and cost table), computed once so that
//! executing it touches only those facts.

use fwprof_isa::{Inst, InstClass};
use fwprof_sim::BlockId;

use super::{ev, BlockMeta, Costs, Site, TimingModel, NARROW_LIMIT, NEVER, NUM_EVENTS};
use crate::config::CoreConfig;
use crate::facts::{branch_kind, int_regs, is_register_shift, static_target, wait_states};
use crate::params::PredictorKind;

impl TimingModel {
    /// `(cycles, stall_branch, branch_mispredicts)` of a block's final
    /// branch or jump, indexed by `class << 3 | mispredicted << 2 | taken
    /// << 1 | btb_hit` where class is 0 for a conditional branch, 1 for
    /// `jal`, 2 for `jalr`; rows 24..32 (no class 3) are zero, so that a
    /// row is looked up with a mask.
    /// [`Self::control_table`] split in two: the cycles every outcome of
    /// a class costs at least (its base, a static cost of the instruction)
    /// and the table of what each outcome costs beyond it (so that most
    /// outcomes, correctly predicted, charge nothing more).
    pub(super) fn control_split(core: &CoreConfig) -> ([u64; 3], [(u64, u64, u64); 32]) {
        let mut t = TimingModel::control_table(core);
        let mut base = [0; 3];
        for (class, b) in base.iter_mut().enumerate() {
            let rows = &mut t[class << 3..(class + 1) << 3];
            *b = rows.iter().map(|r| r.0).min().unwrap_or(0);
            for r in rows {
                r.0 -= *b;
            }
        }
        (base, t)
    }

    pub(super) fn control_table(core: &CoreConfig) -> [(u64, u64, u64); 32] {
        let lat = &core.pipeline.latency;
        let pipe = &core.pipeline;
        let mut t = [(0, 0, 0); 32];
        for (row, entry) in t.iter_mut().enumerate().take(24) {
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
            // What every outcome costs at least; the rest is charged when
            // the outcome is known.
            _ if control => self.control_base[usize::from(control_class(s.class))] as u32,
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
        for (a, b) in c.iter_mut().zip(self.access_costs(s)) {
            *a += b;
        }
        c[ev::CYCLES] += u64::from(issue)
            + c[ev::STALL_LOAD_USE]
            + c[ev::STALL_ICACHE]
            + c[ev::STALL_WAIT_STATE];
        c
    }

    /// The static costs of site `s`'s data-cache access, when it is one
    /// (`Site::static_access`): what a hit costs (as
    /// [`Self::data_access`] charges it); zero for other sites.
    pub(super) fn access_costs(&self, s: &Site) -> Costs {
        let mut c: Costs = [0; NUM_EVENTS];
        if s.static_access {
            let store = matches!(s.class, InstClass::Store | InstClass::FpStore);
            c[if store { ev::STORES } else { ev::LOADS }] = 1;
            c[ev::DCACHE_ACCESSES] = 1;
            c[ev::STALL_DCACHE] = self.dcache_hit_stall;
            c[ev::CYCLES] = self.dcache_hit_stall;
        }
        c
    }

    /// Record the static facts of block `id` (its instructions `insts`
    /// at `pcs`), as [`fwprof_sim::Hooks::on_block_translated`] reports them.
    pub(super) fn translate(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
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
                space: self.translating,
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
                static_access: self.front_dcache
                    && matches!(
                        i.op.class(),
                        InstClass::Load | InstClass::Store | InstClass::FpLoad | InstClass::FpStore
                    ),
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
        let narrow = sum.iter().all(|&v| v < NARROW_LIMIT);
        if !narrow {
            if self.wide_sums.len() <= idx {
                self.wide_sums.resize(idx + 1, [0; NUM_EVENTS]);
            }
            self.wide_sums[idx] = sum;
        }
        let meta = BlockMeta {
            sum: if narrow {
                sum.map(|v| v as u32)
            } else {
                [0; NUM_EVENTS]
            },
            narrow,
            count: 0,
            icache_epoch: NEVER,
            first: first as u32,
            len: insts.len() as u32,
            lines_start,
            lines_len,
            last_pc: tail.map_or(0, |s| s.pc),
            target: match (tail, insts.last()) {
                (Some(s), Some(i)) => static_target(s.pc, i, self.rv64).unwrap_or(0),
                _ => 0,
            },
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
                narrow: true,
                len: 0,
                lines_len: 0,
                ..meta
            };
            self.blocks.resize(idx + 1, empty);
        }
        self.blocks[idx] = meta;
    }
}

/// The row group of a block's last instruction in
/// [`TimingModel::control_table`]: 1 `jal`, 2 `jalr`, 0 anything else.
pub(super) fn control_class(class: InstClass) -> u8 {
    match class {
        InstClass::Jal => 1,
        InstClass::Jalr => 2,
        _ => 0,
    }
}
