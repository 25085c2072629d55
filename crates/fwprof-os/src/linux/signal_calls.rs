//! The system calls of signals and of waiting in guest time: actions,
//! masks, the alternate stack, `kill`, the interval timers, and the calls
//! that sleep until a signal or a time (`nanosleep`, `clock_nanosleep`,
//! `ppoll` without file descriptors, `rt_sigsuspend`, `rt_sigtimedwait`).
//! The rules they follow are in [`super::signals`]; signals a call sends or
//! unblocks are delivered after it returns
//! ([`crate::Environment::deliver_signal`]), as the kernel delivers them
//! on the way back to user mode.

use super::misc::{host_pid, read_timespec, timespec_ns};
use super::signals::{
    bit, set_alt_stack, SigInfo, Wait, NSIG, SIGKILL, SIGPIPE, SIGSTOP, SI_TKILL, SI_USER,
    UNBLOCKABLE,
};
use super::structs::timespec_bytes;
use super::syscalls as nr;
use super::{err, Args, Sys};
use crate::guest::{read_u32, read_u64, read_word, word_size, write_word};
use crate::{EnvError, Environment, GuestMemory};

/// Nanoseconds in a second and in a microsecond.
const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_US: u64 = 1_000;

/// `ITIMER_REAL`, `ITIMER_VIRTUAL`, `ITIMER_PROF`.
const ITIMER_REAL: u64 = 0;

/// `sizeof(sigset_t)` the kernel accepts.
const SIGSET_SIZE: u64 = 8;

/// `TIMER_ABSTIME`: `clock_nanosleep`'s request is a deadline on the clock.
const TIMER_ABSTIME: i32 = 1;

impl Environment {
    /// `rt_sigaction(sig, act, oldact, sigsetsize)`: `struct sigaction` on
    /// RISC-V is handler, flags, 8-byte mask (no restorer). Returns the
    /// previous action (all zero initially). An action that ignores the
    /// signal discards it if pending (POSIX; the kernel's `do_sigaction`).
    pub(crate) fn sys_rt_sigaction(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (sig, act, old, setsize) = (a.u(0), a.u(1), a.u(2), a.u(3));
        if setsize != SIGSET_SIZE {
            return err(libc::EINVAL);
        }
        if sig == 0 || sig > NSIG as u64 {
            return err(libc::EINVAL);
        }
        let sig = sig as i32;
        if act != 0 && (sig == SIGKILL || sig == SIGSTOP) {
            return err(libc::EINVAL);
        }
        let rv64 = a.rv64;
        let n = word_size(rv64);
        let new = if act != 0 {
            let r = (|| -> Result<[u64; 3], crate::MemFault> {
                Ok([
                    read_word(mem, act, rv64)?,
                    read_word(mem, act + n, rv64)?,
                    read_u64(mem, act + 2 * n)?,
                ])
            })();
            match r {
                Ok(v) => Some(v),
                Err(_) => return err(libc::EFAULT),
            }
        } else {
            None
        };
        let s = &mut self.linux.signals;
        let prev = s.actions[sig as usize];
        if old != 0 {
            let r = write_word(mem, old, prev.handler, rv64)
                .and_then(|()| write_word(mem, old + n, prev.flags, rv64))
                .and_then(|()| mem.write(old + 2 * n, &prev.mask.to_le_bytes()));
            if r.is_err() {
                return err(libc::EFAULT);
            }
        }
        if let Some([handler, flags, mask]) = new {
            let action = &mut s.actions[sig as usize];
            action.handler = handler;
            action.flags = flags;
            action.mask = mask & !UNBLOCKABLE;
            if s.ignores(sig) {
                s.thread.pending &= !bit(sig);
            }
        }
        Sys::Ret(0)
    }

