//! Architectural state of one RISC-V hart: machine, supervisor and user
//! mode (Privileged ISA 20211203), or user mode only for Linux programs.
//!
//! * `x` registers are `u64`; on RV32 every value is kept sign-extended from
//!   bit 31, so comparisons and branches need no XLEN case. `x0` is
//!   hard-wired to zero in exactly one place, [`Hart::set_x`].
//! * `f` registers are `u64`. Single-precision values are NaN-boxed
//!   (Unprivileged ISA 20191213, §12.2): writing an `f32` sets the upper 32
//!   bits to ones; reading an `f32` from a register whose upper 32 bits are
//!   not all ones yields the canonical NaN `0x7fc00000`.
//! * CSRs are in [`crate::csr`].

/// Canonical single-precision NaN (Unprivileged ISA §11.3).
pub const CANONICAL_NAN_S: u32 = 0x7fc0_0000;

/// Privilege level the hart runs at (Privileged ISA 20211203, §1.2,
/// Table 1.1). Ordered: `User < Supervisor < Machine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Privilege {
    /// User mode (encoding 0; Linux user-mode programs run here).
    User,
    /// Supervisor mode (encoding 1).
    Supervisor,
    /// Machine mode (encoding 3; bare-metal programs start here).
    Machine,
}

impl Privilege {
    /// The two-bit encoding used in `mstatus.MPP` and `mcause` (0, 1, 3).
    pub fn bits(self) -> u64 {
        match self {
            Privilege::User => 0,
            Privilege::Supervisor => 1,
            Privilege::Machine => 3,
        }
    }

    /// The level an `MPP`/`SPP` value names. The reserved value 2 is
    /// taken as U (fwprof's choice; see docs/simulator.md).
    pub fn from_bits(bits: u64) -> Privilege {
        match bits & 3 {
            3 => Privilege::Machine,
            1 => Privilege::Supervisor,
            _ => Privilege::User,
        }
    }

    /// One letter: `M`, `S` or `U`.
    pub fn letter(self) -> char {
        match self {
            Privilege::User => 'U',
            Privilege::Supervisor => 'S',
            Privilege::Machine => 'M',
        }
    }
}

/// One hart's registers and CSRs.
#[derive(Clone, Debug)]
pub struct Hart {
    /// Integer registers; index = register number. Read them directly, write
    /// them with [`Hart::set_x`] (keeps `x0` zero and RV32 values sign-extended).
    /// Only `x[0..32]` are registers: the array has 256 entries so that the
    /// executor can index it with a `u8` register number without a bounds
    /// check or mask; entries 32.. are never read or written.
    pub(crate) x: [u64; 256],
    /// Floating-point registers as raw bits (singles NaN-boxed).
    pub(crate) f: [u64; 32],
    /// Program counter (zero-extended to 64 bits on RV32).
    pub pc: u64,
    pub(crate) rv64: bool,
    pub(crate) privilege: Privilege,

    // Floating-point control (Unprivileged ISA §11.2) and mstatus.FS
    // (Privileged ISA 20211203, §3.1.6.6): 0 Off, 1 Initial, 2 Clean, 3 Dirty.
    pub(crate) fflags: u8,
    pub(crate) frm: u8,
    pub(crate) fs: u8,
    /// The writable `mstatus` bits (§3.1.6) other than FS, which is `fs`:
    /// SIE, MIE, SPIE, MPIE, SPP, VS, MPP, MPRV, SUM, MXR, TVM, TW, TSR.
    /// `sstatus` is a view of it.
    pub(crate) mstatus: u64,

    pub(crate) mtvec: u64,
    pub(crate) mepc: u64,
    pub(crate) mcause: u64,
    pub(crate) mtval: u64,
    pub(crate) mscratch: u64,
    pub(crate) mie: u64,
    /// The software-writable `mip` bits (SSIP, STIP, SEIP); MTIP, MSIP
    /// and, with Sstc, STIP come from the timers and the CLINT.
    pub(crate) mip: u64,
    pub(crate) medeleg: u64,
    pub(crate) mideleg: u64,
    pub(crate) mcounteren: u64,
    pub(crate) menvcfg: u64,
    /// `satp` and PMP (`mmu.rs`, `pmp.rs`).
    pub(crate) vm: crate::mmu::VmState,

    pub(crate) stvec: u64,
    pub(crate) sepc: u64,
    pub(crate) scause: u64,
    pub(crate) stval: u64,
    pub(crate) sscratch: u64,
    pub(crate) scounteren: u64,
    pub(crate) senvcfg: u64,

