//! Call tracking from the link-register hints of the RISC-V Unprivileged ISA
//! 20191213, Table 2.1, with Callgrind's treatment of tail calls and
//! recursion.
//!
//! Semantics (all costs in executed instructions):
//! * A call pushes an activation of the callee; it starts counting after the
//!   call instruction (which is the caller's).
//! * A return pops the topmost activation whose return address equals the
//!   return target, and every activation above it (frames left by a
//!   non-local exit). The `ret` instruction itself is the callee's.
//! * A plain jump to another function's entry is a tail call: a new
//!   activation with the same return address, flagged `tail`; the target's
//!   return ends both activations.
//! * A return whose target matches no activation near the top (longjmp,
//!   exception unwinding, a hand-written context switch) resynchronises by
//!   stack pointer: activations entered at or below the current `sp` are gone.
//! * Inclusive cost of a function counts instructions executed while at least
//!   one activation of it is on the stack; an arc counts only the outermost
//!   activation of its caller→callee pair, so recursion is never counted twice.
//! * Every activation also belongs to a node of the calling-context tree
//!   (its function under its caller's context); a context's self cost is
//!   what executed while an activation of it was the topmost. Past
//!   [`MAX_CONTEXTS`](crate::MAX_CONTEXTS) contexts, a new activation of a function already on
//!   the stack reuses that activation's context (recursion is folded), so
//!   the tree stays bounded.
//!
//! Traps (Privileged ISA 20211203, §3.1.6.1 and §3.3.2): a trap is not a
//! call. [`CallStack::enter_trap`] pushes a *trap context* — an activation
//! of a synthetic root function (one per cause, `[interrupt: machine
//! timer]`) remembering the interrupted pc — above the interrupted
//! activations, which stay on the stack untouched; the handler's code runs
//! in activations above it ([`CallStack::enter_handler`]), and
//! [`CallStack::trap_return`] (`mret`/`sret`) pops the context, its
//! handler activations with it. In the calling-context tree a trap context
//! is a root of its own, or, for a trap taken inside a handler, a child of
//! the enclosing trap context's root (nested traps nest). Costs:
//! * **Trap levels.** The interrupted program is level 0, a handler level
//!   1, a handler of a trap taken inside it level 2 ... An activation's
//!   inclusive cost counts only what executed at its own level: the
//!   handler's cost does *not* count toward the interrupted functions
//!   (nor toward their arcs), as a signal handler's does not in perf.
//!   A trap root's inclusive cost counts its handler and the traps nested
//!   inside it. "Outermost activation" (recursion counted once) is judged
//!   per level, so a function running both in the program and in a
//!   handler has both counted.
//! * **Returns inside a handler** match the handler's activations first,
//!   then those below the trap context (a non-local exit out of the
//!   handler, e.g. a context restored by `longjmp`, closes the context);
//!   a return that matches nothing resynchronises by stack pointer as
//!   before, and a trap context whose interrupted `sp` is at or below the
//!   new `sp` closes with the activations above it.
//! * **Privilege levels**: [`CallStack::set_privilege`] tells the level the
//!   hart runs at; self costs are then also kept per (context, privilege).
//!
//! Several harts (or threads): each *strand* of execution has a stack of
//! its own ([`CallStack::switch_strand`]), measured on its own
//! instruction count, and roots of its own in the calling-context tree
//! (a context belongs to one strand: [`Finished::context_strands`]).
//! Functions and arcs are shared: their calls and inclusive costs are the
//! sums over the strands (an activation is outermost within its strand).
//!
//! Linux signal handlers are trap contexts too ([`CallStack::enter_signal`],
//! root `[signal: SIGSEGV]`), closed by `rt_sigreturn`
//! ([`CallStack::trap_return`]) or by a non-local exit: a resynchronisation
//! to an `sp` at or above the one the signal interrupted, off the
//! handler's alternate stack ([`crate::SignalStack::left_at`]), closes the
//! context whatever the addresses of the handler's frames (an alternate
//! stack may lie above the interrupted one); while `sp` is on the
//! alternate stack, the context stays open.

use std::collections::HashMap;

use crate::context_tree::{ArcTable, ContextTree, NONE as NO_CTX};

/// How many activations from the top a return target is matched against
/// before falling back to stack-pointer resynchronisation.
const RETURN_SEARCH_DEPTH: usize = 256;

/// One node of the calling-context tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextStats {
    /// Parent context (an index smaller than this one's), `None` for a root.
    pub parent: Option<u32>,
    /// Function id.
    pub function: u32,
    /// Activations entered in this context.
    pub calls: u64,
    /// Instructions executed while this context was the innermost.
    pub self_cost: u64,
}

/// Per-function totals gathered by the call stack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FunctionStats {
    /// Number of activations entered (calls and tail calls).
    pub calls: u64,
    /// Instructions executed while at least one activation was on the stack.
    pub inclusive: u64,
}

