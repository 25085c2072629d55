//! `--method counters`: the ARC study's hardware-counter methods on
//! fwprof's emulated counters (`docs/counters.md`): a first run records
//! the call graph and the global count (the study's call-graph extraction
//! and global measurement), then one complete run per subset of functions
//! (or per descent step, or one run for `--region`s), each with at most
//! the core's number of counters, switched by injected probes that cost
//! `--probe-cost` cycles, or limited to each function's address range.

use fwprof_collect::{CounterCollector, CounterConfig, CounterReading, CounterSpec};
use fwprof_counters::{CallArc, CallGraph, Decision, Descent, GraphFunction};
use fwprof_profile::{events, Profile};
use fwprof_sim::{CostModel, Pipelined};
use fwprof_timing::{CoreConfig, TimingModel};

use crate::options::{CountersOptions, RegionMode};
use crate::session::{Control, Prepared, RunEnd, Steady};
use crate::Error;

/// Counters per run without a core model (and `--counters` unset).
pub const DEFAULT_COUNTERS: u32 = 8;

mod plan;
mod profile;

pub(crate) use plan::Plan;
pub(crate) use profile::profile;

/// The global counts for a call graph given with `--call-graph`: one run
/// with an always-on counter per event (and `instructions`). Returns how
/// it ended and the reference profile: `given`'s functions, arcs and
/// contexts with the events `instructions` and the plan's, and this run's
/// counts as totals.
///
/// # Errors
/// As the run's launch.
pub(crate) fn global_run(
    p: &Prepared,
    ctl: &Control,
    plan: &Plan,
    core: Option<&CoreConfig>,
    mut given: Profile,
) -> Result<(RunEnd, Profile), Error> {
    let ev = plan.profile_events();
    let cfg = CounterConfig {
        counters: always_on(&ev),
        probe_cost: 0,
        rotation: None,
    };
    let (end, readings, _) = measure(p, ctl, core, cfg, false)?;
    given.events = ev.iter().map(|&e| events::TIMING[e].to_string()).collect();
    given.totals = readings.iter().map(|r| r.total).collect();
    Ok((end, given))
}

/// What the counter runs gathered.
pub(crate) struct CountersData {
    /// The call-graph run's profile (exact): the call graph, the global
    /// counts; never shown as the result.
    pub(super) reference: Profile,
    pub(super) plan: Plan,
    pub(super) strategy: &'static str,
    /// Per measurement run: the functions (or regions) and readings.
    pub(super) runs: Vec<MeasureRun>,
    /// The descent's decisions, per reference function.
    pub(super) decisions: Option<Vec<Decision>>,
    /// Runs the subset method would need.
    pub(super) subset_runs: u64,
    /// The first run's end.
    pub(super) first_end: String,
    /// The first run's kind: `call-graph`, or `global-count` when the
    /// call graph came from `--call-graph`; empty when there was none (a
    /// cyclic run with `--call-graph`).
    pub(super) first_kind: &'static str,
    /// The cyclic run's spans: the run's whole slice clock.
    pub(super) cyclic: Option<u64>,
}

pub(super) struct MeasureRun {
    pub(super) functions: Vec<u32>,
    /// Per function (or region), one reading per plan event, then (in
    /// inclusive function mode) the probes' `minstret` reading.
    pub(super) readings: Vec<Vec<CounterReading>>,
    pub(super) executed: u64,
    pub(super) cycles: u64,
    pub(super) end: String,
}

/// True if `f` is a function of the program's symbols that probes can be
/// placed in: code with an address range. Not a trap or signal root (no
/// code), nor code without symbols (`[reset ROM]`, `[unknown …]`: the
/// study's method takes its functions from the program's debug
/// information).
pub(super) fn is_measurable(f: &fwprof_profile::FunctionRecord) -> bool {
    f.end > f.start && !f.name.starts_with('[')
}

/// The functions of the reference profile that can be measured
/// ([`is_measurable`]), by id.
fn measurable(p: &Profile) -> Vec<u32> {
    (0..p.functions.len() as u32)
        .filter(|&i| is_measurable(&p.functions[i as usize]))
        .collect()
}

/// The call graph of the reference profile, over its functions. A
/// function entered spontaneously, as the root of a context, or from a
/// function that has no code (a trap or signal root) is a root.
pub(super) fn call_graph(p: &Profile) -> CallGraph {
    let code = |i: usize| is_measurable(&p.functions[i]);
    let mut functions: Vec<GraphFunction> = p
        .functions
        .iter()
        .map(|f| GraphFunction {
            calls: f.calls,
            root: false,
        })
        .collect();
    let mut arcs = Vec::new();
    for a in &p.arcs {
        let callee = a.callee.0 as usize;
        match a.caller {
            Some(c) if code(c.0 as usize) => arcs.push(CallArc {
                caller: c.0 as usize,
                callee,
                calls: a.calls,
            }),
            _ => functions[callee].root = true,
        }
    }
    for c in p.contexts.iter().filter(|c| c.parent.is_none()) {
        functions[c.function.0 as usize].root = true;
    }
    // Functions without code are not measured: nothing to skip or bound.
    for (i, f) in functions.iter_mut().enumerate() {
        if !code(i) {
            f.calls = 0;
        }
    }
    CallGraph { functions, arcs }
}

