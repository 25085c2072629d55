//! The guest clock, the timers, and which interrupt the hart takes.
//!
//! **Time.** Guest time is a count of nanoseconds that depends only on
//! what the guest executed, never on host time:
//! `ns = base × unit_ns + idle_ns`, where `base` is the clock's count of
//! work done and `idle_ns` the time the hart slept (`wfi`, Linux
//! `nanosleep`). By default one retired instruction — or one modelled
//! cycle with a core model — is one 100 ns tick of the 10 MHz `time`
//! (`unit_ns` = 100). With `--icount-shift N` the clock follows QEMU 7.2's
//! `-icount shift=N,sleep=off`: `base` is QEMU's instruction count and
//! `unit_ns` = 2^N. That count includes the instruction reading the clock
//! (QEMU ends its translation block at such an I/O instruction) and
//! instructions whose exception is known when they are translated
//! (`ecall`, `ebreak`, an undefined encoding), but not those whose
//! exception a helper raises at run time (a load, store or AMO fault; a
//! CSR access, `mret`, `sret`, `wfi` or `sfence.vma` refused): QEMU's
//! `cpu_restore_state` gives their count back (`Hart::icount_skip`).
//!
//! `mtime` (and the `time` CSR) is `ns / 100 + time_delta`, QEMU's
//! `cpu_riscv_read_rtc` (hw/intc/riscv_aclint.c: `muldiv64(ns, 10 MHz,
//! 1e9)` plus the offset that writes to `mtime` set).
//!
//! **Timers.** The CLINT's `mtimecmp` and Sstc's `stimecmp` follow QEMU
//! 7.2's arithmetic (`riscv_aclint_mtimer_write_timecmp`,
//! target/riscv/time_helper.c `riscv_timer_write_timecmp`): when the
//! compare register is written, a value at or below the current `mtime`
//! raises the interrupt line at once; a later value lowers it and arms a
//! deadline in nanoseconds, *computed from the current time*:
//! `now_ns + (cmp − mtime_now) × 100`. The line rises when guest time
//! reaches the deadline and stays up until the compare register is written
//! again. Because `mtime_now` is rounded down, the deadline can be up to
//! 99 ns after `cmp × 100`.
//!
//! **Which interrupt.** Privileged ISA 20211203, §3.1.9: an interrupt
//! `i` traps to M-mode when pending and enabled in `mie`, not delegated in
//! `mideleg`, and the hart is below M or in M with `mstatus.MIE`; a
//! delegated one traps to S-mode when the hart is below S or in S with
//! `mstatus.SIE`. M-level interrupts come first; within a level the order
//! is MEI, MSI, MTI, SEI, SSI, STI (QEMU 7.2 `riscv_cpu_local_irq_pending`
//! with the default priorities).

use crate::hart::{Hart, Privilege};

/// `mip`/`mie` bits (Privileged ISA 20211203, §3.1.9, Figure 3.14).
pub(crate) const SSIP: u64 = 1 << 1;
pub(crate) const MSIP: u64 = 1 << 3;
pub(crate) const STIP: u64 = 1 << 5;
pub(crate) const MTIP: u64 = 1 << 7;
pub(crate) const SEIP: u64 = 1 << 9;
pub(crate) const MEIP: u64 = 1 << 11;
/// Local counter-overflow interrupt (Sscofpmf 1.0).
pub(crate) const LCOFIP: u64 = 1 << 13;
/// Exception codes of the interrupts, highest priority first; 13 is the
/// local counter-overflow interrupt (raised by an overflowing counter with
/// Sscofpmf, `crate::pmu`; writable in `mip` as QEMU 7.2 keeps it).
const PRIORITY: [u64; 7] = [11, 3, 7, 9, 1, 5, 13];

/// `mstatus` bits (§3.1.6).
pub(crate) const MSTATUS_SIE: u64 = 1 << 1;
pub(crate) const MSTATUS_MIE: u64 = 1 << 3;
pub(crate) const MSTATUS_SPIE: u64 = 1 << 5;
pub(crate) const MSTATUS_MPIE: u64 = 1 << 7;
pub(crate) const MSTATUS_SPP: u64 = 1 << 8;
pub(crate) const MSTATUS_MPP_SHIFT: u32 = 11;
pub(crate) const MSTATUS_MPP: u64 = 3 << MSTATUS_MPP_SHIFT;
pub(crate) const MSTATUS_MPRV: u64 = 1 << 17;
pub(crate) const MSTATUS_SUM: u64 = 1 << 18;
pub(crate) const MSTATUS_MXR: u64 = 1 << 19;
pub(crate) const MSTATUS_TVM: u64 = 1 << 20;
pub(crate) const MSTATUS_TW: u64 = 1 << 21;
pub(crate) const MSTATUS_TSR: u64 = 1 << 22;

