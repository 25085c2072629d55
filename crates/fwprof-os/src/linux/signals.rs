//! Linux signals of a user-mode process: which signals exist and what their
//! default actions are, the pending and blocked sets, delivery to
//! `rt_sigaction` handlers with the signal frame and `rt_sigreturn` of QEMU
//! 7.2 (`linux-user/riscv/signal.c`, `linux-user/signal.c`), and
//! `ITIMER_REAL` in guest time. The system calls that use these rules are
//! in `signal_calls.rs`.
//!
//! **State.** Actions and the interval timers are per process
//! (`Signals`); the blocked mask, the pending set, the alternate stack
//! and a forced synchronous signal are per thread (`Thread`), as in
//! Linux. fwprof runs one thread; a second one would get a `Thread` of
//! its own.
//!
//! **Delivery** ([`crate::Environment::deliver_signal`]), as QEMU 7.2's
//! `process_pending_signals`: a forced synchronous signal first, then the
//! lowest-numbered pending signal that is not blocked; each delivery may
//! make another deliverable, so the simulator asks again until nothing is
//! left (several handlers then nest, the last one started running first,
//! as on Linux). A handler's frame goes below `sp`, or at the top of the
//! alternate stack with `SA_ONSTACK` (QEMU `get_sigframe`,
//! `target_sigsp`), 16-byte aligned; the handler starts with `a0` = the
//! signal, `a1` = the `siginfo_t`, `a2` = the `ucontext_t`, `sp` = the
//! frame and `ra` = the sigreturn trampoline `li a7, 139; ecall`, which
//! fwprof maps where QEMU 7.2 maps its own (`setup_sigtramp`: the page
//! after the stack, [`crate::StackLayout::sigtramp`]). While it runs, the
//! signal (unless `SA_NODEFER`) and the action's `sa_mask` are blocked;
//! `SA_RESETHAND` resets the action to the default. A frame that cannot be
//! written forces SIGSEGV (and resets a SIGSEGV handler first, so a
//! failing SIGSEGV delivery kills), as the kernel's `force_sigsegv`.
//! RISC-V Linux has only `rt_sigaction` frames: `a1` and `a2` are set
//! whether or not the action has `SA_SIGINFO`.
//!
//! **Synchronous faults** ([`crate::Environment::raise_fault`]) are forced
//! as the kernel's `force_sig_info`: blocked or ignored, the signal is
//! unblocked and its action reset to the default, which kills; so does a
//! fault inside a handler of the same signal without `SA_NODEFER`.
//!
//! **Default actions** (signal(7)): terminate or dump core (both end the
//! run with status 128 + N), ignore (SIGCHLD, SIGCONT, SIGURG, SIGWINCH).
//! The stop signals (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) would stop the
//! process until a SIGCONT from outside, which cannot come in fwprof: their
//! default action is taken as a stop followed at once by a continue.

mod frame;

pub(crate) use frame::{
    frame_address, frame_bytes, read_frame, FrameLayout, FrameState, SIGINFO_SIZE,
};

use crate::api::{HandlerStart, KillCause, SignalOutcome, UserContext};
use crate::{Environment, Fault, GuestMemory};

pub(crate) const SIGILL: i32 = 4;
pub(crate) const SIGTRAP: i32 = 5;
pub(crate) const SIGKILL: i32 = 9;
pub(crate) const SIGSEGV: i32 = 11;
pub(crate) const SIGPIPE: i32 = 13;
pub(crate) const SIGALRM: i32 = 14;
pub(crate) const SIGSTOP: i32 = 19;
/// The highest signal number (`_NSIG` on RISC-V Linux).
pub(crate) const NSIG: i32 = 64;

/// `sa_handler` values.
pub(crate) const SIG_DFL: u64 = 0;
pub(crate) const SIG_IGN: u64 = 1;

/// `sa_flags` bits (`include/uapi/asm-generic/signal.h`; RISC-V has no
/// `SA_RESTORER`). `SA_SIGINFO` (4) changes nothing (see the module
/// docs). `SA_RESTART` (0x1000_0000) is kept and reported back, and
/// changes nothing either: the calls fwprof can interrupt with a handler
/// (`nanosleep`, `clock_nanosleep`, `ppoll`, `rt_sigsuspend`,
/// `rt_sigtimedwait`) are those Linux never restarts after one, and the
/// others never wait in guest time (a read from a terminal blocks in host
/// time, while the guest's clock stands still).
pub(crate) const SA_ONSTACK: u64 = 0x0800_0000;
pub(crate) const SA_NODEFER: u64 = 0x4000_0000;
pub(crate) const SA_RESETHAND: u64 = 0x8000_0000;

