//! One rule for collectors that wrap an inner model (e.g. a timing model):
//! every hook and every `WANTS_*`/`STOPS` constant of the model is
//! forwarded, so no wrapper can drop one.

use fwprof_isa::Inst;

use crate::hooks::{
    BlockId, CodeContext, HartSwitch, Hooks, Jump, SignalDelivery, SignalReturn, TrapInfo,
    TrapReturn,
};

/// A collector around an inner model. Implement this trait instead of
/// [`Hooks`]: the blanket `impl<W: Forward> Hooks for W` delivers every
/// hook to [`Forward::inner`] first and then to the method of the same
/// name here, so the wrapper writes only its own part. The rules are those
/// of a tuple `(Inner, Self)`:
///
/// * each `WANTS_*` constant, [`Hooks::MODELS_CYCLES`] and [`Hooks::STOPS`]
///   is the inner model's or the wrapper's;
/// * a gated hook (`on_jump`, `on_call_args`, `on_mem`, `on_operands`,
///   `on_mem_front`, `on_access_fault`, `on_branch`, `on_branch_front`,
///   `stop_requested`) reaches each side
///   only if that side asked for it; the others reach both;
/// * `split_block` keeps the fewer instructions of the two answers;
///   `wants_direct_jump` is true if a side that wants jumps says so;
///   `stop_requested` stops if either side says so (both are asked);
/// * `cycles_before` and `model_events` come from the inner model if it models cycles, else
///   from the wrapper.
///
/// The methods mirror [`Hooks`] (see there for arguments and when they
/// are called) and default to doing nothing.
pub trait Forward {
    /// The inner model.
    type Inner: Hooks;
    /// The inner model, which sees every hook before the wrapper.
    fn inner(&mut self) -> &mut Self::Inner;

    /// The wrapper's own [`Hooks::WANTS_JUMPS`].
    const WANTS_JUMPS: bool = false;
    /// The wrapper's own [`Hooks::WANTS_MEMORY`].
    const WANTS_MEMORY: bool = false;
    /// The wrapper's own [`Hooks::WANTS_BRANCHES`].
    const WANTS_BRANCHES: bool = false;
    /// The wrapper's own [`Hooks::WANTS_OPERANDS`].
    const WANTS_OPERANDS: bool = false;
    /// The wrapper's own [`Hooks::MODELS_CYCLES`].
    const MODELS_CYCLES: bool = false;
    /// The wrapper's own [`Hooks::WANTS_CALL_ARGS`].
    const WANTS_CALL_ARGS: bool = false;
    /// The wrapper's own [`Hooks::STOPS`].
    const STOPS: bool = false;
    /// The wrapper's own [`Hooks::WANTS_BLOCK_EXEC`].
    const WANTS_BLOCK_EXEC: bool = true;

    /// [`Hooks::inline_counts`]: used only when the inner model's
    /// `on_block_exec` does nothing (its `WANTS_BLOCK_EXEC` is false).
    #[inline]
    fn inline_counts(&mut self) -> Option<crate::InlineCounts> {
        None
    }

