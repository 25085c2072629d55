//! Process, signal, time and identity system calls (QEMU 7.2
//! `linux-user/syscall.c` and `signal.c` behaviour for a single thread).

use super::structs::{timespec_bytes, utsname_bytes};
use super::syscalls as nr;
use super::{err, Args, Sys};
use crate::guest::{read_u32, read_u64, read_word, word_size, write_word};
use crate::{Environment, GuestMemory};

/// `SS_DISABLE`: no alternate signal stack.
pub const SS_DISABLE: u64 = 2;
/// `SS_ONSTACK`.
const SS_ONSTACK: u64 = 1;
/// `MINSIGSTKSZ` for RISC-V.
const MINSIGSTKSZ: u64 = 2048;
/// `SIGKILL`, `SIGSTOP`.
const SIGKILL: u64 = 9;
const SIGSTOP: u64 = 19;
/// `SIG_IGN` handler value.
const SIG_IGN: u64 = 1;

/// Host process id (QEMU passes the host's).
pub fn host_pid() -> i64 {
    i64::from(std::process::id())
}

/// Host `[uid, euid, gid, egid, ppid]`.
pub fn host_ids() -> [i64; 5] {
    // SAFETY: these calls cannot fail.
    unsafe {
        [
            i64::from(libc::getuid()),
            i64::from(libc::geteuid()),
            i64::from(libc::getgid()),
            i64::from(libc::getegid()),
            i64::from(libc::getppid()),
        ]
    }
}

fn write_or_fault(mem: &mut dyn GuestMemory, addr: u64, b: &[u8]) -> Sys {
    match mem.write(addr, b) {
        Ok(()) => Sys::Ret(0),
        Err(_) => err(libc::EFAULT),
    }
}

impl Environment {
    /// `rt_sigaction(sig, act, oldact, sigsetsize)`: records the action
    /// (`struct sigaction` on RISC-V: handler, flags, 8-byte mask; no
    /// restorer) and returns the previous one (zero initially).
    pub(crate) fn sys_rt_sigaction(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (sig, act, old, setsize) = (a.u(0), a.u(1), a.u(2), a.u(3));
        if setsize != 8 {
            return err(libc::EINVAL);
        }
        if sig == 0 || sig > 64 || (act != 0 && (sig == SIGKILL || sig == SIGSTOP)) {
            return err(libc::EINVAL);
        }
        let rv64 = a.rv64;
        let n = word_size(rv64);
        let new = if act != 0 {
            let r = (|| -> Result<[u64; 3], crate::MemFault> {
                let h = crate::guest::read_word(mem, act, rv64)?;
                let f = crate::guest::read_word(mem, act + n, rv64)?;
                let m = read_u64(mem, act + 2 * n)?;
                Ok([h, f, m])
            })();
            match r {
                Ok(v) => Some(v),
                Err(_) => return err(libc::EFAULT),
            }
        } else {
            None
        };
        let prev = self.linux.sigactions[sig as usize];
        if old != 0 {
            let r = write_word(mem, old, prev[0], rv64)
                .and_then(|()| write_word(mem, old + n, prev[1], rv64))
                .and_then(|()| mem.write(old + 2 * n, &prev[2].to_le_bytes()));
            if r.is_err() {
                return err(libc::EFAULT);
            }
        }
        if let Some(v) = new {
            self.linux.sigactions[sig as usize] = v;
        }
        Sys::Ret(0)
    }

    /// `rt_sigprocmask(how, set, oldset, sigsetsize)`; SIGKILL and SIGSTOP
    /// cannot be blocked.
    pub(crate) fn sys_rt_sigprocmask(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (how, set, old, setsize) = (a.u(0), a.u(1), a.u(2), a.u(3));
        if setsize != 8 {
            return err(libc::EINVAL);
        }
        let prev = self.linux.sigmask;
        if set != 0 {
            let Ok(s) = read_u64(mem, set) else {
                return err(libc::EFAULT);
            };
            let next = match how {
                0 => prev | s,  // SIG_BLOCK
                1 => prev & !s, // SIG_UNBLOCK
                2 => s,         // SIG_SETMASK
                _ => return err(libc::EINVAL),
            };
            self.linux.sigmask = next & !((1 << (SIGKILL - 1)) | (1 << (SIGSTOP - 1)));
        }
        if old != 0 && mem.write(old, &prev.to_le_bytes()).is_err() {
            return err(libc::EFAULT);
        }
        Sys::Ret(0)
    }

