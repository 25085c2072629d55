//! Several harts on one machine (`--harts N`): who runs, for how long,
//! and what a hart waiting in `wfi` waits for.
//!
//! **Turns.** The harts run one at a time in a fixed round-robin order
//! (0, 1, … N−1, 0, …), each for a *quantum* of executed instructions
//! ([`DEFAULT_QUANTUM`], `--quantum`); a turn ends exactly at its
//! quantum's instruction boundary (the block is cut there), or earlier
//! when the hart waits in `wfi`. Nothing depends on host time, so the
//! same program, input and quantum give the same run every time.
//!
//! **Time.** Each hart keeps its own clock (`crate::irq`): its guest time
//! is what it executed plus what it slept. Harts that run take turns of
//! equal length, so their clocks stay within a quantum of each other, as
//! the clocks of cores running side by side would. A waiting hart does not
//! run, but time passes for it: whenever the turn passes it, its clock is
//! brought up to the time of the hart whose turn just ended (idle time),
//! and it wakes if an interrupt enabled in its `mie` is then pending (an
//! IPI through its CLINT `msip`, its timer, the PLIC). When every hart
//! waits, the machine sleeps to the first timer deadline among them (as
//! one hart's `wfi` does); with none, and no device input to wait for,
//! the run stops: every hart would sleep forever.
//!
//! **Linux threads** take turns the same way ([`fwprof_os::EnvOutcome`]'s
//! `NewThread`, `Wait`, `ThreadExit`), on one hart: a thread's clock is
//! brought up to the time of the thread before it at each turn, so time
//! is one for the process (its threads' instructions and sleeps), and a
//! futex timeout or a `nanosleep` passes as the other threads run.
//!
//! **LR/SC.** A hart's reservation is dropped when its turn ends: another
//! hart may store to the reservation set during its own turn, and the
//! simulator does not watch every store for it. An `sc` after a switch
//! therefore fails and its loop retries; a constrained LR/SC loop (at
//! most 16 instructions, Unprivileged ISA 20191213 §8.3) completes within
//! one quantum. Within a turn `sc` compares the loaded value, as QEMU
//! 7.2 does.

use super::*;
use crate::hooks::HartSwitch;

/// Instructions a hart runs before the next hart takes its turn, unless
/// `--quantum` says otherwise. Small enough that a hart spinning on a
/// lock another hart holds wastes little, large enough that switching
/// (a few hundred nanoseconds) costs under 1% of a turn. Spike
/// interleaves its harts every 5,000 instructions; QEMU's round-robin
/// gives each vCPU a slice of host time (not reproducible).
pub const DEFAULT_QUANTUM: u64 = 1000;

/// What a hart (or a Linux thread) that does not run waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// Nothing: it runs when its turn comes.
    No,
    /// An interrupt (`wfi`).
    Interrupt,
    /// A `futex` wake from another thread, or guest time `deadline` (ns
    /// on its own clock).
    Futex { deadline: Option<u64> },
    /// Guest time `deadline` (a Linux thread's `nanosleep`).
    Sleep { deadline: u64 },
    /// Nothing ever again: the thread exited.
    Exited,
}

/// The harts other than the running one, and whose turn it is.
#[derive(Debug)]
pub(super) struct Harts {
    /// Every hart by number; the slot of the running hart (`cur`) holds a
    /// stale copy while it runs (the live one is `Simulator::hart`).
    pub(super) parked: Vec<Hart>,
    /// Per hart (or Linux thread): what it waits for.
    waiting: Vec<Wait>,
    /// The running hart's number.
    pub(super) cur: usize,
    /// Instructions executed by all harts but the running one.
    pub(super) others_executed: u64,
    /// Instructions per turn.
    quantum: u64,
    /// The running hart's executed count at which its turn ends
    /// (`u64::MAX` with one hart).
    pub(super) switch_at: u64,
    /// Turns that passed from one hart to another.
    pub(super) switches: u64,
    /// Guest time every hart slept at once, in nanoseconds.
    idle_ns: u64,
}

impl Harts {
    /// `n` harts (at least 1), none started.
    pub(super) fn new(n: usize) -> Harts {
        Harts {
            parked: Vec::new(),
            waiting: vec![Wait::No; n],
            cur: 0,
            others_executed: 0,
            quantum: DEFAULT_QUANTUM,
            switch_at: u64::MAX,
            switches: 0,
            idle_ns: 0,
        }
    }

    fn count(&self) -> usize {
        self.waiting.len()
    }
}

