//! Linux signals: the frame QEMU 7.2 builds (`linux-user/riscv/signal.c`),
//! delivery, masks, `rt_sigreturn`, forced faults, and waits in guest time.

use super::fixtures::config;
use crate::linux::signals::{frame_address, frame_bytes, read_frame, AltStack, FrameLayout};
use crate::linux::signals::{FrameState, SigInfo};
use crate::linux::syscalls as nr;
use crate::test_mem::TestMem;
use crate::{
    EnvError, EnvOutcome, Environment, Fault, GuestMemory, KillCause, Perm, SignalOutcome, Target,
    UserContext,
};

const STACK: u64 = 0x20_0000;
const STACK_SIZE: u64 = 0x1_0000;
const BUF: u64 = 0x10_0000;
const TRAMPOLINE: u64 = 0x30_0000;
const HANDLER: u64 = 0x1_0000;
const SIGUSR1: i32 = 10;
const SIGUSR2: i32 = 12;
const SIGSEGV: i32 = 11;
const SIGALRM: i32 = 14;

struct Rig {
    env: Environment,
    mem: TestMem,
    now: u64,
}

fn rw() -> Perm {
    Perm {
        read: true,
        write: true,
        exec: false,
    }
}

impl Rig {
    fn new(rv64: bool) -> Rig {
        let mut env = Environment::new(&config("p", &[], &[]), Target::Linux, rv64);
        env.capture_console(Vec::new());
        env.linux.signals.trampoline = TRAMPOLINE;
        let mut mem = TestMem::new();
        mem.map(STACK, STACK_SIZE, rw()).unwrap();
        mem.map(BUF, 0x1000, rw()).unwrap();
        Rig { env, mem, now: 0 }
    }

    fn call(&mut self, n: u64, args: &[u64]) -> (Result<EnvOutcome, EnvError>, i64) {
        let mut regs = [0u64; 32];
        regs[17] = n;
        regs[2] = STACK + STACK_SIZE - 0x100;
        regs[10..10 + args.len()].copy_from_slice(args);
        let o = self.env.ecall(&mut regs, &mut self.mem, self.now);
        (o, regs[10] as i64)
    }

    fn sys(&mut self, n: u64, args: &[u64]) -> i64 {
        match self.call(n, args) {
            (Ok(EnvOutcome::Continue), v) => v,
            (o, _) => panic!("unexpected {o:?}"),
        }
    }

    /// `rt_sigaction(sig, {handler, flags, mask})`.
    fn action(&mut self, sig: i32, handler: u64, flags: u64, mask: u64) {
        let b = [handler, flags, mask].map(u64::to_le_bytes).concat();
        self.mem.write(BUF, &b).unwrap();
        assert_eq!(self.sys(nr::RT_SIGACTION, &[sig as u64, BUF, 0, 8]), 0);
    }

    fn mask(&mut self, how: u64, set: u64) {
        self.mem.write(BUF + 0x100, &set.to_le_bytes()).unwrap();
        assert_eq!(self.sys(nr::RT_SIGPROCMASK, &[how, BUF + 0x100, 0, 8]), 0);
    }

    fn blocked(&self) -> u64 {
        self.env.linux.signals.thread.blocked
    }

    fn raise(&mut self, sig: i32) {
        let pid = std::process::id() as u64;
        assert_eq!(self.sys(nr::TGKILL, &[pid, pid, sig as u64]), 0);
    }
}

fn context() -> UserContext {
    let mut ctx = UserContext {
        pc: 0x1234,
        x: [0; 32],
        f: [0; 32],
        fcsr: 0x25,
    };
    for i in 1..32 {
        ctx.x[i] = 0x1000 + i as u64;
        ctx.f[i] = 0xf000 + i as u64;
    }
    ctx.x[2] = STACK + STACK_SIZE - 0x100;
    ctx
}

fn bit(sig: i32) -> u64 {
    1 << (sig - 1)
}

#[test]
fn frame_layout_is_qemu_7_2s() {
    // RV64, as `qemu-riscv64` puts it (read back by glibc's ucontext_t in
    // a handler, tests/signals): siginfo 128 bytes, then the ucontext with
    // uc_stack at +16, uc_sigmask at +40, uc_mcontext at +176 (pc, x1..x31,
    // f0..f31, fcsr); the frame is 832 bytes.
    let l = FrameLayout::new(true);
    assert_eq!(
        (l.uc, l.stack, l.sigmask, l.mcontext, l.fpr, l.fcsr, l.size),
        (128, 144, 168, 304, 560, 816, 832)
    );
    // RV32: 4-byte words, mcontext still 16-byte aligned.
    let l = FrameLayout::new(false);
    assert_eq!(
        (l.uc, l.stack, l.sigmask, l.mcontext, l.fpr, l.fcsr, l.size),
        (128, 136, 148, 288, 416, 672, 688)
    );
}

