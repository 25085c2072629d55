//! Guest operating environments: what a RISC-V program sees outside its hart.
//!
//! * [`load`] reads an ELF executable into a [`GuestMemory`], chooses the
//!   target (bare metal or Linux user mode) and, for Linux, builds the
//!   initial stack exactly as QEMU 7.2 `linux-user` does.
//! * [`Environment::semihost`] serves RISC-V semihosting calls (the
//!   `slli x0,x0,0x1f; ebreak; srai x0,x0,7` sequence).
//! * [`Environment::ecall`] serves Linux system calls made by `ecall`.
//! * [`Sandbox`] confines guest file access to directories the user allows.
//!
//! The crate does not know the simulator: it sees guest memory only through
//! the [`GuestMemory`] trait and registers as a plain `[u64; 32]` array.
#![deny(missing_docs)]

mod api;
pub use api::*;

/// The loaded program: where to start and in what state.
#[derive(Clone, Debug)]
pub struct LoadedProgram {
    /// Target chosen (detected or forced).
    pub target: Target,
    /// True for ELFCLASS64 (RV64), false for RV32.
    pub rv64: bool,
    /// Entry point (ELF `e_entry`).
    pub entry: u64,
    /// Initial `sp` (Linux: the initial stack built by [`load`]; bare metal: 0,
    /// the runtime sets its own).
    pub sp: u64,
    /// Other initial integer registers as QEMU sets them (index = register number).
    pub regs: [u64; 32],
}

/// Errors loading a program.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Not an ELF file, truncated, or otherwise malformed; the message names the defect.
    #[error("{0}")]
    Malformed(String),
    /// A well-formed ELF fwprof cannot run (wrong machine, big-endian, ...).
    #[error("{0}")]
    Unsupported(String),
    /// A segment does not fit the guest memory map.
    #[error("{0}")]
    Memory(String),
}

/// Load an ELF executable image into `mem` and prepare its initial state.
///
/// Bare metal: maps every PT_LOAD segment and the RAM of `cfg.ram`.
/// Linux: maps PT_LOAD segments, sets up `brk` and the initial stack (argv,
/// envp, auxv in QEMU 7.2's order and alignment).
///
/// # Errors
/// [`LoadError`] naming the defect; never panics on arbitrary bytes.
pub fn load(
    elf: &[u8],
    cfg: &RunConfig,
    mem: &mut dyn GuestMemory,
) -> Result<(LoadedProgram, Environment), LoadError> {
    let _ = (elf, cfg, mem);
    Err(LoadError::Unsupported("loader not written yet".into()))
}

/// The guest environment state for one run (open files, brk, sandbox, ...).
#[derive(Debug)]
pub struct Environment {
    _private: (),
}

impl Environment {
    /// Serve a semihosting call: `op` is `a0`, `param` is `a1`; the result
    /// goes in `regs[10]` (a0). `instret` (instructions retired so far)
    /// drives the deterministic clock (10 MHz of instructions).
    ///
    /// # Errors
    /// [`EnvError`] only for failures that must stop the run.
    pub fn semihost(
        &mut self,
        regs: &mut [u64; 32],
        mem: &mut dyn GuestMemory,
        instret: u64,
    ) -> Result<EnvOutcome, EnvError> {
        let _ = (regs, mem, instret);
        Ok(EnvOutcome::Exit(1))
    }

    /// Serve a Linux system call: number in `a7`, arguments in `a0..a5`,
    /// result (or `-errno`) written to `a0`.
    ///
    /// # Errors
    /// [`EnvError`] only for failures that must stop the run.
    pub fn ecall(
        &mut self,
        regs: &mut [u64; 32],
        mem: &mut dyn GuestMemory,
        instret: u64,
    ) -> Result<EnvOutcome, EnvError> {
        let _ = (regs, mem, instret);
        Ok(EnvOutcome::Exit(1))
    }

    /// The target this environment serves.
    pub fn target(&self) -> Target {
        Target::BareMetal
    }
}