    /// `rt_sigprocmask(how, set, oldset, sigsetsize)`; SIGKILL and SIGSTOP
    /// cannot be blocked. Signals it unblocks are delivered after it.
    pub(crate) fn sys_rt_sigprocmask(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (how, set, old, setsize) = (a.u(0), a.u(1), a.u(2), a.u(3));
        if setsize != SIGSET_SIZE {
            return err(libc::EINVAL);
        }
        let t = &mut self.linux.signals.thread;
        let prev = t.blocked;
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
            t.blocked = next & !UNBLOCKABLE;
        }
        if old != 0 && mem.write(old, &prev.to_le_bytes()).is_err() {
            return err(libc::EFAULT);
        }
        Sys::Ret(0)
    }

    /// `rt_sigpending(set, sigsetsize)`: the pending signals that are
    /// blocked (the others are delivered before the program runs again).
    pub(crate) fn sys_rt_sigpending(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let size = a.u(1);
        if size > SIGSET_SIZE {
            return err(libc::EINVAL);
        }
        let t = &self.linux.signals.thread;
        let set = t.pending & t.blocked;
        match mem.write(a.u(0), &set.to_le_bytes()[..size as usize]) {
            Ok(()) => Sys::Ret(0),
            Err(_) => err(libc::EFAULT),
        }
    }

    /// `sigaltstack(ss, old_ss)` (QEMU 7.2 `do_sigaltstack`): `stack_t` =
    /// sp (XLEN), flags (int), size (XLEN), naturally aligned. The old
    /// flags are `SS_DISABLE`, `SS_ONSTACK` (the caller runs on it) or 0.
    pub(crate) fn sys_sigaltstack(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (ss, old) = (a.u(0), a.u(1));
        let rv64 = a.rv64;
        let n = word_size(rv64);
        let alt = self.linux.signals.thread.alt;
        let mut next = alt;
        if ss != 0 {
            let r = (|| -> Result<(u64, u32, u64), crate::MemFault> {
                Ok((
                    read_word(mem, ss, rv64)?,
                    read_u32(mem, ss + n)?,
                    read_word(mem, ss + 2 * n, rv64)?,
                ))
            })();
            let Ok((sp, flags, size)) = r else {
                return err(libc::EFAULT);
            };
            if let Err(e) = set_alt_stack(&mut next, sp, flags, size, a.sp) {
                return err(e);
            }
        }
        if old != 0 {
            let r = write_word(mem, old, alt.base, rv64)
                .and_then(|()| mem.write(old + n, &alt.flags(a.sp).to_le_bytes()))
                .and_then(|()| write_word(mem, old + 2 * n, alt.size, rv64));
            if r.is_err() {
                return err(libc::EFAULT);
            }
        }
        self.linux.signals.thread.alt = next;
        Sys::Ret(0)
    }

    /// `kill`/`tkill`/`tgkill` aimed at the process itself (pid or tid
    /// its own, or `kill(0, …)`): the signal is sent (`si_code` SI_USER
    /// for `kill`, SI_TKILL for the others, the sender's pid and uid) and
    /// delivered after the call unless blocked; signal 0 only checks.
    /// Other targets: `EPERM` (fwprof runs one process).
    pub(crate) fn sys_kill(&mut self, number: u64, a: Args) -> Sys {
        let (pid, sig) = match number {
            nr::TGKILL => (a.i(1), a.u(2)),
            _ => (a.i(0), a.u(1)),
        };
        if sig > NSIG as u64 {
            return err(libc::EINVAL);
        }
        // tkill/tgkill name a thread: any of the process's (a signal sent
        // to one thread is pending for the process: its next thread to run
        // takes it; Linux would keep it for that thread).
        let thread = number != nr::KILL && self.linux.threads.has_tid(pid);
        if pid != host_pid() && !(pid == 0 && number == nr::KILL) && !thread {
            return err(libc::EPERM);
        }
        if sig == 0 {
            return Sys::Ret(0);
        }
        let code = if number == nr::KILL {
            SI_USER
        } else {
            SI_TKILL
        };
        self.linux.signals.send(sig as i32, SigInfo::sent(code));
        Sys::Ret(0)
    }

    /// A write to a pipe without readers (Linux `pipe_write`): SIGPIPE is
    /// sent (`si_code` SI_USER), whose default action ends the process
    /// once the call returns, and the call fails with `EPIPE`.
    pub(crate) fn sigpipe(&mut self) -> Sys {
        self.linux.signals.send(SIGPIPE, SigInfo::sent(SI_USER));
        err(libc::EPIPE)
    }

    /// `getitimer(which, curr)` / `setitimer(which, new, old)`.
    /// `ITIMER_REAL` runs on guest time: it sends SIGALRM when the
    /// simulator's clock reaches it (and, with an interval, again every
    /// interval); its value reads the time left, in microseconds (1 if
    /// due, as Linux). `ITIMER_VIRTUAL` and `ITIMER_PROF` are recorded
    /// and never fire ([`super::signals::Signals::cpu_timers`]).
    /// `struct itimerval` is interval then value, each seconds and
    /// microseconds as XLEN words; a microsecond count of a million or
    /// more, or a negative field, is `EINVAL`.
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
            let negative = |x: u64| if a.rv64 { x >> 63 != 0 } else { x >> 31 != 0 };
            if v.iter().any(|&x| negative(x)) || v[1] >= 1_000_000 || v[3] >= 1_000_000 {
                return err(libc::EINVAL);
            }
            fresh = Some(v);
        }
        if old != 0 {
            let cur = self.itimer_value(which, a.now);
            for (i, v) in cur.iter().enumerate() {
                if write_word(mem, old + i as u64 * n, *v, a.rv64).is_err() {
                    return err(libc::EFAULT);
                }
            }
        }
        if let Some(v) = fresh {
            let ns = |sec: u64, usec: u64| {
                sec.saturating_mul(NS_PER_S)
                    .saturating_add(usec * NS_PER_US)
            };
            let s = &mut self.linux.signals;
            if which == ITIMER_REAL {
                let value = ns(v[2], v[3]);
                s.real.interval = ns(v[0], v[1]);
                s.real.deadline = (value > 0).then(|| a.now.saturating_add(value));
            } else {
                s.cpu_timers[which as usize - 1] = v;
            }
        }
        Sys::Ret(0)
    }

    /// The `struct itimerval` words of timer `which` at guest time `now`.
    fn itimer_value(&self, which: u64, now: u64) -> [u64; 4] {
        let s = &self.linux.signals;
        if which != ITIMER_REAL {
            return s.cpu_timers[which as usize - 1];
        }
        let split = |ns: u64| [ns / NS_PER_S, ns % NS_PER_S / NS_PER_US];
        let left = s
            .real
            .deadline
            .map_or(0, |d| d.saturating_sub(now).max(NS_PER_US));
        let [is, iu] = split(s.real.interval);
        let [vs, vu] = split(left);
        [is, iu, vs, vu]
    }

    /// `nanosleep(req, rem)`: sleep `req` of guest time
    /// ([`crate::EnvOutcome::Sleep`]), or until a signal that is not
    /// blocked or ignored arrives (`ITIMER_REAL`'s SIGALRM): then `EINTR`
    /// with the time left in `rem` (if not null; `EFAULT` if it cannot be
    /// written). An unreadable `req` is `EFAULT`, an invalid one `EINVAL`
    /// (nanosleep(2)); nothing sleeps then.
    pub(crate) fn sys_nanosleep(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        match read_timespec(mem, a.u(0)) {
            Ok((sec, nsec)) => self.sleep(a, timespec_ns(sec, nsec), a.u(1), mem),
            Err(e) => err(e),
        }
    }

    /// `clock_nanosleep(clockid, flags, req, rem)` (and
    /// `clock_nanosleep_time64` on riscv32): as [`Environment::sys_nanosleep`]
    /// on `CLOCK_REALTIME`, `CLOCK_MONOTONIC`, `CLOCK_BOOTTIME` or
    /// `CLOCK_TAI`; with `TIMER_ABSTIME`, `req` is a deadline on that
    /// clock, which the guest reads from the host (as `clock_gettime`
    /// does), so the sleep is the time left until it (none if it has
    /// passed) and `rem` is never written. The CPU-time clocks and unknown
    /// clocks give `EINVAL`, as do invalid requests; an unreadable `req`
    /// gives `EFAULT` (clock_nanosleep(2); the system call returns
    /// `-errno`, which the C library turns into its result).
    pub(crate) fn sys_clock_nanosleep(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
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
            return self.sleep(a, req, a.u(3), mem);
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
        self.sleep(a, req.saturating_sub(now), 0, mem)
    }

    /// Sleep `req` ns from the call's time, ended early by a signal that
    /// wakes it (see [`Environment::sys_nanosleep`]); `rem` is where the
    /// time left goes then (0: nowhere).
    fn sleep(&mut self, a: Args, req: u64, rem: u64, mem: &mut dyn GuestMemory) -> Sys {
        let until = a.now.saturating_add(req);
        let s = &mut self.linux.signals;
        let blocked = s.thread.blocked;
        match s.wait(a.now, blocked, 0, Some(until)) {
            Wait::Signal { at } => {
                let left = until - at;
                let ts = timespec_bytes((left / NS_PER_S) as i64, (left % NS_PER_S) as i64);
                if rem != 0 && mem.write(rem, &ts).is_err() {
                    return Sys::Sleep(-i64::from(libc::EFAULT), at - a.now);
                }
                Sys::Sleep(-i64::from(libc::EINTR), at - a.now)
            }
            // With a time limit the wait always ends.
            Wait::Timeout { at } => Sys::Sleep(0, at - a.now),
            Wait::Forever(_) => Sys::Sleep(0, req),
        }
    }

    /// `rt_sigsuspend(mask, sigsetsize)`: wait, with `mask` blocked instead
    /// of the thread's mask, until a signal that wakes it arrives, then
    /// `EINTR`; the handler that runs saves the old mask in its frame, so
    /// `rt_sigreturn` restores it (the kernel's `saved_sigmask`).
    ///
    /// # Errors
    /// [`EnvError::WaitForever`] when no signal can ever come.
    pub(crate) fn sys_rt_sigsuspend(
        &mut self,
        a: Args,
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, EnvError> {
        if a.u(1) != SIGSET_SIZE {
            return Ok(err(libc::EINVAL));
        }
        let Ok(mask) = read_u64(mem, a.u(0)) else {
            return Ok(err(libc::EFAULT));
        };
        self.suspend("rt_sigsuspend", a.now, mask & !UNBLOCKABLE, None, 0, mem)
    }

    /// `ppoll(fds, 0, timeout, sigmask, sigsetsize)` (and `ppoll_time64`
    /// on riscv32) with no file descriptors — glibc's `pause()`: wait, with
    /// `sigmask` blocked if given, until a signal that wakes it (`EINTR`)
    /// or the timeout (0; the time left is written back to `timeout`).
    ///
    /// # Errors
    /// [`EnvError::WaitForever`] when there is no timeout and no signal can
    /// ever come.
    pub(crate) fn sys_ppoll(
        &mut self,
        a: Args,
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, EnvError> {
        let (tmo, sigmask, size) = (a.u(2), a.u(3), a.u(4));
        let until = if tmo == 0 {
            None
        } else {
            match read_timespec(mem, tmo) {
                Ok((sec, nsec)) => Some(a.now.saturating_add(timespec_ns(sec, nsec))),
                Err(e) => return Ok(err(e)),
            }
        };
        let mask = if sigmask == 0 {
            self.linux.signals.thread.blocked
        } else {
            if size != SIGSET_SIZE {
                return Ok(err(libc::EINVAL));
            }
            match read_u64(mem, sigmask) {
                Ok(m) => m & !UNBLOCKABLE,
                Err(_) => return Ok(err(libc::EFAULT)),
            }
        };
        let call = if tmo == 0 && sigmask == 0 {
            "ppoll with no file descriptors (glibc's pause)"
        } else {
            "ppoll"
        };
        self.suspend(call, a.now, mask, until, tmo, mem)
    }

    /// Wait with `mask` blocked (see [`Environment::sys_rt_sigsuspend`]),
    /// until guest time `until` if given (then 0); `tmo`, if not 0, gets
    /// the time left.
    fn suspend(
        &mut self,
        call: &'static str,
        now: u64,
        mask: u64,
        until: Option<u64>,
        tmo: u64,
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, EnvError> {
        let s = &mut self.linux.signals;
        let (ret, at) = match s.wait(now, mask, 0, until) {
            Wait::Signal { at } => {
                s.thread.saved_mask = Some(s.thread.blocked);
                s.thread.blocked = mask;
                (-i64::from(libc::EINTR), at)
            }
            Wait::Timeout { at } => (0, at),
            Wait::Forever(reason) => return Err(EnvError::WaitForever { call, reason }),
        };
        if let (Some(u), true) = (until, tmo != 0) {
            let left = u - at;
            let ts = timespec_bytes((left / NS_PER_S) as i64, (left % NS_PER_S) as i64);
            let _ = mem.write(tmo, &ts);
        }
        Ok(Sys::Sleep(ret, at - now))
    }

    /// `rt_sigtimedwait(set, info, timeout, sigsetsize)` (and
    /// `rt_sigtimedwait_time64` on riscv32): take the lowest pending signal
    /// of `set` (usually blocked) off the queue and return it, with its
    /// `siginfo_t` in `info` if not null; if none is pending, wait for one
    /// (the signals of `set` unblocked meanwhile, as Linux does) until
    /// `timeout` (`EAGAIN`), or until another signal that wakes the wait
    /// (`EINTR`; its handler runs).
    ///
    /// # Errors
    /// [`EnvError::WaitForever`] when there is no timeout and no signal can
    /// ever come.
    pub(crate) fn sys_rt_sigtimedwait(
        &mut self,
        a: Args,
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, EnvError> {
        let (set, info, tmo) = (a.u(0), a.u(1), a.u(2));
        if a.u(3) != SIGSET_SIZE {
            return Ok(err(libc::EINVAL));
        }
        let Ok(set) = read_u64(mem, set) else {
            return Ok(err(libc::EFAULT));
        };
        let set = set & !UNBLOCKABLE;
        let until = if tmo == 0 {
            None
        } else {
            match read_timespec(mem, tmo) {
                Ok((sec, nsec)) => Some(a.now.saturating_add(timespec_ns(sec, nsec))),
                Err(e) => return Ok(err(e)),
            }
        };
        let s = &mut self.linux.signals;
        let blocked = s.thread.blocked;
        let at = match s.wait(a.now, blocked & !set, set, until) {
            Wait::Signal { at } => at,
            Wait::Timeout { at } => return Ok(Sys::Sleep(-i64::from(libc::EAGAIN), at - a.now)),
            Wait::Forever(reason) => {
                return Err(EnvError::WaitForever {
                    call: "rt_sigtimedwait",
                    reason,
                })
            }
        };
        let ready = s.thread.pending & set;
        if ready == 0 {
            return Ok(Sys::Sleep(-i64::from(libc::EINTR), at - a.now));
        }
        let sig = ready.trailing_zeros() as i32 + 1;
        let si = s.dequeue(sig);
        if info != 0 && mem.write(info, &si.bytes(sig, a.rv64)).is_err() {
            return Ok(Sys::Sleep(-i64::from(libc::EFAULT), at - a.now));
        }
        Ok(Sys::Sleep(i64::from(sig), at - a.now))
    }
}
