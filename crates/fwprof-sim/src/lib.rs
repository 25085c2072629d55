//! fwprof's RISC-V instruction-set simulator: one RV32GC or RV64GC hart,
//! guest memory, traps as values, a block cache and the run loop.
//!
//! Workflow: `fwprof_os::load` an ELF into a [`Memory`], build a
//! [`Simulator`] from the [`fwprof_os::LoadedProgram`] and
//! [`fwprof_os::Environment`] it returns plus a [`Hooks`] implementation
//! (a collector), then [`Simulator::run`] until it returns a [`StopReason`].
//! Instructions are decoded once into blocks with dense [`BlockId`]s;
//! collectors see block translations once and block executions by id.
//!
//! ```
//! use fwprof_os::{GuestMemory, Perm};
//! use fwprof_sim::{Memory, Simulator, StopReason};
//! use std::sync::atomic::AtomicBool;
//!
//! let mut mem = Memory::new();
//! mem.map(0x8000_0000, 0x1000, Perm { read: true, write: true, exec: true }).unwrap();
//! // addi a0, zero, 42 ; ecall  (bare metal, mtvec = 0: the ecall stops the run)
//! mem.write(0x8000_0000, &0x02a0_0513u32.to_le_bytes()).unwrap();
//! mem.write(0x8000_0004, &0x0000_0073u32.to_le_bytes()).unwrap();
//! let mut sim = Simulator::bare(mem, true, 0x8000_0000, ());
//! let stop = sim.run(u64::MAX, &AtomicBool::new(false)).unwrap();
//! assert!(matches!(stop, StopReason::Fault { cause: 11, pc: 0x8000_0004, .. }));
//! assert_eq!(sim.hart().x(10), 42);
//! assert_eq!(sim.executed(), 2);
//! ```
#![deny(missing_docs)]

mod bitmanip;
mod block;
mod csr;
mod exec;
mod exec_amo;
mod exec_fp;
mod forward;
mod hart;
mod hooks;
mod host_pages;
mod irq;
mod jit;
mod memory;
mod mmu;
mod pipelined;
mod pmp;
mod pmu;
mod sim;
mod trap;
mod uop;

/// Device models of QEMU 7.2's RISC-V `virt` board (16550A UART, SiFive PLIC,
/// `sifive_test` finisher) as pure state machines for the simulator's bus.
pub mod devices;

pub use block::{jump_kind, CacheStats, MAX_BLOCK_INSTS};
pub use csr::CsrIllegal;
pub use forward::Forward;
pub use hart::{Hart, Privilege, CANONICAL_NAN_S};
pub use hooks::{
    BlockId, CodeContext, CostModel, HartSwitch, Hooks, InlineCounts, Jump, JumpKind, Latency,
    SignalDelivery, SignalReturn, TrapInfo, TrapReturn,
};
pub use jit::{JitStats, Tier, DEFAULT_JIT_THRESHOLD};
pub use memory::Memory;
pub use pipelined::{
    branch_row, predictor_slot, Direction, EventLog, Front, InlineDcache, InlinePredictor, NoFront,
    Pipelined, PredictorTables, FRONT_WORD_BITS, MEM_WORD_COSTLY,
};
pub use pmu::{model_ev, EventCoding, PmuConfig, GENERIC_EXEC, MODEL_EVENTS};
pub use sim::{Simulator, UnmodelledCount, DEFAULT_QUANTUM};
pub use trap::{
    Exc, SimError, StopReason, CAUSE_BREAKPOINT, CAUSE_ECALL_M, CAUSE_ECALL_S, CAUSE_ECALL_U,
    CAUSE_FETCH_ACCESS, CAUSE_ILLEGAL_INSTRUCTION, CAUSE_LOAD_ACCESS, CAUSE_MISALIGNED_FETCH,
    CAUSE_MISALIGNED_LOAD, CAUSE_MISALIGNED_STORE, CAUSE_STORE_ACCESS,
};

#[cfg(test)]
mod test_asm;
#[cfg(test)]
mod tests_bitmanip;
#[cfg(test)]
mod tests_env;
#[cfg(test)]
mod tests_flush;
#[cfg(test)]
mod tests_fp;
#[cfg(test)]
mod tests_harts;
#[cfg(test)]
mod tests_int;
#[cfg(test)]
mod tests_signals;
#[cfg(test)]
mod tests_sys;
#[cfg(test)]
mod tests_vm;
#[cfg(test)]
mod tests_walk;
