//! The instrumentation collector: function entry/exit hooks compiled into
//! the program (`record --method instrument`).
//!
//! Programs built with GCC's `-finstrument-functions` call
//! `__cyg_profile_func_enter(this_fn, call_site)` after each instrumented
//! function's prologue and `__cyg_profile_func_exit(this_fn, call_site)`
//! before its epilogue (GCC manual, "Program Instrumentation Options");
//! programs built with `-pg` call `_mcount(ra)` (RISC-V GCC's
//! `PROFILE_HOOK`: the argument is the function's return address) after the
//! prologue. [`InstrumentCollector`] sees every call to these hooks (a
//! `jal`/`jalr` to their address, with the argument registers from
//! [`Hooks::on_call_args`](fwprof_sim::Hooks::on_call_args)) and keeps a stack of activations keyed by the
//! hooks' view of the program, not by the simulator's call tracking:
//!
//! * **`cyg_profile`**: the entry hook pushes an activation of `this_fn`;
//!   the exit hook pops the innermost activation of `this_fn` (activations
//!   above it, whose exit hook never ran — a `longjmp` — are closed there as
//!   *abandoned*; an exit with no activation of `this_fn` is ignored and
//!   counted). When the two hooks are one address (glibc defines them as
//!   aliases of one empty function), a call is an entry when execution
//!   jumped into `this_fn` since the previous hook call, else an exit.
//! * **`mcount`**: a call to `_mcount`/`mcount` pushes an activation of the
//!   function containing the call site; it ends when execution returns to
//!   the hook's argument (the function's return address), which also ends
//!   every activation above it.
//!
//! **Measured interval** (the *raw* duration of one call, as the hooks see
//! it): from the retirement of the call to the entry hook (or `_mcount`) to
//! the retirement of the call to the exit hook (`cyg_profile`) or of the
//! function's own return (`mcount`). It therefore holds the entry hook's
//! (or `_mcount`'s) whole body and the function's instructions after that
//! call; the exit hook's body runs after it, in the caller's interval.
//!
//! **Hook cost**: every hook call is measured from the retirement of its
//! call instruction to the retirement of the hook's return
//! ([`InstrumentData::hook_total`] over [`InstrumentData::hook_calls`]
//! calls). A hook body is *owned* by the activation that is innermost while
//! it runs: the entry hook and `_mcount` by the new activation, the exit
//! hook by the caller, hooks of excluded functions by their caller.
//!
//! **Boundary**: the instrumented function's own instructions outside its
//! measured interval — from its entry (the jump into `this_fn`, or into
//! the function holding the `_mcount` call, seen since the previous hook
//! call) up to the call to the entry hook, and, for `cyg_profile`, from the
//! exit hook's return to the function's return to `call_site` — run inside
//! the caller's interval. They are measured per activation when those jumps
//! are seen (else counted in [`InstrumentData::unmeasured_boundaries`]).
//!
//! **Compensation** (per event, with `h = hook_total / hook_calls`):
//! * compensated total of a call = raw − h × (hook calls inside its
//!   interval) + its boundary;
//! * compensated self of a context = raw self − h × (hook calls it owns)
//!   − the boundaries of its instrumented callees + its own boundaries.
//!
//! With hooks of constant cost this is exactly the instruction count the
//! exact profile gives the function's own code.
//!
//! Excluded functions (by the caller's patterns) are not tracked: their
//! time, boundaries included, stays in their caller; their hooks are still
//! measured and subtracted from the caller.

mod activations;
mod compensation;
mod tasks;
#[cfg(test)]
mod tests;
mod traps;

use fwprof_sim::{
    CostModel, Forward, HartSwitch, Jump, JumpKind, SignalDelivery, SignalReturn, TrapInfo,
    TrapReturn,
};

use crate::traps::{TrapCauseStats, TrapCounts};

use crate::context_tree::{ArcTable, ContextTree};
use crate::function_map::FunctionMap;

/// Events an [`InstrumentCollector`] measures: `[instructions, cycles]`
/// (cycles are 0 without a cost model).
pub const INSTRUMENT_EVENTS: usize = 2;

