//! The profile data model: metadata, event set, functions, arcs and traps.

use serde::{Deserialize, Serialize};

use crate::costs::AddressCosts;
use crate::file::FORMAT_VERSION;
use crate::sections::Sections;

/// Dense index of a function in [`Profile::functions`].
///
/// Ids are positions: `FunctionId(3)` is `profile.functions[3]`. They are
/// only meaningful within one profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FunctionId(pub u32);

impl FunctionId {
    /// The id as an index into [`Profile::functions`].
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Execution environment the program was run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// Bare metal with semihosting (stored as `"baremetal"`).
    Baremetal,
    /// Linux user mode (stored as `"linux"`).
    Linux,
}

impl Target {
    /// The stored name: `"baremetal"` or `"linux"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Baremetal => "baremetal",
            Target::Linux => "linux",
        }
    }
}

/// Where a profile came from and how the run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// Format version the profile was written with ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Path of the profiled ELF: absolute since fwprof stored it so (as given
    /// on the command line in older profiles).
    pub program: String,
    /// SHA-256 of the ELF file, 64 lowercase hex digits (empty if unknown).
    pub sha256: String,
    /// GNU build-id of the ELF in lowercase hex, if it has one.
    pub build_id: Option<String>,
    /// ISA string of the simulated hart, e.g. `"rv64gc_zba_zbb_zbc_zbs"`
    /// (what fwprof's hart implements).
    pub isa: String,
    /// Register width in bits: 32 or 64.
    pub xlen: u32,
    /// Execution environment.
    pub target: Target,
    /// Guest command line (`argv`, program name first).
    pub command: Vec<String>,
    /// Guest environment as `NAME=value` strings, in the guest's order:
    /// only when the user asked for the values (`record --save-env`), else
    /// empty. Version-1 files always hold the values (of the host's
    /// environment, also for bare metal); they are still read as they are.
    pub environment: Vec<String>,
    /// Names of the guest's environment variables, in the guest's order
    /// (Linux guests; empty for bare metal, which has no environment, and
    /// in files written before it existed). No values: see
    /// [`Meta::environment`].
    #[serde(default)]
    pub environment_names: Vec<String>,
    /// SHA-256 of the whole guest environment, 64 lowercase hex digits
    /// (see [`environment_sha256`](crate::environment_sha256)), so that
    /// two profiles can be told to have run in different environments
    /// without storing the values. `None` for bare metal and in files
    /// written before it existed (then [`Meta::environment_fingerprint`]
    /// computes it from stored values).
    #[serde(default)]
    pub environment_sha256: Option<String>,
    /// Version of fwprof that recorded the profile.
    pub fwprof_version: String,
    /// Start of the recording, seconds since the Unix epoch.
    pub start_time: u64,
    /// Why the profile covers only part of the run (`"signal SIGINT"`,
    /// `"signal SIGTERM"`, `"signal SIGHUP"` when fwprof was stopped by that
    /// signal; `"instruction limit"`, `"guest fault: ..."`; files written
    /// before version 2 say `"interrupted"` for Ctrl-C); `None` for a
    /// complete run.
    pub partial: Option<String>,
    /// Exit status of the guest if it exited.
    pub exit_status: Option<i32>,
    /// Warnings gathered while recording (e.g. a stripped ELF).
    pub warnings: Vec<String>,
    /// The core model the timing events come from (`record --core`: a
    /// preset name or a core file's `name`); `None` when only instructions
    /// were recorded. Absent in files written before it existed.
    #[serde(default)]
    pub core: Option<String>,
    /// How the costs were gathered: [`Method::Exact`] (every instruction;
    /// also what files written before this field existed hold),
    /// [`Method::Sample`] or [`Method::Instrument`].
    #[serde(default)]
    pub method: Method,
    /// Sampling parameters and counts, for [`Method::Sample`].
    #[serde(default)]
    pub sampling: Option<SamplingInfo>,
    /// Instrumentation parameters, for [`Method::Instrument`].
    #[serde(default)]
    pub instrumentation: Option<InstrumentInfo>,
    /// Guest time the program spent asleep, in nanoseconds: Linux
    /// `nanosleep`/`clock_nanosleep`, or a bare-metal `wfi` waiting for the
    /// machine timer. No instruction executed meanwhile, so this time is in
    /// no function's cost. 0 in files written before it existed.
    #[serde(default)]
    pub sleep_ns: u64,
    /// Which of the simulator's execution engines ran the program, and how
    /// much of it ran as translated code. `None` in files written before it
    /// existed.
    #[serde(default)]
    pub engine: Option<EngineInfo>,
}

