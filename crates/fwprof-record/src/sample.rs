//! `--method sample`: the [`Sampler`] driven by the run loop, and the
//! sampled profile (costs are estimates; `docs/sampling.md`).

use fwprof_collect::sample::{Periods, SampleClock, SampleData, SampleHooks, SampleUnit, Sampler};
use fwprof_collect::{FunctionMap, TrapTracker};
use fwprof_profile::{
    events, AddressCost, Arc, ContextRecord, FunctionId, Meta, Method, Profile, SampleRecord,
    SamplingInfo,
};
use fwprof_sim::{Simulator, StopReason};
use fwprof_timing::{CoreConfig, TimingModel};
use fwprof_unwind::Unwinder;

use crate::meta::{function_records, locate};
use crate::options::{SampleOptions, Unit};
use crate::session::{Control, Pacer, Prepared, RunEnd};
use crate::symbol_files::Symbols;
use crate::Error;

impl<H: SampleHooks> Pacer<H> for Sampler {
    fn pause_at(&self) -> u64 {
        Sampler::pause_at(self)
    }
    fn on_pause(&mut self, sim: &mut Simulator<H>, stop: &StopReason) {
        Sampler::on_pause(self, sim, stop)
    }
}

/// The event set of a sampled profile: instructions, samples, and cycles
/// with a core model.
fn event_names(with_core: bool) -> Vec<String> {
    let mut names = vec![events::INSTRUCTIONS, events::SAMPLES];
    if with_core {
        names.push(events::CYCLES);
    }
    names.into_iter().map(String::from).collect()
}

/// Run the program and sample it every `o.period` units: without a core
/// model the hooks only follow traps ([`TrapTracker`]); with one a [`SampleClock`] counts cycles
/// (paced: `o.unit` is cycles, the clock stops the run at each point).
pub(crate) fn run(
    p: &Prepared,
    ctl: &Control,
    o: &SampleOptions,
    unwinder: Unwinder,
    map: FunctionMap,
    core: Option<CoreConfig>,
) -> Result<(RunEnd, SampleData, Unwinder), Error> {
    let unit = match o.unit {
        Unit::Instructions => SampleUnit::Instructions,
        Unit::Cycles => SampleUnit::Cycles,
    };
    let n = event_names(core.is_some()).len();
    let mut sampler = Sampler::new(
        unwinder,
        map,
        n,
        Periods::new(o.period, o.jitter, o.seed),
        unit,
    );
    if let Some(levels) = o.count_in {
        sampler.count_only_in(levels);
    }
    let end = match core {
        None => drive(
            p.launch(ctl, |prog| {
                boot_code(&mut sampler, prog);
                TrapTracker::new()
            })?,
            ctl,
            &mut sampler,
        ),
        Some(core) if unit == SampleUnit::Cycles => drive(
            p.launch(ctl, |prog| {
                boot_code(&mut sampler, prog);
                SampleClock::<_, true>::new(TimingModel::new(core, prog.rv64))
            })?,
            ctl,
            &mut sampler,
        ),
        Some(core) => drive(
            p.launch(ctl, |prog| {
                boot_code(&mut sampler, prog);
                SampleClock::<_, false>::new(TimingModel::new(core, prog.rv64))
            })?,
            ctl,
            &mut sampler,
        ),
    };
    let (end, traps) = end;
    let (data, unwinder) = sampler.finish(&traps);
    Ok((end, data, unwinder))
}

/// Arm the sampler and run; also gives the hooks' trap tracker.
fn drive<H: SampleHooks>(
    mut launched: crate::session::Launched<H>,
    ctl: &Control,
    sampler: &mut Sampler,
) -> (RunEnd, TrapTracker) {
    sampler.start(&mut launched.sim);
    let (end, hooks) = launched.run(ctl, sampler);
    (end, hooks.traps().clone())
}

/// Mark the boot code in the sampler's map when the hart starts outside
/// the program (as [`crate::exact::boot_code`]).
fn boot_code(sampler: &mut Sampler, prog: &fwprof_os::LoadedProgram) {
    if prog.start != prog.entry {
        sampler.set_boot_code(prog.start);
    }
}

/// The sampled profile: the aggregated samples, the sampling parameters
/// and what the unwinder could not do.
pub(crate) fn profile(
    mut meta: Meta,
    o: &SampleOptions,
    with_core: bool,
    latency_cycles: bool,
    agg: SampleData,
    unwinder: &Unwinder,
    program: &Symbols,
) -> Profile {
    meta.warnings.extend(unwinder.warnings().iter().cloned());
    meta.method = Method::Sample;
    meta.sampling = Some(SamplingInfo {
        period: o.period,
        unit: o.unit_name(),
        jitter: o.jitter,
        seed: o.seed,
        samples: agg.taken,
        unwind_failures: agg.truncated,
        idle_samples: agg.idle_samples,
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
    if agg.contexts_folded {
        meta.warnings.push(crate::meta::contexts_folded_warning());
    }
    if agg.taken == 0 {
        meta.warnings.push(format!(
            "no samples: the run ended before the first period of {} {}",
            o.period,
            o.unit.event()
        ));
    }
    let events = event_names(with_core);
    let n = events.len();
    let mut functions = function_records(program, &agg.map);
    for (i, f) in functions.iter_mut().enumerate() {
        f.self_cost = agg.self_cost.get(i).cloned().unwrap_or_else(|| vec![0; n]);
        f.inclusive = agg.inclusive.get(i).cloned().unwrap_or_else(|| vec![0; n]);
    }
    locate(&mut functions, program, |_, f| {
        f.inclusive.iter().any(|&c| c > 0)
    });
    let mut costs = fwprof_profile::AddressCosts::new(n);
    for (addr, function, len, raw, cost) in agg.addrs {
        // In address order, so push cannot fail.
        let _ = costs.push(AddressCost {
            addr,
            function: FunctionId(function),
            len,
            raw,
            cost,
        });
    }
    let arcs = agg
        .arcs
        .into_iter()
        .map(|((caller, callee, call_site), inclusive)| Arc {
            caller: caller.map(FunctionId),
            callee: FunctionId(callee),
            call_site,
            calls: 0,
            tail: false,
            inclusive,
        })
        .collect();
    let trap_causes = agg.trap_causes;
    let per_context = agg.contexts_by_privilege;
    let mut profile = Profile {
        meta,
        events,
        functions,
        costs,
        arcs,
        traps: Vec::new(),
        totals: agg.totals,
        contexts: agg
            .contexts
            .into_iter()
            .map(|c| ContextRecord {
                parent: c.parent,
                function: FunctionId(c.function),
                calls: 0,
                self_cost: c.self_cost,
            })
            .collect(),
        samples: agg
            .samples
            .into_iter()
            .map(|s| SampleRecord {
                instret: s.instret,
                frames: s.frames,
                truncated: s.truncated,
            })
            .collect(),
        instrumented: Vec::new(),
        sections: Default::default(),
    };
    crate::trap_sections::add_trap_sections(
        &mut profile,
        &trap_causes,
        per_context,
        latency_cycles,
    );
    crate::meta::add_image_section(&mut profile, program, &agg.map);
    profile
}