/// One value per [`INSTRUMENT_EVENTS`] event.
pub type Clock = [u64; INSTRUMENT_EVENTS];

/// Recent jumps remembered to find where an activation's function was entered.
const TRANSFERS: usize = 8;
/// How many activations from the top an exit or return is matched against.
const SEARCH_DEPTH: usize = 256;
/// No context / no function / no arc.
const NONE: u32 = u32::MAX;

/// Which hooks the program calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    /// `__cyg_profile_func_enter`/`__cyg_profile_func_exit`
    /// (`-finstrument-functions`).
    CygProfile,
    /// `_mcount`/`mcount` (`-pg`).
    Mcount,
}

impl HookKind {
    /// The stored name: `"cyg_profile"` or `"mcount"`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookKind::CygProfile => "cyg_profile",
            HookKind::Mcount => "mcount",
        }
    }
}

/// Addresses of the hook functions in the program (from its symbols).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookAddresses {
    /// `__cyg_profile_func_enter`.
    pub enter: Option<u64>,
    /// `__cyg_profile_func_exit` (may equal `enter`: glibc aliases them).
    pub exit: Option<u64>,
    /// `_mcount` and `mcount`.
    pub mcount: Vec<u64>,
}

impl HookAddresses {
    /// True if the program has none of the hooks.
    pub fn is_empty(&self) -> bool {
        self.enter.is_none() && self.exit.is_none() && self.mcount.is_empty()
    }
}

/// What an [`InstrumentCollector`] needs besides the function map.
#[derive(Clone, Debug)]
pub struct InstrumentConfig {
    /// The hooks.
    pub hooks: HookAddresses,
    /// Start address of each function id of the map's original table.
    pub starts: Vec<u64>,
    /// Per function id, true if the function is excluded (ids past the end
    /// are not).
    pub excluded: Vec<bool>,
    /// Index of the event per-call durations, minimum, maximum and
    /// histogram count: 0 instructions, 1 cycles.
    pub unit: usize,
    /// RV64 (else RV32: addresses in registers are masked to 32 bits).
    pub rv64: bool,
}

/// Per-function results. Clocks are `[instructions, cycles]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstrumentedFunction {
    /// Activations entered (completed or not).
    pub entered: u64,
    /// Completed calls (entry and exit both seen).
    pub calls: u64,
    /// Sum of the raw durations of completed calls.
    pub total: Clock,
    /// `total` compensated (see the module docs).
    pub total_compensated: Clock,
    /// Raw time as the innermost activation (all activations).
    pub self_raw: Clock,
    /// Compensated self time: the sum of its contexts' compensated self.
    pub self_compensated: Clock,
    /// Compensated time inside its outermost activations (recursion counted
    /// once), between `self_compensated` and the sum of all self time.
    pub inclusive: Clock,
    /// Shortest and longest raw completed call, in the configured unit (0
    /// without completed calls).
    pub min: u64,
    /// Longest raw completed call.
    pub max: u64,
    /// Raw completed calls by duration: bucket `i` counts `[2^i, 2^(i+1))`
    /// units, bucket 0 also 0.
    pub histogram: Vec<u64>,
}

/// One caller → callee arc of the instrumented call graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrumentedArc {
    /// Calling instrumented function; `None` for a root activation.
    pub caller: Option<u32>,
    /// Called function.
    pub callee: u32,
    /// Address of the call into the callee (the jump seen before its entry
    /// hook; else the return address less 4).
    pub call_site: u64,
    /// Activations entered along the arc.
    pub calls: u64,
    /// Compensated time in the callee's outermost activations along the arc
    /// (at most the callee's `inclusive`).
    pub inclusive: Clock,
}

/// One node of the instrumented calling-context tree (parents first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrumentedContext {
    /// Parent context, `None` for a root.
    pub parent: Option<u32>,
    /// Function id.
    pub function: u32,
    /// Activations entered in this context.
    pub calls: u64,
    /// Compensated self time.
    pub self_cost: Clock,
}

