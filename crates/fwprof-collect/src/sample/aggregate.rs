//! Aggregation of unwound samples into functions, per-address costs, arcs
//! and the calling-context tree.

use std::collections::BTreeMap;

use fwprof_unwind::Stack;

use crate::context_tree::{ArcTable, ContextTree, NONE};
use crate::FunctionMap;

/// One node of the sampled calling-context tree: a function called from
/// its parent context (`None`: a root), and the cost of the samples whose
/// leaf it was (one value per event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledContext {
    /// The parent context's index, `None` for a root.
    pub parent: Option<u32>,
    /// The function's id in [`SampleData::map`].
    pub function: u32,
    /// Self cost, one value per event.
    pub self_cost: Vec<u64>,
}

/// One stored sample: when it was taken and its unwound stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Instructions retired when it was taken.
    pub instret: u64,
    /// Frame addresses, leaf first: the sampled pc, then return addresses.
    pub frames: Vec<u64>,
    /// The unwinder stopped before the outermost frame.
    pub truncated: bool,
}

/// Where a sample taken in a trap (or signal) handler belongs: the
/// contexts open (outermost first), the innermost one's handler entry and
/// the pc it interrupted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrapPath {
    /// What each open context's root stands for, outermost first.
    pub roots: Vec<crate::RootKind>,
    /// The innermost context's handler entry ([`fwprof_sim::TrapInfo::handler`]).
    pub handler: u64,
    /// The pc the innermost context interrupted.
    pub pc: u64,
}

/// A sampled call-graph arc: `(caller, callee, call site)`, the caller
/// `None` for the root.
pub type ArcKey = (Option<u32>, u32, u64);

/// What a sampled run gathered, every cost a vector of one value per event
/// in the order the sampler was given them (instructions, samples, and
/// cycles with a cost model).
#[derive(Debug)]
pub struct SampleData {
    /// The function map, with the ranges added for code outside every symbol.
    pub map: FunctionMap,
    /// Self cost per function id (shorter than the map when the last
    /// functions were never sampled).
    pub self_cost: Vec<Vec<u64>>,
    /// Inclusive cost per function id: once per sample it is on the stack.
    pub inclusive: Vec<Vec<u64>>,
    /// Sampled pcs in address order: `(pc, function, length, raw bits, cost)`.
    pub addrs: Vec<(u64, u32, u8, u32, Vec<u64>)>,
    /// Arcs in order of first appearance: `(caller, callee, call site)`
    /// (caller `None`: the root) and inclusive cost.
    pub arcs: Vec<(ArcKey, Vec<u64>)>,
    /// The calling-context tree, parents first.
    pub contexts: Vec<SampledContext>,
    /// Recursion was folded to keep the tree within
    /// [`crate::MAX_CONTEXTS`] contexts: past it, a frame whose function
    /// is already on the sample's path (nearer the root) gets that
    /// frame's context, as in the exact call stack.
    pub contexts_folded: bool,
    /// The first samples, one by one (see [`SampleData::taken`]).
    pub samples: Vec<Sample>,
    /// Samples taken, stored or not.
    pub taken: u64,
    /// Samples whose stack the unwinder could not complete.
    pub truncated: u64,
    /// Sampling points that fell while the program slept (paced by cycles).
    pub idle_samples: u64,
    /// Total cost per event.
    pub totals: Vec<u64>,
    /// Self cost per (context, privilege at the sample, as 0 U, 1 S, 3 M).
    pub contexts_by_privilege: Vec<(u32, u8, Vec<u64>)>,
    /// Counts and latencies per trap cause (set by [`crate::sample::Sampler::finish`]).
    pub trap_causes: Vec<crate::TrapCauseStats>,
}

/// Samples kept one by one ([`SampleData::samples`]; about 100 bytes each:
/// 200 MB at most). A program that runs for hours must not exhaust the
/// host: later samples still count in every cost, arc and context, and a
/// warning says how many were not kept individually.
const MAX_STORED_SAMPLES: usize = 1 << 21;

