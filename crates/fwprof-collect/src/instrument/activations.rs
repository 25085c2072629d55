//! The activation stack of the instrumentation collector: hook calls
//! open and close activations, and each activation's raw time, hook calls
//! and boundaries are accumulated per function, context and arc.

use fwprof_sim::CostModel;

use super::{
    add, bucket, sub, ArcAcc, Clock, CtxAcc, Epilogue, FnAcc, Frame, HookFrame, HookKind,
    InstrumentCollector, Role, Transfer, INSTRUMENT_EVENTS, NONE, SEARCH_DEPTH, TRANSFERS,
};

impl<M: CostModel> InstrumentCollector<M> {
    fn excluded(&self, f: u32) -> bool {
        self.cfg.excluded.get(f as usize).copied().unwrap_or(false)
    }

    fn start_of(&self, f: u32) -> Option<u64> {
        self.cfg
            .starts
            .get(f as usize)
            .copied()
            .or_else(|| self.map.added().iter().find(|r| r.id == f).map(|r| r.start))
    }

    pub(super) fn ensure_fn(&mut self, f: u32) {
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

    /// The jumps seen since the last hook call, oldest first: what a
    /// trap context or another task puts aside (its own hook calls would
    /// make them stale) for [`InstrumentCollector::restore_transfers`].
    pub(super) fn take_transfers(&mut self) -> Vec<Transfer> {
        let mut out = Vec::new();
        for k in 0..TRANSFERS {
            let i = (self.next_transfer + k) % TRANSFERS;
            let t = self.transfers[i];
            if t.seq == self.hook_events {
                out.push(t);
            }
            self.transfers[i].seq = u64::MAX;
        }
        out
    }

    /// The interrupted code's jumps since its last hook call are again
    /// the latest, their clocks moved on by the `spent` time of what ran
    /// meanwhile; the ones made since are dropped.
    pub(super) fn restore_transfers(&mut self, saved: &[Transfer], spent: Clock) {
        for t in self.transfers.iter_mut() {
            t.seq = u64::MAX;
        }
        for t in saved {
            let mut at = t.at;
            add(&mut at, spent);
            self.record_transfer(t.target, t.pc, at);
        }
    }

    pub(super) fn record_transfer(&mut self, target: u64, pc: u64, at: Clock) {
        self.transfers[self.next_transfer] = Transfer {
            target,
            pc,
            at,
            seq: self.hook_events,
        };
        self.next_transfer = (self.next_transfer + 1) % TRANSFERS;
    }

    /// Charge the time since the innermost activation became innermost.
    pub(super) fn charge(&mut self, now: Clock) {
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
        let parent = self.frames.last().map_or((NONE, NONE), |f| (f.ctx, f.func));
        self.push_under(parent, func, ret, sp, now, entry, false);
    }

    /// [`InstrumentCollector::push`] under `(parent context, caller)`;
    /// `trap`: the root of a trap context (call site 0).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_under(
        &mut self,
        (parent_ctx, caller): (u32, u32),
        func: u32,
        ret: u64,
        sp: u64,
        now: Clock,
        entry: Option<Transfer>,
        trap: bool,
    ) {
        self.charge(now);
        self.ensure_fn(func);
        let site = match entry {
            _ if trap => 0,
            None => ret.wrapping_sub(4) & self.mask,
            Some(t) => t.pc,
        };
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
            _ if trap => [0; 2],
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
            trap,
        });
    }

    /// Close the top activation at `now`; `completed` if its end was seen.
    pub(super) fn pop(&mut self, now: Clock, completed: bool) -> Option<Frame> {
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
    pub(super) fn hook_call(&mut self, target: u64, pc: u64, sp: u64, now: Clock, tail: bool) {
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
        let floor = self.floor();
        let found = (0..depth.min(SEARCH_DEPTH))
            .map(|k| depth - 1 - k)
            .take_while(|&i| i >= floor)
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
    pub(super) fn ret(&mut self, target: u64, sp: u64, now: Clock) {
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
            let floor = self.floor();
            let found = (0..depth.min(SEARCH_DEPTH))
                .map(|k| depth - 1 - k)
                .take_while(|&i| i >= floor)
                .find(|&i| self.frames[i].ret == target && sp >= self.frames[i].sp);
            if let Some(mut i) = found {
                // Activations with the same return address next to it were
                // entered by tail calls (a call returns into its caller, not
                // to where the caller returns): the chain ends here too.
                while i > floor && self.frames[i - 1].ret == target {
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
}