/// `menvcfg.STCE` (Sstc 1.0: `stimecmp` drives `mip.STIP`).
pub(crate) const MENVCFG_STCE: u64 = 1 << 63;

/// A compare-register timer: the interrupt line and the armed deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timer {
    /// The compare register (`mtimecmp`, `stimecmp`).
    pub cmp: u64,
    /// The line as last set by a write to `cmp` or by reaching the deadline.
    pub level: bool,
    /// Guest nanoseconds at which the line rises, if armed.
    pub deadline: Option<u64>,
}

impl Timer {
    /// The line at guest time `ns`.
    pub(crate) fn line(&self, ns: u64) -> bool {
        self.level || self.deadline.is_some_and(|d| ns >= d)
    }

    /// The deadline still to come at guest time `ns`, if any.
    fn pending_deadline(&self, ns: u64) -> Option<u64> {
        if self.level {
            return None;
        }
        self.deadline.filter(|&d| d > ns)
    }
}

/// The guest clock and the hart's timers (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct Clock {
    /// Nanoseconds per unit of the clock's base: 100, or 2^N with
    /// `--icount-shift N`.
    pub unit_ns: u64,
    /// True with `--icount-shift`: the base is the executed-instruction
    /// count as QEMU's icount counts it.
    pub icount: bool,
    /// Guest nanoseconds asleep.
    pub idle_ns: u64,
    /// Added to `ns / 100` to give `mtime` (writes to `mtime` change it).
    pub time_delta: u64,
    /// The CLINT's `mtimecmp` timer (raises MTIP).
    pub mtimer: Timer,
    /// Sstc's `stimecmp` timer (raises STIP while `menvcfg.STCE` is set).
    pub stimer: Timer,
}

impl Clock {
    /// The clock at reset: 100 ns per unit, `mtimecmp` = 0 (so MTIP is
    /// up from reset, as on QEMU 7.2 `virt`), `stimecmp` = 0 with its
    /// line down until written (QEMU 7.2 arms it only on a write).
    pub(crate) fn new() -> Clock {
        Clock {
            unit_ns: 100,
            icount: false,
            idle_ns: 0,
            time_delta: 0,
            mtimer: Timer {
                cmp: 0,
                level: true,
                deadline: None,
            },
            stimer: Timer {
                cmp: 0,
                level: false,
                deadline: None,
            },
        }
    }

    /// Guest nanoseconds at clock base `base`.
    pub(crate) fn ns(&self, base: u64) -> u64 {
        base.wrapping_mul(self.unit_ns).wrapping_add(self.idle_ns)
    }

    /// `mtime` at clock base `base`, in 100 ns ticks.
    pub(crate) fn mtime(&self, base: u64) -> u64 {
        (self.ns(base) / 100).wrapping_add(self.time_delta)
    }

    /// Write a compare register at clock base `base` (QEMU 7.2's
    /// arithmetic, see the module documentation).
    pub(crate) fn write_cmp(&self, timer: &mut Timer, cmp: u64, base: u64) {
        timer.cmp = cmp;
        let now = self.mtime(base);
        if cmp <= now {
            timer.level = true;
            timer.deadline = None;
            return;
        }
        timer.level = false;
        // QEMU caps the deadline at INT64_MAX ns (292 years): never.
        let diff_ns = (cmp - now)
            .checked_mul(100)
            .filter(|&d| d <= i64::MAX as u64);
        timer.deadline = diff_ns
            .and_then(|d| self.ns(base).checked_add(d))
            .filter(|&d| d < i64::MAX as u64);
    }

    /// Latch lines whose deadline has passed at `base` (the timer callback).
    pub(crate) fn update(&mut self, base: u64) {
        let ns = self.ns(base);
        for t in [&mut self.mtimer, &mut self.stimer] {
            if t.deadline.is_some_and(|d| ns >= d) {
                t.level = true;
                t.deadline = None;
            }
        }
    }
}

impl Hart {
    /// The clock base of the instruction executing now, for a read of
    /// `time`/`mtime` or a timer write (see the module documentation).
    pub(crate) fn base_for_read(&self) -> u64 {
        if self.clock.icount {
            (self.csr_point + 1).wrapping_sub(self.icount_skip)
        } else {
            self.model_cycles
                .unwrap_or_else(|| self.csr_point.saturating_sub(self.not_retired))
        }
    }