impl Hart {
    /// The clock base of a hart between two instructions while it does
    /// not run (no core model: see `crate::irq`).
    pub(super) fn parked_base(&self) -> u64 {
        if self.clock.icount {
            self.executed - self.icount_skip
        } else {
            self.executed - self.not_retired
        }
    }

    /// Bring the clock of a hart that does not run up to guest time `ns`
    /// (it was idle meanwhile) and latch its timers.
    fn idle_until(&mut self, ns: u64) {
        let base = self.parked_base();
        let now = self.clock.ns(base);
        if ns > now {
            self.clock.idle_ns = self.clock.idle_ns.wrapping_add(ns - now);
        }
        self.clock.update(base);
    }

    /// True if an interrupt enabled in `mie` is pending (what ends `wfi`,
    /// Privileged ISA 20211203 §3.3.3).
    fn has_work(&self) -> bool {
        self.mip_at(self.parked_base()) & self.mie != 0
    }
}

impl<H: Hooks> Simulator<H> {
    /// Instructions each hart runs per turn (at least 1; see
    /// [`DEFAULT_QUANTUM`]). Takes effect at the next turn.
    pub fn set_quantum(&mut self, quantum: u64) {
        self.harts.quantum = quantum.max(1);
        if self.harts.count() > 1 && self.harts.switch_at != u64::MAX {
            self.harts.switch_at = self.hart.executed.saturating_add(self.harts.quantum);
        }
    }

    /// Instructions each hart runs per turn.
    pub fn quantum(&self) -> u64 {
        self.harts.quantum
    }

    /// Guest time the machine slept so far, in nanoseconds: every hart
    /// at once (on one hart, its `wfi` and Linux `nanosleep` sleeps).
    pub fn idle_ns(&self) -> u64 {
        if self.harts.count() > 1 {
            self.harts.idle_ns
        } else {
            self.hart.idle_ns()
        }
    }

    /// Turns that passed from one hart to another so far (0 with one hart).
    pub fn hart_switches(&self) -> u64 {
        self.harts.switches
    }

    /// Make the other harts copies of hart 0 as it is now, each with its
    /// own `mhartid`: on QEMU `virt` every hart starts at the reset
    /// address with the same registers (the reset ROM reads `mhartid`).
    pub(super) fn clone_harts(&mut self) {
        let n = self.harts.count();
        self.hart.id = 0;
        self.harts.parked = (0..n)
            .map(|i| {
                let mut h = self.hart.clone();
                h.id = i as u64;
                h
            })
            .collect();
        self.harts.switch_at = if n > 1 {
            self.hart.executed.saturating_add(self.harts.quantum)
        } else {
            u64::MAX
        };
    }

    /// `wfi` with nothing pending on a machine of several harts: the hart
    /// waits and its turn ends now.
    pub(super) fn wait_for_interrupt(&mut self) {
        self.harts.waiting[self.harts.cur] = Wait::Interrupt;
        self.harts.switch_at = 0;
    }

    /// A Linux thread's `clone` (see [`fwprof_os::EnvOutcome::NewThread`]):
    /// thread `thread` starts as a copy of the running one at its `pc`
    /// (after the `ecall`), with `a0` = 0, its own stack and thread
    /// pointer, its own counts from 0 and the running thread's guest time.
    pub(super) fn spawn_thread(&mut self, thread: usize, stack: u64, tls: Option<u64>) {
        debug_assert_eq!(thread, self.harts.parked.len());
        let now = self.hart.clock.ns(self.hart.parked_base());
        let mut h = self.hart.clone();
        h.x[10] = 0;
        if stack != 0 {
            h.x[2] = stack;
        }
        if let Some(tp) = tls {
            h.x[4] = tp;
        }
        h.normalize_x();
        h.id = thread as u64;
        h.executed = 0;
        h.not_retired = 0;
        h.icount_skip = 0;
        h.csr_point = 0;
        h.model_cycles = None;
        h.pmu.restart();
        h.mode_retired = [0; 4];
        h.mode_mark = 0;
        h.res_addr = u64::MAX;
        h.since = [None; 16];
        h.last = (crate::block::NO_BLOCK, 0);
        h.storm = (0, 0, 0);
        h.clock.idle_ns = now;
        self.harts.parked.push(h);
        self.harts.waiting.push(Wait::No);
        if self.harts.switch_at == u64::MAX {
            self.harts.switch_at = self.hart.executed.saturating_add(self.harts.quantum);
        }
    }

    /// The running Linux thread waits on a futex for at most `timeout_ns`
    /// of guest time: its turn ends now.
    pub(super) fn wait_for_wake(&mut self, timeout_ns: Option<u64>) {
        let now = self.hart.clock.ns(self.hart.parked_base());
        self.harts.waiting[self.harts.cur] = Wait::Futex {
            deadline: timeout_ns.map(|t| now.saturating_add(t)),
        };
        self.harts.switch_at = 0;
    }

