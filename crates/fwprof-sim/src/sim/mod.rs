//! The simulator: hart + memory + environment + block cache + hooks, and
//! the run loop. Traps, interrupts, the clock, `wfi` and the CLINT are in
//! `sim/interrupts.rs`.

mod bus;
mod harts;
mod interrupts;
mod pmu;
mod signals;

pub use bus::UnmodelledCount;
pub use harts::DEFAULT_QUANTUM;

use crate::block::{
    BlockCache, CacheStats, AFTER_IRQ, AFTER_NO_CHAIN, AFTER_VM, AFTER_XRET, NO_BLOCK,
};
use crate::hart::Hart;
use crate::hooks::{BlockId, Hooks, TrapInfo};
use crate::jit::{Code, JitCall, JitStats, Tier};
use crate::memory::Memory;
use crate::trap::{
    Exc, SimError, StopReason, CAUSE_BREAKPOINT, CAUSE_CODE_WRITTEN, CAUSE_ECALL_M, CAUSE_ECALL_U,
    CAUSE_LOAD_ACCESS, CAUSE_STORE_ACCESS, CAUSE_WFI,
};
use crate::uop::{exec_block, exec_term, keep_branch, EXCEPTION};
use fwprof_isa::{signal_for_cause, Inst, Xlen};
use fwprof_os::{EnvOutcome, Environment, LoadedProgram, Target};
use std::sync::atomic::{AtomicBool, Ordering};

/// Instructions between two polls of the interrupt flag (about).
const POLL_INTERVAL: u64 = 1 << 16;

/// The three words of the RISC-V semihosting sequence: `slli x0,x0,0x1f`,
/// `ebreak`, `srai x0,x0,7` (RISC-V Semihosting spec, §2.1).
const SEMIHOST_PRE: u32 = 0x01f0_1013;
const SEMIHOST_EBREAK: u32 = 0x0010_0073;
const SEMIHOST_POST: u32 = 0x4070_5013;

/// A RISC-V hart running one program, reporting to hooks `H`.
///
/// Build with [`Simulator::new`] from what `fwprof_os::load` returned, then
/// call [`Simulator::run`] until it returns a final [`StopReason`].
pub struct Simulator<H: Hooks> {
    hart: Hart,
    mem: Memory,
    env: Option<Environment>,
    target: Target,
    hooks: H,
    cache: BlockCache,
    /// The translation tier (`jit/`).
    jit: crate::jit::Jit,
    /// The code context last announced to the hooks (`None` after a flush).
    announced: Option<crate::CodeContext>,
    /// The machine's devices (`sim/bus.rs`).
    bus: bus::Bus,
    /// The harts besides the running one (`sim/harts.rs`).
    harts: harts::Harts,
    /// Linux: the end of the run a signal delivered at a timer's deadline
    /// decided (`sim/signals.rs`), for the run loop to return.
    signal_stop: Option<StopReason>,
}

/// Tell the hooks of the `jal`/`jalr` (`kind`, at `pc`, falling through to
/// `ret`) that ended block `id` and went to `target`: its arguments first
/// for a call ([`Hooks::WANTS_CALL_ARGS`]), then [`Hooks::on_jump`], with
/// the hart's count and `sp` after the block. The run loop and translated
/// code (`jit/helpers.rs`) both report jumps through this.
#[inline(always)]
pub(crate) fn report_jump<H: Hooks>(
    hooks: &mut H,
    h: &Hart,
    id: u32,
    kind: crate::JumpKind,
    pc: u64,
    ret: u64,
    target: u64,
) {
    if H::WANTS_CALL_ARGS && kind != crate::JumpKind::Return {
        hooks.on_call_args(target, h.x[10], h.x[11]);
    }
    hooks.on_jump(&crate::Jump {
        block: BlockId(id),
        kind,
        pc,
        ret,
        target,
        instret: h.executed,
        sp: h.x[2],
    });
}

/// Exceptions at one pc, of one cause, with no trap return between them,
/// after which the run stops (the handler can never finish: e.g. its own
/// code was overwritten and it traps in itself, nesting forever).
const TRAP_STORM: u32 = 100_000;

impl<H: Hooks> Simulator<H> {
    /// A simulator for a loaded program: `pc` = `prog.start`, integer
    /// registers from `prog.regs`, `sp` = `prog.sp` when non-zero, XLEN from
    /// `prog.rv64`. Linux programs run in user mode with the FP unit on;
    /// bare-metal programs in machine mode with `mstatus.FS` off.
    pub fn new(mem: Memory, prog: &LoadedProgram, env: Environment, hooks: H) -> Self {
        let target = env.target();
        let mut sim = Self::build(mem, prog.rv64, prog.start, target, Some(env), hooks);
        *sim.hart.xs_mut() = prog.regs;
        if prog.sp != 0 {
            sim.hart.x[2] = prog.sp;
        }
        sim.hart.normalize_x();
        sim.clone_harts();
        sim
    }

