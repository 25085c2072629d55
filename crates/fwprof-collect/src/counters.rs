//! Emulated hardware performance counters driven from outside the program
//! (`record --method counters`), the way the ARC study's debugger drove a
//! real core's counters (`../shared/seeds/000_*.txt`, §3–§4).
//!
//! Each counter counts one event (an index into
//! `fwprof_profile::events::TIMING`: 0 `instructions`, 1 `cycles`, ...)
//! and is configured by a [`CounterSpec`]:
//!
//! * **switched by injected code** (`start` set): the study's payloads
//!   placed at an address. On every arrival at `start` the *entry probe*
//!   runs and switches the counter on (if it is off). It is switched off
//!   by the *exit probe*: at the first arrival at `end` (a region), or, in
//!   function mode (`end` = `None`), when the activation returns: the
//!   entry probe replaced the return address, so the exit probe runs when
//!   the function's return jumps to the address the return-address
//!   register held at entry (the caller's return address for a tail call).
//!   Probes count nested entries (recursion) and switch the counter off
//!   only when the outermost activation returns. An activation abandoned
//!   by a non-local exit (`longjmp`) never runs its exit probe, as on
//!   hardware: the counter stays on;
//! * **always on** (`start` = `None`): configured once before the run and
//!   read at its end (the study's global count, and range counters for
//!   per-function totals);
//! * **address-range filter** (`filter` set): the counter counts only
//!   instructions whose address lies in `[lo, hi)` (ARC HS counters have
//!   such a filter; standard RISC-V counters do not, and the caller
//!   refuses it for them).
//!
//! **Probe cost** ([`CounterConfig::probe_cost`], in cycles, added to the
//! `cycles` event only): each probe costs that many cycles, run between
//! two instructions of the program. A counter that is on and has no
//! filter counts every probe whole; a filtered counter never counts one
//! (the probes' code lies outside every range). The counter a probe
//! switches counts part of it: an entry probe's last `cost − cost/2`
//! cycles (after the instruction that switches it on) and an exit probe's
//! first `cost/2` cycles (before the instruction that switches it off):
//! one probe's cost per measured call, the study's per-call overhead
//! (§6.1: 9–55 cycles, an empty function call).
//!
//! Points are exact to the instruction: the collector ends blocks at every
//! start, end and filter bound ([`fwprof_sim::Hooks::split_block`]), so
//! each lies at a block start. Arrivals are block starts at the address
//! (whatever led there: a call, a jump, a branch, a fall-through, a trap
//! return); returns are `jalr` returns ([`fwprof_sim::JumpKind::Return`]
//! and `CallReturn`).

use fwprof_isa::Inst;
use fwprof_sim::{BlockId, CostModel, Forward, Jump, JumpKind};

/// The index of `cycles` among the events (`fwprof_profile::events::TIMING`).
const CYCLES: usize = 1;
/// Shadow-stack entries searched for a return's target.
const SEARCH_DEPTH: usize = 256;

/// One counter's configuration for a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterSpec {
    /// Event counted: index into `fwprof_profile::events::TIMING` (0
    /// `instructions`; the others need a cost model that provides them).
    pub event: usize,
    /// Entry probe address; `None`: on for the whole run.
    pub start: Option<u64>,
    /// Exit probe address (a region's end); `None` with a `start`: the
    /// activation's return (function mode).
    pub end: Option<u64>,
    /// Address-range filter `[lo, hi)`.
    pub filter: Option<(u64, u64)>,
}

/// A run's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterConfig {
    /// The counters (at most 64); with a [`Rotation`], empty (the
    /// rotation's sets are used).
    pub counters: Vec<CounterSpec>,
    /// Cycles each probe costs (see the module docs).
    pub probe_cost: u64,
    /// Reconfigure the counters in turn at a safe-stop address.
    pub rotation: Option<Rotation>,
}

