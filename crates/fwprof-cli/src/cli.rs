//! Command-line definition (clap), converted at the edge into plain option
//! structs for the rest of the program.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// fwprof: exact profiles of RISC-V programs on fwprof's own simulator.
#[derive(Parser, Debug)]
#[command(name = "fwprof", version, about, long_about = None)]
pub struct Cli {
    /// Colour in terminal tables: `auto` colours a terminal unless
    /// `NO_COLOR` is set.
    #[arg(long, global = true, value_enum, default_value = "auto")]
    pub color: ColorArg,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `--color` choices.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorArg {
    /// Colour when writing to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a program in the simulator without profiling.
    Run(RunArgs),
    /// Run a program and write an exact profile.
    Record(Box<RecordArgs>),
    /// Print the flat profile and call graph of a recorded profile.
    Report(ReportArgs),
    /// Print source and disassembly annotated with counts.
    Annotate(AnnotateArgs),
    /// Write a profile in another tool's format (gprof, Callgrind, pprof,
    /// flame graphs, speedscope, Graphviz).
    Export(ExportArgs),
    /// Write a self-contained HTML report.
    Html(HtmlArgs),
    /// Compare two profiles function by function.
    Diff(DiffArgs),
    /// Sum profiles of runs of the same program.
    Merge(MergeArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Hold a profile against a reference profile of the same run: errors,
    /// confidence intervals, rank agreement, a verdict.
    Compare(CompareArgs),
    /// Run the reliability suite: every profiling method on workloads
    /// built to break profilers, each method's error against the exact
    /// profile.
    Reliability(ReliabilityArgs),
}

/// `fwprof compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The reference profile (normally `--method exact`).
    #[arg(value_name = "REFERENCE")]
    pub reference: PathBuf,
    /// The profile to judge (sampled, instrumented or another exact one).
    #[arg(value_name = "OTHER")]
    pub other: PathBuf,
    /// Output format: `text` (table, rank agreement, verdict) or `json`
    /// (`fwprof-compare/1`, docs/compare.md).
    #[arg(long, value_enum, default_value = "text", hide_possible_values = true)]
    pub format: FormatArg,
    /// Event whose per-function shares are compared (default: instructions).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Number of top functions for rank agreement and top-k overlap.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
}

/// `fwprof reliability`.
#[derive(Args, Debug)]
pub struct ReliabilityArgs {
    /// Output format of the table.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
    /// Also write an SVG chart of error against parameter to this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Run only the workloads whose name contains one of these (repeatable).
    #[arg(long, value_name = "NAME")]
    pub only: Vec<String>,
    /// Fewer parameter values per workload (a quick look).
    #[arg(long)]
    pub quick: bool,
}

/// Target environment names accepted by `--target`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetArg {
    /// Bare metal with RISC-V semihosting (QEMU `virt` memory map).
    Baremetal,
    /// Linux user mode (static executables).
    Linux,
}

/// Machines accepted by `--machine`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineArg {
    /// fwprof's bare-metal machine: RAM, reset ROM, CLINT, semihosting.
    Bare,
    /// QEMU 7.2's RISC-V `virt` board (UART, PLIC, CLINT, test device, device tree).
    Virt,
}

/// Execution engines accepted by `--tier`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TierArg {
    /// The interpreter only (the reference).
    Interp,
    /// Translate blocks run more than --jit-threshold times to host code.
    Jit,
}

