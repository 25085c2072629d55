//! The performance-monitoring unit the guest programs: `mcycle`,
//! `minstret`, `mhpmcounter3..31` with `mhpmevent3..31`, `mcountinhibit`
//! (Privileged ISA 20211203, §3.1.10–3.1.13), the Sscofpmf extension
//! (Sscofpmf 1.0: `mhpmeventN` bits OF, MINH, SINH, UINH, `scountovf`,
//! the local counter-overflow interrupt LCOFI, `mip`/`mie` bit 13) and the
//! Smcntrpmf extension (Smcntrpmf 1.0: `mcyclecfg`, `minstretcfg`).
//!
//! What a core's counters count comes from its description
//! ([`PmuConfig`]): how many programmable counters, their width, the event
//! encoding ([`EventCoding`]: `generic`, Ibex's fixed events, the SiFive
//! U74's class/mask selectors) and the optional extensions. Without a
//! configuration (no `--core`) the machine is QEMU 7.2's `virt` as the
//! lock-step suite compares it: no programmable counter (`mhpmcounterN`
//! and `mhpmeventN` read as zero), `mcountinhibit` honoured for `mcycle`
//! and `minstret`.
//!
//! How counting works, so that it costs nothing while nothing counts:
//! * **Lazy sources.** A counter of retired instructions, of cycles or of
//!   a timing-model event is `base + (source now − source at base)` while
//!   it counts, `base` while it does not. `base` is taken again
//!   ([`Pmu::rebase`]) whenever what it counts could change: a write to
//!   the counter, its event or `mcountinhibit`, a trap or `mret`/`sret`
//!   when a privilege-mode filter is set. Nothing happens per block.
//! * **Counted sources.** A counter of an instruction class (loads, taken
//!   branches, compressed instructions ...) is incremented by the run
//!   loop after each block ([`Pmu::account`]) from the block's decoded
//!   instructions, in the interpreter: while such a counter counts, no
//!   translated code runs ([`Pmu::class_live`]), and a block ending with a
//!   CSR instruction is split before it so that a read sees every earlier
//!   instruction counted.
//! * **Overflow** (Sscofpmf): [`Pmu::overflow_point`] is the executed
//!   count at which the first counter can next wrap; the run loop stops
//!   there (as for a timer deadline), the counter's OF bit is set and, if
//!   it was clear, `mip.LCOFIP` is raised. The interrupt is taken at that
//!   instruction boundary: after the instruction that made the counter
//!   wrap retired, so `mepc` is the next instruction (the *skid* of one
//!   instruction every real core has at least). Counters of cycles or
//!   timing-model events approach the point in steps of 1/16 of what is
//!   left, as the timer does with a core model (`sim/interrupts.rs`).

use crate::hart::Privilege;
use fwprof_isa::{Inst, InstClass, Op};

/// Timing-model events a core model reports through
/// [`crate::Hooks::model_events`], in the order of
/// `fwprof_profile::events::TIMING` (instructions, cycles, loads, stores,
/// branches, branch_mispredicts, icache_accesses, icache_misses,
/// dcache_accesses, dcache_misses, stall_load_use, stall_branch,
/// stall_icache, stall_dcache, stall_muldiv, stall_wait_state).
pub const MODEL_EVENTS: usize = 16;

/// Indexes into the timing-model event vector (see [`MODEL_EVENTS`]).
#[allow(missing_docs)]
pub mod model_ev {
    pub const BRANCH_MISPREDICTS: usize = 5;
    pub const ICACHE_MISSES: usize = 7;
    pub const DCACHE_ACCESSES: usize = 8;
    pub const DCACHE_MISSES: usize = 9;
    pub const STALL_LOAD_USE: usize = 10;
    pub const STALL_ICACHE: usize = 12;
    pub const STALL_DCACHE: usize = 13;
    pub const STALL_MULDIV: usize = 14;
}

/// How `mhpmeventN` values select events: the core's documented encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventCoding {
    /// fwprof's `generic` encoding (docs/pmu.md): 1 cycles, 2 instructions,
    /// 3/4 data-cache accesses/misses, 5 conditional branches, 6 branch
    /// mispredictions (the SBI PMU's general hardware events 1..6);
    /// `0x100 + i` timing-model event `i`; `0x200 + j` execution event `j`
    /// of [`GENERIC_EXEC`].
    Generic,
    /// lowRISC Ibex (Ibex documentation, "Performance Counters"): counter
    /// N counts fixed event N (3 NumCyclesLSU, 4 NumCyclesIF, 5 NumLoads,
    /// 6 NumStores, 7 NumJumps, 8 NumBranches, 9 NumBranchesTaken, 10
    /// NumInstrRetC, 11 NumCyclesMulWait, 12 NumCyclesDivWait);
    /// `mhpmeventN` reads `1 << N` and ignores writes.
    Ibex,
    /// SiFive U74 (U74-MC Core Complex Manual 21G1, §3.12 "Hardware
    /// Performance Monitor"; Linux `tools/perf/pmu-events/arch/riscv/
    /// sifive/u74/`): event class in bits 7:0, a mask of events of that
    /// class above; the counter counts when any selected event occurs.
    U74,
}

