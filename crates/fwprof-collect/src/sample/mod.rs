//! Sampling: periodic samples of the pc and of the call stack, unwound from
//! the guest's registers and memory by [`fwprof_unwind`] (DWARF CFI,
//! frame-pointer and link-register fallbacks) — never from the simulator's
//! own call tracking — aggregated into costs that are estimates.
//! `docs/sampling.md` describes the options, what a sample records and
//! the estimates.
//!
//! The [`Sampler`] is driven by the run loop, which pauses the simulator
//! where [`Sampler::pause_at`] says and calls [`Sampler::on_pause`]:
//! paced by instructions, the run is cut exactly at each sample's
//! executed-instruction count (`Simulator::run(limit)` stops there); paced
//! by cycles, a cost model inside [`SampleClock`] counts cycles and asks the
//! simulator to stop at the first block boundary after the threshold
//! ([`fwprof_sim::Hooks::stop_requested`]): the skid of a
//! performance-counter overflow interrupt, at most one block
//! ([`fwprof_sim::MAX_BLOCK_INSTS`] instructions).

mod aggregate;
mod clock;
mod periods;

pub use aggregate::{ArcKey, Sample, SampleData, SampledContext, TrapPath};
pub use clock::{SampleClock, SampleHooks};
pub use periods::Periods;

use fwprof_sim::{Memory, Simulator, StopReason};
use fwprof_unwind::{Registers, UnwindMemory, Unwinder};

use crate::FunctionMap;
use aggregate::Aggregate;

/// What the sampling period counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleUnit {
    /// Retired instructions: samples fall exactly on their point.
    Instructions,
    /// Cycles of the cost model in a [`SampleClock`], sleeps included:
    /// samples fall at the first block boundary after their point.
    Cycles,
}

/// The sampling state between pauses of the run: the periods, the next
/// sampling point, the unwinder and the aggregate. Events of the costs it
/// gathers: `instructions`, `samples`, and `cycles` when the hooks have a
/// cost model.
pub struct Sampler {
    unwinder: Unwinder,
    agg: Aggregate,
    periods: Periods,
    unit: SampleUnit,
    /// The unit's count at which the next sample is due.
    next: u64,
    /// The count of the period's instructions at the last sample (all
    /// executed instructions, or those of [`Sampler::count_only_in`]).
    last_instret: u64,
    last_cycles: u64,
    /// Sampling points that fell while the program slept.
    idle_samples: u64,
    /// Paced by instructions retired in these privilege levels only (bit
    /// `Privilege::bits()`), see [`Sampler::count_only_in`].
    levels: Option<u8>,
    /// At the last pause: the executed count and the filtered count.
    paused: (u64, u64),
}

impl Sampler {
    /// A sampler with `events` cost values per sample (2, or 3 with cycles),
    /// attributing frames to functions through `map`.
    pub fn new(
        unwinder: Unwinder,
        map: FunctionMap,
        events: usize,
        mut periods: Periods,
        unit: SampleUnit,
    ) -> Sampler {
        let next = periods.next_period();
        Sampler {
            unwinder,
            agg: Aggregate::new(events, map),
            periods,
            unit,
            next,
            last_instret: 0,
            last_cycles: 0,
            idle_samples: 0,
            levels: None,
            paused: (0, 0),
        }
    }

    /// Count the period in instructions retired in the privilege levels
    /// of `levels` only (bit `Privilege::bits()` of each: 1 user, 2
    /// supervisor, 8 machine), as a counter with the other levels'
    /// Sscofpmf inhibit bits set counts, or perf's `:u`/`:k` modifiers.
    /// Only paced by instructions.
    pub fn count_only_in(&mut self, levels: u8) {
        self.levels = Some(levels);
    }

    /// The run starts at `addr` in boot code outside the program (see
    /// [`FunctionMap::set_boot_code`]): samples there are attributed to it.
    pub fn set_boot_code(&mut self, addr: u64) {
        self.agg.map.set_boot_code(addr);
    }

    /// Arm the hooks before the run starts (the cycle threshold of the
    /// first sample).
    pub fn start<H: SampleHooks>(&mut self, sim: &mut Simulator<H>) {
        if self.unit == SampleUnit::Cycles {
            sim.hooks_mut().set_threshold(self.next);
        }
    }

    /// The executed-instruction count at which the run must pause next
    /// (`u64::MAX` when paced by cycles: the hooks stop it).
    pub fn pause_at(&self) -> u64 {
        match (self.unit, self.levels) {
            // The filtered count grows at most as fast as the executed
            // one: pause where it could reach the point at the earliest.
            (SampleUnit::Instructions, Some(_)) => {
                let (executed, counted) = self.paused;
                executed.saturating_add(self.next.saturating_sub(counted).max(1))
            }
            (SampleUnit::Instructions, None) => self.next,
            (SampleUnit::Cycles, _) => u64::MAX,
        }
    }