/// Options shared by `run` and `record`.
#[derive(Args, Debug)]
pub struct ExecArgs {
    /// Execution engine: `jit` translates blocks executed often to host
    /// code (the default, fastest), `interp` interprets everything. Both
    /// give the same results, counts and profiles.
    #[arg(long, value_enum, value_name = "TIER", default_value = "jit")]
    pub tier: TierArg,
    /// With --tier jit: how many times a block is interpreted before it is
    /// translated (0: every block is translated before it first runs). From
    /// 16 on, translation is compiled on a second thread while the
    /// interpreter goes on.
    #[arg(long, value_name = "N", default_value_t = fwprof_sim::DEFAULT_JIT_THRESHOLD)]
    pub jit_threshold: u32,
    /// Environment: bare metal or Linux user mode (default: detected from the ELF).
    #[arg(long, value_enum)]
    pub target: Option<TargetArg>,
    /// Stop after this many executed instructions (exit status 124).
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<u64>,
    /// Bare metal: guest time as QEMU's `-icount shift=N,sleep=off`, one
    /// executed instruction = 2^N ns, so timer interrupts arrive at the
    /// same instruction as under QEMU (default: 100 ns per instruction, or
    /// per modelled cycle with `--core`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=10))]
    pub icount_shift: Option<u32>,
    /// Bare metal: the machine. `bare`: RAM, the reset ROM and the CLINT,
    /// the program talks to the host through semihosting; `virt`: QEMU's
    /// `virt` board with a 16550 UART on stdin/stdout, the PLIC, the SiFive
    /// test device and a device tree in a1 (see docs/machine.md).
    #[arg(long, value_enum, value_name = "MACHINE", default_value = "bare")]
    pub machine: MachineArg,
    /// Bare metal: the machine described by a board file (docs/boards.md):
    /// its memory regions (instead of --ram), devices, the peripherals it
    /// names, and what an access to an unmodelled address does. The program
    /// is loaded at its ELF load addresses; the hart starts at the board's
    /// start address or the ELF entry.
    #[arg(
        long,
        value_name = "FILE.toml",
        conflicts_with_all = ["machine", "ram", "bios", "append"]
    )]
    pub board: Option<PathBuf>,
    /// Bare metal: write FILE into memory after the program (repeatable):
    /// a raw binary at ADDR, or, without @ADDR, an Intel HEX file whose
    /// records give the addresses. Every byte must land in the machine's
    /// memory.
    #[arg(long, value_name = "FILE[@ADDR]", value_parser = fwprof_os::LoadSpec::parse)]
    pub load: Vec<fwprof_os::LoadSpec>,
    /// Bare metal: M-mode firmware (e.g. OpenSBI's fw_jump.elf) loaded at
    /// its ELF addresses and started first; PROGRAM is then the kernel it
    /// hands over to, as QEMU's -bios FILE -kernel PROGRAM.
    #[arg(long, value_name = "FILE")]
    pub bios: Option<PathBuf>,
    /// Bare metal, with --bios: PROGRAM is a raw binary kernel placed at
    /// ADDR (where the firmware jumps: 0x80200000 for OpenSBI's RV64
    /// fw_jump, 0x80400000 for RV32), as QEMU's -kernel with a raw image;
    /// the firmware's symbols are the profile's program.
    #[arg(long, value_name = "ADDR", requires = "bios", value_parser = parse_address)]
    pub kernel_addr: Option<u64>,
    /// Bare metal: the kernel command line, the device tree's
    /// /chosen/bootargs (as QEMU's -append).
    #[arg(long, value_name = "STRING")]
    pub append: Option<String>,
    /// Bare metal: the number of harts (as QEMU's -smp N, 1 to 64). They
    /// run in turns of --quantum instructions, in a fixed order, so a run
    /// is reproducible; each has its own mhartid, registers, CSRs and timer
    /// compare (docs/concurrency.md).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub harts: u32,
    /// Bare metal, with --harts: instructions each hart runs per turn
    /// (default 1000).
    #[arg(long, value_name = "N")]
    pub quantum: Option<u64>,
    /// Bare-metal RAM as BASE:SIZE (hex or decimal; size may end in K, M or
    /// G; default 0x80000000:128M). A board file gives its own memory.
    #[arg(long, value_name = "BASE:SIZE")]
    pub ram: Option<String>,
    /// Most guest memory mapped at once, as SIZE (hex or decimal; may end
    /// in K, M or G); a guest request beyond it fails with ENOMEM (default:
    /// half of the host's available memory).
    #[arg(long, value_name = "SIZE", value_parser = fwprof_record::parse_size)]
    pub max_memory: Option<u64>,
    /// Set a guest environment variable (Linux).
    #[arg(short = 'E', value_name = "VAR=VALUE")]
    pub set_env: Vec<String>,
    /// Remove a guest environment variable (Linux).
    #[arg(short = 'U', value_name = "VAR")]
    pub unset_env: Vec<String>,
    /// Start the guest with an empty environment.
    #[arg(long)]
    pub clear_env: bool,
    /// Let the guest read files under DIR (repeatable; default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub allow_read: Vec<PathBuf>,
    /// Let the guest create and write files under DIR (repeatable; default: nowhere).
    #[arg(long, value_name = "DIR")]
    pub allow_write: Vec<PathBuf>,
    /// The RISC-V ELF program to run.
    #[arg(required = true, value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Arguments passed to the program.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<String>,
}

