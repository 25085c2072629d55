//! An operating system's tasks told apart without help from the OS
//! (`docs/concurrency.md`, "Tasks of an operating system").
//!
//! Every task runs on a stack of its own, and a kernel that switches tasks
//! restores the other task's registers, `sp` among them, before it returns
//! from the trap (`mret`/`sret`). So a **trap return whose `sp` (or address
//! space, `satp`) is not the one the trap was taken with is a context
//! switch**: the task that trapped is parked at the `sp` it trapped with,
//! and the return resumes the task parked at the `sp` it returns with — or,
//! if none is, a new task, named by the function it starts in. A switch is
//! *voluntary* when the trap was an exception (`ecall`: a yield, a blocking
//! call) and *by interrupt* when it was an interrupt (pre-emption).
//!
//! A kernel that switches by a function call instead (the callee saves
//! the callee-saved registers and `sp`, loads another task's and returns
//! on its stack) is named with `--task-hint SYMBOL`: a return from that
//! function with another `sp` than it was called with is a switch too.
//! Start-up code that enters a lower privilege in another address space
//! (an `sret` with no trap open: a kernel starting its first process)
//! hands over to a new task as well.

use std::collections::HashMap;

/// One task, as [`TaskTracker`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskStats {
    /// Its strand key ([`crate::CallStack::switch_strand`]): its index.
    pub key: u32,
    /// Where it first ran (the entry function of a new task; the program's
    /// start for the first).
    pub entry: u64,
    /// Its address space (`satp`, 0 for physical addresses).
    pub space: u64,
    /// Instructions it executed (its trap contexts included).
    pub executed: u64,
    /// Times it gave the hart away by an exception (`ecall`) or a call of
    /// the `--task-hint` function.
    pub voluntary: u64,
    /// Times it was pre-empted (the trap was an interrupt).
    pub involuntary: u64,
}

/// A context switch [`TaskTracker`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskSwitch {
    /// Strand key of the task that stops.
    pub from: u32,
    /// Strand key of the task that runs next.
    pub to: u32,
    /// The task that runs next is new: enter its root function next.
    pub fresh: bool,
    /// The stopping task's own instruction count at the switch.
    pub from_now: u64,
    /// The starting task's own instruction count at the switch.
    pub to_now: u64,
}

/// A trap open on the running task: `sp` and address space it was taken
/// with, and whether it is an interrupt.
#[derive(Clone, Copy, Debug)]
struct OpenTrap {
    sp: u64,
    space: u64,
    interrupt: bool,
}

/// A call of the `--task-hint` function not returned from yet.
#[derive(Clone, Copy, Debug)]
struct HintCall {
    /// Calls made since, not returned from.
    depth: u32,
    sp: u64,
    space: u64,
    /// The address it returns to in the calling task.
    ret: u64,
    voluntary: bool,
}

/// What a task that does not run left behind.
#[derive(Clone, Debug, Default)]
struct Parked {
    traps: Vec<OpenTrap>,
    hint: Option<HintCall>,
    /// Its own count is the hart's less this.
    off: u64,
    /// The hart's count when it stopped.
    at: u64,
}

/// Decides context switches (see the module docs). Strand keys are task
/// indices: 0 is the task the run starts in (the main program).
#[derive(Clone, Debug)]
pub struct TaskTracker {
    hint: Option<u64>,
    tasks: Vec<TaskStats>,
    cur: u32,
    /// `(space, sp)` a parked task resumes at → its key.
    waiting: HashMap<(u64, u64), u32>,
    parked: HashMap<u32, Parked>,
    traps: Vec<OpenTrap>,
    pending: Option<HintCall>,
    /// The running task's own count is the hart's less `off`.
    off: u64,
    /// The hart's count when the running task started its turn.
    since: u64,
    switches: u64,
}

impl TaskTracker {
    /// A tracker for a run starting at `entry` in address space `space`;
    /// `hint`: the entry address of the kernel's context-switch function
    /// (`--task-hint`), if any.
    pub fn new(entry: u64, space: u64, hint: Option<u64>) -> TaskTracker {
        TaskTracker {
            hint,
            tasks: vec![TaskStats {
                key: 0,
                entry,
                space,
                executed: 0,
                voluntary: 0,
                involuntary: 0,
            }],
            cur: 0,
            waiting: HashMap::new(),
            parked: HashMap::new(),
            traps: Vec::new(),
            pending: None,
            off: 0,
            since: 0,
            switches: 0,
        }
    }

    /// The running task's own instruction count at the hart's count `now`.
    #[inline]
    pub fn local(&self, now: u64) -> u64 {
        now - self.off
    }