/// `si_code` values (`include/uapi/asm-generic/siginfo.h`).
pub(crate) const SI_USER: i32 = 0;
pub(crate) const SI_KERNEL: i32 = 0x80;
pub(crate) const SI_TKILL: i32 = -6;
const SEGV_MAPERR: i32 = 1;
const SEGV_ACCERR: i32 = 2;
/// `BUS_ADRALN`, `ILL_ILLOPC`, `TRAP_BRKPT`: all 1.
const CODE_1: i32 = 1;

/// `ss_flags` of `stack_t`.
pub(crate) const SS_ONSTACK: u32 = 1;
pub(crate) const SS_DISABLE: u32 = 2;
/// `MINSIGSTKSZ` for RISC-V (QEMU `TARGET_MINSIGSTKSZ`).
pub(crate) const MINSIGSTKSZ: u64 = 2048;

/// One signal's bit in a `sigset_t`.
pub(crate) const fn bit(sig: i32) -> u64 {
    1u64 << (sig - 1)
}

/// SIGKILL and SIGSTOP: never blocked (`rt_sigprocmask` and `sigreturn`
/// drop them silently).
pub(crate) const UNBLOCKABLE: u64 = bit(SIGKILL) | bit(SIGSTOP);

/// What a signal does when its action is `SIG_DFL` (signal(7)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DefaultAction {
    /// End the process (status 128 + N).
    Terminate,
    /// End the process with a core dump (status 128 + N, as `Terminate`).
    Core,
    /// Nothing.
    Ignore,
    /// Stop until SIGCONT: taken as stop-and-continue (module docs).
    Stop,
}

/// The default action of `sig` (1..=64).
pub(crate) fn default_action(sig: i32) -> DefaultAction {
    match sig {
        // SIGCHLD, SIGCONT, SIGURG, SIGWINCH.
        17 | 18 | 23 | 28 => DefaultAction::Ignore,
        // SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU.
        19..=22 => DefaultAction::Stop,
        // SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV,
        // SIGXCPU, SIGXFSZ, SIGSYS.
        3..=8 | 11 | 24 | 25 | 31 => DefaultAction::Core,
        _ => DefaultAction::Terminate,
    }
}

/// A signal's action (`struct sigaction` on RISC-V: handler, flags, mask).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Action {
    /// `SIG_DFL`, `SIG_IGN` or the handler's address.
    pub handler: u64,
    /// `sa_flags`, as given.
    pub flags: u64,
    /// `sa_mask`: blocked while the handler runs.
    pub mask: u64,
}

/// What a `siginfo_t` says besides the signal number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SigInfo {
    /// `si_code`.
    pub code: i32,
    /// `si_pid` and `si_uid` (`kill`, `tgkill`, kernel-sent signals).
    pub pid: i32,
    /// See `pid`.
    pub uid: u32,
    /// `si_addr` of a fault (`None`: the `_kill` fields are used).
    pub addr: Option<u64>,
}

impl SigInfo {
    /// Sent by `kill` (`SI_USER`) or `tkill`/`tgkill` (`SI_TKILL`) from
    /// this process.
    pub(crate) fn sent(code: i32) -> SigInfo {
        SigInfo {
            code,
            pid: super::misc::host_pid() as i32,
            uid: super::misc::host_ids()[0] as u32,
            addr: None,
        }
    }

    /// Sent by the kernel (`SI_KERNEL`, no sender): a timer, a forced
    /// SIGSEGV.
    pub(crate) fn kernel() -> SigInfo {
        SigInfo {
            code: SI_KERNEL,
            ..SigInfo::default()
        }
    }

    /// The guest's 128-byte `siginfo_t` for `signo`: `si_signo`,
    /// `si_errno` (0), `si_code`, then the union at offset 16 (RV64) or 12
    /// (RV32): `si_addr`, or `si_pid` and `si_uid`.
    pub(crate) fn bytes(&self, signo: i32, rv64: bool) -> [u8; SIGINFO_SIZE] {
        let mut b = [0u8; SIGINFO_SIZE];
        b[0..4].copy_from_slice(&signo.to_le_bytes());
        b[8..12].copy_from_slice(&self.code.to_le_bytes());
        let u = if rv64 { 16 } else { 12 };
        match self.addr {
            Some(a) if rv64 => b[u..u + 8].copy_from_slice(&a.to_le_bytes()),
            Some(a) => b[u..u + 4].copy_from_slice(&(a as u32).to_le_bytes()),
            None => {
                b[u..u + 4].copy_from_slice(&self.pid.to_le_bytes());
                b[u + 4..u + 8].copy_from_slice(&self.uid.to_le_bytes());
            }
        }
        b
    }
}

