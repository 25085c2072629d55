//! `--method instrument`: the program's entry/exit hooks
//! (`-finstrument-functions`, `-pg`) intercepted as an instrumenting
//! profiler on hardware does, with the hooks' own cost measured and
//! compensated (docs/instrumentation.md).

use fwprof_collect::{
    FunctionMap, HookAddresses, InstrumentCollector, InstrumentConfig, InstrumentData,
};
use fwprof_profile::{
    events, Arc, ContextRecord, FunctionId, InstrumentInfo, InstrumentRecord, Meta, Method, Profile,
};
use fwprof_symbols::Program;
use fwprof_timing::{CoreConfig, TimingModel};

use crate::meta::{function_records, locate};
use crate::options::{InstrumentOptions, Unit};
use crate::session::{Control, Prepared, RunEnd, Steady};
use crate::symbol_files::Symbols;
use crate::Error;

/// Symbol names of the `-finstrument-functions` entry and exit hooks and
/// of the `-pg` hook (RISC-V GCC calls `_mcount`; `mcount` is the name
/// other toolchains use).
const ENTER: &str = "__cyg_profile_func_enter";
const EXIT: &str = "__cyg_profile_func_exit";
const MCOUNT: [&str; 2] = ["_mcount", "mcount"];

/// The index of `unit` in the collector's clocks (0 instructions, 1 cycles).
fn unit_index(unit: Unit) -> usize {
    match unit {
        Unit::Instructions => 0,
        Unit::Cycles => 1,
    }
}

/// What the session prepares for an instrumented run: the hooks found in
/// the program, which functions `--exclude` leaves out, and which patterns
/// matched any.
pub(crate) struct Plan {
    hooks: HookAddresses,
    starts: Vec<u64>,
    excluded: Vec<bool>,
    pub(crate) matched: Vec<bool>,
}

impl Plan {
    /// Find the hooks and apply the exclusion patterns.
    ///
    /// # Errors
    /// [`Error::NoHooks`] for a program without hook symbols.
    pub(crate) fn new(
        o: &InstrumentOptions,
        program: &Program,
        path: &std::path::Path,
    ) -> Result<Plan, Error> {
        let hooks = hook_addresses(program);
        if hooks.is_empty() {
            return Err(Error::NoHooks {
                path: path.to_path_buf(),
            });
        }
        let table = program.functions();
        let starts = table.iter().map(|(_, f)| f.start).collect();
        let mut matched = vec![false; o.exclude.len()];
        let excluded = table
            .iter()
            .map(|(_, f)| {
                let mut hit = false;
                for (i, pat) in o.exclude.iter().enumerate() {
                    if std::iter::once(&f.name)
                        .chain(&f.aliases)
                        .any(|n| wildcard_match(pat, n))
                    {
                        matched[i] = true;
                        hit = true;
                    }
                }
                hit
            })
            .collect();
        Ok(Plan {
            hooks,
            starts,
            excluded,
            matched,
        })
    }

    fn config(&self, unit: Unit, rv64: bool) -> InstrumentConfig {
        InstrumentConfig {
            hooks: self.hooks.clone(),
            starts: self.starts.clone(),
            excluded: self.excluded.clone(),
            unit: unit_index(unit),
            rv64,
        }
    }
}

/// Run the program under the instrumentation collector; with a core model
/// the timing model runs inside the collector on the simulator's thread
/// (the collector reads its cycle count at every hook call). Returns how
/// the run ended, the data, and whether cycles were measured. `tasks`:
/// give each of an operating system's tasks an activation stack of its own.
pub(crate) fn run(
    p: &Prepared,
    ctl: &Control,
    o: &InstrumentOptions,
    plan: &Plan,
    map: FunctionMap,
    core: Option<CoreConfig>,
    tasks: bool,
) -> Result<(RunEnd, InstrumentData, bool), Error> {
    let (end, data, with_cycles) = match core {
        None => {
            let sim = p.launch(ctl, |prog| {
                let mut c = InstrumentCollector::new(map, plan.config(o.unit, prog.rv64));
                if tasks {
                    c.detect_tasks(prog.start);
                }
                c
            })?;
            let (end, hooks) = sim.run(ctl, &mut Steady);
            let data = hooks.finish_with_model(end.running_executed()).0;
            (end, data, false)
        }
        Some(core) => {
            let sim = p.launch(ctl, |prog| {
                let model = TimingModel::new(core, prog.rv64);
                let mut c =
                    InstrumentCollector::with_model(map, plan.config(o.unit, prog.rv64), model);
                if tasks {
                    c.detect_tasks(prog.start);
                }
                c
            })?;
            let (end, hooks) = sim.run(ctl, &mut Steady);
            let data = hooks.finish_with_model(end.running_executed()).0;
            (end, data, true)
        }
    };
    Ok((end, data, with_cycles))
}

/// The hook symbols of `program` (first definition of each name).
fn hook_addresses(program: &Program) -> HookAddresses {
    let find = |name: &str| {
        program
            .symbols()
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.address)
    };
    let mut mcount: Vec<u64> = MCOUNT.iter().filter_map(|n| find(n)).collect();
    mcount.dedup();
    HookAddresses {
        enter: find(ENTER),
        exit: find(EXIT),
        mcount,
    }
}

