//! Recording sessions: load a RISC-V program, run it on fwprof's simulator
//! under the collector of one profiling method, and build its
//! [`Profile`]. The `fwprof record` and `fwprof run` commands are thin
//! wrappers around [`Session`] and [`run`]; so is any other program that
//! records without spawning `fwprof`.
//!
//! A session is made in two steps so that a caller can report between
//! them: [`Session::new`] reads and checks everything (options, core
//! model, program, symbols, call-frame information, instrumentation
//! hooks) and runs nothing; [`Session::run`] runs the program to its end,
//! its instruction limit or a stop request and returns a [`Ran`], whose
//! [`Ran::end`] says how the run ended and whose [`Ran::into_profile`]
//! builds the profile — also of an interrupted or failed run, marked
//! partial.
//!
//! ```no_run
//! use fwprof_record::{Control, ExecOptions, Method, RecordOptions, Session};
//! let opts = RecordOptions {
//!     exec: ExecOptions::new("examples/crc32/crc32.rv64-linux.elf"),
//!     method: Method::Exact,
//!     core: None,
//!     save_env: false,
//!     symbols: Vec::new(),
//!     task_hint: None,
//! };
//! let ran = Session::new(opts)?.run(&Control::unattended())?;
//! let profile = ran.into_profile()?.profile;
//! assert_eq!(profile.events[0], "instructions");
//! # Ok::<(), fwprof_record::Error>(())
//! ```
//!
//! One run loop serves every method (`Launched::run` in `session.rs`):
//! the simulator runs in [`SLICE`]-instruction pieces (the progress
//! counter moves between them) and pauses where the method's pacer asks
//! (the sampler's sampling points). Each method is one monomorphised
//! hooks configuration, chosen once: exact counting (with a core model, on
//! a second thread beside the simulator), sampling (with a core model, a
//! clock that can stop the run), instrumentation.
#![deny(missing_docs)]

mod counters;
mod end;
mod error;
mod exact;
mod instrument;
mod meta;
mod options;
mod sample;
mod session;
mod symbol_files;
mod trap_sections;

use std::time::{SystemTime, UNIX_EPOCH};

use fwprof_collect::InstrumentData;
use fwprof_profile::Profile;
use fwprof_symbols::Program;
use fwprof_timing::CoreConfig;
use fwprof_unwind::Unwinder;

pub use counters::DEFAULT_COUNTERS;
pub use error::Error;
pub use fwprof_os::{parse_ram, parse_size};
pub use instrument::wildcard_match;
pub use meta::BOOT_CODE_NAME;
pub use options::{
    default_max_memory, guest_env, CountersOptions, ExecOptions, InstrumentOptions, Method,
    RecordOptions, RegionMode, SampleOptions, Unit,
};
pub use session::{run, Control, RunEnd, SLICE};
pub use symbol_files::SymbolFile;

use session::Prepared;
use symbol_files::Symbols;

/// A recording, checked and ready to run.
pub struct Session {
    opts: RecordOptions,
    core: Option<CoreConfig>,
    prepared: Prepared,
    symbols: Symbols,
    plan: Plan,
}

/// What each method prepares before the run.
enum Plan {
    Exact,
    Sample(Box<Unwinder>),
    Instrument(instrument::Plan),
    Counters(counters::Plan),
}