/// Counter sets taken in turn during one run, for programs that never end
/// (the ARC study's §3.4): the counters hold `sets[0]` first; at the first
/// arrival at `safe_stop` after at least `slice` cycles (instructions
/// without a cost model) since the last change, every counter is read
/// and the next set installed, round-robin. An activation open at a
/// change is closed there (counted in [`CounterReading::open_at_end`]);
/// a function already running when its set is installed is not counted
/// until it is entered again (its entry probe has not run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rotation {
    /// Where the counters may be changed (an idle loop's address).
    pub safe_stop: u64,
    /// Cycles (instructions without a cost model) a set stays at least.
    pub slice: u64,
    /// The counter sets (each at most 64 counters).
    pub sets: Vec<Vec<CounterSpec>>,
}

/// Number of buckets of [`CounterReading::histogram`].
pub const HISTOGRAM_BUCKETS: usize = 64;

/// What one counter read over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterReading {
    /// Arrivals at `start` (entry probes run); 0 for an always-on counter.
    pub entries: u64,
    /// Measurements: outermost activations (function mode), executions
    /// from `start` to `end` (region), or 1 (always on).
    pub activations: u64,
    /// Sum of all measurements, in the event's unit.
    pub total: u64,
    /// Smallest and largest single measurement (0 when none).
    pub min: u64,
    /// Largest single measurement.
    pub max: u64,
    /// Measurements by `floor(log2(value))` (bucket 0 holds 0 and 1).
    pub histogram: Vec<u64>,
    /// Activations still on when the run ended, or when a [`Rotation`]
    /// changed the set (closed there, included above).
    pub open_at_end: u64,
    /// Cycles (instructions without a cost model) during which the
    /// counter was installed: the whole run, or the sum of its set's
    /// slices under a [`Rotation`].
    pub span: u64,
    /// Slices during which it was installed (1 without a rotation).
    pub slices: u64,
}

/// Per counter, the run-time state.
#[derive(Clone, Debug, Default)]
struct State {
    /// The open activations (function mode): the return address, and
    /// whether the function was entered without a call (a tail call, a
    /// jump, a fall-through: it shares the return of the activation
    /// below); one entry while a region (or an always-on counter) is on.
    open: Vec<(u64, bool)>,
    /// Inside the filter range (true when there is no filter).
    in_range: bool,
    /// Counting since this clock value (when on and in range).
    since: Option<u64>,
    /// Counted in the current activation so far.
    acc: u64,
    reading: CounterReading,
}

impl State {
    fn on(&self) -> bool {
        !self.open.is_empty()
    }
}

/// What a translated block's start means to the counters.
#[derive(Clone, Copy, Debug, Default)]
struct BlockPoints {
    /// Its address.
    pc: u64,
    /// Counters whose `start` is the block's address.
    starts: u64,
    /// Counters whose `end` is the block's address.
    ends: u64,
    /// Filtered counters whose range holds the block's address.
    in_range: u64,
}

/// The emulated counters as a collector around a cost model `M` (the
/// timing model, or `()` for instructions only), which sees every hook
/// first. Build with [`CounterCollector::new`], run, read
/// [`CounterCollector::finish`].
#[derive(Debug)]
pub struct CounterCollector<M: CostModel = ()> {
    model: M,
    cfg: CounterConfig,
    state: Vec<State>,
    blocks: Vec<BlockPoints>,
    /// Counters with a filter, and with a start (as masks).
    filtered: u64,
    /// Return addresses of the calls in progress (all of them).
    shadow: Vec<u64>,
    /// The target of the latest jump, and whether it was a call.
    arrival: Option<(u64, bool)>,
    /// Cycles the probes added so far.
    probe_cycles: u64,
    /// Every address a block must start at, sorted.
    points: Vec<u64>,
    /// Instructions before the executing block.
    last_instret: u64,
    /// The counter sets (one without a rotation), the installed one, and
    /// what each set read so far (its slices merged).
    sets: Vec<Vec<CounterSpec>>,
    set: usize,
    results: Vec<Vec<CounterReading>>,
    /// The slice clock (cycles, or instructions) when the installed set
    /// was installed.
    installed_at: u64,
}

