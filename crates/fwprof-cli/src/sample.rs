//! `record --method sample`: periodic samples of the pc and of the call
//! stack, unwound from the guest's registers and memory by
//! [`fwprof_unwind`] (DWARF CFI, frame-pointer and link-register
//! fallbacks) — never from the simulator's own call tracking — aggregated
//! into a profile whose costs are estimates. `docs/sampling.md` describes
//! the options, what a sample records and the estimates.
//!
//! Pacing: with `--unit instructions` the run is cut exactly at each
//! sample's executed-instruction count (`Simulator::run(limit)` stops
//! there). With `--unit cycles` a timing model (`--core`) counts cycles and
//! asks the simulator to stop at the first block boundary after the
//! threshold ([`fwprof_sim::Hooks::stop_requested`]): the skid of a
//! performance-counter overflow interrupt, at most one block
//! ([`fwprof_sim::MAX_BLOCK_INSTS`] instructions).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use fwprof_collect::{CostModel, FunctionMap};
use fwprof_isa::Inst;
use fwprof_profile::{
    AddressCost, Arc, ContextRecord, FunctionId, Method, Profile, SampleRecord, SamplingInfo,
    EVENT_INSTRUCTIONS,
};
use fwprof_sim::{BlockId, Hooks, Memory, Simulator, StopReason, TrapInfo};
use fwprof_timing::{CoreConfig, TimingModel};
use fwprof_unwind::{Registers, Stack, UnwindMemory, Unwinder};

use crate::cli::{RecordArgs, UnitArg};
use crate::exit;
use crate::progress::{Progress, Verbosity, SLICE};
use crate::record;

/// Name of the per-function sample-count event of a sampled profile.
pub const EVENT_SAMPLES: &str = "samples";
/// Name of the cycles event (from the timing model).
const EVENT_CYCLES: &str = "cycles";

/// The sampling periods: fixed, or drawn uniformly from `[1, 2N-1]` (mean
/// `N`) by SplitMix64 (G. Steele, D. Lea, C. Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014) seeded with `--seed`, the
/// 64-bit output mapped to the range by a 128-bit multiply (D. Lemire,
/// "Fast random integer generation in an interval", 2019, without the
/// rejection step: the bias is below (2N-1)/2^64).
#[derive(Clone, Debug)]
pub struct Periods {
    period: u64,
    jitter: bool,
    state: u64,
}

impl Periods {
    /// Periods of mean `period` (at least 1), jittered from `seed` if
    /// `jitter`.
    pub fn new(period: u64, jitter: bool, seed: u64) -> Periods {
        Periods {
            period: period.max(1),
            jitter,
            state: seed,
        }
    }

    /// The next SplitMix64 output.
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Skip the sampling points in `[next, end)` without
    /// drawing each period when there are more than 2^20 of them (a long
    /// sleep): returns how many there were and the first point at or after
    /// `end`. Fixed periods are counted exactly; jittered ones are
    /// estimated as the span over the mean period, and the next point is
    /// one fresh period after `end`. `None` when the span is short enough
    /// to walk point by point.
    pub fn skip_long(&mut self, next: u64, end: u64) -> Option<(u64, u64)> {
        let span = end.saturating_sub(next);
        if span <= self.period.saturating_mul(1 << 20) {
            return None;
        }
        if self.jitter {
            let first = end.saturating_add(self.next_period());
            Some((span / self.period, first))
        } else {
            let n = span.div_ceil(self.period);
            Some((n, next.saturating_add(n.saturating_mul(self.period))))
        }
    }

    /// The next period.
    pub fn next_period(&mut self) -> u64 {
        if !self.jitter {
            return self.period;
        }
        let span = self.period.saturating_mul(2).saturating_sub(1).max(1);
        1 + ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as u64
    }
}