    /// [`Hooks::stop_requested`].
    #[inline]
    fn stop_requested(&mut self) -> bool {
        false
    }
    /// [`Hooks::on_block_translated`].
    #[inline]
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let _ = (id, pcs, insts);
    }
    /// [`Hooks::split_block`].
    #[inline]
    fn split_block(&mut self, pcs: &[u64], insts: &[Inst]) -> usize {
        let _ = insts;
        pcs.len()
    }
    /// [`Hooks::on_cache_flush`].
    #[inline]
    fn on_cache_flush(&mut self) {}
    /// [`Hooks::on_block_exec`].
    #[inline]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        let _ = (id, executed);
    }
    /// [`Hooks::on_block_cut`].
    #[inline]
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        let _ = (id, executed);
    }
    /// [`Hooks::on_jump`].
    #[inline]
    fn on_jump(&mut self, jump: &Jump) {
        let _ = jump;
    }
    /// [`Hooks::wants_direct_jump`].
    #[inline]
    fn wants_direct_jump(&mut self, pc: u64, target: u64) -> bool {
        let _ = (pc, target);
        true
    }
    /// [`Hooks::on_call_args`].
    #[inline]
    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        let _ = (target, a0, a1);
    }
    /// [`Hooks::on_mem`].
    #[inline]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        let _ = (index, addr, size, write);
    }
    /// [`Hooks::on_mem_front`].
    #[inline]
    fn on_mem_front(&mut self, index: u32, word: u64) {
        let _ = (index, word);
    }
    /// [`Hooks::on_access_fault`].
    #[inline]
    fn on_access_fault(&mut self, id: BlockId, index: u32) {
        let _ = (id, index);
    }
    /// [`Hooks::on_operands`].
    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        let _ = (index, a, b);
    }
    /// [`Hooks::on_branch`].
    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        let _ = (id, taken, target);
    }
    /// [`Hooks::on_branch_front`].
    #[inline]
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        let _ = (id, word);
    }
    /// [`Hooks::cycles_before`] (asked only if the inner model does not
    /// model cycles).
    #[inline]
    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        let _ = (id, index);
        0
    }
    /// [`Hooks::model_events`] (asked only if the inner model does not
    /// model cycles).
    #[inline]
    fn model_events(&mut self, id: BlockId, index: u32, out: &mut [u64; crate::MODEL_EVENTS]) {
        let _ = (id, index, out);
    }
    /// [`Hooks::on_trap`].
    #[inline]
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        let _ = (trap, instret, sp);
    }
    /// [`Hooks::on_trap_return`].
    #[inline]
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        let _ = ret;
    }
    /// [`Hooks::on_signal`].
    #[inline]
    fn on_signal(&mut self, signal: &SignalDelivery) {
        let _ = signal;
    }
    /// [`Hooks::on_signal_return`].
    #[inline]
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        let _ = ret;
    }
    /// [`Hooks::on_code_context`].
    #[inline]
    fn on_code_context(&mut self, ctx: CodeContext) {
        let _ = ctx;
    }
    /// [`Hooks::on_hart_switch`].
    #[inline]
    fn on_hart_switch(&mut self, switch: &HartSwitch) {
        let _ = switch;
    }
    /// [`Hooks::on_idle`].
    #[inline]
    fn on_idle(&mut self, ticks: u64, executed: u64) {
        let _ = (ticks, executed);
    }
}

impl<W: Forward> Hooks for W {
    const WANTS_JUMPS: bool = <W::Inner as Hooks>::WANTS_JUMPS || <W as Forward>::WANTS_JUMPS;
    const WANTS_MEMORY: bool = <W::Inner as Hooks>::WANTS_MEMORY || <W as Forward>::WANTS_MEMORY;
    const WANTS_BRANCHES: bool =
        <W::Inner as Hooks>::WANTS_BRANCHES || <W as Forward>::WANTS_BRANCHES;
    const WANTS_OPERANDS: bool =
        <W::Inner as Hooks>::WANTS_OPERANDS || <W as Forward>::WANTS_OPERANDS;
    const MODELS_CYCLES: bool = <W::Inner as Hooks>::MODELS_CYCLES || <W as Forward>::MODELS_CYCLES;
    const WANTS_CALL_ARGS: bool =
        <W::Inner as Hooks>::WANTS_CALL_ARGS || <W as Forward>::WANTS_CALL_ARGS;
    const STOPS: bool = <W::Inner as Hooks>::STOPS || <W as Forward>::STOPS;
    const WANTS_BLOCK_EXEC: bool =
        <W::Inner as Hooks>::WANTS_BLOCK_EXEC || <W as Forward>::WANTS_BLOCK_EXEC;

    #[inline]
    fn inline_counts(&mut self) -> Option<crate::InlineCounts> {
        if <W::Inner as Hooks>::WANTS_BLOCK_EXEC {
            None
        } else {
            Forward::inline_counts(self)
        }
    }

