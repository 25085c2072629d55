//! The profile of a counters recording: the measured functions' costs, the
//! derived columns, the call graph's arcs and contexts, the `counters`
//! section.

use fwprof_collect::CounterReading;
use fwprof_counters::Decision;
use fwprof_profile::{
    events, Arc, CounterFunction, CounterRegion, CounterRun, CounterSection, FunctionId, Meta,
    Method, Profile,
};

use crate::options::{CountersOptions, RegionMode};
use crate::symbol_files::Symbols;

use super::{call_graph, is_measurable, CountersData};

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
    let ev_idx = plan.profile_events();
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
            // Index into the section's runs, which list the first run (if
            // there was one) before the measurement runs.
            run_of[f as usize] = Some(k as u32 + u32::from(!d.first_kind.is_empty()));
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
        if d.cyclic.is_none() {
            profile.meta.warnings.push(format!(
                "a measurement run ended early ({}): the functions of later runs were not measured",
                bad.end
            ));
            // The call-graph run ended well, so the profile is marked
            // partial here (a stop request, a fault in a later run).
            if profile.meta.partial.is_none() {
                profile.meta.partial = Some(format!("a measurement run ended early: {}", bad.end));
            }
        }
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
