//! A recording session: the program read and checked once, the run
//! configuration, and the one run loop every method uses.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use fwprof_os::{LoadedProgram, OutputHook, RunConfig, Sandbox, StackLayout, Target};
use fwprof_sim::{Hooks, Memory, SimError, Simulator, StopReason};
use fwprof_timing::CoreConfig;

use crate::options::{default_max_memory, ExecOptions};
use crate::Error;

/// The run is cut into slices of this many instructions so that the
/// progress counter moves (`Simulator::run` stops exactly at its limit and
/// the next call resumes there: the result is the same as one long run):
/// about 10 to 50 ms of simulation in a release build, so that a progress
/// line redrawn a few times a second is current, while the cost of leaving
/// and re-entering the run loop is negligible.
pub const SLICE: u64 = 1 << 22;

/// How the caller steers and watches a run.
#[derive(Clone)]
pub struct Control<'a> {
    /// Set (e.g. by a signal handler) to stop the run cleanly at the next
    /// block boundary; the profile of what ran is still built.
    pub stop: Arc<AtomicBool>,
    /// What set `stop`, for the profile's `partial` field (e.g.
    /// `signal SIGINT`).
    pub stopped_by: fn() -> String,
    /// Receives the executed-instruction count after every slice.
    pub progress: Option<&'a AtomicU64>,
    /// Runs before the guest writes to the terminal (to clear a progress line).
    pub before_output: Option<OutputHook>,
}

impl Control<'_> {
    /// A control that never stops the run and reports nothing.
    pub fn unattended() -> Control<'static> {
        Control {
            stop: Arc::new(AtomicBool::new(false)),
            stopped_by: || "interrupted".to_string(),
            progress: None,
            before_output: None,
        }
    }
}

/// How a run ended.
#[derive(Debug)]
pub struct RunEnd {
    /// Why the simulator stopped ([`StopReason::Interrupted`] also stands
    /// for [`RunEnd::error`]).
    pub stop: StopReason,
    /// The simulator's own error (a `wfi` that could never end, an
    /// environment failure), if it stopped the run.
    pub error: Option<SimError>,
    /// Instructions executed.
    pub executed: u64,
    /// Guest time asleep, in nanoseconds (`Meta::sleep_ns`).
    pub sleep_ns: u64,
    /// The target the program ran on.
    pub target: Target,
    /// True for an RV64 program.
    pub rv64: bool,
    /// For a Linux guest killed by a load or store just below its stack:
    /// `stack overflow: store at 0x… below the stack (limit N bytes)`.
    pub stack_overflow: Option<String>,
    /// For a bare-metal run stopped by a load or store access fault with no
    /// handler: why nothing answered at the address, from the machine's
    /// description (`fwprof_os::Board::explain_unmapped`), e.g. `no device
    /// at 0x10000005; this program may need --machine virt`; for one
    /// stopped by the instruction limit or the user after such faults went
    /// to its handler: how many and the first.
    pub unmapped: Option<String>,
    /// On a board whose unmodelled addresses are `ignore`: each such
    /// physical address the program touched, in address order, with its
    /// load and store counts.
    pub unmodelled: Vec<(u64, fwprof_sim::UnmodelledCount)>,
    /// [`RunEnd::unmodelled`] in one line, with the board's peripheral
    /// names (`fwprof_os::Board::describe_unmodelled`): `unmodelled device
    /// accesses: 0x10013000 (UART0) write 12x; …`; `None` when empty.
    pub unmodelled_report: Option<String>,
    /// For a bare-metal run stopped by the instruction limit or the user:
    /// an interrupt the hart seemed to wait for in vain
    /// (`Simulator::interrupt_diagnosis`).
    pub waiting: Option<String>,
    /// Per hart (by `mhartid`), the instructions it executed; one entry on
    /// a machine with one hart.
    pub hart_executed: Vec<u64>,
    /// The hart that ran last (the one a collector's open activations
    /// belong to: close them at its count, `hart_executed[running_hart]`).
    pub running_hart: u32,
    /// Times the run passed from one hart to another.
    pub hart_switches: u64,
    /// Instructions per hart's turn (`--quantum`).
    pub quantum: u64,
    /// A Linux process's thread ids (`gettid`) by thread number, in
    /// order of creation (there `hart_executed` is per thread); empty on
    /// bare metal.
    pub thread_ids: Vec<i64>,
    /// The execution tier and its threshold (`--tier`, `--jit-threshold`).
    pub tier: (fwprof_sim::Tier, u32),
    /// What the translation tier did.
    pub jit: fwprof_sim::JitStats,
}

