//! `record --method instrument`: profile a program through the entry/exit
//! hooks compiled into it (`-finstrument-functions`, `-pg`), as an
//! instrumenting profiler on hardware does, with the hooks' own cost
//! measured and compensated (docs/instrumentation.md).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use fwprof_collect::{
    CostModel, FunctionMap, HookAddresses, InstrumentCollector, InstrumentConfig, InstrumentData,
};
use fwprof_os::Target;
use fwprof_profile::{
    AddressCost, Arc, ContextRecord, FunctionId, InstrumentInfo, InstrumentRecord, Meta, Method,
    Profile, EVENT_INSTRUCTIONS,
};
use fwprof_sim::StopReason;
use fwprof_symbols::Program;
use fwprof_timing::{CoreConfig, TimingModel};

use crate::cli::{RecordArgs, UnitArg};
use crate::exit;
use crate::progress::{Progress, Verbosity};
use crate::record::{base_meta, prepare, report_stop, Prepared};

/// Symbol names of the `-finstrument-functions` entry and exit hooks and
/// of the `-pg` hook (RISC-V GCC calls `_mcount`; `mcount` is the name
/// other toolchains use).
const ENTER: &str = "__cyg_profile_func_enter";
const EXIT: &str = "__cyg_profile_func_exit";
const MCOUNT: [&str; 2] = ["_mcount", "mcount"];

