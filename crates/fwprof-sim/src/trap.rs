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
    CAUSE_BREAKPOINT, CAUSE_ECALL_M, CAUSE_ECALL_U, CAUSE_FETCH_ACCESS, CAUSE_ILLEGAL_INSTRUCTION,
    CAUSE_LOAD_ACCESS, CAUSE_MISALIGNED_FETCH, CAUSE_MISALIGNED_LOAD, CAUSE_MISALIGNED_STORE,
    CAUSE_STORE_ACCESS,
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
    /// The executed-instruction count reached the `limit` given to `run`.
    InstructionLimit,
    /// The `interrupt` flag given to `run` was set (polled about every 64k
    /// instructions); the hart state is consistent and `run` may be called again.
    Interrupted,
    /// Bare metal: an exception occurred while `mtvec` was 0, so there was
    /// no handler to deliver it to. `cause`/`tval` are what `mcause`/`mtval`
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
    /// A `wfi` that no modelled interrupt can end (the hart would sleep
    /// forever), or that the machine timer would end with an interrupt
    /// trap, which is not modelled.
    #[error("wfi at pc {pc:#x}: {reason}")]
    Wfi {
        /// PC of the `wfi`.
        pc: u64,
        /// Why the simulator cannot continue.
        reason: &'static str,
    },
}

impl Hart {
    /// Take an exception in machine mode (Privileged ISA §3.1.6.1, §3.1.7,
    /// §3.1.14–3.1.16): `mepc` = `pc`, `mcause`, `mtval`, MPIE = MIE,
    /// MIE = 0, MPP = the privilege trapped from, privilege = M, and `pc` =
    /// `mtvec.BASE` (exceptions always go to BASE, also in vectored mode).
    /// Clears the LR/SC reservation.
    pub fn take_trap(&mut self, exc: Exc, pc: u64) {
        self.mepc = pc & !1;
        self.mcause = exc.cause;
        self.mtval = if self.rv64 {
            exc.tval
        } else {
            exc.tval & 0xffff_ffff
        };
        self.mstatus_mpie = self.mstatus_mie;
        self.mstatus_mie = false;
        self.mstatus_mpp = match self.privilege {
            Privilege::Machine => 3,
            Privilege::User => 0,
        };
        self.privilege = Privilege::Machine;
        self.res_addr = u64::MAX;
        self.pc = self.mtvec & !3;
    }

    /// `mret` (Privileged ISA §3.3.2): MIE = MPIE, MPIE = 1, privilege =
    /// MPP (M, or U for any other value: S mode is not modelled), MPP = U;
    /// returns the new pc (`mepc` with bit 0 cleared).
    pub(crate) fn mret(&mut self) -> u64 {
        self.mstatus_mie = self.mstatus_mpie;
        self.mstatus_mpie = true;
        self.privilege = if self.mstatus_mpp == 3 {
            Privilege::Machine
        } else {
            Privilege::User
        };
        self.mstatus_mpp = 0;
        let pc = self.mepc & !1;
        if self.rv64 {
            pc
        } else {
            pc & 0xffff_ffff
        }
    }
}
