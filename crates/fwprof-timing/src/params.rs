//! The parameter types of the timing models: what a core description
//! (`config.rs`) fills in and what the models (`cache.rs`, `predictor.rs`,
//! the pipeline) read. Units: cycles for latencies and penalties, bytes for
//! sizes and addresses.

use serde::Deserialize;

/// Cache line replacement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    /// Least recently used.
    Lru,
    /// First in, first out (insertion order; hits do not refresh).
    Fifo,
    /// Pseudo-random victim from a deterministic generator (seeded per cache,
    /// so runs are repeatable).
    Random,
}

/// One cache's geometry and timing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheParams {
    /// Total capacity in bytes (a power of two, >= `line`).
    pub size: u32,
    /// Ways per set (>= 1; `size / line / ways` sets, a power of two).
    pub ways: u32,
    /// Line size in bytes (a power of two, >= 4).
    pub line: u32,
    /// Victim choice on a miss into a full set.
    pub replacement: Replacement,
    /// Write-back (dirty lines written to memory on eviction) or
    /// write-through (every store goes to memory).
    pub write_back: bool,
    /// A store miss allocates the line (write-allocate) or goes around the
    /// cache (no-write-allocate).
    pub write_allocate: bool,
    /// Cycles for a hit.
    pub hit_latency: u32,
    /// Extra cycles for a miss (line fill), on top of the hit latency.
    pub miss_penalty: u32,
}

/// Branch direction predictor algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredictorKind {
    /// No prediction: every taken control transfer pays the taken cost (the
    /// core fetches sequentially); nothing is counted as mispredicted.
    None,
    /// Static: backward branches predicted taken, forward not taken (BTFN).
    Static,
    /// Bimodal: a table of `entries` 2-bit saturating counters indexed by pc.
    Bimodal {
        /// Counters (a power of two).
        entries: u32,
    },
    /// Gshare: 2-bit counters indexed by pc XOR a global history of
    /// `history_bits` outcomes.
    Gshare {
        /// Counters (a power of two).
        entries: u32,
        /// Global history length in branches (<= log2(entries)).
        history_bits: u32,
    },
}

/// Branch predictor configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PredictorParams {
    /// Direction predictor.
    pub kind: PredictorKind,
    /// Branch target buffer entries (direct-mapped, a power of two); 0 = no
    /// BTB: a predicted-taken branch or jump still pays the taken cost.
    pub btb_entries: u32,
}

/// Per instruction-class cost of an in-order pipeline, in cycles. Each
/// value is the cycles the instruction occupies the pipeline when nothing
/// stalls (for a pipelined core usually 1; for a multi-cycle core such as
/// PicoRV32 the documented CPI of the class).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLatencies {
    /// Integer register-register and register-immediate ALU ops, `lui`, `auipc`.
    pub alu: u32,
    /// Shifts: base cycles. A shift by `amount` bits costs
    /// `shift + shift_per_step * (amount / shift_step)
    /// + shift_per_remainder_bit * (amount % shift_step)` cycles
    /// ([`ClassLatencies::shift_cycles`]).
    pub shift: u32,
    /// Extra cycles per `shift_step` bits of shift amount (0 for a barrel
    /// shifter).
    pub shift_per_step: u32,
    /// Bits shifted per extra cycle (>= 1).
    pub shift_step: u32,
    /// Conditional branch, not taken.
    pub branch_not_taken: u32,
    /// Conditional branch, taken (before prediction is considered).
    pub branch_taken: u32,
    /// `jal`.
    pub jal: u32,
    /// `jalr`.
    pub jalr: u32,
    /// Loads (cycles before cache and wait-state effects).
    pub load: u32,
    /// Stores.
    pub store: u32,
    /// `mul` (and `mulw`).
    pub mul: u32,
    /// `mulh`, `mulhsu`, `mulhu`.
    pub mulh: u32,
    /// `div`, `divu`, `rem`, `remu` (and the `w` forms); with
    /// `div_variable`, the maximum ([`ClassLatencies::div_cycles`]).
    pub div: u32,
    /// Zicsr instructions.
    pub csr: u32,
    /// `fence`, `fence.i`.
    pub fence: u32,
    /// `ecall`, `ebreak`, `mret`, `wfi`.
    pub system: u32,
    /// Atomics (LR/SC/AMO), before cache effects.
    pub atomic: u32,
    /// F/D add, subtract, min/max, sign-injection, compare, classify, moves.
    pub fp_simple: u32,
    /// F/D multiply and fused multiply-add.
    pub fp_mul: u32,
    /// F/D divide.
    pub fp_div: u32,
    /// F/D square root.
    pub fp_sqrt: u32,
    /// F/D conversions.
    pub fp_convert: u32,
    /// F/D loads.
    pub fp_load: u32,
    /// F/D stores.
    pub fp_store: u32,
    /// Extra cycles per bit of `amount % shift_step`, the bits left after
    /// the coarse steps (PicoRV32's two-stage shifter moves 4 bits, then 1
    /// bit, per cycle; 0 for a barrel shifter).
    pub shift_per_remainder_bit: u32,
    /// Division time depends on the operands: `1 + ` the number of
    /// significant bits of the quotient, at most `div` cycles. `false`:
    /// always `div` cycles.
    pub div_variable: bool,
}