/// `fwprof run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Execution options and the program.
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// `fwprof record`.
#[derive(Args, Debug)]
pub struct RecordArgs {
    /// Output profile file (never `-`: standard output carries the
    /// program's own output). Written atomically; a symbolic link's
    /// target is replaced; a device or FIFO is written in place; the
    /// program itself or the `--core` file is refused.
    #[arg(
        short = 'o',
        long = "output",
        default_value = "fwprof.data",
        value_name = "FILE"
    )]
    pub output: PathBuf,
    /// Model a core's timing: a preset (`picorv32`, `ibex`, `generic`,
    /// `arc-hs`) or a
    /// core description file (docs/core-format.md). Records cycles, cache,
    /// branch and stall events beside instructions; `cycle`/`mcycle` then
    /// read modelled cycles.
    #[arg(long = "core", value_name = "NAME|FILE.toml")]
    pub core: Option<String>,
    /// How to profile: `exact` (every instruction), `sample` (periodic pc
    /// and stack samples, unwound from the guest's registers and memory as
    /// a profiler on hardware must), `instrument` (the program's
    /// `-finstrument-functions` or `-pg` hooks) or `counters` (emulated
    /// hardware counters driven from outside, one run per subset of
    /// functions or descent step; docs/counters.md).
    #[arg(long, value_enum, default_value = "exact")]
    pub method: MethodArg,
    /// sample: mean number of `--unit`s between samples.
    #[arg(long, value_name = "N", default_value_t = 10007)]
    pub period: u64,
    /// sample: what the period counts; instrument: what durations count
    /// (`cycles` needs `--core`).
    #[arg(long, value_enum, default_value = "instructions")]
    pub unit: UnitArg,
    /// sample: count the period in instructions retired at these privilege
    /// levels only (M, S, U; comma-separated), as perf's `:u`/`:k` event
    /// modifiers or a counter's Sscofpmf inhibit bits (MINH, SINH, UINH)
    /// do; the profile's unit reads e.g. `instructions:u`.
    #[arg(
        long = "count-in",
        value_enum,
        value_delimiter = ',',
        value_name = "LEVEL"
    )]
    pub count_in: Vec<PrivilegeArg>,
    /// sample: draw each period at random, uniformly from 1 to 2N-1 (mean
    /// N), from a generator seeded by `--seed`, to avoid aliasing with
    /// periodic code.
    #[arg(long)]
    pub jitter: bool,
    /// sample: seed of the `--jitter` generator (runs repeat exactly).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// instrument: leave out functions whose name matches PATTERN (`*` and
    /// `?` wildcards; repeatable), like
    /// `-finstrument-functions-exclude-function-list`.
    #[arg(long, value_name = "PATTERN")]
    pub exclude: Vec<String>,
    /// counters: programmable counters per run (default: the core's
    /// `[pmu] counters`; 8 without `--core`).
    #[arg(long, value_name = "N")]
    pub counters: Option<u32>,
    /// counters: the event each counter counts (repeatable: one counter
    /// per event and function); default `cycles` with `--core`, else
    /// `instructions`.
    #[arg(long = "event", value_name = "EVENT")]
    pub events: Vec<String>,
    /// counters: measure the region from START to END (addresses, symbols
    /// or symbol+offset; repeatable) instead of functions: every execution,
    /// with count, total, min, max and a histogram.
    #[arg(long = "region", value_name = "START..END")]
    pub regions: Vec<String>,
    /// counters: `inclusive` (switched on at the start and off at the end
    /// by injected probes: callees counted) or `exclusive` (the counters'
    /// address-range filter: needs a core with `range_filter = true`,
    /// e.g. `--core arc-hs`).
    #[arg(long, value_enum, default_value = "inclusive")]
    pub region_mode: RegionModeArg,
    /// counters: the call-graph descent: measure upper levels first and
    /// skip functions whose bound (the sum of their callers' inclusive
    /// counts) is below `--threshold`.
    #[arg(long)]
    pub descent: bool,
    /// counters: the descent's threshold, percent of the whole run's count.
    #[arg(long, value_name = "PCT", default_value_t = 1.0, requires = "descent")]
    pub threshold: f64,
    /// counters: cycles each injected probe costs (the study measured 9-55
    /// per call on an ARC HS); the error it causes is what the method
    /// would show on hardware.
    #[arg(long, value_name = "CYCLES", default_value_t = 0)]
    pub probe_cost: u64,
    /// counters: take the call graph from FILE (an exact, instrumented or
    /// counters profile of the same program) instead of a first run that
    /// records every call; a run of always-on counters gives the totals.
    #[arg(long, value_name = "FILE")]
    pub call_graph: Option<PathBuf>,
    /// counters: for a program that never ends, one run whose counters
    /// take every subset of functions in turn, changed at ADDR (an address,
    /// symbol or FILE:LINE where the program idles, e.g. waiting for
    /// input) once `--slice` has passed; each function's count is scaled
    /// by the share of the run it was measured in. Needs
    /// `--max-instructions` (or `--call-graph` and Ctrl-C).
    #[arg(long, value_name = "ADDR")]
    pub safe_stop: Option<String>,
    /// counters: with `--safe-stop`, cycles (instructions without
    /// `--core`) each subset stays installed at least.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1_000_000,
        requires = "safe_stop"
    )]
    pub slice: u64,
    /// Store the guest environment's values in the profile (Linux).
    /// Without it only the variables' names and a SHA-256 of the whole
    /// environment are stored, so a profile can be shared without leaking
    /// secrets; bare-metal profiles store no environment at all.
    #[arg(long)]
    pub save_env: bool,
    /// Add the symbols of another ELF (repeatable): a stripped image, a
    /// program loaded elsewhere, the processes of a kernel. With @ADDR its
    /// `.text` is at ADDR (as GDB's `add-symbol-file`), else at the
    /// addresses it was linked at. Its symbols apply in the address spaces
    /// that run its code (compared byte for byte).
    #[arg(long, value_name = "FILE[@ADDR]", value_parser = fwprof_record::SymbolFile::parse)]
    pub symbols: Vec<fwprof_record::SymbolFile>,
    /// Bare metal: the kernel's context-switch function, for a kernel that
    /// switches tasks by a call returning on another task's stack rather
    /// than by a trap return (tasks are told apart without it otherwise;
    /// docs/concurrency.md, "Tasks of an operating system").
    #[arg(long, value_name = "SYMBOL")]
    pub task_hint: Option<String>,
    /// No progress line and no summary on stderr.
    #[arg(short = 'q', long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// More detail on stderr (repeatable).
    #[arg(short = 'v', long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Execution options and the program.
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// `record --method`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodArg {
    /// Every executed instruction.
    Exact,
    /// Periodic pc and stack samples.
    Sample,
    /// Compiled-in function hooks.
    Instrument,
    /// Emulated hardware counters driven from outside, several runs.
    Counters,
}

