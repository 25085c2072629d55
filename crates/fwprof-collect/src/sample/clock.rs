//! The hooks of a sampled run with a cost model: the sampler's clock in
//! cycles (sleeps included), and, paced by cycles, the stop at the first
//! block boundary after each sampling point.

use fwprof_isa::Inst;
use fwprof_sim::{
    BlockId, CodeContext, CostModel, Forward, Hooks, SignalDelivery, SignalReturn, TrapInfo,
    TrapReturn,
};

use crate::TrapTracker;

/// The hooks of a sampled run with a cost model (a core's timing model):
/// the model, and the cycle threshold of the next sample. With `PACED` (`--unit cycles`) the run
/// stops at the first block boundary at or after the threshold.
pub struct SampleClock<M: CostModel, const PACED: bool> {
    model: M,
    threshold: u64,
    /// Cycles the hart slept so far (one per 100 ns tick of guest time:
    /// the nominal 10 MHz clock of `time`).
    idle: u64,
    /// Sleeps not yet seen by the sampling loop: `[start, end)` in the
    /// sampler's clock ([`SampleClock::cycles`]).
    sleeps: Vec<(u64, u64)>,
    /// Per translated block: the address of each instruction, and whether
    /// its last one transfers control (branch, jump, call, return, system).
    blocks: Vec<(Box<[u64]>, bool)>,
    /// The block that ran last and how many of its instructions executed
    /// (None before the first block and after a block-cache flush).
    last: Option<(u32, u32)>,
    /// [`SampleClock::sample_pc`] as it was at the latest block-cache flush (the
    /// block that ran last is gone from `blocks`), while `last` is None.
    flushed_pc: Option<u64>,
    /// The trap contexts open and the privilege.
    traps: TrapTracker,
}

impl<M: CostModel, const PACED: bool> SampleClock<M, PACED> {
    /// Hooks around `model`, whose first extra event ([`CostModel::clock`])
    /// counts cycles.
    pub fn new(model: M) -> Self {
        SampleClock {
            model,
            threshold: u64::MAX,
            idle: 0,
            sleeps: Vec::new(),
            blocks: Vec::new(),
            last: None,
            flushed_pc: None,
            traps: TrapTracker::new(),
        }
    }

    /// The cost model, to read its totals after the run.
    pub fn into_model(self) -> M {
        self.model
    }

    /// The sampler's clock: modelled cycles up to the end of the last block
    /// that ran, plus the cycles slept. A sampler paced by time keeps
    /// counting while the program sleeps.
    fn cycles(&mut self) -> u64 {
        self.busy().saturating_add(self.idle)
    }

    /// Modelled cycles of executed code only (the profile's `cycles`).
    fn busy(&mut self) -> u64 {
        self.model.clock(true)[0]
    }

    /// Where a sample taken now belongs: the last instruction that
    /// executed, if it transferred control or trapped (its effect on the
    /// registers is only the new pc and a link register, so the stack
    /// unwinds from its address as the CFI describes it); `None` when the
    /// last block ended in straight-line code (the hart's pc, the next
    /// instruction, is then in the same place in the program).
    fn sample_pc(&self) -> Option<u64> {
        let Some((id, ran)) = self.last else {
            return self.flushed_pc;
        };
        let (pcs, transfer) = self.blocks.get(id as usize)?;
        // `ran` is u32::MAX for a block that ran to its end.
        let ran = (ran as usize).min(pcs.len());
        let cut = ran < pcs.len();
        (cut || *transfer)
            .then(|| pcs.get(ran.checked_sub(1)?).copied())
            .flatten()
    }
}

/// The cost model sees every hook first ([`Forward`]).
impl<M: CostModel, const PACED: bool> Forward for SampleClock<M, PACED> {
    type Inner = M;
    #[inline(always)]
    fn inner(&mut self) -> &mut M {
        &mut self.model
    }

    const STOPS: bool = PACED;

    fn stop_requested(&mut self) -> bool {
        self.cycles() >= self.threshold
    }
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        if PACED {
            use fwprof_isa::InstClass;
            let transfer = insts.last().is_some_and(|i| {
                matches!(
                    i.op.class(),
                    InstClass::Branch | InstClass::Jal | InstClass::Jalr | InstClass::System
                )
            });
            let at = id.0 as usize;
            if self.blocks.len() <= at {
                self.blocks.resize_with(at + 1, || (Box::default(), false));
            }
            self.blocks[at] = (pcs.into(), transfer);
        }
    }
    fn on_cache_flush(&mut self) {
        if PACED {
            self.flushed_pc = self.sample_pc();
            self.last = None;
            self.blocks.clear();
        }
    }
    #[inline]
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        if PACED {
            self.last = Some((id.0, u32::MAX));
        }
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        if PACED {
            self.last = Some((id.0, executed));
        }
    }
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        self.traps.on_trap(trap, instret, sp);
    }
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        self.traps.on_trap_return(ret);
    }
    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.traps.on_signal(signal);
    }
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        self.traps.on_signal_return(ret);
    }
    fn on_code_context(&mut self, ctx: CodeContext) {
        self.traps.on_code_context(ctx);
    }
    fn on_idle(&mut self, ticks: u64, _executed: u64) {
        let start = self.cycles();
        self.idle = self.idle.saturating_add(ticks);
        self.sleeps.push((start, start.saturating_add(ticks)));
    }
}

/// What the sampling loop needs from its hooks: a [`TrapTracker`] (no
/// cost model) or a [`SampleClock`].
pub trait SampleHooks: Hooks {
    /// The sampler's clock in cycles, sleeps included (`None` without a
    /// core model).
    fn cycles_now(&mut self) -> Option<u64>;
    /// Modelled cycles of executed code (`None` without a core model).
    fn busy_cycles(&mut self) -> Option<u64>;
    /// The cycle count at which the next sample is due.
    fn set_threshold(&mut self, t: u64);
    /// The sleeps since the last call, `[start, end)` in the sampler's clock.
    fn take_sleeps(&mut self) -> Vec<(u64, u64)>;
    /// The pc a sample taken now is attributed to, if not the hart's.
    fn sample_pc(&self) -> Option<u64>;
    /// The trap contexts open now and the privilege.
    fn traps(&self) -> &TrapTracker;
}

impl SampleHooks for TrapTracker {
    fn traps(&self) -> &TrapTracker {
        self
    }
    fn cycles_now(&mut self) -> Option<u64> {
        None
    }
    fn busy_cycles(&mut self) -> Option<u64> {
        None
    }
    fn set_threshold(&mut self, _: u64) {}
    fn take_sleeps(&mut self) -> Vec<(u64, u64)> {
        Vec::new()
    }
    fn sample_pc(&self) -> Option<u64> {
        None
    }
}

impl<M: CostModel, const PACED: bool> SampleHooks for SampleClock<M, PACED> {
    fn cycles_now(&mut self) -> Option<u64> {
        Some(self.cycles())
    }
    fn busy_cycles(&mut self) -> Option<u64> {
        Some(self.busy())
    }
    fn set_threshold(&mut self, t: u64) {
        self.threshold = t;
    }
    fn take_sleeps(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.sleeps)
    }
    fn sample_pc(&self) -> Option<u64> {
        SampleClock::sample_pc(self)
    }
    fn traps(&self) -> &TrapTracker {
        &self.traps
    }
}