    /// A bare-metal simulator without a guest environment (tests, tools):
    /// semihosting calls stop the run with [`SimError::NoEnvironment`].
    pub fn bare(mem: Memory, rv64: bool, entry: u64, hooks: H) -> Self {
        Self::build(mem, rv64, entry, Target::BareMetal, None, hooks)
    }

    fn build(
        mem: Memory,
        rv64: bool,
        entry: u64,
        target: Target,
        env: Option<Environment>,
        hooks: H,
    ) -> Self {
        let mut hart = Hart::new(rv64);
        hart.pc = if rv64 { entry } else { entry & 0xffff_ffff };
        if target == Target::Linux {
            hart.enter_user_mode();
        }
        let n = env.as_ref().map_or(1, Environment::harts).max(1);
        let bus = bus::Bus::new(
            env.as_ref()
                .map_or(&fwprof_os::Board::bare(), Environment::board),
            n,
        );
        let mut sim = Simulator {
            hart,
            mem,
            env,
            target,
            hooks,
            cache: BlockCache::new(),
            jit: crate::jit::Jit::new(),
            announced: None,
            bus,
            harts: harts::Harts::new(n),
            signal_stop: None,
        };
        sim.clone_harts();
        sim
    }

    /// Make guest time follow QEMU 7.2's `-icount shift=N,sleep=off`: one
    /// executed instruction is 2^`shift` ns (`shift` ≤ 10, as QEMU's
    /// limit), whatever a core model says, so that interrupts arrive at
    /// the same instruction as under QEMU (see `crate::irq`).
    pub fn set_icount_shift(&mut self, shift: u32) {
        self.hart.clock.unit_ns = 1 << shift.min(10);
        self.hart.clock.icount = true;
    }