/// What [`InstrumentCollector::finish`] returns.
#[derive(Clone, Debug)]
pub struct InstrumentData {
    /// The hooks the program called (the first one called decides); `None`
    /// if it called none.
    pub kind: Option<HookKind>,
    /// Per function id.
    pub functions: Vec<InstrumentedFunction>,
    /// Arcs in order of first traversal.
    pub arcs: Vec<InstrumentedArc>,
    /// The calling-context tree.
    pub contexts: Vec<InstrumentedContext>,
    /// Hook calls measured (returned).
    pub hook_calls: u64,
    /// Their total cost.
    pub hook_total: Clock,
    /// Sum of compensated self over all functions (the profile's totals).
    pub totals: Clock,
    /// Raw time outside every tracked activation (start-up, exit, code
    /// reached from no instrumented function).
    pub outside: Clock,
    /// Exit hooks with no activation of their function.
    pub unmatched_exits: u64,
    /// Activations closed without their exit (skipped by a non-local exit).
    pub abandoned: u64,
    /// Activations still open when the run ended (closed there).
    pub open_at_end: u64,
    /// Activations whose boundary could not be measured.
    pub unmeasured_boundaries: u64,
    /// Calls to hooks of the other kind than [`InstrumentData::kind`]
    /// (measured and subtracted, not tracked).
    pub other_kind_calls: u64,
    /// The calling-context tree reached [`MAX_CONTEXTS`](crate::MAX_CONTEXTS): deeper recursion
    /// reuses the outer activation's context.
    pub contexts_folded: bool,
    /// The function map, with ranges added during the run.
    pub map: FunctionMap,
    /// Counts and latencies per trap cause.
    pub trap_causes: Vec<TrapCauseStats>,
}

/// A jump seen recently: `(target, pc, clock, hook events before it)`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Transfer {
    target: u64,
    pc: u64,
    at: Clock,
    seq: u64,
}

/// A hook call whose return is awaited.
#[derive(Clone, Copy, Debug)]
pub(super) struct HookFrame {
    /// The two addresses it may return to: after a 2- or 4-byte call, or
    /// for a hook entered by a jump (a tail call), the caller's return
    /// address (twice).
    rets: (u64, u64),
    sp: u64,
    start: Clock,
}

/// An open activation.
#[derive(Clone, Copy, Debug)]
struct Frame {
    func: u32,
    ctx: u32,
    arc: u32,
    parent_ctx: u32,
    /// Where the function returns (`call_site` / `_mcount`'s argument).
    ret: u64,
    sp: u64,
    start: Clock,
    /// Hook calls counted before its own entry hook.
    hooks_at_start: u64,
    /// Its prologue boundary.
    boundary: Clock,
    outer_fn: bool,
    outer_arc: bool,
    /// The root of a trap context (see [`traps`]).
    trap: bool,
}

/// A completed `cyg_profile` activation whose epilogue is being measured.
#[derive(Clone, Copy, Debug)]
pub(super) struct Epilogue {
    frame: Frame,
    /// Hook events when its exit hook was called (any later hook call
    /// ends the measurement).
    seq: u64,
    /// When the exit hook returned.
    start: Option<Clock>,
}

#[derive(Clone, Debug, Default)]
struct FnAcc {
    entered: u64,
    calls: u64,
    total: Clock,
    total_hooks: u64,
    total_boundary: Clock,
    incl: Clock,
    incl_hooks: u64,
    incl_boundary: Clock,
    min: u64,
    max: u64,
    hist: Vec<u64>,
}

#[derive(Clone, Debug)]
struct CtxAcc {
    parent: u32,
    func: u32,
    calls: u64,
    self_raw: Clock,
    hooks: u64,
    own_boundary: Clock,
    child_boundary: Clock,
}

#[derive(Clone, Debug)]
struct ArcAcc {
    caller: u32,
    callee: u32,
    site: u64,
    calls: u64,
    incl: Clock,
    incl_hooks: u64,
    incl_boundary: Clock,
}

/// What a hook call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Enter,
    Exit,
    Mcount,
}