impl RunEnd {
    /// Instructions executed by the hart that ran last (all of them on a
    /// machine with one hart): the count to close a collector's open
    /// activations at.
    pub fn running_executed(&self) -> u64 {
        self.hart_executed
            .get(self.running_hart as usize)
            .copied()
            .unwrap_or(self.executed)
    }
}

/// The program and its run configuration, read and checked once.
pub(crate) struct Prepared {
    /// The run configuration handed to `fwprof_os::load`.
    pub(crate) cfg: RunConfig,
    /// The ELF file's contents.
    pub(crate) elf: Vec<u8>,
    /// What the loader's checks learned of it (`fwprof_os::inspect`).
    pub(crate) summary: fwprof_os::ElfSummary,
    /// The guest memory limit in bytes.
    pub(crate) max_memory: u64,
    /// Stop after this many executed instructions.
    pub(crate) limit: u64,
    /// `--icount-shift`.
    pub(crate) icount_shift: Option<u32>,
    /// `--quantum`.
    pub(crate) quantum: Option<u64>,
    /// `--tier`, `--jit-threshold`.
    pub(crate) tier: (fwprof_sim::Tier, u32),
    /// The guest's performance counters: the `--core`'s `[pmu]` (None:
    /// QEMU 7.2's).
    pub(crate) pmu: Option<fwprof_sim::PmuConfig>,
}

