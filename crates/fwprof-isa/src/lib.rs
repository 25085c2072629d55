//! RISC-V RV32GC/RV64GC instruction decoding for fwprof.
#![deny(missing_docs)]

mod inst;
pub use inst::{Inst, Op, Xlen};