/// A core's counters (the `[pmu]` table of its description).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmuConfig {
    /// Programmable counters: `mhpmcounter3 .. mhpmcounter(3+counters-1)`
    /// (at most 29).
    pub counters: u8,
    /// Bits of each programmable counter (1..=64); it wraps at `2^width`.
    pub width: u8,
    /// The event encoding.
    pub coding: EventCoding,
    /// Sscofpmf: overflow bit, mode filters, `scountovf`, LCOFI.
    pub sscofpmf: bool,
    /// Smcntrpmf: `mcyclecfg`, `minstretcfg` mode filters.
    pub smcntrpmf: bool,
    /// Cycles a load or store waits for data memory beyond a single-cycle
    /// instruction (Ibex's NumCyclesLSU per access), from the core's
    /// latencies.
    pub lsu_wait: u32,
    /// Cycles a multiply waits beyond a single-cycle instruction (Ibex's
    /// NumCyclesMulWait per `mul*`), from the core's latencies.
    pub mul_wait: u32,
    /// The same for a divide or remainder (NumCyclesDivWait).
    pub div_wait: u32,
}

/// Execution events of the `generic` encoding, `0x200 + j` (j = index).
pub const GENERIC_EXEC: [&str; 16] = [
    "jumps",
    "branches_taken",
    "compressed",
    "jal",
    "jalr",
    "mul",
    "div",
    "atomic",
    "system",
    "csr",
    "fp_load",
    "fp_store",
    "fp_arith",
    "int_arith",
    "mul_wait_cycles",
    "div_wait_cycles",
];

// Instruction properties a class counter selects (one bit each).
const P_LOAD: u32 = 1 << 0;
const P_STORE: u32 = 1 << 1;
const P_ATOMIC: u32 = 1 << 2;
const P_SYSTEM: u32 = 1 << 3;
const P_ARITH: u32 = 1 << 4;
const P_BRANCH: u32 = 1 << 5;
const P_JAL: u32 = 1 << 6;
const P_JALR: u32 = 1 << 7;
const P_MUL: u32 = 1 << 8;
const P_DIV: u32 = 1 << 9;
const P_FP_LOAD: u32 = 1 << 10;
const P_FP_STORE: u32 = 1 << 11;
const P_FP_ADD: u32 = 1 << 12;
const P_FP_MUL: u32 = 1 << 13;
const P_FP_FMA: u32 = 1 << 14;
const P_FP_DIV: u32 = 1 << 15;
const P_FP_OTHER: u32 = 1 << 16;
const P_TAKEN: u32 = 1 << 17;
const P_COMPRESSED: u32 = 1 << 18;
const P_CSR: u32 = 1 << 19;
/// Not an instruction property: a trap was taken (U74 "exception taken").
const P_EXCEPTION: u32 = 1 << 20;
const P_FP_ARITH: u32 = P_FP_ADD | P_FP_MUL | P_FP_FMA | P_FP_DIV | P_FP_OTHER;

/// The class properties of one retired instruction (`taken`: it is a
/// branch or jump that left the straight line).
fn props(inst: &Inst, taken: bool) -> u32 {
    let class = match inst.op.class() {
        InstClass::Load => P_LOAD,
        InstClass::Store => P_STORE,
        InstClass::Atomic => P_ATOMIC,
        InstClass::Csr => P_CSR | P_SYSTEM,
        InstClass::Fence | InstClass::System => P_SYSTEM,
        InstClass::Alu | InstClass::Shift => P_ARITH,
        InstClass::Branch => P_BRANCH,
        InstClass::Jal => P_JAL,
        InstClass::Jalr => P_JALR,
        InstClass::Mul | InstClass::MulH => P_MUL,
        InstClass::Div => P_DIV,
        InstClass::FpLoad => P_FP_LOAD,
        InstClass::FpStore => P_FP_STORE,
        InstClass::FpAdd => P_FP_ADD,
        InstClass::FpMul => P_FP_MUL,
        InstClass::FpFma => P_FP_FMA,
        InstClass::FpDiv | InstClass::FpSqrt => P_FP_DIV,
        InstClass::FpCvt | InstClass::FpMove | InstClass::FpCmp => P_FP_OTHER,
        InstClass::Illegal => 0,
    };
    let mut p = class;
    if taken {
        p |= P_TAKEN;
    }
    if inst.len == 2 {
        p |= P_COMPRESSED;
    }
    if matches!(inst.op, Op::SfenceVma | Op::FenceI) {
        p |= P_SYSTEM;
    }
    p
}

/// What a counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Nothing (event 0 or an event the core does not have).
    None,
    /// Retired instructions.
    Retired,
    /// Cycles: the timing model's, else one per retired instruction.
    Cycles,
    /// The sum of the timing-model events in the mask (bit i = event i of
    /// [`MODEL_EVENTS`]); nothing without a model.
    Model(u16),
    /// Retired instructions with any of the properties in `mask`, each
    /// adding `weight`; `taken_only`: only branches and jumps that left
    /// the straight line count.
    Class {
        mask: u32,
        weight: u32,
        taken_only: bool,
    },
}