/// The execution engine of a recording (`record --tier`,
/// `--jit-threshold`). Every tier gives the same counts and profile; this
/// says how the run was made, not what it measured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// `"interp"` (the interpreter only) or `"jit"` (blocks executed more
    /// than `jit_threshold` times translated to host code).
    pub tier: String,
    /// Executions of a block before it is translated (`"jit"`).
    pub jit_threshold: u32,
    /// Translations made: blocks that became hot and were compiled to
    /// host code, each with its region (see `region_blocks`).
    pub translated_blocks: u64,
    /// Instructions executed as translated code (the rest: interpreted),
    /// over all harts.
    pub translated_instructions: u64,
    /// Blocks compiled into translated code: each translated block plus
    /// the blocks of the region compiled with it (the loop or function
    /// body it leads to, run without returning to the run loop); 0 in
    /// files written before regions existed.
    #[serde(default)]
    pub region_blocks: u64,
}

/// How a profile's costs were gathered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Every executed instruction counted (exact).
    #[default]
    Exact,
    /// Periodic samples of the pc and the unwound stack; costs are
    /// estimates (samples × period).
    Sample,
    /// Function entry/exit hooks compiled into the program
    /// (`-finstrument-functions`, `-pg`).
    Instrument,
    /// Emulated hardware performance counters driven from outside the
    /// program, several runs (`record --method counters`; the `counters`
    /// section says how).
    Counters,
}

impl Method {
    /// The stored name: `"exact"`, `"sample"`, `"instrument"` or
    /// `"counters"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Sample => "sample",
            Method::Instrument => "instrument",
            Method::Counters => "counters",
        }
    }
}

/// How a sampled profile was taken (`record --method sample`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplingInfo {
    /// Mean sampling period, in `unit`s.
    pub period: u64,
    /// `"instructions"` or `"cycles"`: what the period counts.
    pub unit: String,
    /// Periods were drawn at random around `period` (see `jitter_seed`).
    pub jitter: bool,
    /// Seed of the period generator (meaningful with `jitter`).
    pub seed: u64,
    /// Samples taken.
    pub samples: u64,
    /// Samples whose stack could not be unwound to a root (their stack is
    /// kept as far as it went and marked).
    pub unwind_failures: u64,
    /// Sampling points that fell while the program slept (a sampler paced
    /// by cycles keeps counting them; see [`Meta::sleep_ns`]): they saw no
    /// program code, so they are not in `samples` nor in any cost. 0 for
    /// instruction-paced sampling and in files written before it existed.
    #[serde(default)]
    pub idle_samples: u64,
}

/// How an instrumented profile was taken (`record --method instrument`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstrumentInfo {
    /// Which hooks the program calls: `"cyg_profile"`
    /// (`-finstrument-functions`) or `"mcount"` (`-pg`).
    pub hooks: String,
    /// What durations count: `"instructions"` or `"cycles"`.
    pub unit: String,
    /// Hook calls made (entry and exit hooks each count one), measured
    /// during the run.
    pub hook_calls: u64,
    /// Their total cost in `unit`s: `hook_total / hook_calls` is what the
    /// compensated values subtract per hook call.
    pub hook_total: u64,
    /// Functions excluded by name or pattern.
    pub excluded: Vec<String>,
}

/// One sample of a sampled profile: the pc and the stack unwound from the
/// guest's registers and memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Executed-instruction count when the sample was taken.
    pub instret: u64,
    /// Frames, innermost first: the sampled pc, then each return address
    /// minus one instruction (the call site) found by unwinding.
    pub frames: Vec<u64>,
    /// True if unwinding stopped before reaching a root (no CFI and no
    /// usable frame pointer, or an invalid address).
    pub truncated: bool,
}

