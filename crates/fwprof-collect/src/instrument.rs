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

use std::collections::HashMap;

use fwprof_sim::{Forward, Jump, JumpKind};

use crate::context_tree::{ArcTable, ContextTree};
use crate::function_map::FunctionMap;
use fwprof_sim::CostModel;

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
}

/// A jump seen recently: `(target, pc, clock, hook events before it)`.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    target: u64,
    pc: u64,
    at: Clock,
    seq: u64,
}

/// A hook call whose return is awaited.
#[derive(Clone, Copy, Debug)]
struct HookFrame {
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
}

/// A completed `cyg_profile` activation whose epilogue is being measured.
#[derive(Clone, Copy, Debug)]
struct Epilogue {
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
        }
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
        [instret, cycles]
    }

    fn excluded(&self, f: u32) -> bool {
        self.cfg.excluded.get(f as usize).copied().unwrap_or(false)
    }

    fn start_of(&self, f: u32) -> Option<u64> {
        self.cfg
            .starts
            .get(f as usize)
            .copied()
            .or_else(|| self.map.added().iter().find(|r| r.2 == f).map(|r| r.0))
    }

    fn ensure_fn(&mut self, f: u32) {
        let need = f as usize + 1;
        if self.funcs.len() < need {
            self.funcs.resize(need, FnAcc::default());
            self.active_fn.resize(need, 0);
        }
    }

    /// The newest jump into `target` since the last hook call.
    fn find_transfer(&self, target: u64) -> Option<Transfer> {
        for k in 0..TRANSFERS {
            let t = self.transfers[(self.next_transfer + TRANSFERS - 1 - k) % TRANSFERS];
            if t.seq != self.hook_events {
                return None;
            }
            if t.target == target {
                return Some(t);
            }
        }
        None
    }

    fn record_transfer(&mut self, target: u64, pc: u64, at: Clock) {
        self.transfers[self.next_transfer] = Transfer {
            target,
            pc,
            at,
            seq: self.hook_events,
        };
        self.next_transfer = (self.next_transfer + 1) % TRANSFERS;
    }

    /// Charge the time since the innermost activation became innermost.
    fn charge(&mut self, now: Clock) {
        let spent = sub(now, self.top_since);
        match self.frames.last() {
            Some(f) => add(&mut self.contexts[f.ctx as usize].self_raw, spent),
            None => add(&mut self.outside, spent),
        }
        self.top_since = now;
    }

    /// The context of `func` under `parent` (see [`ContextTree::child`]).
    fn context(&mut self, parent: u32, func: u32) -> u32 {
        let frames = &self.frames;
        let id = self.tree.child(parent, func, || {
            frames.iter().rev().find(|f| f.func == func).map(|f| f.ctx)
        });
        if id as usize != self.contexts.len() {
            return id;
        }
        self.contexts.push(CtxAcc {
            parent,
            func,
            calls: 0,
            self_raw: [0; 2],
            hooks: 0,
            own_boundary: [0; 2],
            child_boundary: [0; 2],
        });
        id
    }

    fn arc(&mut self, caller: u32, callee: u32, site: u64) -> u32 {
        let id = self.arc_table.id((caller, callee, site, false));
        if id as usize != self.arcs.len() {
            return id;
        }
        self.arcs.push(ArcAcc {
            caller,
            callee,
            site,
            calls: 0,
            incl: [0; 2],
            incl_hooks: 0,
            incl_boundary: [0; 2],
        });
        self.active_arc.push(0);
        id
    }

    /// Open an activation of `func` at `now`; `entry` is the jump into it
    /// (its boundary starts there).
    fn push(&mut self, func: u32, ret: u64, sp: u64, now: Clock, entry: Option<Transfer>) {
        self.charge(now);
        self.ensure_fn(func);
        let (parent_ctx, caller) = self.frames.last().map_or((NONE, NONE), |f| (f.ctx, f.func));
        let site = entry.map_or(ret.wrapping_sub(4) & self.mask, |t| t.pc);
        let ctx = self.context(parent_ctx, func);
        let arc = self.arc(caller, func, site);
        let outer_fn = self.active_fn[func as usize] == 0;
        self.active_fn[func as usize] += 1;
        let outer_arc = self.active_arc[arc as usize] == 0;
        self.active_arc[arc as usize] += 1;
        self.funcs[func as usize].entered += 1;
        self.contexts[ctx as usize].calls += 1;
        self.arcs[arc as usize].calls += 1;
        let boundary = match entry {
            Some(t) => sub(now, t.at),
            None => {
                self.unmeasured += 1;
                [0; 2]
            }
        };
        add(&mut self.contexts[ctx as usize].own_boundary, boundary);
        if parent_ctx != NONE {
            add(
                &mut self.contexts[parent_ctx as usize].child_boundary,
                boundary,
            );
        }
        self.frames.push(Frame {
            func,
            ctx,
            arc,
            parent_ctx,
            ret,
            sp,
            start: now,
            hooks_at_start: self.hook_events,
            boundary,
            outer_fn,
            outer_arc,
        });
    }

    /// Close the top activation at `now`; `completed` if its end was seen.
    fn pop(&mut self, now: Clock, completed: bool) -> Option<Frame> {
        self.charge(now);
        let f = self.frames.pop()?;
        let dur = sub(now, f.start);
        let hooks = self.hook_events - f.hooks_at_start;
        let unit = self.cfg.unit.min(INSTRUMENT_EVENTS - 1);
        let acc = &mut self.funcs[f.func as usize];
        if completed {
            let d = dur[unit];
            acc.min = if acc.calls == 0 { d } else { acc.min.min(d) };
            acc.max = acc.max.max(d);
            acc.calls += 1;
            add(&mut acc.total, dur);
            acc.total_hooks += hooks;
            add(&mut acc.total_boundary, f.boundary);
            let b = bucket(d);
            if acc.hist.len() <= b {
                acc.hist.resize(b + 1, 0);
            }
            acc.hist[b] += 1;
        }
        if f.outer_fn {
            add(&mut acc.incl, dur);
            acc.incl_hooks += hooks;
            add(&mut acc.incl_boundary, f.boundary);
        }
        self.active_fn[f.func as usize] -= 1;
        if f.outer_arc {
            let a = &mut self.arcs[f.arc as usize];
            add(&mut a.incl, dur);
            a.incl_hooks += hooks;
            add(&mut a.incl_boundary, f.boundary);
        }
        self.active_arc[f.arc as usize] -= 1;
        Some(f)
    }

    /// Close the activation at `index` and every one above it; those above
    /// are completed if `above_completed` says so.
    fn pop_to(
        &mut self,
        index: usize,
        now: Clock,
        above_completed: impl Fn(&Frame) -> bool,
    ) -> Frame {
        while self.frames.len() > index + 1 {
            let top = self.frames[self.frames.len() - 1];
            let done = above_completed(&top);
            if !done {
                self.abandoned += 1;
            }
            self.pop(now, done);
        }
        self.pop(now, true).expect("index is on the stack")
    }

    /// A hook body is about to run: count it for the innermost activation.
    fn count_hook(&mut self) {
        self.hook_events += 1;
        if let Some(f) = self.frames.last() {
            self.contexts[f.ctx as usize].hooks += 1;
        }
    }

    fn role(&self, target: u64, this_fn: u64) -> Role {
        if self.cfg.hooks.mcount.contains(&target) {
            return Role::Mcount;
        }
        let enter = self.cfg.hooks.enter == Some(target);
        let exit = self.cfg.hooks.exit == Some(target);
        match (enter, exit) {
            (true, true) => {
                if self.find_transfer(this_fn).is_some() {
                    Role::Enter
                } else {
                    Role::Exit
                }
            }
            (true, false) => Role::Enter,
            _ => Role::Exit,
        }
    }

    /// A call to a hook at `target` from `pc`, or a jump to it (`tail`:
    /// GCC tail-calls the exit hook after the epilogue when nothing
    /// follows it).
    #[cold]
    fn hook_call(&mut self, target: u64, pc: u64, sp: u64, now: Clock, tail: bool) {
        if self.hook.is_some() {
            // Called from inside a hook: part of that hook's cost.
            return;
        }
        let (a0, a1) = if self.args.0 == target {
            (self.args.1 & self.mask, self.args.2 & self.mask)
        } else {
            (0, 0)
        };
        if self.epilogue.take().is_some() {
            // The previous function made a hook call before returning.
            self.unmeasured += 1;
        }
        let role = self.role(target, a0);
        let kind = if role == Role::Mcount {
            HookKind::Mcount
        } else {
            HookKind::CygProfile
        };
        let tracked = match self.kind {
            None => {
                self.kind = Some(kind);
                true
            }
            Some(k) => k == kind,
        };
        if !tracked {
            self.other_kind += 1;
        } else {
            match role {
                Role::Enter => {
                    let f = self.map.lookup_or_add(a0);
                    if !self.excluded(f) {
                        let entry = self.find_transfer(a0);
                        self.push(f, a1, sp, now, entry);
                    }
                }
                Role::Mcount => {
                    let f = self.map.lookup_or_add(pc);
                    if !self.excluded(f) {
                        let entry = self.start_of(f).and_then(|s| self.find_transfer(s));
                        self.push(f, a0, sp, now, entry);
                    }
                }
                Role::Exit => {
                    let f = self.map.lookup_or_add(a0);
                    if !self.excluded(f) {
                        self.exit(f, a1, now, tail);
                    }
                }
            }
        }
        self.count_hook();
        if let Some(e) = self.epilogue.as_mut() {
            e.seq = self.hook_events;
        }
        let rets = match (tail, role) {
            (false, _) => (pc.wrapping_add(2), pc.wrapping_add(4)),
            (true, Role::Mcount) => (a0, a0),
            (true, _) => (a1, a1),
        };
        self.hook = Some(HookFrame {
            rets,
            sp,
            start: now,
        });
    }

    /// The exit hook of `f` (returning to `call_site`) was called; `tail`:
    /// jumped to after the epilogue (nothing of `f` follows it).
    fn exit(&mut self, f: u32, call_site: u64, now: Clock, tail: bool) {
        let depth = self.frames.len();
        let found = (0..depth.min(SEARCH_DEPTH))
            .map(|k| depth - 1 - k)
            .find(|&i| self.frames[i].func == f);
        let Some(i) = found else {
            self.unmatched_exits += 1;
            return;
        };
        let frame = self.pop_to(i, now, |_| false);
        if tail {
            return;
        }
        self.epilogue = Some(Epilogue {
            frame: Frame {
                ret: call_site,
                ..frame
            },
            seq: 0,
            start: None,
        });
    }

    /// A return to `target` with stack pointer `sp`.
    fn ret(&mut self, target: u64, sp: u64, now: Clock) {
        if let Some(h) = self.hook {
            if sp == h.sp && (target == h.rets.0 || target == h.rets.1) {
                add(&mut self.hook_total, sub(now, h.start));
                self.hook_calls += 1;
                self.hook = None;
                if let Some(e) = self.epilogue.as_mut() {
                    e.start = Some(now);
                }
            }
            return;
        }
        if let Some(e) = self.epilogue {
            if target == e.frame.ret {
                self.epilogue = None;
                if let (Some(start), true) = (e.start, e.seq == self.hook_events) {
                    self.add_epilogue(&e.frame, sub(now, start));
                } else {
                    self.unmeasured += 1;
                }
            }
        }
        if self.kind == Some(HookKind::Mcount) && !self.frames.is_empty() {
            let depth = self.frames.len();
            let found = (0..depth.min(SEARCH_DEPTH))
                .map(|k| depth - 1 - k)
                .find(|&i| self.frames[i].ret == target && sp >= self.frames[i].sp);
            if let Some(mut i) = found {
                // Activations with the same return address next to it were
                // entered by tail calls (a call returns into its caller, not
                // to where the caller returns): the chain ends here too.
                while i > 0 && self.frames[i - 1].ret == target {
                    i -= 1;
                }
                self.pop_to(i, now, |f| f.ret == target);
            }
        }
    }

    /// Add a completed activation's epilogue `e` to it (and take it from
    /// its caller's self).
    fn add_epilogue(&mut self, f: &Frame, e: Clock) {
        add(&mut self.contexts[f.ctx as usize].own_boundary, e);
        if f.parent_ctx != NONE {
            add(&mut self.contexts[f.parent_ctx as usize].child_boundary, e);
        }
        let acc = &mut self.funcs[f.func as usize];
        add(&mut acc.total_boundary, e);
        if f.outer_fn {
            add(&mut acc.incl_boundary, e);
        }
        if f.outer_arc {
            add(&mut self.arcs[f.arc as usize].incl_boundary, e);
        }
    }

    /// The mean hook cost times the hook calls each context owns, rounded so
    /// that the contexts of a function together get that function's total
    /// rounded once (largest remainders get the extra unit): a function's
    /// compensated self then rounds like its compensated total.
    fn hook_shares(&self) -> Vec<Clock> {
        let (hc, ht) = (u128::from(self.hook_calls), self.hook_total);
        let mut shares = vec![[0u64; 2]; self.contexts.len()];
        if hc == 0 {
            return shares;
        }
        let mut by_fn: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, c) in self.contexts.iter().enumerate() {
            by_fn.entry(c.func).or_default().push(i);
        }
        for ids in by_fn.values() {
            for e in 0..INSTRUMENT_EVENTS {
                let t = u128::from(ht[e]);
                let n: u128 = ids
                    .iter()
                    .map(|&i| u128::from(self.contexts[i].hooks))
                    .sum();
                // round(n * t / hc), then the floors and the units left over.
                let whole = (n * t * 2 + hc) / (hc * 2);
                let mut rest = whole;
                let mut by_remainder: Vec<(u128, usize)> = Vec::with_capacity(ids.len());
                for &i in ids {
                    let q = u128::from(self.contexts[i].hooks) * t;
                    shares[i][e] = (q / hc) as u64;
                    rest -= q / hc;
                    by_remainder.push((q % hc, i));
                }
                by_remainder.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                for &(_, i) in by_remainder.iter().take(rest as usize) {
                    shares[i][e] += 1;
                }
            }
        }
        shares
    }

    /// End of run: close open activations at `executed` instructions (and
    /// the model's cycles), compensate, and return the data and the model.
    pub fn finish_with_model(mut self, executed: u64) -> (InstrumentData, M) {
        let now = self.now(executed);
        let open = self.frames.len() as u64;
        while self.pop(now, false).is_some() {}
        self.charge(now);
        if self.epilogue.take().is_some() {
            self.unmeasured += 1;
        }
        self.ensure_fn(self.map.len().saturating_sub(1) as u32);
        let (hc, ht) = (self.hook_calls, self.hook_total);
        // round(n * hook_total / hook_calls), per event.
        let hooks = |n: u64, e: usize| -> i128 {
            if hc == 0 {
                0
            } else {
                ((u128::from(n) * u128::from(ht[e]) * 2 + u128::from(hc)) / (u128::from(hc) * 2))
                    as i128
            }
        };
        let clamp = |v: i128| -> u64 { v.clamp(0, i128::from(u64::MAX)) as u64 };
        let mut functions: Vec<InstrumentedFunction> = self
            .funcs
            .iter()
            .map(|a| {
                let mut f = InstrumentedFunction {
                    entered: a.entered,
                    calls: a.calls,
                    total: a.total,
                    min: a.min,
                    max: a.max,
                    histogram: a.hist.clone(),
                    ..Default::default()
                };
                for e in 0..INSTRUMENT_EVENTS {
                    f.total_compensated[e] = clamp(
                        i128::from(a.total[e]) - hooks(a.total_hooks, e)
                            + i128::from(a.total_boundary[e]),
                    );
                    f.inclusive[e] = clamp(
                        i128::from(a.incl[e]) - hooks(a.incl_hooks, e)
                            + i128::from(a.incl_boundary[e]),
                    );
                }
                f
            })
            .collect();
        let shares = self.hook_shares();
        let contexts: Vec<InstrumentedContext> = self
            .contexts
            .iter()
            .zip(&shares)
            .map(|(c, share)| {
                let mut self_cost = [0; 2];
                for (e, v) in self_cost.iter_mut().enumerate() {
                    *v = clamp(
                        i128::from(c.self_raw[e])
                            - i128::from(share[e])
                            - i128::from(c.child_boundary[e])
                            + i128::from(c.own_boundary[e]),
                    );
                }
                let f = &mut functions[c.func as usize];
                add(&mut f.self_raw, c.self_raw);
                add(&mut f.self_compensated, self_cost);
                InstrumentedContext {
                    parent: (c.parent != NONE).then_some(c.parent),
                    function: c.func,
                    calls: c.calls,
                    self_cost,
                }
            })
            .collect();
        let mut totals = [0u64; 2];
        for f in &functions {
            add(&mut totals, f.self_compensated);
        }
        for f in &mut functions {
            for ((incl, own), all) in f.inclusive.iter_mut().zip(f.self_compensated).zip(totals) {
                *incl = (*incl).max(own).min(all);
            }
        }
        let arcs = self
            .arcs
            .iter()
            .map(|a| {
                let mut inclusive = [0; 2];
                for (e, v) in inclusive.iter_mut().enumerate() {
                    *v = clamp(
                        i128::from(a.incl[e]) - hooks(a.incl_hooks, e)
                            + i128::from(a.incl_boundary[e]),
                    )
                    .min(functions[a.callee as usize].inclusive[e]);
                }
                InstrumentedArc {
                    caller: (a.caller != NONE).then_some(a.caller),
                    callee: a.callee,
                    call_site: a.site,
                    calls: a.calls,
                    inclusive,
                }
            })
            .collect();
        let data = InstrumentData {
            kind: self.kind,
            functions,
            arcs,
            contexts,
            hook_calls: hc,
            hook_total: ht,
            totals,
            outside: self.outside,
            unmatched_exits: self.unmatched_exits,
            abandoned: self.abandoned,
            open_at_end: open,
            unmeasured_boundaries: self.unmeasured,
            other_kind_calls: self.other_kind,
            contexts_folded: self.tree.folded(),
            map: self.map,
        };
        (data, self.model)
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

    #[inline]
    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        self.args = (target, a0, a1);
    }

    #[inline]
    fn on_jump(&mut self, j: &Jump) {
        let (kind, pc, target, sp) = (j.kind, j.pc, j.target, j.sp);
        let now = self.now(j.instret);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Functions: 0 main [0x100,0x200), 1 foo [0x200,0x300), 2 enter hook
    /// [0x300,0x310), 3 exit hook [0x310,0x320), 4 bar [0x400,0x500).
    fn collector(shared: bool, excluded: Vec<bool>) -> InstrumentCollector {
        let ranges = [
            (0x100, 0x200),
            (0x200, 0x300),
            (0x300, 0x310),
            (0x310, 0x320),
            (0x400, 0x500),
        ];
        let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
        let map = FunctionMap::new(&ranges, &starts);
        let exit = if shared { 0x300 } else { 0x310 };
        InstrumentCollector::new(
            map,
            InstrumentConfig {
                hooks: HookAddresses {
                    enter: Some(0x300),
                    exit: Some(exit),
                    mcount: Vec::new(),
                },
                starts,
                excluded,
                unit: 0,
                rv64: true,
            },
        )
    }

    /// The jump `kind` at `pc` to `target`, the `t`-th instruction.
    fn jump(c: &mut InstrumentCollector, kind: JumpKind, pc: u64, target: u64, t: u64, sp: u64) {
        let j = Jump {
            block: fwprof_sim::BlockId(0),
            kind,
            pc,
            ret: pc + 4,
            target,
            instret: t,
            sp,
        };
        fwprof_sim::Hooks::on_jump(c, &j);
    }

    /// A simulated run: `t` is the instruction count.
    struct Run<'a> {
        c: &'a mut InstrumentCollector,
        t: u64,
        exit: u64,
    }

    impl Run<'_> {
        fn call(&mut self, pc: u64, target: u64, a0: u64, a1: u64, sp: u64) {
            self.t += 1;
            fwprof_sim::Hooks::on_call_args(self.c, target, a0, a1);
            jump(self.c, JumpKind::Call, pc, target, self.t, sp);
        }
        fn ret(&mut self, target: u64, sp: u64) {
            self.t += 1;
            jump(self.c, JumpKind::Return, target, target, self.t, sp);
        }
        fn run(&mut self, n: u64) {
            self.t += n;
        }
        /// A hook body of `n` instructions plus its `ret`.
        fn hook(&mut self, pc: u64, target: u64, this_fn: u64, site: u64, sp: u64, n: u64) {
            self.call(pc, target, this_fn, site, sp);
            self.run(n);
            self.ret(pc + 4, sp);
        }
        /// An instrumented function at `f` called from `site`: prologue
        /// of `p` instructions (with the entry-hook call), `body`, exit
        /// call, epilogue of `e` (with the `ret`).
        fn func(&mut self, site: u64, f: u64, p: u64, body: &mut dyn FnMut(&mut Run), e: u64) {
            let sp = 0x1000 - (f >> 4);
            self.call(site, f, 0, 0, 0x1000);
            self.run(p - 1);
            let exit = self.exit;
            self.hook(f + 8, 0x300, f, site + 4, sp, 3);
            body(self);
            self.hook(f + 40, exit, f, site + 4, sp, 3);
            self.run(e - 1);
            self.ret(site + 4, 0x1000);
        }
    }

    fn leaf_run(shared: bool, excluded: Vec<bool>) -> InstrumentData {
        let mut c = collector(shared, excluded);
        let exit = if shared { 0x300 } else { 0x310 };
        let mut r = Run {
            c: &mut c,
            t: 0,
            exit,
        };
        r.func(
            0x50,
            0x100,
            5,
            &mut |r: &mut Run| {
                for _ in 0..10 {
                    r.run(2);
                    r.func(0x120, 0x200, 4, &mut |r: &mut Run| r.run(6), 3);
                }
                r.run(7);
            },
            4,
        );
        let t = r.t;
        c.finish(t)
    }

    #[test]
    fn compensation_recovers_each_functions_own_instructions() {
        for shared in [false, true] {
            let d = leaf_run(shared, vec![]);
            assert_eq!(d.kind, Some(HookKind::CygProfile));
            // 22 hook calls of 4 instructions each (3 + ret).
            assert_eq!((d.hook_calls, d.hook_total[0]), (22, 88));
            let foo = &d.functions[1];
            assert_eq!((foo.calls, foo.entered), (10, 10));
            // Own instructions: prologue 4 (incl. call), body 6 + exit call
            // 1, epilogue 3 (incl. ret) = 14 per call.
            assert_eq!(foo.self_compensated[0], 140, "shared {shared}");
            assert_eq!(foo.total_compensated[0], 140);
            // Raw: entry hook body (4) + body 6 + exit call 1 = 11 per call.
            assert_eq!((foo.min, foo.max, foo.total[0]), (11, 11, 110));
            assert_eq!(foo.histogram, vec![0, 0, 0, 10]);
            let main = &d.functions[0];
            // main: prologue 5, 10 x (2 + 1 call) after the entry call,
            // 7, exit call 1, epilogue 4.
            assert_eq!(
                main.self_compensated[0],
                5 + 30 + 7 + 1 + 4,
                "shared {shared}"
            );
            assert_eq!(main.inclusive[0], 47 + 140);
            assert_eq!(d.totals[0], 47 + 140);
            assert_eq!(
                (d.unmeasured_boundaries, d.unmatched_exits, d.abandoned),
                (0, 0, 0)
            );
        }
    }

    #[test]
    fn excluded_functions_count_in_their_caller() {
        let d = leaf_run(false, vec![false, true]);
        assert_eq!(d.functions[1].entered, 0);
        // foo's own 14 instructions per call move to main; hooks still go.
        assert_eq!(d.functions[0].self_compensated[0], 47 + 140);
        assert_eq!(d.hook_calls, 22);
    }

    #[test]
    fn an_exit_pops_to_the_matching_activation() {
        let mut c = collector(false, vec![]);
        let mut r = Run {
            c: &mut c,
            t: 0,
            exit: 0x310,
        };
        r.call(0x50, 0x100, 0, 0, 0x1000);
        r.hook(0x108, 0x300, 0x100, 0x54, 0xff0, 1);
        r.call(0x120, 0x200, 0, 0, 0xff0);
        r.hook(0x208, 0x300, 0x200, 0x124, 0xfe0, 1);
        // foo never exits (longjmp); main's exit closes both.
        r.hook(0x140, 0x310, 0x100, 0x54, 0xff0, 1);
        // An exit of a function with no activation is ignored.
        r.hook(0x140, 0x310, 0x400, 0x54, 0xff0, 1);
        let t = r.t;
        let d = c.finish(t);
        assert_eq!((d.functions[0].calls, d.functions[1].calls), (1, 0));
        assert_eq!((d.abandoned, d.unmatched_exits), (1, 1));
        assert_eq!(d.functions[1].entered, 1);
    }

    #[test]
    fn mcount_activations_end_at_their_return() {
        let ranges = [(0x100, 0x200), (0x200, 0x300), (0x300, 0x310)];
        let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
        let map = FunctionMap::new(&ranges, &starts);
        let mut c = InstrumentCollector::new(
            map,
            InstrumentConfig {
                hooks: HookAddresses {
                    enter: None,
                    exit: None,
                    mcount: vec![0x300],
                },
                starts,
                excluded: vec![],
                unit: 0,
                rv64: true,
            },
        );
        let mut r = Run {
            c: &mut c,
            t: 0,
            exit: 0,
        };
        r.call(0x50, 0x100, 0, 0, 0x1000);
        r.run(2);
        r.hook(0x10c, 0x300, 0x54, 0, 0xff0, 5);
        for _ in 0..3 {
            r.call(0x120, 0x200, 0, 0, 0xff0);
            r.run(3);
            r.hook(0x20c, 0x300, 0x124, 0, 0xfe0, 5);
            r.run(4);
            r.ret(0x124, 0xff0);
        }
        r.ret(0x54, 0x1000);
        let t = r.t;
        let d = c.finish(t);
        assert_eq!(d.kind, Some(HookKind::Mcount));
        let foo = &d.functions[1];
        assert_eq!((foo.calls, foo.min, foo.max), (3, 11, 11));
        // Own: prologue 3 + mcount call 1 + 4 + ret 1 = 9 per call.
        assert_eq!(foo.self_compensated[0], 27);
        // main: 2 + call 1 (prologue), 3 calls, ret.
        assert_eq!(d.functions[0].self_compensated[0], 3 + 3 + 1);
    }

    #[test]
    fn mcount_tail_call_chains_end_together() {
        let ranges = [(0x100, 0x200), (0x200, 0x300), (0x300, 0x310)];
        let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
        let map = FunctionMap::new(&ranges, &starts);
        let mut c = InstrumentCollector::new(
            map,
            InstrumentConfig {
                hooks: HookAddresses {
                    enter: None,
                    exit: None,
                    mcount: vec![0x300],
                },
                starts,
                excluded: vec![],
                unit: 0,
                rv64: true,
            },
        );
        let mut r = Run {
            c: &mut c,
            t: 0,
            exit: 0,
        };
        // f and g tail-call each other 50 times; every _mcount sees the
        // same return address, 0x54.
        r.call(0x50, 0x100, 0, 0, 0x1000);
        for _ in 0..50 {
            r.hook(0x108, 0x300, 0x54, 0, 0xff0, 1);
            r.run(1);
            r.t += 1;
            jump(r.c, JumpKind::Jump, 0x110, 0x200, r.t, 0x1000);
            r.hook(0x208, 0x300, 0x54, 0, 0xff0, 1);
            r.run(1);
            r.t += 1;
            jump(r.c, JumpKind::Jump, 0x210, 0x100, r.t, 0x1000);
        }
        r.hook(0x108, 0x300, 0x54, 0, 0xff0, 1);
        r.ret(0x54, 0x1000);
        let t = r.t;
        let d = c.finish(t);
        assert_eq!((d.functions[0].calls, d.functions[1].calls), (51, 50));
        assert_eq!((d.open_at_end, d.abandoned), (0, 0));
        // Each activation's own code: the jump into it, the mcount call,
        // one instruction and the jump out (or the final ret).
        assert_eq!(d.functions[1].self_compensated[0], 50 * 3);
        assert_eq!(d.functions[0].self_compensated[0], 50 * 3 + 2);
    }

    #[test]
    fn buckets_are_log2() {
        assert_eq!(
            [0, 1, 2, 3, 4, 7, 8, 1023, 1024].map(bucket),
            [0, 0, 1, 1, 2, 2, 3, 9, 10]
        );
    }
}