impl Source {
    fn is_class(self) -> bool {
        matches!(self, Source::Class { .. })
    }
}

/// The source readings a lazy counter is measured against.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Now {
    /// Retired instructions.
    pub retired: u64,
    /// Cycles (modelled, or retired instructions).
    pub cycles: u64,
    /// Timing-model totals (zero without a model).
    pub model: [u64; MODEL_EVENTS],
}

impl Now {
    fn read(&self, src: Source) -> u64 {
        match src {
            Source::None | Source::Class { .. } => 0,
            Source::Retired => self.retired,
            Source::Cycles => self.cycles,
            Source::Model(mask) => (0..MODEL_EVENTS)
                .filter(|i| mask >> i & 1 != 0)
                .fold(0u64, |s, i| s.wrapping_add(self.model[i])),
        }
    }
}

/// `mhpmeventN`/`mcyclecfg`/`minstretcfg` filter and overflow bits
/// (Sscofpmf 1.0, Smcntrpmf 1.0; RV64 positions, in `...h` bits 31:26 on
/// RV32).
const OF: u64 = 1 << 63;
const MINH: u64 = 1 << 62;
const SINH: u64 = 1 << 61;
const UINH: u64 = 1 << 60;
const VSINH: u64 = 1 << 59;
const VUINH: u64 = 1 << 58;
const FILTER_BITS: u64 = MINH | SINH | UINH | VSINH | VUINH;

/// One counter's state.
#[derive(Clone, Copy, Debug)]
struct Counter {
    /// The value at the last rebase (class counters: the current value).
    base: u64,
    /// The source reading at the last rebase.
    at: u64,
    /// Whether it counted since the last rebase.
    counting: bool,
    source: Source,
    /// `mhpmeventN` as stored (selector plus Sscofpmf bits); for counters
    /// 0 and 2 the Smcntrpmf configuration (`mcyclecfg`/`minstretcfg`).
    event: u64,
    /// A write to the counter during the block being executed: the block's
    /// accounting must not add to it (the write wins, §3.1.11).
    written: bool,
}

impl Default for Counter {
    fn default() -> Counter {
        Counter {
            base: 0,
            at: 0,
            counting: false,
            source: Source::None,
            event: 0,
            written: false,
        }
    }
}

/// The hart's PMU state (see the module docs).
#[derive(Clone, Debug)]
pub struct Pmu {
    config: Option<PmuConfig>,
    counters: [Counter; 32],
    /// `mcountinhibit` as stored (every bit, as QEMU 7.2 stores it).
    pub(crate) inhibit: u64,
    /// A class counter counts: translated code must not run, blocks are
    /// accounted after they run.
    pub(crate) class_live: bool,
    /// A counter counts a timing-model event: CSR reads fetch the model's
    /// event vector.
    pub(crate) model_live: bool,
    /// A counting counter has a privilege-mode filter: traps and
    /// `mret`/`sret` rebase.
    pub(crate) mode_filtered: bool,
    /// An overflow may need watching (Sscofpmf, a counting counter with OF
    /// clear).
    pub(crate) watch_overflow: bool,
    /// Timing-model totals before the current CSR instruction (fetched
    /// before it executes while [`Pmu::model_live`]).
    pub(crate) model_now: [u64; MODEL_EVENTS],
    /// `mip.LCOFIP` must be raised (an overflow with OF clear).
    pub(crate) raise_lcofi: bool,
}

impl Default for Pmu {
    fn default() -> Pmu {
        let mut counters = [Counter::default(); 32];
        counters[0].source = Source::Cycles;
        counters[0].counting = true;
        counters[2].source = Source::Retired;
        counters[2].counting = true;
        Pmu {
            config: None,
            counters,
            inhibit: 0,
            class_live: false,
            model_live: false,
            mode_filtered: false,
            watch_overflow: false,
            model_now: [0; MODEL_EVENTS],
            raise_lcofi: false,
        }
    }
}

impl Pmu {
    /// Install a core's counters (at reset, before the run).
    pub(crate) fn configure(&mut self, config: Option<PmuConfig>, now: &Now) {
        let mut c = config;
        if let Some(cfg) = c.as_mut() {
            cfg.counters = cfg.counters.min(29);
            cfg.width = cfg.width.clamp(1, 64);
        }
        self.config = c;
        for i in 3..32 {
            self.counters[i] = Counter::default();
            if let Some(EventCoding::Ibex) = c.map(|c| c.coding) {
                if self.implemented(i) {
                    self.counters[i].event = 1 << i;
                }
            }
        }
        self.refresh(now, Privilege::Machine);
    }

    /// A new Linux thread (a copy of its parent hart, its counts from
    /// zero): every counter starts again from 0 at source readings 0.
    pub(crate) fn restart(&mut self) {
        for c in &mut self.counters {
            c.base = 0;
            c.at = 0;
        }
    }

