//! `--method counters`: the ARC study's hardware-counter methods on
//! fwprof's emulated counters (`docs/counters.md`): a first run records
//! the call graph and the global count (the study's call-graph extraction
//! and global measurement), then one complete run per subset of functions
//! (or per descent step, or one run for `--region`s), each with at most
//! the core's number of counters, switched by injected probes that cost
//! `--probe-cost` cycles, or limited to each function's address range.

use fwprof_collect::{CounterCollector, CounterConfig, CounterReading, CounterSpec};
use fwprof_counters::{CallArc, CallGraph, Decision, Descent, GraphFunction};
use fwprof_profile::{
    events, Arc, CounterFunction, CounterRegion, CounterRun, CounterSection, FunctionId, Meta,
    Method, Profile,
};
use fwprof_sim::{CostModel, Pipelined};
use fwprof_timing::{CoreConfig, TimingModel};

use crate::options::{CountersOptions, RegionMode};
use crate::session::{Control, Prepared, RunEnd, Steady};
use crate::symbol_files::Symbols;
use crate::Error;

/// Counters per run without a core model (and `--counters` unset).
pub const DEFAULT_COUNTERS: u32 = 8;

/// What the session checked and resolved before any run.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Counters per run.
    counters: u32,
    /// Event indexes (into `events::TIMING`) each measurement takes a
    /// counter for, in the order given.
    events: Vec<usize>,
    /// Resolved regions: (name, start, end).
    regions: Vec<(String, u64, u64)>,
    /// The profile of `--call-graph FILE`, read and checked.
    call_graph: Option<Box<Profile>>,
    /// `--safe-stop`'s address.
    safe_stop: Option<u64>,
}

/// The index of event `name` in `events::TIMING`.
fn event_index(name: &str) -> Option<usize> {
    events::TIMING.iter().position(|&e| e == name)
}

