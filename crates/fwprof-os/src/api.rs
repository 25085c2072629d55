//! The contract between the simulator and the guest environment.
//! (Filled in by the os implementation; the signatures here are fixed.)

/// Access permissions of a guest memory mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Perm {
    /// Readable.
    pub read: bool,
    /// Writable.
    pub write: bool,
    /// Executable.
    pub exec: bool,
}

/// A guest address that is not mapped (or not with the needed permission).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("guest memory fault at {addr:#x}")]
pub struct MemFault {
    /// First faulting guest address.
    pub addr: u64,
}

/// Guest memory as the environment sees it. Implemented by the simulator's
/// memory. Addresses are guest virtual addresses; lengths are bytes.
pub trait GuestMemory {
    /// Copy `buf.len()` bytes from guest address `addr`.
    ///
    /// # Errors
    /// [`MemFault`] if any byte is not mapped readable.
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault>;
    /// Copy `data` to guest address `addr`.
    ///
    /// # Errors
    /// [`MemFault`] if any byte is not mapped writable.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault>;
    /// Map `len` zero-filled bytes at `addr` (page-aligned for Linux; any
    /// alignment for bare-metal RAM), replacing whatever was mapped there.
    ///
    /// # Errors
    /// [`MemFault`] if the range wraps around the address space.
    fn map(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault>;
    /// Unmap `[addr, addr+len)`; unmapped parts are ignored.
    fn unmap(&mut self, addr: u64, len: u64);
    /// Change the permissions of `[addr, addr+len)`.
    ///
    /// # Errors
    /// [`MemFault`] if part of the range is unmapped.
    fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MemFault>;
    /// True if any byte of `[addr, addr+len)` is mapped.
    fn is_mapped(&self, addr: u64, len: u64) -> bool;
    /// The guest memory limit as `(bytes mapped now, most bytes that may be
    /// mapped)`, or `None` when mapping is unbounded (the default). A
    /// [`GuestMemory::map`] that would take the first past the second fails.
    fn memory_use(&self) -> Option<(u64, u64)> {
        None
    }
}

/// What the environment asks the simulator to do after a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvOutcome {
    /// Resume at the next instruction (result, if any, already in `a0`).
    Continue,
    /// The guest asked to stop with this process exit status (0..=255 for
    /// Linux `exit_group`; QEMU's mapping for semihosting exits).
    Exit(i32),
    /// Resume at the next instruction after the program slept for `ns`
    /// nanoseconds of guest time (`nanosleep`, `clock_nanosleep`), during
    /// which it executes nothing. The result is already in `a0`.
    Sleep {
        /// Guest nanoseconds asleep (0 for a deadline already past).
        ns: u64,
    },
    /// Linux `clone` of a thread: the simulator starts thread number
    /// `thread` as a copy of the calling one resuming after the `ecall`,
    /// with `a0` = 0, `sp` = `stack` (unless 0) and `tp` = `tls` (if
    /// given). The caller's `a0` (the new thread's id) is already written.
    NewThread {
        /// The new thread's number (the next after those running).
        thread: usize,
        /// Its stack pointer (0: the caller's).
        stack: u64,
        /// Its thread pointer, with `CLONE_SETTLS`.
        tls: Option<u64>,
    },
    /// The calling thread waits (a `futex` wait) until another thread
    /// wakes it or `timeout_ns` of guest time pass; the simulator runs the
    /// others meanwhile and gives it the result
    /// ([`crate::Environment::switch_thread`]) when it runs again.
    Wait {
        /// Guest nanoseconds until it times out, if it can.
        timeout_ns: Option<u64>,
    },
    /// The calling thread has exited (`exit` with other threads alive).
    ThreadExit,
    /// Linux `rt_sigreturn`: the simulator hands the thread's registers to
    /// [`crate::Environment::sigreturn`], which restores them from the
    /// signal frame. Nothing was written to `a0`.
    SigReturn,
}

