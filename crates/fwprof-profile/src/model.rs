//! The profile data model: metadata, event set, functions, arcs and traps.

use serde::{Deserialize, Serialize};

use crate::costs::AddressCosts;
use crate::file::FORMAT_VERSION;

/// Name of the first event of every profile: retired instructions.
pub const EVENT_INSTRUCTIONS: &str = "instructions";

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
    /// Path of the profiled ELF as given on the command line.
    pub program: String,
    /// SHA-256 of the ELF file, 64 lowercase hex digits (empty if unknown).
    pub sha256: String,
    /// GNU build-id of the ELF in lowercase hex, if it has one.
    pub build_id: Option<String>,
    /// ISA string of the simulated hart, e.g. `"rv64gc"`.
    pub isa: String,
    /// Register width in bits: 32 or 64.
    pub xlen: u32,
    /// Execution environment.
    pub target: Target,
    /// Guest command line (`argv`, program name first).
    pub command: Vec<String>,
    /// Guest environment as `NAME=value` strings.
    pub environment: Vec<String>,
    /// Version of fwprof that recorded the profile.
    pub fwprof_version: String,
    /// Start of the recording, seconds since the Unix epoch.
    pub start_time: u64,
    /// Why the profile covers only part of the run (`"interrupted"`,
    /// `"instruction limit"`, `"guest fault: ..."`); `None` for a complete run.
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
            fwprof_version: String::new(),
            start_time: 0,
            partial: None,
            exit_status: None,
            warnings: Vec::new(),
            core: None,
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
    /// Event names; the first is [`EVENT_INSTRUCTIONS`].
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
