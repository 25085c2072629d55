//! The names of the events a profile can carry: the one owner of these
//! strings. A profile's event set (`Profile::events`) always starts with
//! [`INSTRUCTIONS`]; an exact profile with a core model has the
//! [`TIMING`] set, a sampled one [`INSTRUCTIONS`], [`SAMPLES`] and (with a
//! core) [`CYCLES`], an instrumented one [`INSTRUCTIONS`] and (with a core)
//! [`CYCLES`]. Units: `cycles` and `stall_*` in cycles, the rest are counts.

/// Retired instructions (Callgrind's `Ir`).
pub const INSTRUCTIONS: &str = "instructions";
/// Modelled cycles.
pub const CYCLES: &str = "cycles";
/// Samples taken (sampled profiles).
pub const SAMPLES: &str = "samples";
/// Executed loads.
pub const LOADS: &str = "loads";
/// Executed stores.
pub const STORES: &str = "stores";
/// Executed conditional branches.
pub const BRANCHES: &str = "branches";
/// Branches, jumps and returns the model's predictor got wrong.
pub const BRANCH_MISPREDICTS: &str = "branch_mispredicts";
/// Instruction-cache accesses.
pub const ICACHE_ACCESSES: &str = "icache_accesses";
/// Instruction-cache misses.
pub const ICACHE_MISSES: &str = "icache_misses";
/// Data-cache accesses.
pub const DCACHE_ACCESSES: &str = "dcache_accesses";
/// Data-cache misses.
pub const DCACHE_MISSES: &str = "dcache_misses";
/// Cycles stalled on a load's result.
pub const STALL_LOAD_USE: &str = "stall_load_use";
/// Cycles lost to branch and jump penalties.
pub const STALL_BRANCH: &str = "stall_branch";
/// Cycles stalled on instruction-cache misses.
pub const STALL_ICACHE: &str = "stall_icache";
/// Cycles stalled on data-cache misses.
pub const STALL_DCACHE: &str = "stall_dcache";
/// Cycles of multi-cycle multiplies and divides.
pub const STALL_MULDIV: &str = "stall_muldiv";
/// Cycles of memory wait states.
pub const STALL_WAIT_STATE: &str = "stall_wait_state";

/// The event set of a run with a core model, in this order.
pub const TIMING: [&str; 16] = [
    INSTRUCTIONS,
    CYCLES,
    LOADS,
    STORES,
    BRANCHES,
    BRANCH_MISPREDICTS,
    ICACHE_ACCESSES,
    ICACHE_MISSES,
    DCACHE_ACCESSES,
    DCACHE_MISSES,
    STALL_LOAD_USE,
    STALL_BRANCH,
    STALL_ICACHE,
    STALL_DCACHE,
    STALL_MULDIV,
    STALL_WAIT_STATE,
];

/// The stall events of [`TIMING`] (cycles by cause; they add up to
/// `cycles` minus one cycle per instruction on a scalar in-order core).
pub const STALLS: [&str; 6] = [
    STALL_LOAD_USE,
    STALL_BRANCH,
    STALL_ICACHE,
    STALL_DCACHE,
    STALL_MULDIV,
    STALL_WAIT_STATE,
];