/// A Linux thread's user-visible registers: what a signal frame saves and
/// `rt_sigreturn` restores (QEMU 7.2 `linux-user/riscv/signal.c`,
/// `target_sigcontext`: `pc`, `x1`–`x31`, `f0`–`f31`, `fcsr`). On RV32
/// the integer registers hold XLEN-bit values (the environment writes them
/// zero-extended; the simulator sign-extends them back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserContext {
    /// Program counter: where the thread resumes.
    pub pc: u64,
    /// Integer registers (`x[0]` is ignored).
    pub x: [u64; 32],
    /// Floating-point registers as raw bits (singles NaN-boxed).
    pub f: [u64; 32],
    /// `fcsr`: `frm` in bits 7:5, `fflags` in bits 4:0.
    pub fcsr: u32,
}

/// A synchronous fault of a Linux thread, as the simulator raises it
/// (see [`crate::Environment::raise_fault`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The signal the exception maps to (`fwprof_isa::signal_for_cause`):
    /// SIGSEGV, SIGBUS, SIGILL or SIGTRAP.
    pub signo: i32,
    /// The faulting instruction's address.
    pub pc: u64,
    /// The faulting data address (`mtval` of a memory fault; ignored for
    /// SIGILL and SIGTRAP, whose `si_addr` is `pc`).
    pub addr: u64,
}

/// A signal handler the environment has just started: its frame is on the
/// stack and the [`UserContext`] given to
/// [`crate::Environment::deliver_signal`] now runs the handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandlerStart {
    /// The signal.
    pub signo: i32,
    /// The handler's address (its first instruction).
    pub handler: u64,
    /// The interrupted pc (saved in the frame; `rt_sigreturn` resumes there).
    pub pc: u64,
    /// The interrupted `sp`.
    pub sp: u64,
    /// The frame's address: the handler's `sp`.
    pub frame: u64,
    /// `[base, end)` of the alternate signal stack when the frame is on it
    /// (`SA_ONSTACK`), else `None` (the frame is below the interrupted `sp`).
    pub alt_stack: Option<(u64, u64)>,
}

/// What [`crate::Environment::deliver_signal`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalOutcome {
    /// No signal can be delivered now.
    Idle,
    /// A handler was started.
    Handler(HandlerStart),
    /// The signal's default action ends the process.
    Killed {
        /// The signal that kills it.
        signo: i32,
        /// Where the signal came from.
        cause: KillCause,
    },
}

/// Why a process is killed (see [`SignalOutcome::Killed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KillCause {
    /// The synchronous fault last raised with
    /// [`crate::Environment::raise_fault`].
    Fault,
    /// A signal frame could not be written (delivery) or read
    /// (`rt_sigreturn`) at `addr`: the kernel forces SIGSEGV.
    Frame {
        /// The frame's address.
        addr: u64,
        /// True when writing it (delivery), false when reading it.
        write: bool,
    },
    /// A signal sent to the process (`kill`, `raise`, a timer, SIGPIPE).
    Signal,
}

/// An error of the environment itself (not a guest-visible failure, which is
/// returned to the guest as an error code). Stops the run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnvError {
    /// A semihosting call or system call pointed at unmapped guest memory
    /// where the kernel/QEMU would kill the program.
    #[error("{call}: bad guest pointer {addr:#x}")]
    BadPointer {
        /// Name of the call, e.g. `SYS_WRITE` or `write`.
        call: &'static str,
        /// The faulting guest address.
        addr: u64,
    },
    /// Host I/O failed in a way that cannot be reported to the guest.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The host could not allocate a buffer whose size the guest chose
    /// (e.g. for a `read`); the run stops rather than abort the process.
    #[error("out of host memory: cannot allocate {bytes} bytes for {what}")]
    HostMemory {
        /// What the buffer was for, e.g. `read buffer`.
        what: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
    /// The guest asked for something fwprof does not serve and that cannot
    /// be answered with an error code (e.g. an unknown semihosting
    /// operation, on which QEMU 7.2 aborts).
    #[error("{0}")]
    Unsupported(String),
    /// A Linux thread waits for a signal (`pause`, `sigsuspend`,
    /// `rt_sigtimedwait` without a timeout) that can never come: no timer
    /// is armed that could raise one it waits for. The kernel would let it
    /// sleep forever.
    #[error("{call} waits for a signal that can never come ({reason}): it would wait forever")]
    WaitForever {
        /// The system call, e.g. `rt_sigsuspend`.
        call: &'static str,
        /// Why nothing can come, e.g. `no timer is armed`.
        reason: String,
    },
}

