//! The simulator's side of traps and time: delivering a trap and telling
//! the hooks, the clock base at an instruction boundary, taking interrupts
//! and finding the next point where one may arrive, `wfi`, what a hart
//! waits for, and the CLINT's registers (the rules themselves are in
//! `crate::irq`).

use super::*;

impl<H: Hooks> Simulator<H> {
    /// The clock base (see `crate::irq`) before instruction `at.1` of
    /// block `at.0`, which just executed (`after`: once it completed, as
    /// one instruction or cycle more): retired instructions, or the timing
    /// model's cycles when it supplies them.
    pub(super) fn clock_base(&mut self, at: (u32, u32), after: bool) -> u64 {
        if self.hart.clock.icount {
            // QEMU's icount counts the instruction doing I/O (see `crate::irq`).
            self.hart.executed - self.hart.icount_skip
        } else if H::MODELS_CYCLES {
            let index = if after { at.1 + 1 } else { at.1 };
            self.hooks.cycles_before(BlockId(at.0), index)
        } else {
            self.retired_before_last() + u64::from(after)
        }
    }

    /// Deliver exception `exc` raised at `pc` to the guest's handler.
    pub(super) fn deliver(&mut self, exc: Exc, pc: u64) {
        self.trap(exc, pc, false, None);
    }

    /// Take a trap and tell the hooks.
    pub(super) fn trap(
        &mut self,
        exc: Exc,
        pc: u64,
        interrupt: bool,
        latency: Option<crate::Latency>,
    ) {
        self.mark_privilege(self.hart.privilege);
        let now = self.hart.pmu.mode_filtered.then(|| self.pmu_now());
        let taken = self.hart.take_trap(exc, pc, interrupt);
        if let Some(now) = now {
            self.pmu_privilege_changed(&now);
        }
        if self.hart.pmu.class_live {
            self.hart.pmu.account_trap();
            self.pmu_raise();
        }
        self.sync_translation();
        let info = TrapInfo {
            cause: exc.cause,
            interrupt,
            pc,
            tval: exc.tval,
            from: taken.from,
            to: taken.to,
            handler: self.hart.pc,
            latency,
        };
        self.hooks.on_trap(info, self.hart.executed, self.hart.x[2]);
    }

    /// The clock base between two instructions (see `crate::irq`).
    pub(super) fn boundary_base(&mut self) -> u64 {
        if self.hart.clock.icount {
            self.hart.executed - self.hart.icount_skip
        } else if H::MODELS_CYCLES {
            let (id, k) = self.hart.last;
            self.hooks.cycles_before(BlockId(id), k)
        } else {
            self.hart.executed - self.hart.not_retired
        }
    }

    /// At an instruction boundary: latch the timers, note when each
    /// interrupt became pending and enabled, and take the interrupt the
    /// hart takes now, if any (Privileged ISA 20211203, §3.1.9). Returns
    /// true if one was taken. A Linux program has no interrupts: its
    /// `ITIMER_REAL` deadline is looked at instead (`sim/signals.rs`).
    pub(super) fn take_interrupt(&mut self) -> bool {
        if self.target == Target::Linux {
            return self.take_signal_timer();
        }
        if self.hart.mie == 0 {
            self.hart.since = [None; 16];
            return false;
        }
        let base = self.boundary_base();
        self.hart.clock.update(base);
        let pending = self.hart.mip_at(base) & self.hart.mie;
        let now = (self.hart.executed, self.hart.clock.ns(base));
        for (code, since) in self.hart.since.iter_mut().enumerate() {
            if pending & (1 << code) == 0 {
                *since = None;
            } else if since.is_none() {
                *since = Some(now);
            }
        }
        let Some(code) = self.hart.interrupt_at(base) else {
            return false;
        };
        let latency = self.hart.since[code as usize].map(|(e, ns)| crate::Latency {
            instructions: now.0 - e,
            ns: now.1.wrapping_sub(ns),
        });
        self.hart.since[code as usize] = None;
        let exc = Exc {
            cause: code,
            tval: 0,
        };
        let pc = self.hart.pc;
        self.trap(exc, pc, true, latency);
        true
    }