    #[inline]
    fn stop_requested(&mut self) -> bool {
        let a = <W::Inner as Hooks>::STOPS && self.inner().stop_requested();
        let b = <W as Forward>::STOPS && Forward::stop_requested(self);
        a || b
    }
    #[inline]
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        self.inner().on_block_translated(id, pcs, insts);
        Forward::on_block_translated(self, id, pcs, insts);
    }
    #[inline]
    fn split_block(&mut self, pcs: &[u64], insts: &[Inst]) -> usize {
        let a = self.inner().split_block(pcs, insts);
        Forward::split_block(self, pcs, insts).min(a)
    }
    #[inline]
    fn wants_direct_jump(&mut self, pc: u64, target: u64) -> bool {
        let a = <W::Inner as Hooks>::WANTS_JUMPS && self.inner().wants_direct_jump(pc, target);
        let b = <W as Forward>::WANTS_JUMPS && Forward::wants_direct_jump(self, pc, target);
        a || b
    }
    #[inline]
    fn on_cache_flush(&mut self) {
        self.inner().on_cache_flush();
        Forward::on_cache_flush(self);
    }
    #[inline(always)]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        self.inner().on_block_exec(id, executed);
        Forward::on_block_exec(self, id, executed);
    }
    #[inline]
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.inner().on_block_cut(id, executed);
        Forward::on_block_cut(self, id, executed);
    }
    #[inline]
    fn on_jump(&mut self, jump: &Jump) {
        if <W::Inner as Hooks>::WANTS_JUMPS {
            self.inner().on_jump(jump);
        }
        if <W as Forward>::WANTS_JUMPS {
            Forward::on_jump(self, jump);
        }
    }
    #[inline]
    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        if <W::Inner as Hooks>::WANTS_CALL_ARGS {
            self.inner().on_call_args(target, a0, a1);
        }
        if <W as Forward>::WANTS_CALL_ARGS {
            Forward::on_call_args(self, target, a0, a1);
        }
    }
    #[inline(always)]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        if <W::Inner as Hooks>::WANTS_MEMORY {
            self.inner().on_mem(index, addr, size, write);
        }
        if <W as Forward>::WANTS_MEMORY {
            Forward::on_mem(self, index, addr, size, write);
        }
    }
    #[inline]
    fn on_mem_front(&mut self, index: u32, word: u64) {
        if <W::Inner as Hooks>::WANTS_MEMORY {
            self.inner().on_mem_front(index, word);
        }
        if <W as Forward>::WANTS_MEMORY {
            Forward::on_mem_front(self, index, word);
        }
    }
    #[inline]
    fn on_access_fault(&mut self, id: BlockId, index: u32) {
        if <W::Inner as Hooks>::WANTS_MEMORY {
            self.inner().on_access_fault(id, index);
        }
        if <W as Forward>::WANTS_MEMORY {
            Forward::on_access_fault(self, id, index);
        }
    }
    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        if <W::Inner as Hooks>::WANTS_OPERANDS {
            self.inner().on_operands(index, a, b);
        }
        if <W as Forward>::WANTS_OPERANDS {
            Forward::on_operands(self, index, a, b);
        }
    }
    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        if <W::Inner as Hooks>::WANTS_BRANCHES {
            self.inner().on_branch(id, taken, target);
        }
        if <W as Forward>::WANTS_BRANCHES {
            Forward::on_branch(self, id, taken, target);
        }
    }
    #[inline]
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        if <W::Inner as Hooks>::WANTS_BRANCHES {
            self.inner().on_branch_front(id, word);
        }
        if <W as Forward>::WANTS_BRANCHES {
            Forward::on_branch_front(self, id, word);
        }
    }
    #[inline]
    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        if <W::Inner as Hooks>::MODELS_CYCLES {
            self.inner().cycles_before(id, index)
        } else {
            Forward::cycles_before(self, id, index)
        }
    }
    #[inline]
    fn model_events(&mut self, id: BlockId, index: u32, out: &mut [u64; crate::MODEL_EVENTS]) {
        if <W::Inner as Hooks>::MODELS_CYCLES {
            self.inner().model_events(id, index, out);
        } else {
            Forward::model_events(self, id, index, out);
        }
    }
    #[inline]
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        self.inner().on_trap(trap, instret, sp);
        Forward::on_trap(self, trap, instret, sp);
    }
    #[inline]
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        self.inner().on_trap_return(ret);
        Forward::on_trap_return(self, ret);
    }
    #[inline]
    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.inner().on_signal(signal);
        Forward::on_signal(self, signal);
    }
    #[inline]
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        self.inner().on_signal_return(ret);
        Forward::on_signal_return(self, ret);
    }
    #[inline]
    fn on_code_context(&mut self, ctx: CodeContext) {
        self.inner().on_code_context(ctx);
        Forward::on_code_context(self, ctx);
    }
    #[inline]
    fn on_hart_switch(&mut self, switch: &HartSwitch) {
        self.inner().on_hart_switch(switch);
        Forward::on_hart_switch(self, switch);
    }
    #[inline]
    fn on_idle(&mut self, ticks: u64, executed: u64) {
        self.inner().on_idle(ticks, executed);
        Forward::on_idle(self, ticks, executed);
    }
}