/// `record --region-mode`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionModeArg {
    /// Probes switch the counters on and off: callees counted.
    Inclusive,
    /// The counters' address-range filter: only the range counted.
    Exclusive,
}

/// `record --unit`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitArg {
    /// Retired instructions.
    Instructions,
    /// Modelled cycles (needs `--core`).
    Cycles,
}

/// Report output formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// gprof-style flat profile and call graph.
    Text,
    /// The JSON report documented in docs/report-json.md.
    Json,
}

/// Sort keys for the flat profile.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortArg {
    /// Self instructions (gprof's order).
    #[value(name = "self")]
    SelfCost,
    /// Inclusive instructions.
    Inclusive,
    /// Number of calls.
    Calls,
    /// Function name.
    Name,
}

/// `fwprof report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Profile to read.
    #[arg(default_value = "fwprof.data", value_name = "FILE")]
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
    /// Show only the N first functions of the flat profile.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Sort key of the flat profile.
    #[arg(long, value_enum, default_value = "self")]
    pub sort: SortArg,
    /// Leave out the call graph (and with it the explanations: the flat
    /// profile alone).
    #[arg(long)]
    pub no_call_graph: bool,
    /// Leave out the explanations of the columns and the index by function
    /// name, as gprof's `-b`.
    #[arg(short = 'b', long)]
    pub brief: bool,
    /// Event to sort and count the flat profile and call graph by, e.g.
    /// `cycles` (default: instructions, also when the profile records cycles).
    #[arg(long, value_name = "NAME", conflicts_with = "events")]
    pub event: Option<String>,
    /// Comma-separated self columns of the flat profile: events of the
    /// profile, the first being the sort key, the % column and the call
    /// graph's event, then also the derived ratios cpi, icache_miss_rate,
    /// dcache_miss_rate and mispredict_rate (e.g. `cycles,instructions,cpi`).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub events: Vec<String>,
    /// Report only the costs incurred at this privilege level (M, S or U):
    /// self costs, inclusive costs and arcs at that level, totals of that
    /// level (docs/traps.md, "Privilege levels").
    #[arg(long, value_enum, value_name = "LEVEL", ignore_case = true)]
    pub privilege: Option<PrivilegeArg>,
    /// A run on several harts: report only what hart N executed (its
    /// calling contexts, calls and costs; docs/concurrency.md).
    #[arg(long, value_name = "N", conflicts_with_all = ["per_hart", "per_thread", "thread"])]
    pub hart: Option<u32>,
    /// A Linux process with several threads: report only what the thread
    /// with id TID executed.
    #[arg(long, value_name = "TID", conflicts_with_all = ["per_hart", "per_thread"])]
    pub thread: Option<i64>,
    /// A run on several harts: a table of the harts, then each hart's
    /// own report (the default report merges the harts).
    #[arg(long, conflicts_with_all = ["privilege", "format", "per_thread"])]
    pub per_hart: bool,
    /// A Linux process with several threads (or a run on several harts):
    /// a table of the threads, then each one's own report.
    #[arg(long, conflicts_with_all = ["privilege", "format"])]
    pub per_thread: bool,
    /// An operating system's tasks (bare metal, one hart): report only
    /// what the task NAME executed, the traps taken while it ran included
    /// (docs/concurrency.md, "Tasks of an operating system").
    #[arg(long, value_name = "NAME", conflicts_with_all = ["hart", "thread", "per_hart", "per_thread"])]
    pub task: Option<String>,
    /// A table of the tasks (instructions, context switches voluntary and
    /// by interrupt), then each task's own report, named by its entry
    /// function.
    #[arg(long, conflicts_with_all = ["privilege", "format", "per_hart", "per_thread", "task"])]
    pub per_task: bool,
    /// The stack high-water marks: the deepest use of each task's stack
    /// and of each trap context's own stack, in bytes (with `--format
    /// json`, the profile's `stacks` section).
    #[arg(long, conflicts_with_all = ["per_hart", "per_thread", "per_task", "task", "privilege"])]
    pub stack: bool,
    /// A profile of `record --method counters`: its runs and, per
    /// function, what the measurement did — measured (in which run, M(f)
    /// and its share), skipped by the call-graph descent (with the bound
    /// below the threshold) or never called (with `--format json`, the
    /// profile's `counters` section).
    #[arg(long, conflicts_with_all = ["per_hart", "per_thread", "per_task", "task", "privilege", "stack"])]
    pub descent: bool,
}

