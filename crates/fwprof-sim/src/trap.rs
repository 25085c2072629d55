//! Exceptions as values, trap delivery, and why a run stops.
//!
//! Exception codes are those of Privileged ISA 20211203, §3.1.15, Table 3.6.
//! Delivery follows §3.1.6.1 (MIE/MPIE/MPP stack), §3.1.7 (`mtvec`: direct
//! mode, and vectored mode sends *exceptions* to BASE as well), §3.1.14
//! (`mepc`), §3.1.15 (`mcause`) and §3.1.16 (`mtval`).

use crate::hart::{Hart, Privilege};

// The architectural exception codes (Privileged ISA Table 3.6) are owned by
// fwprof-isa; re-exported here under the names the simulator always used.
pub use fwprof_isa::{
    CAUSE_BREAKPOINT, CAUSE_ECALL_M, CAUSE_ECALL_S, CAUSE_ECALL_U, CAUSE_FETCH_ACCESS,
    CAUSE_ILLEGAL_INSTRUCTION, CAUSE_LOAD_ACCESS, CAUSE_MISALIGNED_FETCH, CAUSE_MISALIGNED_LOAD,
    CAUSE_MISALIGNED_STORE, CAUSE_STORE_ACCESS,
};

/// Internal pseudo-cause: a store modified translated code; the store has
/// completed and execution continues at `tval` after the simulator has
/// invalidated the affected blocks. Never visible to the guest.
pub(crate) const CAUSE_CODE_WRITTEN: u64 = 1 << 62;

/// Internal pseudo-cause: `wfi` executed in M-mode; the simulator decides
/// how long the hart sleeps (the machine timer) and resumes after it.
/// Never visible to the guest.
pub(crate) const CAUSE_WFI: u64 = 1 << 61;

/// An exception raised by one instruction (or the code-write pseudo-cause).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exc {
    /// `mcause` value.
    pub cause: u64,
    /// `mtval` value.
    pub tval: u64,
}

impl Exc {
    /// Illegal instruction with its raw bits in `mtval`.
    #[inline]
    pub(crate) fn illegal(raw: u32) -> Exc {
        Exc {
            cause: CAUSE_ILLEGAL_INSTRUCTION,
            tval: raw as u64,
        }
    }
}

/// Why [`crate::Simulator::run`] returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The program asked to exit with this status (semihosting
    /// `SYS_EXIT`/`SYS_EXIT_EXTENDED` or Linux `exit`/`exit_group`).
    Exit(i32),
    /// The program reset the machine (the SiFive test device's
    /// `FINISHER_RESET`, e.g. OpenSBI's system reset): QEMU would start it
    /// again; the run ends here.
    Reset,
    /// The executed-instruction count reached the `limit` given to `run`.
    InstructionLimit,
    /// The `interrupt` flag given to `run` was set (polled about every 64k
    /// instructions); the hart state is consistent and `run` may be called again.
    Interrupted,
    /// Bare metal: an exception occurred while `mtvec` was 0, so there was
    /// no handler to deliver it to, or in the handler's first instruction
    /// (`looping`). `cause`/`tval` are what `mcause`/`mtval`
    /// would have been; `pc` is the faulting instruction; `raw`/`len` its
    /// encoding (`raw` low 16 bits for RVC; both 0 for a fetch fault, where
    /// there is no instruction).
    Fault {
        /// Exception code (Privileged ISA §3.1.15, Table 3.6).
        cause: u64,
        /// PC of the faulting instruction.
        pc: u64,
        /// Would-be `mtval`.
        tval: u64,
        /// Instruction bits (0 if not fetched).
        raw: u32,
        /// Instruction length in bytes (0 if not fetched).
        len: u8,
        /// True when there is a handler but it can never finish: the
        /// exception was raised by (or fetching) the handler's own first
        /// instruction, or 100,000 times in a row at this pc with no
        /// `mret`/`sret` between (the handler traps in itself).
        looping: bool,
    },
    /// Linux user mode: the kernel would have killed the process with this
    /// signal (SIGILL=4 for illegal instructions, SIGSEGV=11 for access
    /// faults, SIGBUS=7 for misaligned atomics, SIGTRAP=5 for `ebreak`).
    Signal {
        /// Signal number.
        signo: i32,
        /// Exception code that caused it.
        cause: u64,
        /// PC of the faulting instruction.
        pc: u64,
        /// Would-be `mtval` (faulting address or instruction bits).
        tval: u64,
    },
}

