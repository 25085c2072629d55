//! The observation interface: how collectors see execution.
//!
//! Modelled on QEMU's TCG plugin API split (`include/qemu/qemu-plugin.h`):
//! facts about code are delivered once, when a block is translated
//! ([`Hooks::on_block_translated`]); execution then reports only block ids.

use fwprof_isa::Inst;

/// Dense id of a translated block (index into the simulator's block cache).
///
/// Ids count up from 0 in translation order and are not reused until the
/// cache is flushed (`fence.i`, a switch of single-step mode, or a
/// compaction after many blocks were killed by writes to their code); a
/// block killed by a write to its code keeps its id until then and never
/// runs again. At a flush the simulator calls [`Hooks::on_cache_flush`]:
/// every id announced before is dead, and ids restart at 0. So a collector
/// can keep its per-block state in vectors indexed by id, whose length
/// stays within the blocks of one flush, not of the whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// How a block's last instruction transfers control, decided at translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JumpKind {
    /// `jal`/`jalr` (incl. `c.jal`, `c.jalr`) with `rd` = `ra` or `t0`:
    /// a call (Unprivileged ISA 20191213, Table 2.1: push).
    Call,
    /// `jalr` with `rd` = x0 and `rs1` = `ra` or `t0`: a return (pop).
    Return,
    /// `jalr` with `rd` = `ra`/`t0`, `rs1` the *other* link register: pop then push (coroutine swap).
    CallReturn,
    /// `jal x0` / `jalr x0, rs1` with `rs1` not a link register: plain jump
    /// (a tail call if the target is another function's entry).
    Jump,
    /// `jal`/`jalr` linking to a register other than `ra`/`t0`.
    LinkOther,
}

/// A completed `jal`/`jalr`, as [`Hooks::on_jump`] receives it: everything
/// the simulator knows about it, so that a collector need not rebuild any
/// of it (from the block id, or the return address from the call's length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    /// The block the jump ends (its last instruction).
    pub block: BlockId,
    /// How it transfers control.
    pub kind: JumpKind,
    /// Its address.
    pub pc: u64,
    /// The address after it (`pc` + its length, 2 or 4 bytes): the return
    /// address a call links, whatever its `rd`.
    pub ret: u64,
    /// Where it went.
    pub target: u64,
    /// Instructions executed so far, *including* this one.
    pub instret: u64,
    /// The value of `sp` (x2) after it.
    pub sp: u64,
}

/// A trap delivered to the guest's handler: an exception an instruction
/// raised, or an interrupt taken between two instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrapInfo {
    /// Exception code (Privileged ISA 20211203, §3.1.15, Table 3.6),
    /// without the interrupt bit: e.g. 7 with `interrupt` is the machine
    /// timer interrupt, 7 without it a store/AMO access fault.
    pub cause: u64,
    /// True for an interrupt.
    pub interrupt: bool,
    /// For an exception, the PC of the instruction that trapped; for an
    /// interrupt, the PC of the instruction that had not yet run (what
    /// `mepc`/`sepc` receive).
    pub pc: u64,
    /// `mtval`/`stval` value.
    pub tval: u64,
    /// Privilege the hart trapped from.
    pub from: crate::Privilege,
    /// Privilege the handler runs at (M, or S when delegated).
    pub to: crate::Privilege,
    /// The handler's first instruction (the vector the trap went to).
    pub handler: u64,
    /// For an interrupt: how long it waited, from becoming pending and
    /// enabled in `mie` to this trap (masked by `mstatus.MIE`/`SIE`, or
    /// by privilege, meanwhile).
    pub latency: Option<Latency>,
}

/// Where the blocks translated next will run: every block belongs to one
/// privilege level and one address space, and runs only there (the block
/// cache keeps blocks of different contexts apart), so per-block counts
/// split costs by privilege and address space for free.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeContext {
    /// The privilege the code runs at.
    pub privilege: crate::Privilege,
    /// The address space: 0 when addresses are physical (translation
    /// off: M-mode, `satp.MODE` = Bare, Linux user mode), else the `satp`
    /// value that selects the page tables (MODE, ASID and root PPN), so
    /// two processes' code at the same virtual address never mix.
    pub space: u64,
}