impl Plan {
    /// Check the options against the core and the program.
    ///
    /// # Errors
    /// [`Error::Options`], one line naming the option at fault.
    pub(crate) fn new(
        o: &CountersOptions,
        core: Option<&CoreConfig>,
        symbols: &Symbols,
        limited: bool,
    ) -> Result<Plan, Error> {
        let core_name = core.map_or("(none)", |c| c.name.as_str());
        let counters = match (o.counters, core) {
            (Some(n), _) => n,
            (None, Some(c)) => c.pmu.counters,
            (None, None) => DEFAULT_COUNTERS,
        };
        if counters == 0 {
            return Err(Error::Options(match o.counters {
                Some(_) => "--counters must be at least 1".into(),
                None => format!(
                    "--core {core_name} has no programmable counters ([pmu] counters = 0): give --counters N to pretend it had some"
                ),
            }));
        }
        if let (Some(n), Some(c)) = (o.counters, core) {
            if n > c.pmu.counters {
                return Err(Error::Options(format!(
                    "--counters {n}: --core {core_name} has {} programmable counters ([pmu] counters)",
                    c.pmu.counters
                )));
            }
        }
        let names: Vec<String> = if o.events.is_empty() {
            vec![if core.is_some() {
                events::CYCLES
            } else {
                events::INSTRUCTIONS
            }
            .to_string()]
        } else {
            o.events.clone()
        };
        let mut ev = Vec::new();
        for name in &names {
            let Some(i) = event_index(name) else {
                let ratio = ["cpi", "ipc"].contains(&name.as_str())
                    || name.ends_with("_rate")
                    || name.contains('/');
                return Err(Error::Options(if ratio {
                    format!("--event {name}: a ratio is not a count a counter can hold, and the descent's bound holds only for counts that add up over callees (the study's monotonic metrics, §3.6); count its parts as events")
                } else {
                    format!(
                        "--event {name}: unknown event; the counters count {}",
                        events::TIMING.join(", ")
                    )
                }));
            };
            if i != 0 && core.is_none() {
                return Err(Error::Options(format!(
                    "--event {name} needs --core (events other than instructions come from a core model)"
                )));
            }
            if !ev.contains(&i) {
                ev.push(i);
            }
        }
        if o.region_mode == RegionMode::Exclusive {
            if o.descent.is_some() {
                return Err(Error::Options(
                    "--descent with --region-mode exclusive: the descent bounds a function by its callers' inclusive counts (switched on at entry, off at the return); range-limited counters do not give them".into(),
                ));
            }
            if !core.is_some_and(|c| c.pmu.range_filter) {
                return Err(Error::Options(format!(
                    "--region-mode exclusive: the counters of --core {core_name} cannot be limited to an address range (range_filter = false; standard RISC-V counters have no such filter); use --core arc-hs or a core file with range_filter = true"
                )));
            }
            // A profile's first event is instructions: it takes a counter.
            if !ev.contains(&0) {
                ev.insert(0, 0);
            }
        }
        if ev.len() > counters as usize {
            return Err(Error::Options(format!(
                "{} events need {} counters per measurement; the core has {counters}",
                ev.len(),
                ev.len()
            )));
        }
        if let Some(t) = o.descent {
            if !(t > 0.0 && t <= 100.0) {
                return Err(Error::Options(format!(
                    "--threshold {t}: must be above 0 and at most 100 (percent)"
                )));
            }
            if !o.regions.is_empty() {
                return Err(Error::Options(
                    "--descent measures functions; --region measures regions: give one or the other".into(),
                ));
            }
        }
        let mut regions = Vec::new();
        for r in &o.regions {
            let Some((a, b)) = r.split_once("..") else {
                return Err(Error::Options(format!(
                    "--region {r}: expected START..END (addresses, symbols, symbol+offset or FILE:LINE)"
                )));
            };
            let start =
                resolve(a, symbols).map_err(|m| Error::Options(format!("--region {r}: {m}")))?;
            let end =
                resolve(b, symbols).map_err(|m| Error::Options(format!("--region {r}: {m}")))?;
            if start == end {
                return Err(Error::Options(format!(
                    "--region {r}: START and END are the same address"
                )));
            }
            regions.push((r.clone(), start, end));
        }
        if regions.len() * ev.len() > counters as usize {
            return Err(Error::Options(format!(
                "{} regions of {} events need {} counters; the core has {counters} (one run measures them all)",
                regions.len(),
                ev.len(),
                regions.len() * ev.len()
            )));
        }
        let call_graph = match &o.call_graph {
            None => None,
            Some(path) => Some(Box::new(read_call_graph(path, symbols)?)),
        };
        let safe_stop = match &o.safe_stop {
            None => None,
            Some(text) => {
                if o.descent.is_some() || !regions.is_empty() {
                    return Err(Error::Options(
                        "--safe-stop measures every function in turn: give it without --descent and --region".into(),
                    ));
                }
                if o.slice == 0 {
                    return Err(Error::Options("--slice must be at least 1".into()));
                }
                if !limited && o.call_graph.is_none() {
                    return Err(Error::Options(
                        "--safe-stop: a program that never ends needs --max-instructions N for its call-graph run (or --call-graph FILE, and Ctrl-C to end the measurement)".into(),
                    ));
                }
                Some(
                    resolve(text, symbols)
                        .map_err(|m| Error::Options(format!("--safe-stop {text}: {m}")))?,
                )
            }
        };
        Ok(Plan {
            counters,
            events: ev,
            regions,
            call_graph,
            safe_stop,
        })
    }

    /// The `--call-graph` profile, if one was given (taken out).
    pub(crate) fn take_call_graph(&mut self) -> Option<Profile> {
        self.call_graph.take().map(|b| *b)
    }

    /// Functions measured per run.
    fn per_run(&self) -> usize {
        (self.counters as usize / self.events.len()).max(1)
    }
}