/// Per-function results of an instrumented run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstrumentRecord {
    /// The function.
    pub function: FunctionId,
    /// Completed calls (entry and exit both seen).
    pub calls: u64,
    /// Sum over calls of entry-to-exit duration, raw (hooks included).
    pub total: u64,
    /// `total` less the time in instrumented callees, raw.
    pub self_time: u64,
    /// `total` with the hooks' measured cost subtracted.
    pub total_compensated: u64,
    /// `self_time` with the hooks' measured cost subtracted.
    pub self_compensated: u64,
    /// Shortest single call (raw).
    pub min: u64,
    /// Longest single call (raw).
    pub max: u64,
    /// Per-call duration histogram: bucket `i` counts calls lasting
    /// `[2^i, 2^(i+1))` units (bucket 0 also holds 0 and 1).
    pub histogram: Vec<u64>,
}

impl Meta {
    /// Metadata for `program` with every other field empty: rv64gc,
    /// bare metal, no command line, start time 0, complete run.
    pub fn new(program: impl Into<String>) -> Meta {
        let program = program.into();
        Meta {
            format_version: FORMAT_VERSION,
            command: vec![program.clone()],
            program,
            sha256: String::new(),
            build_id: None,
            isa: "rv64gc".to_string(),
            xlen: 64,
            target: Target::Baremetal,
            environment: Vec::new(),
            environment_names: Vec::new(),
            environment_sha256: None,
            fwprof_version: String::new(),
            start_time: 0,
            partial: None,
            exit_status: None,
            warnings: Vec::new(),
            core: None,
            method: Method::Exact,
            sampling: None,
            instrumentation: None,
            sleep_ns: 0,
            engine: None,
        }
    }
}

/// One function (or `[unknown 0x...]` range) and its costs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionRecord {
    /// Symbol name (or `[unknown 0x<start>]`).
    pub name: String,
    /// First address of the function.
    pub start: u64,
    /// One past the last address (`end >= start`).
    pub end: u64,
    /// Source file of the function's first line, if DWARF says.
    pub file: Option<String>,
    /// Source line of the function's first instruction, if DWARF says.
    pub line: Option<u32>,
    /// Times the function was entered by a call or tail call (the sum of the
    /// `calls` of its incoming arcs, spontaneous ones included).
    pub calls: u64,
    /// Cost of instructions of this function, one entry per event.
    pub self_cost: Vec<u64>,
    /// Cost of this function and everything it called, counted once per
    /// outermost activation (recursion is not counted twice), per event.
    pub inclusive: Vec<u64>,
}

impl FunctionRecord {
    /// A function with no location and empty cost vectors (fill them with
    /// one entry per event before writing).
    pub fn new(name: impl Into<String>, start: u64, end: u64) -> FunctionRecord {
        FunctionRecord {
            name: name.into(),
            start,
            end,
            file: None,
            line: None,
            calls: 0,
            self_cost: Vec::new(),
            inclusive: Vec::new(),
        }
    }
}

/// A call arc: `caller` called (or tail-called) `callee` from `call_site`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arc {
    /// The calling function; `None` for the `<spontaneous>` root (program
    /// entry, trap handlers entered without a call).
    pub caller: Option<FunctionId>,
    /// The called function.
    pub callee: FunctionId,
    /// Address of the call instruction (0 for spontaneous arcs).
    pub call_site: u64,
    /// Number of calls along this arc.
    pub calls: u64,
    /// True if the arc is a tail call (a jump that replaced the caller's frame).
    pub tail: bool,
    /// Cost spent in `callee` and its descendants during calls along this
    /// arc, per event.
    pub inclusive: Vec<u64>,
}

impl Arc {
    /// An arc from the `<spontaneous>` root to `callee` (call site 0, not a
    /// tail call).
    pub fn spontaneous(callee: FunctionId, calls: u64, inclusive: Vec<u64>) -> Arc {
        Arc {
            caller: None,
            callee,
            call_site: 0,
            calls,
            tail: false,
            inclusive,
        }
    }
}