    /// `sigaltstack(ss, old_ss)`: `stack_t` = sp (XLEN), flags (int),
    /// size (XLEN), naturally aligned.
    pub(crate) fn sys_sigaltstack(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (ss, old) = (a.u(0), a.u(1));
        let rv64 = a.rv64;
        let n = word_size(rv64);
        let prev = self.linux.altstack;
        if ss != 0 {
            let r = (|| -> Result<[u64; 3], crate::MemFault> {
                Ok([
                    crate::guest::read_word(mem, ss, rv64)?,
                    u64::from(read_u32(mem, ss + n)?),
                    crate::guest::read_word(mem, ss + 2 * n, rv64)?,
                ])
            })();
            let Ok(v) = r else {
                return err(libc::EFAULT);
            };
            if v[1] & !(SS_DISABLE | SS_ONSTACK | (1 << 31)) != 0 {
                return err(libc::EINVAL);
            }
            if v[1] & SS_DISABLE == 0 && v[2] < MINSIGSTKSZ {
                return err(libc::ENOMEM);
            }
            self.linux.altstack = if v[1] & SS_DISABLE != 0 {
                [0, SS_DISABLE, 0]
            } else {
                v
            };
        }
        if old != 0 {
            let r = write_word(mem, old, prev[0], rv64)
                .and_then(|()| mem.write(old + n, &(prev[1] as u32).to_le_bytes()))
                .and_then(|()| write_word(mem, old + 2 * n, prev[2], rv64));
            if r.is_err() {
                return err(libc::EFAULT);
            }
        }
        Sys::Ret(0)
    }

    /// `kill`/`tkill`/`tgkill` aimed at the process itself: a signal whose
    /// action is default and fatal ends the run with status 128 + signal
    /// (what a shell reports for QEMU dying of it); ignored or caught
    /// signals return 0 (handlers are not run). Other targets: `EPERM`.
    pub(crate) fn sys_kill(&mut self, number: u64, a: Args) -> Sys {
        let (pid, sig) = match number {
            super::syscalls::TGKILL => (a.i(1), a.u(2)),
            _ => (a.i(0), a.u(1)),
        };
        if sig > 64 {
            return err(libc::EINVAL);
        }
        if pid != host_pid() && pid != 0 {
            return err(libc::EPERM);
        }
        if sig == 0 {
            return Sys::Ret(0);
        }
        let handler = self.linux.sigactions[sig as usize][0];
        // Default-ignored signals: SIGCHLD, SIGURG, SIGWINCH, SIGCONT.
        let default_ignored = matches!(sig, 17 | 23 | 28 | 18);
        if sig == SIGKILL || (handler == 0 && !default_ignored) {
            return Sys::Exit(128 + sig as i32);
        }
        let _ = SIG_IGN;
        Sys::Ret(0)
    }

    /// The signal a write to a pipe without readers raises (Linux
    /// `pipe_write` sends SIGPIPE and the call fails with `EPIPE`): when
    /// the guest neither ignores, catches nor blocks SIGPIPE, its default
    /// action ends the run with status 128 + 13; otherwise `None` and the
    /// write returns `EPIPE` (handlers are not run, as for `kill`).
    pub(crate) fn sigpipe(&self) -> Option<Sys> {
        const SIGPIPE: u64 = 13;
        let handler = self.linux.sigactions[SIGPIPE as usize][0];
        let blocked = self.linux.sigmask & (1 << (SIGPIPE - 1)) != 0;
        (handler == 0 && !blocked).then_some(Sys::Exit(128 + SIGPIPE as i32))
    }