    /// The run paused with `stop`: count the sampling points inside the
    /// sleeps since the last pause; if the run goes on
    /// (`StopReason::InstructionLimit`) and a sample is due, take it.
    ///
    /// Paced by cycles, the sampler's clock keeps running while the
    /// program sleeps: a sampling point inside a sleep sees no program
    /// code and is counted in `idle_samples` only (as a timer interrupt on
    /// hardware lands in the idle task). Paced by instructions, a sleep
    /// executes none, so no point falls inside it.
    pub fn on_pause<H: SampleHooks>(&mut self, sim: &mut Simulator<H>, stop: &StopReason) {
        let cycles_unit = self.unit == SampleUnit::Cycles;
        let now = sim.executed();
        // Points inside the sleeps since the last stop; a point due
        // before a sleep started (the skid of the block that went to
        // sleep) is still sampled below, at the current state.
        let mut due_before_sleep = false;
        let sleeps = sim.hooks_mut().take_sleeps();
        for (start, end) in sleeps.into_iter().filter(|_| cycles_unit) {
            if (start..end).contains(&self.next) {
                if let Some((n, first)) = self.periods.skip_long(self.next, end) {
                    self.idle_samples += n;
                    self.next = first;
                    continue;
                }
            }
            while self.next < end {
                if self.next >= start {
                    self.idle_samples += 1;
                } else {
                    due_before_sleep = true;
                }
                self.next = self.next.saturating_add(self.periods.next_period());
            }
        }
        if !matches!(stop, StopReason::InstructionLimit) {
            return;
        }
        let cycles = sim.hooks_mut().cycles_now();
        let count = match self.levels {
            _ if cycles_unit => cycles.unwrap_or(0),
            Some(levels) => sim.retired_in(levels),
            None => now,
        };
        self.paused = (now, count);
        if due_before_sleep || count >= self.next {
            // The instructions the period counts since the last sample.
            let counted = if self.levels.is_some() { count } else { now };
            let mut interval = vec![counted - self.last_instret, 1];
            if let Some(c) = sim.hooks_mut().busy_cycles() {
                interval.push(c - self.last_cycles);
                self.last_cycles = c;
            }
            self.last_instret = counted;
            let pc = sim.hooks_mut().sample_pc();
            let h = sim.hart();
            let regs = Registers {
                x: *h.xs(),
                pc: pc.unwrap_or(h.pc),
            };
            let stack = self.unwinder.unwind(&regs, &mut GuestMemory(sim.memory()));
            let inst = instruction_at(sim.memory(), regs.pc);
            let t = sim.hooks_mut().traps();
            let privilege = t.privilege().unwrap_or(3);
            let open = t.open_at(regs.x[2]);
            let trap = open.last().map(|inner| TrapPath {
                roots: open.iter().map(|o| t.roots()[o.root as usize]).collect(),
                handler: inner.handler,
                pc: inner.pc,
            });
            // Frames are looked up in the space the hart fetches from.
            self.agg.map.set_space(sim.memory().address_space());
            self.agg
                .add(&stack, now, &interval, inst, trap.as_ref(), privilege);
            // Periods that ended inside one block (a block longer than
            // the period, in cycles) merge into this sample.
            while self.next <= count {
                self.next = self.next.saturating_add(self.periods.next_period());
            }
        }
        if cycles_unit {
            sim.hooks_mut().set_threshold(self.next);
        }
    }

    /// The unwinder's warnings about the program's call-frame information.
    pub fn unwinder(&self) -> &Unwinder {
        &self.unwinder
    }

    /// The aggregated samples, and the unwinder (for its warnings and
    /// counts). `traps`: the run's hooks' tracker, whose counts per cause
    /// go into [`SampleData::trap_causes`].
    pub fn finish(self, traps: &crate::TrapTracker) -> (SampleData, Unwinder) {
        let mut data = self.agg.finish(self.idle_samples);
        data.trap_causes = traps.counts_in(&mut data.map);
        (data, self.unwinder)
    }
}

/// Guest memory, read-only, for the unwinder.
pub struct GuestMemory<'a>(pub &'a Memory);

impl UnwindMemory for GuestMemory<'_> {
    fn read_u32(&mut self, addr: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.0.peek(addr, &mut b)?;
        Some(u32::from_le_bytes(b))
    }
    fn read_u64(&mut self, addr: u64) -> Option<u64> {
        let mut b = [0u8; 8];
        self.0.peek(addr, &mut b)?;
        Some(u64::from_le_bytes(b))
    }
}

/// The instruction at `pc`: its length and raw bits (low 16 for RVC), as
/// the profile stores them; `(0, 0)` if unreadable.
fn instruction_at(mem: &Memory, pc: u64) -> (u8, u32) {
    let mut b = [0u8; 2];
    if mem.peek(pc, &mut b).is_none() {
        return (0, 0);
    }
    let low = u16::from_le_bytes(b);
    if low & 3 != 3 {
        return (2, u32::from(low));
    }
    let mut w = [0u8; 4];
    match mem.peek(pc, &mut w) {
        Some(()) => (4, u32::from_le_bytes(w)),
        None => (0, 0),
    }
}
