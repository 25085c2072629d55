//! The event set of a run with a core model (the profile's events, in this
//! order) and the vector of costs over it.

/// The events every run with a core records, in this order (the profile's
/// event set, owned by [`fwprof_profile::events::TIMING`]). Units: `cycles`
/// and `stall_*` in cycles, the rest are counts.
pub const EVENTS: [&str; 16] = fwprof_profile::events::TIMING;

/// Number of events in [`EVENTS`].
pub const NUM_EVENTS: usize = EVENTS.len();

/// Indexes into [`EVENTS`].
#[allow(missing_docs)]
pub mod ev {
    pub const INSTRUCTIONS: usize = 0;
    pub const CYCLES: usize = 1;
    pub const LOADS: usize = 2;
    pub const STORES: usize = 3;
    pub const BRANCHES: usize = 4;
    pub const BRANCH_MISPREDICTS: usize = 5;
    pub const ICACHE_ACCESSES: usize = 6;
    pub const ICACHE_MISSES: usize = 7;
    pub const DCACHE_ACCESSES: usize = 8;
    pub const DCACHE_MISSES: usize = 9;
    pub const STALL_LOAD_USE: usize = 10;
    pub const STALL_BRANCH: usize = 11;
    pub const STALL_ICACHE: usize = 12;
    pub const STALL_DCACHE: usize = 13;
    pub const STALL_MULDIV: usize = 14;
    pub const STALL_WAIT_STATE: usize = 15;
}

/// One event vector.
pub type Costs = [u64; NUM_EVENTS];