    /// `uname`: host values with machine `riscv64`/`riscv32` (QEMU 7.2
    /// `cpu_to_uname_machine`; the release is the host's, no `-r`).
    pub(crate) fn sys_uname(&mut self, mem: &mut dyn GuestMemory, a: Args) -> Sys {
        // SAFETY: zeroed utsname is valid; uname fills it.
        let mut u: libc::utsname = unsafe { std::mem::zeroed() };
        unsafe { libc::uname(&mut u) };
        let field = |f: &[libc::c_char]| -> Vec<u8> {
            f.iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect()
        };
        let machine: &[u8] = if self.rv64 { b"riscv64" } else { b"riscv32" };
        let b = utsname_bytes([
            &field(&u.sysname),
            &field(&u.nodename),
            &field(&u.release),
            &field(&u.version),
            machine,
            &field(&u.domainname),
        ]);
        write_or_fault(mem, a.u(0), &b)
    }

    /// `getrandom(buf, len, flags)`: deterministic bytes (splitmix64 stream).
    pub(crate) fn sys_getrandom(
        &mut self,
        a: Args,
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, crate::EnvError> {
        let len = a.u(1).min(1 << 25) as usize;
        let mut out = crate::guest::try_zeroed(len + 8, "getrandom buffer")?;
        out.clear();
        while out.len() < len {
            self.linux.rng = self.linux.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.linux.rng;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
        }
        out.truncate(len);
        Ok(match mem.write(a.u(0), &out) {
            Ok(()) => Sys::Ret(len as i64),
            Err(_) => err(libc::EFAULT),
        })
    }
}

/// `clock_gettime`, `clock_gettime64` (riscv32) and `clock_getres` from the
/// host clock; the guest `struct timespec` has two 64-bit fields.
pub(crate) fn sys_clock_gettime(number: u64, a: Args, mem: &mut dyn GuestMemory) -> Sys {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid timespec out-pointer.
    let r = unsafe {
        if number == super::syscalls::CLOCK_GETRES {
            libc::clock_getres(a.int(0), &mut ts)
        } else {
            libc::clock_gettime(a.int(0), &mut ts)
        }
    };
    if r < 0 {
        return err(libc::EINVAL);
    }
    if a.u(1) == 0 {
        return Sys::Ret(0);
    }
    write_or_fault(mem, a.u(1), &timespec_bytes(ts.tv_sec, ts.tv_nsec))
}

/// Nanoseconds in a second (`struct timespec`'s `tv_nsec` bound).
const NS_PER_S: u64 = 1_000_000_000;

/// `TIMER_ABSTIME`: `clock_nanosleep`'s request is a deadline on the clock.
const TIMER_ABSTIME: i32 = 1;

/// Read a guest `struct timespec` (two 64-bit fields) and check it as
/// `timespec64_valid` does: `tv_sec` >= 0 and 0 <= `tv_nsec` < 10^9.
/// Errors are `errno` values: `EFAULT` (unreadable), `EINVAL` (invalid).
fn read_timespec(mem: &mut dyn GuestMemory, addr: u64) -> Result<(i64, i64), i32> {
    let sec = read_u64(mem, addr).map_err(|_| libc::EFAULT)? as i64;
    let nsec = read_u64(mem, addr.wrapping_add(8)).map_err(|_| libc::EFAULT)? as i64;
    if sec < 0 || !(0..NS_PER_S as i64).contains(&nsec) {
        return Err(libc::EINVAL);
    }
    Ok((sec, nsec))
}

/// Whole nanoseconds of a valid timespec (saturating).
fn timespec_ns(sec: i64, nsec: i64) -> u64 {
    (sec as u64)
        .saturating_mul(NS_PER_S)
        .saturating_add(nsec as u64)
}

/// The time a timeout at guest address `addr` (a `struct timespec`)
/// leaves, in nanoseconds: the timespec itself when relative; when
/// `absolute`, the time from now on host clock `clock` (as the guest
/// reads it with `clock_gettime`) until it, 0 if it has passed.
/// Errors are `errno` values (`EFAULT`, `EINVAL`).
pub(crate) fn timeout_ns(
    mem: &mut dyn GuestMemory,
    addr: u64,
    absolute: bool,
    clock: libc::clockid_t,
) -> Result<u64, i32> {
    let (sec, nsec) = read_timespec(mem, addr)?;
    let t = timespec_ns(sec, nsec);
    if !absolute {
        return Ok(t);
    }
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid timespec out-pointer; a known clock id.
    if unsafe { libc::clock_gettime(clock, &mut now) } < 0 {
        return Err(libc::EINVAL);
    }
    Ok(t.saturating_sub(timespec_ns(now.tv_sec.max(0), now.tv_nsec.max(0))))
}

/// `nanosleep(req, rem)`: the program sleeps `req` of guest time
/// ([`crate::EnvOutcome::Sleep`]); it is never interrupted, so `rem` is not
/// written. `EFAULT` for an unreadable `req`, `EINVAL` for an invalid one
/// (nanosleep(2)); nothing sleeps then.
pub(crate) fn sys_nanosleep(a: Args, mem: &mut dyn GuestMemory) -> Sys {
    match read_timespec(mem, a.u(0)) {
        Ok((sec, nsec)) => Sys::Sleep(0, timespec_ns(sec, nsec)),
        Err(e) => err(e),
    }
}

/// `clock_nanosleep(clockid, flags, req, rem)` (and `clock_nanosleep_time64`
/// on riscv32): like [`sys_nanosleep`] on `CLOCK_REALTIME`, `CLOCK_MONOTONIC`,
/// `CLOCK_BOOTTIME` or `CLOCK_TAI`; with `TIMER_ABSTIME`, `req` is a deadline
/// on that clock, which the guest reads from the host (as `clock_gettime`
/// does), so the sleep is the time left until it (none if it has passed).
/// The CPU-time clocks and unknown clocks give `EINVAL`, as do invalid
/// requests; an unreadable `req` gives `EFAULT` (clock_nanosleep(2); the
/// system call returns `-errno`, which the C library turns into its result).
pub(crate) fn sys_clock_nanosleep(a: Args, mem: &mut dyn GuestMemory) -> Sys {
    let clock = a.int(0);
    if !matches!(
        clock,
        libc::CLOCK_REALTIME | libc::CLOCK_MONOTONIC | libc::CLOCK_BOOTTIME | libc::CLOCK_TAI
    ) {
        return err(libc::EINVAL);
    }
    let (sec, nsec) = match read_timespec(mem, a.u(2)) {
        Ok(t) => t,
        Err(e) => return err(e),
    };
    let req = timespec_ns(sec, nsec);
    if a.int(1) & TIMER_ABSTIME == 0 {
        return Sys::Sleep(0, req);
    }
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid timespec out-pointer; the clock id was checked above.
    if unsafe { libc::clock_gettime(clock, &mut now) } < 0 {
        return err(libc::EINVAL);
    }
    let now = timespec_ns(now.tv_sec.max(0), now.tv_nsec.max(0));
    Sys::Sleep(0, req.saturating_sub(now))
}

/// `gettimeofday(tv, tz)` (riscv64): `struct timeval` = two 64-bit fields;
/// the timezone, if asked, is zero.
pub(crate) fn sys_gettimeofday(a: Args, mem: &mut dyn GuestMemory) -> Sys {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    if a.u(0) != 0 {
        if let Sys::Ret(e @ ..=-1) = write_or_fault(
            mem,
            a.u(0),
            &timespec_bytes(d.as_secs() as i64, i64::from(d.subsec_micros())),
        ) {
            return Sys::Ret(e);
        }
    }
    if a.u(1) != 0 {
        return write_or_fault(mem, a.u(1), &[0u8; 8]);
    }
    Sys::Ret(0)
}

/// `prlimit64(pid, resource, new, old)`: reads the host limits; new limits
/// are accepted and ignored (QEMU 7.2 ignores them for `RLIMIT_AS`,
/// `RLIMIT_DATA`, `RLIMIT_STACK`; fwprof never changes its own limits).
pub(crate) fn sys_prlimit64(a: Args, mem: &mut dyn GuestMemory) -> Sys {
    let (pid, res, old) = (a.i(0), a.u(1), a.u(3));
    if pid != 0 && pid != host_pid() {
        return err(libc::EPERM);
    }
    if res >= 16 {
        return err(libc::EINVAL);
    }
    if old == 0 {
        return Sys::Ret(0);
    }
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid out-pointer.
    if unsafe { libc::getrlimit(res as _, &mut lim) } < 0 {
        return err(libc::EINVAL);
    }
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&lim.rlim_cur.to_le_bytes());
    b[8..].copy_from_slice(&lim.rlim_max.to_le_bytes());
    write_or_fault(mem, old, &b)
}