/// Aggregates samples into the profile's functions, per-address costs,
/// arcs and calling contexts.
pub(crate) struct Aggregate {
    n: usize,
    pub(super) map: FunctionMap,
    self_cost: Vec<Vec<u64>>,
    inclusive: Vec<Vec<u64>>,
    /// Sampled pcs: function, length, raw bits, cost.
    addrs: BTreeMap<u64, (u32, u8, u32, Vec<u64>)>,
    /// The arcs `(caller, callee, call site)` (caller [`NONE`]: the
    /// root), and their inclusive cost by arc id.
    arc_table: ArcTable,
    arcs: Vec<Vec<u64>>,
    tree: ContextTree,
    contexts: Vec<SampledContext>,
    samples: Vec<Sample>,
    /// Samples taken (stored or not; see [`MAX_STORED_SAMPLES`]).
    taken: u64,
    truncated: u64,
    totals: Vec<u64>,
    by_privilege: BTreeMap<(u32, u8), Vec<u64>>,
}

impl Aggregate {
    pub(crate) fn new(n: usize, map: FunctionMap) -> Aggregate {
        Aggregate::with_tree(n, map, ContextTree::default())
    }

    fn with_tree(n: usize, map: FunctionMap, tree: ContextTree) -> Aggregate {
        Aggregate {
            n,
            map,
            self_cost: Vec::new(),
            inclusive: Vec::new(),
            addrs: BTreeMap::new(),
            arc_table: ArcTable::default(),
            arcs: Vec::new(),
            tree,
            contexts: Vec::new(),
            samples: Vec::new(),
            taken: 0,
            truncated: 0,
            totals: vec![0; n],
            by_privilege: BTreeMap::new(),
        }
    }

    fn function_slot(&mut self, f: u32) {
        let need = f as usize + 1;
        if self.self_cost.len() < need {
            self.self_cost.resize(need, vec![0; self.n]);
            self.inclusive.resize(need, vec![0; self.n]);
        }
    }

    /// Add one sample: `stack` unwound at `instret`, standing for `interval`
    /// (one value per event), the instruction at its pc `(len, raw)`,
    /// taken at `privilege`. In a trap handler (`trap`), the stack is cut
    /// at the trap ([`cut_at_trap`]) and hangs from the trap roots.
    pub(crate) fn add(
        &mut self,
        stack: &Stack,
        instret: u64,
        interval: &[u64],
        inst: (u8, u32),
        trap: Option<&TrapPath>,
        privilege: u8,
    ) {
        let add = |dst: &mut Vec<u64>, v: &[u64]| {
            for (d, s) in dst.iter_mut().zip(v) {
                *d += s;
            }
        };
        let mut truncated = stack.truncated();
        let mut funcs: Vec<u32> = stack
            .frames
            .iter()
            .map(|f| self.map.lookup_or_add(f.address))
            .collect();
        let mut frames: Vec<u64> = stack.frames.iter().map(|f| f.address).collect();
        // Call sites of the arcs (frame k+1's address for the arc into frame k).
        let mut sites = frames.clone();
        let trap = trap.filter(|t| !left_signal_handler(stack, &funcs, t, &mut self.map));
        if let Some(t) = trap {
            let handler = self.map.lookup_or_add(t.handler);
            let (keep, cut) = cut_at_trap(stack, &funcs, handler, t.pc);
            funcs.truncate(keep);
            frames.truncate(keep);
            sites.truncate(keep);
            truncated = cut;
            for &kind in t.roots.iter().rev() {
                funcs.push(self.map.context_root(kind));
                sites.push(0);
            }
        }
        let stack_frames = frames;
        for &f in &funcs {
            self.function_slot(f);
        }
        add(&mut self.totals, interval);
        let leaf = funcs[0];
        add(&mut self.self_cost[leaf as usize], interval);
        let pc = stack.frames[0].address;
        let _ = &stack_frames;
        let n = self.n;
        let entry = self
            .addrs
            .entry(pc)
            .or_insert_with(|| (leaf, inst.0, inst.1, vec![0; n]));
        add(&mut entry.3, interval);
        // Inclusive: once per function per sample (recursion counts once).
        let mut seen: Vec<u32> = Vec::with_capacity(funcs.len());
        for &f in &funcs {
            if !seen.contains(&f) {
                seen.push(f);
                add(&mut self.inclusive[f as usize], interval);
            }
        }
        // Arcs: caller frame k+1 → callee frame k at frame k+1's call site,
        // once per sample; the outermost frame hangs from the root.
        let mut arcs: Vec<ArcKey> = (0..funcs.len() - 1)
            .map(|k| (Some(funcs[k + 1]), funcs[k], sites[k + 1]))
            .collect();
        arcs.push((None, funcs[funcs.len() - 1], 0));
        arcs.sort_unstable();
        arcs.dedup();
        for (caller, callee, site) in arcs {
            let id = self
                .arc_table
                .id((caller.unwrap_or(NONE), callee, site, false));
            if id as usize == self.arcs.len() {
                self.arcs.push(vec![0; n]);
            }
            add(&mut self.arcs[id as usize], interval);
        }
        // Contexts: the root-to-leaf path, `(function, context)` per frame.
        let mut path: Vec<(u32, u32)> = Vec::with_capacity(funcs.len());
        for &f in funcs.iter().rev() {
            let parent = path.last().map_or(NONE, |&(_, c)| c);
            let id = self.tree.child(parent, f, || {
                path.iter().rev().find(|&&(g, _)| g == f).map(|&(_, c)| c)
            });
            if id as usize == self.contexts.len() {
                self.contexts.push(SampledContext {
                    parent: (parent != NONE).then_some(parent),
                    function: f,
                    self_cost: vec![0; n],
                });
            }
            path.push((f, id));
        }
        if let Some(&(_, leaf_ctx)) = path.last() {
            add(&mut self.contexts[leaf_ctx as usize].self_cost, interval);
            let n = self.n;
            add(
                self.by_privilege
                    .entry((leaf_ctx, privilege))
                    .or_insert_with(|| vec![0; n]),
                interval,
            );
        }
        if truncated {
            self.truncated += 1;
        }
        self.taken += 1;
        if self.samples.len() < MAX_STORED_SAMPLES {
            self.samples.push(Sample {
                instret,
                frames: stack_frames,
                truncated,
            });
        }
    }