/// Errors that stop the simulator itself (not guest-visible faults, which
/// are [`StopReason`]s or delivered traps).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The environment failed in a way that cannot be reported to the guest.
    #[error("environment call at pc {pc:#x} failed: {source}")]
    Environment {
        /// PC of the `ecall`/`ebreak`.
        pc: u64,
        /// The environment's error.
        #[source]
        source: fwprof_os::EnvError,
    },
    /// The program made a semihosting or system call but the simulator was
    /// built without an environment ([`crate::Simulator::bare`]).
    #[error("{call} at pc {pc:#x} but no guest environment is attached")]
    NoEnvironment {
        /// `"semihosting call"` or `"system call"`.
        call: &'static str,
        /// PC of the call.
        pc: u64,
    },
    /// A `wfi` that nothing can ever end: no interrupt enabled in `mie`
    /// can become pending (QEMU would wait forever).
    #[error("hart {hart} waits in wfi at {pc:#x} {reason}")]
    Wfi {
        /// The hart (`mhartid`).
        hart: u32,
        /// PC of the `wfi`.
        pc: u64,
        /// What the hart waits for, and why it cannot come.
        reason: String,
    },
    /// Every thread of a Linux process waits and none can ever be woken
    /// (the kernel would let the process hang).
    #[error("deadlock: {reason}")]
    Deadlock {
        /// Who waits, for what.
        reason: String,
    },
    /// A Linux program waits for a signal that can never come (`pause`,
    /// `sigsuspend`, `sigwaitinfo` with no timer armed that could send
    /// one): Linux and QEMU would let it wait forever.
    #[error("the program waits at pc {pc:#x}: {reason}")]
    WaitForever {
        /// PC of the system call.
        pc: u64,
        /// The call, what it waits for and why it cannot come.
        reason: String,
    },
}

/// Where a trap went: the privilege it was taken from and to, and whether
/// it was an interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Taken {
    pub from: Privilege,
    pub to: Privilege,
}

impl Hart {
    /// Take a trap (Privileged ISA 20211203, §3.1.6.1, §3.1.7, §3.1.8,
    /// §4.1.1; QEMU 7.2 `riscv_cpu_do_interrupt`): exception `exc` (or,
    /// with `interrupt`, the interrupt whose code is `exc.cause`) raised at
    /// `pc`. A trap from S- or U-mode whose cause is delegated in
    /// `medeleg`/`mideleg` goes to S-mode (`sepc`, `scause`, `stval`,
    /// SPIE = SIE, SIE = 0, SPP = the mode trapped from, `pc` = `stvec`),
    /// every other one to M-mode (`mepc`, `mcause`, `mtval`, MPIE = MIE,
    /// MIE = 0, MPP, `pc` = `mtvec`). In vectored mode interrupts go to
    /// BASE + 4 × cause, exceptions to BASE. Clears the LR/SC reservation.
    pub(crate) fn take_trap(&mut self, exc: Exc, pc: u64, interrupt: bool) -> Taken {
        let from = self.privilege;
        let deleg = if interrupt {
            self.mideleg
        } else {
            self.medeleg
        };
        let top = if self.rv64 { 1u64 << 63 } else { 1u64 << 31 };
        let cause = if interrupt {
            exc.cause | top
        } else {
            exc.cause
        };
        let tval = self.xlen_wrap(exc.tval);
        let epc = self.xlen_wrap(pc & !1);
        let to = if from <= Privilege::Supervisor && exc.cause < 64 && (deleg >> exc.cause) & 1 != 0
        {
            let sie = self.mstatus & crate::irq::MSTATUS_SIE != 0;
            self.mstatus &=
                !(crate::irq::MSTATUS_SPIE | crate::irq::MSTATUS_SIE | crate::irq::MSTATUS_SPP);
            if sie {
                self.mstatus |= crate::irq::MSTATUS_SPIE;
            }
            if from == Privilege::Supervisor {
                self.mstatus |= crate::irq::MSTATUS_SPP;
            }
            self.sepc = epc;
            self.scause = cause;
            self.stval = tval;
            self.pc = vector(self.stvec, exc.cause, interrupt);
            Privilege::Supervisor
        } else {
            let mie = self.mstatus & crate::irq::MSTATUS_MIE != 0;
            self.mstatus &=
                !(crate::irq::MSTATUS_MPIE | crate::irq::MSTATUS_MIE | crate::irq::MSTATUS_MPP);
            if mie {
                self.mstatus |= crate::irq::MSTATUS_MPIE;
            }
            self.mstatus |= from.bits() << crate::irq::MSTATUS_MPP_SHIFT;
            self.mepc = epc;
            self.mcause = cause;
            self.mtval = tval;
            self.pc = vector(self.mtvec, exc.cause, interrupt);
            Privilege::Machine
        };
        self.pc = self.xlen_wrap(self.pc);
        self.privilege = to;
        self.res_addr = u64::MAX;
        Taken { from, to }
    }