/// `getrlimit(resource, rlim)` (XLEN-sized fields).
pub(crate) fn sys_getrlimit(a: Args, mem: &mut dyn GuestMemory) -> Sys {
    let res = a.u(0);
    if res >= 16 {
        return err(libc::EINVAL);
    }
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid out-pointer.
    if unsafe { libc::getrlimit(res as _, &mut lim) } < 0 {
        return err(libc::EINVAL);
    }
    let n = word_size(a.rv64);
    let clamp = |v: u64| {
        if a.rv64 || v <= u64::from(u32::MAX) {
            v
        } else {
            u64::from(u32::MAX)
        }
    };
    let r = write_word(mem, a.u(1), clamp(lim.rlim_cur), a.rv64)
        .and_then(|()| write_word(mem, a.u(1) + n, clamp(lim.rlim_max), a.rv64));
    if r.is_err() {
        err(libc::EFAULT)
    } else {
        Sys::Ret(0)
    }
}

/// `sysinfo(info)`: the host's values, as QEMU 7.2 `do_syscall`
/// (`TARGET_NR_sysinfo`) passes them through, in the guest's `struct sysinfo`
/// layout (XLEN-sized `long`s; 112 bytes on riscv64, 64 on riscv32). glibc
/// reads it for `sysconf(_SC_PHYS_PAGES)`, which steers `qsort`'s choice of
/// algorithm, so an ENOSYS here would change the program's path.
pub(crate) fn sys_sysinfo(a: Args, mem: &mut dyn GuestMemory) -> Sys {
    // SAFETY: zeroed is a valid sysinfo; the call fills it.
    let mut si: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointer.
    if unsafe { libc::sysinfo(&mut si) } < 0 {
        return err(libc::EFAULT);
    }
    let n = word_size(a.rv64) as usize;
    let mut b = vec![0u8; if a.rv64 { 112 } else { 64 }];
    let mut put = |off: usize, v: u64, size: usize| {
        b[off..off + size].copy_from_slice(&v.to_le_bytes()[..size])
    };
    let longs = [
        si.uptime as u64,
        si.loads[0],
        si.loads[1],
        si.loads[2],
        si.totalram,
        si.freeram,
        si.sharedram,
        si.bufferram,
        si.totalswap,
        si.freeswap,
    ];
    for (i, v) in longs.iter().enumerate() {
        put(i * n, *v, n);
    }
    let procs_off = 10 * n;
    put(procs_off, u64::from(si.procs), 2);
    // totalhigh, freehigh: aligned to a long after procs and pad.
    let high = (procs_off + 4).div_ceil(n) * n;
    put(high, si.totalhigh, n);
    put(high + n, si.freehigh, n);
    put(high + 2 * n, u64::from(si.mem_unit), 4);
    write_or_fault(mem, a.u(0), &b)
}