/// An interrupt's latency (see [`TrapInfo::latency`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Latency {
    /// Instructions executed meanwhile.
    pub instructions: u64,
    /// Guest time meanwhile, in nanoseconds (with a core model and no
    /// `--icount-shift`, 100 ns per modelled cycle).
    pub ns: u64,
}

/// An `mret` or `sret` that completed, as [`Hooks::on_trap_return`] receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrapReturn {
    /// The `mret`/`sret`'s address.
    pub pc: u64,
    /// Where it returned to (`mepc`/`sepc`).
    pub target: u64,
    /// Privilege the return left.
    pub from: crate::Privilege,
    /// Privilege it returned to.
    pub to: crate::Privilege,
    /// Instructions executed so far, including the return.
    pub instret: u64,
    /// The value of `sp` (x2) after it.
    pub sp: u64,
    /// The address space of the code it returned to, as
    /// [`CodeContext::space`].
    pub space: u64,
}

/// The run moves from one hart to another (a machine with several harts,
/// `--harts`: they run in turns of a quantum of instructions, see
/// `docs/concurrency.md`). Counts are per hart: each hart has its own
/// executed-instruction count, which the hooks receive as `executed` /
/// `instret` while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HartSwitch {
    /// The hart that stops running (`mhartid`).
    pub from: u32,
    /// Instructions that hart has executed so far.
    pub from_executed: u64,
    /// The hart that runs next.
    pub to: u32,
    /// Instructions it has executed so far (0 the first time it runs).
    pub to_executed: u64,
    /// Its `pc`: where it continues (its reset address the first time).
    pub pc: u64,
    /// Its `sp` (x2).
    pub sp: u64,
    /// The privilege it runs at.
    pub privilege: crate::Privilege,
    /// Its address space, as [`CodeContext::space`].
    pub space: u64,
}

/// A Linux signal handler that started: the environment wrote the signal
/// frame and the hart now runs the handler (`fwprof_os::HandlerStart`),
/// as [`Hooks::on_signal`] receives it.
///
/// Signals have hooks of their own rather than [`Hooks::on_trap`]: they
/// are not RISC-V traps (no `mcause`, no privilege change; the kernel, not
/// the hart, enters the handler), and a collector that counts traps per
/// cause must not count them as one. A collector that follows calls
/// treats a handler as a trap context all the same: it interrupts the
/// program between two instructions, runs on its own stack frame, and
/// ends with [`Hooks::on_signal_return`] (or with a non-local exit such as
/// `siglongjmp`, which only the stack pointer shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalDelivery {
    /// The signal (Linux numbering: 11 is SIGSEGV).
    pub signo: i32,
    /// The interrupted pc: the faulting instruction for a synchronous
    /// signal, else the instruction that had not yet run.
    pub pc: u64,
    /// `sp` at the interrupted pc.
    pub sp: u64,
    /// The handler's first instruction.
    pub handler: u64,
    /// `sp` when the handler starts (the frame's address).
    pub frame: u64,
    /// `[base, end)` of the alternate signal stack when the handler runs
    /// on it (`SA_ONSTACK`), else `None`: its frames are then below `sp`.
    pub alt_stack: Option<(u64, u64)>,
    /// Instructions executed so far (a faulting instruction included).
    pub instret: u64,
}

/// An `rt_sigreturn` that completed, as [`Hooks::on_signal_return`]
/// receives it: the registers are those the frame saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalReturn {
    /// The `ecall`'s address (in the sigreturn trampoline).
    pub pc: u64,
    /// Where the thread resumes (the frame's pc).
    pub target: u64,
    /// `sp` after it.
    pub sp: u64,
    /// Instructions executed so far, including the `ecall`.
    pub instret: u64,
}