    /// The running task's key.
    pub fn current(&self) -> u32 {
        self.cur
    }

    /// A trap was taken with `sp` in address space `space`.
    pub fn trap(&mut self, sp: u64, space: u64, interrupt: bool) {
        self.traps.push(OpenTrap {
            sp,
            space,
            interrupt,
        });
    }

    /// A trap return to `target` with `sp` in `space`, at the hart's count
    /// `now`: the switch it makes, if any.
    pub fn trap_return(
        &mut self,
        target: u64,
        sp: u64,
        space: u64,
        now: u64,
    ) -> Option<TaskSwitch> {
        let t = self.traps.pop()?;
        if t.sp == sp && t.space == space {
            return None;
        }
        Some(self.switch(t.sp, t.space, Some(!t.interrupt), target, sp, space, now))
    }

    /// A trap return with no trap open (start-up code entering a lower
    /// privilege, a boot stage handing over to the next) to `target` with
    /// `sp` in `space`, from code in `from_space`, at the hart's count
    /// `now`: in another address space, the code it enters is a new task
    /// (a kernel starting its first process); the starting code is parked
    /// and is not counted as switched away.
    pub fn hand_over(
        &mut self,
        target: u64,
        sp: u64,
        space: u64,
        from_space: u64,
        now: u64,
    ) -> Option<TaskSwitch> {
        if space == from_space {
            return None;
        }
        let sw = self.switch(sp, from_space, None, target, sp, space, now);
        self.switches -= 1;
        Some(sw)
    }

    /// A call to `target` with `sp` (after it) in `space`, returning to `ret`.
    #[inline]
    pub fn call(&mut self, target: u64, sp: u64, space: u64, ret: u64) {
        if let Some(p) = &mut self.pending {
            p.depth += 1;
        } else if self.hint == Some(target) {
            let voluntary = !self.traps.last().is_some_and(|t| t.interrupt);
            self.pending = Some(HintCall {
                depth: 0,
                sp,
                space,
                ret,
                voluntary,
            });
        }
    }

    /// A return to `target` with `sp` in `space` at the hart's count
    /// `now`: if it ends a call of the `--task-hint` function on another
    /// stack, the switch, and the return address and `sp` of that call in
    /// the task that made it (pop its activation there before switching).
    #[inline]
    pub fn ret(
        &mut self,
        target: u64,
        sp: u64,
        space: u64,
        now: u64,
    ) -> Option<(TaskSwitch, u64, u64)> {
        let p = self.pending.as_mut()?;
        if p.depth > 0 {
            p.depth -= 1;
            return None;
        }
        let p = self.pending.take()?;
        if p.sp == sp && p.space == space {
            return None;
        }
        let sw = self.switch(p.sp, p.space, Some(p.voluntary), target, sp, space, now);
        Some((sw, p.ret, p.sp))
    }

    /// The running task stops, to resume at `(out_space, out_sp)`; the
    /// task parked at `(space, sp)` runs, or a new one entering at `entry`.
    /// `voluntary`: how the stopping task gave the hart away (`None`: not
    /// a switch to count on it).
    #[allow(clippy::too_many_arguments)]
    fn switch(
        &mut self,
        out_sp: u64,
        out_space: u64,
        voluntary: Option<bool>,
        entry: u64,
        sp: u64,
        space: u64,
        now: u64,
    ) -> TaskSwitch {
        self.switches += 1;
        let from = self.cur;
        let from_now = now - self.off;
        let me = &mut self.tasks[from as usize];
        me.executed += now - self.since;
        match voluntary {
            Some(true) => me.voluntary += 1,
            Some(false) => me.involuntary += 1,
            None => {}
        }
        self.parked.insert(
            from,
            Parked {
                traps: std::mem::take(&mut self.traps),
                hint: self.pending.take(),
                off: self.off,
                at: now,
            },
        );
        // A task parked here before and never resumed has ended: this one
        // replaces it.
        self.waiting.insert((out_space, out_sp), from);
        let (to, fresh) = match self.waiting.remove(&(space, sp)) {
            Some(k) if k != from => (k, false),
            _ => {
                let key = self.tasks.len() as u32;
                self.tasks.push(TaskStats {
                    key,
                    entry,
                    space,
                    executed: 0,
                    voluntary: 0,
                    involuntary: 0,
                });
                (key, true)
            }
        };
        let back = self.parked.remove(&to).unwrap_or(Parked {
            at: now,
            off: now,
            ..Parked::default()
        });
        self.traps = back.traps;
        self.pending = back.hint;
        self.off = back.off + (now - back.at);
        self.since = now;
        self.cur = to;
        TaskSwitch {
            from,
            to,
            fresh,
            from_now,
            to_now: now - self.off,
        }
    }

