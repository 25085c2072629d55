//! The simulator's side of Linux signals: it hands the hart's user-visible
//! registers to the environment, which owns the rules (`fwprof_os::linux::
//! signals`: frames, masks, default actions, timers), at the three points
//! where the kernel would look at pending signals — after a synchronous
//! exception, after a system call (an `rt_sigreturn` included), and when
//! the guest clock reaches an `ITIMER_REAL` deadline (a point of the run
//! loop like a timer interrupt's) — and tells the hooks what started
//! ([`Hooks::on_signal`]) and what returned ([`Hooks::on_signal_return`]).

use super::*;
use crate::hart::Hart;
use crate::hooks::{SignalDelivery, SignalReturn};
use fwprof_os::{EnvError, Fault, KillCause, SignalOutcome, UserContext};

/// `mcause` given to a kill by a signal frame the kernel could not write
/// (a store access fault at the frame's address, as a Linux program's own
/// store there would raise it) or read back (a load access fault).
const CAUSE_FRAME_STORE: u64 = fwprof_isa::CAUSE_STORE_ACCESS;
const CAUSE_FRAME_LOAD: u64 = fwprof_isa::CAUSE_LOAD_ACCESS;

/// The registers a signal frame saves.
fn context_of(hart: &Hart) -> UserContext {
    UserContext {
        pc: hart.pc,
        x: *hart.xs(),
        f: hart.f,
        fcsr: u32::from(hart.frm) << 5 | u32::from(hart.fflags),
    }
}

/// Load `ctx` into the hart (RV32 values sign-extended, the pc truncated).
fn restore(hart: &mut Hart, ctx: &UserContext) {
    *hart.xs_mut() = ctx.x;
    hart.normalize_x();
    hart.f = ctx.f;
    hart.frm = ((ctx.fcsr >> 5) & 7) as u8;
    hart.fflags = (ctx.fcsr & 0x1f) as u8;
    hart.pc = if hart.rv64 {
        ctx.pc
    } else {
        ctx.pc & 0xffff_ffff
    };
}

impl<H: Hooks> Simulator<H> {
    /// A Linux program's instruction at `pc` raised `exc`: the kernel sends
    /// the signal of its cause (`fwprof_isa::signal_for_cause`), forced
    /// ([`fwprof_os::Environment::raise_fault`]); its handler runs, or its
    /// default action ends the run with [`StopReason::Signal`].
    pub(super) fn linux_fault(&mut self, exc: Exc, pc: u64) -> Option<StopReason> {
        self.hart.pc = pc;
        let signo = signal_for_cause(exc.cause);
        let killed = StopReason::Signal {
            signo,
            cause: exc.cause,
            pc,
            tval: exc.tval,
        };
        let Some(env) = self.env.as_mut() else {
            return Some(killed);
        };
        let fault = Fault {
            signo,
            pc,
            addr: exc.tval,
        };
        env.raise_fault(fault, &self.mem);
        self.deliver_signals(Some(killed))
    }

    /// After a Linux system call that returned to the program: deliver
    /// the signals it sent or unblocked (none for semihosting).
    pub(super) fn after_syscall(&mut self, semihost: bool) -> Option<StopReason> {
        match &self.env {
            Some(env) if !semihost && env.signal_pending() => self.deliver_signals(None),
            _ => None,
        }
    }

    /// `rt_sigreturn` by the `ecall` at `pc`: the environment restores the
    /// registers from the frame; then the signals the restored mask
    /// unblocks are delivered (or the SIGSEGV of an unreadable frame).
    pub(super) fn sigreturn(&mut self, pc: u64) -> Option<StopReason> {
        let env = self.env.as_mut()?;
        let mut ctx = context_of(&self.hart);
        if env.sigreturn(&mut ctx, &mut self.mem) {
            restore(&mut self.hart, &ctx);
            self.hooks.on_signal_return(&SignalReturn {
                pc,
                target: self.hart.pc,
                sp: self.hart.x[2],
                instret: self.hart.executed,
            });
        }
        self.deliver_signals(None)
    }

    /// Deliver every signal that can be delivered now; `fault` is the stop
    /// of the synchronous fault just raised, if any. `None` if the program
    /// goes on (in a handler or where it was).
    fn deliver_signals(&mut self, fault: Option<StopReason>) -> Option<StopReason> {
        let stop = loop {
            let Some(env) = self.env.as_mut() else {
                break None;
            };
            let mut ctx = context_of(&self.hart);
            match env.deliver_signal(&mut ctx, &mut self.mem) {
                SignalOutcome::Idle => break None,
                SignalOutcome::Handler(h) => {
                    restore(&mut self.hart, &ctx);
                    self.hooks.on_signal(&SignalDelivery {
                        signo: h.signo,
                        pc: h.pc,
                        sp: h.sp,
                        handler: h.handler,
                        frame: h.frame,
                        alt_stack: h.alt_stack,
                        instret: self.hart.executed,
                    });
                }
                SignalOutcome::Killed { signo, cause } => {
                    break Some(match cause {
                        KillCause::Fault => fault.clone().unwrap_or(StopReason::Exit(128 + signo)),
                        KillCause::Frame { addr, write } => StopReason::Signal {
                            signo,
                            cause: if write {
                                CAUSE_FRAME_STORE
                            } else {
                                CAUSE_FRAME_LOAD
                            },
                            pc: self.hart.pc,
                            tval: addr,
                        },
                        // Default actions of signals sent to the process end
                        // it as a shell reports a death by signal N.
                        KillCause::Signal => StopReason::Exit(128 + signo),
                    });
                }
            }
        };
        // A frame may have been written over translated code.
        if self.mem.has_code_writes() {
            self.invalidate_written_code();
        }
        stop
    }

    /// The guest clock in nanoseconds before instruction `at.1` of block
    /// `at.0` (a system call's `ecall`).
    pub(super) fn guest_ns(&mut self, at: (u32, u32)) -> u64 {
        let base = self.clock_base(at, false);
        self.hart.clock.ns(base)
    }

    /// Linux: the executed count at which the next `ITIMER_REAL` deadline
    /// may have passed (`u64::MAX` if none is armed); the run loop looks
    /// then, as for a timer interrupt.
    pub(super) fn signal_timer_point(&mut self) -> u64 {
        match self.env.as_ref().and_then(Environment::next_timer) {
            Some(deadline) => self.deadline_point(deadline),
            None => u64::MAX,
        }
    }

    /// Linux, at an instruction boundary: if an `ITIMER_REAL` deadline has
    /// passed, send its SIGALRM and deliver what can be; true if a handler
    /// may have started (the hart's pc changed) or the process was killed
    /// (then `signal_stop` holds the stop for the run loop).
    pub(super) fn take_signal_timer(&mut self) -> bool {
        let due = self.env.as_ref().and_then(Environment::next_timer);
        let Some(deadline) = due else {
            return false;
        };
        let base = self.boundary_base();
        let now = self.hart.clock.ns(base);
        let Some(env) = self.env.as_mut().filter(|_| now >= deadline) else {
            return false;
        };
        env.expire_timers(now);
        if !env.signal_pending() {
            return false;
        }
        self.signal_stop = self.deliver_signals(None);
        true
    }
}

/// The simulator's error for an environment error at the call at `pc`: a
/// wait that can never end is the program's own (as a `wfi` with nothing
/// to wait for), anything else a failed call.
pub(super) fn env_error(pc: u64, source: EnvError) -> SimError {
    match source {
        EnvError::WaitForever { .. } => SimError::WaitForever {
            pc,
            reason: source.to_string(),
        },
        _ => SimError::Environment { pc, source },
    }
}