impl Session {
    /// Check the options, load the core model, read and check the program,
    /// its symbols and what the method needs of it (call-frame information
    /// for sampling, the hook symbols for instrumentation). Nothing runs.
    ///
    /// # Errors
    /// [`Error::Options`] for options that cannot work together (`Cycles`
    /// without a core model, a sampling period of 0, an empty exclusion
    /// pattern, a machine option for a Linux program, a method or core
    /// model with several harts) and for a `--load`
    /// file that cannot be read or is not Intel HEX; [`Error::Core`] for a bad core description;
    /// [`Error::ReadProgram`], [`Error::Load`], [`Error::NoSuchDirectory`]
    /// for the program and sandbox; [`Error::CoreXlen`] for a core of the
    /// other XLEN; [`Error::Symbols`], [`Error::CallFrames`],
    /// [`Error::NoHooks`].
    pub fn new(opts: RecordOptions) -> Result<Session, Error> {
        match &opts.method {
            Method::Exact => {}
            Method::Sample(s) => {
                if s.unit == Unit::Cycles && opts.core.is_none() {
                    return Err(Error::Options(
                        "--unit cycles needs --core (the cycles come from a core model)".into(),
                    ));
                }
                if s.period == 0 {
                    return Err(Error::Options("--period must be at least 1".into()));
                }
                if s.count_in.is_some() && s.unit == Unit::Cycles {
                    return Err(Error::Options(
                        "--count-in counts instructions per privilege level: it needs --unit instructions".into(),
                    ));
                }
                if s.count_in == Some(0) {
                    return Err(Error::Options("--count-in needs at least one level".into()));
                }
            }
            Method::Instrument(i) => {
                if i.unit == Unit::Cycles && opts.core.is_none() {
                    return Err(Error::Options(
                        "--unit cycles needs --core (durations in the timing model's cycles)"
                            .into(),
                    ));
                }
                if i.exclude.iter().any(String::is_empty) {
                    return Err(Error::Options("--exclude: empty pattern".into()));
                }
            }
            Method::Counters(_) => {}
        }
        // Several harts: exact counts, split per hart. A core model's
        // pipeline, caches and predictors, the sampler's pacing and the
        // instrumentation's activation stacks are one per run so far.
        if opts.exec.harts > 1 {
            let what = match (&opts.method, &opts.core) {
                (Method::Sample(_), _) => Some("--method sample"),
                (Method::Instrument(_), _) => Some("--method instrument"),
                (Method::Counters(_), _) => Some("--method counters"),
                (Method::Exact, Some(_)) => Some("--core"),
                (Method::Exact, None) => None,
            };
            if let Some(what) = what {
                return Err(Error::Options(format!(
                    "{what} with --harts {}: a run on several harts is recorded with --method exact and no core model (docs/concurrency.md)",
                    opts.exec.harts
                )));
            }
        }
        if let Some(h) = &opts.task_hint {
            if !matches!(opts.method, Method::Exact) || opts.exec.harts > 1 {
                return Err(Error::Options(format!(
                    "--task-hint {h}: tasks are told apart by --method exact on one hart (docs/concurrency.md)"
                )));
            }
        }
        // A bad core description stops here: nothing runs.
        let mut core = opts.core.as_deref().map(CoreConfig::load).transpose()?;
        let mut prepared = Prepared::new(&opts.exec)?;
        if let Some(core) = &mut core {
            core.add_machine_regions(&session::board_wait_states(&opts.exec.board));
        }
        if let Some(core) = &core {
            prepared.check_core(core)?;
            prepared.pmu = Some(core.pmu.guest(&core.pipeline.latency));
        }
        let path = &opts.exec.program;
        let program = Program::open(path).map_err(|source| Error::Symbols {
            path: path.clone(),
            source,
        })?;
        let plan = match &opts.method {
            Method::Exact => Plan::Exact,
            Method::Sample(_) => Plan::Sample(Box::new(
                Unwinder::from_elf(&prepared.elf).map_err(|source| Error::CallFrames {
                    path: path.clone(),
                    source,
                })?,
            )),
            Method::Instrument(i) => Plan::Instrument(instrument::Plan::new(i, &program, path)?),
            // Resolved below, once the symbols are read.
            Method::Counters(_) => Plan::Exact,
        };
        if let Some(h) = &opts.task_hint {
            if !prepared.bare_metal() {
                return Err(Error::Options(format!(
                    "--task-hint {h}: {} is a Linux program; tasks are told apart in bare-metal programs (a Linux program's threads are followed by themselves)",
                    path.display()
                )));
            }
            if !program.symbols().iter().any(|s| &s.name == h) {
                return Err(Error::Options(format!(
                    "--task-hint {h}: {} has no symbol named {h}",
                    path.display()
                )));
            }
        }
        let mut symbols = Symbols::new(program, &opts.symbols)?;
        if prepared.bare_metal() {
            symbols = symbols.with_images(opts.exec.bios.as_deref())?;
        }
        let plan = match &opts.method {
            Method::Counters(c) => {
                let limited = opts.exec.max_instructions.is_some();
                Plan::Counters(counters::Plan::new(c, core.as_ref(), &symbols, limited)?)
            }
            _ => plan,
        };
        Ok(Session {
            opts,
            core,
            prepared,
            symbols,
            plan,
        })
    }