    /// Context switches made.
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// End of run at the hart's count `now`: the tasks, in order of first
    /// run (index = key).
    pub fn finish(mut self, now: u64) -> Vec<TaskStats> {
        let c = self.cur as usize;
        self.tasks[c].executed += now.saturating_sub(self.since);
        self.tasks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// main traps (ecall) at sp 0x1000 and the kernel returns to a new task
    /// at 0x2000; it is pre-empted at 0x1f00 and main resumes at 0x1000;
    /// main yields again and the task resumes at 0x1f00.
    #[test]
    fn trap_returns_on_other_stacks_switch_tasks() {
        let mut t = TaskTracker::new(0x100, 0, None);
        t.trap(0x1000, 0, false);
        let s = t.trap_return(0x500, 0x2000, 0, 10).unwrap();
        assert_eq!(
            (s.from, s.to, s.fresh, s.from_now, s.to_now),
            (0, 1, true, 10, 0)
        );
        t.trap(0x1f00, 0, true);
        let s = t.trap_return(0x120, 0x1000, 0, 30).unwrap();
        assert_eq!(
            (s.from, s.to, s.fresh, s.from_now, s.to_now),
            (1, 0, false, 20, 10)
        );
        assert_eq!(t.local(35), 15);
        // A trap that returns where it was taken is no switch.
        t.trap(0x1000, 0, true);
        assert_eq!(t.trap_return(0x124, 0x1000, 0, 40), None);
        t.trap(0x1000, 0, false);
        let s = t.trap_return(0x510, 0x1f00, 0, 50).unwrap();
        assert_eq!((s.from, s.to, s.fresh, s.to_now), (0, 1, false, 20));
        assert_eq!(t.switches(), 3);
        let tasks = t.finish(60);
        assert_eq!(tasks.len(), 2);
        assert_eq!((tasks[0].executed, tasks[1].executed), (30, 30));
        assert_eq!((tasks[0].voluntary, tasks[0].involuntary), (2, 0));
        assert_eq!((tasks[1].voluntary, tasks[1].involuntary), (0, 1));
        assert_eq!(tasks[1].entry, 0x500);
    }

    #[test]
    fn start_up_code_entering_another_space_hands_over_to_a_new_task() {
        let mut t = TaskTracker::new(0x100, 0, None);
        assert_eq!(t.hand_over(0x400, 0x9000, 0, 0, 10), None);
        let s = t.hand_over(0x400, 0x9000, 7, 0, 10).unwrap();
        assert_eq!((s.from, s.to, s.fresh), (0, 1, true));
        assert_eq!(t.switches(), 0);
        let tasks = t.finish(20);
        assert_eq!((tasks[0].voluntary, tasks[0].involuntary), (0, 0));
        assert_eq!((tasks[0].executed, tasks[1].executed), (10, 10));
    }

    #[test]
    fn an_address_space_change_is_a_switch() {
        let mut t = TaskTracker::new(0x100, 0, None);
        t.trap(0x1000, 5, false);
        let s = t.trap_return(0x100, 0x1000, 6, 10).unwrap();
        assert!(s.fresh);
    }

    /// A kernel that switches by calling `switch_to` (hint at 0x900).
    #[test]
    fn the_hint_function_returning_on_another_stack_is_a_switch() {
        let mut t = TaskTracker::new(0x100, 0, Some(0x900));
        t.call(0x900, 0x1000, 0, 0x104);
        // A call and return inside it do not end it.
        t.call(0x950, 0x0ff0, 0, 0x910);
        assert_eq!(t.ret(0x910, 0x0ff0, 0, 5), None);
        let (s, ret, sp) = t.ret(0x600, 0x3000, 0, 8).unwrap();
        assert_eq!(
            (s.from, s.to, s.fresh, ret, sp),
            (0, 1, true, 0x104, 0x1000)
        );
        t.call(0x900, 0x2f00, 0, 0x640);
        let (s, _, _) = t.ret(0x104, 0x1000, 0, 20).unwrap();
        assert_eq!((s.to, s.fresh, s.to_now), (0, false, 8));
        // A call that returns on its own stack is no switch.
        t.call(0x900, 0x1000, 0, 0x108);
        assert_eq!(t.ret(0x108, 0x1000, 0, 25), None);
        let tasks = t.finish(30);
        assert_eq!(tasks[0].voluntary, 1);
        assert_eq!(tasks[1].voluntary, 1);
    }
}