#[test]
fn frame_bytes_hold_the_context_and_read_back() {
    for rv64 in [true, false] {
        let mut ctx = context();
        if !rv64 {
            ctx.x.iter_mut().for_each(|x| *x &= 0xffff_ffff);
            ctx.pc &= 0xffff_ffff;
        }
        let info = SigInfo {
            code: 2,
            addr: Some(0xdead),
            ..SigInfo::default()
        };
        let state = FrameState {
            mask: 0x8000_0000_0000_0201,
            stack: (0x5000, 1, 0x4000),
        };
        let b = frame_bytes(rv64, SIGSEGV, &info, &ctx, &state);
        let l = FrameLayout::new(rv64);
        assert_eq!(b.len() as u64, l.size);
        let word = |at: u64, n: usize| {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&b[at as usize..at as usize + n]);
            u64::from_le_bytes(w)
        };
        let n = if rv64 { 8 } else { 4 };
        // siginfo: si_signo, si_errno, si_code, si_addr.
        assert_eq!(word(0, 4), 11);
        assert_eq!(word(4, 4), 0);
        assert_eq!(word(8, 4), 2);
        assert_eq!(word(if rv64 { 16 } else { 12 }, n), 0xdead);
        // gregs[0] is the pc, gregs[n] is xn.
        assert_eq!(word(l.mcontext, n), ctx.pc);
        assert_eq!(word(l.mcontext + 2 * n as u64, n), ctx.x[2]);
        assert_eq!(word(l.mcontext + 31 * n as u64, n), ctx.x[31]);
        assert_eq!(word(l.fpr + 8 * 31, 8), ctx.f[31]);
        assert_eq!(word(l.fcsr, 4), 0x25);
        assert_eq!(word(l.sigmask, 8), state.mask);
        assert_eq!(word(l.stack, n), 0x5000);
        assert_eq!(word(l.stack + n as u64, 4), 1);
        assert_eq!(word(l.stack + 2 * n as u64, n), 0x4000);
        let mut back = UserContext {
            pc: 0,
            x: [0; 32],
            f: [0; 32],
            fcsr: 0,
        };
        assert_eq!(read_frame(rv64, &b, &mut back), state);
        back.x[0] = ctx.x[0];
        assert_eq!(back, ctx, "rv64 {rv64}");
    }
}

#[test]
fn kill_and_tkill_siginfo() {
    let pid = std::process::id() as i32;
    let b = SigInfo::sent(-6).bytes(10, true);
    assert_eq!(i32::from_le_bytes(b[8..12].try_into().unwrap()), -6);
    assert_eq!(i32::from_le_bytes(b[16..20].try_into().unwrap()), pid);
    let b = SigInfo::kernel().bytes(14, false);
    assert_eq!(i32::from_le_bytes(b[8..12].try_into().unwrap()), 0x80);
    assert_eq!(&b[12..20], &[0; 8]);
}

#[test]
fn frames_go_below_sp_or_on_the_alternate_stack_16_byte_aligned() {
    let none = AltStack::default();
    assert_eq!(frame_address(&none, 0, 0x1_0009, 832, true), Some(0xfcc0));
    // SA_ONSTACK without an alternate stack: below sp.
    assert_eq!(
        frame_address(&none, 0x0800_0000, 0x1_0000, 832, true),
        Some(0xfcc0)
    );
    let alt = AltStack {
        base: 0x4000,
        size: 0x2000,
    };
    assert_eq!(
        frame_address(&alt, 0x0800_0000, 0x1_0000, 832, true),
        Some(0x6000 - 832)
    );
    // Without SA_ONSTACK the alternate stack is not used.
    assert_eq!(frame_address(&alt, 0, 0x1_0000, 832, true), Some(0xfcc0));
    // Already on it: below sp; no room left: no frame (SIGSEGV).
    assert_eq!(
        frame_address(&alt, 0x0800_0000, 0x5000, 832, true),
        Some(0x5000 - 832)
    );
    assert_eq!(frame_address(&alt, 0x0800_0000, 0x4100, 832, true), None);
}