/// A privilege level for `report --privilege`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivilegeArg {
    /// Machine mode.
    #[value(name = "M")]
    M,
    /// Supervisor mode.
    #[value(name = "S")]
    S,
    /// User mode.
    #[value(name = "U")]
    U,
}

impl PrivilegeArg {
    /// The profile's level.
    pub fn level(self) -> fwprof_profile::Level {
        match self {
            PrivilegeArg::M => fwprof_profile::Level::M,
            PrivilegeArg::S => fwprof_profile::Level::S,
            PrivilegeArg::U => fwprof_profile::Level::U,
        }
    }
}

/// `fwprof annotate`.
#[derive(Args, Debug)]
pub struct AnnotateArgs {
    /// Profile to read.
    #[arg(default_value = "fwprof.data", value_name = "FILE")]
    pub file: PathBuf,
    /// Function to annotate (default: every function with cost, hottest first).
    #[arg(value_name = "FUNCTION")]
    pub function: Option<String>,
    /// Look for source files under DIR too (repeatable).
    #[arg(long, value_name = "DIR")]
    pub source_dir: Vec<PathBuf>,
    /// Program ELF to read debug info and code from when the recorded
    /// path no longer holds it; it must have the recorded SHA-256.
    #[arg(long, value_name = "ELF")]
    pub program: Option<PathBuf>,
    /// Read a `--program` whose SHA-256 differs from the one recorded in
    /// the profile (refused otherwise).
    #[arg(long, requires = "program")]
    pub force: bool,
    /// Event to count, e.g. `cycles`, which adds a column per stall cause
    /// of the function (default: instructions).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
}