    /// `mip` at clock base `base`: the software-written bits, MEIP and SEIP
    /// from the PLIC, MTIP from `mtimecmp`, MSIP from the CLINT, STIP from
    /// `stimecmp` when `menvcfg.STCE` is set.
    pub(crate) fn mip_at(&self, base: u64) -> u64 {
        let ns = self.clock.ns(base);
        let mut v = self.mip | self.ext_irq;
        if self.clock.mtimer.line(ns) {
            v |= MTIP;
        }
        if self.msip {
            v |= MSIP;
        }
        if self.menvcfg & MENVCFG_STCE != 0 {
            v &= !STIP;
            if self.clock.stimer.line(ns) {
                v |= STIP;
            }
        }
        v
    }

    /// The interrupt the hart takes at clock base `base`, if any: its
    /// exception code. M-level interrupts first, then the fixed order.
    pub(crate) fn interrupt_at(&self, base: u64) -> Option<u64> {
        let pending = self.mip_at(base) & self.mie;
        if pending == 0 {
            return None;
        }
        let m_on = self.privilege < Privilege::Machine || self.mstatus & MSTATUS_MIE != 0;
        let s_on = self.privilege < Privilege::Supervisor
            || (self.privilege == Privilege::Supervisor && self.mstatus & MSTATUS_SIE != 0);
        let m = if m_on { pending & !self.mideleg } else { 0 };
        let s = if s_on { pending & self.mideleg } else { 0 };
        let irqs = if m != 0 { m } else { s };
        PRIORITY.into_iter().find(|&c| irqs & (1 << c) != 0)
    }

    /// Guest nanoseconds of the next timer deadline whose interrupt is
    /// enabled in `mie` and in `mask` (e.g. [`Hart::deliverable`]), after
    /// clock base `base`.
    pub(crate) fn next_deadline(&self, base: u64, mask: u64) -> Option<u64> {
        let ns = self.clock.ns(base);
        let want = self.mie & mask;
        let m = (want & MTIP != 0)
            .then(|| self.clock.mtimer.pending_deadline(ns))
            .flatten();
        let s = (want & STIP != 0 && self.menvcfg & MENVCFG_STCE != 0)
            .then(|| self.clock.stimer.pending_deadline(ns))
            .flatten();
        match (m, s) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The smallest clock base at which guest time reaches `ns`.
    pub(crate) fn base_reaching(&self, ns: u64) -> u64 {
        ns.saturating_sub(self.clock.idle_ns)
            .div_ceil(self.clock.unit_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_is_computed_from_the_time_of_the_write() {
        let mut c = Clock::new();
        c.unit_ns = 16; // --icount-shift 4
        let mut t = c.mtimer;
        // At base 10 (160 ns) mtime is 1; mtimecmp = 3 arms 160 + 200 ns.
        c.write_cmp(&mut t, 3, 10);
        assert_eq!((t.level, t.deadline), (false, Some(360)));
        assert!(!t.line(359) && t.line(360));
        // A value at or below mtime raises the line at once.
        c.write_cmp(&mut t, 1, 10);
        assert_eq!((t.level, t.deadline), (true, None));
        // All ones: never.
        c.write_cmp(&mut t, u64::MAX, 10);
        assert_eq!((t.level, t.deadline), (false, None));
    }

    #[test]
    fn priority_and_delegation() {
        let mut h = Hart::new(true);
        h.mie = SSIP | MSIP | STIP | MTIP | SEIP | MEIP;
        h.mip = SSIP | STIP;
        h.msip = true;
        h.clock.mtimer.level = false;
        // M-mode with MIE clear takes nothing.
        assert_eq!(h.interrupt_at(0), None);
        h.mstatus |= MSTATUS_MIE;
        assert_eq!(h.interrupt_at(0), Some(3));
        // In U-mode, M-level interrupts are always enabled; delegated ones
        // come after them.
        h.privilege = Privilege::User;
        h.mstatus = 0;
        h.mideleg = SSIP | STIP | SEIP;
        assert_eq!(h.interrupt_at(0), Some(3));
        h.msip = false;
        assert_eq!(h.interrupt_at(0), Some(1), "SSI before STI");
        // In S-mode a delegated interrupt needs SIE.
        h.privilege = Privilege::Supervisor;
        assert_eq!(h.interrupt_at(0), None);
        h.mstatus |= MSTATUS_SIE;
        assert_eq!(h.interrupt_at(0), Some(1));
        // In M-mode delegated interrupts are never taken.
        h.privilege = Privilege::Machine;
        h.mstatus = MSTATUS_MIE;
        assert_eq!(h.interrupt_at(0), None);
    }
}