impl<M: CostModel> CounterCollector<M> {
    /// Counters `cfg` over `model`.
    ///
    /// # Panics
    /// With more than 64 counters, or an event the model does not provide
    /// (an index above `M::EXTRA`).
    pub fn new(model: M, mut cfg: CounterConfig) -> CounterCollector<M> {
        let sets = match &cfg.rotation {
            Some(r) => r.sets.clone(),
            None => vec![cfg.counters.clone()],
        };
        assert!(sets.iter().all(|s| s.len() <= 64), "at most 64 counters");
        assert!(
            sets.iter().flatten().all(|c| c.event <= M::EXTRA),
            "an event the cost model does not provide"
        );
        let mut points: Vec<u64> = sets
            .iter()
            .flatten()
            .flat_map(|c| {
                c.start
                    .into_iter()
                    .chain(c.end)
                    .chain(c.filter.into_iter().flat_map(|(lo, hi)| [lo, hi]))
            })
            .chain(cfg.rotation.as_ref().map(|r| r.safe_stop))
            .collect();
        points.sort_unstable();
        points.dedup();
        cfg.counters = sets.first().cloned().unwrap_or_default();
        let results = sets
            .iter()
            .map(|s| vec![CounterReading::default(); s.len()])
            .collect();
        let mut c = CounterCollector {
            model,
            cfg,
            state: Vec::new(),
            blocks: Vec::new(),
            filtered: 0,
            shadow: Vec::new(),
            arrival: None,
            probe_cycles: 0,
            points,
            last_instret: 0,
            sets,
            set: 0,
            results,
            installed_at: 0,
        };
        c.install(0);
        c
    }

    /// Install the counters of `cfg.counters` (off, readings empty) at
    /// slice clock `now`.
    fn install(&mut self, now: u64) {
        self.filtered = self
            .cfg
            .counters
            .iter()
            .enumerate()
            .filter(|(_, c)| c.filter.is_some())
            .fold(0u64, |m, (i, _)| m | 1 << i);
        self.state = self
            .cfg
            .counters
            .iter()
            .map(|c| State {
                // Always-on counters hold one activation from the start.
                open: if c.start.is_none() {
                    vec![(0, false)]
                } else {
                    Vec::new()
                },
                in_range: c.filter.is_none(),
                since: None,
                acc: 0,
                reading: CounterReading {
                    histogram: vec![0; HISTOGRAM_BUCKETS],
                    ..CounterReading::default()
                },
            })
            .collect();
        // Unfiltered always-on counters count from here.
        for k in 0..self.state.len() {
            if self.state[k].on() && self.state[k].in_range {
                let event = self.cfg.counters[k].event;
                self.state[k].since = Some(self.clock(event, self.last_instret, false));
            }
        }
        for b in &mut self.blocks {
            *b = points_of(&self.cfg.counters, b.pc);
        }
        self.installed_at = now;
    }

    /// The slice clock: cycles with a cost model, else instructions.
    fn slice_clock(&mut self, instret: u64, done: bool) -> u64 {
        if M::EXTRA > 0 {
            self.clock(CYCLES, instret, done)
        } else {
            instret
        }
    }

    /// Read out the installed counters (closing what is open, at
    /// instruction count `instret`) into the set's results.
    fn read_out(&mut self, instret: u64, done: bool) {
        for k in 0..self.state.len() {
            if self.state[k].on() {
                let now = self.clock(self.cfg.counters[k].event, instret, done);
                self.pause(k, now);
                self.state[k].open.clear();
                if self.cfg.counters[k].start.is_some() {
                    self.state[k].reading.open_at_end += 1;
                }
                self.close(k);
            }
        }
        let span = self
            .slice_clock(instret, done)
            .saturating_sub(self.installed_at);
        for (acc, st) in self.results[self.set].iter_mut().zip(&self.state) {
            merge(acc, &st.reading);
            acc.span += span;
            acc.slices += 1;
        }
    }

    /// The cost model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The value of event `event` now: `instret` instructions, or the
    /// model's count up to the end of the executing block (`done`) or its
    /// start, plus the probes' cycles.
    fn clock(&mut self, event: usize, instret: u64, done: bool) -> u64 {
        if event == 0 {
            instret
        } else {
            let v = self.model.clock(done)[event - 1];
            if event == CYCLES {
                v + self.probe_cycles
            } else {
                v
            }
        }
    }

    /// Counter `k` stops counting at `now`.
    fn pause(&mut self, k: usize, now: u64) {
        if let Some(s) = self.state[k].since.take() {
            self.state[k].acc += now.saturating_sub(s);
        }
    }

