//! The threads of a Linux process: `clone` with `CLONE_THREAD` (what
//! glibc's `pthread_create` passes), `futex` wait/wake/requeue with
//! timeouts in guest time, `set_tid_address` and the clear-and-wake at a
//! thread's exit, `gettid`, and `exit` of one thread (clone(2), futex(2),
//! set_tid_address(2); QEMU 7.2 `linux-user/syscall.c` `do_fork`,
//! `do_futex`).
//!
//! The environment keeps what the kernel keeps of each thread (its id,
//! its `clear_child_tid`, whether it waits on a futex and what `a0` it
//! gets when it wakes); the simulator keeps its registers and runs the
//! threads in turns ([`crate::EnvOutcome::NewThread`],
//! [`crate::EnvOutcome::Wait`], [`crate::EnvOutcome::ThreadExit`]; see
//! `docs/concurrency.md`). Thread numbers are the simulator's: 0 is the
//! main thread, then one per `clone`, in order. Thread ids are the
//! process id plus the thread number (QEMU gives host thread ids, which
//! differ from run to run).

use super::{err, Args, Sys};
use crate::guest::read_u32;
use crate::{EnvOutcome, Environment, GuestMemory};

/// `clone` flags (include/uapi/linux/sched.h).
pub(crate) const CLONE_VM: u64 = 0x100;
const CLONE_FS: u64 = 0x200;
const CLONE_FILES: u64 = 0x400;
const CLONE_SIGHAND: u64 = 0x800;
const CLONE_THREAD: u64 = 0x10000;
const CLONE_SYSVSEM: u64 = 0x40000;
const CLONE_SETTLS: u64 = 0x80000;
const CLONE_PARENT_SETTID: u64 = 0x100000;
const CLONE_CHILD_CLEARTID: u64 = 0x200000;
const CLONE_CHILD_SETTID: u64 = 0x1000000;
/// What a thread shares with its creator: all of it must be asked for.
const THREAD_FLAGS: u64 =
    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
/// The optional flags fwprof serves with them.
const THREAD_OPTIONAL: u64 =
    CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID;

/// `futex` operations (include/uapi/linux/futex.h), private flag and
/// clock flag masked off.
const FUTEX_WAIT: i32 = 0;
const FUTEX_WAKE: i32 = 1;
const FUTEX_REQUEUE: i32 = 3;
const FUTEX_CMP_REQUEUE: i32 = 4;
const FUTEX_WAIT_BITSET: i32 = 9;
const FUTEX_WAKE_BITSET: i32 = 10;
const FUTEX_CLOCK_REALTIME: i32 = 256;
const FUTEX_BITSET_MATCH_ANY: u32 = u32::MAX;

/// One thread as the kernel sees it.
#[derive(Clone, Debug)]
pub(crate) struct Thread {
    /// Its id (`gettid`).
    pub tid: i64,
    /// `set_tid_address` / `CLONE_CHILD_CLEARTID`: zeroed and woken at exit.
    pub clear_child_tid: u64,
    /// Waiting on a futex.
    pub waiting: bool,
    /// It has exited.
    pub exited: bool,
    /// What its `a0` becomes when it runs next (the result of the futex
    /// wait it woke from).
    pub result: Option<i64>,
}

/// A thread waiting on a futex word.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    thread: usize,
    uaddr: u64,
    bitset: u32,
}

/// The process's threads and futex queue.
#[derive(Clone, Debug)]
pub(crate) struct Threads {
    pub list: Vec<Thread>,
    /// The thread making system calls now.
    pub current: usize,
    /// Waiters in the order they began to wait (woken first come first).
    waiters: Vec<Waiter>,
}

impl Threads {
    /// The main thread alone, with id `pid`.
    pub(crate) fn new(pid: i64) -> Threads {
        Threads {
            list: vec![Thread {
                tid: pid,
                clear_child_tid: 0,
                waiting: false,
                exited: false,
                result: None,
            }],
            current: 0,
            waiters: Vec::new(),
        }
    }

    /// The current thread's id.
    pub(crate) fn tid(&self) -> i64 {
        self.list[self.current].tid
    }

    /// True if `tid` is one of the process's threads that has not exited.
    pub(crate) fn has_tid(&self, tid: i64) -> bool {
        self.list.iter().any(|t| t.tid == tid && !t.exited)
    }

    /// Threads that have not exited.
    fn live(&self) -> usize {
        self.list.iter().filter(|t| !t.exited).count()
    }

