//! `run` and `record`: load, simulate, collect, write the profile; and the
//! dispatch of the reading subcommands.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc as SyncArc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use fwprof_collect::{ExactCollector, ExactData, FunctionMap};
use fwprof_os::{RunConfig, Sandbox, Target};
use fwprof_profile::{
    AddressCost, Arc, ContextRecord, FunctionId, FunctionRecord, Meta, Profile, TrapRecord,
    EVENT_INSTRUCTIONS,
};
use fwprof_sim::{Hooks, Memory, Pipelined, Simulator, StopReason};
use fwprof_timing::{CoreConfig, TimingModel};

use crate::cli::{self, Command, ExecArgs};
use crate::exit;
use crate::progress::{Progress, Verbosity};

/// Run the chosen subcommand; returns the process exit status.
pub fn dispatch(cli: cli::Cli) -> Result<u8> {
    match cli.command {
        Command::Run(a) => run(&a.exec),
        Command::Record(a) if a.output == Path::new("-") => {
            // Found by looking at the arguments alone: a usage error.
            eprintln!(
                "fwprof: record -o -: a profile cannot go to standard output (the program's own output goes there); name a file"
            );
            Ok(USAGE_ERROR)
        }
        Command::Record(a) => match refuse_record_over_input(&a).map(|()| a.method)? {
            cli::MethodArg::Exact => record(&a, Verbosity::from_flags(a.quiet, a.verbose)),
            cli::MethodArg::Sample => crate::sample::record_sampled(&a),
            cli::MethodArg::Instrument => crate::instrument::record_instrumented(&a),
        },
        Command::Report(a) => crate::record::report(&a, crate::report_cmd::use_color(cli.color)),
        Command::Annotate(a) => crate::record::annotate(&a),
        Command::Export(a) => crate::export_cmd::export(&a),
        Command::Html(a) => crate::export_cmd::html(&a),
        Command::Diff(a) => crate::export_cmd::diff(&a),
        Command::Merge(a) => crate::export_cmd::merge(&a),
        Command::Completions(a) => crate::export_cmd::completions(&a),
        Command::Compare(a) => crate::compare_cmd::compare(&a),
        Command::Reliability(a) => crate::reliability::run(&a),
    }
}

/// Exit status of a usage error (clap's).
const USAGE_ERROR: u8 = 2;

/// `record` must not write its profile over the program or the `--core`
/// description file it reads.
fn refuse_record_over_input(a: &cli::RecordArgs) -> Result<()> {
    let mut inputs = vec![(a.exec.program.as_path(), "the program being profiled")];
    if let Some(core) = a.core.as_deref().map(Path::new).filter(|p| p.is_file()) {
        inputs.push((core, "the --core description"));
    }
    crate::files::refuse_output_over_input(&a.output, &inputs)
}

/// Everything needed to start a simulation.
pub(crate) struct Prepared {
    /// The run configuration handed to `fwprof_os::load`.
    pub(crate) cfg: RunConfig,
    /// The ELF file's contents.
    pub(crate) elf: Vec<u8>,
    /// What the loader's checks learned of it (`fwprof_os::inspect`).
    pub(crate) summary: fwprof_os::ElfSummary,
    /// The guest memory limit in bytes (`--max-memory`).
    pub(crate) max_memory: u64,
}

impl Prepared {
    /// Empty guest memory bounded by `--max-memory`.
    pub(crate) fn memory(&self) -> Memory {
        Memory::with_limit(self.max_memory)
    }

    /// Refuse a core model that cannot run this program: an RV32 core
    /// (`xlen = 32`, the `picorv32` and `ibex` presets) and an RV64
    /// program, or the reverse. Found after reading the program, so an
    /// error of fwprof (exit 125), not a usage error.
    pub(crate) fn check_core(&self, core: &CoreConfig) -> Result<()> {
        let program_xlen = if self.summary.rv64 { 64 } else { 32 };
        match core.xlen {
            Some(x) if x != program_xlen => anyhow::bail!(
                "--core {}: an RV{x} core cannot run {}, an RV{program_xlen} program",
                core.name,
                self.cfg.program.display()
            ),
            _ => Ok(()),
        }
    }
}