    /// Instructions that started executing (the profile's count).
    pub(crate) executed: u64,
    /// Instructions that started but did not retire (they trapped:
    /// Privileged ISA §3.3.1, an `ecall`/`ebreak` or faulting instruction
    /// does not retire).
    pub(crate) not_retired: u64,
    /// `executed` before the CSR instruction being executed (set per block;
    /// CSR instructions always end a block).
    pub(crate) csr_point: u64,
    /// The exception the executor stopped a block with (valid only when
    /// its status says so; see `uop::exec_block`).
    pub(crate) pending: crate::trap::Exc,
    /// Modelled cycles before the CSR instruction being executed, when a
    /// timing model supplies them (`Hooks::MODELS_CYCLES`); `None` means
    /// cycles = retired instructions.
    pub(crate) model_cycles: Option<u64>,
    /// Retired instructions per privilege level (indexed by its encoding),
    /// up to `mode_mark`, the retired count at the last privilege change.
    pub(crate) mode_retired: [u64; 4],
    pub(crate) mode_mark: u64,
    /// The performance counters: `mcycle`, `minstret`, `mhpmcounterN`
    /// and their controls (`crate::pmu`).
    pub(crate) pmu: crate::pmu::Pmu,

    /// The guest clock and the timers (`crate::irq`).
    pub(crate) clock: crate::irq::Clock,
    /// The CLINT's `msip` bit for this hart (mirrored in `mip.MSIP`).
    pub(crate) msip: bool,
    /// `mip.MEIP`/`SEIP` as the PLIC drives them (`sim/bus.rs`).
    pub(crate) ext_irq: u64,

    /// LR/SC reservation: address (`u64::MAX` = none) and the value loaded
    /// (QEMU 7.2 `load_res`/`load_val`).
    pub(crate) res_addr: u64,
    pub(crate) res_val: u64,
    /// The privilege the last `mret`/`sret` returned from.
    pub(crate) xret_from: Privilege,
    /// `mhartid`: the hart's number on the machine (0 for the first).
    pub(crate) id: u64,
    /// Per interrupt code: when it became pending and enabled in `mie`
    /// (executed instructions, guest ns), for its latency.
    pub(crate) since: [Option<(u64, u64)>; 16],
    /// The last block that ran and how many of its instructions ran (for
    /// the clock with a core model).
    pub(crate) last: (u32, u32),
    /// (pc, cause, count) of synchronous exceptions raised again and again
    /// at one pc with no `mret`/`sret` between them (a handler that traps
    /// in itself): see `sim::TRAP_STORM`.
    pub(crate) storm: (u64, u64, u32),
    /// Executed instructions QEMU's icount does not count: those whose
    /// exception QEMU raises at run time (see `crate::irq`).
    pub(crate) icount_skip: u64,
}

impl Hart {
    /// A hart at reset: all registers zero, `pc` 0, machine mode, `mstatus.FS`
    /// off (as QEMU 7.2's `virt` machine resets it; the C runtime turns it on).
    pub fn new(rv64: bool) -> Hart {
        Hart {
            x: [0; 256],
            f: [0; 32],
            pc: 0,
            rv64,
            privilege: Privilege::Machine,
            fflags: 0,
            frm: 0,
            fs: 0,
            mstatus: 0,
            mtvec: 0,
            mepc: 0,
            mcause: 0,
            mtval: 0,
            mscratch: 0,
            mie: 0,
            mip: 0,
            medeleg: 0,
            mideleg: 0,
            mcounteren: 0,
            menvcfg: 0,
            vm: crate::mmu::VmState::default(),
            stvec: 0,
            sepc: 0,
            scause: 0,
            stval: 0,
            sscratch: 0,
            scounteren: 0,
            senvcfg: 0,
            executed: 0,
            not_retired: 0,
            csr_point: 0,
            pending: crate::trap::Exc { cause: 0, tval: 0 },
            model_cycles: None,
            pmu: crate::pmu::Pmu::default(),
            mode_retired: [0; 4],
            mode_mark: 0,
            clock: crate::irq::Clock::new(),
            msip: false,
            ext_irq: 0,
            res_addr: u64::MAX,
            res_val: 0,
            xret_from: Privilege::Machine,
            icount_skip: 0,
            id: 0,
            since: [None; 16],
            last: (crate::block::NO_BLOCK, 0),
            storm: (0, 0, 0),
        }
    }

    /// True for RV64, false for RV32.
    pub fn rv64(&self) -> bool {
        self.rv64
    }

    /// Current privilege level.
    pub fn privilege(&self) -> Privilege {
        self.privilege
    }