/// The hooks of a sampled run with a core model: the model, and the cycle
/// threshold of the next sample. With `PACED` (`--unit cycles`) the run
/// stops at the first block boundary at or after the threshold.
struct Timed<const PACED: bool> {
    model: TimingModel,
    threshold: u64,
    /// Cycles the hart slept so far (one per 100 ns tick of guest time:
    /// the nominal 10 MHz clock of `time`).
    idle: u64,
    /// Sleeps not yet seen by the sampling loop: `[start, end)` in the
    /// sampler's clock ([`Timed::cycles`]).
    sleeps: Vec<(u64, u64)>,
    /// Per translated block: the address of each instruction, and whether
    /// its last one transfers control (branch, jump, call, return, system).
    blocks: Vec<(Box<[u64]>, bool)>,
    /// The block that ran last and how many of its instructions executed
    /// (None before the first block and after a block-cache flush).
    last: Option<(u32, u32)>,
    /// [`Timed::sample_pc`] as it was at the latest block-cache flush (the
    /// block that ran last is gone from `blocks`), while `last` is None.
    flushed_pc: Option<u64>,
}

impl<const PACED: bool> Timed<PACED> {
    /// The sampler's clock: modelled cycles up to the end of the last block
    /// that ran, plus the cycles slept. A sampler paced by time keeps
    /// counting while the program sleeps.
    fn cycles(&mut self) -> u64 {
        self.busy().saturating_add(self.idle)
    }

    /// Modelled cycles of executed code only (the profile's `cycles`).
    fn busy(&mut self) -> u64 {
        self.model.clock(true)[0]
    }

    /// Where a sample taken now belongs: the last instruction that
    /// executed, if it transferred control or trapped (its effect on the
    /// registers is only the new pc and a link register, so the stack
    /// unwinds from its address as the CFI describes it); `None` when the
    /// last block ended in straight-line code (the hart's pc, the next
    /// instruction, is then in the same place in the program).
    fn sample_pc(&self) -> Option<u64> {
        let Some((id, ran)) = self.last else {
            return self.flushed_pc;
        };
        let (pcs, transfer) = self.blocks.get(id as usize)?;
        // `ran` is u32::MAX for a block that ran to its end.
        let ran = (ran as usize).min(pcs.len());
        let cut = ran < pcs.len();
        (cut || *transfer)
            .then(|| pcs.get(ran.checked_sub(1)?).copied())
            .flatten()
    }
}

impl<const PACED: bool> Hooks for Timed<PACED> {
    const WANTS_MEMORY: bool = TimingModel::WANTS_MEMORY;
    const WANTS_BRANCHES: bool = TimingModel::WANTS_BRANCHES;
    const WANTS_OPERANDS: bool = TimingModel::WANTS_OPERANDS;
    const MODELS_CYCLES: bool = TimingModel::MODELS_CYCLES;
    const STOPS: bool = PACED;

    fn stop_requested(&mut self) -> bool {
        self.cycles() >= self.threshold
    }
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        self.model.on_block_translated(id, pcs, insts);
        if PACED {
            use fwprof_isa::InstClass;
            let transfer = insts.last().is_some_and(|i| {
                matches!(
                    i.op.class(),
                    InstClass::Branch | InstClass::Jal | InstClass::Jalr | InstClass::System
                )
            });
            let at = id.0 as usize;
            if self.blocks.len() <= at {
                self.blocks.resize_with(at + 1, || (Box::default(), false));
            }
            self.blocks[at] = (pcs.into(), transfer);
        }
    }
    fn split_block(&mut self, pcs: &[u64]) -> usize {
        self.model.split_block(pcs)
    }
    fn on_cache_flush(&mut self) {
        self.model.on_cache_flush();
        if PACED {
            self.flushed_pc = self.sample_pc();
            self.last = None;
            self.blocks.clear();
        }
    }
    #[inline]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        self.model.on_block_exec(id, executed);
        if PACED {
            self.last = Some((id.0, u32::MAX));
        }
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.model.on_block_cut(id, executed);
        if PACED {
            self.last = Some((id.0, executed));
        }
    }
    #[inline]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        self.model.on_mem(index, addr, size, write);
    }
    #[inline]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        self.model.on_operands(index, a, b);
    }
    #[inline]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        self.model.on_branch(id, taken, target);
    }
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        self.model.on_branch_front(id, word);
    }
    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        self.model.cycles_before(id, index)
    }
    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        self.model.on_trap(trap, instret, sp);
    }
    fn on_mret(&mut self, pc: u64, target: u64, instret: u64, sp: u64) {
        self.model.on_mret(pc, target, instret, sp);
    }
    fn on_idle(&mut self, ticks: u64, _executed: u64) {
        let start = self.cycles();
        self.idle = self.idle.saturating_add(ticks);
        self.sleeps.push((start, start.saturating_add(ticks)));
    }
}

