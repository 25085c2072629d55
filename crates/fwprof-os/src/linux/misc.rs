//! Process, time and identity system calls (QEMU 7.2
//! `linux-user/syscall.c` behaviour for a single thread); signals are in
//! `signal_calls.rs`.

use super::structs::{timespec_bytes, utsname_bytes};
use super::{err, Args, Sys};
use crate::guest::{read_u64, word_size, write_word};
use crate::{Environment, GuestMemory};

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

/// Read a guest `struct timespec` (two 64-bit fields) and check it as
/// `timespec64_valid` does: `tv_sec` >= 0 and 0 <= `tv_nsec` < 10^9.
/// Errors are `errno` values: `EFAULT` (unreadable), `EINVAL` (invalid).
pub(crate) fn read_timespec(mem: &mut dyn GuestMemory, addr: u64) -> Result<(i64, i64), i32> {
    let sec = read_u64(mem, addr).map_err(|_| libc::EFAULT)? as i64;
    let nsec = read_u64(mem, addr.wrapping_add(8)).map_err(|_| libc::EFAULT)? as i64;
    if sec < 0 || !(0..NS_PER_S as i64).contains(&nsec) {
        return Err(libc::EINVAL);
    }
    Ok((sec, nsec))
}

/// Whole nanoseconds of a valid timespec (saturating).
pub(crate) fn timespec_ns(sec: i64, nsec: i64) -> u64 {
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