/// Read the program and build the run configuration (`--ram`, sandbox,
/// guest environment, target).
pub(crate) fn prepare(a: &ExecArgs) -> Result<Prepared> {
    let ram = cli::parse_ram(&a.ram).map_err(anyhow::Error::msg)?;
    let max_memory = a.max_memory.unwrap_or_else(cli::default_max_memory);
    let elf = std::fs::read(&a.program)
        .with_context(|| format!("cannot read {}", a.program.display()))?;
    // The loader's checks first, so that every command describes a bad
    // program in the same words, whatever it reads of it next.
    let summary =
        fwprof_os::inspect(&elf).with_context(|| format!("cannot load {}", a.program.display()))?;
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let canon = |dirs: &[PathBuf], what: &str| -> Result<Vec<PathBuf>> {
        dirs.iter()
            .map(|d| {
                d.canonicalize()
                    .with_context(|| format!("{what} {}: no such directory", d.display()))
            })
            .collect()
    };
    let mut read = canon(&a.allow_read, "--allow-read")?;
    if read.is_empty() {
        read.push(cwd.canonicalize().unwrap_or(cwd));
    }
    let write = canon(&a.allow_write, "--allow-write")?;
    let cfg = RunConfig {
        program: a.program.clone(),
        args: a.args.clone(),
        env: cli::guest_env(std::env::vars(), a),
        target: a.target.map(|t| match t {
            cli::TargetArg::Baremetal => Target::BareMetal,
            cli::TargetArg::Linux => Target::Linux,
        }),
        ram,
        sandbox: Sandbox { read, write },
    };
    Ok(Prepared {
        cfg,
        elf,
        summary,
        max_memory,
    })
}

/// The flag SIGINT, SIGTERM and SIGHUP set; the simulator polls it and
/// stops cleanly (see [`crate::signals`]).
pub(crate) fn interrupt_flag() -> SyncArc<AtomicBool> {
    crate::signals::stop_flag()
}

/// The outcome of one simulation.
pub(crate) struct Outcome<H> {
    pub(crate) stop: StopReason,
    /// The simulator's own error, if it stopped the run (`stop` is then
    /// [`StopReason::Interrupted`] as a stand-in; see [`mark_failed`]).
    pub(crate) error: Option<fwprof_sim::SimError>,
    pub(crate) hooks: H,
    pub(crate) executed: u64,
    /// Guest time asleep, in nanoseconds (`Meta::sleep_ns`).
    pub(crate) sleep_ns: u64,
    pub(crate) target: Target,
    pub(crate) rv64: bool,
    /// The Linux initial stack (None for bare metal).
    pub(crate) stack: Option<fwprof_os::StackLayout>,
}

/// Load and run the program. With `progress`, the run is cut into
/// [`crate::progress::SLICE`]-instruction pieces (`Simulator::run` stops
/// exactly at its limit and the next call resumes there, so the result is
/// the same) and the executed count is published between them.
pub(crate) fn simulate<H: Hooks>(
    p: &Prepared,
    limit: Option<u64>,
    progress: Option<&Progress>,
    make_hooks: impl FnOnce(&fwprof_os::LoadedProgram) -> H,
) -> Result<Outcome<H>> {
    let mut mem = p.memory();
    let (prog, mut env) = fwprof_os::load(&p.elf, &p.cfg, &mut mem)
        .with_context(|| format!("cannot load {}", p.cfg.program.display()))?;
    if let Some(hook) = progress.and_then(Progress::output_hook) {
        env.set_before_output(hook);
    }
    let progress = progress.map(Progress::counter);
    let hooks = make_hooks(&prog);
    let stack = env.stack_layout().cloned();
    let mut sim = Simulator::new(mem, &prog, env, hooks);
    let flag = interrupt_flag();
    let limit = limit.unwrap_or(u64::MAX);
    let mut error = None;
    let stop = loop {
        let slice_end = match progress {
            None => limit,
            Some(_) => limit.min(sim.executed().saturating_add(crate::progress::SLICE)),
        };
        let stop = match sim.run(slice_end, &flag) {
            Ok(stop) => stop,
            Err(e) => {
                error = Some(e);
                break StopReason::Interrupted;
            }
        };
        if let Some(counter) = progress {
            counter.store(sim.executed(), Ordering::Relaxed);
        }
        match stop {
            StopReason::InstructionLimit if sim.executed() < limit => {}
            stop => break stop,
        }
    };
    let executed = sim.executed();
    Ok(Outcome {
        stop,
        error,
        executed,
        sleep_ns: sleep_ns(sim.hart()),
        hooks: sim.into_hooks(),
        target: prog.target,
        rv64: prog.rv64,
        stack,
    })
}