    /// Whether counter `i` (0..32) exists.
    fn implemented(&self, i: usize) -> bool {
        match i {
            0 | 2 => true,
            1 => false,
            _ => self.config.is_some_and(|c| i < 3 + usize::from(c.counters)),
        }
    }

    fn width(&self, i: usize) -> u32 {
        if i < 3 {
            64
        } else {
            self.config.map_or(64, |c| u32::from(c.width))
        }
    }

    fn mask(&self, i: usize) -> u64 {
        let w = self.width(i);
        if w >= 64 {
            u64::MAX
        } else {
            (1u64 << w) - 1
        }
    }

    fn sscofpmf(&self) -> bool {
        self.config.is_some_and(|c| c.sscofpmf)
    }

    fn smcntrpmf(&self) -> bool {
        self.config.is_some_and(|c| c.smcntrpmf)
    }

    /// What counter `i` counts with its current event.
    fn decode(&self, i: usize) -> Source {
        let ev = self.counters[i].event;
        match i {
            0 => return Source::Cycles,
            2 => return Source::Retired,
            _ => {}
        }
        let Some(cfg) = self.config.filter(|_| self.implemented(i)) else {
            return Source::None;
        };
        let class = |mask: u32| Source::Class {
            mask,
            weight: 1,
            taken_only: false,
        };
        let model = |events: &[usize]| Source::Model(events.iter().fold(0, |m, &e| m | 1 << e));
        use model_ev::*;
        match cfg.coding {
            EventCoding::Ibex => match i {
                3 => Source::Class {
                    mask: P_LOAD | P_STORE,
                    weight: cfg.lsu_wait,
                    taken_only: false,
                },
                4 => model(&[STALL_ICACHE]),
                5 => class(P_LOAD),
                6 => class(P_STORE),
                7 => class(P_JAL | P_JALR),
                8 => class(P_BRANCH),
                9 => Source::Class {
                    mask: P_BRANCH,
                    weight: 1,
                    taken_only: true,
                },
                10 => class(P_COMPRESSED),
                11 => Source::Class {
                    mask: P_MUL,
                    weight: cfg.mul_wait,
                    taken_only: false,
                },
                12 => Source::Class {
                    mask: P_DIV,
                    weight: cfg.div_wait,
                    taken_only: false,
                },
                _ => Source::None,
            },
            EventCoding::U74 => {
                let sel = (ev & !(OF | FILTER_BITS)) >> 8;
                match ev & 0xff {
                    0 => {
                        const BITS: [u32; 18] = [
                            P_EXCEPTION,
                            P_LOAD,
                            P_STORE,
                            P_ATOMIC,
                            P_SYSTEM,
                            P_ARITH,
                            P_BRANCH,
                            P_JAL,
                            P_JALR,
                            P_MUL,
                            P_DIV,
                            P_FP_LOAD,
                            P_FP_STORE,
                            P_FP_ADD,
                            P_FP_MUL,
                            P_FP_FMA,
                            P_FP_DIV,
                            P_FP_OTHER,
                        ];
                        let mask = BITS
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| sel >> k & 1 != 0)
                            .fold(0, |m, (_, &b)| m | b);
                        if mask == 0 {
                            Source::None
                        } else {
                            class(mask)
                        }
                    }
                    1 | 2 => {
                        // Class 1: microarchitectural events; class 2:
                        // memory-system events. Those the model has.
                        let table: &[(u32, usize)] = if ev & 0xff == 1 {
                            &[
                                (0, STALL_LOAD_USE),
                                (3, STALL_ICACHE),
                                (4, STALL_DCACHE),
                                (5, BRANCH_MISPREDICTS),
                                (9, STALL_MULDIV),
                            ]
                        } else {
                            &[(0, ICACHE_MISSES), (1, DCACHE_MISSES)]
                        };
                        let m = table
                            .iter()
                            .filter(|(k, _)| sel >> k & 1 != 0)
                            .fold(0u16, |m, &(_, e)| m | 1 << e);
                        if m == 0 {
                            Source::None
                        } else {
                            Source::Model(m)
                        }
                    }
                    _ => Source::None,
                }
            }
            EventCoding::Generic => match ev & !(OF | FILTER_BITS) {
                0x01 => Source::Cycles,
                0x02 => Source::Retired,
                0x03 => model(&[DCACHE_ACCESSES]),
                0x04 => model(&[DCACHE_MISSES]),
                0x05 => class(P_BRANCH),
                0x06 => model(&[BRANCH_MISPREDICTS]),
                0x100 => Source::Retired,
                0x101 => Source::Cycles,
                0x102 => class(P_LOAD),
                0x103 => class(P_STORE),
                0x104 => class(P_BRANCH),
                e @ 0x105..=0x10f => Source::Model(1 << (e - 0x100)),
                e @ 0x200..=0x20f => match GENERIC_EXEC[(e - 0x200) as usize] {
                    "jumps" => class(P_JAL | P_JALR),
                    "branches_taken" => Source::Class {
                        mask: P_BRANCH,
                        weight: 1,
                        taken_only: true,
                    },
                    "compressed" => class(P_COMPRESSED),
                    "jal" => class(P_JAL),
                    "jalr" => class(P_JALR),
                    "mul" => class(P_MUL),
                    "div" => class(P_DIV),
                    "atomic" => class(P_ATOMIC),
                    "system" => class(P_SYSTEM),
                    "csr" => class(P_CSR),
                    "fp_load" => class(P_FP_LOAD),
                    "fp_store" => class(P_FP_STORE),
                    "fp_arith" => class(P_FP_ARITH),
                    "int_arith" => class(P_ARITH),
                    "mul_wait_cycles" => Source::Class {
                        mask: P_MUL,
                        weight: cfg.mul_wait,
                        taken_only: false,
                    },
                    _ => Source::Class {
                        mask: P_DIV,
                        weight: cfg.div_wait,
                        taken_only: false,
                    },
                },
                _ => Source::None,
            },
        }
    }

    /// Whether counter `i` counts in privilege `p` (`mcountinhibit`, the
    /// Sscofpmf/Smcntrpmf mode filters).
    fn counts_in(&self, i: usize, p: Privilege) -> bool {
        if self.inhibit >> i & 1 != 0 || self.counters[i].source == Source::None {
            return false;
        }
        let filtered = (i >= 3 && self.sscofpmf()) || (i != 1 && i < 3 && self.smcntrpmf());
        if !filtered {
            return true;
        }
        let bit = match p {
            Privilege::Machine => MINH,
            Privilege::Supervisor => SINH,
            Privilege::User => UINH,
        };
        self.counters[i].event & bit == 0
    }

    /// Counter `i`'s full (unmasked) value at `now`, and whether it has
    /// wrapped since its base.
    fn value(&self, i: usize, now: &Now) -> (u64, bool) {
        let c = &self.counters[i];
        if !c.counting || c.source.is_class() {
            return (c.base & self.mask(i), false);
        }
        let delta = now.read(c.source).wrapping_sub(c.at);
        let mask = self.mask(i);
        let (sum, carry) = (c.base & mask).overflowing_add(delta);
        let wrapped = carry || sum > mask;
        (sum & mask, wrapped)
    }

    /// Take every counter's base again at `now` (its value so far), then
    /// recompute what counts in privilege `p`. Overflows found on the way
    /// set OF (and ask for LCOFI).
    pub(crate) fn rebase(&mut self, now: &Now, p: Privilege) {
        for i in [0, 2].into_iter().chain(3..32) {
            let (v, wrapped) = self.value(i, now);
            if wrapped {
                self.overflowed(i);
            }
            let counting = self.counts_in(i, p);
            let c = &mut self.counters[i];
            c.base = v;
            c.at = now.read(c.source);
            c.counting = counting;
        }
        self.flags();
    }

    /// Recompute sources and the fast-path flags (after a write to an
    /// event, `mcountinhibit` or a configuration).
    fn refresh(&mut self, now: &Now, p: Privilege) {
        // Values first, with the old sources.
        for i in [0, 2].into_iter().chain(3..32) {
            let (v, wrapped) = self.value(i, now);
            if wrapped {
                self.overflowed(i);
            }
            self.counters[i].base = v;
        }
        for i in [0, 2].into_iter().chain(3..32) {
            let source = self.decode(i);
            self.counters[i].source = source;
            let counting = self.counts_in(i, p);
            let c = &mut self.counters[i];
            c.at = now.read(source);
            c.counting = counting;
        }
        self.flags();
    }

    fn flags(&mut self) {
        let live = |c: &Counter| c.counting && c.source != Source::None;
        let filtered_any = |i: usize| {
            let c = &self.counters[i];
            c.source != Source::None
                && self.inhibit >> i & 1 == 0
                && c.event & FILTER_BITS != 0
                && ((i >= 3 && self.sscofpmf()) || (i < 3 && self.smcntrpmf()))
        };
        // A filtered counter that does not count now may count after the
        // next privilege change: it needs the rebase too.
        self.mode_filtered = (0..32).any(filtered_any);
        self.class_live = self.counters.iter().any(|c| live(c) && c.source.is_class());
        self.model_live = self
            .counters
            .iter()
            .any(|c| live(c) && matches!(c.source, Source::Model(_)));
        self.watch_overflow = self.sscofpmf()
            && (3..32).any(|i| live(&self.counters[i]) && self.counters[i].event & OF == 0);
    }

    fn overflowed(&mut self, i: usize) {
        if i >= 3 && self.sscofpmf() {
            if self.counters[i].event & OF == 0 {
                self.raise_lcofi = true;
            }
            self.counters[i].event |= OF;
        }
    }

    /// Count a block's retired instructions `insts` (the last one `taken`
    /// if it is a branch or jump that left the straight line) into the
    /// class counters.
    pub(crate) fn account(&mut self, insts: &[Inst], taken_last: bool) {
        // The class counters that count this block.
        let mut live = [(0usize, 0u32, false); 29];
        let mut n_live = 0;
        for i in 3..32 {
            let c = &mut self.counters[i];
            if std::mem::take(&mut c.written) {
                continue;
            }
            if let Source::Class {
                mask, taken_only, ..
            } = c.source
            {
                if c.counting {
                    live[n_live] = (i, mask, taken_only);
                    n_live += 1;
                }
            }
        }
        let live = &live[..n_live];
        if live.is_empty() {
            return;
        }
        // Each instruction's properties once, against every counter.
        let mut hits = [0u64; 29];
        let n = insts.len();
        for (k, inst) in insts.iter().enumerate() {
            let taken = taken_last && k + 1 == n;
            let p = props(inst, taken);
            for (h, &(_, mask, taken_only)) in hits.iter_mut().zip(live) {
                if p & mask != 0 && (!taken_only || taken) {
                    *h += 1;
                }
            }
        }
        for (&h, &(i, ..)) in hits.iter().zip(live) {
            if let Source::Class { weight, .. } = self.counters[i].source {
                self.add(i, h * u64::from(weight));
            }
        }
    }

    /// A trap was taken (U74's "exception taken").
    pub(crate) fn account_trap(&mut self) {
        for i in 3..32 {
            let c = self.counters[i];
            if let Source::Class { mask, .. } = c.source {
                if c.counting && mask & P_EXCEPTION != 0 {
                    self.add(i, 1);
                }
            }
        }
    }

    fn add(&mut self, i: usize, n: u64) {
        if n == 0 {
            return;
        }
        let mask = self.mask(i);
        let (sum, carry) = self.counters[i].base.overflowing_add(n);
        if carry || sum > mask {
            self.overflowed(i);
        }
        self.counters[i].base = sum & mask;
    }

    /// The fewest instructions after which a counter can next wrap, if
    /// overflow is watched (Sscofpmf): `None` when nothing can overflow.
    /// Counters of cycles and model events give 1/16 of what is left (at
    /// least 1).
    pub(crate) fn overflow_distance(&self, now: &Now) -> Option<u64> {
        if !self.watch_overflow {
            return None;
        }
        let mut best: Option<u64> = None;
        for i in 3..32 {
            let c = &self.counters[i];
            if !c.counting || c.event & OF != 0 {
                continue;
            }
            let (v, wrapped) = self.value(i, now);
            if wrapped {
                // Already past the wrap: look now.
                return Some(0);
            }
            // Increments until the wrap (> 0: v <= mask; 2^64 saturates).
            let left = (self.mask(i) - v).saturating_add(1);
            let d = match c.source {
                Source::None => continue,
                Source::Retired => left,
                Source::Class { weight, .. } => left.div_ceil(u64::from(weight.max(1))),
                Source::Cycles | Source::Model(_) => (left / 16).max(1),
            };
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        best
    }

    /// Read a PMU CSR (counters, their high halves, events, the inhibit
    /// and configuration registers, `scountovf`); `None` if `csr` is not
    /// one. `now` are the readings before the reading instruction.
    pub(crate) fn read(
        &self,
        csr: u16,
        now: &Now,
        rv64: bool,
        mcounteren: u64,
        m_mode: bool,
    ) -> Option<u64> {
        let hi = |v: u64| v >> 32;
        Some(match csr {
            0xB00 | 0xC00 => self.value(0, now).0,
            0xB02 | 0xC02 => self.value(2, now).0,
            0xB80 | 0xC80 if !rv64 => hi(self.value(0, now).0),
            0xB82 | 0xC82 if !rv64 => hi(self.value(2, now).0),
            0xB03..=0xB1F | 0xC03..=0xC1F => {
                let i = usize::from(csr & 0x1f);
                if self.implemented(i) {
                    self.value(i, now).0
                } else {
                    0
                }
            }
            0xB83..=0xB9F | 0xC83..=0xC9F if !rv64 => {
                let i = usize::from(csr & 0x1f);
                if self.implemented(i) {
                    hi(self.value(i, now).0)
                } else {
                    0
                }
            }
            0x320 => self.inhibit,
            0x321 if self.smcntrpmf() => self.cfg_low(0, rv64),
            0x322 if self.smcntrpmf() => self.cfg_low(2, rv64),
            0x721 if self.smcntrpmf() && !rv64 => hi(self.counters[0].event),
            0x722 if self.smcntrpmf() && !rv64 => hi(self.counters[2].event),
            0x323..=0x33F => {
                let i = usize::from(csr - 0x320);
                if self.implemented(i) {
                    self.cfg_low(i, rv64)
                } else {
                    0
                }
            }
            0x723..=0x73F if self.sscofpmf() && !rv64 => {
                let i = usize::from(csr - 0x720);
                if self.implemented(i) {
                    hi(self.counters[i].event)
                } else {
                    0
                }
            }
            0xDA0 if self.sscofpmf() => {
                let mut v = 0;
                for i in 3..32 {
                    if self.counters[i].event & OF != 0 && (m_mode || mcounteren >> i & 1 != 0) {
                        v |= 1 << i;
                    }
                }
                v
            }
            _ => return None,
        })
    }

    /// An event/configuration register's XLEN-wide low part.
    fn cfg_low(&self, i: usize, rv64: bool) -> u64 {
        let e = self.counters[i].event;
        if rv64 {
            e
        } else {
            e & 0xffff_ffff
        }
    }

    /// Write a PMU CSR; false if `csr` is not one (or read-only). `now`
    /// are the readings before the writing instruction, `after` the
    /// readings once it retired (a written counter reads `v` at the next
    /// instruction), `p` the current privilege.
    pub(crate) fn write(
        &mut self,
        csr: u16,
        v: u64,
        (now, after): (&Now, &Now),
        rv64: bool,
        p: Privilege,
    ) -> bool {
        let now = *now;
        let lo = |old: u64| {
            if rv64 {
                v
            } else {
                (old & !0xffff_ffff) | (v & 0xffff_ffff)
            }
        };
        let hi = |old: u64| (old & 0xffff_ffff) | v << 32;
        match csr {
            0xB00 | 0xB02 | 0xB03..=0xB1F | 0xB80 | 0xB82 | 0xB83..=0xB9F => {
                let i = usize::from(csr & 0x1f);
                if !self.implemented(i) || (csr >= 0xB80 && rv64) {
                    return true;
                }
                // Everything else up to this instruction first.
                self.rebase(&now, p);
                let old = self.value(i, after).0;
                let new = if csr >= 0xB80 { hi(old) } else { lo(old) } & self.mask(i);
                let c = &mut self.counters[i];
                c.base = new;
                c.at = after.read(c.source);
                c.written = c.source.is_class();
                true
            }
            0x320 => {
                self.rebase(&now, p);
                self.inhibit = v;
                self.refresh(after, p);
                true
            }
            0x321 | 0x322 | 0x721 | 0x722 if self.smcntrpmf() => {
                if csr >= 0x721 && rv64 {
                    return false;
                }
                let i = if csr & 0xf == 1 { 0 } else { 2 };
                self.rebase(&now, p);
                let old = self.counters[i].event;
                let new = if csr >= 0x721 { hi(old) } else { lo(old) };
                // Only the filter bits exist (Smcntrpmf 1.0, §1.1).
                self.counters[i].event = new & FILTER_BITS;
                self.refresh(after, p);
                true
            }
            0x323..=0x33F | 0x723..=0x73F => {
                let high = csr >= 0x723;
                if high && (rv64 || !self.sscofpmf()) {
                    return false;
                }
                let i = usize::from(csr & 0x1f);
                let ibex = self.config.is_some_and(|c| c.coding == EventCoding::Ibex);
                if !self.implemented(i) || ibex {
                    return true;
                }
                self.rebase(&now, p);
                let old = self.counters[i].event;
                let mut new = if high { hi(old) } else { lo(old) };
                if !self.sscofpmf() {
                    new &= !(OF | FILTER_BITS);
                }
                self.counters[i].event = new;
                self.refresh(after, p);
                true
            }
            _ => false,
        }
    }

    /// Whether `csr` is a read-only-zero counter register of an
    /// unimplemented or absent feature that must raise illegal
    /// instruction instead (Smcntrpmf and Sscofpmf registers without the
    /// extension).
    pub(crate) fn absent(&self, csr: u16, rv64: bool) -> bool {
        match csr {
            0x321 | 0x322 => !self.smcntrpmf(),
            0x721 | 0x722 => rv64 || !self.smcntrpmf(),
            0x723..=0x73F => rv64 || !self.sscofpmf(),
            0xDA0 => !self.sscofpmf(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_isa::{decode, Xlen};

    fn generic() -> PmuConfig {
        PmuConfig {
            counters: 8,
            width: 64,
            coding: EventCoding::Generic,
            sscofpmf: true,
            smcntrpmf: true,
            lsu_wait: 1,
            mul_wait: 2,
            div_wait: 30,
        }
    }

    fn at(retired: u64) -> Now {
        Now {
            retired,
            cycles: retired * 2,
            model: [0; MODEL_EVENTS],
        }
    }

    fn pmu(cfg: PmuConfig) -> Pmu {
        let mut p = Pmu::default();
        p.configure(Some(cfg), &at(0));
        p
    }

    fn read(p: &mut Pmu, csr: u16, now: Now) -> u64 {
        p.read(csr, &now, true, 0, true).unwrap()
    }

    fn write(p: &mut Pmu, csr: u16, v: u64, now: Now) {
        let mut after = at(now.retired + 1);
        after.model = now.model;
        assert!(p.write(csr, v, (&now, &after), true, Privilege::Machine));
    }

    #[test]
    fn minstret_inhibit_freezes_and_resumes() {
        let mut p = pmu(generic());
        assert_eq!(read(&mut p, 0xB02, at(10)), 10);
        write(&mut p, 0x320, 0b100, at(10));
        assert_eq!(read(&mut p, 0xB02, at(50)), 11);
        write(&mut p, 0x320, 0, at(50));
        // The write retired uncounted; counting resumes after it.
        assert_eq!(read(&mut p, 0xB02, at(60)), 11 + 9);
        assert_eq!(read(&mut p, 0xB00, at(60)), 2 * 60);
    }

    #[test]
    fn hpm_counter_of_instructions_wraps_and_sets_of() {
        let mut cfg = generic();
        cfg.width = 8;
        let mut p = pmu(cfg);
        write(&mut p, 0x323, 0x02, at(0)); // instructions
        write(&mut p, 0xB03, 250, at(1));
        assert_eq!(p.overflow_distance(&at(2)), Some(6));
        assert_eq!(read(&mut p, 0xB03, at(7)), 255);
        p.rebase(&at(8), Privilege::Machine);
        assert!(p.raise_lcofi);
        assert_eq!(read(&mut p, 0xB03, at(8)), 0);
        assert_eq!(read(&mut p, 0x323, at(8)) >> 63, 1);
        assert_eq!(read(&mut p, 0xDA0, at(8)), 1 << 3);
        // OF set: no further interrupt is watched for this counter.
        assert_eq!(p.overflow_distance(&at(8)), None);
    }

    #[test]
    fn mode_filters_count_only_outside_machine_mode() {
        let mut p = pmu(generic());
        write(&mut p, 0x324, MINH | 0x02, at(0));
        // M-mode until 100, then U-mode until 150, then M again.
        p.rebase(&at(100), Privilege::User);
        p.rebase(&at(150), Privilege::Machine);
        assert_eq!(read(&mut p, 0xB04, at(400)), 50);
        assert!(p.mode_filtered);
        // minstretcfg.UINH: minstret stops in U-mode.
        write(&mut p, 0x322, UINH, at(400));
        p.rebase(&at(500), Privilege::User);
        p.rebase(&at(700), Privilege::Machine);
        assert_eq!(read(&mut p, 0xB02, at(800)), 800 - 200);
    }

    #[test]
    fn class_counters_count_decoded_instructions() {
        let mut p = pmu(generic());
        write(&mut p, 0x323, 0x102, at(0)); // loads
        write(&mut p, 0x324, 0x201, at(0)); // taken branches
        write(&mut p, 0x325, 0x202, at(0)); // compressed
        assert!(p.class_live);
        // The writes' own block is not counted for the written counters
        // only; these are event writes: nothing written to the counters.
        let lw = decode(0x0005_2503, Xlen::Rv64); // lw a0, 0(a0)
        let beq = decode(0x0000_0463, Xlen::Rv64); // beq zero, zero, 8
        let cli = decode(0x4505, Xlen::Rv64); // c.li a0, 1
        p.account(&[lw, cli, beq], true);
        p.account(&[lw, beq], false);
        assert_eq!(read(&mut p, 0xB03, at(0)), 2);
        assert_eq!(read(&mut p, 0xB04, at(0)), 1);
        assert_eq!(read(&mut p, 0xB05, at(0)), 1);
    }

    #[test]
    fn ibex_events_are_fixed() {
        let mut cfg = generic();
        cfg.coding = EventCoding::Ibex;
        cfg.counters = 10;
        cfg.width = 40;
        cfg.sscofpmf = false;
        let mut p = pmu(cfg);
        assert_eq!(read(&mut p, 0x325, at(0)), 1 << 5);
        write(&mut p, 0x325, 0, at(0));
        assert_eq!(read(&mut p, 0x325, at(0)), 1 << 5);
        let mul = decode(0x02b5_0533, Xlen::Rv64); // mul a0, a0, a1
        p.account(&[mul, mul], false);
        assert_eq!(read(&mut p, 0xB0B, at(0)), 2 * 2); // NumCyclesMulWait
        assert!(p.absent(0xDA0, true));
        // Counter 13 does not exist: reads zero.
        assert_eq!(read(&mut p, 0xB0D, at(0)), 0);
    }

    #[test]
    fn u74_selectors() {
        let mut cfg = generic();
        cfg.coding = EventCoding::U74;
        cfg.counters = 2;
        cfg.width = 40;
        cfg.sscofpmf = false;
        let mut p = pmu(cfg);
        write(&mut p, 0x323, 0x0000200, at(0)); // integer load retired
        write(&mut p, 0x324, 0x0002001, at(0)); // branch direction misprediction
        let lw = decode(0x0005_2503, Xlen::Rv64);
        p.account(&[lw, lw], false);
        assert_eq!(read(&mut p, 0xB03, at(0)), 2);
        let mut now = at(0);
        now.model[model_ev::BRANCH_MISPREDICTS] = 7;
        assert_eq!(read(&mut p, 0xB04, now), 7);
        assert!(p.model_live);
        // Without Sscofpmf the filter bits do not exist.
        write(&mut p, 0x323, MINH | 0x200, at(0));
        assert_eq!(read(&mut p, 0x323, at(0)), 0x200);
    }
}
