//! Linux user-mode system calls, following QEMU 7.2 `linux-user/syscall.c`
//! (`do_syscall1`) for a single-threaded static RISC-V process.
//!
//! Arguments come from `a0..a5`, the number from `a7`; the result (or
//! `-errno`) goes to `a0`. Guest pointers that do not map give `-EFAULT`,
//! as QEMU's `lock_user` failures do. Unknown numbers give `-ENOSYS` and one
//! line on stderr per distinct number.
//!
//! Served: `read`, `write`, `readv`, `writev`, `pread64`, `pwrite64`,
//! `openat`, `close`, `lseek` (riscv32: `_llseek`), `fstat`, `newfstatat`
//! (riscv64), `statx`, `readlinkat`, `faccessat`, `faccessat2`, `getcwd`,
//! `unlinkat`, `mkdirat`, `renameat`, `renameat2`, `ioctl` (`TCGETS`,
//! `TIOCGWINSZ`), `fcntl`, `brk`, `mmap` (riscv32: `mmap2`), `munmap`,
//! `mprotect`, `mremap`, `madvise`, `riscv_flush_icache`, `exit`,
//! `exit_group`, `set_tid_address`, `set_robust_list` and `rseq`
//! (`ENOSYS`, as QEMU 7.2), `clone` for threads and `futex` (module
//! `threads`), `clone3` (`ENOSYS`, as QEMU 7.2: glibc then uses `clone`),
//! `uname`,
//! `getrandom`, `clock_gettime` (+`64`), `clock_getres`, `gettimeofday`,
//! `nanosleep`/`clock_nanosleep` (in guest time), `sched_yield`,
//! `getpid`, `getppid`, `getuid`, `geteuid`, `getgid`, `getegid`, `gettid`,
//! `prlimit64`, `getrlimit`, `futex` (+`_time64`).
//!
//! Signals ([`signals`] has the rules, `signal_calls.rs` the calls):
//! `rt_sigaction`, `rt_sigprocmask`, `rt_sigpending`, `sigaltstack`,
//! `kill`/`tkill`/`tgkill` (to itself), `rt_sigreturn`, `rt_sigsuspend`,
//! `rt_sigtimedwait` (+`_time64`), `ppoll` (+`_time64`) with no file
//! descriptors (glibc's `pause`), `getitimer`/`setitimer` (`ITIMER_REAL`
//! in guest time).

pub(crate) mod fs;
pub(crate) mod misc;
pub(crate) mod mm;
mod signal_calls;
pub mod signals;
pub(crate) mod structs;
pub mod syscalls;
pub(crate) mod threads;
pub(crate) mod vma;

use std::collections::BTreeSet;
use std::fs::File;
use std::path::PathBuf;

use crate::{EnvError, EnvOutcome, Environment, GuestMemory};
use syscalls as nr;

/// A guest file descriptor.
#[derive(Debug)]
pub(crate) enum Fd {
    /// Host stdin/stdout/stderr (0, 1, 2).
    Std(i32),
    /// A host file opened by fwprof, with the canonical path it was opened by.
    File { file: File, path: PathBuf },
}

/// Linux process state.
#[derive(Debug)]
pub(crate) struct LinuxState {
    /// Mapped ranges and mmap placement.
    pub aspace: vma::AddressSpace,
    /// QEMU `target_brk`.
    pub target_brk: u64,
    /// QEMU `target_original_brk`.
    pub original_brk: u64,
    /// QEMU `brk_page`.
    pub brk_page: u64,
    /// Guest fd table (index = guest fd).
    pub fds: Vec<Option<Fd>>,
    /// Signal actions, masks, pending signals and timers.
    pub signals: signals::Signals,
    /// Canonical host path of the program (for `/proc/self/exe`).
    pub exe: Option<PathBuf>,
    /// State of the deterministic `getrandom` generator.
    pub rng: u64,
    /// Unsupported numbers already reported.
    pub warned: BTreeSet<u64>,
    /// The process's threads and futex waiters.
    pub threads: threads::Threads,
}