#[test]
fn a_handler_starts_with_its_frame_mask_and_registers_and_sigreturn_restores() {
    let mut r = Rig::new(true);
    r.action(SIGUSR1, HANDLER, 0, bit(SIGUSR2));
    r.mask(0, bit(SIGALRM));
    r.raise(SIGUSR1);
    let mut ctx = context();
    let before = ctx;
    let o = r.env.deliver_signal(&mut ctx, &mut r.mem);
    let SignalOutcome::Handler(h) = o else {
        panic!("{o:?}")
    };
    let frame = (before.x[2] - 832) & !15;
    assert_eq!(h.signo, SIGUSR1);
    assert_eq!(
        (h.handler, h.pc, h.sp, h.frame),
        (HANDLER, 0x1234, before.x[2], frame)
    );
    assert_eq!(h.alt_stack, None);
    assert_eq!(ctx.pc, HANDLER);
    assert_eq!(
        (ctx.x[1], ctx.x[2], ctx.x[10], ctx.x[11], ctx.x[12]),
        (TRAMPOLINE, frame, 10, frame, frame + 128)
    );
    // The signal and sa_mask are blocked while it runs.
    assert_eq!(r.blocked(), bit(SIGALRM) | bit(SIGUSR1) | bit(SIGUSR2));
    // siginfo of tgkill: SI_TKILL from this process.
    assert_eq!(r.mem.peek(frame, 4), 10u32.to_le_bytes());
    assert_eq!(r.mem.peek(frame + 8, 4), (-6i32).to_le_bytes());
    // The frame saved the mask before delivery.
    assert_eq!(r.mem.peek_u64(frame + 168), bit(SIGALRM));
    assert_eq!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Idle
    );
    // The handler clobbers registers; rt_sigreturn restores all of them.
    ctx.x[5] = 99;
    ctx.f[3] = 7;
    ctx.fcsr = 0;
    ctx.x[2] = frame;
    assert!(r.env.sigreturn(&mut ctx, &mut r.mem));
    assert_eq!(ctx, before);
    assert_eq!(r.blocked(), bit(SIGALRM));
}

#[test]
fn blocked_signals_wait_and_nest_in_number_order_when_unblocked() {
    let mut r = Rig::new(true);
    r.action(SIGUSR1, HANDLER, 0, 0);
    r.action(SIGUSR2, HANDLER + 0x100, 0, 0);
    r.mask(0, bit(SIGUSR1) | bit(SIGUSR2));
    r.raise(SIGUSR2);
    r.raise(SIGUSR1);
    r.raise(SIGUSR1); // already pending: dropped
    assert!(!r.env.signal_pending());
    // rt_sigpending: pending and blocked.
    assert_eq!(r.sys(nr::RT_SIGPENDING, &[BUF, 8]), 0);
    assert_eq!(r.mem.peek_u64(BUF), bit(SIGUSR1) | bit(SIGUSR2));
    r.mask(1, bit(SIGUSR1) | bit(SIGUSR2));
    assert!(r.env.signal_pending());
    let mut ctx = context();
    let mut started = Vec::new();
    while let SignalOutcome::Handler(h) = r.env.deliver_signal(&mut ctx, &mut r.mem) {
        started.push(h.signo);
    }
    // SIGUSR1 first; SIGUSR2's frame on top of it runs first.
    assert_eq!(started, [SIGUSR1, SIGUSR2]);
    assert_eq!(ctx.pc, HANDLER + 0x100);
}

#[test]
fn nodefer_resethand_ignore_and_default_actions() {
    let mut r = Rig::new(true);
    r.action(SIGUSR1, HANDLER, 0x4000_0000 | 0x8000_0000, 0);
    r.raise(SIGUSR1);
    let mut ctx = context();
    assert!(matches!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Handler(_)
    ));
    assert_eq!(r.blocked(), 0, "SA_NODEFER");
    assert_eq!(r.env.linux.signals.actions[10].handler, 0, "SA_RESETHAND");
    // Default: SIGUSR1 terminates; SIGWINCH and SIGCHLD are ignored.
    r.raise(28);
    r.raise(17);
    r.raise(SIGUSR1);
    assert_eq!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Killed {
            signo: 10,
            cause: KillCause::Signal
        }
    );
    // SIG_IGN drops the signal, and discards it when pending.
    r.mask(0, bit(SIGUSR2));
    r.raise(SIGUSR2);
    r.action(SIGUSR2, 1, 0, 0);
    assert_eq!(r.env.linux.signals.thread.pending, 0);
    // SIGKILL and SIGSTOP cannot be blocked.
    r.mask(2, u64::MAX);
    assert_eq!(r.blocked(), !(bit(9) | bit(19)));
}

