//! Traps in the instrumentation collector: a trap pushes an activation of
//! the cause's synthetic root (`[interrupt: machine timer]`), a root of
//! the calling-context tree or, inside a handler, a child of the enclosing
//! trap root; the handler's instrumented functions are its callees. An
//! `mret`/`sret` closes it with everything above it, and the interrupted
//! activations continue with the trap context's time (and hook calls) left
//! out of their durations, as in the exact call stack
//! (`crate::call_stack`). Exit hooks and returns inside a handler match
//! only the handler's activations. A Linux signal handler is a context of
//! the same kind (`[signal: SIGSEGV]`), closed by its `rt_sigreturn`, or
//! by a jump that leaves it (`siglongjmp`: [`crate::SignalStack::left_at`]).

use fwprof_sim::{CostModel, SignalDelivery, TrapInfo};

use super::{add, sub, Epilogue, HookFrame, InstrumentCollector, Transfer, NONE};

/// What a trap context puts aside of the interrupted code: a hook call
/// or epilogue being measured.
#[derive(Clone, Debug)]
pub(super) struct Saved {
    hook: Option<HookFrame>,
    epilogue: Option<Epilogue>,
    /// The jumps since the interrupted code's last hook call (a jump
    /// into a function whose entry hook the trap delayed).
    transfers: Vec<Transfer>,
}

impl Saved {
    /// Move its clocks on by `spent` (another task ran meanwhile).
    pub(super) fn shift(&mut self, spent: super::Clock) {
        if let Some(h) = self.hook.as_mut() {
            add(&mut h.start, spent);
        }
        for t in &mut self.transfers {
            t.shift(spent);
        }
        self.epilogue = self.epilogue.map(|e| e.shifted(spent));
    }
}

impl<M: CostModel> InstrumentCollector<M> {
    /// Index of the innermost trap root in `frames`, if any.
    pub(super) fn innermost_trap(&self) -> Option<usize> {
        self.frames.iter().rposition(|f| f.trap)
    }

    /// The lowest index an exit or return inside the current trap context
    /// may pop (above its root).
    pub(super) fn floor(&self) -> usize {
        self.innermost_trap().map_or(0, |i| i + 1)
    }

    pub(super) fn enter_trap(&mut self, trap: &TrapInfo, instret: u64) {
        let root = self.map.trap_root(trap.cause, trap.interrupt);
        self.trap_counts.count(trap, root);
        self.enter_context(root, instret);
    }

    /// A signal handler starts: a context like a trap's.
    pub(super) fn enter_signal(&mut self, signal: &SignalDelivery) {
        self.leave_signals(signal.sp, signal.instret);
        let root = self.map.signal_root(signal.signo);
        let stack = crate::SignalStack {
            sp: signal.sp,
            alt: signal.alt_stack,
        };
        self.signals.push((self.frames.len(), stack));
        self.enter_context(root, signal.instret);
    }

    /// Close the signal contexts a thread whose `sp` is `sp` has left by
    /// a non-local exit, innermost first.
    pub(super) fn leave_signals(&mut self, sp: u64, instret: u64) {
        while let Some(&(i, _)) = self.signals.iter().find(|(_, s)| s.left_at(sp)) {
            while self.innermost_trap().is_some_and(|t| t >= i) {
                self.leave_trap(instret);
            }
            self.signals.retain(|&(j, _)| j < i);
        }
    }

    /// Push the activation of context root `root`.
    fn enter_context(&mut self, root: u32, instret: u64) {
        let now = self.now(instret);
        let transfers = self.take_transfers();
        self.saved.push(Saved {
            hook: self.hook.take(),
            epilogue: self.epilogue.take(),
            transfers,
        });
        let parent = self
            .innermost_trap()
            .map_or((NONE, NONE), |i| (self.frames[i].ctx, self.frames[i].func));
        self.push_under(parent, root, u64::MAX, 0, now, None, true);
    }

    /// Close the innermost context (an `mret`/`sret`, an `rt_sigreturn`).
    pub(super) fn leave_trap(&mut self, instret: u64) {
        let Some(i) = self.innermost_trap() else {
            return;
        };
        self.signals.retain(|&(s, _)| s < i);
        let now = self.now(instret);
        let root = self.frames[i];
        let spent = sub(now, root.start);
        let hooks = self.hook_events - root.hooks_at_start;
        while self.frames.len() > i + 1 {
            self.abandoned += 1;
            self.pop(now, false);
        }
        self.pop(now, true);
        // The interrupted level's activations: their durations and hook
        // counts leave the trap context out.
        let floor = self.floor();
        for f in &mut self.frames[floor..] {
            add(&mut f.start, spent);
            f.hooks_at_start += hooks;
        }
        let saved = self.saved.pop().unwrap_or(Saved {
            hook: None,
            epilogue: None,
            transfers: Vec::new(),
        });
        self.restore_transfers(&saved.transfers, spent);
        self.hook = saved.hook.map(|mut h| {
            add(&mut h.start, spent);
            h
        });
        self.epilogue = saved.epilogue.map(|mut e| {
            if let Some(s) = e.start.as_mut() {
                add(s, spent);
            }
            e
        });
    }
}