    /// The executed count at which an interrupt may next become pending:
    /// the first timer deadline whose interrupt is enabled in `mie`
    /// (`u64::MAX` if none). With a core model the clock runs on cycles,
    /// whose relation to instructions is not known ahead: the point then
    /// approaches the deadline in steps of 1/16 of the cycles left, so the
    /// interrupt is still taken at the first instruction boundary at or
    /// after it. Linux: the point of the next `ITIMER_REAL` deadline.
    pub(super) fn interrupt_point(&mut self) -> u64 {
        if self.target == Target::Linux {
            return self.signal_timer_point();
        }
        if self.hart.mie & (crate::irq::MTIP | crate::irq::STIP) == 0 {
            return u64::MAX;
        }
        let base = self.boundary_base();
        let Some(deadline) = self.hart.next_deadline(base, u64::MAX) else {
            return u64::MAX;
        };
        self.deadline_point(deadline)
    }

    /// The executed count at which guest time may have reached `deadline`
    /// (ns), approached in steps with a core model (see
    /// [`Simulator::interrupt_point`]).
    pub(super) fn deadline_point(&mut self, deadline: u64) -> u64 {
        let base = self.boundary_base();
        let left = self
            .hart
            .base_reaching(deadline)
            .saturating_sub(base)
            .max(1);
        let step = if !self.hart.clock.icount && H::MODELS_CYCLES {
            (left / 16).max(1)
        } else {
            left
        };
        self.hart.executed.saturating_add(step)
    }

    /// The hart sleeps `ns` nanoseconds of guest time without executing
    /// anything; the hooks see the whole 100 ns ticks that passed.
    pub(super) fn sleep_ns(&mut self, ns: u64) {
        if ns > 0 {
            let before = self.hart.clock.idle_ns / 100;
            self.hart.clock.idle_ns = self.hart.clock.idle_ns.wrapping_add(ns);
            let ticks = (self.hart.clock.idle_ns / 100).wrapping_sub(before);
            if ticks > 0 {
                self.hooks.on_idle(ticks, self.hart.executed);
            }
        }
    }

    /// `wfi` at `pc` (Privileged ISA 20211203, §3.3.3; QEMU 7.2
    /// `helper_wfi` and `riscv_cpu_has_work`): the hart stalls until an
    /// interrupt enabled in `mie` is pending, whatever `mstatus.MIE`/`SIE`
    /// say. Guest time jumps to the first deadline of an enabled timer
    /// (QEMU's `-icount sleep=off` warps its clock the same way). The
    /// `wfi` retires; the interrupt, if the hart takes it, is taken before
    /// the next instruction, with `mepc`/`sepc` pointing after the `wfi`.
    ///
    /// # Errors
    /// [`SimError::Wfi`] if nothing can ever end the wait (QEMU would
    /// hang), with what the hart waits for.
    pub(super) fn wfi(
        &mut self,
        pc: u64,
        next: u64,
        at: (u32, u32),
    ) -> Result<Option<StopReason>, SimError> {
        // The clock once the `wfi` itself has run.
        let base = self.clock_base(at, true);
        self.hart.clock.update(base);
        self.hart.pc = next;
        if self.hart.mip_at(base) & self.hart.mie != 0 {
            return Ok(None);
        }
        if self.several_harts() {
            // Another hart may wake it (`sim/harts.rs`).
            self.wait_for_interrupt();
            return Ok(None);
        }
        if self.feed_waiting_uart() && self.hart.mip_at(base) & self.hart.mie != 0 {
            return Ok(None);
        }
        let Some(deadline) = self.hart.next_deadline(base, u64::MAX) else {
            self.hart.pc = pc;
            return Err(SimError::Wfi {
                hart: self.hart.id as u32,
                pc,
                reason: self.wait_diagnosis(base),
            });
        };
        let now = self.hart.clock.ns(base);
        self.sleep_ns(deadline - now);
        Ok(None)
    }

