//! Guest operating environments: what a RISC-V program sees outside its hart.
//!
//! * [`load`] reads an ELF executable into a [`GuestMemory`], chooses the
//!   target (bare metal or Linux user mode) and, for Linux, builds the
//!   initial stack exactly as QEMU 7.2 `linux-user` does.
//! * [`Semihosting`] serves RISC-V semihosting calls (the
//!   `slli x0,x0,0x1f; ebreak; srai x0,x0,7` sequence).
//! * [`Linux`] serves Linux system calls made by `ecall`.
//! * [`Sandbox`] confines guest file access to directories the user allows.
//!
//! The crate does not know the simulator: it sees guest memory only through
//! the [`GuestMemory`] trait and registers as a plain `[u64; 32]` array.
#![deny(missing_docs)]

mod api;
pub use api::*;
