//! Control and status registers (Privileged ISA 20211203, Chapter 2 and
//! §3.1; Unprivileged ISA 20191213, Chapter 9 "Zicsr" and Chapter 10
//! "Counters").
//!
//! Implemented CSRs and their behaviour:
//! * `fflags` 0x001, `frm` 0x002, `fcsr` 0x003 (§11.2): illegal while
//!   `mstatus.FS` is Off (as QEMU 7.2); writes set FS to Dirty.
//! * `cycle` 0xC00, `time` 0xC01, `instret` 0xC02 (+ `cycleh`/`timeh`/
//!   `instreth` 0xC80..0xC82 on RV32), `mcycle` 0xB00, `minstret` 0xB02
//!   (+ `mcycleh`/`minstreth` 0xB80/0xB82 on RV32). Without a core model
//!   one instruction takes one cycle of 100 ns: `cycle` = `instret`; with
//!   one (`Hooks::MODELS_CYCLES`), `cycle` is the modelled cycle count.
//!   `time` ticks at 10 MHz (as QEMU 7.2 `virt`'s CLINT), one tick per
//!   cycle: `time` = `cycle` (before any `mcycle` write) plus the ticks the
//!   hart slept (`wfi`, `nanosleep`; see `Hart::idle_ticks`) plus what
//!   writes to the CLINT's `mtime` added; with `--icount-shift` it follows
//!   the executed-instruction count as QEMU's does (`crate::irq`). A read returns
//!   the count of instructions retired *before* the reading instruction;
//!   instructions that trap do not retire (Privileged ISA §3.3.1).
//!   `mcycle`/`minstret` are writable (§3.1.11); `time` is read-only.
//!   `mcountinhibit` 0x320 (§3.1.13) stops `mcycle`, `minstret` and the
//!   `mhpmcounterN` whose bits are set (every bit is stored, as QEMU 7.2
//!   stores it). `hpmcounter3..31`(+h), `mhpmcounter3..31`(+h),
//!   `mhpmevent3..31`, and with the core's extensions `scountovf` 0xDA0,
//!   `mhpmevent3h..31h` 0x723.. (RV32, Sscofpmf), `mcyclecfg` 0x321,
//!   `minstretcfg` 0x322 (+`h` 0x721/0x722 on RV32, Smcntrpmf): see
//!   `crate::pmu`. Without a core's `[pmu]` the counters 3..31 read as
//!   zero and ignore writes (§3.1.11: a legal implementation).
//!
//! Reset values and write masks were measured on QEMU 7.2's `virt` machine
//! with `-cpu rv64,h=false` / `rv32,h=false` (a program writing all-ones to
//! each CSR and reading it back), so that register values stay in
//! lock-step with QEMU:
//! * `mstatus` 0x300 (§3.1.6): resets to 0 (MPP = U, FS = Off); writable
//!   bits 0x7e7faa (SIE, MIE, SPIE, MPIE, SPP, VS, MPP, FS, MPRV, SUM, MXR,
//!   TVM, TW, TSR). SD summarises FS/VS == Dirty; on RV64 UXL = SXL = 2
//!   (fixed here; QEMU 7.2 lets an all-ones write change UXL). MPP = 2
//!   (reserved) is stored as QEMU stores it; `mret` then enters U-mode.
//!   `mstatush` 0x310 (RV32): reads zero. `sstatus` 0x100 (§4.1.1) is the
//!   view of SIE, SPIE, SPP, VS, FS, SUM, MXR (+ UXL, SD).
//! * `misa` 0x301 (§3.1.1): only what fwprof implements: RV32/RV64 IMAFDC
//!   with S and U (`0x800000000014112d` / `0x4014112d`), QEMU 7.2's value
//!   without H (QEMU's default CPU sets H); writes ignored (WARL).
//! * `mvendorid`, `marchid`, `mimpid`, `mconfigptr` (0xF11..0xF13,
//!   0xF15): read-only zero (QEMU reports its version in
//!   `marchid`/`mimpid`); `mhartid` 0xF14: the hart's number (0 ..
//!   harts − 1, as on QEMU `virt`).
//! * `mtvec` 0x305 and `stvec` 0x105 (§3.1.7, §4.1.2): direct (0) and
//!   vectored (1) mode; writes with MODE >= 2 are ignored (QEMU 7.2).
//! * `mepc`/`sepc` store what is written, bit 0 included, as QEMU 7.2
//!   does; `mret`/`sret` clear bit 0 of the target. `mcause`, `mtval`,
//!   `mscratch`, `scause`, `stval`, `sscratch`: plain registers.
//! * `mie` 0x304 (writable 0x2eee), `mip` 0x344 (writable 0x2666: SSIP,
//!   STIP, SEIP, LCOFIP and the VS bits QEMU keeps without H): MTIP
//!   reads the CLINT timer's line, MSIP the CLINT's `msip`; with
//!   `menvcfg.STCE` STIP is `stimecmp`'s line and not writable. `sie` /
//!   `sip` 0x104 / 0x144 (§4.1.3) are the `mideleg` bits of `mie`/`mip`;
//!   only SSIP (and LCOFIP) are writable through `sip`. See `crate::irq`.
//! * `medeleg` 0x302 (writable 0xf0bfff), `mideleg` 0x303 (0x2666).
//! * `mcounteren` 0x306, `scounteren` 0x106 (§3.1.12, §4.1.5): all bits
//!   writable; they gate `cycle`/`time`/`instret`/`hpmcounterN` below M
//!   (below S, `scounteren` too), as QEMU 7.2's `ctr()` does.
//! * `menvcfg` 0x30A (+ `menvcfgh` 0x31A on RV32; writable FIOM, CBIE,
//!   CBCFE, CBZE, PBMTE, STCE), `senvcfg` 0x10A (0xf1): stored; STCE
//!   enables Sstc.
//! * `stimecmp` 0x14D (+ `stimecmph` 0x15D on RV32; Sstc 1.0): accessible
//!   in M-mode, and in S-mode when `mcounteren.TM` and `menvcfg.STCE` are
//!   set.
//! * `satp` 0x180, `pmpcfg0..3` 0x3A0.., `pmpaddr0..15` 0x3B0..: see
//!   `mmu.rs` and `pmp.rs` (translation and PMP are enforced).
//!
//! Access rules (Privileged ISA §2.1): CSR number bits \[11:10\] = 0b11 means
//! read-only (a write raises illegal instruction); bits \[9:8\] give the lowest
//! privilege allowed. Any other CSR number raises illegal instruction.