/// A collector's per-block table that the translation tier updates inline
/// ([`Hooks::inline_counts`]), as QEMU's plugins let TCG add to a counter
/// without a call ("inline operations").
///
/// The table has one entry of `stride` bytes per block id, from `base`.
/// For block `id`, with `e = base + id * stride`: whenever the `u32` at
/// `e + tag` equals the `u32` at `current`, [`Hooks::on_block_exec`] for
/// `id` does exactly this: add 1 to the `u64` at `e + count`, and store
/// `id` into the `u32` at `last`. Otherwise translated code calls the hook.
/// Translated code adds the count at once but stores `last` only when a
/// hook may next read it: before it calls any hook (then `last` is the
/// block running, or at a block's start the one just done, as the hook
/// calls so far left it), and, through the run loop, when it returns (the
/// last block it ran).
/// The pointers stay valid until the next [`Hooks::on_block_translated`]
/// or [`Hooks::on_cache_flush`], nothing else may move the table (the
/// hooks themselves run only between blocks), and the `u32` at `current`
/// changes only inside a hook (translated code keeps it in a register
/// between hook calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineCounts {
    /// The entry of block 0.
    pub base: *mut u8,
    /// Bytes per entry.
    pub stride: usize,
    /// Offset of the `u64` execution count in an entry.
    pub count: usize,
    /// Offset of the `u32` tag in an entry.
    pub tag: usize,
    /// The `u32` a block's tag must equal for the inline update to be
    /// exactly the hook.
    pub current: *const u32,
    /// Where the inline update stores the block id (`u32`; see above for
    /// when).
    pub last: *mut u32,
}

/// Collectors implement this. All methods default to no-ops; the simulator is
/// generic over `H: Hooks` and monomorphised, so unused hooks cost nothing.
/// Tuples `(A, B)` compose collectors.
pub trait Hooks {
    /// Set to true if [`Hooks::on_jump`] should be called.
    const WANTS_JUMPS: bool = false;
    /// Set to true if [`Hooks::on_mem`] should be called (costs a call per
    /// load and store; leave false unless a model needs data addresses).
    const WANTS_MEMORY: bool = false;
    /// Set to true if [`Hooks::on_branch`] should be called.
    const WANTS_BRANCHES: bool = false;
    /// Set to true if [`Hooks::on_operands`] should be called.
    const WANTS_OPERANDS: bool = false;
    /// Set to true if the collector models time: reads of `cycle`/`mcycle`
    /// (and `cycleh`/`mcycleh`) then return [`Hooks::cycles_before`]
    /// instead of the instruction count.
    const MODELS_CYCLES: bool = false;
    /// Set to true if [`Hooks::on_call_args`] should be called (with
    /// [`Hooks::WANTS_JUMPS`]). [`crate::Pipelined`] does not forward it.
    const WANTS_CALL_ARGS: bool = false;
    /// Set to true if the run loop should ask [`Hooks::stop_requested`]
    /// before every block (a call per block, and the interrupt flag is then
    /// polled per block too; leave false unless the collector must stop the
    /// run at a point it decides, e.g. a sampler paced by modelled cycles).
    const STOPS: bool = false;
    /// False when [`Hooks::on_block_exec`] does nothing: translated code
    /// then runs from block to block without calling it. Leave true
    /// (the default) for any collector that implements it.
    const WANTS_BLOCK_EXEC: bool = true;
    /// True if [`Hooks::event_log`] returns a log (only
    /// [`crate::Pipelined`]: translated code then appends the records of
    /// `on_block_exec`, `on_mem` and `on_branch` to its buffer itself).
    const EVENT_LOG: bool = false;

    /// With [`Hooks::EVENT_LOG`]: the log also takes the raw record of a
    /// block's final branch outcome. False for a [`crate::Pipelined`] with
    /// an active [`crate::Front`], which resolves outcomes on the
    /// simulator's thread as they happen: translated code then runs the
    /// front's [`Hooks::inline_predictor`] itself, or calls
    /// [`Hooks::on_branch`].
    const EVENT_LOG_BRANCHES: bool = true;

    /// Asked before each block starts (after the previous block and all
    /// its hooks completed), only with [`Hooks::STOPS`]: true stops the
    /// run there, reported as [`crate::StopReason::InstructionLimit`]; the
    /// next [`crate::Simulator::run`] resumes with that block. Return
    /// false again once the reason is handled, or the run makes no progress.
    #[inline]
    fn stop_requested(&mut self) -> bool {
        false
    }