/// One node of the calling-context tree: a function as reached through one
/// particular chain of calls from a root (Ammons, Ball and Larus, "Exploiting
/// hardware performance counters with flow and context sensitive
/// profiling", PLDI 1997). The stacks of flame graphs, folded stacks, pprof
/// samples and speedscope profiles are the paths of this tree.
///
/// Index `i` of [`Profile::contexts`] is context `i`; a parent always comes
/// before its children (`parent < i`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextRecord {
    /// The calling context; `None` for a root (the program entry, or code
    /// entered without a call, such as a trap handler).
    pub parent: Option<u32>,
    /// The function running in this context.
    pub function: FunctionId,
    /// Times this context was entered by a call or tail call (0 for a root
    /// entered spontaneously).
    pub calls: u64,
    /// Cost of the instructions executed while this context was the
    /// innermost (the function's self cost in this context), per event.
    pub self_cost: Vec<u64>,
}

/// How many times a trap with a given cause was taken at a given PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapRecord {
    /// `mcause`/`scause` value (interrupt bit in the top bit of XLEN).
    pub cause: u64,
    /// PC of the trapping instruction (`mepc`).
    pub pc: u64,
    /// Number of times taken.
    pub count: u64,
}

/// A complete profile: what `fwprof record` writes and reports read.
///
/// Cost vectors (`totals`, [`FunctionRecord::self_cost`],
/// [`FunctionRecord::inclusive`], [`Arc::inclusive`] and each address's
/// cost) all have `events.len()` entries. [`Profile::read`] checks these
/// shapes; [`Profile::check_invariants`] checks the arithmetic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Provenance and run outcome.
    pub meta: Meta,
    /// Event names; the first is [`crate::events::INSTRUCTIONS`].
    pub events: Vec<String>,
    /// Functions, indexed by [`FunctionId`].
    pub functions: Vec<FunctionRecord>,
    /// Self cost per instruction address, sorted by address.
    pub costs: AddressCosts,
    /// Call arcs (at most one per caller, callee, call site and tail flag).
    pub arcs: Vec<Arc>,
    /// Trap counts by cause and PC.
    pub traps: Vec<TrapRecord>,
    /// Total cost of the run per event (equals the sum of all self costs).
    pub totals: Vec<u64>,
    /// The calling-context tree (empty in files written before it existed,
    /// or when the recorder kept none). When present, the self costs of
    /// all contexts sum to [`Profile::totals`].
    #[serde(default)]
    pub contexts: Vec<ContextRecord>,
    /// The samples of a sampled profile ([`Method::Sample`]), in order.
    #[serde(default)]
    pub samples: Vec<SampleRecord>,
    /// Per-function results of an instrumented profile
    /// ([`Method::Instrument`]).
    #[serde(default)]
    pub instrumented: Vec<InstrumentRecord>,
    /// Named optional sections (format version 3): every kind of data
    /// added to profiles from version 3 on lives here, by the growth rule
    /// of [`crate::sections`]. Empty in older files.
    #[serde(default)]
    pub sections: Sections,
}

impl Profile {
    /// An empty profile with the given event set (totals zeroed).
    pub fn new(meta: Meta, events: Vec<String>) -> Profile {
        let n = events.len();
        Profile {
            meta,
            costs: AddressCosts::new(n),
            events,
            functions: Vec::new(),
            arcs: Vec::new(),
            traps: Vec::new(),
            totals: vec![0; n],
            contexts: Vec::new(),
            samples: Vec::new(),
            instrumented: Vec::new(),
            sections: Sections::new(),
        }
    }

    /// Appends a function and returns its id.
    pub fn add_function(&mut self, f: FunctionRecord) -> FunctionId {
        let id = FunctionId(self.functions.len() as u32);
        self.functions.push(f);
        id
    }

    /// The function with id `id`, or `None` if out of range.
    pub fn function(&self, id: FunctionId) -> Option<&FunctionRecord> {
        self.functions.get(id.index())
    }

    /// Position of the event called `name` in [`Profile::events`].
    pub fn event_index(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }

    /// The function whose `[start, end)` contains `addr` (first match in id
    /// order; linear in the number of functions).
    pub fn function_at(&self, addr: u64) -> Option<FunctionId> {
        self.functions
            .iter()
            .position(|f| f.start <= addr && addr < f.end)
            .map(|i| FunctionId(i as u32))
    }
}