    /// Counter `k` counts from `now` if it is on and in range.
    fn resume(&mut self, k: usize, now: u64) {
        let st = &mut self.state[k];
        if st.on() && st.in_range && st.since.is_none() {
            st.since = Some(now);
        }
    }

    /// One probe runs now (after instruction count `instret`, at the
    /// block boundary `done`): a payload that switches the counters of
    /// `switches` — each on (`Some(true)`), off (`Some(false)`), or left
    /// as it is (`None`: a nested entry or exit). Several counters
    /// switched at one point share one payload and one cost. Charges the
    /// probe's cycles as the module docs say.
    fn probe(&mut self, switches: &[(usize, Option<bool>)], instret: u64, done: bool) {
        let cost = self.cfg.probe_cost;
        let head = cost / 2;
        for &(k, switch) in switches {
            let event = self.cfg.counters[k].event;
            let now = self.clock(event, instret, done);
            // The probe's head runs before the switching instruction, its
            // tail after; a filtered counter counts neither (the loop below
            // moves its start past the probe).
            let unfiltered = self.filtered & 1 << k == 0;
            let at = if event == CYCLES && unfiltered {
                now + head
            } else {
                now
            };
            match switch {
                Some(true) => {
                    self.state[k].since = None;
                    self.state[k].acc = 0;
                    if self.state[k].in_range {
                        self.state[k].since = Some(at);
                    }
                }
                Some(false) => {
                    self.pause(k, at);
                    self.close(k);
                }
                None => {}
            }
        }
        if cost == 0 {
            return;
        }
        // Filtered counters that are counting skip the probe: move their
        // start past it.
        for j in 0..self.state.len() {
            if self.cfg.counters[j].event != CYCLES || self.filtered & 1 << j == 0 {
                continue;
            }
            if let Some(s) = self.state[j].since.as_mut() {
                *s += cost;
            }
        }
        self.probe_cycles += cost;
    }

    /// Counter `k`'s activation ended (it is off now): record it.
    fn close(&mut self, k: usize) {
        let st = &mut self.state[k];
        let v = std::mem::take(&mut st.acc);
        let r = &mut st.reading;
        r.min = if r.activations == 0 { v } else { r.min.min(v) };
        r.max = r.max.max(v);
        r.activations += 1;
        r.total += v;
        r.histogram[bucket(v)] += 1;
    }

    /// End of run: close what is open; the readings, in the order of
    /// [`CounterConfig::counters`] (with a [`Rotation`], of its sets one
    /// after the other), and the cost model.
    pub fn finish(mut self, executed: u64) -> (Vec<CounterReading>, M) {
        self.read_out(executed, true);
        let readings = std::mem::take(&mut self.results)
            .into_iter()
            .flatten()
            .collect();
        (readings, self.model)
    }

    /// The filter states change to `in_range` (a mask) at a block start.
    fn cross_ranges(&mut self, in_range: u64, executed: u64) {
        let changed = (self.current_ranges() ^ in_range) & self.filtered;
        for k in (0..self.state.len()).filter(|k| changed & 1 << k != 0) {
            let now = self.clock(self.cfg.counters[k].event, executed, false);
            if in_range & 1 << k != 0 {
                self.state[k].in_range = true;
                self.resume(k, now);
            } else {
                self.pause(k, now);
                self.state[k].in_range = false;
            }
        }
    }

    fn current_ranges(&self) -> u64 {
        self.state
            .iter()
            .enumerate()
            .filter(|(_, s)| s.in_range)
            .fold(0u64, |m, (i, _)| m | 1 << i)
    }
}

/// Add `r` (one slice's reading) to `acc`.
fn merge(acc: &mut CounterReading, r: &CounterReading) {
    if r.activations > 0 {
        acc.min = if acc.activations == 0 {
            r.min
        } else {
            acc.min.min(r.min)
        };
        acc.max = acc.max.max(r.max);
    }
    acc.entries += r.entries;
    acc.activations += r.activations;
    acc.total += r.total;
    acc.open_at_end += r.open_at_end;
    if acc.histogram.len() < r.histogram.len() {
        acc.histogram.resize(r.histogram.len(), 0);
    }
    for (a, b) in acc.histogram.iter_mut().zip(&r.histogram) {
        *a += b;
    }
}