/// The alternate signal stack (`sigaltstack`); size 0 when disabled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AltStack {
    /// `ss_sp`: its lowest address.
    pub base: u64,
    /// `ss_size` (0: disabled).
    pub size: u64,
}

impl AltStack {
    /// True if `sp` lies on the alternate stack (QEMU `on_sig_stack`).
    pub(crate) fn holds(&self, sp: u64) -> bool {
        sp.wrapping_sub(self.base) < self.size
    }

    /// `ss_flags` as seen with `sp` (QEMU `sas_ss_flags`): `SS_DISABLE`,
    /// `SS_ONSTACK` or 0.
    pub(crate) fn flags(&self, sp: u64) -> u32 {
        if self.size == 0 {
            SS_DISABLE
        } else if self.holds(sp) {
            SS_ONSTACK
        } else {
            0
        }
    }
}

/// A synchronous signal waiting to be forced ([`Thread::forced`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Forced {
    pub signo: i32,
    pub info: SigInfo,
    pub cause: KillCause,
}

/// A thread's signal state.
#[derive(Clone, Debug)]
pub(crate) struct Thread {
    /// Blocked signals.
    pub blocked: u64,
    /// Pending signals (one of each at most: a signal sent again while
    /// pending is dropped, as the kernel does for standard signals and
    /// QEMU 7.2 for all).
    pub pending: u64,
    /// `siginfo` of each pending signal (index = signal number).
    pub info: Vec<SigInfo>,
    /// A synchronous signal (a fault, a failed frame) to deliver first.
    pub forced: Option<Forced>,
    /// The mask a `rt_sigsuspend` or `ppoll` replaced for its wait: the
    /// frame of the handler that ends the wait saves it, and it is
    /// restored if no handler runs (the kernel's `saved_sigmask`).
    pub saved_mask: Option<u64>,
    /// The alternate signal stack.
    pub alt: AltStack,
}

impl Default for Thread {
    fn default() -> Thread {
        Thread {
            blocked: 0,
            pending: 0,
            info: vec![SigInfo::default(); NSIG as usize + 1],
            forced: None,
            saved_mask: None,
            alt: AltStack::default(),
        }
    }
}

/// `ITIMER_REAL` in guest time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RealTimer {
    /// Guest nanoseconds of the next expiry (`None`: disarmed).
    pub deadline: Option<u64>,
    /// Nanoseconds between expiries (0: one-shot).
    pub interval: u64,
}

/// A process's signal state.
#[derive(Clone, Debug)]
pub(crate) struct Signals {
    /// Per process: each signal's action (index = signal number; 0 unused).
    pub actions: Vec<Action>,
    /// Per process: `ITIMER_REAL`, which sends SIGALRM in guest time.
    pub real: RealTimer,
    /// Per process: `ITIMER_VIRTUAL` and `ITIMER_PROF` as set (interval
    /// and value, seconds and microseconds), reported by `getitimer` and
    /// never delivered: they count the process's CPU time, which in QEMU
    /// is host time spent translating and running, so their SIGVTALRM and
    /// SIGPROF would come at instructions no simulator can reproduce
    /// (glibc's `profil()`, used by `-pg` programs, gathers nothing).
    pub cpu_timers: [[u64; 4]; 2],
    /// The one thread's state.
    pub thread: Thread,
    /// The sigreturn trampoline: every handler's return address.
    pub trampoline: u64,
}

impl Default for Signals {
    fn default() -> Signals {
        Signals {
            actions: vec![Action::default(); NSIG as usize + 1],
            real: RealTimer::default(),
            cpu_timers: [[0; 4]; 2],
            thread: Thread::default(),
            trampoline: 0,
        }
    }
}

impl Signals {
    /// True if `sig` sent now would be discarded: its action ignores it
    /// and it is not blocked (the kernel's `sig_ignored`; a blocked signal
    /// stays pending, its action may change before it is unblocked).
    pub(crate) fn ignored(&self, sig: i32, blocked: u64) -> bool {
        blocked & bit(sig) == 0 && self.ignores(sig)
    }