#[test]
fn faults_are_forced_blocked_or_ignored() {
    let fault = Fault {
        signo: SIGSEGV,
        pc: 0x1234,
        addr: 0x10,
    };
    // A handler gets SEGV_MAPERR and si_addr.
    let mut r = Rig::new(true);
    r.action(SIGSEGV, HANDLER, 0, 0);
    r.env.raise_fault(fault, &r.mem);
    let mut ctx = context();
    let SignalOutcome::Handler(h) = r.env.deliver_signal(&mut ctx, &mut r.mem) else {
        panic!()
    };
    assert_eq!(r.mem.peek(h.frame + 8, 4), 1i32.to_le_bytes());
    assert_eq!(r.mem.peek_u64(h.frame + 16), 0x10);
    // A mapped address: SEGV_ACCERR.
    let mut r = Rig::new(true);
    r.action(SIGSEGV, HANDLER, 0, 0);
    r.env.raise_fault(Fault { addr: BUF, ..fault }, &r.mem);
    let SignalOutcome::Handler(h) = r.env.deliver_signal(&mut context(), &mut r.mem) else {
        panic!()
    };
    assert_eq!(r.mem.peek(h.frame + 8, 4), 2i32.to_le_bytes());
    // Inside its own handler SIGSEGV is blocked: forced, it kills.
    r.env.raise_fault(fault, &r.mem);
    assert_eq!(
        r.env.deliver_signal(&mut context(), &mut r.mem),
        SignalOutcome::Killed {
            signo: SIGSEGV,
            cause: KillCause::Fault
        }
    );
    // Ignored: killed too. SIGILL's si_addr is the pc.
    let mut r = Rig::new(true);
    r.action(SIGSEGV, 1, 0, 0);
    r.env.raise_fault(fault, &r.mem);
    assert!(matches!(
        r.env.deliver_signal(&mut context(), &mut r.mem),
        SignalOutcome::Killed { signo: 11, .. }
    ));
    r.action(4, HANDLER, 0, 0);
    r.env.raise_fault(
        Fault {
            signo: 4,
            pc: 0x1234,
            addr: 0xc000_1073,
        },
        &r.mem,
    );
    let SignalOutcome::Handler(h) = r.env.deliver_signal(&mut context(), &mut r.mem) else {
        panic!()
    };
    assert_eq!(r.mem.peek_u64(h.frame + 16), 0x1234);
}

#[test]
fn a_frame_that_cannot_be_written_or_read_forces_sigsegv() {
    let mut r = Rig::new(true);
    r.action(SIGUSR1, HANDLER, 0, 0);
    r.raise(SIGUSR1);
    let mut ctx = context();
    ctx.x[2] = 0x9000; // nothing mapped below
    assert_eq!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Killed {
            signo: SIGSEGV,
            cause: KillCause::Frame {
                addr: (0x9000 - 832) & !15,
                write: true
            }
        }
    );
    // A SIGSEGV handler runs instead; with no room for its frame either,
    // it is reset and the process dies.
    let mut r = Rig::new(true);
    r.action(SIGUSR1, HANDLER, 0, 0);
    r.action(SIGSEGV, HANDLER, 0, 0);
    r.raise(SIGUSR1);
    assert!(matches!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Killed { signo: 11, .. }
    ));
    assert_eq!(r.env.linux.signals.actions[11].handler, 0);
    // rt_sigreturn with sp pointing nowhere.
    let mut r = Rig::new(true);
    let mut ctx = context();
    ctx.x[2] = 0x9000;
    let before = ctx;
    assert!(!r.env.sigreturn(&mut ctx, &mut r.mem));
    assert_eq!(ctx, before);
    assert_eq!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Killed {
            signo: SIGSEGV,
            cause: KillCause::Frame {
                addr: 0x9000,
                write: false
            }
        }
    );
}