/// One call-graph arc: caller → callee from one call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArcStats {
    /// Calling function id, `None` for the program's root (`<spontaneous>`).
    pub caller: Option<u32>,
    /// Called function id.
    pub callee: u32,
    /// Address of the call (or tail-jump) instruction.
    pub call_site: u64,
    /// True if the arc was entered by a jump without link (a tail call).
    pub tail: bool,
    /// Number of traversals.
    pub calls: u64,
    /// Instructions executed inside the callee's outermost activation through this arc.
    pub inclusive: u64,
}

/// What a call from one call site to one callee resolved to under one
/// parent context: the arc's and the callee's context's ids. A caller of
/// [`CallStack::call_memo`] keeps one per call site (the exact collector:
/// per translated block), so that a call repeated from the same site under
/// the same parent skips the arc and context lookups (and the cache lines
/// they touch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallMemo {
    parent: u32,
    arc: u32,
    ctx: u32,
}

impl CallMemo {
    /// Matches no parent context: neither a context id nor a root marker.
    pub const EMPTY: CallMemo = CallMemo {
        parent: NO_CTX - MAX_STRANDS,
        arc: 0,
        ctx: 0,
    };
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Trap level whose clock this activation's inclusive cost is measured
    /// on (a trap root: the level it was entered from).
    level: u32,
    /// A trap context's root (its `ret` is the interrupted pc).
    trap: bool,
    /// `fn_level`/`arc_level` of its function/arc before it was entered.
    saved_fn: u32,
    saved_arc: u32,
    func: u32,
    arc: u32,
    /// Expected return target.
    ret: u64,
    /// `sp` when the activation was entered.
    sp: u64,
    /// Instructions on its level's clock when it started (the executed
    /// count less the instructions of trap contexts closed since level
    /// `level` was entered).
    start: u64,
    /// This activation was entered by a tail call (pops with its parent).
    tail: bool,
    /// Outermost activation of its function / arc.
    outer_fn: bool,
    outer_arc: bool,
    /// Its node in the calling-context tree.
    ctx: u32,
}

/// What [`CallStack::finish_with_extra`] returns.
#[derive(Clone, Debug, Default)]
pub struct Finished {
    /// Per function id: calls and inclusive instructions.
    pub functions: Vec<FunctionStats>,
    /// Arcs, in order of first traversal.
    pub arcs: Vec<ArcStats>,
    /// Inclusive extra events per function (`functions.len() * extra`).
    pub functions_extra: Vec<u64>,
    /// Inclusive extra events per arc (`arcs.len() * extra`).
    pub arcs_extra: Vec<u64>,
    /// The calling-context tree, parents before children.
    pub contexts: Vec<ContextStats>,
    /// Self extra events per context (`contexts.len() * extra`).
    pub contexts_extra: Vec<u64>,
    /// Recursion was folded because the tree reached [`MAX_CONTEXTS`](crate::MAX_CONTEXTS).
    pub contexts_folded: bool,
    /// Self cost per context and privilege level (encoded as in
    /// `mstatus.MPP`: 0 U, 1 S, 3 M), for every pair with a cost:
    /// `(context, privilege, instructions, extra events)`, sorted by
    /// context then privilege (extra events: `extra` values).
    pub contexts_by_privilege: Vec<(u32, u8, u64, Vec<u64>)>,
    /// The strands, in order of first appearance: the key each was
    /// switched to with ([`CallStack::switch_strand`]; the first, which
    /// runs from the start, has key 0).
    pub strands: Vec<u32>,
    /// Per context, the index in `strands` of the strand it belongs to.
    pub context_strands: Vec<u32>,
}

/// The stack of a strand that does not run (see [`CallStack::switch_strand`]).
#[derive(Clone, Debug, Default)]
struct Parked {
    frames: Vec<Frame>,
    fn_level: Vec<u32>,
    arc_level: Vec<u32>,
    snap: Vec<Clock>,
    top_since: u64,
    level: u32,
    excluded: Vec<u64>,
    excluded_clock: Vec<Clock>,
    innermost_trap: Option<usize>,
    privilege: u8,
    /// The extra events' clock when it stopped, and the other strands'
    /// share of the clock before that (see `CallStack::strand_off`).
    clock_out: Clock,
    clock_off: Clock,
}

/// Parent markers of the roots of strand k > 0 in the context tree:
/// `NO_CTX - k` (strand 0's is `NO_CTX`). Context ids stay far below
/// (at most [`MAX_CONTEXTS`](crate::MAX_CONTEXTS)).
const MAX_STRANDS: u32 = 1 << 20;

/// True if `parent` is a root marker rather than a context.
fn is_root_marker(parent: u32) -> bool {
    parent > NO_CTX - MAX_STRANDS
}