    /// What a hart that can never wake waits for, in one line: the
    /// interrupts enabled in `mie` and why none of them can become pending.
    pub(super) fn wait_diagnosis(&self, base: u64) -> String {
        use crate::irq::*;
        let h = &self.hart;
        if h.mie == 0 {
            return "with no interrupt enabled in mie: it would sleep forever".to_string();
        }
        let mut why = Vec::new();
        let names = [
            (MTIP, "MTIE"),
            (MSIP, "MSIE"),
            (MEIP, "MEIE"),
            (STIP, "STIE"),
            (SSIP, "SSIE"),
            (SEIP, "SEIE"),
        ];
        for (bit, name) in names {
            if h.mie & bit == 0 {
                continue;
            }
            why.push(match bit {
                MTIP => format!(
                    "{name} enabled and mtimecmp {:#x} never reached (mtime {:#x})",
                    h.clock.mtimer.cmp,
                    h.clock.mtime(base)
                ),
                STIP if h.menvcfg & MENVCFG_STCE != 0 => format!(
                    "{name} enabled and stimecmp {:#x} never reached (time {:#x})",
                    h.clock.stimer.cmp,
                    h.clock.mtime(base)
                ),
                MSIP if self.several_harts() => {
                    format!("{name} enabled and msip clear (every other hart waits too)")
                }
                MSIP => format!("{name} enabled and msip clear (no other hart can set it)"),
                MEIP | SEIP if self.bus_has_plic() => format!(
                    "{name} enabled and no PLIC source pending and enabled for it (input ended or no device interrupt enabled)"
                ),
                MEIP | SEIP => format!("{name} enabled and no interrupt controller to raise it"),
                _ => format!("{name} enabled and nothing but the hart itself to raise it"),
            });
        }
        format!("with {}: it would sleep forever", why.join(", "))
    }

    /// Why a hart stopped by the instruction limit (or by the user) might
    /// have been waiting in vain for an interrupt, in one line, if it
    /// looks so: an interrupt pending and enabled in `mie` but masked
    /// (`mstatus.MIE`/`SIE`, or the privilege), or a timer or software
    /// interrupt line up while `mie` does not enable it. `None` when
    /// nothing suggests it (e.g. no timer was ever programmed).
    pub fn interrupt_diagnosis(&self) -> Option<String> {
        use crate::irq::*;
        let h = &self.hart;
        if self.target == Target::Linux {
            return None;
        }
        let base = if h.clock.icount {
            h.executed - h.icount_skip
        } else {
            h.executed - h.not_retired
        };
        let mip = h.mip_at(base);
        let name = |bit: u64| match bit {
            MTIP => "machine timer",
            MSIP => "machine software",
            STIP => "supervisor timer",
            SSIP => "supervisor software",
            SEIP => "supervisor external",
            _ => "machine external",
        };
        let bits = [MEIP, MSIP, MTIP, SEIP, SSIP, STIP];
        let priv_ = h.privilege.letter();
        if h.interrupt_at(base).is_none() {
            if let Some(&bit) = bits.iter().find(|&&b| mip & h.mie & b != 0) {
                let why = if bit & h.mideleg != 0 {
                    if h.privilege == crate::Privilege::Machine {
                        "it is delegated to S-mode and the hart is in M-mode".to_string()
                    } else {
                        "mstatus.SIE is clear".to_string()
                    }
                } else {
                    "mstatus.MIE is clear".to_string()
                };
                return Some(format!(
                    "hart {} ({priv_}-mode, pc {:#x}) had the {} interrupt pending and enabled \
                     in mie, but {why}: it was never taken",
                    h.id,
                    h.pc,
                    name(bit)
                ));
            }
        }
        // A line raised by a timer the program programmed, or by msip,
        // that mie does not enable.
        let programmed = (if h.clock.mtimer.cmp != 0 { MTIP } else { 0 })
            | MSIP
            | (if h.menvcfg & MENVCFG_STCE != 0 {
                STIP
            } else {
                0
            });
        let idle = mip & programmed & !h.mie;
        bits.iter().find(|&&b| idle & b != 0).map(|&bit| {
            format!(
                "hart {} ({priv_}-mode, pc {:#x}) had the {} interrupt pending (mip bit {}), \
                 but mie does not enable it: it was never taken",
                h.id,
                h.pc,
                name(bit),
                bit.trailing_zeros()
            )
        })
    }