    /// The running hart (registers, CSRs, counters); on a machine with
    /// one hart, the hart.
    pub fn hart(&self) -> &Hart {
        &self.hart
    }
    /// The running hart, mutably (e.g. to set registers before a run).
    pub fn hart_mut(&mut self) -> &mut Hart {
        &mut self.hart
    }
    /// Every hart of the machine, by number (`mhartid`): the running one
    /// as it is now, the others as they were when they last stopped.
    pub fn harts(&self) -> impl Iterator<Item = &Hart> {
        let cur = self.harts.cur;
        self.harts
            .parked
            .iter()
            .enumerate()
            .map(move |(i, h)| if i == cur { &self.hart } else { h })
    }
    /// The number of harts of the machine.
    pub fn hart_count(&self) -> usize {
        self.harts.parked.len()
    }
    /// Guest memory.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }
    /// Guest memory, mutably. Writes through [`fwprof_os::GuestMemory::write`]
    /// into translated code are noticed at the next `run`.
    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.mem
    }
    /// The hooks.
    pub fn hooks(&self) -> &H {
        &self.hooks
    }
    /// The hooks, mutably.
    pub fn hooks_mut(&mut self) -> &mut H {
        &mut self.hooks
    }
    /// Consume the simulator, returning the hooks (to `finish` collectors).
    pub fn into_hooks(self) -> H {
        self.hooks
    }
    /// Instructions that started executing so far on all harts, including
    /// ones that trapped (one QEMU `-singlestep -d nochain,exec` line each).
    pub fn executed(&self) -> u64 {
        self.hart.executed + self.harts.others_executed
    }
    /// The guest environment (None for [`Simulator::bare`]).
    pub fn environment(&self) -> Option<&Environment> {
        self.env.as_ref()
    }
    /// The guest environment, mutably (e.g. to capture the console).
    pub fn environment_mut(&mut self) -> Option<&mut Environment> {
        self.env.as_mut()
    }
    /// The target the program runs on.
    pub fn target(&self) -> Target {
        self.target
    }

    /// Single-step mode: every block is exactly one instruction (for
    /// lock-step comparison; slow). Switching flushes the block cache.
    pub fn set_single_step(&mut self, on: bool) {
        let len = if on { 1 } else { crate::block::MAX_BLOCK_INSTS };
        if self.cache.max_len != len {
            self.cache.max_len = len;
            self.flush_cache();
        }
    }

    /// Counters of the block cache (translations, flushes, the most blocks
    /// one flush discarded), e.g. to check that `fence.i` costs the same
    /// at the end of a long run as at its start.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Choose the execution tier (`--tier`) and, for [`Tier::Jit`], how
    /// many times a block is interpreted before it is translated
    /// (`--jit-threshold`; 0 translates every block before its first
    /// execution). Default: [`Tier::Jit`], [`crate::DEFAULT_JIT_THRESHOLD`].
    /// Both tiers give the same results: registers, memory, counts and
    /// every hook call.
    pub fn set_tier(&mut self, tier: Tier, threshold: u32) {
        self.jit.tier = tier;
        self.jit.threshold = threshold;
    }

    /// Counters of the translation tier: blocks translated and refused,
    /// instructions run as translated code.
    pub fn jit_stats(&self) -> JitStats {
        self.jit.stats
    }

    /// Kill every block, then tell the hooks ([`Hooks::on_cache_flush`]).
    /// The run loop must not follow a chain or use a block id taken before.
    fn flush_cache(&mut self) {
        self.cache.flush();
        self.jit.flush();
        self.announced = None;
        self.hooks.on_cache_flush();
    }

    /// Hand the hart's translation to memory (after a trap, `mret`, a CSR
    /// write, `sfence.vma`: see `mmu.rs`) and drop the blocks that change
    /// asks for. Between blocks only, with no chain followed afterwards.
    pub(crate) fn sync_translation(&mut self) {
        self.mem.set_translation(self.hart.translation());
        self.apply_block_kill();
    }

    /// Drop the blocks a change of translation asked for (`sfence.vma`:
    /// those of paged address spaces; a PMP change: all). Between blocks
    /// only; the run loop follows no chain afterwards (`AFTER_NO_CHAIN`).
    fn apply_block_kill(&mut self) {
        match self.mem.take_block_kill() {
            crate::memory::BlockKill::None => {}
            crate::memory::BlockKill::All => self.flush_cache(),
            kill => {
                self.cache.kill_paged(kill);
                self.jit.killed(&self.cache.take_killed());
                if self.cache.wants_compaction() {
                    self.flush_cache();
                }
            }
        }
    }

    /// Kill the blocks that writes since the last call touched
    /// (self-modifying code); flush the cache when killed blocks pile up
    /// ([`BlockCache::wants_compaction`]). Between blocks only (the next
    /// block is looked up afresh).
    fn invalidate_written_code(&mut self) {
        let w = self.mem.take_code_writes();
        self.cache.invalidate(&w, &mut self.mem);
        self.jit.killed(&self.cache.take_killed());
        if self.cache.wants_compaction() {
            self.flush_cache();
        }
    }

    /// Run until the program exits, faults, `limit` instructions have been
    /// executed in total (counted by [`Simulator::executed`]; `u64::MAX` =
    /// no limit; the run stops exactly at the limit), or `interrupt` is set
    /// (polled about every 64k instructions). Hooks with [`Hooks::STOPS`]
    /// may also stop it between two blocks ([`Hooks::stop_requested`]);
    /// that stop is reported as [`StopReason::InstructionLimit`] too (the
    /// caller tells the two apart by [`Simulator::executed`]).
    ///
    /// # Errors
    /// [`SimError`] if the environment fails (not for guest faults, which
    /// are traps or [`StopReason`]s).
    pub fn run(&mut self, limit: u64, interrupt: &AtomicBool) -> Result<StopReason, SimError> {
        if self.hart.rv64 {
            self.run_xlen::<true>(limit, interrupt)
        } else {
            self.run_xlen::<false>(limit, interrupt)
        }
    }

    fn run_xlen<const RV64: bool>(
        &mut self,
        limit: u64,
        interrupt: &AtomicBool,
    ) -> Result<StopReason, SimError> {
        let xlen = if RV64 { Xlen::Rv64 } else { Xlen::Rv32 };
        // Writes made by tools or the environment before this run.
        if self.mem.has_code_writes() {
            self.invalidate_written_code();
        }
        self.apply_block_kill();
        // The next point (in executed instructions) where the loop must look
        // up from the blocks: the limit, or the next poll of `interrupt`.
        // One comparison per block covers both. Hooks that may stop the run
        // ([`Hooks::STOPS`]) are asked at every block: their checkpoint is
        // always now (for other hooks this compiles to the line above).
        //
        // Guest interrupts are looked at only at checkpoints too: `irq_at`
        // is the executed count at which one may next become pending (a
        // timer deadline; `u64::MAX` when none can), and `cut` (the
        // nearer of it and the limit) is where a block is split so that
        // the interrupt is taken exactly at its instruction boundary.
        // Anything that may change the interrupt state (a CSR write,
        // `mret`/`sret`, a trap, a CLINT access, `wfi`) forces a new look
        // by setting both to 0. While no interrupt can arrive, the loop pays
        // nothing per block.
        let next_checkpoint = |executed: u64, cut: u64| {
            if H::STOPS {
                executed
            } else {
                cut.min(executed.saturating_add(POLL_INTERVAL))
            }
        };
        //
        // With several harts, `limit` (counted over all harts) becomes the
        // running hart's own count (`local_limit`), and the end of its
        // quantum (`self.harts.switch_at`) is one more point to cut at.
        let mut local_limit = limit.saturating_sub(self.harts.others_executed);
        // A counter may have overflowed at the very point the last run
        // stopped.
        self.pmu_check();
        self.take_interrupt();
        if let Some(stop) = self.signal_stop.take() {
            return Ok(stop);
        }
        let mut irq_at = self.interrupt_point().min(self.pmu_point());
        let mut cut = local_limit.min(irq_at).min(self.harts.switch_at);
        let mut checkpoint = next_checkpoint(self.hart.executed, cut);
        // (block, true = fall-through slot) to fill with the next block's id.
        let mut chain_from: Option<(u32, bool)> = None;
        let mut next_id = NO_BLOCK;
        loop {
            if self.hart.executed >= checkpoint {
                if self.hart.executed >= local_limit {
                    return Ok(StopReason::InstructionLimit);
                }
                if H::STOPS && self.hooks.stop_requested() {
                    return Ok(StopReason::InstructionLimit);
                }
                if interrupt.load(Ordering::Relaxed) {
                    return Ok(StopReason::Interrupted);
                }
                if self.hart.executed >= self.harts.switch_at {
                    if let Some(stop) = self.switch_hart()? {
                        return Ok(stop);
                    }
                    local_limit = limit.saturating_sub(self.harts.others_executed);
                    chain_from = None;
                    next_id = NO_BLOCK;
                    irq_at = 0;
                }
                if self.hart.executed >= irq_at {
                    self.pmu_check();
                    if self.take_interrupt() {
                        if let Some(stop) = self.signal_stop.take() {
                            return Ok(stop);
                        }
                        chain_from = None;
                        next_id = NO_BLOCK;
                    }
                    irq_at = self.interrupt_point().min(self.pmu_point());
                }
                cut = local_limit.min(irq_at).min(self.harts.switch_at);
                checkpoint = next_checkpoint(self.hart.executed, cut);
            }
            let pc = self.hart.pc;
            // A chain to a killed block fails this check (its start is
            // `DEAD_START`), as may an indirect jump's; after a flush no
            // chain is left (`next_id` is reset, the arenas are empty).
            let id = if next_id != NO_BLOCK && self.cache.blocks[next_id as usize].start == pc {
                next_id
            } else {
                match self.find_block(pc, xlen, chain_from) {
                    Ok(id) => id,
                    Err(exc) => {
                        // Fetch fault: nothing started executing.
                        chain_from = None;
                        next_id = NO_BLOCK;
                        if interrupt.load(Ordering::Relaxed) {
                            return Ok(StopReason::Interrupted);
                        }
                        if let Some(stop) = self.fetch_fault(exc, pc) {
                            return Ok(stop);
                        }
                        (irq_at, checkpoint) = (0, 0);
                        continue;
                    }
                }
            };
            let b = self.cache.blocks[id as usize];
            let (count, first) = (usize::from(b.count), b.first as usize);
            self.hooks.on_block_exec(BlockId(id), self.hart.executed);
            chain_from = None;
            next_id = NO_BLOCK;
            // The straight-line part; a final branch or jump runs below.
            let body = count - usize::from(b.term);
            if self.hart.executed + count as u64 > checkpoint
                && (cut - self.hart.executed) < count as u64
            {
                // Stop exactly at the limit or an interrupt's boundary: run
                // only part of the block.
                let k = (cut - self.hart.executed) as usize;
                if let Some(stop) = self.run_partial::<RV64>(id, k)? {
                    return Ok(stop);
                }
                continue;
            }
            if self.hart.pmu.class_live && b.after & AFTER_IRQ != 0 && count > 1 {
                // A class counter counts: the CSR instruction ending this
                // block (or `mret`/`sret`) runs as a block of its own, so
                // that what it reads has every earlier instruction counted.
                if let Some(stop) = self.run_partial::<RV64>(id, count - 1)? {
                    return Ok(stop);
                }
                (irq_at, checkpoint) = (0, 0);
                continue;
            }
            let code = if self.jit.tier == Tier::Jit && !self.hart.pmu.class_live {
                match self.jit.lookup(id) {
                    Code::Ready(f) => Some(f),
                    Code::Interpret => None,
                    Code::Translate => {
                        let inline = self.hooks.inline_counts();
                        let predictor = self.hooks.inline_predictor().map(|p| p.0);
                        let dcache = self.hooks.inline_dcache().map(|d| d.0);
                        self.jit
                            .translate::<RV64, H>(id, &self.cache, inline, predictor, dcache)
                    }
                }
            } else {
                None
            };
            // Translated code may run several blocks: `id` and `b` become
            // the last one's, whose final branch or jump it ran too
            // (`jit_taken`).
            let (id, b, mut next_pc, status, jit_taken) = match code {
                Some(f) => {
                    let before = self.hart.executed;
                    let inline = self.hooks.inline_counts();
                    let mut call = JitCall {
                        hart: &mut self.hart,
                        mem: &mut self.mem,
                        hooks: (&mut self.hooks as *mut H).cast::<u8>(),
                        insts: self.cache.insts.as_ptr(),
                        blocks: self.cache.blocks.as_ptr(),
                        entries: self.jit.entries(),
                        checkpoint,
                        next: b.end,
                        value: 0,
                        inline_base: inline.map_or(std::ptr::null_mut(), |i| i.base),
                        inline_current: inline.map_or(std::ptr::null(), |i| i.current),
                        inline_last: inline.map_or(std::ptr::null_mut(), |i| i.last),
                        log: self
                            .hooks
                            .event_log()
                            .map_or(std::ptr::null_mut(), |l| l.as_ptr()),
                        tables: self
                            .hooks
                            .inline_predictor()
                            .map_or_else(Default::default, |p| p.1),
                        dcache: self
                            .hooks
                            .inline_dcache()
                            .map_or(std::ptr::null_mut(), |d| d.1),
                        direct: self.cache.direct(),
                        key: self.mem.fetch_key(),
                        generation: self.cache.generation(),
                        block: id,
                        taken: 0,
                    };
                    // SAFETY: `f` was translated for this block, this XLEN
                    // and `H` (the tier's entries are per block id and
                    // cleared with the block cache); the pointers are to
                    // live, distinct fields and arenas, lent for the call,
                    // which translates nothing.
                    let status = unsafe { self.jit.enter(&mut call, f) } as usize;
                    self.jit.stats.entered += 1;
                    if let Some(i) = inline {
                        // SAFETY: where translated code stores the last
                        // block started before a hook call (`InlineCounts`
                        // says when), valid as long as the table.
                        unsafe { *i.last = call.block };
                    }
                    let last = self.cache.blocks[call.block as usize];
                    // Translated code counted every block it completed.
                    let ran = if status & EXCEPTION != 0 {
                        status & !EXCEPTION
                    } else {
                        0
                    };
                    self.jit.stats.executed += self.hart.executed - before + ran as u64;
                    (call.block, last, call.next, status, Some(call.taken != 0))
                }
                None => {
                    let uops = &self.cache.uops[first..first + count];
                    let (p, st) = exec_block::<RV64, H>(
                        &mut self.hart,
                        &mut self.mem,
                        &mut self.hooks,
                        id,
                        &uops[..body],
                        &self.cache.insts[first..],
                        b.start,
                        b.end,
                    );
                    (id, b, p, st, None)
                }
            };
            let (count, first) = (usize::from(b.count), b.first as usize);
            let body = count - usize::from(b.term);
            if status != body {
                if let Some(stop) = self.block_stopped::<RV64>(id, next_pc, status)? {
                    return Ok(stop);
                }
                (irq_at, checkpoint) = (0, 0);
                continue;
            }
            if jit_taken.is_none() {
                self.hart.executed += count as u64;
            }
            if H::MODELS_CYCLES {
                self.hart.last = (id, count as u32);
            }
            let mut left = false;
            if b.term {
                let outcome = match jit_taken {
                    Some(taken) => taken.then_some(next_pc),
                    None => {
                        exec_term::<RV64>(&mut self.hart, &self.cache.uops[first + body], b.end)
                    }
                };
                let taken = match outcome {
                    None => {
                        next_pc = b.end;
                        next_id = b.fall;
                        chain_from = Some((id, true));
                        false
                    }
                    Some(t) => {
                        keep_branch();
                        next_pc = t;
                        next_id = b.taken;
                        chain_from = Some((id, false));
                        true
                    }
                };
                // Translated code that chains reported its own outcome.
                if H::WANTS_BRANCHES && (jit_taken.is_none() || !crate::jit::chains::<H>()) {
                    self.hooks.on_branch(BlockId(id), taken, next_pc);
                }
                left = taken;
            } else if next_pc == b.end {
                next_id = b.fall;
                chain_from = Some((id, true));
            } else {
                next_id = b.taken;
                chain_from = Some((id, false));
            }
            self.hart.pc = next_pc;
            if self.hart.pmu.class_live
                && jit_taken.is_none()
                && self.pmu_account(first, count, left)
            {
                (irq_at, checkpoint) = (0, 0);
            }
            if b.after != 0 {
                // Translated code that chains reported its own jumps.
                let jump_here = jit_taken.is_none() || !crate::jit::chains::<H>();
                self.block_done(id, next_pc, jump_here);
                if b.after & AFTER_XRET != 0 {
                    self.mark_privilege(self.hart.xret_from);
                    if self.hart.pmu.mode_filtered {
                        let now = self.pmu_now();
                        self.pmu_privilege_changed(&now);
                    }
                }
                if b.after & AFTER_IRQ != 0 {
                    (irq_at, checkpoint) = (0, 0);
                }
                if b.after & AFTER_NO_CHAIN != 0 {
                    // A flush killed every block, this one included, and
                    // ids restart at 0: no id from before may be used; or
                    // the privilege or address space (the block key) may
                    // have changed.
                    next_id = NO_BLOCK;
                    chain_from = None;
                }
            }
        }
    }

    /// Run the first `k` (< the block's length) instructions of block `id`:
    /// the instruction limit falls inside it.
    #[cold]
    #[inline(never)]
    fn run_partial<const RV64: bool>(
        &mut self,
        id: u32,
        k: usize,
    ) -> Result<Option<StopReason>, SimError> {
        let b = self.cache.blocks[id as usize];
        let (start, first) = (b.start, b.first as usize);
        // k < count, so a final branch or jump is not among them.
        let (next_pc, status) = exec_block::<RV64, H>(
            &mut self.hart,
            &mut self.mem,
            &mut self.hooks,
            id,
            &self.cache.uops[first..first + k],
            &self.cache.insts[first..],
            start,
            b.end,
        );
        if status != k {
            return self.block_stopped::<RV64>(id, next_pc, status);
        }
        self.hart.executed += k as u64;
        if H::MODELS_CYCLES {
            self.hart.last = (id, k as u32);
        }
        if self.hart.pmu.class_live {
            self.pmu_account(first, k, false);
        }
        self.hooks.on_block_cut(BlockId(id), k as u32);
        // Only a block's last instruction can leave the straight line, so
        // the next pc is instruction `k`'s.
        self.hart.pc = start.wrapping_add(u64::from(self.cache.uops[first + k].off));
        Ok(None)
    }

    /// Block `id` stopped early with an exception; `pc` (the instruction
    /// that raised it) and `status` are what [`exec_block`] returned.
    #[cold]
    #[inline(never)]
    fn block_stopped<const RV64: bool>(
        &mut self,
        id: u32,
        pc: u64,
        status: usize,
    ) -> Result<Option<StopReason>, SimError> {
        let b = self.cache.blocks[id as usize];
        let (count, first) = (usize::from(b.count), b.first as usize);
        let ran = status & !EXCEPTION;
        self.hart.executed += ran as u64;
        if H::MODELS_CYCLES {
            self.hart.last = (id, ran as u32);
        }
        if ran < count {
            self.hooks.on_block_cut(BlockId(id), ran as u32);
        }
        let exc = self.hart.pending;
        if H::WANTS_MEMORY && is_data_access_fault(exc.cause) {
            self.hooks.on_access_fault(BlockId(id), ran as u32 - 1);
        }
        let live = self.hart.pmu.class_live;
        if exc.cause == CAUSE_CODE_WRITTEN {
            // The store that wrote code retired.
            if live {
                self.pmu_account(first, ran, false);
            }
            self.hart.pc = exc.tval;
            self.invalidate_written_code();
            return Ok(None);
        }
        // The instructions before the one that raised retired; that one
        // retires only if the exception was resolved without a trap (a
        // device access, a system call).
        if live && ran > 1 {
            self.pmu_account(first, ran - 1, false);
        }
        let not_retired = self.hart.not_retired;
        let inst = self.cache.insts[first + ran - 1];
        let outcome = self.exception(exc, pc, inst, (id, ran as u32 - 1));
        if live && self.hart.not_retired == not_retired && self.hart.pmu.class_live {
            self.pmu_account(first + ran - 1, 1, false);
        }
        outcome
    }

    /// The block at `pc`, translated if needed, chained from `chain_from`.
    ///
    /// # Errors
    /// The fetch fault of translating it.
    #[inline(never)]
    fn find_block(
        &mut self,
        pc: u64,
        xlen: Xlen,
        chain_from: Option<(u32, bool)>,
    ) -> Result<u32, Exc> {
        let id = match self.cache.lookup(pc, self.mem.fetch_key()) {
            Some(id) => id,
            None => {
                let ctx = crate::CodeContext {
                    privilege: self.hart.privilege,
                    space: self.mem.address_space(),
                };
                if self.announced != Some(ctx) {
                    self.hooks.on_code_context(ctx);
                    self.announced = Some(ctx);
                }
                let id = self
                    .cache
                    .translate(pc, xlen, &mut self.mem, &mut self.hooks)?;
                self.jit.reserve(id);
                id
            }
        };
        if let Some((from, fall)) = chain_from {
            let b = &mut self.cache.blocks[from as usize];
            // `from` may have died meanwhile (its own store, fence.i): a
            // dead block is never run again, so its chains do not matter.
            if fall {
                b.fall = id;
            } else {
                b.taken = id;
            }
        }
        Ok(id)
    }

    /// After a block with [`crate::block::Block::after`] bits completed:
    /// jump/mret hooks and `fence.i`.
    #[inline(never)]
    fn block_done(&mut self, id: u32, target: u64, jump_here: bool) {
        let b = self.cache.info[id as usize];
        if H::WANTS_JUMPS && jump_here {
            if let Some(kind) = b.jump {
                let ret = self.cache.blocks[id as usize].end;
                report_jump(
                    &mut self.hooks,
                    &self.hart,
                    id,
                    kind,
                    b.last_pc,
                    ret,
                    target,
                );
            }
        }
        if self.cache.blocks[id as usize].after & AFTER_VM != 0 {
            self.apply_block_kill();
        }
        match b.last_op {
            fwprof_isa::Op::Mret | fwprof_isa::Op::Sret => {
                self.hart.storm = (0, 0, 0);
                self.sync_translation();
                self.hooks.on_trap_return(&crate::TrapReturn {
                    pc: b.last_pc,
                    target,
                    from: self.hart.xret_from,
                    to: self.hart.privilege,
                    instret: self.hart.executed,
                    sp: self.hart.x[2],
                    space: self.mem.address_space(),
                });
            }
            fwprof_isa::Op::FenceI => self.flush_cache(),
            _ => {}
        }
    }

    /// Retired count before the instruction that just executed.
    fn retired_before_last(&self) -> u64 {
        self.hart.executed - 1 - self.hart.not_retired
    }

    /// Resolve an exception raised by `inst` at `pc` (already counted as
    /// executed): environment calls, semihosting, trap delivery or a stop.
    /// `at` is the instruction's block id and index in it.
    #[cold]
    fn exception(
        &mut self,
        exc: Exc,
        pc: u64,
        inst: Inst,
        at: (u32, u32),
    ) -> Result<Option<StopReason>, SimError> {
        let next = pc.wrapping_add(inst.len as u64);
        match exc.cause {
            CAUSE_ECALL_U | CAUSE_ECALL_M if self.target == Target::Linux => {
                return self.env_call(pc, next, false, at);
            }
            CAUSE_BREAKPOINT if self.target == Target::BareMetal && self.is_semihost(pc, &inst) => {
                return self.env_call(pc, next, true, at);
            }
            CAUSE_WFI => return self.wfi(pc, next, at),
            CAUSE_LOAD_ACCESS | CAUSE_STORE_ACCESS if self.target == Target::BareMetal => {
                match self.device_access(&inst, exc.tval, at) {
                    bus::DeviceOutcome::NotHandled => {}
                    bus::DeviceOutcome::Done => {
                        self.hart.pc = next;
                        return Ok(None);
                    }
                    bus::DeviceOutcome::Stop(stop) => {
                        self.hart.pc = next;
                        return Ok(Some(stop));
                    }
                }
            }
            _ => {}
        }
        // The instruction trapped: it does not retire (Privileged ISA §3.3.1).
        self.hart.not_retired += 1;
        if raised_at_run_time(exc.cause, &inst) {
            self.hart.icount_skip += 1;
        }
        if self.target == Target::Linux {
            return Ok(self.linux_fault(exc, pc));
        }
        let vector = self.hart.trap_vector(exc, false);
        let storm = &mut self.hart.storm;
        if storm.0 == pc && storm.1 == exc.cause {
            storm.2 += 1;
        } else {
            *storm = (pc, exc.cause, 1);
        }
        // No handler, or the handler itself raises it again and again
        // (e.g. its code was overwritten): it would trap there forever.
        if vector == 0 || vector == pc || storm.2 >= TRAP_STORM {
            self.hart.pc = pc;
            return Ok(Some(StopReason::Fault {
                cause: exc.cause,
                pc,
                tval: exc.tval,
                raw: inst.raw,
                len: inst.len,
                looping: vector != 0,
            }));
        }
        self.deliver(exc, pc);
        Ok(None)
    }

    /// Fetch fault at `pc` (nothing executed).
    #[cold]
    fn fetch_fault(&mut self, exc: Exc, pc: u64) -> Option<StopReason> {
        if self.target == Target::Linux {
            return self.linux_fault(exc, pc);
        }
        let vector = self.hart.trap_vector(exc, false);
        // No handler, or the handler itself cannot be fetched (would loop forever).
        if vector == 0 || vector == pc {
            return Some(StopReason::Fault {
                cause: exc.cause,
                pc,
                tval: exc.tval,
                raw: 0,
                len: 0,
                looping: vector != 0,
            });
        }
        self.deliver(exc, pc);
        None
    }

    /// The semihosting sequence check, as QEMU 7.2 `trans_ebreak`: an
    /// uncompressed `ebreak` between `slli x0,x0,0x1f` and `srai x0,x0,7`,
    /// all three in the same 4 KiB page.
    fn is_semihost(&self, pc: u64, inst: &Inst) -> bool {
        if inst.len != 4 || inst.raw != SEMIHOST_EBREAK {
            return false;
        }
        let (pre, post) = (pc.wrapping_sub(4), pc.wrapping_add(4));
        if pre >> 12 != post >> 12 {
            return false;
        }
        let word = |a: u64| {
            let mut b = [0u8; 4];
            self.mem.peek(a, &mut b).map(|_| u32::from_le_bytes(b))
        };
        word(pre) == Some(SEMIHOST_PRE) && word(post) == Some(SEMIHOST_POST)
    }

    /// Hand a system call / semihosting call to the environment.
    fn env_call(
        &mut self,
        pc: u64,
        next: u64,
        semihost: bool,
        at: (u32, u32),
    ) -> Result<Option<StopReason>, SimError> {
        let now = if semihost { 0 } else { self.guest_ns(at) };
        let time = if semihost {
            let base = self.clock_base(at, false);
            self.hart.clock.mtime(base)
        } else {
            0
        };
        let Some(env) = self.env.as_mut() else {
            let call = if semihost {
                "semihosting call"
            } else {
                "system call"
            };
            self.hart.pc = pc;
            return Err(SimError::NoEnvironment { call, pc });
        };
        let out = if semihost {
            env.semihost(self.hart.xs_mut(), &mut self.mem, time)
        } else {
            env.ecall(self.hart.xs_mut(), &mut self.mem, now)
        };
        self.hart.normalize_x();
        self.hart.pc = next;
        if self.mem.has_code_writes() {
            self.invalidate_written_code();
        }
        match out {
            Ok(EnvOutcome::Continue) => Ok(self.after_syscall(semihost)),
            Ok(EnvOutcome::Sleep { ns }) => {
                // Rounded up to whole ticks of the guest clock.
                let ns = ns.div_ceil(100).saturating_mul(100);
                if self.several_harts() {
                    // The other threads run meanwhile.
                    self.sleep_thread(ns);
                } else {
                    self.sleep_ns(ns);
                }
                Ok(self.after_syscall(semihost))
            }
            Ok(EnvOutcome::SigReturn) => Ok(self.sigreturn(pc)),
            Ok(EnvOutcome::Exit(code)) => Ok(Some(StopReason::Exit(code))),
            Ok(EnvOutcome::NewThread { thread, stack, tls }) => {
                self.spawn_thread(thread, stack, tls);
                Ok(None)
            }
            Ok(EnvOutcome::Wait { timeout_ns }) => {
                self.wait_for_wake(timeout_ns);
                Ok(None)
            }
            Ok(EnvOutcome::ThreadExit) => {
                self.thread_exited();
                Ok(None)
            }
            Err(source) => Err(signals::env_error(pc, source)),
        }
    }
}