/// What the sampling loop needs from its hooks.
trait SampleHooks: Hooks {
    /// The sampler's clock in cycles, sleeps included (`None` without a
    /// core model).
    fn cycles_now(&mut self) -> Option<u64>;
    /// Modelled cycles of executed code (`None` without a core model).
    fn busy_cycles(&mut self) -> Option<u64>;
    /// The cycle count at which the next sample is due.
    fn set_threshold(&mut self, t: u64);
    /// The sleeps since the last call, `[start, end)` in the sampler's clock.
    fn take_sleeps(&mut self) -> Vec<(u64, u64)>;
    /// The pc a sample taken now is attributed to, if not the hart's.
    fn sample_pc(&self) -> Option<u64>;
}

impl SampleHooks for () {
    fn cycles_now(&mut self) -> Option<u64> {
        None
    }
    fn busy_cycles(&mut self) -> Option<u64> {
        None
    }
    fn set_threshold(&mut self, _: u64) {}
    fn take_sleeps(&mut self) -> Vec<(u64, u64)> {
        Vec::new()
    }
    fn sample_pc(&self) -> Option<u64> {
        None
    }
}

impl<const PACED: bool> SampleHooks for Timed<PACED> {
    fn cycles_now(&mut self) -> Option<u64> {
        Some(self.cycles())
    }
    fn busy_cycles(&mut self) -> Option<u64> {
        Some(self.busy())
    }
    fn set_threshold(&mut self, t: u64) {
        self.threshold = t;
    }
    fn take_sleeps(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.sleeps)
    }
    fn sample_pc(&self) -> Option<u64> {
        Timed::sample_pc(self)
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

/// Samples kept one by one in `Profile::samples` (about 100 bytes each:
/// 200 MB at most). A program that runs for hours must not exhaust the
/// host: later samples still count in every cost, arc and context, and a
/// warning says how many were not kept individually.
const MAX_STORED_SAMPLES: usize = 1 << 21;

/// Aggregates samples into the profile's functions, per-address costs,
/// arcs and calling contexts.
struct Aggregate {
    n: usize,
    map: FunctionMap,
    self_cost: Vec<Vec<u64>>,
    inclusive: Vec<Vec<u64>>,
    /// Sampled pcs: function, length, raw bits, cost.
    addrs: BTreeMap<u64, (u32, u8, u32, Vec<u64>)>,
    /// `(caller, callee, call site)` → inclusive; caller `None` = the root.
    arcs: HashMap<(Option<u32>, u32, u64), Vec<u64>>,
    arc_order: Vec<(Option<u32>, u32, u64)>,
    contexts: Vec<ContextRecord>,
    context_index: HashMap<(Option<u32>, u32), u32>,
    samples: Vec<SampleRecord>,
    /// Samples taken (stored or not; see [`MAX_STORED_SAMPLES`]).
    taken: u64,
    truncated: u64,
    totals: Vec<u64>,
}

impl Aggregate {
    fn new(n: usize, map: FunctionMap) -> Aggregate {
        Aggregate {
            n,
            map,
            self_cost: Vec::new(),
            inclusive: Vec::new(),
            addrs: BTreeMap::new(),
            arcs: HashMap::new(),
            arc_order: Vec::new(),
            contexts: Vec::new(),
            context_index: HashMap::new(),
            samples: Vec::new(),
            taken: 0,
            truncated: 0,
            totals: vec![0; n],
        }
    }

    fn function_slot(&mut self, f: u32) {
        let need = f as usize + 1;
        if self.self_cost.len() < need {
            self.self_cost.resize(need, vec![0; self.n]);
            self.inclusive.resize(need, vec![0; self.n]);
        }
    }

    /// Add one sample: `stack` unwound at `instret`, standing for `interval`
    /// (one value per event), the instruction at its pc `(len, raw)`.
    fn add(&mut self, stack: &Stack, instret: u64, interval: &[u64], inst: (u8, u32)) {
        let add = |dst: &mut Vec<u64>, v: &[u64]| {
            for (d, s) in dst.iter_mut().zip(v) {
                *d += s;
            }
        };
        let funcs: Vec<u32> = stack
            .frames
            .iter()
            .map(|f| self.map.lookup_or_add(f.address))
            .collect();
        for &f in &funcs {
            self.function_slot(f);
        }
        add(&mut self.totals, interval);
        let leaf = funcs[0];
        add(&mut self.self_cost[leaf as usize], interval);
        let pc = stack.frames[0].address;
        let n = self.n;
        let entry = self
            .addrs
            .entry(pc)
            .or_insert_with(|| (leaf, inst.0, inst.1, vec![0; n]));
        add(&mut entry.3, interval);
        // Inclusive: once per function per sample (recursion counts once).
        let mut seen: Vec<u32> = Vec::with_capacity(funcs.len());
        for &f in &funcs {
            if !seen.contains(&f) {
                seen.push(f);
                add(&mut self.inclusive[f as usize], interval);
            }
        }
        // Arcs: caller frame k+1 → callee frame k at frame k+1's call site,
        // once per sample; the outermost frame hangs from the root.
        let mut arcs: Vec<(Option<u32>, u32, u64)> = (0..funcs.len() - 1)
            .map(|k| (Some(funcs[k + 1]), funcs[k], stack.frames[k + 1].address))
            .collect();
        arcs.push((None, funcs[funcs.len() - 1], 0));
        arcs.sort_unstable();
        arcs.dedup();
        for key in arcs {
            let v = self.arcs.entry(key).or_insert_with(|| {
                self.arc_order.push(key);
                vec![0; n]
            });
            add(v, interval);
        }
        // Contexts: the root-to-leaf path.
        let mut parent: Option<u32> = None;
        for &f in funcs.iter().rev() {
            let id = match self.context_index.get(&(parent, f)) {
                Some(&id) => id,
                None => {
                    let id = self.contexts.len() as u32;
                    self.contexts.push(ContextRecord {
                        parent,
                        function: FunctionId(f),
                        calls: 0,
                        self_cost: vec![0; n],
                    });
                    self.context_index.insert((parent, f), id);
                    id
                }
            };
            parent = Some(id);
        }
        if let Some(leaf_ctx) = parent {
            add(&mut self.contexts[leaf_ctx as usize].self_cost, interval);
        }
        if stack.truncated() {
            self.truncated += 1;
        }
        self.taken += 1;
        if self.samples.len() < MAX_STORED_SAMPLES {
            self.samples.push(SampleRecord {
                instret,
                frames: stack.addresses(),
                truncated: stack.truncated(),
            });
        }
    }
}

/// `fwprof record --method sample`: run the program, take a sample every
/// `--period` `--unit`s (jittered with `--jitter`), write the profile.
/// Returns the exit status (as `record`).
///
/// # Errors
/// `--unit cycles` without `--core`, `--period 0`, an unreadable program
/// or core file, a failed simulation, an unwritable output.
pub fn record_sampled(a: &RecordArgs) -> Result<u8> {
    let cycles_unit = a.unit == UnitArg::Cycles;
    if cycles_unit && a.core.is_none() {
        bail!("--unit cycles needs --core (the cycles come from a core model)");
    }
    if a.period == 0 {
        bail!("--period must be at least 1");
    }
    let core = a.core.as_deref().map(CoreConfig::load).transpose()?;
    let p = record::prepare(&a.exec)?;
    if let Some(core) = &core {
        p.check_core(core)?;
    }
    let program = fwprof_symbols::Program::open(&a.exec.program)
        .with_context(|| format!("cannot read symbols of {}", a.exec.program.display()))?;
    let mut unwinder = Unwinder::from_elf(&p.elf).with_context(|| {
        format!(
            "cannot read the call-frame information of {}",
            a.exec.program.display()
        )
    })?;
    for w in unwinder.warnings() {
        eprintln!("fwprof: warning: {}: {w}", a.exec.program.display());
    }
    let table = program.functions();
    let ranges: Vec<(u64, u64)> = table.iter().map(|(_, f)| (f.start, f.end)).collect();
    let map = FunctionMap::new(&ranges, table.entries());
    let start_time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut events = vec![EVENT_INSTRUCTIONS.to_string(), EVENT_SAMPLES.to_string()];
    if core.is_some() {
        events.push(EVENT_CYCLES.to_string());
    }
    let mut agg = Aggregate::new(events.len(), map);
    let mut periods = Periods::new(a.period, a.jitter, a.seed);
    let limit = a.exec.max_instructions.unwrap_or(u64::MAX);

    let progress = Progress::start(Verbosity::from_flags(a.quiet, a.verbose));
    let mut mem = p.memory();
    let (prog, mut env) = fwprof_os::load(&p.elf, &p.cfg, &mut mem)
        .with_context(|| format!("cannot load {}", p.cfg.program.display()))?;
    if let Some(hook) = progress.output_hook() {
        env.set_before_output(hook);
    }
    let stack = env.stack_layout().cloned();
    let mut run = Run {
        unwinder: &mut unwinder,
        agg: &mut agg,
        periods: &mut periods,
        limit,
        cycles_unit,
        counter: progress.counter(),
        idle_samples: 0,
        error: None,
    };
    let core_name = core.as_ref().map(|c| c.name.clone());
    let (stop, executed, sleep_ns) = match core {
        None => run.go(Simulator::new(mem, &prog, env, ()))?,
        Some(core) if cycles_unit => {
            let hooks = Timed::<true> {
                model: TimingModel::new(core, prog.rv64),
                threshold: u64::MAX,
                idle: 0,
                sleeps: Vec::new(),
                blocks: Vec::new(),
                last: None,
                flushed_pc: None,
            };
            run.go(Simulator::new(mem, &prog, env, hooks))?
        }
        Some(core) => {
            let hooks = Timed::<false> {
                model: TimingModel::new(core, prog.rv64),
                threshold: u64::MAX,
                idle: 0,
                sleeps: Vec::new(),
                blocks: Vec::new(),
                last: None,
                flushed_pc: None,
            };
            run.go(Simulator::new(mem, &prog, env, hooks))?
        }
    };
    let run_idle = run.idle_samples;
    let run_error = run.error.take();
    let finished = progress.finish();
    let overflow = record::stack_overflow(&stop, stack.as_ref());
    if run_error.is_none() {
        record::report_stop(&stop, prog.rv64, overflow.as_deref());
    }

    let mut meta = record::base_meta(a, &p, &program, &stop, prog.rv64, prog.target, start_time);
    record::mark_overflow(&mut meta, &stop, overflow.as_deref());
    record::mark_failed(&mut meta, &run_error);
    meta.warnings.extend(unwinder.warnings().iter().cloned());
    meta.core = core_name;
    meta.method = Method::Sample;
    meta.sleep_ns = sleep_ns;
    meta.sampling = Some(SamplingInfo {
        period: a.period,
        unit: if cycles_unit {
            "cycles"
        } else {
            "instructions"
        }
        .to_string(),
        jitter: a.jitter,
        seed: a.seed,
        samples: agg.taken,
        unwind_failures: agg.truncated,
        idle_samples: run_idle,
    });
    if unwinder.fde_counts() == (0, 0) {
        meta.warnings.push(
            "the program has no call-frame information (.eh_frame, .debug_frame): stacks were unwound by frame pointers only".into(),
        );
    }
    if agg.taken > agg.samples.len() as u64 {
        meta.warnings.push(format!(
            "only the first {} of {} samples are stored one by one; every sample counts in the costs, arcs and contexts",
            agg.samples.len(),
            agg.taken
        ));
    }
    if agg.taken == 0 {
        meta.warnings.push(format!(
            "no samples: the run ended before the first period of {} {}",
            a.period,
            if cycles_unit {
                "cycles"
            } else {
                "instructions"
            }
        ));
    }
    let profile = build_profile(meta, events, agg, &program);
    if let Err(e) = profile.check_invariants() {
        eprintln!("fwprof: warning: profile invariant violated: {e}");
    }
    profile
        .write_atomic(&a.output)
        .with_context(|| format!("cannot write {}", a.output.display()))?;
    record::failed(run_error, &a.output)?;
    let with_cost = profile
        .functions
        .iter()
        .filter(|f| f.self_cost.iter().any(|&c| c > 0))
        .count();
    if let Some(line) = finished.summary(&a.output.display().to_string(), executed, with_cost) {
        eprintln!("{line}");
    }
    if a.verbose > 0 {
        if let Some(s) = &profile.meta.sampling {
            eprintln!(
                "fwprof: {} samples, {} stacks truncated",
                s.samples, s.unwind_failures
            );
        }
    }
    Ok(exit::status_for(&stop))
}

/// The state of the sampling loop.
struct Run<'a> {
    unwinder: &'a mut Unwinder,
    agg: &'a mut Aggregate,
    periods: &'a mut Periods,
    limit: u64,
    cycles_unit: bool,
    counter: &'a std::sync::atomic::AtomicU64,
    /// Sampling points that fell while the program slept.
    idle_samples: u64,
    /// The simulator's own error, if it stopped the run.
    error: Option<fwprof_sim::SimError>,
}

