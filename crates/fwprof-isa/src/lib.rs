//! RISC-V RV32GC/RV64GC instruction decoding for fwprof, with the
//! bit-manipulation extensions Zba, Zbb, Zbc and Zbs.
//!
//! [`decode`] turns one encoding (32-bit, or a 16-bit RVC parcel that it
//! expands) into a small `Copy` [`Inst`]; the simulator decodes each
//! instruction once at translation time. [`disasm`] prints an `Inst` either
//! exactly as `objdump -d -M no-aliases` does ([`Style::NoAliases`]) or with
//! the assembler's pseudo-instructions ([`Style::Pseudo`]). [`Op::class`]
//! groups operations for statistics and timing models; [`Op::atomic`]
//! describes the A extension's memory accesses. [`trap_cause_name`] and
//! [`signal_for_cause`] own the trap causes (Privileged ISA Table 3.6) and
//! the Linux signal of each.
//!
//! ```
//! use fwprof_isa::{decode, disasm, InstClass, Op, Style, Xlen};
//!
//! let inst = decode(0x1141, Xlen::Rv64); // c.addi sp,-16
//! assert_eq!((inst.op, inst.len, inst.imm), (Op::Addi, 2, -16));
//! assert_eq!(disasm(&inst, 0, Xlen::Rv64, Style::NoAliases), "c.addi sp,-16");
//! assert_eq!(disasm(&inst, 0, Xlen::Rv64, Style::Pseudo), "addi sp,sp,-16");
//! assert_eq!(inst.op.class(), InstClass::Alu);
//! ```
#![deny(missing_docs)]

mod atomic;
mod class;
mod csr_names;
mod decode;
mod decode_rvc;
mod disasm;
mod disasm_pseudo;
mod disasm_rvc;
mod inst;
mod trap_cause;

pub use atomic::{Atomic, AtomicKind};
pub use class::{rv32_ops, rv64_ops, InstClass};
pub use csr_names::csr_name;
pub use decode::{decode, inst_len};
pub use disasm::{disasm, Style};
pub use inst::{Inst, Op, Xlen};
pub use trap_cause::{
    cause_name, signal_context_name, signal_for_cause, signal_name, trap_cause_name,
    trap_context_name, CAUSE_BREAKPOINT, CAUSE_ECALL_M, CAUSE_ECALL_S, CAUSE_ECALL_U,
    CAUSE_FETCH_ACCESS, CAUSE_FETCH_PAGE_FAULT, CAUSE_ILLEGAL_INSTRUCTION, CAUSE_LOAD_ACCESS,
    CAUSE_LOAD_PAGE_FAULT, CAUSE_MISALIGNED_FETCH, CAUSE_MISALIGNED_LOAD, CAUSE_MISALIGNED_STORE,
    CAUSE_STORE_ACCESS, CAUSE_STORE_PAGE_FAULT,
};