/// What a block starting at `pc` means to `counters`.
fn points_of(counters: &[CounterSpec], pc: u64) -> BlockPoints {
    let mut p = BlockPoints {
        pc,
        ..BlockPoints::default()
    };
    for (k, c) in counters.iter().enumerate() {
        if c.start == Some(pc) {
            p.starts |= 1 << k;
        }
        if c.end == Some(pc) {
            p.ends |= 1 << k;
        }
        if let Some((lo, hi)) = c.filter {
            if (lo..hi).contains(&pc) {
                p.in_range |= 1 << k;
            }
        }
    }
    p
}

/// Log2 bucket: 0 for 0 and 1, else `floor(log2(v))`.
fn bucket(v: u64) -> usize {
    if v < 2 {
        0
    } else {
        63 - v.leading_zeros() as usize
    }
}

impl<M: CostModel> Forward for CounterCollector<M> {
    type Inner = M;
    const WANTS_JUMPS: bool = true;

    #[inline(always)]
    fn inner(&mut self) -> &mut M {
        &mut self.model
    }

    fn split_block(&mut self, pcs: &[u64], _insts: &[Inst]) -> usize {
        // End the block before the first point after its first address.
        pcs.iter()
            .skip(1)
            .position(|pc| self.points.binary_search(pc).is_ok())
            .map_or(pcs.len(), |i| i + 1)
    }

    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], _insts: &[Inst]) {
        let p = points_of(&self.cfg.counters, pcs[0]);
        let i = id.0 as usize;
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, BlockPoints::default());
        }
        self.blocks[i] = p;
    }

    fn on_cache_flush(&mut self) {
        self.blocks.clear();
    }

    #[inline]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        self.last_instret = executed;
        if let Some(r) = &self.cfg.rotation {
            let (stop, slice) = (r.safe_stop, r.slice);
            let at = self.blocks.get(id.0 as usize).map_or(u64::MAX, |b| b.pc);
            if at == stop && self.sets.len() > 1 {
                let now = self.slice_clock(executed, false);
                if now.saturating_sub(self.installed_at) >= slice {
                    self.read_out(executed, false);
                    self.set = (self.set + 1) % self.sets.len();
                    self.cfg.counters = self.sets[self.set].clone();
                    self.install(now);
                }
            }
        }
        let p = self.blocks.get(id.0 as usize).copied().unwrap_or_default();
        let pc = p.pc;
        // The latest jump led here, or to an earlier block: either way it
        // is used up (a loop branching back to a function's entry arrives
        // there without a call).
        let arrival = self.arrival.take();
        if self.filtered != 0 {
            self.cross_ranges(p.in_range, executed);
        }
        if p.starts | p.ends == 0 {
            return;
        }
        // Exit probes first: a region whose end is another's start.
        let mut switches = Vec::new();
        for k in (0..self.state.len()).filter(|k| p.ends & 1 << k != 0) {
            if self.state[k].on() {
                self.state[k].open.clear();
                switches.push((k, Some(false)));
            }
        }
        if !switches.is_empty() {
            self.probe(&switches, executed, false);
            switches.clear();
        }
        for k in (0..self.state.len()).filter(|k| p.starts & 1 << k != 0) {
            self.state[k].reading.entries += 1;
            let was_on = self.state[k].on();
            if self.cfg.counters[k].end.is_none() {
                // Function mode: the return address register's value.
                let ra = self.shadow.last().copied().unwrap_or(u64::MAX);
                let called = arrival == Some((pc, true));
                self.state[k].open.push((ra, !called));
            } else if !was_on {
                self.state[k].open.push((0, false));
            }
            switches.push((k, (!was_on).then_some(true)));
        }
        if !switches.is_empty() {
            self.probe(&switches, executed, false);
        }
    }

    #[inline]
    fn on_jump(&mut self, j: &Jump) {
        self.arrival = Some((
            j.target,
            matches!(j.kind, JumpKind::Call | JumpKind::CallReturn),
        ));
        match j.kind {
            JumpKind::Call => self.shadow.push(j.ret),
            JumpKind::Return | JumpKind::CallReturn => {
                self.exit_to(j.target, j.instret);
                if let Some(at) = self
                    .shadow
                    .iter()
                    .rev()
                    .take(SEARCH_DEPTH)
                    .position(|&r| r == j.target)
                {
                    let keep = self.shadow.len() - 1 - at;
                    self.shadow.truncate(keep);
                }
                if j.kind == JumpKind::CallReturn {
                    self.shadow.push(j.ret);
                }
            }
            JumpKind::Jump | JumpKind::LinkOther => {}
        }
    }
}