impl Run<'_> {
    /// Run `sim` to the end, sampling; returns how it stopped, the
    /// executed-instruction count and the guest nanoseconds asleep.
    ///
    /// Paced by cycles, the sampler's clock keeps running while the
    /// program sleeps: a sampling point inside a sleep sees no program
    /// code and is counted in `idle_samples` only (as a timer interrupt on
    /// hardware lands in the idle task). Paced by instructions, a sleep
    /// executes none, so no point falls inside it.
    fn go<H: SampleHooks>(&mut self, mut sim: Simulator<H>) -> Result<(StopReason, u64, u64)> {
        let flag = record::interrupt_flag();
        // The next sample is due when the unit's count reaches `next`.
        let mut next = self.periods.next_period();
        if self.cycles_unit {
            sim.hooks_mut().set_threshold(next);
        }
        let (mut last_instret, mut last_cycles) = (0u64, 0u64);
        let stop = loop {
            let executed = sim.executed();
            let target = if self.cycles_unit {
                self.limit
            } else {
                next.min(self.limit)
            };
            let slice_end = target.min(executed.saturating_add(SLICE));
            let stop = match sim.run(slice_end, &flag) {
                Ok(stop) => stop,
                Err(e) => {
                    self.error = Some(e);
                    break StopReason::Interrupted;
                }
            };
            let now = sim.executed();
            self.counter.store(now, Ordering::Relaxed);
            // Points inside the sleeps since the last stop; a point due
            // before a sleep started (the skid of the block that went to
            // sleep) is still sampled below, at the current state.
            let mut due_before_sleep = false;
            let sleeps = sim.hooks_mut().take_sleeps();
            for (start, end) in sleeps.into_iter().filter(|_| self.cycles_unit) {
                if (start..end).contains(&next) {
                    if let Some((n, first)) = self.periods.skip_long(next, end) {
                        self.idle_samples += n;
                        next = first;
                        continue;
                    }
                }
                while next < end {
                    if next >= start {
                        self.idle_samples += 1;
                    } else {
                        due_before_sleep = true;
                    }
                    next = next.saturating_add(self.periods.next_period());
                }
            }
            if !matches!(stop, StopReason::InstructionLimit) {
                break stop;
            }
            let cycles = sim.hooks_mut().cycles_now();
            let count = if self.cycles_unit {
                cycles.unwrap_or(0)
            } else {
                now
            };
            if due_before_sleep || count >= next {
                let mut interval = vec![now - last_instret, 1];
                if let Some(c) = sim.hooks_mut().busy_cycles() {
                    interval.push(c - last_cycles);
                    last_cycles = c;
                }
                last_instret = now;
                let pc = sim.hooks_mut().sample_pc();
                let h = sim.hart();
                let regs = Registers {
                    x: *h.xs(),
                    pc: pc.unwrap_or(h.pc),
                };
                let stack = self.unwinder.unwind(&regs, &mut GuestMemory(sim.memory()));
                let inst = instruction_at(sim.memory(), regs.pc);
                self.agg.add(&stack, now, &interval, inst);
                // Periods that ended inside one block (a block longer than
                // the period, in cycles) merge into this sample.
                while next <= count {
                    next = next.saturating_add(self.periods.next_period());
                }
            }
            if self.cycles_unit {
                sim.hooks_mut().set_threshold(next);
            }
            if now >= self.limit {
                break StopReason::InstructionLimit;
            }
        };
        let sleep_ns = record::sleep_ns(sim.hart());
        Ok((stop, sim.executed(), sleep_ns))
    }
}

