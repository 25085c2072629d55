//! Crate tests that need real ELF files (built here with the RISC-V cross
//! compilers) and the in-memory guest memory.

mod fixtures;
mod linux_calls;
mod load;
mod props;
mod semihosting;
mod signals;
mod stack;