/// Instrumentation collector (see the module docs). Generic over a cost
/// model (e.g. the timing model) whose first extra event is cycles.
#[derive(Debug)]
pub struct InstrumentCollector<M: CostModel = ()> {
    model: M,
    map: FunctionMap,
    cfg: InstrumentConfig,
    /// Hook addresses, `u64::MAX` where absent (checked on every call).
    hook_addrs: [u64; 4],
    mask: u64,
    /// Arguments of the call being reported: `(target, a0, a1)`.
    args: (u64, u64, u64),
    kind: Option<HookKind>,
    transfers: [Transfer; TRANSFERS],
    next_transfer: usize,
    /// Hook calls counted so far (not those made inside a hook).
    hook_events: u64,
    hook: Option<HookFrame>,
    hook_calls: u64,
    hook_total: Clock,
    frames: Vec<Frame>,
    epilogue: Option<Epilogue>,
    top_since: Clock,
    outside: Clock,
    funcs: Vec<FnAcc>,
    active_fn: Vec<u32>,
    tree: ContextTree,
    contexts: Vec<CtxAcc>,
    arc_table: ArcTable,
    arcs: Vec<ArcAcc>,
    active_arc: Vec<u32>,
    unmatched_exits: u64,
    abandoned: u64,
    unmeasured: u64,
    other_kind: u64,
    trap_counts: TrapCounts,
    /// Per open trap context, what it put aside.
    saved: Vec<traps::Saved>,
    /// The process's instruction count less the running thread's own
    /// (several Linux threads: hooks report each thread's own count; the
    /// one activation stack measures on the process's, so a call that
    /// spans another thread's turn counts that thread's instructions).
    thread_delta: u64,
    /// Open signal contexts: their root's index in `frames` and where the
    /// handler runs (to close one a `siglongjmp` left).
    signals: Vec<(usize, crate::SignalStack)>,
    /// Task detection, when asked for
    /// ([`InstrumentCollector::detect_tasks`]).
    tasks: Option<crate::TaskTracker>,
    /// Address space of the code running (the latest trap return's).
    space: u64,
    /// Per task that does not run, its activation stack.
    parked: std::collections::HashMap<u32, tasks::Parked>,
}

impl InstrumentCollector {
    /// A collector counting instructions only.
    pub fn new(map: FunctionMap, cfg: InstrumentConfig) -> InstrumentCollector {
        InstrumentCollector::with_model(map, cfg, ())
    }

    /// End of run (see [`InstrumentCollector::finish_with_model`]).
    pub fn finish(self, executed: u64) -> InstrumentData {
        self.finish_with_model(executed).0
    }
}

/// `a - b` per event, saturating.
fn sub(a: Clock, b: Clock) -> Clock {
    [a[0].saturating_sub(b[0]), a[1].saturating_sub(b[1])]
}

/// `a += b` per event.
fn add(a: &mut Clock, b: Clock) {
    a[0] += b[0];
    a[1] += b[1];
}

/// Log2 bucket of a duration: 0 for 0 and 1, else `floor(log2(d))`.
fn bucket(d: u64) -> usize {
    if d < 2 {
        0
    } else {
        63 - d.leading_zeros() as usize
    }
}

impl<M: CostModel> InstrumentCollector<M> {
    /// A collector whose cost model provides cycles (its first extra event).
    pub fn with_model(map: FunctionMap, cfg: InstrumentConfig, model: M) -> InstrumentCollector<M> {
        let mut hook_addrs = [u64::MAX; 4];
        let all = cfg
            .hooks
            .enter
            .iter()
            .chain(cfg.hooks.exit.iter())
            .chain(cfg.hooks.mcount.iter());
        for (slot, &a) in hook_addrs.iter_mut().zip(all) {
            *slot = a;
        }
        let mask = if cfg.rv64 { u64::MAX } else { 0xffff_ffff };
        InstrumentCollector {
            model,
            map,
            cfg,
            hook_addrs,
            mask,
            args: (u64::MAX, 0, 0),
            kind: None,
            transfers: [Transfer {
                target: u64::MAX,
                pc: 0,
                at: [0; 2],
                seq: u64::MAX,
            }; TRANSFERS],
            next_transfer: 0,
            hook_events: 0,
            hook: None,
            hook_calls: 0,
            hook_total: [0; 2],
            frames: Vec::new(),
            epilogue: None,
            top_since: [0; 2],
            outside: [0; 2],
            funcs: Vec::new(),
            active_fn: Vec::new(),
            tree: ContextTree::default(),
            contexts: Vec::new(),
            arc_table: ArcTable::default(),
            arcs: Vec::new(),
            active_arc: Vec::new(),
            unmatched_exits: 0,
            abandoned: 0,
            unmeasured: 0,
            other_kind: 0,
            trap_counts: TrapCounts::default(),
            saved: Vec::new(),
            thread_delta: 0,
            signals: Vec::new(),
            tasks: None,
            space: 0,
            parked: std::collections::HashMap::new(),
        }
    }