use crate::hart::{Hart, Privilege};
use crate::irq::*;

/// Why a CSR access failed: always an illegal-instruction exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsrIllegal;

const MSTATUS_FS_SHIFT: u32 = 13;
/// Writable `mstatus` bits (QEMU 7.2, measured), FS included.
const MSTATUS_WRITABLE: u64 = 0x7e_7faa;
/// `mstatus.FS`, kept in `Hart::fs`.
const MSTATUS_FS: u64 = 3 << MSTATUS_FS_SHIFT;
/// `mstatus.VS` (vector state; stored only).
const MSTATUS_VS: u64 = 3 << 9;
/// The `mstatus` bits `sstatus` shows and writes (§4.1.1; UXL and SD are
/// added when read).
const SSTATUS_MASK: u64 =
    MSTATUS_SIE | MSTATUS_SPIE | MSTATUS_SPP | MSTATUS_VS | MSTATUS_FS | MSTATUS_SUM | MSTATUS_MXR;
/// Writable `mip` / `mideleg` bits and writable `mie` bits (QEMU 7.2,
/// measured without H: it keeps the VS and LCOFI bits storable).
const MIP_WRITABLE: u64 = 0x2666;
const MIDELEG_WRITABLE: u64 = 0x2666;
const MIE_WRITABLE: u64 = 0x2eee;
/// `sip` bits S-mode may write: SSIP and LCOFIP (QEMU 7.2 `rmw_sip64`).
const SIP_WRITABLE: u64 = SSIP | 1 << 13;
const MEDELEG_WRITABLE: u64 = 0xf0_bfff;
/// Writable `menvcfg` bits: FIOM, CBIE, CBCFE, CBZE, PBMTE, STCE.
const MENVCFG_WRITABLE: u64 = 0xc000_0000_0000_00f1;
const SENVCFG_WRITABLE: u64 = 0xf1;