    /// Warnings about the program found before the run (the unwinder's
    /// about its call-frame information), to show the user; they are also
    /// stored in the profile.
    pub fn warnings(&self) -> &[String] {
        match &self.plan {
            Plan::Sample(u) => u.warnings(),
            _ => &[],
        }
    }

    /// Run the program under the method's collector until it exits, is
    /// killed, reaches the instruction limit, `ctl.stop` is set, or the
    /// simulator fails (then [`RunEnd::error`] says why).
    ///
    /// # Errors
    /// [`Error::Load`] when the loader refuses the program.
    pub fn run(mut self, ctl: &Control) -> Result<Ran, Error> {
        let start_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let map = self.symbols.function_map();
        let p = &self.prepared;
        let core = self.core.clone();
        let (end, data) = match (self.opts.method.clone(), self.plan) {
            (Method::Sample(o), Plan::Sample(unwinder)) => {
                let (end, agg, unwinder) = sample::run(p, ctl, &o, *unwinder, map, core)?;
                (end, Data::Sample(o, Box::new(agg), Box::new(unwinder)))
            }
            (Method::Instrument(o), Plan::Instrument(plan)) => {
                let tasks = p.bare_metal() && self.opts.exec.harts == 1;
                let (end, d, cycles) = instrument::run(p, ctl, &o, &plan, map, core, tasks)?;
                (end, Data::Instrument(o, Box::new(d), plan.matched, cycles))
            }
            (Method::Counters(o), Plan::Counters(mut plan)) => {
                let (end, reference) = match plan.take_call_graph() {
                    // Cyclic (`--safe-stop`) with a given call graph: the
                    // one rotating run also counts the totals.
                    Some(given) if o.safe_stop.is_some() => (None, given),
                    // The call-graph run: every call, and the global counts.
                    None => {
                        let (end, exact) = exact::run(p, ctl, map, core.clone(), None)?;
                        let meta0 = meta::base_meta(
                            &self.opts,
                            p,
                            &self.symbols.main,
                            &end,
                            ctl,
                            start_time,
                            core.as_ref().map(|c| c.name.clone()),
                        );
                        let latency = core.is_some() && p.icount_shift.is_none();
                        let reference = exact::profile(meta0, &exact, &self.symbols, latency);
                        (Some(end), reference)
                    }
                    // The call graph of `--call-graph FILE`; a run for the
                    // global counts.
                    Some(given) => {
                        let (end, reference) =
                            counters::global_run(p, ctl, &plan, core.as_ref(), given)?;
                        (Some(end), reference)
                    }
                };
                let stopped_by = (ctl.stopped_by)();
                let first_end = end
                    .as_ref()
                    .map(|e| e.describe(&stopped_by).unwrap_or_default());
                let (d, last) =
                    counters::run(p, ctl, &o, plan, core.as_ref(), reference, first_end)?;
                // Without a first run, the rotating run's end is the run's.
                let end = match (end, last) {
                    (Some(end), _) => end,
                    (None, Some(last)) => last,
                    (None, None) => unreachable!("a cyclic run without a first run makes its run"),
                };
                (end, Data::Counters(o, Box::new(d)))
            }
            // `Session::new` makes the plan of the method.
            _ => {
                // An operating system's tasks, on one hart of a bare-metal
                // machine (a Linux program's threads are the simulator's own).
                let tasks = (p.bare_metal() && self.opts.exec.harts == 1).then(|| {
                    let hint = self.opts.task_hint.as_ref();
                    let addr = hint.and_then(|h| {
                        let syms = self.symbols.main.symbols();
                        syms.iter().find(|s| &s.name == h).map(|s| s.address)
                    });
                    (addr, hint.cloned())
                });
                let (end, exact) = exact::run(p, ctl, map, core, tasks)?;
                (end, Data::Exact(Box::new(exact)))
            }
        };
        // Latency is in cycles only when the core model drove guest time.
        let latency_cycles = self.core.is_some() && p.icount_shift.is_none();
        let mut meta = meta::base_meta(
            &self.opts,
            p,
            &self.symbols.main,
            &end,
            ctl,
            start_time,
            self.core.map(|c| c.name),
        );
        meta.warnings.extend(end.unmodelled_report.clone());
        if end.thread_ids.len() > 1 && matches!(data, Data::Instrument(..)) {
            // One activation stack for the run: the threads' entries and
            // exits interleave on it.
            meta.warnings.push(format!(
                "the program ran {} threads: the instrumentation keeps one activation stack for the process, on which the threads' calls interleave, so its calls and durations are not reliable; record --method exact gives each thread its own (docs/concurrency.md)",
                end.thread_ids.len()
            ));
        }
        Ok(Ran {
            end,
            meta,
            data,
            latency_cycles,
            path: self.opts.exec.program,
            symbols: self.symbols,
        })
    }
}