/// How a simulation ended, without its collector.
struct Ended {
    stop: StopReason,
    error: Option<fwprof_sim::SimError>,
    executed: u64,
    sleep_ns: u64,
    target: Target,
    rv64: bool,
    stack: Option<fwprof_os::StackLayout>,
}

impl<H> Outcome<H> {
    /// Separate the collector from how the run ended.
    fn split(self) -> (Ended, H) {
        (
            Ended {
                stop: self.stop,
                error: self.error,
                executed: self.executed,
                sleep_ns: self.sleep_ns,
                target: self.target,
                rv64: self.rv64,
                stack: self.stack,
            },
            self.hooks,
        )
    }
}

/// A run the simulator stopped with an error of its own (a `wfi` that
/// could never end, an environment failure): the profile of what ran is
/// still written, marked partial with the error; then the error is
/// returned (exit status 125).
pub(crate) fn mark_failed(meta: &mut Meta, error: &Option<fwprof_sim::SimError>) {
    if let Some(e) = error {
        meta.partial = Some(format!("simulation failed: {e}"));
        meta.exit_status = None;
    }
}

/// The error of a run [`mark_failed`] marked, after its profile was written.
pub(crate) fn failed(error: Option<fwprof_sim::SimError>, output: &Path) -> Result<()> {
    match error {
        None => Ok(()),
        Some(e) => Err(anyhow::Error::new(e).context(format!(
            "simulation failed (the partial profile is in {})",
            output.display()
        ))),
    }
}

/// One record per function of `program`'s symbol table, in its order, then
/// one `[unknown 0x…]` record per range `added` to the function map for
/// code outside every symbol (`FunctionMap::added`: start, end, id in that
/// order), with no costs yet.
pub(crate) fn function_records(
    program: &fwprof_symbols::Program,
    added: &[(u64, u64, u32)],
) -> Vec<FunctionRecord> {
    let table = program.functions();
    let mut functions: Vec<FunctionRecord> = table
        .iter()
        .map(|(_, f)| FunctionRecord::new(f.name.clone(), f.start, f.end))
        .collect();
    for &(start, end, id) in added {
        debug_assert_eq!(id as usize, functions.len());
        functions.push(FunctionRecord::new(
            format!("[unknown {start:#x}]"),
            start,
            end,
        ));
    }
    functions
}

/// Guest time the hart slept, in nanoseconds (`Meta::sleep_ns`): its idle
/// ticks of 100 ns.
pub(crate) fn sleep_ns(h: &fwprof_sim::Hart) -> u64 {
    h.idle_ticks().saturating_mul(100)
}

/// For a Linux guest killed by a load or store just below its stack (see
/// [`fwprof_os::StackLayout::overflow_at`]): `stack overflow: store at
/// 0x… below the stack (limit N bytes)`, N being the stack size
/// (`RLIMIT_STACK`, as QEMU). `None` for any other stop.
pub(crate) fn stack_overflow(
    stop: &StopReason,
    stack: Option<&fwprof_os::StackLayout>,
) -> Option<String> {
    let StopReason::Signal { cause, tval, .. } = stop else {
        return None;
    };
    let access = match cause {
        5 | 13 => "load",
        7 | 15 => "store",
        _ => return None,
    };
    let stack = stack.filter(|s| s.overflow_at(*tval))?;
    Some(format!(
        "stack overflow: {access} at {tval:#x} below the stack (limit {} bytes)",
        stack.size()
    ))
}

/// The partial-profile reason for a stack overflow (`stack_overflow`).
pub(crate) fn mark_overflow(meta: &mut Meta, stop: &StopReason, overflow: Option<&str>) {
    if let (StopReason::Signal { signo, pc, .. }, Some(o)) = (stop, overflow) {
        meta.partial = Some(format!("killed by signal {signo}: {o} at pc {pc:#x}"));
    }
}