/// `fwprof export` formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// GNU `gmon.out` for `gprof PROGRAM gmon.out`.
    Gmon,
    /// Callgrind profile for `callgrind_annotate` and KCachegrind.
    Callgrind,
    /// Gzipped pprof `profile.proto` for `go tool pprof`.
    Pprof,
    /// Collapsed stacks (`main;foo;bar 1234`) for flamegraph.pl/inferno.
    Folded,
    /// Flame graph SVG.
    Flamegraph,
    /// speedscope JSON.
    Speedscope,
    /// Graphviz call graph.
    Dot,
}

impl ExportFormat {
    /// The output file written when `-o` is not given (`-` = stdout).
    pub fn default_output(self) -> &'static str {
        match self {
            ExportFormat::Gmon => "gmon.out",
            ExportFormat::Callgrind => "callgrind.out.fwprof",
            ExportFormat::Pprof => "profile.pb.gz",
            ExportFormat::Folded => "-",
            ExportFormat::Flamegraph => "flamegraph.svg",
            ExportFormat::Speedscope => "profile.speedscope.json",
            ExportFormat::Dot => "-",
        }
    }
}

/// `fwprof export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Profile to read.
    #[arg(default_value = "fwprof.data", value_name = "FILE")]
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Output file, `-` for stdout (default: gmon.out, callgrind.out.fwprof,
    /// profile.pb.gz, flamegraph.svg, profile.speedscope.json; stdout for
    /// folded and dot).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Event to export where the format carries one (gmon, folded,
    /// flamegraph, dot) or to put first (default: instructions).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Program ELF to read debug info from when the recorded path no
    /// longer holds it (callgrind, pprof, gmon); it must have the recorded
    /// SHA-256.
    #[arg(long, value_name = "ELF")]
    pub program: Option<PathBuf>,
    /// Read a `--program` whose SHA-256 differs from the one recorded in
    /// the profile (refused otherwise).
    #[arg(long, requires = "program")]
    pub force: bool,
    /// dot: leave out functions below PCT% of the total inclusive cost.
    #[arg(long, value_name = "PCT", default_value_t = 0.5)]
    pub threshold: f64,
    /// A run on several harts: export only what hart N executed (default:
    /// every hart, merged).
    #[arg(long, value_name = "N")]
    pub hart: Option<u32>,
    /// A Linux process with several threads: only what the thread with
    /// id TID executed.
    #[arg(long, value_name = "TID", conflicts_with = "hart")]
    pub thread: Option<i64>,
    /// An operating system's tasks: only what the task NAME executed
    /// (`report --per-task` lists them).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["hart", "thread"])]
    pub task: Option<String>,
}

/// `fwprof html`.
#[derive(Args, Debug)]
pub struct HtmlArgs {
    /// Profile to read.
    #[arg(default_value = "fwprof.data", value_name = "FILE")]
    pub file: PathBuf,
    /// Output file, `-` for stdout.
    #[arg(
        short = 'o',
        long = "output",
        default_value = "report.html",
        value_name = "OUT"
    )]
    pub output: PathBuf,
    /// Program ELF to read debug info and code from when the recorded
    /// path no longer holds it; it must have the recorded SHA-256.
    #[arg(long, value_name = "ELF")]
    pub program: Option<PathBuf>,
    /// Read a `--program` whose SHA-256 differs from the one recorded in
    /// the profile (refused otherwise).
    #[arg(long, requires = "program")]
    pub force: bool,
    /// Look for source files under DIR too (repeatable).
    #[arg(long, value_name = "DIR")]
    pub source_dir: Vec<PathBuf>,
    /// A run on several harts: show only what hart N executed (default:
    /// every hart, merged).
    #[arg(long, value_name = "N")]
    pub hart: Option<u32>,
    /// A Linux process with several threads: only what the thread with
    /// id TID executed.
    #[arg(long, value_name = "TID", conflicts_with = "hart")]
    pub thread: Option<i64>,
    /// An operating system's tasks: only what the task NAME executed
    /// (`report --per-task` lists them).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["hart", "thread"])]
    pub task: Option<String>,
}