    /// A block was translated: `id` is new; `pcs[i]` is the address of
    /// `insts[i]`; the block runs straight through from `pcs[0]` to its last
    /// instruction (which alone may branch, jump, trap or call the environment).
    #[inline]
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let _ = (id, pcs, insts);
    }

    /// Translation found a straight-line block of instructions `insts` at
    /// `pcs` (before [`Hooks::on_block_translated`]): return how many of them
    /// the block keeps (clamped to `1..=pcs.len()`); the rest start a block
    /// of their own. E.g. a collector ends blocks where execution falls
    /// through into another function. Called once per translation.
    fn split_block(&mut self, pcs: &[u64], insts: &[Inst]) -> usize {
        let _ = insts;
        pcs.len()
    }

    /// Asked when a block that ends in a direct jump without link (`jal
    /// x0`, `c.j`) at `pc` to `target` is translated, only with
    /// [`Hooks::WANTS_JUMPS`]: false if [`Hooks::on_jump`] need not hear
    /// of that jump — e.g. a collector that follows calls and returns only
    /// cares about jumps that may be tail calls. Both tiers then leave the
    /// jump unreported every time that translation runs (a jump inside a
    /// loop then costs no hook call). Default: true.
    #[inline]
    fn wants_direct_jump(&mut self, pc: u64, target: u64) -> bool {
        let _ = (pc, target);
        true
    }

    /// The block cache was flushed: every [`BlockId`] announced so far is
    /// dead and the next translated block gets id 0 again. Called between
    /// blocks (after the block whose `fence.i` caused it completed and its
    /// hooks ran). A collector that keeps state per block id folds it into
    /// state per address here (e.g. block execution counts into
    /// per-address counts) and forgets the ids. Its work should be
    /// proportional to the blocks translated since the previous flush
    /// ([`crate::CacheStats::max_blocks_per_flush`]), not to the run: a
    /// guest may execute `fence.i` millions of times.
    #[inline]
    fn on_cache_flush(&mut self) {}

    /// The run switches harts (see [`HartSwitch`]): state a collector
    /// keeps per hart of execution (a call stack, the previous block) is
    /// set aside and the other hart's taken up. Between blocks; never on
    /// a machine with one hart.
    #[inline]
    fn on_hart_switch(&mut self, switch: &HartSwitch) {
        let _ = switch;
    }

    /// Per-block counters translated code may update itself instead of
    /// calling [`Hooks::on_block_exec`] when it runs one block after
    /// another (see [`InlineCounts`]); `None` (the default): it calls the
    /// hook. Asked before every entry into translated code, and at
    /// translation for the layout (which must not change).
    #[inline]
    fn inline_counts(&mut self) -> Option<InlineCounts> {
        None
    }

    /// With [`Hooks::EVENT_LOG`]: the log translated code appends its
    /// records to instead of calling `on_block_exec`, `on_mem` and
    /// `on_branch` ([`crate::EventLog`] gives the rules). Only
    /// [`crate::Pipelined`] has one; the address stays valid while the
    /// hooks are not moved.
    #[inline]
    fn event_log(&mut self) -> Option<std::ptr::NonNull<crate::EventLog>> {
        None
    }

    /// A branch predictor translated code runs in line instead of calling
    /// [`Hooks::on_branch`] (only a [`crate::Pipelined`] whose
    /// [`crate::Front`] has one): its shape, and its tables, valid while
    /// the hooks are not moved. Translated code records the predictor's
    /// delivered verdicts through [`Hooks::on_branch_front`] when its
    /// event log is full.
    #[inline]
    fn inline_predictor(&mut self) -> Option<(crate::InlinePredictor, crate::PredictorTables)> {
        None
    }

    /// A data cache translated code checks in line instead of reporting
    /// every access of a plain load or store (only a [`crate::Pipelined`]
    /// whose [`crate::Front`] models the data cache): its shape, and its
    /// tag array, valid while the hooks are not moved. Accesses the check
    /// does not settle go to [`Hooks::on_mem_unsettled`].
    #[inline]
    fn inline_dcache(&mut self) -> Option<(crate::InlineDcache, *mut u64)> {
        None
    }

    /// Block `id` starts executing; `executed` instructions executed before
    /// it on the running hart (the simulator's count,
    /// [`crate::Simulator::executed`], on a machine with one hart). Counting
    /// its instructions as executed is correct unless
    /// [`Hooks::on_block_cut`] follows.
    #[inline]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        let _ = (id, executed);
    }

    /// Block `id` stopped early: only its first `executed` instructions started
    /// executing (the last of them trapped or stopped the run). The remaining
    /// `insts.len() - executed` did not execute.
    #[inline]
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        let _ = (id, executed);
    }

    /// A `jal`/`jalr` completed (see [`Jump`] for what is known of it).
    /// Only with [`Hooks::WANTS_JUMPS`].
    #[inline]
    fn on_jump(&mut self, jump: &Jump) {
        let _ = jump;
    }

    /// A `jal`/`jalr` to `target` that is not a return completed (a call,
    /// or a jump that may be a tail call): `a0` and `a1` are registers x10
    /// and x11 after it, the callee's first two integer arguments (RISC-V
    /// psABI). On RV32 they are sign-extended from bit 31 (mask them to
    /// compare with addresses). Called just before [`Hooks::on_jump`] for
    /// the same jump. Only with [`Hooks::WANTS_JUMPS`] and
    /// [`Hooks::WANTS_CALL_ARGS`] (e.g. to read
    /// `__cyg_profile_func_enter(this_fn, call_site)`'s arguments).
    #[inline]
    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        let _ = (target, a0, a1);
    }

    /// A data access of `size` bytes at `addr` (a store if `write`) by the
    /// executing block's instruction number `index` (0-based), reported after
    /// it succeeded, in program order. An AMO reports its read and then its
    /// write; a failed `sc` reports nothing. Only with [`Hooks::WANTS_MEMORY`].
    #[inline]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        let _ = (index, addr, size, write);
    }

    /// A data access of a plain load or store by translated code that the
    /// inline data-cache check ([`Hooks::inline_dcache`]) did not settle;
    /// as [`Hooks::on_mem`] (which it calls, unless the hooks say
    /// otherwise). Only with [`Hooks::WANTS_MEMORY`].
    #[inline]
    fn on_mem_unsettled(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        self.on_mem(index, addr, size, write);
    }

    /// A data access by the executing block's instruction number `index`,
    /// as judged on the simulator's thread by the [`crate::Front`] of a
    /// [`crate::Pipelined`] collector that models the data cache: `word`
    /// is what the front's `on_mem` returned. Delivered instead of
    /// [`Hooks::on_mem`] behind such a front, for every access of an
    /// instruction that is not a plain load or store (an AMO, `lr`, `sc`)
    /// and for the accesses of plain loads and stores that cost more than
    /// any ([`crate::MEM_WORD_COSTLY`]). Only with [`Hooks::WANTS_MEMORY`].
    #[inline]
    fn on_mem_front(&mut self, index: u32, word: u64) {
        let _ = (index, word);
    }

    /// Instruction number `index` of block `id` raised a data-access
    /// exception (a misaligned access, an access fault or a page fault:
    /// causes 4, 5, 6, 7, 13 and 15): it made no access, and no
    /// [`Hooks::on_mem`] came for it, even if the simulator then performs
    /// it on a device (an access to an I/O region). Called after the
    /// block's [`Hooks::on_block_cut`], before the trap or signal. Only
    /// with [`Hooks::WANTS_MEMORY`].
    #[inline]
    fn on_access_fault(&mut self, id: BlockId, index: u32) {
        let _ = (id, index);
    }

    /// The source operand values `a` (`rs1`) and `b` (`rs2`) of the executing
    /// block's instruction number `index`, for instructions whose timing may
    /// depend on them: shifts and Zbb rotates by a register amount and M divisions
    /// and remainders. Only with [`Hooks::WANTS_OPERANDS`].
    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        let _ = (index, a, b);
    }

    /// Block `id`'s final branch or jump resolved: `taken` (always true for
    /// `jal`/`jalr`) to `target` (the block's end when not taken). Called
    /// before [`Hooks::on_jump`]. Only with [`Hooks::WANTS_BRANCHES`].
    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        let _ = (id, taken, target);
    }

    /// Block `id`'s final branch or jump resolved, as judged on the
    /// simulator's thread by the [`crate::Front`] of a [`crate::Pipelined`]
    /// collector: `word` is what the front's `on_branch` returned (for a
    /// timing model, the cost of the prediction). Delivered instead of
    /// [`Hooks::on_branch`] when the collector runs behind a front.
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        let _ = (id, word);
    }

    /// Modelled cycles elapsed before instruction number `index` of block
    /// `id`, which is executing (the instruction reads a cycle CSR). Only
    /// with [`Hooks::MODELS_CYCLES`].
    #[inline]
    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        let _ = (id, index);
        0
    }

    /// Cumulative timing-model events before instruction number `index`
    /// of block `id` (which is executing, or ran last), into `out`, in the
    /// order of [`crate::MODEL_EVENTS`]: for the guest's performance
    /// counters of timing-model events (`crate::pmu`). Only with
    /// [`Hooks::MODELS_CYCLES`]; the default leaves `out` unchanged.
    #[inline]
    fn model_events(&mut self, id: BlockId, index: u32, out: &mut [u64; crate::MODEL_EVENTS]) {
        let _ = (id, index, out);
    }

    /// A trap was delivered to the guest's handler. `instret` counts the
    /// trapping instruction as executed (for an interrupt, the instructions
    /// before it); `sp` is the value when the handler starts.
    #[inline]
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        let _ = (trap, instret, sp);
    }

    /// An `mret` or `sret` completed.
    #[inline]
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        let _ = ret;
    }

    /// A Linux signal handler started (see [`SignalDelivery`]), after the
    /// instruction it interrupts or the system call after which it came.
    /// Several may start one after the other before any runs (the last
    /// one runs first).
    #[inline]
    fn on_signal(&mut self, signal: &SignalDelivery) {
        let _ = signal;
    }

    /// An `rt_sigreturn` restored the registers a signal frame saved.
    #[inline]
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        let _ = ret;
    }

    /// The blocks announced by [`Hooks::on_block_translated`] from now on
    /// run in `ctx`. Called before the first translation (with the context
    /// the run starts in) and whenever the context of the next translation
    /// differs from the last one announced (after a cache flush, again).
    #[inline]
    fn on_code_context(&mut self, ctx: CodeContext) {
        let _ = ctx;
    }

    /// The hart slept `ticks` of guest time (100 ns each, the unit of the
    /// `time` CSR) without executing anything: a `wfi` waiting for the
    /// machine timer, or a Linux `nanosleep`/`clock_nanosleep`. Called
    /// after the instruction that slept (the `wfi` or `ecall`) completed;
    /// `executed` counts it. A sampler paced by time sees these ticks pass
    /// with no program code running.
    #[inline]
    fn on_idle(&mut self, ticks: u64, executed: u64) {
        let _ = (ticks, executed);
    }
}