impl<M: CostModel> CounterCollector<M> {
    /// A return to `target` completed (after instruction count
    /// `instret`): run the exit probes of the function-mode activations
    /// whose replaced return address it is: the innermost one, if its
    /// return address is `target`, and below it, while the one ended was
    /// entered without a call, the activations it shared its return with
    /// (a function that tail-calls itself returns once for both
    /// entries). Recursion through one call site stacks equal return
    /// addresses; each call's return ends one activation.
    fn exit_to(&mut self, target: u64, instret: u64) {
        // Counters whose last ended activation was entered by a call.
        let mut done = 0u64;
        loop {
            let mut switches = Vec::new();
            for k in 0..self.state.len() {
                if self.cfg.counters[k].end.is_some()
                    || self.cfg.counters[k].start.is_none()
                    || done & 1 << k != 0
                {
                    continue;
                }
                match self.state[k].open.last() {
                    Some(&(ra, tail)) if ra == target => {
                        self.state[k].open.pop();
                        if !tail {
                            done |= 1 << k;
                        }
                        let off = !self.state[k].on();
                        switches.push((k, off.then_some(false)));
                    }
                    _ => {}
                }
            }
            if switches.is_empty() {
                return;
            }
            self.probe(&switches, instret, true);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The counters on simulated hooks: blocks at known addresses, a
    //! cost model whose cycle count the test sets.

    use super::*;
    use fwprof_sim::Hooks;

    /// A cost model whose `cycles` is whatever the test says.
    #[derive(Debug, Default)]
    struct Cycles(u64, [u64; 1]);

    impl Hooks for Cycles {}

    impl CostModel for Cycles {
        const EXTRA: usize = 1;
        fn clock(&mut self, _done: bool) -> &[u64] {
            self.1 = [self.0];
            &self.1
        }
    }

    /// A run: blocks translated at given addresses (id = index).
    struct Run {
        c: CounterCollector<Cycles>,
        pcs: Vec<u64>,
        t: u64,
    }

    impl Run {
        fn new(counters: Vec<CounterSpec>, probe_cost: u64, pcs: &[u64]) -> Run {
            let mut c = CounterCollector::new(
                Cycles::default(),
                CounterConfig {
                    counters,
                    probe_cost,
                    rotation: None,
                },
            );
            for (i, &pc) in pcs.iter().enumerate() {
                Hooks::on_block_translated(&mut c, BlockId(i as u32), &[pc], &[]);
            }
            Run {
                c,
                pcs: pcs.to_vec(),
                t: 0,
            }
        }
        /// Block at `pc` starts, then runs `cycles` cycles (1 instruction).
        fn block(&mut self, pc: u64, cycles: u64) {
            let id = self.pcs.iter().position(|&p| p == pc).unwrap() as u32;
            Hooks::on_block_exec(&mut self.c, BlockId(id), self.t);
            self.c.model.0 += cycles;
            self.t += 1;
        }
        fn jump(&mut self, kind: JumpKind, pc: u64, target: u64) {
            let j = Jump {
                block: BlockId(0),
                kind,
                pc,
                ret: pc + 4,
                target,
                instret: self.t,
                sp: 0,
            };
            Hooks::on_jump(&mut self.c, &j);
        }
        fn finish(self) -> Vec<CounterReading> {
            let t = self.t;
            self.c.finish(t).0
        }
    }

    fn function(start: u64) -> CounterSpec {
        CounterSpec {
            event: CYCLES,
            start: Some(start),
            end: None,
            filter: None,
        }
    }

    /// main 0x100 calls f 0x200 (10 cycles) twice; f's two activations.
    #[test]
    fn a_function_is_measured_from_entry_to_return() {
        let mut r = Run::new(vec![function(0x200)], 0, &[0x100, 0x104, 0x200]);
        r.block(0x100, 3);
        for _ in 0..2 {
            r.jump(JumpKind::Call, 0x100, 0x200);
            r.block(0x200, 10);
            r.jump(JumpKind::Return, 0x200, 0x104);
            r.block(0x104, 5);
        }
        let c = &r.finish()[0];
        assert_eq!((c.entries, c.activations, c.total), (2, 2, 20));
        assert_eq!((c.min, c.max, c.open_at_end), (10, 10, 0));
        assert_eq!(c.histogram[3], 2);
    }

    /// f recurses through one call site: both activations return to the
    /// same address; the counter goes off at the outer return only.
    #[test]
    fn recursion_through_one_call_site_ends_at_the_outer_return() {
        let mut r = Run::new(vec![function(0x200)], 0, &[0x100, 0x104, 0x200, 0x208]);
        r.block(0x100, 1);
        r.jump(JumpKind::Call, 0x100, 0x200);
        r.block(0x200, 4);
        r.jump(JumpKind::Call, 0x204, 0x200); // inner: returns to 0x208
        r.block(0x200, 4);
        r.jump(JumpKind::Call, 0x204, 0x200); // innermost: also 0x208
        r.block(0x200, 4);
        r.jump(JumpKind::Return, 0x200, 0x208);
        r.block(0x208, 2);
        r.jump(JumpKind::Return, 0x208, 0x208);
        r.block(0x208, 2);
        r.jump(JumpKind::Return, 0x208, 0x104);
        r.block(0x104, 7);
        let c = &r.finish()[0];
        assert_eq!((c.entries, c.activations, c.total), (3, 1, 16));
    }

    /// f tail-calls itself (`j f`): one return ends both entries.
    #[test]
    fn a_tail_call_to_itself_returns_once_for_both_entries() {
        let mut r = Run::new(vec![function(0x200)], 0, &[0x100, 0x104, 0x200]);
        r.block(0x100, 1);
        r.jump(JumpKind::Call, 0x100, 0x200);
        r.block(0x200, 3);
        r.jump(JumpKind::Jump, 0x200, 0x200);
        r.block(0x200, 3);
        r.jump(JumpKind::Return, 0x200, 0x104);
        r.block(0x104, 9);
        let c = &r.finish()[0];
        assert_eq!(
            (c.entries, c.activations, c.total, c.open_at_end),
            (2, 1, 6, 0)
        );
    }

    /// A loop that branches back to the function's first instruction
    /// (strcmp in picolibc) arrives there without a call each turn: one
    /// return ends the activation.
    #[test]
    fn a_loop_back_to_the_entry_is_no_new_call() {
        let mut r = Run::new(vec![function(0x200)], 0, &[0x100, 0x104, 0x200]);
        r.block(0x100, 1);
        r.jump(JumpKind::Call, 0x100, 0x200);
        for _ in 0..5 {
            r.block(0x200, 2); // the branch back is no jump
        }
        r.jump(JumpKind::Return, 0x200, 0x104);
        r.block(0x104, 50);
        let c = &r.finish()[0];
        assert_eq!(
            (c.entries, c.activations, c.total, c.open_at_end),
            (5, 1, 10, 0)
        );
    }

    /// Probes of 10 cycles: f's own counter sees one probe per call; an
    /// outer counter (main, unfiltered) sees both of f's probes whole; a
    /// range-filtered counter over f sees none.
    #[test]
    fn probe_costs_land_where_the_payload_runs() {
        let filtered = CounterSpec {
            event: CYCLES,
            start: None,
            end: None,
            filter: Some((0x200, 0x300)),
        };
        let mut r = Run::new(
            vec![function(0x100), function(0x200), filtered],
            10,
            &[0x100, 0x104, 0x200],
        );
        r.jump(JumpKind::Call, 0x0, 0x100); // main called from 0x0
        r.block(0x100, 3);
        r.jump(JumpKind::Call, 0x100, 0x200);
        r.block(0x200, 20);
        r.jump(JumpKind::Return, 0x200, 0x104);
        r.block(0x104, 5);
        r.jump(JumpKind::Return, 0x104, 0x4);
        let c = r.finish();
        // main: 3 + 20 + 5 of its own, f's two probes (20), one of its own.
        assert_eq!(c[0].total, 28 + 20 + 10);
        // f: its 20 cycles and one probe's worth (the tail of the entry
        // probe, the head of the exit probe).
        assert_eq!(c[1].total, 20 + 10);
        // The range counter: f's 20 cycles only.
        assert_eq!(c[2].total, 20);
    }

    /// A region from 0x104 to 0x10c: each arrival at the start opens an
    /// execution, the next arrival at the end closes it; one left open.
    #[test]
    fn regions_count_executions_from_start_to_end() {
        let region = CounterSpec {
            event: 0,
            start: Some(0x104),
            end: Some(0x10c),
            filter: None,
        };
        let mut r = Run::new(vec![region], 0, &[0x100, 0x104, 0x108, 0x10c]);
        r.block(0x100, 1);
        for _ in 0..3 {
            r.block(0x104, 1);
            r.block(0x108, 1);
            r.block(0x108, 1);
            r.block(0x10c, 1);
        }
        r.block(0x104, 1);
        r.block(0x108, 1);
        let c = &r.finish()[0];
        assert_eq!((c.activations, c.open_at_end), (4, 1));
        assert_eq!(c.total, 3 * 3 + 2);
        assert_eq!((c.min, c.max), (2, 3));
    }

    /// Two sets in turn at the safe-stop 0x100, slices of at least 25
    /// cycles: each loop turn (0x100, f 10 cycles, g 10 cycles, 5 more)
    /// is 30 cycles, so the sets alternate every turn.
    #[test]
    fn a_rotation_changes_sets_at_the_safe_stop() {
        let sets = vec![vec![function(0x200)], vec![function(0x300)]];
        let mut c = CounterCollector::new(
            Cycles::default(),
            CounterConfig {
                counters: Vec::new(),
                probe_cost: 0,
                rotation: Some(Rotation {
                    safe_stop: 0x100,
                    slice: 25,
                    sets,
                }),
            },
        );
        let pcs = [0x100, 0x104, 0x108, 0x200, 0x300];
        for (i, &pc) in pcs.iter().enumerate() {
            Hooks::on_block_translated(&mut c, BlockId(i as u32), &[pc], &[]);
        }
        let mut r = Run {
            c,
            pcs: pcs.to_vec(),
            t: 0,
        };
        for _ in 0..4 {
            r.block(0x100, 5);
            r.jump(JumpKind::Call, 0x100, 0x200);
            r.block(0x200, 10);
            r.jump(JumpKind::Return, 0x200, 0x104);
            r.block(0x104, 0);
            r.jump(JumpKind::Call, 0x104, 0x300);
            r.block(0x300, 10);
            r.jump(JumpKind::Return, 0x300, 0x108);
            r.block(0x108, 5);
        }
        let c = r.finish();
        // f measured in turns 1 and 3, g in turns 2 and 4.
        assert_eq!((c[0].activations, c[0].total, c[0].slices), (2, 20, 2));
        assert_eq!((c[1].activations, c[1].total, c[1].slices), (2, 20, 2));
        assert_eq!(c[0].span + c[1].span, 4 * 30);
    }

    /// Blocks end at every point: a block holding a function's start
    /// further in is split there.
    #[test]
    fn blocks_are_split_at_every_point() {
        let mut c = CounterCollector::new(
            (),
            CounterConfig {
                counters: vec![CounterSpec {
                    event: 0,
                    start: Some(0x108),
                    end: None,
                    filter: Some((0x100, 0x110)),
                }],
                probe_cost: 0,
                rotation: None,
            },
        );
        let pcs = [0x100, 0x104, 0x108, 0x10c, 0x110, 0x114];
        assert_eq!(Hooks::split_block(&mut c, &pcs, &[]), 2);
        assert_eq!(Hooks::split_block(&mut c, &pcs[2..], &[]), 2);
        assert_eq!(Hooks::split_block(&mut c, &pcs[4..], &[]), 2);
    }
}