    /// The aggregated data; `idle_samples` as counted by the sampler.
    pub(crate) fn finish(self, idle_samples: u64) -> SampleData {
        let arcs = self
            .arc_table
            .keys()
            .iter()
            .zip(self.arcs)
            .map(|(&(caller, callee, site, _), cost)| {
                (((caller != NONE).then_some(caller), callee, site), cost)
            })
            .collect();
        SampleData {
            map: self.map,
            self_cost: self.self_cost,
            inclusive: self.inclusive,
            addrs: self
                .addrs
                .into_iter()
                .map(|(pc, (f, len, raw, cost))| (pc, f, len, raw, cost))
                .collect(),
            arcs,
            contexts: self.contexts,
            contexts_folded: self.tree.folded(),
            samples: self.samples,
            taken: self.taken,
            truncated: self.truncated,
            idle_samples,
            totals: self.totals,
            contexts_by_privilege: self
                .by_privilege
                .into_iter()
                .map(|((c, p), v)| (c, p, v))
                .collect(),
            trap_causes: Vec::new(),
        }
    }
}

/// True if a sample whose open contexts are `t` is in fact outside them:
/// they are signal contexts, and the unwinder walked the whole stack
/// (`funcs`, its frames' functions) without meeting the innermost
/// handler — the program left it by a non-local exit (`siglongjmp`) that
/// no hook reports, and now runs deeper than the `sp` the signal
/// interrupted (the tracker's own test, [`crate::SignalStack::left_at`],
/// catches it only while `sp` is above that).
fn left_signal_handler(stack: &Stack, funcs: &[u32], t: &TrapPath, map: &mut FunctionMap) -> bool {
    let signals = t
        .roots
        .iter()
        .all(|r| matches!(r, crate::RootKind::Signal(_)));
    signals && !stack.truncated() && !funcs.contains(&map.lookup_or_add(t.handler))
}

/// How many frames (from the leaf) of a sample taken in a trap handler
/// belong to the handler, and whether the stack is truncated at the trap.
/// `funcs` are the frames' functions, `handler` the function of the
/// handler's entry and `pc` the interrupted pc. The handler's frames end
/// at the first frame (from the leaf) in the handler's entry function;
/// else just before a frame at the interrupted pc (the unwinder went
/// through the trap frame, e.g. after a vector table's jump); else the
/// trap frame could not be recognised: the frames the unwinder found are
/// kept if it stopped there (marked truncated), only the sampled pc if
/// it ran on into code it took for callers (also truncated).
pub(crate) fn cut_at_trap(stack: &Stack, funcs: &[u32], handler: u32, pc: u64) -> (usize, bool) {
    if let Some(k) = funcs.iter().position(|&f| f == handler) {
        return (k + 1, false);
    }
    if let Some(k) = stack
        .frames
        .iter()
        .skip(1)
        .position(|f| f.address == pc || f.return_address == Some(pc))
    {
        return (k + 1, false);
    }
    if stack.truncated() {
        (funcs.len(), true)
    } else {
        (1, true)
    }
}