/// `fwprof diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The profile before the change.
    #[arg(value_name = "BEFORE")]
    pub before: PathBuf,
    /// The profile after the change.
    #[arg(value_name = "AFTER")]
    pub after: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
    /// Event to sort by (default: instructions); every event is shown.
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Exit with status 1 when the total or a function's self cost of the
    /// sort event grew by more than PCT percent (for sampled profiles,
    /// only changes whose 95% interval excludes 0).
    #[arg(long, value_name = "PCT")]
    pub fail_above: Option<f64>,
}

/// `fwprof merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Profiles to sum (at least two).
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Output profile, `-` for stdout.
    #[arg(short = 'o', long = "output", required = true, value_name = "OUT")]
    pub output: PathBuf,
    /// Merge even if the profiles are of different programs or event sets
    /// where that can be done.
    #[arg(long)]
    pub force: bool,
}

/// Shells `fwprof completions` writes scripts for.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellArg {
    /// bash.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
}

/// `fwprof completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: ShellArg,
}

/// Parse the command line, exiting with clap's usage error (status 2) on
/// anything the options alone show to be wrong — also option combinations
/// clap's attributes cannot express: a `record` option of one profiling
/// method given with another method (`--period` without
/// `--method sample` would otherwise be ignored silently).
pub fn parse() -> Cli {
    use clap::parser::ValueSource;
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Command::Record(r) = &cli.command {
        let m = matches
            .subcommand_matches("record")
            .expect("record's own matches");
        let given = |id: &str| m.value_source(id) == Some(ValueSource::CommandLine);
        let counters = r.method == MethodArg::Counters;
        let rules: [(&str, &str, bool); 16] = [
            ("period", "--period", r.method == MethodArg::Sample),
            ("count_in", "--count-in", r.method == MethodArg::Sample),
            ("jitter", "--jitter", r.method == MethodArg::Sample),
            ("seed", "--seed", r.method == MethodArg::Sample),
            ("exclude", "--exclude", r.method == MethodArg::Instrument),
            (
                "unit",
                "--unit",
                matches!(r.method, MethodArg::Sample | MethodArg::Instrument),
            ),
            ("counters", "--counters", counters),
            ("events", "--event", counters),
            ("regions", "--region", counters),
            ("region_mode", "--region-mode", counters),
            ("descent", "--descent", counters),
            ("threshold", "--threshold", counters),
            ("probe_cost", "--probe-cost", counters),
            ("call_graph", "--call-graph", counters),
            ("safe_stop", "--safe-stop", counters),
            ("slice", "--slice", counters),
        ];
        for (id, flag, applies) in rules {
            if given(id) && !applies {
                let only = match id {
                    "exclude" => "--method instrument",
                    "unit" => "--method sample or --method instrument",
                    "period" | "jitter" | "seed" | "count_in" => "--method sample",
                    _ => "--method counters",
                };
                Cli::command()
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!("{flag} applies only to {only}"),
                    )
                    .exit();
            }
        }
    }
    cli
}

/// Bare-metal RAM when `--ram` is not given (QEMU `virt`'s default).
const DEFAULT_RAM: &str = "0x80000000:128M";

/// The plain run options of `run` and `record` (the guest environment
/// built from the host's, `--clear-env`, `-U` and `-E`, like QEMU).
///
/// # Errors
/// A bad `--ram` (its message names what is wrong); a `--board` file that
/// cannot be read or is refused (one line: file, line, key).
pub fn exec_options(a: &ExecArgs) -> anyhow::Result<fwprof_record::ExecOptions> {
    let mut o = fwprof_record::ExecOptions {
        program: a.program.clone(),
        args: a.args.clone(),
        env: fwprof_record::guest_env(std::env::vars(), a.clear_env, &a.unset_env, &a.set_env),
        target: a.target.map(|t| match t {
            TargetArg::Baremetal => fwprof_os::Target::BareMetal,
            TargetArg::Linux => fwprof_os::Target::Linux,
        }),
        ram: fwprof_record::parse_ram(a.ram.as_deref().unwrap_or(DEFAULT_RAM))
            .map_err(anyhow::Error::msg)?,
        max_memory: a.max_memory,
        allow_read: a.allow_read.clone(),
        allow_write: a.allow_write.clone(),
        max_instructions: a.max_instructions,
        icount_shift: a.icount_shift,
        board: match (&a.board, a.machine) {
            (Some(file), _) => fwprof_os::Board::load(file)?,
            (None, MachineArg::Bare) => fwprof_os::Board::bare(),
            (None, MachineArg::Virt) => fwprof_os::Board::virt(),
        },
        bios: a.bios.clone(),
        append: a.append.clone(),
        load: a.load.clone(),
        kernel_entry: None,
        harts: a.harts,
        quantum: a.quantum,
        tier: match a.tier {
            TierArg::Interp => fwprof_sim::Tier::Interp,
            TierArg::Jit => fwprof_sim::Tier::Jit,
        },
        jit_threshold: a.jit_threshold,
    };
    // A raw kernel is a `--load` image; the firmware becomes the program
    // (the ELF whose symbols the profile reads) and the reset ROM's
    // `fw_dynamic_info` names the kernel's address as the next stage.
    if let (Some(addr), Some(bios)) = (a.kernel_addr, &a.bios) {
        o.load.insert(
            0,
            fwprof_os::LoadSpec {
                path: std::mem::replace(&mut o.program, bios.clone()),
                addr: Some(addr),
            },
        );
        o.bios = None;
        o.kernel_entry = Some(addr);
    }
    Ok(o)
}