/// A shadow call stack that accumulates [`FunctionStats`] and [`ArcStats`].
#[derive(Clone, Debug, Default)]
pub struct CallStack {
    frames: Vec<Frame>,
    funcs: Vec<FunctionStats>,
    /// Per function, the trap level of its innermost activation on the
    /// stack ([`NO_CTX`] if none): an activation is its function's
    /// outermost at its level unless this equals the level.
    fn_level: Vec<u32>,
    /// The arcs' ids, and their stats by id.
    arc_table: ArcTable,
    arcs: Vec<ArcStats>,
    arc_level: Vec<u32>,
    /// Events tracked besides instructions (0 = instructions only).
    extra: usize,
    /// Current cumulative value of each extra event ([`CallStack::set_clock`]).
    clock: Clock,
    /// Per frame, the clock when it was entered (empty without extra events).
    snap: Vec<Clock>,
    /// Inclusive extra events per function and per arc, outermost
    /// activations only (empty without extra events).
    funcs_extra: Vec<Clock>,
    arcs_extra: Vec<Clock>,
    /// The calling-context tree, and its stats by context.
    tree: ContextTree,
    contexts: Vec<ContextStats>,
    contexts_extra: Vec<Clock>,
    /// When the topmost activation became the topmost: instruction count
    /// and the extra events' clock.
    top_since: u64,
    top_clock: Clock,
    /// Open trap contexts (the current trap level).
    level: u32,
    /// Per trap level, instructions (and extra events) of the trap
    /// contexts entered from it and closed since it was entered.
    excluded: Vec<u64>,
    excluded_clock: Vec<Clock>,
    /// Index of the innermost trap root in `frames`, if any.
    innermost_trap: Option<usize>,
    /// Privilege the hart runs at (0 U, 1 S, 3 M), and the one it started
    /// at (whose per-context costs are the remainder of the others').
    privilege: u8,
    base_privilege: u8,
    /// Self cost per (context, privilege) for privileges other than
    /// `base_privilege`.
    by_privilege: HashMap<(u32, u8), (u64, Clock)>,
    /// The running strand's index, the strands' keys by index, the stacks
    /// of those that do not run (by index), and each context's strand.
    strand: u32,
    strand_keys: Vec<u32>,
    parked: Vec<Option<Parked>>,
    context_strands: Vec<u32>,
    /// What the extra events' clock (one for the whole run) counted while
    /// other strands ran since the running strand started: its activations
    /// measure on the clock less this.
    strand_off: Clock,
    /// Open signal contexts: their root's index in `frames` and where the
    /// handler runs.
    signals: Vec<(usize, crate::SignalStack)>,
}

/// Most extra events a [`CallStack`] tracks.
pub const MAX_EXTRA_EVENTS: usize = 16;

/// Values of the extra events (the first `extra` are used); a fixed size,
/// so that the per-call arithmetic on them is a few vector operations.
type Clock = [u64; MAX_EXTRA_EVENTS];

/// `a[e] += b[e] - c[e]` for every event (saturating at 0).
#[inline(always)]
fn add_spent(a: &mut Clock, b: &Clock, c: &Clock) {
    for e in 0..MAX_EXTRA_EVENTS {
        a[e] += b[e].saturating_sub(c[e]);
    }
}

/// The first `x` values of each clock, one after the other.
fn flatten(v: &[Clock], x: usize) -> Vec<u64> {
    v.iter().flat_map(|c| c[..x].iter().copied()).collect()
}

impl CallStack {
    /// An empty stack (no root yet).
    pub fn new() -> CallStack {
        CallStack::default()
    }

    /// An empty stack that also accumulates `extra` events besides
    /// instructions (e.g. cycles from a timing model): their cumulative
    /// values are given with [`CallStack::set_clock`] before each call,
    /// return or tail call, and their inclusive totals come out of
    /// [`CallStack::finish_with_extra`].
    ///
    /// # Panics
    /// If `extra` exceeds [`MAX_EXTRA_EVENTS`].
    pub fn with_extra_events(extra: usize) -> CallStack {
        assert!(
            extra <= MAX_EXTRA_EVENTS,
            "at most {MAX_EXTRA_EVENTS} extra events"
        );
        CallStack {
            extra,
            ..CallStack::default()
        }
    }

    /// Set the current cumulative value of each extra event (`extra`
    /// values; ignored when the stack tracks none).
    #[inline]
    pub fn set_clock(&mut self, clock: &[u64]) {
        if self.extra > 0 {
            self.clock[..self.extra].copy_from_slice(&clock[..self.extra]);
        }
    }