/// Print the one-line diagnostic for a stop that is not a normal exit;
/// `overflow` is [`stack_overflow`]'s description, if any.
pub(crate) fn report_stop(stop: &StopReason, rv64: bool, overflow: Option<&str>) {
    match stop {
        StopReason::Exit(_) => {}
        StopReason::InstructionLimit => eprintln!("fwprof: instruction limit reached"),
        StopReason::Interrupted => eprintln!(
            "fwprof: stopped by {}",
            crate::signals::name(crate::signals::stopping_signal())
        ),
        StopReason::Fault { cause, pc, tval, raw, len } => {
            let xlen = if rv64 { fwprof_isa::Xlen::Rv64 } else { fwprof_isa::Xlen::Rv32 };
            let inst = fwprof_isa::decode(*raw, xlen);
            let text = fwprof_isa::disasm(&inst, *pc, xlen, fwprof_isa::Style::Pseudo);
            let word = if *len == 2 { format!("{raw:04x}") } else { format!("{raw:08x}") };
            eprintln!(
                "fwprof: guest fault: {} (mcause {cause}) at pc {pc:#x}, mtval {tval:#x}, instruction {word} `{text}` (mtvec is 0, no trap handler)",
                exit::cause_name(*cause)
            );
        }
        StopReason::Signal { signo, pc, .. } if overflow.is_some() => eprintln!(
            "fwprof: guest killed by signal {signo}: {} at pc {pc:#x}",
            overflow.unwrap_or_default()
        ),
        StopReason::Signal { signo, cause, pc, tval } => eprintln!(
            "fwprof: guest killed by signal {signo}: {} (mcause {cause}) at pc {pc:#x}, address {tval:#x}",
            exit::cause_name(*cause)
        ),
    }
}

fn run(a: &ExecArgs) -> Result<u8> {
    let p = prepare(a)?;
    let out = simulate(&p, a.max_instructions, None, |_| ())?;
    if let Some(e) = out.error {
        return Err(anyhow::Error::new(e).context("simulation failed"));
    }
    let overflow = stack_overflow(&out.stop, out.stack.as_ref());
    report_stop(&out.stop, out.rv64, overflow.as_deref());
    Ok(exit::status_for(&out.stop))
}

/// Per-address costs and totals of the timing model's events (all of
/// [`fwprof_timing::EVENTS`], `instructions` first), when `--core` was given.
type Timing = (Vec<(u64, fwprof_timing::Costs)>, fwprof_timing::Costs);

fn record(args: &cli::RecordArgs, verbosity: Verbosity) -> Result<u8> {
    let (a, output, core) = (&args.exec, args.output.as_path(), args.core.as_deref());
    // A bad core description stops here: nothing runs.
    let core = core.map(CoreConfig::load).transpose()?;
    let p = prepare(a)?;
    if let Some(core) = &core {
        p.check_core(core)?;
    }
    let program = fwprof_symbols::Program::open(&a.program)
        .with_context(|| format!("cannot read symbols of {}", a.program.display()))?;
    let table = program.functions();
    let ranges: Vec<(u64, u64)> = table.iter().map(|(_, f)| (f.start, f.end)).collect();
    let entries = table.entries().to_vec();
    let start_time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let map = FunctionMap::new(&ranges, &entries);
    let core_name = core.as_ref().map(|c| c.name.clone());
    let progress = Progress::start(verbosity);
    let counter = Some(&progress);
    let (out, data, timing) = match core {
        None => {
            let out = simulate(&p, a.max_instructions, counter, |prog| {
                ExactCollector::new(map, prog.entry, prog.sp)
            })?;
            let (out, hooks) = out.split();
            let data = hooks.finish(out.executed);
            (out, data, None)
        }
        Some(core) => {
            // The timing model and the collector run on a second thread,
            // beside the simulator (same calls in the same order: the same
            // profile).
            let out = simulate(&p, a.max_instructions, counter, |prog| {
                let model = TimingModel::new(core, prog.rv64);
                let front = model.branch_front();
                let collector = ExactCollector::with_model(map, prog.entry, prog.sp, model);
                Pipelined::with_front(collector, front)
            })?;
            let (out, hooks) = out.split();
            let (data, model) = hooks.finish().finish_with_model(out.executed);
            (out, data, Some(model.finish()))
        }
    };
    let finished = progress.finish();
    let overflow = stack_overflow(&out.stop, out.stack.as_ref());
    if out.error.is_none() {
        report_stop(&out.stop, out.rv64, overflow.as_deref());
    }

    let mut meta = base_meta(
        args, &p, &program, &out.stop, out.rv64, out.target, start_time,
    );
    mark_overflow(&mut meta, &out.stop, overflow.as_deref());
    mark_failed(&mut meta, &out.error);
    meta.core = core_name;
    meta.sleep_ns = out.sleep_ns;
    if data.contexts_folded {
        meta.warnings.push(format!(
            "the calling-context tree reached {} contexts: deeper recursion is folded into its outer activation",
            fwprof_collect::MAX_CONTEXTS
        ));
    }
    let profile = build_profile(meta, &data, timing.as_ref(), &program);
    if let Err(e) = profile.check_invariants() {
        eprintln!("fwprof: warning: profile invariant violated: {e}");
    }
    profile
        .write_atomic(output)
        .with_context(|| format!("cannot write {}", output.display()))?;
    let with_cost = profile
        .functions
        .iter()
        .filter(|f| f.self_cost.iter().any(|&c| c > 0))
        .count();
    failed(out.error, output)?;
    if let Some(line) = finished.summary(&output.display().to_string(), out.executed, with_cost) {
        eprintln!("{line}");
    }
    Ok(exit::status_for(&out.stop))
}