    /// True if `sig`'s action ignores it: `SIG_IGN`, or `SIG_DFL` with a
    /// default action of ignore (or stop: see the module docs).
    pub(crate) fn ignores(&self, sig: i32) -> bool {
        match self.actions[sig as usize].handler {
            SIG_IGN => true,
            SIG_DFL => matches!(
                default_action(sig),
                DefaultAction::Ignore | DefaultAction::Stop
            ),
            _ => false,
        }
    }

    /// Send `sig` (1..=64) to the thread with `info`: discarded if ignored,
    /// dropped if already pending, else pending.
    pub(crate) fn send(&mut self, sig: i32, info: SigInfo) {
        let t = &self.thread;
        if self.ignored(sig, t.blocked) || t.pending & bit(sig) != 0 {
            return;
        }
        let t = &mut self.thread;
        t.pending |= bit(sig);
        t.info[sig as usize] = info;
    }

    /// Take pending `sig` off the queue; its `siginfo`.
    pub(crate) fn dequeue(&mut self, sig: i32) -> SigInfo {
        self.thread.pending &= !bit(sig);
        self.thread.info[sig as usize]
    }

    /// Expire `ITIMER_REAL` up to guest time `now`: one SIGALRM however
    /// many periods passed (the kernel's `hrtimer_forward` counts them as
    /// overruns), then re-armed for the first period after `now`, or
    /// disarmed.
    pub(crate) fn expire_timer(&mut self, now: u64) {
        let Some(d) = self.real.deadline.filter(|&d| d <= now) else {
            return;
        };
        self.send(SIGALRM, SigInfo::kernel());
        let i = self.real.interval;
        self.real.deadline = ((now - d).checked_div(i))
            .and_then(|periods| d.checked_add((periods + 1).saturating_mul(i)));
    }

    /// How a wait that starts at guest time `now` ends (see [`Wait`]): on
    /// the first signal that wakes it — one in `set` (taken by
    /// `rt_sigtimedwait`), or one not in `blocked` (the mask in force
    /// while waiting) whose action does not ignore it — already pending,
    /// or raised by `ITIMER_REAL`; or at guest time `until`. The timer's
    /// expiries before the end are taken.
    pub(crate) fn wait(&mut self, now: u64, blocked: u64, set: u64, until: Option<u64>) -> Wait {
        // A signal in `set` is taken unless sending it discards it; any
        // other wakes if not blocked while waiting and not ignored.
        let wakes = |s: &Signals, sig: i32| {
            if set & bit(sig) != 0 {
                !s.ignored(sig, s.thread.blocked)
            } else {
                blocked & bit(sig) == 0 && !s.ignores(sig)
            }
        };
        let ready = (1..=NSIG).any(|sig| self.thread.pending & bit(sig) != 0 && wakes(self, sig));
        if ready {
            return Wait::Signal { at: now };
        }
        if let Some(d) = self.real.deadline {
            let d = d.max(now);
            if until.is_none_or(|u| d <= u) && wakes(self, SIGALRM) {
                self.expire_timer(d);
                return Wait::Signal { at: d };
            }
        }
        match until {
            Some(u) => {
                self.expire_timer(u);
                Wait::Timeout { at: u }
            }
            None => Wait::Forever(self.why_forever(blocked, set)),
        }
    }

    /// Why nothing can end a wait without a timeout, in a few words.
    fn why_forever(&self, blocked: u64, set: u64) -> String {
        let alarm = "SIGALRM";
        match self.real.deadline {
            None => "no timer is armed and no signal it waits for is pending".to_string(),
            Some(_) if set & bit(SIGALRM) == 0 && blocked & bit(SIGALRM) != 0 => {
                format!("the armed ITIMER_REAL sends {alarm}, which is blocked while it waits")
            }
            Some(_) => format!("the armed ITIMER_REAL sends {alarm}, which is ignored"),
        }
    }

    /// The thread's signals that can be delivered now.
    fn deliverable(&self) -> u64 {
        self.thread.pending & !self.thread.blocked
    }
}

/// How a wait for signals ends ([`Signals::wait`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// A signal that wakes the wait is pending at guest time `at`.
    Signal { at: u64 },
    /// The time limit passed first, at `at`.
    Timeout { at: u64 },
    /// Nothing can ever end it (why).
    Forever(String),
}