impl Hart {
    /// Read-only `misa` value (Privileged ISA §3.1.1): IMAFDC + S + U,
    /// what fwprof implements.
    pub fn misa(&self) -> u64 {
        if self.rv64 {
            0x8000_0000_0014_112d
        } else {
            0x4014_112d
        }
    }

    /// The composed `mstatus` value (§3.1.6).
    pub fn mstatus(&self) -> u64 {
        let mut v = self.mstatus | (self.fs as u64) << MSTATUS_FS_SHIFT;
        let dirty = self.fs == 3 || self.mstatus & MSTATUS_VS == MSTATUS_VS;
        if self.rv64 {
            v |= 0xa_0000_0000; // UXL = SXL = 2 (64-bit)
            if dirty {
                v |= 1 << 63;
            }
        } else if dirty {
            v |= 1 << 31;
        }
        v
    }

    /// `sstatus` (§4.1.1): the supervisor view of `mstatus`.
    fn sstatus(&self) -> u64 {
        let sd = if self.rv64 { 1 << 63 } else { 1 << 31 };
        let uxl = if self.rv64 { 0x2_0000_0000 } else { 0 };
        self.mstatus() & (SSTATUS_MASK | sd | uxl)
    }

    fn write_mstatus(&mut self, v: u64, mask: u64) {
        let mask = mask & MSTATUS_WRITABLE;
        let all = (self.mstatus() & !mask) | (v & mask);
        self.mstatus = all & MSTATUS_WRITABLE & !MSTATUS_FS;
        self.fs = ((all >> MSTATUS_FS_SHIFT) & 3) as u8;
    }

    /// Retired count as seen by a counter read (before the current CSR
    /// instruction). A read from outside the run loop (a tool, a test)
    /// after a trap may find `csr_point` older than the trap: 0 then.
    fn retired_before(&self) -> u64 {
        self.csr_point.saturating_sub(self.not_retired)
    }

    /// What `cycle` counts from: modelled cycles before the current
    /// instruction when a timing model supplies them, else retired
    /// instructions (one instruction = one cycle).
    fn cycle_base(&self) -> u64 {
        self.model_cycles.unwrap_or_else(|| self.retired_before())
    }

    fn xlen_mask(&self, v: u64) -> u64 {
        if self.rv64 {
            v
        } else {
            v & 0xffff_ffff
        }
    }

    /// Read CSR `csr` (0..=0xfff) as the current instruction would.
    ///
    /// # Errors
    /// [`CsrIllegal`] for an unknown CSR, one above the current privilege,
    /// a counter `mcounteren`/`scounteren` hides, or an FP CSR while
    /// `mstatus.FS` is Off.
    pub fn csr_read(&self, csr: u16) -> Result<u64, CsrIllegal> {
        self.check_access(csr)?;
        if self.pmu.absent(csr, self.rv64) {
            return Err(CsrIllegal);
        }
        let m_mode = self.privilege == Privilege::Machine;
        if let Some(v) = self
            .pmu
            .read(csr, &self.pmu_before(), self.rv64, self.mcounteren, m_mode)
        {
            return Ok(self.xlen_mask(v));
        }
        let rv32 = !self.rv64;
        let base = self.base_for_read();
        let time = self.clock.mtime(base);
        let v = match csr {
            0x001 => self.fflags as u64,
            0x002 => self.frm as u64,
            0x003 => (self.frm as u64) << 5 | self.fflags as u64,
            0xC01 => time,
            0xC81 if rv32 => time >> 32,
            0xF14 => self.id,
            0xF11..=0xF15 => 0,
            0x100 => self.sstatus(),
            0x104 => self.mie & self.mideleg,
            0x105 => self.stvec,
            0x106 => self.scounteren,
            0x10A => self.senvcfg,
            0x140 => self.sscratch,
            0x141 => self.sepc,
            0x142 => self.scause,
            0x143 => self.stval,
            0x144 => self.mip_at(base) & self.mideleg,
            0x14D => self.clock.stimer.cmp,
            0x15D if rv32 => self.clock.stimer.cmp >> 32,
            0x300 => self.mstatus(),
            0x310 if rv32 => 0,
            0x301 => self.misa(),
            0x302 => self.medeleg,
            0x303 => self.mideleg,
            0x304 => self.mie,
            0x305 => self.mtvec,
            0x306 => self.mcounteren,
            0x30A => self.menvcfg,
            0x31A if rv32 => self.menvcfg >> 32,
            0x340 => self.mscratch,
            0x341 => self.mepc,
            0x342 => self.mcause,
            0x343 => self.mtval,
            0x344 => self.mip_at(base),
            // satp, pmpcfg, pmpaddr: `mmu.rs`, `pmp.rs`.
            0x180 => self
                .vm
                .satp_read(self.vm_s_mode(), self.vm_tvm())
                .ok_or(CsrIllegal)?,
            0x3A0..=0x3A3 => self
                .vm
                .pmpcfg_read((csr - 0x3A0) as usize, self.rv64)
                .ok_or(CsrIllegal)?,
            0x3B0..=0x3BF => self.vm.pmpaddr_read((csr - 0x3B0) as usize),
            _ => return Err(CsrIllegal),
        };
        Ok(self.xlen_mask(v))
    }