    /// Wake up to `n` waiters on `uaddr` whose bitset meets `bitset`;
    /// returns how many.
    fn wake(&mut self, uaddr: u64, n: u64, bitset: u32) -> i64 {
        let mut woken = 0;
        let mut i = 0;
        while i < self.waiters.len() && woken < n {
            let w = self.waiters[i];
            if w.uaddr == uaddr && w.bitset & bitset != 0 {
                self.waiters.remove(i);
                let t = &mut self.list[w.thread];
                t.waiting = false;
                t.result = Some(0);
                woken += 1;
            } else {
                i += 1;
            }
        }
        woken as i64
    }

    /// Wake up to `n` waiters on `from`, then move up to `m` more to `to`;
    /// returns the woken plus the moved.
    fn requeue(&mut self, from: u64, n: u64, to: u64, m: u64) -> i64 {
        let woken = self.wake(from, n, FUTEX_BITSET_MATCH_ANY);
        let mut moved = 0;
        for w in &mut self.waiters {
            if moved >= m {
                break;
            }
            if w.uaddr == from {
                w.uaddr = to;
                moved += 1;
            }
        }
        woken + moved as i64
    }
}

impl Environment {
    /// `clone(flags, newsp, parent_tid, tls, child_tid)` (the riscv
    /// argument order): a thread sharing everything, as `pthread_create`
    /// asks for; anything else (`fork`, `vfork`, a new process) is
    /// refused with `ENOSYS` and one line on stderr, as before fwprof ran
    /// threads.
    pub(crate) fn sys_clone(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let flags = a.u(0) & !0xff; // the low byte is the exit signal
        if flags & THREAD_FLAGS != THREAD_FLAGS || flags & !(THREAD_FLAGS | THREAD_OPTIONAL) != 0 {
            return self.unsupported_call(super::syscalls::CLONE);
        }
        let (stack, parent_tid, tls, child_tid) = (a.u(1), a.u(2), a.u(3), a.u(4));
        let thread = self.linux.threads.list.len();
        let tid = self.linux.threads.list[0].tid + thread as i64;
        // The kernel writes both before the child runs; a bad pointer is
        // EFAULT and no thread.
        for (flag, addr) in [
            (CLONE_PARENT_SETTID, parent_tid),
            (CLONE_CHILD_SETTID, child_tid),
        ] {
            if flags & flag != 0 && mem.write(addr, &(tid as u32).to_le_bytes()).is_err() {
                return err(libc::EFAULT);
            }
        }
        self.linux.threads.list.push(Thread {
            tid,
            clear_child_tid: if flags & CLONE_CHILD_CLEARTID != 0 {
                child_tid
            } else {
                0
            },
            waiting: false,
            exited: false,
            result: None,
        });
        self.pending_thread = Some(EnvOutcome::NewThread {
            thread,
            stack,
            tls: (flags & CLONE_SETTLS != 0).then_some(tls),
        });
        Sys::Ret(tid)
    }

    /// `set_tid_address(tidptr)`: remembered for the current thread's
    /// exit; returns its id.
    pub(crate) fn sys_set_tid_address(&mut self, a: Args) -> Sys {
        let t = self.linux.threads.current;
        self.linux.threads.list[t].clear_child_tid = a.u(0);
        Sys::Ret(self.linux.threads.tid())
    }