/// One always-on, unfiltered counter per event of `events`: the global
/// counts.
fn always_on(events: &[usize]) -> Vec<CounterSpec> {
    events
        .iter()
        .map(|&event| CounterSpec {
            event,
            start: None,
            end: None,
            filter: None,
        })
        .collect()
}

/// The counters of one measurement of function `f` (`[lo, hi)`) in `mode`.
fn function_specs(plan: &Plan, mode: RegionMode, lo: u64, hi: u64) -> Vec<CounterSpec> {
    let mut specs: Vec<CounterSpec> = plan
        .events
        .iter()
        .map(|&event| match mode {
            RegionMode::Inclusive => CounterSpec {
                event,
                start: Some(lo),
                end: None,
                filter: None,
            },
            RegionMode::Exclusive => CounterSpec {
                event,
                start: None,
                end: None,
                filter: Some((lo, hi)),
            },
        })
        .collect();
    if mode == RegionMode::Inclusive {
        // The probes also read minstret at entry and exit: the profile's
        // instructions, without a programmable counter.
        specs.push(CounterSpec {
            event: 0,
            start: Some(lo),
            end: None,
            filter: None,
        });
    }
    specs
}

/// One run of the program with `cfg`'s counters; readings in `cfg`'s order.
/// `quiet`: drop the program's output (the first run showed it); the
/// program still sees the host's streams as they are, so it runs as the
/// first run did.
fn measure(
    p: &Prepared,
    ctl: &Control,
    core: Option<&CoreConfig>,
    cfg: CounterConfig,
    quiet: bool,
) -> Result<(RunEnd, Vec<CounterReading>, u64), Error> {
    let quieten = |env: Option<&mut fwprof_os::Environment>| {
        if let (true, Some(env)) = (quiet, env) {
            env.mute_output();
        }
    };
    match core {
        None => {
            let mut sim = p.launch(ctl, |_| CounterCollector::new((), cfg))?;
            quieten(sim.sim.environment_mut());
            let (end, hooks) = sim.run(ctl, &mut Steady);
            let (readings, ()) = hooks.finish(end.running_executed());
            Ok((end, readings, 0))
        }
        // The model and the counters on a second thread, the predictor and
        // the data cache in front, as `record --core` runs the model.
        Some(core) => {
            let mut sim = p.launch(ctl, |prog| {
                let mut model = TimingModel::new(core.clone(), prog.rv64);
                let front = model.front();
                Pipelined::with_front(CounterCollector::new(model, cfg), front)
            })?;
            quieten(sim.sim.environment_mut());
            let (end, hooks) = sim.run(ctl, &mut Steady);
            let (readings, mut model) = hooks.finish().finish(end.running_executed());
            let cycles = model.clock(true)[0];
            Ok((end, readings, cycles))
        }
    }
}