    /// The trap vector of `xtvec` = `tvec` for this trap.
    pub(crate) fn trap_vector(&self, exc: Exc, interrupt: bool) -> u64 {
        let deleg = if interrupt {
            self.mideleg
        } else {
            self.medeleg
        };
        if self.privilege <= Privilege::Supervisor
            && exc.cause < 64
            && (deleg >> exc.cause) & 1 != 0
        {
            vector(self.stvec, exc.cause, interrupt)
        } else {
            vector(self.mtvec, exc.cause, interrupt)
        }
    }

    fn xlen_wrap(&self, v: u64) -> u64 {
        if self.rv64 {
            v
        } else {
            v & 0xffff_ffff
        }
    }

    /// `mret` (Privileged ISA §3.3.2): MIE = MPIE, MPIE = 1, privilege =
    /// MPP, MPP = U, and MPRV = 0 when leaving M-mode; returns the new pc
    /// (`mepc` with bit 0 cleared).
    pub(crate) fn mret(&mut self) -> u64 {
        use crate::irq::*;
        self.xret_from = self.privilege;
        let to = Privilege::from_bits((self.mstatus & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT);
        let mpie = self.mstatus & MSTATUS_MPIE != 0;
        self.mstatus &= !(MSTATUS_MIE | MSTATUS_MPP);
        self.mstatus |= MSTATUS_MPIE;
        if mpie {
            self.mstatus |= MSTATUS_MIE;
        }
        if to != Privilege::Machine {
            self.mstatus &= !MSTATUS_MPRV;
        }
        self.privilege = to;
        self.xlen_wrap(self.mepc & !1)
    }

    /// `sret` (Privileged ISA §3.3.2, §4.1.1): SIE = SPIE, SPIE = 1,
    /// privilege = SPP, SPP = U, MPRV = 0; returns the new pc (`sepc` with
    /// bit 0 cleared).
    pub(crate) fn sret(&mut self) -> u64 {
        use crate::irq::*;
        self.xret_from = self.privilege;
        let to = if self.mstatus & MSTATUS_SPP != 0 {
            Privilege::Supervisor
        } else {
            Privilege::User
        };
        let spie = self.mstatus & MSTATUS_SPIE != 0;
        self.mstatus &= !(MSTATUS_SIE | MSTATUS_SPP | MSTATUS_MPRV);
        self.mstatus |= MSTATUS_SPIE;
        if spie {
            self.mstatus |= MSTATUS_SIE;
        }
        self.privilege = to;
        self.xlen_wrap(self.sepc & !1)
    }
}

/// The handler address for a trap through `tvec` (§3.1.7).
fn vector(tvec: u64, cause: u64, interrupt: bool) -> u64 {
    let base = tvec & !3;
    if interrupt && tvec & 3 == 1 {
        base.wrapping_add(4 * cause)
    } else {
        base
    }
}