/// In-order pipeline parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineParams {
    /// Cycles per instruction class.
    pub latency: ClassLatencies,
    /// Cycles until a loaded value can be used by the next instruction; an
    /// instruction that reads the destination of the load right before it
    /// stalls `load_use` cycles (0 = no load-use hazard).
    pub load_use: u32,
    /// Result forwarding (bypassing). Without it, an instruction reading the
    /// result of the instruction right before it stalls `no_forward_stall`
    /// cycles.
    pub forwarding: bool,
    /// Stall without forwarding, in cycles.
    pub no_forward_stall: u32,
    /// Extra cycles when a branch or jump is mispredicted (or, with no
    /// predictor, unused). How this combines with the class latencies is
    /// written down in `docs/core-format.md` ("How the numbers combine").
    pub mispredict_penalty: u32,
}

/// A memory range with its access cost (e.g. flash with wait states).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRegion {
    /// Name shown in diagnostics.
    pub name: String,
    /// First byte address.
    pub base: u64,
    /// Length in bytes (> 0).
    pub size: u64,
    /// Extra cycles per access that reaches this memory (a cache miss or
    /// an uncached access), for instruction fetches and data alike.
    pub wait_states: u32,
    /// Accesses to this range bypass the caches.
    pub uncached: bool,
}

/// The core's hardware performance-monitoring unit (`[pmu]`): what its
/// counters can do (Privileged ISA 20211203, §3.1.10–3.1.12; Sscofpmf;
/// docs/core-format.md, "`[pmu]`").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuParams {
    /// Programmable counters (`mhpmcounter3` upwards), 0 to 29.
    pub counters: u32,
    /// Bits of each counter (1 to 64): a count wraps modulo 2^width.
    pub width: u32,
    /// The Sscofpmf extension (overflow bit, privilege-mode inhibit
    /// bits, the counter-overflow interrupt).
    pub sscofpmf: bool,
    /// A counter can be limited to an address range (ARC HS counters
    /// can; standard RISC-V counters cannot).
    pub range_filter: bool,
    /// The Smcntrpmf extension (`mcyclecfg`, `minstretcfg`).
    pub smcntrpmf: bool,
    /// How `mhpmeventN` selects events (`events = "generic" | "ibex" |
    /// "u74"`, docs/pmu.md).
    pub events: fwprof_sim::EventCoding,
}

impl Default for PmuParams {
    /// No `[pmu]` table: no programmable counters (the always-present
    /// `mcycle` and `minstret` only), 64 bits, no Sscofpmf, no filter.
    fn default() -> PmuParams {
        PmuParams {
            counters: 0,
            width: 64,
            sscofpmf: false,
            range_filter: false,
            smcntrpmf: false,
            events: fwprof_sim::EventCoding::Generic,
        }
    }
}

impl PmuParams {
    /// The guest-visible counters of a core with these counters and
    /// latencies `lat`: Ibex's NumCyclesLSU, NumCyclesMulWait and
    /// NumCyclesDivWait count the cycles a load or store, multiply or
    /// divide occupies the pipeline beyond an ALU instruction (for
    /// multiplies and divides what the model charges as `stall_muldiv`;
    /// with `div_variable` the fixed `div` latency is used).
    pub fn guest(&self, lat: &ClassLatencies) -> fwprof_sim::PmuConfig {
        fwprof_sim::PmuConfig {
            counters: self.counters.min(29) as u8,
            width: self.width.clamp(1, 64) as u8,
            coding: self.events,
            sscofpmf: self.sscofpmf,
            smcntrpmf: self.smcntrpmf,
            lsu_wait: lat.load.saturating_sub(lat.alu),
            mul_wait: lat.mul.saturating_sub(lat.alu),
            div_wait: lat.div.saturating_sub(lat.alu),
        }
    }
}