impl Environment {
    /// A synchronous fault of the thread (the simulator's exception in a
    /// Linux program): the signal is forced as the kernel's
    /// `force_sig_info` does — if blocked or ignored it is unblocked and
    /// its action reset to the default — and is delivered first by the
    /// next [`Environment::deliver_signal`]. `si_code` is SEGV_MAPERR or
    /// SEGV_ACCERR (whether anything is mapped at the address, as QEMU
    /// 7.2 decides), BUS_ADRALN, ILL_ILLOPC or TRAP_BRKPT; `si_addr` the
    /// data address, or the pc for SIGILL and SIGTRAP.
    pub fn raise_fault(&mut self, fault: Fault, mem: &dyn GuestMemory) {
        let sig = fault.signo.clamp(1, NSIG);
        let (code, addr) = match sig {
            SIGSEGV if mem.is_mapped(fault.addr, 1) => (SEGV_ACCERR, fault.addr),
            SIGSEGV => (SEGV_MAPERR, fault.addr),
            SIGILL | SIGTRAP => (CODE_1, fault.pc),
            _ => (CODE_1, fault.addr),
        };
        let info = SigInfo {
            code,
            addr: Some(addr),
            ..SigInfo::default()
        };
        self.force(sig, info, KillCause::Fault);
    }

    /// Force `sig` (see [`Environment::raise_fault`]).
    fn force(&mut self, sig: i32, info: SigInfo, cause: KillCause) {
        let s = &mut self.linux.signals;
        let blocked = s.thread.blocked & bit(sig) != 0;
        if blocked || s.actions[sig as usize].handler == SIG_IGN {
            s.actions[sig as usize].handler = SIG_DFL;
            s.thread.blocked &= !bit(sig);
        }
        s.thread.forced = Some(Forced {
            signo: sig,
            info,
            cause,
        });
    }

    /// True if a signal can be delivered now (a forced one, or one pending
    /// and not blocked): the simulator then calls
    /// [`Environment::deliver_signal`]. Cheap; asked after every system
    /// call of a Linux program.
    pub fn signal_pending(&self) -> bool {
        let s = &self.linux.signals;
        s.thread.forced.is_some() || s.deliverable() != 0 || s.thread.saved_mask.is_some()
    }

    /// Deliver the next signal to the thread whose registers are `ctx`
    /// (QEMU 7.2 `process_pending_signals` and `handle_pending_signal`; see
    /// the module docs): a forced synchronous signal first, then the
    /// lowest-numbered pending one that is not blocked. Ignored signals
    /// are dropped on the way. A handler gets its frame written to `mem`
    /// and `ctx` set to run it ([`SignalOutcome::Handler`]); a default
    /// action that ends the process gives [`SignalOutcome::Killed`].
    /// Call again until [`SignalOutcome::Idle`]: one delivery can make
    /// another possible.
    pub fn deliver_signal(
        &mut self,
        ctx: &mut UserContext,
        mem: &mut dyn GuestMemory,
    ) -> SignalOutcome {
        let rv64 = self.rv64;
        loop {
            let s = &mut self.linux.signals;
            let (sig, info, cause) = if let Some(f) = s.thread.forced.take() {
                (f.signo, f.info, f.cause)
            } else {
                let ready = s.deliverable();
                if ready == 0 {
                    // No handler ended a sigsuspend/ppoll wait: its mask goes.
                    if let Some(m) = s.thread.saved_mask.take() {
                        s.thread.blocked = m;
                    }
                    return SignalOutcome::Idle;
                }
                let sig = ready.trailing_zeros() as i32 + 1;
                (sig, s.dequeue(sig), KillCause::Signal)
            };
            let act = s.actions[sig as usize];
            match act.handler {
                SIG_IGN => continue,
                SIG_DFL => match default_action(sig) {
                    DefaultAction::Ignore | DefaultAction::Stop => continue,
                    DefaultAction::Terminate | DefaultAction::Core => {
                        return SignalOutcome::Killed { signo: sig, cause }
                    }
                },
                _ => {}
            }
            let t = &s.thread;
            let sp = ctx.x[2];
            let layout = FrameLayout::new(rv64);
            let state = FrameState {
                mask: t.saved_mask.unwrap_or(t.blocked),
                stack: (t.alt.base, t.alt.flags(sp), t.alt.size),
            };
            let frame = frame_address(&t.alt, act.flags, sp, layout.size, rv64);
            let bytes = frame_bytes(rv64, sig, &info, ctx, &state);
            match frame {
                Some(addr) if mem.write(addr, &bytes).is_ok() => {
                    let on_alt = t.alt.holds(addr);
                    let alt = on_alt.then_some((t.alt.base, t.alt.base.wrapping_add(t.alt.size)));
                    let t = &mut s.thread;
                    t.saved_mask = None;
                    let defer = if act.flags & SA_NODEFER != 0 {
                        0
                    } else {
                        bit(sig)
                    };
                    t.blocked |= (act.mask | defer) & !UNBLOCKABLE;
                    if act.flags & SA_RESETHAND != 0 {
                        s.actions[sig as usize].handler = SIG_DFL;
                    }
                    let start = HandlerStart {
                        signo: sig,
                        handler: act.handler,
                        pc: ctx.pc,
                        sp,
                        frame: addr,
                        alt_stack: alt,
                    };
                    ctx.pc = act.handler;
                    ctx.x[1] = s.trampoline;
                    ctx.x[2] = addr;
                    ctx.x[10] = sig as u64;
                    ctx.x[11] = addr;
                    ctx.x[12] = addr.wrapping_add(layout.uc);
                    return SignalOutcome::Handler(start);
                }
                _ => {
                    // The kernel's force_sigsegv (QEMU: a SIGSEGV handler
                    // is reset first, so that a failing one kills).
                    if sig == SIGSEGV {
                        s.actions[SIGSEGV as usize].handler = SIG_DFL;
                    }
                    let addr = frame.unwrap_or(u64::MAX);
                    let cause = KillCause::Frame { addr, write: true };
                    self.force(SIGSEGV, SigInfo::kernel(), cause);
                }
            }
        }
    }