/// Reads `--call-graph FILE`: a profile of this very program (same
/// SHA-256) that saw every call.
///
/// # Errors
/// [`Error::Options`] naming the file: unreadable, another program, a
/// sampled profile (its call graph misses calls, so the descent's bound
/// would not hold).
fn read_call_graph(path: &std::path::Path, symbols: &Symbols) -> Result<Profile, Error> {
    let shown = path.display();
    let p =
        Profile::read(path).map_err(|e| Error::Options(format!("--call-graph {shown}: {e}")))?;
    let sha = symbols.main.sha256_hex();
    if p.meta.sha256 != sha {
        return Err(Error::Options(format!(
            "--call-graph {shown}: a profile of another program ({}, sha256 {}…; this one is {}…)",
            p.meta.program,
            &p.meta.sha256.get(..12).unwrap_or(""),
            &sha[..12]
        )));
    }
    if p.meta.method == Method::Sample {
        return Err(Error::Options(format!(
            "--call-graph {shown}: a sampled profile misses calls, and the descent's bound needs every caller; give an exact, instrumented or counters profile"
        )));
    }
    Ok(p)
}

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
    let mut ev: Vec<usize> = vec![0];
    ev.extend(plan.events.iter().copied().filter(|&e| e != 0));
    let cfg = CounterConfig {
        counters: ev
            .iter()
            .map(|&event| CounterSpec {
                event,
                start: None,
                end: None,
                filter: None,
            })
            .collect(),
        probe_cost: 0,
        rotation: None,
    };
    let (end, readings, _) = measure(p, ctl, core, cfg, false)?;
    given.events = ev.iter().map(|&e| events::TIMING[e].to_string()).collect();
    given.totals = readings.iter().map(|r| r.total).collect();
    Ok((end, given))
}

/// An address: a number (`0x…` or decimal), a symbol of any kind (a
/// function, a label), `symbol+offset`, or `FILE:LINE` (the lowest address
/// of that source line's code, as GDB's `break FILE:LINE`).
fn resolve(text: &str, symbols: &Symbols) -> Result<u64, String> {
    let text = text.trim();
    let number = |s: &str| {
        s.strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .map_or_else(
                || s.parse::<u64>().ok(),
                |h| u64::from_str_radix(h, 16).ok(),
            )
    };
    if let Some(n) = number(text) {
        return Ok(n);
    }
    if let Some((file, line)) = text.rsplit_once(':') {
        if let Ok(line) = line.parse::<u32>() {
            let addrs = symbols
                .main
                .line_addresses(file, line)
                .map_err(|e| format!("{file}:{line}: {e}"))?;
            return addrs.first().copied().ok_or_else(|| {
                format!("no code for source line {file}:{line} (is the program built with -g?)")
            });
        }
    }
    let (name, offset) = match text.rsplit_once('+') {
        Some((n, off)) => match number(off.trim()) {
            Some(o) => (n.trim(), o),
            None => return Err(format!("bad offset `{off}`")),
        },
        None => (text, 0),
    };
    let addr = symbols
        .main
        .symbol_address(name)
        .ok_or_else(|| format!("no symbol named `{name}` in the program"))?;
    Ok(addr.wrapping_add(offset))
}

/// What the counter runs gathered.
pub(crate) struct CountersData {
    /// The call-graph run's profile (exact): the call graph, the global
    /// counts; never shown as the result.
    reference: Profile,
    plan: Plan,
    strategy: &'static str,
    /// Per measurement run: the functions (or regions) and readings.
    runs: Vec<MeasureRun>,
    /// The descent's decisions, per reference function.
    decisions: Option<Vec<Decision>>,
    /// Runs the subset method would need.
    subset_runs: u64,
    /// The first run's end.
    first_end: String,
    /// The first run's kind: `call-graph`, or `global-count` when the
    /// call graph came from `--call-graph`; empty when there was none (a
    /// cyclic run with `--call-graph`).
    first_kind: &'static str,
    /// The cyclic run's spans: the run's whole slice clock.
    cyclic: Option<u64>,
}