impl Environment {
    /// `getitimer(which, curr)` / `setitimer(which, new, old)`: the timers
    /// are recorded and reported back, but fwprof never delivers SIGALRM,
    /// SIGVTALRM or SIGPROF, so runs stay deterministic (under QEMU a
    /// host timer would interrupt the guest at wall-clock times). glibc's
    /// `profil()` (used by `-pg` programs) therefore gathers no histogram.
    pub(crate) fn sys_itimer(&mut self, number: u64, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let which = a.u(0);
        if which > 2 {
            return err(libc::EINVAL);
        }
        let n = word_size(a.rv64);
        let (new, old) = if number == nr::SETITIMER {
            (a.u(1), a.u(2))
        } else {
            (0, a.u(1))
        };
        let mut fresh = None;
        if new != 0 {
            let mut v = [0u64; 4];
            for (i, slot) in v.iter_mut().enumerate() {
                match read_word(mem, new + i as u64 * n, a.rv64) {
                    Ok(x) => *slot = x,
                    Err(_) => return err(libc::EFAULT),
                }
            }
            fresh = Some(v);
        }
        if old != 0 {
            let cur = self.linux.itimers[which as usize];
            for (i, v) in cur.iter().enumerate() {
                if write_word(mem, old + i as u64 * n, *v, a.rv64).is_err() {
                    return err(libc::EFAULT);
                }
            }
        }
        if let Some(v) = fresh {
            self.linux.itimers[which as usize] = v;
        }
        Sys::Ret(0)
    }
}