/// The metadata every recording method fills alike: program identity,
/// ISA, target, command line, environment (names and digest; values only
/// with `--save-env`; nothing for bare metal), version, start time, symbol
/// warnings, and how the run ended (`partial`, `exit_status`).
pub(crate) fn base_meta(
    args: &cli::RecordArgs,
    p: &Prepared,
    program: &fwprof_symbols::Program,
    stop: &StopReason,
    rv64: bool,
    target: Target,
    start_time: u64,
) -> Meta {
    let a = &args.exec;
    // The absolute path, so readers in another directory find the program
    // (and, through its DWARF, its sources); argv[0] stays as given.
    let program_path = std::path::absolute(&a.program).unwrap_or_else(|_| a.program.clone());
    let mut meta = Meta::new(program_path.display().to_string());
    meta.sha256 = crate::report_cmd::hex(&program.sha256());
    meta.build_id = program.build_id().map(crate::report_cmd::hex);
    meta.xlen = if rv64 { 64 } else { 32 };
    meta.isa = if rv64 { "rv64gc" } else { "rv32gc" }.to_string();
    meta.target = match target {
        Target::BareMetal => fwprof_profile::Target::Baremetal,
        Target::Linux => fwprof_profile::Target::Linux,
    };
    meta.command = std::iter::once(a.program.display().to_string())
        .chain(a.args.iter().cloned())
        .collect();
    meta.set_environment(&p.cfg.env, args.save_env);
    meta.fwprof_version = env!("CARGO_PKG_VERSION").to_string();
    meta.start_time = start_time;
    meta.warnings = program.warnings();
    match stop {
        StopReason::Exit(code) => meta.exit_status = Some(*code),
        StopReason::InstructionLimit => meta.partial = Some("instruction limit".into()),
        StopReason::Interrupted => {
            meta.partial = Some(format!(
                "signal {}",
                crate::signals::name(crate::signals::stopping_signal())
            ))
        }
        StopReason::Fault { cause, pc, .. } => {
            meta.partial = Some(format!(
                "guest fault: {} at {pc:#x}",
                exit::cause_name(*cause)
            ))
        }
        StopReason::Signal {
            signo, cause, pc, ..
        } => {
            meta.partial = Some(format!(
                "killed by signal {signo}: {} at {pc:#x}",
                exit::cause_name(*cause)
            ));
            meta.exit_status = Some(128 + signo);
        }
    }
    meta
}