    /// Privilege, counter-enable, Sstc and FS checks common to reads and
    /// writes (Privileged ISA §2.1, §3.1.12; QEMU 7.2 `ctr()`, `sstc()`).
    fn check_access(&self, csr: u16) -> Result<(), CsrIllegal> {
        let min_priv = Privilege::from_bits(u64::from((csr >> 8) & 3));
        if (csr >> 8) & 3 == 2 || self.privilege < min_priv {
            return Err(CsrIllegal);
        }
        if (0x001..=0x003).contains(&csr) && self.fs == 0 {
            return Err(CsrIllegal);
        }
        // cycle, time, instret, hpmcounterN (and their high halves).
        if matches!(csr, 0xC00..=0xC1F | 0xC80..=0xC9F) {
            let bit = 1u64 << (csr & 0x1f);
            if self.privilege < Privilege::Machine && self.mcounteren & bit == 0 {
                return Err(CsrIllegal);
            }
            if self.privilege < Privilege::Supervisor && self.scounteren & bit == 0 {
                return Err(CsrIllegal);
            }
        }
        if matches!(csr, 0x14D | 0x15D)
            && self.privilege < Privilege::Machine
            && (self.mcounteren & 2 == 0 || self.menvcfg & MENVCFG_STCE == 0)
        {
            return Err(CsrIllegal);
        }
        Ok(())
    }