/// Run the method: the call-graph run (`reference`, already made by the
/// session), then the measurement runs. Stops early, keeping what it has,
/// when `ctl.stop` is set or a run fails.
pub(crate) fn run(
    p: &Prepared,
    ctl: &Control,
    o: &CountersOptions,
    plan: Plan,
    core: Option<&CoreConfig>,
    reference: Profile,
    first_end: Option<String>,
) -> Result<(CountersData, Option<RunEnd>), Error> {
    let per_run = plan.per_run();
    let candidates = measurable(&reference);
    let subset_runs = candidates.len().div_ceil(per_run) as u64;
    let mut data = CountersData {
        strategy: if !plan.regions.is_empty() {
            "regions"
        } else if plan.safe_stop.is_some() {
            "cyclic"
        } else if o.descent.is_some() {
            "descent"
        } else {
            "subsets"
        },
        reference,
        plan,
        runs: Vec::new(),
        decisions: None,
        subset_runs,
        first_kind: match (&first_end, o.call_graph.is_some()) {
            (None, _) => "",
            (Some(_), true) => "global-count",
            (Some(_), false) => "call-graph",
        },
        first_end: first_end.unwrap_or_default(),
        cyclic: None,
    };
    if data.strategy == "cyclic" {
        let end = cyclic_run(p, ctl, o, &mut data, core, &candidates)?;
        return Ok((data, Some(end)));
    }
    if !data.first_end.is_empty() {
        // The call-graph run did not end by the program's exit: the
        // measurement runs would not see the whole program either.
        return Ok((data, None));
    }
    let stopped = || ctl.stop.load(std::sync::atomic::Ordering::Relaxed);
    let mode = o.region_mode;
    let one_run = |data: &mut CountersData, functions: Vec<u32>| -> Result<bool, Error> {
        let mut counters = Vec::new();
        let mut groups = Vec::new();
        if data.plan.regions.is_empty() {
            for &f in &functions {
                let r = &data.reference.functions[f as usize];
                let specs = function_specs(&data.plan, mode, r.start, r.end);
                groups.push(specs.len());
                counters.extend(specs);
            }
        } else {
            for &(_, start, end) in &data.plan.regions {
                for &event in &data.plan.events {
                    counters.push(CounterSpec {
                        event,
                        start: Some(start),
                        end: Some(end),
                        filter: (mode == RegionMode::Exclusive)
                            .then_some((start.min(end), start.max(end))),
                    });
                }
                groups.push(data.plan.events.len());
            }
        }
        let cfg = CounterConfig {
            counters,
            probe_cost: o.probe_cost,
            rotation: None,
        };
        let (end, readings, cycles) = measure(p, ctl, core, cfg, true)?;
        let mut it = readings.into_iter();
        let readings = groups
            .iter()
            .map(|&n| it.by_ref().take(n).collect())
            .collect();
        let described = end.describe("a stop request").unwrap_or_default();
        let ok = described.is_empty();
        data.runs.push(MeasureRun {
            functions,
            readings,
            executed: end.executed,
            cycles,
            end: described,
        });
        Ok(ok && !stopped())
    };
    match data.strategy {
        "regions" => {
            one_run(&mut data, Vec::new())?;
        }
        "descent" => {
            let first = data.plan.events[0];
            let ev = data
                .reference
                .event_index(events::TIMING[first])
                .unwrap_or(0);
            let total = data.reference.totals[ev];
            let share = o.descent.unwrap_or(0.0) / 100.0;
            let mut descent = Descent::new(call_graph(&data.reference), share, total, per_run);
            while let Some(fs) = descent.next_run() {
                let fs32: Vec<u32> = fs.iter().map(|&f| f as u32).collect();
                let go_on = one_run(&mut data, fs32)?;
                let last = data.runs.last().map(|r| {
                    fs.iter()
                        .zip(&r.readings)
                        .map(|(&f, rd)| (f, rd[0].total))
                        .collect::<Vec<_>>()
                });
                descent.record(&last.unwrap_or_default());
                if !go_on {
                    break;
                }
            }
            data.decisions = Some(descent.decisions().to_vec());
        }
        _ => {
            for subset in fwprof_counters::subsets(
                &candidates.iter().map(|&f| f as usize).collect::<Vec<_>>(),
                per_run,
            ) {
                let fs: Vec<u32> = subset.iter().map(|&f| f as u32).collect();
                if !one_run(&mut data, fs)? {
                    break;
                }
            }
        }
    }
    Ok((data, None))
}

/// The cyclic strategy (`--safe-stop`, the study's §3.4): one run whose
/// counters take the subsets in turn, changed at the safe-stop address
/// once a slice has passed, to the instruction limit or a stop request.
/// Every set also holds an always-on counter per profile event, whose
/// slices add up to the run's totals. Returns how the run ended.
fn cyclic_run(
    p: &Prepared,
    ctl: &Control,
    o: &CountersOptions,
    data: &mut CountersData,
    core: Option<&CoreConfig>,
    candidates: &[u32],
) -> Result<RunEnd, Error> {
    let profile_events = data.plan.profile_events();
    let global = always_on(&profile_events);
    let subsets = fwprof_counters::subsets(
        &candidates.iter().map(|&f| f as usize).collect::<Vec<_>>(),
        data.plan.per_run(),
    );
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let sets: Vec<Vec<CounterSpec>> = subsets
        .iter()
        .map(|set| {
            let mut specs = global.clone();
            let mut sizes = Vec::new();
            for &f in set {
                let r = &data.reference.functions[f];
                let fs = function_specs(&data.plan, o.region_mode, r.start, r.end);
                sizes.push(fs.len());
                specs.extend(fs);
            }
            groups.push(sizes);
            specs
        })
        .collect();
    let cfg = CounterConfig {
        counters: Vec::new(),
        probe_cost: o.probe_cost,
        rotation: Some(fwprof_collect::Rotation {
            safe_stop: data.plan.safe_stop.unwrap_or(0),
            slice: o.slice,
            sets,
        }),
    };
    // The first run, if any, showed the program's output.
    let quiet = !data.first_kind.is_empty();
    let (end, readings, cycles) = measure(p, ctl, core, cfg, quiet)?;
    let mut it = readings.into_iter();
    let mut totals = vec![0u64; profile_events.len()];
    let mut per_function = Vec::new();
    // The whole run's slice clock: the sum of every set's spans.
    let mut run_span = 0;
    for sizes in &groups {
        for (k, (t, r)) in totals
            .iter_mut()
            .zip(it.by_ref().take(global.len()))
            .enumerate()
        {
            *t += r.total;
            if k == 0 {
                run_span += r.span;
            }
        }
        for &n in sizes {
            per_function.push(it.by_ref().take(n).collect::<Vec<_>>());
        }
    }
    if data.first_kind.is_empty() {
        data.reference.events = profile_events
            .iter()
            .map(|&e| events::TIMING[e].to_string())
            .collect();
        data.reference.totals = totals.clone();
    }
    data.cyclic = Some(run_span);
    let described = end.describe("a stop request").unwrap_or_default();
    data.runs.push(MeasureRun {
        functions: candidates.to_vec(),
        readings: per_function,
        executed: end.executed,
        cycles,
        end: described,
    });
    Ok(end)
}