/// The profile from the aggregated samples and the symbol table.
fn build_profile(
    meta: fwprof_profile::Meta,
    events: Vec<String>,
    agg: Aggregate,
    program: &fwprof_symbols::Program,
) -> Profile {
    let n = events.len();
    let mut functions = record::function_records(program, agg.map.added());
    for (i, f) in functions.iter_mut().enumerate() {
        f.self_cost = agg.self_cost.get(i).cloned().unwrap_or_else(|| vec![0; n]);
        f.inclusive = agg.inclusive.get(i).cloned().unwrap_or_else(|| vec![0; n]);
        if f.inclusive.iter().any(|&c| c > 0) {
            if let Ok(Some(loc)) = program.lines(f.start) {
                f.file = loc.file;
                f.line = loc.line;
            }
        }
    }
    let mut costs = fwprof_profile::AddressCosts::new(n);
    for (addr, (function, len, raw, cost)) in agg.addrs {
        // A BTreeMap iterates in address order, so push cannot fail.
        let _ = costs.push(AddressCost {
            addr,
            function: FunctionId(function),
            len,
            raw,
            cost,
        });
    }
    let arcs = agg
        .arc_order
        .iter()
        .map(|key| Arc {
            caller: key.0.map(FunctionId),
            callee: FunctionId(key.1),
            call_site: key.2,
            calls: 0,
            tail: false,
            inclusive: agg.arcs[key].clone(),
        })
        .collect();
    Profile {
        meta,
        events,
        functions,
        costs,
        arcs,
        traps: Vec::new(),
        totals: agg.totals,
        contexts: agg.contexts,
        samples: agg.samples,
        instrumented: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_sleeps_are_skipped_without_walking_every_point() {
        let mut p = Periods::new(10, false, 1);
        assert_eq!(p.skip_long(5, 1000), None);
        // A point already past the sleep: nothing to skip.
        assert_eq!(p.skip_long(2000, 1000), None);
        // Fixed: exactly the multiples in [next, end).
        let end = 5 + 10 * (1 << 20) + 3;
        assert_eq!(
            p.skip_long(5, end),
            Some(((1 << 20) + 1, 5 + 10 * ((1 << 20) + 1)))
        );
        // Jittered: the span over the mean, then one fresh period.
        let mut j = Periods::new(10, true, 1);
        let (n, first) = j.skip_long(0, 10 * (1 << 21)).unwrap();
        assert_eq!(n, 1 << 21);
        assert!((10 * (1 << 21) + 1..10 * (1 << 21) + 20).contains(&first));
    }

    #[test]
    fn fixed_periods() {
        let mut p = Periods::new(97, false, 5);
        assert!((0..10).all(|_| p.next_period() == 97));
        assert_eq!(Periods::new(0, true, 1).next_period(), 1);
    }

    #[test]
    fn jittered_periods_are_uniform_in_range_and_reproducible() {
        let n = 100u64;
        let draw = |seed| {
            let mut p = Periods::new(n, true, seed);
            (0..100_000).map(|_| p.next_period()).collect::<Vec<_>>()
        };
        let a = draw(1);
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        assert!(a.iter().all(|&v| (1..=2 * n - 1).contains(&v)));
        assert_eq!(*a.iter().min().unwrap(), 1);
        assert_eq!(*a.iter().max().unwrap(), 2 * n - 1);
        let mean = a.iter().sum::<u64>() as f64 / a.len() as f64;
        assert!((mean - n as f64).abs() < 1.0, "mean {mean}");
        // Each of the 199 values about equally often (chi-square, 198
        // degrees of freedom: the 99.9% quantile is about 270).
        let mut counts = vec![0u64; 2 * n as usize];
        for &v in &a {
            counts[v as usize] += 1;
        }
        let expect = a.len() as f64 / (2 * n - 1) as f64;
        let chi2: f64 = counts[1..]
            .iter()
            .map(|&c| (c as f64 - expect).powi(2) / expect)
            .sum();
        assert!(chi2 < 270.0, "chi-square {chi2}");
    }

    #[test]
    fn splitmix64_reference_values() {
        // SplitMix64 from seed 0: the first outputs of the reference
        // implementation (Vigna, splitmix64.c).
        let mut p = Periods::new(1, true, 0);
        assert_eq!(p.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(p.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