    /// The running Linux thread sleeps `ns` of guest time while the
    /// others run: its turn ends now.
    pub(super) fn sleep_thread(&mut self, ns: u64) {
        let now = self.hart.clock.ns(self.hart.parked_base());
        self.harts.waiting[self.harts.cur] = Wait::Sleep {
            deadline: now.saturating_add(ns),
        };
        self.harts.switch_at = 0;
    }

    /// The running Linux thread exited: it never runs again.
    pub(super) fn thread_exited(&mut self) {
        self.harts.waiting[self.harts.cur] = Wait::Exited;
        self.harts.switch_at = 0;
    }

    /// Hart number `id`: the running one or a parked one.
    pub(super) fn hart_mut_by_id(&mut self, id: usize) -> &mut Hart {
        if id == self.harts.cur || self.harts.parked.is_empty() {
            &mut self.hart
        } else {
            &mut self.harts.parked[id]
        }
    }

    /// True on a machine of several harts.
    pub(super) fn several_harts(&self) -> bool {
        self.harts.count() > 1
    }

    /// The running hart's turn ended (its quantum ran out, or it waits):
    /// pick the next hart that can run and make it the running one (see
    /// the module documentation).
    ///
    /// # Errors
    /// [`SimError::Wfi`] when every hart waits and nothing can wake any.
    pub(super) fn switch_hart(&mut self) -> Result<Option<StopReason>, SimError> {
        let n = self.harts.count();
        let from = self.harts.cur;
        let base = self.boundary_base();
        self.hart.clock.update(base);
        // A Linux process's threads share one hart: their time is its
        // instructions and sleeps, whatever a core model says.
        let now = if self.target == Target::Linux {
            self.hart.clock.ns(self.hart.parked_base())
        } else {
            self.hart.clock.ns(base)
        };
        if self.harts.waiting[from] == Wait::Interrupt
            && self.hart.mip_at(base) & self.hart.mie != 0
        {
            self.harts.waiting[from] = Wait::No;
        }
        let mut next = None;
        for k in 1..=n {
            let j = (from + k) % n;
            if j == from {
                if self.harts.waiting[from] == Wait::No {
                    next = Some(from);
                }
                break;
            }
            if self.wakes(j, now) {
                next = Some(j);
                break;
            }
        }
        let (next, sleep) = match next {
            Some(j) => (j, 0),
            None => match self.all_waiting(now)? {
                Some(x) => x,
                None => (from, 0),
            },
        };
        if next != from {
            self.switch_to(next);
            if self.target == Target::Linux {
                // One hart: the next thread's time goes on from here.
                self.hart.idle_until(now);
            }
        } else if self.target == Target::Linux {
            // The thread that waited runs on: its wait's result.
            if let Some(a0) = self.env.as_mut().and_then(|e| e.switch_thread(from)) {
                self.hart.set_x(10, a0 as u64);
            }
        }
        self.sleep_ns(sleep);
        self.harts.switch_at = self.hart.executed.saturating_add(self.harts.quantum);
        Ok(None)
    }

    /// Whether parked hart (or thread) `j` can run now that guest time is
    /// `now`: its clock is brought up to `now` first; a thread whose futex
    /// timeout passed times out.
    fn wakes(&mut self, j: usize, now: u64) -> bool {
        let h = &mut self.harts.parked[j];
        match self.harts.waiting[j] {
            Wait::No => return true,
            Wait::Exited => return false,
            Wait::Interrupt | Wait::Futex { .. } | Wait::Sleep { .. } => h.idle_until(now),
        }
        let wakes = match self.harts.waiting[j] {
            Wait::Interrupt => h.has_work(),
            Wait::Sleep { deadline } => h.clock.ns(h.parked_base()) >= deadline,
            Wait::Futex { deadline } => {
                let env = self.env.as_mut();
                if !env.as_ref().is_some_and(|e| e.thread_waiting(j)) {
                    true
                } else if deadline.is_some_and(|d| h.clock.ns(h.parked_base()) >= d) {
                    if let Some(env) = env {
                        env.thread_timed_out(j);
                    }
                    true
                } else {
                    false
                }
            }
            _ => false,
        };
        if wakes {
            self.harts.waiting[j] = Wait::No;
        }
        wakes
    }