#[cfg(test)]
mod tests {
    use fwprof_unwind::{Frame, FrameSource, StackEnd};

    use super::*;
    use crate::MAX_CONTEXTS;

    /// A complete stack of frame addresses, leaf first.
    fn stack(addresses: &[u64]) -> Stack {
        let frames = addresses
            .iter()
            .enumerate()
            .map(|(k, &address)| Frame {
                address,
                return_address: (k > 0).then_some(address + 4),
                cfa: None,
                source: if k == 0 {
                    FrameSource::Pc
                } else {
                    FrameSource::Cfi
                },
            })
            .collect();
        Stack {
            frames,
            end: StackEnd::EntryFunction,
        }
    }

    #[test]
    fn sampled_contexts_stay_bounded_and_recursion_folds() {
        // main (0x1000) calls a (0x2000) or b (0x3000), which recurse into
        // each other 4,000 deep in a pseudo-random pattern: each sample's
        // path is new from near the root, so 400 samples would make about
        // 1.6 million contexts. Past MAX_CONTEXTS the tree folds recursion
        // (a frame whose function is on the path nearer the root takes
        // that frame's context), as the exact call stack does.
        let map = FunctionMap::new(
            &[(0x1000, 0x1100), (0x2000, 0x2100), (0x3000, 0x3100)],
            &[0x1000, 0x2000, 0x3000],
        );
        let mut agg = Aggregate::new(2, map);
        let (samples, depth) = (400u64, 4000);
        let mut lfsr = 0xace1u32;
        for i in 0..samples {
            let mut frames: Vec<u64> = (0..depth)
                .map(|_| {
                    lfsr = (lfsr >> 1) ^ (0u32.wrapping_sub(lfsr & 1) & 0xb400);
                    if lfsr & 1 == 0 {
                        0x2010
                    } else {
                        0x3010
                    }
                })
                .collect();
            frames.push(0x1010);
            agg.add(&stack(&frames), i * 100, &[100, 1], (4, 0), None, 3);
        }
        let d = agg.finish(0);
        assert!(d.contexts_folded);
        // After the cap, a sample adds at most the first a and the first b
        // of its path (the only frames whose function is not yet on it).
        assert!(
            d.contexts.len() as u64 <= MAX_CONTEXTS as u64 + 2 * samples,
            "{} contexts",
            d.contexts.len()
        );
        assert!(d.contexts.len() >= MAX_CONTEXTS);
        // Every sample's cost is still in the tree and the totals.
        let self_sum: u64 = d.contexts.iter().map(|c| c.self_cost[0]).sum();
        assert_eq!((self_sum, d.totals[0]), (100 * samples, 100 * samples));
        assert!(d
            .contexts
            .iter()
            .enumerate()
            .all(|(i, c)| c.parent.is_none_or(|p| (p as usize) < i)));
    }

    #[test]
    fn sampled_contexts_below_the_cap_are_the_paths() {
        let map = FunctionMap::new(&[(0x1000, 0x1100), (0x2000, 0x2100)], &[0x1000, 0x2000]);
        let mut agg = Aggregate::new(2, map);
        // main -> f -> f, then main -> f.
        agg.add(
            &stack(&[0x2004, 0x2010, 0x1010]),
            10,
            &[10, 1],
            (4, 0),
            None,
            3,
        );
        agg.add(&stack(&[0x2008, 0x1010]), 20, &[10, 1], (4, 0), None, 3);
        let d = agg.finish(0);
        assert!(!d.contexts_folded);
        let shape: Vec<_> = d
            .contexts
            .iter()
            .map(|c| (c.parent, c.function, c.self_cost[0]))
            .collect();
        assert_eq!(
            shape,
            vec![(None, 0, 0), (Some(0), 1, 10), (Some(1), 1, 10)]
        );
        assert_eq!(
            d.arcs,
            vec![
                ((None, 0, 0), vec![20, 2]),
                ((Some(0), 1, 0x1010), vec![20, 2]),
                ((Some(1), 1, 0x2010), vec![10, 1]),
            ]
        );
    }
}