    /// A load or store by `inst` at offset `off` of the CLINT's window
    /// (the bus found it there, at the board's base): if it is an aligned
    /// 4- or 8-byte access (QEMU 7.2 `virt`, base 0x0200_0000: hart h's
    /// `msip` at offset 4h, its `mtimecmp` at 0x4000 + 8h, `mtime` at
    /// 0xBFF8), perform it and return true. Reads elsewhere in the CLINT's
    /// 64 KiB (and of harts the machine does not have) are 0 and writes
    /// are ignored, as on QEMU. A write to `mtimecmp` arms that hart's
    /// timer as QEMU does (`crate::irq`), on that hart's clock; a write to
    /// `mtime` re-arms every hart's timer from the new time (QEMU 7.2
    /// `riscv_aclint_mtimer_write`).
    pub(super) fn clint_access(&mut self, inst: &Inst, off: u64, at: (u32, u32)) -> bool {
        use fwprof_isa::Op;
        const MTIMECMP: u64 = 0x4000;
        const MTIME: u64 = 0xBFF8;
        let (size, store) = match inst.op {
            Op::Lw | Op::Lwu => (4, false),
            Op::Ld if self.hart.rv64 => (8, false),
            Op::Sw => (4, true),
            Op::Sd if self.hart.rv64 => (8, true),
            _ => return false,
        };
        if off >= 0x1_0000 || !off.is_multiple_of(size) {
            return false;
        }
        // The access is the instruction that raised the exception: it
        // retires, and it sees the clock before it (as a CSR read does).
        let base = self.clock_base(at, false);
        self.hart.clock.update(base);
        let now = self.hart.clock.mtime(base);
        let n = self.harts.parked.len().max(1) as u64;
        let reg = off & !7;
        let shift = (off & 4) * 8;
        let mask = if size == 8 { u64::MAX } else { 0xffff_ffff } << shift;
        // Which register: the 8 bytes at `reg` hold the `msip` words of
        // harts 2k and 2k + 1 (bit 0 of each), or hart h's `mtimecmp`.
        let msip_pair = (reg < 4 * n).then_some(reg / 4);
        let cmp_of = (MTIMECMP..MTIMECMP + 8 * n)
            .contains(&reg)
            .then(|| (reg - MTIMECMP) / 8);
        let msip = |sim: &mut Self, h: u64| h < n && sim.hart_mut_by_id(h as usize).msip;
        let current = if let Some(h) = msip_pair {
            u64::from(msip(self, h)) | u64::from(msip(self, h + 1)) << 32
        } else if let Some(h) = cmp_of {
            self.hart_mut_by_id(h as usize).clock.mtimer.cmp
        } else if reg == MTIME {
            now
        } else {
            0
        };
        if store {
            let v = self.hart.x[usize::from(inst.rs2)] << shift;
            let new = (current & !mask) | (v & mask);
            if let Some(h) = msip_pair {
                // Bit 0 of each word (QEMU 7.2 `riscv_aclint_swi_write`).
                for (k, bit) in [(h, new & 1), (h + 1, (new >> 32) & 1)] {
                    if k < n {
                        self.hart_mut_by_id(k as usize).msip = bit != 0;
                    }
                }
            } else if let Some(h) = cmp_of {
                let running = h as usize == self.harts.cur;
                let t = self.hart_mut_by_id(h as usize);
                let b = if running { base } else { t.parked_base() };
                let clock = &mut t.clock;
                let mut timer = clock.mtimer;
                clock.write_cmp(&mut timer, new, b);
                clock.mtimer = timer;
            } else if reg == MTIME {
                let delta = new.wrapping_sub(now);
                for i in 0..n as usize {
                    let running = i == self.harts.cur;
                    let t = self.hart_mut_by_id(i);
                    let b = if running { base } else { t.parked_base() };
                    let clock = &mut t.clock;
                    clock.time_delta = clock.time_delta.wrapping_add(delta);
                    let mut timer = clock.mtimer;
                    let cmp = timer.cmp;
                    clock.write_cmp(&mut timer, cmp, b);
                    clock.mtimer = timer;
                }
            }
        } else {
            let v = (current & mask) >> shift;
            let v = match inst.op {
                Op::Lw => v as u32 as i32 as i64 as u64,
                _ => v,
            };
            if inst.rd != 0 {
                self.hart.x[usize::from(inst.rd)] = v;
            }
            self.hart.normalize_x();
        }
        true
    }
}
