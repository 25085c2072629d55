//! What every collector keeps about traps alike: the counts and interrupt
//! latencies per cause ([`TrapCounts`]), and, for collectors that do not
//! track calls (the sampler), the trap contexts open right now and the
//! privilege the hart runs at ([`TrapTracker`], a hooks type of its own).
//! Linux signal handlers open contexts as traps do ([`RootKind::Signal`]),
//! which are not counted per cause: they are not RISC-V traps.

use fwprof_sim::{CodeContext, Hooks, SignalDelivery, SignalReturn, TrapInfo, TrapReturn};

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

/// What a context's synthetic root stands for (see
/// [`FunctionMap::context_root`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootKind {
    /// A trap cause: exception code without the interrupt bit, and
    /// whether it is an interrupt (`[interrupt: machine timer]`).
    Trap {
        /// Exception code.
        code: u64,
        /// True for an interrupt.
        interrupt: bool,
    },
    /// A Linux signal handler (`[signal: SIGSEGV]`).
    Signal(i32),
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

/// A trap (or signal) context open now: its root function, the handler's
/// first pc and the pc it interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenTrap {
    /// The cause's synthetic root function (an index into
    /// [`TrapTracker::roots`]).
    pub root: u32,
    /// The handler's first instruction ([`TrapInfo::handler`]).
    pub handler: u64,
    /// The interrupted (or trapping) pc ([`TrapInfo::pc`]).
    pub pc: u64,
}

/// Where a signal handler runs, to tell when a non-local exit
/// (`siglongjmp`) has left it: the `sp` it interrupted, and the alternate
/// stack it runs on, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalStack {
    /// `sp` at the interrupted pc.
    pub sp: u64,
    /// `[base, end)` of the alternate signal stack the handler runs on.
    pub alt: Option<(u64, u64)>,
}

impl SignalStack {
    /// True if a thread whose `sp` is `sp` has left the handler: it runs
    /// at or above the `sp` the signal interrupted, off the alternate
    /// stack (while the handler runs, `sp` is below the interrupted one,
    /// or on its alternate stack).
    pub fn left_at(&self, sp: u64) -> bool {
        let on_alt = self.alt.is_some_and(|(lo, hi)| (lo..hi).contains(&sp));
        !on_alt && sp >= self.sp
    }
}

/// Hooks that follow traps without tracking calls: the trap contexts open
/// now (an `mret`/`sret` closes the innermost; one with none open is
/// start-up code changing privilege), the current privilege, and the
/// counts per cause. A Linux signal handler opens a context too, which
/// its `rt_sigreturn` closes, or a non-local exit out of it (`siglongjmp`)
/// when the next signal delivery or return finds `sp` above the
/// interrupted one. Roots are numbered in its own id space
/// ([`TrapTracker::roots`]); the owner maps them into its [`FunctionMap`]
/// ([`FunctionMap::context_root`], and [`TrapTracker::counts_in`] for
/// the trap counts).
#[derive(Clone, Debug, Default)]
pub struct TrapTracker {
    open: Vec<OpenTrap>,
    /// Per open context: the stack of a signal context (`None` for a trap).
    signal_sp: Vec<Option<SignalStack>>,
    privilege: Option<u8>,
    counts: TrapCounts,
    /// What each root stands for, by index: ids given out are indices
    /// until the owner maps them.
    roots: Vec<RootKind>,
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

    /// What each root stands for, by root index.
    pub fn roots(&self) -> &[RootKind] {
        &self.roots
    }

    /// The index of `kind`'s root, created on first use.
    fn root(&mut self, kind: RootKind) -> u32 {
        (match self.roots.iter().position(|&r| r == kind) {
            Some(i) => i,
            None => {
                self.roots.push(kind);
                self.roots.len() - 1
            }
        }) as u32
    }

    /// How many of the open contexts are still open for a thread whose
    /// `sp` is `sp`: the signal contexts a non-local exit left
    /// ([`SignalStack::left_at`]) are closed, with everything above them.
    fn still_open(&self, sp: u64) -> usize {
        self.signal_sp
            .iter()
            .position(|s| s.is_some_and(|s| s.left_at(sp)))
            .unwrap_or(self.open.len())
    }

    /// [`TrapTracker::open`] for a thread whose `sp` is `sp`: without the
    /// signal contexts it has left by a non-local exit (`siglongjmp` out
    /// of a handler, which no hook reports).
    pub fn open_at(&self, sp: u64) -> &[OpenTrap] {
        &self.open[..self.still_open(sp)]
    }

    /// Close the contexts [`TrapTracker::open_at`] leaves out.
    fn resync(&mut self, sp: u64) {
        let n = self.still_open(sp);
        self.open.truncate(n);
        self.signal_sp.truncate(n);
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
        let root = self.root(RootKind::Trap {
            code: trap.cause,
            interrupt: trap.interrupt,
        });
        self.counts.count(&trap, root);
        self.open.push(OpenTrap {
            root,
            handler: trap.handler,
            pc: trap.pc,
        });
        self.signal_sp.push(None);
        self.privilege = Some(trap.to.bits() as u8);
    }

    fn on_trap_return(&mut self, ret: &TrapReturn) {
        self.open.pop();
        self.signal_sp.pop();
        self.privilege = Some(ret.to.bits() as u8);
    }

    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.resync(signal.sp);
        let root = self.root(RootKind::Signal(signal.signo));
        self.open.push(OpenTrap {
            root,
            handler: signal.handler,
            pc: signal.pc,
        });
        self.signal_sp.push(Some(SignalStack {
            sp: signal.sp,
            alt: signal.alt_stack,
        }));
    }

    fn on_signal_return(&mut self, ret: &SignalReturn) {
        if let Some(i) = self.signal_sp.iter().rposition(Option::is_some) {
            self.open.truncate(i);
            self.signal_sp.truncate(i);
        }
        self.resync(ret.sp);
    }
}