impl LinuxState {
    /// Fresh state; `brk` is the end of the highest segment (QEMU
    /// `target_set_brk(info->brk)`: both brks page-aligned up).
    pub fn new(rv64: bool, brk: u64, exe: Option<PathBuf>) -> Self {
        let b = vma::page_up(brk).unwrap_or(brk);
        LinuxState {
            aspace: vma::AddressSpace::new(rv64),
            target_brk: b,
            original_brk: b,
            brk_page: b,
            fds: vec![Some(Fd::Std(0)), Some(Fd::Std(1)), Some(Fd::Std(2))],
            signals: signals::Signals::default(),
            exe,
            rng: 0x6677_7072_6f66_0001,
            warned: BTreeSet::new(),
            threads: threads::Threads::new(misc::host_pid()),
        }
    }

    /// Lowest free guest fd.
    pub fn alloc_fd(&mut self, fd: Fd) -> i64 {
        for (i, slot) in self.fds.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = Some(fd);
                return i as i64;
            }
        }
        self.fds.push(Some(fd));
        (self.fds.len() - 1) as i64
    }
}

/// Decoded syscall arguments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Args {
    a: [u64; 6],
    rv64: bool,
    /// Guest time of the call, in nanoseconds.
    pub now: u64,
    /// The caller's `sp`.
    pub sp: u64,
}

impl Args {
    /// Argument `i` as an unsigned XLEN value (zero-extended on RV32).
    pub fn u(&self, i: usize) -> u64 {
        if self.rv64 {
            self.a[i]
        } else {
            self.a[i] & 0xffff_ffff
        }
    }
    /// Argument `i` as a signed XLEN value.
    pub fn i(&self, i: usize) -> i64 {
        if self.rv64 {
            self.a[i] as i64
        } else {
            i64::from(self.a[i] as u32 as i32)
        }
    }
    /// Argument `i` as a C `int` (fd, flags).
    pub fn int(&self, i: usize) -> i32 {
        self.a[i] as u32 as i32
    }
}

/// What a handler asks for.
pub(crate) enum Sys {
    /// Put this value (or `-errno`) in `a0`.
    Ret(i64),
    /// Terminate with this status.
    Exit(i32),
    /// Put this value in `a0`, then sleep this many nanoseconds.
    Sleep(i64, u64),
    /// `rt_sigreturn`: the simulator restores the registers.
    SigReturn,
}

/// `-errno` helper.
pub(crate) fn err(e: i32) -> Sys {
    Sys::Ret(-i64::from(e))
}

