//! RISC-V Linux system call numbers (`include/uapi/asm-generic/unistd.h`,
//! the table both riscv64 and riscv32 use; riscv32 has only the 64-bit time
//! variants such as `clock_gettime64` = 403) and their names for messages.

#![allow(missing_docs)]

pub const GETCWD: u64 = 17;
pub const FCNTL: u64 = 25;
pub const IOCTL: u64 = 29;
pub const MKDIRAT: u64 = 34;
pub const PPOLL: u64 = 73;
pub const UNLINKAT: u64 = 35;
pub const RENAMEAT: u64 = 38;
pub const FACCESSAT: u64 = 48;
pub const OPENAT: u64 = 56;
pub const CLOSE: u64 = 57;
pub const LSEEK: u64 = 62;
pub const READ: u64 = 63;
pub const WRITE: u64 = 64;
pub const READV: u64 = 65;
pub const WRITEV: u64 = 66;
pub const PREAD64: u64 = 67;
pub const PWRITE64: u64 = 68;
pub const READLINKAT: u64 = 78;
pub const NEWFSTATAT: u64 = 79;
pub const FSTAT: u64 = 80;
pub const EXIT: u64 = 93;
pub const CLONE: u64 = 220;
pub const CLONE3: u64 = 435;
pub const EXIT_GROUP: u64 = 94;
pub const SET_TID_ADDRESS: u64 = 96;
pub const FUTEX: u64 = 98;
pub const SET_ROBUST_LIST: u64 = 99;
pub const NANOSLEEP: u64 = 101;
pub const CLOCK_GETTIME: u64 = 113;
pub const CLOCK_GETRES: u64 = 114;
pub const CLOCK_NANOSLEEP: u64 = 115;
pub const SCHED_YIELD: u64 = 124;
pub const KILL: u64 = 129;
pub const TKILL: u64 = 130;
pub const TGKILL: u64 = 131;
pub const SIGALTSTACK: u64 = 132;
pub const RT_SIGACTION: u64 = 134;
pub const RT_SIGPROCMASK: u64 = 135;
pub const RT_SIGPENDING: u64 = 136;
pub const RT_SIGTIMEDWAIT: u64 = 137;
pub const RT_SIGRETURN: u64 = 139;
pub const RT_SIGSUSPEND: u64 = 133;
pub const UNAME: u64 = 160;
pub const GETRLIMIT: u64 = 163;
pub const GETITIMER: u64 = 102;
pub const SETITIMER: u64 = 103;
pub const SYSINFO: u64 = 179;
pub const GETTIMEOFDAY: u64 = 169;
pub const GETPID: u64 = 172;
pub const GETPPID: u64 = 173;
pub const GETUID: u64 = 174;
pub const GETEUID: u64 = 175;
pub const GETGID: u64 = 176;
pub const GETEGID: u64 = 177;
pub const GETTID: u64 = 178;
pub const BRK: u64 = 214;
pub const MUNMAP: u64 = 215;
pub const MREMAP: u64 = 216;
pub const MMAP: u64 = 222;
pub const MPROTECT: u64 = 226;
pub const MADVISE: u64 = 233;
pub const RISCV_FLUSH_ICACHE: u64 = 259;
pub const PRLIMIT64: u64 = 261;
pub const RENAMEAT2: u64 = 276;
pub const GETRANDOM: u64 = 278;
pub const STATX: u64 = 291;
pub const RSEQ: u64 = 293;
pub const CLOCK_GETTIME64: u64 = 403;
pub const CLOCK_NANOSLEEP_TIME64: u64 = 407;
pub const PPOLL_TIME64: u64 = 414;
pub const RT_SIGTIMEDWAIT_TIME64: u64 = 421;
pub const FUTEX_TIME64: u64 = 422;
pub const FACCESSAT2: u64 = 439;

/// Name of system call `nr` in the RISC-V Linux numbering (asm-generic,
/// with the 32-bit time64 calls on RV32), from the `syscall-numbers`
/// tables generated from the kernel headers; `None` for a number Linux
/// does not define.
pub fn name(nr: u64, rv64: bool) -> Option<&'static str> {
    let nr = std::ffi::c_long::try_from(nr).ok()?;
    if rv64 {
        syscall_numbers::riscv64::sys_call_name(nr)
    } else {
        syscall_numbers::riscv32::sys_call_name(nr)
    }
}

#[cfg(test)]
mod tests {
    use super::name;

    #[test]
    fn every_linux_system_call_is_named() {
        // The three numbers an unknown-call warning printed bare before.
        assert_eq!(name(117, true), Some("ptrace"));
        assert_eq!(name(40, true), Some("mount"));
        assert_eq!(name(142, true), Some("reboot"));
        assert_eq!(name(222, true), Some("mmap"));
        // The time64 calls exist on RV32 only.
        assert_eq!(name(403, false), Some("clock_gettime64"));
        assert_eq!(name(403, true), None);
        assert_eq!(name(100_000, true), None);
        assert_eq!(name(u64::MAX, false), None);
    }
}
