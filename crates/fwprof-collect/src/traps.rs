//! What every collector keeps about traps alike: the counts and interrupt
//! latencies per cause ([`TrapCounts`]), and, for collectors that do not
//! track calls (the sampler), the trap contexts open right now and the
//! privilege the hart runs at ([`TrapTracker`], a hooks type of its own).

use fwprof_sim::{CodeContext, Hooks, TrapInfo, TrapReturn};

use crate::FunctionMap;

/// Minimum, maximum and sum of a series of values (e.g. interrupt
/// latencies), and how many there were.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spread {
    /// Values added.
    pub count: u64,
    /// Smallest value (0 when `count` is 0).
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// Sum of the values.
    pub total: u64,
}

impl Spread {
    /// Add one value.
    pub fn add(&mut self, v: u64) {
        self.min = if self.count == 0 { v } else { self.min.min(v) };
        self.max = self.max.max(v);
        self.total = self.total.saturating_add(v);
        self.count += 1;
    }
}

/// Trap contexts of one cause, as the collector saw them taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrapCauseStats {
    /// Exception code without the interrupt bit.
    pub code: u64,
    /// True for an interrupt.
    pub interrupt: bool,
    /// Function id of its synthetic root ([`FunctionMap::trap_root`]).
    pub root: u32,
    /// Traps taken.
    pub count: u64,
    /// Interrupts only: latency in instructions
    /// ([`fwprof_sim::Latency::instructions`]).
    pub latency_instructions: Spread,
    /// Interrupts only: latency in guest nanoseconds
    /// ([`fwprof_sim::Latency::ns`]; 100 ns per modelled cycle with a core
    /// model and no `--icount-shift`).
    pub latency_ns: Spread,
}

/// Counts and latencies per trap cause, in order of first occurrence.
#[derive(Clone, Debug, Default)]
pub struct TrapCounts {
    causes: Vec<TrapCauseStats>,
}

impl TrapCounts {
    /// Count `trap`, whose synthetic root function is `root`.
    pub fn count(&mut self, trap: &TrapInfo, root: u32) {
        let i = match self.causes.iter().position(|c| c.root == root) {
            Some(i) => i,
            None => {
                self.causes.push(TrapCauseStats {
                    code: trap.cause,
                    interrupt: trap.interrupt,
                    root,
                    count: 0,
                    latency_instructions: Spread::default(),
                    latency_ns: Spread::default(),
                });
                self.causes.len() - 1
            }
        };
        let c = &mut self.causes[i];
        c.count += 1;
        if let Some(l) = trap.latency {
            c.latency_instructions.add(l.instructions);
            c.latency_ns.add(l.ns);
        }
    }

    /// The causes seen, in order of first occurrence.
    pub fn causes(&self) -> &[TrapCauseStats] {
        &self.causes
    }
}

/// A trap context open now: its root function, the handler's first pc
/// and the pc it interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenTrap {
    /// The cause's synthetic root function ([`FunctionMap::trap_root`]).
    pub root: u32,
    /// The handler's first instruction ([`TrapInfo::handler`]).
    pub handler: u64,
    /// The interrupted (or trapping) pc ([`TrapInfo::pc`]).
    pub pc: u64,
}

/// Hooks that follow traps without tracking calls: the trap contexts open
/// now (an `mret`/`sret` closes the innermost; one with none open is
/// start-up code changing privilege), the current privilege, and the
/// counts per cause. Trap roots are allocated in its own [`FunctionMap`]
/// id space through [`TrapTracker::roots`]; the owner moves them into its
/// map with [`TrapTracker::counts_in`].
#[derive(Clone, Debug, Default)]
pub struct TrapTracker {
    open: Vec<OpenTrap>,
    privilege: Option<u8>,
    counts: TrapCounts,
    /// `(code, interrupt)` of each root, by index: ids given out are
    /// indices until the owner maps them.
    roots: Vec<(u64, bool)>,
}

impl TrapTracker {
    /// A tracker with nothing open.
    pub fn new() -> TrapTracker {
        TrapTracker::default()
    }

    /// The trap contexts open now, outermost first; their `root` is an
    /// index into [`TrapTracker::roots`].
    pub fn open(&self) -> &[OpenTrap] {
        &self.open
    }

    /// The privilege the hart runs at (0 U, 1 S, 3 M), if known yet.
    pub fn privilege(&self) -> Option<u8> {
        self.privilege
    }

    /// `(code, interrupt)` of each cause seen, by root index.
    pub fn roots(&self) -> &[(u64, bool)] {
        &self.roots
    }

    /// The counts per cause, with their roots as `map`'s trap roots.
    pub fn counts_in(&self, map: &mut FunctionMap) -> Vec<TrapCauseStats> {
        self.counts
            .causes()
            .iter()
            .map(|c| TrapCauseStats {
                root: map.trap_root(c.code, c.interrupt),
                ..*c
            })
            .collect()
    }
}

impl Hooks for TrapTracker {
    fn on_code_context(&mut self, ctx: CodeContext) {
        if self.privilege.is_none() {
            self.privilege = Some(ctx.privilege.bits() as u8);
        }
    }

    fn on_trap(&mut self, trap: TrapInfo, _instret: u64, _sp: u64) {
        let key = (trap.cause, trap.interrupt);
        let root = match self.roots.iter().position(|&r| r == key) {
            Some(i) => i,
            None => {
                self.roots.push(key);
                self.roots.len() - 1
            }
        } as u32;
        self.counts.count(&trap, root);
        self.open.push(OpenTrap {
            root,
            handler: trap.handler,
            pc: trap.pc,
        });
        self.privilege = Some(trap.to.bits() as u8);
    }

    fn on_trap_return(&mut self, ret: &TrapReturn) {
        self.open.pop();
        self.privilege = Some(ret.to.bits() as u8);
    }
}