    /// `futex(uaddr, op, val, timeout | val2, uaddr2, val3)`: `WAIT`,
    /// `WAIT_BITSET` (the timeout relative, or for `WAIT_BITSET` an
    /// absolute time on `CLOCK_MONOTONIC`, or `CLOCK_REALTIME` with
    /// `FUTEX_CLOCK_REALTIME`, read from the host as `clock_gettime`
    /// gives it, so the wait lasts the time left until it), `WAKE`,
    /// `WAKE_BITSET`, `REQUEUE`, `CMP_REQUEUE`. A wait whose word differs
    /// from `val` returns `EAGAIN`; otherwise the thread waits in guest
    /// time ([`EnvOutcome::Wait`]) until woken (0) or timed out
    /// (`ETIMEDOUT`). A wait that no other thread could ever end (the
    /// only thread, no timeout) returns `EDEADLK` rather than hang.
    pub(crate) fn sys_futex(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (uaddr, raw_op, val) = (a.u(0), a.int(1), a.u(2) as u32);
        let op = raw_op & 0x7f;
        match op {
            FUTEX_WAIT | FUTEX_WAIT_BITSET => {
                let bitset = if op == FUTEX_WAIT_BITSET {
                    a.u(5) as u32
                } else {
                    FUTEX_BITSET_MATCH_ANY
                };
                if bitset == 0 {
                    return err(libc::EINVAL);
                }
                let timeout = match a.u(3) {
                    0 => None,
                    p => {
                        let clock = if raw_op & FUTEX_CLOCK_REALTIME != 0 {
                            libc::CLOCK_REALTIME
                        } else {
                            libc::CLOCK_MONOTONIC
                        };
                        match super::misc::timeout_ns(mem, p, op == FUTEX_WAIT_BITSET, clock) {
                            Ok(ns) => Some(ns),
                            Err(e) => return err(e),
                        }
                    }
                };
                let Ok(cur) = read_u32(mem, uaddr) else {
                    return err(libc::EFAULT);
                };
                if cur != val {
                    return err(libc::EAGAIN);
                }
                let threads = &mut self.linux.threads;
                if timeout.is_none() && threads.live() == 1 {
                    return err(libc::EDEADLK);
                }
                let t = threads.current;
                threads.waiters.push(Waiter {
                    thread: t,
                    uaddr,
                    bitset,
                });
                threads.list[t].waiting = true;
                self.pending_thread = Some(EnvOutcome::Wait {
                    timeout_ns: timeout,
                });
                Sys::Ret(0)
            }
            FUTEX_WAKE | FUTEX_WAKE_BITSET => {
                let bitset = if op == FUTEX_WAKE_BITSET {
                    a.u(5) as u32
                } else {
                    FUTEX_BITSET_MATCH_ANY
                };
                if bitset == 0 {
                    return err(libc::EINVAL);
                }
                Sys::Ret(self.linux.threads.wake(uaddr, u64::from(val), bitset))
            }
            FUTEX_REQUEUE | FUTEX_CMP_REQUEUE => {
                if op == FUTEX_CMP_REQUEUE {
                    let Ok(cur) = read_u32(mem, uaddr) else {
                        return err(libc::EFAULT);
                    };
                    if cur != a.u(5) as u32 {
                        return err(libc::EAGAIN);
                    }
                }
                let n2 = a.u(3) & 0xffff_ffff;
                Sys::Ret(
                    self.linux
                        .threads
                        .requeue(uaddr, u64::from(val), a.u(4), n2),
                )
            }
            _ => err(libc::ENOSYS),
        }
    }

    /// `exit(status)` of one thread: with other threads alive, it ends
    /// alone (its `clear_child_tid` is zeroed and one waiter on it woken,
    /// as `pthread_join` expects); the last thread's exit ends the process
    /// with `status`.
    pub(crate) fn sys_exit_thread(&mut self, status: i32, mem: &mut dyn GuestMemory) -> Sys {
        let threads = &mut self.linux.threads;
        if threads.live() <= 1 {
            return Sys::Exit(status);
        }
        let t = threads.current;
        threads.list[t].exited = true;
        let ctid = threads.list[t].clear_child_tid;
        if ctid != 0 && mem.write(ctid, &0u32.to_le_bytes()).is_ok() {
            threads.wake(ctid, 1, FUTEX_BITSET_MATCH_ANY);
        }
        self.pending_thread = Some(EnvOutcome::ThreadExit);
        Sys::Ret(0)
    }

    /// The simulator runs thread `thread` from now on (its system calls
    /// are its own); the value its `a0` must take if it comes back from a
    /// futex wait (0 when woken, `-ETIMEDOUT` after its timeout).
    pub fn switch_thread(&mut self, thread: usize) -> Option<i64> {
        let threads = &mut self.linux.threads;
        if thread >= threads.list.len() {
            return None;
        }
        threads.current = thread;
        threads.list[thread].result.take()
    }

    /// The ids (`gettid`) of the process's threads by number, in order of
    /// creation; empty for bare metal.
    pub fn thread_ids(&self) -> Vec<i64> {
        if self.target == crate::Target::BareMetal {
            return Vec::new();
        }
        self.linux.threads.list.iter().map(|t| t.tid).collect()
    }

    /// True while thread `thread` waits on a futex (no wake yet).
    pub fn thread_waiting(&self, thread: usize) -> bool {
        self.linux
            .threads
            .list
            .get(thread)
            .is_some_and(|t| t.waiting)
    }

    /// Thread `thread`'s futex wait timed out: it leaves the queue and
    /// gets `ETIMEDOUT`.
    pub fn thread_timed_out(&mut self, thread: usize) {
        let threads = &mut self.linux.threads;
        threads.waiters.retain(|w| w.thread != thread);
        if let Some(t) = threads.list.get_mut(thread) {
            if t.waiting {
                t.waiting = false;
                t.result = Some(-i64::from(libc::ETIMEDOUT));
            }
        }
    }

    /// What a system call asked of the threads, if anything (taken once).
    pub(crate) fn take_thread_outcome(&mut self) -> Option<EnvOutcome> {
        self.pending_thread.take()
    }
}