/// Which environment the program runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Bare metal, machine mode, RISC-V semihosting, on the machine of
    /// [`MachineConfig`] (QEMU `virt`'s memory map unless a board file
    /// gives another).
    BareMetal,
    /// Linux user mode (static executables), QEMU 7.2 `linux-user` behaviour.
    Linux,
}

/// Options the user gives for a run; shared by both targets.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The program path as the user gave it (used for `argv[0]`, GET_CMDLINE,
    /// AT_EXECFN, and `/proc/self/exe` after canonicalisation).
    pub program: std::path::PathBuf,
    /// Arguments after the program.
    pub args: Vec<String>,
    /// Guest environment, in order (`KEY=VALUE`), already built from the
    /// host environment, `-E`, `-U` and `--clear-env`.
    pub env: Vec<String>,
    /// Force a target instead of detecting it from the ELF.
    pub target: Option<Target>,
    /// Bare-metal RAM: base and size in bytes (default 0x8000_0000, 128
    /// MiB); unused on a board with memory regions (`Board::memory`).
    pub ram: (u64, u64),
    /// File-access confinement.
    pub sandbox: Sandbox,
    /// The machine (bare metal only): its devices, firmware and boot
    /// arguments. `Default` is fwprof's bare-metal machine.
    pub machine: MachineConfig,
}

/// The bare-metal machine a program runs on and how it boots (QEMU's
/// `-M`, `-smp`, `-bios`, `-kernel`, `-append`).
#[derive(Clone, Debug)]
pub struct MachineConfig {
    /// Devices and the rule for unmodelled addresses ([`crate::Board::bare`]
    /// unless `--machine` chose another).
    pub board: crate::Board,
    /// Number of harts, 1 to [`MAX_HARTS`] (`--harts`, QEMU's `-smp`):
    /// every hart starts at the reset address with the same registers
    /// and its own `mhartid`; the device tree lists them all.
    pub harts: u32,
    /// M-mode firmware loaded at its ELF addresses and started by the reset
    /// ROM (`--bios`); the program is then the kernel it hands over to.
    pub firmware: Option<Firmware>,
    /// `/chosen/bootargs` of the device tree (`--append`). Semihosting's
    /// `SYS_GET_CMDLINE` keeps answering with the program's arguments.
    pub bootargs: Option<String>,
    /// Images written into memory after the program (`--load`), in order:
    /// each byte must land in the machine's memory (a board's regions;
    /// on `bare` and `virt`, RAM or the program's segments).
    pub loads: Vec<crate::LoadImage>,
    /// The next stage's address for the reset ROM's `fw_dynamic_info`
    /// when it is not the program's entry (a raw kernel loaded from
    /// `loads`, QEMU's `-kernel` with a raw image).
    pub kernel_entry: Option<u64>,
}

impl Default for MachineConfig {
    /// fwprof's bare-metal machine with one hart, no firmware, no boot
    /// arguments, no images.
    fn default() -> MachineConfig {
        MachineConfig {
            board: crate::Board::default(),
            harts: 1,
            firmware: None,
            bootargs: None,
            loads: Vec::new(),
            kernel_entry: None,
        }
    }
}

/// Most harts a machine may have (`--harts`): enough for the multi-core
/// platforms fwprof's users profile, and few enough that the CLINT's
/// `msip` and `mtimecmp` windows and the PLIC's contexts of QEMU `virt`
/// hold them all.
pub const MAX_HARTS: u32 = 64;

/// A firmware image given with `--bios`.
#[derive(Clone, Debug)]
pub struct Firmware {
    /// The path as the user gave it (for messages).
    pub path: std::path::PathBuf,
    /// The ELF file's contents.
    pub elf: Vec<u8>,
}

/// Directories the guest may read and write. Paths are canonicalised when
/// added; a guest path is allowed only if its canonical form (symbolic links
/// resolved) lies under one of them.
#[derive(Clone, Debug, Default)]
pub struct Sandbox {
    /// Readable trees (`--allow-read`, default the current directory).
    pub read: Vec<std::path::PathBuf>,
    /// Writable trees (`--allow-write`; none by default).
    pub write: Vec<std::path::PathBuf>,
}
