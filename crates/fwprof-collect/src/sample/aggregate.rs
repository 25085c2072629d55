//! Aggregation of unwound samples into functions, per-address costs, arcs
//! and the calling-context tree.

use std::collections::{BTreeMap, HashMap};

use fwprof_unwind::Stack;

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
    map: FunctionMap,
    self_cost: Vec<Vec<u64>>,
    inclusive: Vec<Vec<u64>>,
    /// Sampled pcs: function, length, raw bits, cost.
    addrs: BTreeMap<u64, (u32, u8, u32, Vec<u64>)>,
    /// `(caller, callee, call site)` → inclusive; caller `None` = the root.
    arcs: HashMap<ArcKey, Vec<u64>>,
    arc_order: Vec<ArcKey>,
    contexts: Vec<SampledContext>,
    context_index: HashMap<(Option<u32>, u32), u32>,
    samples: Vec<Sample>,
    /// Samples taken (stored or not; see [`MAX_STORED_SAMPLES`]).
    taken: u64,
    truncated: u64,
    totals: Vec<u64>,
}

impl Aggregate {
    pub(crate) fn new(n: usize, map: FunctionMap) -> Aggregate {
        Aggregate {
            n,
            map,
            self_cost: Vec::new(),
            inclusive: Vec::new(),
            addrs: BTreeMap::new(),
            arcs: HashMap::new(),
            arc_order: Vec::new(),
            contexts: Vec::new(),
            context_index: HashMap::new(),
            samples: Vec::new(),
            taken: 0,
            truncated: 0,
            totals: vec![0; n],
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
    /// (one value per event), the instruction at its pc `(len, raw)`.
    pub(crate) fn add(&mut self, stack: &Stack, instret: u64, interval: &[u64], inst: (u8, u32)) {
        let add = |dst: &mut Vec<u64>, v: &[u64]| {
            for (d, s) in dst.iter_mut().zip(v) {
                *d += s;
            }
        };
        let funcs: Vec<u32> = stack
            .frames
            .iter()
            .map(|f| self.map.lookup_or_add(f.address))
            .collect();
        for &f in &funcs {
            self.function_slot(f);
        }
        add(&mut self.totals, interval);
        let leaf = funcs[0];
        add(&mut self.self_cost[leaf as usize], interval);
        let pc = stack.frames[0].address;
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
            .map(|k| (Some(funcs[k + 1]), funcs[k], stack.frames[k + 1].address))
            .collect();
        arcs.push((None, funcs[funcs.len() - 1], 0));
        arcs.sort_unstable();
        arcs.dedup();
        for key in arcs {
            let v = self.arcs.entry(key).or_insert_with(|| {
                self.arc_order.push(key);
                vec![0; n]
            });
            add(v, interval);
        }
        // Contexts: the root-to-leaf path.
        let mut parent: Option<u32> = None;
        for &f in funcs.iter().rev() {
            let id = match self.context_index.get(&(parent, f)) {
                Some(&id) => id,
                None => {
                    let id = self.contexts.len() as u32;
                    self.contexts.push(SampledContext {
                        parent,
                        function: f,
                        self_cost: vec![0; n],
                    });
                    self.context_index.insert((parent, f), id);
                    id
                }
            };
            parent = Some(id);
        }
        if let Some(leaf_ctx) = parent {
            add(&mut self.contexts[leaf_ctx as usize].self_cost, interval);
        }
        if stack.truncated() {
            self.truncated += 1;
        }
        self.taken += 1;
        if self.samples.len() < MAX_STORED_SAMPLES {
            self.samples.push(Sample {
                instret,
                frames: stack.addresses(),
                truncated: stack.truncated(),
            });
        }
    }

    /// The aggregated data; `idle_samples` as counted by the sampler.
    pub(crate) fn finish(self, idle_samples: u64) -> SampleData {
        let mut arcs = self.arcs;
        let arcs = self
            .arc_order
            .iter()
            .map(|key| (*key, arcs.remove(key).unwrap_or_default()))
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
            samples: self.samples,
            taken: self.taken,
            truncated: self.truncated,
            idle_samples,
            totals: self.totals,
        }
    }
}