#[test]
fn the_alternate_stack() {
    let mut r = Rig::new(true);
    let alt = STACK + 0x1000;
    let ss = [alt, 0, 0x2000].map(u64::to_le_bytes).concat();
    r.mem.write(BUF + 0x200, &ss).unwrap();
    assert_eq!(r.sys(nr::SIGALTSTACK, &[BUF + 0x200, BUF + 0x300]), 0);
    // Old: disabled.
    assert_eq!(r.mem.peek(BUF + 0x308, 4), 2u32.to_le_bytes());
    r.action(SIGUSR1, HANDLER, 0x0800_0000, 0);
    r.raise(SIGUSR1);
    let mut ctx = context();
    let SignalOutcome::Handler(h) = r.env.deliver_signal(&mut ctx, &mut r.mem) else {
        panic!()
    };
    assert_eq!(h.frame, alt + 0x2000 - 832);
    assert_eq!(h.alt_stack, Some((alt, alt + 0x2000)));
    // uc_stack: the stack, flags 0 (the interrupted sp was off it).
    assert_eq!(r.mem.peek_u64(h.frame + 144), alt);
    assert_eq!(r.mem.peek(h.frame + 152, 4), 0u32.to_le_bytes());
    // Too small, bad flags.
    let small = [alt, 0, 100].map(u64::to_le_bytes).concat();
    r.mem.write(BUF + 0x200, &small).unwrap();
    assert_eq!(
        r.sys(nr::SIGALTSTACK, &[BUF + 0x200, 0]),
        -(libc::ENOMEM as i64)
    );
    let bad = [alt, 4, 0x2000].map(u64::to_le_bytes).concat();
    r.mem.write(BUF + 0x200, &bad).unwrap();
    assert_eq!(
        r.sys(nr::SIGALTSTACK, &[BUF + 0x200, 0]),
        -(libc::EINVAL as i64)
    );
}

/// `struct itimerval` of `first` ms then every `every` ms, at BUF + 0x400.
fn itimer(r: &mut Rig, first: u64, every: u64) {
    let tv = [
        every / 1000,
        every % 1000 * 1000,
        first / 1000,
        first % 1000 * 1000,
    ];
    r.mem
        .write(BUF + 0x400, &tv.map(u64::to_le_bytes).concat())
        .unwrap();
    assert_eq!(r.sys(nr::SETITIMER, &[0, BUF + 0x400, 0]), 0);
}

const MS: u64 = 1_000_000;

#[test]
fn itimer_real_runs_on_guest_time() {
    let mut r = Rig::new(true);
    r.now = 5 * MS;
    itimer(&mut r, 20, 10);
    assert_eq!(r.env.next_timer(), Some(25 * MS));
    // getitimer 3 ms later: 17 ms left, interval 10 ms.
    r.now = 8 * MS;
    assert_eq!(r.sys(nr::GETITIMER, &[0, BUF]), 0);
    let words: Vec<u64> = (0..4).map(|i| r.mem.peek_u64(BUF + 8 * i)).collect();
    assert_eq!(words, [0, 10_000, 0, 17_000]);
    // Expiry sends SIGALRM (SI_KERNEL) and re-arms; missed periods make
    // one signal.
    r.env.expire_timers(47 * MS);
    assert_eq!(r.env.linux.signals.thread.pending, bit(SIGALRM));
    assert_eq!(r.env.next_timer(), Some(55 * MS));
    // setitimer with a zero value disarms.
    itimer(&mut r, 0, 10);
    assert_eq!(r.env.next_timer(), None);
    // A bad microsecond count.
    let tv = [0u64, 0, 0, 1_000_000];
    r.mem
        .write(BUF + 0x400, &tv.map(u64::to_le_bytes).concat())
        .unwrap();
    assert_eq!(
        r.sys(nr::SETITIMER, &[0, BUF + 0x400, 0]),
        -(libc::EINVAL as i64)
    );
}

