//! fwprof's RISC-V instruction-set simulator.
#![deny(missing_docs)]

mod hooks;
pub use hooks::{BlockId, Hooks, JumpKind, TrapInfo};