/// `fwprof record --method instrument`: run the program, intercept its
/// hooks, write the instrumented profile to `--output`. Returns the exit
/// status (the guest's, or as `record`).
///
/// # Errors
/// `--unit cycles` without `--core`, a bad `--exclude` pattern, an ELF
/// without hook symbols or whose run never calls them (the message says to
/// build with `-finstrument-functions` or `-pg`), and `record`'s errors.
pub fn record_instrumented(a: &RecordArgs) -> Result<u8> {
    if a.unit == UnitArg::Cycles && a.core.is_none() {
        anyhow::bail!("--unit cycles needs --core (durations in the timing model's cycles)");
    }
    for p in &a.exclude {
        if p.is_empty() {
            anyhow::bail!("--exclude: empty pattern");
        }
    }
    let core = a.core.as_deref().map(CoreConfig::load).transpose()?;
    let p = prepare(&a.exec)?;
    if let Some(core) = &core {
        p.check_core(core)?;
    }
    let program = Program::open(&a.exec.program)
        .with_context(|| format!("cannot read symbols of {}", a.exec.program.display()))?;
    let hooks = hook_addresses(&program);
    if hooks.is_empty() {
        anyhow::bail!(
            "{} has no instrumentation hooks ({ENTER}, {EXIT}, _mcount): build it with -finstrument-functions or -pg (bare metal: also link runtime/fwprof_instrument.c)",
            a.exec.program.display()
        );
    }
    let table = program.functions();
    let ranges: Vec<(u64, u64)> = table.iter().map(|(_, f)| (f.start, f.end)).collect();
    let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
    let mut matched = vec![false; a.exclude.len()];
    let excluded: Vec<bool> = table
        .iter()
        .map(|(_, f)| {
            let mut hit = false;
            for (i, pat) in a.exclude.iter().enumerate() {
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
    let map = FunctionMap::new(&ranges, table.entries());
    let unit = match a.unit {
        UnitArg::Instructions => 0,
        UnitArg::Cycles => 1,
    };
    let cfg = |rv64: bool| InstrumentConfig {
        hooks: hooks.clone(),
        starts: starts.clone(),
        excluded: excluded.clone(),
        unit,
        rv64,
    };
    let start_time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let progress = Progress::start(Verbosity::from_flags(a.quiet, a.verbose));
    let limit = a.exec.max_instructions;
    let core_name = core.as_ref().map(|c| c.name.clone());
    let run = match core {
        None => run_collector(&p, limit, &progress, |prog| {
            InstrumentCollector::new(map, cfg(prog.rv64))
        })?,
        // The timing model runs inside the collector on the simulator's
        // thread: the collector reads its cycle count at every hook call.
        Some(core) => run_collector(&p, limit, &progress, |prog| {
            let model = TimingModel::new(core, prog.rv64);
            InstrumentCollector::with_model(map, cfg(prog.rv64), model)
        })?,
    };
    let finished = progress.finish();
    let overflow = crate::record::stack_overflow(&run.stop, run.stack.as_ref());
    if run.error.is_none() {
        report_stop(&run.stop, run.rv64, overflow.as_deref());
    }
    let data = run.data;
    let Some(kind) = data.kind else {
        if let Some(e) = run.error {
            return Err(anyhow::Error::new(e).context("simulation failed"));
        }
        anyhow::bail!(
            "{} never called its instrumentation hooks: build it with -finstrument-functions or -pg",
            a.exec.program.display()
        );
    };
    let mut meta = base_meta(a, &p, &program, &run.stop, run.rv64, run.target, start_time);
    crate::record::mark_overflow(&mut meta, &run.stop, overflow.as_deref());
    crate::record::mark_failed(&mut meta, &run.error);
    meta.method = Method::Instrument;
    meta.core = core_name;
    meta.sleep_ns = run.sleep_ns;
    meta.instrumentation = Some(InstrumentInfo {
        hooks: kind.as_str().to_string(),
        unit: ["instructions", "cycles"][unit].to_string(),
        hook_calls: data.hook_calls,
        hook_total: data.hook_total[unit],
        excluded: a.exclude.clone(),
    });
    for (pat, hit) in a.exclude.iter().zip(&matched) {
        if !hit {
            meta.warnings
                .push(format!("--exclude {pat}: no function matches"));
        }
    }
    meta.warnings.extend(data_warnings(&data));
    let n = if run.with_cycles { 2 } else { 1 };
    let profile = build_profile(meta, &data, n, unit, &program);
    if let Err(e) = profile.check_invariants() {
        eprintln!("fwprof: warning: profile invariant violated: {e}");
    }
    write_profile(&profile, &a.output)?;
    crate::record::failed(run.error, &a.output)?;
    let with_cost = profile
        .functions
        .iter()
        .filter(|f| f.self_cost.iter().any(|&c| c > 0))
        .count();
    if let Some(line) = finished.summary(&a.output.display().to_string(), run.executed, with_cost) {
        eprintln!("{line}");
    }
    Ok(exit::status_for(&run.stop))
}

fn write_profile(profile: &Profile, output: &Path) -> Result<()> {
    profile
        .write_atomic(output)
        .with_context(|| format!("cannot write {}", output.display()))
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
pub(crate) fn wildcard_match(pattern: &str, name: &str) -> bool {
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
        w.push(format!(
            "the calling-context tree reached {} contexts: deeper recursion is folded into its outer activation",
            fwprof_collect::MAX_CONTEXTS
        ));
    }
    w
}

/// A finished run and its collector's data.
struct Run {
    stop: StopReason,
    /// The simulator's own error, if it stopped the run.
    error: Option<fwprof_sim::SimError>,
    executed: u64,
    /// Guest time asleep, in nanoseconds.
    sleep_ns: u64,
    target: Target,
    rv64: bool,
    /// The Linux initial stack (None for bare metal).
    stack: Option<fwprof_os::StackLayout>,
    /// The collector had a timing model (cycles are measured).
    with_cycles: bool,
    data: InstrumentData,
}

/// Load the program and run it under the collector `make` builds, in
/// [`crate::progress::SLICE`] pieces so that `counter` shows progress
/// (`Simulator::run` stops exactly at its limit and resumes there).
fn run_collector<M: CostModel>(
    p: &Prepared,
    limit: Option<u64>,
    progress: &Progress,
    make: impl FnOnce(&fwprof_os::LoadedProgram) -> InstrumentCollector<M>,
) -> Result<Run> {
    let out = crate::record::simulate(p, limit, Some(progress), make)?;
    let (data, _) = out.hooks.finish_with_model(out.executed);
    Ok(Run {
        stop: out.stop,
        error: out.error,
        executed: out.executed,
        sleep_ns: out.sleep_ns,
        target: out.target,
        rv64: out.rv64,
        stack: out.stack,
        with_cycles: M::EXTRA > 0,
        data,
    })
}

/// The profile of an instrumented run: functions, arcs and the context tree
/// from the hooks' activations with compensated costs (`n` events:
/// instructions, and cycles with a core), each function's self cost as the
/// per-address cost of its first instruction (the hooks measure functions,
/// not instructions), and one [`InstrumentRecord`] per tracked function in
/// the `unit` event.
fn build_profile(
    meta: Meta,
    d: &InstrumentData,
    n: usize,
    unit: usize,
    program: &Program,
) -> Profile {
    let events: Vec<String> = [EVENT_INSTRUCTIONS, "cycles"][..n]
        .iter()
        .map(|e| e.to_string())
        .collect();
    let mut profile = Profile::new(meta, events);
    let mut functions = crate::record::function_records(program, d.map.added());
    for (i, f) in functions.iter_mut().enumerate() {
        let s = d.functions.get(i).cloned().unwrap_or_default();
        f.calls = s.entered;
        f.self_cost = s.self_compensated[..n].to_vec();
        f.inclusive = s.inclusive[..n].to_vec();
        if s.entered > 0 {
            if let Ok(Some(loc)) = program.lines(f.start) {
                f.file = loc.file;
                f.line = loc.line;
            }
        }
    }
    // The hooks measure functions, not instructions: each function's
    // compensated self cost sits at its first address, so that consumers of
    // per-address costs (gprof's histogram, Callgrind's lines, pprof's
    // locations) see the function totals.
    let mut firsts: Vec<(u64, usize)> = functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.self_cost.iter().any(|&c| c > 0))
        .map(|(i, f)| (f.start, i))
        .collect();
    firsts.sort_unstable();
    firsts.dedup_by_key(|e| e.0);
    for (addr, i) in firsts {
        let (raw, len) = instruction_at(program, addr);
        // Sorted, unique addresses and one cost per event: push cannot fail.
        let _ = profile.costs.push(AddressCost {
            addr,
            function: FunctionId(i as u32),
            len,
            raw,
            cost: functions[i].self_cost.clone(),
        });
    }
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
    profile
}

/// Raw bits and length of the instruction at `addr` in the ELF (`(0, 4)`
/// if its bytes are not in the file).
fn instruction_at(program: &Program, addr: u64) -> (u32, u8) {
    let Some(low) = program.bytes_at(addr, 2) else {
        return (0, 4);
    };
    let parcel = u16::from_le_bytes([low[0], low[1]]);
    if parcel & 3 != 3 {
        return (u32::from(parcel), 2);
    }
    match program.bytes_at(addr, 4) {
        Some(b) => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 4),
        None => (0, 4),
    }
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