    /// Write `v` to CSR `csr`. The CSR must exist (check with
    /// [`Hart::csr_read`] first when the instruction also reads).
    ///
    /// # Errors
    /// [`CsrIllegal`] for a read-only CSR (number bits \[11:10\] = 0b11,
    /// Privileged ISA §2.1), an unknown one, or an access the privilege or
    /// `mstatus.FS` forbids.
    pub fn csr_write(&mut self, csr: u16, v: u64) -> Result<(), CsrIllegal> {
        self.check_access(csr)?;
        if csr >> 10 == 3 {
            return Err(CsrIllegal);
        }
        // Existence check (reads have no side effects here).
        self.csr_read(csr)?;
        let v = self.xlen_mask(v);
        let rv32 = !self.rv64;
        // A write to a counter makes the *next* instruction read `v`: the
        // writing instruction's own increment is absorbed (§3.1.11). With
        // a timing model the writing instruction counts as one cycle.
        let before = self.pmu_before();
        let after = crate::pmu::Now {
            retired: before.retired.wrapping_add(1),
            cycles: before.cycles.wrapping_add(1),
            model: before.model,
        };
        let (rv64, p) = (self.rv64, self.privilege);
        if self.pmu.write(csr, v, (&before, &after), rv64, p) {
            return Ok(());
        }
        let stce = self.menvcfg & MENVCFG_STCE != 0;
        match csr {
            0x001 => {
                self.fflags = (v & 0x1f) as u8;
                self.fs = 3;
            }
            0x002 => {
                self.frm = (v & 7) as u8;
                self.fs = 3;
            }
            0x003 => {
                self.fflags = (v & 0x1f) as u8;
                self.frm = ((v >> 5) & 7) as u8;
                self.fs = 3;
            }
            0x100 => self.write_mstatus(v, SSTATUS_MASK),
            0x104 => {
                let m = self.mideleg & MIE_WRITABLE;
                self.mie = (self.mie & !m) | (v & m);
            }
            0x105 if v & 3 < 2 => self.stvec = v,
            0x106 => self.scounteren = v,
            0x10A => self.senvcfg = v & SENVCFG_WRITABLE,
            0x140 => self.sscratch = v,
            0x141 => self.sepc = v,
            0x142 => self.scause = v,
            0x143 => self.stval = v,
            0x144 => {
                let m = self.mideleg & SIP_WRITABLE;
                self.mip = (self.mip & !m) | (v & m);
            }
            0x14D | 0x15D => {
                let cmp = match csr {
                    0x14D if rv32 => (self.clock.stimer.cmp & !0xffff_ffff) | v,
                    0x14D => v,
                    _ => (self.clock.stimer.cmp & 0xffff_ffff) | v << 32,
                };
                let base = self.base_for_read();
                let mut t = self.clock.stimer;
                self.clock.write_cmp(&mut t, cmp, base);
                self.clock.stimer = t;
            }
            0x300 => self.write_mstatus(v, u64::MAX),
            0x302 => self.medeleg = v & MEDELEG_WRITABLE,
            0x303 => self.mideleg = v & MIDELEG_WRITABLE,
            0x304 => self.mie = v & MIE_WRITABLE,
            // MODE >= 2 is reserved: QEMU 7.2 ignores such writes.
            0x305 if v & 3 < 2 => self.mtvec = v,
            0x306 => self.mcounteren = v,
            0x30A if rv32 => self.menvcfg = (self.menvcfg & !0xffff_ffff) | (v & MENVCFG_WRITABLE),
            0x30A => self.menvcfg = v & MENVCFG_WRITABLE,
            0x31A => self.menvcfg = (self.menvcfg & 0xffff_ffff) | (v << 32 & MENVCFG_WRITABLE),
            0x340 => self.mscratch = v,
            0x341 => self.mepc = v,
            0x342 => self.mcause = v,
            0x343 => self.mtval = v,
            0x344 => {
                // With Sstc on, STIP belongs to stimecmp (QEMU 7.2 `rmw_mip64`).
                let m = if stce {
                    MIP_WRITABLE & !STIP
                } else {
                    MIP_WRITABLE
                };
                self.mip = (self.mip & !m) | (v & m);
            }
            0x180 => {
                let (s_mode, tvm) = (self.vm_s_mode(), self.vm_tvm());
                self.vm
                    .satp_write(v, self.rv64, s_mode, tvm)
                    .map_err(|()| CsrIllegal)?;
            }
            0x3A0..=0x3A3 => self.vm.pmpcfg_write((csr - 0x3A0) as usize, v, self.rv64),
            0x3B0..=0x3BF => self.vm.pmpaddr_write((csr - 0x3B0) as usize, v, self.rv64),
            // misa (WARL, fixed), mstatush, hpm counters/events, and the
            // reserved xtvec modes: writes ignored.
            _ => {}
        }
        Ok(())
    }