/// Serve one system call (see [`Environment::ecall`]) made at guest time
/// `now` (nanoseconds).
pub(crate) fn ecall(
    env: &mut Environment,
    regs: &mut [u64; 32],
    mem: &mut dyn GuestMemory,
    now: u64,
) -> Result<EnvOutcome, EnvError> {
    let rv64 = env.rv64;
    let number = regs[17];
    let args = Args {
        a: [regs[10], regs[11], regs[12], regs[13], regs[14], regs[15]],
        rv64,
        now,
        sp: regs[2],
    };
    let r = match number {
        nr::READ | nr::WRITE | nr::READV | nr::WRITEV | nr::PREAD64 | nr::PWRITE64 => {
            env.sys_rw(number, args, mem)?
        }
        nr::OPENAT => env.sys_openat(args, mem),
        nr::CLOSE => env.sys_close(args),
        nr::LSEEK => env.sys_lseek(args, mem),
        nr::FSTAT if rv64 => env.sys_fstat(args, mem),
        nr::NEWFSTATAT if rv64 => env.sys_newfstatat(args, mem),
        nr::STATX => env.sys_statx(args, mem),
        nr::READLINKAT => env.sys_readlinkat(args, mem),
        nr::FACCESSAT | nr::FACCESSAT2 => env.sys_faccessat(args, mem),
        nr::GETCWD => env.sys_getcwd(args, mem),
        nr::UNLINKAT => env.sys_unlinkat(args, mem),
        nr::MKDIRAT => env.sys_mkdirat(args, mem),
        nr::RENAMEAT | nr::RENAMEAT2 => env.sys_renameat(number, args, mem),
        nr::IOCTL => env.sys_ioctl(args, mem),
        nr::FCNTL => env.sys_fcntl(args),
        nr::BRK => env.sys_brk(args, mem),
        nr::MMAP => env.sys_mmap(args, mem),
        nr::MUNMAP => env.sys_munmap(args, mem),
        nr::MPROTECT => env.sys_mprotect(args, mem),
        nr::MREMAP => env.sys_mremap(args, mem),
        nr::MADVISE | nr::RISCV_FLUSH_ICACHE | nr::SCHED_YIELD => Sys::Ret(0),
        nr::EXIT_GROUP => Sys::Exit(args.int(0) & 0xff),
        nr::EXIT => env.sys_exit_thread(args.int(0) & 0xff, mem),
        nr::CLONE => env.sys_clone(args, mem),
        nr::CLONE3 => err(libc::ENOSYS),
        nr::SET_TID_ADDRESS => env.sys_set_tid_address(args),
        nr::GETTID => Sys::Ret(env.linux.threads.tid()),
        nr::GETPID => Sys::Ret(misc::host_pid()),
        nr::SET_ROBUST_LIST | nr::RSEQ => err(libc::ENOSYS),
        nr::RT_SIGACTION => env.sys_rt_sigaction(args, mem),
        nr::RT_SIGPROCMASK => env.sys_rt_sigprocmask(args, mem),
        nr::RT_SIGPENDING => env.sys_rt_sigpending(args, mem),
        nr::SIGALTSTACK => env.sys_sigaltstack(args, mem),
        nr::KILL | nr::TKILL | nr::TGKILL => env.sys_kill(number, args),
        nr::RT_SIGRETURN => Sys::SigReturn,
        nr::RT_SIGSUSPEND => env.sys_rt_sigsuspend(args, mem)?,
        nr::RT_SIGTIMEDWAIT if rv64 => env.sys_rt_sigtimedwait(args, mem)?,
        nr::RT_SIGTIMEDWAIT_TIME64 if !rv64 => env.sys_rt_sigtimedwait(args, mem)?,
        nr::PPOLL if rv64 && args.u(1) == 0 => env.sys_ppoll(args, mem)?,
        nr::PPOLL_TIME64 if !rv64 && args.u(1) == 0 => env.sys_ppoll(args, mem)?,
        nr::UNAME => env.sys_uname(mem, args),
        nr::GETRANDOM => env.sys_getrandom(args, mem)?,
        nr::CLOCK_GETTIME | nr::CLOCK_GETTIME64 | nr::CLOCK_GETRES => {
            misc::sys_clock_gettime(number, args, mem)
        }
        nr::GETTIMEOFDAY if rv64 => misc::sys_gettimeofday(args, mem),
        nr::NANOSLEEP => env.sys_nanosleep(args, mem),
        nr::CLOCK_NANOSLEEP | nr::CLOCK_NANOSLEEP_TIME64 => env.sys_clock_nanosleep(args, mem),
        nr::GETPPID => Sys::Ret(misc::host_ids()[4]),
        nr::GETUID => Sys::Ret(misc::host_ids()[0]),
        nr::GETEUID => Sys::Ret(misc::host_ids()[1]),
        nr::GETGID => Sys::Ret(misc::host_ids()[2]),
        nr::GETEGID => Sys::Ret(misc::host_ids()[3]),
        nr::PRLIMIT64 => misc::sys_prlimit64(args, mem),
        nr::GETRLIMIT => misc::sys_getrlimit(args, mem),
        nr::FUTEX | nr::FUTEX_TIME64 => env.sys_futex(args, mem),
        nr::SYSINFO => misc::sys_sysinfo(args, mem),
        nr::GETITIMER | nr::SETITIMER => env.sys_itimer(number, args, mem),
        other => env.unsupported_call(other),
    };
    let set = |regs: &mut [u64; 32], v: i64| {
        regs[10] = if rv64 {
            v as u64
        } else {
            i64::from(v as i32) as u64
        };
    };
    match r {
        Sys::Ret(v) => {
            set(regs, v);
            Ok(env.take_thread_outcome().unwrap_or(EnvOutcome::Continue))
        }
        Sys::Sleep(v, ns) => {
            set(regs, v);
            Ok(EnvOutcome::Sleep { ns })
        }
        Sys::Exit(code) => Ok(EnvOutcome::Exit(code)),
        Sys::SigReturn => Ok(EnvOutcome::SigReturn),
    }
}

impl Environment {
    /// A system call fwprof does not serve: `ENOSYS`, and one line on
    /// stderr the first time each number is seen.
    pub(crate) fn unsupported_call(&mut self, number: u64) -> Sys {
        if self.linux.warned.insert(number) {
            let name = nr::name(number, self.rv64).unwrap_or("not a Linux system call");
            self.console.diagnostic(&format!(
                "unsupported syscall {number} ({name}), returning ENOSYS"
            ));
        }
        err(libc::ENOSYS)
    }
}