/// Is `exc` raised by `inst` an exception QEMU 7.2 raises from a helper at
/// run time (so its icount gives the instruction back): memory faults, and
/// illegal-instruction exceptions of CSR accesses and of the privileged
/// instructions whose checks depend on the hart's state. Exceptions known
/// at translation (`ecall`, `ebreak`, undefined encodings, FP instructions
/// with `mstatus.FS` off) are counted.
fn raised_at_run_time(cause: u64, inst: &Inst) -> bool {
    use fwprof_isa::Op;
    match cause {
        4..=7 | 13 | 15 => true,
        crate::trap::CAUSE_ILLEGAL_INSTRUCTION => matches!(
            inst.op,
            Op::Csrrw
                | Op::Csrrs
                | Op::Csrrc
                | Op::Csrrwi
                | Op::Csrrsi
                | Op::Csrrci
                | Op::Mret
                | Op::Sret
                | Op::Wfi
                | Op::SfenceVma
        ),
        _ => false,
    }
}

/// Whether `cause` is an exception of a data access that did not happen
/// (Privileged ISA 20211203, Table 3.6): a misaligned load or store/AMO,
/// a load or store/AMO access fault, a load or store/AMO page fault.
fn is_data_access_fault(cause: u64) -> bool {
    matches!(
        cause,
        fwprof_isa::CAUSE_MISALIGNED_LOAD
            | CAUSE_LOAD_ACCESS
            | fwprof_isa::CAUSE_MISALIGNED_STORE
            | CAUSE_STORE_ACCESS
            | crate::mmu::CAUSE_LOAD_PAGE_FAULT
            | crate::mmu::CAUSE_STORE_PAGE_FAULT
    )
}
