//! The signal frame of QEMU 7.2's `linux-user/riscv/signal.c`
//! (`target_rt_sigframe`, `setup_rt_frame`, `get_sigframe`,
//! `restore_sigcontext`): where it goes, its bytes, and reading it back
//! for `rt_sigreturn`.

use super::{AltStack, SigInfo, SA_ONSTACK};
use crate::api::UserContext;
use crate::guest::word_size;

/// Size of the guest `siginfo_t`.
pub(crate) const SIGINFO_SIZE: usize = 128;

/// Where QEMU 7.2's `target_rt_sigframe` (`linux-user/riscv/signal.c`) puts
/// things, from the frame's address: `siginfo_t` at 0, then the
/// `target_ucontext` — `uc_flags` (0), `uc_link` (0), `uc_stack`
/// (`ss_sp`, `ss_flags`, `ss_size` as `sigaltstack` reports them for the
/// interrupted `sp`), `uc_sigmask` (the mask to restore), 1024 bits of
/// reserved mask space, then, 16-byte aligned, `uc_mcontext`: `pc` and
/// `x1`–`x31` as XLEN words (so `gregs[0]` is the pc and `gregs[n]` is
/// `xn`), `f0`–`f31` as 64-bit words and the 32-bit `fcsr` (QEMU's
/// `target_sigcontext`, without the kernel's Q-extension padding: the
/// frame is 832 bytes on RV64 where Linux's is larger; programs only read
/// fields).
///
/// RV32 uses the same structures with 4-byte longs and pointers. (QEMU
/// 7.2 declares `uc_flags` and `uc_link` with host types, 8 bytes each on
/// a 64-bit host, which moves the guest's `uc_sigmask` 8 bytes from where
/// the kernel and glibc have it; fwprof keeps the guest's layout.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameLayout {
    /// Whole frame, a multiple of 16.
    pub size: u64,
    /// The `ucontext_t` (`a2` of the handler).
    pub uc: u64,
    /// `uc_stack`.
    pub stack: u64,
    /// `uc_sigmask`.
    pub sigmask: u64,
    /// `uc_mcontext` (`gregs[0]` = pc).
    pub mcontext: u64,
    /// `f0` in `uc_mcontext`.
    pub fpr: u64,
    /// `fcsr` in `uc_mcontext`.
    pub fcsr: u64,
}

impl FrameLayout {
    /// The layout for RV64 (`rv64`) or RV32.
    pub(crate) fn new(rv64: bool) -> FrameLayout {
        let n = word_size(rv64);
        let uc = SIGINFO_SIZE as u64;
        let stack = uc + 2 * n;
        // stack_t: ss_sp, ss_flags (int), ss_size, naturally aligned.
        let stack_size = if rv64 { 24 } else { 12 };
        let sigmask = stack + stack_size;
        // The mask and the reserved space make 1024 bits.
        let mcontext = (sigmask + 128).next_multiple_of(16);
        let fpr = (mcontext + 32 * n).next_multiple_of(8);
        let fcsr = fpr + 32 * 8;
        let uc_size = (fcsr + 4 - uc).next_multiple_of(16);
        FrameLayout {
            size: uc + uc_size,
            uc,
            stack,
            sigmask,
            mcontext,
            fpr,
            fcsr,
        }
    }
}

/// What a frame holds besides the registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameState {
    /// `uc_sigmask`: the mask `rt_sigreturn` restores.
    pub mask: u64,
    /// `uc_stack`: `ss_sp`, `ss_flags`, `ss_size`.
    pub stack: (u64, u32, u64),
}

/// The frame's bytes (see [`FrameLayout`]).
pub(crate) fn frame_bytes(
    rv64: bool,
    signo: i32,
    info: &SigInfo,
    ctx: &UserContext,
    state: &FrameState,
) -> Vec<u8> {
    let l = FrameLayout::new(rv64);
    let n = word_size(rv64) as usize;
    let mut b = vec![0u8; l.size as usize];
    b[..SIGINFO_SIZE].copy_from_slice(&info.bytes(signo, rv64));
    let mut put = |at: u64, v: u64, size: usize| {
        let at = at as usize;
        b[at..at + size].copy_from_slice(&v.to_le_bytes()[..size]);
    };
    let (ss_sp, ss_flags, ss_size) = state.stack;
    put(l.stack, ss_sp, n);
    put(l.stack + n as u64, u64::from(ss_flags), 4);
    put(l.stack + 2 * n as u64, ss_size, n);
    put(l.sigmask, state.mask, 8);
    put(l.mcontext, ctx.pc, n);
    for r in 1..32 {
        put(l.mcontext + (r * n) as u64, ctx.x[r], n);
    }
    for (r, &f) in ctx.f.iter().enumerate() {
        put(l.fpr + 8 * r as u64, f, 8);
    }
    put(l.fcsr, u64::from(ctx.fcsr), 4);
    b
}

/// Read back what [`frame_bytes`] wrote (`bytes` is a whole frame):
/// `ctx`'s pc, `x1`–`x31` (zero-extended on RV32), `f` and `fcsr` are
/// replaced (QEMU `restore_sigcontext`); the mask and `uc_stack` are
/// returned.
pub(crate) fn read_frame(rv64: bool, bytes: &[u8], ctx: &mut UserContext) -> FrameState {
    let l = FrameLayout::new(rv64);
    let n = word_size(rv64) as usize;
    let get = |at: u64, size: usize| {
        let mut w = [0u8; 8];
        let at = at as usize;
        w[..size].copy_from_slice(&bytes[at..at + size]);
        u64::from_le_bytes(w)
    };
    ctx.pc = get(l.mcontext, n);
    for r in 1..32 {
        ctx.x[r] = get(l.mcontext + (r * n) as u64, n);
    }
    for r in 0..32 {
        ctx.f[r] = get(l.fpr + 8 * r as u64, 8);
    }
    ctx.fcsr = get(l.fcsr, 4) as u32;
    FrameState {
        mask: get(l.sigmask, 8),
        stack: (
            get(l.stack, n),
            get(l.stack + n as u64, 4) as u32,
            get(l.stack + 2 * n as u64, n),
        ),
    }
}

/// The address a frame of `size` bytes goes to for a handler with `flags`
/// interrupting `sp` (QEMU 7.2 `get_sigframe`): on the alternate stack's
/// top with `SA_ONSTACK` when not already on it, else below `sp`;
/// 16-byte aligned. `None` when already on the alternate stack and the
/// frame would overflow it (QEMU then returns a bogus address: the write
/// fails and SIGSEGV is forced).
pub(crate) fn frame_address(
    alt: &AltStack,
    flags: u64,
    sp: u64,
    size: u64,
    rv64: bool,
) -> Option<u64> {
    if alt.holds(sp) && !alt.holds(sp.wrapping_sub(size)) {
        return None;
    }
    let top = if flags & SA_ONSTACK != 0 && alt.flags(sp) == 0 {
        alt.base.wrapping_add(alt.size)
    } else {
        sp
    };
    let a = top.wrapping_sub(size) & !15;
    Some(if rv64 { a } else { a & 0xffff_ffff })
}
