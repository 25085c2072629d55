//! The `traps` section: per trap cause, how often it was taken, the cost of
//! its trap contexts and, for interrupts, their latency
//! (`docs/profile-format.md`, "Sections").
//!
//! A trap context is the handler's code run under a synthetic root
//! function named `[interrupt: <name>]` or `[exception: <name>]`
//! (`fwprof_isa::trap_context_name`): a root of the calling-context tree,
//! or for a trap taken inside a handler, a child of the enclosing trap
//! context's root. A cause's costs are computed from the contexts of its
//! root by [`trap_context_costs`], for every recording method alike.

use serde::{Deserialize, Serialize};

use crate::model::{FunctionId, Profile};
use crate::sections::SectionKind;

/// Section `traps`, layout version 1, ancillary: one entry per cause.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapSection {
    /// Causes, interrupts first, each by ascending code.
    pub causes: Vec<TrapCause>,
}

impl SectionKind for TrapSection {
    const NAME: &'static str = "traps";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// The trap contexts of one cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapCause {
    /// True for an interrupt.
    pub interrupt: bool,
    /// Exception code without the interrupt bit (Privileged ISA 20211203,
    /// Table 3.6).
    pub code: u64,
    /// Its synthetic root function (named `[interrupt: …]`/`[exception: …]`).
    pub root: FunctionId,
    /// Traps taken (the root's call count).
    pub count: u64,
    /// Cost of its contexts' handler code, per event, without the traps
    /// nested inside them.
    pub self_cost: Vec<u64>,
    /// Cost of its contexts, per event, nested traps included (a context
    /// nested in one of the same cause counted once).
    pub inclusive: Vec<u64>,
    /// Interrupts: latency from the interrupt becoming pending and enabled
    /// in `mie`/`sie` to the handler's first instruction; `None` for
    /// exceptions (and where the recorder did not measure it).
    pub latency: Option<TrapLatency>,
}

/// Latency of the interrupts of one cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapLatency {
    /// Interrupts measured.
    pub count: u64,
    /// In executed instructions.
    pub instructions: Spread,
    /// In cycles of the core model (`record --core` without
    /// `--icount-shift`), else `None`.
    pub cycles: Option<Spread>,
}

/// Minimum, maximum and sum of a series of values (the average is
/// `total / count`, so that merging two profiles stays exact).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spread {
    /// Smallest value.
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// Sum of the values.
    pub total: u64,
}

impl Spread {
    /// Both series together.
    pub fn merged(self, other: Spread) -> Spread {
        Spread {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
            total: self.total.saturating_add(other.total),
        }
    }
}

impl TrapLatency {
    /// Both profiles' interrupts together (cycles only if both have them).
    pub fn merged(self, other: TrapLatency) -> TrapLatency {
        if self.count == 0 {
            return other;
        }
        if other.count == 0 {
            return self;
        }
        TrapLatency {
            count: self.count + other.count,
            instructions: self.instructions.merged(other.instructions),
            cycles: match (self.cycles, other.cycles) {
                (Some(a), Some(b)) => Some(a.merged(b)),
                _ => None,
            },
        }
    }
}

/// Self and inclusive cost (one value per event) of the trap contexts of
/// `root`, from the profile's calling-context tree: inclusive is the cost
/// of the subtrees of `root`'s contexts that are not inside another of its
/// contexts; self leaves out the subtrees of every root in `roots` (the
/// synthetic roots of all causes) nested inside them.
pub fn trap_context_costs(
    profile: &Profile,
    root: FunctionId,
    roots: &[FunctionId],
) -> (Vec<u64>, Vec<u64>) {
    let n = profile.events.len();
    let c = &profile.contexts;
    let is_root = |i: usize| roots.contains(&c[i].function);
    // Subtree sums, all and stopping at nested trap roots; parents come
    // before children, so a reverse pass sees children first.
    let mut all: Vec<Vec<u64>> = c.iter().map(|x| x.self_cost.clone()).collect();
    let mut own: Vec<Vec<u64>> = all.clone();
    for i in (0..c.len()).rev() {
        if let Some(p) = c[i].parent {
            let p = p as usize;
            for e in 0..n {
                all[p][e] += all[i][e];
                if !is_root(i) {
                    own[p][e] += own[i][e];
                }
            }
        }
    }
    let (mut self_cost, mut inclusive) = (vec![0; n], vec![0; n]);
    for i in 0..c.len() {
        if c[i].function != root {
            continue;
        }
        for e in 0..n {
            self_cost[e] += own[i][e];
        }
        let mut p = c[i].parent;
        let mut nested = false;
        while let Some(q) = p {
            if c[q as usize].function == root {
                nested = true;
                break;
            }
            p = c[q as usize].parent;
        }
        if !nested {
            for e in 0..n {
                inclusive[e] += all[i][e];
            }
        }
    }
    (self_cost, inclusive)
}

impl TrapSection {
    /// A problem with the section's shape in `profile` (a root out of
    /// range, cost vectors of the wrong length), in words.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let (n, nf) = (profile.events.len(), profile.functions.len());
        for c in &self.causes {
            if c.root.index() >= nf {
                return Some("the traps section names a function out of range".into());
            }
            if c.self_cost.len() != n || c.inclusive.len() != n {
                return Some("the traps section has a cost vector of the wrong length".into());
            }
        }
        None
    }
}