struct MeasureRun {
    functions: Vec<u32>,
    /// Per function (or region), one reading per plan event, then (in
    /// inclusive function mode) the probes' `minstret` reading.
    readings: Vec<Vec<CounterReading>>,
    executed: u64,
    cycles: u64,
    end: String,
}

/// True if `f` is a function of the program's symbols that probes can be
/// placed in: code with an address range. Not a trap or signal root (no
/// code), nor code without symbols (`[reset ROM]`, `[unknown …]`: the
/// study's method takes its functions from the program's debug
/// information).
fn is_measurable(f: &fwprof_profile::FunctionRecord) -> bool {
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
fn call_graph(p: &Profile) -> CallGraph {
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

/// The calling contexts of a counters profile: the call-graph run's
/// contexts (the stacks its calls were made from, as breakpoints at every
/// function entry with an unwound stack see them), each function's self
/// cost split over its contexts by their calls, on gprof's assumption
/// that every call costs the same (a root entered without a call weighs
/// as one call). The contexts of a function add up to its self cost.
fn contexts(
    reference: &Profile,
    functions: &[fwprof_profile::FunctionRecord],
) -> Vec<fwprof_profile::ContextRecord> {
    let weight = |c: &fwprof_profile::ContextRecord| c.calls.max(1);
    let mut sum = vec![0u64; functions.len()];
    for c in &reference.contexts {
        sum[c.function.index()] += weight(c);
    }
    let n = functions.first().map_or(0, |f| f.self_cost.len());
    // Per function and event, what is left to hand out, and how much of
    // the weight is still to come: the last context takes the remainder.
    let mut left: Vec<Vec<u64>> = functions.iter().map(|f| f.self_cost.clone()).collect();
    let mut weight_left = sum.clone();
    reference
        .contexts
        .iter()
        .map(|c| {
            let f = c.function.index();
            let w = weight(c);
            let self_cost = (0..n)
                .map(|e| {
                    let share = if weight_left[f] <= w {
                        left[f][e]
                    } else {
                        fwprof_counters::arc_share(left[f][e], w, weight_left[f])
                    };
                    left[f][e] -= share;
                    share
                })
                .collect();
            weight_left[f] = weight_left[f].saturating_sub(w);
            fwprof_profile::ContextRecord {
                parent: c.parent,
                function: c.function,
                calls: c.calls,
                self_cost,
            }
        })
        .collect()
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
    let mut profile_events: Vec<usize> = vec![0];
    profile_events.extend(data.plan.events.iter().copied().filter(|&e| e != 0));
    let global: Vec<CounterSpec> = profile_events
        .iter()
        .map(|&event| CounterSpec {
            event,
            start: None,
            end: None,
            filter: None,
        })
        .collect();
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

/// The counters profile: the measured functions' costs (`instructions`
/// first, then the measured events), self and inclusive (the one not
/// measured derived on gprof's assumption), each function's self cost at
/// its first address, the call graph's arcs with their share of the
/// callee, the global counts as totals, and the `counters` section.
pub(crate) fn profile(
    mut meta: Meta,
    o: &CountersOptions,
    d: CountersData,
    program: &Symbols,
) -> Profile {
    let reference = &d.reference;
    meta.method = Method::Counters;
    let plan = &d.plan;
    // Profile events: instructions, then the measured ones.
    let mut ev_idx: Vec<usize> = vec![0];
    ev_idx.extend(plan.events.iter().copied().filter(|&e| e != 0));
    let event_names: Vec<String> = ev_idx
        .iter()
        .map(|&e| events::TIMING[e].to_string())
        .collect();
    let n = ev_idx.len();
    let nf = reference.functions.len();
    // Per function: measured values per profile event.
    let mut measured: Vec<Option<Vec<u64>>> = vec![None; nf];
    // As counted (before a cyclic measurement's scaling).
    let mut raw: Vec<Option<Vec<u64>>> = vec![None; nf];
    let mut records: Vec<CounterFunction> = Vec::new();
    let mut run_of = vec![None; nf];
    let mut first_reading: Vec<Option<CounterReading>> = vec![None; nf];
    let mut regions = Vec::new();
    for (k, r) in d.runs.iter().enumerate() {
        if !plan.regions.is_empty() {
            for ((name, start, end), rd) in plan.regions.iter().zip(&r.readings) {
                let first = &rd[0];
                regions.push(CounterRegion {
                    name: name.clone(),
                    start: *start,
                    end: *end,
                    totals: rd.iter().map(|x| x.total).collect(),
                    executions: first.activations,
                    min: first.min,
                    max: first.max,
                    histogram: first.histogram.clone(),
                    open_at_end: first.open_at_end,
                });
            }
            continue;
        }
        for (&f, rd) in r.functions.iter().zip(&r.readings) {
            let value_of = |e: usize| -> u64 {
                // The plan's counters first, then the minstret probe.
                match plan.events.iter().position(|&x| x == e) {
                    Some(i) => rd[i].total,
                    None => rd.last().map_or(0, |x| x.total),
                }
            };
            // A cyclic measurement saw a share of the run: scale it up.
            let scale = |v: u64| match d.cyclic {
                Some(run_span) if rd[0].span > 0 => {
                    (u128::from(v) * u128::from(run_span) / u128::from(rd[0].span)) as u64
                }
                Some(_) => 0,
                None => v,
            };
            raw[f as usize] = Some(ev_idx.iter().map(|&e| value_of(e)).collect());
            measured[f as usize] = Some(ev_idx.iter().map(|&e| scale(value_of(e))).collect());
            run_of[f as usize] = Some(k as u32 + 1);
            first_reading[f as usize] = Some(rd[0].clone());
        }
    }
    // The call graph, for the derived columns.
    let graph = call_graph(reference);
    let mut self_costs = vec![vec![0u64; n]; nf];
    let mut inclusive = vec![vec![0u64; n]; nf];
    for e in 0..n {
        let column: Vec<Option<u64>> = measured.iter().map(|m| m.as_ref().map(|v| v[e])).collect();
        match o.region_mode {
            RegionMode::Inclusive => {
                let selfs = fwprof_counters::self_from_inclusive(&graph, &column);
                for f in 0..nf {
                    inclusive[f][e] = column[f].unwrap_or(0);
                    self_costs[f][e] = selfs[f].unwrap_or(0);
                }
            }
            RegionMode::Exclusive => {
                let selfs: Vec<u64> = column.iter().map(|v| v.unwrap_or(0)).collect();
                let incl = fwprof_counters::inclusive_from_self(&graph, &selfs);
                for f in 0..nf {
                    self_costs[f][e] = selfs[f];
                    inclusive[f][e] = incl[f];
                }
            }
        }
    }
    // Decisions.
    for f in 0..nf {
        let fid = FunctionId(f as u32);
        let decision = d.decisions.as_ref().map(|ds| ds[f]);
        let (name, bound) = match decision {
            Some(Decision::Measured { bound, .. }) => ("measured", bound),
            Some(Decision::Skipped { bound }) => ("skipped", Some(bound)),
            Some(Decision::NotCalled) => {
                if !is_measurable(&reference.functions[f]) {
                    continue;
                }
                ("not_called", None)
            }
            Some(Decision::Pending) => ("pending", None),
            None if measured[f].is_some() => ("measured", None),
            None => continue,
        };
        let r = first_reading[f].clone().unwrap_or_default();
        records.push(CounterFunction {
            function: fid,
            decision: name.to_string(),
            run: run_of[f],
            bound,
            values: raw[f]
                .as_ref()
                .map(|v| {
                    plan.events
                        .iter()
                        .map(|&e| v[ev_idx.iter().position(|&x| x == e).unwrap_or(0)])
                        .collect()
                })
                .unwrap_or_default(),
            entries: r.entries,
            activations: r.activations,
            min: r.min,
            max: r.max,
            histogram: if measured[f].is_some() {
                r.histogram
            } else {
                Vec::new()
            },
            span: r.span,
            slices: r.slices,
        });
    }
    let mut profile = Profile::new(meta, event_names);
    let mut functions = reference.functions.clone();
    for (f, rec) in functions.iter_mut().enumerate() {
        rec.self_cost = self_costs[f].clone();
        rec.inclusive = inclusive[f].clone();
    }
    crate::meta::self_at_first_addresses(&mut profile, &functions, &program.main);
    // Arcs: the call graph's calls; each carries its share of the callee.
    let calls: Vec<u64> = graph.functions.iter().map(|f| f.calls).collect();
    profile.arcs = reference
        .arcs
        .iter()
        .map(|a| Arc {
            caller: a.caller,
            callee: a.callee,
            call_site: a.call_site,
            calls: a.calls,
            tail: a.tail,
            inclusive: inclusive[a.callee.0 as usize]
                .iter()
                .map(|&v| {
                    fwprof_counters::arc_share(v, a.calls, calls[a.callee.0 as usize].max(a.calls))
                })
                .collect(),
        })
        .collect();
    profile.contexts = contexts(reference, &functions);
    profile.functions = functions;
    profile.totals = ev_idx
        .iter()
        .map(|&e| {
            reference
                .event_index(events::TIMING[e])
                .map_or(0, |i| reference.totals[i])
        })
        .collect();
    let mut runs = Vec::new();
    if !d.first_kind.is_empty() {
        runs.push(CounterRun {
            kind: d.first_kind.into(),
            functions: Vec::new(),
            executed: reference.totals[0],
            cycles: reference
                .event_index(events::CYCLES)
                .map_or(0, |i| reference.totals[i]),
            end: d.first_end.clone(),
        });
    }
    runs.extend(d.runs.iter().map(|r| CounterRun {
        kind: "measure".into(),
        functions: r.functions.iter().map(|&f| FunctionId(f)).collect(),
        executed: r.executed,
        cycles: r.cycles,
        end: r.end.clone(),
    }));
    if let Some(run_span) = d.cyclic {
        let slices = d.runs.first().map_or(0, |r| {
            r.readings
                .iter()
                .filter_map(|rd| rd.first())
                .map(|x| x.slices)
                .max()
                .unwrap_or(0)
        });
        profile.meta.warnings.push(format!(
            "cyclic measurement: {} subsets in turn, each function counted in about {slices} slices of the run ({run_span} {} in all) and scaled by the share of the run it was counted in: an estimate that takes what ran outside its slices to be like what ran inside",
            d.runs.first().map_or(0, |r| r.functions.len().div_ceil(plan.per_run())),
            if reference.event_index(events::CYCLES).is_some() { "cycles" } else { "instructions" }
        ));
    }
    if let Some((k, r)) = d
        .runs
        .iter()
        .enumerate()
        .find(|(_, r)| d.cyclic.is_none() && r.executed != reference.totals[0])
    {
        profile.meta.warnings.push(format!(
            "measurement run {} executed {} instructions, the call-graph run {}: the program did not run the same way each time (input, time, environment), so the runs' measurements do not describe one run",
            k + 1,
            r.executed,
            reference.totals[0]
        ));
    }
    if let Some(bad) = d.runs.iter().find(|r| !r.end.is_empty()) {
        profile.meta.warnings.push(format!(
            "a measurement run ended early ({}): the functions of later runs were not measured",
            bad.end
        ));
    }
    let section = CounterSection {
        counters: plan.counters,
        events: plan
            .events
            .iter()
            .map(|&e| events::TIMING[e].to_string())
            .collect(),
        mode: match o.region_mode {
            RegionMode::Inclusive => "inclusive",
            RegionMode::Exclusive => "exclusive",
        }
        .into(),
        strategy: d.strategy.into(),
        threshold: o.descent,
        probe_cost: o.probe_cost,
        subset_runs: d.subset_runs,
        runs,
        functions: records,
        regions,
    };
    // The section is ours and fits: it cannot fail to encode.
    let _ = profile.set_section(&section);
    profile
}