    /// `rt_sigreturn` (after [`crate::EnvOutcome::SigReturn`]): restore
    /// the thread's registers, mask and alternate stack from the frame at
    /// its `sp` (QEMU 7.2 `do_rt_sigreturn`; the alternate stack as
    /// `sigaltstack` would set it, its errors other than a bad address
    /// ignored). Returns false, with SIGSEGV forced and `ctx` unchanged,
    /// if the frame cannot be read.
    pub fn sigreturn(&mut self, ctx: &mut UserContext, mem: &mut dyn GuestMemory) -> bool {
        let rv64 = self.rv64;
        let addr = ctx.x[2];
        let mut bytes = vec![0u8; FrameLayout::new(rv64).size as usize];
        if mem.read(addr, &mut bytes).is_err() {
            let cause = KillCause::Frame { addr, write: false };
            self.force(SIGSEGV, SigInfo::kernel(), cause);
            return false;
        }
        let state = read_frame(rv64, &bytes, ctx);
        let t = &mut self.linux.signals.thread;
        t.blocked = state.mask & !UNBLOCKABLE;
        let (ss_sp, ss_flags, ss_size) = state.stack;
        let _ = set_alt_stack(&mut t.alt, ss_sp, ss_flags, ss_size, ctx.x[2]);
        true
    }

    /// Guest nanoseconds of the next expiry of `ITIMER_REAL`, if armed:
    /// the simulator calls [`Environment::expire_timers`] when its clock
    /// reaches it.
    pub fn next_timer(&self) -> Option<u64> {
        self.linux.signals.real.deadline
    }

    /// Guest time is `now` nanoseconds: send the signals of the timers
    /// that expired (SIGALRM of `ITIMER_REAL`, `si_code` SI_KERNEL).
    pub fn expire_timers(&mut self, now: u64) {
        self.linux.signals.expire_timer(now);
    }
}

/// Set the alternate stack as `sigaltstack` does with a new `stack_t`
/// (QEMU 7.2 `target_restore_altstack`), the thread's `sp` being `sp`:
/// `EPERM` while running on the current one, `EINVAL` for flags other
/// than 0, `SS_ONSTACK` or `SS_DISABLE` (QEMU 7.2 knows no
/// `SS_AUTODISARM`), `ENOMEM` below `MINSIGSTKSZ`.
pub(crate) fn set_alt_stack(
    alt: &mut AltStack,
    ss_sp: u64,
    ss_flags: u32,
    ss_size: u64,
    sp: u64,
) -> Result<(), i32> {
    if alt.holds(sp) {
        return Err(libc::EPERM);
    }
    *alt = match ss_flags {
        SS_DISABLE => AltStack::default(),
        0 | SS_ONSTACK if ss_size < MINSIGSTKSZ => return Err(libc::ENOMEM),
        0 | SS_ONSTACK => AltStack {
            base: ss_sp,
            size: ss_size,
        },
        _ => return Err(libc::EINVAL),
    };
    Ok(())
}