/// `--kernel-addr`: decimal or `0x` hexadecimal.
fn parse_address(s: &str) -> Result<u64, String> {
    let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    v.map_err(|e| format!("{s}: not an address ({e})"))
}

/// The plain recording options of `record`.
///
/// # Errors
/// As [`exec_options`].
pub fn record_options(a: &RecordArgs) -> anyhow::Result<fwprof_record::RecordOptions> {
    use fwprof_record::{InstrumentOptions, Method, SampleOptions, Unit};
    let unit = match a.unit {
        UnitArg::Instructions => Unit::Instructions,
        UnitArg::Cycles => Unit::Cycles,
    };
    Ok(fwprof_record::RecordOptions {
        exec: exec_options(&a.exec)?,
        method: match a.method {
            MethodArg::Exact => Method::Exact,
            MethodArg::Sample => Method::Sample(SampleOptions {
                period: a.period,
                unit,
                jitter: a.jitter,
                seed: a.seed,
                count_in: (!a.count_in.is_empty()).then(|| {
                    a.count_in.iter().fold(0u8, |m, l| {
                        m | match l {
                            PrivilegeArg::U => 1,
                            PrivilegeArg::S => 2,
                            PrivilegeArg::M => 8,
                        }
                    })
                }),
            }),
            MethodArg::Instrument => Method::Instrument(InstrumentOptions {
                unit,
                exclude: a.exclude.clone(),
            }),
            MethodArg::Counters => Method::Counters(fwprof_record::CountersOptions {
                counters: a.counters,
                events: a.events.clone(),
                regions: a.regions.clone(),
                region_mode: match a.region_mode {
                    RegionModeArg::Inclusive => fwprof_record::RegionMode::Inclusive,
                    RegionModeArg::Exclusive => fwprof_record::RegionMode::Exclusive,
                },
                descent: a.descent.then_some(a.threshold),
                probe_cost: a.probe_cost,
                call_graph: a.call_graph.clone(),
                safe_stop: a.safe_stop.clone(),
                slice: a.slice,
            }),
        },
        core: a.core.clone(),
        save_env: a.save_env,
        symbols: a.symbols.clone(),
        task_hint: a.task_hint.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_building() {
        let cli = Cli::parse_from([
            "fwprof", "run", "-E", "A=9", "-E", "NEW=1", "-U", "B", "p.elf", "x", "-y",
        ]);
        let Command::Run(r) = cli.command else {
            panic!("not run")
        };
        assert_eq!(r.exec.args, vec!["x", "-y"]);
        let host = vec![
            ("A".to_string(), "1".to_string()),
            ("B".to_string(), "2".to_string()),
        ];
        let env = |host: Vec<(String, String)>, e: &ExecArgs| {
            fwprof_record::guest_env(host.into_iter(), e.clear_env, &e.unset_env, &e.set_env)
        };
        assert_eq!(env(host, &r.exec), vec!["A=9", "NEW=1"]);
        let cli = Cli::parse_from(["fwprof", "run", "--clear-env", "-E", "Z=1", "p.elf"]);
        let Command::Run(r) = cli.command else {
            panic!("not run")
        };
        assert_eq!(env(vec![("A".into(), "1".into())], &r.exec), vec!["Z=1"]);
    }
}