impl Prepared {
    /// Read the program, check it as the loader will, and build the run
    /// configuration (sandbox, environment, target, RAM).
    ///
    /// # Errors
    /// An unreadable program or one the loader refuses, a sandbox
    /// directory that does not exist, a machine option (`--machine`,
    /// `--board`, `--bios`, `--append`, `--load`) for a Linux program, a
    /// `--load` file that cannot be read or parsed.
    pub(crate) fn new(a: &ExecOptions) -> Result<Prepared, Error> {
        let elf = std::fs::read(&a.program).map_err(|source| Error::ReadProgram {
            path: a.program.clone(),
            source,
        })?;
        // The loader's checks first, so that every command describes a bad
        // program in the same words, whatever it reads of it next.
        let summary = fwprof_os::inspect(&elf).map_err(|source| Error::Load {
            path: a.program.clone(),
            source,
        })?;
        let cwd = std::env::current_dir().map_err(Error::CurrentDir)?;
        let canon = |dirs: &[PathBuf], option: &'static str| -> Result<Vec<PathBuf>, Error> {
            dirs.iter()
                .map(|d| {
                    d.canonicalize().map_err(|source| Error::NoSuchDirectory {
                        option,
                        dir: d.clone(),
                        source,
                    })
                })
                .collect()
        };
        let mut read = canon(&a.allow_read, "--allow-read")?;
        if read.is_empty() {
            read.push(cwd.canonicalize().unwrap_or(cwd));
        }
        let write = canon(&a.allow_write, "--allow-write")?;
        let firmware = match &a.bios {
            None => None,
            Some(path) => Some(fwprof_os::Firmware {
                path: path.clone(),
                elf: std::fs::read(path).map_err(|source| Error::ReadProgram {
                    path: path.clone(),
                    source,
                })?,
            }),
        };
        let bare = a.target.unwrap_or(summary.target) == Target::BareMetal;
        let machine_options = a.board != fwprof_os::Board::bare()
            || firmware.is_some()
            || a.append.is_some()
            || !a.load.is_empty()
            || a.harts != 1;
        if !bare && machine_options {
            return Err(Error::Options(format!(
                "{} is a Linux program: --machine, --board, --bios, --append, --load and --harts apply to bare-metal programs",
                a.program.display()
            )));
        }
        if !(1..=fwprof_os::MAX_HARTS).contains(&a.harts) {
            return Err(Error::Options(format!(
                "--harts {}: a machine has 1 to {} harts",
                a.harts,
                fwprof_os::MAX_HARTS
            )));
        }
        if a.quantum == Some(0) {
            return Err(Error::Options(
                "--quantum 0: a hart's turn must be at least 1 instruction".to_string(),
            ));
        }
        let loads = a
            .load
            .iter()
            .map(|spec| fwprof_os::LoadImage::read(spec).map_err(|e| Error::Options(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let cfg = RunConfig {
            program: a.program.clone(),
            args: a.args.clone(),
            env: a.env.clone(),
            target: a.target,
            ram: a.ram,
            sandbox: Sandbox { read, write },
            machine: fwprof_os::MachineConfig {
                board: a.board.clone(),
                firmware,
                bootargs: a.append.clone(),
                loads,
                kernel_entry: a.kernel_entry,
                harts: a.harts,
            },
        };
        Ok(Prepared {
            cfg,
            elf,
            summary,
            max_memory: a.max_memory.unwrap_or_else(default_max_memory),
            limit: a.max_instructions.unwrap_or(u64::MAX),
            icount_shift: a.icount_shift,
            quantum: a.quantum,
            tier: (a.tier, a.jit_threshold),
            pmu: None,
        })
    }

    /// True if the program runs on bare metal (forced or detected).
    pub(crate) fn bare_metal(&self) -> bool {
        self.cfg.target.unwrap_or(self.summary.target) == Target::BareMetal
    }

    /// Refuse a core model that cannot run this program: an RV32 core
    /// (`xlen = 32`, the `picorv32` and `ibex` presets) and an RV64
    /// program, or the reverse.
    pub(crate) fn check_core(&self, core: &CoreConfig) -> Result<(), Error> {
        let program_xlen = if self.summary.rv64 { 64 } else { 32 };
        match core.xlen {
            Some(x) if x != program_xlen => Err(Error::CoreXlen {
                core: core.name.clone(),
                core_xlen: x,
                program: self.cfg.program.clone(),
                program_xlen,
            }),
            _ => Ok(()),
        }
    }

    /// Load the program into fresh guest memory (bounded by the memory
    /// limit) and start a simulator whose hooks `make_hooks` builds.
    pub(crate) fn launch<H: Hooks>(
        &self,
        ctl: &Control,
        make_hooks: impl FnOnce(&LoadedProgram) -> H,
    ) -> Result<Launched<H>, Error> {
        let mut mem = Memory::with_limit(self.max_memory);
        let (prog, mut env) =
            fwprof_os::load(&self.elf, &self.cfg, &mut mem).map_err(|source| Error::Load {
                path: self.cfg.program.clone(),
                source,
            })?;
        if let Some(hook) = &ctl.before_output {
            env.set_before_output(hook.clone());
        }
        let hooks = make_hooks(&prog);
        let stack = env.stack_layout().cloned();
        let mut sim = Simulator::new(mem, &prog, env, hooks);
        if let Some(shift) = self.icount_shift {
            sim.set_icount_shift(shift);
        }
        if let Some(q) = self.quantum {
            sim.set_quantum(q);
        }
        sim.set_tier(self.tier.0, self.tier.1);
        sim.set_pmu(self.pmu);
        Ok(Launched {
            sim,
            target: prog.target,
            rv64: prog.rv64,
            stack,
            limit: self.limit,
            tier: self.tier,
        })
    }
}

/// The wait states of a board's memory regions for the timing model
/// (`fwprof_timing::CoreConfig::add_machine_regions`): the regions with
/// wait states, cached (docs/boards.md, "Wait states").
pub(crate) fn board_wait_states(board: &fwprof_os::Board) -> Vec<fwprof_timing::MemoryRegion> {
    board
        .memory
        .iter()
        .filter(|r| r.wait_states > 0)
        .map(|r| fwprof_timing::MemoryRegion {
            name: r.name.clone(),
            base: r.base,
            size: r.size,
            wait_states: r.wait_states,
            uncached: false,
        })
        .collect()
}

/// Where the run loop pauses besides the slice ends, and what happens at
/// each pause (the sampler takes its samples there).
pub(crate) trait Pacer<H: Hooks> {
    /// The executed-instruction count at which the run must pause next.
    fn pause_at(&self) -> u64 {
        u64::MAX
    }
    /// The run paused with `stop` (it goes on if `stop` is
    /// [`StopReason::InstructionLimit`] below the instruction limit).
    fn on_pause(&mut self, _sim: &mut Simulator<H>, _stop: &StopReason) {}
}

/// No pauses: exact counting and instrumentation.
pub(crate) struct Steady;

impl<H: Hooks> Pacer<H> for Steady {}

/// A loaded program and its simulator, ready to run.
pub(crate) struct Launched<H: Hooks> {
    pub(crate) sim: Simulator<H>,
    target: Target,
    rv64: bool,
    stack: Option<StackLayout>,
    limit: u64,
    tier: (fwprof_sim::Tier, u32),
}

impl<H: Hooks> Launched<H> {
    /// The run loop: run to the end, the instruction limit, the stop flag
    /// or an error, in [`SLICE`]s and at the pacer's pauses; returns how
    /// the run ended and the hooks.
    pub(crate) fn run(mut self, ctl: &Control, pacer: &mut impl Pacer<H>) -> (RunEnd, H) {
        let limit = self.limit;
        let mut error = None;
        let stop = loop {
            let executed = self.sim.executed();
            let slice_end = limit
                .min(pacer.pause_at())
                .min(executed.saturating_add(SLICE));
            let stop = match self.sim.run(slice_end, &ctl.stop) {
                Ok(stop) => stop,
                Err(e) => {
                    error = Some(e);
                    break StopReason::Interrupted;
                }
            };
            if let Some(counter) = ctl.progress {
                counter.store(self.sim.executed(), Ordering::Relaxed);
            }
            pacer.on_pause(&mut self.sim, &stop);
            match stop {
                StopReason::InstructionLimit if self.sim.executed() < limit => {}
                stop => break stop,
            }
        };
        let stack_overflow = stack_overflow(&stop, self.stack.as_ref());
        let waiting = match stop {
            StopReason::InstructionLimit | StopReason::Interrupted if error.is_none() => {
                self.sim.interrupt_diagnosis()
            }
            _ => None,
        };
        let board = self.sim.board();
        let unmapped = match stop {
            StopReason::Fault {
                cause: 5 | 7,
                tval,
                looping: false,
                ..
            } => board.and_then(|b| b.explain_unmapped(tval)),
            // A handler that faults again and again (it prints through
            // the missing device) ends in a loop or never stops by itself.
            StopReason::InstructionLimit | StopReason::Interrupted | StopReason::Fault { .. } => self
                .sim
                .unmapped_faults()
                .and_then(|(addr, n)| Some((board?.explain_unmapped(addr)?, n)))
                .map(|(why, n)| {
                    format!("the program took {n} access faults where no device answers, the first: {why}")
                }),
            _ => None,
        };
        let unmodelled = self.sim.unmodelled_accesses();
        let unmodelled_report = self.sim.board().and_then(|b| {
            let counts: Vec<(u64, u64, u64)> = unmodelled
                .iter()
                .map(|(a, c)| (*a, c.reads, c.writes))
                .collect();
            b.describe_unmodelled(&counts)
        });
        let end = RunEnd {
            unmapped,
            unmodelled,
            unmodelled_report,
            executed: self.sim.executed(),
            sleep_ns: self.sim.idle_ns(),
            hart_executed: self.sim.harts().map(|h| h.executed()).collect(),
            running_hart: self.sim.hart().id(),
            hart_switches: self.sim.hart_switches(),
            quantum: self.sim.quantum(),
            thread_ids: self
                .sim
                .environment()
                .map(|e| e.thread_ids())
                .unwrap_or_default(),
            tier: self.tier,
            jit: self.sim.jit_stats(),
            stop,
            error,
            target: self.target,
            rv64: self.rv64,
            stack_overflow,
            waiting,
        };
        (end, self.sim.into_hooks())
    }
}

/// For a Linux guest killed by a load or store just below its stack (see
/// [`fwprof_os::StackLayout::overflow_at`]): `stack overflow: store at
/// 0x… below the stack (limit N bytes)`, N being the stack size
/// (`RLIMIT_STACK`, as QEMU). `None` for any other stop.
fn stack_overflow(stop: &StopReason, stack: Option<&StackLayout>) -> Option<String> {
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

/// `fwprof run`: run the program with no profiling.
///
/// # Errors
/// As [`crate::Session::new`] for the program, and
/// [`Error::Simulation`] when the simulator stops on an error of its own.
pub fn run(exec: &ExecOptions, ctl: &Control) -> Result<RunEnd, Error> {
    let p = Prepared::new(exec)?;
    let (end, ()) = p.launch(ctl, |_| ())?.run(ctl, &mut Steady);
    match end.error {
        Some(e) => Err(Error::Simulation(e)),
        None => Ok(end),
    }
}