    /// The counters' sources before the current instruction (see
    /// `crate::pmu`): retired instructions, cycles, the timing model's
    /// events as fetched for this instruction.
    pub(crate) fn pmu_before(&self) -> crate::pmu::Now {
        crate::pmu::Now {
            retired: self.retired_before(),
            cycles: self.cycle_base(),
            model: self.pmu.model_now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misa_and_mstatus_reset_values() {
        let h = Hart::new(true);
        assert_eq!(h.csr_read(0x301), Ok(0x8000_0000_0014_112d));
        assert_eq!(h.csr_read(0x300), Ok(0xa_0000_0000));
        let h32 = Hart::new(false);
        assert_eq!(h32.csr_read(0x301), Ok(0x4014_112d));
        assert_eq!(h32.csr_read(0x300), Ok(0));
    }

    #[test]
    fn fs_off_makes_fcsr_illegal_and_writes_dirty() {
        let mut h = Hart::new(true);
        assert_eq!(h.csr_read(0x003), Err(CsrIllegal));
        h.csr_write(0x300, 1 << 13).unwrap(); // FS = Initial
        assert_eq!(h.csr_read(0x003), Ok(0));
        h.csr_write(0x002, 3).unwrap();
        assert_eq!(h.csr_read(0x003), Ok(3 << 5));
        // FS became Dirty, SD set.
        assert_eq!(h.csr_read(0x300).unwrap() >> 13 & 3, 3);
        assert_eq!(h.csr_read(0x300).unwrap() >> 63, 1);
        h.csr_write(0x001, 0xff).unwrap();
        assert_eq!(h.csr_read(0x003), Ok(3 << 5 | 0x1f));
    }

    #[test]
    fn read_only_and_unknown_csrs() {
        let mut h = Hart::new(true);
        assert_eq!(h.csr_write(0xC00, 1), Err(CsrIllegal));
        assert_eq!(h.csr_write(0xF14, 1), Err(CsrIllegal));
        assert_eq!(h.csr_read(0xF14), Ok(0));
        assert_eq!(h.csr_read(0x7C0), Err(CsrIllegal));
        assert_eq!(h.csr_read(0x180), Ok(0)); // satp (S mode exists)
        assert_eq!(h.csr_read(0xC80), Err(CsrIllegal)); // cycleh is RV32-only
        assert_eq!(h.csr_read(0x3A1), Err(CsrIllegal)); // pmpcfg1 is RV32-only
    }

    #[test]
    fn user_mode_sees_only_user_csrs() {
        let mut h = Hart::new(true);
        h.enter_user_mode();
        assert_eq!(h.csr_read(0x300), Err(CsrIllegal));
        assert_eq!(h.csr_read(0x003), Ok(0));
        assert_eq!(h.csr_read(0xC01), Ok(0));
    }

    #[test]
    fn counters_count_retired_before_the_reader() {
        let mut h = Hart::new(false);
        h.executed = 0x1_0000_0005;
        h.csr_point = 0x1_0000_0004;
        h.not_retired = 1;
        assert_eq!(h.csr_read(0xC02), Ok(3));
        assert_eq!(h.csr_read(0xC82), Ok(1));
        assert_eq!(h.csr_read(0xC00), Ok(3));
        assert_eq!(h.csr_read(0xC01), Ok(3));
        // minstret write: the next instruction reads the written value.
        h.csr_write(0xB02, 100).unwrap();
        h.csr_point += 1;
        assert_eq!(h.csr_read(0xB02), Ok(100));
        assert_eq!(h.csr_read(0xB82), Ok(1));
    }

    #[test]
    fn mtvec_mepc_and_masks() {
        let mut h = Hart::new(true);
        h.csr_write(0x305, 0x8000_0101).unwrap();
        assert_eq!(h.csr_read(0x305), Ok(0x8000_0101));
        h.csr_write(0x305, 0x8000_0202).unwrap(); // mode 2: ignored
        assert_eq!(h.csr_read(0x305), Ok(0x8000_0101));
        // Values QEMU 7.2 reads back after writing all-ones (or the value).
        h.csr_write(0x341, 0x8000_0003).unwrap();
        assert_eq!(h.csr_read(0x341), Ok(0x8000_0003));
        h.csr_write(0x300, 0x7888).unwrap();
        assert_eq!(h.csr_read(0x300), Ok(0x8000_000a_0000_7888));
        h.csr_write(0x300, u64::MAX).unwrap();
        assert_eq!(h.csr_read(0x300), Ok(0x8000_000a_007e_7faa));
        let mut h32 = Hart::new(false);
        h32.csr_write(0x300, u64::MAX).unwrap();
        assert_eq!(h32.csr_read(0x300), Ok(0x807e_7faa));
        for (csr, v) in [
            (0x304, 0x2eee),
            // The writable bits, and MTIP: time (0) >= mtimecmp (0).
            (0x344, 0x2666 | MTIP),
            (0x302, 0xf0_bfff),
            (0x303, 0x2666),
            (0x30A, 0xc000_0000_0000_00f1),
            (0x10A, 0xf1),
            (0x14D, u64::MAX),
            // sstatus: SIE SPIE SPP VS FS SUM MXR, UXL, SD.
            (0x100, 0x8000_0002_000c_6722),
            // Through sie/sip only the delegated bits show.
            (0x104, 0x2666 & 0x2eee),
            // STIP belongs to stimecmp since STCE was set (above).
            (0x144, 0x2666 & !STIP),
        ] {
            h.csr_write(csr, u64::MAX).unwrap();
            assert_eq!(h.csr_read(csr), Ok(v), "csr {csr:#x}");
        }
        h.csr_write(0x306, u64::MAX).unwrap();
        assert_eq!(h.csr_read(0x306), Ok(u64::MAX));
    }
}