/// Shell-style match of the whole `name` against `pattern`: `*` matches any
/// run of characters (also none), `?` any one character, everything else
/// itself.
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    // Iterative matching with backtracking to the last `*`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < s.len() {
        if i < p.len() && (p[i] == '?' || p[i] == s[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// Warnings about what the hooks did not tell (see the collector's docs).
fn data_warnings(d: &InstrumentData) -> Vec<String> {
    let mut w = Vec::new();
    if d.unmatched_exits > 0 {
        w.push(format!(
            "{} exit hook calls had no open activation of their function (ignored)",
            d.unmatched_exits
        ));
    }
    if d.abandoned > 0 {
        w.push(format!(
            "{} activations ended without their exit hook (a non-local exit skipped them): their time counts, they are not in calls, min, max or the histogram",
            d.abandoned
        ));
    }
    if d.open_at_end > 0 {
        w.push(format!(
            "{} activations were still open when the run ended (closed there): their time counts, they are not in calls, min, max or the histogram",
            d.open_at_end
        ));
    }
    if d.unmeasured_boundaries > 0 {
        w.push(format!(
            "{} prologues or epilogues outside the hooks' interval could not be measured (an inlined copy of an instrumented function, a function entered without a jump since the previous hook call, or one that called a hook before returning): they stay in the caller",
            d.unmeasured_boundaries
        ));
    }
    if d.other_kind_calls > 0 {
        w.push(format!(
            "{} calls to hooks of another kind than the first one called (measured as hook cost, not tracked)",
            d.other_kind_calls
        ));
    }
    if d.contexts_folded {
        w.push(crate::meta::contexts_folded_warning());
    }
    w
}

/// The profile of an instrumented run: functions, arcs and the context tree
/// from the hooks' activations with compensated costs (`n` events:
/// instructions, and cycles with a core), each function's self cost as the
/// per-address cost of its first instruction (the hooks measure functions,
/// not instructions), and one [`InstrumentRecord`] per tracked function in
/// the `unit` event. For a run that called the hooks (`d.kind` is set).
pub(crate) fn profile(
    mut meta: Meta,
    o: &InstrumentOptions,
    matched: &[bool],
    d: &InstrumentData,
    with_cycles: bool,
    latency_cycles: bool,
    program: &Symbols,
) -> Profile {
    let unit = unit_index(o.unit);
    let kind = d.kind.map_or("", |k| k.as_str());
    meta.method = Method::Instrument;
    meta.instrumentation = Some(InstrumentInfo {
        hooks: kind.to_string(),
        unit: o.unit.event().to_string(),
        hook_calls: d.hook_calls,
        hook_total: d.hook_total[unit],
        excluded: o.exclude.clone(),
    });
    for (pat, hit) in o.exclude.iter().zip(matched) {
        if !hit {
            meta.warnings
                .push(format!("--exclude {pat}: no function matches"));
        }
    }
    meta.warnings.extend(data_warnings(d));
    let n = if with_cycles { 2 } else { 1 };
    let events: Vec<String> = [events::INSTRUCTIONS, events::CYCLES][..n]
        .iter()
        .map(|e| e.to_string())
        .collect();
    let mut profile = Profile::new(meta, events);
    let mut functions = function_records(program, &d.map);
    for (i, f) in functions.iter_mut().enumerate() {
        let s = d.functions.get(i).cloned().unwrap_or_default();
        f.calls = s.entered;
        f.self_cost = s.self_compensated[..n].to_vec();
        f.inclusive = s.inclusive[..n].to_vec();
    }
    locate(&mut functions, program, |i, _| {
        d.functions.get(i).is_some_and(|s| s.entered > 0)
    });
    // The hooks measure functions, not instructions.
    crate::meta::self_at_first_addresses(&mut profile, &functions, &program.main);
    profile.functions = functions;
    profile.arcs = d
        .arcs
        .iter()
        .map(|a| Arc {
            caller: a.caller.map(FunctionId),
            callee: FunctionId(a.callee),
            call_site: a.call_site,
            calls: a.calls,
            tail: false,
            inclusive: a.inclusive[..n].to_vec(),
        })
        .collect();
    profile.contexts = d
        .contexts
        .iter()
        .map(|c| ContextRecord {
            parent: c.parent,
            function: FunctionId(c.function),
            calls: c.calls,
            self_cost: c.self_cost[..n].to_vec(),
        })
        .collect();
    profile.totals = d.totals[..n].to_vec();
    profile.instrumented = d
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.entered > 0)
        .map(|(i, f)| InstrumentRecord {
            function: FunctionId(i as u32),
            calls: f.calls,
            total: f.total[unit],
            self_time: f.self_raw[unit],
            total_compensated: f.total_compensated[unit],
            self_compensated: f.self_compensated[unit],
            min: f.min,
            max: f.max,
            histogram: f.histogram.clone(),
        })
        .collect();
    // No costs per privilege level: the hooks' activations are not split.
    crate::trap_sections::add_trap_sections(
        &mut profile,
        &d.trap_causes,
        std::iter::empty(),
        with_cycles && latency_cycles,
    );
    crate::meta::add_image_section(&mut profile, program, &d.map);
    profile
}

#[cfg(test)]
mod tests {
    use super::wildcard_match as m;

    #[test]
    fn wildcards_match_whole_names() {
        assert!(m("foo*", "foo"));
        assert!(m("foo*", "foobar"));
        assert!(!m("foo*", "xfoo"));
        assert!(m("*foo*", "xfoox"));
        assert!(m("f?o", "foo"));
        assert!(!m("f?o", "fo"));
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXXbYYc"));
        assert!(!m("a*b*c", "aXXbYY"));
        assert!(m("__cyg_*", "__cyg_profile_func_enter"));
        assert!(!m("bar", "barx"));
    }
}