impl Hooks for () {
    const WANTS_BLOCK_EXEC: bool = false;
}

impl<A: Hooks, B: Hooks> Hooks for (A, B) {
    const WANTS_JUMPS: bool = A::WANTS_JUMPS || B::WANTS_JUMPS;
    const WANTS_MEMORY: bool = A::WANTS_MEMORY || B::WANTS_MEMORY;
    const WANTS_BRANCHES: bool = A::WANTS_BRANCHES || B::WANTS_BRANCHES;
    const WANTS_OPERANDS: bool = A::WANTS_OPERANDS || B::WANTS_OPERANDS;
    const WANTS_CALL_ARGS: bool = A::WANTS_CALL_ARGS || B::WANTS_CALL_ARGS;
    #[inline]
    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        if A::WANTS_CALL_ARGS {
            self.0.on_call_args(target, a0, a1);
        }
        if B::WANTS_CALL_ARGS {
            self.1.on_call_args(target, a0, a1);
        }
    }
    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        if A::WANTS_OPERANDS {
            self.0.on_operands(index, a, b);
        }
        if B::WANTS_OPERANDS {
            self.1.on_operands(index, a, b);
        }
    }
    /// The first collector that models cycles provides them.
    const MODELS_CYCLES: bool = A::MODELS_CYCLES || B::MODELS_CYCLES;
    const STOPS: bool = A::STOPS || B::STOPS;
    const WANTS_BLOCK_EXEC: bool = A::WANTS_BLOCK_EXEC || B::WANTS_BLOCK_EXEC;
    /// Both are asked (either may count blocks); either stops the run.
    #[inline]
    fn stop_requested(&mut self) -> bool {
        let a = A::STOPS && self.0.stop_requested();
        let b = B::STOPS && self.1.stop_requested();
        a || b
    }
    #[inline]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        if A::WANTS_MEMORY {
            self.0.on_mem(index, addr, size, write);
        }
        if B::WANTS_MEMORY {
            self.1.on_mem(index, addr, size, write);
        }
    }
    #[inline]
    fn on_mem_front(&mut self, index: u32, word: u64) {
        if A::WANTS_MEMORY {
            self.0.on_mem_front(index, word);
        }
        if B::WANTS_MEMORY {
            self.1.on_mem_front(index, word);
        }
    }
    #[inline]
    fn on_access_fault(&mut self, id: BlockId, index: u32) {
        if A::WANTS_MEMORY {
            self.0.on_access_fault(id, index);
        }
        if B::WANTS_MEMORY {
            self.1.on_access_fault(id, index);
        }
    }
    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        if A::WANTS_BRANCHES {
            self.0.on_branch(id, taken, target);
        }
        if B::WANTS_BRANCHES {
            self.1.on_branch(id, taken, target);
        }
    }
    #[inline]
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        if A::WANTS_BRANCHES {
            self.0.on_branch_front(id, word);
        }
        if B::WANTS_BRANCHES {
            self.1.on_branch_front(id, word);
        }
    }
    #[inline]
    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        if A::MODELS_CYCLES {
            self.0.cycles_before(id, index)
        } else {
            self.1.cycles_before(id, index)
        }
    }
    #[inline]
    fn model_events(&mut self, id: BlockId, index: u32, out: &mut [u64; crate::MODEL_EVENTS]) {
        if A::MODELS_CYCLES {
            self.0.model_events(id, index, out);
        } else {
            self.1.model_events(id, index, out);
        }
    }
    #[inline]
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        self.0.on_block_translated(id, pcs, insts);
        self.1.on_block_translated(id, pcs, insts);
    }
    fn split_block(&mut self, pcs: &[u64], insts: &[Inst]) -> usize {
        // Both are asked: either may keep state about translation.
        let a = self.0.split_block(pcs, insts);
        self.1.split_block(pcs, insts).min(a)
    }

    #[inline]
    fn wants_direct_jump(&mut self, pc: u64, target: u64) -> bool {
        // Both are asked (either may keep state about translation).
        let a = A::WANTS_JUMPS && self.0.wants_direct_jump(pc, target);
        let b = B::WANTS_JUMPS && self.1.wants_direct_jump(pc, target);
        a || b
    }

    #[inline]
    fn on_cache_flush(&mut self) {
        self.0.on_cache_flush();
        self.1.on_cache_flush();
    }

    #[inline]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        self.0.on_block_exec(id, executed);
        self.1.on_block_exec(id, executed);
    }
    #[inline]
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.0.on_block_cut(id, executed);
        self.1.on_block_cut(id, executed);
    }
    #[inline]
    fn on_jump(&mut self, jump: &Jump) {
        self.0.on_jump(jump);
        self.1.on_jump(jump);
    }
    #[inline]
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        self.0.on_trap(trap, instret, sp);
        self.1.on_trap(trap, instret, sp);
    }
    #[inline]
    fn on_hart_switch(&mut self, switch: &HartSwitch) {
        self.0.on_hart_switch(switch);
        self.1.on_hart_switch(switch);
    }
    #[inline]
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        self.0.on_trap_return(ret);
        self.1.on_trap_return(ret);
    }
    #[inline]
    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.0.on_signal(signal);
        self.1.on_signal(signal);
    }
    #[inline]
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        self.0.on_signal_return(ret);
        self.1.on_signal_return(ret);
    }
    #[inline]
    fn on_code_context(&mut self, ctx: CodeContext) {
        self.0.on_code_context(ctx);
        self.1.on_code_context(ctx);
    }
    #[inline]
    fn on_idle(&mut self, ticks: u64, executed: u64) {
        self.0.on_idle(ticks, executed);
        self.1.on_idle(ticks, executed);
    }
}

/// A cost model that runs inside the exact collector (`fwprof_collect::ExactCollector`) (e.g. a timing
/// model): it sees every hook first, and the collector reads its cumulative
/// event totals at every call, return and jump-in so that inclusive costs
/// per function and arc are kept for its events as for instructions.
pub trait CostModel: Hooks {
    /// Events tracked besides instructions.
    const EXTRA: usize;
    /// Cumulative value of each extra event (`EXTRA` values): up to the end
    /// of the executing block when `block_done` (after its last instruction
    /// ran: a call, return, `mret`, the end of the run), else up to its
    /// start (it has not run yet).
    fn clock(&mut self, block_done: bool) -> &[u64];
}

/// No cost model: instructions only.
impl CostModel for () {
    const EXTRA: usize = 0;
    fn clock(&mut self, _block_done: bool) -> &[u64] {
        &[]
    }
}