    #[inline(always)]
    fn ensure_fn(&mut self, f: u32) {
        if self.funcs.len() <= f as usize {
            self.grow_fns(f);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_fns(&mut self, f: u32) {
        let need = f as usize + 1;
        self.funcs.resize(need, FunctionStats::default());
        self.fn_level.resize(need, NO_CTX);
        if self.extra > 0 {
            self.funcs_extra.resize(need, [0; MAX_EXTRA_EVENTS]);
        }
    }

    #[inline(always)]
    fn arc_id(&mut self, caller: Option<u32>, callee: u32, site: u64, tail: bool) -> u32 {
        let id = self
            .arc_table
            .id((caller.unwrap_or(NO_CTX), callee, site, tail));
        if id as usize == self.arcs.len() {
            self.new_arc(caller, callee, site, tail);
        }
        id
    }

    #[cold]
    fn new_arc(&mut self, caller: Option<u32>, callee: u32, site: u64, tail: bool) {
        self.arcs.push(ArcStats {
            caller,
            callee,
            call_site: site,
            tail,
            calls: 0,
            inclusive: 0,
        });
        self.arc_level.push(NO_CTX);
        if self.extra > 0 {
            self.arcs_extra.push([0; MAX_EXTRA_EVENTS]);
        }
    }

    /// The context of `function` called from context `parent` (`NO_CTX`
    /// for a root), created if new; past [`MAX_CONTEXTS`](crate::MAX_CONTEXTS), recursion folds
    /// into the innermost activation of `function` on the stack.
    #[inline]
    fn context(&mut self, parent: u32, function: u32) -> u32 {
        let frames = &self.frames;
        let id = self.tree.child(parent, function, || {
            frames
                .iter()
                .rev()
                .find(|f| f.func == function)
                .map(|f| f.ctx)
        });
        if id as usize == self.contexts.len() {
            self.new_context(parent, function);
        }
        id
    }

    #[cold]
    fn new_context(&mut self, parent: u32, function: u32) {
        self.context_strands.push(self.strand);
        self.contexts.push(ContextStats {
            parent: (!is_root_marker(parent)).then_some(parent),
            function,
            calls: 0,
            self_cost: 0,
        });
        if self.extra > 0 {
            self.contexts_extra.push([0; MAX_EXTRA_EVENTS]);
        }
    }

    /// Charge what executed since the topmost activation became the
    /// topmost to its context, at instruction count `now` (and the current
    /// clock); the next topmost starts counting here.
    #[inline(always)]
    fn charge_top(&mut self, now: u64) {
        if let Some(top) = self.frames.last() {
            let c = top.ctx as usize;
            let spent = now.saturating_sub(self.top_since);
            self.contexts[c].self_cost += spent;
            // One test for the rare cases: extra events, another privilege.
            if self.extra > 0 || self.privilege != self.base_privilege {
                self.charge_top_rest(c, spent);
            }
        }
        self.top_since = now;
        // Without extra events the clocks are unused: copying them would
        // cost 128 bytes on every call and return.
        if self.extra > 0 {
            self.top_clock = self.clock;
        }
    }

    /// [`CallStack::charge_top`]'s extra events and privilege share for
    /// context `c`, which spent `spent` instructions.
    #[cold]
    #[inline(never)]
    fn charge_top_rest(&mut self, c: usize, spent: u64) {
        if self.extra > 0 {
            add_spent(&mut self.contexts_extra[c], &self.clock, &self.top_clock);
        }
        if self.privilege != self.base_privilege {
            self.charge_privilege(c as u32, spent);
        }
    }

    /// Charge `spent` instructions (and the extra events since `top_clock`)
    /// of context `c` to the current privilege.
    #[cold]
    fn charge_privilege(&mut self, c: u32, spent: u64) {
        let e = self
            .by_privilege
            .entry((c, self.privilege))
            .or_insert((0, [0; MAX_EXTRA_EVENTS]));
        e.0 += spent;
        if self.extra > 0 {
            add_spent(&mut e.1, &self.clock, &self.top_clock);
        }
    }

    /// The hart runs at `privilege` (0 U, 1 S, 3 M) from instruction count
    /// `now` on (set the clock first). The first call, before the root is
    /// entered, gives the level the run starts at.
    pub fn set_privilege(&mut self, privilege: u8, now: u64) {
        if self.frames.is_empty() && self.contexts.is_empty() {
            self.base_privilege = privilege;
        } else if privilege != self.privilege {
            self.charge_top(now);
        }
        self.privilege = privilege;
    }

    /// Remember the level's extra-event clock for the frame being pushed.
    #[cold]
    #[inline(never)]
    fn snap_clock(&mut self, level: u32) {
        let c = self.level_clock(level);
        self.snap.push(c);
    }

    /// The level's clock at instruction count `now`: `now` less the
    /// instructions of the trap contexts entered from it and closed.
    #[inline]
    fn level_now(&self, level: u32, now: u64) -> u64 {
        now.saturating_sub(self.excluded.get(level as usize).copied().unwrap_or(0))
    }

    /// The level's extra-event clock (see [`CallStack::level_now`]), less
    /// what other strands spent of it.
    #[inline]
    fn level_clock(&self, level: u32) -> Clock {
        let mut c = self.clock;
        for (v, off) in c.iter_mut().zip(&self.strand_off) {
            *v = v.saturating_sub(*off);
        }
        if let Some(x) = self.excluded_clock.get(level as usize) {
            for e in 0..MAX_EXTRA_EVENTS {
                c[e] = c[e].saturating_sub(x[e]);
            }
        }
        c
    }

    /// The privilege the running strand runs at (0 U, 1 S, 3 M).
    pub fn privilege(&self) -> u8 {
        self.privilege
    }

    /// The number of open trap contexts (0 while the program runs outside
    /// every handler).
    pub fn trap_level(&self) -> u32 {
        self.level
    }

    /// True if the topmost activation is a trap context's root (a trap was
    /// taken and its handler has not run an instruction yet).
    #[inline]
    pub fn at_trap_root(&self) -> bool {
        self.frames.last().is_some_and(|f| f.trap)
    }

    /// The function of the topmost activation, if any.
    #[inline]
    pub fn current(&self) -> Option<u32> {
        self.frames.last().map(|f| f.func)
    }

    /// Depth of the stack (number of activations).
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// The activations, outermost first: `(function id, tail)`, where
    /// `tail` marks an activation entered by a tail call or a jump into
    /// another function (it replaced the one below it, which it ends with).
    /// Read-only; e.g. to check a stack unwinder against exact tracking.
    pub fn activations(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        self.frames.iter().map(|f| (f.func, f.tail))
    }

    /// The run moves to the strand `key` (a hart's number, a thread's id)
    /// at instruction count `from_now` of the strand that stops and
    /// `to_now` of the one that starts (each strand counts its own
    /// instructions). The stopping strand's stack is set aside as it is;
    /// the other's is taken up again, or, the first time, starts empty at
    /// privilege `privilege` (enter its root next, as for the first
    /// strand). Set the clock to the starting strand's first.
    ///
    /// # Panics
    /// Past 2^20 strands.
    pub fn switch_strand(&mut self, key: u32, from_now: u64, to_now: u64, privilege: u8) {
        if self.strand_keys.is_empty() {
            self.strand_keys.push(0);
            self.parked.push(None);
        }
        let to = match self.strand_keys.iter().position(|&k| k == key) {
            Some(i) => i as u32,
            None => {
                assert!(
                    (self.strand_keys.len() as u32) < MAX_STRANDS,
                    "too many strands"
                );
                self.strand_keys.push(key);
                self.parked.push(None);
                self.strand_keys.len() as u32 - 1
            }
        };
        if to == self.strand {
            return;
        }
        self.charge_top(from_now);
        let out = Parked {
            frames: std::mem::take(&mut self.frames),
            fn_level: std::mem::take(&mut self.fn_level),
            arc_level: std::mem::take(&mut self.arc_level),
            snap: std::mem::take(&mut self.snap),
            top_since: self.top_since,
            level: self.level,
            excluded: std::mem::take(&mut self.excluded),
            excluded_clock: std::mem::take(&mut self.excluded_clock),
            innermost_trap: self.innermost_trap,
            privilege: self.privilege,
            clock_out: self.clock,
            clock_off: self.strand_off,
        };
        self.parked[self.strand as usize] = Some(out);
        let p = self.parked[to as usize].take().unwrap_or(Parked {
            privilege,
            ..Parked::default()
        });
        self.strand = to;
        self.frames = p.frames;
        self.fn_level = p.fn_level;
        self.arc_level = p.arc_level;
        // Functions and arcs first seen while it was parked.
        self.fn_level.resize(self.funcs.len(), NO_CTX);
        self.arc_level.resize(self.arcs.len(), NO_CTX);
        self.snap = p.snap;
        self.level = p.level;
        self.excluded = p.excluded;
        self.excluded_clock = p.excluded_clock;
        self.innermost_trap = p.innermost_trap;
        self.privilege = p.privilege;
        self.top_since = to_now;
        self.top_clock = self.clock;
        // A strand taken up again: the clock ran for others meanwhile.
        self.strand_off = [0; MAX_EXTRA_EVENTS];
        if !self.frames.is_empty() {
            for e in 0..MAX_EXTRA_EVENTS {
                self.strand_off[e] =
                    p.clock_off[e].saturating_add(self.clock[e].saturating_sub(p.clock_out[e]));
            }
        }
    }

    /// Enter the root activation (the program's entry function) at instruction count `now`.
    /// It is counted as one call from `<spontaneous>`.
    pub fn enter_root(&mut self, func: u32, sp: u64, now: u64) {
        self.push(None, func, 0, u64::MAX, sp, now, false, false, None);
    }

    /// The root activation (boot code such as a reset ROM, alone on the
    /// stack) hands control over to `func` at instruction count `now`: it
    /// ends, and `func` becomes the root activation, counted as one call
    /// from `<spontaneous>` (no arc from the boot code).
    pub fn hand_over(&mut self, func: u32, sp: u64, now: u64) {
        debug_assert_eq!(self.frames.len(), 1);
        while !self.frames.is_empty() {
            self.pop_one(now);
        }
        self.enter_root(func, sp, now);
    }

    /// A trap was taken at instruction count `now` (which counts the
    /// trapping instruction; set the clock first): push a trap context
    /// whose root is the synthetic function `root` (one per cause),
    /// remembering the interrupted pc `pc` and the `sp` it had. The
    /// context is a root of the calling-context tree, or a child of the
    /// enclosing trap context's root when taken inside a handler (then
    /// its arc comes from that root). Call [`CallStack::enter_handler`]
    /// when the handler's first instruction runs.
    pub fn enter_trap(&mut self, root: u32, pc: u64, sp: u64, now: u64) {
        let caller = self.innermost_trap.map(|i| self.frames[i].func);
        self.push(caller, root, 0, pc, sp, now, false, true, None);
        self.level += 1;
        let l = self.level as usize;
        if self.excluded.len() <= l {
            self.excluded.resize(l + 1, 0);
            self.excluded_clock.resize(l + 1, [0; MAX_EXTRA_EVENTS]);
        }
        // Nothing of the new level is open: its clock starts afresh.
        self.excluded[l] = 0;
        self.excluded_clock[l] = [0; MAX_EXTRA_EVENTS];
    }

    /// A Linux signal handler starts at instruction count `now`: as
    /// [`CallStack::enter_trap`] with the signal's root, interrupting `pc`;
    /// `stack` says where the handler runs, so that a non-local exit out
    /// of it closes the context ([`CallStack::resync`]).
    pub fn enter_signal(&mut self, root: u32, pc: u64, stack: crate::SignalStack, now: u64) {
        self.resync_signals(stack.sp, now);
        self.signals.push((self.frames.len(), stack));
        self.enter_trap(root, pc, stack.sp, now);
    }

    /// The handler of the innermost trap context starts running `func` at
    /// instruction count `now`: its first activation, called from the trap
    /// root (call site 0). It is never popped by a return, only with its
    /// context.
    pub fn enter_handler(&mut self, func: u32, sp: u64, now: u64) {
        let root = self.frames.last().map(|f| f.func);
        self.push(root, func, 0, u64::MAX, sp, now, false, false, None);
    }

    /// An `mret`/`sret` at instruction count `now` (counting it): close the
    /// innermost trap context, its handler's activations with it, and give
    /// the pc it interrupted; the interrupted activations continue (their
    /// call counts unchanged, no arc added). `None` if no trap context is
    /// open (e.g. start-up code entering a lower privilege with `mret`):
    /// nothing is popped.
    pub fn trap_return(&mut self, now: u64) -> Option<u64> {
        let i = self.innermost_trap?;
        let pc = self.frames[i].ret;
        while self.frames.len() > i {
            self.pop_one(now);
        }
        Some(pc)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn push(
        &mut self,
        caller: Option<u32>,
        callee: u32,
        site: u64,
        ret: u64,
        sp: u64,
        now: u64,
        tail: bool,
        trap: bool,
        memo: Option<&mut CallMemo>,
    ) {
        self.ensure_fn(callee);
        // A trap root hangs from the enclosing trap context's root, or is a
        // root of the tree; everything else from the topmost activation.
        let root = NO_CTX - self.strand;
        let parent = if trap {
            self.innermost_trap.map_or(root, |i| self.frames[i].ctx)
        } else {
            self.frames.last().map_or(root, |f| f.ctx)
        };
        let (arc, ctx) = match memo {
            Some(m) if m.parent == parent => (m.arc, m.ctx),
            memo => {
                let arc = self.arc_id(caller, callee, site, tail);
                let ctx = self.context(parent, callee);
                if let Some(m) = memo {
                    *m = CallMemo { parent, arc, ctx };
                }
                (arc, ctx)
            }
        };
        self.funcs[callee as usize].calls += 1;
        self.arcs[arc as usize].calls += 1;
        let level = self.level;
        let saved_fn = self.fn_level[callee as usize];
        let saved_arc = self.arc_level[arc as usize];
        self.fn_level[callee as usize] = level;
        self.arc_level[arc as usize] = level;
        if self.extra > 0 {
            self.snap_clock(level);
        }
        self.charge_top(now);
        self.contexts[ctx as usize].calls += 1;
        if trap {
            self.innermost_trap = Some(self.frames.len());
        }
        self.frames.push(Frame {
            level,
            trap,
            saved_fn,
            saved_arc,
            ctx,
            func: callee,
            arc,
            ret,
            sp,
            start: self.level_now(level, now),
            tail,
            // A trap root counts once however its contexts nest (an inner
            // one's cost is inside the outer's); anything else once per level.
            outer_fn: if trap {
                saved_fn == NO_CTX
            } else {
                saved_fn != level
            },
            outer_arc: if trap {
                saved_arc == NO_CTX
            } else {
                saved_arc != level
            },
        });
    }

    /// Pop the topmost activation at instruction count `now` (nothing if
    /// the stack is empty), adding its inclusive cost.
    #[inline]
    fn pop_one(&mut self, now: u64) {
        self.charge_top(now);
        let Some(n) = self.frames.len().checked_sub(1) else {
            return;
        };
        // The fields are read where the frame is, not from a copy of it:
        // on the hot path a copy's loads waited for its stores.
        let f = &self.frames[n];
        let (func, arc, saved_fn, saved_arc) = (f.func, f.arc, f.saved_fn, f.saved_arc);
        let (outer_fn, outer_arc, rare) = (f.outer_fn, f.outer_arc, f.trap || self.extra > 0);
        let spent = self.level_now(f.level, now).saturating_sub(f.start);
        self.fn_level[func as usize] = saved_fn;
        self.arc_level[arc as usize] = saved_arc;
        if outer_fn {
            self.funcs[func as usize].inclusive += spent;
        }
        if outer_arc {
            self.arcs[arc as usize].inclusive += spent;
        }
        if rare {
            let f = self.frames.pop().expect("a frame");
            self.popped_rest(&f, spent);
        } else {
            self.frames.truncate(n);
        }
    }

    /// What [`CallStack::pop_one`] does besides instructions for frame
    /// `f`, which spent `spent` instructions on its level's clock: its
    /// extra events, and closing a trap context.
    #[cold]
    #[inline(never)]
    fn popped_rest(&mut self, f: &Frame, spent: u64) {
        // The extra events it spent, when it is a trap root (which leaves
        // them out of the level it interrupted).
        let mut trap_clock = None;
        if self.extra > 0 {
            if let Some(snap) = self.snap.pop() {
                let now_clock = self.level_clock(f.level);
                if f.trap {
                    let mut spent_clock = [0; MAX_EXTRA_EVENTS];
                    add_spent(&mut spent_clock, &now_clock, &snap);
                    trap_clock = Some(spent_clock);
                }
                if f.outer_fn {
                    add_spent(&mut self.funcs_extra[f.func as usize], &now_clock, &snap);
                }
                if f.outer_arc {
                    add_spent(&mut self.arcs_extra[f.arc as usize], &now_clock, &snap);
                }
            }
        }
        if f.trap {
            let i = self.frames.len();
            self.signals.retain(|&(j, _)| j < i);
            // The context's whole duration leaves the clock of the level
            // it interrupted.
            let l = f.level as usize;
            self.excluded[l] += spent;
            if let Some(spent_clock) = trap_clock {
                for (x, s) in self.excluded_clock[l].iter_mut().zip(spent_clock) {
                    *x += s;
                }
            }
            self.level -= 1;
            self.innermost_trap = self.frames.iter().rposition(|f| f.trap);
        }
    }

    /// A call from `caller` (the function holding the call instruction at
    /// `site`) to `callee`, returning to `ret`. `now` counts the call
    /// instruction; `sp` is the stack pointer at the call.
    #[inline]
    pub fn call(&mut self, caller: u32, callee: u32, site: u64, ret: u64, sp: u64, now: u64) {
        self.push(Some(caller), callee, site, ret, sp, now, false, false, None);
    }

    /// [`CallStack::call`], with `memo` kept for the call site: when it
    /// holds this call's parent context, its arc and context are used
    /// without a lookup; otherwise they are looked up and kept in it. The
    /// caller keeps a memo for one (caller, callee, site) only.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn call_memo(
        &mut self,
        caller: u32,
        callee: u32,
        site: u64,
        ret: u64,
        sp: u64,
        now: u64,
        memo: &mut CallMemo,
    ) {
        self.push(
            Some(caller),
            callee,
            site,
            ret,
            sp,
            now,
            false,
            false,
            Some(memo),
        );
    }

    /// A jump without link from `caller` at `site` to the entry of `callee`:
    /// a tail call replacing the current activation (both end at the callee's return).
    #[inline]
    pub fn tail_call(&mut self, caller: u32, callee: u32, site: u64, sp: u64, now: u64) {
        let ret = self.frames.last().map_or(u64::MAX, |f| f.ret);
        self.push(Some(caller), callee, site, ret, sp, now, true, false, None);
    }

    /// A return to `target` with stack pointer `sp` after it; `now` counts the
    /// return instruction.
    #[inline]
    pub fn ret(&mut self, target: u64, sp: u64, now: u64) {
        let n = self.frames.len();
        // The common case first: the topmost activation, entered by a call,
        // returns (what the search below finds first, and pops alone).
        if n > 1 {
            let top = &self.frames[n - 1];
            if top.ret == target && !top.trap && !top.tail {
                self.pop_one(now);
                return;
            }
        }
        let lowest = n.saturating_sub(RETURN_SEARCH_DEPTH);
        // Never pop the root activation: it ends only when the run does.
        // Trap roots hold the interrupted pc, not a return address: they
        // never match (a match below one closes it: a non-local exit out of
        // the handler).
        let found = (lowest.max(1)..n)
            .rev()
            .find(|&i| self.frames[i].ret == target && !self.frames[i].trap);
        match found {
            Some(mut i) => {
                while i > 1 && self.frames[i].tail && self.frames[i - 1].ret == target {
                    i -= 1;
                }
                while self.frames.len() > i {
                    self.pop_one(now);
                }
            }
            None => self.resync(sp, now),
        }
    }

    /// Drop activations entered at or below `sp` (the stack grows down): used
    /// after non-local exits such as `longjmp`. A trap context goes with
    /// them when the `sp` it interrupted is at or below `sp` (a `longjmp`
    /// out of the handler to the interrupted program's frames); a signal
    /// context whose handler runs on an alternate stack goes when `sp`
    /// leaves that stack, and stays while `sp` is on it.
    pub fn resync(&mut self, sp: u64, now: u64) {
        self.resync_signals(sp, now);
        while self.frames.len() > 1 && self.frames.last().is_some_and(|f| f.sp <= sp) {
            let i = self.frames.len() - 1;
            let on_alt =
                |s: &crate::SignalStack| s.alt.is_some_and(|(lo, hi)| (lo..hi).contains(&sp));
            if self.signals.iter().any(|(j, s)| *j == i && on_alt(s)) {
                break;
            }
            self.pop_one(now);
        }
    }

    /// Close the signal contexts (with everything above them) that a
    /// thread whose `sp` is `sp` has left ([`crate::SignalStack::left_at`]).
    fn resync_signals(&mut self, sp: u64, now: u64) {
        if let Some(&(i, _)) = self.signals.iter().find(|(_, s)| s.left_at(sp)) {
            while self.frames.len() > i.max(1) {
                self.pop_one(now);
            }
        }
    }

    /// Close every activation at the end of the run (`now` = total executed).
    pub fn finish(self, now: u64) -> (Vec<FunctionStats>, Vec<ArcStats>) {
        let f = self.finish_with_extra(now);
        (f.functions, f.arcs)
    }

    /// [`CallStack::finish`], also returning the inclusive extra events
    /// and the calling-context tree. Set the final clock first.
    /// With several strands, `now` is the running strand's count; the
    /// others close at the counts they stopped at.
    pub fn finish_with_extra(mut self, now: u64) -> Finished {
        while !self.frames.is_empty() {
            self.pop_one(now);
        }
        for i in 0..self.parked.len() {
            let Some(p) = self.parked[i].as_ref() else {
                continue;
            };
            let (key, at) = (self.strand_keys[i], p.top_since);
            self.switch_strand(key, now, at, 0);
            while !self.frames.is_empty() {
                self.pop_one(at);
            }
        }
        let extra = self.extra;
        let mut by_priv: Vec<(u32, u8, u64, Vec<u64>)> = Vec::new();
        // The base privilege's share is each context's self cost less the
        // other privileges'.
        let mut rest: Vec<(u64, Clock)> = self
            .contexts
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let x = self
                    .contexts_extra
                    .get(i)
                    .copied()
                    .unwrap_or([0; MAX_EXTRA_EVENTS]);
                (c.self_cost, x)
            })
            .collect();
        for (&(c, p), (n, x)) in &self.by_privilege {
            let r = &mut rest[c as usize];
            r.0 = r.0.saturating_sub(*n);
            for (r, x) in r.1.iter_mut().zip(x) {
                *r = r.saturating_sub(*x);
            }
            by_priv.push((c, p, *n, x[..extra].to_vec()));
        }
        for (c, (n, x)) in rest.iter().enumerate() {
            if *n > 0 || x[..extra].iter().any(|&v| v > 0) {
                by_priv.push((c as u32, self.base_privilege, *n, x[..extra].to_vec()));
            }
        }
        by_priv.retain(|e| e.2 > 0 || e.3.iter().any(|&v| v > 0));
        by_priv.sort_by_key(|e| (e.0, e.1));
        Finished {
            contexts_by_privilege: by_priv,
            functions: self.funcs,
            arcs: self.arcs,
            functions_extra: flatten(&self.funcs_extra, self.extra),
            arcs_extra: flatten(&self.arcs_extra, self.extra),
            contexts: self.contexts,
            contexts_extra: flatten(&self.contexts_extra, self.extra),
            contexts_folded: self.tree.folded(),
            strands: if self.strand_keys.is_empty() {
                vec![0]
            } else {
                self.strand_keys
            },
            context_strands: self.context_strands,
        }
    }

    /// Ensure stats exist for function ids below `n` (functions never entered).
    pub fn reserve_functions(&mut self, n: usize) {
        if n > 0 {
            self.ensure_fn(n as u32 - 1);
        }
    }
}

#[cfg(test)]
#[path = "call_stack_tests.rs"]
mod tests;