/// What a method's collector gathered, with the method's options.
enum Data {
    Exact(Box<exact::Exact>),
    Sample(
        SampleOptions,
        Box<fwprof_collect::sample::SampleData>,
        Box<Unwinder>,
    ),
    /// The data, which `--exclude` patterns matched, whether cycles were
    /// measured.
    Instrument(InstrumentOptions, Box<InstrumentData>, Vec<bool>, bool),
    /// The call-graph run and the measurement runs.
    Counters(CountersOptions, Box<counters::CountersData>),
}

/// A finished run, before its profile is built.
pub struct Ran {
    end: RunEnd,
    meta: fwprof_profile::Meta,
    data: Data,
    /// Interrupt latency can be given in cycles: a core model drove guest
    /// time (`--core` without `--icount-shift`).
    latency_cycles: bool,
    path: std::path::PathBuf,
    symbols: Symbols,
}

/// A recorded profile and how its run ended.
#[derive(Debug)]
pub struct Recording {
    /// The profile, marked partial unless the program exited.
    pub profile: Profile,
    /// How the run ended.
    pub end: RunEnd,
}

impl Ran {
    /// How the run ended.
    pub fn end(&self) -> &RunEnd {
        &self.end
    }

    /// The profile of the run, marked partial if the run did not end by
    /// the program's exit, with the method's own metadata and warnings.
    ///
    /// # Errors
    /// An instrumented run that never called its hooks:
    /// [`Error::Simulation`] if the simulator failed first, else
    /// [`Error::HooksNeverCalled`].
    pub fn into_profile(self) -> Result<Recording, Error> {
        let program = &self.symbols;
        let profile = match self.data {
            Data::Exact(run) => exact::profile(self.meta, &run, program, self.latency_cycles),
            Data::Sample(o, agg, unwinder) => {
                let with_core = self.meta.core.is_some();
                let cycles = self.latency_cycles;
                sample::profile(self.meta, &o, with_core, cycles, *agg, &unwinder, program)
            }
            Data::Instrument(o, d, matched, cycles) => {
                if d.kind.is_none() {
                    return Err(match self.end.error {
                        Some(e) => Error::Simulation(e),
                        None => Error::HooksNeverCalled { path: self.path },
                    });
                }
                instrument::profile(
                    self.meta,
                    &o,
                    &matched,
                    &d,
                    cycles,
                    self.latency_cycles,
                    program,
                )
            }
            Data::Counters(o, d) => counters::profile(self.meta, &o, *d, program),
        };
        Ok(Recording {
            profile,
            end: self.end,
        })
    }
}