    /// Give each of an operating system's tasks an activation stack of
    /// its own (one hart, bare metal: see [`crate::TaskTracker`]; a task
    /// switch is a trap return on another stack). `entry`: where the run
    /// starts. Call before the run.
    pub fn detect_tasks(&mut self, entry: u64) {
        self.tasks = Some(crate::TaskTracker::new(entry, 0, None));
    }

    /// The cost model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The clock after the current block: executed instructions and the
    /// model's cycles.
    #[inline]
    fn now(&mut self, instret: u64) -> Clock {
        let cycles = if M::EXTRA > 0 {
            self.model.clock(true)[0]
        } else {
            0
        };
        [instret.wrapping_add(self.thread_delta), cycles]
    }
}

/// The cost model sees every hook first ([`Forward`]).
impl<M: CostModel> Forward for InstrumentCollector<M> {
    type Inner = M;
    #[inline(always)]
    fn inner(&mut self) -> &mut M {
        &mut self.model
    }

    const WANTS_JUMPS: bool = true;
    const WANTS_CALL_ARGS: bool = true;

    /// A trap opens a trap context (see the trap rules of `docs/traps.md`).
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        if let Some(t) = &mut self.tasks {
            t.trap(sp, self.space, trap.interrupt);
        }
        self.enter_trap(&trap, instret);
    }

    /// An `mret`/`sret` closes the innermost trap context, if any; on
    /// another task's stack, that task's activations go on.
    fn on_trap_return(&mut self, ret: &TrapReturn) {
        let had_trap = self.innermost_trap().is_some();
        self.leave_trap(ret.instret);
        self.space = ret.space;
        let switch = match &mut self.tasks {
            Some(t) if had_trap => t.trap_return(ret.target, ret.sp, ret.space, ret.instret),
            _ => None,
        };
        if let Some(sw) = switch {
            let now = self.now(ret.instret);
            self.switch_task(sw.from, sw.to, now);
        }
    }

    /// A Linux signal handler opens a context as a trap does.
    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.enter_signal(signal);
    }

    /// `rt_sigreturn` closes the innermost context.
    fn on_signal_return(&mut self, ret: &SignalReturn) {
        self.leave_trap(ret.instret);
    }

    /// Another thread (or hart) runs: its counts go on from the process's.
    fn on_hart_switch(&mut self, sw: &HartSwitch) {
        self.thread_delta = self
            .thread_delta
            .wrapping_add(sw.from_executed)
            .wrapping_sub(sw.to_executed);
    }

    #[inline]
    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        self.args = (target, a0, a1);
    }

    #[inline]
    fn on_jump(&mut self, j: &Jump) {
        let (kind, pc, target, sp) = (j.kind, j.pc, j.target, j.sp);
        let now = self.now(j.instret);
        if !self.signals.is_empty() && kind != JumpKind::Call {
            self.leave_signals(sp, j.instret);
        }
        match kind {
            JumpKind::Return => self.ret(target, sp, now),
            JumpKind::Call | JumpKind::CallReturn => {
                if kind == JumpKind::CallReturn {
                    self.ret(target, sp, now);
                }
                if self.hook_addrs.contains(&target) {
                    self.hook_call(target, pc, sp, now, false);
                } else {
                    self.record_transfer(target, pc, now);
                }
            }
            JumpKind::Jump | JumpKind::LinkOther => {
                if self.hook_addrs.contains(&target) {
                    self.hook_call(target, pc, sp, now, true);
                } else {
                    self.record_transfer(target, pc, now);
                }
            }
        }
    }
}