/// Assemble the profile from the collector's data (and the timing model's,
/// with `--core`) and the symbol table.
fn build_profile(
    meta: Meta,
    data: &ExactData,
    timing: Option<&Timing>,
    program: &fwprof_symbols::Program,
) -> Profile {
    let events: Vec<String> = match timing {
        None => vec![EVENT_INSTRUCTIONS.to_string()],
        Some(_) => fwprof_timing::EVENTS
            .iter()
            .map(|e| e.to_string())
            .collect(),
    };
    let n = events.len();
    let x = data.extra;
    let mut functions = function_records(program, data.map.added());
    for (i, f) in functions.iter_mut().enumerate() {
        let stats = data.functions.get(i).copied().unwrap_or_default();
        f.calls = stats.calls;
        f.inclusive = vec![0; n];
        f.inclusive[0] = stats.inclusive;
        if x > 0 && n > 1 {
            if let Some(extra) = data.functions_extra.get(i * x..i * x + x) {
                f.inclusive[1..].copy_from_slice(&extra[..n - 1]);
            }
        }
        f.self_cost = vec![0; n];
    }
    let mut costs = fwprof_profile::AddressCosts::new(n);
    // The model's per-address costs are sorted by address, like the sites.
    let mut timed = timing.map(|t| t.0.iter().peekable());
    for s in &data.sites {
        let mut cost = vec![0; n];
        cost[0] = s.count;
        if let Some(it) = timed.as_mut() {
            while it.next_if(|(pc, _)| *pc < s.addr).is_some() {}
            if let Some((_, c)) = it.next_if(|(pc, _)| *pc == s.addr) {
                cost[1..].copy_from_slice(&c[1..n]);
            }
        }
        let f = &mut functions[s.function as usize];
        for (a, b) in f.self_cost.iter_mut().zip(&cost) {
            *a += b;
        }
        // Sites are sorted and unique, so push cannot fail.
        let _ = costs.push(AddressCost {
            addr: s.addr,
            function: FunctionId(s.function),
            len: s.len,
            raw: s.raw,
            cost,
        });
    }
    for f in functions.iter_mut() {
        if f.self_cost[0] > 0 || f.inclusive[0] > 0 {
            if let Ok(Some(loc)) = program.lines(f.start) {
                f.file = loc.file;
                f.line = loc.line;
            }
        }
    }
    let arcs = data
        .arcs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut inclusive = vec![0; n];
            inclusive[0] = a.inclusive;
            if x > 0 && n > 1 {
                if let Some(extra) = data.arcs_extra.get(i * x..i * x + x) {
                    inclusive[1..].copy_from_slice(&extra[..n - 1]);
                }
            }
            Arc {
                caller: a.caller.map(FunctionId),
                callee: FunctionId(a.callee),
                call_site: a.call_site,
                calls: a.calls,
                tail: a.tail,
                inclusive,
            }
        })
        .collect();
    let traps = data
        .traps
        .iter()
        .map(|t| TrapRecord {
            cause: t.cause,
            pc: t.pc,
            count: t.count,
        })
        .collect();
    let mut totals = vec![0; n];
    totals[0] = data.total;
    if let Some((_, t)) = timing {
        totals[1..].copy_from_slice(&t[1..n]);
    }
    let contexts = data
        .contexts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut self_cost = vec![0; n];
            self_cost[0] = c.self_cost;
            if x > 0 && n > 1 {
                if let Some(extra) = data.contexts_extra.get(i * x..i * x + x) {
                    self_cost[1..].copy_from_slice(&extra[..n - 1]);
                }
            }
            ContextRecord {
                parent: c.parent,
                function: FunctionId(c.function),
                calls: c.calls,
                self_cost,
            }
        })
        .collect();
    Profile {
        contexts,
        meta,
        events,
        functions,
        costs,
        arcs,
        traps,
        totals,
        samples: Vec::new(),
        instrumented: Vec::new(),
    }
}

/// `fwprof report`; `color`: colour the text report (see
/// [`crate::report_cmd::use_color`]).
pub fn report(a: &cli::ReportArgs, color: bool) -> Result<u8> {
    let profile = crate::files::read_profile(&a.file)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    crate::report_cmd::write_styled(&profile, a, color, &mut w)?;
    Ok(0)
}

/// `fwprof annotate`.
pub fn annotate(a: &cli::AnnotateArgs) -> Result<u8> {
    let profile = crate::files::read_profile(&a.file)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    crate::report_cmd::annotate(&profile, a, &mut w)?;
    Ok(0)
}