    /// Switch to user mode with the FP unit enabled (`FS` = Initial), as the
    /// Linux kernel starts a process; the counters are readable (as
    /// `qemu-riscv64` lets every process read them). No translation or PMP
    /// check ever applies to such a hart (its memory is the process's
    /// virtual memory).
    pub fn enter_user_mode(&mut self) {
        self.privilege = Privilege::User;
        self.fs = 1;
        self.mcounteren = 0xffff_ffff;
        self.scounteren = 0xffff_ffff;
        self.vm.off = true;
    }

    /// Value of integer register `r` (0..=31; RV32 values sign-extended).
    #[inline(always)]
    pub fn x(&self, r: u8) -> u64 {
        self.x[(r & 31) as usize]
    }

    /// All integer registers (index = register number).
    pub fn xs(&self) -> &[u64; 32] {
        self.x.first_chunk().expect("256 >= 32")
    }

    /// All integer registers, mutably (for the environment; call
    /// [`Hart::normalize_x`] afterwards).
    pub(crate) fn xs_mut(&mut self) -> &mut [u64; 32] {
        self.x.first_chunk_mut().expect("256 >= 32")
    }

    /// Write integer register `r`. This is the one place `x0` is kept zero;
    /// on RV32 the value is sign-extended from bit 31.
    #[inline(always)]
    pub fn set_x(&mut self, r: u8, v: u64) {
        if self.rv64 {
            self.set_x_xlen::<true>(r, v)
        } else {
            self.set_x_xlen::<false>(r, v)
        }
    }

    /// [`Hart::set_x`] with XLEN known at compile time (the executor's form).
    #[inline(always)]
    pub(crate) fn set_x_xlen<const RV64: bool>(&mut self, r: u8, v: u64) {
        let v = if RV64 { v } else { v as i32 as i64 as u64 };
        self.x[(r & 31) as usize] = v;
        self.x[0] = 0;
    }

    /// Restore the register-file invariants after an outside party (the
    /// environment) wrote `x` directly: `x0` = 0, RV32 values sign-extended.
    pub(crate) fn normalize_x(&mut self) {
        for r in 0..32 {
            let v = self.x[r];
            self.set_x(r as u8, v);
        }
    }

    /// Raw bits of floating-point register `r`.
    #[inline(always)]
    pub fn f(&self, r: u8) -> u64 {
        self.f[(r & 31) as usize]
    }

    /// Single-precision view of `f[r]`: the low 32 bits if properly NaN-boxed,
    /// else the canonical NaN (Unprivileged ISA §12.2).
    #[inline(always)]
    pub fn f32(&self, r: u8) -> u32 {
        let v = self.f(r);
        if v >> 32 == 0xffff_ffff {
            v as u32
        } else {
            CANONICAL_NAN_S
        }
    }

    /// Write raw bits to `f[r]` and mark the FP state dirty.
    #[inline(always)]
    pub fn set_f(&mut self, r: u8, v: u64) {
        self.f[(r & 31) as usize] = v;
        self.fs = 3;
    }

    /// Write a single (NaN-boxed) to `f[r]` and mark the FP state dirty.
    #[inline(always)]
    pub fn set_f32(&mut self, r: u8, v: u32) {
        self.set_f(r, 0xffff_ffff_0000_0000 | v as u64);
    }

    /// All floating-point registers as raw bits.
    pub fn fs_raw(&self) -> &[u64; 32] {
        &self.f
    }

    /// Accrue floating-point exception flags (`fflags`, §11.2); any change
    /// marks the FP state dirty.
    #[inline(always)]
    pub(crate) fn accrue(&mut self, flags: u8) {
        if flags != 0 {
            self.fflags |= flags & 0x1f;
            self.fs = 3;
        }
    }

    /// Instructions retired so far (executed minus those that trapped).
    pub fn retired(&self) -> u64 {
        self.executed - self.not_retired
    }

    /// Guest time the hart spent asleep so far, in 100 ns ticks (the unit of
    /// `time`/`mtime`, 10 MHz), rounded down: `wfi` until an interrupt
    /// woke it, Linux `nanosleep`/`clock_nanosleep`. No instruction
    /// executes meanwhile.
    pub fn idle_ticks(&self) -> u64 {
        self.clock.idle_ns / 100
    }

    /// Guest time the hart spent asleep so far, in nanoseconds.
    pub fn idle_ns(&self) -> u64 {
        self.clock.idle_ns
    }

    /// Instructions that started executing on this hart (the profile's
    /// count; equals one QEMU `-d exec` line per instruction with
    /// `-singlestep`).
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// The hart's number (`mhartid`; 0 for the first hart).
    pub fn id(&self) -> u32 {
        self.id as u32
    }
}