#[test]
fn waits_end_at_the_timer_or_never() {
    let mut r = Rig::new(true);
    r.action(SIGALRM, HANDLER, 0, 0);
    // pause() = ppoll(NULL, 0, NULL, NULL) with nothing armed: forever.
    let (o, _) = r.call(nr::PPOLL, &[0, 0, 0, 0, 8]);
    assert!(matches!(o, Err(EnvError::WaitForever { .. })), "{o:?}");
    // Armed 20 ms ahead: the wait ends then, with EINTR.
    itimer(&mut r, 20, 0);
    let (o, v) = r.call(nr::PPOLL, &[0, 0, 0, 0, 8]);
    assert_eq!(o.unwrap(), EnvOutcome::Sleep { ns: 20 * MS });
    assert_eq!(v, -(libc::EINTR as i64));
    assert_eq!(r.env.linux.signals.thread.pending, bit(SIGALRM));
    assert_eq!(r.env.next_timer(), None);
    // nanosleep(1 s) cut short by a timer at 300 ms: EINTR, 700 ms left.
    r.env.linux.signals.thread.pending = 0;
    itimer(&mut r, 300, 0);
    let ts = [1u64, 0].map(u64::to_le_bytes).concat();
    r.mem.write(BUF + 0x500, &ts).unwrap();
    let (o, v) = r.call(nr::NANOSLEEP, &[BUF + 0x500, BUF + 0x600]);
    assert_eq!(o.unwrap(), EnvOutcome::Sleep { ns: 300 * MS });
    assert_eq!(v, -(libc::EINTR as i64));
    assert_eq!(r.mem.peek_u64(BUF + 0x608), 700 * MS);
    // With SIGALRM blocked the timer does not end the sleep.
    r.env.linux.signals.thread.pending = 0;
    r.mask(0, bit(SIGALRM));
    itimer(&mut r, 300, 0);
    let (o, v) = r.call(nr::NANOSLEEP, &[BUF + 0x500, 0]);
    assert_eq!((o.unwrap(), v), (EnvOutcome::Sleep { ns: 1000 * MS }, 0));
    assert_eq!(r.env.linux.signals.thread.pending, bit(SIGALRM));
    // rt_sigtimedwait takes the blocked SIGALRM off the queue at once.
    r.mem
        .write(BUF + 0x700, &bit(SIGALRM).to_le_bytes())
        .unwrap();
    let (o, v) = r.call(nr::RT_SIGTIMEDWAIT, &[BUF + 0x700, BUF + 0x800, 0, 8]);
    assert_eq!((o.unwrap(), v), (EnvOutcome::Sleep { ns: 0 }, 14));
    assert_eq!(r.mem.peek(BUF + 0x808, 4), 0x80u32.to_le_bytes());
    // ... or waits for the timer, or times out with EAGAIN.
    itimer(&mut r, 40, 0);
    let (o, v) = r.call(nr::RT_SIGTIMEDWAIT, &[BUF + 0x700, 0, BUF + 0x500, 8]);
    assert_eq!((o.unwrap(), v), (EnvOutcome::Sleep { ns: 40 * MS }, 14));
    let (o, v) = r.call(nr::RT_SIGTIMEDWAIT, &[BUF + 0x700, 0, BUF + 0x500, 8]);
    assert_eq!(
        (o.unwrap(), v),
        (EnvOutcome::Sleep { ns: 1000 * MS }, -(libc::EAGAIN as i64))
    );
    // sigsuspend with SIGALRM blocked by its mask and nothing else: forever.
    itimer(&mut r, 40, 0);
    r.mem
        .write(BUF + 0x700, &bit(SIGALRM).to_le_bytes())
        .unwrap();
    let (o, _) = r.call(nr::RT_SIGSUSPEND, &[BUF + 0x700, 8]);
    assert!(matches!(o, Err(EnvError::WaitForever { .. })), "{o:?}");
    // sigsuspend unblocking it: the handler's frame saves the old mask,
    // which rt_sigreturn restores.
    r.mem.write(BUF + 0x700, &0u64.to_le_bytes()).unwrap();
    let (o, v) = r.call(nr::RT_SIGSUSPEND, &[BUF + 0x700, 8]);
    assert_eq!((o.unwrap(), v), (EnvOutcome::Sleep { ns: 40 * MS }, -4));
    assert_eq!(r.blocked(), 0);
    let mut ctx = context();
    let SignalOutcome::Handler(h) = r.env.deliver_signal(&mut ctx, &mut r.mem) else {
        panic!()
    };
    assert_eq!(r.mem.peek_u64(h.frame + 168), bit(SIGALRM));
    ctx.x[2] = h.frame;
    assert!(r.env.sigreturn(&mut ctx, &mut r.mem));
    assert_eq!(r.blocked(), bit(SIGALRM));
}

#[test]
fn kill_targets_and_sigpipe() {
    let mut r = Rig::new(true);
    assert_eq!(r.sys(nr::KILL, &[1, 10]), -(libc::EPERM as i64));
    assert_eq!(r.sys(nr::KILL, &[0, 65]), -(libc::EINVAL as i64));
    assert_eq!(r.sys(nr::KILL, &[0, 0]), 0);
    assert_eq!(r.sys(nr::KILL, &[0, 15]), 0);
    let mut ctx = context();
    assert_eq!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        SignalOutcome::Killed {
            signo: 15,
            cause: KillCause::Signal
        }
    );
    // rt_sigreturn is the simulator's to finish.
    assert_eq!(
        r.call(nr::RT_SIGRETURN, &[]).0.unwrap(),
        EnvOutcome::SigReturn
    );
}