    /// Every hart waits at guest time `now` (the running hart's): feed a
    /// UART that waits for input, else sleep to the first deadline.
    /// Returns the hart that wakes and the time it sleeps until then
    /// (`None`: the running hart itself woke, with no sleep).
    ///
    /// # Errors
    /// [`SimError::Wfi`] when nothing can wake any hart.
    fn all_waiting(&mut self, now: u64) -> Result<Option<(usize, u64)>, SimError> {
        let n = self.harts.count();
        let from = self.harts.cur;
        if self.feed_waiting_uart() {
            let base = self.boundary_base();
            if self.harts.waiting[from] == Wait::Interrupt
                && self.hart.mip_at(base) & self.hart.mie != 0
            {
                self.harts.waiting[from] = Wait::No;
                return Ok(None);
            }
            for k in 1..n {
                let j = (from + k) % n;
                if self.harts.waiting[j] == Wait::Interrupt && self.harts.parked[j].has_work() {
                    self.harts.waiting[j] = Wait::No;
                    return Ok(Some((j, 0)));
                }
            }
        }
        // The first deadline among all harts (ties: the next in turn).
        let base = self.boundary_base();
        let deadline_of = |w: Wait, h: &Hart, base: u64| match w {
            Wait::Interrupt => h.next_deadline(base, u64::MAX),
            Wait::Futex { deadline } => deadline,
            Wait::Sleep { deadline } => Some(deadline),
            Wait::No | Wait::Exited => None,
        };
        let mut best: Option<(u64, usize)> =
            deadline_of(self.harts.waiting[from], &self.hart, base).map(|d| (d.max(now), from));
        for k in 1..n {
            let j = (from + k) % n;
            let h = &self.harts.parked[j];
            if let Some(d) = deadline_of(self.harts.waiting[j], h, h.parked_base()) {
                let d = d.max(now);
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, j));
                }
            }
        }
        let Some((at, j)) = best else {
            if self.target == Target::Linux {
                let waiting = self
                    .harts
                    .waiting
                    .iter()
                    .filter(|w| matches!(w, Wait::Futex { .. }))
                    .count();
                return Err(SimError::Deadlock {
                    reason: format!(
                        "{waiting} threads wait on futexes with no timeout and no thread left to wake them"
                    ),
                });
            }
            return Err(SimError::Wfi {
                hart: from as u32,
                pc: self.hart.pc.wrapping_sub(4),
                reason: format!(
                    "on every one of the {n} harts ({})",
                    self.wait_diagnosis(base)
                ),
            });
        };
        self.harts.idle_ns = self.harts.idle_ns.saturating_add(at.saturating_sub(now));
        for (i, h) in self.harts.parked.iter_mut().enumerate() {
            if i != from && i != j {
                h.idle_until(at);
            }
        }
        // It wakes by its deadline: a futex wait times out.
        if let (Wait::Futex { .. }, Some(env)) = (self.harts.waiting[j], self.env.as_mut()) {
            env.thread_timed_out(j);
        }
        self.harts.waiting[j] = Wait::No;
        if j == from {
            let sleep = at.saturating_sub(now);
            return Ok(Some((from, sleep)));
        }
        // The running hart waits on to `at` too (the hooks hear of the
        // machine's sleep once, from the hart that wakes).
        self.hart.clock.idle_ns = self.hart.clock.idle_ns.wrapping_add(at.saturating_sub(now));
        self.hart.clock.update(base);
        let h = &self.harts.parked[j];
        let its_now = h.clock.ns(h.parked_base());
        Ok(Some((j, at.saturating_sub(its_now))))
    }

    /// Make hart `to` the running one: the running hart's reservation is
    /// dropped (see the module documentation), the memory takes the new
    /// hart's translation, and the hooks are told.
    fn switch_to(&mut self, to: usize) {
        let from = self.harts.cur;
        let from_executed = self.hart.executed;
        self.hart.res_addr = u64::MAX;
        std::mem::swap(&mut self.hart, &mut self.harts.parked[from]);
        std::mem::swap(&mut self.hart, &mut self.harts.parked[to]);
        self.harts.cur = to;
        self.harts.others_executed =
            self.harts.others_executed + from_executed - self.hart.executed;
        self.harts.switches += 1;
        self.sync_translation();
        self.announced = None;
        if self.target == Target::Linux {
            if let Some(a0) = self.env.as_mut().and_then(|e| e.switch_thread(to)) {
                self.hart.set_x(10, a0 as u64);
            }
        }
        self.hooks.on_hart_switch(&HartSwitch {
            from: from as u32,
            from_executed,
            to: to as u32,
            to_executed: self.hart.executed,
            pc: self.hart.pc,
            sp: self.hart.x[2],
            privilege: self.hart.privilege,
            space: self.mem.address_space(),
        });
    }
}
