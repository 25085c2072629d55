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

#[derive(Clone, Copy, Debug)]
struct Frame {
    func: u32,
    arc: u32,
    /// Expected return target.
    ret: u64,
    /// `sp` when the activation was entered.
    sp: u64,
    /// Executed-instruction count when it started.
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
}

/// A shadow call stack that accumulates [`FunctionStats`] and [`ArcStats`].
#[derive(Clone, Debug, Default)]
pub struct CallStack {
    frames: Vec<Frame>,
    funcs: Vec<FunctionStats>,
    /// Activations of each function currently on the stack.
    active_fn: Vec<u32>,
    /// The arcs' ids, and their stats by id.
    arc_table: ArcTable,
    arcs: Vec<ArcStats>,
    active_arc: Vec<u32>,
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

    fn ensure_fn(&mut self, f: u32) {
        let need = f as usize + 1;
        if self.funcs.len() < need {
            self.funcs.resize(need, FunctionStats::default());
            self.active_fn.resize(need, 0);
            if self.extra > 0 {
                self.funcs_extra.resize(need, [0; MAX_EXTRA_EVENTS]);
            }
        }
    }

    #[inline]
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
        self.active_arc.push(0);
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
        self.contexts.push(ContextStats {
            parent: (parent != NO_CTX).then_some(parent),
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
    #[inline]
    fn charge_top(&mut self, now: u64) {
        if let Some(top) = self.frames.last() {
            let c = top.ctx as usize;
            self.contexts[c].self_cost += now.saturating_sub(self.top_since);
            if self.extra > 0 {
                add_spent(&mut self.contexts_extra[c], &self.clock, &self.top_clock);
            }
        }
        self.top_since = now;
        self.top_clock = self.clock;
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

    /// Enter the root activation (the program's entry function) at instruction count `now`.
    /// It is counted as one call from `<spontaneous>`.
    pub fn enter_root(&mut self, func: u32, sp: u64, now: u64) {
        self.push(None, func, 0, u64::MAX, sp, now, false);
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        caller: Option<u32>,
        callee: u32,
        site: u64,
        ret: u64,
        sp: u64,
        now: u64,
        tail: bool,
    ) {
        self.ensure_fn(callee);
        let arc = self.arc_id(caller, callee, site, tail);
        self.funcs[callee as usize].calls += 1;
        self.arcs[arc as usize].calls += 1;
        let outer_fn = self.active_fn[callee as usize] == 0;
        let outer_arc = self.active_arc[arc as usize] == 0;
        self.active_fn[callee as usize] += 1;
        self.active_arc[arc as usize] += 1;
        if self.extra > 0 {
            self.snap.push(self.clock);
        }
        self.charge_top(now);
        let parent = self.frames.last().map_or(NO_CTX, |f| f.ctx);
        let ctx = self.context(parent, callee);
        self.contexts[ctx as usize].calls += 1;
        self.frames.push(Frame {
            ctx,
            func: callee,
            arc,
            ret,
            sp,
            start: now,
            tail,
            outer_fn,
            outer_arc,
        });
    }

    fn pop_one(&mut self, now: u64) -> Option<Frame> {
        self.charge_top(now);
        let f = self.frames.pop()?;
        let spent = now.saturating_sub(f.start);
        self.active_fn[f.func as usize] -= 1;
        self.active_arc[f.arc as usize] -= 1;
        if f.outer_fn {
            self.funcs[f.func as usize].inclusive += spent;
        }
        if f.outer_arc {
            self.arcs[f.arc as usize].inclusive += spent;
        }
        if self.extra > 0 {
            if let Some(snap) = self.snap.pop() {
                if f.outer_fn {
                    add_spent(&mut self.funcs_extra[f.func as usize], &self.clock, &snap);
                }
                if f.outer_arc {
                    add_spent(&mut self.arcs_extra[f.arc as usize], &self.clock, &snap);
                }
            }
        }
        Some(f)
    }

    /// A call from `caller` (the function holding the call instruction at
    /// `site`) to `callee`, returning to `ret`. `now` counts the call
    /// instruction; `sp` is the stack pointer at the call.
    #[inline]
    pub fn call(&mut self, caller: u32, callee: u32, site: u64, ret: u64, sp: u64, now: u64) {
        self.push(Some(caller), callee, site, ret, sp, now, false);
    }

    /// A jump without link from `caller` at `site` to the entry of `callee`:
    /// a tail call replacing the current activation (both end at the callee's return).
    #[inline]
    pub fn tail_call(&mut self, caller: u32, callee: u32, site: u64, sp: u64, now: u64) {
        let ret = self.frames.last().map_or(u64::MAX, |f| f.ret);
        self.push(Some(caller), callee, site, ret, sp, now, true);
    }

    /// A return to `target` with stack pointer `sp` after it; `now` counts the
    /// return instruction.
    #[inline]
    pub fn ret(&mut self, target: u64, sp: u64, now: u64) {
        let n = self.frames.len();
        let lowest = n.saturating_sub(RETURN_SEARCH_DEPTH);
        // Never pop the root activation: it ends only when the run does.
        let found = (lowest.max(1)..n)
            .rev()
            .find(|&i| self.frames[i].ret == target);
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
    /// after non-local exits such as `longjmp`.
    pub fn resync(&mut self, sp: u64, now: u64) {
        while self.frames.len() > 1 && self.frames.last().is_some_and(|f| f.sp <= sp) {
            self.pop_one(now);
        }
    }

    /// Close every activation at the end of the run (`now` = total executed).
    pub fn finish(self, now: u64) -> (Vec<FunctionStats>, Vec<ArcStats>) {
        let f = self.finish_with_extra(now);
        (f.functions, f.arcs)
    }

    /// [`CallStack::finish`], also returning the inclusive extra events
    /// and the calling-context tree. Set the final clock first.
    pub fn finish_with_extra(mut self, now: u64) -> Finished {
        while !self.frames.is_empty() {
            self.pop_one(now);
        }
        Finished {
            functions: self.funcs,
            arcs: self.arcs,
            functions_extra: flatten(&self.funcs_extra, self.extra),
            arcs_extra: flatten(&self.arcs_extra, self.extra),
            contexts: self.contexts,
            contexts_extra: flatten(&self.contexts_extra, self.extra),
            contexts_folded: self.tree.folded(),
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
mod tests {
    use super::*;

    // Functions: 0 = main, 1 = f, 2 = g.
    #[test]
    fn call_and_return() {
        let mut cs = CallStack::new();
        cs.enter_root(0, 1000, 0);
        // main executes 5 instructions, the 5th a call at 0x10 to f.
        cs.call(0, 1, 0x10, 0x14, 1000, 5);
        // f executes 3 instructions, the 3rd a ret.
        cs.ret(0x14, 1000, 8);
        let (f, a) = cs.finish(10);
        assert_eq!(
            f[0],
            FunctionStats {
                calls: 1,
                inclusive: 10
            }
        );
        assert_eq!(
            f[1],
            FunctionStats {
                calls: 1,
                inclusive: 3
            }
        );
        assert_eq!(a.len(), 2);
        assert_eq!(
            a[1],
            ArcStats {
                caller: Some(0),
                callee: 1,
                call_site: 0x10,
                tail: false,
                calls: 1,
                inclusive: 3
            }
        );
    }

    #[test]
    fn recursion_not_counted_twice() {
        let mut cs = CallStack::new();
        cs.enter_root(0, 1000, 0);
        cs.call(0, 1, 0x10, 0x14, 1000, 1); // main→f
        cs.call(1, 1, 0x20, 0x24, 990, 3); // f→f
        cs.call(1, 1, 0x20, 0x24, 980, 5); // f→f
        cs.ret(0x24, 980, 7);
        cs.ret(0x24, 990, 8);
        cs.ret(0x14, 1000, 10);
        let (f, a) = cs.finish(12);
        assert_eq!(f[1].calls, 3);
        assert_eq!(f[1].inclusive, 9);
        let rec = a.iter().find(|x| x.caller == Some(1)).unwrap();
        assert_eq!(rec.calls, 2);
        assert_eq!(rec.inclusive, 5); // outermost f→f activation: 3..8
    }

    #[test]
    fn tail_call_ends_both() {
        let mut cs = CallStack::new();
        cs.enter_root(0, 1000, 0);
        cs.call(0, 1, 0x10, 0x14, 1000, 2); // main→f
        cs.tail_call(1, 2, 0x30, 1000, 4); // f tail-jumps to g
        cs.ret(0x14, 1000, 9); // g returns to main
        assert_eq!(cs.depth(), 1);
        let (f, a) = cs.finish(10);
        assert_eq!(f[1].inclusive, 7);
        assert_eq!(f[2].inclusive, 5);
        let t = a.iter().find(|x| x.tail).unwrap();
        assert_eq!(
            (t.caller, t.callee, t.call_site, t.calls),
            (Some(1), 2, 0x30, 1)
        );
    }

    #[test]
    fn longjmp_resyncs_by_sp() {
        let mut cs = CallStack::new();
        cs.enter_root(0, 1000, 0);
        cs.call(0, 1, 0x10, 0x14, 1000, 1); // main→f (f's frame below 1000)
        cs.call(1, 2, 0x20, 0x24, 960, 2); // f→g
        cs.call(2, 2, 0x40, 0x44, 900, 3); // g→g
                                           // longjmp: `ret` to a target nobody expects, sp back to f's level 960.
        cs.ret(0x28, 960, 6);
        assert_eq!(cs.current(), Some(1));
        let (f, _) = cs.finish(8);
        assert_eq!(f[2].inclusive, 4);
    }

    #[test]
    fn t0_link_and_nonlocal_pop() {
        // A call through t0 (millicode) returns with `jr t0`: same mechanics.
        let mut cs = CallStack::new();
        cs.enter_root(0, 1000, 0);
        cs.call(0, 1, 0x10, 0x14, 1000, 1);
        cs.call(1, 2, 0x50, 0x54, 990, 2);
        // Return straight to main's return address pops g and f.
        cs.ret(0x14, 1000, 5);
        assert_eq!(cs.depth(), 1);
    }

    #[test]
    fn deep_recursion_counts_each_activation() {
        // main (function 0) calls f (1), which recurses at the same call
        // site until n activations of f are on the stack (a million: the
        // shadow stack and the context tree must stay exact at that depth).
        // Each activation executes one instruction before its call and one
        // after its callee returns (the innermost one, then returns); main
        // one before and one after. Activation k (0 = outermost) runs from
        // k+1 to 2n-k, so its inclusive count is 2n-2k-1.
        let mut cs = CallStack::new();
        cs.enter_root(0, u64::MAX, 0);
        let n = 1_000_000u64;
        for i in 0..n {
            cs.call(
                if i == 0 { 0 } else { 1 },
                1,
                0x20,
                0x24,
                u64::MAX - 16 * (i + 1),
                i + 1,
            );
        }
        assert_eq!(cs.depth() as u64, n + 1);
        for i in 0..n {
            cs.ret(0x24, u64::MAX - 16 * (n - i), n + i + 1);
        }
        assert_eq!(cs.depth(), 1);
        let done = cs.finish_with_extra(2 * n + 1);
        let stats = |calls, inclusive| FunctionStats { calls, inclusive };
        assert_eq!(
            done.functions,
            vec![stats(1, 2 * n + 1), stats(n, 2 * n - 1)]
        );
        let arc = |caller, callee, call_site, calls, inclusive| ArcStats {
            caller,
            callee,
            call_site,
            tail: false,
            calls,
            inclusive,
        };
        assert_eq!(
            done.arcs,
            vec![
                arc(None, 0, 0, 1, 2 * n + 1),
                arc(Some(0), 1, 0x20, 1, 2 * n - 1),
                // f -> f: n-1 calls; its outermost activation is k = 1.
                arc(Some(1), 1, 0x20, n - 1, 2 * n - 3),
            ]
        );
        // One context per depth (the tree is below its cap, nothing folded).
        assert!(!done.contexts_folded);
        assert_eq!(done.contexts.len() as u64, n + 1);
        assert_eq!(
            done.contexts[0],
            ContextStats {
                parent: None,
                function: 0,
                calls: 1,
                self_cost: 2
            }
        );
        for (k, c) in done.contexts.iter().enumerate().skip(1) {
            let self_cost = if k as u64 == n { 1 } else { 2 };
            let want = ContextStats {
                parent: Some(k as u32 - 1),
                function: 1,
                calls: 1,
                self_cost,
            };
            assert_eq!(*c, want, "context {k}");
        }
    }

    #[test]
    fn extra_events_are_inclusive_like_instructions() {
        // One extra event (say cycles): main runs 5 instructions / 20
        // cycles, calls f, f runs 3 / 30, recursion f -> f runs 2 / 7.
        let mut cs = CallStack::with_extra_events(1);
        cs.set_clock(&[0]);
        cs.enter_root(0, 1000, 0);
        cs.set_clock(&[20]);
        cs.call(0, 1, 0x10, 0x14, 1000, 5);
        cs.set_clock(&[40]);
        cs.call(1, 1, 0x30, 0x34, 990, 7);
        cs.set_clock(&[47]);
        cs.ret(0x34, 990, 9);
        cs.set_clock(&[57]);
        cs.ret(0x14, 1000, 10);
        cs.set_clock(&[60]);
        let done = cs.finish_with_extra(11);
        let (f, a, fx, ax) = (
            done.functions,
            done.arcs,
            done.functions_extra,
            done.arcs_extra,
        );
        assert_eq!((f[1].inclusive, fx[1]), (5, 37));
        assert_eq!(fx[0], 60);
        // Arcs: root, main->f, f->f (recursive: its own outermost activation).
        assert_eq!(a.len(), 3);
        assert_eq!(ax, vec![60, 37, 7]);
    }

    #[test]
    fn contexts_split_a_function_by_its_callers() {
        // main calls f directly and through g; f's self cost is kept apart
        // per path: main;f and main;g;f. Extra event: 10 per instruction.
        let mut cs = CallStack::with_extra_events(1);
        cs.enter_root(0, 1000, 0);
        cs.set_clock(&[20]);
        cs.call(0, 1, 0x10, 0x14, 1000, 2); // main runs 2
        cs.set_clock(&[50]);
        cs.ret(0x14, 1000, 5); // f runs 3
        cs.set_clock(&[60]);
        cs.call(0, 2, 0x18, 0x1c, 1000, 6); // main runs 1 more
        cs.set_clock(&[70]);
        cs.call(2, 1, 0x40, 0x44, 990, 7); // g runs 1
        cs.set_clock(&[110]);
        cs.ret(0x44, 990, 11); // f runs 4
        cs.set_clock(&[120]);
        cs.ret(0x1c, 1000, 12); // g runs 1 more
        cs.set_clock(&[130]);
        let done = cs.finish_with_extra(13); // main runs 1 more
        let c = &done.contexts;
        assert_eq!(c.len(), 4);
        let find = |parent: Option<u32>, function: u32| {
            c.iter()
                .position(|x| x.parent == parent && x.function == function)
                .unwrap()
        };
        let main = find(None, 0);
        let f1 = find(Some(main as u32), 1);
        let g = find(Some(main as u32), 2);
        let f2 = find(Some(g as u32), 1);
        assert_eq!(c[main].self_cost, 4);
        assert_eq!((c[f1].self_cost, c[f1].calls), (3, 1));
        assert_eq!((c[g].self_cost, c[g].calls), (2, 1));
        assert_eq!((c[f2].self_cost, c[f2].calls), (4, 1));
        let x = &done.contexts_extra;
        assert_eq!((x[main], x[f1], x[g], x[f2]), (40, 30, 20, 40));
        assert!(c
            .iter()
            .all(|x| x.parent.is_none_or(|p| (p as usize) < c.len())));
        assert!(!done.contexts_folded);
    }
}
